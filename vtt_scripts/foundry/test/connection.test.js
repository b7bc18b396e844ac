import "./english.js";
import assert from "node:assert/strict";
import { beforeEach, describe, test } from "node:test";

import { BridgeConnection, STATES, backoffDelay, describeState } from "../scripts/connection.js";
import { BridgeError, ConnectionError, TimeoutError } from "../scripts/errors.js";
import { FakeClock, FakeWebSocket } from "./fakes.js";

let clock;
let ids;

function connect(overrides = {}) {
  let n = 0;
  ids = () => `id-${++n}`;
  const conn = new BridgeConnection({
    url: "ws://127.0.0.1:8765", token: "T", WebSocketImpl: FakeWebSocket, clock, newId: ids,
    random: () => 1, backoff: { baseMs: 500, maxMs: 4000 }, heartbeatMs: 15000, heartbeatTimeoutMs: 5000,
    requestTimeoutMs: 10000, ...overrides,
  });
  const seen = [];
  conn.onStatus((s) => seen.push(s.state));
  return { conn, seen };
}

/** Open the latest socket and accept its auth. */
function accept() {
  const ws = FakeWebSocket.last;
  ws.open();
  const auth = ws.lastSent("auth");
  ws.reply({ jsonrpc: "2.0", id: auth.id, result: { ok: true } });
  return ws;
}

beforeEach(() => {
  clock = new FakeClock();
  FakeWebSocket.reset();
});

describe("backoffDelay", () => {
  test("doubles from the base and stops at the cap", () => {
    const full = [0, 1, 2, 3, 4, 5, 10].map((a) => backoffDelay(a, { baseMs: 500, maxMs: 4000 }, () => 1));
    assert.deepEqual(full, [500, 1000, 2000, 4000, 4000, 4000, 4000]);
  });

  test("jitter keeps between half and all of the delay", () => {
    assert.equal(backoffDelay(3, { baseMs: 500, maxMs: 30000 }, () => 0), 2000);
    assert.equal(backoffDelay(3, { baseMs: 500, maxMs: 30000 }, () => 0.5), 3000);
  });
});

