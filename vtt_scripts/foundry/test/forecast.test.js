// Issue 43 item 2 (Foundry): a forecast of the fight on the map. The scene's tokens as a
// scenario (sides by disposition, numbers read as attacks read them, hidden tokens in it),
// the GM's card and the players' copy (no hidden combatant), the Vary sweep, the bridge's
// refusals as notifications. The bridge is a fake answering `fight.forecast` as its contract
// says (the result of `fracas simulate` without timing, plus `sweep` with vary); with Python
// it is the engine's own simulate and sweep on the scenario the module built.

import "./english.js";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";

import { createActions } from "../scripts/actions.js";
import { BridgeError } from "../scripts/errors.js";
import {
  TOKEN_DISPOSITIONS, buildForecastScenario, defaultVaryMember, defaultVaryValues, explainForecastPath, forecastCardModel,
  renderForecastCard, renderSweepCard, sideOf, sweepCardModel, varyParams,
} from "../scripts/forecast.js";
import { readAttacker, readTarget } from "../scripts/request.js";
import { SETTINGS, readMapping } from "../scripts/settings.js";
import { REPO_DIR } from "../testenv/harness.js";
import { enrichments } from "./enrich.js";
import { fakeActor, fakeConnection, fakeVtt, sheet, view } from "./fakes.js";

const { FRIENDLY, HOSTILE, NEUTRAL, SECRET } = TOKEN_DISPOSITIONS;
const mapping = readMapping((key) => SETTINGS.find((s) => s.key === key)?.default);
const cleave = { method: "melee", style: "cleaving", dice: 3, weight: 2, damage_type: "edged" };
const mace = { method: "melee", style: "bludgeoning", dice: 2, weight: 1, damage_type: "blunt" };
const stab = { method: "melee", style: "piercing", dice: 1, weight: 1, damage_type: "piercing" };
const bow = { method: "range", style: "archery", dice: 2, damage_type: "piercing" };

/**
 * The scene: two heroes (friendly), two goblins of one actor (one hurt) with nameplates players
 * see and a third already dead, a hidden assassin with the secret disposition, a neutral
 * merchant, a barrel with no strikes, a marker without an actor, a goblin at 0 Body.
 */
function scene() {
  const strikes = (list) => ({ fracas: { strikes: list } });
  const hero = fakeActor({ uuid: "Actor.hero", name: "Aldric", system: sheet({ ac: 15, hp: 24, hpMax: 30, str: 6, agi: 4 }), flags: strikes([cleave]) });
  hero.hasPlayerOwner = true;
  const cleric = fakeActor({ uuid: "Actor.cleric", name: "Mira", system: sheet({ ac: 14, hp: 18, hpMax: 18, str: 4, agi: 2 }), flags: strikes([mace]) });
  const gob = (id, hp, statuses = []) => fakeActor({ uuid: `Scene.s.Token.${id}.Actor.gob`, name: "Goblin", statuses,
    system: sheet({ ac: 12, hp, hpMax: 7, str: 2, agi: 3, resistant: "fire" }), flags: strikes([stab]) });
  const shade = fakeActor({ uuid: "Actor.shade", name: "Shade", system: sheet({ ac: 16, hp: 20, hpMax: 20, str: 4, agi: 6 }), flags: strikes([bow]) });
  const merchant = fakeActor({ uuid: "Actor.merchant", name: "Tobin", system: sheet({ ac: 10, hp: 8, hpMax: 8 }), flags: strikes([stab]) });
  const barrel = fakeActor({ uuid: "Actor.barrel", name: "Barrel", system: sheet({ ac: 8, hp: 5 }) });
  const tokens = [
    view("a-hero", "Aldric", hero, { at: [2, 2], disposition: FRIENDLY }),
    view("b-cleric", "Mira", cleric, { at: [2, 3], disposition: FRIENDLY }),
    view("g1", "Goblin", gob("g1", 7), { at: [6, 2], disposition: HOSTILE }),
    view("g2", "Goblin", gob("g2", 4), { at: [6, 3], disposition: HOSTILE }),
    view("g3", "Goblin", gob("g3", 7, ["dead"]), { at: [7, 3], disposition: HOSTILE }),
    view("g4", "Goblin", gob("g4", 0), { at: [7, 4], disposition: HOSTILE }),
    view("s-shade", "Shade", shade, { at: [9, 9], hidden: true, disposition: SECRET }),
    view("m-tobin", "Tobin", merchant, { at: [4, 8], disposition: NEUTRAL, unnamed: true }),
    view("x-barrel", "Barrel", barrel, { at: [5, 5], disposition: HOSTILE }),
    view("z-marker", "Marker", null, { at: [1, 1], disposition: HOSTILE }),
  ];
  return { tokens, hero, cleric, shade, byId: Object.fromEntries(tokens.map((t) => [t.id, t])) };
}

const candidates = (tokens) => tokens.map((v) => ({ view: v, hidden: !!v.hidden }));

