// ER-17 bystanders derived from the scene on the holding GM client.
//
// ER-17 (the rules' text): "The GM will determine the hexes that could be potentially
// hit. This will be all adjacent hexes surrounding the original target, as well as the
// hex 10-feet in front and behind the target in direct line of sight. The GM will then
// count all the other potential targets, assigning them numbers 1 through 8".
// The bridge is stood in for by the JavaScript resolver (the Roll20 script's, which
// answers exactly as the Python engine: shared vectors).
import "./english.js";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, test } from "node:test";

import { createActions } from "../scripts/actions.js";
import { MAX_BYSTANDERS, bystandersOf } from "../scripts/bystanders.js";
import { fakeActor, fakeConnection, fakeVtt, sheet, view } from "./fakes.js";

const require = createRequire(import.meta.url);
const engine = require("../../roll20/src/rulesets.js");

const square = { size: 100, type: 1, distance: 5, units: "ft" };
/** A placed token without an actor (geometry only). */
const at = (id, col, row, size = 1) => ({ id, place: { x: col * 100, y: row * 100, width: size, height: size } });
const ids = (list) => list.map((v) => v.id);

describe("bystandersOf: the creatures around a target and in the line of fire (ER-17)", () => {
  test("adjacent spaces (diagonals too) first, nearest first, then 10 ft in front and behind on the line of fire", () => {
    const target = at("T", 5, 5);
    const attacker = at("A", 0, 5);
    const others = [attacker, target, at("north", 5, 4), at("ne", 6, 4), at("east", 6, 5), at("behind", 7, 5),
      at("front", 3, 5), at("south2", 5, 7), at("far", 7, 7), at("beyond", 8, 5)];
    assert.deepEqual(ids(bystandersOf({ target, attacker, others, grid: square })), ["east", "north", "ne", "behind", "front"]);
  });

  test("the line of fire turns with the attacker: shot from the north, the spaces 10 ft north and south count", () => {
    const target = at("T", 5, 5);
    const others = [at("behind", 7, 5), at("front", 3, 5), at("north2", 5, 3), at("south2", 5, 7)];
    assert.deepEqual(ids(bystandersOf({ target, attacker: at("A", 5, 0), others, grid: square })), ["north2", "south2"]);
    // Without an attacker on the scene only the adjacent spaces count.
    assert.deepEqual(ids(bystandersOf({ target, attacker: null, others, grid: square })), []);
  });

  test("at most 8 are numbered (ER-17: 1 through 8); the same scene always gives the same slots", () => {
    const target = at("T", 5, 5);
    const ring = [[4, 4], [5, 4], [6, 4], [4, 5], [6, 5], [4, 6], [5, 6], [6, 6]].map(([c, r], i) => at(`r${i}`, c, r));
    const others = [at("behind", 7, 5), ...ring];
    const slots = ids(bystandersOf({ target, attacker: at("A", 0, 5), others, grid: square }));
    assert.equal(slots.length, MAX_BYSTANDERS);
    assert.ok(!slots.includes("behind"));
    assert.deepEqual(ids(bystandersOf({ target, attacker: at("A", 0, 5), others: [...others].reverse(), grid: square })), slots);
  });

  test("large creatures: a 2×2 token touching the target's space is adjacent, one a space away is not", () => {
    const target = at("T", 5, 5);
    assert.deepEqual(ids(bystandersOf({ target, others: [at("ogre", 6, 6, 2), at("troll", 7, 3, 2)], grid: square })), ["ogre"]);
    // A large target: its own neighbours all round it.
    assert.deepEqual(ids(bystandersOf({ target: at("T", 5, 5, 2), others: [at("w", 7, 6), at("x", 8, 6)], grid: square })), ["w"]);
  });

  test("hexagonal grids: the six neighbours (1 space apart) count, the next ring (√3 and 2 spaces) does not", () => {
    const hex = { size: 100, type: 2, distance: 5, units: "ft" };
    const target = { id: "T", place: { x: 500, y: 500, width: 1, height: 1 } };
    const near = { id: "n", place: { x: 600, y: 500, width: 1, height: 1 } };
    const diag = { id: "d", place: { x: 550, y: 500 + 100 * Math.sqrt(3) / 2, width: 1, height: 1 } };
    const ring2 = { id: "r", place: { x: 500 + 150, y: 500 + 100 * Math.sqrt(3) / 2, width: 1, height: 1 } };
    assert.deepEqual(ids(bystandersOf({ target, others: [near, diag, ring2], grid: hex })).sort(), ["d", "n"]);
  });

  test("10 ft is counted in the grid's feet; a grid in other units counts 2 spaces", () => {
    const target = at("T", 5, 5);
    const others = [at("two", 7, 5), at("four", 9, 5)];
    const attacker = at("A", 0, 5);
    // 2.5 ft a space: the space 10 ft behind is 4 spaces away.
    assert.deepEqual(ids(bystandersOf({ target, attacker, others, grid: { ...square, distance: 2.5 } })), ["four"]);
    assert.deepEqual(ids(bystandersOf({ target, attacker, others, grid: { ...square, distance: 1.5, units: "m" } })), ["two"]);
  });

  test("a token without a place is never counted", () => {
    assert.deepEqual(bystandersOf({ target: at("T", 5, 5), others: [{ id: "x" }], grid: square }), []);
    assert.deepEqual(bystandersOf({ target: { id: "T" }, others: [at("x", 5, 4)], grid: square }), []);
  });
});

