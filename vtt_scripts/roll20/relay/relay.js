'use strict';
// The relay: Roll20 chat frames ⇄ the bridge's websocket (JSON-RPC 2.0).
//
// It knows no DOM (that is the adapter's) and no rules. It authenticates with the
// token, keeps the connection alive (heartbeat with server.info, reconnect with
// backoff), forwards each complete request frame set to the bridge, and posts the
// bridge's reply text back as `!fracas-relay` frames. A request whose answer did
// not arrive before the socket dropped is sent again after reconnecting: the
// bridge answers a repeated id from its journal, so nothing is rolled twice.

const protocol = require('../src/protocol');
// Generated from the spec (src/fracas/spec/facts.toml [bridge.own] `relay`, and Kind.relay): what the Mod sends.
const { RELAYED, VERSION: RELAY_VERSION } = require('./methods');

const ALLOWED = RELAYED;
const MAX_QUEUE = 50;

class Relay {
  /**
   * options: adapter, WebSocket (constructor), setTimeout/clearTimeout/setInterval/clearInterval,
   * now(), random(), heartbeatMs, backoffMs [initial, max], postGapMs, chunk, log(text), onStatus(text, ok)
   */
  constructor(options) {
    this.o = Object.assign({
      heartbeatMs: 20000, backoffMs: [500, 30000], postGapMs: 150, chunk: 1800,
      log: () => {}, onStatus: () => {}, random: Math.random, now: () => Date.now(),
    }, options);
    this.url = null;
    this.token = null;
    this.ws = null;
    this.authed = false;
    this.stopped = true;
    this.attempt = 0;
    this.counter = 0;
    this.queue = new Map(); // request id → JSON text, waiting to be sent (or re-sent)
    this.inflight = new Map(); // request id → JSON text, sent on this connection
    this.ownCalls = new Map(); // our own JSON-RPC ids (auth, heartbeat, hello) → kind
    this.reassembler = new protocol.Reassembler({ maxPending: 50, maxDone: 1000 });
    this.outbox = [];
    this.posting = false;
    this.reconnectTimer = null;
    this.heartbeatTimer = null;
    this.awaitingPong = null;
    this.stats = { forwarded: 0, answered: 0, reconnects: 0 };
  }

  status(text, ok = false) {
    this.statusText = text;
    this.o.onStatus(text, ok);
    this.o.log(text);
  }

  /**
   * Start (or restart) linking to `url` with `token`; `secret` is the campaign's relay
   * secret (`!fracas relay --secret` shows it): frames are signed and checked with it.
   */
  connect(url, token, secret) {
    if (!/^[0-9a-f]{64}$/.test(secret || '')) {
      this.status('give the relay secret: type !fracas relay --secret in Roll20 and copy it here');
      return false;
    }
    this.secret = secret;
    if (!/^wss?:\/\/[^\s]+$/.test(url || '')) {
      this.status('give the bridge URL, e.g. ws://127.0.0.1:8765');
      return false;
    }
    if (!token) {
      this.status('give the token fracas serve printed');
      return false;
    }
    this.disconnect();
    this.authFailed = null;
    this.url = url;
    this.token = token;
    this.stopped = false;
    this.attempt = 0;
    this.open();
    return true;
  }

