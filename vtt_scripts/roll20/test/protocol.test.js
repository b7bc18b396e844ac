'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const P = require('../src/protocol');

test('base64url round-trips any text, and its alphabet is safe in Roll20 chat', () => {
  const texts = ['', 'a', 'ab', 'abc', '{"x":"@{target|token_id} %{a|b} [[1d20]]"}', 'Ünïcödé ✓ 🐉 \u0000 end'];
  for (const text of texts) {
    const data = P.encode(text);
    assert.match(data, /^[A-Za-z0-9_-]*$/);
    assert.equal(P.decode(data), text);
  }
  assert.equal(P.encode('hello'), Buffer.from('hello').toString('base64url'));
});

test('a message split into frames comes back whole, once, in any order', () => {
  const text = JSON.stringify({ jsonrpc: '2.0', id: 'r20-1', result: { big: 'x'.repeat(500), uni: 'é🐉' } });
  const frames = P.frames('res', 'r20-1', text, 64);
  assert.ok(frames.length > 5);
  const r = new P.Reassembler();
  const shuffled = frames.slice().reverse();
  let whole = null;
  for (const f of shuffled) {
    const got = r.add(P.parseFrame(`some chat prefix ${f} trailing`));
    if (got) whole = got;
  }
  assert.deepEqual(whole, { kind: 'res', id: 'r20-1', text });
  // The same frames again (a chat log replayed, a resend) deliver nothing.
  for (const f of frames) assert.equal(r.add(P.parseFrame(f)), null);
  // A duplicated part before completion is counted once.
  const r2 = new P.Reassembler();
  assert.equal(r2.add(P.parseFrame(frames[0])), null);
  assert.equal(r2.add(P.parseFrame(frames[0])), null);
  for (const f of frames.slice(1, -1)) assert.equal(r2.add(P.parseFrame(f)), null);
  assert.equal(r2.add(P.parseFrame(frames[frames.length - 1])).text, text);
});

test('frames that are not frames are ignored, and limits hold', () => {
  for (const bad of ['', 'FRACAS1 req', 'FRACAS1 zap x 1/1 aa', 'FRACAS1 req x 0/1 aa', 'FRACAS1 req x 3/2 aa',
    'FRACAS1 req x 1/9999 aa']) {
    assert.equal(P.parseFrame(bad), null, bad);
  }
  assert.throws(() => P.frames('req', 'bad id!', '{}'), /cannot travel/);
  assert.throws(() => P.frames('req', 'x', 'y'.repeat(600000), 16), /frames, the most is/);
  const r = new P.Reassembler({ maxPending: 3 });
  for (let i = 0; i < 10; i++) r.add(P.parseFrame(P.frames('req', `m${i}`, 'abcdefghijklmnopqrstuvwxyz'.repeat(3), 16)[0]), i);
  assert.equal(r.pending.size, 3);
  assert.equal(r.expire(100, 50), 3);
});
