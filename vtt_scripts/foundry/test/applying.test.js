// Damage in the Foundry module: through the game system's own damage method when the
// actor has one (temporary HP first), the defeated mark at 0, per-target Apply / Half /
// Double / Undo on the card, and Undo restoring the exact values from before.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, test } from "node:test";

import { createActions } from "../scripts/actions.js";
import { decorateCard } from "../scripts/card.js";
import { t } from "../scripts/i18n.js";
import { ENGLISH } from "./english.js";
import { fakeActor, fakeConnection, fakeVtt, sheet, view } from "./fakes.js";

const sword = { method: "melee", style: "slashing", dice: 2, weight: 1, damage_type: "edged" };

function result(damage) {
  const ids = Object.keys(damage);
  return {
    ruleset: "enchanted-realms", seed: 9, backend: "compiled", injected: false,
    strikes: ids.map((id) => ({ target: id, method: "melee", style: "slashing", damage_type: "edged", advantage: false,
      disadvantage: false, sneak: false, to_hit: 4, ac: 12, crit_range: 20, dice: [{ face: 15, total: 19, hit: true, source: "skill" }],
      discarded: null, crit_chain: [], hits: 1, crit: false, base: damage[id], modifier: null, resistance: "normal",
      damage: damage[id], undodgeable: 0 })),
    targets: Object.fromEntries(ids.map((id) => [id, { damage: damage[id], by_type: { edged: damage[id] }, undodgeable: 0,
      shock_save_dc: null, shock_save: null }])),
    total_damage: ids.reduce((n, id) => n + damage[id], 0),
  };
}

/** A dnd5e-like actor: applyDamage uses temporary HP first, then HP. */
function systemActor(uuid, name, hp, temp) {
  const actor = fakeActor({ uuid, name, system: sheet({ hp }) });
  actor.system.health.temp = temp;
  actor.damageCalls = [];
  actor.applyDamage = async (amount) => {
    actor.damageCalls.push(amount);
    const fromTemp = Math.min(actor.system.health.temp, amount);
    await actor.update({ "system.health.temp": actor.system.health.temp - fromTemp,
      "system.health.value": Math.max(0, actor.system.health.value - (amount - fromTemp)) });
  };
  return actor;
}

function setup({ damage = { g1: 5 }, actors, settings = {} } = {}) {
  const hero = fakeActor({ uuid: "Actor.hero", name: "Aldric", system: sheet({ str: 4 }) });
  const list = actors ?? { g1: fakeActor({ uuid: "Actor.g1", name: "Goblin", system: sheet({ hp: 7 }) }) };
  const tokens = [view("hero", "Aldric", hero), ...Object.entries(list).map(([id, a]) => view(id, a.name, a))];
  const vtt = fakeVtt({ tokens, controlled: ["hero"], targeted: Object.keys(list),
    settings: { damageThroughSystem: true, markDefeated: true, pathBodyTemp: "", ...settings } });
  vtt.defeated = [];
  vtt.setDefeated = async (actor, on) => { vtt.defeated.push([actor.name, on]); };
  const conn = fakeConnection(() => result(damage));
  let n = 0;
  const api = createActions({ vtt, connection: () => conn, newId: () => `id-${++n}`, log: (e) => { throw e; } });
  return { api, vtt, actors: list };
}

