// Reading actor data by configurable dotted paths ("system.attributes.ac.value").
// Systems store numbers as numbers or numeric strings, and lists as arrays, Sets or
// comma-separated strings; these readers accept all of them and say what they found
// when it is none of them.

import { t } from "./i18n.js";

/**
 * The value at a dotted `path` inside `source`, or undefined.
 * @param {unknown} source
 * @param {string|null|undefined} path
 * @returns {any} whatever the document holds there (actor data has no fixed type)
 */
export function getPath(source, path) {
  if (!path) return undefined;
  /** @type {any} a step into any document's data */
  let node = source;
  for (const key of path.split(".")) {
    if (node === null || node === undefined) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * An integer at `path`, or `undefined` when the path is empty or holds nothing.
 * @param {unknown} source
 * @param {string|null|undefined} path
 * @returns {{value?: number, problem?: string}}
 */
export function readInteger(source, path) {
  if (!path) return {};
  const raw = getPath(source, path);
  if (raw === undefined || raw === null || raw === "") return { problem: t("FRACAS.Path.Nothing", { path }) };
  const value = typeof raw === "string" ? Number(raw.trim()) : raw;
  if (typeof value !== "number" || !Number.isFinite(value)) {
    return { problem: t("FRACAS.Path.NotNumber", { path, value: JSON.stringify(raw) }) };
  }
  if (!Number.isInteger(value)) return { problem: t("FRACAS.Path.NotWhole", { path, value }) };
  return { value };
}

/**
 * A list of lower-case names at `path` (array, Set, or "fire, cold"); [] when absent.
 * @param {unknown} source
 * @param {string|null|undefined} path
 * @returns {string[]}
 */
export function readNames(source, path) {
  if (!path) return [];
  const raw = getPath(source, path);
  if (raw === undefined || raw === null || raw === "") return [];
  let items;
  if (typeof raw === "string") items = raw.split(/[,;]/);
  else if (Array.isArray(raw) || raw instanceof Set) items = [...raw];
  else if (typeof raw === "object") items = Object.keys(raw).filter((k) => raw[k]);
  else items = [String(raw)];
  return [...new Set(items.map((s) => String(s).trim().toLowerCase()).filter(Boolean))];
}

/**
 * A lower-case word at `path` ("large"), or undefined when absent.
 * @param {unknown} source
 * @param {string|null|undefined} path
 * @returns {string|undefined}
 */
export function readWord(source, path) {
  if (!path) return undefined;
  const raw = getPath(source, path);
  if (raw === undefined || raw === null || raw === "") return undefined;
  return String(raw).trim().toLowerCase();
}
