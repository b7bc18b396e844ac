// Issue 45, item 6: the module draws a ruleset's attack card, its dice, its initiative and
// its fight scenario from the contract (contract.js RULESETS[].client, the ruleset's manifest
// [client] table, and its result layouts and request fields), not from its name. The
// built-in rulesets' cards are checked against the engine's own vectors; then the module is
// run with fake rulesets added to its contract.js, which no hand-written code can know of.
import "./english.js";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import { renderRulesetCard, renderSideInitiativeCard, rulesetCardModel, rulesetRollSpecs, sideInitiativeRollSpecs } from "../scripts/chat.js";
import { RULESETS } from "../scripts/contract.js";
import { rulesetClient } from "../scripts/rulesets.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MODULE = path.resolve(HERE, "..");
const vectors = JSON.parse(readFileSync(path.resolve(MODULE, "../../tests/vectors/rulesets_vectors.json"), "utf8"))
  .filter((v) => v.result);
/** The first vector of `ruleset`'s `kind` whose result passes `where`. */
const vector = (ruleset, kind, where = () => true) => {
  const found = vectors.find((v) => v.kind === kind && v.result.ruleset === ruleset && where(v.result));
  assert.ok(found, `a ${ruleset} ${kind} vector`);
  return found.result;
};
/** A ruleset of the contract whose client hints pass `where` (no ruleset named here). */
const rulesetWith = (where) => {
  const found = RULESETS.find((r) => where(r.client ?? {}));
  assert.ok(found, "a built-in ruleset with such client hints");
  return found.name;
};
const card = (result) => renderRulesetCard(rulesetCardModel(result, { attackerName: "A", names: {}, requestId: "r" }));

describe("the built-in rulesets' cards, from their contract", () => {
  test("WW-2 / OS-3: a d20 strike reads 'vs' the field its contract names (TN, AC), and shows its d20", () => {
    for (const [field, words] of [["tn", "TN"], ["ac", "AC"]]) {
      const ruleset = rulesetWith((c) => c.strike === "d20" && c.against === field);
      const result = vector(ruleset, "attack", (r) => r.strikes.length > 0);
      const s = result.strikes[0];
      assert.match(card(result), new RegExp(`d20 ${s.attack_roll}.* = ${s.attack_total} vs ${words} ${s[field]}: `));
      assert.deepEqual(rulesetRollSpecs(result)[0].groups.map((g) => [g.faces, g.results[0].result]), [[20, s.attack_roll]]);
    }
  });

  test("CT-2 / CT-3 / CT-4: a pool strike shows its die's faces and pool; the card splits damage into the fields its contract names", () => {
    const ruleset = rulesetWith((c) => c.strike === "pool");
    const { split } = rulesetClient(ruleset);
    assert.deepEqual(split, ["stamina", "injury"]);
    const result = vector(ruleset, "attack", (r) => r.strikes.some((s) => s.faces.length));
    const html = card(result);
    const s = result.strikes.find((x) => x.faces.length);
    assert.ok(html.includes(`${s.dice}${s.die}: ${s.faces.join(" ")}`), html);
    const [id, x] = Object.entries(result.targets)[0];
    assert.ok(html.includes(`(stamina ${x.stamina}, injury ${x.injury})`), `${id}: ${html}`);
    const faces = Number(s.die.slice(1));
    assert.ok(rulesetRollSpecs(result).some((spec) => spec.groups[0].faces === faces
      && spec.groups[0].results.map((r) => r.result).join() === s.faces.join()));
  });

  test("CT-1 / OS-1: a side initiative card rolls the die and cites the rule its contract gives", () => {
    for (const where of [(r) => typeof r.first === "string", (r) => Array.isArray(r.sides)]) {
      const ruleset = RULESETS.filter((r) => r.client?.initiative === "side")
        .map((r) => r.name).find((name) => vectors.some((v) => v.kind === "initiative" && v.result.ruleset === name && where(v.result)));
      const result = vector(ruleset, "initiative", where);
      const { initiative_die: die, initiative_rule: rule } = rulesetClient(ruleset);
      assert.equal(die, 6);
      const html = renderSideInitiativeCard(result);
      assert.ok(html.includes(`(${rule})`) && html.includes(`d${die}`), html);
      assert.ok(sideInitiativeRollSpecs(result)[0].groups.every((g) => g.faces === die));
    }
  });
});

