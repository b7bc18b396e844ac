import "./english.js";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import { LIMITS, createActions, displayNames, explainPath } from "../scripts/actions.js";
import { BridgeError } from "../scripts/errors.js";
import { fakeActor, fakeConnection, fakeVtt, sheet, view } from "./fakes.js";

const path = "system.health.value";
const sword = { method: "melee", style: "slashing", dice: 2, weight: 1, damage_type: "edged" };

/** An engine-shaped result dealing `damage` per target id. */
function attackResult(damage, seed = 42) {
  const ids = Object.keys(damage);
  return {
    ruleset: "enchanted-realms", seed, backend: "compiled", injected: false,
    strikes: ids.map((id) => ({
      target: id, method: "melee", style: "slashing", damage_type: "edged", advantage: false, disadvantage: false,
      sneak: false, to_hit: 4, ac: 12, crit_range: 20,
      dice: [{ face: 12, total: 16, hit: damage[id] > 0, source: "skill" }, { face: 3, total: 7, hit: false, source: "skill" }],
      discarded: null, crit_chain: [], hits: damage[id] > 0 ? 1 : 0, crit: false, base: damage[id], modifier: null,
      resistance: "normal", damage: damage[id], undodgeable: 0,
    })),
    targets: Object.fromEntries(ids.map((id) => [id, { damage: damage[id], by_type: { edged: damage[id] }, undodgeable: 0, shock_save_dc: null, shock_save: null }])),
    total_damage: ids.reduce((n, id) => n + damage[id], 0),
  };
}

function scene() {
  const heroActor = fakeActor({ uuid: "Actor.hero", name: "Aldric", system: sheet({ str: 4 }) });
  const gobActor = fakeActor({ uuid: "Scene.s.Token.g1.Actor.gob", name: "Goblin", system: sheet({ ac: 12, hp: 7 }) });
  const gob2Actor = fakeActor({ uuid: "Scene.s.Token.g2.Actor.gob", name: "Goblin", system: sheet({ ac: 12, hp: 4 }) });
  const tokens = [view("hero", "Aldric", heroActor), view("g1", "Goblin", gobActor), view("g2", "Goblin", gob2Actor)];
  return { heroActor, gobActor, gob2Actor, tokens };
}

function setup({ answer, controlled = ["hero"], targeted = ["g1", "g2"], settings, isGM = true } = {}) {
  const s = scene();
  const vtt = fakeVtt({ tokens: s.tokens, controlled, targeted, settings, isGM });
  const conn = fakeConnection(answer ?? (() => attackResult({ g1: 5, g2: 6 })));
  let n = 0;
  const logged = [];
  const api = createActions({ vtt, connection: () => conn, newId: () => `id-${++n}`, log: (e) => logged.push(e) });
  return { ...s, vtt, conn, api, logged };
}

const strikesAtBoth = [{ ...sword, target: "g1" }, { ...sword, target: "g2" }];

