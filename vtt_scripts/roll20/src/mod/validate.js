'use strict';
// `state.fracas` checked on load: Roll20 keeps it as JSON that a GM (or another script) can
// edit, so every value is checked against what `!fracas config` itself would accept. A bad
// value goes back to its default and the GM is told which, by its path (e.g.
// `state.fracas.config.bar was 7 (one of 1, 2, 3, 4): now 1`); nothing bad is used unchecked.

const { defaultConfig, DEFAULT_ATTRS } = require('./store');
const { ATTR_NAME, MARKER_TAG, SWITCHES } = require('./config');
const { CONDITIONS } = require('../schema');
const { names: rulesetNames } = require('../rulesets');

const whole = (low, high) => (v) => Number.isInteger(v) && v >= low && v <= high;
const bool = (v) => typeof v === 'boolean';

// Each setting: [check, what it must be (for the note)].
const CHECKS = {
  bar: [whole(1, 4), 'one of 1, 2, 3, 4'],
  min: [whole(-1000000, 1000000), 'a whole number from -1000000 to 1000000'],
  output: [(v) => v === 'public' || v === 'whisper', '"public" or "whisper"'],
  relay_chunk: [whole(200, 20000), 'a whole number from 200 to 20000'],
  relay_timeout: [whole(5, 600), 'a whole number from 5 to 600'],
  ruleset: [(v) => rulesetNames().includes(v), `one of ${rulesetNames().join(', ')}`],
  injury_bar: [(v) => v === null || whole(1, 4)(v), 'null or one of 1, 2, 3, 4'],
};

// Every on/off setting of !fracas config.
for (const [key] of Object.values(SWITCHES)) CHECKS[key] = [bool, 'true or false'];

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const shown = (v) => {
  const text = JSON.stringify(v);
  return text === undefined ? String(v) : text.length > 40 ? `${text.slice(0, 40)}…` : text;
};

/** Check `s` (state.fracas, current version) in place; returns the notes for the GM. */
function validate(s) {
  const notes = [];
  const where = 'state.fracas.config';
  const defaults = defaultConfig();
  const config = s.config;
  for (const key of Object.keys(config)) {
    if (key === 'attrs' || key === 'markers') continue;
    if (!Object.prototype.hasOwnProperty.call(CHECKS, key)) {
      notes.push(`${where}.${key} is not a fracas setting: removed`);
      delete config[key];
    }
  }
  for (const [key, [ok, want]] of Object.entries(CHECKS)) {
    if (!ok(config[key])) {
      notes.push(`${where}.${key} was ${shown(config[key])} (${want}): now ${shown(defaults[key])}`);
      config[key] = defaults[key];
    }
  }
  const attrs = Object.create(null);
  for (const key of Object.keys(DEFAULT_ATTRS)) {
    const v = config.attrs[key];
    if (typeof v === 'string' && ATTR_NAME.test(v)) attrs[key] = v;
    else {
      notes.push(`${where}.attrs.${key} was ${shown(v)} (an attribute name): now ${shown(DEFAULT_ATTRS[key])}`);
      attrs[key] = DEFAULT_ATTRS[key];
    }
  }
  for (const key of Object.keys(config.attrs)) {
    if (!Object.prototype.hasOwnProperty.call(DEFAULT_ATTRS, key)) notes.push(`${where}.attrs.${key} is not a sheet field fracas reads: removed`);
  }
  config.attrs = Object.assign({}, attrs);
  const markers = {};
  for (const key of Object.keys(config.markers)) {
    const v = config.markers[key];
    if (CONDITIONS.includes(key) && typeof v === 'string' && v && MARKER_TAG.test(v)) markers[key] = v.toLowerCase();
    else notes.push(`${where}.markers.${key} was ${shown(v)} (a condition's token marker): removed, the condition's own name is used`);
  }
  config.markers = markers;
  // The lists the script keeps: entries of the wrong shape are dropped.
  const before = s.undo.length;
  s.undo = s.undo.filter((u) => isObject(u) && Array.isArray(u.changes) && u.changes.every(isObject));
  if (s.undo.length !== before) notes.push(`state.fracas.undo: ${before - s.undo.length} unreadable entr${before - s.undo.length === 1 ? 'y' : 'ies'} dropped`);
  const logBefore = s.log.length;
  s.log = s.log.filter((e) => isObject(e) && typeof e.id === 'string' && isObject(e.request));
  if (s.log.length !== logBefore) notes.push(`state.fracas.log: ${logBefore - s.log.length} unreadable entr${logBefore - s.log.length === 1 ? 'y' : 'ies'} dropped`);
  const kept = s.forecasts.length;
  s.forecasts = s.forecasts.filter((e) => isObject(e) && typeof e.id === 'string' && isObject(e.scenario) && isObject(e.scenario.sides) &&
    isObject(e.names) && isObject(e.seen) && isObject(e.sideOf) && Array.isArray(e.left) && Array.isArray(e.hidden) &&
    (e.card === null || typeof e.card === 'string'));
  if (s.forecasts.length !== kept) notes.push(`state.fracas.forecasts: ${kept - s.forecasts.length} unreadable entr${kept - s.forecasts.length === 1 ? 'y' : 'ies'} dropped`);
  for (const id of Object.keys(s.relay.pending)) {
    const p = s.relay.pending[id];
    if (!isObject(p) || typeof p.method !== 'string' || typeof p.text !== 'string') {
      notes.push(`state.fracas.relay.pending.${id} is not a request fracas sent: dropped`);
      delete s.relay.pending[id];
    }
  }
  if (s.relay.secret !== null && !(typeof s.relay.secret === 'string' && /^[0-9a-f]{64}$/.test(s.relay.secret))) {
    notes.push('state.fracas.relay.secret is not 64 hex digits: a new secret is made (give it to the relay)');
    s.relay.secret = null;
    s.relay.secret_shown = false;
  }
  return notes;
}

module.exports = { validate };
