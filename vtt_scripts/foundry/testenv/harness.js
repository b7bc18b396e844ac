// Node-side helpers for the browser test: a static file server for the module
// directory, the real bridge as a subprocess, and headless Chromium. Everything
// listens on 127.0.0.1 with ports the OS picks.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const MODULE_DIR = fileURLToPath(new URL("../", import.meta.url));
export const REPO_DIR = resolve(MODULE_DIR, "../..");
export const CHROMIUM = process.env.FRACAS_CHROMIUM || "/usr/bin/chromium";
export const PYTHON = process.env.FRACAS_PYTHON || join(REPO_DIR, ".venv/bin/python");

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json" };

/**
 * Serve the module directory (or `dir`: a packaged module unpacked, with the test page beside
 * it) read-only on 127.0.0.1:<OS port>.
 * @param {{dir?: string}} [options]
 */
export async function serveModule({ dir = MODULE_DIR } = {}) {
  const root = resolve(dir);
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^[/\\]+/, "");
    const file = resolve(root, path);
    if (!file.startsWith(root.replace(/[/\\]$/, "") + sep) || !existsSync(file)) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
    res.end(readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address();
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((ok) => server.close(ok)) };
}

/**
 * Start `python -m fracas.bridge` and wait for the url line of its banner.
 * @returns {Promise<{url: string, port: number, stop: () => Promise<void>, output: () => string}>}
 */
export function startBridge({ token, origin, journal, port = 0, d6Pool = false }) {
  const flags = ["--port", String(port), "--token", token, "--journal", journal,
    "--allow-origin", origin, "--journal-sync", "normal", "--log-level", "warning"];
  // d6Pool: `fracas serve` with the tests' d6-pool plug-in registered (docs/examples/d6pool), a
  // ruleset this module does not port, as the Roll20 relay test does (its helpers' WITH_D6_POOL).
  const args = d6Pool ? ["-c", 'import sys; sys.path.insert(0, "docs/examples/d6pool"); import fracas.rulesets; '
    + 'fracas.rulesets.register_package("d6pool")\nfrom fracas.bridge.cli import serve\n'
    + 'serve(prog_name="fracas serve", args=sys.argv[1:])', ...flags] : ["-m", "fracas.bridge", ...flags];
  const child = spawn(PYTHON, args, { cwd: REPO_DIR, env: { ...process.env, PYTHONUNBUFFERED: "1" }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr.on("data", (d) => { err += d; });
  const exited = new Promise((ok) => child.once("exit", ok));
  return new Promise((ok, fail) => {
    child.stdout.on("data", (d) => {
      out += d;
      const m = /^\s*url:\s+(ws:\/\/\S+)\s*$/m.exec(out);
      if (m) {
        ok({
          url: m[1],
          port: Number(new URL(m[1]).port),
          output: () => out + err,
          stop: async () => {
            if (child.exitCode === null) child.kill("SIGTERM");
            await exited;
          },
        });
      }
    });
    child.once("exit", (code) => fail(new Error(`the bridge exited (${code}) before printing its url:\n${out}${err}`)));
    child.once("error", fail);
  });
}

/** A fresh temporary directory, removed by the returned function. */
export function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), "fracas-foundry-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * How long one step (a wait, a click, a page load) may take before a test gives up: not a
 * speed check, a deadline against a hang. Playwright's own is 30 s; a CI lane shares its
 * two cores with a whole pytest run, so a step is given two minutes.
 */
export const WAIT_MS = 120_000;

/** Launch Debian's headless Chromium through playwright-core (every step's deadline WAIT_MS). */
export async function launchChromium(userDataDir) {
  const { chromium } = await import("playwright-core");
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    timeout: WAIT_MS,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  context.setDefaultTimeout(WAIT_MS);
  return context;
}

/** Why the browser test cannot run here, or null when it can. */
/**
 * Close every page a test opened (`opened` is emptied), passed or failed: a GM page left open
 * would stay the holder of the bridge for the tests after it, as a real open tab would.
 */
export async function closePages(opened) {
  for (const page of opened.splice(0)) if (!page.isClosed()) await page.close();
}

/** Stop what a Chromium suite started: the browser, the bridge, the site, the scratch folder. */
export async function stopAll({ browser, bridge, site, tmp }) {
  await browser?.close();
  await bridge?.stop();
  await site?.close();
  tmp?.remove();
}

export function missingPrerequisite() {
  if (!existsSync(CHROMIUM)) return `chromium not found at ${CHROMIUM} (apt-get install chromium)`;
  if (!existsSync(PYTHON)) return `python not found at ${PYTHON} (set FRACAS_PYTHON)`;
  try {
    // Resolve playwright-core the way the test will import it.
    import.meta.resolve("playwright-core");
  } catch {
    return "playwright-core is not installed (npm install)";
  }
  return null;
}