describe("BridgeConnection", () => {
  test("authenticates first with the token, then reports connected", () => {
    const { conn, seen } = connect();
    conn.start();
    const ws = FakeWebSocket.last;
    assert.equal(ws.url, "ws://127.0.0.1:8765");
    ws.open();
    assert.equal(ws.sent.length, 1);
    assert.deepEqual({ ...ws.sent[0], id: undefined }, { jsonrpc: "2.0", id: undefined, method: "auth", params: { token: "T" } });
    assert.equal(conn.status.state, STATES.CONNECTING);
    ws.reply({ jsonrpc: "2.0", id: ws.sent[0].id, result: {} });
    assert.equal(conn.status.state, STATES.CONNECTED);
    assert.deepEqual(seen, ["connecting", "connected"]);
  });

  test("a call resolves with the result of the reply carrying its id", async () => {
    const { conn } = connect();
    conn.start();
    const ws = accept();
    const pending = conn.call("attack.resolve", { strikes: [] }, { id: "req-1" });
    const sent = ws.lastSent("attack.resolve");
    assert.deepEqual(sent, { jsonrpc: "2.0", id: "req-1", method: "attack.resolve", params: { strikes: [] } });
    ws.reply({ jsonrpc: "2.0", id: "other", result: "not mine" });
    ws.reply({ jsonrpc: "2.0", id: "req-1", result: { total_damage: 5 } });
    assert.deepEqual(await pending, { total_damage: 5 });
  });

  test("a JSON-RPC error becomes a BridgeError naming the method, path and code", async () => {
    const { conn } = connect();
    conn.start();
    const ws = accept();
    const pending = conn.call("attack.resolve", {}, { id: "r" });
    ws.reply({ jsonrpc: "2.0", id: "r", error: { code: -32602, message: "$.strikes[0].dice: 6 skill dice, the most is 5 (ER-3)", data: { path: "$.strikes[0].dice" } } });
    await assert.rejects(pending, (e) => e instanceof BridgeError && e.path === "$.strikes[0].dice" && e.code === -32602
      && e.message === "attack.resolve failed: a value of the request is wrong: $.strikes[0].dice: 6 skill dice, the most is 5 (ER-3) (code -32602)");
  });

  test("a path missing from the message is put in front of it", () => {
    const e = new BridgeError("attack.bulk", { code: -32602, message: "too many attacks", data: { path: "$.attacks" } });
    assert.equal(e.message, "attack.bulk failed: a value of the request is wrong: $.attacks: too many attacks (code -32602)");
  });

  test("a wrong token closes the socket with a reason: refused, no retry, calls fail at once", async () => {
    const { conn } = connect();
    conn.start();
    const ws = FakeWebSocket.last;
    ws.open();
    ws.drop(4001, "invalid token");
    assert.equal(conn.status.state, STATES.REFUSED);
    assert.match(conn.status.detail, /invalid token \(close code 4001\)/);
    assert.deepEqual(clock.pending(), []);
    await assert.rejects(conn.call("server.info"), (e) => e instanceof ConnectionError && /refused: .*invalid token/.test(e.message));
  });

  test("an error reply to auth is a refusal too", () => {
    const { conn } = connect();
    conn.start();
    const ws = FakeWebSocket.last;
    ws.open();
    ws.reply({ jsonrpc: "2.0", id: ws.sent[0].id, error: { code: -32001, message: "wrong token" } });
    assert.equal(conn.status.state, STATES.REFUSED);
    assert.match(describeState(conn.status), /^refused: the bridge refused the token: wrong token$/);
    assert.equal(ws.closedWith.code, 1000);
  });

  test("an unreachable bridge is retried with capped exponential backoff", () => {
    const { conn } = connect();
    conn.start();
    const delays = [];
    for (let i = 0; i < 6; i++) {
      FakeWebSocket.last.drop(1006);
      assert.equal(conn.status.state, STATES.RETRYING);
      delays.push(conn.status.retryInMs);
      assert.match(conn.status.detail, /could not reach the bridge at ws:\/\/127\.0\.0\.1:8765/);
      clock.advance(conn.status.retryInMs);
      assert.equal(conn.status.state, STATES.CONNECTING);
    }
    assert.deepEqual(delays, [500, 1000, 2000, 4000, 4000, 4000]);
    assert.equal(FakeWebSocket.all.length, 7);
  });

  test("a successful reconnect resets the backoff", () => {
    const { conn } = connect();
    conn.start();
    FakeWebSocket.last.drop(1006);
    clock.advance(500);
    FakeWebSocket.last.drop(1006);
    assert.equal(conn.status.retryInMs, 1000);
    clock.advance(1000);
    accept().drop(1006);
    assert.equal(conn.status.retryInMs, 500);
    assert.match(conn.status.detail, /^connection lost/);
  });

  test("overload while authenticating (1013 with a reason) is retried, not refused", () => {
    const { conn } = connect();
    conn.start();
    FakeWebSocket.last.open();
    FakeWebSocket.last.drop(1013, "too many connections");
    assert.equal(conn.status.state, STATES.RETRYING);
  });

  test("requests wait out a reconnect and are resent with the same id", async () => {
    const { conn } = connect();
    conn.start();
    let ws = accept();
    const pending = conn.call("attack.resolve", { n: 1 }, { id: "same-id" });
    assert.equal(ws.lastSent("attack.resolve").id, "same-id");
    ws.drop(1006);
    clock.advance(conn.status.retryInMs);
    ws = accept();
    const resent = ws.sent.filter((m) => m.method === "attack.resolve");
    assert.deepEqual(resent, [{ jsonrpc: "2.0", id: "same-id", method: "attack.resolve", params: { n: 1 } }]);
    ws.reply({ jsonrpc: "2.0", id: "same-id", result: "journaled" });
    assert.equal(await pending, "journaled");
  });

  test("a request made while retrying is sent once connected", async () => {
    const { conn } = connect();
    conn.start();
    FakeWebSocket.last.drop(1006);
    const pending = conn.call("server.info", undefined, { id: "later" });
    clock.advance(conn.status.retryInMs);
    const ws = accept();
    assert.deepEqual(ws.lastSent("server.info"), { jsonrpc: "2.0", id: "later", method: "server.info" });
    ws.reply({ jsonrpc: "2.0", id: "later", result: { version: "0.1.0" } });
    assert.deepEqual(await pending, { version: "0.1.0" });
  });

  test("a request times out with its method, id and the connection state; a late reply is ignored", async () => {
    const { conn } = connect();
    conn.start();
    FakeWebSocket.last.drop(1006);
    const pending = conn.call("attack.resolve", {}, { id: "slow", timeoutMs: 2500 });
    clock.advance(2500);
    await assert.rejects(pending, (e) => e instanceof TimeoutError && e.requestId === "slow"
      && /did not answer attack\.resolve within 2\.5 s \(connection: connecting \(attempt 2; last try: could not reach/.test(e.message)
      && /nothing was applied \(request id slow\)$/.test(e.message));
    const ws = accept();
    assert.equal(ws.lastSent("attack.resolve"), undefined);
    ws.reply({ jsonrpc: "2.0", id: "slow", result: "too late" });
  });

  test("heartbeats keep a live link; a missed one drops it and reconnects", () => {
    const { conn } = connect();
    conn.start();
    let ws = accept();
    clock.advance(15000);
    let hb = ws.lastSent("server.info");
    assert.ok(hb, "a heartbeat was sent");
    ws.reply({ jsonrpc: "2.0", id: hb.id, result: {} });
    clock.advance(15000);
    const hb2 = ws.lastSent("server.info");
    assert.notEqual(hb2.id, hb.id);
    clock.advance(5000);
    assert.equal(conn.status.state, STATES.RETRYING);
    assert.match(conn.status.detail, /no heartbeat answer within 5 s/);
    assert.equal(ws.closedWith.code, 4000);
    clock.advance(conn.status.retryInMs);
    ws = accept();
    assert.equal(conn.status.state, STATES.CONNECTED);
    hb = ws.lastSent("server.info");
    assert.equal(hb, undefined, "no heartbeat before its interval");
  });

  test("no token configured: unconfigured, and calls say what to set", async () => {
    const { conn } = connect({ token: "" });
    conn.start();
    assert.equal(conn.status.state, STATES.UNCONFIGURED);
    assert.equal(FakeWebSocket.all.length, 0);
    await assert.rejects(conn.call("server.info"), /not configured: no access token is set/);
  });

  test("a malformed URL is refused with the browser's reason", () => {
    const { conn } = connect({ url: "localhost:8765" });
    conn.start();
    assert.equal(conn.status.state, STATES.REFUSED);
    assert.match(conn.status.detail, /^bad bridge URL "localhost:8765": .*invalid/);
  });

  test("stop fails waiting requests and stops retrying; restart connects again", async () => {
    const { conn } = connect();
    conn.start();
    FakeWebSocket.last.drop(1006);
    const pending = conn.call("server.info");
    conn.stop("settings changed");
    await assert.rejects(pending, (e) => e instanceof ConnectionError && /settings changed/.test(e.message));
    assert.deepEqual(clock.pending(), []);
    conn.restart();
    accept();
    assert.equal(conn.status.state, STATES.CONNECTED);
  });

  test("replies in a batch and garbage text are handled", async () => {
    const { conn } = connect();
    conn.start();
    const ws = accept();
    const a = conn.call("m", {}, { id: "a" });
    const b = conn.call("m", {}, { id: "b" });
    ws.reply("not json {");
    ws.reply([{ jsonrpc: "2.0", id: "b", result: 2 }, { jsonrpc: "2.0", id: "a", result: 1 }]);
    assert.deepEqual(await Promise.all([a, b]), [1, 2]);
  });

  test("a 64-bit seed in a reply survives exactly", async () => {
    const { conn } = connect();
    conn.start();
    const ws = accept();
    const p = conn.call("attack.resolve", {}, { id: "s" });
    ws.reply('{"jsonrpc":"2.0","id":"s","result":{"seed":18446744073709551615,"total_damage":3}}');
    const result = await p;
    assert.equal(result.seed, 18446744073709551615n);
    assert.equal(result.total_damage, 3);
  });
});
