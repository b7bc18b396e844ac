'use strict';
// The rulesets this resolver knows and which module resolves a request: the twin of the
// Python registry (fracas.rulesets). Below rulesets.js (the entry per kind of request)
// and odds.js, which both look a request's rules up here. Every ruleset the engine
// registers is listed in contract.js; the ones with a JavaScript port (roll20: true and
// a module here) resolve offline, the others only through the relay and the bridge.

const { RulesError } = require('./errors');
const { checkRuleset } = require('./plan');
const { say } = require('./facts');
const { RULESETS, DEFAULT_RULESET: DEFAULT } = require('./contract');

// The JavaScript ports beside the default ruleset's (engine.js): one file a ruleset in
// ports/, listed by the generated ports/index.js from the manifests.
const PORTS = require('./ports/index');
const OTHERS = Object.fromEntries(PORTS.map((rules) => [rules.name, rules]));

/** The contract's entry of ruleset `name` (name, title, requests, roll20), or undefined. */
function entry(name) {
  return RULESETS.find((r) => r.name === name);
}

/** Whether this resolver answers `name` itself: the spec says it has a port, and it is here. */
function offline(name) {
  const known = entry(name);
  return !!known && known.roll20 && (name === DEFAULT || Object.prototype.hasOwnProperty.call(OTHERS, name));
}

/**
 * Whether `name` has this script's own client: the default ruleset (the contract's
 * DEFAULT_RULESET), whose attacks, mobs, odds, forecasts, whole fights and initiative read
 * its sheet attributes and strikes attribute and resolve with its resolver (engine.js).
 * Every other ruleset, built in or served by the bridge, is drawn from its contract: its
 * [client] hints, request structs, result layouts and kinds (the one place that decides).
 */
function ownClient(name) {
  return name === DEFAULT;
}

/** The rules module a request names (null: Enchanted Realms); the name is checked first, as in Python. */
function rulesOf(request) {
  let parsed = request;
  if (typeof request === 'string') {
    try {
      parsed = JSON.parse(request);
    } catch (err) {
      return { rules: null, request }; // the decoder words the JSON error
    }
  }
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && 'ruleset' in parsed) {
    checkRuleset(parsed.ruleset);
    if (!offline(parsed.ruleset)) {
      throw new RulesError('$.ruleset', say('no_offline_resolver', { title: entry(parsed.ruleset).title }));
    }
    return { rules: OTHERS[parsed.ruleset] || null, request: parsed };
  }
  return { rules: null, request: parsed };
}

/** Every ruleset name the engine registers, Enchanted Realms first. */
function names() {
  return RULESETS.map((r) => r.name);
}

module.exports = { OTHERS, DEFAULT, rulesOf, names, offline, entry, ownClient };
