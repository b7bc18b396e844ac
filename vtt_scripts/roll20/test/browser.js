'use strict';
// The end-to-end harness of the relay's browser tests (relay.browser.test.js,
// forecast.browser.test.js): Debian's Chromium loads the shipped relay extension unpacked
// (its content script also injected into the test page's origin), a page that mimics Roll20's
// chat (fixtures/relay-page.html) stands in for the editor, a real `fracas serve` answers, and
// the Mod script (the built fracas.js in the emulated sandbox) is wired to that page's chat:
// what the page's chat box sends reaches the sandbox as the GM's message, and what the sandbox
// whispers to the GM appears on the page, where the extension reads the relay frames.
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { spawn } = require('node:child_process');
const H = require('./helpers');
const P = require('../src/protocol');

const CHROMIUM = process.env.FRACAS_CHROMIUM || '/usr/bin/chromium';
// How long a step may take before a test gives up: not a speed check, a deadline against a hang
// (Playwright's own is 30 s; a CI lane shares its two cores with a whole pytest run).
const WAIT_MS = 120000;

/** {playwright} when Chromium, playwright-core and a Python with fracas are here, else {missing: why}. */
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

/**
 * Start `fracas serve` (python -m fracas.bridge's serve) and read its URL from the banner.
 * `prelude`: Python run first (e.g. helpers.WITH_D6_POOL, which registers the tests' d6 pool).
 * No --allow-origin: the relay extension's origin is one of the bridge's defaults.
 */
function startBridge(journal, token, prelude = 'import sys\n') {
  const child = spawn(H.pythonPath(), ['-c', `${prelude}from fracas.bridge.cli import serve
serve(prog_name="fracas serve", args=sys.argv[1:])`, '--port', '0', '--token', token,
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

/** The JSON-RPC requests some outputs carry as relay frames. */
function rpcs(outputs) {
  const r = new P.Reassembler();
  const out = [];
  for (const o of outputs) {
    const frame = P.parseFrame(o.text);
    const whole = frame && r.add(frame);
    if (whole) out.push(JSON.parse(whole.text));
  }
  return out;
}

/**
 * Chromium with the shipped extension, the test page and the extension's popup, wired to the
 * emulated sandbox `emu`: {browser, page, popup, status(), pageErrors, extensionId, close()}.
 * `tmp`: a scratch directory (the extension's copy and the browser profile go there).
 */
async function openTable(playwright, emu, tmp) {
  const server = await startPageServer();
  const origin = `http://127.0.0.1:${server.address().port}`;
  // The extension as shipped, but also injected into the test page's origin.
  const ext = path.join(tmp, 'extension');
  fs.cpSync(path.join(H.ROLL20_DIR, 'extension'), ext, { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(ext, 'manifest.json'), 'utf8'));
  manifest.content_scripts[0].matches.push('http://127.0.0.1/*');
  fs.writeFileSync(path.join(ext, 'manifest.json'), JSON.stringify(manifest));
  // A fresh profile directory each run (Playwright passes it as --user-data-dir).
  const browser = await playwright.chromium.launchPersistentContext(path.join(tmp, 'profile'), {
    executablePath: CHROMIUM,
    headless: false,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--disable-extensions-except=${ext}`, `--load-extension=${ext}`],
    timeout: WAIT_MS,
  });
  browser.setDefaultTimeout(WAIT_MS);
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
  // The extension's worker; its id is the one its manifest key fixes (the bridge's default origin).
  let [worker] = browser.serviceWorkers();
  if (!worker) worker = await browser.waitForEvent('serviceworker', { timeout: WAIT_MS });
  const extensionId = new URL(worker.url()).host;
  await page.goto(`${origin}/editor/`);
  const popup = await browser.newPage();
  await popup.goto(`chrome-extension://${extensionId}/popup.html`);
  const status = () => popup.evaluate(() => new Promise((r) => chrome.runtime.sendMessage({ type: 'status' }, r)));
  const close = async () => {
    clearInterval(pump);
    await browser.close().catch(() => {});
    await new Promise((r) => server.close(r));
  };
  return { browser, page, popup, status, pageErrors, extensionId, close };
}

/** The GM pastes the bridge URL, its token and the relay secret into the popup; the relay says hello. */
async function connect(table, emu, bridge, token) {
  await table.popup.fill('#url', bridge.url);
  await table.popup.fill('#token', token);
  await table.popup.fill('#secret', emu.state.fracas.relay.secret);
  await table.popup.click('#save');
  await waitFor('the relay hello', () => emu.state.fracas.relay.last_hello);
}

/** A test file's table `T` ({missing} when a prerequisite is not here): whether to run a test (else skipped, or failed under CI). */
function ready(t, T) {
  if (T.missing) {
    H.skipUnlessCI(t, T.missing);
    return false;
  }
  return true;
}

/** Close a test file's table `T` (browser, page server), stop its bridge, remove its scratch directory. */
async function teardown(T) {
  if (!T || T.missing) return;
  await T.close();
  T.bridge.child.kill('SIGTERM');
  fs.rmSync(T.tmp, { recursive: true, force: true });
}

module.exports = { CHROMIUM, WAIT_MS, prerequisites, startBridge, waitFor, rpcs, openTable, connect, ready, teardown };
