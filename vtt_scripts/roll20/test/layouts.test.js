'use strict';
// Every result the JavaScript resolver builds has the layout the Python engine declares
// for it (contract.js RESULTS, generated from each ruleset's msgspec result types): every
// key, no other, in the declared order, nested shapes included. The vector tests compare
// results with assert.deepEqual, which ignores key order; this holds the order too.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { layoutProblems } = require('../src/schema');
const { RESULTS, DEFAULT_RULESET } = require('../src/contract');
const R = require('../src/rulesets');
const { resolve: resolveER } = require('../src/engine');
const { rollInitiative: rollErInitiative } = require('../src/initiative');
const bigjson = require('../src/bigjson');
const H = require('./helpers');

// What each vector set replays, as its own test does (vectors.test.js, rulesets.test.js,
// odds.test.js, initiative.test.js): the calls by kind.
const SETS = [
  { name: 'tests/vectors/er_vectors.json', load: () => H.loadVectors('er_vectors.json'), calls: { attack: resolveER } },
  { name: 'tests/vectors/er_specials_vectors.json', load: () => H.loadVectors('er_specials_vectors.json'),
    calls: { attack: resolveER, compete: R.compete, impale: R.impale } },
  { name: 'tests/vectors/rulesets_vectors.json', load: () => H.loadVectors('rulesets_vectors.json'),
    calls: { attack: R.resolve, initiative: R.rollInitiative, morale: R.checkMorale, counterspell: R.counterspell } },
  { name: 'tests/vectors/odds_vectors.json', load: () => H.loadVectors('odds_vectors.json', JSON.parse),
    calls: { odds: (request) => R.odds(request) }, kind: 'odds' },
  { name: 'test/fixtures/er_cross_check.json', load: () => require('./fixtures/er_cross_check.json'),
    calls: { attack: resolveER } },
  { name: 'test/fixtures/initiative_cross_check.json', load: () => require('./fixtures/initiative_cross_check.json'),
    calls: { initiative: rollErInitiative }, kind: 'initiative' },
];

// The kinds the Mod sends to the bridge instead of building (mod/bulk.js: a mob's bulk
// request goes through the relay), and Enchanted Realms' `save`, `touch`, `drop`, `lock` and
// `throw` and `slam`, which have no JavaScript port (the bridge's save.roll, touch.roll, drop.roll, lock.roll,
// throw.roll and slam.roll roll them; for `!fracas save`, `touch`, `drop`, `lock`: mod/bridgekinds.js,
// whose cards read the answer after layoutProblems passes it), nor have old-school saving
// throws, the same `save` kind (docs/rules/old-school.md); their layouts are checked on
// Python's results below.
const BRIDGE_BUILT = ['bulk', 'save', 'touch', 'drop', 'lock', 'throw', 'slam'];

function rulesetOf(request) {
  return request !== null && typeof request === 'object' && typeof request.ruleset === 'string'
    ? request.ruleset : DEFAULT_RULESET;
}

/** Replay `vectors` (kinds → calls) and check each result built; counts per ruleset and kind. */
function checkAll(set, counts, failures) {
  for (const v of set.load()) {
    if (!H.hasRoll20Port(v.request)) continue; // left to Python, as the replay tests leave it
    const kind = set.kind || v.kind || 'attack';
    let result;
    try {
      result = set.calls[kind](v.request, { seed: v.seed });
    } catch (err) {
      if (err.path === undefined) throw err;
      continue; // an error: the replay tests compare it; no result to lay out
    }
    const ruleset = rulesetOf(v.request);
    const key = `${ruleset} ${kind}`;
    counts[key] = (counts[key] || 0) + 1;
    for (const problem of layoutProblems(ruleset, kind, result)) failures.push(`${set.name} ${v.name}: ${problem}`);
  }
}

test('every result the resolver builds for the shared vectors has its declared layout', (t) => {
  const counts = {};
  const failures = [];
  for (const set of SETS) checkAll(set, counts, failures);
  assert.deepEqual(failures.slice(0, 10), [], `${failures.length} results out of layout`);
  // Every kind of every ported ruleset was checked, but the ones the bridge builds.
  for (const [ruleset, layout] of Object.entries(RESULTS)) {
    for (const kind of Object.keys(layout.kinds)) {
      if (BRIDGE_BUILT.includes(kind)) continue;
      assert.ok(counts[`${ruleset} ${kind}`] > 0, `no ${kind} result of ${ruleset} was checked`);
    }
  }
  t.diagnostic(Object.entries(counts).map(([k, n]) => `${k}: ${n}`).join('; '));
});

