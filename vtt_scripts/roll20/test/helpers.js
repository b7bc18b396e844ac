'use strict';
// Shared by the tests: where the repository and its Python are, and how a vector is checked.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const assert = require('node:assert/strict');

const ROLL20_DIR = path.resolve(__dirname, '..');
const REPO_ROOT = path.resolve(ROLL20_DIR, '..', '..');

/** The Python that has fracas installed: $FRACAS_PYTHON, else the repository's .venv. */
function pythonPath() {
  return process.env.FRACAS_PYTHON || path.join(REPO_ROOT, '.venv', 'bin', 'python');
}

let pythonChecked = null;
/** Whether that Python exists and imports fracas (checked once). */
function pythonHasFracas() {
  if (pythonChecked === null) {
    const py = pythonPath();
    pythonChecked = fs.existsSync(py) &&
      spawnSync(py, ['-c', 'import fracas.cli'], { cwd: REPO_ROOT, encoding: 'utf8' }).status === 0;
  }
  return pythonChecked;
}

/** Under CI a missing prerequisite is a failure, not a skip. */
function skipUnlessCI(t, reason) {
  if (process.env.CI) assert.fail(`${reason} (CI is set, so this cannot be skipped)`);
  t.skip(reason);
}

/**
 * Whether this resolver should replay a vector of `request`: its ruleset has a Roll20 port
 * (the contract's `roll20`, from the ruleset's declared clients). A ruleset the contract
 * does not know is replayed (its vectors expect the unknown-ruleset error); a bridge-only
 * ruleset's vectors are for the Python backends alone.
 */
function hasRoll20Port(request, registry = require('../src/contract').RULESETS) {
  const name = request !== null && typeof request === 'object' && typeof request.ruleset === 'string' ? request.ruleset : null;
  const entry = name === null ? undefined : registry.find((r) => r.name === name);
  return !entry || entry.roll20;
}

/**
 * The built fracas.js with more rulesets in its generated contract, as `python -m fracas.spec`
 * writes a ruleset registered beside the built-in ones: `extra` is [{entry, structs}] (a
 * RULESETS entry and its STRUCTS). Written to a temporary file; returns its path.
 */
function bundleWithRulesets(extra) {
  const source = fs.readFileSync(path.join(ROLL20_DIR, 'fracas.js'), 'utf8');
  const lists = ['const RULESETS = Object.freeze([', 'const STRUCTS = Object.freeze({'];
  for (const line of lists) assert.equal(source.split(line).length, 2, `the bundle holds contract.js once (${line})`);
  const patched = source
    .replace(lists[0], `${lists[0]}\n${extra.map((x) => `  ${JSON.stringify(x.entry)},`).join('\n')}`)
    .replace(lists[1], `${lists[1]}\n${extra.map((x) => `  ${JSON.stringify(x.entry.name)}: ${JSON.stringify(x.structs)},`).join('\n')}`);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fracas-bundle-')), 'fracas.js');
  fs.writeFileSync(file, patched);
  return file;
}

/**
 * Python that registers the tests' d6 pool (the package docs/examples/d6pool, with its
 * manifest: no Roll20 port) through the public registry, then runs what follows it.
 */
const WITH_D6_POOL = 'import sys; sys.path.insert(0, "docs/examples/d6pool"); import fracas, fracas.rulesets; ' +
  'fracas.rulesets.register_package("d6pool")\n';

/**
 * The d6 pool's contract entry and structs ({entry, structs}), as `python -m fracas.spec`
 * writes them for the package (test/fixtures/d6pool_contract.json, made by
 * test/tools/d6pool_contract.py; `--check` keeps it current).
 */
function d6PoolContract() {
  return JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'd6pool_contract.json'), 'utf8'));
}

/**
 * The shared known-answer vectors tests/vectors/<file> (`parse`: bigjson's, which keeps
 * integers past 2^53 exact; odds.test.js reads its file with JSON.parse).
 */
function loadVectors(file, parse = require('../src/bigjson').parse) {
  return parse(fs.readFileSync(path.join(REPO_ROOT, 'tests', 'vectors', file), 'utf8'));
}

/**
 * Run one known-answer vector through `resolve` and compare: the whole result dict
 * (without `backend`) for a result, the path and reason for an error.
 */
function checkVector(resolve, vector, options = {}) {
  let result;
  try {
    result = resolve(vector.request, { seed: vector.seed });
  } catch (err) {
    if (!vector.error || err.path === undefined) throw err;
    assert.equal(err.path, vector.error.path, `${vector.name}: error path (${err.message})`);
    if (vector.error.message !== undefined) {
      assert.equal(err.reason, vector.error.message, `${vector.name}: error reason`);
    }
    return 'error';
  }
  assert.ok(!vector.error, `${vector.name}: expected the error ${JSON.stringify(vector.error)}, got a result`);
  const copy = Object.assign({}, result);
  if (!options.keepBackend) {
    assert.equal(result.backend, 'javascript');
    delete copy.backend;
  }
  assert.deepEqual(copy, vector.result, `${vector.name}: result differs`);
  return 'result';
}

module.exports = {
  ROLL20_DIR, REPO_ROOT, pythonPath, pythonHasFracas, skipUnlessCI, checkVector, bundleWithRulesets, d6PoolContract, WITH_D6_POOL,
  hasRoll20Port, loadVectors,
};
