// Issue 39, items 5 and 6 and the gaps left after items 1-4: players' mobs of their own
// tokens and players' odds (checked on the holding GM client), token name display modes on
// every card players see, hidden participants split out of mob, ruleset-attack and special
// cards, and a GM tab's relayed request posted with that tab's own roll mode.

import "./english.js";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, test } from "node:test";

import { createActions, LIMITS } from "../scripts/actions.js";
import { TOKEN_DISPLAY_MODES, gmOnly, othersSeeName } from "../scripts/audience.js";
import { fakeActor, fakeConnection, fakeVtt, sheet, view } from "./fakes.js";

// The JavaScript resolver (the Roll20 Mod's port of the engine) answers competitions and impalements.
const engine = createRequire(import.meta.url)("../../roll20/src/rulesets.js");

const bite = { method: "melee", style: "slashing", dice: 1, weight: 0, damage_type: "edged" };
const sword = { method: "melee", style: "slashing", dice: 2, weight: 1, damage_type: "edged" };

/** A druid (player1's), two of its summoned wolves (player1's), someone else's wolf, an ogre and a hidden lurker. */
function world({ settings = {}, isGM = true, ogre = {}, lurker = {} } = {}) {
  const druid = fakeActor({ uuid: "Actor.druid", name: "Fern", system: sheet({ str: 2 }), flags: { fracas: { strikes: [sword] } } });
  const wolf = (id) => fakeActor({ uuid: `Scene.s.Token.${id}.Actor.wolf`, name: "Wolf", system: sheet({ str: 4 }), flags: { fracas: { strikes: [bite] } } });
  const ogreActor = fakeActor({ uuid: "Scene.s.Token.o1.Actor.ogre", name: "Ogre Chief", system: sheet({ ac: 12, hp: 30, hpMax: 30 }) });
  const lurkActor = fakeActor({ uuid: "Scene.s.Token.l1.Actor.lurk", name: "Lurker", system: sheet({ ac: 12, hp: 9 }) });
  const tokens = [view("druid", "Fern", druid), view("w1", "Wolf", wolf("w1")), view("w2", "Wolf", wolf("w2")), view("w3", "Wolf", wolf("w3")),
    { ...view("o1", "Ogre Chief", ogreActor), ...ogre }, { ...view("l1", "Lurker", lurkActor), hidden: true, ...lurker }];
  const vtt = fakeVtt({ tokens, controlled: ["w1", "w2"], targeted: ["o1"], settings, isGM });
  vtt.ownersOf = { druid: ["player1"], w1: ["player1"], w2: ["player1"], w3: ["player2"] };
  vtt.userIsGM = (id) => id === "assistant";
  return { vtt, ogreActor, lurkActor, tokens };
}

function mobAnswer(params, damage = { o1: 7 }) {
  return {
    seed: 5, backend: "compiled", detail: "summary", attacks_total: 2, total_damage: Object.values(damage).reduce((a, b) => a + b, 0),
    targets: Object.fromEntries(Object.entries(damage).map(([id, d]) => [id, { damage: d, by_type: { edged: d }, attacks: 1, attacks_hit: 1, crits: 0, longest_chain: 0, undodgeable: 0 }])),
    groups: params.attacks.map((a) => ({ ...a, attacks_hit: 1, hit_rate: 1, damage: 3, mean_damage: 3, crits: 0, histogram: [] })),
  };
}

function attackAnswer(damage) {
  const ids = Object.keys(damage);
  return {
    ruleset: "enchanted-realms", seed: 9, backend: "compiled", injected: false,
    strikes: ids.map((id) => ({ target: id, method: "melee", style: "slashing", damage_type: "edged", advantage: false, disadvantage: false,
      sneak: false, to_hit: 4, ac: 12, crit_range: 20, dice: [{ face: 12, total: 16, hit: true, source: "skill" }], discarded: null,
      crit_chain: [], hits: 1, crit: false, base: damage[id], modifier: null, resistance: "normal", damage: damage[id], undodgeable: 0 })),
    targets: Object.fromEntries(ids.map((id) => [id, { damage: damage[id], by_type: { edged: damage[id] }, undodgeable: 0, shock_save_dc: null, shock_save: null }])),
    total_damage: ids.reduce((n, id) => n + damage[id], 0),
  };
}

const ODDS = { ruleset: "enchanted-realms", count: 1, targets: {
  o1: { mean: 2, sd: 1, p_hit: 0.5, p_crit: 0.1, p_at_least: {}, distribution: [] } }, total: {}, cut: 0 };

