'use strict';
// The relay in a real browser: Debian's Chromium loads the relay extension unpacked,
// a page that mimics Roll20's chat stands in for the editor, the extension's popup is
// given the bridge URL, token and relay secret, its background worker connects to a real
// `fracas serve` (which accepts the extension's origin by default), and the Mod script
// (the built fracas.js in the emulated sandbox) is wired to that page's chat.
// `!fracas mob` then makes the whole round trip: sandbox → signed whisper frames → page →
// content script → worker → bridge (attack.bulk) → worker → chat box → sandbox → bars,
// card, undo. The page itself never holds the token or the secret, and a frame it plants
// is not signed, so it never reaches the bridge.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const H = require('./helpers');
const { Emulator } = require('./emulator');
const { plain } = require('./world');
const P = require('../src/protocol');

const CHROMIUM = process.env.FRACAS_CHROMIUM || '/usr/bin/chromium';
const WAIT_MS = 30000; // how long a step may take before the test gives up (not a speed check)

function prerequisites() {
  let playwright = null;
  try {
    playwright = require('playwright-core');
  } catch (err) {
    return { missing: 'playwright-core is not installed (run npm install in the repository root)' };
  }
  if (!fs.existsSync(CHROMIUM)) return { missing: `no Chromium at ${CHROMIUM} (apt-get install chromium)` };
  if (!H.pythonHasFracas()) return { missing: `no Python with fracas at ${H.pythonPath()}` };
  return { playwright };
}

