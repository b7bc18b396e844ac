'use strict';
// Every ruleset this resolver knows, behind one entry per kind of request: the twin
// of the Python registry (fracas.rulesets) and drivers (fracas.drive). Enchanted
// Realms has its own modules (engine.js, initiative.js); Worldwalker, Cartyrion and
// the old-school rules share the strike-row kernel (rows.js).

const { RulesError } = require('./errors');
const { say } = require('./facts');
const { rulesetInfo } = require('./schema');
const { OTHERS, DEFAULT, rulesOf, names, offline, entry, ownClient } = require('./registry');
const engine = require('./engine');
const { rollInitiative: rollErInitiative } = require('./initiative');
const rows = require('./rows');
const { compete: competeER } = require('./specials');
const { impale: impaleER } = require('./impale');
const { odds: oddsOf } = require('./odds');

/** Resolve one attack of any ruleset (options: seed, newSeed). */
function resolve(request, options = {}) {
  const { rules, request: parsed } = rulesOf(request);
  return rules ? rows.resolveAttack(rules, parsed, options) : engine.resolve(parsed, options);
}

/** Initiative of any ruleset: ER-18, WW-1, CT-1 or OS-1. */
function rollInitiative(request, options = {}) {
  const { rules, request: parsed } = rulesOf(request);
  return rules ? rows.resolveRoll(rules, 'initiative', parsed, options) : rollErInitiative(parsed, options);
}

/** A morale check (old-school OS-4). */
function checkMorale(request, options = {}) {
  const { rules, request: parsed } = rulesOf(request);
  if (!rules || !rules.morale) {
    const title = rules ? rules.title : rulesetInfo(DEFAULT).title;
    throw new RulesError('$.ruleset', say('ruleset_unsupported', { title, kind: 'morale' }));
  }
  return rows.resolveRoll(rules, 'morale', parsed, options);
}

/** A counterspell (Worldwalker WW-8). */
function counterspell(request, options = {}) {
  const { rules, request: parsed } = rulesOf(request);
  if (!rules || !rules.counterspell) {
    const title = rules ? rules.title : rulesetInfo(DEFAULT).title;
    throw new RulesError('$.ruleset', say('ruleset_unsupported', { title, kind: 'counterspell' }));
  }
  return rows.resolveRoll(rules, 'counterspell', parsed, options);
}

/** An ER-19 competition (Enchanted Realms only). */
function compete(request, options = {}) {
  const { rules, request: parsed } = rulesOf(request);
  if (rules) throw new RulesError('$.ruleset', say('ruleset_unsupported', { title: rules.title, kind: 'competition' }));
  return competeER(parsed, options);
}

/** An ER-23 impalement and the charge it answers (Enchanted Realms only). */
function impale(request, options = {}) {
  const { rules, request: parsed } = rulesOf(request);
  if (rules) throw new RulesError('$.ruleset', say('ruleset_unsupported', { title: rules.title, kind: 'impalement' }));
  return impaleER(parsed, options);
}

/** Exact odds of an attack of any ruleset (the twin of fracas.odds). */
function odds(request, options = {}) {
  return oddsOf(request, options);
}

module.exports = {
  resolve, rollInitiative, checkMorale, counterspell, compete, impale, odds, rulesOf, OTHERS, DEFAULT, names, offline, entry,
  ownClient,
};
