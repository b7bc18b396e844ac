// The Enchanted Realms table situations in the Foundry module: stray shots (ER-17),
// competitions (ER-19), flee attacks (ER-20), grapple release (ER-21), defense rolls
// (ER-22), impalement (ER-23). The bridge is stood in for by the JavaScript resolver
// (the Roll20 script's, which answers exactly as the Python engine: shared vectors).
import "./english.js";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, test } from "node:test";

import { createActions } from "../scripts/actions.js";
import { BridgeError } from "../scripts/errors.js";
import { fakeActor, fakeConnection, fakeVtt, sheet, view } from "./fakes.js";

const require = createRequire(import.meta.url);
const engine = require("../../roll20/src/rulesets.js");

const bow = { method: "range", style: "archery", dice: 2, damage_type: "piercing" };

/** A bridge that answers with the JavaScript resolver; its refusals become bridge errors. */
function realBridge() {
  return fakeConnection((method, params) => {
    const call = { "attack.resolve": engine.resolve, "compete.roll": engine.compete, "impale.resolve": engine.impale }[method];
    try {
      return call(params, { newSeed: () => 7 });
    } catch (error) {
      if (typeof error.path !== "string") throw error;
      throw new BridgeError(method, { code: -32001, message: error.message, data: { path: `$.params${error.path.slice(1)}` } });
    }
  });
}

function setup({ controlled = ["archer"], targeted = ["orc"], settings = {}, owners = {}, statuses = {} } = {}) {
  const actor = (uuid, name, s, playerOwned = false) => Object.assign(
    fakeActor({ uuid, name, system: sheet(s), statuses: statuses[uuid.split(".").pop()] ?? [] }),
    { hasPlayerOwner: playerOwned });
  const actors = {
    archer: actor("Actor.archer", "Archer", { agi: 4, str: 2 }, owners.archer ?? true),
    orc: actor("Actor.orc", "Orc", { ac: 25, hp: 9 }),
    bob: actor("Actor.bob", "Bob", { ac: 12, hp: 10, str: 6 }, owners.bob ?? true),
    ogre: actor("Actor.ogre", "Ogre", { ac: 12, hp: 3, str: 6, size: "large" }),
  };
  const tokens = Object.entries(actors).map(([id, a]) => view(id, a.name, a));
  const vtt = fakeVtt({ tokens, controlled, targeted, settings: { defenseRolls: false, pathSpeed: "", ...settings } });
  const conn = realBridge();
  let n = 0;
  const api = createActions({ vtt, connection: () => conn, newId: () => `id-${++n}`, log: (e) => { throw e; } });
  return { vtt, conn, api, actors };
}

describe("ER-17 friendly fire in Foundry", () => {
  test("nearby tokens are the stray's slots; its damage is applied to the creature it hits, and undone", async () => {
    for (let seed = 0; seed < 400; seed++) {
      const { api, vtt, conn, actors } = setup({ settings: { pathBody: "system.health.value" } });
      const out = await api.attack({ strikes: [{ ...bow, target: "orc", friendly_fire: true }], nearby: ["bob"], seed });
      const params = conn.calls[0].params;
      assert.deepEqual(params.targets.orc.nearby, ["bob"]);
      assert.equal(params.targets.bob.ac, 12);
      const stray = out.result.strikes[0].stray;
      if (!stray || !stray.hits) continue;
      assert.equal(stray.creature, "bob");
      assert.equal(actors.bob.system.health.value, 10 - stray.damage);
      assert.match(vtt.messages[0].content, /stray \(ER-17\): d10 1 → Bob/);
      await api.undo(vtt.messages[0].id);
      assert.equal(actors.bob.system.health.value, 10);
      return;
    }
    assert.fail("no seed strayed onto Bob");
  });

  test("a target cannot also be a creature nearby", async () => {
    const { api, vtt, conn } = setup();
    assert.equal(await api.attack({ strikes: [{ ...bow, target: "orc" }], nearby: ["orc"] }), null);
    assert.equal(conn.calls.length, 0);
    assert.match(vtt.notes[0].text, /is a target of this attack/);
  });
});

