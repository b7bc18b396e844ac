// The GM client's connection to `fracas serve`: JSON-RPC 2.0 over a WebSocket.
//
//   idle ──start──▶ connecting ──auth ok──▶ connected ──drop──▶ retrying ──timer──▶ connecting
//                        │                                         ▲
//                        ├── refused (wrong token, bad URL) ───────┼── restart()
//                        └── unreachable ──────────────────────────┘
//
// Reconnects use capped exponential backoff with jitter; a heartbeat request every
// few seconds detects a dead link that never reports a close. Requests wait while
// the link is down and are resent with the same id after a reconnect (the bridge
// answers a known id from its journal, so nothing is rolled or applied twice);
// each request fails with a clear message when its timeout runs out.
//
// No Foundry globals here: the WebSocket class, the clock and the id source are
// passed in, so tests drive every state change without a network or real time.

import { BridgeError, ConnectionError, TimeoutError, formatSeconds } from "./errors.js";
import { decodeMessage, encodeMessage, makeRequest } from "./jsonrpc.js";
import { t } from "./i18n.js";

export const STATES = Object.freeze({
  IDLE: "idle",
  UNCONFIGURED: "unconfigured",
  CONNECTING: "connecting",
  CONNECTED: "connected",
  RETRYING: "retrying",
  REFUSED: "refused",
  STOPPED: "stopped",
});

const OPEN = 1;

/**
 * Delay before reconnect attempt `attempt` (0-based): base·2^attempt capped at max,
 * with "equal jitter" (between half and all of it) so many clients do not retry in step.
 * @param {number} attempt
 * @param {{baseMs?: number, maxMs?: number}} [backoff]
 * @param {() => number} [random]
 */
