'use strict';
// What the Mod knows of a ruleset beyond its request structs, from the generated contract
// (contract.js, written by `python -m fracas.spec`): its title and request kinds (RULESETS)
// and its manifest's [client] table (CLIENT: the help's options, what a d20 strike is rolled
// against, a target's damage split into pools, a whole fight's sides, the options that build nested
// request fields). The Mod's code asks here and names no ruleset (vtt_scripts/names.test.js),
// so a ruleset added to the engine gets its card, bars, initiative and options without an edit.

const { RULESETS, DEFAULT_RULESET, CLIENT } = require('../contract');

const NONE = Object.freeze({});
/** Whether `obj` is an object with `key` as its own property (never one it inherits: a served
 * answer is untrusted data, and `__proto__` or `toString` must not read as a field). */
const own = (obj, key) => obj !== null && typeof obj === 'object' && Object.prototype.hasOwnProperty.call(obj, key);

/** The checked [client] hints of the rulesets the bridge served (mod/served.js), by name. */
let served = {};

/** Keep the served rulesets' checked hints (mod/served.js, on each server.contract answer). */
function serve(table) {
  served = table;
}

/** Ruleset `name`'s [client] hints: contract.js's for a ruleset it lists, else the ones the
 * bridge served for it, else {}. */
function hints(name) {
  if (CLIENT && own(CLIENT, name)) return CLIENT[name] || NONE;
  return (own(served, name) && served[name]) || NONE;
}

/** Ruleset `name`'s title as the contract gives it (the name itself when it is not listed). */
function title(name) {
  const entry = RULESETS.find((r) => r.name === name);
  return entry ? entry.title : name;
}

/** The rulesets whose requests include `kind` ('counterspell', 'morale'), in the contract's order. */
function withKind(kind) {
  return RULESETS.filter((r) => Object.prototype.hasOwnProperty.call(r.requests, kind)).map((r) => r.name);
}

/** Whether ruleset `name` has requests of `kind` (as fracas.drive.scenario asks `request_types`). */
function hasKind(name, kind) {
  return withKind(kind).includes(name);
}

/** Ruleset `name`'s damage pools, when its hints split a target's damage into two or more (CT-4:
 * stamina on the Body bar, injury on the campaign's injury bar), else undefined. */
function pools(name) {
  const split = hints(name).split;
  return Array.isArray(split) && split.length >= 2 ? split : undefined;
}

/** The rulesets whose damage is split into pools, in the contract's order. */
function withPools() {
  return RULESETS.map((r) => r.name).filter((name) => pools(name) !== undefined);
}

/** The titles of `names` in words: "A", "A and B", "A, B and C". */
function titles(names) {
  const list = names.map(title);
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}` : (list[0] || '');
}

module.exports = { own, hints, serve, title, titles, withKind, hasKind, pools, withPools, DEFAULT_RULESET };
