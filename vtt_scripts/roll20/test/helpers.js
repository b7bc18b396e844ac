'use strict';
// Shared by the tests: where the repository and its Python are, and how a vector is checked.
const fs = require('node:fs');
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

module.exports = { ROLL20_DIR, REPO_ROOT, pythonPath, pythonHasFracas, skipUnlessCI, checkVector };
