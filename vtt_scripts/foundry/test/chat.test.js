import "./english.js";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import {
  MOB_DICE_SHOWN, attackCardModel, attackRollSpecs, initiativeCardModel, initiativeRollSpecs, initiativeValues, mobCardModel,
  mobRollSpecs, renderAttackCard, renderRoundCard, renderInitiativeCard, renderMobCard, strikeOutcome,
} from "../scripts/chat.js";
import { enrichments, textNodes } from "./enrich.js";
import { BridgeError, describeError } from "../scripts/errors.js";
import { WORD_KINDS } from "../scripts/words.js";

// The engine's own known-answer vectors (tests/vectors): real results, every shape.
const vectors = JSON.parse(readFileSync(new URL("../../../tests/vectors/er_vectors.json", import.meta.url), "utf8"))
  .filter((v) => v.result);

const example = vectors.find((v) => v.name === "issue example").result;

function facesOf(spec) {
  return spec.groups.map((g) => ({ faces: g.faces, values: g.results.map((r) => r.result) }));
}

describe("attack card", () => {
  test("the issue example: names, dice, crit chain, damage and seed", () => {
    const model = attackCardModel(example, { attackerName: "Aldric", names: { goblin: "Goblin <Boss>" }, requestId: "r1" });
    assert.equal(model.title, "Aldric attacks");
    assert.equal(model.seed, "42");
    assert.equal(model.totalDamage, example.total_damage);
    const s = model.strikes[0];
    assert.deepEqual(s.dice.map((d) => [d.face, d.hit]), example.strikes[0].dice.map((d) => [d.face, d.hit]));
    assert.equal(s.chain.length, example.strikes[0].crit_chain.length);
    const html = renderAttackCard(model, { undoable: true });
    assert.match(html, /Goblin &lt;Boss&gt;/, "token names are escaped");
    assert.doesNotMatch(html, /<Boss>/);
    assert.match(html, /seed 42/);
    assert.match(html, /data-fracas-action="undo"/);
    assert.doesNotMatch(renderAttackCard(model), /data-fracas-action="undo"/);
  });

  test("every engine vector: dice in draw order become Die groups with the engine's faces", () => {
    assert.ok(vectors.length > 50, "the vectors are there");
    for (const v of vectors) {
      const r = v.result;
      const model = attackCardModel(r, { attackerName: "A", names: {}, requestId: v.name });
      const specs = attackRollSpecs(model);
      const strikeSpecs = specs.slice(0, r.strikes.length);
      r.strikes.forEach((s, i) => {
        const groups = facesOf(strikeSpecs[i]);
        const pool = s.dice.map((d) => d.face).concat(s.discarded === null ? [] : [s.discarded]);
        assert.deepEqual(groups[0], { faces: 20, values: pool }, `${v.name} strike ${i} pool`);
        if (s.crit_chain.length) {
          assert.deepEqual(groups[1], { faces: 20, values: s.crit_chain.map((c) => c.face) }, `${v.name} crit dice`);
          const d3 = s.crit_chain.filter((c) => c.hit).map((c) => c.damage);
          if (d3.length) assert.deepEqual(groups[2], { faces: 3, values: d3 }, `${v.name} crit d3s`);
        }
        const discarded = strikeSpecs[i].groups[0].results.filter((x) => !x.active);
        assert.equal(discarded.length, s.discarded === null ? 0 : 1);
        for (const g of strikeSpecs[i].groups) {
          for (const x of g.results) assert.ok(x.result >= 1 && x.result <= g.faces, `${v.name}: face ${x.result} on a d${g.faces}`);
        }
      });
      const saves = Object.values(r.targets).filter((t) => t.shock_save);
      assert.equal(specs.length, r.strikes.length + saves.length, `${v.name}: one roll per strike and per shock save`);
      assert.equal(model.targets.reduce((n, t) => n + t.damage, 0), r.total_damage);
      const html = renderAttackCard(model);
      assert.equal((html.match(/class="fracas-strike"/g) ?? []).length, r.strikes.length);
    }
  });

  test("outcome lines", () => {
    const base = { hits: 2, crit: true, chain: [{}, {}], damage: 5, damageType: "edged", modifier: 1, resistance: "normal", undodgeable: 3 };
    assert.equal(strikeOutcome(base), "2 hits · crit (chain of 2) · 5 edged damage (+1 modifier, 3 undodgeable)");
    assert.equal(strikeOutcome({ ...base, hits: 1, crit: false, chain: [], modifier: null, resistance: "half", undodgeable: 0, damage: 1 }), "1 hit · 1 edged damage (resisted)");
    assert.equal(strikeOutcome({ ...base, hits: 0 }), "miss");
  });

  test("a rolled shock save shows its die and what it cost", () => {
    const withSave = vectors.find((v) => Object.values(v.result.targets).some((t) => t.shock_save));
    assert.ok(withSave, "the engine vectors include a rolled shock save");
    const model = attackCardModel(withSave.result, { attackerName: "A", names: {}, requestId: "x" });
    assert.match(renderAttackCard(model), /shock save DC \d+/);
  });

  test("shock save: passed, failed with actions lost, or only the DC", () => {
    const r = structuredClone(example);
    r.targets.goblin.shock_save_dc = 12;
    r.targets.goblin.shock_save = { dc: 12, roll: 4, total: 6, passed: false, incapacitated_actions: 2 };
    const model = attackCardModel(r, { attackerName: "A", names: {}, requestId: "x" });
    const specs = attackRollSpecs(model);
    assert.deepEqual(facesOf(specs.at(-1)), [{ faces: 20, values: [4] }, { faces: 3, values: [2] }]);
    assert.match(renderAttackCard(model), /shock save DC 12: 4 → 6, failed: incapacitated for 2 actions/);
    r.targets.goblin.shock_save = null;
    assert.match(renderAttackCard(attackCardModel(r, { attackerName: "A", names: {}, requestId: "x" })), /Resilience save DC 12/);
  });

  test("ER-12/ER-14: both d20 of a save at disadvantage are shown, the kept one active; a failure outright rolls none", () => {
    // ER-12: "roll two d20 and keep the worse"; ER-14 (stunned): "Automatically fails all
    // saves/feats involving Body attributes".
    const r = structuredClone(example);
    r.targets.goblin.shock_save_dc = 12;
    r.targets.goblin.shock_save = { dc: 12, roll: 4, dice: [15, 4], total: 6, passed: false, incapacitated_actions: 1,
      situation: { advantage_from: [], disadvantage_from: ["poisoned"], automatic_failure: null } };
    r.targets.goblin.grapple_release = { dc: 11, roll: 3, held: false, modifier: 1, total: 4,
      situation: { advantage_from: [], disadvantage_from: ["poisoned"], automatic_failure: null },
      feats: [{ strike: 0, dc: 11, dice: [17, 3], roll: 3, modifier: 1, total: 4, held: false }] };
    let model = attackCardModel(r, { attackerName: "A", names: {}, requestId: "x" });
    let html = renderAttackCard(model);
    assert.match(html, /shock save DC 12: 15\/4 → 6, failed: incapacitated for 1 action/);
    assert.match(html, /Strength feat DC 11 \(ER-21\): 17\/3 \+1 = 4, lets go/);
    const specs = attackRollSpecs(model);
    const release = specs.find((s) => s.label.startsWith("grapple release"));
    assert.deepEqual(release.groups[0].results.map((x) => [x.result, x.active]), [[17, false], [3, true]]);
    const shock = specs.find((s) => s.label.startsWith("shock save"));
    assert.deepEqual(shock.groups[0].results.map((x) => [x.result, x.active]), [[15, false], [4, true]]);

    const stunned = { advantage_from: [], disadvantage_from: [], automatic_failure: "stunned" };
    r.targets.goblin.shock_save = { dc: 12, roll: null, dice: [], total: null, passed: false, incapacitated_actions: 2, situation: stunned };
    r.targets.goblin.grapple_release = { dc: 11, roll: null, held: false, situation: stunned,
      feats: [{ strike: 0, dc: 11, dice: [], roll: null, modifier: 1, total: null, held: false }] };
    model = attackCardModel(r, { attackerName: "A", names: {}, requestId: "x" });
    html = renderAttackCard(model);
    assert.match(html, /shock save DC 12: fails automatically \(stunned, ER-14\), failed: incapacitated for 2 actions/);
    assert.match(html, /Strength feat DC 11 \(ER-21\): fails automatically \(stunned, ER-14\), lets go/);
    const rolled = attackRollSpecs(model).filter((s) => /grapple release|shock save/.test(s.label));
    assert.deepEqual(rolled.map((s) => s.groups.filter((g) => g.faces === 20).length), [0],
      "no d20 for a failure outright: the release has no spec, the save only its lost actions");
  });
});