// ── fake rulesets in the contract ────────────────────────────────────────────────────────

const FAKES = [
  // A ruleset whose manifest has no [client] table: its strikes in its layout's order, no dice.
  { name: "plain-fake", title: "Plain", titleKey: "FRACAS.Ruleset.Title.plain-fake", requests: ["attack"], foundry: true, client: {} },
  // Every hint, with fields no built-in has: a d20 against "dc", a split into "wounds", d8 side initiative.
  { name: "hinted-fake", title: "Hinted", titleKey: "FRACAS.Ruleset.Title.hinted-fake", requests: ["attack", "initiative", "morale"],
    foundry: true, client: { strike: "d20", against: "dc", split: ["wounds"], initiative: "side", initiative_options: { weather: "clear" },
      initiative_die: 8, initiative_rule: "HF-1", fight_party: "party" } },
  // Per-combatant initiative from an actor flag.
  { name: "flag-fake", title: "Flag", titleKey: "FRACAS.Ruleset.Title.flag-fake", requests: ["attack", "initiative"], foundry: true,
    client: { initiative: "combatant", initiative_flags: ["speed"], initiative_rule: "FF-1" } },
];
const FIELDS = {
  "plain-fake": { Attacker: ["power"], Target: ["guard"] },
  "hinted-fake": { Attacker: ["power"], Target: ["guard"], InitiativeRequest: ["round", "sides", "weather", "ruleset", "seed", "rolls"] },
  "flag-fake": { Attacker: ["power"], Target: ["guard"], InitiativeRequest: ["combatants", "ruleset", "seed", "rolls"], Combatant: ["id", "speed"] },
};
const attackLayout = (strike, target) => ({ kinds: { attack: "AttackResult" }, shapes: {
  AttackResult: ["ruleset", "seed", ["strikes", { list: "Strike" }], ["targets", { dict: "Target" }], "total_damage"],
  Strike: strike, Target: target } });
const LAYOUTS = {
  "plain-fake": attackLayout(["target", "faces", "hits", "hit", "damage"], ["damage"]),
  "hinted-fake": attackLayout(["target", "attack_roll", "natural", "attack_bonus", "attack_total", "dc", "hit", "damage"], ["damage", "wounds"]),
  "flag-fake": attackLayout(["target", "damage"], ["damage"]),
};

/** The module (scripts, lang, test helpers) copied with FAKES added to its contract.js. */
function fakeModule() {
  const root = mkdtempSync(path.join(tmpdir(), "fracas-fake-contract-"));
  for (const part of ["scripts", "lang", "test", "package.json"]) cpSync(path.join(MODULE, part), path.join(root, part), { recursive: true });
  const file = path.join(root, "scripts", "contract.js");
  let text = readFileSync(file, "utf8");
  const add = (head, items) => {
    assert.ok(text.includes(head), head);
    text = text.replace(head, `${head}\n${items}`);
  };
  add("export const RULESETS = Object.freeze([", FAKES.map((f) => `  Object.freeze(${JSON.stringify(f)}),`).join("\n"));
  add("export const FIELDS = Object.freeze({", Object.entries(FIELDS).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},`).join("\n"));
  add("export const RESULTS = Object.freeze({", Object.entries(LAYOUTS).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},`).join("\n"));
  writeFileSync(file, text);
  return root;
}

