'use strict';
// Rulesets this Mod script has no code of its own for, learned from the bridge at run
// time (`server.contract`, issue 39 item 12): a ruleset installed as a plug-in in
// `fracas serve` is in no contract.js built before it. `!fracas attack --ruleset NAME`
// naming a ruleset contract.js does not list asks the bridge (through the relay, once it has
// said hello; without one the name is refused as unknown) for that ruleset's contract
// (`server.contract` with `rulesets: [name]`), checks it, keeps it in memory (a sandbox restart asks again) and runs the
// command again: the attack is then built from the served request structs (its options
// and fracas_<field> sheet attributes), sent as attack.resolve, its card shows each
// strike's values in the served result layout's order, and its damage is applied from
// the result's per-target totals (targets.<id>.damage), as for any bridge-only ruleset.
// Its manifest's [client] hints, when the bridge serves them (server.contract's `client`),
// checked, count as a built-in's do (mod/hints.js): its card's per-target `split` fields, its
// `switches` and `choices` options; a built-in ruleset's hints are always contract.js's own.
// A contract that is not what server.contract describes is refused, saying where.

const { UsageError } = require('./usage');
const cards = require('./cards');
const esc = require('./escape');
const relaylink = require('./relaylink');
const registry = require('../registry');
const hints = require('./hints');
const { CLIENT_TYPES, CLIENT_CHOICES } = require('../contract');

const own = (obj, key) => obj !== null && typeof obj === 'object' && !Array.isArray(obj) &&
  Object.prototype.hasOwnProperty.call(obj, key);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

const MAX_RULESETS = 64;
const MAX_STRUCTS = 200;
const MAX_FIELDS = 200;
const MAX_DEPTH = 8;
const NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const SCALARS = ['int', 'str', 'bool', 'float', 'any'];
const MAX_HINT_TEXT = 400;
const MAX_HINT_ITEMS = 50;

/** The rulesets learned from the bridge: {rulesets: name → entry, structs, results} (null: none asked yet). */
let current = null;

function bad(path, what) {
  return new UsageError(`the bridge's contract (server.contract) cannot be used: ${path}: ${what}; ` +
    'nothing was sent (is the bridge the same fracas version as this script?)');
}

function checkType(type, path, depth = 0) {
  if (depth > MAX_DEPTH) throw bad(path, `nested more than ${MAX_DEPTH} deep`);
  if (typeof type === 'string') {
    if (!SCALARS.includes(type)) throw bad(path, `unknown type ${JSON.stringify(type).slice(0, 40)} (${SCALARS.join(', ')} or an object)`);
    return;
  }
  if (!isObject(type) || Object.keys(type).length !== 1) throw bad(path, 'a type is a name or an object with one key');
  const [key] = Object.keys(type);
  const inner = type[key];
  if (key === 'struct') {
    if (typeof inner !== 'string' || !NAME.test(inner)) throw bad(`${path}.struct`, 'not a struct name');
  } else if (key === 'literal') {
    if (!Array.isArray(inner) || !inner.every((v) => ['string', 'number', 'boolean'].includes(typeof v) || v === null)) {
      throw bad(`${path}.literal`, 'not a list of plain values');
    }
  } else if (key === 'union') {
    if (!Array.isArray(inner) || !inner.length) throw bad(`${path}.union`, 'not a list of types');
    inner.forEach((t, i) => checkType(t, `${path}.union[${i}]`, depth + 1));
  } else if (key === 'list' || key === 'dict' || key === 'optional') {
    checkType(inner, `${path}.${key}`, depth + 1);
  } else {
    throw bad(path, `unknown type key ${JSON.stringify(key).slice(0, 40)}`);
  }
}

function checkStructs(structs, path) {
  if (!isObject(structs)) throw bad(path, 'not an object of request structs');
  const names = Object.keys(structs);
  if (names.length > MAX_STRUCTS) throw bad(path, `more than ${MAX_STRUCTS} structs`);
  for (const name of names) {
    const fields = structs[name];
    const where = `${path}.${name}`;
    if (!NAME.test(name)) throw bad(path, `${JSON.stringify(name).slice(0, 40)} is not a struct name`);
    if (!Array.isArray(fields) || fields.length > MAX_FIELDS) throw bad(where, `not a list of at most ${MAX_FIELDS} fields`);
    fields.forEach((field, i) => {
      if (!Array.isArray(field) || field.length < 2 || field.length > 3 || typeof field[0] !== 'string' || !NAME.test(field[0])) {
        throw bad(`${where}[${i}]`, 'a field is [name, type] or [name, type, default]');
      }
      checkType(field[1], `${where}[${i}][1]`);
    });
  }
}

