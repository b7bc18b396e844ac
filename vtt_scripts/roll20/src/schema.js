'use strict';
// Typed requests: shape and type checks with path-bearing errors, the twin of
// src/fracas/rulesets/er/schema.py. Python lets msgspec walk the request; this file walks it
// the same way (object keys in the order given, then missing required fields in
// declaration order) and words its errors the same, so a bad request gets the
// same path and reason in both resolvers.

const { SchemaError } = require('./errors');
const { say } = require('./facts');

const {
  METHODS, STYLES, CRIT_STYLES, DAMAGE_TYPES, SIZES, COVERS, CONDITIONS, ER_CONTESTS,
} = require('./facts');

// The rulesets this resolver knows (the Python engine may register more).
const RULESETS = ['enchanted-realms', 'worldwalker', 'cartyrion', 'old-school'];

// ---- Types, named as msgspec names them in "expected X, got Y" -------------------

const REQUIRED = Symbol('required');

const T = {
  int: { kind: 'int', name: 'int' },
  str: { kind: 'str', name: 'str' },
  bool: { kind: 'bool', name: 'bool' },
  any: { kind: 'any', name: 'any' },
  optional: (of) => ({ kind: 'optional', of, name: `${of.name} | null` }),
  literal: (...values) => ({ kind: 'literal', values, name: 'str' }),
  list: (of) => ({ kind: 'list', of, name: 'array' }),
  dict: (of) => ({ kind: 'dict', of, name: 'object' }),
  union: (...of) => ({ kind: 'union', of, name: of.map((t) => t.name).join(' | ') }),
  struct: (name, fields) => ({ kind: 'struct', structName: name, fields, name: 'object' }),
};

/** The msgspec name of a decoded JSON value's type. */
function jsonType(value) {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'string') return 'str';
  if (Array.isArray(value)) return 'array';
  return 'object';
}

