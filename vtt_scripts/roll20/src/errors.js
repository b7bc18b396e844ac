'use strict';
// The errors a user can cause, in one family (the twin of src/fracas/errors.py):
//
//   FracasError
//    └── RequestError          a request fracas will not resolve; `.path` says where
//         ├── SchemaError      malformed: wrong type, unknown field, value out of range
//         ├── RulesError       well formed, but impossible by the rules (ER-14 …)
//         ├── DiceError        injected `rolls` that do not fit the dice drawn
//         └── LimitError       larger than the engine accepts
//
// `message` is "<path>: <reason>", as `str(error)` is in Python.

class FracasError extends Error {}

class RequestError extends FracasError {
  constructor(path, reason) {
    super(`${path}: ${reason}`);
    this.path = path;
    this.reason = reason;
  }

  get name() {
    return this.constructor.name;
  }

  toJSON() {
    return { type: this.name, path: this.path, reason: this.reason, message: this.message };
  }
}

class SchemaError extends RequestError {}
class RulesError extends RequestError {}
class DiceError extends RequestError {}
class LimitError extends RequestError {}

/** '1 face', '3 faces': how many injected faces, for messages (as fracas.requests.faces). */
function faces(n) {
  return n === 1 ? `${n} face` : `${n} faces`;
}

module.exports = { FracasError, RequestError, SchemaError, RulesError, DiceError, LimitError, faces };
