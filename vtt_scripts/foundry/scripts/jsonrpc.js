// JSON-RPC 2.0 messages for the bridge, with one twist: seeds are 64-bit integers,
// which JSON.parse would round (a double holds 53 bits). Integer literals beyond
// Number.MAX_SAFE_INTEGER are decoded as BigInt and encoded back without quotes, so a
// seed shown on a chat card is the seed that replays the roll. The codec is the Roll20
// Mod script's (bigjson.js, generated from it), so both clients read seeds alike.

import { parse, stringify } from "./bigjson.js";

/** A JSON-RPC request object. */
export function makeRequest(id, method, params) {
  const message = { jsonrpc: "2.0", id, method };
  if (params !== undefined) message.params = params;
  return message;
}

/** JSON text for `value`, writing BigInt values as plain integer literals. */
export function encodeMessage(value) {
  return stringify(value);
}

/**
 * Parse JSON text; integer literals too large for a double become BigInt.
 * Throws SyntaxError on invalid JSON, as JSON.parse does.
 */
export function decodeMessage(text) {
  return parse(text);
}

/**
 * A seed as the engine takes it (0 ≤ seed < 2^64): a number, a BigInt, or a string
 * of digits. Returns undefined for undefined/null/"", and null when invalid.
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
