'use strict';
// The relay core with a scripted WebSocket and a manual clock: auth, forwarding,
// heartbeat, reconnect with backoff, re-sending after a drop, refusing a bad token.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Relay } = require('../relay/relay');
const P = require('../src/protocol');
const SECRET = '0123456789abcdef'.repeat(4); // a campaign's relay secret (64 hex digits)

function harness(options = {}) {
  const clock = { now: 0, timers: [], next: 1 };
  const sockets = [];
  class FakeSocket {
    constructor(url) {
      this.url = url;
      this.sent = [];
      this.closed = null;
      sockets.push(this);
    }
    send(text) { this.sent.push(JSON.parse(text)); }
    close(code) {
      if (this.closed) return;
      this.closed = code;
      this.onclose && this.onclose({ code });
    }
    // test side
    open() { this.onopen && this.onopen(); }
    reply(message) { this.onmessage && this.onmessage({ data: JSON.stringify(message) }); }
    drop(code = 1006) { this.closed = code; this.onclose && this.onclose({ code }); }
  }
  const posted = [];
  const add = (fn, ms, every) => {
    const t = { id: clock.next++, fn, at: clock.now + ms, every };
    clock.timers.push(t);
    return t.id;
  };
  const cancel = (id) => { clock.timers = clock.timers.filter((t) => t.id !== id); };
  const relay = new Relay(Object.assign({
    adapter: { post: (text) => posted.push(text), hide: (el) => { el.hidden = true; } },
    WebSocket: FakeSocket,
    setTimeout: (fn, ms) => add(fn, ms, 0),
    clearTimeout: cancel,
    setInterval: (fn, ms) => add(fn, ms, ms),
    clearInterval: cancel,
    now: () => clock.now,
    random: () => 0.5,
    heartbeatMs: 1000,
    backoffMs: [100, 800],
    postGapMs: 10,
    chunk: 100,
  }, options));
  const advance = (ms) => {
    const end = clock.now + ms;
    for (let guard = 0; guard < 10000; guard++) {
      const due = clock.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      clock.now = due.at;
      if (due.every) due.at += due.every;
      else cancel(due.id);
      due.fn();
    }
    clock.now = end;
  };
  /** Whole messages the relay posted to chat, decoded. */
  const answers = () => {
    const r = new P.Reassembler();
    const out = [];
    for (const text of posted) {
      assert.ok(text.startsWith('!fracas-relay FRACAS1 '));
      const whole = r.add(P.parseFrame(text));
      if (whole) out.push({ kind: whole.kind, id: whole.id, message: JSON.parse(whole.text) });
    }
    return out;
  };
  /** The Mod script whispering a request: its frames arrive as chat messages. */
  const chatRequest = (id, method = 'attack.bulk', params = { seed: 1 }) => {
    const elements = [];
    for (const frame of P.frames('req', id, JSON.stringify({ jsonrpc: '2.0', id, method, params }), 40, SECRET)) {
      const el = {};
      elements.push(el);
      assert.equal(relay.onChatMessage(`fracas → relay ${id} ${frame}`, el), true);
    }
    return elements;
  };
  const authenticate = (socket) => {
    socket.open();
    const auth = socket.sent[socket.sent.length - 1];
    assert.equal(auth.method, 'auth');
    socket.reply({ jsonrpc: '2.0', id: auth.id, result: { authenticated: true } });
    const hello = socket.sent[socket.sent.length - 1].method === 'server.info' ? socket.sent.find((m) => m.method === 'server.info') : null;
    if (hello) socket.reply({ jsonrpc: '2.0', id: hello.id, result: { version: '9.9', backend: 'compiled' } });
  };
  return { relay, sockets, posted, advance, answers, chatRequest, authenticate, clock };
}

