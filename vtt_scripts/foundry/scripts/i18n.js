// Translatable strings: every label and message the module shows goes through
// `t(key, data)`. In Foundry the strings come from game.i18n, which loads the files
// module.json lists under "languages" (lang/en.json, lang/de.json) the Foundry way, and
// falls back to English for a key a translation lacks. Nothing is imported here: an
// `import … with {type: "json"}` (Baseline 2025) would stop the whole module from
// parsing on Firefox ESR 128 and older Chromium/Electron. Outside Foundry (the node
// tests) `useStrings` gives the English file's strings. `{name}` in a string is filled
// from `data`.

/** @type {Record<string, string>} */
let fallback = {};

/**
 * The strings to use where there is no game.i18n (the node tests: lang/en.json).
 * @param {Record<string, string>} strings
 */
export function useStrings(strings) {
  fallback = { ...strings };
}

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
  if (typeof text !== "string" || text === key) text = fallback[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (Object.prototype.hasOwnProperty.call(data, name) ? String(data[name]) : m));
}
