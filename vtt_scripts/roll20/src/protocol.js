'use strict';
// The relay's chat frames, shared by the Mod script and the browser relay.
//
// Roll20 chat is the only wire between them, so a JSON-RPC message travels as
// one or more frames of plain text:
//
//     FRACAS1 <kind> <message id> <part>/<parts> <data> <mac>
//
// kind: `req` (Mod script → relay, a JSON-RPC request), `res` (relay → Mod
// script, the bridge's JSON-RPC reply), `hello` (relay → Mod script, on connect).
// <data> is base64url of the UTF-8 JSON text: no character that Roll20 would
// expand (`@{`, `%{`, `[[`) or that HTML would eat (`<`, `&`, quotes) survives in it.
// The message id is the JSON-RPC id, so a frame seen twice is applied once.
// <mac> authenticates the frame: the first 32 hex digits of HMAC-SHA-256, keyed with
// the campaign's relay secret (made by the Mod script, shown to the GM once, kept by
// the relay), over "<kind> <message id> <part>/<parts> <data>". Each end ignores a
// frame whose mac is missing or wrong: a player, another Mod script or a web page
// cannot forge a request to the bridge or an answer to apply.

const { hmacHex, sameText } = require('./hmac');

const MAGIC = 'FRACAS1';
const KINDS = ['req', 'res', 'hello'];
const MAX_PARTS = 500;
const MAX_MESSAGE_CHARS = 4 * 1024 * 1024;
const FRAME = /FRACAS1 (req|res|hello) ([A-Za-z0-9_.:-]{1,80}) ([0-9]{1,4})\/([0-9]{1,4}) ([A-Za-z0-9_-]*)(?: ([0-9a-f]{32}))?/;
const MAC_CHARS = 32;

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64_INDEX = (() => {
  const index = {};
  for (let i = 0; i < B64.length; i++) index[B64[i]] = i;
  return index;
})();

/** UTF-8 bytes of a string (no TextEncoder needed: the Mod sandbox may not have it). */
function utf8Encode(text) {
  const bytes = [];
  for (const ch of text) {
    const c = ch.codePointAt(0);
    if (c < 0x80) bytes.push(c);
    else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return bytes;
}

function utf8Decode(bytes) {
  let out = '';
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    let c, n;
    if (b < 0x80) { c = b; n = 1; } else if (b >= 0xf0) { c = b & 7; n = 4; } else if (b >= 0xe0) { c = b & 15; n = 3; } else { c = b & 31; n = 2; }
    if (i + n > bytes.length) throw new Error('truncated UTF-8');
    for (let k = 1; k < n; k++) c = (c << 6) | (bytes[i + k] & 63);
    out += String.fromCodePoint(c);
    i += n;
  }
  return out;
}

/** base64url (no padding) of a string's UTF-8 bytes. */
function encode(text) {
  const bytes = utf8Encode(text);
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
    out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63];
    if (i + 1 < bytes.length) out += B64[(n >> 6) & 63];
    if (i + 2 < bytes.length) out += B64[n & 63];
  }
  return out;
}

function decode(data) {
  const bytes = [];
  for (let i = 0; i < data.length; i += 4) {
    const chunk = data.slice(i, i + 4);
    let n = 0;
    for (let k = 0; k < 4; k++) {
      const v = k < chunk.length ? B64_INDEX[chunk[k]] : 0;
      if (v === undefined) throw new Error(`bad base64 character ${JSON.stringify(chunk[k])}`);
      n = (n << 6) | v;
    }
    bytes.push((n >> 16) & 255);
    if (chunk.length > 2) bytes.push((n >> 8) & 255);
    if (chunk.length > 3) bytes.push(n & 255);
  }
  return utf8Decode(bytes);
}

/** The mac of a frame's fields under `secret`. */
function macOf(secret, kind, id, part, parts, data) {
  return hmacHex(secret, `${kind} ${id} ${part}/${parts} ${data}`).slice(0, MAC_CHARS);
}

