// Issue 43 item 2 in a real browser against a real bridge: the module as packaged (the zip
// tools/package.js makes, unpacked, the test page beside it) in headless Chromium, the GM
// pressing the combat tracker's "fracas forecast" button; `python -m fracas.bridge` plays
// fight.forecast. The card shows the engine's numbers (those of `fracas simulate` for the
// same scenario and seed), the hidden token is on the GM's card only, Vary sweeps one token's
// copies, Share reaches the player without the hidden token, and the bridge's refusals are
// notifications.
//
// FRACAS_FORECAST_PICTURE=docs/images/foundry-forecast.png also saves the GM's card as the
// README's picture (a screenshot of the card as Chromium rendered it).

import "./english.js";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { after, afterEach, before, describe, test } from "node:test";

import { MODULE_DIR, PYTHON, REPO_DIR, closePages, launchChromium, missingPrerequisite, serveModule, startBridge, stopAll, tempDir } from "../testenv/harness.js";
import { packageModule } from "../tools/package.js";

const missing = missingPrerequisite();
if (missing && process.env.CI) throw new Error(`the browser test must run under CI, but ${missing}`);
const skip = missing ? `skipped: ${missing}` : false;

const TOKEN = "forecast-browser-token-0123456789";
const RUNS = 200; // the world's forecastRuns: enough fights for a card, few enough for the pure-Python kernels