// ── on the holding GM client ──

const bow = { method: "range", style: "archery", dice: 2, damage_type: "piercing", friendly_fire: true };

/** A bridge that answers with the JavaScript resolver; a request without a seed gets the next one. */
let nextSeed = 0;
function realBridge() {
  return fakeConnection((method, params) => engine.resolve(params, { newSeed: () => nextSeed++ }));
}

/**
 * An archer (owned by player1) shooting an orc at (5,5) from (0,5); Bob stands next to the
 * orc, a hidden assassin right behind it, a dead goblin and a torch (no actor) beside it.
 */
function world({ settings = {}, assassinAc = 5 } = {}) {
  const actor = (uuid, name, s, statuses = []) => fakeActor({ uuid, name, system: sheet(s), statuses });
  const archer = actor("Actor.archer", "Archer", { agi: 4, str: 2 });
  archer.flags = { fracas: { strikes: [bow] } };
  const actors = {
    archer, orc: actor("Actor.orc", "Orc", { ac: 30, hp: 9 }), bob: actor("Actor.bob", "Bob", { ac: 12, hp: 10 }),
    sin: actor("Actor.sin", "Secret Assassin", { ac: assassinAc, hp: 10 }), dead: actor("Actor.dead", "Goblin", { ac: 5, hp: 0 }, ["dead"]),
  };
  const tokens = [view("archer", "Archer", archer, { at: [0, 5] }), view("orc", "Orc", actors.orc, { at: [5, 5] }),
    view("bob", "Bob", actors.bob, { at: [5, 4] }), view("sin", "Secret Assassin", actors.sin, { at: [7, 5], hidden: true }),
    view("dead", "Goblin", actors.dead, { at: [5, 6] }), view("torch", "Torch", null, { at: [4, 5] })];
  const vtt = fakeVtt({ tokens, controlled: ["archer"], targeted: ["orc"], settings: { defenseRolls: false, pathSpeed: "", ...settings } });
  vtt.ownersOf = { archer: ["player1"] };
  vtt.userIsGM = () => false;
  const conn = realBridge();
  let n = 0;
  const api = createActions({ vtt, connection: () => conn, newId: () => `id-${++n}`, log: (e) => { throw e; } });
  return { vtt, conn, api, actors };
}

const ask = (data, id = "req-00000001") => ({ type: "ask", id, action: "attack", data, to: "gm" });

