'use strict';
// ER-18 initiative in JavaScript against src/fracas/rulesets/er/initiative.py: same request + seed ⇒ same order.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { rollInitiative } = require('../src/initiative');
const bigjson = require('../src/bigjson');
const H = require('./helpers');

function runAll(vectors) {
  const counts = { result: 0, error: 0 };
  for (const v of vectors) counts[H.checkVector(rollInitiative, v, { keepBackend: true })] += 1;
  return counts;
}

test('the initiative fixture made by test/tools/er_fuzz.py', () => {
  const counts = runAll(require('./fixtures/initiative_cross_check.json'));
  assert.ok(counts.result >= 100 && counts.error >= 5, JSON.stringify(counts));
});

test('fresh initiative vectors from the Python engine as it is now', (t) => {
  if (!H.pythonHasFracas()) return H.skipUnlessCI(t, `no Python with fracas at ${H.pythonPath()}`);
  const run = spawnSync(H.pythonPath(), [path.join(__dirname, 'tools', 'er_fuzz.py'), 'initiative', '11', '400'],
    { cwd: H.REPO_ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(run.status, 0, run.stderr);
  const counts = runAll(bigjson.parse(run.stdout));
  assert.ok(counts.result >= 100, JSON.stringify(counts));
});

test('ties are broken by d20 roll-offs, repeated until resolved', () => {
  // Injected dice: both roll 5 (tie at 5 + 0), roll off 7 vs 7 (still tied), then 3 vs 12.
  const result = rollInitiative({
    combatants: [{ id: 'a', agility_mod: 0 }, { id: 'b', agility_mod: 0 }],
    rolls: [5, 5, 7, 7, 3, 12],
  }, { seed: 1 });
  assert.deepEqual(result.order.map((e) => [e.id, e.total, e.tiebreaks]), [['b', 5, [7, 12]], ['a', 5, [7, 3]]]);
});