test('authenticates first, says hello, forwards a request once and posts the answer back in frames', () => {
  const h = harness();
  assert.equal(h.relay.connect('ws://127.0.0.1:1', 'T', SECRET), true);
  const ws = h.sockets[0];
  ws.open();
  assert.deepEqual(ws.sent[0], { jsonrpc: '2.0', id: 'relay-auth-1', method: 'auth', params: { token: 'T' } });
  // A request arriving before authentication waits.
  const elements = h.chatRequest('r20-abc-1');
  assert.ok(elements.every((el) => el.hidden), 'relay frames are hidden from the chat log');
  assert.equal(ws.sent.length, 1);
  ws.reply({ jsonrpc: '2.0', id: 'relay-auth-1', result: { authenticated: true } });
  const methods = ws.sent.map((m) => m.method);
  assert.deepEqual(methods, ['auth', 'server.info', 'attack.bulk']);
  ws.reply({ jsonrpc: '2.0', id: ws.sent[1].id, result: { version: '9.9' } });
  // The same frames again (the chat re-rendered): not forwarded twice.
  h.chatRequest('r20-abc-1');
  assert.equal(ws.sent.length, 3);
  const result = { seed: 1, targets: { a: { damage: 'x'.repeat(300) } } };
  ws.reply({ jsonrpc: '2.0', id: 'r20-abc-1', result });
  h.advance(1000);
  const got = h.answers();
  assert.equal(got[0].kind, 'hello');
  assert.equal(got[0].message.version, '9.9');
  assert.equal(got[0].message.bridge, 'ws://127.0.0.1:1');
  assert.deepEqual(got[1], { kind: 'res', id: 'r20-abc-1', message: { jsonrpc: '2.0', id: 'r20-abc-1', result } });
  assert.ok(h.posted.length > 4, 'the answer was cut into several frames');
});

test("the relay carries exactly the methods the Mod sends (the spec's [bridge.own] relay and Kind.relay)", () => {
  require('../src/mod/app'); // every command module registers its answer handler
  const { methods } = require('../src/mod/relaylink');
  const { ALLOWED } = require('../relay/relay');
  assert.deepEqual(Array.from(ALLOWED), methods());
  // …and each is a method the bridge has.
  const facts = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'src', 'fracas', '_facts.py'), 'utf8');
  const bridge = /BRIDGE_METHODS = \(([^)]*)\)/.exec(facts)[1];
  for (const m of ALLOWED) assert.ok(bridge.includes(`'${m}'`), m);
  // Every method the relay carries is sent from a command: the sources name each in a send().
  const sources = fs.readdirSync(path.join(__dirname, '..', 'src', 'mod')).map((f) => fs.readFileSync(path.join(__dirname, '..', 'src', 'mod', f), 'utf8')).join('\n');
  const sent = new Set();
  for (const m of sources.matchAll(/send\(app, '([a-z]+\.[a-z]+)'/g)) sent.add(m[1]);
  for (const m of sources.matchAll(/journalCommand\(app, msg, cmd, '([a-z]+\.[a-z]+)'\)/g)) sent.add(m[1]);
  // …and the table of the kinds the bridge rolls for the Mod (bridgekinds.js KINDS: each entry's
  // `method`, sent by kindCommand's one send()).
  for (const m of sources.matchAll(/method: '([a-z]+\.[a-z]+)', title:/g)) sent.add(m[1]);
  assert.deepEqual(require('../src/mod/bridgekinds').methods().sort(), ['drop.roll', 'lock.roll', 'save.roll', 'slam.roll', 'throw.roll', 'touch.roll']);
  assert.deepEqual(Array.from(sent).sort(), methods());
});

test('only known methods are relayed; malformed frames are ignored', () => {
  const h = harness();
  h.relay.connect('ws://127.0.0.1:1', 'T', SECRET);
  h.authenticate(h.sockets[0]);
  const before = h.sockets[0].sent.length;
  h.chatRequest('r20-x-1', 'auth', { token: 'steal' });
  h.chatRequest('r20-x-2', 'admin.shutdown', {});
  assert.equal(h.relay.onChatMessage('hello world', {}), false);
  assert.equal(h.relay.onChatMessage('FRACAS1 req r20-x-3 1/1 !!!', {}), true);
  assert.equal(h.sockets[0].sent.length, before);
});

test('a dropped connection reconnects with growing backoff and re-sends what was unanswered', () => {
  const h = harness();
  h.relay.connect('ws://127.0.0.1:1', 'T', SECRET);
  h.authenticate(h.sockets[0]);
  h.chatRequest('r20-a-1');
  assert.equal(h.sockets[0].sent.filter((m) => m.id === 'r20-a-1').length, 1);
  h.sockets[0].drop();
  assert.match(h.relay.statusText, /reconnecting/);
  // Backoff 100 ms (× 0.75 + 0.5 × 0.5 = 1.0), then 200, 400, 800, 800 …
  h.advance(99);
  assert.equal(h.sockets.length, 1);
  h.advance(1);
  assert.equal(h.sockets.length, 2);
  h.sockets[1].drop();
  h.advance(199);
  assert.equal(h.sockets.length, 2);
  h.advance(1);
  assert.equal(h.sockets.length, 3);
  h.authenticate(h.sockets[2]);
  // The unanswered request goes again, with the same id (the bridge answers it from its journal).
  assert.equal(h.sockets[2].sent.filter((m) => m.id === 'r20-a-1').length, 1);
  assert.equal(h.relay.attempt, 0, 'a good connection resets the backoff');
});

