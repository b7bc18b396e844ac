'use strict';
// The single-attack rules an audit found wrong (issue 42), in the Roll20 resolver, with
// injected dice: the same answers as the Python goldens (tests/engine/test_er_sight_bulk_speed.py,
// tests/rulesets/test_goldens_and_rules.py); the shared vectors hold the rest.
const test = require('node:test');
const assert = require('node:assert/strict');
const rulesets = require('../src/rulesets');

const { odds } = rulesets;
// Injected dice need no generator, but every call names its seed (the Mod draws one otherwise).
const resolve = (request) => rulesets.resolve(request, { seed: 1 });
const compete = (request) => rulesets.compete(request, { seed: 1 });

const SWORD = { target: 'g', method: 'melee', style: 'slashing', dice: 1, weight: 1, damage_type: 'edged' };
const BOW = { target: 'g', method: 'range', style: 'archery', dice: 1, damage_type: 'piercing' };

test('ER-15: a blind defender cannot see the attacks, so the attacker keeps its advantage', () => {
  const r = resolve({
    attacker: { strength: 2 }, strikes: [SWORD], targets: { g: { ac: 12, conditions: ['blind', 'defending'] } },
    rolls: [12, 9],
  });
  const s = r.strikes[0];
  assert.deepEqual([s.advantage, s.disadvantage, s.damage], [true, false, 2]);
  assert.deepEqual(s.dice.map((d) => d.source), ['skill', 'advantage']);
});

test('ER-15: a defender cannot see an invisible attacker: no disadvantage, one die', () => {
  const r = resolve({
    attacker: { agility: 2, conditions: ['invisible'] }, strikes: [BOW],
    targets: { g: { ac: 12, conditions: ['defending'] } }, rolls: [12],
  });
  assert.deepEqual([r.strikes[0].disadvantage, r.strikes[0].hits], [false, 1]);
  const seen = resolve({ attacker: { agility: 2 }, strikes: [BOW], targets: { g: { ac: 12, conditions: ['defending'] } },
    rolls: [12, 15] });
  assert.equal(seen.strikes[0].discarded, 15);
});

test('ER-15 in odds: a blind defending target is a blind target, P(hit) 1 - (9/20)^2', () => {
  const blind = odds({ attacker: { strength: 2 }, strikes: [SWORD], targets: { g: { ac: 12, conditions: ['blind', 'defending'] } } });
  const onlyBlind = odds({ attacker: { strength: 2 }, strikes: [SWORD], targets: { g: { ac: 12, conditions: ['blind'] } } });
  assert.deepEqual(blind.targets.g, onlyBlind.targets.g);
  assert.equal(blind.targets.g.p_hit_exact, '319/400');
});

const duel = (reaction, twoWeapon, rolls) => resolve({
  ruleset: 'worldwalker', attacker: { skill: 3, str_mod: 2 },
  strikes: [{ target: 'd', method: 'melee', damage: '1d8' }],
  targets: { d: Object.assign({ defense: 10, reaction }, twoWeapon ? { two_weapon: twoWeapon } : {}) }, rolls,
});

test('WW-6: the two-weapon penalties reach the block: +7 off hand blocks at -3, primary at +1', () => {
  const none = { light: false, talent: 'none' };
  assert.deepEqual(duel({ kind: 'block', bonus: 7, hand: 'off' }, none, [10, 17, 5]).strikes[0].reaction,
    { kind: 'block', roll: 17, bonus: -3, total: 14, negated: false });
  assert.equal(duel({ kind: 'block', bonus: 7 }, none, [10, 17]).strikes[0].reaction.bonus, 1);
  assert.equal(duel({ kind: 'block', bonus: 7, hand: 'off' }, { light: true, talent: 'dual-weapon-training' },
    [10, 17]).strikes[0].reaction.bonus, 5);
  assert.equal(duel({ kind: 'dodge', bonus: 7 }, none, [10, 17]).strikes[0].reaction.bonus, 7);
});

test('WW-6: an off-hand block needs two weapons, and a dodge names no hand', () => {
  assert.throws(() => duel({ kind: 'block', bonus: 7, hand: 'off' }, null, [10, 17]),
    (err) => err.path === '$.targets.d.reaction.hand' && /WW-6/.test(err.reason));
  assert.throws(() => duel({ kind: 'dodge', bonus: 7, hand: 'primary' }, { light: false, talent: 'none' }, [10, 17]),
    (err) => err.path === '$.targets.d.reaction.hand' && /WW-5, WW-6/.test(err.reason));
});

test('CT-2: a sword adds the STR bonus and a bow the AWA bonus: 13 and 7 on the same dice', () => {
  const r = resolve({
    ruleset: 'cartyrion', attacker: { level: 3, bonus: 8, awa: 2 },
    strikes: [{ target: 'o', method: 'melee', die: 'd6' }, { target: 'o', method: 'ranged', die: 'd6' }],
    targets: { o: {} }, rolls: [3, 2, 3, 2, 1],
  });
  assert.deepEqual(r.strikes.map((s) => [s.bonus, s.damage]), [[8, 13], [2, 7]]);
  const archer = resolve({ ruleset: 'cartyrion', attacker: { level: 1, bonus: 4 },
    strikes: [{ target: 'o', method: 'ranged', die: 'd6' }], targets: { o: {} }, rolls: [3, 1] });
  assert.equal(archer.strikes[0].bonus, 4); // no awa: the one bonus serves (the decision)
});

test('ER-19: a faster victim gains nothing against a grappler of unknown speed', () => {
  const grapple = (chal, rolls) => compete({
    contest: 'grapple', challenger: Object.assign({ id: 'ogre', strength: 4 }, chal),
    defender: { id: 'aria', strength: 4, speed: 40 }, rolls,
  });
  const unknown = grapple({}, [6, 3]);
  assert.deepEqual([unknown.defender.situation, unknown.winner], [[], 'ogre']);
  const known = grapple({ speed: 0 }, [6, 3]);
  assert.deepEqual([known.defender.situation, known.winner], [[{ why: 'faster by 40 ft', value: 4 }], 'aria']);
});