describe("a ruleset the module has no code for, in its contract", () => {
  const root = fakeModule();
  after(() => rmSync(root, { recursive: true, force: true }));
  const load = async (rel) => import(pathToFileURL(path.join(root, rel)).href);
  const ready = (async () => {
    await load("test/english.js"); // the copy's own i18n module gets the English strings
    return { chat: await load("scripts/chat.js"), actions: await load("scripts/actions.js"), request: await load("scripts/request.js"),
      fakes: await load("test/fakes.js"), settings: await load("scripts/settings.js") };
  })();

  test("no hand-written script of the copy names a fake: what follows is drawn from the contract alone", () => {
    for (const rel of ["chat.js", "request.js", "rulesets.js", "actions/initiative.js", "forecast.js"]) {
      assert.doesNotMatch(readFileSync(path.join(root, "scripts", rel), "utf8"), /-fake/, rel);
    }
  });

  test("without hints: each strike's values in the layout's order, the hit, the damage; no dice", async () => {
    const { chat } = await ready;
    const result = { ruleset: "plain-fake", seed: 1, strikes: [{ target: "t1", faces: [5, 2], hits: 1, hit: true, damage: 4 }],
      targets: { t1: { damage: 4 } }, total_damage: 4 };
    const html = chat.renderRulesetCard(chat.rulesetCardModel(result, { attackerName: "Ogre", names: { t1: "Imp" }, requestId: "r" }));
    assert.ok(html.includes("faces 5, 2 · hits 1 · hit → 4"), html);
    assert.match(html, /Imp<\/strong>: <span class="fracas-damage">4<\/span> damage<\/li>/);
    assert.deepEqual(chat.rulesetRollSpecs(result), []);
  });

  test("with hints: a d20 against the named field, the split the contract names, the d20 as a roll", async () => {
    const { chat } = await ready;
    const result = { ruleset: "hinted-fake", seed: 1, total_damage: 3, targets: { t1: { damage: 3, wounds: 1 } },
      strikes: [{ target: "t1", attack_roll: 14, natural: null, attack_bonus: 2, attack_total: 16, dc: 15, hit: true, damage: 3 }] };
    const html = chat.renderRulesetCard(chat.rulesetCardModel(result, { attackerName: "Ogre", names: {}, requestId: "r" }));
    assert.ok(html.includes("d20 14 +2 = 16 vs dc 15: hit → 3"), html);
    assert.ok(html.includes("(wounds 1)"), "no language string has {wounds}: the field and its value");
    assert.deepEqual(chat.rulesetRollSpecs(result)[0].groups.map((g) => [g.faces, g.results[0].result]), [[20, 14]]);
  });

  /** A combat of a player's hero and an orc, its actors' flags `flags`, through createActions. */
  async function combat(answer, flags = {}) {
    const { actions, fakes } = await ready;
    const hero = fakes.fakeActor({ uuid: "Actor.hero", name: "Hero", system: fakes.sheet({}), flags: { fracas: flags.hero ?? {} } });
    hero.hasPlayerOwner = true;
    const orc = fakes.fakeActor({ uuid: "Actor.orc", name: "Orc", system: fakes.sheet({}), flags: { fracas: flags.orc ?? {} } });
    const vtt = fakes.fakeVtt({ tokens: [fakes.view("hero", "Hero", hero), fakes.view("orc", "Orc", orc)] });
    vtt.combatState = { id: "c1", round: 3, current: null, combatants: [
      { id: "c-hero", name: "Hero", defeated: false, hidden: false, view: fakes.view("hero", "Hero", hero) },
      { id: "c-orc", name: "Orc", defeated: false, hidden: false, view: fakes.view("orc", "Orc", orc) },
    ] };
    const conn = fakes.fakeConnection(answer);
    const api = actions.createActions({ vtt, connection: () => conn, newId: () => "i1", log: (e) => { throw e; } });
    return { api, vtt, conn };
  }

  test("side initiative: the request from its fields and option defaults, its die and rule on the card, the sides' order", async () => {
    const { api, conn, vtt } = await combat(() => ({ ruleset: "hinted-fake", seed: 2, injected: false,
      sides: [{ id: "party", roll: 7, tiebreaks: [] }, { id: "opponents", roll: 2, tiebreaks: [] }], order: [["party"], ["opponents"]] }));
    const out = await api.initiative({ ruleset: "hinted-fake" });
    assert.deepEqual(conn.calls[0].params, { ruleset: "hinted-fake", round: 3, sides: [{ id: "party" }, { id: "opponents" }], weather: "clear" });
    assert.deepEqual(out.values, [{ id: "c-hero", value: 2 }, { id: "c-orc", value: 1 }]);
    assert.ok(vtt.messages[0].content.includes("d8: party 7 · opponents 2"), vtt.messages[0].content);
    assert.ok(vtt.messages[0].content.includes("(HF-1)"));
    assert.deepEqual(vtt.messages[0].rolls[0].groups.map((g) => [g.flavor, g.faces]), [["party", 8], ["opponents", 8]]);
    const first = await combat(() => ({ ruleset: "hinted-fake", seed: 2, injected: false, roll: 3, first: "opponents", surprised: null }));
    const again = await first.api.initiative({ ruleset: "hinted-fake", weather: "rain" });
    assert.equal(first.conn.calls[0].params.weather, "rain", "the caller's option over the default");
    assert.deepEqual(again.values, [{ id: "c-hero", value: 1 }, { id: "c-orc", value: 2 }], "the side that acts first higher");
    assert.ok(first.vtt.messages[0].content.includes("d8 3 → opponents act first (HF-1)"), first.vtt.messages[0].content);
  });

  test("per-combatant initiative: the fields the contract names from each actor's flags.fracas.<ruleset>; a missing one named with its path", async () => {
    const { api, conn } = await combat(() => ({ ruleset: "flag-fake", seed: 1, injected: false, order: [
      { id: "c-hero", roll: 9, modifier: 2, total: 11, tiebreaks: [] }, { id: "c-orc", roll: 3, modifier: 0, total: 3, tiebreaks: [] }] }),
    { hero: { "flag-fake": { speed: 2 } }, orc: { "flag-fake": { speed: 0 } } });
    await api.initiative({ ruleset: "flag-fake" });
    assert.deepEqual(conn.calls[0].params, { ruleset: "flag-fake", combatants: [{ id: "c-hero", speed: 2 }, { id: "c-orc", speed: 0 }] });
    const missing = await combat(() => ({}), { hero: { "flag-fake": { speed: 2 } } });
    await missing.api.initiative({ ruleset: "flag-fake" });
    assert.equal(missing.vtt.notes.at(-1).text, "fracas: Orc: no speed in flags.fracas.flag-fake.speed (FF-1)");
    assert.equal(missing.conn.calls.length, 0, "nothing sent");
  });

  test("a fight's scenario: the party named where the contract says so, morale read where its kinds include morale", async () => {
    const { request, fakes, settings } = await ready;
    const mapping = settings.readMapping((key) => fakes.fakeVtt({}).setting(key));
    const data = { power: 2, guard: 11, morale: 7, strikes: [{ swing: 1 }] };
    const combatants = (ruleset) => ["hero", "orc"].map((id) => {
      const actor = fakes.fakeActor({ uuid: `Actor.${id}`, name: id, system: fakes.sheet({}), flags: { fracas: { [ruleset]: data } } });
      actor.hasPlayerOwner = id === "hero";
      return { id: `c-${id}`, name: id, view: fakes.view(id, id, actor) };
    });
    const hinted = request.buildScenario({ ruleset: "hinted-fake", combatants: combatants("hinted-fake"), mapping }).scenario;
    assert.deepEqual(hinted.initiative, { party: "party" });
    assert.equal(hinted.sides.party[0].morale, 7);
    assert.deepEqual([hinted.sides.party[0].attacker, hinted.sides.party[0].target], [{ power: 2 }, { guard: 11 }]);
    const plain = request.buildScenario({ ruleset: "plain-fake", combatants: combatants("plain-fake"), mapping }).scenario;
    assert.equal(plain.initiative, undefined);
    assert.equal(plain.sides.party[0].morale, undefined);
  });
});
