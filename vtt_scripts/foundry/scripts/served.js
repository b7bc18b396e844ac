// Rulesets this module has no code of its own for, learned from the bridge at run time
// (`server.contract`, issue 39 item 12): a ruleset installed as a plug-in in `fracas serve`
// is in no contract.js built before it. An attack naming a ruleset contract.js does not
// list asks the bridge (this client's own connection) for that ruleset's contract
// (`server.contract` with `rulesets: [name]`), checks it, keeps it in memory (a reload asks
// again), and is sent as `attack.resolve` built from the served request structs; its card
// shows each strike's values in the served result layout's order and its damage is applied
// from the result's per-target totals (`targets.<id>.damage`). Its manifest's `[client]`
// hints, when the bridge serves them (server.contract's `client`), draw its card as a
// built-in's: a "d20" or "pool" strike line, the per-target `split` fields (rulesets.js
// rulesetClient); a built-in ruleset's hints are always contract.js's own. A contract that
// is not what server.contract describes is refused, saying where; nothing is sent.
// The checks are the Roll20 Mod's (vtt_scripts/roll20/src/mod/served.js).

import { CLIENT_CHOICES, CLIENT_TYPES, RULESETS } from "./contract.js";
import { InputError } from "./errors.js";

const MAX_RULESETS = 64;
const MAX_STRUCTS = 200;
const MAX_FIELDS = 200;
const MAX_SHAPES = 200;
const MAX_DEPTH = 8;
const NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
const SCALARS = ["int", "str", "bool", "float", "any"];
const NESTS = ["list", "dict", "or_scalar"];
const MAX_HINT_TEXT = 400;
const MAX_HINT_ITEMS = 50;

/** @typedef {{name: string, title: string, requests: Record<string, string>}} ServedEntry */
/** @typedef {{kinds: Record<string, string>, shapes: Record<string, any[]>}} ServedLayouts */
/** @typedef {{rulesets: Record<string, ServedEntry>, structs: Record<string, Record<string, any[]>>, results: Record<string, ServedLayouts>, client: Record<string, Record<string, any>>}} Served */

/** @param {unknown} v @returns {v is Record<string, any>} */
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
/** @param {unknown} obj @param {string} key */
const own = (obj, key) => isObject(obj) && Object.prototype.hasOwnProperty.call(obj, key);
/** @param {unknown} v */
const shown = (v) => String(JSON.stringify(v)).slice(0, 40);

/** @type {Served} what the bridge served so far, by ruleset */
const learned = { rulesets: {}, structs: {}, results: {}, client: {} };

/**
 * @param {string} path @param {string} what
 * @returns {InputError}
 */
function bad(path, what) {
  return InputError.of("FRACAS.Error.ServedContract", { path, what });
}

/** @param {unknown} type @param {string} path @param {number} [depth] */
function checkType(type, path, depth = 0) {
  if (depth > MAX_DEPTH) throw bad(path, `nested more than ${MAX_DEPTH} deep`);
  if (typeof type === "string") {
    if (!SCALARS.includes(type)) throw bad(path, `unknown type ${shown(type)} (${SCALARS.join(", ")} or an object)`);
    return;
  }
  if (!isObject(type) || Object.keys(type).length !== 1) throw bad(path, "a type is a name or an object with one key");
  const [key] = Object.keys(type);
  const inner = type[key];
  if (key === "struct") {
    if (typeof inner !== "string" || !NAME.test(inner)) throw bad(`${path}.struct`, "not a struct name");
  } else if (key === "literal") {
    if (!Array.isArray(inner) || !inner.every((v) => ["string", "number", "boolean"].includes(typeof v) || v === null)) {
      throw bad(`${path}.literal`, "not a list of plain values");
    }
  } else if (key === "union") {
    if (!Array.isArray(inner) || !inner.length) throw bad(`${path}.union`, "not a list of types");
    inner.forEach((x, i) => checkType(x, `${path}.union[${i}]`, depth + 1));
  } else if (key === "list" || key === "dict" || key === "optional") {
    checkType(inner, `${path}.${key}`, depth + 1);
  } else {
    throw bad(path, `unknown type key ${shown(key)}`);
  }
}