function holder(opts = {}) {
  const w = world(opts);
  const conn = fakeConnection((method, params) => (method === "attack.bulk" ? mobAnswer(params) : method === "attack.odds" ? ODDS
    : attackAnswer(Object.fromEntries(params.strikes.map((st) => [st.target, 5])))));
  let n = 0;
  const api = createActions({ vtt: w.vtt, connection: () => conn, newId: () => `id-${++n}`, now: () => 0 });
  return { ...w, conn, api };
}

const ask = (action, data, id = "req-00000001") => ({ type: "ask", id, action, data, to: "gm" });

describe("players' mobs (item 5): a world setting, the player's own tokens, checked on the GM's client", () => {
  test("a player's client sends its own controlled tokens, targets and roll mode; never numbers", async () => {
    const { vtt, api } = holder({ isGM: false, settings: { playerMobs: true } });
    vtt.owned = new Set(["w1", "w2"]);
    vtt.rollMode = () => "gmroll";
    vtt.gmAnswers = () => ({ requestId: "r", messageId: "m", total_damage: 7 });
    const out = await api.mob({ assign: "each" });
    assert.deepEqual(vtt.asked.at(-1), { action: "mob", data: { attackers: ["w1", "w2"], targets: ["o1"], assign: "each", rollMode: "gmroll" } });
    assert.equal(out.total_damage, 7);
    // Not the player's token, the setting off, dice or strikes: refused on the player's side too.
    vtt.owned = new Set(["w1"]);
    assert.equal(await api.mob({}), null);
    assert.match(vtt.notes.at(-1).text, /only with a token you own/);
    vtt.owned = new Set(["w1", "w2"]);
    assert.equal(await api.mob({ seed: 3 }), null);
    assert.match(vtt.notes.at(-1).text, /only the GM chooses the dice/);
    assert.equal(await api.mob({ strikes: [sword] }), null);
    assert.match(vtt.notes.at(-1).text, /free-form player attacks/);
    vtt.settings.playerMobs = false;
    assert.equal(await api.mob({}), null);
    assert.match(vtt.notes.at(-1).text, /has not allowed players' mobs/);
    assert.equal(vtt.asked.length, 1);
  });

  test("the holder resolves a player's mob from the actors' own strikes; the player sees the card its roll mode gives", async () => {
    const { api, conn, vtt, ogreActor } = holder({ settings: { playerMobs: true } });
    const answer = await api.answerRequest(ask("mob", { attackers: ["w1", "w2"], targets: ["o1"], rollMode: "gmroll" }), "player1");
    assert.equal(answer.error, undefined, JSON.stringify(answer));
    assert.equal(conn.calls.length, 1);
    const { params, id } = conn.calls[0];
    assert.equal(id, "player-player1-req-00000001");
    assert.deepEqual(Object.values(params.profiles).map((p) => p.strikes), [[bite]], "each actor's own strikes, the GM's data");
    assert.equal(params.seed, undefined);
    assert.equal(ogreActor.system.health.value, 23);
    assert.equal(answer.total_damage, 7);
    const card = vtt.messages.find((m) => m.flags?.fracas?.kind === "mob");
    assert.equal(card.requester, "player1");
    assert.equal(card.rollMode, "gmroll", "to the GMs and that player");
  });

  test("refused on the GM's client: the setting off, a token not the sender's, a hidden target, numbers, too many tokens", async () => {
    const off = holder();
    assert.match((await off.api.answerRequest(ask("mob", { attackers: ["w1"], targets: ["o1"] }), "player1")).error, /has not allowed players' mobs/);
    const { api, conn } = holder({ settings: { playerMobs: true } });
    assert.match((await api.answerRequest(ask("mob", { attackers: ["w1", "w3"], targets: ["o1"] }, "req-00000002"), "player1")).error, /only with a token you own/);
    assert.match((await api.answerRequest(ask("mob", { attackers: ["w1"], targets: ["l1"] }, "req-00000003"), "player1")).error, /"l1"/);
    assert.match((await api.answerRequest(ask("mob", { attackers: ["w1"], targets: ["o1"], strikes: [{ ...sword, dice: 5 }], seed: 1 }, "req-00000004"), "player1")).error,
      /free-form player attacks.*strikes/);
    const many = Array.from({ length: LIMITS.maxMob + 1 }, (_, i) => `w${i}`);
    assert.match((await api.answerRequest(ask("mob", { attackers: many, targets: ["o1"] }, "req-00000005"), "player1")).error, /too many tokens in the mob \(49; at most 48\)/);
    assert.match((await api.answerRequest(ask("mob", { attackers: ["w1"], targets: ["o1"], assign: "all" }, "req-00000006"), "player1")).error, /malformed/);
    assert.equal(conn.calls.length, 0);
  });
});

describe("players' odds (item 5), as Roll20's !fracas odds", () => {
  test("a player asks the odds of its own token's attack; the holder gives P(drops) only for a Body the player may read", async () => {
    const { api, conn, vtt } = holder();
    vtt.actor = null;
    const answer = await api.answerRequest(ask("odds", { attacker: "druid", targets: ["o1", "w1"], strike: 0, count: 2 }), "player1");
    assert.equal(answer.error, undefined, JSON.stringify(answer));
    assert.deepEqual(answer.result, ODDS);
    const { params, method } = conn.calls[0];
    assert.equal(method, "attack.odds");
    assert.deepEqual(params.strikes.map((s) => s.target), ["o1", "w1"]);
    assert.equal(params.strikes[0].dice, 2, "the druid's own strike");
    assert.equal(params.count, 2);
    assert.deepEqual(Object.keys(params.remaining), ["w1"], "the ogre's Body is the GM's");
    const card = vtt.messages.at(-1);
    assert.equal(card.flags.fracas.kind, "odds");
    assert.equal(card.requester, "player1");
    assert.equal(card.rollMode, "gmroll");
    assert.notEqual(card.whisperToGM, true);
    assert.match((await api.answerRequest(ask("odds", { attacker: "w3", targets: ["o1"], strike: 0 }, "req-00000002"), "player1")).error, /only with a token you own/);
    assert.match((await api.answerRequest(ask("odds", { attacker: "druid", targets: ["o1"], strikes: [sword] }, "req-00000003"), "player1")).error, /free-form/);
  });

  test("on a player's client api.odds goes to the GM's client with the choice of attack, and returns the odds", async () => {
    const { vtt, api } = holder({ isGM: false });
    vtt.owned = new Set(["druid"]);
    vtt.gmAnswers = () => ({ requestId: "r", messageId: "m", result: ODDS });
    const out = await api.odds({ attacker: "druid", strike: 0, atLeast: [10] });
    assert.deepEqual(vtt.asked.at(-1), { action: "odds", data: { attacker: "druid", targets: ["o1"], strike: 0, atLeast: [10] } });
    assert.deepEqual(out.result, ODDS);
  });
});

describe("token name display modes (item 6)", () => {
  test("only HOVER and ALWAYS show a non-owner the nameplate; a SECRET disposition never (Token#_canViewMode, #_refreshState)", () => {
    const seen = Object.entries(TOKEN_DISPLAY_MODES).filter(([, mode]) => othersSeeName(mode, 0)).map(([name]) => name);
    assert.deepEqual(seen, ["HOVER", "ALWAYS"]);
    assert.equal(othersSeeName(TOKEN_DISPLAY_MODES.ALWAYS, -2), false);
    assert.equal(othersSeeName(undefined), false, "BaseToken's initial mode is NONE");
  });

  test("an attack on a token whose nameplate players do not see: the GM's card whole, the players' copy unnamed, speaker too", async () => {
    const { api, vtt } = holder({ ogre: { unnamed: true } });
    const out = await api.attack({ attacker: "druid", strikes: [{ ...sword, target: "o1" }] });
    const [gm, open] = vtt.messages;
    assert.equal(out.messageId, gm.id);
    assert.equal(gm.whisperToGM, true);
    assert.match(gm.content, /Ogre Chief/);
    assert.equal(open.whisperToGM, false);
    assert.doesNotMatch(open.content, /Ogre/);
    assert.match(open.content, /an unnamed creature/);
    assert.equal(open.rolls.length, 1);
    assert.doesNotMatch(JSON.stringify(open.rolls), /Ogre/);
    assert.equal(open.flags.fracas.kind, "attack-public");
    assert.ok(!open.flags.fracas.changes, "no Body, no buttons' data on the copy");
    // An unnamed attacker: the players' copy speaks as "an unnamed creature", with no token to look up.
    vtt.messages.length = 0;
    await api.attack({ attacker: "o1", targets: ["druid"], strikes: [{ ...sword, target: "druid" }] });
    const copy = vtt.messages.find((m) => m.flags.fracas.kind === "attack-public");
    assert.deepEqual(copy.speaker, { id: "o1", name: "an unnamed creature", masked: true });
    assert.match(copy.content, /Fern/);
  });

  test("a token players may name: one public card, as before", async () => {
    const { api, vtt } = holder();
    await api.attack({ attacker: "druid", strikes: [{ ...sword, target: "o1" }] });
    assert.equal(vtt.messages.length, 1);
    assert.equal(vtt.messages[0].whisperToGM, false);
  });
});

describe("hidden participants and hidden names on mob, ruleset-attack, competition and impalement cards", () => {
  test("a GM's mob at a hidden token and an unnamed one: the GM's card whole, the players' without the hidden row", async () => {
    const w = world({ ogre: { unnamed: true } });
    const conn = fakeConnection((method, params) => mobAnswer(params, { o1: 4, l1: 3 }));
    const api = createActions({ vtt: w.vtt, connection: () => conn, newId: () => "m-1" });
    await api.mob({ attackers: ["w1", "w2"], targets: ["o1", "l1"], assign: "each" });
    const [gm, open] = w.vtt.messages;
    assert.equal(gm.whisperToGM, true);
    assert.match(gm.content, /Lurker/);
    assert.match(gm.content, /Ogre Chief/);
    assert.equal(open.flags.fracas.kind, "mob-public");
    assert.doesNotMatch(open.content, /Lurker|Ogre/);
    assert.doesNotMatch(JSON.stringify(open.rolls ?? []), /Lurker|Ogre/);
  });

  test("a Cartyrion attack at a hidden token: the players' copy says 'someone unseen'", async () => {
    const w = world();
    const conn = fakeConnection(() => ({ ruleset: "cartyrion", seed: 3, backend: "compiled", injected: false, total_damage: 4,
      strikes: [{ target: "l1", method: "melee", die: "d6", faces: [4], hit: true, damage: 4 }],
      targets: { l1: { damage: 4, stamina: 4, injury: 0 } } }));
    const api = createActions({ vtt: w.vtt, connection: () => conn, newId: () => "c-1" });
    await api.attack({ ruleset: "cartyrion", attacker: "druid", targets: ["l1"], strikes: [{ method: "melee", die: "d6", target: "l1" }],
      attackerData: { level: 1, bonus: 0 }, targetData: { armor: 0 } });
    const [gm, open] = w.vtt.messages;
    assert.equal(gm.whisperToGM, true);
    assert.match(gm.content, /Lurker/);
    assert.ok(open, "a players' copy");
    assert.doesNotMatch(open.content, /Lurker/);
    assert.match(open.content, /someone unseen/);
  });

  test("a competition with an unnamed defender and an impalement by a hidden pikeman are split the same way", async () => {
    const w = world({ ogre: { unnamed: true } });
    const conn = fakeConnection((method, params) => (method === "compete.roll" ? engine.compete : engine.impale)(params, { newSeed: () => 7 }));
    const api = createActions({ vtt: w.vtt, connection: () => conn, newId: () => "s-1" });
    await api.compete({ challenger: "druid", defender: "o1" });
    assert.equal(w.vtt.messages.length, 2, JSON.stringify(w.vtt.notes));
    assert.equal(w.vtt.messages[0].whisperToGM, true);
    assert.doesNotMatch(w.vtt.messages[1].content, /Ogre/);
    w.vtt.messages.length = 0;
    await api.impale({ pikeman: "l1", charger: "o1", closed: 30 });
    assert.equal(w.vtt.messages.length, 2, JSON.stringify(w.vtt.notes));
    const open = w.vtt.messages[1];
    assert.doesNotMatch(open.content, /Lurker|Ogre/);
    assert.deepEqual(open.speaker, { id: "l1", name: "someone unseen", masked: true });
  });
});

describe("a GM tab that does not hold the bridge: its own roll mode", () => {
  test("the relaying tab sends its roll mode; the holder posts the card as that user's (a self roll to that user alone)", async () => {
    const relaying = holder();
    relaying.vtt.holdsConnection = () => false;
    relaying.vtt.rollMode = () => "selfroll";
    relaying.vtt.gmAnswers = () => ({ requestId: "r", messageId: "m", total_damage: 5 });
    await relaying.api.attack({ attacker: "druid", strikes: [{ ...sword, target: "o1" }] });
    assert.equal(relaying.vtt.asked.at(-1).data.rollMode, "selfroll");
    const { api, vtt } = holder();
    vtt.rollMode = () => "publicroll"; // the holder's own mode is not the asker's
    const out = await api.answerRequest(ask("attack", relaying.vtt.asked.at(-1).data, "asst-0000001"), "assistant");
    assert.equal(out.error, undefined, JSON.stringify(out));
    const card = vtt.messages.at(-1);
    assert.equal(card.rollMode, "selfroll");
    assert.equal(card.requester, "assistant");
    assert.equal(card.gmRequester, true);
    assert.equal(gmOnly(card.rollMode, card.requester, card.gmRequester), true, "an assistant GM's self roll is GM-only");
    assert.equal(vtt.ledgers.size, 0, "no public card, so no separate ledger");
  });
});
