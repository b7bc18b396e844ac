// A ruleset the module does not port (a plug-in of the bridge's, issue 39 item 12):
// served.js checks the bridge's server.contract (a bad one refused naming where, never a
// crash), and api.attack naming such a ruleset asks for its contract, is sent built from
// the served fields, renders from the served layout and applies the per-target totals.
import "./english.js";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { afterEach, describe, test } from "node:test";

import { createActions } from "../scripts/actions.js";
import { InputError } from "../scripts/errors.js";
import { rulesetClient } from "../scripts/rulesets.js";
import { checkContract, forget, servedClient, servedStrikeLine } from "../scripts/served.js";
import { fakeActor, fakeConnection, fakeVtt, sheet, view } from "./fakes.js";

// The d6 pool's entry and structs as `python -m fracas.spec` makes them (the Roll20 tests'
// fixture; tests/bridge/test_contract.py checks the bridge serves the same) and its attack layouts.
const POOL = JSON.parse(readFileSync(new URL("../../roll20/test/fixtures/d6pool_contract.json", import.meta.url), "utf8"));
const LAYOUTS = {
  kinds: { attack: "AttackResult" },
  shapes: {
    AttackResult: ["ruleset", "seed", "backend", "injected", ["strikes", { list: "StrikeResult" }], ["targets", { dict: "Damage" }], "total_damage"],
    StrikeResult: ["target", "faces", "hits", "hit", "damage"],
    Damage: ["damage"],
    OddsTarget: ["mean", ["remaining", null, "optional"]],
    Listed: ["group", ["strikes", { list: { or_scalar: "StrikeResult" } }]],
  },
};
const contract = () => structuredClone({
  version: "0.1.0", default_ruleset: "enchanted-realms", rulesets: [{ ...POOL.entry }],
  structs: { "d6-pool": POOL.structs }, limits: {}, results: { "d6-pool": LAYOUTS },
});

afterEach(() => forget());

