import "./english.js";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { PYTHON, tempDir } from "../testenv/harness.js";
import { crc32, packageModule } from "../tools/package.js";

test("crc32 matches the standard check value", () => {
  assert.equal(crc32(Buffer.from("123456789")), 0xcbf43926);
});

test("the package: a zip Foundry can install and a manifest pointing at it", (t) => {
  const tmp = tempDir();
  t.after(tmp.remove);
  const { zipPath, manifestPath, names } = packageModule({ out: tmp.dir, baseUrl: "https://example.org/fracas/" });
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  assert.equal(manifest.manifest, "https://example.org/fracas/module.json");
  assert.equal(manifest.download, "https://example.org/fracas/fracas.zip");
  assert.ok(names.includes("module.json") && names.includes("scripts/main.js") && names.includes("styles/fracas.css"));
  assert.ok(!names.some((n) => /^(test|testenv|tools)\//.test(n) || n === "package.json"), "tests and tools stay out");
  for (const file of manifest.esmodules) assert.ok(names.includes(file), `${file} is in the zip`);

  // An independent reader checks the archive: Python's zipfile (CRCs and contents).
  const python = existsSync(PYTHON) ? PYTHON : "python3";
  const check = [
    "import json, sys, zipfile",
    "z = zipfile.ZipFile(sys.argv[1])",
    "assert z.testzip() is None",
    "print(json.dumps({'names': z.namelist(), 'manifest': json.loads(z.read('module.json'))}))",
  ].join("\n");
  const seen = JSON.parse(execFileSync(python, ["-c", check, zipPath], { encoding: "utf8" }));
  assert.deepEqual(seen.names, names);
  assert.deepEqual(seen.manifest, manifest);
  assert.equal(readFileSync(join(tmp.dir, "fracas.zip")).length > 1000, true);
});