/** Serve the test page on 127.0.0.1 (an OS-chosen port). */
function startPageServer() {
  const page = fs.readFileSync(path.join(__dirname, 'fixtures', 'relay-page.html'));
  const server = http.createServer((req, res) => {
    if (req.url.startsWith('/editor')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Start `fracas serve` (python -m fracas.bridge) and read its URL from the banner. */
function startBridge(journal, token) {
  // No --allow-origin: the relay extension's origin is one of the bridge's defaults.
  const child = spawn(H.pythonPath(), ['-m', 'fracas.bridge', '--port', '0', '--token', token,
    '--journal', journal], { cwd: H.REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the bridge printed no url: ${out}\n${err}`)), WAIT_MS);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /^\s*url:\s+(ws:\/\/127\.0\.0\.1:\d+)\s*$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], log: () => err });
      }
    });
    child.on('exit', (code) => reject(new Error(`the bridge exited (${code}): ${err}`)));
  });
}

async function waitFor(what, check) {
  const end = Date.now() + WAIT_MS;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('relay round trip: !fracas mob through Chromium and a real fracas serve', async (t) => {
  const pre = prerequisites();
  if (pre.missing) return H.skipUnlessCI(t, pre.missing);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fracas-relay-'));
  const server = await startPageServer();
  const origin = `http://127.0.0.1:${server.address().port}`;
  const token = 'relay-test-token-0123456789';
  const bridge = await startBridge(path.join(tmp, 'journal.sqlite3'), token);
  // The extension as shipped, but also injected into the test page's origin.
  const ext = path.join(tmp, 'extension');
  fs.cpSync(path.join(H.ROLL20_DIR, 'extension'), ext, { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(ext, 'manifest.json'), 'utf8'));
  manifest.content_scripts[0].matches.push('http://127.0.0.1/*');
  fs.writeFileSync(path.join(ext, 'manifest.json'), JSON.stringify(manifest));
  // A fresh profile directory each run (Playwright passes it as --user-data-dir).
  const browser = await pre.playwright.chromium.launchPersistentContext(path.join(tmp, 'profile'), {
    executablePath: CHROMIUM,
    headless: false,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--disable-extensions-except=${ext}`, `--load-extension=${ext}`],
  });
  t.after(async () => {
    await browser.close().catch(() => {});
    bridge.child.kill('SIGTERM');
    await new Promise((r) => server.close(r));
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  // The table: five skeletons, a goblin, a knight.
  const emu = new Emulator();
  const skeleton = emu.addCharacter('Skeleton', { strength: 3, fracas_strikes: '--dice 1 --style slashing --weight 1 --type edged' });
  const skeletons = [0, 1, 2, 3, 4].map((i) => emu.addToken({ name: `Skeleton ${i + 1}`, represents: skeleton.id }));
  const goblin = emu.addToken({ name: 'Goblin', represents: emu.addCharacter('Goblin', { ac: 8 }).id, bar1_value: '40', bar1_max: '40' });
  const knight = emu.addToken({ name: 'Knight', represents: emu.addCharacter('Knight', { ac: 9, resistant: 'edged' }).id, bar1_value: '40', bar1_max: '40' });

  const page = await browser.newPage();
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(err.message));
  // Chat typed on the page goes to the sandbox as the GM; the sandbox's whispers to the GM appear on the page.
  await page.exposeFunction('roll20Send', (text) => { emu.chat(emu.gm, text); });
  const toPage = [];
  emu.onOutput = (out) => { if (out.to === 'gm') toPage.push(out.text); };
  const pump = setInterval(() => {
    while (toPage.length) {
      const html = toPage.shift();
      page.evaluate((h) => window.addMessage('whisper', h), html).catch(() => {});
    }
  }, 10);
  t.after(() => clearInterval(pump));

  // The extension's worker; its id is the one its manifest key fixes (the bridge's default origin).
  let [worker] = browser.serviceWorkers();
  if (!worker) worker = await browser.waitForEvent('serviceworker', { timeout: WAIT_MS });
  const extensionId = new URL(worker.url()).host;
  assert.equal(extensionId, 'gkdobbfmdgnlmmlkeoifkomnimlgpnaa');

  await page.goto(`${origin}/editor/`);
  // The GM pastes the URL, the token and the secret the Mod script whispered into the popup.
  const secret = emu.state.fracas.relay.secret;
  assert.match(secret, /^[0-9a-f]{64}$/);
  const popup = await browser.newPage();
  await popup.goto(`chrome-extension://${extensionId}/popup.html`);
  await popup.fill('#url', bridge.url);
  await popup.fill('#token', token);
  await popup.fill('#secret', secret);
  await popup.click('#save');

  // The relay authenticates and says hello to the Mod script through the chat box.
  await waitFor('the relay hello', () => emu.state.fracas.relay.last_hello);
  assert.equal(emu.state.fracas.relay.last_hello.bridge, bridge.url);
  await waitFor('the popup status', async () => /connected to ws:\/\/127\.0\.0\.1/.test(await popup.textContent('#status')));
  assert.match(await popup.textContent('#diagnosis'), /Working/);
  const status = () => popup.evaluate(() => new Promise((r) => chrome.runtime.sendMessage({ type: 'status' }, r)));

  // The page holds neither the token nor the secret, and a frame it plants is not signed:
  // the worker refuses it and nothing reaches the bridge.
  const pageSees = await page.evaluate(() => JSON.stringify(Object.assign({}, window.localStorage)) +
    document.documentElement.outerHTML + Object.keys(window).join(' '));
  assert.ok(!pageSees.includes(token) && !pageSees.includes(secret), 'the page can read the token or the secret');
  const planted = P.frames('req', 'planted-1', JSON.stringify({ jsonrpc: '2.0', id: 'planted-1', method: 'attack.bulk',
    params: { profiles: {}, targets: {}, attacks: [] } }))[0];
  await page.evaluate((f) => window.addMessage('general', f), planted);
  await waitFor('the planted frame refused', async () => (await status()).stats.refused === 1);

  const sent = emu.chat(emu.gm, `!fracas mob --target ${goblin.id} --target ${knight.id}`, { selected: skeletons.map((s) => s.id) });
  const r = new P.Reassembler();
  let rpc = null;
  for (const o of sent) {
    const frame = P.parseFrame(o.text);
    const whole = frame && r.add(frame);
    if (whole) rpc = JSON.parse(whole.text);
  }
  assert.ok(rpc, 'the mob request went out as frames');
  const card = await waitFor('the mob card', () => emu.outputs.find((o) => o.text.startsWith('&{template:default}')));

  // What the bridge rolled is what the engine rolls for that request and seed.
  const py = spawnSync(H.pythonPath(), ['-c',
    'import json,sys,fracas; r=fracas.resolve_bulk(json.load(sys.stdin)).to_dict(); print(json.dumps({k: v["damage"] for k, v in r["targets"].items()}))'],
  { cwd: H.REPO_ROOT, input: JSON.stringify(rpc.params), encoding: 'utf8' });
  assert.equal(py.status, 0, py.stderr);
  const damage = JSON.parse(py.stdout);
  assert.ok(damage[goblin.id] > 0 && damage[knight.id] > 0, `AC 8 and 9 against +3 should take damage: ${py.stdout}`);
  assert.equal(goblin.get('bar1_value'), Math.max(0, 40 - damage[goblin.id]));
  assert.equal(knight.get('bar1_value'), Math.max(0, 40 - damage[knight.id]));
  const fields = Emulator.fields(card.text);
  assert.match(plain(fields.Goblin), new RegExp(`^${damage[goblin.id]} damage from 3 attacks`));
  assert.match(plain(fields.Knight), new RegExp(`^${damage[knight.id]} damage from 2 attacks`));
  assert.equal(Object.keys(emu.state.fracas.relay.pending).length, 0);

  // Relay frames are hidden on the page; nothing was applied twice.
  const visible = await page.$$eval('#textchat .content .message', (els) => els.filter((e) => e.style.display !== 'none' && e.textContent.includes('FRACAS1')).length);
  assert.equal(visible, 0);

  // The journal has the roll under the request id, and replays it exactly.
  const before = emu.outputs.length;
  emu.chat(emu.gm, `!fracas replay ${rpc.id}`);
  const replayed = await waitFor('the journal replay', () => emu.outputs.slice(before).find((o) => /journal\.replay/.test(plain(o.text))));
  assert.match(plain(replayed.text), /✓ the replay matches the journaled result/);

  emu.chat(emu.gm, '!fracas undo');
  assert.equal(goblin.get('bar1_value'), '40');
  // Only the Mod script's requests (mob, replay) reached the bridge; the planted one never did.
  assert.equal((await status()).stats.forwarded, 2);
  assert.deepEqual(pageErrors, []);
});
