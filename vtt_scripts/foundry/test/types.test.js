// The module's sources type-check against Foundry v13's published types
// (@league-of-foundry-developers/foundry-vtt-types, with tsc --checkJs): a call with the
// wrong arguments, a misspelt document property or a setting the module never registered
// fails here before it fails in a GM's browser.
import "./english.js";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const TSC = `${ROOT}node_modules/typescript/bin/tsc`;
const TYPES = `${ROOT}node_modules/@league-of-foundry-developers/foundry-vtt-types/package.json`;

/** Run tsc with `config`; skipped (or failed under CI) without npm install. */
function typecheck(t, config, what) {
  if (!existsSync(TSC) || !existsSync(TYPES)) {
    if (process.env.CI) assert.fail("typescript and the Foundry types are not installed: run npm install");
    t.skip("npm install has not been run");
    return;
  }
  const run = spawnSync(process.execPath, [TSC, "-p", config], { cwd: ROOT, encoding: "utf8" });
  assert.equal(run.status, 0, `${what} found errors:\n${run.stdout}${run.stderr}`);
}

test("tsc --checkJs against Foundry v13's types finds no error in scripts/", (t) => {
  typecheck(t, "vtt_scripts/foundry/tsconfig.json", "tsc");
});

test("tsc with strict: true finds no error in any script", (t) => {
  typecheck(t, "vtt_scripts/foundry/tsconfig.strict.json", "tsc (strict)");
});

test("the strict check covers every script of the module (none left to the lenient one)", () => {
  const dir = fileURLToPath(new URL("../", import.meta.url));
  const strict = JSON.parse(readFileSync(`${dir}tsconfig.strict.json`, "utf8"));
  const lenient = JSON.parse(readFileSync(`${dir}tsconfig.json`, "utf8"));
  assert.equal(strict.compilerOptions.strict, true);
  assert.ok(strict.include.includes("scripts/**/*.js"), `tsconfig.strict.json includes ${strict.include.join(", ")}`);
  // Only the generated codec is left out (it is checked through its .d.ts); strict inherits that exclude.
  assert.equal(strict.exclude, undefined, "tsconfig.strict.json excludes nothing of its own");
  assert.deepEqual(lenient.exclude, ["scripts/bigjson.js"]);
  const scripts = readdirSync(`${dir}scripts`, { recursive: true }).map(String).filter((f) => f.endsWith(".js") && f !== "bigjson.js");
  assert.ok(scripts.length >= 16, `${scripts.length} scripts`);
  // The actions' feature modules are in a folder: "scripts/**/*.js" covers them.
  assert.ok(scripts.some((f) => f.startsWith("actions/")), "scripts/actions/ is checked");
});
