'use strict';
// The committed single files are what build.js makes from the sources today.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { buildAll } = require('../build');

test('fracas.js and fracas-relay.user.js are up to date with src/ and relay/', () => {
  for (const [file, text] of Object.entries(buildAll())) {
    const committed = fs.readFileSync(path.join(__dirname, '..', file), 'utf8');
    assert.ok(committed === text, `${file} is stale: run node vtt_scripts/roll20/build.js and commit it`);
    assert.doesNotThrow(() => new vm.Script(text, { filename: file }), `${file} does not parse`);
  }
});

test('the userscript header is what Tampermonkey and Violentmonkey read', () => {
  const text = buildAll()['fracas-relay.user.js'];
  assert.match(text, /^\/\/ ==UserScript==\n/);
  assert.match(text, /\n\/\/ @match\s+https:\/\/app\.roll20\.net\/editor\/\*\n/);
  assert.match(text, /\n\/\/ ==\/UserScript==\n/);
});
