// The kinds the bridge rolls for the module (kinds.js, actions/bridged.js): Enchanted Realms
// saves (ER-12, ER-13, ER-14, ER-16), touch attacks ("ER Touch attacks"), getting the drop
// (ER-13), weapon lock, disarm and shield-blitz ("ER Weapon Lock", "ER Weapon Disarm"),
// throwing items and throwing magic ("ER Throwing Items") and a grappler's slam ("ER Grappling").
// The fake bridge answers only the exact requests of test/fixtures/bridged_answers.json
// (written from the engine by test/tools/bridged_answers.py), so a request built otherwise
// fails here; with Python, the same actions run against a real `fracas serve`.
import "./english.js";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { after, before, describe, test } from "node:test";

import WebSocket from "ws";

import { createActions } from "../scripts/actions.js";
import { renderBridgedCard } from "../scripts/actions/bridged.js";
import { useStrings } from "../scripts/i18n.js";
import { BridgeConnection } from "../scripts/connection.js";
import { RESULTS } from "../scripts/contract.js";
import { KINDS } from "../scripts/kinds.js";
import { layoutKeys } from "../scripts/layoutcard.js";
import { MACROS } from "../scripts/macros.js";
import { PYTHON, REPO_DIR, startBridge, tempDir } from "../testenv/harness.js";
import { ENGLISH } from "./english.js";
import { fakeActor, fakeConnection, fakeVtt, sheet, view } from "./fakes.js";

const ANSWERS = JSON.parse(readFileSync(new URL("./fixtures/bridged_answers.json", import.meta.url), "utf8"));
const answer = (name) => ANSWERS.find((a) => a.name === name);

/** A bridge that answers a request equal to a fixture's (its method and params), and refuses anything else. */
function cannedBridge() {
  return fakeConnection((method, params) => {
    const found = ANSWERS.find((a) => a.method === method && isDeepEqual(a.request, params));
    if (!found) throw new Error(`no canned answer for ${method} ${JSON.stringify(params)}`);
    return structuredClone(found.result);
  });
}

function isDeepEqual(a, b) {
  try {
    assert.deepStrictEqual(a, b);
    return true;
  } catch {
    return false;
  }
}

/** Request ids: new for every request of the file (a real bridge's journal refuses an id used for another request). */
let requests = 0;

function setup({ controlled = ["hero"], targeted = [], isGM = true, settings = {}, connected = true, bridge = null } = {}) {
  const actors = {
    hero: Object.assign(fakeActor({ uuid: "Actor.hero", name: "Aldric", system: sheet({ ac: 13, hp: 20, hpMax: 20, str: 4, agi: 6 }) }), { hasPlayerOwner: true }),
    gob: fakeActor({ uuid: "Actor.gob", name: "Goblin", system: sheet({ ac: 12, hp: 7, hpMax: 7, str: 2, agi: 4 }) }),
    ogre: fakeActor({ uuid: "Actor.ogre", name: "Ogre", system: sheet({ ac: 12, hp: 30, hpMax: 30, str: 8, agi: 2, size: "large" }), statuses: ["poison"] }),
    scout: fakeActor({ uuid: "Actor.scout", name: "Scout", system: sheet({ ac: 11, hp: 9, str: 3, agi: 5 }), flags: { fracas: { "enchanted-realms": { resilience: 5 } } } }),
    giant: fakeActor({ uuid: "Actor.giant", name: "Giant", system: sheet({ ac: 11, hp: 60, hpMax: 60, str: 10, agi: 1, size: "huge" }) }),
  };
  const tokens = Object.entries(actors).map(([id, a]) => view(id, a.name, a));
  const vtt = fakeVtt({ tokens, controlled, targeted, isGM, settings: { pathResistant: "", ...settings } });
  const conn = bridge ?? cannedBridge();
  const api = createActions({ vtt, connection: () => (connected ? conn : null), newId: () => `req-${++requests}`, log: (e) => { throw e; } });
  return { vtt, conn, api, actors };
}

const SAVE_AREA = { save: "agility", dc: 13, area: true, cover: "half", effect: "sleep smoke", on_fail: ["asleep", "prone"], seed: 5 };