function checkResults(results, path) {
  if (!isObject(results) || !isObject(results.kinds) || !isObject(results.shapes)) throw bad(path, 'not {kinds, shapes}');
  for (const [kind, shape] of Object.entries(results.kinds)) {
    if (typeof shape !== 'string' || !own(results.shapes, shape)) throw bad(`${path}.kinds.${kind}`, 'names no shape of results.shapes');
  }
  for (const [shape, keys] of Object.entries(results.shapes)) {
    if (!Array.isArray(keys) || !keys.every((k) => typeof k === 'string' || (Array.isArray(k) && typeof k[0] === 'string'))) {
      throw bad(`${path}.shapes.${shape}`, 'not a list of keys (a name, or [name, nest])');
    }
  }
}

/**
 * A served ruleset's [client] hints, checked as its manifest's are (contract.js CLIENT_TYPES
 * and CLIENT_CHOICES, from fracas/rulesets/manifest.py): known keys only, each of its type,
 * strings and lists bounded; a copy.
 */
function checkClient(table, path) {
  if (!isObject(table)) throw bad(path, 'not an object of [client] hints');
  const out = {};
  for (const key of Object.keys(table)) {
    const value = table[key];
    const where = `${path}.${key}`;
    const type = own(CLIENT_TYPES, key) ? CLIENT_TYPES[key] : undefined;
    if (type === undefined) throw bad(where, `not a [client] key (${Object.keys(CLIENT_TYPES).join(', ')})`);
    const ok = type === 'string' ? typeof value === 'string' && value.length <= MAX_HINT_TEXT
      : type === 'integer' ? Number.isInteger(value) && value >= 0 && value <= 1000
        : type === 'array' ? Array.isArray(value) && value.length <= MAX_HINT_ITEMS && value.every((v) => typeof v === 'string' && NAME.test(v))
          : isObject(value) && Object.keys(value).length <= MAX_HINT_ITEMS && JSON.stringify(value).length <= 20 * MAX_HINT_TEXT;
    if (!ok) throw bad(where, `not ${type === 'array' ? 'a list of field names' : type === 'object' ? 'an object' : type === 'integer' ? 'an integer' : 'a string'} (${JSON.stringify(value).slice(0, 40)})`);
    if (own(CLIENT_CHOICES, key) && !CLIENT_CHOICES[key].includes(value)) {
      throw bad(where, `${JSON.stringify(value).slice(0, 40)} is not one of ${CLIENT_CHOICES[key].join(', ')}`);
    }
    out[key] = JSON.parse(JSON.stringify(value));
  }
  return out;
}

/**
 * The rulesets of a server.contract result that contract.js does not list, checked:
 * {rulesets: name → {name, title, requests, roll20: false}, structs, results}. Throws a
 * UsageError naming the first place that is wrong.
 */
function check(contract) {
  if (!isObject(contract)) throw bad('$', 'not an object');
  if (!Array.isArray(contract.rulesets) || contract.rulesets.length > MAX_RULESETS) {
    throw bad('$.rulesets', `not a list of at most ${MAX_RULESETS} rulesets`);
  }
  if (!isObject(contract.structs)) throw bad('$.structs', 'not an object');
  const results = isObject(contract.results) ? contract.results : {};
  if (contract.client !== undefined && !isObject(contract.client)) throw bad('$.client', 'not an object');
  const client = contract.client || {};
  const out = { rulesets: {}, structs: {}, results: {}, client: {} };
  contract.rulesets.forEach((entry, i) => {
    const path = `$.rulesets[${i}]`;
    if (!isObject(entry) || typeof entry.name !== 'string' || !NAME.test(entry.name)) throw bad(`${path}.name`, 'not a ruleset name');
    if (typeof entry.title !== 'string' || !entry.title || entry.title.length > 200) throw bad(`${path}.title`, 'not a title (1 to 200 characters)');
    if (!isObject(entry.requests) || !Object.values(entry.requests).every((s) => typeof s === 'string')) {
      throw bad(`${path}.requests`, 'not an object of request kinds to struct names');
    }
    if (registry.entry(entry.name)) return; // this script's own contract has it
    const name = entry.name;
    if (!own(contract.structs, name)) throw bad(`$.structs`, `no request structs for ${name}`);
    checkStructs(contract.structs[name], `$.structs.${name}`);
    if (own(results, name)) {
      checkResults(results[name], `$.results.${name}`);
      out.results[name] = results[name];
    }
    out.rulesets[name] = { name, title: entry.title, requests: Object.assign({}, entry.requests), roll20: false };
    out.structs[name] = contract.structs[name];
    // A bridge before `client` was served sends none: the plain layout card.
    out.client[name] = own(client, name) ? checkClient(client[name], `$.client.${name}`) : {};
  });
  return out;
}