describe("ER-20, ER-21, ER-22 on api.attack", () => {
  test("flee and grappling go into the request; the card shows the grappler's feat", async () => {
    const { api, conn, vtt } = setup({ controlled: ["ogre"], targeted: ["bob"] });
    for (let seed = 0; seed < 200; seed++) {
      const out = await api.attack({
        strikes: [{ method: "melee", style: "bludgeoning", dice: 3, weight: 2, damage_type: "blunt", target: "bob" }],
        flee: 45, grappling: ["bob"], seed, applyDamage: false,
      });
      const params = conn.calls.at(-1).params;
      assert.deepEqual(params.flee, { moved: 45 });
      assert.deepEqual(params.targets.bob.grappling, { strength: 6 });
      const release = out.result.targets.bob.grapple_release;
      if (release && release.roll !== null) {
        assert.match(vtt.messages.at(-1).content, new RegExp(`Strength feat DC ${release.dc} \\(ER-21\\)`));
        assert.match(vtt.messages.at(-1).content, /flee attack \(ER-20\): moved 45 ft, normal: 3d20/);
        return;
      }
    }
    assert.fail("no seed hurt the grappler");
  });

  test("the defense-roll setting lets players roll against a creature no player owns", async () => {
    let { api, conn, vtt } = setup({ controlled: ["ogre"], targeted: ["bob"], settings: { defenseRolls: true } });
    const club = { method: "melee", style: "bludgeoning", dice: 2, damage_type: "blunt", target: "bob" };
    await api.attack({ strikes: [club], seed: 3, applyDamage: false });
    assert.equal(conn.calls[0].params.defense_rolls, true);
    // DC 21 + the ogre's to-hit: Strength 6 and +1 for its size (ER-5)
    assert.match(vtt.messages[0].content, /defense d20 \+ AC 12 vs DC 28 \(ER-22\)/);
    // A player's character attacking a monster: the attacker rolls as usual.
    ({ api, conn } = setup({ controlled: ["archer"], targeted: ["orc"], settings: { defenseRolls: true } }));
    await api.attack({ strikes: [{ ...bow, target: "orc" }], seed: 3, applyDamage: false });
    assert.equal(conn.calls[0].params.defense_rolls, undefined);
    // ...and defenseRolls: false decides for one attack.
    ({ api, conn } = setup({ controlled: ["ogre"], targeted: ["bob"], settings: { defenseRolls: true } }));
    await api.attack({ strikes: [club], seed: 3, applyDamage: false, defenseRolls: false });
    assert.equal(conn.calls[0].params.defense_rolls, undefined);
  });
});

describe("ER-19 api.compete", () => {
  test("both sides from the sheets; the card shows odds and the outcome in names", async () => {
    const { api, conn, vtt } = setup({ controlled: ["ogre"], targeted: ["bob"] });
    const out = await api.compete({ contest: "grapple", slick: true, seed: 4 });
    const params = conn.calls[0].params;
    assert.equal(conn.calls[0].method, "compete.roll");
    assert.deepEqual(params.challenger, { id: "ogre", attribute: "strength", strength: 6, agility: 2, size: "large" });
    assert.equal(params.defender.strength, 6);
    const card = vtt.messages[0].content;
    assert.match(card, /Competition: grapple \(ER-19\)/);
    assert.match(card, /size: 1 category larger \+2/);
    assert.ok(card.includes(`${(100 * out.result.challenger.win_chance).toFixed(1)}% to win`));
    assert.ok(card.includes(out.result.winner === "ogre" ? "Ogre" : "Bob"));
    // Every round's d12s as real rolls (Dice So Nice shows them), named by side.
    const rolls = vtt.messages[0].rolls;
    assert.equal(rolls.length, out.result.rounds.length);
    assert.deepEqual(rolls[0].groups.map((g) => [g.flavor, g.faces, g.results.map((r) => r.result)]),
      [["Ogre", 12, out.result.rounds[0].challenger.dice], ["Bob", 12, out.result.rounds[0].defender.dice]]);
  });

  test("ER-12/ER-14: each side's conditions come from its statuses (a bound grappler keeps the worse d12)", async () => {
    // Seed 000, Bound: "All Body saves/feats and competitions are made at disadvantage".
    const { api, conn, vtt } = setup({ controlled: ["ogre"], targeted: ["bob"], statuses: { ogre: ["bound"], bob: ["prone"] } });
    const out = await api.compete({ contest: "grapple", seed: 4 });
    const params = conn.calls[0].params;
    assert.deepEqual(params.challenger.conditions, ["bound"]);
    assert.deepEqual(params.defender.conditions, ["prone"]);
    assert.equal(out.result.challenger.disadvantage, true);
    assert.equal(out.result.rounds[0].challenger.dice.length, 2);
    assert.match(vtt.messages[0].content, /prone -5/);
    // With "Conditions from status effects" off, only the ER-19 table's prone counts.
    const off = setup({ controlled: ["ogre"], targeted: ["bob"], statuses: { ogre: ["bound"], bob: ["prone"] },
      settings: { conditionsFromStatuses: false } });
    await off.api.compete({ contest: "grapple", seed: 4 });
    assert.equal(off.conn.calls[0].params.challenger.conditions, undefined);
    assert.equal(off.conn.calls[0].params.defender.prone, true);
  });

  test("a shove on Agility is refused with the rule (by the bridge), and nothing is posted", async () => {
    const { api, vtt } = setup({ controlled: ["ogre"], targeted: ["bob"] });
    assert.equal(await api.compete({ contest: "shove", use: "agility" }), null);
    assert.match(vtt.notes[0].text, /Strength competition.*\(ER-19\)/);
    assert.equal(await api.compete({ contest: "shove", use: "intellect" }), null);
    assert.match(vtt.notes[1].text, /strength or agility/);
    assert.equal(vtt.messages.length, 0);
  });
});