/** @param {unknown} structs @param {string} path */
function checkStructs(structs, path) {
  if (!isObject(structs)) throw bad(path, "not an object of request structs");
  const names = Object.keys(structs);
  if (names.length > MAX_STRUCTS) throw bad(path, `more than ${MAX_STRUCTS} structs`);
  for (const name of names) {
    const fields = structs[name];
    const where = `${path}.${name}`;
    if (!NAME.test(name)) throw bad(path, `${shown(name)} is not a struct name`);
    if (!Array.isArray(fields) || fields.length > MAX_FIELDS) throw bad(where, `not a list of at most ${MAX_FIELDS} fields`);
    fields.forEach((field, i) => {
      if (!Array.isArray(field) || field.length < 2 || field.length > 3 || typeof field[0] !== "string" || !NAME.test(field[0])) {
        throw bad(`${where}[${i}]`, "a field is [name, type] or [name, type, default]");
      }
      checkType(field[1], `${where}[${i}][1]`);
    });
  }
}

/** A result layout's nest: null, a shape's name, or {list|dict|or_scalar: nest}. @param {unknown} nest @param {Record<string, unknown>} shapes @param {string} path @param {number} [depth] */
function checkNest(nest, shapes, path, depth = 0) {
  if (depth > MAX_DEPTH) throw bad(path, `nested more than ${MAX_DEPTH} deep`);
  if (nest === null) return;
  if (typeof nest === "string") {
    if (!own(shapes, nest)) throw bad(path, `${shown(nest)} names no shape of shapes`);
    return;
  }
  if (!isObject(nest) || Object.keys(nest).length !== 1 || !NESTS.includes(Object.keys(nest)[0])) {
    throw bad(path, `a nest is null, a shape's name or an object with one key (${NESTS.join(", ")})`);
  }
  const [key] = Object.keys(nest);
  checkNest(nest[key], shapes, `${path}.${key}`, depth + 1);
}

/** @param {unknown} results @param {string} path */
function checkResults(results, path) {
  if (!isObject(results) || !isObject(results.kinds) || !isObject(results.shapes)) throw bad(path, "not {kinds, shapes}");
  const shapes = results.shapes;
  if (Object.keys(shapes).length > MAX_SHAPES) throw bad(`${path}.shapes`, `more than ${MAX_SHAPES} shapes`);
  for (const [kind, shape] of Object.entries(results.kinds)) {
    if (typeof shape !== "string" || !own(shapes, shape)) throw bad(`${path}.kinds.${kind}`, "names no shape of shapes");
  }
  for (const [shape, keys] of Object.entries(shapes)) {
    const where = `${path}.shapes.${shape}`;
    if (!Array.isArray(keys) || keys.length > MAX_FIELDS) throw bad(where, `not a list of at most ${MAX_FIELDS} keys`);
    keys.forEach((key, i) => {
      if (typeof key === "string" && NAME.test(key)) return;
      const ok = Array.isArray(key) && typeof key[0] === "string" && NAME.test(key[0]) && (key.length === 2 || (key.length === 3 && key[2] === "optional"));
      if (!ok) throw bad(`${where}[${i}]`, "a key is a name, [name, nest] or [name, nest, \"optional\"]");
      checkNest(key[1], shapes, `${where}[${i}][1]`);
    });
  }
}

/**
 * A served ruleset's `[client]` hints, checked as its manifest's are (contract.js
 * CLIENT_TYPES and CLIENT_CHOICES, written from fracas/rulesets/manifest.py): known keys
 * only, each of its type, strings and lists bounded; a copy.
 * @param {unknown} hints @param {string} path
 * @returns {Record<string, any>}
 */
function checkClient(hints, path) {
  if (!isObject(hints)) throw bad(path, "not an object of [client] hints");
  /** @type {Record<string, string>} */
  const types = CLIENT_TYPES;
  /** @type {Record<string, string[]>} */
  const choices = CLIENT_CHOICES;
  /** @type {Record<string, any>} */
  const out = {};
  for (const [key, value] of Object.entries(hints)) {
    const where = `${path}.${key}`;
    const type = own(types, key) ? types[key] : undefined;
    if (type === undefined) throw bad(where, `not a [client] key (${Object.keys(types).join(", ")})`);
    const ok = type === "string" ? typeof value === "string" && value.length <= MAX_HINT_TEXT
      : type === "integer" ? Number.isInteger(value) && value >= 0 && value <= 1000
        : type === "array" ? Array.isArray(value) && value.length <= MAX_HINT_ITEMS && value.every((v) => typeof v === "string" && NAME.test(v))
          : isObject(value) && Object.keys(value).length <= MAX_HINT_ITEMS && JSON.stringify(value).length <= 20 * MAX_HINT_TEXT;
    if (!ok) throw bad(where, `not ${type === "array" ? "a list of field names" : type === "object" ? "an object" : `a${type === "integer" ? "n integer" : " string"}`} (${shown(value)})`);
    if (own(choices, key) && !choices[key].includes(value)) throw bad(where, `${shown(value)} is not one of ${choices[key].join(", ")}`);
    out[key] = structuredClone(value);
  }
  return out;
}

