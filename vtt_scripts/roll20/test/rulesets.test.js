'use strict';
// Worldwalker, Cartyrion and old-school in JavaScript against the Python engine:
// the shared vectors (tests/vectors/rulesets_vectors.json) hold result for result
// and error for error (type, path, reason), and the texts' goldens hold here too.
const test = require('node:test');
const assert = require('node:assert/strict');
const { resolve, rollInitiative, checkMorale, counterspell } = require('../src/rulesets');
const H = require('./helpers');

const CALLS = { attack: resolve, initiative: rollInitiative, morale: checkMorale, counterspell };

test('the shared vectors of the three rulesets', (t) => {
  const vectors = H.loadVectors('rulesets_vectors.json');
  const counts = { result: 0, error: 0, bridgeOnly: 0 };
  for (const v of vectors) {
    // Vectors follow each ruleset's declared clients: no Roll20 port, no replay here.
    if (!H.hasRoll20Port(v.request)) {
      counts.bridgeOnly += 1;
      continue;
    }
    let got;
    try {
      got = CALLS[v.kind](v.request, { seed: v.seed });
    } catch (err) {
      if (!v.error || err.path === undefined) throw err;
      assert.deepEqual({ type: err.name, path: err.path, reason: err.reason }, v.error, v.name);
      counts.error += 1;
      continue;
    }
    assert.ok(!v.error, `${v.name}: expected ${JSON.stringify(v.error)}, got a result`);
    const copy = Object.assign({}, got);
    if (v.kind === 'attack') {
      assert.equal(copy.backend, 'javascript');
      delete copy.backend;
    }
    assert.deepEqual(copy, v.result, v.name);
    counts.result += 1;
  }
  assert.ok(counts.result >= 150 && counts.error >= 50, JSON.stringify(counts));
  t.diagnostic(`${counts.result} results and ${counts.error} errors identical; ${counts.bridgeOnly} of bridge-only rulesets left to Python`);
});

test('CT goldens: Tombril 31, the giant 43 with four explosions, Cedryk 12 or 9', () => {
  const ct = (attacker, strike, target, rolls) => resolve({
    ruleset: 'cartyrion', attacker, strikes: [Object.assign({ target: 't', method: 'melee' }, strike)],
    targets: { t: target }, rolls,
  }, { seed: 1 });
  assert.equal(ct({ level: 9, bonus: 8, magic: 2 }, { die: 'd6' }, { dex: 3, armor: 1 }, [5, 3, 4, 3, 2]).total_damage, 31);
  const giant = ct({ level: 12, bonus: 9 }, { die: 'd6' }, { dex: 5, armor: 3 }, [6, 5, 3, 6, 2, 6, 5, 1, 6, 2]);
  assert.equal(giant.total_damage, 43);
  assert.equal(giant.strikes[0].exploded, 4);
  assert.equal(ct({ level: 3, bonus: 4 }, { die: 'd4', sneak: 'passed' }, { dex: 2, armor: 3 }, [4, 2, 2]).targets.t.injury, 12);
  assert.equal(ct({ level: 3, bonus: 4 }, { die: 'd4', sneak: 'failed' }, { dex: 2, armor: 3 }, [4, 2, 2]).total_damage, 9);
});

test('CT-3 explosions stop at CT_EXPLODE_LIMIT and the strike says explosions_cut, as in Python', () => {
  // CT-3: "each maximum face adds another die of that type, without end"; decision: a bound.
  const { CT_EXPLODE_LIMIT: LIMIT } = require('../src/facts');
  const ct = (strike, rolls) => resolve({
    ruleset: 'cartyrion', attacker: { level: 1 }, strikes: [Object.assign({ target: 't', method: 'melee', die: 'd4' }, strike)],
    targets: { t: {} }, rolls,
  }, { seed: 1 }).strikes[0];
  const fours = (n) => new Array(n).fill(4);
  let s = ct({}, fours(LIMIT + 1));
  assert.deepEqual([s.exploded, s.dice_total, s.explosions_cut], [LIMIT, 4 * (LIMIT + 1), true]);
  s = ct({ dice: 2 }, fours(LIMIT + 1).concat([1])); // a pending 4 past the bound, then a 1
  assert.deepEqual([s.exploded, s.faces.length, s.explosions_cut], [LIMIT, LIMIT + 2, true]);
  s = ct({}, fours(LIMIT).concat([3])); // the bound reached, nothing past it
  assert.deepEqual([s.exploded, s.explosions_cut], [LIMIT, false]);
  assert.throws(() => ct({}, fours(LIMIT + 1).concat([2])), (err) => err.name === 'DiceError' && err.path === '$.rolls');
});

test('bad input names its path and rule, as in Python', () => {
  assert.throws(() => resolve({ ruleset: 'cartyrion', attacker: {}, strikes: [{ target: 't', method: 'melee', die: 'd7' }], targets: { t: {} } }),
    (err) => err.name === 'RulesError' && err.path === '$.strikes[0].die' && /CT-3/.test(err.reason));
  assert.throws(() => resolve({ ruleset: 'worldwalker', attacker: {}, strikes: [{ target: 't', method: 'melee', damage: '1d8', critical: 6 }], targets: { t: { defense: 10 } } }),
    (err) => err.path === '$.strikes[0].critical' && /WW-4/.test(err.reason));
  assert.throws(() => resolve({ ruleset: 'old-school', attacker: {}, strikes: [{ target: 't', method: 'missile', damage: '1d6', range: 'beyond' }], targets: { t: { ac: 12 } } }),
    (err) => err.path === '$.strikes[0].range' && /OS-3/.test(err.reason));
  assert.throws(() => checkMorale({ morale: 7 }), (err) => err.name === 'RulesError' && err.path === '$.ruleset');
  assert.throws(() => resolve({ ruleset: 'chess' }), (err) => err.path === '$.ruleset' && /old-school/.test(err.reason));
});

test('vector replay follows the declared clients: a ruleset without a Roll20 port is left to Python', () => {
  const registry = [{ name: 'old-school', roll20: true }, { name: 'd6-pool', roll20: false }];
  assert.equal(H.hasRoll20Port({ ruleset: 'd6-pool' }, registry), false);
  assert.equal(H.hasRoll20Port({ ruleset: 'old-school' }, registry), true);
  assert.equal(H.hasRoll20Port({ attacker: {} }, registry), true, 'no ruleset: Enchanted Realms');
  assert.equal(H.hasRoll20Port({ ruleset: 'chess' }, registry), true, 'unknown: replayed, its vector expects the error');
  // Every built-in ruleset has its port: all their vectors are replayed.
  for (const r of require('../src/contract').RULESETS) assert.equal(H.hasRoll20Port({ ruleset: r.name }), true, r.name);
});