describe("ER Grappling: Uncommon Conditions, savage form in api.compete", () => {
  test("ER Grappling: Uncommon Conditions: a victim's savage form goes with its side, both sides' resistances with it; the card tells the incidental damage and its exact chance", async () => {
    const wolf = [{ strike: "bite", type: "piercing", poison: true, special: "wolfsbane venom" }, { strike: "claw", type: "edged" }];
    let dealt = null;
    for (let seed = 0; seed < 200 && !dealt; seed++) {
      const { api, conn, vtt } = setup({ controlled: ["ogre"], targeted: ["bob"], settings: { pathResistant: "system.resistant" } });
      const out = await api.compete({ contest: "grapple", defenderSavage: wolf, seed });
      const params = conn.calls[0].params;
      assert.deepEqual(params.defender.savage_form, wolf);
      assert.equal(params.challenger.savage_form, undefined);
      const x = out.result.incidental;
      assert.equal(x.by, "bob");
      assert.equal(x.strike, "claw", "claws over a bite");
      const card = vtt.messages[0].content;
      assert.ok(card.includes(`${x.p_dealt_exact} (${(100 * x.p_dealt).toFixed(1)}%)`), "p_dealt exact");
      if (x.dealt) {
        dealt = x;
        assert.match(card, /Bob&#39;s claw \(d12 (8|9|10|11|12)\): 1 edged damage to Ogre|Bob's claw \(d12 (8|9|10|11|12)\): 1 edged damage to Ogre/);
      } else {
        assert.match(card, /no damage \(needs 8 or more\)/);
      }
    }
    assert.ok(dealt, "some seed deals the incidental point");
    // ER-10: an ogre resisting edged takes the claw's point halved to 0, read from its actor.
    const { api, conn, actors } = setup({ controlled: ["ogre"], targeted: ["bob"], settings: { pathResistant: "system.resistant" } });
    actors.ogre.system.resistant = "edged";
    const out = await api.compete({ contest: "grapple", defenderSavage: wolf, seed: 0 });
    assert.deepEqual(conn.calls[0].params.challenger.resistant, ["edged"]);
    assert.equal(out.result.incidental.damage, 0);
  });

  test("ER Grappling: Uncommon Conditions: the grappler's incidental point lands on its Body with Undo; applyDamage: false leaves it; an unreadable Body is refused before the request", async () => {
    const wolf = [{ strike: "claw", type: "edged" }];
    let seen = 0;
    for (let seed = 0; seed < 200 && seen < 2; seed++) {
      const { api, vtt, actors } = setup({ controlled: ["ogre"], targeted: ["bob"] });
      const out = await api.compete({ contest: "grapple", defenderSavage: wolf, seed });
      const x = out.result.incidental;
      if (!x.dealt) {
        assert.deepEqual(out.changes, []);
        assert.equal(actors.ogre.system.health.value, 3);
        continue;
      }
      seen++;
      assert.equal(x.to, "ogre");
      assert.equal(actors.ogre.system.health.value, 3 - x.damage, "the grappler (the challenger) takes the point");
      assert.equal(actors.bob.system.health.value, 10, "the victim takes nothing");
      assert.deepEqual(vtt.messages[0].flags.fracas.targets.map((t) => [t.id, t.damage]), [["ogre", x.damage]]);
      assert.match(vtt.messages[0].content, /fracas-target-actions" data-target="ogre"/);
      assert.match(vtt.messages[0].content, /fracas-undo/);
      await api.undo(vtt.messages[0].id);
      assert.equal(actors.ogre.system.health.value, 3);
      const off = setup({ controlled: ["ogre"], targeted: ["bob"] });
      const kept = await off.api.compete({ contest: "grapple", defenderSavage: wolf, seed, applyDamage: false });
      assert.equal(kept.result.incidental.damage, x.damage);
      assert.deepEqual(kept.changes, []);
      assert.equal(off.actors.ogre.system.health.value, 3);
      assert.doesNotMatch(off.vtt.messages[0].content, /fracas-undo/);
    }
    assert.equal(seen, 2, "some seeds deal the incidental point");
    const { api, vtt, conn } = setup({ controlled: ["ogre"], targeted: ["bob"], settings: { pathBody: "system.nowhere" } });
    assert.equal(await api.compete({ contest: "grapple", defenderSavage: wolf, seed: 0 }), null);
    assert.match(vtt.notes[0].text, /Ogre: no Body at system\.nowhere: the savage form's incidental point/);
    assert.equal(conn.calls.length, 0, "refused before anything is sent");
  });

  test("ER Grappling: Uncommon Conditions: a bad savage form is refused naming its path, nothing sent; in a shove the bridge refuses it", async () => {
    const cases = [
      [{ defenderSavage: "claw" }, /compete: defenderSavage: a list of savage-form strikes/],
      [{ defenderSavage: [{ strike: "claw", type: "plasma" }] }, /compete: defenderSavage\[0\]\.type: a damage type, one of alchemical/],
      [{ challengerSavage: [{ strike: "", type: "edged" }] }, /compete: challengerSavage\[0\]\.strike: the strike's name/],
      [{ defenderSavage: [{ strike: "bite", type: "piercing", poison: "yes" }] }, /compete: defenderSavage\[0\]\.poison: true or false/],
      [{ defenderSavage: [{ strike: "bite", type: "piercing", venom: true }] }, /compete: defenderSavage\[0\]\.venom: not a field/],
    ];
    for (const [options, message] of cases) {
      const { api, vtt, conn } = setup({ controlled: ["ogre"], targeted: ["bob"] });
      assert.equal(await api.compete({ contest: "grapple", ...options }), null);
      assert.match(vtt.notes[0].text, message);
      assert.equal(conn.calls.length, 0);
    }
    const { api, vtt } = setup({ controlled: ["ogre"], targeted: ["bob"] });
    assert.equal(await api.compete({ contest: "shove", defenderSavage: [{ strike: "claw", type: "edged" }] }), null);
    assert.match(vtt.notes[0].text, /defender\.savage_form/);
    assert.equal(vtt.messages.length, 0);
  });
});

describe("ER-23 api.impale", () => {
  test("the charger takes the impalement first; the card says the charge is void at 0 Body", async () => {
    for (let seed = 0; seed < 300; seed++) {
      const { api, vtt, actors } = setup({ controlled: ["archer"], targeted: ["ogre"] });
      const out = await api.impale({ closed: 30, forte: true, seed });
      assert.equal(out.result.dice, 4);
      assert.equal(actors.ogre.system.health.value, Math.max(0, 3 - out.result.charger.damage));
      // The impalement's pool as real rolls: its d20 faces.
      assert.deepEqual(vtt.messages[0].rolls[0].groups[0].results.filter((r) => r.active).map((r) => r.result),
        out.result.impalement.strikes[0].dice.map((d) => d.face));
      assert.doesNotMatch(vtt.messages[0].content, /Body/, "the charger's Body is the GM's, not the card's");
      // The charger gets the per-target buttons (Undo, Apply, Half, Double) on the card.
      if (out.result.charger.damage > 0) {
        assert.deepEqual(vtt.messages[0].flags.fracas.targets.map((x) => [x.id, x.damage]), [["ogre", out.result.charger.damage]]);
        assert.match(vtt.messages[0].content, /fracas-target-actions" data-target="ogre"/);
      }
      if (out.result.charge_void) {
        assert.match(vtt.messages[0].content, /incapacitated: the charge is void/);
        await api.undo(vtt.messages[0].id);
        assert.equal(actors.ogre.system.health.value, 3);
        return;
      }
    }
    assert.fail("no seed dropped the ogre");
  });

  test("a charger that closed 20 ft is refused by the rules; nothing is applied", async () => {
    const { api, vtt, actors } = setup({ controlled: ["archer"], targeted: ["ogre"] });
    assert.equal(await api.impale({ closed: 20 }), null);
    assert.match(vtt.notes[0].text, /25 ft or more/);
    assert.equal(actors.ogre.system.health.value, 3);
    assert.equal(vtt.messages.length, 0);
  });
});
