'use strict';
// Typed requests: shape and type checks with path-bearing errors, the twin of
// src/fracas/rulesets/er/schema.py. Python lets msgspec walk the request; this file walks it
// the same way (object keys in the order given, then missing required fields in
// declaration order) and words its errors the same, so a bad request gets the
// same path and reason in both resolvers.

const { SchemaError } = require('./errors');
const { say } = require('./facts');

const {
  METHODS, STYLES, CRIT_STYLES, DAMAGE_TYPES, SIZES, COVERS, CONDITIONS,
} = require('./facts');
const { RULESETS: REGISTRY, DEFAULT_RULESET, STRUCTS, RESULTS } = require('./contract');

// The rulesets the Python engine registers (contract.js): the names a request may give.
const RULESETS = REGISTRY.map((r) => r.name);

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
  return new SchemaError(path, say('msgspec_type', { expected: type.name, got: jsonType(value) }));
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
      if (!type.values.includes(value)) throw new SchemaError(path, say('msgspec_enum', { value: pyRepr(value) }));
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
      throw new SchemaError(path, say('msgspec_unknown_field', { field: key }));
    }
    out[key] = convert(value[key], fields[key][0], `${path}.${key}`);
  }
  for (const name of Object.keys(fields)) {
    if (Object.prototype.hasOwnProperty.call(out, name)) continue;
    const fallback = fields[name][1];
    if (fallback === REQUIRED) throw new SchemaError(path, say('msgspec_missing_field', { field: name }));
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
    throw new SchemaError(path, say('id_mapping', { what: type.structName.toLowerCase() }));
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
      throw new SchemaError('$', say('invalid_json', { detail: err.message }));
    }
  }
  if (!isPlainObject(request)) {
    const got = Array.isArray(request) ? 'list' : request === null ? 'NoneType' : typeof request;
    throw new SchemaError('$', say('json_object', { got }));
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

// ---- The request types: built from the Python engine's msgspec structs -------------
// contract.js (generated by `python -m fracas.spec`) lists each ruleset's structs with
// their fields in declaration order, types and defaults; these are their validators.

/** A contract type ("int", {optional: …}, {struct: name}, …) as a T type of `structs`. */
function typeOf(spec, structs) {
  if (typeof spec === 'string') {
    if (!T[spec] || typeof T[spec] === 'function') throw new Error(`contract type ${spec} is not known here`);
    return T[spec];
  }
  const [kind] = Object.keys(spec);
  const arg = spec[kind];
  switch (kind) {
    case 'optional': return T.optional(typeOf(arg, structs));
    case 'list': return T.list(typeOf(arg, structs));
    case 'dict': return T.dict(typeOf(arg, structs));
    case 'union': return T.union(...arg.map((t) => typeOf(t, structs)));
    case 'literal': return T.literal(...arg);
    case 'struct': return structs(arg);
    default: throw new Error(`contract type ${kind} is not known here`);
  }
}

/** The registry entry of a ruleset the engine has (name, title, request kinds, roll20). */
function rulesetInfo(name) {
  const entry = REGISTRY.find((r) => r.name === name);
  if (!entry) throw new Error(`the contract has no ruleset ${name}`);
  return entry;
}

const built = new Map();

/** Every request struct of `ruleset` as T types, by name (contract.js STRUCTS). */
function structsOf(ruleset) {
  if (built.has(ruleset)) return built.get(ruleset);
  const specs = STRUCTS[ruleset];
  if (!specs) throw new Error(`the contract has no structs for the ruleset ${ruleset}`);
  const types = {};
  const get = (name) => {
    if (types[name]) return types[name];
    if (!specs[name]) throw new Error(`the contract's ${ruleset} structs have no ${name}`);
    const fields = {};
    types[name] = T.struct(name, fields); // filled in below: a struct may refer to another
    for (const [field, type, ...fallback] of specs[name]) {
      fields[field] = [typeOf(type, get), fallback.length ? fallback[0] : REQUIRED];
    }
    return types[name];
  };
  for (const name of Object.keys(specs)) get(name);
  built.set(ruleset, types);
  return types;
}

const {
  Attacker, ProfileStrike, Strike, Target, AttackRequest, Profile, AttackGroup, BulkRequest,
  Combatant, InitiativeRequest, Grapple, Flee, Competitor, CompeteRequest, ImpaleWeapon, Charger, ImpaleRequest,
} = structsOf(DEFAULT_RULESET);

// ---- Result layouts (contract.js RESULTS, from the rulesets' msgspec result types) ----

const hasOwn = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);

