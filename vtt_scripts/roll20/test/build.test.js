'use strict';
// The committed single files are what build.js makes from the sources today.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { buildAll } = require('../build');

test('fracas.js and the extension scripts are up to date with src/ and relay/', () => {
  for (const [file, text] of Object.entries(buildAll())) {
    const committed = fs.readFileSync(path.join(__dirname, '..', file), 'utf8');
    assert.ok(committed === text, `${file} is stale: run node vtt_scripts/roll20/build.js and commit it`);
    assert.doesNotThrow(() => new vm.Script(text, { filename: file }), `${file} does not parse`);
  }
});

test('the relay extension: Manifest V3 for Chromium and Firefox, only Roll20 and the local bridge', () => {
  const dir = path.join(__dirname, '..', 'extension');
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  assert.equal(manifest.manifest_version, 3);
  assert.equal(manifest.background.service_worker, 'background.js'); // Chromium
  assert.deepEqual(manifest.background.scripts, ['background.js']); // Firefox
  assert.deepEqual(manifest.content_scripts.map((c) => c.matches).flat(),
    ['https://app.roll20.net/editor', 'https://app.roll20.net/editor/*']);
  assert.deepEqual(manifest.host_permissions, ['ws://127.0.0.1/*', 'ws://localhost/*']);
  assert.deepEqual(manifest.permissions, ['storage']);
  assert.ok(!manifest.externally_connectable, 'no web page may message the extension');
  for (const file of ['background.js', 'content.js', 'popup.html', 'popup.js']) assert.ok(fs.existsSync(path.join(dir, file)), file);
  // The key fixes the Chromium extension id, which the bridge accepts by default (bridge/server.py).
  const crypto = require('node:crypto');
  const digest = crypto.createHash('sha256').update(Buffer.from(manifest.key, 'base64')).digest('hex').slice(0, 32);
  const id = digest.replace(/./g, (c) => String.fromCharCode(97 + parseInt(c, 16)));
  const server = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'bridge', 'server.py'), 'utf8');
  assert.ok(server.includes(`RELAY_EXTENSION_ID = "${id}"`), `the bridge does not know the extension id ${id}`);
  // The content script carries chat only: it never reads settings or storage.
  const content = fs.readFileSync(path.join(dir, 'content.js'), 'utf8');
  assert.ok(!/storage|token|secret/.test(content.replace(/\/\/.*$/gm, '')), 'the content script touches the token or secret');
});