export function backoffDelay(attempt, { baseMs = 500, maxMs = 30000 } = {}, random = Math.random) {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/**
 * The connection's options with their defaults filled in.
 * @typedef {object} ConnectionOptions
 * @property {string} url
 * @property {string} token
 * @property {new (url: string) => WebSocket} WebSocketImpl
 * @property {{setTimeout: (fn: () => void, ms: number) => unknown, clearTimeout: (timer: unknown) => void}} clock
 * @property {() => string} newId
 * @property {() => number} random
 * @property {{baseMs: number, maxMs: number}} backoff
 * @property {number} heartbeatMs
 * @property {number} heartbeatTimeoutMs
 * @property {number} requestTimeoutMs
 * @property {string} heartbeatMethod
 */

export class BridgeConnection {
  /** @type {ConnectionOptions} */
  #opts;
  /** @type {WebSocket|null} */
  #ws = null;
  /** @type {string|null} */
  #authId = null;
  /** @type {unknown} */
  #authTimer = null;
  /** @type {unknown} */
  #retryTimer = null;
  /** @type {unknown} */
  #heartbeatTimer = null;
  /** @type {unknown} */
  #heartbeatWait = null;
  /** @type {string|null} */
  #heartbeatId = null;
  #attempt = 0;
  #lastFailure = "";
  /** @type {Map<string, {method: string, text: string, resolve: (value: unknown) => void, reject: (error: Error) => void, timer: unknown}>} */
  #pending = new Map();
  /** @type {Set<(status: object) => void>} */
  #listeners = new Set();
  /** @type {{state: string, detail: string, [key: string]: unknown}} */
  #status = { state: STATES.IDLE, detail: "" };

  /**
   * @param {object} opts
   * @param {string} opts.url              ws://127.0.0.1:8765
   * @param {string} opts.token            the bridge's access token
   * @param {new (url: string) => WebSocket} opts.WebSocketImpl  the WebSocket class
   * @param {{setTimeout: (fn: () => void, ms: number) => unknown, clearTimeout: (timer: unknown) => void}} [opts.clock]
   * @param {() => string} opts.newId      request ids (UUIDs)
   * @param {() => number} [opts.random]   jitter source in [0, 1)
   * @param {{baseMs: number, maxMs: number}} [opts.backoff]
   * @param {number} [opts.heartbeatMs]       0 turns the heartbeat off
   * @param {number} [opts.heartbeatTimeoutMs]
   * @param {number} [opts.requestTimeoutMs]
   * @param {string} [opts.heartbeatMethod]
   */
  constructor(opts) {
    this.#opts = {
      clock: {
        setTimeout: (/** @type {() => void} */ fn, /** @type {number} */ ms) => globalThis.setTimeout(fn, ms),
        clearTimeout: (/** @type {unknown} */ timer) => globalThis.clearTimeout(/** @type {ReturnType<typeof setTimeout>} */ (timer)),
      },
      random: Math.random,
      backoff: { baseMs: 500, maxMs: 30000 },
      heartbeatMs: 15000,
      heartbeatTimeoutMs: 10000,
      requestTimeoutMs: 10000,
      heartbeatMethod: "server.info",
      ...opts,
    };
  }

  /** The current status: { state, detail, attempt?, retryInMs?, url }. */
  get status() {
    return { ...this.#status, url: this.#opts.url };
  }

  /**
   * Call `listener(status)` on every change; returns an unsubscribe function.
   * @param {(status: any) => void} listener
   */
  onStatus(listener) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Start connecting (no-op when already started). */
  start() {
    const s = this.#status.state;
    if (s === STATES.CONNECTING || s === STATES.CONNECTED || s === STATES.RETRYING) return;
    this.#attempt = 0;
    this.#open();
  }

  /** Drop the link and connect again now, forgetting any backoff (after fixing settings). */
  restart() {
    this.#teardown();
    this.#attempt = 0;
    this.#open();
  }

  /** Close for good; waiting requests fail. */
  stop(reason = t("FRACAS.Conn.Stopped")) {
    this.#teardown();
    this.#setStatus(STATES.STOPPED, reason);
    this.#failAll(new ConnectionError(t("FRACAS.Error.Connection01", { reason })));
  }

  /**
   * Send a request and wait for its result.
   * @param {string} method
   * @param {object} [params]
   * @param {{id?: string, timeoutMs?: number}} [options]  reuse `id` to resend a request
   * @returns {Promise<any>} the result (the method's JSON, its shape the spec's schema for it: no static type); rejects
   *   with BridgeError, TimeoutError or ConnectionError
   */
  call(method, params, { id, timeoutMs } = {}) {
    const state = this.#status.state;
    if (state === STATES.REFUSED || state === STATES.STOPPED || state === STATES.UNCONFIGURED || state === STATES.IDLE) {
      return Promise.reject(new ConnectionError(t("FRACAS.Error.Connection02", { p0: describeState(this.#status) })));
    }
    const requestId = id ?? this.#opts.newId();
    if (this.#pending.has(requestId)) {
      return Promise.reject(new ConnectionError(t("FRACAS.Error.Connection03", { requestId })));
    }
    const ms = timeoutMs ?? this.#opts.requestTimeoutMs;
    return new Promise((resolve, reject) => {
      /** @type {{method: string, text: string, resolve: (value: unknown) => void, reject: (error: Error) => void, timer: unknown}} */
      const entry = { method, text: encodeMessage(makeRequest(requestId, method, params)), resolve, reject, timer: null };
      entry.timer = this.#opts.clock.setTimeout(() => {
        if (this.#pending.get(requestId) !== entry) return;
        this.#pending.delete(requestId);
        reject(new TimeoutError(method, requestId, ms,
          this.#status.state === STATES.CONNECTED ? "" : describeState(this.#status)));
      }, ms);
      this.#pending.set(requestId, entry);
      if (this.#status.state === STATES.CONNECTED) this.#send(entry.text);
    });
  }

  // ── link lifecycle ─────────────────────────────────────────────────────────────

  #open() {
    const { url, token } = this.#opts;
    if (!url || !token) {
      this.#setStatus(STATES.UNCONFIGURED, !url ? t("FRACAS.Conn.NoUrl") : t("FRACAS.Conn.NoToken"));
      this.#failAll(new ConnectionError(t("FRACAS.Error.Connection04", { p0: describeState(this.#status) })));
      return;
    }
    /** @type {WebSocket} */
    let ws;
    try {
      ws = new this.#opts.WebSocketImpl(url);
    } catch (error) {
      this.#setStatus(STATES.REFUSED, t("FRACAS.Conn.BadUrl", { url: JSON.stringify(url), why: error instanceof Error ? error.message : String(error) }));
      this.#failAll(new ConnectionError(t("FRACAS.Error.Connection05", { p0: describeState(this.#status) })));
      return;
    }
    this.#ws = ws;
    this.#authId = null;
    const detail = this.#attempt ? t("FRACAS.Conn.Attempt", { n: this.#attempt + 1, last: this.#lastFailure }) : "";
    this.#setStatus(STATES.CONNECTING, detail, { attempt: this.#attempt });
    ws.onopen = () => {
      if (ws !== this.#ws) return;
      this.#authId = `auth-${this.#opts.newId()}`;
      this.#authTimer = this.#opts.clock.setTimeout(() => {
        if (ws === this.#ws) this.#drop(t("FRACAS.Conn.NoAuthAnswer", { time: formatSeconds(this.#opts.requestTimeoutMs) }));
      }, this.#opts.requestTimeoutMs);
      this.#send(encodeMessage(makeRequest(this.#authId, "auth", { token: this.#opts.token })));
    };
    ws.onmessage = (event) => {
      if (ws === this.#ws) this.#receive(event.data);
    };
    ws.onerror = () => {};
    ws.onclose = (event) => {
      if (ws === this.#ws) this.#closed(event ?? {});
    };
  }

  /** @param {{code?: number, reason?: string}} event */
  #closed({ code, reason }) {
    const wasConnected = this.#status.state === STATES.CONNECTED;
    const authorising = this.#status.state === STATES.CONNECTING;
    this.#detach();
    if (this.#status.state === STATES.REFUSED) return;
    const why = reason ? t("FRACAS.Conn.CloseReason", { reason, code: String(code) }) : t("FRACAS.Conn.CloseCode", { code: code ?? "?" });
    // Closed while authenticating, on purpose: a wrong token or a policy refusal, which
    // retrying cannot fix. Overload and restarts (1001, 1012, 1013) are worth a retry.
    const transient = code === 1001 || code === 1012 || code === 1013;
    if (authorising && !transient && (reason || code === 1008 || (code !== undefined && code >= 4000 && code < 5000))) {
      this.#refuse(t("FRACAS.Conn.Refused", { why }));
      return;
    }
    this.#scheduleRetry(wasConnected ? t("FRACAS.Conn.Lost", { why }) : t("FRACAS.Conn.Unreachable", { url: this.#opts.url, why }));
  }

  /** @param {string} detail */
  #refuse(detail) {
    this.#teardown();
    this.#setStatus(STATES.REFUSED, detail);
    this.#failAll(new ConnectionError(t("FRACAS.Error.Connection06", { detail })));
  }

  /** Give up on the current socket (dead or misbehaving) and schedule a reconnect. */
  /** @param {string} detail */
  #drop(detail) {
    const ws = this.#ws;
    this.#detach();
    try {
      ws?.close(4000, detail.slice(0, 100));
    } catch {
      // The socket may already be closed; the reconnect below is what matters.
    }
    this.#scheduleRetry(detail);
  }

  /** @param {string} detail */
  #scheduleRetry(detail) {
    const delay = backoffDelay(this.#attempt, this.#opts.backoff, this.#opts.random);
    this.#attempt += 1;
    this.#lastFailure = detail;
    this.#setStatus(STATES.RETRYING, detail, { attempt: this.#attempt, retryInMs: delay });
    this.#retryTimer = this.#opts.clock.setTimeout(() => {
      this.#retryTimer = null;
      this.#open();
    }, delay);
  }

  #connected() {
    this.#opts.clock.clearTimeout(this.#authTimer);
    this.#authTimer = null;
    this.#attempt = 0;
    this.#setStatus(STATES.CONNECTED, "");
    for (const entry of this.#pending.values()) this.#send(entry.text);
    this.#scheduleHeartbeat();
  }

  #scheduleHeartbeat() {
    const { heartbeatMs, heartbeatTimeoutMs, clock } = this.#opts;
    if (!heartbeatMs) return;
    this.#heartbeatTimer = clock.setTimeout(() => {
      this.#heartbeatTimer = null;
      if (this.#status.state !== STATES.CONNECTED) return;
      this.#heartbeatId = `hb-${this.#opts.newId()}`;
      this.#heartbeatWait = clock.setTimeout(() => {
        this.#heartbeatWait = null;
        this.#drop(t("FRACAS.Conn.NoHeartbeat", { time: formatSeconds(heartbeatTimeoutMs) }));
      }, heartbeatTimeoutMs);
      this.#send(encodeMessage(makeRequest(this.#heartbeatId, this.#opts.heartbeatMethod)));
    }, heartbeatMs);
  }

  /** @param {unknown} data */
  #receive(data) {
    let message;
    try {
      message = decodeMessage(String(data));
    } catch {
      return; // Not JSON: nothing can be matched to it; the heartbeat catches a broken peer.
    }
    for (const reply of Array.isArray(message) ? message : [message]) this.#settle(reply);
  }

  /** @param {any} reply  a JSON-RPC reply as received (checked here) */
  #settle(reply) {
    if (!reply || typeof reply !== "object") return;
    const { id } = reply;
    if (id !== null && id === this.#authId) {
      if (reply.error) this.#refuse(t("FRACAS.Conn.TokenRefused", { why: reply.error.message ?? "auth failed" }));
      else this.#connected();
      return;
    }
    if (id !== null && id === this.#heartbeatId) {
      this.#opts.clock.clearTimeout(this.#heartbeatWait);
      this.#heartbeatWait = null;
      this.#heartbeatId = null;
      this.#scheduleHeartbeat();
      return;
    }
    const entry = this.#pending.get(id);
    if (!entry) return;
    this.#pending.delete(id);
    this.#opts.clock.clearTimeout(entry.timer);
    if (reply.error) entry.reject(new BridgeError(entry.method, reply.error));
    else entry.resolve(reply.result);
  }

  /** @param {string} text */
  #send(text) {
    if (this.#ws && this.#ws.readyState === OPEN) this.#ws.send(text);
  }

  /** Forget the socket and its timers without closing it. */
  #detach() {
    const { clock } = this.#opts;
    if (this.#ws) {
      this.#ws.onopen = this.#ws.onmessage = this.#ws.onclose = this.#ws.onerror = null;
    }
    this.#ws = null;
    for (const t of [this.#authTimer, this.#heartbeatTimer, this.#heartbeatWait]) if (t) clock.clearTimeout(t);
    this.#authTimer = this.#heartbeatTimer = this.#heartbeatWait = null;
    this.#heartbeatId = null;
    this.#authId = null;
  }

  #teardown() {
    const ws = this.#ws;
    this.#detach();
    if (this.#retryTimer) this.#opts.clock.clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    try {
      ws?.close(1000, "closed by the GM");
    } catch {
      // Already closed.
    }
  }

  /** @param {Error} error */
  #failAll(error) {
    for (const [id, entry] of this.#pending) {
      this.#opts.clock.clearTimeout(entry.timer);
      this.#pending.delete(id);
      entry.reject(error);
    }
  }

  /**
   * @param {string} state
   * @param {string} detail
   * @param {Record<string, unknown>} [extra]
   */
  #setStatus(state, detail, extra = {}) {
    this.#status = { state, detail, ...extra };
    const snapshot = this.status;
    for (const listener of this.#listeners) {
      try {
        listener(snapshot);
      } catch {
        // A broken status view must not break the connection.
      }
    }
  }
}

/**
 * A short phrase for a status: "retrying in 4 s (attempt 3): connection lost …".
 * @param {{state: string, detail?: string, retryInMs?: number, attempt?: number}} status
 */
export function describeState(status) {
  switch (status.state) {
    case STATES.CONNECTED: return t("FRACAS.State.Connected");
    case STATES.CONNECTING: return status.detail ? t("FRACAS.State.ConnectingDetail", { detail: status.detail }) : t("FRACAS.State.Connecting");
    case STATES.RETRYING: return t("FRACAS.State.Retrying", { time: formatSeconds(Math.round((status.retryInMs ?? 0) / 100) * 100),
      attempt: status.attempt, detail: status.detail });
    case STATES.REFUSED: return t("FRACAS.State.Refused", { detail: status.detail });
    case STATES.UNCONFIGURED: return t("FRACAS.State.Unconfigured", { detail: status.detail });
    case STATES.STOPPED: return t("FRACAS.State.Stopped", { detail: status.detail });
    default: return t("FRACAS.State.NotStarted");
  }
}
