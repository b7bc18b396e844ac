import "./english.js";
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { InputError } from "../scripts/errors.js";
import { getPath, readInteger, readNames } from "../scripts/paths.js";
import {
  MOB_DICE_ATTACKS, buildAttackRequest, buildBulkRequest, buildInitiativeRequest, buildRulesetAttackRequest, buildRulesetBulkRequest,
  bulkDetail, conditionsOf, flagPart, resolveTargetRef, splitCounts,
} from "../scripts/request.js";
import { DATA_PATHS, SETTINGS, readMapping } from "../scripts/settings.js";
import { fakeActor, sheet, view } from "./fakes.js";

const mapping = readMapping((key) => SETTINGS.find((s) => s.key === key)?.default);

const hero = view("tokHero", "Aldric", fakeActor({ uuid: "Actor.hero", name: "Aldric", system: sheet({ str: 4, agi: 3 }) }));
const goblin = view("tokGob1", "Goblin", fakeActor({ uuid: "Scene.s.Token.tokGob1.Actor.gob", name: "Goblin", system: sheet({ ac: 14, hp: 7, resistant: "Fire, cold" }) }));
const ogre = view("tokOgre", "Ogre", fakeActor({ uuid: "Actor.ogre", name: "Ogre", system: sheet({ ac: "16", hp: 30, size: "Large" }), statuses: ["prone", "restrain", "bless"] }));
const sword = { method: "melee", style: "slashing", dice: 2, weight: 1, damage_type: "edged" };

describe("data paths", () => {
  test("numbers may be numbers or numeric strings; anything else is named", () => {
    const source = { system: { a: { value: "14" }, b: { value: 3 }, c: { value: "lots" }, d: { value: 2.5 } } };
    assert.deepEqual(readInteger(source, "system.a.value"), { value: 14 });
    assert.deepEqual(readInteger(source, "system.b.value"), { value: 3 });
    assert.deepEqual(readInteger(source, "system.c.value"), { problem: 'system.c.value holds "lots", not a number' });
    assert.deepEqual(readInteger(source, "system.d.value"), { problem: "system.d.value holds 2.5, not a whole number" });
    assert.deepEqual(readInteger(source, "system.zz.value"), { problem: "nothing at system.zz.value" });
    assert.deepEqual(readInteger(source, ""), {});
    assert.equal(getPath(source, "system.a"), source.system.a);
  });

  test("lists may be arrays, Sets, objects of flags or comma-separated text", () => {
    const source = { a: ["Fire", "cold"], b: new Set(["poison"]), c: "fire; Cold ,", d: { fire: true, cold: false } };
    assert.deepEqual(readNames(source, "a"), ["fire", "cold"]);
    assert.deepEqual(readNames(source, "b"), ["poison"]);
    assert.deepEqual(readNames(source, "c"), ["fire", "cold"]);
    assert.deepEqual(readNames(source, "d"), ["fire"]);
    assert.deepEqual(readNames(source, "missing"), []);
  });

  test("every data path has a setting with its default", () => {
    for (const p of DATA_PATHS) assert.equal(mapping[p.key], p.default);
  });
});