describe("api.attack", () => {
  test("resolves, applies damage, posts a card with rolls and undo flags", async () => {
    const { api, vtt, conn, gobActor, gob2Actor } = setup();
    const out = await api.attack({ strikes: strikesAtBoth, seed: 42 });
    assert.equal(conn.calls.length, 1);
    assert.equal(conn.calls[0].method, "attack.resolve");
    assert.equal(conn.calls[0].id, "id-1");
    assert.deepEqual(Object.keys(conn.calls[0].params.targets), ["g1", "g2"]);
    assert.equal(conn.calls[0].params.seed, 42);
    assert.equal(gobActor.system.health.value, 2);
    assert.equal(gob2Actor.system.health.value, 0);
    const [message] = vtt.messages;
    assert.equal(out.messageId, message.id);
    // A public card's flags say who took how much; the Body values are in a GM-only ledger.
    assert.deepEqual(message.flags.fracas.changes, [
      { uuid: gobActor.uuid, name: "Goblin", damage: 5, targets: ["g1"] },
      { uuid: gob2Actor.uuid, name: "Goblin", damage: 6, targets: ["g2"] },
    ]);
    assert.deepEqual(vtt.ledger(message.flags.fracas.ledger), [
      { uuid: gobActor.uuid, name: "Goblin", path, before: 7, damage: 5, after: 2, targets: ["g1"] },
      { uuid: gob2Actor.uuid, name: "Goblin", path, before: 4, damage: 6, after: 0, targets: ["g2"] },
    ]);
    assert.ok(!JSON.stringify(message.flags).includes('"before"'), "no Body value in public flags");
    assert.equal(message.flags.fracas.requestId, "id-1");
    assert.equal(message.flags.fracas.seed, "42");
    assert.equal(message.rolls.length, 2, "one roll per strike");
    assert.match(message.content, /Goblin #1.*Goblin #2/s, "same-named targets are numbered");
    assert.equal(message.whisperToGM, false);
    assert.equal(message.speaker.id, "hero");
    assert.deepEqual(vtt.notes, []);
  });

  test("a bridge error is one notification naming the problem; nothing is applied or posted", async () => {
    const { api, vtt, gobActor } = setup({
      answer: () => {
        throw new BridgeError("attack.resolve", { code: -32602, message: "$.strikes[0].dice: 6 skill dice, the most is 5 (ER-3)", data: { path: "$.strikes[0].dice" } });
      },
    });
    assert.equal(await api.attack({ strikes: [{ ...sword, dice: 6, target: "g1" }] }), null);
    assert.deepEqual(vtt.notes, [{ level: "warn", text: "fracas: attack.resolve failed: a value of the request is wrong: $.strikes[0].dice: 6 skill dice, the most is 5 (ER-3) (code -32602)" }]);
    assert.deepEqual(gobActor.updates, []);
    assert.deepEqual(vtt.messages, []);
  });

  test("bad input is caught before anything is sent", async () => {
    const { api, vtt, conn } = setup({ controlled: [] });
    assert.equal(await api.attack({ strikes: strikesAtBoth }), null);
    assert.deepEqual(vtt.notes.map((n) => n.text), ["fracas: select exactly one attacking token (0 are selected)"]);
    assert.equal(conn.calls.length, 0);
    assert.equal(await api.attack({ attacker: "hero", strikes: strikesAtBoth, seed: -1 }), null);
    assert.match(vtt.notes[1].text, /seed -1 is not a whole number from 0 to 2\^64/);
    assert.equal(await api.attack({ attacker: "nobody", strikes: strikesAtBoth }), null);
    assert.match(vtt.notes[2].text, /attacker: "nobody" is not a token on this scene/);
    assert.equal(conn.calls.length, 0);
  });

  test("a player's attack goes to the GM's client as a choice of the token's own attacks, never as numbers", async () => {
    const { api, vtt, conn } = setup({ isGM: false });
    await api.attack({ item: "Longsword" });
    assert.match(vtt.notes[0].text, /you can attack only with a token you own/);
    vtt.owned.add("hero");
    await api.attack({ item: "Longsword", seed: 4 });
    assert.match(vtt.notes[1].text, /only the GM chooses the dice/);
    await api.attack({ strikes: strikesAtBoth });
    assert.match(vtt.notes[2].text, /has not allowed free-form player attacks: .* instead of giving strikes$/);
    await api.attack({});
    assert.match(vtt.notes[3].text, /Aldric: choose one of this token's own attacks/);
    vtt.gmAnswers = (action, data) => ({ requestId: "r1", messageId: "m1", total_damage: 11, echo: data });
    const out = await api.attack({ item: "Longsword" });
    assert.deepEqual(vtt.asked.at(-1), { action: "attack", data: { attacker: "hero", targets: ["g1", "g2"], item: "Longsword" } });
    assert.equal(out.total_damage, 11);
    vtt.settings.playerFreeForm = true;
    await api.attack({ strikes: strikesAtBoth, advantage: true });
    assert.deepEqual(vtt.asked.at(-1).data, { attacker: "hero", targets: ["g1", "g2"], strikes: strikesAtBoth, advantage: true });
    assert.equal(conn.calls.length, 0, "a player's client never calls the bridge");
  });

  test("a refusal from the GM's client is shown in the player's own language (its key), else as sent", async () => {
    const { api, vtt } = setup({ isGM: false });
    vtt.owned.add("hero");
    const de = JSON.parse(readFileSync(new URL("../lang/de.json", import.meta.url), "utf8"));
    // The GM's client writes English; the player reads German.
    vtt.gmAnswers = () => ({ error: "too many requests: at most 5 in 10 s; wait a moment and try again",
      i18n: { key: "FRACAS.Player.TooFast", data: { count: 5, seconds: 10 } } });
    globalThis.game = { i18n: { has: (k) => k in de, localize: (k) => de[k] } };
    try {
      assert.equal(await api.attack({ item: "Longsword" }), null);
      assert.equal(vtt.notes.at(-1).text, "fracas: zu viele Anfragen: höchstens 5 in 10 s; warte kurz und versuche es erneut");
      // Only the module's player messages, with plain values, are taken as keys.
      vtt.gmAnswers = () => ({ error: "as sent", i18n: { key: "FRACAS.Settings.bridgeUrl.Name", data: {} } });
      await api.attack({ item: "Longsword" });
      assert.equal(vtt.notes.at(-1).text, "fracas: as sent");
      vtt.gmAnswers = () => ({ error: "as sent too", i18n: { key: "FRACAS.Player.TooFast", data: { count: { x: 1 } } } });
      await api.attack({ item: "Longsword" });
      assert.equal(vtt.notes.at(-1).text, "fracas: as sent too");
    } finally {
      delete globalThis.game;
    }
  });

  test("no connection on this client: a clear message", async () => {
    const { vtt, tokens } = setup();
    const api = createActions({ vtt, connection: () => null, newId: () => "x" });
    await api.attack({ strikes: strikesAtBoth });
    assert.match(vtt.notes[0].text, /this browser does not hold the bridge connection/);
    assert.ok(tokens.length);
  });

  test("a failing actor update leaves every actor as it was and posts nothing", async () => {
    const { api, vtt, gobActor, gob2Actor } = setup();
    gob2Actor.failNext = new Error("the server said no");
    assert.equal(await api.attack({ strikes: strikesAtBoth }), null);
    assert.equal(gobActor.system.health.value, 7);
    assert.equal(gob2Actor.system.health.value, 4);
    assert.deepEqual(vtt.messages, []);
    assert.match(vtt.notes[0].text, /updating Goblin failed \(the server said no\); nothing was changed/);
  });

  test("if the card cannot be posted the damage is taken back", async () => {
    const { api, vtt, gobActor } = setup();
    vtt.postFails = new Error("chat is read-only");
    assert.equal(await api.attack({ strikes: strikesAtBoth }), null);
    assert.equal(gobActor.system.health.value, 7);
    assert.match(vtt.notes[0].text, /posting the chat card failed \(chat is read-only\); the damage was taken back/);
  });

  test("applyDamage off: the card reports, nothing changes, no Undo", async () => {
    const { api, vtt, gobActor } = setup({ settings: { applyDamage: false, chatVisibility: "gm" } });
    await api.attack({ strikes: strikesAtBoth });
    assert.equal(gobActor.system.health.value, 7);
    assert.deepEqual(vtt.messages[0].flags.fracas.changes, []);
    assert.doesNotMatch(vtt.messages[0].content, /data-fracas-action="undo"/);
    // "Results in chat: GM" makes the GM's public roll a private GM roll (audience.js); main.js whispers it.
    assert.deepEqual([vtt.messages[0].rollMode, vtt.messages[0].requester], ["gmroll", null]);
  });

  test("an unexpected exception is reported and logged, never thrown", async () => {
    const { api, vtt, logged } = setup({ answer: () => ({ nonsense: true }) });
    assert.equal(await api.attack({ strikes: strikesAtBoth }), null);
    assert.equal(vtt.notes[0].level, "error");
    assert.match(vtt.notes[0].text, /^fracas: unexpected error: /);
    assert.equal(logged.length, 1);
  });
});

describe("api.undo", () => {
  test("restores the exact previous values and marks the card undone; a second undo is refused", async () => {
    const { api, vtt, gobActor, gob2Actor } = setup();
    const { messageId } = await api.attack({ strikes: strikesAtBoth });
    const out = await api.undo(messageId);
    assert.deepEqual(out.restored.map((r) => r.value), [7, 4]);
    assert.equal(gobActor.system.health.value, 7);
    assert.equal(gob2Actor.system.health.value, 4);
    assert.ok(vtt.messages[0].flags.fracas.undone.at);
    assert.match(vtt.notes.at(-1).text, /damage undone \(Goblin back to 7, Goblin back to 4\)/);
    assert.equal(await api.undo(messageId), null);
    assert.match(vtt.notes.at(-1).text, /this damage was already undone/);
  });

  test("undo gives back what the card took, by delta: damage or healing that landed since is kept", async () => {
    const { api, vtt, gobActor } = setup();
    const { messageId } = await api.attack({ strikes: strikesAtBoth });
    assert.equal(gobActor.system.health.value, 2, "7 - 5");
    await gobActor.update({ [path]: 1 }); // another blow landed after the card
    await api.undo(messageId);
    assert.equal(gobActor.system.health.value, 6, "1 + the 5 the card took, not the 7 from before the attack");
    assert.match(vtt.notes.at(-1).text, /damage undone \(Goblin back to 6, Goblin back to 4\)/);
  });

  test("a maximum caps the undo and the GM is told exactly how much could not be given back", async () => {
    const { api, vtt, gobActor } = setup();
    const { messageId } = await api.attack({ strikes: strikesAtBoth });
    await gobActor.update({ [path]: 8 }); // healed to 8 of 10 after taking 5
    const out = await api.undo(messageId);
    assert.equal(gobActor.system.health.value, 10);
    assert.deepEqual(out.failed, ["Goblin: 3 of the 5 Body it took would go above its maximum, so only the rest was given back"]);
    assert.match(vtt.notes.at(-1).text, /^fracas: could not restore: Goblin: 3 of the 5 Body/);
  });

  test("a deleted actor: the others are restored, the gone one is named and stays on the card", async () => {
    const { api, vtt, gobActor, gob2Actor } = setup();
    const { messageId } = await api.attack({ strikes: strikesAtBoth });
    vtt.forgetDocument(gob2Actor.uuid);
    const out = await api.undo(messageId);
    assert.equal(gobActor.system.health.value, 7);
    assert.deepEqual(out.failed, ["Goblin: the actor is gone, so its damage stays undone on the card"]);
    assert.equal(vtt.messages[0].flags.fracas.undone, null);
    assert.deepEqual(vtt.messages[0].flags.fracas.changes.map((c) => c.uuid), [gob2Actor.uuid]);
    assert.equal(vtt.notes.at(-2).text, "fracas: damage undone (Goblin back to 7)");
  });
});

describe("one ordered damage queue per actor", () => {
  test("five concurrent attacks of 6 on 200 Body leave 170; five undos at once give back all 30", async () => {
    const { api, vtt, gobActor } = setup({ answer: () => attackResult({ g1: 6 }), targeted: ["g1"] });
    await gobActor.update({ [path]: 200, "system.health.max": 200 });
    // Each actor update takes a turn of the event loop, as a server round trip does.
    const update = gobActor.update;
    gobActor.update = async (data) => {
      await new Promise((r) => setTimeout(r, 1));
      return update(data);
    };
    const outs = await Promise.all([1, 2, 3, 4, 5].map(() => api.attack({ strikes: [{ ...sword, target: "g1" }] })));
    assert.equal(gobActor.system.health.value, 170);
    assert.deepEqual(outs.map((o) => [o.changes[0].before, o.changes[0].after]).sort((a, b) => b[0] - a[0]),
      [[200, 194], [194, 188], [188, 182], [182, 176], [176, 170]], "each measured when its turn came");
    await Promise.all(outs.map((o) => api.undo(o.messageId)));
    assert.equal(gobActor.system.health.value, 200);
    assert.equal(vtt.notes.filter((n) => n.level !== "info").length, 0, JSON.stringify(vtt.notes));
  });

  test("two quick presses of Undo give the damage back once", async () => {
    const { api, vtt, gobActor } = setup({ answer: () => attackResult({ g1: 5 }), targeted: ["g1"] });
    const { messageId } = await api.attack({ strikes: [{ ...sword, target: "g1" }] });
    await Promise.all([api.undo(messageId), api.undo(messageId)]);
    assert.equal(gobActor.system.health.value, 7);
    assert.ok(vtt.notes.some((n) => /being changed already/.test(n.text)), JSON.stringify(vtt.notes));
  });
});

describe("api.initiative", () => {
  test("rolls for the combat's combatants and sets tracker values in the engine's order", async () => {
    const { vtt, tokens } = setup();
    vtt.combatState = { id: "c", combatants: [{ id: "cA", name: "Aldric", view: tokens[0] }, { id: "cG", name: "Goblin", view: tokens[1] }] };
    const conn = fakeConnection((method, params) => ({
      seed: 3, injected: false,
      order: [{ id: "cG", roll: 8, modifier: 0, total: 8, tiebreaks: [17] }, { id: "cA", roll: 7, modifier: 1, total: 8, tiebreaks: [2] }],
      echo: params,
    }));
    const api = createActions({ vtt, connection: () => conn, newId: () => "ini-1" });
    const out = await api.initiative({ seed: 3 });
    assert.equal(conn.calls[0].method, "initiative.roll");
    assert.deepEqual(conn.calls[0].params, { combatants: [{ id: "cA", agility: 2 }, { id: "cG", agility: 2 }], seed: 3 });
    assert.deepEqual(vtt.initiativeUpdates, [[{ id: "cG", value: 8.1 }, { id: "cA", value: 8 }]]);
    assert.equal(out.messageId, "msg1");
    assert.equal(vtt.messages[0].rolls.length, 1);
  });

  test("ER-18 through the tracker: defeated combatants roll nothing, the current turn is kept, hidden ones are named to the GM only", async () => {
    const { vtt, tokens } = setup();
    vtt.combatState = {
      id: "c", current: "cA",
      combatants: [
        { id: "cA", name: "Aldric", view: tokens[0] },
        { id: "cG", name: "Goblin", view: tokens[1] },
        { id: "cL", name: "Lurking Lich", view: tokens[1], hidden: true },
        { id: "cD", name: "Dead Orc", view: tokens[1], defeated: true },
      ],
    };
    const conn = fakeConnection(() => ({
      seed: 3, injected: false,
      order: [{ id: "cL", roll: 9, modifier: 0, total: 9, tiebreaks: [] }, { id: "cG", roll: 8, modifier: 0, total: 8, tiebreaks: [] },
        { id: "cA", roll: 2, modifier: 1, total: 3, tiebreaks: [] }],
    }));
    const api = createActions({ vtt, connection: () => conn, newId: () => "ini-2" });
    await api.initiative({ seed: 3 });
    assert.deepEqual(conn.calls[0].params.combatants.map((c) => c.id), ["cA", "cG", "cL"]);
    assert.deepEqual(vtt.initiativeUpdates[0].map((v) => v.id), ["cL", "cG", "cA"]);
    assert.deepEqual(vtt.initiativeOptions, { keepTurnOf: "cA" });
    const [gm, everyone] = vtt.messages;
    assert.equal(gm.whisperToGM, true);
    assert.match(gm.content, /Lurking Lich/);
    assert.equal(everyone.whisperToGM, false);
    assert.doesNotMatch(everyone.content, /Lurking Lich|Dead Orc/);
    assert.match(everyone.content, /Goblin/);
    assert.equal(everyone.rolls[0].groups[0].results.length, 2, "the public card shows the visible combatants' dice only");
  });

  test("a roll-off is shown to the players only when someone they can see tied (a tie with a hidden one alone is not)", async () => {
    const { vtt, tokens } = setup();
    vtt.combatState = { id: "c", current: null, combatants: [
      { id: "cA", name: "Aldric", view: tokens[0] }, { id: "cL", name: "Lich", view: tokens[1], hidden: true },
      { id: "cG", name: "Goblin", view: tokens[1] }, { id: "cH", name: "Hob", view: tokens[2] }] };
    const conn = fakeConnection(() => ({ seed: 3, injected: false, order: [
      { id: "cL", roll: 9, modifier: 0, total: 9, tiebreaks: [15] }, { id: "cA", roll: 9, modifier: 0, total: 9, tiebreaks: [4] },
      { id: "cG", roll: 5, modifier: 0, total: 5, tiebreaks: [12] }, { id: "cH", roll: 5, modifier: 0, total: 5, tiebreaks: [3] }] }));
    const api = createActions({ vtt, connection: () => conn, newId: () => "ini-3" });
    await api.initiative({});
    const [gm, everyone] = vtt.messages;
    assert.match(gm.content, /roll-off/);
    const row = (id) => everyone.content.split('data-combatant="').find((x) => x.startsWith(id)) ?? "";
    assert.doesNotMatch(row("cA"), /roll-off/, "Aldric tied only with the hidden Lich");
    assert.match(row("cG"), /roll-off/, "Goblin and Hob tied, both visible");
  });

  test("every combatant defeated: nothing is rolled, and the GM is told why", async () => {
    const { vtt, tokens } = setup();
    vtt.combatState = { id: "c", combatants: [{ id: "cD", name: "Dead Orc", view: tokens[1], defeated: true }] };
    const conn = fakeConnection(() => ({}));
    const api = createActions({ vtt, connection: () => conn, newId: () => "ini-3" });
    await api.initiative({ seed: 3 });
    assert.equal(conn.calls.length, 0);
    assert.match(vtt.notes[0].text, /every combatant is defeated/);
  });

  test("without a combat: say how to start one", async () => {
    const { api, vtt } = setup();
    await api.initiative();
    assert.match(vtt.notes[0].text, /no active combat encounter: start one in the combat tracker/);
  });
});

describe("api.mob", () => {
  test("bulk request, per-target totals applied, compact card with undo", async () => {
    const { vtt, gobActor, gob2Actor, tokens } = setup();
    const conn = fakeConnection((method, params) => ({
      seed: 11, backend: "compiled", detail: "summary", attacks_total: 2, total_damage: 9,
      targets: {
        g1: { damage: 4, by_type: { edged: 4 }, attacks: 1, attacks_hit: 1, crits: 0, longest_chain: 0, undodgeable: 0 },
        g2: { damage: 5, by_type: { edged: 5 }, attacks: 1, attacks_hit: 1, crits: 1, longest_chain: 1, undodgeable: 1 },
      },
      groups: params.attacks.map((a) => ({ ...a, attacks_hit: 1, hit_rate: 1, damage: 4, mean_damage: 4, crits: 0, histogram: [0, 1] })),
    }));
    const api = createActions({ vtt, connection: () => conn, newId: () => "mob-1" });
    const out = await api.mob({ strikes: [sword], attackers: ["hero"], assign: "each" });
    assert.equal(conn.calls[0].method, "attack.bulk");
    assert.equal(conn.calls[0].params.detail, "dice");
    assert.equal(gobActor.system.health.value, 3);
    assert.equal(gob2Actor.system.health.value, 0);
    // A summary answer (the bridge's choice): no dice, and the card says so.
    assert.equal(vtt.messages[0].rolls.length, 0);
    assert.match(vtt.messages[0].content, /no dice on this card: 2 attacks/);
    assert.match(vtt.messages[0].content, /Mob attack: 2 attacks/);
    await api.undo(out.messageId);
    assert.equal(gob2Actor.system.health.value, 4);
    assert.ok(tokens);
  });

  test("a mob of another ruleset: its strikes and fields, the same totals applied", async () => {
    const { vtt, gobActor } = setup();
    const conn = fakeConnection((method, params) => ({
      ruleset: "cartyrion", seed: 3, backend: "compiled", detail: "summary", attacks_total: 1, total_damage: 6,
      targets: { g1: { damage: 6, attacks: 1, attacks_hit: 1, strikes: 1, strikes_hit: 1, stamina: 6, injury: 0 } },
      groups: params.attacks.map((a) => ({ ...a, attacks_hit: 1, hit_rate: 1, damage: 6, mean_damage: 6, exploded: 0, histogram: [] })),
    }));
    const api = createActions({ vtt, connection: () => conn, newId: () => "mob-2" });
    const before = gobActor.system.health.value;
    await api.mob({ ruleset: "cartyrion", strikes: [{ method: "melee", die: "d6" }], attackerData: { level: 3, bonus: 1 },
      targetData: { armor: 1 }, attackers: ["hero"], targets: ["g1"] });
    const { params } = conn.calls[0];
    assert.equal(params.ruleset, "cartyrion");
    assert.deepEqual(Object.values(params.profiles)[0], { attacker: { level: 3, bonus: 1 }, strikes: [{ method: "melee", die: "d6" }] });
    assert.deepEqual(params.targets, { g1: { armor: 1 } });
    assert.equal(gobActor.system.health.value, Math.max(0, before - 6));
  });
});

describe("api.mob and defeated tokens", () => {
  test("defeated tokens are left out and named on the card; each target gets its own Undo slot and flag", async () => {
    const { vtt, tokens } = setup();
    const skel = (id, statuses = []) => view(id, "Skeleton", fakeActor({ uuid: `Scene.s.Token.${id}.Actor.sk`, name: "Skeleton", system: sheet({ hp: 5 }), statuses,
      flags: { fracas: { strikes: [sword] } } }));
    const mobTokens = [skel("s1"), skel("s2", ["dead"]), skel("s3")];
    const all = [...tokens, ...mobTokens];
    const v = fakeVtt({ tokens: all, controlled: ["s1", "s2", "s3"], targeted: ["g1"] });
    const conn = fakeConnection((method, params) => ({ seed: 1, total_damage: 4, attacks_total: params.attacks.reduce((n, a) => n + a.count, 0),
      groups: params.attacks.map((a) => ({ ...a, attacks_hit: 1, hit_rate: 0.5, damage: 4 })),
      targets: { g1: { damage: 4, attacks: 2, attacks_hit: 1, crits: 0 } } }));
    const api = createActions({ vtt: v, connection: () => conn, newId: () => "mob-1" });
    const out = await api.mob({});
    assert.ok(out, JSON.stringify(v.notes));
    assert.deepEqual(conn.calls[0].params.attacks.map((a) => a.count), [2], "two standing skeletons, not three");
    const card = v.messages[0];
    assert.match(card.content, /left out \(defeated\): Skeleton/);
    assert.deepEqual(card.flags.fracas.targets.map((x) => [x.id, x.damage]), [["g1", 4]]);
    assert.match(card.content, /fracas-target-actions" data-target="g1"/);
    await api.undoTarget(out.messageId, "g1");
    assert.equal(tokens[1].actor.system.health.value, 7);
    v.controlled = () => [mobTokens[1]];
    assert.equal(await api.mob({}), null);
    assert.match(v.notes.at(-1).text, /every selected token is defeated \(Skeleton\): nobody attacks/);
    assert.equal(vtt.messages.length, 0);
  });
});

describe("the attack dialog", () => {
  test("one strike per target with the dialog's weapon; values remembered", async () => {
    const { api, vtt, conn } = setup();
    vtt.formAnswer = { method: "melee", style: "cleaving", dice: "3", weight: "2", damage_type: "edged", bonus: "1", crit_range: "19", mode: "advantage", sneak: "no", rolls: "" };
    await api.attackDialog();
    const { params } = conn.calls[0];
    assert.deepEqual(params.strikes, [
      { target: "g1", method: "melee", style: "cleaving", dice: 3, damage_type: "edged", weight: 2, bonus: 1, crit_range: 19 },
      { target: "g2", method: "melee", style: "cleaving", dice: 3, damage_type: "edged", weight: 2, bonus: 1, crit_range: 19 },
    ]);
    assert.equal(params.advantage, true);
    assert.equal(vtt.settings.lastStrike.style, "cleaving");
  });

  test("'show the odds only' asks attack.odds with each target's Body, and rolls nothing", async () => {
    const odds = { ruleset: "enchanted-realms", count: 1, targets: {
      g1: { mean: 2, sd: 1, p_hit: 0.5, p_crit: 0.1, p_at_least: {}, p_drop: 0.01, remaining: 12, distribution: [] },
      g2: { mean: 2, sd: 1, p_hit: 0.5, p_crit: 0.1, p_at_least: {}, distribution: [] } }, total: {}, cut: 0 };
    const { api, vtt, conn } = setup({ answer: () => odds });
    vtt.formAnswer = { method: "melee", style: "slashing", dice: "2", weight: "1", damage_type: "edged", bonus: "0", crit_range: "20", mode: "normal", sneak: "no", rolls: "", action: "odds" };
    const r = await api.attackDialog();
    assert.equal(conn.calls.length, 1);
    assert.equal(conn.calls[0].method, "attack.odds");
    assert.ok(conn.calls[0].params.remaining && typeof conn.calls[0].params.remaining === "object");
    assert.equal(r.result, odds);
    assert.match(vtt.messages.at(-1).content, /Odds: .*P\(hit\) 50%.*P\(drops, 12 left\) 1%/s);
    assert.equal(vtt.messages.at(-1).whisperToGM, true);
  });

  test("physical dice typed in the dialog are sent as injected faces", async () => {
    const { api, vtt, conn } = setup({ targeted: ["g1"] });
    vtt.formAnswer = { method: "melee", style: "slashing", dice: "2", weight: "1", damage_type: "edged", bonus: "0", crit_range: "20", mode: "normal", sneak: "no", rolls: "12, 7" };
    await api.attackDialog();
    assert.deepEqual(conn.calls[0].params.rolls, [12, 7]);
  });

  test("the mob dialog names its attackers in no language's words (the first four, then a count)", async () => {
    const { api, vtt } = setup({ controlled: ["hero", "g1", "g2"], targeted: ["hero"] });
    vtt.formAnswer = null;
    assert.equal(await api.mobDialog(), null);
    assert.match(vtt.formHtml, /Aldric, Goblin, Goblin/);
    assert.doesNotMatch(vtt.formHtml, /\d+ tokens/);
  });

  test("a cancelled dialog sends nothing; a bad field is named", async () => {
    const { api, vtt, conn } = setup();
    vtt.formAnswer = null;
    assert.equal(await api.attackDialog(), null);
    assert.equal(conn.calls.length, 0);
    assert.deepEqual(vtt.notes, []);
    vtt.formAnswer = { method: "melee", style: "slashing", dice: "two", weight: "1", damage_type: "edged", bonus: "0", crit_range: "20", mode: "normal", sneak: "no" };
    await api.attackDialog();
    assert.match(vtt.notes[0].text, /skill dice: "two" is not a whole number/);
  });
});

test("displayNames numbers repeated names only", () => {
  assert.deepEqual(displayNames([{ id: "a", name: "Rat" }, { id: "b", name: "Ogre" }, { id: "c", name: "Rat" }]), { a: "Rat #1", b: "Ogre", c: "Rat #2" });
});

test("bridge error paths are told in the GM's words", async () => {
  const ctx = { strikes: [{ target: "g1" }, { target: "0ab" }], names: { g1: "Goblin #1", "0ab": "Ogre" }, attackerName: "Aldric", profileNames: { skel: "Skeleton" } };
  assert.equal(explainPath("$.params.strikes[1].dice", ctx), "strike 2, at Ogre");
  assert.equal(explainPath("$.params.targets.g1.ac", ctx), "target Goblin #1");
  assert.equal(explainPath("$.params.targets['0ab'].resistant[0]", ctx), "target Ogre");
  assert.equal(explainPath("$.params.attacker.conditions", ctx), "attacker Aldric");
  assert.equal(explainPath("$.params.profiles.skel.strikes[0]", ctx), "attackers Skeleton");
  assert.equal(explainPath("$.params.seed", ctx), "");
  assert.equal(explainPath(null, ctx), "");

  const { api, vtt } = setup({
    answer: () => {
      throw new BridgeError("attack.resolve", { code: -32001, message: "$.params.attacker.conditions: a stunned attacker cannot attack (ER-14)", data: { path: "$.params.attacker.conditions" } });
    },
  });
  await api.attack({ strikes: strikesAtBoth });
  assert.equal(vtt.notes[0].text, "fracas: attack.resolve failed: the rules forbid this: $.params.attacker.conditions: a stunned attacker cannot attack (ER-14) (code -32001) [attacker Aldric]");
});

describe("requests from other clients, answered by the holding GM client", () => {
  const longsword = { method: "melee", style: "slashing", dice: 2, weight: 1, damage_type: "edged" };
  let clock = 0;
  function gmSide(settings = {}) {
    const ctx = setup({ settings });
    ctx.heroActor.items = [{ id: "itSword", name: "Longsword", flags: { fracas: { strikes: [longsword] } } }];
    ctx.heroActor.flags = { fracas: { strikes: [{ method: "melee", style: "bludgeoning", dice: 1, damage_type: "blunt" }] } };
    ctx.vtt.ownersOf = { hero: ["player1"] };
    ctx.vtt.userIsGM = (id) => id === "assistant";
    clock = 0;
    let n = 0;
    ctx.api = createActions({ vtt: ctx.vtt, connection: () => ctx.conn, newId: () => `id-${++n}`, now: () => clock });
    return ctx;
  }
  const ask = (data, id = "req-00000001", action = "attack") => ({ type: "ask", id, action, data, to: "gm" });
  const sword2 = (id) => ask({ attacker: "hero", targets: ["g2"], item: "itSword" }, id);

  test("a token the sender does not own is refused before anything is sent", async () => {
    const { api, conn } = gmSide();
    const refused = await api.answerRequest(ask({ attacker: "hero", targets: ["g1"], item: "itSword" }), "player2");
    assert.match(refused.error, /only with a token you own/);
    assert.equal(conn.calls.length, 0);
  });

  test("a refusal from the sheets travels with its key, so the player reads it in their language", async () => {
    const { api } = gmSide();
    const answer = await api.answerRequest(ask({ attacker: "hero", targets: ["g1"], item: "Warhammer" }), "player1");
    assert.equal(answer.i18n.key, "FRACAS.Error.NoWeapon");
    assert.deepEqual(answer.i18n.data, { name: "Aldric", ref: "Warhammer", weapons: "Longsword" });
    assert.equal(answer.error, `Aldric: no single weapon "Warhammer" with fracas strikes (flags.fracas.strikes); weapons with them: Longsword`);
  });

  test("a forged request with numbers the actor does not have is refused; the actor's own attack is what is resolved", async () => {
    const { api, conn, gobActor } = gmSide();
    const forged = { attacker: "hero", targets: ["g1"], ruleset: "cartyrion", attackerData: { level: 20, bonus: 99 },
      strikes: Array.from({ length: 10 }, () => ({ method: "melee", style: "slashing", dice: 5, weight: 2, bonus: 20, crit_range: 2, damage_type: "edged", target: "g1" })) };
    const refused = await api.answerRequest(ask(forged), "player1");
    assert.match(refused.error, /free-form player attacks.*strikes, ruleset, attackerData/);
    assert.equal(conn.calls.length, 0);
    const answer = await api.answerRequest(ask({ attacker: "hero", targets: ["g1"], item: "itSword", seed: 1, rolls: [20] }, "req-00000002"), "player1");
    assert.equal(conn.calls.length, 1);
    const sent = conn.calls[0];
    assert.deepEqual(sent.params.strikes, [{ ...longsword, target: "g1" }], "the item's own strike, nothing the player wrote");
    assert.equal(sent.params.seed, undefined, "a player's seed never reaches the bridge");
    assert.equal(sent.params.rolls, undefined);
    assert.equal(sent.params.ruleset, undefined, "Enchanted Realms, the world's setting");
    assert.equal(sent.id, "player-player1-req-00000002");
    assert.equal(answer.total_damage, 11, "the (fake) engine's total");
    assert.equal(gobActor.system.health.value, 2);
  });

  test("an own strike from the actor's flags by its index; an index it does not have is refused", async () => {
    const { api, conn } = gmSide();
    await api.answerRequest(ask({ attacker: "hero", targets: ["g2"], strike: 0 }), "player1");
    assert.deepEqual(conn.calls[0].params.strikes, [{ method: "melee", style: "bludgeoning", dice: 1, damage_type: "blunt", target: "g2" }]);
    const bad = await api.answerRequest(ask({ attacker: "hero", targets: ["g2"], strike: 3 }, "req-00000009"), "player1");
    assert.match(bad.error, /Aldric has no such attack; its attacks: Longsword, strike 1 \(melee bludgeoning\)/);
  });

  test("the same request id twice is answered once: one roll, one damage, the same answer", async () => {
    const { api, conn, gobActor, vtt } = gmSide();
    const first = await api.answerRequest(ask({ attacker: "hero", targets: ["g1"], item: "itSword" }), "player1");
    const again = await api.answerRequest(ask({ attacker: "hero", targets: ["g1"], item: "itSword" }), "player1");
    assert.deepEqual(again, first);
    assert.equal(conn.calls.length, 1);
    assert.equal(gobActor.system.health.value, 2);
    // A holder that did not answer it (a tab that took over) finds the card and answers from it.
    vtt.findCard = (requestId) => {
      const m = vtt.messages.find((x) => x.flags?.fracas?.requestId === requestId);
      return m ? { id: m.id, total: m.flags.fracas.total ?? null } : null;
    };
    const next = createActions({ vtt, connection: () => conn, newId: () => "z" });
    const resent = await next.answerRequest(ask({ attacker: "hero", targets: ["g1"], item: "itSword" }), "player1");
    assert.deepEqual(resent, { ...first, resent: true });
    assert.equal(conn.calls.length, 1);
    assert.equal(gobActor.system.health.value, 2);
  });

  test("limits are checked before any work: size, targets, rate, each refusal saying which", async () => {
    const { api, conn } = gmSide();
    const big = await api.answerRequest(ask({ attacker: "hero", targets: ["g1"], item: "x".repeat(LIMITS.maxBytes) }), "player1");
    assert.match(big.error, /too large \(\d+ bytes; at most 4096\)/);
    const many = await api.answerRequest(ask({ attacker: "hero", targets: Array.from({ length: 9 }, (_, i) => `t${i}`), item: "itSword" }, "req-00000003"), "player1");
    assert.match(many.error, /too many targets \(9; at most 8/);
    assert.equal(conn.calls.length, 0);
    // A burst of 30: the first five are resolved, the rest refused with the limit, nothing more sent.
    const answers = [];
    for (let i = 0; i < 30; i++) answers.push(await api.answerRequest(sword2(`burst-${String(i).padStart(4, "0")}`), "player1"));
    assert.equal(conn.calls.length, LIMITS.perWindow);
    assert.equal(answers.filter((a) => /too many requests: at most 5 in 10 s/.test(a.error ?? "")).length, 30 - LIMITS.perWindow);
    clock += LIMITS.windowMs;
    const later = await api.answerRequest(sword2("later-0001"), "player1");
    assert.equal(later.error, undefined, "the window has passed");
  });

  test("requests in flight: a third one while two are being resolved is refused", async () => {
    const ctx = gmSide();
    let release;
    const gate = new Promise((r) => { release = r; });
    ctx.conn.call = async () => { await gate; return attackResult({ g2: 1 }); };
    const a = ctx.api.answerRequest(sword2("fly-00000001"), "player1");
    const b = ctx.api.answerRequest(sword2("fly-00000002"), "player1");
    const c = await ctx.api.answerRequest(sword2("fly-00000003"), "player1");
    assert.match(c.error, /2 of your requests are still being resolved/);
    release();
    await Promise.all([a, b]);
  });

  test("free-form player attacks, when the GM allows them: the player's strikes are resolved", async () => {
    const { api, conn } = gmSide({ playerFreeForm: true });
    const answer = await api.answerRequest(ask({ attacker: "hero", targets: ["g1"], strikes: [{ ...sword, target: "g1" }] }), "player1");
    assert.equal(answer.error, undefined, JSON.stringify(answer));
    assert.deepEqual(conn.calls[0].params.strikes, [{ ...sword, target: "g1" }]);
  });

  test("an assistant GM's action is run on the holder like its own; a player may ask only for attacks", async () => {
    const { api, conn, vtt } = gmSide();
    const denied = await api.answerRequest(ask({ messageId: "msg1" }, "undo-0000001", "undo"), "player1");
    assert.match(denied.error, /"undo" cannot be asked of the GM's client by a player/);
    const out = await api.answerRequest(ask({ attacker: "hero", targets: ["g1", "g2"], strikes: strikesAtBoth }, "asst-0000001"), "assistant");
    assert.equal(out.total_damage, 11);
    assert.equal(conn.calls[0].id, "player-assistant-asst-0000001");
    const undone = await api.answerRequest(ask({ messageId: out.messageId }, "asst-0000002", "undo"), "assistant");
    assert.equal(undone.error, undefined, JSON.stringify(undone));
    assert.ok(vtt.messages[0].flags.fracas.undone);
  });

  test("a GM tab that does not hold the bridge sends its actions, with its selection as ids, to the holder", async () => {
    const { api, vtt, conn } = setup();
    vtt.holdsConnection = () => false;
    vtt.gmAnswers = () => ({ requestId: "r", messageId: "m", total_damage: 3 });
    const out = await api.attack({ strikes: strikesAtBoth });
    assert.deepEqual(vtt.asked.at(-1), { action: "attack", data: { strikes: strikesAtBoth, attacker: "hero", targets: ["g1", "g2"] } });
    assert.equal(out.total_damage, 3);
    await api.undo("m7");
    assert.deepEqual(vtt.asked.at(-1), { action: "undo", data: { messageId: "m7" } });
    assert.equal(conn.calls.length, 0);
  });
});