/** The InputError checkContract throws for `c`, asserting it names `path`. */
function refused(c, path) {
  let error = null;
  try {
    checkContract(c);
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof InputError, `refused with an InputError, not ${error}`);
  assert.match(error.message, /^the bridge's contract \(server\.contract\) cannot be used: /);
  assert.ok(error.message.includes(`: ${path}: `), `${error.message} names ${path}`);
  return error.message;
}

describe("served.js checkContract", () => {
  test("the d6 pool's contract is taken; a ruleset the module ports is left to its own contract", () => {
    const c = contract();
    c.rulesets.push({ name: "cartyrion", title: "Cartyrion", requests: { attack: "AttackRequest" }, roll20: true });
    const got = checkContract(c);
    assert.deepEqual(Object.keys(got.rulesets), ["d6-pool"]);
    assert.equal(got.rulesets["d6-pool"].title, "D6 pool");
    assert.deepEqual(got.structs["d6-pool"], POOL.structs);
    assert.deepEqual(got.results["d6-pool"], LAYOUTS);
  });

  test("a bad contract is refused naming where", () => {
    const cases = [
      [(c) => null, "$"],
      [(c) => { c.rulesets = "d6-pool"; }, "$.rulesets"],
      [(c) => { c.rulesets = Array.from({ length: 65 }, () => c.rulesets[0]); }, "$.rulesets"],
      [(c) => { c.rulesets[0].name = "d6 pool<script>"; }, "$.rulesets[0].name"],
      [(c) => { c.rulesets[0].title = ""; }, "$.rulesets[0].title"],
      [(c) => { c.rulesets[0].title = "x".repeat(201); }, "$.rulesets[0].title"],
      [(c) => { c.rulesets[0].requests = { attack: 3 }; }, "$.rulesets[0].requests"],
      [(c) => { c.rulesets[0].requests.attack = "Missing"; }, "$.rulesets[0].requests.attack"],
      [(c) => { c.structs = []; }, "$.structs"],
      [(c) => { delete c.structs["d6-pool"]; }, "$.structs"],
      [(c) => { c.structs["d6-pool"].Strike = [["dice", "integer"]]; }, "$.structs.d6-pool.Strike[0][1]"],
      [(c) => { c.structs["d6-pool"].Strike = [["dice"]]; }, "$.structs.d6-pool.Strike[0]"],
      [(c) => { c.structs["d6-pool"].Strike = [["dice", { list: "int", dict: "int" }]]; }, "$.structs.d6-pool.Strike[0][1]"],
      [(c) => { c.structs["d6-pool"].Strike = [["dice", { struct: "a b" }]]; }, "$.structs.d6-pool.Strike[0][1].struct"],
      [(c) => { c.structs["d6-pool"].Strike = [["dice", { literal: [{}] }]]; }, "$.structs.d6-pool.Strike[0][1].literal"],
      [(c) => { c.structs["d6-pool"].Strike = [["dice", { union: [] }]]; }, "$.structs.d6-pool.Strike[0][1].union"],
      [(c) => { c.structs["d6-pool"].Strike = Array.from({ length: 201 }, (_, i) => [`f${i}`, "int"]); }, "$.structs.d6-pool.Strike"],
      [(c) => { let t = "int"; for (let i = 0; i < 20; i++) t = { list: t }; c.structs["d6-pool"].Strike = [["dice", t]]; },
        "$.structs.d6-pool.Strike[0][1].list.list.list.list.list.list.list.list.list"],
      [(c) => { delete c.results; }, "$.results"],
      [(c) => { c.results["d6-pool"] = { kinds: {} }; }, "$.results.d6-pool"],
      [(c) => { c.results["d6-pool"].kinds.attack = "Nope"; }, "$.results.d6-pool.kinds.attack"],
      [(c) => { c.results["d6-pool"].shapes.StrikeResult = ["target", 3]; }, "$.results.d6-pool.shapes.StrikeResult[1]"],
      [(c) => { c.results["d6-pool"].shapes.AttackResult[4] = ["strikes", { list: "Nope" }]; }, "$.results.d6-pool.shapes.AttackResult[4][1].list"],
      [(c) => { c.results["d6-pool"].shapes.AttackResult[4] = ["strikes", { set: "StrikeResult" }]; }, "$.results.d6-pool.shapes.AttackResult[4][1]"],
    ];
    for (const [spoil, path] of cases) {
      const c = contract();
      const spoiled = spoil(c);
      refused(spoiled === undefined ? c : spoiled, path);
    }
  });

  test("a served ruleset's [client] hints are taken checked; a built-in's stay contract.js's; none served is {}", () => {
    const c = contract();
    c.rulesets.push({ name: "cartyrion", title: "Cartyrion", requests: { attack: "AttackRequest" } });
    c.client = { "d6-pool": { split: ["wounds"], initiative: "side", initiative_die: 6 }, cartyrion: { split: ["nope"] } };
    const got = checkContract(c);
    assert.deepEqual(got.client, { "d6-pool": { split: ["wounds"], initiative: "side", initiative_die: 6 } });
    assert.deepEqual(checkContract(contract()).client, { "d6-pool": {} }, "a bridge that serves no hints: none");
    assert.deepEqual(rulesetClient("cartyrion").split, ["stamina", "injury"], "a built-in's hints are its own contract's");
  });

  test("bad [client] hints are refused naming the ruleset and key", () => {
    const cases = [
      [{ client: [] }, "$.client"],
      [{ client: { "d6-pool": "split" } }, "$.client.d6-pool"],
      [{ client: { "d6-pool": { colour: "red" } } }, "$.client.d6-pool.colour"],
      [{ client: { "d6-pool": { split: "wounds" } } }, "$.client.d6-pool.split"],
      [{ client: { "d6-pool": { split: ["<b>wounds</b>"] } } }, "$.client.d6-pool.split"],
      [{ client: { "d6-pool": { strike: "d12" } } }, "$.client.d6-pool.strike"],
      [{ client: { "d6-pool": { initiative_die: 6.5 } } }, "$.client.d6-pool.initiative_die"],
      [{ client: { "d6-pool": { initiative_options: ["ambush"] } } }, "$.client.d6-pool.initiative_options"],
      [{ client: { "d6-pool": { help: "x".repeat(401) } } }, "$.client.d6-pool.help"],
    ];
    for (const [extra, path] of cases) refused(Object.assign(contract(), extra), path);
    // A decoded answer's "__proto__" is an own key like any other: refused, nothing polluted.
    const polluted = JSON.parse(JSON.stringify(contract()).replace(/\}$/, ',"client":{"d6-pool":{"__proto__":{"split":["x"]}}}}'));
    refused(polluted, "$.client.d6-pool.__proto__");
    assert.equal(/** @type {any} */ ({}).split, undefined);
  });

  test("whatever the bridge sends, the answer is the contract or an InputError, never a crash", () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const values = [null, 0, -1, 1.5, "", "int", "d6-pool", true, [], {}, [null], { struct: 1 }, { list: null }, ["x", "int", 0, 9]];
    const walk = (/** @type {any} */ node, depth) => {
      if (node === null || typeof node !== "object" || depth > 5) return;
      for (const key of Object.keys(node)) {
        if (rnd() < 0.08) node[key] = values[Math.floor(rnd() * values.length)];
        else walk(node[key], depth + 1);
      }
    };
    for (let i = 0; i < 500; i++) {
      const c = contract();
      if (i % 2) c.client = { "d6-pool": { split: ["wounds"], initiative_options: { ambush: "none" }, help: "--dice N" } };
      walk(c, 0);
      try {
        checkContract(c);
      } catch (e) {
        assert.ok(e instanceof InputError, `${e?.stack ?? e}`);
      }
    }
  });
});

