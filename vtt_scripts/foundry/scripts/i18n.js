// Translatable strings: every label the module shows goes through `t(key, data)`.
// In Foundry the translation comes from game.i18n (module.json lists lang/en.json and
// any other languages); outside Foundry (the node tests) and for a key a translation
// lacks, the English of lang/en.json is used. `{name}` in a string is filled from `data`.

import EN from "../lang/en.json" with { type: "json" };

/** The English strings (lang/en.json), for tests and fallbacks. */
export const ENGLISH = EN;

/**
 * The string `key` in the user's language, with `{name}` placeholders filled.
 * @param {string} key
 * @param {Record<string, unknown>} [data]
 * @returns {string}
 */
export function t(key, data = {}) {
  const i18n = /** @type {any} Foundry's game, or nothing outside Foundry */ (globalThis).game?.i18n;
  let text = null;
  if (i18n && typeof i18n.has === "function" && i18n.has(key)) text = i18n.localize(key);
  if (typeof text !== "string" || text === key) text = EN[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (Object.prototype.hasOwnProperty.call(data, name) ? String(data[name]) : m));
}
