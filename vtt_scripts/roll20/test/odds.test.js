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

test('a mob past max_mob_cost: refused before the work, naming the estimate, the limit and what fits (as Python)', () => {
  // The typical strike of the bench (3d20 +2 vs AC 14): Python refuses 1,000 of them with these
  // exact words (tests/engine/test_mob_cost.py) and answers 37.
  const typical = {
    ruleset: 'enchanted-realms', attacker: { strength: 2, strength_mod: 1 },
    strikes: [{ method: 'melee', style: 'slashing', dice: 3, weight: 1, damage_type: 'edged', target: 'foe' }],
    targets: { foe: { ac: 14 } },
  };
  let reason = '';
  assert.throws(() => odds({ ...typical, count: 1000 }), (err) => {
    reason = err.reason;
    return err.name === 'LimitError' && err.path === '$.count';
  });
  const found = /would take about ([0-9.e+]+) units of work to sum exactly, past the 5\.00e\+07 allowed \(max_mob_cost\); at most (\d+) here/.exec(reason);
  assert.ok(found, reason);
  const most = Number(found[2]);
  assert.equal(odds({ ...typical, count: most }).count, most);
  assert.throws(() => odds({ ...typical, count: most + 1 }), (err) => err.reason.includes(`at most ${most} here`));
});

test('a mob is the exact sum of its attacks (the packed power is the convolution)', () => {
  const one = odds({ attacker: { strength: 4 }, strikes: [{ method: 'melee', style: 'slashing', dice: 2, weight: 1, damage_type: 'edged', target: 'g' }], targets: { g: { ac: 12 } } });
  const three = odds({ attacker: { strength: 4 }, count: 3, strikes: [{ method: 'melee', style: 'slashing', dice: 2, weight: 1, damage_type: 'edged', target: 'g' }], targets: { g: { ac: 12 } } });
  // The three-fold convolution, by pairs, from the one attack's exact fractions.
  const p = one.targets.g.exact.map(([v, f]) => [v, f.split('/').map(BigInt)]);
  const den = p.reduce((d, [, [, q]]) => (d > q ? d : q), 1n);
  let w = new Map([[0, 1n]]);
  let total = 1n;
  for (let k = 0; k < 3; k++) {
    const next = new Map();
    for (const [a, x] of w) for (const [v, [num, q]] of p) next.set(a + v, (next.get(a + v) || 0n) + x * num * (den / q));
    w = next;
    total *= den;
  }
  const gcd = (a, b) => (b ? gcd(b, a % b) : a);
  const expected = [...w].filter(([, x]) => x).sort((a, b) => a[0] - b[0]).map(([v, x]) => {
    const g = gcd(x, total);
    return [v, `${x / g}/${total / g}`];
  });
  assert.deepEqual(three.targets.g.exact, expected);
});