describe("api.attack of a ruleset the module does not port", () => {
  function world(answer) {
    const hero = fakeActor({ uuid: "Actor.hero", name: "Aldric", system: sheet({}), flags: { fracas: { "d6-pool": { extra: 2, mood: "grim" } } } });
    const gob = fakeActor({ uuid: "Scene.s.Token.g1.Actor.gob", name: "Goblin", system: sheet({ hp: 7 }) });
    const vtt = fakeVtt({ tokens: [view("hero", "Aldric", hero), view("g1", "Goblin", gob)], controlled: ["hero"], targeted: ["g1"] });
    const conn = fakeConnection(answer);
    const api = createActions({ vtt, connection: () => conn, newId: () => "id-1" });
    return { vtt, conn, api, gob };
  }
  const result = (params) => ({ ruleset: "d6-pool", seed: 5, backend: "compiled", injected: false,
    strikes: [{ target: "g1", faces: [6, 5, 1, 2], hits: 2, hit: true, damage: 4 }], targets: { g1: { damage: 4 } }, total_damage: 4, params });

  test("asks the bridge for its contract, sends the served fields, renders the served layout, applies the totals", async () => {
    const { vtt, conn, api, gob } = world((method, params) => (method === "server.contract" ? contract() : result(params)));
    const out = await api.attack({ ruleset: "d6-pool", strikes: [{ dice: 4 }] });
    assert.deepEqual(conn.calls.map((c) => [c.method, c.params.rulesets ?? null]), [["server.contract", ["d6-pool"]], ["attack.resolve", null]]);
    const sent = conn.calls[1].params;
    assert.equal(sent.ruleset, "d6-pool");
    assert.deepEqual(sent.attacker, { extra: 2 }, "the served Attacker's fields from the actor's flags, nothing else");
    assert.deepEqual(sent.strikes, [{ dice: 4, target: "g1" }]);
    assert.deepEqual(sent.targets, { g1: {} });
    assert.equal(gob.system.health.value, 3, "7 less the per-target total 4");
    assert.equal(out.changes[0].damage, 4);
    const card = vtt.messages[0].content;
    assert.match(card, /Aldric attacks \(D6 pool\)/);
    assert.match(card, /faces 6, 5, 1, 2 · hits 2 · hit → 4/);
    // Learned once: the next attack asks nothing more.
    await api.attack({ ruleset: "d6-pool", strikes: [{ dice: 1 }] });
    assert.deepEqual(conn.calls.map((c) => c.method), ["server.contract", "attack.resolve", "attack.resolve"]);
  });

  test("a field the served ruleset lacks, a bad contract, a ruleset the bridge lacks: refused saying what and where, nothing resolved", async () => {
    const { vtt, conn, api, gob } = world((method) => (method === "server.contract" ? contract() : assert.fail("nothing is resolved")));
    assert.equal(await api.attack({ ruleset: "d6-pool", strikes: [{ dice: 4, die: "d8" }] }), null);
    await api.attack({ ruleset: "d6-pool", strikes: [{ dice: 4 }], attackerData: { bonus: 1 } });
    forget();
    const bad = world((method) => (method === "server.contract" ? { ...contract(), structs: { "d6-pool": { Strike: [["dice", "dice"]] } } } : assert.fail("sent")));
    await bad.api.attack({ ruleset: "d6-pool", strikes: [{ dice: 4 }] });
    const none = world((method) => (method === "server.contract" ? { ...contract(), rulesets: [], structs: {}, results: {} } : assert.fail("sent")));
    await none.api.attack({ ruleset: "wild-die", strikes: [{ dice: 4 }] });
    await none.api.attack({ ruleset: "no such<ruleset>", strikes: [{ dice: 4 }] });
    assert.deepEqual([...vtt.notes, ...bad.vtt.notes, ...none.vtt.notes].map((n) => n.text), [
      'fracas: D6 pool, strikes[0]: "die" is not one of its fields (dice, target)',
      'fracas: D6 pool, attackerData: "bonus" is not one of its fields (extra)',
      "fracas: the bridge's contract (server.contract) cannot be used: $.structs.d6-pool.Strike[0][1]: unknown type \"dice\" (int, str, bool, float, any or an object); nothing was sent (is the bridge the same fracas version as this module?)",
      'fracas: unknown ruleset "wild-die": this module has no code for it and the bridge does not resolve it',
      'fracas: unknown ruleset "no such<ruleset>": this module has no code for it and the bridge does not resolve it',
    ]);
    assert.equal(gob.system.health.value, 7);
    assert.deepEqual(conn.calls.map((c) => c.method), ["server.contract"]);
    assert.deepEqual(none.conn.calls.map((c) => c.params), [{ rulesets: ["wild-die"] }], "a name that is not a ruleset name is not sent");
  });

  test("a player's attack of a served ruleset goes through the GM's client, only when the GM allows free-form attacks", async () => {
    const { vtt, conn, api, gob } = world((method, params) => (method === "server.contract" ? contract() : result(params)));
    vtt.ownersOf = { hero: ["player1"] };
    vtt.userIsGM = () => false;
    const ask = { type: "ask", id: "req-00000001", action: "attack", to: "gm",
      data: { attacker: "hero", targets: ["g1"], ruleset: "d6-pool", strikes: [{ dice: 4, target: "g1" }] } };
    const refused = await api.answerRequest(ask, "player1");
    assert.match(refused.error, /ruleset/, "free-form off: the GM's data decides, a player names no ruleset");
    assert.equal(conn.calls.length, 0);
    vtt.settings.playerFreeForm = true;
    const answer = await api.answerRequest({ ...ask, id: "req-00000002" }, "player1");
    assert.equal(answer.error, undefined, JSON.stringify(answer));
    assert.equal(answer.total_damage, 4);
    assert.deepEqual(conn.calls.map((c) => c.method), ["server.contract", "attack.resolve"], "asked on the GM's connection");
    assert.deepEqual(conn.calls[1].params.attacker, { extra: 2 }, "the attacker's numbers from the GM's data (the actor's flags)");
    assert.equal(gob.system.health.value, 3);
  });

  test("a served ruleset's [client] split draws its card's per-target fields, as a built-in's does", async () => {
    const hinted = () => {
      const c = contract();
      c.results["d6-pool"].shapes.Damage = ["damage", "wounds"];
      c.client = { "d6-pool": { split: ["wounds"] } };
      return c;
    };
    const { vtt, api } = world((method, params) => (method === "server.contract" ? hinted()
      : { ...result(params), targets: { g1: { damage: 4, wounds: 1 } } }));
    await api.attack({ ruleset: "d6-pool", strikes: [{ dice: 4 }] });
    assert.deepEqual(servedClient("d6-pool"), { split: ["wounds"] });
    assert.match(vtt.messages[0].content, /wounds 1/);
    assert.match(vtt.messages[0].content, /faces 6, 5, 1, 2 · hits 2 · hit → 4/, "no strike hint: the served layout's line");
    forget();
    const plain = world((method, params) => (method === "server.contract" ? contract() : { ...result(params), targets: { g1: { damage: 4, wounds: 1 } } }));
    await plain.api.attack({ ruleset: "d6-pool", strikes: [{ dice: 4 }] });
    assert.doesNotMatch(plain.vtt.messages[0].content, /wounds 1/, "without the hint the card shows no split");
  });

  test("a strike line of a ruleset that was not served is left to the built-in rulesets' code", () => {
    assert.equal(servedStrikeLine("d6-pool", { faces: [1] }), null);
  });
});