/** Whether a parsed frame carries the right mac for `secret` (no secret: nothing verifies). */
function verify(frame, secret) {
  if (!secret || !frame || !frame.mac) return false;
  return sameText(frame.mac, macOf(secret, frame.kind, frame.id, frame.part, frame.parts, frame.data));
}

/**
 * The frames (strings) of one message; `chunk` is the most data characters per frame,
 * `secret` the relay secret that signs each one.
 */
function frames(kind, id, text, chunk = 2000, secret = null) {
  if (!KINDS.includes(kind)) throw new Error(`unknown frame kind ${kind}`);
  if (!/^[A-Za-z0-9_.:-]{1,80}$/.test(String(id))) throw new Error(`message id ${JSON.stringify(id)} cannot travel in a frame`);
  if (text.length > MAX_MESSAGE_CHARS) throw new Error(`message of ${text.length} characters is too large to relay`);
  const data = encode(text);
  const size = Math.max(16, Math.floor(chunk));
  const parts = Math.max(1, Math.ceil(data.length / size));
  if (parts > MAX_PARTS) throw new Error(`message needs ${parts} frames, the most is ${MAX_PARTS}`);
  const out = [];
  for (let i = 0; i < parts; i++) {
    const piece = data.slice(i * size, (i + 1) * size);
    const mac = secret ? ` ${macOf(secret, kind, id, i + 1, parts, piece)}` : '';
    out.push(`${MAGIC} ${kind} ${id} ${i + 1}/${parts} ${piece}${mac}`);
  }
  return out;
}

/** The frame found in a piece of text, or null: {kind, id, part, parts, data}. */
function parseFrame(text) {
  const m = FRAME.exec(String(text));
  if (!m) return null;
  const part = Number(m[3]), parts = Number(m[4]);
  if (parts < 1 || parts > MAX_PARTS || part < 1 || part > parts) return null;
  return { kind: m[1], id: m[2], part, parts, data: m[5], mac: m[6] || null };
}

/**
 * Collects frames into whole messages. Each message id is delivered once: parts
 * seen again, and whole messages seen again, are ignored. Bounded in messages kept.
 */
class Reassembler {
  constructor(options = {}) {
    this.maxPending = options.maxPending || 50;
    this.maxDone = options.maxDone || 500;
    this.pending = new Map(); // key → {parts: [], count, total, started}
    this.done = [];
    this.doneSet = new Set();
  }

  /** Add a frame; returns {kind, id, text} when its message is complete, else null. */
  add(frame, now = 0) {
    const key = `${frame.kind} ${frame.id}`;
    if (this.doneSet.has(key)) return null;
    let entry = this.pending.get(key);
    if (!entry || entry.total !== frame.parts) {
      entry = { parts: new Array(frame.parts), count: 0, total: frame.parts, started: now };
      this.pending.set(key, entry);
      while (this.pending.size > this.maxPending) this.pending.delete(this.pending.keys().next().value);
    }
    if (entry.parts[frame.part - 1] === undefined) {
      entry.parts[frame.part - 1] = frame.data;
      entry.count += 1;
    }
    if (entry.count < entry.total) return null;
    this.pending.delete(key);
    this.markDone(key);
    return { kind: frame.kind, id: frame.id, text: decode(entry.parts.join('')) };
  }

  markDone(key) {
    this.doneSet.add(key);
    this.done.push(key);
    while (this.done.length > this.maxDone) this.doneSet.delete(this.done.shift());
  }

  /** Drop partial messages older than `maxAge` (same clock as `add`). Returns how many. */
  expire(now, maxAge) {
    let dropped = 0;
    for (const [key, entry] of this.pending) {
      if (now - entry.started > maxAge) {
        this.pending.delete(key);
        dropped += 1;
      }
    }
    return dropped;
  }
}

module.exports = { MAGIC, encode, decode, frames, parseFrame, verify, macOf, Reassembler, MAX_PARTS };