/**
 * The rulesets of a server.contract result that contract.js does not list, checked:
 * {rulesets: name → {name, title, requests}, structs, results}. Throws an InputError
 * naming the first place that is wrong; never anything else, whatever `contract` is.
 * @param {unknown} contract
 * @returns {Served}
 */
export function checkContract(contract) {
  if (!isObject(contract)) throw bad("$", "not an object");
  if (!Array.isArray(contract.rulesets) || contract.rulesets.length > MAX_RULESETS) {
    throw bad("$.rulesets", `not a list of at most ${MAX_RULESETS} rulesets`);
  }
  if (!isObject(contract.structs)) throw bad("$.structs", "not an object");
  if (contract.results !== undefined && !isObject(contract.results)) throw bad("$.results", "not an object");
  if (contract.client !== undefined && !isObject(contract.client)) throw bad("$.client", "not an object");
  const results = contract.results ?? {};
  const client = contract.client ?? {};
  /** @type {Served} */
  const out = { rulesets: {}, structs: {}, results: {}, client: {} };
  contract.rulesets.forEach((/** @type {unknown} */ entry, /** @type {number} */ i) => {
    const path = `$.rulesets[${i}]`;
    if (!isObject(entry)) throw bad(path, "not an object");
    if (typeof entry.name !== "string" || !NAME.test(entry.name)) throw bad(`${path}.name`, "not a ruleset name");
    if (typeof entry.title !== "string" || !entry.title || entry.title.length > 200) throw bad(`${path}.title`, "not a title (1 to 200 characters)");
    const requests = entry.requests;
    if (!isObject(requests) || !Object.values(requests).every((s) => typeof s === "string" && NAME.test(s))) {
      throw bad(`${path}.requests`, "not an object of request kinds to struct names");
    }
    const name = entry.name;
    if (RULESETS.some((r) => r.name === name)) return; // this module's own contract has it
    if (!own(contract.structs, name)) throw bad("$.structs", `no request structs for ${name}`);
    checkStructs(contract.structs[name], `$.structs.${name}`);
    for (const [kind, struct] of Object.entries(requests)) {
      if (!own(contract.structs[name], struct)) throw bad(`${path}.requests.${kind}`, `names no struct of $.structs.${name}`);
    }
    if (!own(results, name)) throw bad("$.results", `no result layouts for ${name}`);
    checkResults(results[name], `$.results.${name}`);
    out.rulesets[name] = { name, title: entry.title, requests: { ...requests } };
    out.structs[name] = contract.structs[name];
    out.results[name] = results[name];
    // A bridge before `client` was served sends none: the plain layout card.
    out.client[name] = own(client, name) ? checkClient(client[name], `$.client.${name}`) : {};
  });
  return out;
}

/**
 * Ruleset `name` from the bridge: asked for (server.contract, only that ruleset) unless
 * learned before, checked and kept. Returns its entry; throws an InputError when the
 * contract is bad or the bridge does not resolve it either.
 * @param {{call: (method: string, params: any) => Promise<any>}} conn
 * @param {unknown} name
 * @returns {Promise<ServedEntry>}
 */
export async function learnRuleset(conn, name) {
  if (typeof name !== "string" || !NAME.test(name)) throw InputError.of("FRACAS.Error.ServedUnknown", { name: shown(name) });
  const known = servedEntry(name);
  if (known) return known;
  const got = checkContract(await conn.call("server.contract", { rulesets: [name] }));
  if (Object.keys(learned.rulesets).length + Object.keys(got.rulesets).length > MAX_RULESETS) forget();
  Object.assign(learned.rulesets, got.rulesets);
  Object.assign(learned.structs, got.structs);
  Object.assign(learned.results, got.results);
  Object.assign(learned.client, got.client);
  const entry = servedEntry(name);
  if (!entry) throw InputError.of("FRACAS.Error.ServedUnknown", { name: shown(name) });
  return entry;
}

/** The served entry of ruleset `name`, or undefined. @param {unknown} name @returns {ServedEntry|undefined} */
export function servedEntry(name) {
  return typeof name === "string" && own(learned.rulesets, name) ? learned.rulesets[name] : undefined;
}

