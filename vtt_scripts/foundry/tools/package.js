#!/usr/bin/env node
// Package the module for installation in Foundry: writes the zip (module.json, README.md,
// scripts/, styles/, lang/ at the archive root, as Foundry's installer expects) and
// OUT/module.json. Both manifests point at the project's GitHub release of this version,
// as the release's own assets do (python -m fracas.release makes those, with the same
// layout; tests/release/test_release_assets.py compares the two):
//   "manifest": ".../releases/latest/download/module.json",
//   "download": ".../releases/download/v<version>/fracas-foundry-<version>.zip"
// With --base-url (hosting it yourself) they are "<base>/module.json" and "<base>/fracas.zip".
// The zip is named after its download address: OUT/fracas-foundry-<version>.zip, or OUT/fracas.zip.
//
//   node vtt_scripts/foundry/tools/package.js --out dist/foundry [--base-url https://host/path]

import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const MODULE_DIR = fileURLToPath(new URL("../", import.meta.url));
/** The project's repository, whose releases host the module (fracas.release: REPOSITORY). */
export const REPOSITORY = "https://github.com/fracas-vtt/fracas";
const SHIPPED = ["module.json", "README.md", "scripts", "styles", "lang"];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 (the zip checksum) of a buffer. */
export function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * A zip archive (stored, no compression: the module is small) of `entries`.
 * @param {{name: string, data: Buffer}[]} entries
 * @returns {Buffer}
 */
export function zip(entries) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  // 1980-01-01 00:00: a fixed date keeps the archive reproducible.
  const time = 0;
  const date = (0 << 9) | (1 << 5) | 1;
  for (const { name, data } of entries) {
    const nameBuf = Buffer.from(name, "utf8");
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, nameBuf, data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(0, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(date, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBuf.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, nameBuf);
    offset += 30 + nameBuf.length + data.length;
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

function filesUnder(path) {
  if (statSync(path).isFile()) return [path];
  return readdirSync(path).sort().flatMap((name) => filesUnder(join(path, name)));
}

/** module.json with the manifest and download URLs of `baseUrl`, or of the GitHub release. */
export function manifestFor(baseUrl) {
  const manifest = JSON.parse(readFileSync(join(MODULE_DIR, "module.json"), "utf8"));
  if (baseUrl) {
    const base = baseUrl.replace(/\/+$/, "");
    manifest.manifest = `${base}/module.json`;
    manifest.download = `${base}/fracas.zip`;
  } else {
    const { version } = manifest;
    Object.assign(manifest, {
      url: REPOSITORY,
      manifest: `${REPOSITORY}/releases/latest/download/module.json`,
      download: `${REPOSITORY}/releases/download/v${version}/fracas-foundry-${version}.zip`,
      bugs: `${REPOSITORY}/issues`,
      changelog: `${REPOSITORY}/blob/main/CHANGELOG.md`,
    });
  }
  return manifest;
}

/** Write OUT/fracas.zip and OUT/module.json; returns their paths and the zip's entry names. */
export function packageModule({ out, baseUrl }) {
  const manifest = manifestFor(baseUrl);
  const manifestText = `${JSON.stringify(manifest, null, 2)}\n`;
  const entries = SHIPPED.flatMap((item) => filesUnder(join(MODULE_DIR, item))).map((file) => {
    const name = relative(MODULE_DIR, file).split(sep).join("/");
    return { name, data: name === "module.json" ? Buffer.from(manifestText) : readFileSync(file) };
  });
  mkdirSync(out, { recursive: true });
  const zipPath = join(out, manifest.download.split("/").pop());
  const manifestPath = join(out, "module.json");
  writeFileSync(zipPath, zip(entries));
  writeFileSync(manifestPath, manifestText);
  return { zipPath, manifestPath, names: entries.map((e) => e.name) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const value = (flag) => {
    const i = args.indexOf(flag);
    return i >= 0 ? args[i + 1] : undefined;
  };
  if (args.includes("--help") || !value("--out")) {
    console.log("usage: node vtt_scripts/foundry/tools/package.js --out DIR [--base-url URL]");
    process.exit(args.includes("--help") ? 0 : 2);
  }
  const { zipPath, manifestPath, names } = packageModule({ out: value("--out"), baseUrl: value("--base-url") });
  console.log(`wrote ${zipPath} (${names.length} files) and ${manifestPath}`);
}
