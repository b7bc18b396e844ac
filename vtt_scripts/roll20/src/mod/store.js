'use strict';
// The script's persistent `state`, versioned, with a migration for every old version.
//
// Roll20 keeps `state` as JSON across sandbox restarts; a GM may run an old
// version of this script for months and then paste a new one. Each migration
// takes version n to n + 1; `load()` runs them in order and never leaves the
// state half-migrated. A state from a newer script, or one that is not an object,
// is kept aside under `state.fracas_backup` and replaced with defaults, and the GM is told.
//
// Versions:
//   1  the first development layout: flat settings {version, bar, whisper, undo: [...]}
//   2  settings in `config`, undo entries with `changes`, attribute names per sheet field
//   3  relay bookkeeping (`relay`: pending requests, applied ids) and the attack log (`log`)

const { DEFAULT_RULESET } = require('../contract');

const SCHEMA_VERSION = 3;
const UNDO_LIMIT = 20;
const LOG_LIMIT = 30;
const APPLIED_LIMIT = 200;

const DEFAULT_ATTRS = {
  ac: 'ac',
  ac_prefix: 'ac_',
  strength: 'strength',
  agility: 'agility',
  strength_mod: 'strength_mod',
  agility_mod: 'agility_mod',
  size: 'size',
  resistant: 'resistant',
  vulnerable: 'vulnerable',
  immune: 'immune',
  strikes: 'fracas_strikes',
  save_bonus: 'resilience',
  swim_speed: 'swim_speed',
  crit_proof: 'crit_proof',
  initiative_bonus: 'initiative_bonus',
  speed: 'speed',
  school_prefix: 'school_', // WW-8: a rating in a school of magic, school_sorcery
};

function defaultConfig() {
  return {
    bar: 1, // the token bar that holds Body
    min: 0, // the lowest value damage takes the bar to…
    below_min: false, // …unless this is on
    output: 'public', // attack cards: public, or whispered to the GM and the attacker
    players_attack: true, // players may attack with tokens they control
    players_seed: false, // players may choose the dice (--seed, --rolls)
    players_any_layer: false, // players may target tokens off the token layer
    show_npc_body: false, // public cards show an NPC's Body before → after
    attrs: Object.assign({}, DEFAULT_ATTRS),
    markers: {}, // condition → token marker tag, where they differ
    relay_chunk: 1800, // data characters per relay frame
    relay_timeout: 30, // seconds before a relay request is reported unanswered
    ruleset: DEFAULT_RULESET, // the ruleset of `!fracas attack` without --ruleset
    injury_bar: null, // Cartyrion: the bar that takes injury (null: the Body bar takes all)
    defense_rolls: false, // ER-22: players roll defense dice against the GM's creatures
    trust_scripts: false, // commands other Mod scripts send (playerid 'API') act as the GM
    players_numbers: false, // players may give strike options, --ac, --target-FIELD, --cover (not only their sheet's)
  };
}

function defaults() {
  return {
    version: SCHEMA_VERSION,
    config: defaultConfig(),
    undo: [],
    // secret: the relay secret that signs every frame (relaylink.secretOf makes it).
    relay: { pending: {}, applied: [], last_hello: null, counter: 0, secret: null, secret_shown: false },
    log: [],
    help_version: null,
    // the fight `!fracas round` plays on the bridge: {name, round, names: {token id: name}, max, ruleset}
    fight: null,
    // the last forecasts (!fracas forecast), for their buttons: {id, time, scenario, names, seen, sideOf, how,
    // ruleset, left, hidden, card (the players' card, or null when the bridge refused it)}
    forecasts: [],
  };
}

const MIGRATIONS = {
  // 1 → 2: settings move into `config`; undo entries gain the `changes` list.
  1(old) {
    const config = defaultConfig();
    if ([1, 2, 3].includes(Number(old.bar))) config.bar = Number(old.bar);
    if (old.whisper === true) config.output = 'whisper';
    const undo = Array.isArray(old.undo) ? old.undo : [];
    return {
      version: 2,
      config,
      undo: undo.filter((u) => u && Array.isArray(u.tokens)).map((u) => ({
        id: String(u.id || ''),
        label: String(u.label || 'attack'),
        time: Number(u.time) || 0,
        changes: u.tokens
          .filter((t) => t && typeof t.id === 'string' && Number.isFinite(Number(t.before)))
          .map((t) => ({ type: 'graphic', id: t.id, prop: `bar${config.bar}_value`, before: Number(t.before) })),
      })),
      help_version: null,
    };
  },
  // 2 → 3: relay bookkeeping and the attack log.
  2(old) {
    return Object.assign({}, old, {
      version: 3,
      relay: { pending: {}, applied: [], last_hello: null, counter: 0 },
      log: [],
    });
  },
};

/** Fill in anything a hand-edited or partial current-version state lacks. */
function repair(s) {
  const d = defaults();
  const out = Object.assign({}, d, s);
  out.config = Object.assign(defaultConfig(), s.config);
  out.config.attrs = Object.assign({}, DEFAULT_ATTRS, (s.config && s.config.attrs) || {});
  if (!out.config.markers || typeof out.config.markers !== 'object') out.config.markers = {};
  if (!Array.isArray(out.undo)) out.undo = [];
  if (!Array.isArray(out.log)) out.log = [];
  if (!Array.isArray(out.forecasts)) out.forecasts = [];
  out.relay = Object.assign({}, d.relay, s.relay);
  if (!out.relay.pending || typeof out.relay.pending !== 'object') out.relay.pending = {};
  if (!Array.isArray(out.relay.applied)) out.relay.applied = [];
  return out;
}

/**
 * Bring `root.fracas` to the current version. Returns a list of notes for the GM
 * (empty when nothing happened).
 */
function load(root) {
  const notes = [];
  let s = root.fracas;
  if (s === undefined || s === null) {
    root.fracas = defaults();
    return notes;
  }
  const version = s && typeof s === 'object' ? s.version : undefined;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1 || version > SCHEMA_VERSION) {
    root.fracas_backup = s;
    root.fracas = defaults();
    notes.push(`fracas found settings it cannot read (version ${JSON.stringify(version)}); ` +
      'they are kept in state.fracas_backup and the defaults are in use.');
    return notes;
  }
  for (let v = version; v < SCHEMA_VERSION; v++) {
    s = MIGRATIONS[v](s);
    notes.push(`fracas settings updated from version ${v} to ${v + 1}.`);
  }
  root.fracas = repair(s);
  return notes;
}

/** Push an undo entry (dropping the oldest past the limit). */
function pushUndo(s, entry) {
  s.undo.push(entry);
  while (s.undo.length > UNDO_LIMIT) s.undo.shift();
}

/** Keep a resolved attack's request and seed for `!fracas request` (bounded). */
function pushLog(s, entry) {
  s.log.push(entry);
  while (s.log.length > LOG_LIMIT) s.log.shift();
}

function markApplied(s, id) {
  s.relay.applied.push(id);
  while (s.relay.applied.length > APPLIED_LIMIT) s.relay.applied.shift();
}

module.exports = {
  SCHEMA_VERSION, UNDO_LIMIT, LOG_LIMIT, DEFAULT_ATTRS, defaults, defaultConfig, load, pushUndo, pushLog, markApplied,
};