describe("ER-16 / ER-12 / ER-14 saves (save.roll) from the targeted tokens", () => {
  test("ER-16: the request is the savers' scores from the sheets, the cover, their conditions from statuses, sent as save.roll", async () => {
    const { api, conn } = setup({ targeted: ["gob", "ogre"] });
    const out = await api.save(SAVE_AREA);
    assert.equal(conn.calls.length, 1);
    assert.equal(conn.calls[0].method, "save.roll");
    assert.deepEqual(conn.calls[0].params, answer("save-area").request);
    assert.deepEqual(out.result, answer("save-area").result);
  });

  test("ER-13/ER-14: a failed save's on_fail conditions become status effects (the world's ids: prone; asleep named as missing), undone with the card", async () => {
    const { api, vtt, actors } = setup({ targeted: ["gob", "ogre"] });
    const out = await api.save(SAVE_AREA);
    assert.deepEqual(out.result.failed, ["ogre"]);
    // The core list has "prone" but no "asleep" (and "sleep" reads back as unconscious): asleep is named, not set.
    assert.deepEqual([...actors.ogre.statuses].sort(), ["poison", "prone"]);
    assert.deepEqual(out.statuses, [{ uuid: "Actor.ogre", name: "Ogre", status: "prone", target: "ogre" }]);
    assert.match(vtt.notes.map((n) => n.text).join("\n"), /Ogre: the status effect asleep could not be set/);
    assert.deepEqual(vtt.messages[0].flags.fracas.statuses, out.statuses);
    assert.equal([...actors.gob.statuses].length, 0, "the goblin saved");
    await api.undo(out.messageId);
    assert.deepEqual([...actors.ogre.statuses], ["poison"]);
    assert.ok(vtt.messages[0].flags.fracas.undone);
  });

  test("ER-14: a world whose status effects are ER's gets asleep itself; the setting off applies nothing", async () => {
    const one = setup({ targeted: ["gob", "ogre"] });
    one.vtt.statusIds.add("asleep");
    await one.api.save(SAVE_AREA);
    assert.deepEqual([...one.actors.ogre.statuses].sort(), ["asleep", "poison", "prone"]);
    const two = setup({ targeted: ["gob", "ogre"], settings: { applyConditions: false } });
    const out = await two.api.save(SAVE_AREA);
    assert.deepEqual(out.statuses, []);
    assert.deepEqual([...two.actors.ogre.statuses], ["poison"]);
    assert.doesNotMatch(two.vtt.messages[0].content, /data-fracas-action="undo"/);
  });

  test("ER-16: the card is the result's layout: the outcome, each saver's exact chance, the failures' distribution, rolled by the bridge", async () => {
    const { api, vtt } = setup({ targeted: ["gob", "ogre"] });
    await api.save(SAVE_AREA);
    const card = vtt.messages[0];
    const html = card.content;
    assert.match(html, /Agility save against DC 13: saved Goblin; failed Ogre/);
    const r = answer("save-area").result;
    // Exact chances as fraction and percentage (the layout's p_save beside p_save_exact).
    for (const x of r.targets) assert.ok(html.includes(`${x.p_save_exact.replace("/", "/")} (${(x.p_save * 100).toFixed(1)}%)`), x.id);
    assert.ok(html.includes(`${r.p_failures[2].p_exact} (${(r.p_failures[2].p * 100).toFixed(1)}%)`));
    // First, each saver's chance by name.
    const pct = (p) => `${(p * 100).toFixed(1)}%`;
    assert.ok(html.includes(`chance to save: Goblin ${r.targets[0].p_save_exact} (${pct(r.targets[0].p_save)}), Ogre ${r.targets[1].p_save_exact} (${pct(r.targets[1].p_save)})`));
    assert.match(html, /rolled by the fracas bridge \(save\.roll\) · seed 5/);
    // Token ids shown as names, engine words through words.js.
    assert.doesNotMatch(html, />ogre</);
    assert.match(html, /conditions after<\/dt><dd>poisoned, asleep, prone/);
    // One Foundry roll per saver: the kept d20 active, the other inactive (ER-12, two d20 for the poisoned ogre).
    assert.equal(card.rolls.length, 2);
    const ogreRoll = card.rolls[1].groups[0].results;
    assert.deepEqual(ogreRoll.map((d) => d.active), [r.targets[1].dice[0] === r.targets[1].kept, r.targets[1].dice[1] === r.targets[1].kept]);
    assert.equal(card.rolls[1].total, r.targets[1].total);
  });

  test("ER-4: a Resilience save reads flags.fracas.enchanted-realms.resilience (or the save bonus path); neither: the error names both", async () => {
    const { api, conn } = setup({ targeted: ["scout"] });
    await api.save({ save: "resilience", dc: 12, edge: "advantage", seed: 11 });
    assert.deepEqual(conn.calls[0].params, answer("save-resilience").request);
    const bare = setup({ targeted: ["gob"] });
    assert.equal(await bare.api.save({ save: "resilience", dc: 12 }), null);
    assert.match(bare.vtt.notes[0].text, /Goblin: no Resilience score at flags\.fracas\.enchanted-realms\.resilience and no Resilience save bonus at \(no data path set\)/);
    assert.equal(bare.conn.calls.length, 0);
    const viaPath = setup({ targeted: ["gob"], settings: { pathSaveBonus: "system.attributes.agility.value" }, bridge: fakeConnection(() => answer("save-resilience").result) });
    await viaPath.api.save({ save: "resilience", dc: 12 });
    assert.deepEqual(viaPath.conn.calls[0].params.targets, [{ id: "gob", modifier: 4, cover: "none" }]);
  });

  test("bad input is refused naming the field, before anything is sent", async () => {
    const cases = [
      [{ dc: "x" }, /save: dc: "x" is not a whole number/],
      [{ dc: 500 }, /save: dc: 500 is not between -50 and 100/],
      [{ save: "wisdom" }, /save: save: "wisdom" is not one of agility, resilience, strength/],
      [{ on_fail: ["sleepy"] }, /save: on_fail: \["sleepy"\] is not a list of conditions/],
      [{ area: "yes" }, /save: area: "yes" is not true or false/],
      [{ colour: "red" }, /save: unknown option colour/],
    ];
    for (const [options, message] of cases) {
      const { api, vtt, conn } = setup({ targeted: ["gob"] });
      assert.equal(await api.save(options), null);
      assert.match(vtt.notes[0].text, message);
      assert.equal(conn.calls.length, 0);
    }
    // The engine's limit (MAX_SAVERS, facts.js) is checked before any sheet is read or anything sent.
    const crowd = setup({ targeted: [] });
    crowd.vtt.targeted = () => Array.from({ length: 1001 }, (_, i) => view(`t${i}`, `Rat ${i}`, crowd.actors.gob));
    assert.equal(await crowd.api.save({ dc: 13 }), null);
    assert.match(crowd.vtt.notes[0].text, /1001 creatures saving, at most 1000/);
    assert.equal(crowd.conn.calls.length, 0);
    const none = setup({ controlled: [], targeted: [] });
    assert.equal(await none.api.save({}), null);
    assert.match(none.vtt.notes[0].text, /no creatures saving: target the creatures \(or select your own\)/);
  });
});