test('the contract lays out every kind of every ruleset the Mod resolves offline', () => {
  const ported = require('../src/contract').RULESETS.filter((r) => r.roll20).map((r) => r.name);
  assert.deepEqual(Object.keys(RESULTS), ported);
  for (const name of ported) {
    const { kinds, shapes } = RESULTS[name];
    const requests = Object.keys(require('../src/contract').RULESETS.find((r) => r.name === name).requests);
    for (const kind of requests) assert.ok(kinds[kind], `${name}: no layout of its ${kind} results`);
    assert.ok(kinds.odds, `${name}: no layout of its odds`);
    for (const shape of Object.values(kinds)) assert.ok(Array.isArray(shapes[shape]), `${name}: no shape ${shape}`);
  }
});

// One built result of each nesting the layouts have: a list of shapes (strikes), an object
// of shapes (targets), a nullable shape (stray), an optional key (a die's `avoided`).
function erAttack() {
  return resolveER({
    attacker: { strength: 2 },
    strikes: [{ target: 'g', method: 'melee', style: 'slashing', dice: 2, weight: 1, damage_type: 'edged' }],
    targets: { g: { ac: 12 } },
    rolls: [15, 4],
  }, { seed: 7 });
}

/** `obj` with its keys in the order `keys` (the others after). */
function reordered(obj, keys) {
  const out = {};
  for (const key of keys) out[key] = obj[key];
  for (const key of Object.keys(obj)) if (!(key in out)) out[key] = obj[key];
  return out;
}

test('the check fails on a key more, a key less and a wrong order, at any depth', () => {
  const er = 'enchanted-realms';
  const good = erAttack();
  assert.deepEqual(layoutProblems(er, 'attack', good), []);

  const more = Object.assign(erAttack(), { crits: 0 });
  assert.deepEqual(layoutProblems(er, 'attack', more), ['$: key(s) crits not in the AttackResult layout']);

  const less = erAttack();
  delete less.injected;
  assert.deepEqual(layoutProblems(er, 'attack', less), ['$: no key injected (AttackResult)']);
  const undef = Object.assign(erAttack(), { flee: undefined }); // JSON would drop it
  assert.deepEqual(layoutProblems(er, 'attack', undef), ['$: no key flee (AttackResult)']);

  const swapped = reordered(erAttack(), ['ruleset', 'backend', 'seed']);
  assert.deepEqual(layoutProblems(er, 'attack', swapped), [
    '$: keys in the order ruleset, backend, seed, injected, strikes, targets, total_damage, flee, defense_rolls; ' +
    'the AttackResult layout has ruleset, seed, backend, injected, strikes, targets, total_damage, flee, defense_rolls',
  ]);

  // Nested: a strike (list of shapes), a die in it, a target (object of shapes).
  const deep = erAttack();
  delete deep.strikes[0].crit;
  deep.strikes[0].dice[1].why = 'x';
  deep.targets.g = reordered(deep.targets.g, ['by_type']);
  assert.deepEqual(layoutProblems(er, 'attack', deep), [
    '$.strikes[0].dice[1]: key(s) why not in the Die layout',
    '$.strikes[0]: no key crit (Strike)',
    '$.targets.g: keys in the order by_type, damage, undodgeable, shock_save_dc, shock_save, grapple_release; ' +
    'the Target layout has damage, by_type, undodgeable, shock_save_dc, shock_save, grapple_release',
  ]);

  // A nullable shape is checked when present; the wrong kind of value is named.
  const stray = erAttack();
  stray.strikes[0].stray = { roll: 3 };
  assert.ok(layoutProblems(er, 'attack', stray).some((p) => p === '$.strikes[0].stray: no key creature (Stray)'));
  const flat = erAttack();
  flat.strikes = {};
  assert.deepEqual(layoutProblems(er, 'attack', flat), ['$.strikes: expected an array, got object']);

  // An optional key may be absent or present, in its place.
  const avoided = erAttack();
  avoided.strikes[0].dice[0].avoided = false;
  assert.deepEqual(layoutProblems(er, 'attack', avoided), []);
  avoided.strikes[0].dice[0] = reordered(avoided.strikes[0].dice[0], ['avoided']);
  assert.equal(layoutProblems(er, 'attack', avoided).length, 1);

  // A ruleset or kind the contract does not lay out is a problem, not a pass.
  assert.deepEqual(layoutProblems('d6-pool', 'attack', good), ['$: no attack result layout for ruleset d6-pool']);
  assert.deepEqual(layoutProblems(er, 'morale', good), ['$: no morale result layout for ruleset enchanted-realms']);
});

