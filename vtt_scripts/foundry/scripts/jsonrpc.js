// JSON-RPC 2.0 messages for the bridge, with one twist: seeds are 64-bit integers,
// which JSON.parse would round (a double holds 53 bits). Integer literals beyond
// Number.MAX_SAFE_INTEGER are decoded as BigInt and encoded back without quotes, so a
// seed shown on a chat card is the seed that replays the roll. The codec is the Roll20
// Mod script's (bigjson.js, generated from it), so both clients read seeds alike.

import { parse, stringify } from "./bigjson.js";

/**
 * A JSON-RPC request object.
 * @param {string|number|null} id
 * @param {string} method
 * @param {unknown} [params]
 * @returns {{jsonrpc: "2.0", id: string|number|null, method: string, params?: unknown}}
 */
export function makeRequest(id, method, params) {
  /** @type {{jsonrpc: "2.0", id: string|number|null, method: string, params?: unknown}} */
  const message = { jsonrpc: "2.0", id, method };
  if (params !== undefined) message.params = params;
  return message;
}

/**
 * JSON text for `value`, writing BigInt values as plain integer literals.
 * @param {unknown} value
 * @returns {string}
 */
export function encodeMessage(value) {
  return stringify(value);
}

/**
 * Parse JSON text; integer literals too large for a double become BigInt.
 * Throws SyntaxError on invalid JSON, as JSON.parse does.
 * @param {string} text
 * @returns {any} any JSON value (a reply's shape is checked where it is read)
 */
export function decodeMessage(text) {
  return parse(text);
}

/**
 * A seed as the engine takes it (0 ≤ seed < 2^64): a number, a BigInt, or a string
 * of digits. Returns undefined for undefined/null/"", and null when invalid.
 * @param {unknown} seed
 * @returns {number|bigint|null|undefined}
 */
export function normalizeSeed(seed) {
  if (seed === undefined || seed === null || seed === "") return undefined;
  let big;
  try {
    if (typeof seed === "number") {
      if (!Number.isSafeInteger(seed)) return null;
      big = BigInt(seed);
    } else if (typeof seed === "bigint") {
      big = seed;
    } else if (typeof seed === "string" && /^\s*\d+\s*$/.test(seed)) {
      big = BigInt(seed.trim());
    } else {
      return null;
    }
  } catch {
    return null;
  }
  if (big < 0n || big >= 1n << 64n) return null;
  return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}