describe("the forecast, from the packaged module in Chromium against a real bridge", { skip }, () => {
  let site, bridge, browser, tmp;

  before(async () => {
    tmp = tempDir();
    // The module as Foundry installs it: the release zip, unpacked; the test page is not in it.
    const { zipPath } = packageModule({ out: join(tmp.dir, "dist") });
    const root = join(tmp.dir, "site");
    execFileSync(PYTHON, ["-c", "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])", zipPath, root]);
    cpSync(join(MODULE_DIR, "testenv"), join(root, "testenv"), { recursive: true });
    site = await serveModule({ dir: root });
    bridge = await startBridge({ token: TOKEN, origin: site.origin, journal: join(tmp.dir, "journal.sqlite3") });
    browser = await launchChromium(join(tmp.dir, "profile"));
  });

  const opened = [];
  afterEach(() => closePages(opened));
  after(() => stopAll({ browser, bridge, site, tmp }));

  /** A page of the test world (GM or player), booted; the GM's connected. */
  async function openWorld({ user = "gm" } = {}) {
    const page = await browser.newPage();
    opened.push(page);
    const errors = [];
    page.on("pageerror", (e) => errors.push(e));
    const query = new URLSearchParams({ gen: "13", bridgeUrl: bridge.url, bridgeToken: TOKEN, user });
    await page.goto(`${site.origin}/testenv/index.html?${query}`);
    await page.waitForFunction(() => window.__booted === true);
    if (user === "gm") await page.waitForSelector('#fracas-status[data-state="connected"]');
    return { page, errors };
  }

  /**
   * The scene: Aldric (a player's) and Mira, friendly; three goblins of one actor, hostile, their
   * nameplates shown to everyone; a hidden hostile assassin (the secret disposition); a neutral
   * merchant (left out). A close fight: the friendly win about two in three.
   */
  async function placeTokens(page, runs = RUNS) {
    await page.evaluate(async (fights) => {
      const sheet = (ac, hp, str, agi) => ({ health: { value: hp, max: hp }, attributes: { ac: { value: ac }, strength: { value: str }, agility: { value: agi } } });
      const strikes = (s) => ({ fracas: { strikes: [s] } });
      const sword = { method: "melee", style: "slashing", dice: 2, weight: 1, damage_type: "edged" };
      const stab = { method: "melee", style: "piercing", dice: 2, weight: 1, damage_type: "piercing" };
      __world.addToken({ id: "tokHero", name: "Aldric", x: 100, y: 100, disposition: 1,
        actor: { id: "hero", name: "Aldric", owners: ["userPL000000001"], system: sheet(15, 24, 6, 4), flags: strikes({ ...sword, dice: 3 }) } });
      __world.addToken({ id: "tokMira", name: "Mira", x: 100, y: 200, disposition: 1,
        actor: { id: "mira", name: "Mira", system: sheet(14, 18, 4, 2), flags: strikes(sword) } });
      for (const [i, id] of ["tokGob1", "tokGob2", "tokGob3"].entries()) {
        __world.addToken({ id, name: "Goblin", x: 500, y: 100 * (i + 1), disposition: -1, displayName: 50,
          actor: { id: "gob", name: "Goblin", uuid: `Scene.s1.Token.${id}.Actor.gob`, system: sheet(12, 8, 2, 3), flags: strikes(stab) } });
      }
      __world.addToken({ id: "tokShade", name: "Shade", x: 900, y: 900, disposition: -2, hidden: true,
        actor: { id: "shade", name: "Shade", system: sheet(16, 16, 4, 6), flags: strikes({ ...sword, dice: 3 }) } });
      __world.addToken({ id: "tokTobin", name: "Tobin", x: 300, y: 700, disposition: 0,
        actor: { id: "tobin", name: "Tobin", system: sheet(10, 8, 2, 2), flags: strikes(stab) } });
      await game.settings.set("fracas", "forecastRuns", fights);
    }, runs);
  }

  /** Press the tracker's button and wait for the card of kind `kind` (or for a notification). */
  async function pressForecast(page) {
    const before = await page.evaluate(() => ({ messages: game.messages.size, notes: __world.notes.length }));
    await page.evaluate(() => __world.renderCombatTracker());
    await page.locator("#combat .fracas-forecast-button").click();
    await page.waitForFunction((b) => game.messages.size > b.messages || __world.notes.length > b.notes, before);
  }

  const pct = (p) => `${(p * 100).toFixed(p >= 0.995 || p <= 0.005 ? 1 : 0)}%`;

  test("the tracker's button: the scene's fight played by the bridge, the engine's numbers on a GM-only card; Vary and Share", async () => {
    const gm = await openWorld();
    const player = await openWorld({ user: "player" });
    await placeTokens(gm.page);
    // A player's tracker has no forecast button.
    assert.equal(await player.page.evaluate(() => __world.renderCombatTracker().querySelector(".fracas-forecast-button")), null);

    await pressForecast(gm.page);
    const card = await gm.page.evaluate(() => {
      const m = [...game.messages.values()].find((x) => x.flags.fracas?.kind === "forecast");
      return { id: m.id, whisper: m.whisper, rolls: m.rolls.length, flags: m.flags.fracas, notes: __world.notes.map((n) => n.text) };
    });
    assert.deepEqual(card.notes, []);
    assert.deepEqual(card.whisper.sort(), ["userAS000000001", "userGM000000001"], "whispered to the GMs");
    assert.equal(card.rolls, 0, "no dice: a whisper with rolls reaches every player (issue 39)");
    const { scenario, result } = card.flags;
    assert.deepEqual(Object.keys(scenario.sides), ["friendly", "hostile"], "the neutral merchant is left out");
    assert.deepEqual(scenario.sides.friendly.map((e) => e.label), ["Aldric", "Mira"]);
    assert.deepEqual(scenario.sides.hostile.map((e) => e.label), ["Goblin #1", "Goblin #2", "Goblin #3", "Shade"]);
    assert.deepEqual(scenario.sides.hostile[0].position, [27.5, 7.5], "the token's centre in feet (x 500 px: 5.5 spaces of 5 ft)");

    // The same numbers `fracas simulate` gives for the scenario and seed the card names.
    const run = spawnSync(PYTHON, ["-m", "fracas", "simulate", "-", "--runs", String(RUNS), "--seed", String(result.seed), "--json", "-"],
      { cwd: REPO_DIR, input: JSON.stringify(scenario), encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const simulated = JSON.parse(run.stdout);
    delete simulated.timing;
    // The seed is 64 bits: JSON.parse would round it; its digits are compared as written.
    assert.equal(String(result.seed), /"seed":\s*(\d+)/.exec(run.stdout)[1]);
    assert.deepEqual({ ...result, seed: null }, { ...simulated, seed: null });
    assert.deepEqual(Object.keys(result.combatants).sort(), ["tokGob1", "tokGob2", "tokGob3", "tokHero", "tokMira", "tokShade"]);

    const el = gm.page.locator(`[data-message-id="${card.id}"] .fracas-card`);
    for (const [side, s] of Object.entries(result.sides)) {
      const row = el.locator(`tr[data-side="${side}"]`);
      assert.equal(await row.locator(".fracas-forecast-chance").textContent(), `${pct(s.win_rate)} (${pct(s.win_rate_ci95[0])}–${pct(s.win_rate_ci95[1])})`);
      const width = Number(await row.locator(".fracas-bar-value").getAttribute("width"));
      assert.ok(Math.abs(width - 100 * s.win_rate) <= 0.05, `${side}'s bar is its chance`);
    }
    assert.match(await el.locator(".fracas-forecast-rounds span").textContent(), new RegExp(`^rounds: ${result.rounds.mean.toFixed(1)} on average`));
    // The hidden assassin, when among those likely to fall, is marked hidden on the GM's card.
    assert.equal(await el.locator('li[data-token="tokShade"] .fracas-hidden-mark').count(), await el.locator('li[data-token="tokShade"]').count());
    assert.equal(await el.locator('[data-fracas-action="vary"]').count(), 1);

    if (process.env.FRACAS_FORECAST_PICTURE) {
      // The README's picture: the card as Chromium draws it, in a chat column as wide as Foundry's.
      await gm.page.addStyleTag({ content: "#chat-log { width: 300px; list-style: none; padding: 6px; margin: 0; font: 13px/1.35 sans-serif; background: #e9e6dc; }"
        + " #chat-log .chat-message { background: #f6f4ee; border: 1px solid #b5b0a0; border-radius: 4px; padding: 6px; margin: 0 0 6px; }" });
      const shot = join(tmp.dir, "forecast.png");
      await gm.page.locator(`[data-message-id="${card.id}"]`).screenshot({ path: shot });
      const target = resolve(REPO_DIR, process.env.FRACAS_FORECAST_PICTURE);
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(shot, target);
      assert.ok(readFileSync(target).subarray(1, 4).toString() === "PNG");
    }

    // Vary: the dialog proposes a goblin's copies; the sweep of the card's fight comes back on a GM-only card.
    await el.locator('[data-fracas-action="vary"]').click();
    const dialog = gm.page.locator("dialog");
    await dialog.waitFor();
    assert.equal(await dialog.locator('select[name="token"]').inputValue(), "tokGob1");
    assert.match(await dialog.locator('select[name="token"]').textContent(), /Shade \(hostile, hidden\)/);
    await dialog.locator('input[name="values"]').fill("1..4");
    await dialog.locator('input[name="runs"]').fill("100");
    await dialog.locator('[data-action="ok"]').click();
    await gm.page.waitForFunction(() => [...game.messages.values()].some((m) => m.flags.fracas?.kind === "forecast-vary") || __world.notes.length);
    const varied = await gm.page.evaluate(() => {
      const m = [...game.messages.values()].find((x) => x.flags.fracas?.kind === "forecast-vary");
      return { whisper: m?.whisper ?? null, rows: [...document.querySelectorAll(`[data-message-id="${m?.id}"] tr[data-value]`)].map((r) => r.dataset.value),
        title: document.querySelector(`[data-message-id="${m?.id}"] .fracas-title`)?.textContent, notes: __world.notes.map((n) => n.text) };
    });
    assert.deepEqual(varied.notes, []);
    assert.equal(varied.whisper.length, 2);
    assert.deepEqual(varied.rows, ["1", "2", "3", "4"]);
    assert.equal(varied.title, "Forecast: varying the copies of Goblin #1");

    // Share: everyone gets the forecast, without the hidden assassin (the player's client receives no
    // document naming it), names as players read them.
    await el.locator('[data-fracas-action="share"]').click();
    await player.page.waitForFunction(() => __world.received.some((d) => d.flags?.fracas?.kind === "forecast-public"));
    const got = await player.page.evaluate(() => __world.received.map((d) => JSON.stringify(d)));
    assert.ok(!got.some((d) => /"kind":"forecast"|forecast-vary/.test(d)), "the GM's forecast and sweep cards never reach the player");
    for (const doc of got) assert.doesNotMatch(doc, /Shade|tokShade|"scenario"/, `a document naming the hidden token reached the player: ${doc.slice(0, 300)}`);
    const shared = await player.page.evaluate(() => {
      const m = [...game.messages.values()].find((x) => x.flags.fracas?.kind === "forecast-public");
      const node = document.querySelector(`[data-message-id="${m.id}"]`);
      return { title: node.querySelector(".fracas-title").textContent, sides: node.querySelectorAll("tr[data-side]").length,
        buttons: node.querySelectorAll("button").length };
    });
    assert.deepEqual(shared, { title: "Forecast of the fight", sides: 3, buttons: 0 });
    assert.deepEqual([...gm.errors, ...player.errors], []);
  });

  test("the bridge's refusals are notifications: its budget (-32003) and a wrong value with its path and token (-32602); nothing posted", async () => {
    const gm = await openWorld();
    await placeTokens(gm.page, 200000);
    await pressForecast(gm.page);
    await gm.page.evaluate(async () => {
      await game.settings.set("fracas", "forecastRuns", 50);
      // Goblin #2's strike: 9 skill dice (ER-3 allows 5); the bridge names the field.
      __world.actor("tokGob2").flags = { fracas: { strikes: [{ method: "melee", style: "piercing", dice: 9, weight: 1, damage_type: "piercing" }] } };
    });
    await pressForecast(gm.page);
    const out = await gm.page.evaluate(() => ({ notes: __world.notes.map((n) => `${n.level}: ${n.text}`),
      cards: [...game.messages.values()].filter((m) => m.flags.fracas?.kind?.startsWith("forecast")).length }));
    assert.equal(out.cards, 0);
    assert.equal(out.notes.length, 2, out.notes.join("\n"));
    assert.match(out.notes[0], /^warn: fracas: fight\.forecast failed: the request is too large: \$\.params\.runs: 200,000 fights is more than the bridge's limit of 100,000 .*ask for at most 100,000 fights \(code -32003\)$/);
    assert.match(out.notes[1], /^warn: fracas: fight\.forecast failed: a value of the request is wrong: \$\.params\.scenario\.sides\.hostile\[1\]\.attacks\[0\]\.dice: 9 skill dice, the most is 5 \(ER-3\) \(code -32602\) \[combatant Goblin #2\]$/);
    assert.deepEqual(gm.errors, []);
  });

  test("the test page is strict where Foundry's data models are: unknown fields and dispositions are refused", async () => {
    const gm = await openWorld();
    const refused = await gm.page.evaluate(async () => {
      const out = [];
      for (const attempt of [
        () => ChatMessage.create({ content: "x", whisperToGM: true }),
        () => __world.addToken({ id: "tokX", name: "X", dispositon: 1, actor: { id: "x", name: "X", system: {} } }),
        () => __world.addToken({ id: "tokY", name: "Y", disposition: 2, actor: { id: "y", name: "Y", system: {} } }),
      ]) {
        try {
          await attempt();
          out.push(null);
        } catch (error) {
          out.push(error.message);
        }
      }
      return out;
    });
    assert.match(refused[0], /ChatMessage: "whisperToGM" is not a field/);
    assert.match(refused[1], /addToken: "dispositon" is not a field/);
    assert.match(refused[2], /disposition 2 must be a value in CONST.TOKEN_DISPOSITIONS/);
  });
});