test('a missed heartbeat closes a silent connection and reconnects', () => {
  const h = harness();
  h.relay.connect('ws://127.0.0.1:1', 'T', SECRET);
  h.authenticate(h.sockets[0]);
  h.advance(1000);
  const beat = h.sockets[0].sent[h.sockets[0].sent.length - 1];
  assert.equal(beat.method, 'server.info');
  h.sockets[0].reply({ jsonrpc: '2.0', id: beat.id, result: {} });
  h.advance(1000);
  assert.equal(h.sockets.length, 1, 'answered heartbeats keep the connection');
  h.advance(1000); // the second heartbeat was not answered
  assert.equal(h.sockets[0].closed, 4000);
  h.advance(100);
  assert.equal(h.sockets.length, 2);
});

test('a wrong token stops the relay instead of retrying; bad settings are refused', () => {
  const h = harness();
  assert.equal(h.relay.connect('http://nope', 'T', SECRET), false);
  assert.equal(h.relay.connect('ws://127.0.0.1:1', '', SECRET), false);
  h.relay.connect('ws://127.0.0.1:1', 'wrong', SECRET);
  const ws = h.sockets[0];
  ws.open();
  ws.reply({ jsonrpc: '2.0', id: 'relay-auth-1', error: { code: -32004, message: 'authentication failed: wrong token' } });
  ws.drop(1008);
  assert.match(h.relay.statusText, /refused the token: authentication failed: wrong token/);
  h.advance(60000);
  assert.equal(h.sockets.length, 1);
  h.relay.disconnect();
  assert.equal(h.relay.statusText, 'stopped');
});

test('frames not signed with the relay secret never reach the bridge; the relay signs its own', () => {
  const h = harness();
  assert.equal(h.relay.connect('ws://127.0.0.1:1', 'T', 'not-a-secret'), false, 'a secret is 64 hex digits');
  assert.match(h.relay.statusText, /relay secret/);
  h.relay.connect('ws://127.0.0.1:1', 'T', SECRET);
  const ws = h.sockets[h.sockets.length - 1];
  h.authenticate(ws);
  const before = ws.sent.length;
  const text = JSON.stringify({ jsonrpc: '2.0', id: 'x1', method: 'attack.bulk', params: { seed: 1 } });
  // A page or a player planting a request: unsigned, signed with another secret, or tampered with.
  const [good] = P.frames('req', 'x1', text, 4000, SECRET);
  const cases = [P.frames('req', 'x1', text, 4000)[0], P.frames('req', 'x1', text, 4000, 'f'.repeat(64))[0],
    good.replace(/ [0-9a-f]{32}$/, ` ${'0'.repeat(32)}`), good.replace('FRACAS1 req x1 1/1 ', 'FRACAS1 req x2 1/1 ')];
  const elements = cases.map(() => ({}));
  cases.forEach((frame, i) => assert.equal(h.relay.onChatMessage(frame, elements[i]), true));
  assert.equal(ws.sent.length, before, 'nothing forged was forwarded');
  assert.equal(h.relay.stats.refused, 4);
  // A forged frame stays visible: only verified frames are hidden (issue: a player could hide chat from the GM).
  assert.ok(elements.every((el) => !el.hidden), 'a forged frame was hidden');
  const goodElement = {};
  h.relay.onChatMessage(good, goodElement);
  assert.ok(goodElement.hidden, 'a verified frame is hidden');
  assert.equal(ws.sent[ws.sent.length - 1].id, 'x1');
  ws.reply({ jsonrpc: '2.0', id: 'x1', result: { ok: true } });
  h.advance(5000);
  for (const posted of h.posted) {
    const frame = P.parseFrame(posted);
    assert.ok(P.verify(frame, SECRET), `unsigned answer ${posted}`);
  }
});