describe("ER Touch attacks (touch.roll)", () => {
  test("ER Touch attacks: a touch hit sends the caster's Strength and the target's AC; the card says touched, with the exact chance", async () => {
    const { api, conn, vtt, actors } = setup({ targeted: ["gob"] });
    const out = await api.touch({ touch: "hit", dice: 2, bonus: 1, seed: 3 });
    assert.deepEqual(conn.calls[0].params, answer("touch-hit").request);
    assert.equal(out.result.touched, true);
    const r = answer("touch-hit").result;
    assert.match(vtt.messages[0].content, /touch hit: Goblin is touched/);
    assert.ok(vtt.messages[0].content.includes(`chance to touch: ${r.p_touch_exact} (${(r.p_touch * 100).toFixed(1)}%)`));
    assert.equal(vtt.messages[0].speaker.id, "hero");
    assert.deepEqual(out.changes, []);
    assert.equal(actors.gob.system.health.value, 7, "a touch deals no damage");
  });

  test("ER Touch attacks: sleight of hand sends the target's Agility and other AC; unnoticed at 4 over the DC", async () => {
    const { api, conn, vtt } = setup({ targeted: ["gob"] });
    await api.touch({ touch: "sleight", other_ac: 1, rolls: [16], seed: 4 });
    assert.deepEqual(conn.calls[0].params, answer("touch-sleight").request);
    assert.match(vtt.messages[0].content, /sleight of hand: Goblin is touched, unnoticed/);
    assert.match(vtt.messages[0].content, /dice given/);
  });

  test("ER Touch attacks: one caster and one target; the same token as both is refused naming the roles", async () => {
    const two = setup({ targeted: ["gob", "ogre"] });
    assert.equal(await two.api.touch({}), null);
    assert.match(two.vtt.notes[0].text, /one target is needed, 2 found: target the token/);
    const same = setup({ controlled: ["gob"], targeted: ["gob"] });
    assert.equal(await same.api.touch({}), null);
    assert.match(same.vtt.notes[0].text, /Goblin cannot be both caster and target/);
    assert.equal(same.conn.calls.length, 0);
  });
});

describe("ER-13 getting the drop (drop.roll)", () => {
  test("ER-13: the drop is a sneak strike at the one victim from the attacker's sheet; the held damage is not dealt", async () => {
    const { api, conn, vtt, actors } = setup({ targeted: ["ogre"] });
    const out = await api.drop({ phase: "drop", style: "archery", dice: 2, rolls: [15, 9, 3, 12], seed: 6 });
    assert.deepEqual(conn.calls[0].params, answer("drop-held").request);
    assert.equal(out.result.held, 5);
    assert.deepEqual(out.changes, []);
    assert.equal(actors.ogre.system.health.value, 30);
    assert.match(vtt.messages[0].content, /the drop on Ogre: 5 damage held/);
    // Its dice as an attack's (chat.js): the strike's pool of 15, 9, the advantage die 3 and the sneak die 12.
    assert.deepEqual(vtt.messages[0].rolls[0].groups[0].results.map((d) => d.result), [15, 9, 3, 12]);
  });

  test("ER-13: dealing the held damage: the victim's feat (DC from the rounds, foul play at advantage), the damage applied with Undo", async () => {
    const { api, conn, vtt, actors } = setup({ targeted: ["gob"] });
    const out = await api.drop({ phase: "inflict", held: 7, rounds: 2, foul_play: true, seed: 2 });
    assert.deepEqual(conn.calls[0].params, answer("drop-inflict").request);
    assert.equal(out.result.release.dc, 18);
    assert.equal(actors.gob.system.health.value, 0, "7 damage dealt, Body floored at 0");
    const html = vtt.messages[0].content;
    assert.match(html, /Goblin takes the held 7 damage: 7/);
    assert.match(html, /data-fracas-action="undo"/);
    const release = answer("drop-inflict").result.release;
    assert.ok(html.includes(`chance of half</dt><dd>${release.p_half_exact} (${(release.p_half * 100).toFixed(1)}%)`));
    assert.deepEqual(vtt.messages[0].flags.fracas.targets, [{ id: "gob", name: "Goblin", uuid: "Actor.gob", damage: 7 }]);
    await api.undo(out.messageId);
    assert.equal(actors.gob.system.health.value, 7);
  });
});

describe("ER-13 the drop's two moments through the dialog", () => {
  test("ER-13: after the drop, the dialog opens ready to deal the held damage", async () => {
    const { api, vtt } = setup({ targeted: ["ogre"] });
    vtt.formAnswer = { phase: "drop", surrenders: "on", style: "archery", dice: "2", weight: "1", damage_type: "", bonus: "0", sneak: "yes" };
    // The dialog gives no dice: the fixture's request has them, so this bridge answers the drop whatever it is given.
    const bridge = fakeConnection(() => answer("drop-held").result);
    const withDice = createActions({ vtt, connection: () => bridge, newId: () => `req-${++requests}`, log: (e) => { throw e; } });
    await withDice.bridgedDialog("drop");
    assert.deepEqual(vtt.notes, []);
    assert.deepEqual(bridge.calls[0].params.attack.strikes, [{ method: "range", style: "archery", dice: 2, damage_type: "piercing", sneak: true, target: "ogre" }]);
    assert.equal(bridge.calls[0].params.surrenders, true);
    assert.equal(vtt.settings.lastBridged.drop.phase, "inflict");
    assert.equal(vtt.settings.lastBridged.drop.held, 5);
    await withDice.bridgedDialog("drop").catch(() => {});
    assert.match(vtt.formHtml, /<option value="inflict" selected>/);
    assert.match(vtt.formHtml, /name="held" value="5"/);
    assert.ok(api);
  });
});