/**
 * What is wrong with `result`, a result of `kind` (attack, initiative, odds, …) built for
 * `ruleset`, against the layout the Python engine declares for it: each problem a string
 * naming its path (a key missing, a key more, the keys out of order, a value that is not
 * the shape it should hold), nested shapes included; [] when the result is laid out as
 * declared. One pass over the keys; the resolvers do not call it on their normal path
 * (the tests do, on every result they build). `layouts`: RESULTS, or a test's own.
 */
function layoutProblems(ruleset, kind, result, layouts = RESULTS) {
  const layout = hasOwn(layouts, ruleset) ? layouts[ruleset] : null;
  if (!layout || !hasOwn(layout.kinds, kind)) return [`$: no ${kind} result layout for ruleset ${ruleset}`];
  const problems = [];
  checkShape(layout.shapes, layout.kinds[kind], result, '$', problems);
  return problems;
}

/** The keys of result shape `shape` of `ruleset` in order (contract.js RESULTS), for a builder to lay out. */
function layoutKeys(ruleset, shape) {
  const entries = hasOwn(RESULTS, ruleset) ? RESULTS[ruleset].shapes[shape] : undefined;
  if (entries === undefined) throw new Error(`contract.js RESULTS: no shape ${shape} of ruleset ${ruleset}`);
  return Object.freeze(entries.map((entry) => (typeof entry === 'string' ? entry : entry[0])));
}

/** `value` against a layout's `nest`: null (a plain value), a shape's name, or {list|dict|nullable|or_scalar}. */
function checkNest(shapes, nest, value, path, problems) {
  if (nest === null) return;
  if (typeof nest === 'string') {
    checkShape(shapes, nest, value, path, problems);
  } else if (hasOwn(nest, 'list')) {
    if (!Array.isArray(value)) problems.push(`${path}: expected an array, got ${jsonType(value)}`);
    else value.forEach((item, i) => checkNest(shapes, nest.list, item, `${path}[${i}]`, problems));
  } else if (hasOwn(nest, 'dict')) {
    if (!isPlainObject(value)) problems.push(`${path}: expected an object, got ${jsonType(value)}`);
    else for (const key of Object.keys(value)) checkNest(shapes, nest.dict, value[key], keyPath(path, key), problems);
  } else if (hasOwn(nest, 'nullable')) {
    if (value !== null) checkNest(shapes, nest.nullable, value, path, problems);
  } else if (hasOwn(nest, 'or_scalar')) {
    if (value !== null && typeof value === 'object') checkNest(shapes, nest.or_scalar, value, path, problems);
  } else {
    throw new Error(`contract.js RESULTS: unknown nest ${JSON.stringify(nest)} at ${path}`);
  }
}

/** The object `value` against the shape `name`: every key, no other, in the layout's order. */
function checkShape(shapes, name, value, path, problems) {
  const entries = shapes[name];
  if (entries === undefined) throw new Error(`contract.js RESULTS: no shape ${name} (at ${path})`);
  if (!isPlainObject(value)) {
    problems.push(`${path}: expected an object (${name}), got ${jsonType(value)}`);
    return;
  }
  const known = new Set();
  const expected = [];
  for (const entry of entries) {
    const [key, nest, optional] = typeof entry === 'string' ? [entry, null, null] : entry;
    known.add(key);
    if (!hasOwn(value, key) || value[key] === undefined) { // JSON drops an undefined value
      if (!optional) problems.push(`${path}: no key ${key} (${name})`);
      continue;
    }
    expected.push(key);
    checkNest(shapes, nest, value[key], keyPath(path, key), problems);
  }
  const keys = Object.keys(value).filter((key) => value[key] !== undefined);
  const extra = keys.filter((key) => !known.has(key));
  if (extra.length > 0) problems.push(`${path}: key(s) ${extra.join(', ')} not in the ${name} layout`);
  const order = keys.filter((key) => known.has(key));
  if (order.join(',') !== expected.join(',')) {
    problems.push(`${path}: keys in the order ${order.join(', ')}; the ${name} layout has ${expected.join(', ')}`);
  }
}

module.exports = {
  RULESETS, layoutProblems, layoutKeys, METHODS, STYLES, CRIT_STYLES, DAMAGE_TYPES, SIZES, COVERS, CONDITIONS,
  REGISTRY, DEFAULT_RULESET, T, REQUIRED, structsOf, rulesetInfo, convert, convertMapping, decode, choice, keyPath, pyRepr, jsonType,
  Attacker, ProfileStrike, Strike, Target, AttackRequest, Profile, AttackGroup, BulkRequest,
  Combatant, InitiativeRequest, Grapple, Flee, Competitor, CompeteRequest, ImpaleWeapon, Charger, ImpaleRequest,
};
