// The errors the module shows a GM, in one family:
//
//   FracasError          anything fracas reports on purpose (shown as a notification)
//    ├── InputError      bad macro arguments or token/actor data, caught before sending
//    ├── BridgeError     the bridge answered with a JSON-RPC error (`code`, `path`)
//    ├── TimeoutError    the bridge did not answer in time (`requestId` to look it up)
//    └── ConnectionError not connected: stopped, refused, or not this client's job
//
// Messages are short, lower-case, and name the problem and where it is; every one goes
// through t() (lang/*.json).

import { t } from "./i18n.js";
import { bridgeCodeText } from "./words.js";

export class FracasError extends Error {
  get name() {
    return this.constructor.name;
  }

  /**
   * The error with the message `key` (filled from `data`) in this user's language, keeping
   * the key and data: sent to another client, it is said in that user's language there.
   * @template {typeof FracasError} C
   * @this {C}
   * @param {string} key
   * @param {Record<string, string|number>} [data]
   * @returns {InstanceType<C>}
   */
  static of(key, data = {}) {
    const error = /** @type {InstanceType<C>} */ (new this(t(key, data)));
    error.i18n = { key, data };
    return error;
  }

  /** @type {{key: string, data: Record<string, string|number>}|undefined} its message key, when made by of() */
  i18n = undefined;
}

export class InputError extends FracasError {}

export class BridgeError extends FracasError {
  /**
   * Wrap a JSON-RPC error object from the bridge. The message says what the error code
   * means in the user's language (with the rule IDs the bridge cites) and keeps the
   * bridge's English detail (its path and reason) for the GM; `forPlayers` leaves that
   * detail out (words.js, bridgeCodeText).
   * @param {string} method  the method that was called
   * @param {{code: number, message: string, data?: {path?: string}}} error
   */
  constructor(method, error) {
    const code = Number.isInteger(error?.code) ? error.code : null;
    const path = typeof error?.data?.path === "string" ? error.data.path : null;
    let text = typeof error?.message === "string" && error.message ? error.message : t("FRACAS.Bridge.Unknown");
    // Engine messages already start with their path; add it only when missing.
    if (path && !text.startsWith(path)) text = `${path}: ${text}`;
    const meaning = bridgeCodeText(code, "");
    super(code === null || meaning === null
      ? t("FRACAS.Bridge.FailedNoCode", { method, detail: code === null ? text : `${text} (code ${code})` })
      : t("FRACAS.Bridge.Failed", { method, detail: text, code, meaning }));
    this.method = method;
    this.code = code;
    this.path = path;
    this.reason = text;
    /** What a player is told: the code's meaning, never the bridge's detail. */
    this.forPlayers = t("FRACAS.Bridge.FailedForPlayers", { method, meaning: bridgeCodeText(code, text) ?? t("FRACAS.Bridge.Unknown") });
  }
}

export class TimeoutError extends FracasError {
  /**
   * @param {string} method
   * @param {string} requestId
   * @param {number} ms
   * @param {string} [status]
   */
  constructor(method, requestId, ms, status = "") {
    super(status
      ? t("FRACAS.Error.TimeoutStatus", { method, seconds: formatSeconds(ms), status, requestId })
      : t("FRACAS.Error.Timeout", { method, seconds: formatSeconds(ms), requestId }));
    this.method = method;
    this.requestId = requestId;
  }
}

export class ConnectionError extends FracasError {}

/**
 * "10 s", "1.5 s": durations as a GM reads them.
 * @param {number} ms
 */
export function formatSeconds(ms) {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

/**
 * The notification text for any error: ours verbatim, anything else marked unexpected.
 * `forPlayers`: a bridge error without the bridge's own (English, GM-only) detail.
 * @param {unknown} error
 * @param {{forPlayers?: boolean}} [options]
 */
export function describeError(error, { forPlayers = false } = {}) {
  return t("FRACAS.Error.Prefixed", { text: errorText(error, { forPlayers }) });
}

/**
 * What an error says, without the "fracas:" of a notification: ours verbatim (a bridge
 * error without its detail for players), anything else marked unexpected.
 * @param {unknown} error
 * @param {{forPlayers?: boolean}} [options]
 */
export function errorText(error, { forPlayers = false } = {}) {
  if (error instanceof BridgeError && forPlayers) return error.forPlayers;
  if (error instanceof FracasError) return error.message;
  return t("FRACAS.Error.UnexpectedText", { text: error instanceof Error ? error.message : String(error) });
}