describe("the scene as a scenario", () => {
  test("sides by disposition (secret counts as hostile; neutral left out by default); numbers as attacks read them; current Body; places in feet", () => {
    const { tokens, byId } = scene();
    const { scenario, members, left } = buildForecastScenario({ candidates: candidates(tokens), mapping, grid: { size: 100, type: 1, distance: 5, units: "ft" } });
    assert.equal(scenario.ruleset, "enchanted-realms");
    assert.deepEqual(Object.keys(scenario.sides), ["friendly", "hostile"]);
    // One group per token, count 1, named by the token id (the engine's member id), labelled by its name.
    assert.deepEqual(scenario.sides.friendly.map((e) => [e.name, e.label, e.hp]), [["a-hero", "Aldric", 24], ["b-cleric", "Mira", 18]]);
    assert.deepEqual(scenario.sides.hostile.map((e) => [e.name, e.label, e.hp]), [["g1", "Goblin #1", 7], ["g2", "Goblin #2", 4], ["s-shade", "Shade", 20]]);
    for (const e of [...scenario.sides.friendly, ...scenario.sides.hostile]) assert.equal(e.count, undefined, "count 1 (the default)");
    // The numbers are what an attack reads from the same actor (request.js readAttacker / readTarget).
    const hero = scenario.sides.friendly[0];
    assert.deepEqual(hero.attacks, [cleave]);
    assert.deepEqual(hero.attacker, readAttacker(byId["a-hero"], mapping, [cleave], { conditions: false }));
    assert.deepEqual(hero.target, readTarget(byId["a-hero"], mapping, { conditions: false }));
    assert.deepEqual(hero.target, { ac: 15, body_max: 30 });
    assert.deepEqual(scenario.sides.hostile[0].target, { ac: 12, resistant: ["fire"], body_max: 7 });
    assert.deepEqual(scenario.sides.hostile[2].attacker, { strength: 4, agility: 6 }, "a bow needs Agility; Strength is read when set");
    // Positions: each token's centre in feet on a 5-ft grid of 100 px ([2, 2] → 2.5 spaces → 12.5 ft).
    assert.deepEqual(hero.position, [12.5, 12.5]);
    assert.deepEqual(scenario.sides.hostile[2].position, [47.5, 47.5]);
    // The hidden assassin fights (the GM's forecast); marked hidden for the players' copy.
    assert.deepEqual(members.map((m) => [m.id, m.side, m.index, m.hidden]), [
      ["a-hero", "friendly", 0, false], ["b-cleric", "friendly", 1, false],
      ["g1", "hostile", 0, false], ["g2", "hostile", 1, false], ["s-shade", "hostile", 2, true]]);
    // Down already (the defeated mark, 0 Body), no actor, neutral: not in it and not listed; a sheet
    // that cannot be read: listed with why.
    assert.deepEqual(left.map((x) => x.id), ["x-barrel"]);
    assert.match(left[0].why, /Barrel: no strikes for this actor/);
  });

  test("neutral tokens as the setting says: with either side or a side of their own; the order of the tokens does not matter", () => {
    const { tokens } = scene();
    const side = buildForecastScenario({ candidates: candidates(tokens), mapping, neutral: "side" });
    assert.deepEqual(Object.keys(side.scenario.sides), ["friendly", "hostile", "neutral"]);
    // The members in the scenario's order (side by side), whatever their ids' order across sides.
    assert.deepEqual(side.members.map((m) => m.id), ["a-hero", "b-cleric", "g1", "g2", "s-shade", "m-tobin"]);
    assert.deepEqual(side.scenario.sides.neutral.map((e) => e.name), ["m-tobin"]);
    const friendly = buildForecastScenario({ candidates: candidates([...tokens].reverse()), mapping, neutral: "friendly" });
    assert.deepEqual(friendly.scenario.sides.friendly.map((e) => e.name), ["a-hero", "b-cleric", "m-tobin"]);
    const hostile = buildForecastScenario({ candidates: candidates(tokens), mapping, neutral: "hostile" });
    assert.deepEqual(hostile.scenario.sides.hostile.map((e) => e.name), ["g1", "g2", "m-tobin", "s-shade"]);
    assert.deepEqual(buildForecastScenario({ candidates: candidates([...tokens].reverse()), mapping }).scenario,
      buildForecastScenario({ candidates: candidates(tokens), mapping }).scenario);
    assert.throws(() => buildForecastScenario({ candidates: candidates(tokens), mapping, neutral: "both" }), /neutral "both" is not one of leave, friendly, hostile, side/);
  });

  test("dispositions: friendly, hostile and secret (hostile), neutral only as chosen, anything else out", () => {
    assert.equal(sideOf(FRIENDLY), "friendly");
    assert.equal(sideOf(HOSTILE), "hostile");
    assert.equal(sideOf(SECRET), "hostile");
    assert.equal(sideOf(NEUTRAL), null);
    assert.equal(sideOf(NEUTRAL, "side"), "neutral");
    assert.equal(sideOf(null), null);
    assert.equal(sideOf(undefined, "hostile"), null);
  });

  test("one side only: refused, saying how many tokens each side has", () => {
    const { tokens } = scene();
    assert.throws(() => buildForecastScenario({ candidates: candidates(tokens.filter((t) => t.disposition !== FRIENDLY)), mapping }),
      { name: "InputError", message: /needs two sides: 0 friendly and 3 hostile tokens can fight \(1 could not be read\)/ });
  });

  test("another ruleset reads flags.fracas.<ruleset> (as fights do); Cartyrion's side initiative names the friendly side", () => {
    const ct = (name, data) => fakeActor({ uuid: `Actor.${name}`, name, system: sheet({ hp: 20 }), flags: { fracas: { cartyrion: data } } });
    const knight = ct("knight", { level: 5, bonus: 3, dex: 2, armor: 2, strikes: [{ method: "melee", die: "d8" }] });
    const troll = ct("troll", { attacker: { level: 8, bonus: 6 }, target: { dex: 1, armor: 3 }, strikes: [{ method: "melee", die: "d10" }] });
    const { scenario } = buildForecastScenario({ ruleset: "cartyrion", mapping,
      candidates: candidates([view("k", "Knight", knight, { disposition: FRIENDLY }), view("t", "Troll", troll, { disposition: HOSTILE })]) });
    assert.deepEqual(scenario.initiative, { party: "friendly" });
    assert.deepEqual(scenario.sides.friendly[0].attacker, { level: 5, bonus: 3 });
    assert.deepEqual(scenario.sides.friendly[0].target, { dex: 2, armor: 2 });
    assert.deepEqual(scenario.sides.hostile[0].attacks, [{ method: "melee", die: "d10" }]);
  });
});