describe("damage through the game system", () => {
  test("dnd5e: Actor5e#applyDamage(amount) takes it (temporary HP first); Undo gives back HP and temporary HP", async () => {
    const actors = { g1: systemActor("Actor.g1", "Ogre", 10, 3) };
    const { api, vtt } = setup({ damage: { g1: 5 }, actors, settings: { pathBodyTemp: "system.health.temp" } });
    vtt.system = "dnd5e";
    const out = await api.attack({ strikes: [{ ...sword, target: "g1" }] });
    assert.deepEqual(actors.g1.damageCalls, [5]);
    assert.equal(actors.g1.system.health.temp, 0);
    assert.equal(actors.g1.system.health.value, 8);
    assert.equal(out.changes[0].system, "dnd5e");
    assert.deepEqual([out.changes[0].before, out.changes[0].after, out.changes[0].tempBefore, out.changes[0].tempAfter], [10, 8, 3, 0]);
    await api.undo(vtt.messages[0].id);
    assert.equal(actors.g1.system.health.value, 10);
    assert.equal(actors.g1.system.health.temp, 3);
  });

  test("pf2e: ActorPF2e#applyDamage({damage, token}) with the target's token document, never a bare number", async () => {
    const actor = fakeActor({ uuid: "Actor.g1", name: "Ogre", system: sheet({ hp: 10 }) });
    actor.calls = [];
    // pf2e's signature (src/module/actor/base.ts): one object; a number has no `damage` and no `token`.
    actor.applyDamage = async (params) => {
      if (typeof params !== "object" || params === null || !params.token) throw new TypeError("Cannot destructure 'damage' of a number");
      actor.calls.push({ damage: params.damage, token: params.token.id });
      await actor.update({ "system.health.value": actor.system.health.value - params.damage });
    };
    const { api, vtt } = setup({ damage: { g1: 4 }, actors: { g1: actor } });
    vtt.system = "pf2e";
    const out = await api.attack({ strikes: [{ ...sword, target: "g1" }] });
    assert.deepEqual(actor.calls, [{ damage: 4, token: "g1" }]);
    assert.equal(actor.system.health.value, 6);
    assert.equal(out.changes[0].system, "pf2e");
  });

  test("another system: a method that happens to be called applyDamage is not guessed at; the Body path is written", async () => {
    const actors = { g1: systemActor("Actor.g1", "Ogre", 10, 3) };
    const { api, vtt } = setup({ damage: { g1: 5 }, actors });
    vtt.system = "worldbuilding";
    await api.attack({ strikes: [{ ...sword, target: "g1" }] });
    assert.deepEqual(actors.g1.damageCalls, []);
    assert.equal(actors.g1.system.health.value, 5);
  });

  test("with the setting off, the Body path is written even when the system has a damage method", async () => {
    const actors = { g1: systemActor("Actor.g1", "Ogre", 10, 3) };
    const { api } = setup({ damage: { g1: 5 }, actors, settings: { damageThroughSystem: false } });
    await api.attack({ strikes: [{ ...sword, target: "g1" }] });
    assert.deepEqual(actors.g1.damageCalls, []);
    assert.equal(actors.g1.system.health.value, 5);
    assert.equal(actors.g1.system.health.temp, 3);
  });

  test("a target brought to 0 is marked defeated, and Undo takes the mark away", async () => {
    const { api, vtt, actors } = setup({ damage: { g1: 9 } });
    await api.attack({ strikes: [{ ...sword, target: "g1" }] });
    assert.equal(actors.g1.system.health.value, 0);
    assert.deepEqual(vtt.defeated, [["Goblin", true]]);
    await api.undo(vtt.messages[0].id);
    assert.deepEqual(vtt.defeated, [["Goblin", true], ["Goblin", false]]);
    assert.equal(actors.g1.system.health.value, 7);
  });
});

describe("per-target buttons", () => {
  test("undo one target, then apply half, then double, then undo: each exact", async () => {
    const actors = {
      g1: fakeActor({ uuid: "Actor.g1", name: "Goblin", system: sheet({ hp: 20, hpMax: 20 }) }),
      g2: fakeActor({ uuid: "Actor.g2", name: "Orc", system: sheet({ hp: 20, hpMax: 20 }) }),
    };
    const { api, vtt } = setup({ damage: { g1: 5, g2: 7 }, actors });
    await api.attack({ strikes: [{ ...sword, target: "g1" }, { ...sword, target: "g2" }] });
    const id = vtt.messages[0].id;
    assert.equal(actors.g1.system.health.value, 15);
    assert.deepEqual(vtt.messages[0].flags.fracas.targets.map((x) => [x.id, x.damage]), [["g1", 5], ["g2", 7]]);
    await api.undoTarget(id, "g1");
    assert.equal(actors.g1.system.health.value, 20, JSON.stringify(vtt.notes));
    assert.equal(actors.g2.system.health.value, 13, "the other target keeps its damage");
    await api.applyTarget(id, "g1", 0.5);
    assert.equal(actors.g1.system.health.value, 18, "half of 5, rounded down");
    assert.equal(await api.applyTarget(id, "g1", 2), null, "already applied: undo first");
    assert.match(vtt.notes.at(-1).text, /already took this damage/);
    await api.undoTarget(id, "g1");
    await api.applyTarget(id, "g1", 2);
    assert.equal(actors.g1.system.health.value, 10);
    await api.undo(id);
    assert.equal(actors.g1.system.health.value, 20);
    assert.equal(actors.g2.system.health.value, 20);
  });

  test("the card shows Apply / Half / Double to a GM for a target not yet hurt, Undo for one that was", () => {
    // A minimal DOM: decorateCard needs querySelector(All), createElement, replaceChildren, append.
    const made = [];
    const element = (cls, data = {}) => ({
      className: cls, dataset: data, children: [], textContent: "", disabled: false, ownerDocument: null,
      replaceChildren() { this.children = []; }, append(...c) { this.children.push(...c); },
      addEventListener() {}, querySelector: () => null, querySelectorAll: () => [], remove() {},
    });
    const doc = { createElement: () => { const e = element(""); made.push(e); return e; } };
    const slots = [element("fracas-target-actions", { target: "g1" }), element("fracas-target-actions", { target: "g2" })];
    for (const s of slots) s.ownerDocument = doc;
    const card = { querySelector: () => null, querySelectorAll: (sel) => (sel === ".fracas-target-actions" ? slots : []) };
    const root = { querySelector: (sel) => (sel === ".fracas-card" ? card : null) };
    const flags = { targets: [{ id: "g1", damage: 5 }, { id: "g2", damage: 7 }], changes: [{ targets: ["g2"], name: "Orc", before: 20, after: 13 }] };
    decorateCard(root, flags, { isGM: true, onUndo: async () => {}, onApply: async () => {}, onUndoTarget: async () => {} });
    assert.deepEqual(slots[0].children.map((b) => b.textContent), [t("FRACAS.Card.Apply"), t("FRACAS.Card.Half"), t("FRACAS.Card.Double")]);
    assert.deepEqual(slots[1].children.map((b) => b.textContent), [t("FRACAS.Card.UndoTarget")]);
    decorateCard(root, flags, { isGM: false, onUndo: async () => {}, onApply: async () => {}, onUndoTarget: async () => {} });
    assert.deepEqual(slots.map((s) => s.children.length), [0, 0], "players get no buttons");
  });
});