test('the check follows a list of plain values or shapes (a listed bulk attack) and the other rulesets', () => {
  const strike = R.resolve({
    ruleset: 'old-school', attacker: {}, strikes: [{ target: 't', method: 'melee', damage: '1d6' }],
    targets: { t: { ac: 12 } }, rolls: [15, 4],
  }, { seed: 1 }).strikes[0];
  const bulk = (strikes) => ({
    ruleset: 'old-school', seed: 1, backend: 'compiled', detail: 'dice', attacks_total: 1,
    targets: { t: { damage: 4, attacks: 1, attacks_hit: 1, strikes: 1, strikes_hit: 1 } },
    groups: [{ profile: 'p', target: 't', count: 1, attacks_hit: 1, hit_rate: 1, damage: 4, mean_damage: 4, exploded: 0, histogram: [0, 0, 0, 0, 1] }],
    total_damage: 4, attacks: [{ group: 0, damage: 4, strikes }],
  });
  assert.deepEqual(layoutProblems('old-school', 'bulk', bulk([4])), []);
  assert.deepEqual(layoutProblems('old-school', 'bulk', bulk([strike])), []);
  const { hit, ...noHit } = strike;
  assert.equal(hit, true);
  assert.deepEqual(layoutProblems('old-school', 'bulk', bulk([noHit])), ['$.attacks[0].strikes[0]: no key hit (Strike)']);
  const summary = bulk([]);
  delete summary.attacks; // `attacks` is there unless detail is "summary"
  assert.deepEqual(layoutProblems('old-school', 'bulk', summary), []);
});

test('Python\'s results of every kind, bulk included, have the layouts the Mod checks', (t) => {
  if (!H.pythonHasFracas()) return H.skipUnlessCI(t, `no Python with fracas at ${H.pythonPath()}`);
  // Each ruleset's manifest [requests] (one request of each kind, the conformance suite's),
  // resolved by the Python engine as the bridge resolves it: what the Mod gets back.
  const script = [
    'import sys, fracas',
    'from fracas import rulesets',
    'out = []',
    'for name in rulesets.names():',
    '    ruleset = rulesets.get(name)',
    '    if ruleset.manifest is None: continue',
    '    for kind, request in ruleset.manifest.requests.items():',
    '        result = fracas.resolve_bulk(request, seed=5) if kind == "bulk" else fracas.roll(kind, request, seed=5)',
    '        out.append({"ruleset": name, "kind": kind, "result": result.to_dict()})',
    '    attack = ruleset.manifest.requests.get("attack")',
    '    if attack is not None:',
    '        odds = fracas.odds(attack)',
    '        out.append({"ruleset": name, "kind": "odds", "result": getattr(odds, "to_dict", lambda: odds)()})',
    'import json; json.dump(out, sys.stdout)',
  ].join('\n');
  const run = spawnSync(H.pythonPath(), ['-c', script], { cwd: H.REPO_ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(run.status, 0, run.stderr);
  const results = bigjson.parse(run.stdout);
  const seen = new Set();
  for (const { ruleset, kind, result } of results) {
    if (!RESULTS[ruleset]) continue;
    seen.add(`${ruleset} ${kind}`);
    assert.deepEqual(layoutProblems(ruleset, kind, result), [], `${ruleset} ${kind}`);
  }
  for (const [ruleset, layout] of Object.entries(RESULTS)) {
    for (const kind of BRIDGE_BUILT) if (layout.kinds[kind]) assert.ok(seen.has(`${ruleset} ${kind}`), `${ruleset} ${kind}`);
  }
  t.diagnostic(`${results.length} Python results laid out as declared (${path.basename(H.pythonPath())})`);
});
