'use strict';
// The rulesets this resolver knows and which module resolves a request: the twin of the
// Python registry (fracas.rulesets). Below rulesets.js (the entry per kind of request)
// and odds.js, which both look a request's rules up here.

const { checkRuleset } = require('./plan');
const { DEFAULT_RULESET: DEFAULT } = require('./contract');

const OTHERS = {
  worldwalker: require('./ww'),
  cartyrion: require('./ct'),
  'old-school': require('./oldschool'),
};

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
    return { rules: OTHERS[parsed.ruleset] || null, request: parsed };
  }
  return { rules: null, request: parsed };
}

/** Every ruleset name, Enchanted Realms first. */
function names() {
  return [DEFAULT, ...Object.keys(OTHERS)];
}

module.exports = { OTHERS, DEFAULT, rulesOf, names };
