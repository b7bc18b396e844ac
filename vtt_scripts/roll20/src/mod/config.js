'use strict';
// `!fracas config`: which attributes hold what, which bar holds Body, who sees cards.

const { UsageError, onOff, integer } = require('./usage');
const { DEFAULT_ATTRS, defaultConfig } = require('./store');
const { CONDITIONS } = require('../schema');
const { names: rulesetNames } = require('../rulesets');
const hints = require('./hints');

const MARKER_TAG = /^[A-Za-z0-9_:@ -]{0,80}$/;
const ATTR_NAME = /^[A-Za-z0-9_ -]{1,80}$/;

// The on/off settings: option → [setting, what it means on, what it means off].
const SWITCHES = {
  'players-attack': ['players_attack', 'players may attack with their own tokens',
    'only the GM may attack'],
  'players-seed': ['players_seed', 'players may choose the dice (--seed, --rolls)',
    'only the GM chooses the dice'],
  'players-any-layer': ['players_any_layer', 'players may target tokens on any layer',
    'players may target only tokens on the token layer'],
  'show-npc-body': ['show_npc_body', "public cards show NPCs' Body",
    "public cards hide NPCs' Body"],
  'trust-scripts': ['trust_scripts', 'commands other Mod scripts send act as the GM',
    'commands other Mod scripts send act for the player named with --api-as, never as the GM'],
  'players-numbers': ['players_numbers', 'players may give their own strike options, --ac, --target-FIELD and --cover',
    "players attack with their sheet's strikes, against their targets' sheets"],
  'defense-rolls': ['defense_rolls', "players roll defense dice against the GM's creatures (ER-22)",
    'attackers roll their own dice'],
  'below-min': ['below_min', 'damage may take the bar below its minimum',
    'damage stops at the minimum'],
};

function single(option) {
  if (option.values.length !== 1) {
    throw new UsageError(`--${option.name} takes one value, got ${option.values.length}`);
  }
  return option.values[0];
}

function pair(option, what) {
  const raw = option.values.join(' ');
  const eq = raw.indexOf('=');
  if (eq < 1) throw new UsageError(`--${option.name} takes ${what}=NAME, e.g. --${option.name} ${option.name === 'attr' ? 'ac=armor_class' : 'prone=back-pain'}`);
  return [raw.slice(0, eq).trim().toLowerCase(), raw.slice(eq + 1).trim()];
}

/**
 * Apply `!fracas config` options to `config` (checked first, applied only if all
 * are good). Returns a list of what changed, in words.
 */
function applyOptions(config, options, knownMarkers = null) {
  const next = JSON.parse(JSON.stringify(config));
  const changes = [];
  for (const option of options) {
    if (Object.prototype.hasOwnProperty.call(SWITCHES, option.name)) {
      const [key, on, off] = SWITCHES[option.name];
      next[key] = onOff(single(option), `--${option.name}`);
      changes.push(next[key] ? on : off);
      continue;
    }
    switch (option.name) {
      case 'reset':
        Object.assign(next, defaultConfig());
        changes.push('all settings back to their defaults');
        break;
      case 'bar':
        next.bar = integer(single(option).replace(/^bar/i, ''), '--bar', 1, 4);
        changes.push(`Body is on bar ${next.bar}`);
        break;
      case 'min':
        next.min = integer(single(option), '--min', -1000000, 1000000);
        changes.push(`damage stops at ${next.min}`);
        break;
      case 'output': {
        const v = single(option).toLowerCase();
        if (!['public', 'whisper'].includes(v)) throw new UsageError(`--output takes public or whisper, not "${v}"`);
        next.output = v;
        changes.push(`attack cards are ${v === 'public' ? 'public' : 'whispered to the GM and the attacker'}`);
        break;
      }
      case 'attr': {
        const [field, name] = pair(option, 'FIELD');
        if (!Object.prototype.hasOwnProperty.call(DEFAULT_ATTRS, field)) {
          throw new UsageError(`--attr: unknown field "${field}" (one of: ${Object.keys(DEFAULT_ATTRS).join(', ')})`);
        }
        const value = name || DEFAULT_ATTRS[field];
        if (!ATTR_NAME.test(value)) throw new UsageError(`--attr: "${value}" is not an attribute name`);
        next.attrs[field] = value;
        changes.push(`${field} is read from the attribute "${value}"`);
        break;
      }
      case 'marker': {
        const [condition, tag] = pair(option, 'CONDITION');
        if (!CONDITIONS.includes(condition)) {
          throw new UsageError(`--marker: unknown condition "${condition}" (one of: ${CONDITIONS.join(', ')})`);
        }
        if (!MARKER_TAG.test(tag)) throw new UsageError(`--marker: "${tag}" is not a token marker name`);
        if (tag && knownMarkers && !knownMarkers.includes(tag.toLowerCase())) {
          const some = knownMarkers.slice(0, 12).join(', ');
          throw new UsageError(`--marker: this campaign has no token marker "${tag}" (markers: ${some}` +
            `${knownMarkers.length > 12 ? ', …' : ''})`);
        }
        // Tokens show a custom marker as "name::id"; fracas matches the name part.
        const plainTag = tag.toLowerCase().split('::')[0];
        if (plainTag && plainTag !== condition) next.markers[condition] = plainTag;
        else delete next.markers[condition];
        changes.push(`${condition} is the token marker "${next.markers[condition] || condition}"`);
        break;
      }
      case 'relay-chunk':
        next.relay_chunk = integer(single(option), '--relay-chunk', 200, 20000);
        changes.push(`relay frames carry up to ${next.relay_chunk} characters`);
        break;
      case 'relay-timeout':
        next.relay_timeout = integer(single(option), '--relay-timeout', 5, 600);
        changes.push(`relay requests wait ${next.relay_timeout} s for an answer`);
        break;
      case 'ruleset': {
        const v = single(option).toLowerCase();
        if (!rulesetNames().includes(v)) throw new UsageError(`--ruleset: unknown ruleset "${v}" (one of: ${rulesetNames().join(', ')})`);
        next.ruleset = v;
        changes.push(`!fracas attack uses the ${v} rules unless it names --ruleset`);
        break;
      }
      case 'injury-bar': {
        const v = single(option).toLowerCase();
        next.injury_bar = v === 'off' ? null : integer(v.replace(/^bar/, ''), '--injury-bar', 1, 4);
        // The rulesets whose targets' damage is split into pools (CT-4 injury): their hints say.
        const who = hints.titles(hints.withPools());
        changes.push(next.injury_bar ? `${who} injury goes to bar ${next.injury_bar}` : `${who} injury goes to the Body bar`);
        break;
      }
      default:
        throw new UsageError(`!fracas config does not know --${option.name} (see !fracas help)`);
    }
  }
  Object.assign(config, next);
  return changes;
}

/** The marker tag that shows `condition` on a token. */
function markerFor(config, condition) {
  return config.markers[condition] || condition;
}

module.exports = { applyOptions, markerFor, ATTR_NAME, MARKER_TAG, SWITCHES };
