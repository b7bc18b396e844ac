'use strict';
// Exact odds in JavaScript (the Mod script answers !fracas odds itself) against the
// Python engine: the shared vectors (tests/vectors/odds_vectors.json) hold answer for
// answer, exact fractions and floats alike, and error for error.
const test = require('node:test');
const assert = require('node:assert/strict');
const { odds } = require('../src/rulesets');
const H = require('./helpers');

test('the shared odds vectors: identical exact answers in Python and JavaScript', (t) => {
  const vectors = H.loadVectors('odds_vectors.json', JSON.parse);
  const counts = { result: 0, error: 0, bridgeOnly: 0 };
  for (const v of vectors) {
    // Vectors follow each ruleset's declared clients: no Roll20 port, no replay here.
    if (!H.hasRoll20Port(v.request)) {
      counts.bridgeOnly += 1;
      continue;
    }
    let got;
    try {
      got = odds(v.request);
    } catch (err) {
      if (!v.error || err.path === undefined) throw err;
      assert.deepEqual({ type: err.name, path: err.path, reason: err.reason }, v.error, v.name);
      counts.error += 1;
      continue;
    }
    assert.ok(!v.error, `${v.name}: expected ${JSON.stringify(v.error)}`);
    assert.deepEqual(got, v.result, v.name);
    counts.result += 1;
  }
  assert.ok(counts.result >= 50 && counts.error >= 10, JSON.stringify(counts));
  t.diagnostic(`${counts.result} answers and ${counts.error} errors identical; ${counts.bridgeOnly} of bridge-only rulesets left to Python`);
});

test('the reference answer: 3d20+2 vs AC 14 hits with 6669/8000, mean 11979/3800 up to the stated cut', () => {
  const r = odds({
    attacker: { strength: 0, strength_mod: 1 },
    strikes: [{ target: 'g', method: 'melee', style: 'slashing', dice: 3, bonus: 2, weight: 1, damage_type: 'edged' }],
    targets: { g: { ac: 14 } },
  });
  assert.equal(r.targets.g.p_hit_exact, '6669/8000');
  assert.ok(Math.abs(r.targets.g.mean - 11979 / 3800) < 1e-12);
  assert.ok(r.cut < 1e-15);
});

test('too large to enumerate: the same LimitError as Python, before the work', () => {
  const strike = { method: 'melee', style: 'slashing', dice: 5, weight: 2, damage_type: 'edged', target: 'g' };
  assert.throws(() => odds({ attacker: { strength: 6 }, strikes: Array(200).fill(strike), targets: { g: { ac: 10 } } }),
    (err) => err.name === 'LimitError' && err.path === '$.strikes' && /1,000,000 steps/.test(err.reason));
  assert.throws(() => odds({ ruleset: 'cartyrion', attacker: { level: 3 }, count: 40,
    strikes: [{ target: 't', method: 'melee', die: 'd6' }], targets: { t: {} } }),
  (err) => err.name === 'LimitError' && err.path === '$.count' && /at most \d+ here/.test(err.reason));
});
