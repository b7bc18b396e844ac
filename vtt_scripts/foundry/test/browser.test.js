// The module in a real browser against a real bridge: headless Chromium loads a
// Foundry-like test page (testenv/), which loads the module's own files; the page
// connects to `python -m fracas.bridge`, resolves attacks, applies damage and undoes
// it through the chat card's button, rolls initiative, resolves a mob, and rides
// out a bridge restart.

import "./english.js";
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, afterEach, before, describe, test } from "node:test";

import { spawnSync } from "node:child_process";

import { PYTHON, REPO_DIR, closePages, launchChromium, missingPrerequisite, serveModule, startBridge, stopAll, tempDir } from "../testenv/harness.js";

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
    // With the tests' d6-pool plug-in registered: a ruleset this module does not port.
    bridge = await startBridge({ token: TOKEN, origin: site.origin, journal: join(tmp.dir, "journal.sqlite3"), d6Pool: true });
    browser = await launchChromium(join(tmp.dir, "profile"));
  });

  // Every page a test opened is closed after it, passed or failed: a GM page left open
  // would stay the holder of the bridge for the tests after it (as a real open tab would).
  const opened = [];
  afterEach(() => closePages(opened));
  after(() => stopAll({ browser, bridge, site, tmp }));

  /** A page of the test world, booted and (unless told otherwise) connected. */
  async function openWorld({ gen = 13, token = TOKEN, url = bridge.url, expect = "connected", user = "gm", gm = "present", extra = {} } = {}) {
    const page = await browser.newPage();
    opened.push(page);
    const errors = [];
    page.on("pageerror", (e) => errors.push(e));
    const query = new URLSearchParams({ gen: String(gen), bridgeUrl: url, bridgeToken: token, user, gm, ...extra });
    await page.goto(`${site.origin}/testenv/index.html?${query}`);
    await page.waitForFunction(() => window.__booted === true);
    if (expect) await page.waitForSelector(`#fracas-status[data-state="${expect}"]`);
    await page.evaluate(() => {
      const sheet = (ac, hp, str, agi) => ({ health: { value: hp, max: hp }, attributes: { ac: { value: ac }, strength: { value: str }, agility: { value: agi } } });
      // The player owns Aldric, who carries a longsword with fracas strike data (an item flag).
      __world.addToken({ id: "tokHero", name: "Aldric", actor: { id: "hero", name: "Aldric", system: sheet(13, 20, 4, 3),
        owners: ["userPL000000001"], items: [{ id: "itSword", name: "Longsword",
          flags: { fracas: { strikes: [{ method: "melee", style: "slashing", dice: 2, weight: 1, damage_type: "edged" }] } } }] } });
      // The GM shows the goblin's nameplate to everyone (CONST.TOKEN_DISPLAY_MODES.ALWAYS): the cards
      // players see may name it (a token's mode is NONE unless set, as BaseToken's initial value).
      __world.addToken({ id: "tokGob", name: "Goblin", displayName: 50, actor: { id: "gob", name: "Goblin", uuid: "Scene.s1.Token.tokGob.Actor.gob", system: sheet(12, 12, 2, 2) } });
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
        rollTotal: message.rolls[0].total,
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
    assert.equal(out.rollTotal, 6, "the roll's total is the strike's damage, not the sum of its faces");

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
      const dice = game.messages.get(r.messageId).rolls.map((roll) => roll.dice.map((d) => [d.faces, d.values]));
      return { total: r.result.total_damage, ruleset: r.result.ruleset, messageId: r.messageId, changes: r.changes, bad, dice,
        faces: r.result.strikes.map((st) => st.faces), notes: __world.notes.map((n) => `${n.level}: ${n.text}`) };
    });
    assert.equal(out.ruleset, "cartyrion");
    assert.deepEqual(out.dice, out.faces.map((f) => [[6, f]]), "the Cartyrion pool as real d6 rolls");
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

  test("a plug-in ruleset the module does not port (d6 pool): its contract from the bridge, resolved there, card from the served layout, applied, undoable", async () => {
    const { page, errors } = await openWorld({ gen: 13 });
    const out = await page.evaluate(async () => {
      const api = game.modules.get("fracas").api;
      const r = await api.attack({ ruleset: "d6-pool", strikes: [{ dice: 4 }], attackerData: { extra: 2 } });
      const bad = await api.attack({ ruleset: "d6-pool", strikes: [{ dice: 4, die: "d8" }] });
      const unknown = await api.attack({ ruleset: "wild-die", strikes: [{ dice: 4 }] });
      return { result: { ...r.result, seed: String(r.result.seed) }, messageId: r.messageId, changes: r.changes,
        bad, unknown, notes: __world.notes.map((n) => n.text) };
    });
    assert.equal(out.result.ruleset, "d6-pool");
    const damage = out.result.targets.tokGob.damage;
    assert.equal(await hp(page, "tokGob"), Math.max(0, 12 - damage), "the per-target total applied");
    // What the bridge rolled is what the engine rolls for that request and seed, the plug-in registered.
    const py = spawnSync(PYTHON, ["-c", 'import sys, json; sys.path.insert(0, "docs/examples/d6pool"); import fracas, fracas.rulesets; '
      + 'fracas.rulesets.register_package("d6pool"); r = json.load(sys.stdin); r["seed"] = int(r["seed"]); '
      + 'print(json.dumps(fracas.resolve(r).to_dict()["targets"]))'],
    { cwd: REPO_DIR, input: JSON.stringify({ ruleset: "d6-pool", attacker: { extra: 2 }, strikes: [{ dice: 4, target: "tokGob" }], targets: { tokGob: {} }, seed: String(out.result.seed) }), encoding: "utf8" });
    assert.equal(py.status, 0, py.stderr);
    assert.deepEqual(JSON.parse(py.stdout), out.result.targets);
    const card = page.locator(`[data-message-id="${out.messageId}"] .fracas-card`);
    assert.equal(await card.locator(".fracas-title").textContent(), "Aldric attacks (D6 pool)");
    assert.match(await card.locator(".fracas-outcome").textContent(), /^faces [1-6](, [1-6]){5} · hits \d+ · (hit|miss) → \d+$/);
    assert.equal(out.bad, null);
    assert.ok(out.notes.includes('fracas: D6 pool, strikes[0]: "die" is not one of its fields (dice, target)'), out.notes.join("\n"));
    assert.equal(out.unknown, null);
    assert.ok(out.notes.includes('fracas: unknown ruleset "wild-die": this module has no code for it and the bridge does not resolve it'), out.notes.join("\n"));
    if (damage > 0) {
      await card.locator('[data-fracas-action="undo"]').click();
      await page.waitForFunction(() => __world.actor("tokGob").system.health.value === 12);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("DP-2 initiative of the plug-in (d6 pool): its served [client] hints build the request from actor flags, the tracker and card follow the bridge's roll", async () => {
    const { page, errors } = await openWorld({ gen: 13 });
    const out = await page.evaluate(async () => {
      // Each combatant's initiative bonus in its actor's flags, as the served initiative_flags name them.
      __world.actor("tokHero").flags.fracas = { "d6-pool": { bonus: 2 } };
      __world.actor("tokGob").flags.fracas = { "d6-pool": { bonus: -1 } };
      const combat = __world.startCombat(["tokHero", "tokGob"]);
      const api = game.modules.get("fracas").api;
      const r = await api.initiative({ ruleset: "d6-pool", seed: 4242 });
      const journal = await api.bridge("journal.get", { id: r.requestId });
      const message = game.messages.get(r.messageId);
      return { params: { ...journal.params, seed: String(journal.params.seed) }, order: r.result.order,
        turns: combat.turns.map((c) => [c.name, c.initiative]), names: Object.fromEntries(combat.turns.map((c) => [c.id, c.name])),
        dice: message.rolls[0].dice.map((d) => [d.faces, d.values]), content: message.content };
    });
    assert.deepEqual(out.params.combatants.map((c) => c.bonus), [2, -1], "each actor's flags.fracas.d6-pool.bonus");
    // What the bridge rolled is what the engine rolls for that request and seed, the plug-in registered.
    const py = spawnSync(PYTHON, ["-c", 'import sys, json; sys.path.insert(0, "docs/examples/d6pool"); import fracas, fracas.rulesets; '
      + 'fracas.rulesets.register_package("d6pool"); r = json.load(sys.stdin); r["seed"] = int(r["seed"]); '
      + 'print(json.dumps(fracas.roll_initiative(r).to_dict()["order"]))'],
    { cwd: REPO_DIR, input: JSON.stringify({ ruleset: "d6-pool", combatants: out.params.combatants, seed: out.params.seed }), encoding: "utf8" });
    assert.equal(py.status, 0, py.stderr);
    const order = JSON.parse(py.stdout);
    assert.deepEqual(out.order, order);
    // The tracker: highest total first, a tie kept in the engine's order by tenths (initiativeValues).
    const tied = order[0].total === order[1].total;
    assert.deepEqual(out.turns, order.map((e, i) => [out.names[e.id], tied ? e.total + (i === 0 ? 0.1 : 0) : e.total]));
    assert.deepEqual(out.dice, [[6, order.map((e) => e.roll)]], "one d6 per combatant (initiative_die 6)");
    for (const e of order) {
      const bonus = e.total - e.roll;
      assert.ok(out.content.includes(`title="d6: ${e.roll}">${e.roll}</li></ol> ${bonus < 0 ? "-" : "+"}${Math.abs(bonus)} = <span class="fracas-total">${e.total}</span>`),
        `${out.names[e.id]}'s d6, bonus and total on the card: ${out.content}`);
    }
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
    assert.match(out.notes[0], /^warn: fracas: attack\.resolve failed: a value of the request is wrong: \$\.params\.strikes\[0\]\.dice: .*\(code -32602\) \[strike 1, at Goblin\]$/);

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
        __world.addToken({ id, name: "Skeleton", displayName: 50, actor: { id: "skel", name: "Skeleton", uuid: `Scene.s1.Token.${id}.Actor.skel`, system: bones } });
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
        // Each attack's dice as the bridge listed them (detail "dice"), and the card's Rolls.
        listed: r.result.attacks.map((a) => a.strikes.flatMap((s) => [...s.dice.map((d) => d.face), ...(s.discarded === null ? [] : [s.discarded]),
          ...s.crit_chain.flatMap((c) => (c.hit ? [c.face, c.damage] : [c.face]))])),
        rolls: game.messages.get(r.messageId).rolls.map((roll) => roll.dice.flatMap((d) => d.results.map((x) => x.result))),
        classes: game.messages.get(r.messageId).rolls.map((roll) => roll.dice.map((d) => d.constructor.name)),
      };
    });
    assert.equal(out.attacks, 6);
    // Real dice on the mob card: one Roll per attack with the faces the bridge rolled.
    assert.equal(out.rolls.length, 6);
    assert.deepEqual(out.rolls.map((faces) => [...faces].sort()), out.listed.map((faces) => [...faces].sort()));
    assert.ok(out.classes.flat().every((c) => c === "Die"));
    assert.doesNotMatch(out.card, /no dice on this card/);
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
    opened.push(page);
    const query = new URLSearchParams({ gen: "13", user: "player", gm: "absent", bridgeUrl: bridge.url, bridgeToken: TOKEN });
    await page.goto(`${site.origin}/testenv/index.html?${query}`);
    await page.waitForFunction(() => window.__booted === true);
    await page.evaluate(() => {
      __world.addToken({ id: "tokMine", name: "Mine", actor: { id: "mine", name: "Mine", owners: ["userPL000000001"],
        system: { health: { value: 5, max: 5 }, attributes: { ac: { value: 10 }, strength: { value: 3 }, agility: { value: 2 } } } } });
      __world.control(["tokMine"]);
      __world.target(["tokMine"]);
    });
    const out = await page.evaluate(async () => {
      // A card as the GM's client posts it, arriving on the player's client.
      const changes = [{ uuid: "Actor.x", name: "Goblin", path: "system.health.value", before: 12, damage: 6, after: 6 }];
      const content = '<div class="fracas-card"><footer class="fracas-footer"><span class="fracas-applied"></span>'
        + '<button type="button" data-fracas-action="undo">Undo damage</button></footer></div>';
      const m = await ChatMessage.create({ content, flags: { fracas: { kind: "attack", changes, undone: null } } });
      const el = document.querySelector(`[data-message-id="${m.id}"]`);
      const attack = await game.modules.get("fracas").api.attack({ item: "Longsword" });
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
      notes: ["fracas: no GM is connected, and only the GM's client can reach the bridge: ask your GM to join, then attack again"],
    });
    await page.close();
  });

  test("a player attacks through the GM's client (two pages): own token only, applied and shown on the GM's side", async () => {
    const gmSide = await openWorld();
    const playerSide = await openWorld({ user: "player", expect: null });
    const out = await playerSide.page.evaluate(async () => {
      const api = game.modules.get("fracas").api;
      // Not the player's token: refused by the player's client already.
      __world.control(["tokGob"]);
      const refused = await api.attack({ strikes: [{ method: "melee", style: "slashing", dice: 1, damage_type: "edged" }] });
      __world.control(["tokHero"]);
      const answer = await api.attack({ item: "Longsword" });
      return { refused, answer, notes: __world.notes.map((n) => n.text), status: api.status() };
    });
    assert.equal(out.refused, null);
    assert.equal(out.notes[0], "fracas: you can attack only with a token you own");
    assert.equal(out.status, null, "the player's client holds no connection");
    assert.ok(out.answer && typeof out.answer.total_damage === "number", JSON.stringify(out));
    // The GM's client resolved it with the bridge, applied the damage and posted the card.
    const gm = await gmSide.page.evaluate((id) => ({
      hp: __world.actor("tokGob").system.health.value,
      card: game.messages.get(id)?.content ?? null,
      player: game.messages.get(id)?.flags.fracas.requestId,
    }), out.answer.messageId);
    assert.equal(gm.hp, Math.max(0, 12 - out.answer.total_damage));
    assert.match(gm.card, /Aldric attacks/);
    assert.equal(gm.player, out.answer.requestId);
    // A forged request naming a token the sender does not own is refused by the GM's client.
    const forged = await playerSide.page.evaluate(() => new Promise((resolve) => {
      game.socket.on("module.fracas", (m) => { if (m.type === "answer") resolve(m.answer); });
      game.socket.emit("module.fracas", { type: "ask", id: "forged-1", action: "attack", to: "userGM000000001",
        data: { attacker: "tokGob", targets: ["tokHero"], strikes: [{ method: "melee", style: "slashing", dice: 5, damage_type: "edged" }] } });
    }));
    assert.match(forged.error, /only with a token you own/);
    assert.equal(await gmSide.page.evaluate(() => __world.actor("tokHero").system.health.value), 20);
    await playerSide.page.close();
    await gmSide.page.close();
  });

  test("ER-17: a player's shot into a melee gets its bystanders from the GM's scene; a hidden one is never named to players", async () => {
    // "The GM will determine the hexes that could be potentially hit. This will be all
    // adjacent hexes surrounding the original target, as well as the hex 10-feet in front
    // and behind the target in direct line of sight." (ER-17)
    const placeAll = () => {
      const sheet = (ac, hp) => ({ health: { value: hp, max: hp }, attributes: { ac: { value: ac }, strength: { value: 2 }, agility: { value: 4 } } });
      const bow = { method: "range", style: "archery", dice: 2, damage_type: "piercing", friendly_fire: true };
      __world.addToken({ id: "tokHero", name: "Aldric", x: 0, y: 500, actor: { id: "hero", name: "Aldric", system: sheet(13, 20),
        owners: ["userPL000000001"], items: [{ id: "itBow", name: "Shortbow", flags: { fracas: { strikes: [bow] } } }] } });
      __world.addToken({ id: "tokGob", name: "Goblin", x: 500, y: 500, actor: { id: "gob", name: "Goblin", uuid: "Scene.s1.Token.tokGob.Actor.gob", system: sheet(30, 12) } });
      __world.addToken({ id: "tokBob", name: "Bob", x: 500, y: 400, actor: { id: "bob", name: "Bob", system: sheet(3, 10) } });
      __world.addToken({ id: "tokSin", name: "Secret Assassin", x: 700, y: 500, hidden: true, actor: { id: "sin", name: "Secret Assassin", system: sheet(3, 10) } });
      __world.control(["tokHero"]);
      __world.target(["tokGob"]);
    };
    const gmSide = await openWorld();
    const playerSide = await openWorld({ user: "player", expect: null });
    await gmSide.page.evaluate(placeAll);
    await playerSide.page.evaluate(placeAll);
    // The player may not name bystanders; the GM's client finds them.
    const refused = await playerSide.page.evaluate(() => game.modules.get("fracas").api.attack({ item: "Shortbow", nearby: ["tokGob"] }));
    assert.equal(refused, null);
    /** @type {any[]} */
    const answers = [];
    let strayedOnHidden = false;
    // Up to 4 shots (the rate limit allows 5 in 10 s): each is journaled with its bystanders.
    for (let i = 0; i < 4 && !strayedOnHidden; i++) {
      const answer = await playerSide.page.evaluate(() => game.modules.get("fracas").api.attack({ item: "Shortbow" }));
      assert.ok(answer && typeof answer.total_damage === "number", JSON.stringify(answer));
      answers.push(answer);
      const journal = await gmSide.page.evaluate((id) => game.modules.get("fracas").api.bridge("journal.get", { id }), answer.requestId);
      assert.deepEqual(journal.params.targets.tokGob.nearby, ["tokBob", "tokSin"], "Bob next to the goblin, the assassin 10 ft behind it");
      assert.equal(journal.params.targets.tokSin.ac, 3, "the hidden creature's AC from the GM's actor");
      strayedOnHidden = journal.result.strikes[0].stray?.creature === "tokSin";
    }
    const seen = await gmSide.page.evaluate(() => [...game.messages.values()].map((m) => ({
      whisper: m.whisper.length > 0, kind: m.flags.fracas?.kind, text: `${m.content} ${JSON.stringify(m.flags)} ${JSON.stringify(m.rolls)}` })));
    const open = seen.filter((m) => !m.whisper);
    assert.ok(open.length >= answers.length, "every shot has a card the players see");
    for (const m of open) assert.doesNotMatch(m.text, /Assassin|tokSin/, "a public card or its flags name the hidden creature");
    if (strayedOnHidden) assert.ok(seen.some((m) => m.whisper && m.kind === "attack" && /Secret Assassin/.test(m.text)));
    assert.deepEqual([...gmSide.errors, ...playerSide.errors], []);
  });

  // ── the acceptance, in a stricter world: a manifest-gated socket, v13-faithful
  // enrichment, two tabs of one GM and an assistant GM ─────────────────────────────

  // Cards this page posted itself: every client now also holds the cards other clients post
  // (the test page delivers each message to every page whose user may see it, as Foundry does).
  const cardsOf = (side) => side.page.evaluate(() => {
    const arrived = new Set(__world.received.map((d) => d._id));
    return [...game.messages.values()].filter((m) => m.flags.fracas?.kind === "attack" && !arrived.has(m.id)).length;
  });
  const gobHp = (side) => side.page.evaluate(() => __world.actor("tokGob").system.health.value);

  test("two tabs of one GM and an assistant GM: one holder; a player's attack lands once; the assistant's is relayed; hand-over on close", async () => {
    const first = await openWorld();
    const second = await openWorld({ expect: "elsewhere" });
    const assistant = await openWorld({ user: "assistant", expect: "elsewhere" });
    const player = await openWorld({ user: "player", expect: null });
    assert.equal(await second.page.evaluate(() => game.modules.get("fracas").api.status()), null, "the second tab holds nothing");
    // The player is on scene 1; the holding GM looks at scene 2.
    await first.page.evaluate(() => __world.viewScene("scene2"));
    const answer = await player.page.evaluate(() => game.modules.get("fracas").api.attack({ item: "Longsword" }));
    assert.ok(answer && typeof answer.total_damage === "number", JSON.stringify(answer));
    assert.deepEqual([await cardsOf(first), await cardsOf(second)], [1, 0], "resolved by the holder only");
    assert.equal(await gobHp(first), Math.max(0, 12 - answer.total_damage));
    assert.equal(await gobHp(second), 12, "the second tab applied nothing");
    const journal = await first.page.evaluate((id) => game.modules.get("fracas").api.bridge("journal.get", { id }), answer.requestId);
    assert.equal(journal.result.total_damage, answer.total_damage, "one roll, journaled under the player's request id");

    // The assistant GM's attack (any strike: it is a GM) goes to the holder too.
    await first.page.evaluate(() => __world.viewScene("scene1"));
    const relayed = await assistant.page.evaluate(([strike, rolls]) => game.modules.get("fracas").api.attack({
      attacker: "tokHero", targets: ["tokGob"], strikes: [{ ...strike, target: "tokGob" }], rolls }), [sword, TWO_CRITS]);
    assert.equal(relayed.total_damage, 6, JSON.stringify(relayed));
    assert.deepEqual([await cardsOf(first), await cardsOf(second), await cardsOf(assistant)], [2, 0, 0]);

    // The holder closes: the next oldest tab takes over and answers the player.
    await first.page.close();
    await second.page.waitForSelector('#fracas-status[data-state="connected"]');
    const after = await player.page.evaluate(() => game.modules.get("fracas").api.attack({ item: "Longsword" }));
    assert.ok(after && typeof after.total_damage === "number", JSON.stringify(after));
    assert.equal(await cardsOf(second), 1);
    assert.deepEqual([...first.errors, ...second.errors, ...assistant.errors, ...player.errors], []);
  });

  test("a forged socket request: numbers the actor does not have are refused, a burst is cut off, nothing lands", async () => {
    const gm = await openWorld();
    const player = await openWorld({ user: "player", expect: null });
    const forge = (page, data, count = 1) => page.evaluate(([d, n]) => new Promise((resolve) => {
      const answers = [];
      game.socket.on("module.fracas", (m) => {
        if (m.type === "answer") answers.push(m.answer);
        if (answers.length === n) resolve(answers);
      });
      for (let i = 0; i < n; i++) {
        game.socket.emit("module.fracas", { type: "ask", id: `forged-${String(i).padStart(4, "0")}-${Math.random().toString(36).slice(2, 10)}`,
          action: "attack", to: "userGM000000001", data: d });
      }
    }), [data, count]);
    const ogre = { method: "melee", style: "slashing", dice: 5, weight: 2, bonus: 20, crit_range: 2, damage_type: "edged", target: "tokGob" };
    const [numbers] = await forge(player.page, { attacker: "tokHero", targets: ["tokGob"], strikes: Array(10).fill(ogre),
      ruleset: "cartyrion", attackerData: { level: 20, bonus: 99 } });
    assert.match(numbers.error, /has not allowed free-form player attacks/);
    const [big] = await forge(player.page, { attacker: "tokHero", targets: ["tokGob"], strikes: Array(40).fill(ogre) });
    assert.match(big.error, /too large/);
    const [notMine] = await forge(player.page, { attacker: "tokGob", targets: ["tokHero"], item: "itSword" });
    assert.match(notMine.error, /only with a token you own/);
    assert.equal(await gobHp(gm), 12, "nothing landed");
    assert.equal(await cardsOf(gm), 0);
    // A burst of 30 of the actor's own attack: at most five are resolved, the rest refused by name.
    const burst = await forge(player.page, { attacker: "tokHero", targets: ["tokGob"], item: "itSword" }, 30);
    const refused = burst.filter((a) => /too many requests|still being resolved/.test(a.error ?? ""));
    assert.equal(burst.length - refused.length, await cardsOf(gm));
    assert.ok(await cardsOf(gm) <= 5, `${await cardsOf(gm)} cards`);
    assert.ok(refused.length >= 25);
  });

  test("a forged request cannot reach a hidden token, nor a scene the player is not viewing (User#viewedScene)", async () => {
    const gm = await openWorld();
    const player = await openWorld({ user: "player", expect: null });
    await gm.page.evaluate(() => {
      const sheet = { health: { value: 30, max: 30 }, attributes: { ac: { value: 10 }, strength: { value: 2 }, agility: { value: 2 } } };
      __world.addToken({ id: "tokSpy", name: "Secret Spy", hidden: true, actor: { id: "spy", name: "Secret Spy", system: structuredClone(sheet) } });
      // The player's hero has a token on the GM's other scene too (a linked actor), beside a rat.
      __world.addToken({ id: "tokHero2", name: "Aldric", scene: "scene2", actor: __world.actor("tokHero") });
      __world.addToken({ id: "tokRat", name: "Rat", scene: "scene2", actor: { id: "rat", name: "Rat", system: structuredClone(sheet) } });
    });
    const forge = (data) => player.page.evaluate((d) => new Promise((resolve) => {
      game.socket.on("module.fracas", (m) => { if (m.type === "answer") resolve(m.answer); });
      game.socket.emit("module.fracas", { type: "ask", id: `forged-${Math.random().toString(36).slice(2, 12)}`, action: "attack", to: "userGM000000001", data: d });
    }), data);
    const hidden = await forge({ attacker: "tokHero", targets: ["tokSpy"], item: "itSword" });
    assert.ok(hidden.error, JSON.stringify(hidden));
    assert.ok(!/Secret Spy/.test(hidden.error), hidden.error);
    const elsewhere = await forge({ attacker: "tokHero2", scene: "scene2", targets: ["tokRat"], item: "itSword" });
    assert.ok(elsewhere.error, JSON.stringify(elsewhere));
    const hp = (id) => gm.page.evaluate((t) => __world.actor(t).system.health.value, id);
    assert.deepEqual([await hp("tokSpy"), await gm.page.evaluate(() => game.scenes.get("scene2").tokens.get("tokRat").actor.system.health.value)], [30, 30]);
    assert.equal(await cardsOf(gm), 0);
  });

  test("a request the GM's client did not hear is sent again with the same id, and answered once", async () => {
    // The player asks before any GM client is up: nobody hears the first send. The GM's client
    // comes up; the resend (same id) is answered; a second player tab sees both sends.
    const player = await openWorld({ user: "player", expect: null });
    const watcher = await openWorld({ user: "player", expect: null });
    await watcher.page.evaluate(() => {
      window.__asks = [];
      game.socket.on("module.fracas", (m) => { if (m.type === "ask") window.__asks.push(m.id); });
    });
    await player.page.evaluate(() => { window.__answer = game.modules.get("fracas").api.attack({ item: "Longsword" }); });
    await watcher.page.waitForFunction(() => window.__asks.length === 1);
    const gm = await openWorld();
    const answer = await player.page.evaluate(() => window.__answer);
    assert.ok(answer && typeof answer.total_damage === "number", JSON.stringify(answer));
    const asks = await watcher.page.evaluate(() => window.__asks);
    assert.equal(asks.length, 2, JSON.stringify(asks));
    assert.equal(asks[0], asks[1], "the resend carries the first request's id");
    assert.equal(answer.requestId, `player-userPL000000001-${asks[0]}`);
    assert.equal(await cardsOf(gm), 1);
  });

  test("a forged answer: another player's answer to a player's request is ignored; only a GM's client answers", async () => {
    // The player's page sees the assistant as the active GM (the GM is away); the assistant's
    // tab holds nothing and answers by hand, after a second tab of a player has answered first.
    const asker = await openWorld({ user: "player", expect: null, gm: "absent", extra: { assistant: "present" } });
    const forger = await openWorld({ user: "player", expect: null });
    const assistant = await openWorld({ user: "assistant", expect: "elsewhere" });
    const answerAsks = (page, answer, delay) => page.evaluate(([a, ms]) => {
      game.socket.on("module.fracas", (m) => {
        if (m.type === "ask") setTimeout(() => game.socket.emit("module.fracas", { type: "answer", id: m.id, to: "userPL000000001", answer: a }), ms);
      });
    }, [answer, delay]);
    await answerAsks(forger.page, { error: "forged by a player" }, 0);
    await answerAsks(assistant.page, { error: "answered by a GM" }, 500);
    const notes = await asker.page.evaluate(async () => {
      await game.modules.get("fracas").api.attack({ item: "Longsword" });
      return __world.notes.map((n) => n.text);
    });
    assert.ok(!notes.some((n) => /forged by a player/.test(n)), notes.join("\n"));
    assert.ok(notes.some((n) => /answered by a GM/.test(n)), notes.join("\n"));
  });

  test("a manifest without \"socket\": true: the server relays nothing (the shim drops it), as a v13 world would", async () => {
    await openWorld();
    const player = await openWorld({ user: "player", expect: null, extra: { socket: "undeclared" } });
    const dropped = await player.page.evaluate(() => {
      game.modules.get("fracas").api.attack({ item: "Longsword" }); // never answered: nobody hears it
      return __world.dropped.map((d) => [d.name, d.data.type, d.data.action]);
    });
    assert.deepEqual(dropped, [["module.fracas", "ask", "attack"]]);
  });

  test("five concurrent attacks of 6 on a 200-Body target leave 170; undoing all five gives back 200", async () => {
    const { page, errors } = await openWorld();
    const out = await page.evaluate(async ([strike, rolls]) => {
      const goblin = __world.actor("tokGob");
      goblin.system.health.value = 200;
      goblin.system.health.max = 200;
      const api = game.modules.get("fracas").api;
      const results = await Promise.all([1, 2, 3, 4, 5].map(() => api.attack({ strikes: [strike], rolls })));
      const after = goblin.system.health.value;
      await Promise.all(results.map((r) => api.undo(r.messageId)));
      return { after, damage: results.map((r) => r.result.total_damage), restored: goblin.system.health.value };
    }, [sword, TWO_CRITS]);
    assert.deepEqual(out.damage, [6, 6, 6, 6, 6]);
    assert.equal(out.after, 170);
    assert.equal(out.restored, 200);
    assert.deepEqual(errors, []);
  });

  test("the shim enriches as v13 does (decoded text nodes): escaped brackets alone would become a roll; the module's names never do", async () => {
    const { page } = await openWorld();
    const shim = await page.evaluate(async () => {
      const m = await ChatMessage.create({ content: "<p>&#91;&#91;1d20&#93;&#93; &#64;UUID&#91;Actor.x&#93;&#123;Boss&#125;</p>" });
      const el = document.querySelector(`[data-message-id="${m.id}"]`);
      return el.querySelectorAll("a.inline-roll, a.content-link").length;
    });
    assert.equal(shim, 2, "entity-escaping alone does not stop v13's enricher");
    await page.evaluate(() => { canvas.tokens.get("tokGob").document.name = "[[/r 1d20]] @UUID[Actor.x]{Boss}"; });
    const id = await page.evaluate(async ([strike, rolls]) => (await game.modules.get("fracas").api.attack({ strikes: [strike], rolls })).messageId, [sword, TWO_CRITS]);
    const message = page.locator(`[data-message-id="${id}"]`);
    assert.equal(await message.locator("a.inline-roll, a.content-link").count(), 0);
    assert.match(await message.locator(".fracas-target strong").first().textContent(), /^\[\[\/r 1d20\]\] @UUID\[Actor\.x\]\{Boss\}$/);
  });

  test("per-target buttons: undo one target, apply half, the defeated mark at 0 and off again", async () => {
    const { page, errors } = await openWorld();
    // A name with what Foundry enriches: it must arrive as text, not as a roll or a link.
    await page.evaluate(() => { __world.actor("tokGob").name = "Gob"; canvas.tokens.get("tokGob").document.name = "[[1d20]] @UUID[Actor.x]{Boss}"; });
    const out = await page.evaluate(async () => {
      const api = game.modules.get("fracas").api;
      const r = await api.attack({ strikes: [{ method: "melee", style: "slashing", dice: 2, weight: 1, damage_type: "edged" }],
        rolls: [20, 20, 20, 2, 1] });
      return { id: r.messageId, damage: r.result.total_damage };
    });
    assert.equal(out.damage, 6);
    const message = page.locator(`[data-message-id="${out.id}"]`);
    assert.equal(await message.locator("a.inline-roll, a.content-link").count(), 0, "a token's name was enriched");
    assert.match(await message.locator(".fracas-target strong").first().textContent(), /\[\[1d20\]\] @UUID\[Actor\.x\]\{Boss\}/);
    const row = () => page.locator(`[data-message-id="${out.id}"] .fracas-target-actions[data-target="tokGob"]`);
    await row().locator('[data-fracas-action="undo-target"]').click();
    await page.waitForFunction(() => __world.actor("tokGob").system.health.value === 12);
    await row().locator('[data-fracas-action="half"]').click();
    await page.waitForFunction(() => __world.actor("tokGob").system.health.value === 9);
    await row().locator('[data-fracas-action="undo-target"]').click();
    await page.waitForFunction(() => __world.actor("tokGob").system.health.value === 12);
    await row().locator('[data-fracas-action="double"]').click();
    // Health and the mark are two updates: wait for both before looking (the mark lands second).
    await page.waitForFunction(() => __world.actor("tokGob").system.health.value === 0
      && __world.actor("tokGob").statuses.has("dead"));
    assert.ok(await page.evaluate(() => __world.actor("tokGob").statuses.has("dead")), "defeated at 0");
    await page.locator(`[data-message-id="${out.id}"] [data-fracas-action="undo"]`).click();
    await page.waitForFunction(() => __world.actor("tokGob").system.health.value === 12
      && !__world.actor("tokGob").statuses.has("dead"));
    assert.equal(await page.evaluate(() => __world.actor("tokGob").system.health.value), 12);
    assert.ok(!(await page.evaluate(() => __world.actor("tokGob").statuses.has("dead"))), "the mark is taken back");
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("the token controls' button and Shift+F open the attack dialog; the dialog offers the weapon items", async () => {
    const { page, errors } = await openWorld();
    await page.locator('#controls [data-tool="fracasAttack"]').click();
    let dialog = page.locator("dialog");
    await dialog.waitFor();
    assert.deepEqual(await dialog.locator('select[name="weapon"] option').allTextContents(), ["(the strike below)", "Longsword"]);
    await dialog.locator('select[name="weapon"]').selectOption("itSword");
    await dialog.locator('input[name="rolls"]').fill("15 16");
    await dialog.locator('[data-action="ok"]').click();
    await page.waitForFunction(() => [...game.messages.values()].some((m) => m.flags.fracas?.kind === "attack"));
    // Longsword: 2d20 slashing, weight 1; 15 and 16 + 4 hit AC 12: 2 + 1 + Strength 4's +1 = 4.
    assert.equal(await hp(page, "tokGob"), 8);
    await page.keyboard.press("Shift+KeyF");
    dialog = page.locator("dialog");
    await dialog.waitFor();
    await dialog.locator('[data-action="close"]').click();
    // The status light sits in the players list, not over Foundry's own UI.
    assert.equal(await page.evaluate(() => document.getElementById("fracas-status").parentElement.id), "players");
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("ER-16 save from the token controls' second button: which kind, its dialog, rolled by the bridge, the failed save's condition set and undone", async () => {
    const { page, errors } = await openWorld();
    await page.locator('#controls [data-tool="fracasBridged"]').click();
    let dialog = page.locator("dialog");
    await dialog.waitFor();
    await dialog.locator('select[name="kind"]').selectOption("save");
    await dialog.locator('[data-action="ok"]').click();
    dialog = page.locator("dialog");
    await dialog.locator('input[name="dc"]').waitFor();
    // The goblin's Agility 2 (modifier 0) cannot reach DC 30 with a d20: it fails, and is knocked prone.
    await dialog.locator('input[name="dc"]').fill("30");
    await dialog.locator('input[name="on_fail"]').fill("prone");
    await dialog.locator('[data-action="ok"]').click();
    await page.waitForFunction(() => [...game.messages.values()].some((m) => m.flags.fracas?.kind === "save"));
    // The card is posted first, then the failed save's condition is set and recorded on the card's
    // flags for Undo (actions/bridged.js): wait for that record, not only for the card.
    await page.waitForFunction(() => [...game.messages.values()].some((m) => m.flags.fracas?.kind === "save"
      && Array.isArray(m.flags.fracas?.statuses) && m.flags.fracas.statuses.length > 0));
    const card = await page.evaluate(() => {
      const m = [...game.messages.values()].find((x) => x.flags.fracas?.kind === "save");
      const el = document.querySelector(`[data-message-id="${m.id}"]`);
      return { id: m.id, text: el.textContent, rolls: m.rolls.length, prone: __world.actor("tokGob").statuses.has("prone"),
        requestId: m.flags.fracas.requestId };
    });
    assert.match(card.text, /Agility save against DC 30: saved none; failed Goblin/);
    assert.match(card.text, /rolled by the fracas bridge \(save\.roll\)/);
    assert.match(card.text, /chance to save: Goblin 0\/1 \(0\.0%\)/);
    assert.equal(card.rolls, 1);
    assert.equal(card.prone, true);
    const journal = await page.evaluate((id) => game.modules.get("fracas").api.bridge("journal.get", { id }), card.requestId);
    assert.equal(journal.method, "save.roll");
    await page.locator(`[data-message-id="${card.id}"] [data-fracas-action="undo"]`).click();
    await page.waitForFunction(() => !__world.actor("tokGob").statuses.has("prone"));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("initiative: defeated combatants roll nothing, the current turn stays, hidden ones only in the GM's card", async () => {
    const { page } = await openWorld();
    const out = await page.evaluate(async () => {
      const sheet = { health: { value: 5, max: 5 }, attributes: { ac: { value: 10 }, strength: { value: 2 }, agility: { value: 4 } } };
      __world.addToken({ id: "tokDead", name: "Fallen", actor: { id: "dead", name: "Fallen", system: sheet } });
      __world.addToken({ id: "tokLurk", name: "Lurker", actor: { id: "lurk", name: "Lurker", system: sheet } });
      const combat = __world.startCombat(["tokHero", "tokGob", "tokDead", "tokLurk"], { defeated: ["tokDead"], hidden: ["tokLurk"] });
      const current = combat.combatant.id;
      const r = await game.modules.get("fracas").api.initiative({ seed: 11 });
      const cards = [...game.messages.values()].filter((m) => m.flags.fracas?.kind === "initiative");
      return {
        rolled: r.result.order.map((e) => e.id).sort(),
        dead: combat.combatants.get("cmb2").initiative,
        current, now: combat.combatant.id,
        cards: cards.map((m) => ({ whisper: m.whisper.length > 0, lurker: m.content.includes("Lurker") })),
      };
    });
    assert.deepEqual(out.rolled, ["cmb0", "cmb1", "cmb3"]);
    assert.equal(out.dead, null);
    assert.equal(out.now, out.current, "the turn stays with whoever had it");
    assert.deepEqual(out.cards, [{ whisper: true, lurker: true }, { whisper: false, lurker: false }]);
    await page.close();
  });

  test("mob with mixed conditions: each token read on its own, in id order whatever the selection order", async () => {
    const { page } = await openWorld();
    const run = (order) => page.evaluate(async (ids) => {
      const bones = { health: { value: 5, max: 5 }, attributes: { ac: { value: 10 }, strength: { value: 3 }, agility: { value: 2 } } };
      for (const [i, id] of ["tokS0", "tokS1", "tokS2"].entries()) {
        const statuses = i === 1 ? ["prone"] : [];
        __world.addToken({ id, name: "Skeleton", actor: { id: "skel", name: "Skeleton", uuid: `Scene.s1.Token.${id}.Actor.skel`, system: bones, statuses } });
      }
      __world.control(ids);
      __world.target(["tokGob"]);
      const r = await game.modules.get("fracas").api.mob({ strikes: [{ method: "melee", style: "slashing", dice: 1, damage_type: "edged" }],
        seed: 3, applyDamage: false });
      return { groups: r.result.groups.map((g) => [g.profile, g.count]), damage: r.result.total_damage };
    }, order);
    const a = await run(["tokS0", "tokS1", "tokS2"]);
    const b = await run(["tokS2", "tokS1", "tokS0"]);
    assert.deepEqual(a, b);
    assert.equal(a.groups.length, 2, `a prone skeleton is a profile of its own: ${JSON.stringify(a.groups)}`);
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
    await page.waitForSelector('#fracas-status[data-state="connected"]');
    const out = await page.evaluate(async () => {
      const r = await window.__pending;
      return { total: r?.result.total_damage, notes: __world.notes.map((n) => n.text) };
    });
    assert.equal(out.total, 6, out.notes.join("\n"));
    assert.equal(await hp(page, "tokGob"), 6);
    assert.ok(out.notes.includes("fracas: connected to the bridge"), out.notes.join("\n"));
    await page.close();
  });

  // ── issue 39: what a player's client receives, settings by scope, roll modes, Dice So Nice ──

  /** Every message document the player's page received, as one string each (the hostile player's console). */
  const receivedBy = (side) => side.page.evaluate(() => __world.received.map((d) => JSON.stringify(d)));
  const bodyKeys = /"(before|after|tempBefore|tempAfter)"/;

  test("a hostile player's client receives no document naming a hidden token or carrying Body, in every card type", async () => {
    const gmSide = await openWorld();
    const hostile = await openWorld({ user: "player", expect: null });
    const place = () => {
      const sheet = (ac, hp) => ({ health: { value: hp, max: hp }, attributes: { ac: { value: ac }, strength: { value: 2 }, agility: { value: 4 } } });
      __world.addToken({ id: "tokSin", name: "Secret Assassin", x: 700, y: 5000, hidden: true,
        actor: { id: "sin", name: "Secret Assassin", uuid: "Scene.s1.Token.tokSin.Actor.sin", system: sheet(3, 10) } });
    };
    await gmSide.page.evaluate(place);
    // 1. An attack whose stray hits the hidden bystander (public chat): seeds until one does.
    const stray = await gmSide.page.evaluate(async () => {
      const api = game.modules.get("fracas").api;
      const bow = { method: "range", style: "archery", dice: 2, damage_type: "piercing", friendly_fire: true };
      for (let seed = 1; seed < 60; seed++) {
        const r = await api.attack({ strikes: [{ ...bow, target: "tokGob" }], nearby: ["tokSin"], seed });
        if (r?.result.strikes.some((st) => st.stray?.creature === "tokSin")) return { seed, hit: true };
      }
      return { hit: false };
    });
    assert.ok(stray.hit, "some seed strays into the hidden creature");
    // 2. Initiative with a hidden combatant.
    await gmSide.page.evaluate(async () => {
      // A round needs each member's own strikes (the actor flag fracas.strikes).
      for (const id of ["tokHero", "tokGob", "tokSin"]) {
        __world.actor(id).flags = { fracas: { strikes: [{ method: "melee", style: "slashing", dice: 2, weight: 1, damage_type: "edged" }] } };
      }
      __world.startCombat(["tokHero", "tokGob", "tokSin"], { hidden: ["tokSin"] });
      await game.modules.get("fracas").api.initiative({ seed: 4 });
    });
    // 3. A round of a fight with a hidden member.
    const round = await gmSide.page.evaluate(async () => {
      const r = await game.modules.get("fracas").api.round({ seed: 9 });
      return { ok: !!r, notes: __world.notes.map((n) => n.text) };
    });
    // 4. Results in chat = GM: an ordinary attack on the goblin.
    await gmSide.page.evaluate(async ([strike, rolls]) => {
      await game.settings.set("fracas", "chatVisibility", "gm");
      await game.modules.get("fracas").api.attack({ strikes: [{ ...strike, target: "tokGob" }], rolls });
    }, [sword, TWO_CRITS]);
    // The public cards reach the player's client (waited for, however loaded the machine);
    // then a moment more, in which a copy of the GM-only card would arrive were one sent.
    await hostile.page.waitForFunction(() => __world.received.length > 0);
    await gmSide.page.waitForTimeout(300);
    const got = await receivedBy(hostile);
    assert.ok(got.length > 0, "the player received the public cards");
    for (const doc of got) {
      assert.doesNotMatch(doc, /Assassin|tokSin|Scene\.s1\.Token\.tokSin/, `a document naming the hidden token reached the player: ${doc.slice(0, 300)}`);
      assert.doesNotMatch(doc, bodyKeys, `a document carrying Body values reached the player: ${doc.slice(0, 300)}`);
    }
    // The GM-only cards exist on the GM's side, without rolls (v13 ChatMessage#visible), and the GM sees them.
    const gmCards = await gmSide.page.evaluate(() => [...game.messages.values()].filter((m) => m.whisper.length && m.flags.fracas?.kind !== "ledger")
      .map((m) => ({ rolls: m.rolls.length, kind: m.flags.fracas?.kind, visible: m.visible })));
    assert.ok(gmCards.length >= 3, JSON.stringify(gmCards));
    assert.ok(gmCards.every((m) => m.rolls === 0 && m.visible), JSON.stringify(gmCards));
    assert.ok(round.ok, round.notes.join("\n"));
    // The Results-in-chat=GM attack reached the player in no form.
    assert.ok(!got.some((d) => /"requestId"/.test(d) && /12 → 6/.test(d)));
    assert.deepEqual([...gmSide.errors, ...hostile.errors], []);
  });

  test("token name display modes: a player's client receives no document naming a token whose nameplate it cannot see", async () => {
    const gmSide = await openWorld();
    const hostile = await openWorld({ user: "player", expect: null });
    const place = () => {
      const sheet = (ac, hp) => ({ health: { value: hp, max: hp }, attributes: { ac: { value: ac }, strength: { value: 4 }, agility: { value: 2 } } });
      // OWNER_HOVER (20): only owners (the GM) see "Ogre Warlord"'s nameplate.
      __world.addToken({ id: "tokOgre", name: "Ogre Warlord", displayName: 20,
        actor: { id: "ogre", name: "Ogre Warlord", uuid: "Scene.s1.Token.tokOgre.Actor.ogre", system: sheet(10, 40) } });
    };
    await gmSide.page.evaluate(place);
    const out = await gmSide.page.evaluate(async ([strike, rolls]) => {
      __world.control(["tokOgre"]); // getSpeaker would infer this controlled token (v13 CASE 4)
      const api = game.modules.get("fracas").api;
      const r = await api.attack({ attacker: "tokOgre", targets: ["tokHero"], strikes: [{ ...strike, target: "tokHero" }], rolls });
      return { id: r?.messageId, notes: __world.notes.map((n) => n.text),
        mine: [...game.messages.values()].map((m) => ({ content: m.content, whisper: m.whisper, speaker: m.speaker, rolls: m.rolls.length })) };
    }, [sword, TWO_CRITS]);
    assert.ok(out.id, out.notes.join("\n"));
    await hostile.page.waitForFunction(() => __world.received.length > 0);
    const got = await receivedBy(hostile);
    for (const doc of got) assert.doesNotMatch(doc, /Ogre|tokOgre/, `a document naming the unnamed token reached the player: ${doc.slice(0, 300)}`);
    assert.ok(got.some((d) => /an unnamed creature/.test(d) && /Aldric/.test(d)), "the player's copy, with its dice");
    const gmCard = out.mine.find((m) => /Ogre Warlord/.test(m.content));
    assert.ok(gmCard && gmCard.whisper.length && gmCard.rolls === 0, JSON.stringify(out.mine));
    assert.deepEqual([...gmSide.errors, ...hostile.errors], []);
  });

  test("a player's mob of its own summons, through the GM's client; refused while the GM does not allow it", async () => {
    const gmSide = await openWorld();
    const player = await openWorld({ user: "player", expect: null });
    const place = () => {
      const wolf = { health: { value: 6, max: 6 }, attributes: { ac: { value: 11 }, strength: { value: 4 }, agility: { value: 3 } } };
      for (const id of ["tokWolf1", "tokWolf2"]) {
        __world.addToken({ id, name: "Wolf", actor: { id: "wolf", name: "Wolf", uuid: `Scene.s1.Token.${id}.Actor.wolf`, system: wolf, owners: ["userPL000000001"],
          flags: { fracas: { strikes: [{ method: "melee", style: "slashing", dice: 1, weight: 0, damage_type: "edged" }] } } } });
      }
    };
    await gmSide.page.evaluate(place);
    await player.page.evaluate(place);
    const ask = () => player.page.evaluate(async () => {
      __world.control(["tokWolf1", "tokWolf2"]);
      __world.target(["tokGob"]);
      const r = await game.modules.get("fracas").api.mob({ assign: "each" });
      return { r, notes: __world.notes.map((n) => n.text) };
    });
    const refused = await ask();
    assert.equal(refused.r, null);
    assert.match(refused.notes.at(-1), /has not allowed players' mobs/);
    await gmSide.page.evaluate(() => game.settings.set("fracas", "playerMobs", true));
    // A world setting reaches every client (the test page keeps each client's store: it is set there too).
    await player.page.evaluate(() => __world.preset("playerMobs", true));
    const before = await hp(gmSide.page, "tokGob");
    const done = await ask();
    assert.ok(done.r?.requestId?.startsWith("player-"), JSON.stringify(done));
    assert.equal(await hp(gmSide.page, "tokGob"), Math.max(0, before - done.r.total_damage));
    assert.deepEqual([...gmSide.errors, ...player.errors], []);
  });

  test("the roll mode: the GM's private roll reaches no player; a player's private roll reaches that player, without rolls", async () => {
    const gmSide = await openWorld({ extra: { rollMode: "gmroll" } });
    const player = await openWorld({ user: "player", expect: null, extra: { rollMode: "gmroll" } });
    await gmSide.page.evaluate(async ([strike, rolls]) => {
      await game.modules.get("fracas").api.attack({ strikes: [{ ...strike, target: "tokGob" }], rolls });
    }, [sword, TWO_CRITS]);
    await gmSide.page.waitForTimeout(200);
    assert.deepEqual(await receivedBy(player), [], "a GM's private roll is whispered without rolls: nobody else receives it");
    const answer = await player.page.evaluate(() => game.modules.get("fracas").api.attack({ item: "Longsword" }));
    assert.ok(answer?.requestId, JSON.stringify(answer));
    await player.page.waitForFunction(() => __world.received.length > 0);
    const [card] = await player.page.evaluate(() => __world.received);
    assert.deepEqual([card.whisper.includes("userPL000000001"), card.whisper.includes("userGM000000001"), card.rolls.length], [true, true, 0]);
    // Blind: the player learns it was made, not what it did, and receives nothing.
    await player.page.evaluate(() => game.settings.set("core", "rollMode", "blindroll"));
    const blind = await player.page.evaluate(() => game.modules.get("fracas").api.attack({ item: "Longsword" }));
    assert.equal(blind.total_damage, null);
    await gmSide.page.waitForTimeout(200);
    assert.equal(await player.page.evaluate(() => __world.received.length), 1);
    assert.deepEqual([...gmSide.errors, ...player.errors], []);
  });

  test("settings by scope: a player sees no token field and no token menu; the GM opens the restricted menu", async () => {
    const player = await openWorld({ user: "player", expect: null });
    const seen = await player.page.evaluate(() => __world.settingsView());
    assert.ok(!seen.settings.some((k) => /bridge/i.test(k)), seen.settings.join(", "));
    assert.ok(!seen.menus.some((k) => /bridge/i.test(k)), seen.menus.join(", "));
    const gm = await openWorld();
    const gmSeen = await gm.page.evaluate(() => __world.settingsView());
    assert.ok(gmSeen.menus.includes("fracas.bridgeTokenMenu"));
    assert.ok(!gmSeen.settings.includes("fracas.bridgeToken"), "the token is a menu, not a field");
    await gm.page.evaluate(() => { __world.openMenu("fracas.bridgeTokenMenu"); });
    const dialog = gm.page.locator("dialog");
    await dialog.waitFor();
    assert.equal(await dialog.locator('input[name="token"]').getAttribute("type"), "password");
    await dialog.locator('input[name="token"]').fill(` ${TOKEN} `);
    await dialog.locator('[data-action="ok"]').click();
    assert.equal(await gm.page.evaluate(() => game.settings.get("fracas", "bridgeToken")), TOKEN);
    assert.deepEqual([...player.errors, ...gm.errors], []);
  });

  test("Dice So Nice: no die dropped silently past maxDiceNumber; whispered cards thrown for the GM alone", async () => {
    const { page, errors } = await openWorld({ extra: { dsn: "on" } });
    const out = await page.evaluate(async (strike) => {
      const api = game.modules.get("fracas").api;
      const r = await api.attack({ strikes: Array.from({ length: 12 }, () => ({ ...strike, target: "tokGob" })), seed: 2, applyDamage: false });
      const m = game.messages.get(r.messageId);
      await game.settings.set("core", "rollMode", "gmroll");
      await api.attack({ strikes: [{ ...strike, target: "tokGob" }], seed: 3, applyDamage: false });
      return { log: __world.dsn, note: m.content.includes("fracas-dsn-note"), text: document.querySelector(`[data-message-id="${r.messageId}"] .fracas-dsn-note`)?.textContent ?? "" };
    }, sword);
    const thrown = out.log.filter((e) => e.message);
    assert.ok(thrown.length >= 1);
    for (const e of out.log) assert.equal(e.shown, e.dice, `Dice So Nice would drop ${e.dice - e.shown} dice: ${JSON.stringify(e)}`);
    assert.ok(out.note, "the card says Dice So Nice did not throw every die");
    assert.match(out.text, /Dice So Nice throws \d+ of these \d+ dice/);
    const direct = out.log.filter((e) => !e.message);
    assert.ok(direct.length >= 1 && direct.every((e) => e.synchronize === false), JSON.stringify(direct));
    assert.deepEqual(errors, []);
  });

  test("the status light survives the players list re-rendering; a player's User#viewedScene may be null", async () => {
    const gmSide = await openWorld({ extra: { playerScene: "none" } });
    await gmSide.page.evaluate(() => __world.renderPlayers());
    assert.equal(await gmSide.page.evaluate(() => document.getElementById("fracas-status")?.parentElement?.id ?? null), "players");
    await gmSide.page.waitForSelector('#players #fracas-status[data-state="connected"]');
    const player = await openWorld({ user: "player", expect: null });
    const answer = await player.page.evaluate(() => game.modules.get("fracas").api.attack({ item: "Longsword" }));
    assert.ok(answer?.requestId, JSON.stringify(answer));
    assert.deepEqual([...gmSide.errors, ...player.errors], []);
  });
});