describe("initiative card", () => {
  const result = {
    ruleset: "enchanted-realms", seed: 5, injected: false,
    order: [
      { id: "a", roll: 9, modifier: 1, total: 10, tiebreaks: [] },
      { id: "b", roll: 6, modifier: 1, total: 7, tiebreaks: [15] },
      { id: "c", roll: 7, modifier: 0, total: 7, tiebreaks: [3] },
      { id: "d", roll: 2, modifier: 0, total: 2, tiebreaks: [] },
    ],
  };

  test("tracker values keep the roll-off order", () => {
    assert.deepEqual(initiativeValues(result.order), [
      { id: "a", value: 10 }, { id: "b", value: 7.1 }, { id: "c", value: 7 }, { id: "d", value: 2 },
    ]);
    const many = Array.from({ length: 11 }, (_, i) => ({ id: `x${i}`, total: 5 }));
    const values = initiativeValues(many).map((v) => v.value);
    assert.equal(values[0], 5.1);
    assert.equal(values[10], 5);
    assert.deepEqual([...values].sort((x, y) => y - x), values, "strictly descending");
    assert.equal(new Set(values).size, 11);
  });

  test("card and dice", () => {
    const model = initiativeCardModel(result, { names: { a: "Aldric", b: "Goblin", c: "Ogre", d: "Rat" }, requestId: "i1" });
    const html = renderInitiativeCard(model);
    assert.ok(html.indexOf("Aldric") < html.indexOf("Goblin") && html.indexOf("Goblin") < html.indexOf("Ogre"));
    assert.match(html, /roll-off/);
    assert.deepEqual(facesOf(initiativeRollSpecs(model)[0]), [{ faces: 10, values: [9, 6, 7, 2] }, { faces: 20, values: [15, 3] }]);
  });
});