  disconnect() {
    this.stopped = true;
    if (this.reconnectTimer !== null) this.o.clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.stopHeartbeat();
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      try { ws.close(1000, 'relay stopped'); } catch (err) { /* already closed */ }
    }
    this.requeueInflight();
    this.authed = false;
    this.status('stopped');
  }

  open() {
    this.authed = false;
    this.status(`connecting to ${this.url}`);
    let ws;
    try {
      ws = new this.o.WebSocket(this.url);
    } catch (err) {
      this.status(`cannot connect: ${err.message}`);
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.call('auth', { token: this.token }, 'auth');
    };
    ws.onmessage = (event) => {
      if (this.ws !== ws) return;
      this.onBridgeMessage(String(event.data));
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.authed = false;
      this.stopHeartbeat();
      this.requeueInflight();
      if (this.authFailed) {
        this.status(`the bridge refused the token: ${this.authFailed}`);
        this.stopped = true;
        return;
      }
      this.status(`connection closed (${event && event.code}); reconnecting`);
      this.scheduleReconnect();
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  scheduleReconnect() {
    if (this.stopped) return;
    const [initial, max] = this.o.backoffMs;
    const delay = Math.min(max, initial * 2 ** Math.min(this.attempt, 16)) * (0.75 + 0.5 * this.o.random());
    this.attempt += 1;
    this.stats.reconnects += 1;
    this.reconnectTimer = this.o.setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.stopped) this.open();
    }, delay);
  }

  call(method, params, kind) {
    this.counter += 1;
    const id = `relay-${kind}-${this.counter}`;
    this.ownCalls.set(id, kind);
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return id;
  }

  onBridgeMessage(text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch (err) {
      this.o.log(`bridge sent non-JSON: ${text.slice(0, 80)}`);
      return;
    }
    const id = message && message.id;
    const kind = this.ownCalls.get(id);
    if (kind) {
      this.ownCalls.delete(id);
      if (kind === 'auth') return this.onAuth(message);
      if (kind === 'heartbeat') {
        this.awaitingPong = null;
        return undefined;
      }
      if (kind === 'hello') return this.onHello(message);
      return undefined;
    }
    if (typeof id === 'string' && this.inflight.has(id)) {
      this.inflight.delete(id);
      this.queue.delete(id);
      this.stats.answered += 1;
      this.postFrames('res', id, text); // the bridge's own text: big seeds stay exact
    }
    return undefined;
  }

  onAuth(message) {
    if (message.error) {
      this.authFailed = message.error.message || 'authentication failed';
      return;
    }
    this.authFailed = null;
    this.authed = true;
    this.attempt = 0;
    this.status(`connected to ${this.url}`, true);
    this.call('server.info', {}, 'hello');
    this.startHeartbeat();
    this.flush();
  }

  onHello(message) {
    const info = message.result || {};
    const hello = { relay: RELAY_VERSION, bridge: this.url, version: info.version || '', backend: info.backend || '' };
    this.postFrames('hello', `hello-${this.o.now()}`, JSON.stringify(hello));
  }

  startHeartbeat() {
    this.stopHeartbeat();
    this.heartbeatTimer = this.o.setInterval(() => {
      if (!this.ws || !this.authed) return;
      if (this.awaitingPong !== null) {
        // No answer to the last heartbeat: the link is dead even if the socket says open.
        this.o.log('heartbeat missed; reconnecting');
        const ws = this.ws;
        this.ws = null;
        this.authed = false;
        this.awaitingPong = null;
        this.stopHeartbeat();
        this.requeueInflight();
        try { ws.close(4000, 'heartbeat missed'); } catch (err) { /* ignore */ }
        this.scheduleReconnect();
        return;
      }
      this.awaitingPong = this.call('server.info', {}, 'heartbeat');
    }, this.o.heartbeatMs);
  }

  stopHeartbeat() {
    if (this.heartbeatTimer !== null) this.o.clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
    this.awaitingPong = null;
  }

  requeueInflight() {
    for (const [id, text] of this.inflight) this.queue.set(id, text);
    this.inflight.clear();
  }

  /**
   * A chat message: if it carries a frame signed with the campaign's secret, hide it, and
   * collect it when it is a request. A message that only looks like a frame (a player
   * typing "FRACAS1 …" to hide what they say from the GM) is neither hidden nor forwarded.
   */
  onChatMessage(text, element) {
    const frame = protocol.parseFrame(text);
    if (!frame) return false;
    // Only the Mod script and this relay know the secret: a frame typed by a player or
    // planted by a page is not signed with it, stays visible and never reaches the bridge.
    if (!this.secret || !protocol.verify(frame, this.secret)) {
      this.stats.refused = (this.stats.refused || 0) + 1;
      this.o.log(`frame ${frame.id} ${frame.part}/${frame.parts} ignored: not signed with this campaign's relay secret`);
      return true;
    }
    if (element && this.o.adapter) this.o.adapter.hide(element);
    if (frame.kind !== 'req') return true;
    let whole;
    try {
      whole = this.reassembler.add(frame, this.o.now());
    } catch (err) {
      this.o.log(`bad frame for ${frame.id}: ${err.message}`);
      return true;
    }
    if (whole) this.request(whole.id, whole.text);
    return true;
  }

  /** A complete request from the Mod script. */
  request(id, text) {
    let message;
    try {
      message = JSON.parse(text);
    } catch (err) {
      this.o.log(`request ${id} is not JSON`);
      return;
    }
    if (!message || message.id !== id || !ALLOWED.includes(message.method)) {
      this.o.log(`request ${id} refused: method ${message && message.method} is not relayed`);
      return;
    }
    if (this.inflight.has(id)) return; // already on its way on this connection
    if (this.queue.size >= MAX_QUEUE) {
      this.o.log(`queue full: request ${id} dropped (the Mod script can resend it)`);
      return;
    }
    this.queue.set(id, text);
    this.stats.forwarded += 1;
    this.flush();
  }

  flush() {
    if (!this.ws || !this.authed) return;
    for (const [id, text] of this.queue) {
      this.queue.delete(id);
      this.inflight.set(id, text);
      this.ws.send(text);
    }
  }

  /** Post frames to chat one at a time (Roll20 drops messages posted too fast). */
  postFrames(kind, id, text) {
    for (const frame of protocol.frames(kind, id, text, this.o.chunk, this.secret)) this.outbox.push(`!fracas-relay ${frame}`);
    if (!this.posting) this.drain();
  }

  drain() {
    const next = this.outbox.shift();
    if (next === undefined) {
      this.posting = false;
      return;
    }
    this.posting = true;
    try {
      this.o.adapter.post(next);
    } catch (err) {
      this.o.log(`could not post to chat: ${err.message}`);
    }
    this.o.setTimeout(() => this.drain(), this.o.postGapMs);
  }
}

module.exports = { Relay, RELAY_VERSION, ALLOWED };
