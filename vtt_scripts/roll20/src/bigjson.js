'use strict';
// JSON with exact big integers. Seeds run to 2**64 - 1, past the 2**53 a double
// holds exactly, and a seed that changed on the way would replay another roll.
// Integers outside the safe range parse as BigInt (when the sandbox has BigInt),
// else as their decimal string, which the generator also takes.

const MARK = '\u0000fracas-int:';

/** JSON.parse, but integer literals beyond 2**53 keep every digit. */
function parse(text) {
  let out = '';
  let i = 0;
  const n = text.length;
  let last = 0;
  // One pass over the text: copy strings as they are, rewrite long integer literals.
  for (let guard = 0; i < n && guard <= n; guard++) {
    const ch = text[i];
    if (ch === '"') {
      i += 1;
      while (i < n && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i += 1;
    } else if (ch === '-' || (ch >= '0' && ch <= '9')) {
      const start = i;
      i += 1;
      while (i < n && /[0-9eE.+-]/.test(text[i])) i += 1;
      const token = text.slice(start, i);
      if (/^-?[0-9]{16,}$/.test(token) && !Number.isSafeInteger(Number(token))) {
        out += text.slice(last, start) + JSON.stringify(MARK + token);
        last = i;
      }
    } else {
      i += 1;
    }
  }
  out += text.slice(last);
  const hasBigInt = typeof BigInt === 'function';
  return JSON.parse(out, (key, value) => {
    if (typeof value === 'string' && value.startsWith(MARK)) {
      const digits = value.slice(MARK.length);
      return hasBigInt ? BigInt(digits) : digits;
    }
    return value;
  });
}

/** JSON.stringify that writes BigInts as bare integer literals. */
function stringify(value, indent) {
  const marked = JSON.stringify(value, (key, v) => (typeof v === 'bigint' ? MARK + v.toString() : v), indent);
  return marked.replace(/"\\u0000fracas-int:(-?[0-9]+)"/g, '$1');
}

module.exports = { parse, stringify };