describe("ER Weapon Lock / ER Weapon Disarm (lock.roll)", () => {
  test("ER Weapon Disarm: the to-hit is the Strength score plus the dialog's; a resisted disarm's Body cost is applied to the victim", async () => {
    const { api, conn, vtt, actors } = setup({ targeted: ["ogre"] });
    const out = await api.lock({ mode: "disarm", to_hit: 2, weapon: "heavy", damage_type: "edged", reacts: true, seed: 8 });
    assert.deepEqual(conn.calls[0].params, answer("lock-disarm").request);
    assert.equal(out.result.outcome, "disarmed");
    assert.equal(actors.ogre.system.health.value, 26, "heavy: 4 Body paid");
    const r = answer("lock-disarm").result;
    assert.match(vtt.messages[0].content, /Aldric&#39;s disarm at Ogre: disarmed/);
    assert.ok(vtt.messages[0].content.includes(`chance of the effect: ${r.p_effect_exact}`));
    // The feat's d20, then each competition round's d12s.
    assert.equal(vtt.messages[0].rolls[0].groups[0].faces, 20);
    assert.equal(vtt.messages[0].rolls[1].groups[0].faces, 12);
  });

  test("ER Weapon Lock: the shield-blitz's d20 of blunt damage is applied; no reaction fields sent", async () => {
    const { api, conn, vtt, actors } = setup({ targeted: ["ogre"] });
    await api.lock({ mode: "blitz", seed: 9 });
    assert.deepEqual(conn.calls[0].params, answer("lock-blitz").request);
    assert.equal(actors.ogre.system.health.value, 21);
    assert.match(vtt.messages[0].content, /9 blunt damage\./);
  });
});

describe("ER Throwing Items (throw.roll)", () => {
  test("ER Throwing Items: a flask sends the thrower and the target's AC and conditions; its damage is applied on a hit, undone with the card", async () => {
    const { api, conn, vtt, actors } = setup({ targeted: ["ogre"] });
    const out = await api.throw({ item: "holy water", skill: "ranged", seed: 3 });
    assert.equal(conn.calls[0].method, "throw.roll");
    assert.deepEqual(conn.calls[0].params, answer("throw-holy").request);
    const r = answer("throw-holy").result;
    assert.equal(out.result.hit, true);
    assert.equal(actors.ogre.system.health.value, 30 - r.damage.damage);
    const card = vtt.messages[0];
    assert.match(card.content, new RegExp(`holy water hits Ogre: ${r.damage.damage} smite damage`));
    // The exact chance to hit and the mean damage, each as its fraction beside the float.
    assert.ok(card.content.includes(`${r.p_hit_exact} (${(r.p_hit * 100).toFixed(1)}%)`), "p_hit");
    assert.ok(card.content.includes(r.mean_damage_exact), "mean damage");
    assert.match(card.content, /rolled by the fracas bridge \(throw\.roll\) · seed 3/);
    // The pool's d20s (each raw face a hit or a miss), then the damage die.
    assert.deepEqual(card.rolls[0].groups[0].results.map((d) => [d.result, d.success]), r.thrown.dice.map((f, i) => [f, r.thrown.hits[i]]));
    assert.equal(card.rolls[1].groups[0].faces, 4);
    assert.equal(card.rolls[1].total, r.damage.damage);
    await api.undo(out.messageId);
    assert.equal(actors.ogre.system.health.value, 30);
  });

  test("ER Throwing Items: throwing magic sends its damage and the thrower's Agility; the target's cover; advantage", async () => {
    const { api, conn, vtt, actors } = setup({ targeted: ["gob"] });
    await api.throw({ item: "magic", skill: "hurling", dice: 2, faces: 6, damage_bonus: 1, damage_type: "lightning", cover: "half", bonus: 1, edge: "advantage", seed: 4 });
    assert.deepEqual(conn.calls[0].params, answer("throw-magic").request);
    assert.equal(actors.gob.system.health.value, 0);
    assert.match(vtt.messages[0].content, /throwing magic \(its damage below\) hits Goblin: 10 lightning damage/);
    // A table item sends no damage of its own: the dialog's damage fields are another item's or magic's.
    const flask = setup({ targeted: ["gob"], bridge: fakeConnection(() => answer("throw-holy").result) });
    await flask.api.throw({ item: "acid splash" });
    assert.equal(flask.conn.calls[0].params.damage, undefined);
    assert.equal(flask.conn.calls[0].params.item, "acid splash");
  });

  test("ER Throwing Items: bad input is refused naming the field, before anything is sent; a magic thrower without Agility is named", async () => {
    const cases = [
      [{ item: "rock" }, /throw: item: "rock" is not one of acid splash, bonfire blend, explosive oil, firebreather's oil, holy water, other, magic/],
      [{ item: "magic", dice: 11 }, /throw: dice: 11 is not between 0 and 10/],
      [{ item: "other", damage_type: "plasma" }, /throw: damage_type: "plasma" is not one of/],
      [{ skill: "expert" }, /throw: skill: "expert" is not one of none, ranged, hurling/],
      [{ bonus: 99 }, /throw: bonus: 99 is not between -50 and 50/],
      [{ cover: "behind" }, /throw: cover: "behind" is not one of/],
      [{ style: "thrown" }, /throw: unknown option style/],
    ];
    for (const [options, message] of cases) {
      const { api, vtt, conn } = setup({ targeted: ["gob"] });
      assert.equal(await api.throw(options), null);
      assert.match(vtt.notes[0].text, message);
      assert.equal(conn.calls.length, 0);
    }
    const none = setup({ targeted: [] });
    assert.equal(await none.api.throw({}), null);
    assert.match(none.vtt.notes[0].text, /one target is needed, 0 found: target the token/);
    const same = setup({ controlled: ["gob"], targeted: ["gob"] });
    assert.equal(await same.api.throw({}), null);
    assert.match(same.vtt.notes[0].text, /Goblin cannot be both thrower and target/);
    // Throwing magic adds the thrower's Agility (a ranged to-hit): an actor without one is named, nothing sent.
    const bare = setup({ targeted: ["gob"] });
    delete bare.actors.hero.system.attributes.agility;
    assert.equal(await bare.api.throw({ item: "magic" }), null);
    assert.match(bare.vtt.notes[0].text, /Aldric/);
    assert.match(bare.vtt.notes[0].text, /range strikes add it to hit/);
    assert.equal(bare.conn.calls.length, 0);
    // A flask's raw face takes no Agility: the same actor throws one.
    const flask = setup({ targeted: ["ogre"], bridge: fakeConnection(() => answer("throw-holy").result) });
    delete flask.actors.hero.system.attributes.agility;
    const thrown = await flask.api.throw({ item: "holy water", skill: "ranged", seed: 3 });
    assert.ok(thrown, flask.vtt.notes.map((n) => n.text).join("; "));
    assert.deepEqual(flask.conn.calls[0].params.thrower, { strength: 4 });
  });

  test("ER Throwing Items: a player throws only with its own token; the macro and the table name it", async () => {
    const player = setup({ controlled: ["gob"], targeted: ["ogre"], isGM: false });
    assert.equal(await player.api.throw({ item: "holy water" }), null);
    assert.match(player.vtt.notes[0].text, /you can roll only with tokens you own/);
    assert.equal(player.vtt.asked.length, 0);
    assert.ok(MACROS.some((m) => m.key === "throw" && m.command.includes('bridgedDialog("throw")')));
    assert.equal(KINDS.throw.method, "throw.roll");
  });
});

describe("ER Grappling (slam.roll)", () => {
  test("ER Grappling: the controlled grappler slams the first targeted token into the second: sizes, Strength, the second's AC; both damages applied, undone with the card", async () => {
    const { api, conn, vtt, actors } = setup({ controlled: ["giant"], targeted: ["gob", "ogre"] });
    const out = await api.slam({ distance: 10, seed: 6 });
    assert.equal(conn.calls[0].method, "slam.roll");
    assert.deepEqual(conn.calls[0].params, answer("slam-into").request);
    const r = answer("slam-into").result;
    assert.deepEqual([r.victim_damage.damage, r.into.hit, r.into.damage], [4, true, 4]);
    assert.equal(actors.gob.system.health.value, 7 - 4);
    assert.equal(actors.ogre.system.health.value, 30 - 4);
    const card = vtt.messages[0];
    assert.match(card.content, /Goblin is slammed for 4 blunt damage and freed; hurled into Ogre: a hit for 4 blunt damage/);
    // The hurl's exact chance to hit, as its fraction beside the float; its three d20s as a Foundry roll.
    assert.ok(card.content.includes(`${r.into.p_hit_exact} (${(r.into.p_hit * 100).toFixed(1)}%)`), "p_hit");
    assert.match(card.content, /rolled by the fracas bridge \(slam\.roll\) · seed 6/);
    assert.deepEqual(card.rolls[0].groups[0].results.map((d) => [d.result, d.success]), r.into.dice.map((d) => [d.face, d.hit]));
    await api.undo(out.messageId);
    assert.deepEqual([actors.gob.system.health.value, actors.ogre.system.health.value], [7, 30]);
  });

  test("ER Grappling: one targeted token is a slam without a second target: the terrain's damage type, no hurl, no dice", async () => {
    const { api, conn, vtt, actors } = setup({ controlled: ["giant"], targeted: ["hero"] });
    const out = await api.slam({ damage_type: "fire", seed: 2 });
    assert.deepEqual(conn.calls[0].params, answer("slam-fire").request);
    assert.equal(out.result.into, null);
    assert.equal(actors.hero.system.health.value, 20 - 4);
    assert.match(vtt.messages[0].content, /Aldric is slammed for 4 fire damage and freed/);
    assert.equal(vtt.messages[0].rolls.length, 0);
  });

  test("ER Grappling: bad input is refused naming the field, before anything is sent; a grappler without Strength is named", async () => {
    const cases = [
      [{ damage_type: "plasma" }, /slam: damage_type: "plasma" is not one of/],
      [{ distance: 20 }, /slam: distance: 20 is not between 0 and 10/],
      [{ height: -1 }, /slam: height: -1 is not between 0 and 1000/],
      [{ to_hit: 999 }, /slam: to_hit: 999 is not between -100 and 100/],
      [{ edge: "lucky" }, /slam: edge: "lucky" is not one of normal, advantage, disadvantage/],
      [{ style: "thrown" }, /slam: unknown option style/],
    ];
    for (const [options, message] of cases) {
      const { api, vtt, conn } = setup({ controlled: ["giant"], targeted: ["gob"] });
      assert.equal(await api.slam(options), null);
      assert.match(vtt.notes[0].text, message);
      assert.equal(conn.calls.length, 0);
    }
    const none = setup({ controlled: ["giant"], targeted: [] });
    assert.equal(await none.api.slam({}), null);
    assert.match(none.vtt.notes[0].text, /one victim is needed, 0 found: target the token/);
    const three = setup({ controlled: ["giant"], targeted: ["gob", "ogre", "hero"] });
    assert.equal(await three.api.slam({}), null);
    assert.match(three.vtt.notes[0].text, /3 tokens: at most 2 are used \(target the token/);
    assert.equal(three.conn.calls.length, 0);
    const same = setup({ controlled: ["gob"], targeted: ["gob"] });
    assert.equal(await same.api.slam({}), null);
    assert.match(same.vtt.notes[0].text, /Goblin cannot be both grappler and victim/);
    const weak = setup({ controlled: ["giant"], targeted: ["gob"] });
    delete weak.actors.giant.system.attributes.strength;
    assert.equal(await weak.api.slam({}), null);
    assert.match(weak.vtt.notes[0].text, /Giant: no Strength score at .* a slam deals the Strength bonus/);
    assert.equal(weak.conn.calls.length, 0);
  });

  test("ER Grappling: a player slams only with its own token; the macro and the table name it", async () => {
    const player = setup({ controlled: ["gob"], targeted: ["hero"], isGM: false });
    assert.equal(await player.api.slam({}), null);
    assert.match(player.vtt.notes[0].text, /you can roll only with tokens you own/);
    assert.ok(MACROS.some((m) => m.key === "slam" && m.command.includes('bridgedDialog("slam")')));
    assert.equal(KINDS.slam.method, "slam.roll");
  });
});

describe("WW-8 counterspell (counterspell.roll)", () => {
  const OPTIONS = { school: "sorcery", distance: 30, rating: 4, caster_skill: 3, modifier: 2, caster_modifier: 1, seed: 7 };
  test("WW-8: the controlled token counters the targeted caster; the request names Worldwalker; the card shows both d20s, the outcome and the exact chance", async () => {
    const { api, conn, vtt, actors } = setup({ targeted: ["gob"] });
    const out = await api.counterspell(OPTIONS);
    assert.equal(conn.calls[0].method, "counterspell.roll");
    assert.deepEqual(conn.calls[0].params, answer("counterspell").request);
    assert.equal(conn.calls[0].params.ruleset, "worldwalker");
    const r = answer("counterspell").result;
    assert.deepEqual(out.result, r);
    const card = vtt.messages[0];
    const outcome = r.countered ? "Aldric counters Goblin's sorcery spell: it fizzles" : "Goblin's sorcery spell is cast: Aldric fails to counter it";
    assert.ok(card.content.includes(outcome.replace(/'/g, "&#39;")) || card.content.includes(outcome), card.content);
    assert.ok(card.content.includes(`${r.p_countered_exact} (${(r.p_countered * 100).toFixed(1)}%)`), "p_countered");
    assert.match(card.content, /rolled by the fracas bridge \(counterspell\.roll\) · seed 7/);
    // Draw order: the counterspeller's d20, then the caster's.
    assert.deepEqual(card.rolls.map((x) => [x.groups[0].results[0].result, x.total]), [[r.counterspeller.roll, r.counterspeller.total], [r.caster.roll, r.caster.total]]);
    // Nothing is applied: a counterspell changes no Body.
    assert.equal(actors.gob.system.health.value, 7);
  });

  test("WW-8: bad input is refused naming the field, before anything is sent; the caster is the one targeted token", async () => {
    const cases = [
      [{ school: "x".repeat(41) }, /counterspell: school: /],
      [{ distance: "far" }, /counterspell: distance: "far"/],
      [{ rating: 0 }, /counterspell: rating: 0 is not between 1 and 100/],
      [{ caster_modifier: 101 }, /counterspell: caster_modifier: 101 is not between -100 and 100/],
      [{ range: 5 }, /counterspell: unknown option range/],
    ];
    for (const [options, message] of cases) {
      const { api, vtt, conn } = setup({ targeted: ["gob"] });
      assert.equal(await api.counterspell(options), null);
      assert.match(vtt.notes[0].text, message);
      assert.equal(conn.calls.length, 0);
    }
    const none = setup({ targeted: [] });
    assert.equal(await none.api.counterspell({}), null);
    assert.match(none.vtt.notes[0].text, /one caster is needed, 0 found/);
  });
});

describe("who may roll, who sees it, and without a bridge", () => {
  test("without a bridge connection the action says so and nothing is sent or applied", async () => {
    const { api, vtt, conn, actors } = setup({ targeted: ["ogre"], connected: false });
    assert.equal(await api.lock({ mode: "blitz", seed: 9 }), null);
    assert.match(vtt.notes[0].text, /this browser does not hold the bridge connection/);
    assert.equal(conn.calls.length, 0);
    assert.equal(vtt.messages.length, 0);
    assert.equal(actors.ogre.system.health.value, 30);
  });

  test("a player saves only with its own tokens: sent to the GM's client by ids, checked there again; a forged request is refused", async () => {
    const player = setup({ controlled: ["hero"], targeted: [], isGM: false });
    player.vtt.owned.add("hero");
    player.vtt.gmAnswers = async () => ({ requestId: "r", messageId: "m" });
    await player.api.save({ save: "agility", dc: 13 });
    assert.deepEqual(player.vtt.asked, [{ action: "save", data: { save: "agility", dc: 13, area: false, cover: "none", effect: "", on_fail: [], edge: "normal", savers: ["hero"], rollMode: undefined } }].map((x) => ({ ...x, data: Object.fromEntries(Object.entries(x.data).filter(([, v]) => v !== undefined)) })));
    // Not its token: refused on its own client, nothing asked.
    const other = setup({ controlled: ["gob"], isGM: false });
    assert.equal(await other.api.save({ dc: 13 }), null);
    assert.match(other.vtt.notes[0].text, /you can roll only with tokens you own/);
    assert.equal(other.vtt.asked.length, 0);
    // The GM's client: the sender must own the savers (the server names the sender).
    const gm = setup({ targeted: [] });
    gm.vtt.ownersOf = { hero: ["player1"] };
    const forged = await gm.api.answerRequest({ id: "abcdefgh1", action: "save", data: { dc: 13, savers: ["gob"] } }, "player1");
    assert.match(forged.error, /you can roll only with tokens you own/);
    assert.equal(gm.conn.calls.length, 0);
    const many = await gm.api.answerRequest({ id: "abcdefgh5", action: "save", data: { dc: 13, savers: Array.from({ length: 9 }, () => "hero") } }, "player1");
    assert.match(many.error, /9/);
    assert.equal(many.i18n.key, "FRACAS.Player.TooManyTargets");
    const hidden = setup({ targeted: [] });
    hidden.vtt.ownersOf = { hero: ["player1"] };
    hidden.vtt.toView = (ref) => (ref === "ogre" ? { ...view("ogre", "Ogre", hidden.actors.ogre), hidden: true } : null) ?? null;
    const touchHidden = await hidden.api.answerRequest({ id: "abcdefgh2", action: "touch", data: { touch: "hit", caster: ["hero"], target: ["ogre"] } }, "player1");
    assert.ok(touchHidden.error);
    assert.equal(hidden.conn.calls.length, 0);
  });

  test("the holder resolves a player's own request with the actors' numbers, posted as the player's roll mode (a blind roll whispered to the GMs)", async () => {
    const gm = setup({ targeted: [], bridge: fakeConnection((method, params) => {
      assert.equal(method, "touch.roll");
      assert.deepEqual(params.caster, { strength: 4, agility: 6 });
      return answer("touch-hit").result;
    }) });
    gm.vtt.ownersOf = { hero: ["player1"] };
    const out = await gm.api.answerRequest({ id: "abcdefgh3", action: "touch", data: { touch: "hit", dice: 2, bonus: 1, caster: ["hero"], target: ["gob"], rollMode: "blindroll" } }, "player1");
    assert.equal(out.error, undefined);
    assert.equal(out.requestId, "player-player1-abcdefgh3");
    const card = gm.vtt.messages[0];
    assert.equal(card.rollMode, "blindroll");
    assert.equal(card.requester, "player1");
    assert.equal(gm.conn.calls[0].id, "player-player1-abcdefgh3");
  });

  test("a GM tab that does not hold the bridge sends its selection as ids; the holder runs it for an assistant GM", async () => {
    const tab = setup({ targeted: ["gob", "ogre"] });
    tab.vtt.holdsConnection = () => false;
    tab.vtt.gmAnswers = async () => ({ requestId: "r", messageId: "m" });
    await tab.api.save({ save: "agility", dc: 13, area: true, cover: "half", effect: "sleep smoke", on_fail: ["asleep", "prone"] });
    assert.deepEqual(tab.vtt.asked, [{ action: "save", data: { save: "agility", dc: 13, area: true, cover: "half", effect: "sleep smoke",
      on_fail: ["asleep", "prone"], savers: ["gob", "ogre"] } }]);
    assert.equal(tab.conn.calls.length, 0);
    const holder = setup({ targeted: [] });
    holder.vtt.userIsGM = (id) => id === "assistant1";
    const out = await holder.api.answerRequest({ id: "abcdefgh4", action: "save", data: { ...tab.vtt.asked[0].data, seed: 5 } }, "assistant1");
    assert.equal(out.error, undefined);
    assert.deepEqual(holder.conn.calls[0].params, answer("save-area").request);
    assert.equal(holder.conn.calls[0].id, "player-assistant1-abcdefgh4");
  });

  test("a hidden token is 'someone unseen' on the players' copy; the GMs' card names it", async () => {
    const { api, vtt, actors } = setup({ targeted: ["gob"] });
    vtt.toView = () => null;
    vtt.targeted = () => [{ ...view("gob", "Goblin", actors.gob), hidden: true }];
    await api.touch({ touch: "hit", dice: 2, bonus: 1, seed: 3 });
    assert.equal(vtt.messages.length, 2);
    assert.equal(vtt.messages[0].whisperToGM, true);
    assert.match(vtt.messages[0].content, /Goblin is touched/);
    assert.doesNotMatch(vtt.messages[1].content, /Goblin/);
    assert.match(vtt.messages[1].content, /someone unseen is touched/);
  });

  test("the dialog (the macros'): fields from the form, remembered; a bad form value names the field", async () => {
    const { api, vtt, conn } = setup({ targeted: ["ogre"], bridge: fakeConnection(() => answer("lock-blitz").result) });
    vtt.formAnswer = { mode: "blitz", to_hit: "0", weapon: "medium", damage_type: "edged", edge: "normal" };
    const out = await api.bridgedDialog("lock");
    assert.match(vtt.formHtml, /name="mode"/);
    assert.match(vtt.formHtml, /attacker: Aldric · victim: Ogre/);
    assert.equal(conn.calls[0].params.mode, "blitz");
    assert.equal(out.result.outcome, "blitzed");
    assert.equal(vtt.settings.lastBridged.lock.mode, "blitz");
    vtt.formAnswer = { mode: "lock", to_hit: "two" };
    assert.equal(await api.bridgedDialog("lock"), null);
    assert.match(vtt.notes.at(-1).text, /lock: to_hit: "two" is not a whole number/);
    for (const kind of Object.keys(KINDS)) assert.ok(MACROS.some((m) => m.command.includes(`bridgedDialog("${kind}")`)), kind);
  });
});

describe("the table and the layout", () => {
  test("every kind of the table is a request kind of its ruleset and has a result layout in contract.js", () => {
    for (const entry of Object.values(KINDS)) assert.ok(RESULTS[entry.ruleset].kinds[entry.kind], entry.kind);
  });

  test("in German the card's labels, words and outcome are German (lang/de.json)", () => {
    const de = JSON.parse(readFileSync(new URL("../lang/de.json", import.meta.url), "utf8"));
    useStrings(de);
    try {
      const html = renderBridgedCard(KINDS.save, answer("save-area").result, { gob: "Goblin", ogre: "Oger" }, { requestId: "x" });
      assert.match(html, /Geschicklichkeit-Rettungswurf gegen SG 13: gerettet Goblin; misslungen Oger/);
      assert.match(html, /Chance auf Rettung: Goblin/);
      assert.match(html, /von der fracas-Brücke gewürfelt \(save\.roll\)/);
      assert.doesNotMatch(html, /chance to save|conditions after|rolled by/);
    } finally {
      useStrings(ENGLISH);
    }
  });

  test("every key a card of these kinds can show has its label, every field and role its strings", () => {
    for (const entry of Object.values(KINDS)) {
      for (const key of layoutKeys(entry.ruleset, entry.kind)) assert.ok(ENGLISH[`FRACAS.Result.${key}`], `${entry.kind}: ${key}`);
      for (const f of entry.fields) assert.ok(ENGLISH[`FRACAS.Bridged.Field.${entry.kind}.${f.name}`], `${entry.kind}.${f.name}`);
      for (const p of entry.parts) assert.ok(ENGLISH[`FRACAS.Bridged.Role.${p.role}`], p.role);
      assert.ok(ENGLISH[`FRACAS.Bridged.Title.${entry.kind}`] && ENGLISH[`FRACAS.Macro.${entry.kind}`], entry.kind);
    }
  });
});

// ── the engine's own answers ─────────────────────────────────────────────────────

const python = existsSync(PYTHON) && spawnSync(PYTHON, ["-c", "import fracas"], { cwd: REPO_DIR }).status === 0;
const skipPython = python ? false : `skipped: no Python with fracas at ${PYTHON} (FRACAS_PYTHON)`;
if (!python && process.env.CI) throw new Error("the bridge-backed tests must run under CI");

describe("against the engine", { skip: skipPython }, () => {
  test("the fixture is the engine's answer to each request (test/tools/bridged_answers.py)", () => {
    const out = spawnSync(PYTHON, ["-c", "import sys; sys.path.insert(0, 'vtt_scripts/foundry/test/tools'); import bridged_answers as b; sys.stdout.write(b.render())"],
      { cwd: REPO_DIR, encoding: "utf8", env: process.env });
    assert.equal(out.status, 0, out.stderr);
    assert.deepEqual(JSON.parse(out.stdout), ANSWERS);
  });

  describe("a real fracas serve", () => {
    const TOKEN = "bridged-test-token-0123456789";
    const ORIGIN = "http://127.0.0.1:30000";
    let tmp;
    let bridge;
    let conn;
    before(async () => {
      tmp = tempDir();
      bridge = await startBridge({ token: TOKEN, origin: ORIGIN, journal: join(tmp.dir, "journal.sqlite3") });
      // A node WebSocket (the ws package) sending the Origin a Foundry page would.
      class OriginSocket extends WebSocket {
        constructor(url) {
          super(url, { origin: ORIGIN });
        }
      }
      conn = new BridgeConnection({ url: bridge.url, token: TOKEN, WebSocketImpl: OriginSocket, newId: () => `real-${Math.random().toString(36).slice(2)}` });
      conn.start();
    });
    after(async () => {
      conn?.stop("done");
      await bridge?.stop();
      tmp?.remove();
    });

    for (const [name, kind, options, targeted, controlled = ["hero"]] of [
      ["save-area", "save", SAVE_AREA, ["gob", "ogre"]],
      ["touch-sleight", "touch", { touch: "sleight", other_ac: 1, rolls: [16], seed: 4 }, ["gob"]],
      ["drop-inflict", "drop", { phase: "inflict", held: 7, rounds: 2, foul_play: true, seed: 2 }, ["gob"]],
      ["lock-disarm", "lock", { mode: "disarm", to_hit: 2, weapon: "heavy", damage_type: "edged", reacts: true, seed: 8 }, ["ogre"]],
      ["throw-holy", "throw", { item: "holy water", skill: "ranged", seed: 3 }, ["ogre"]],
      ["slam-into", "slam", { distance: 10, seed: 6 }, ["gob", "ogre"], ["giant"]],
      ["counterspell", "counterspell", { school: "sorcery", distance: 30, rating: 4, caster_skill: 3, modifier: 2, caster_modifier: 1, seed: 7 }, ["gob"]],
    ]) {
      test(`${kind} (${name}): the module's request rolled by fracas serve, the card and what it applied from its answer`, async () => {
        const { api, vtt, actors } = setup({ controlled, targeted, bridge: conn });
        const out = await api[kind](options);
        assert.ok(out, vtt.notes.map((n) => n.text).join("; "));
        assert.deepEqual(out.result, answer(name).result);
        assert.match(vtt.messages[0].content, new RegExp(`rolled by the fracas bridge \\(${kind}\\.roll\\)`));
        if (kind === "lock") assert.equal(actors.ogre.system.health.value, 30 - out.result.reaction.body_cost.points);
        if (kind === "drop") assert.equal(actors.gob.system.health.value, Math.max(0, 7 - out.result.inflicted));
        if (kind === "throw") assert.equal(actors.ogre.system.health.value, 30 - out.result.damage.damage);
        if (kind === "slam") assert.equal(actors.ogre.system.health.value, 30 - (out.result.into.hit ? out.result.into.damage : 0));
        // The bridge journaled it under the request's id.
        const entry = await conn.call("journal.get", { id: out.requestId });
        assert.equal(entry.method, `${kind}.roll`);
      });
    }

    test("the bridge's refusal names the field: full cover against an effect that is not an area (ER-16)", async () => {
      const { api, vtt } = setup({ targeted: ["gob"], bridge: conn });
      assert.equal(await api.save({ save: "agility", dc: 13, cover: "full" }), null);
      assert.match(vtt.notes[0].text, /\$\.params\.targets\[0\]\.cover/);
      assert.equal(vtt.messages.length, 0);
    });

    test("the bridge's refusal names the field: a grappler not two sizes larger than its victim (ER Grappling), nothing applied", async () => {
      const { api, vtt, actors } = setup({ controlled: ["hero"], targeted: ["gob"], bridge: conn });
      assert.equal(await api.slam({}), null);
      assert.match(vtt.notes[0].text, /\$\.params\.grappler\.size/);
      assert.equal(vtt.messages.length, 0);
      assert.equal(actors.gob.system.health.value, 7);
    });
  });
});