/**
 * The field names of served ruleset `name`'s request struct `struct` (its served structs,
 * in declaration order), or null when the bridge served no such struct for it.
 * @param {unknown} name @param {string} struct
 * @returns {string[]|null}
 */
export function servedStructFields(name, struct) {
  const structs = servedEntry(name) && typeof name === "string" ? learned.structs[name] : null;
  return structs && own(structs, struct) ? structs[struct].map((/** @type {any[]} */ f) => String(f[0])) : null;
}

/**
 * The field names of served ruleset `name`'s attack, by part ({attacker, strike, target}:
 * the AttackRequest's attacker struct, strikes' list item and targets' dict item), or null
 * when its attack is not an attacker, strikes and targets.
 * @param {string} name
 * @returns {{attacker: string[], strike: string[], target: string[]}|null}
 */
export function servedAttackFields(name) {
  const entry = servedEntry(name);
  const structs = entry ? learned.structs[name] : null;
  const request = structs && entry && own(structs, entry.requests.attack) ? structs[entry.requests.attack] : null;
  if (!structs || !request) return null;
  const type = (/** @type {string} */ field) => (request.find((/** @type {any[]} */ f) => f[0] === field) ?? [])[1];
  const attacker = type("attacker");
  const strikes = type("strikes");
  const targets = type("targets");
  const struct = (/** @type {unknown} */ t) => (isObject(t) && typeof t.struct === "string" && own(structs, t.struct) ? t.struct : null);
  const a = struct(attacker);
  const s = isObject(strikes) ? struct(strikes.list) : null;
  const t = isObject(targets) ? struct(targets.dict) : null;
  if (!a || !s || !t) return null;
  const names = (/** @type {string} */ n) => structs[n].map((/** @type {any[]} */ f) => String(f[0]));
  return { attacker: names(a), strike: names(s), target: names(t) };
}

/**
 * Served ruleset `name`'s checked `[client]` hints ({} when the bridge sent none), or
 * undefined for a ruleset the bridge has not served.
 * @param {unknown} name @returns {Record<string, any>|undefined}
 */
export function servedClient(name) {
  return servedEntry(name) && typeof name === "string" ? learned.client[name] ?? {} : undefined;
}

/**
 * A strike's values in its served result layout's order ("faces 5, 6, 2 · hits 2"),
 * leaving out target, hit and damage (the card shows them), or null when `ruleset` is not
 * a served one.
 * @param {string} ruleset
 * @param {Record<string, any>} strike
 * @returns {string|null}
 */
export function servedStrikeLine(ruleset, strike) {
  if (!servedEntry(ruleset) || !own(learned.results, ruleset)) return null;
  return layoutStrikeLine(learned.results[ruleset], strike);
}

/**
 * A strike's values in the order of result layouts `layout` ({kinds, shapes}: its attack
 * result's strikes), leaving out target, hit and damage (the card shows them): how a card
 * draws the strike of a ruleset whose contract says nothing more of it; "" when the layout
 * has no strikes.
 * @param {unknown} layout
 * @param {Record<string, any>} strike
 * @returns {string}
 */
export function layoutStrikeLine(layout, strike) {
  if (!isObject(layout) || !isObject(layout.kinds) || !isObject(layout.shapes)) return "";
  const attack = layout.shapes[layout.kinds.attack];
  const strikes = Array.isArray(attack) ? attack.find((k) => Array.isArray(k) && k[0] === "strikes") : null;
  const shape = strikes && isObject(strikes[1]) && typeof strikes[1].list === "string" ? layout.shapes[strikes[1].list] : null;
  if (!Array.isArray(shape) || !isObject(strike)) return "";
  const parts = [];
  for (const key of shape) {
    if (typeof key !== "string" || ["target", "hit", "damage"].includes(key) || !own(strike, key)) continue;
    const v = strike[key];
    const text = Array.isArray(v) && v.every((x) => x === null || typeof x !== "object") ? v.join(", ")
      : v !== null && typeof v === "object" ? null : String(v);
    if (text !== null) parts.push(`${key.replace(/_/g, " ")} ${text.slice(0, 200)}`);
  }
  return parts.join(" · ");
}

/** Forget what the bridge served (tests; and past MAX_RULESETS learned). */
export function forget() {
  learned.rulesets = {};
  learned.structs = {};
  learned.results = {};
  learned.client = {};
}