describe("a player's shot gets its bystanders from the scene, on the GM's side", () => {
  test("a player names none; the holder lists the creatures near the orc (the hidden one too), with the GM's numbers", async () => {
    const { api, conn } = world();
    const answer = await api.answerRequest(ask({ attacker: "archer", targets: ["orc"], strike: 0 }), "player1");
    assert.equal(answer.error, undefined);
    const params = conn.calls[0].params;
    // Bob (adjacent) first, then the assassin in the space 10 ft behind; the dead goblin and the torch are not creatures in the way.
    assert.deepEqual(params.targets.orc.nearby, ["bob", "sin"]);
    assert.equal(params.targets.bob.ac, 12);
    assert.equal(params.targets.sin.ac, 5);
    assert.ok(!("dead" in params.targets) && !("torch" in params.targets));
  });

  test("a player may not send bystanders of their own (free-form is off)", async () => {
    const { api, conn } = world();
    const refused = await api.answerRequest(ask({ attacker: "archer", targets: ["orc"], strike: 0, nearby: ["orc"] }), "player1");
    assert.match(refused.error, /nearby/);
    assert.equal(conn.calls.length, 0);
  });

  test("melee strikes never stray: nothing is derived; the setting turns derivation off for everyone", async () => {
    const melee = world();
    await melee.api.attack({ strikes: [{ method: "melee", style: "slashing", dice: 2, damage_type: "edged", target: "orc" }] });
    assert.equal(melee.conn.calls[0].params.targets.orc.nearby, undefined);
    const off = world({ settings: { bystandersFromScene: false } });
    await off.api.answerRequest(ask({ attacker: "archer", targets: ["orc"], strike: 0 }), "player1");
    assert.equal(off.conn.calls[0].params.targets.orc.nearby, undefined);
    assert.deepEqual(Object.keys(off.conn.calls[0].params.targets), ["orc"]);
  });

  test("the GM's own attack derives them too, unless it names its own `nearby`", async () => {
    const { api, conn } = world();
    await api.attack({ strikes: [{ ...bow, target: "orc" }], seed: 1 });
    assert.deepEqual(conn.calls[0].params.targets.orc.nearby, ["bob", "sin"]);
    await api.attack({ strikes: [{ ...bow, target: "orc" }], nearby: ["bob"], seed: 1 });
    assert.deepEqual(conn.calls[1].params.targets.orc.nearby, ["bob"]);
  });

  test("the odds of a shot see the same bystanders (ER-17 in odds: a stray's damage counts for the creature it hits)", async () => {
    const { vtt } = world();
    const calls = [];
    const conn = fakeConnection((method, params) => {
      calls.push(params);
      return { ruleset: "enchanted-realms", exact: true, targets: {}, total: { mean: 0 } };
    });
    const odds = createActions({ vtt, connection: () => conn, newId: () => "odds-1" });
    await odds.odds({ strikes: [{ ...bow, target: "orc" }] });
    assert.deepEqual(calls[0].targets.orc.nearby, ["bob", "sin"]);
  });

  test("a bystander whose sheet cannot be read is left out and the GM told why; the shot goes on", async () => {
    const { api, conn, vtt, actors } = world();
    delete actors.bob.system.attributes.ac;
    const out = await api.attack({ strikes: [{ ...bow, target: "orc" }], seed: 1 });
    assert.ok(out);
    assert.deepEqual(conn.calls[0].params.targets.orc.nearby, ["sin"]);
    assert.match(vtt.notes[0].text, /^Bob is not counted as a creature near the target \(ER-17\): .*AC: nothing at system\.attributes\.ac\.value/);
  });

  test("a stray into a hidden creature: the GMs get the card with its name and Undo; the players' card never names it", async () => {
    for (let seed = 0; seed < 600; seed++) {
      const { api, vtt, actors } = world();
      const answer = await api.answerRequest(ask({ attacker: "archer", targets: ["orc"], strike: 0 }, `req-${String(seed).padStart(8, "0")}`), "player1");
      const gm = vtt.messages.find((m) => m.flags.fracas.kind === "attack");
      const stray = gm && /→ Secret Assassin/.test(gm.content);
      if (!stray) continue;
      assert.equal(gm.whisperToGM, true);
      const open = vtt.messages.find((m) => m.flags.fracas.kind === "attack-public");
      assert.ok(open, "the players get a card of their own");
      assert.equal(open.whisperToGM, false);
      assert.doesNotMatch(open.content, /Secret Assassin|Assassin/);
      assert.doesNotMatch(JSON.stringify(open.flags), /Assassin|sin/);
      assert.match(open.content, /→ someone unseen/);
      assert.ok(!JSON.stringify(open.rolls).includes("Assassin"));
      // The player's answer is what their card shows: the hidden creature's damage is not in it.
      const hurt = 10 - actors.sin.system.health.value;
      assert.equal(answer.total_damage, gm.flags.fracas.total);
      assert.equal(vtt.messages.filter((m) => !m.whisperToGM).every((m) => !/Assassin/.test(m.content)), true);
      if (hurt > 0) {
        assert.ok(gm.flags.fracas.targets.some((x) => x.id === "sin" && x.damage === hurt));
        await api.undo(gm.id);
        assert.equal(actors.sin.system.health.value, 10);
      }
      return;
    }
    assert.fail("no seed strayed onto the hidden assassin");
  });

  test("a stray that picks no hidden creature: one public card, untouched bystanders not listed", async () => {
    for (let seed = 0; seed < 600; seed++) {
      const { api, vtt } = world();
      await api.attack({ strikes: [{ ...bow, target: "orc" }], seed });
      const card = vtt.messages[0];
      if (!/→ Bob/.test(card.content)) continue;
      assert.equal(vtt.messages.length, 1);
      assert.equal(card.whisperToGM, false);
      assert.doesNotMatch(card.content, /Assassin/);
      assert.match(card.content, /data-target="bob"/);
      return;
    }
    assert.fail("no seed strayed onto Bob");
  });
});
