'use strict';
// The JavaScript resolver against the Python engine: same request + same seed ⇒
// the same result dict (docs/ENGINE.md), and the same error path and reason.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { resolve } = require('../src/engine');
const H = require('./helpers');
const bigjson = require('../src/bigjson');

function runAll(vectors) {
  const counts = { result: 0, error: 0 };
  for (const vector of vectors) counts[H.checkVector(resolve, vector)] += 1;
  return counts;
}

test('the shared known-answer vectors (tests/vectors/er_vectors.json)', (t) => {
  const file = path.join(H.REPO_ROOT, 'tests', 'vectors', 'er_vectors.json');
  if (!fs.existsSync(file)) return H.skipUnlessCI(t, `${file} is not there yet`);
  const vectors = bigjson.parse(fs.readFileSync(file, 'utf8'));
  assert.ok(vectors.length > 0, 'the vectors file is empty');
  const counts = runAll(vectors);
  t.diagnostic(`${counts.result} results and ${counts.error} errors identical`);
});

test('the cross-check fixture made by test/tools/er_fuzz.py', (t) => {
  const vectors = require('./fixtures/er_cross_check.json');
  const counts = runAll(vectors);
  // The fixture holds both kinds; a fixture of only errors would prove little.
  assert.ok(counts.result >= 100, `only ${counts.result} results`);
  assert.ok(counts.error >= 100, `only ${counts.error} errors`);
});

test('fresh random vectors from the Python engine as it is now', (t) => {
  if (!H.pythonHasFracas()) return H.skipUnlessCI(t, `no Python with fracas at ${H.pythonPath()}`);
  const tool = path.join(__dirname, 'tools', 'er_fuzz.py');
  const seed = 97;
  const run = spawnSync(H.pythonPath(), [tool, 'fuzz', String(seed), '1500'], {
    cwd: H.REPO_ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(run.status, 0, run.stderr);
  const counts = runAll(bigjson.parse(run.stdout));
  assert.ok(counts.result >= 300, `only ${counts.result} results`);
  t.diagnostic(`fuzz seed ${seed}: ${counts.result} results and ${counts.error} errors identical`);
});

test('the ER specials vectors (tests/vectors/er_specials_vectors.json): ER-17, ER-19 … ER-23', (t) => {
  const { compete } = require('../src/specials');
  const { impale } = require('../src/impale');
  const vectors = H.loadVectors('er_specials_vectors.json');
  const calls = { attack: resolve, compete, impale };
  const counts = { result: 0, error: 0 };
  for (const vector of vectors) {
    counts[H.checkVector(calls[vector.kind], vector, { keepBackend: vector.kind !== 'attack' })] += 1;
  }
  assert.ok(counts.result >= 250 && counts.error >= 50, JSON.stringify(counts));
  t.diagnostic(`${counts.result} results and ${counts.error} errors identical`);
});