describe("buildAttackRequest", () => {
  test("one strike at the single target, read from the sheets", () => {
    const { request, targets } = buildAttackRequest({ attacker: hero, targets: [goblin], strikes: [sword], mapping, options: { seed: 42 } });
    assert.deepEqual(request, {
      attacker: { strength: 4, agility: 3 },
      strikes: [{ target: "tokGob1", ...sword }],
      targets: { tokGob1: { ac: 14, resistant: ["fire", "cold"], body_max: 10 } },
      seed: 42,
    });
    assert.deepEqual(targets.map((t) => t.id), ["tokGob1"]);
  });

  test("status effects become ER conditions; size and string AC are read", () => {
    assert.deepEqual(conditionsOf(ogre), ["prone", "restrained"]);
    const { request } = buildAttackRequest({ attacker: hero, targets: [ogre], strikes: [{ ...sword, method: "range", style: "archery" }], mapping });
    assert.deepEqual(request.targets.tokOgre, { ac: 16, size: "large", conditions: ["prone", "restrained"], body_max: 10 });
    const off = buildAttackRequest({ attacker: hero, targets: [ogre], strikes: [sword], mapping, options: { conditions: false } });
    assert.equal(off.request.targets.tokOgre.conditions, undefined);
  });

  test("strikes aim by token name, id or index; only aimed-at targets are sent", () => {
    const { request, targets } = buildAttackRequest({
      attacker: hero, targets: [goblin, ogre], mapping,
      strikes: [{ ...sword, target: "Ogre" }, { ...sword, target: "tokOgre" }, { ...sword, target: 1 }],
    });
    assert.deepEqual(request.strikes.map((s) => s.target), ["tokOgre", "tokOgre", "tokOgre"]);
    assert.deepEqual(Object.keys(request.targets), ["tokOgre"]);
    assert.deepEqual(targets.map((t) => t.name), ["Ogre"]);
  });

  test("options: advantage, disadvantage, injected dice", () => {
    const { request } = buildAttackRequest({ attacker: hero, targets: [goblin], strikes: [sword], mapping, options: { advantage: true, rolls: [12, 7] } });
    assert.equal(request.advantage, true);
    assert.deepEqual(request.rolls, [12, 7]);
    assert.equal("disadvantage" in request, false);
  });

  const cases = [
    ["no attacker", { attacker: null }, /no attacker: select \(control\) the attacking token/],
    ["no targets", { targets: [] }, /no targets: target at least one token/],
    ["no strikes", { strikes: [] }, /no strikes/],
    ["strike not an object", { strikes: ["sword"] }, /strike 1 is not an object/],
    ["unknown strike field", { strikes: [{ ...sword, dmg: 3 }] }, /strike 1: unknown field "dmg"/],
    ["missing strike field", { strikes: [{ method: "melee", style: "slashing", dice: 2 }] }, /strike 1: "damage_type" is missing/],
    ["no target with two targeted", { targets: [goblin, ogre] }, /strike 1 has no target and 2 tokens are targeted/],
    ["unknown target", { strikes: [{ ...sword, target: "Dragon" }] }, /strike 1: "Dragon" is not one of the targeted tokens \(Goblin\)/],
  ];
  for (const [name, change, pattern] of cases) {
    test(`rejects: ${name}`, () => {
      const args = { attacker: hero, targets: [goblin], strikes: [sword], mapping, ...change };
      assert.throws(() => buildAttackRequest(args), (e) => e instanceof InputError && pattern.test(e.message));
    });
  }

  test("sheet problems name the token and the path", () => {
    const noAc = view("t1", "Bandit", fakeActor({ uuid: "Actor.b", name: "Bandit", system: { health: { value: 5 } } }));
    assert.throws(() => buildAttackRequest({ attacker: hero, targets: [noAc], strikes: [sword], mapping }),
      /Bandit: AC: nothing at system\.attributes\.ac\.value \(every target needs one\)/);
    const weird = view("t2", "Imp", fakeActor({ uuid: "Actor.i", name: "Imp", system: sheet({ resistant: "fire, fiery" }) }));
    assert.throws(() => buildAttackRequest({ attacker: hero, targets: [weird], strikes: [sword], mapping }),
      /Imp: resistance "fiery" at system\.attributes\.resistant\.value is not a damage type/);
    const tiny = view("t3", "Pixie", fakeActor({ uuid: "Actor.p", name: "Pixie", system: sheet({ size: "minuscule" }) }));
    assert.throws(() => buildAttackRequest({ attacker: hero, targets: [tiny], strikes: [sword], mapping }),
      /Pixie: size "minuscule" at system\.attributes\.size\.value is not one of tiny/);
    const weak = view("t4", "Wisp", fakeActor({ uuid: "Actor.w", name: "Wisp", system: { attributes: { agility: { value: 3 } } } }));
    assert.throws(() => buildAttackRequest({ attacker: weak, targets: [goblin], strikes: [sword], mapping }),
      /Wisp: Strength score: nothing at system\.attributes\.strength\.value \(melee and savage strikes add it to hit\)/);
    assert.throws(() => buildAttackRequest({ attacker: hero, targets: [goblin], strikes: [sword], mapping: { ...mapping, strength: "" } }),
      /Aldric: no data path is set for Strength score/);
  });

  test("with damage to apply, a target needs a Body value", () => {
    const noBody = view("t5", "Shade", fakeActor({ uuid: "Actor.s", name: "Shade", system: { attributes: { ac: { value: 10 } } } }));
    assert.doesNotThrow(() => buildAttackRequest({ attacker: hero, targets: [noBody], strikes: [sword], mapping }));
    assert.throws(() => buildAttackRequest({ attacker: hero, targets: [noBody], strikes: [sword], mapping, options: { needBody: true } }),
      /Shade: Body: nothing at system\.health\.value \(damage is applied there\)/);
  });

  test("two targeted tokens with the same name must be told apart by id", () => {
    const twin = view("tokGob2", "Goblin", goblin.actor);
    assert.throws(() => resolveTargetRef("Goblin", [goblin, twin], 0), /2 targeted tokens are named "Goblin"; use the token id/);
    assert.equal(resolveTargetRef("tokGob2", [goblin, twin], 0), "tokGob2");
    assert.throws(() => resolveTargetRef(5, [goblin], 2), /strike 3: target index 5 is out of range/);
  });
});

