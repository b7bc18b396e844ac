import "./english.js";
import assert from "node:assert/strict";
import { test } from "node:test";

import { decodeMessage, encodeMessage, makeRequest, normalizeSeed } from "../scripts/jsonrpc.js";
import { newRequestId } from "../scripts/ids.js";

test("64-bit integers survive a round trip; strings that look like numbers stay strings", () => {
  const text = '{"seed":12345678901234567890,"small":42,"f":1.5e3,"s":"99999999999999999999","n":-9007199254740993,"a":[18446744073709551615]}';
  const value = decodeMessage(text);
  assert.equal(value.seed, 12345678901234567890n);
  assert.equal(value.small, 42);
  assert.equal(value.f, 1500);
  assert.equal(value.s, "99999999999999999999");
  assert.equal(value.n, -9007199254740993n);
  assert.equal(value.a[0], 18446744073709551615n);
  assert.equal(encodeMessage({ seed: value.seed, s: value.s }), '{"seed":12345678901234567890,"s":"99999999999999999999"}');
});

test("escaped quotes inside strings do not confuse the scanner", () => {
  assert.deepEqual(decodeMessage('{"m":"say \\"12345678901234567890\\"","k":1}'), { m: 'say "12345678901234567890"', k: 1 });
  assert.throws(() => decodeMessage("{bad"), SyntaxError);
});

test("requests are JSON-RPC 2.0 objects", () => {
  assert.deepEqual(makeRequest("x", "server.info"), { jsonrpc: "2.0", id: "x", method: "server.info" });
  assert.deepEqual(makeRequest(1, "auth", { token: "t" }), { jsonrpc: "2.0", id: 1, method: "auth", params: { token: "t" } });
});

test("seeds: numbers, BigInts and digit strings in 0 … 2^64 − 1", () => {
  assert.equal(normalizeSeed(42), 42);
  assert.equal(normalizeSeed("18446744073709551615"), 18446744073709551615n);
  assert.equal(normalizeSeed(" 7 "), 7);
  assert.equal(normalizeSeed(undefined), undefined);
  for (const bad of [-1, 1.5, "abc", 18446744073709551616n, 2 ** 60]) assert.equal(normalizeSeed(bad), null, String(bad));
});

test("request ids are version-4 UUIDs, different each time", () => {
  const a = newRequestId();
  assert.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.notEqual(a, newRequestId());
});
