// JSON-RPC 2.0 messages for the bridge, with one twist: seeds are 64-bit integers,
// which JSON.parse would round (a double holds 53 bits). Integer literals beyond
// Number.MAX_SAFE_INTEGER are decoded as BigInt and encoded back without quotes, so a
// seed shown on a chat card is the seed that replays the roll.

const BIG_MARK = "__fracas_bigint__";

/** A JSON-RPC request object. */
export function makeRequest(id, method, params) {
  const message = { jsonrpc: "2.0", id, method };
  if (params !== undefined) message.params = params;
  return message;
}

/** JSON text for `value`, writing BigInt values as plain integer literals. */
export function encodeMessage(value) {
  const text = JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? `${BIG_MARK}${v}` : v));
  return text.replace(new RegExp(`"${BIG_MARK}(-?\\d+)"`, "g"), "$1");
}

/**
 * Parse JSON text; integer literals too large for a double become BigInt.
 * Throws SyntaxError on invalid JSON, as JSON.parse does.
 */
export function decodeMessage(text) {
  const bigs = [];
  let out = "";
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text[i];
    if (ch === '"') {
      // Copy a string literal verbatim, honouring escapes.
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (ch === "-" || (ch >= "0" && ch <= "9")) {
      let j = i + 1;
      while (j < n && /[0-9eE.+-]/.test(text[j])) j++;
      const literal = text.slice(i, j);
      if (/^-?\d+$/.test(literal) && !Number.isSafeInteger(Number(literal))) {
        bigs.push(BigInt(literal));
        out += `"${BIG_MARK}${bigs.length - 1}"`;
      } else {
        out += literal;
      }
      i = j;
    } else {
      out += ch;
      i++;
    }
  }
  if (!bigs.length) return JSON.parse(text);
  const mark = new RegExp(`^${BIG_MARK}(\\d+)$`);
  return JSON.parse(out, (_key, v) => {
    if (typeof v === "string") {
      const m = mark.exec(v);
      if (m) return bigs[Number(m[1])];
    }
    return v;
  });
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