describe("translatable strings", () => {
  test("every t() key and every setting name in the sources is in lang/en.json; module.json lists it", () => {
    const dir = new URL("../scripts/", import.meta.url);
    const used = new Set();
    for (const file of readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith(".js"))) {
      const text = readFileSync(new URL(String(file), dir), "utf8");
      for (const m of text.matchAll(/(?:\bt|Error\.of)\("(FRACAS\.[A-Za-z0-9.]+)"/g)) used.add(m[1]);
      for (const m of text.matchAll(/label: "(FRACAS\.[A-Za-z0-9.]+)"/g)) used.add(m[1]);
      // Keys made from a name: requireGM("Attacks") → FRACAS.GMOnly.Attacks; a sheet field and why it is needed.
      for (const m of text.matchAll(/requireGM\("(\w+)"\)/g)) used.add(`FRACAS.GMOnly.${m[1]}`);
      for (const m of text.matchAll(/(?:need|optional)Integer\(\w+, mapping, (?:"\w+"|\w+), "(\w+)"(?:, "(\w+)")?\)/g)) {
        used.add(`FRACAS.Field.${m[1]}`);
        if (m[2]) used.add(`FRACAS.Why.${m[2]}`);
      }
    }
    assert.ok(used.size >= 30, `only ${used.size} keys used`);
    for (const key of used) assert.ok(ENGLISH[key], `${key} is not in lang/en.json`);
    const module = JSON.parse(readFileSync(new URL("../module.json", import.meta.url), "utf8"));
    assert.deepEqual(module.languages, [{ lang: "en", name: "English", path: "lang/en.json" },
      { lang: "de", name: "Deutsch", path: "lang/de.json" }]);
    assert.equal(t("FRACAS.Dialog.Intro", { attacker: "A", targets: "B" }), "A → B: one strike at each target.");
    // A translation from game.i18n wins; a missing one falls back to English.
    globalThis.game = { i18n: { has: (k) => k === "FRACAS.Card.Half", localize: () => "Moitié" } };
    try {
      assert.equal(t("FRACAS.Card.Half"), "Moitié");
      assert.equal(t("FRACAS.Card.Double"), "Double");
    } finally {
      delete globalThis.game;
    }
  });
});