/** Python's repr() of a string, for messages such as "unknown size 'big'". */
function pyRepr(text) {
  const s = String(text);
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let body = '';
  for (const ch of s) {
    const code = ch.codePointAt(0);
    if (ch === '\\') body += '\\\\';
    else if (ch === quote) body += `\\${quote}`;
    else if (ch === '\n') body += '\\n';
    else if (ch === '\r') body += '\\r';
    else if (ch === '\t') body += '\\t';
    else if (code < 0x20 || code === 0x7f) body += `\\x${code.toString(16).padStart(2, '0')}`;
    else body += ch;
  }
  return quote + body + quote;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The JSONPath of `key` inside the object at `parent`. */
function keyPath(parent, key) {
  if (IDENT.test(key)) return `${parent}.${key}`;
  return `${parent}['${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
}

function isPlainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function cloneDefault(value) {
  if (Array.isArray(value)) return value.slice();
  if (isPlainObject(value)) return Object.assign({}, value);
  return value;
}

function typeError(type, value, path) {
  return new SchemaError(path, `expected ${type.name}, got ${jsonType(value)}`);
}

/** Check `value` against `type`; returns it with struct defaults filled in. */
function convert(value, type, path = '$') {
  switch (type.kind) {
    case 'any':
      return value;
    case 'int':
      if ((typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint') return value;
      throw typeError(type, value, path);
    case 'str':
      if (typeof value === 'string') return value;
      throw typeError(type, value, path);
    case 'bool':
      if (typeof value === 'boolean') return value;
      throw typeError(type, value, path);
    case 'literal':
      if (typeof value !== 'string') throw typeError(type, value, path);
      if (!type.values.includes(value)) throw new SchemaError(path, `invalid enum value ${pyRepr(value)}`);
      return value;
    case 'optional':
      if (value === null) return null;
      if (!accepts(type.of, value)) throw typeError(type, value, path);
      return convert(value, type.of, path);
    case 'union': {
      const member = type.of.find((t) => accepts(t, value));
      if (!member) throw typeError(type, value, path);
      return convert(value, member, path);
    }
    case 'list':
      if (!Array.isArray(value)) throw typeError(type, value, path);
      return value.map((item, i) => convert(item, type.of, `${path}[${i}]`));
    case 'dict': {
      if (!isPlainObject(value)) throw typeError(type, value, path);
      const out = {};
      for (const key of Object.keys(value)) out[key] = convert(value[key], type.of, `${path}[...]`);
      return out;
    }
    case 'struct':
      return convertStruct(value, type, path);
    default:
      throw new Error(`unknown type kind ${type.kind}`);
  }
}

// Whether a value is of the JSON kind a type takes (before checking its contents).
function accepts(type, value) {
  switch (type.kind) {
    case 'any': return true;
    case 'int': return (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint';
    case 'str': case 'literal': return typeof value === 'string';
    case 'bool': return typeof value === 'boolean';
    case 'list': return Array.isArray(value);
    case 'dict': case 'struct': return isPlainObject(value);
    case 'optional': return value === null || accepts(type.of, value);
    case 'union': return type.of.some((t) => accepts(t, value));
    default: return false;
  }
}

function convertStruct(value, type, path) {
  if (!isPlainObject(value)) throw typeError(type, value, path);
  const fields = type.fields;
  const out = {};
  for (const key of Object.keys(value)) {
    if (!Object.prototype.hasOwnProperty.call(fields, key)) {
      throw new SchemaError(path, `object contains unknown field ${key}`);
    }
    out[key] = convert(value[key], fields[key][0], `${path}.${key}`);
  }
  for (const name of Object.keys(fields)) {
    if (Object.prototype.hasOwnProperty.call(out, name)) continue;
    const fallback = fields[name][1];
    if (fallback === REQUIRED) throw new SchemaError(path, `object missing required field ${name}`);
    out[name] = cloneDefault(fallback);
  }
  // Field order as declared, so results read the same whatever order the request used.
  const ordered = {};
  for (const name of Object.keys(fields)) ordered[name] = out[name];
  return ordered;
}

/** Type-check each value of an id → object mapping, with the key in the path. */
function convertMapping(obj, type, path) {
  if (!isPlainObject(obj)) {
    throw new SchemaError(path, `expected an object of id → ${type.structName.toLowerCase()}`);
  }
  const out = {};
  for (const key of Object.keys(obj)) out[key] = convert(obj[key], type, keyPath(path, key));
  return out;
}

/** A typed request from a decoded object or a JSON string. */
function decode(request, type) {
  if (typeof request === 'string') {
    try {
      request = JSON.parse(request);
    } catch (err) {
      throw new SchemaError('$', `invalid JSON (${err.message})`);
    }
  }
  if (!isPlainObject(request)) {
    const got = Array.isArray(request) ? 'list' : request === null ? 'NoneType' : typeof request;
    throw new SchemaError('$', `expected a JSON object, got ${got}`);
  }
  return convert(request, type);
}

/** Check a name against its list; the error lists what is allowed. */
function choice(value, allowed, path, what) {
  if (!allowed.includes(value)) {
    throw new SchemaError(path, say('unknown_name', { what, value: pyRepr(value), allowed: allowed.join(', ') }));
  }
  return value;
}

// ---- The request types (field order as in schema.py) ------------------------------

const Method = T.literal(...METHODS);
const Sneak = T.union(T.bool, T.literal('advantage-only'));

const Attacker = T.struct('Attacker', {
  strength: [T.optional(T.int), null],
  agility: [T.optional(T.int), null],
  strength_mod: [T.optional(T.int), null],
  agility_mod: [T.optional(T.int), null],
  size: [T.str, 'medium'],
  conditions: [T.list(T.str), []],
  swim_speed: [T.int, 0],
  obscurement: [T.int, 0],
});

const profileStrikeFields = {
  method: [Method, REQUIRED],
  style: [T.str, REQUIRED],
  dice: [T.int, REQUIRED],
  damage_type: [T.str, REQUIRED],
  bonus: [T.int, 0],
  weight: [T.int, 0],
  crit: [T.optional(T.bool), null],
  crit_range: [T.optional(T.int), null],
  advantage: [T.bool, false],
  disadvantage: [T.bool, false],
  sneak: [Sneak, false],
  reach: [T.bool, false],
  sneak_ok: [T.bool, false],
  friendly_fire: [T.optional(T.bool), null],
};

const ProfileStrike = T.struct('ProfileStrike', profileStrikeFields);
const Strike = T.struct('Strike', Object.assign({}, profileStrikeFields, { target: [T.str, REQUIRED] }));

const Grapple = T.struct('Grapple', {
  strength: [T.optional(T.int), null],
  strength_mod: [T.optional(T.int), null],
  bonus: [T.int, 0],
});

const targetFields = {
  ac: [T.int, REQUIRED],
  ac_by_type: [T.dict(T.int), {}],
  size: [T.str, 'medium'],
  resistant: [T.list(T.str), []],
  vulnerable: [T.list(T.str), []],
  immune: [T.list(T.str), []],
  conditions: [T.list(T.str), []],
  cover: [T.str, 'none'],
  body_max: [T.optional(T.int), null],
  crit_proof: [T.bool, false],
  save_bonus: [T.optional(T.int), null],
  nearby: [T.list(T.str), []],
  grappling: [T.optional(Grapple), null],
};
const Target = T.struct('Target', targetFields);

const Flee = T.struct('Flee', { moved: [T.int, REQUIRED] });

const AttackRequest = T.struct('AttackRequest', {
  attacker: [Attacker, REQUIRED],
  strikes: [T.list(Strike), REQUIRED],
  targets: [T.dict(T.any), REQUIRED],
  ruleset: [T.str, 'enchanted-realms'],
  seed: [T.optional(T.int), null],
  rolls: [T.optional(T.list(T.int)), null],
  advantage: [T.bool, false],
  disadvantage: [T.bool, false],
  flee: [T.optional(Flee), null],
  defense_rolls: [T.bool, false],
});

const Profile = T.struct('Profile', {
  attacker: [Attacker, REQUIRED],
  strikes: [T.list(ProfileStrike), REQUIRED],
  advantage: [T.bool, false],
  disadvantage: [T.bool, false],
});

const AttackGroup = T.struct('AttackGroup', {
  profile: [T.str, REQUIRED],
  target: [T.union(T.str, T.list(T.str)), REQUIRED],
  count: [T.int, 1],
});

const BulkRequest = T.struct('BulkRequest', {
  profiles: [T.dict(T.any), REQUIRED],
  targets: [T.dict(T.any), REQUIRED],
  attacks: [T.list(AttackGroup), REQUIRED],
  ruleset: [T.str, 'enchanted-realms'],
  seed: [T.optional(T.int), null],
  detail: [T.literal('summary', 'attacks', 'dice'), 'summary'],
});

const Combatant = T.struct('Combatant', {
  id: [T.str, REQUIRED],
  agility: [T.optional(T.int), null],
  agility_mod: [T.optional(T.int), null],
  bonus: [T.int, 0],
});

const InitiativeRequest = T.struct('InitiativeRequest', {
  combatants: [T.list(Combatant), REQUIRED],
  ruleset: [T.str, 'enchanted-realms'],
  seed: [T.optional(T.int), null],
  rolls: [T.optional(T.list(T.int)), null],
});

// ---- ER-19 competitions and ER-23 impalement (schema.py, the same fields) ------------

const Competitor = T.struct('Competitor', {
  id: [T.str, REQUIRED],
  attribute: [T.literal('strength', 'agility'), 'strength'],
  strength: [T.optional(T.int), null],
  agility: [T.optional(T.int), null],
  strength_mod: [T.optional(T.int), null],
  agility_mod: [T.optional(T.int), null],
  size: [T.str, 'medium'],
  speed: [T.int, 0],
  prone: [T.bool, false],
  bonus: [T.int, 0],
  advantage: [T.bool, false],
  disadvantage: [T.bool, false],
  conditions: [T.list(T.str), []],
});

const CompeteRequest = T.struct('CompeteRequest', {
  challenger: [Competitor, REQUIRED],
  defender: [Competitor, REQUIRED],
  contest: [T.literal(...ER_CONTESTS), 'plain'],
  slick: [T.bool, false],
  ruleset: [T.str, 'enchanted-realms'],
  seed: [T.optional(T.int), null],
  rolls: [T.optional(T.list(T.int)), null],
});

const impaleWeaponFields = {
  style: [T.str, 'pole-arm'],
  damage_type: [T.str, 'piercing'],
  weight: [T.int, 0],
  bonus: [T.int, 0],
  forte: [T.bool, false],
  crit: [T.optional(T.bool), null],
  crit_range: [T.optional(T.int), null],
};
const ImpaleWeapon = T.struct('ImpaleWeapon', impaleWeaponFields);
const IMPALE_WEAPON_DEFAULT = Object.fromEntries(Object.entries(impaleWeaponFields).map(([k, v]) => [k, v[1]]));

const Charger = T.struct('Charger', Object.assign({}, targetFields, {
  id: [T.str, 'charger'],
  body: [T.int, REQUIRED],
  closed: [T.int, REQUIRED],
}));

const ImpaleRequest = T.struct('ImpaleRequest', {
  pikeman: [Attacker, REQUIRED],
  charger: [Charger, REQUIRED],
  weapon: [ImpaleWeapon, IMPALE_WEAPON_DEFAULT],
  charge: [T.optional(T.dict(T.any)), null],
  ruleset: [T.str, 'enchanted-realms'],
  seed: [T.optional(T.int), null],
  rolls: [T.optional(T.list(T.int)), null],
});

module.exports = {
  RULESETS, METHODS, STYLES, CRIT_STYLES, DAMAGE_TYPES, SIZES, COVERS, CONDITIONS,
  T, REQUIRED, convert, convertMapping, decode, choice, keyPath, pyRepr, jsonType,
  Attacker, ProfileStrike, Strike, Target, AttackRequest, Profile, AttackGroup, BulkRequest,
  Combatant, InitiativeRequest, Grapple, Flee, Competitor, CompeteRequest, ImpaleWeapon, Charger, ImpaleRequest,
};