/** The served entry of ruleset `name` ({name, title, requests, roll20: false}), or undefined. */
function entry(name) {
  return current && own(current.rulesets, name) ? current.rulesets[name] : undefined;
}

/** The served request structs of ruleset `name` (contract.js STRUCTS' form), or undefined. */
function structs(name) {
  return current && own(current.structs, name) ? current.structs[name] : undefined;
}

/** The served result layouts of ruleset `name` ({kinds, shapes}), or undefined. */
function results(name) {
  return current && own(current.results, name) ? current.results[name] : undefined;
}

/** The rulesets learned from the bridge, by name. */
function names() {
  return current ? Object.keys(current.rulesets) : [];
}

/**
 * `!fracas attack` (or `!fracas init`) naming a ruleset neither contract.js nor the served contract lists:
 * ask the bridge for its contract and run the command again when it answers. Returns
 * what was sent, or null (the ruleset is known, or was asked for already: rulesetOf words
 * the error).
 */
function askIfUnknown(app, msg, cmd) {
  const named = cmd.options.filter((o) => o.name === 'ruleset');
  if (named.length !== 1 || named[0].values.length !== 1) return null;
  const ruleset = String(named[0].values[0]).toLowerCase();
  if (registry.entry(ruleset) || entry(ruleset) || msg.fracasServedAsked) return null;
  // Without a relay that has said hello there is no bridge to ask: rulesetOf refuses the name.
  if (!app.s().relay.last_hello) return null;
  // Kept in state until answered (Roll20 keeps state as JSON: no undefined members).
  const again = JSON.parse(JSON.stringify({ type: msg.type, content: msg.content, playerid: msg.playerid,
    who: msg.who, selected: msg.selected, inlinerolls: msg.inlinerolls }));
  // Only that ruleset's contract (the filter keeps the answer to 3 frames, not the 17
  // a whole contract with every ruleset's layouts takes at the relay's 1800 characters a frame).
  const sent = relaylink.send(app, 'server.contract', { rulesets: [ruleset] }, { ruleset, msg: again }, 'c');
  const what = cmd.sub === 'init' ? 'initiative is rolled' : 'attack is sent';
  app.whisper(msg.playerid, cards.notice(`fracas ${cmd.sub || 'attack'}`, [
    `this script has no ruleset "${esc.text(ruleset)}" built in: asked the bridge for the rulesets it resolves ` +
    `(${esc.text(sent.id)}); the ${what} once it answers.`,
  ]));
  return sent;
}

/** The bridge's server.contract answer: keep its rulesets, then run the waiting command again. */
function useContract(app, pending, result) {
  // Added to those learned before (each ask names one ruleset); the latest answer wins.
  const learned = check(result);
  const kept = current && Object.keys(current.rulesets).length < MAX_RULESETS ? current : null;
  const before = kept || { rulesets: {}, structs: {}, results: {}, client: {} };
  current = {
    rulesets: Object.assign({}, before.rulesets, learned.rulesets),
    structs: Object.assign({}, before.structs, learned.structs),
    results: Object.assign({}, before.results, learned.results),
    client: Object.assign({}, before.client, learned.client),
  };
  hints.serve(current.client);
  const again = pending.meta && pending.meta.msg;
  if (!again || typeof again.content !== 'string') return;
  again.fracasServedAsked = true; // asked once: a ruleset still unknown is an error now
  app.runChat(again, 0);
}

relaylink.register('server.contract', useContract);

/**
 * A strike's values in its served result layout's order ("faces 5, 6, 2 · hits 2"),
 * leaving out target, hit and damage (the card shows them), or '' without a layout.
 */
function strikeDetail(ruleset, strike) {
  const layout = results(ruleset);
  if (!layout || !strike || typeof strike !== 'object') return '';
  const attack = layout.shapes[layout.kinds.attack];
  const strikes = attack && attack.find((k) => Array.isArray(k) && k[0] === 'strikes');
  const shape = strikes && strikes[1] && typeof strikes[1].list === 'string' ? layout.shapes[strikes[1].list] : null;
  if (!shape) return '';
  const parts = [];
  for (const key of shape) {
    if (typeof key !== 'string' || ['target', 'hit', 'damage'].includes(key) || !own(strike, key)) continue;
    const v = strike[key];
    const text = Array.isArray(v) && v.every((x) => typeof x !== 'object') ? v.join(', ')
      : typeof v === 'object' && v !== null ? null : String(v);
    if (text !== null) parts.push(`${key.replace(/_/g, ' ')} ${text.slice(0, 200)}`);
  }
  return parts.length ? `${esc.text(parts.join(' · '))} · ` : '';
}

/** Forget the served rulesets (tests). */
function reset() {
  current = null;
  hints.serve({});
}

module.exports = { check, entry, structs, results, names, askIfUnknown, useContract, strikeDetail, reset };