describe("initiative of every ruleset", () => {
  function combatSetup(answer) {
    const pc = fakeActor({ uuid: "Actor.pc", name: "Aldric", system: sheet({ agi: 4 }) });
    pc.hasPlayerOwner = true;
    pc.flags = { fracas: { worldwalker: { dex_mod: 3 } } };
    const orc = fakeActor({ uuid: "Actor.orc", name: "Orc", system: sheet({ agi: 2 }) });
    orc.flags = { fracas: { worldwalker: { dex_mod: 1 } } };
    const dead = fakeActor({ uuid: "Actor.dead", name: "Fallen", system: sheet({}) });
    const vtt = fakeVtt({ tokens: [view("pc", "Aldric", pc), view("orc", "Orc", orc)] });
    vtt.combatState = { id: "c1", round: 2, current: "c-orc", combatants: [
      { id: "c-pc", name: "Aldric", defeated: false, hidden: false, view: view("pc", "Aldric", pc) },
      { id: "c-orc", name: "Orc", defeated: false, hidden: true, view: view("orc", "Orc", orc) },
      { id: "c-dead", name: "Fallen", defeated: true, hidden: false, view: view("dead", "Fallen", dead) },
    ] };
    const conn = fakeConnection(answer);
    const api = createActions({ vtt, connection: () => conn, newId: () => "i1", log: (e) => { throw e; } });
    return { api, vtt, conn };
  }

  test("old-school sides: the party and its opponents, the first group higher; nobody named on the card", async () => {
    const { api, vtt, conn } = combatSetup(() => ({ ruleset: "old-school", seed: 3, injected: false, ties: "reroll",
      sides: [{ id: "party", roll: 3, tiebreaks: [], wait: false }, { id: "opponents", roll: 5, tiebreaks: [], wait: false }],
      order: [["opponents"], ["party"]] }));
    const out = await api.initiative({ ruleset: "old-school", seed: 3 });
    assert.deepEqual(conn.calls[0].params, { ruleset: "old-school", sides: [{ id: "party" }, { id: "opponents" }], ties: "reroll", seed: 3 });
    assert.deepEqual(out.values, [{ id: "c-pc", value: 1 }, { id: "c-orc", value: 2 }]);
    assert.deepEqual(vtt.initiativeOptions, { keepTurnOf: "c-orc" });
    assert.match(vtt.messages[0].content, /opponents, then party/);
    assert.ok(!vtt.messages[0].content.includes("Orc"), "a hidden combatant is not named");
    assert.deepEqual(vtt.messages[0].rolls[0].groups.map((g) => [g.flavor, g.faces, g.results.map((r) => r.result)]),
      [["party", 6, [3]], ["opponents", 6, [5]]], "each side's d6 as a real roll");
  });

  test("Cartyrion: the round from the combat, the side that acts first", async () => {
    const { api, conn, vtt } = combatSetup(() => ({ ruleset: "cartyrion", seed: 3, injected: false, round: 2, ambush: "none",
      roll: 5, first: "party", surprised: null }));
    const out = await api.initiative({ ruleset: "cartyrion" });
    assert.deepEqual(vtt.messages[0].rolls[0].groups[0].results.map((r) => r.result), [5], "CT-1's d6 as a real roll");
    assert.deepEqual(conn.calls[0].params, { ruleset: "cartyrion", round: 2, ambush: "none" });
    assert.deepEqual(out.values, [{ id: "c-pc", value: 2 }, { id: "c-orc", value: 1 }]);
  });

  test("Worldwalker: d20 + Dexterity modifier from the actor flag, defeated combatants left out", async () => {
    const { api, conn, vtt } = combatSetup(() => ({ ruleset: "worldwalker", seed: 1, injected: false, order: [
      { id: "c-pc", roll: 10, modifier: 3, total: 13, dex_mod: 3, tiebreaks: [] },
      { id: "c-orc", roll: 4, modifier: 1, total: 5, dex_mod: 1, tiebreaks: [] }] }));
    await api.initiative({ ruleset: "worldwalker" });
    assert.deepEqual(conn.calls[0].params, { ruleset: "worldwalker", combatants: [{ id: "c-pc", dex_mod: 3 }, { id: "c-orc", dex_mod: 1 }] });
    // WW-1: "roll a d20 and add your Dexterity modifier": each combatant's d20 as a real roll on the card.
    assert.deepEqual(vtt.messages[0].rolls[0].groups.map((g) => [g.faces, g.results.map((r) => r.result)]),
      [[20, [10, 4]]]);
  });

  test("WW-1: a combatant without its Dexterity modifier flag is refused naming the flag's path; nothing is sent", async () => {
    const { api, conn, vtt } = combatSetup(() => ({}));
    delete vtt.combatState.combatants[1].view.actor.flags.fracas.worldwalker.dex_mod;
    assert.equal(await api.initiative({ ruleset: "worldwalker" }), null);
    assert.equal(vtt.notes.at(-1).text, "fracas: Orc: no dex_mod in flags.fracas.worldwalker.dex_mod (WW-1)");
    assert.equal(conn.calls.length, 0);
  });
});