// DP-2 (docs/examples/d6pool rules.md): each combatant rolls a d6 and adds its `bonus`,
// highest first. The d6 pool's [client] table, as its manifest has it and the bridge serves it.
const INITIATIVE_HINTS = { initiative: "combatant", initiative_flags: ["bonus"], initiative_die: 6, initiative_rule: "DP-2" };

describe("api.initiative of a ruleset the module does not port", () => {
  function world(answer, bonus = { hero: 2, gob: 0 }) {
    const hero = fakeActor({ uuid: "Actor.hero", name: "Aldric", system: sheet({}), flags: { fracas: { "d6-pool": { bonus: bonus.hero } } } });
    const gob = fakeActor({ uuid: "Actor.gob", name: "Goblin", system: sheet({}), flags: { fracas: { "d6-pool": { bonus: bonus.gob } } } });
    const tokens = [view("hero", "Aldric", hero), view("g1", "Goblin", gob)];
    const vtt = fakeVtt({ tokens });
    vtt.combatState = { id: "c", combatants: [{ id: "cA", name: "Aldric", view: tokens[0] }, { id: "cG", name: "Goblin", view: tokens[1] }] };
    const conn = fakeConnection(answer);
    const api = createActions({ vtt, connection: () => conn, newId: () => "ini-1" });
    return { vtt, conn, api };
  }
  const hinted = (hints = INITIATIVE_HINTS) => ({ ...contract(), client: { "d6-pool": hints } });

  test("DP-2: asks the bridge for its contract, sends each combatant's bonus from its actor's flags, sets the tracker, draws d6s", async () => {
    const { vtt, conn, api } = world((method) => (method === "server.contract" ? hinted()
      : { ruleset: "d6-pool", seed: 9, injected: false, total_damage: 0, order: [{ id: "cG", roll: 6, total: 6 }, { id: "cA", roll: 3, total: 5 }] }));
    const out = await api.initiative({ ruleset: "d6-pool", seed: 9 });
    assert.deepEqual(conn.calls.map((c) => c.method), ["server.contract", "initiative.roll"]);
    assert.deepEqual(conn.calls[1].params, { ruleset: "d6-pool", combatants: [{ id: "cA", bonus: 2 }, { id: "cG", bonus: 0 }], seed: 9 });
    assert.deepEqual(vtt.initiativeUpdates, [[{ id: "cG", value: 6 }, { id: "cA", value: 5 }]]);
    assert.deepEqual(out.values, [{ id: "cG", value: 6 }, { id: "cA", value: 5 }]);
    const card = vtt.messages[0].content;
    assert.match(card, /<strong>Goblin<\/strong> <ol class="dice-rolls fracas-inline"><li class="roll die d6 max" title="d6: 6">6<\/li><\/ol> \+0 = <span class="fracas-total">6<\/span>/);
    assert.match(card, /<strong>Aldric<\/strong> .*title="d6: 3">3<\/li><\/ol> \+2 = <span class="fracas-total">5<\/span>/, "no modifier in the result: total - roll");
    assert.deepEqual(vtt.messages[0].rolls[0].groups[0].faces, 6, "the d6 of its hints, not ER-18's d10");
  });

  test("a served \"combatant\" ruleset without initiative_flags: each combatant's id alone (its request's other fields take their defaults)", async () => {
    const { conn, api } = world((method) => (method === "server.contract" ? hinted({ initiative: "combatant" })
      : { ruleset: "d6-pool", seed: 1, order: [{ id: "cA", roll: 4, total: 4 }, { id: "cG", roll: 2, total: 2 }] }));
    await api.initiative({ ruleset: "d6-pool", seed: 1 });
    assert.deepEqual(conn.calls[1].params, { ruleset: "d6-pool", combatants: [{ id: "cA" }, { id: "cG" }], seed: 1 });
  });

  test("no initiative hint, a combatant without its flag: refused naming the ruleset, the field and the rule; nothing rolled", async () => {
    const none = world((method) => (method === "server.contract" ? contract() : assert.fail("nothing is rolled")));
    await none.api.initiative({ ruleset: "d6-pool" });
    forget();
    const partial = world((method) => (method === "server.contract" ? hinted({ initiative_flags: ["bonus"] }) : assert.fail("nothing is rolled")));
    await partial.api.initiative({ ruleset: "d6-pool" });
    forget();
    const flagless = world((method) => (method === "server.contract" ? hinted() : assert.fail("nothing is rolled")), { hero: "two", gob: 0 });
    await flagless.api.initiative({ ruleset: "d6-pool" });
    forget();
    const bad = world((method) => (method === "server.contract" ? hinted({ ...INITIATIVE_HINTS, initiative: "everyone" }) : assert.fail("nothing is rolled")));
    await bad.api.initiative({ ruleset: "d6-pool" });
    const notes = [none, partial, flagless, bad].map((w) => w.vtt.notes.map((n) => n.text));
    const missing = "fracas: the bridge's d6-pool ruleset has no initiative hint ([client] initiative = \"combatant\" or \"side\" in its manifest): this module cannot build its initiative request";
    assert.deepEqual(notes.slice(0, 3), [[missing], [missing], ["fracas: Aldric: no bonus in flags.fracas.d6-pool.bonus (DP-2)"]]);
    assert.equal(notes[3].length, 1);
    assert.match(notes[3][0], /\$\.client\.d6-pool\.initiative: "everyone" is not one of combatant, side/);
    for (const w of [none, partial, flagless, bad]) {
      assert.deepEqual(w.conn.calls.map((c) => c.method), ["server.contract"]);
      assert.deepEqual(w.vtt.initiativeUpdates, []);
    }
  });

  test("side initiative of a served ruleset: the request from its served InitiativeRequest fields and initiative_options, the card's die from its hints", async () => {
    const sided = () => {
      const c = hinted({ initiative: "side", initiative_options: { ambush: "none" }, initiative_die: 8, initiative_rule: "DP-9" });
      c.structs["d6-pool"].InitiativeRequest = [["round", "int"], ["sides", { list: { struct: "Side" } }], ["ambush", "str", "none"],
        ["ruleset", "str", "d6-pool"], ["seed", { optional: "int" }, null], ["rolls", { optional: { list: "int" } }, null]];
      c.structs["d6-pool"].Side = [["id", "str"]];
      return c;
    };
    const { vtt, conn, api } = world((method) => (method === "server.contract" ? sided()
      : { ruleset: "d6-pool", seed: 4, round: 2, roll: 7, first: "opponents" }));
    vtt.combatState.round = 2;
    vtt.combatState.combatants[0].view.actor.hasPlayerOwner = true; // Aldric is the party's
    await api.initiative({ ruleset: "d6-pool", seed: 4 });
    assert.deepEqual(conn.calls[1].params, { ruleset: "d6-pool", round: 2, sides: [{ id: "party" }, { id: "opponents" }], ambush: "none", seed: 4 });
    assert.deepEqual(vtt.initiativeUpdates, [[{ id: "cA", value: 1 }, { id: "cG", value: 2 }]], "the opponents act first");
    assert.match(vtt.messages[0].content, /d8 7 → .*\(DP-9\)/);
    assert.equal(vtt.messages[0].rolls[0].groups[0].faces, 8);
  });
});