describe("buildInitiativeRequest", () => {
  test("agility from the sheet, bonus when mapped", () => {
    const request = buildInitiativeRequest({
      combatants: [{ id: "c1", name: "Aldric", view: hero }, { id: "c2", name: "Goblin", view: goblin }],
      mapping: { ...mapping, initiativeBonus: "system.attributes.ac.value" }, options: { seed: 7 },
    });
    assert.deepEqual(request, { combatants: [{ id: "c1", agility: 3, bonus: 12 }, { id: "c2", agility: 2, bonus: 14 }], seed: 7 });
  });

  test("a combatant without agility is named", () => {
    const blank = { id: "c3", name: "Statue", view: { actor: { system: {} } } };
    assert.throws(() => buildInitiativeRequest({ combatants: [blank], mapping }), /Statue: no Agility score at system\.attributes\.agility\.value/);
    assert.throws(() => buildInitiativeRequest({ combatants: [], mapping }), /no combatants/);
  });
});

describe("buildBulkRequest", () => {
  const skeletonActor = fakeActor({ uuid: "Actor.skel", name: "Skeleton", system: sheet({ str: 3 }) });
  const archerActor = fakeActor({ uuid: "Actor.arch", name: "Archer", system: sheet({ agi: 4 }), flags: { fracas: { strikes: [{ method: "range", style: "archery", dice: 1, damage_type: "piercing" }] } } });
  const skeletons = Array.from({ length: 7 }, (_, i) => ({ ...view(`sk${i}`, "Skeleton", skeletonActor), actorUuid: `Scene.s.Token.sk${i}.Actor.skel` }));
  const archers = [view("ar1", "Archer", archerActor), view("ar2", "Archer", archerActor)];
  const pcs = [view("pc1", "Aldric", hero.actor), view("pc2", "Goblin", goblin.actor)];
  const bone = { method: "melee", style: "slashing", dice: 1, weight: 1, damage_type: "edged" };

  test("splits counts evenly, first targets first", () => {
    assert.deepEqual(splitCounts(7, 3), [3, 2, 2]);
    assert.deepEqual(splitCounts(1, 3), [1, 0, 0]);
  });

  test("tokens grouped by actor as profiles; an actor's own strikes flag wins", () => {
    const { request, profileNames, targets } = buildBulkRequest({
      attackers: [...skeletons, ...archers], targets: pcs, strikes: [bone], mapping, options: { seed: 9, advantage: true },
    });
    // Profiles in key order (not selection order): the same tokens give the same request.
    assert.deepEqual(Object.keys(request.profiles), ["arch", "skel"]);
    assert.deepEqual(request.profiles.skel, { attacker: { strength: 3, agility: 2 }, strikes: [bone], advantage: true });
    assert.deepEqual(request.profiles.arch.strikes, archerActor.flags.fracas.strikes);
    assert.deepEqual(request.attacks, [
      { profile: "arch", target: "pc1", count: 1 }, { profile: "arch", target: "pc2", count: 1 },
      { profile: "skel", target: "pc1", count: 4 }, { profile: "skel", target: "pc2", count: 3 },
    ]);
    // 9 attacks: small enough for every attack's dice (the card carries them).
    assert.equal(request.detail, "dice");
    assert.equal(request.seed, 9);
    assert.deepEqual(profileNames, { skel: "Skeleton", arch: "Archer" });
    assert.deepEqual(targets.map((t) => t.id), ["pc1", "pc2"]);
  });

  test("each token's own conditions: tokens of one actor that differ get their own profile, whatever the selection order", () => {
    // Unlinked tokens: one base actor, each token's own synthetic actor with its own statuses.
    const token = (id, statuses) => ({ ...view(id, "Skeleton", fakeActor({ uuid: `Scene.s.Token.${id}.Actor.skel`, name: "Skeleton",
      system: sheet({ str: 3 }), statuses })), actorId: "skel", actorName: "Skeleton" });
    const mob = [token("sk1", []), token("sk2", ["prone"]), token("sk3", []), token("sk4", ["prone"])];
    const forward = buildBulkRequest({ attackers: mob, targets: pcs, strikes: [bone], mapping, options: { seed: 2 } });
    const backward = buildBulkRequest({ attackers: [...mob].reverse(), targets: pcs, strikes: [bone], mapping, options: { seed: 2 } });
    assert.deepEqual(backward.request, forward.request);
    assert.deepEqual(Object.keys(forward.request.profiles), ["skel", "skel-2"]);
    assert.deepEqual(forward.request.profiles.skel.attacker.conditions ?? [], []);
    assert.deepEqual(forward.request.profiles["skel-2"].attacker.conditions, ["prone"]);
    assert.deepEqual(forward.profileNames, { skel: "Skeleton", "skel-2": "Skeleton (prone)" });
    assert.equal(forward.request.attacks.reduce((n, a) => n + a.count, 0), 4);
  });

  test("assign each: every token attacks every target", () => {
    const { request } = buildBulkRequest({ attackers: skeletons.slice(0, 3), targets: pcs, strikes: [bone], assign: "each", mapping });
    assert.deepEqual(request.attacks.map((a) => a.count), [3, 3]);
  });

  test("an actor without strikes is named", () => {
    assert.throws(() => buildBulkRequest({ attackers: skeletons, targets: pcs, mapping }),
      /Skeleton: no strikes for this actor; pass strikes to api\.mob or set the actor flag fracas\.strikes/);
    assert.throws(() => buildBulkRequest({ attackers: skeletons, targets: pcs, strikes: [{ ...bone, target: "pc1" }], mapping }),
      /Skeleton strike 1: unknown field "target"/);
  });
});