/**
 * A reply to fight.forecast in the contract's shape (forecast contract: simulate's result without
 * timing, plus `sweep` with vary), made up from the scenario: every member, each side's numbers.
 */
function contractReply(params, { rates = {}, sweep = null } = {}) {
  const sides = Object.keys(params.scenario.sides);
  const members = sides.flatMap((side) => params.scenario.sides[side].flatMap((g) => (g.count > 1
    ? Array.from({ length: g.count }, (_, k) => [`${g.name} ${k + 1}`, side, g.name]) : [[g.name, side, g.name]])));
  const win = (side) => rates[side] ?? (side === sides[0] ? 0.62 : 0.35);
  return {
    scenario: params.scenario.name, ruleset: params.scenario.ruleset, seed: params.seed ?? 12345678901234567890n, runs: params.runs,
    completed: params.runs, interrupted: false,
    sides: Object.fromEntries(sides.map((s) => [s, { wins: Math.round(win(s) * params.runs), win_rate: win(s),
      win_rate_ci95: [win(s) - 0.03, win(s) + 0.03], combatants: params.scenario.sides[s].length, survivors_mean: 1.2 }])),
    draws: { count: 30, rate: 0.03, rate_ci95: [0.021, 0.042] },
    rounds: { mean: 6.4, median: 6, min: 2, max: 14, histogram: { 2: 10, 4: 200, 6: 420, 8: 250, 11: 100, 14: 20 } },
    combatants: Object.fromEntries(members.map(([id, side, group], i) => [id, { side, group, dealt_mean: 5 + i, taken_mean: 3 + i,
      survived_rate: 0.5, fled_rate: id === "g2" ? 0.2 : 0, down_rate: side === sides[0] ? 0.1 * (i + 1) : 0.4 + 0.1 * i }])),
    fight_loop: { compiled_fights: params.runs, python_fights: 0, python_why: null },
    stopped_by: null,
    ...(sweep ? { sweep } : {}),
  };
}

/** A sweep in `fracas sweep --json`'s shape (without timing) for the path and values. */
function sweepReply(params, rates) {
  const { path, values } = params.vary;
  const [from, to] = values.split("..").map(Number);
  const points = [];
  for (let v = from, i = 0; v <= to; v += 1, i += 1) {
    const r = rates[i];
    points.push({ index: i, values: { [path]: v }, seed: 3, completed: params.runs,
      sides: { friendly: { wins: 0, win_rate: r, win_rate_ci95: [Math.max(0, r - 0.04), Math.min(1, r + 0.04)], combatants: 2, survivors_mean: 1 },
        hostile: { wins: 0, win_rate: 1 - r, win_rate_ci95: [0, 1], combatants: 3, survivors_mean: 1 } },
      draws: { count: 0, rate: 0, rate_ci95: [0, 0.01] }, rounds: { mean: 5, median: 5, min: 1, max: 9 }, fight_loop: {} });
  }
  return { scenario: "Foundry forecast", ruleset: "enchanted-realms", seed: 3, runs: params.runs, vary: [{ path, values: points.map((p) => p.values[path]) }],
    sides: ["friendly", "hostile"], points, completed_points: points.length, interrupted: false, stopped_by: null,
    target: { side: params.vary.side ?? "friendly", win_rate: params.vary.target, along: path, rows: [{ at: {}, crossings: [{ at: 2.5, between: [2, 3] }] }] } };
}