describe("mob card", () => {
  test("per-target totals and per-group rates, no dice", () => {
    const result = {
      seed: 7, backend: "compiled", detail: "summary", attacks_total: 200, total_damage: 150,
      targets: {
        pc1: { damage: 100, by_type: { edged: 100 }, attacks: 120, attacks_hit: 60, crits: 3, longest_chain: 2, undodgeable: 4 },
        pc2: { damage: 50, by_type: { edged: 50 }, attacks: 80, attacks_hit: 30, crits: 0, longest_chain: 0, undodgeable: 0 },
      },
      groups: [
        { profile: "skel", target: "pc1", count: 120, attacks_hit: 60, hit_rate: 0.5, damage: 100, mean_damage: 0.83, crits: 3, histogram: [60, 40, 20] },
        { profile: "skel", target: "pc2", count: 80, attacks_hit: 30, hit_rate: 0.375, damage: 50, mean_damage: 0.625, crits: 0, histogram: [50, 30] },
      ],
    };
    const model = mobCardModel(result, { names: { pc1: "Aldric", pc2: "Bryn" }, profileNames: { skel: "Skeleton" }, requestId: "m1" });
    assert.equal(model.title, "Mob attack: 200 attacks");
    assert.deepEqual(model.targets.map((t) => [t.name, t.damage]), [["Aldric", 100], ["Bryn", 50]]);
    const html = renderMobCard(model, { undoable: true });
    assert.match(html, /Skeleton → Aldric<\/td><td>120<\/td><td>60<\/td><td>50%/);
    assert.match(html, /Bryn<\/strong>: <span class="fracas-damage">50<\/span> damage \(30 hits of 80\)/);
    assert.match(html, /3 crits, longest chain 2, 4 undodgeable/);
    assert.doesNotMatch(html, /class="roll die/);
    assert.doesNotMatch(html, /fracas-left-out/); // groups without shock_checks / strays_omitted say nothing
  });

  test("a group's left-out counts are said under its row when not 0 (ER-13 shock saves, ER-17 strays)", () => {
    const group = (target, shock, strays) => ({ profile: "skel", target, count: 40, attacks_hit: 20, hit_rate: 0.5, damage: 30,
      mean_damage: 0.75, crits: 1, shock_checks: shock, strays_omitted: strays, histogram: [20, 20] });
    const result = {
      ruleset: "enchanted-realms", seed: 3, backend: "compiled", detail: "summary", attacks_total: 80, total_damage: 60,
      targets: { pc1: { damage: 30, by_type: {}, attacks: 40, attacks_hit: 20, crits: 1, longest_chain: 1, undodgeable: 0 },
        pc2: { damage: 30, by_type: {}, attacks: 40, attacks_hit: 20, crits: 0, longest_chain: 0, undodgeable: 0 } },
      groups: [group("pc1", 12, 1), group("pc2", 0, 0)],
    };
    const model = mobCardModel(result, { names: { pc1: "Aldric", pc2: "Bryn" }, profileNames: { skel: "Skeleton" }, requestId: "m3" });
    assert.deepEqual(model.groups.map((g) => [g.shockChecks, g.straysOmitted]), [[12, 1], [0, 0]]);
    const html = renderMobCard(model);
    assert.match(html, /Aldric<\/td>.*?<\/tr><tr class="fracas-left-out"><td colspan="5">12 shock saves not rolled \(ER-13\) · strays of 1 missed shot omitted \(ER-17\)<\/td><\/tr><tr><td>Skeleton → Bryn/);
    assert.equal(html.match(/fracas-left-out/g).length, 1);
  });
});

describe("mob card dice", () => {
  // An answer with detail "dice": each listed attack's strikes are attack.resolve strikes
  // (docs/ENGINE.md); the known-answer vectors give real ones.
  const strikes = vectors.flatMap((v) => v.result.strikes).filter((s) => s.dice.length);
  const diceAnswer = (n) => ({
    ruleset: "enchanted-realms", seed: 5, backend: "compiled", detail: "dice", attacks_total: n, total_damage: 0,
    targets: { pc1: { damage: 0, by_type: {}, attacks: n, attacks_hit: 0, crits: 0, longest_chain: 0, undodgeable: 0 } },
    groups: [{ profile: "skel", target: "pc1", count: n, attacks_hit: 0, hit_rate: 0, damage: 0, mean_damage: 0, crits: 0, histogram: [n] }],
    attacks: Array.from({ length: n }, (_, i) => ({ group: 0, damage: strikes[i % strikes.length].damage, strikes: [strikes[i % strikes.length]] })),
  });
  const ctx = { names: { pc1: "Aldric" }, profileNames: { skel: "Skeleton" }, requestId: "m2" };

  test("one roll per attack with every die the bridge listed; the card says nothing of missing dice", () => {
    const answer = diceAnswer(3);
    const specs = mobRollSpecs(answer, ctx);
    assert.equal(specs.length, 3);
    answer.attacks.forEach((a, i) => {
      assert.deepEqual(specs[i].groups, attackRollSpecs(attackCardModel({ strikes: a.strikes, targets: {}, seed: 5, total_damage: a.damage },
        { attackerName: "", names: ctx.names, requestId: "" })).flatMap((s) => s.groups));
      assert.equal(specs[i].total, a.damage);
    });
    assert.doesNotMatch(renderMobCard(mobCardModel(answer, ctx)), /dice/);
  });

  test("a mob larger than MOB_DICE_SHOWN: the first attacks' dice, and the card says how many of how many", () => {
    const answer = diceAnswer(MOB_DICE_SHOWN + 6);
    assert.equal(mobRollSpecs(answer, ctx).length, MOB_DICE_SHOWN);
    assert.match(renderMobCard(mobCardModel(answer, ctx)), new RegExp(`the dice of the first ${MOB_DICE_SHOWN} of ${MOB_DICE_SHOWN + 6} attacks`));
  });

  test("a summary (a mob too large for its dice): no rolls, and the card says why", () => {
    const answer = { ...diceAnswer(1), detail: "summary", attacks_total: 5000 };
    delete answer.attacks;
    assert.deepEqual(mobRollSpecs(answer, ctx), []);
    assert.match(renderMobCard(mobCardModel(answer, ctx)), /no dice on this card: 5000 attacks \(a mob of up to 200 attacks carries its dice\)/);
  });
});

describe("names from the table are shown, never enriched", () => {
  test("inline rolls, @UUID links and markup in a token's name reach the card as text", () => {
    const evil = "Gob [[/r 1d20]] @UUID[Actor.abc123]{Click} <img src=x onerror=alert(1)>";
    const goblin = Object.keys(example.targets)[0];
    const html = renderAttackCard(attackCardModel(example, { attackerName: evil, names: { [goblin]: evil }, requestId: "r" }));
    for (const pattern of ["[[", "]]", "@UUID[", "{Click}", "<img"]) assert.ok(!html.includes(pattern), `${pattern} in ${html}`);
    // v13 enriches each text node's decoded text: escaping alone would give "[[" back there.
    assert.deepEqual(enrichments(html), []);
    assert.ok(textNodes(html).join("").includes(evil.replace(/<img.*$/, "")), "the name still reads as written");
    const mob = renderMobCard(mobCardModel({ targets: { t: { damage: 3, attacks: 1, attacks_hit: 1, crits: 0 } }, seed: 1 },
      { names: { t: evil }, groups: [], requestId: "m" }));
    for (const pattern of ["[[", "@UUID[", "<img"]) assert.ok(!mob.includes(pattern), `${pattern} in ${mob}`);
    assert.deepEqual(enrichments(mob), []);
    // Escaping alone would not do: the enricher decodes the entities first.
    assert.equal(enrichments("Gob &#91;&#91;/r 1d20&#93;&#93;").length, 1, "the model finds what v13 finds");
  });
});

describe("cards in the user's language", () => {
  test("with German loaded in game.i18n, the attack and mob cards and the dice flavours are German", () => {
    const de = JSON.parse(readFileSync(new URL("../lang/de.json", import.meta.url), "utf8"));
    globalThis.game = { i18n: { has: (k) => k in de, localize: (k) => de[k] } };
    try {
      const model = attackCardModel(example, { attackerName: "Aldric", names: {}, requestId: "r" });
      const html = renderAttackCard(model);
      assert.match(html, /Aldric greift an/);
      assert.match(html, /Seed \d+/);
      assert.doesNotMatch(textNodes(html).join(" "), /\b(attacks|damage|seed|hits?)\b/, "no English word left on the attack card");
      assert.ok(attackRollSpecs(model).every((spec) => spec.groups.every((g) => !["pool", "crit", "crit damage"].includes(g.flavor))));
      const mob = renderMobCard(mobCardModel({ targets: { t: { damage: 3, attacks: 2, attacks_hit: 1, crits: 0 } }, seed: 1, attacks_total: 2 },
        { names: { t: "Orc" }, profileNames: {}, requestId: "m" }));
      assert.match(mob, /Massenangriff: 2 Angriffe/);
      assert.match(mob, /1 Treffer von 2/);
      // The engine's words too: method, style and damage type of every strike.
      const words = Object.values(WORD_KINDS.Method).concat(WORD_KINDS.Style, WORD_KINDS.DamageType).filter((w) => !["savage", "normal"].includes(w));
      const tags = textNodes(html).join(" ");
      for (const w of words) assert.doesNotMatch(tags, new RegExp(`\\b${w}\\b`), `the engine word ${w} is left in English`);
      assert.match(html, /Nahkampf · Hieb · Schneide/);
    } finally {
      delete globalThis.game;
    }
  });

  test("a bridge error: the code's meaning in the user's language; the bridge's English detail for the GM only", () => {
    const de = JSON.parse(readFileSync(new URL("../lang/de.json", import.meta.url), "utf8"));
    globalThis.game = { i18n: { has: (k) => k in de, localize: (k) => de[k] } };
    try {
      const error = new BridgeError("attack.resolve", { code: -32001, message: "a stunned attacker cannot attack (ER-14)", data: { path: "$.params.attacker.conditions" } });
      assert.equal(describeError(error), "fracas: attack.resolve fehlgeschlagen: die Regeln verbieten das. Meldung der Brücke: "
        + "$.params.attacker.conditions: a stunned attacker cannot attack (ER-14) (Code -32001)");
      assert.equal(describeError(error, { forPlayers: true }), "fracas: attack.resolve fehlgeschlagen: die Regeln verbieten das (ER-14)");
    } finally {
      delete globalThis.game;
    }
    const english = new BridgeError("attack.bulk", { code: -32003, message: "too many attacks" });
    assert.equal(describeError(english, { forPlayers: true }), "fracas: attack.bulk failed: the request is too large");
    assert.equal(new BridgeError("x.y", { code: -1, message: "odd" }).message, "x.y failed: odd (code -1)", "an unknown code keeps the bridge's text");
  });
});

describe("round cards: every event the fight log writes (src/fracas/drive/fight.py)", () => {
  const names = { a: "Aldric", b: "Bryn", g: "Goblin", s: "Shade" };
  const log = {
    round: 3, seed: 9, order: [["a"], ["g", "s"], ["b"]], standing: { party: 2, foes: 1 },
    events: [
      { type: "surrender", group: "g", who: ["g", "s"], why: "its morale broke", rule: "OS-4" },
      { type: "flight", group: "s", who: ["s"], why: "hp 2 <= flee_at 3", rule: "OS-4" },
      { type: "fled", who: "g", why: "hp 2 <= flee_at 3; leaves as its side moves, as declared", rule: "OS-4" },
      { type: "spell lost", who: "b", spell: "sleep", rule: "OS-5", why: "harmed this round before its side acted" },
      { type: "parry", who: "a", with: "shield", rule: "CT-6", left: 4, note: "" },
      { type: "no weapon", who: "g", rule: "CT-5", why: "every weapon it attacks with is broken" },
      { type: "reserve", who: "b", reserved: "dodge", actions: 2, forgoes: [1], rule: "WW-5", note: "" },
      { type: "target", who: "g", target: "a", seed: 4, among: 2 },
      { type: "attack", who: "g", target: "a", damage: 3 },
      { type: "reserve spent", who: "a", spent: 1, left: 0, rule: "WW-5" },
      { type: "weapon broken", who: "a", strike: 0, rule: "CT-5", why: "" },
      { type: "weapon shattered", who: "g", strike: 0, rule: "CT-6", why: "" },
      { type: "shield destroyed", who: "b", rule: "CT-6", why: "" },
      { type: "down", who: "g" },
      { type: "morale", group: "g", trigger: "first death", total: 5, against: 7, breaks: true, then: "flees next round (declared before initiative)" },
      { type: "end", winner: null, reason: "max_rounds 3 reached: a draw" },
    ],
  };

  test("each kind has its line, with the rule it follows", () => {
    const text = textNodes(renderRoundCard(log, { names, requestId: "r" })).join(" ");
    for (const line of [/Goblin, Shade surrender \(its morale broke, OS-4\)/, /Shade declare flight \(2 HP, at or below its flight threshold 3, OS-4\)/,
      /Goblin flees \(2 HP, at or below its flight threshold 3; leaves as its side moves, as declared\)/, /Bryn loses sleep \(OS-5\)/,
      /Aldric parries with its shield \(4 left, CT-6\)/, /Goblin has no weapon to attack with \(every weapon it attacks with is broken, CT-5\)/,
      /Bryn holds 2 actions in reserve/, /Goblin picks Aldric \(at random among 2\)/, /Aldric spends 1 action reserved \(WW-5\), 0 left/,
      /Aldric's weapon 1 breaks/, /Goblin's parrying weapon shatters/, /Bryn's shield is destroyed/, /Goblin is down/,
      /morale of Goblin \(first death\): 2d6 5 vs 7: breaks: flees next round/, /3 rounds played: a draw/]) {
      assert.match(text, line);
    }
  });

  test("in German, no English word of the log is left", () => {
    const de = JSON.parse(readFileSync(new URL("../lang/de.json", import.meta.url), "utf8"));
    globalThis.game = { i18n: { has: (k) => k in de, localize: (k) => de[k] } };
    try {
      const text = textNodes(renderRoundCard(log, { names, requestId: "r" })).join(" ");
      assert.match(text, /3 Runden gespielt: unentschieden/);
      assert.match(text, /Moral von Goblin \(erster Tod\)/);
      assert.match(text, /Gruppe 2, Gegner 1/);
      assert.doesNotMatch(text, /\b(surrender|flees?|flight|morale|broke|reached|draw|weapon|shield|reserve|first death|party|foes|harmed|left)\b/);
    } finally {
      delete globalThis.game;
    }
  });

  test("on the players' card a hidden member is in no line, order or count; a flight names only the seen", () => {
    const text = textNodes(renderRoundCard(log, { names, requestId: "r", hidden: new Set(["s"]) })).join(" ");
    assert.doesNotMatch(text, /Shade/);
    assert.match(text, /Goblin surrender/);
    assert.doesNotMatch(text, /among/, "a random pick would count the hidden enemies");
    assert.doesNotMatch(text, /standing/);
  });
});
