// The module in a real browser against a real bridge: headless Chromium loads a
// Foundry-like test page (testenv/), which loads the module's own files; the page
// connects to `python -m fracas.bridge`, resolves attacks, applies damage and undoes
// it through the chat card's button, rolls initiative, resolves a mob, and rides
// out a bridge restart.

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { launchChromium, missingPrerequisite, serveModule, startBridge, tempDir } from "../testenv/harness.js";

const missing = missingPrerequisite();
if (missing && process.env.CI) throw new Error(`the browser test must run under CI, but ${missing}`);
const skip = missing ? `skipped: ${missing}` : false;

const TOKEN = "browser-test-token-0123456789";
const sword = { method: "melee", style: "slashing", dice: 2, weight: 1, damage_type: "edged" };
// Two natural 20s, a crit chain of 20 (its d3 shows 2) then 1: 2 hits + 2 + weight 1 + Strength 4's +1 = 6.
const TWO_CRITS = [20, 20, 20, 2, 1];

describe("the module in Chromium against a real bridge", { skip }, () => {
  let site;
  let bridge;
  let browser;
  let tmp;

  before(async () => {
    tmp = tempDir();
    site = await serveModule();
    bridge = await startBridge({ token: TOKEN, origin: site.origin, journal: join(tmp.dir, "journal.sqlite3") });
    browser = await launchChromium(join(tmp.dir, "profile"));
  });

  after(async () => {
    await browser?.close();
    await bridge?.stop();
    await site?.close();
    tmp?.remove();
  });

  /** A page of the test world, booted and (unless told otherwise) connected. */
  async function openWorld({ gen = 13, token = TOKEN, url = bridge.url, expect = "connected" } = {}) {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e));
    const query = new URLSearchParams({ gen: String(gen), bridgeUrl: url, bridgeToken: token });
    await page.goto(`${site.origin}/testenv/index.html?${query}`);
    await page.waitForFunction(() => window.__booted === true);
    if (expect) await page.waitForSelector(`#fracas-status[data-state="${expect}"]`);
    await page.evaluate(() => {
      const sheet = (ac, hp, str, agi) => ({ health: { value: hp, max: hp }, attributes: { ac: { value: ac }, strength: { value: str }, agility: { value: agi } } });
      __world.addToken({ id: "tokHero", name: "Aldric", actor: { id: "hero", name: "Aldric", system: sheet(13, 20, 4, 3) } });
      __world.addToken({ id: "tokGob", name: "Goblin", actor: { id: "gob", name: "Goblin", uuid: "Scene.s1.Token.tokGob.Actor.gob", system: sheet(12, 12, 2, 2) } });
      __world.control(["tokHero"]);
      __world.target(["tokGob"]);
    });
    return { page, errors };
  }

  const hp = (page, token) => page.evaluate((t) => __world.actor(t).system.health.value, token);

  test("attack: real dice in chat, damage applied, Undo restores it (v13 hooks)", async () => {
    const { page, errors } = await openWorld({ gen: 13 });
    const out = await page.evaluate(async ([strike, rolls]) => {
      const r = await game.modules.get("fracas").api.attack({ strikes: [strike], rolls });
      const message = game.messages.get(r.messageId);
      const journal = await game.modules.get("fracas").api.bridge("journal.get", { id: r.requestId });
      return {
        total: r.result.total_damage,
        seed: String(r.result.seed),
        journalSeed: String(journal.result.seed),
        changes: r.changes,
        flagsSeed: message.flags.fracas.seed,
        terms: message.rolls.map((roll) => roll.terms.filter((t) => t.faces).map((t) => ({ faces: t.faces, values: t.results.map((x) => x.result), evaluated: t._evaluated, cls: t.constructor.name }))),
        formula: message.rolls[0].formula,
        messageId: r.messageId,
      };
    }, [sword, TWO_CRITS]);
    assert.equal(out.total, 6);
    assert.equal(await hp(page, "tokGob"), 6);
    assert.deepEqual(out.changes, [{ uuid: "Scene.s1.Token.tokGob.Actor.gob", name: "Goblin", path: "system.health.value", before: 12, damage: 6, after: 6, targets: ["tokGob"] }]);
    assert.equal(out.seed, out.journalSeed, "the seed on the card is the journaled one, all 64 bits");
    assert.equal(out.flagsSeed, out.seed);
    assert.deepEqual(out.terms, [[
      { faces: 20, values: [20, 20], evaluated: true, cls: "Die" },
      { faces: 20, values: [20, 1], evaluated: true, cls: "Die" },
      { faces: 3, values: [2], evaluated: true, cls: "Die" },
    ]]);
    assert.equal(out.formula, "2d20[pool] + 2d20[crit] + 1d3[crit damage]");

    const card = page.locator(`[data-message-id="${out.messageId}"] .fracas-card`);
    assert.equal(await card.locator(".fracas-title").textContent(), "Aldric attacks");
    assert.equal(await card.locator(".fracas-strike .dice-rolls").first().locator("li.success").count(), 2);
    assert.match(await card.locator(".fracas-outcome").textContent(), /2 hits · crit \(chain of 2\) · 6 edged damage/);
    assert.match(await card.locator(".fracas-seed").textContent(), new RegExp(`seed ${out.seed}`));
    assert.match(await card.locator(".fracas-applied").textContent(), /damage applied: Goblin 12 → 6/);

    await card.locator('[data-fracas-action="undo"]').click();
    await page.waitForFunction(() => __world.actor("tokGob").system.health.value === 12);
    const undone = page.locator(`[data-message-id="${out.messageId}"] [data-fracas-action="undo"]`);
    await page.waitForFunction((id) => document.querySelector(`[data-message-id="${id}"] [data-fracas-action="undo"]`)?.disabled === true, out.messageId);
    assert.equal(await undone.textContent(), "Damage undone");
    const notes = await page.evaluate(() => __world.notes.map((n) => n.text));
    assert.ok(notes.includes("fracas: damage undone (Goblin back to 12)"), notes.join("\n"));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("the macro API with a ruleset: a Cartyrion attack through the bridge, applied and undoable", async () => {
    const { page, errors } = await openWorld({ gen: 13 });
    const out = await page.evaluate(async () => {
      const api = game.modules.get("fracas").api;
      const r = await api.attack({
        ruleset: "cartyrion", strikes: [{ method: "melee", die: "d6" }], rolls: [5, 3, 4, 3, 2],
        attackerData: { level: 9, bonus: 8, magic: 2 }, targetData: { dex: 3, armor: 1 },
      });
      const bad = await api.attack({ ruleset: "cartyrion", strikes: [{ method: "melee", die: "d7" }], attackerData: { level: 1 } });
      return { total: r.result.total_damage, ruleset: r.result.ruleset, messageId: r.messageId, changes: r.changes, bad,
        notes: __world.notes.map((n) => `${n.level}: ${n.text}`) };
    });
    assert.equal(out.ruleset, "cartyrion");
    assert.equal(out.total, 31);
    assert.equal(await hp(page, "tokGob"), 0, "12 Body, 31 damage, floored at 0");
    const card = page.locator(`[data-message-id="${out.messageId}"] .fracas-card`);
    assert.equal(await card.locator(".fracas-title").textContent(), "Aldric attacks (Cartyrion)");
    assert.match(await card.locator(".fracas-targets").textContent(), /31 damage \(stamina 31, injury 0\)/);
    assert.equal(out.bad, null);
    assert.match(out.notes.at(-1), /strikes\[0\]\.die: d7 is not a die of the Cartyrion rules.*CT-3/);
    await card.locator('[data-fracas-action="undo"]').click();
    await page.waitForFunction(() => __world.actor("tokGob").system.health.value === 12);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("api.odds: exact odds through the bridge, a GM-only card, nothing rolled or applied", async () => {
    const { page, errors } = await openWorld({ gen: 13 });
    const out = await page.evaluate(async (strike) => {
      const api = game.modules.get("fracas").api;
      const r = await api.odds({ strikes: [strike], atLeast: [5] });
      const ct = await api.odds({ ruleset: "cartyrion", strikes: [{ method: "melee", die: "d6" }],
        attackerData: { level: 9, bonus: 8, magic: 2 }, targetData: { dex: 3, armor: 1 }, count: 2 });
      const message = game.messages.get(r.messageId);
      return { p: r.result.targets.tokGob, ct: ct.result.targets.tokGob, content: message.content,
        whisper: message.whisper ?? null };
    }, sword);
    assert.ok(out.p.p_hit > 0 && out.p.p_hit < 1 && out.p.p_drop !== undefined && out.p.remaining === 12);
    assert.ok("5" in out.p.p_at_least);
    assert.ok(Math.abs(out.ct.mean - 70) < 1e-9 && out.ct.p_drop === 1);
    assert.match(out.content, /Odds: Aldric/);
    assert.equal(await hp(page, "tokGob"), 12);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("a refused request is one notification naming the problem; nothing applied (v12 hooks)", async () => {
    const { page, errors } = await openWorld({ gen: 12 });
    const out = await page.evaluate(async (strike) => {
      const before = game.messages.size;
      const r = await game.modules.get("fracas").api.attack({ strikes: [{ ...strike, dice: 6 }] });
      return { r, added: game.messages.size - before, notes: __world.notes.map((n) => `${n.level}: ${n.text}`) };
    }, sword);
    assert.equal(out.r, null);
    assert.equal(out.added, 0);
    assert.equal(await hp(page, "tokGob"), 12);
    assert.equal(out.notes.length, 1, out.notes.join("\n"));
    assert.match(out.notes[0], /^warn: fracas: attack\.resolve failed: \$\.params\.strikes\[0\]\.dice: .*\(code -32602\) \[strike 1, at Goblin\]$/);

    // The v12 render hook (jQuery-like argument) wires the Undo button too.
    const messageId = await page.evaluate(async ([strike, rolls]) => (await game.modules.get("fracas").api.attack({ strikes: [strike], rolls })).messageId, [sword, TWO_CRITS]);
    assert.equal(await hp(page, "tokGob"), 6);
    await page.locator(`[data-message-id="${messageId}"] [data-fracas-action="undo"]`).click();
    await page.waitForFunction(() => __world.actor("tokGob").system.health.value === 12);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("the ready-made macro opens the dialog and attacks with its answers", async () => {
    const { page } = await openWorld();
    const { MACROS } = await import("../scripts/macros.js");
    const command = MACROS.find((m) => m.key === "attack").command;
    const pending = page.evaluate((code) => new Function(code)(), command);
    await pending;
    const dialog = page.locator("dialog");
    await dialog.locator('select[name="style"]').selectOption("cleaving");
    await dialog.locator('input[name="dice"]').fill("2");
    await dialog.locator('input[name="rolls"]').fill("20 20 20 2 1");
    await dialog.locator('[data-action="ok"]').click();
    await page.waitForFunction(() => [...game.messages.values()].some((m) => m.flags.fracas?.kind === "attack"));
    const last = await page.evaluate(() => {
      const m = [...game.messages.values()].at(-1);
      return { content: m.content, style: game.settings.get("fracas", "lastStrike").style };
    });
    assert.match(last.content, /melee · cleaving · edged/);
    assert.equal(last.style, "cleaving");
    assert.equal(await hp(page, "tokGob"), 6);
    await page.close();
  });

  test("initiative: ER-18 order from the bridge set on the combat tracker", async () => {
    const { page } = await openWorld();
    const out = await page.evaluate(async () => {
      const combat = __world.startCombat(["tokHero", "tokGob"]);
      const r = await game.modules.get("fracas").api.initiative({ seed: 5 });
      return {
        order: r.result.order.map((e) => e.id),
        turns: combat.turns.map((c) => c.id),
        values: combat.turns.map((c) => c.initiative),
        dice: game.messages.get(r.messageId).rolls[0].terms[0].results.map((x) => x.result),
        rolled: r.result.order.map((e) => e.roll),
      };
    });
    assert.deepEqual(out.turns, out.order);
    assert.ok(out.values.every((v) => typeof v === "number"));
    assert.deepEqual(out.dice, out.rolled);
    await page.close();
  });

  test("mob: tokens grouped by actor in one bulk request, totals applied and undone", async () => {
    const { page } = await openWorld();
    const out = await page.evaluate(async () => {
      const bones = { health: { value: 5, max: 5 }, attributes: { ac: { value: 10 }, strength: { value: 3 }, agility: { value: 2 } } };
      const ids = [];
      for (let i = 0; i < 6; i++) {
        const id = `tokSkel${i}`;
        __world.addToken({ id, name: "Skeleton", actor: { id: "skel", name: "Skeleton", uuid: `Scene.s1.Token.${id}.Actor.skel`, system: bones } });
        ids.push(id);
      }
      __world.control(ids);
      __world.target(["tokHero", "tokGob"]);
      const api = game.modules.get("fracas").api;
      const r = await api.mob({ strikes: [{ method: "melee", style: "slashing", dice: 1, weight: 1, damage_type: "edged" }], seed: 7 });
      const after = { hero: __world.actor("tokHero").system.health.value, gob: __world.actor("tokGob").system.health.value };
      await api.undo(r.messageId);
      return {
        sent: r.result.groups.map((g) => [g.profile, g.target, g.count]),
        damage: { hero: r.result.targets.tokHero.damage, gob: r.result.targets.tokGob.damage },
        attacks: r.result.attacks_total,
        after,
        restored: { hero: __world.actor("tokHero").system.health.value, gob: __world.actor("tokGob").system.health.value },
        card: game.messages.get(r.messageId).content,
      };
    });
    assert.equal(out.attacks, 6);
    assert.deepEqual(out.sent, [["skel", "tokHero", 3], ["skel", "tokGob", 3]], "six tokens of one actor: one profile, split across the targets");
    assert.equal(out.after.hero, Math.max(0, 20 - out.damage.hero));
    assert.equal(out.after.gob, Math.max(0, 12 - out.damage.gob));
    assert.deepEqual(out.restored, { hero: 20, gob: 12 });
    assert.match(out.card, /Mob attack: 6 attacks/);
    assert.match(out.card, /Skeleton → Aldric<\/td><td>3</);
    await page.close();
  });

  test("players: no connection, no status light, no Undo button, no Body values", async () => {
    const page = await browser.newPage();
    const query = new URLSearchParams({ gen: "13", user: "player", bridgeUrl: bridge.url, bridgeToken: TOKEN });
    await page.goto(`${site.origin}/testenv/index.html?${query}`);
    await page.waitForFunction(() => window.__booted === true);
    const out = await page.evaluate(async () => {
      // A card as the GM's client posts it, arriving on the player's client.
      const changes = [{ uuid: "Actor.x", name: "Goblin", path: "system.health.value", before: 12, damage: 6, after: 6 }];
      const content = '<div class="fracas-card"><footer class="fracas-footer"><span class="fracas-applied"></span>'
        + '<button type="button" data-fracas-action="undo">Undo damage</button></footer></div>';
      const m = await ChatMessage.create({ content, flags: { fracas: { kind: "attack", changes, undone: null } } });
      const el = document.querySelector(`[data-message-id="${m.id}"]`);
      const attack = await game.modules.get("fracas").api.attack({ strikes: [] });
      return {
        status: game.modules.get("fracas").api.status(),
        light: !!document.getElementById("fracas-status"),
        undo: !!el.querySelector('[data-fracas-action="undo"]'),
        applied: el.querySelector(".fracas-applied").textContent,
        attack,
        notes: __world.notes.map((n) => n.text),
      };
    });
    assert.deepEqual(out, {
      status: null, light: false, undo: false, applied: "damage applied", attack: null,
      notes: ["fracas: only a GM can resolve attacks with fracas: the GM's browser is the one connected to the bridge"],
    });
    await page.close();
  });

  test("a wrong token: the status says refused and why, and nothing retries", async () => {
    const { page } = await openWorld({ token: "not-the-token", expect: "refused" });
    const status = await page.evaluate(() => game.modules.get("fracas").api.status());
    assert.equal(status.state, "refused");
    assert.match(status.detail, /authentication failed/);
    const notes = await page.evaluate(() => __world.notes.map((n) => n.text));
    assert.ok(notes.some((n) => /bridge refused: .*authentication failed/.test(n)), notes.join("\n"));
    await page.close();
  });

  test("the bridge restarts mid-request: the module reconnects and the request completes once", async () => {
    const { page } = await openWorld();
    await page.evaluate(() => game.settings.set("fracas", "requestTimeoutSeconds", 60));
    await page.waitForSelector('#fracas-status[data-state="connected"]');
    const { port } = bridge;
    await bridge.stop();
    await page.waitForSelector('#fracas-status[data-state="retrying"]');
    await page.evaluate(([strike, rolls]) => {
      window.__pending = game.modules.get("fracas").api.attack({ strikes: [strike], rolls });
    }, [sword, TWO_CRITS]);
    bridge = await startBridge({ token: TOKEN, origin: site.origin, journal: join(tmp.dir, "journal.sqlite3"), port });
    await page.waitForSelector('#fracas-status[data-state="connected"]', { timeout: 60000 });
    const out = await page.evaluate(async () => {
      const r = await window.__pending;
      return { total: r?.result.total_damage, notes: __world.notes.map((n) => n.text) };
    });
    assert.equal(out.total, 6, out.notes.join("\n"));
    assert.equal(await hp(page, "tokGob"), 6);
    assert.ok(out.notes.includes("fracas: connected to the bridge"), out.notes.join("\n"));
    await page.close();
  });
});
