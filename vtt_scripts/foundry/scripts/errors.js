// The errors the module shows a GM, in one family:
//
//   FracasError          anything fracas reports on purpose (shown as a notification)
//    ├── InputError      bad macro arguments or token/actor data, caught before sending
//    ├── BridgeError     the bridge answered with a JSON-RPC error (`code`, `path`)
//    ├── TimeoutError    the bridge did not answer in time (`requestId` to look it up)
//    └── ConnectionError not connected: stopped, refused, or not this client's job
//
// Messages are short, lower-case, and name the problem and where it is.

export class FracasError extends Error {
  get name() {
    return this.constructor.name;
  }
}

export class InputError extends FracasError {}

export class BridgeError extends FracasError {
  /**
   * Wrap a JSON-RPC error object from the bridge.
   * @param {string} method  the method that was called
   * @param {{code: number, message: string, data?: {path?: string}}} error
   */
  constructor(method, error) {
    const code = Number.isInteger(error?.code) ? error.code : null;
    const path = typeof error?.data?.path === "string" ? error.data.path : null;
    let text = typeof error?.message === "string" && error.message ? error.message : "unknown error";
    // Engine messages already start with their path; add it only when missing.
    if (path && !text.startsWith(path)) text = `${path}: ${text}`;
    super(`${method} failed: ${text}${code === null ? "" : ` (code ${code})`}`);
    this.method = method;
    this.code = code;
    this.path = path;
    this.reason = text;
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
    super(`the bridge did not answer ${method} within ${formatSeconds(ms)}`
      + `${status ? ` (connection: ${status})` : ""}; nothing was applied (request id ${requestId})`);
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
 * @param {unknown} error
 */
export function describeError(error) {
  if (error instanceof FracasError) return `fracas: ${error.message}`;
  const text = error instanceof Error ? error.message : String(error);
  return `fracas: unexpected error: ${text}`;
}