describe("a mob's detail", () => {
  test("up to MOB_DICE_ATTACKS attacks ask for every attack's dice; a larger mob for the summary only", () => {
    assert.equal(MOB_DICE_ATTACKS, 200);
    assert.equal(bulkDetail([{ count: 150 }, { count: 50 }]), "dice");
    assert.equal(bulkDetail([{ count: 150 }, { count: 51 }]), "summary");
  });
});

describe("Worldwalker two-weapon fighting from the actor flag (WW-6)", () => {
  // One flat flags.fracas.worldwalker serves the actor attacking and attacked, as a fight reads it.
  const duelist = (id, name, flag) => view(id, name, fakeActor({ uuid: `Actor.${id}`, name, system: sheet({}), flags: { fracas: { worldwalker: flag } } }));
  const ayla = duelist("tokAyla", "Ayla", { skill: 5, str_mod: 2, defense: 13, armor: 1,
    two_weapon: { light: true, talent: "none" }, reaction: { kind: "block", bonus: 6, hand: "off" } });
  const brute = duelist("tokBrute", "Brute", { skill: 3, str_mod: 3, dex_mod: 0, defense: 11,
    two_weapon: { light: false, talent: "shield-specialist" }, reaction: { kind: "block", bonus: 5, hand: "primary" } });

  test("the attacker's side and the target's side of the flag, each with its two weapons", () => {
    const { request } = buildRulesetAttackRequest({ ruleset: "worldwalker", attacker: ayla, targets: [brute], mapping,
      strikes: [{ method: "melee", damage: "1d6", hand: "off", target: "tokBrute" }] });
    assert.deepEqual(request.attacker, { skill: 5, str_mod: 2, two_weapon: { light: true, talent: "none" } });
    assert.deepEqual(request.targets.tokBrute, { defense: 11, dex_mod: 0, two_weapon: { light: false, talent: "shield-specialist" },
      reaction: { kind: "block", bonus: 5, hand: "primary" } });
    assert.deepEqual(request.strikes, [{ method: "melee", damage: "1d6", hand: "off", target: "tokBrute" }]);
    // targetData wins over the flag: the GM says which hand blocks this time
    const other = buildRulesetAttackRequest({ ruleset: "worldwalker", attacker: brute, targets: [ayla], mapping,
      strikes: [{ method: "melee", damage: "1d8", target: "tokAyla" }], targetData: { reaction: { kind: "block", bonus: 6 } } });
    assert.deepEqual(other.request.targets.tokAyla.reaction, { kind: "block", bonus: 6 });
    assert.deepEqual(other.request.attacker.two_weapon, { light: false, talent: "shield-specialist" });
  });

  test("a mob's attackers keep their two weapons; the nested {attacker, target} form is read as it is", () => {
    const { request } = buildRulesetBulkRequest({ ruleset: "worldwalker", attackers: [ayla], targets: [brute], mapping,
      strikes: [{ method: "melee", damage: "1d6", hand: "off" }] });
    assert.deepEqual(request.profiles.tokAyla ?? Object.values(request.profiles)[0],
      { attacker: { skill: 5, str_mod: 2, two_weapon: { light: true, talent: "none" } }, strikes: [{ method: "melee", damage: "1d6", hand: "off" }] });
    assert.deepEqual(request.targets.tokBrute.reaction, { kind: "block", bonus: 5, hand: "primary" });
    const nested = duelist("tokN", "N", { attacker: { skill: 1 }, target: { defense: 9 }, strikes: [] });
    assert.deepEqual([flagPart(nested, "worldwalker", "attacker"), flagPart(nested, "worldwalker", "target")], [{ skill: 1 }, { defense: 9 }]);
    assert.deepEqual(flagPart(hero, "worldwalker", "attacker"), {});
  });
});
