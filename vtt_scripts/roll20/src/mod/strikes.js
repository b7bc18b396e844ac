'use strict';
// Strike options of `!fracas attack` and `!fracas mob`, and of the sheet attribute
// that holds a creature's usual strikes (default `fracas_strikes`):
//
//   --dice 2 --style slashing --weight 1 --type edged --dice 1 --style shield --type blunt
//
// `--dice N` starts a strike; the options after it belong to that strike. Options
// before the first `--dice` apply to every strike (e.g. `--bonus 1`).

const { UsageError, integer } = require('./usage');
const { STYLES, DAMAGE_TYPES, METHODS } = require('../schema');
const { STYLE_METHOD } = require('../facts');

const STRIKE_OPTIONS = ['dice', 'method', 'style', 'weight', 'type', 'bonus', 'crit', 'no-crit',
  'crit-range', 'adv', 'advantage', 'disadv', 'disadvantage', 'sneak', 'reach', 'sneak-ok', 'target'];
const WEIGHTS = { light: 0, medium: 1, heavy: 2 };
const MAX_STRIKES = 32;

function one(option) {
  if (option.values.length !== 1) {
    throw new UsageError(`--${option.name} takes one value, got ${option.values.length ? option.values.join(' ') : 'none'}`);
  }
  return option.values[0];
}

function none(option) {
  if (option.values.length) throw new UsageError(`--${option.name} takes no value, got "${option.values.join(' ')}"`);
  return true;
}

function pick(value, allowed, what) {
  const v = String(value).toLowerCase();
  if (!allowed.includes(v)) throw new UsageError(`unknown ${what} "${value}" (one of: ${allowed.join(', ')})`);
  return v;
}

/** Set one strike option on `strike` (a partial strike). */
function setOption(strike, option) {
  switch (option.name) {
    case 'dice':
      // The engine says why past 5 (ER-3); this only keeps the number sane.
      strike.dice = integer(one(option), '--dice', 0, 99);
      break;
    case 'method':
      strike.method = pick(one(option), METHODS, 'method');
      break;
    case 'style':
      strike.style = pick(one(option), STYLES, 'style');
      break;
    case 'weight': {
      const v = one(option).toLowerCase();
      strike.weight = Object.prototype.hasOwnProperty.call(WEIGHTS, v) ? WEIGHTS[v] : integer(v, '--weight', 0, 2);
      break;
    }
    case 'type':
      strike.damage_type = pick(one(option), DAMAGE_TYPES, 'damage type');
      break;
    case 'bonus':
      strike.bonus = integer(one(option), '--bonus', -100, 100);
      break;
    case 'crit':
      strike.crit = option.values.length ? !['off', 'no', 'false', '0'].includes(one(option).toLowerCase()) : true;
      break;
    case 'no-crit':
      none(option);
      strike.crit = false;
      break;
    case 'crit-range': {
      // "19" or "19-20"
      const v = one(option).replace(/-20$/, '');
      strike.crit_range = integer(v, '--crit-range', 2, 20);
      break;
    }
    case 'adv': case 'advantage':
      none(option);
      strike.advantage = true;
      break;
    case 'disadv': case 'disadvantage':
      none(option);
      strike.disadvantage = true;
      break;
    case 'sneak':
      if (!option.values.length) strike.sneak = true;
      else {
        const v = one(option).toLowerCase();
        if (v !== 'advantage-only') throw new UsageError(`--sneak takes no value or advantage-only, not "${v}"`);
        strike.sneak = 'advantage-only';
      }
      break;
    case 'reach':
      none(option);
      strike.reach = true;
      break;
    case 'sneak-ok':
      none(option);
      strike.sneak_ok = true;
      break;
    case 'target':
      if (!option.values.length) throw new UsageError('--target needs a token id, e.g. --target @{target|token_id}');
      strike.targets = (strike.targets || []).concat(option.values);
      break;
    default:
      throw new Error(`not a strike option: ${option.name}`);
  }
}

/** Method from the style when not given: every style belongs to one method (ER-2). */
function inferMethod(style) {
  if (STYLE_METHOD[style]) return STYLE_METHOD[style];
  return 'melee';
}

/**
 * Split options into strikes. Returns {defaults, strikes, rest}: `defaults` are
 * strike options given before the first --dice, `rest` the options that are not
 * strike options (left to the command).
 */
function collect(options) {
  const defaults = {};
  const strikes = [];
  const rest = [];
  for (const option of options) {
    if (!STRIKE_OPTIONS.includes(option.name)) {
      rest.push(option);
      continue;
    }
    if (option.name === 'dice') {
      if (strikes.length >= MAX_STRIKES) throw new UsageError(`too many strikes (the most is ${MAX_STRIKES})`);
      strikes.push({});
    }
    setOption(strikes.length ? strikes[strikes.length - 1] : defaults, option);
  }
  return { defaults, strikes, rest };
}

/** Complete a strike (defaults filled in, checked for what it must have). */
function finish(strike, defaults, index) {
  const s = Object.assign({}, defaults, strike);
  delete s.targets;
  const label = `strike ${index + 1}`;
  if (!s.style) throw new UsageError(`${label} needs --style (one of: ${STYLES.join(', ')})`);
  if (!s.damage_type) throw new UsageError(`${label} needs --type (one of: ${DAMAGE_TYPES.join(', ')})`);
  if (!s.method) s.method = inferMethod(s.style);
  const out = { method: s.method, style: s.style, dice: s.dice, damage_type: s.damage_type };
  for (const key of ['bonus', 'weight', 'crit', 'crit_range', 'advantage', 'disadvantage', 'sneak', 'reach', 'sneak_ok']) {
    if (s[key] !== undefined) out[key] = s[key];
  }
  return out;
}

module.exports = { collect, finish, inferMethod, STRIKE_OPTIONS };