function gmWorld({ settings = {}, isGM = true, answer } = {}) {
  const s = scene();
  const vtt = fakeVtt({ tokens: s.tokens, settings, isGM });
  vtt.sceneTokens = () => ({ grid: { size: 100, type: 1, distance: 5, units: "ft" }, views: s.tokens });
  const conn = fakeConnection(answer ?? ((method, params) => (method === "fight.forecast" ? contractReply(params) : null)));
  let n = 0;
  const api = createActions({ vtt, connection: () => conn, newId: () => `fc-${++n}-0000-0000` });
  return { ...s, vtt, conn, api };
}

describe("api.forecast", () => {
  test("one fight.forecast of the scene; the GM's card whispered to the GMs without dice: chances with intervals, draws, rounds, who falls, bars", async () => {
    const { api, vtt, conn } = gmWorld({ settings: { forecastTokens: "scene" } });
    const out = await api.forecast({ seed: 77 });
    assert.deepEqual(vtt.notes, []);
    assert.equal(conn.calls.length, 1);
    const call = conn.calls[0];
    assert.equal(call.method, "fight.forecast");
    assert.deepEqual(Object.keys(call.params).sort(), ["runs", "scenario", "seed"]);
    assert.equal(call.params.runs, 1000, "the setting's default fights");
    assert.equal(call.params.seed, 77);
    assert.deepEqual(Object.keys(call.params.scenario.sides), ["friendly", "hostile"]);
    assert.equal(out.requestId, call.id);
    const [card] = vtt.messages;
    assert.equal(card.whisperToGM, true);
    assert.deepEqual(card.rolls, [], "no dice: a whisper with rolls is every player's (issue 39)");
    assert.equal(card.flags.fracas.kind, "forecast");
    assert.deepEqual(card.flags.fracas.scenario, call.params.scenario, "the card keeps the fight it played (for Vary and Share)");
    const html = card.content;
    assert.match(html, /Forecast \(Enchanted Realms\)/);
    assert.match(html, /<th>friendly<\/th>.*62% \(59%–65%\)/s);
    assert.match(html, /<th>hostile<\/th>.*35% \(32%–38%\)/s);
    assert.match(html, /<th>draw<\/th>.*3% \(2%–4%\)/s);
    assert.match(html, /rounds: 6\.4 on average \(median 6, 2–14\)/);
    // Bars: inline SVG, one per side and draws, width the chance, and the rounds' columns; nothing external.
    assert.deepEqual([...html.matchAll(/class="fracas-bar-value" x="0" y="2" width="([\d.]+)"/g)].map((m) => m[1]), ["62", "35", "3"]);
    assert.equal([...html.matchAll(/<rect x="[\d.]+" y="[\d.]+" width="2.4"/g)].length, 6);
    assert.doesNotMatch(html, /\b(?:href|src)=|url\(|<script|<style|<image/);
    // Who is likely to fall: the top five by down + fled, the hidden one marked.
    const fall = [...html.matchAll(/data-token="([^"]+)"><strong>([^<]+)<\/strong>/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(fall, [["g2", "Goblin #2"], ["s-shade", "Shade"], ["g1", "Goblin #1"], ["b-cleric", "Mira"], ["a-hero", "Aldric"]]);
    assert.match(html, /Shade<\/strong> <span class="fracas-hidden-mark">hidden<\/span>/);
    assert.match(html, /Goblin #2<\/strong> <span class="fracas-tags">hostile<\/span>: down 70% · fled 20% · takes 6\.0 on average/);
    assert.match(html, /not counted: Barrel \(Barrel: no strikes for this actor/);
    assert.match(html, /1000 fights · seed 77/);
    assert.match(html, /data-fracas-action="vary"/);
    assert.match(html, /data-fracas-action="share"/);
  });

  test("Share: a card for everyone without the hidden combatant (no row, no name, no id), names players cannot read masked, flags bare", async () => {
    const { api, vtt } = gmWorld({ settings: { forecastTokens: "scene", forecastNeutral: "side" } });
    const { messageId } = await api.forecast();
    await api.forecastShare(messageId);
    assert.equal(vtt.messages.length, 2);
    assert.equal(vtt.messages[0].flags.fracas.result.seed, "12345678901234567890", "a 64-bit seed (BigInt from the codec) kept as its digits");
    const shared = vtt.messages[1];
    assert.equal(shared.whisperToGM, false);
    assert.equal(shared.rollMode, "publicroll");
    assert.deepEqual(shared.rolls, []);
    assert.deepEqual(shared.flags, { fracas: { kind: "forecast-public" } });
    const text = JSON.stringify(shared);
    for (const secret of ["Shade", "s-shade", "Barrel", "hidden", "Tobin", "m-tobin", "12345678901234567890"]) assert.ok(!text.includes(secret), `the shared card says ${secret}`);
    assert.match(shared.content, /Forecast of the fight/);
    assert.match(shared.content, /<th>neutral<\/th>/);
    assert.match(shared.content, /an unnamed creature/, "Tobin's nameplate is not shown to players");
    assert.doesNotMatch(shared.content, /data-fracas-action/);
    assert.equal([...shared.content.matchAll(/class="fracas-forecast-member"/g)].length, 5, "the top five of the visible ones");
  });

  test("combat mode: the combatants only, a combatant hidden in the tracker is hidden; defeated ones out", async () => {
    const { api, vtt, conn, tokens } = gmWorld({ settings: { forecastTokens: "auto" } });
    const pick = (id) => tokens.find((t) => t.id === id);
    vtt.combatState = { id: "c1", current: null, combatants: [
      { id: "c0", name: "Aldric the Bold", defeated: false, hidden: false, view: pick("a-hero") },
      { id: "c1", name: "Goblin", defeated: false, hidden: true, view: pick("g1") },
      { id: "c2", name: "Goblin", defeated: true, hidden: false, view: pick("g2") }] };
    await api.forecast();
    const { scenario } = conn.calls[0].params;
    assert.deepEqual(scenario.sides, {
      friendly: [{ ...scenario.sides.friendly[0], name: "a-hero", label: "Aldric the Bold" }],
      hostile: [{ ...scenario.sides.hostile[0], name: "g1", label: "Goblin" }] });
    assert.deepEqual(vtt.messages[0].flags.fracas.members.map((m) => [m.id, m.hidden]), [["a-hero", false], ["g1", true]]);
    await assert.doesNotReject(api.forecast({ from: "scene" }));
    assert.equal(Object.values(conn.calls[1].params.scenario.sides).flat().length, 5, "from: scene overrides the setting");
  });

  test("the bridge's refusals are notifications: -32003 with its budget, -32602 with the field path and the token it means; nothing posted", async () => {
    const errors = {
      budget: { code: -32003, message: "1000000 fights × 5 combatants is over the bridge's forecast budget of 20000000; ask for at most 4000000 fights", data: { path: "$.params.runs" } },
      params: { code: -32602, message: "$.params.scenario.sides.hostile[1].hp: hp -3 is out of range 1..1000000", data: { path: "$.params.scenario.sides.hostile[1].hp" } },
    };
    let which = "budget";
    const { api, vtt } = gmWorld({ settings: { forecastTokens: "scene" }, answer: () => { throw new BridgeError("fight.forecast", errors[which]); } });
    assert.equal(await api.forecast({ runs: 1000000 }), null);
    which = "params";
    assert.equal(await api.forecast(), null);
    assert.deepEqual(vtt.messages, []);
    assert.deepEqual(vtt.notes.map((n) => n.level), ["warn", "warn"]);
    assert.equal(vtt.notes[0].text, "fracas: fight.forecast failed: the request is too large: $.params.runs: 1000000 fights × 5 combatants is over "
      + "the bridge's forecast budget of 20000000; ask for at most 4000000 fights (code -32003)");
    assert.equal(vtt.notes[1].text, "fracas: fight.forecast failed: a value of the request is wrong: $.params.scenario.sides.hostile[1].hp: hp -3 is out of "
      + "range 1..1000000 (code -32602) [combatant Goblin #2]");
    assert.equal(explainForecastPath("$.params.scenario.sides['hostile'][2].attacks[0]", [{ id: "s", side: "hostile", index: 2, name: "Shade" }]), "combatant Shade");
    assert.equal(explainForecastPath("$.params.runs", []), "");
  });

  test("bad options are refused before anything is sent; a player may not forecast", async () => {
    const { api, vtt, conn } = gmWorld({ settings: { forecastTokens: "scene" } });
    assert.equal(await api.forecast({ runs: 0 }), null);
    assert.equal(await api.forecast({ from: "everywhere" }), null);
    assert.equal(await api.forecast({ neutral: "maybe" }), null);
    assert.equal(await api.forecast({ seed: "x" }), null);
    assert.equal(await api.forecast({ from: "combat" }), null);
    assert.equal(conn.calls.length, 0);
    assert.deepEqual(vtt.notes.map((n) => n.text), [
      "fracas: forecast: runs 0 is not a whole number of fights of 1 or more",
      'fracas: forecast: from "everywhere" is not one of auto, combat, scene',
      'fracas: forecast: neutral "maybe" is not one of leave, friendly, hostile, side',
      "fracas: seed x is not a whole number from 0 to 2^64 − 1",
      "fracas: no combat with combatants to forecast",
    ]);
    const player = gmWorld({ isGM: false });
    assert.equal(await player.api.forecast(), null);
    assert.equal(player.conn.calls.length, 0);
    assert.match(player.vtt.notes[0].text, /only a GM can forecast fights with fracas/);
  });

  test("an answer that is not a forecast is refused, nothing posted", async () => {
    const { api, vtt } = gmWorld({ settings: { forecastTokens: "scene" }, answer: () => ({ sides: {} }) });
    assert.equal(await api.forecast(), null);
    assert.deepEqual(vtt.messages, []);
    assert.match(vtt.notes[0].text, /not a forecast; nothing was posted/);
  });
});

describe("Vary", () => {
  const answer = (method, params) => contractReply(params, { sweep: params.vary ? sweepReply(params, [0.9, 0.7, 0.4, 0.2]) : null });

  test("the dialog proposes the first of the most numerous enemy kind, its copies 1..4; the sweep is of the card's own fight; its card is the GMs'", async () => {
    const { api, vtt, conn } = gmWorld({ settings: { forecastTokens: "scene" }, answer });
    const { messageId } = await api.forecast();
    vtt.formAnswer = { token: "g1", field: "count", values: "1..4", side: "friendly", target: "50", runs: "200" };
    const out = await api.forecastVary(messageId);
    assert.deepEqual(vtt.notes, []);
    assert.match(vtt.formHtml, /<option value="g1" selected>Goblin #1 \(hostile\)<\/option>/);
    assert.match(vtt.formHtml, /<option value="s-shade">Shade \(hostile, hidden\)<\/option>/, "the GM's dialog offers the hidden token too");
    assert.match(vtt.formHtml, /name="values" value="1\.\.4"/);
    assert.equal(vtt.formOk, "Play");
    const call = conn.calls[1];
    assert.deepEqual(call.params.vary, { path: "$.sides.hostile[0].count", values: "1..4", target: 0.5, side: "friendly" });
    assert.equal(call.params.runs, 200);
    assert.deepEqual(call.params.scenario, conn.calls[0].params.scenario);
    assert.equal(out.requestId, call.id);
    const card = vtt.messages[1];
    assert.equal(card.whisperToGM, true);
    assert.deepEqual(card.rolls, []);
    assert.match(card.content, /Forecast: varying the copies of Goblin #1/);
    assert.match(card.content, /friendly wins 50% of fights at about ×2\.5 \(between ×2 and ×3\)\./);
    assert.deepEqual([...card.content.matchAll(/<tr data-value="(\d+)"><th>×\d+<\/th><td>([^<]+)<\/td>/g)].map((m) => [m[1], m[2]]),
      [["1", "90% (86%–94%)"], ["2", "70% (66%–74%)"], ["3", "40% (36%–44%)"], ["4", "20% (16%–24%)"]]);
    assert.equal([...card.content.matchAll(/<rect x="[\d.]+" y="[\d.]+" width="8"/g)].length, 4);
  });

  test("closing the dialog does nothing; a macro may vary with its own choice (a token's health), and bad choices are refused by name", async () => {
    const { api, vtt, conn } = gmWorld({ settings: { forecastTokens: "scene" }, answer });
    const { messageId } = await api.forecast();
    vtt.formAnswer = null;
    assert.equal(await api.forecastVary(messageId), null);
    assert.equal(conn.calls.length, 1);
    await api.forecastVary(messageId, { token: "Shade", field: "hp", values: "1..4" });
    assert.deepEqual(conn.calls[1].params.vary, { path: "$.sides.hostile[2].hp", values: "1..4", target: 0.5 });
    assert.equal(conn.calls[1].params.runs, 500);
    assert.match(vtt.messages.at(-1).content, /varying the health of Shade/);
    for (const bad of [{ token: "Nobody", values: "1..3" }, { token: "g1", field: "ac", values: "1..3" }, { token: "g1", values: "" },
      { token: "g1", values: "1..3", target: 2 }, { token: "g1", values: "1..3", side: "party" }]) {
      assert.equal(await api.forecastVary(messageId, bad), null);
    }
    assert.equal(conn.calls.length, 2);
    assert.deepEqual(vtt.notes.map((n) => n.text.replace(/ \(.*$/, "")), [
      'fracas: vary: no combatant "Nobody" in this forecast', 'fracas: vary: field "ac" is not one of count, hp',
      'fracas: vary: values "" are not a range a..b, a..b:step or a list a,b,c', "fracas: vary: target 2 is not a chance between 0 and 1",
      'fracas: vary: side "party" is not one of friendly, hostile']);
    assert.equal(await api.forecastVary("msg-none", { token: "g1", values: "1..2" }), null);
    assert.match(vtt.notes.at(-1).text, /message msg-none is not a forecast card/);
  });

  test("api.forecast({vary}) plays the sweep with the forecast: both cards", async () => {
    const { api, vtt, conn } = gmWorld({ settings: { forecastTokens: "scene" }, answer });
    await api.forecast({ vary: { token: "g2", values: "1..4", side: "hostile", target: 0.25 } });
    assert.deepEqual(conn.calls[0].params.vary, { path: "$.sides.hostile[1].count", values: "1..4", target: 0.25, side: "hostile" });
    assert.deepEqual(vtt.messages.map((m) => m.flags.fracas.kind), ["forecast", "forecast-vary"]);
    assert.equal(vtt.messages[0].flags.fracas.result.sweep, undefined, "the card keeps the forecast, the sweep has its card");
  });

  test("defaults: the most numerous kind among the first side's opponents; copies up to twice its tokens (4..20), health from a quarter", () => {
    const members = [
      { id: "a", side: "friendly", index: 0, name: "A", actorId: "pc", hp: 20 },
      { id: "o", side: "hostile", index: 0, name: "Ogre", actorId: "ogre", hp: 30 },
      ...[1, 2, 3].map((i) => ({ id: `w${i}`, side: "hostile", index: i, name: `Wolf #${i}`, actorId: "wolf", hp: 9 })),
    ];
    assert.equal(defaultVaryMember(members).id, "w1");
    assert.equal(defaultVaryValues(members, members[2], "count"), "1..6");
    assert.equal(defaultVaryValues(members, members[1], "count"), "1..4");
    assert.equal(defaultVaryValues(members, members[1], "hp"), "8..64:8");
    assert.deepEqual(varyParams(members, { token: "Ogre", values: [5, 10, 15] }), { path: "$.sides.hostile[0].count", values: "5,10,15", target: 0.5 });
  });
});

describe("a GM tab that does not hold the bridge", () => {
  const answer = (method, params) => contractReply(params, { sweep: params.vary ? sweepReply(params, [0.9, 0.7, 0.4, 0.2]) : null });
  const ask = (action, data, id) => ({ type: "ask", id, action, data, to: "gm" });

  test("its forecast, Vary (the dialog on its own screen) and Share are played by the holder, on the asking tab's scene", async () => {
    const relaying = gmWorld({ settings: { forecastTokens: "scene" }, answer });
    relaying.vtt.holdsConnection = () => false;
    relaying.vtt.sceneId = () => "scene-2";
    relaying.vtt.gmAnswers = () => ({ requestId: "r", messageId: "m", total_damage: null });
    const holder = gmWorld({ settings: { forecastTokens: "scene" }, answer });
    holder.vtt.userIsGM = (id) => id === "assistant";
    const scenes = [];
    const own = holder.vtt.sceneTokens;
    holder.vtt.sceneTokens = (id) => { scenes.push(id); return own(id); };

    await relaying.api.forecast({ runs: 300 });
    assert.deepEqual(relaying.vtt.asked.at(-1), { action: "forecast", data: { runs: 300, scene: "scene-2" } });
    assert.equal(relaying.conn.calls.length, 0, "the relaying tab sends nothing to a bridge");
    const played = await holder.api.answerRequest(ask("forecast", relaying.vtt.asked.at(-1).data, "asst-0000001"), "assistant");
    assert.equal(played.error, undefined, JSON.stringify(played));
    assert.deepEqual(scenes, ["scene-2"]);
    assert.equal(holder.conn.calls[0].params.runs, 300);
    assert.equal(holder.conn.calls[0].id, "player-assistant-asst-0000001", "the relayed request's bridge id names the asking user");
    assert.equal(holder.vtt.messages[0].whisperToGM, true);

    // Vary: the dialog on the asking tab (which has the card), the sweep on the holder.
    relaying.vtt.messageFlags = (id) => holder.vtt.messageFlags(id);
    relaying.vtt.formAnswer = { token: "g2", field: "count", values: "1..4", side: "", target: "50", runs: "100" };
    await relaying.api.forecastVary(played.messageId);
    assert.match(relaying.vtt.formHtml, /<option value="g1" selected>/);
    const { action, data } = relaying.vtt.asked.at(-1);
    assert.deepEqual([action, data.messageId, data.choice.token, data.choice.values], ["forecastVary", played.messageId, "g2", "1..4"]);
    const swept = await holder.api.answerRequest(ask(action, data, "asst-0000002"), "assistant");
    assert.equal(swept.error, undefined, JSON.stringify(swept));
    assert.deepEqual(holder.conn.calls[1].params.vary, { path: "$.sides.hostile[1].count", values: "1..4", target: 0.5 });

    await relaying.api.forecastShare(played.messageId);
    const shared = await holder.api.answerRequest(ask("forecastShare", relaying.vtt.asked.at(-1).data, "asst-0000003"), "assistant");
    assert.equal(shared.error, undefined, JSON.stringify(shared));
    assert.deepEqual(holder.vtt.messages.map((m) => m.flags.fracas.kind), ["forecast", "forecast-vary", "forecast-public"]);
    // A player may not have a forecast played.
    const refused = await holder.api.answerRequest(ask("forecast", {}, "play-0000001"), "player1");
    assert.equal(refused.error, '"forecast" cannot be asked of the GM\'s client by a player');
    assert.equal(holder.conn.calls.length, 2);
  });
});

test("the fakes are strict: a view, the adapter and a posted card refuse properties the edge never gives", async () => {
  assert.throws(() => view("t", "T", null, { dispositon: 1 }), /view: unknown property "dispositon"/);
  assert.throws(() => fakeVtt({ token: [] }), /fakeVtt: unknown property "token"/);
  await assert.rejects(fakeVtt().postCard({ content: "x", whisper: ["gm"] }), /postCard: unknown property "whisper"/);
});

describe("the cards' text is the world's, escaped for the enricher", () => {
  test("a token named with [[…]] and @UUID[…] makes no roll or link on either card", () => {
    const members = [{ id: "t1", side: "friendly", index: 0, name: "[[/r 1d20]] @UUID[Actor.x]{Boss}", hidden: false, unnamed: false, actorId: null, hp: 5 },
      { id: "t2", side: "hostile", index: 0, name: "Orc", hidden: false, unnamed: false, actorId: null, hp: 5 }];
    const result = contractReply({ scenario: { name: "x", ruleset: "enchanted-realms", sides: { friendly: [{ name: "t1" }], hostile: [{ name: "t2" }] } }, runs: 10 });
    for (const forPlayers of [false, true]) {
      const html = renderForecastCard(forecastCardModel(result, { members, forPlayers }), { left: [{ name: "[[1d6]]", why: "@Embed[x]" }] });
      assert.deepEqual(enrichments(html), []);
      assert.match(html, /\/r 1d20/);
    }
    const sweep = sweepReply({ runs: 10, vary: { path: "$.sides.friendly[0].count", values: "1..2", target: 0.5 } }, [0.4, 0.6]);
    assert.deepEqual(enrichments(renderSweepCard(sweepCardModel(sweep, { member: members[0], field: "count" }))), []);
  });

  test("no crossing: the chance stays above or below the target over the values", () => {
    const member = { id: "g", side: "hostile", index: 0, name: "Goblin", hidden: false, unnamed: false, actorId: null, hp: 5 };
    const params = { runs: 10, vary: { path: "$.sides.hostile[0].count", values: "1..3", target: 0.5 } };
    const above = { ...sweepReply(params, [0.9, 0.8, 0.7]) };
    above.target = { ...above.target, rows: [{ at: {}, crossings: [] }] };
    assert.match(renderSweepCard(sweepCardModel(above, { member, field: "count" })), /friendly wins more than 50% of fights from ×1 to ×3/);
    const below = { ...sweepReply(params, [0.3, 0.2, 0.1]) };
    below.target = { ...below.target, rows: [{ at: {}, crossings: [] }] };
    assert.match(renderSweepCard(sweepCardModel(below, { member, field: "count" })), /friendly wins less than 50% of fights from ×1 to ×3/);
  });
});

// The engine itself on the scenario the module built: the scenario is one the engine takes, and
// the card shows the engine's numbers. fracas.simulate / fracas.sweep are what fight.forecast
// answers (the forecast contract: simulate's result without timing, sweep's with vary).
const PYTHON = process.env.FRACAS_PYTHON || join(REPO_DIR, ".venv/bin/python");
const havePython = existsSync(PYTHON) && spawnSync(PYTHON, ["-c", "import fracas"], { cwd: REPO_DIR }).status === 0;
const ENGINE = `
import json, sys
import fracas
p = json.load(sys.stdin)
out = fracas.simulate(p["scenario"], runs=p["runs"], seed=p["seed"]).to_dict()
out.pop("timing", None)
if p.get("vary"):
    v = p["vary"]
    sweep = fracas.sweep(p["scenario"], [v["path"] + "=" + v["values"]], runs=p["runs"], seed=p["seed"],
                         target=v.get("target", 0.5), side=v.get("side")).to_dict()
    sweep.pop("timing", None)
    out["sweep"] = sweep
print(json.dumps(out))
`;

describe("against the engine's simulate and sweep", { skip: havePython ? false : `no Python with fracas at ${PYTHON} (set FRACAS_PYTHON)` }, () => {
  const engine = (method, params) => {
    assert.equal(method, "fight.forecast");
    const run = spawnSync(PYTHON, ["-c", ENGINE], { cwd: REPO_DIR, encoding: "utf8", input: JSON.stringify(params) });
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout);
  };

  test("the scene's scenario plays; the card's chances and fallen are the engine's; the vary sweep's crossing is the engine's", async () => {
    const { api, vtt } = gmWorld({ settings: { forecastTokens: "scene", forecastRuns: 400 }, answer: engine });
    const out = await api.forecast({ seed: 5 });
    assert.deepEqual(vtt.notes, []);
    const { result } = out;
    assert.equal(result.completed, 400);
    assert.deepEqual(Object.keys(result.combatants).sort(), ["a-hero", "b-cleric", "g1", "g2", "s-shade"], "member ids are the token ids");
    const html = vtt.messages[0].content;
    for (const [side, s] of Object.entries(result.sides)) {
      const pct = (p) => `${(p * 100).toFixed(p >= 0.995 || p <= 0.005 ? 1 : 0)}%`;
      assert.ok(html.includes(`${pct(s.win_rate)} (${pct(s.win_rate_ci95[0])}–${pct(s.win_rate_ci95[1])})`), `${side}'s chance on the card`);
    }
    const { messageId } = out;
    const varied = await api.forecastVary(messageId, { token: "g1", values: "1..5", runs: 100, seed: 9 });
    assert.deepEqual(vtt.notes, []);
    const crossings = varied.result.sweep.target.rows[0].crossings;
    const card = vtt.messages.at(-1).content;
    assert.equal([...card.matchAll(/<tr data-value=/g)].length, 5);
    if (crossings.length) assert.ok(card.includes(`at about ×${crossings[0].at.toFixed(1)}`), card);
  });
});
