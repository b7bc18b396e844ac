// Building engine requests (docs/ENGINE.md §6, the bulk and initiative shapes) from
// what the GM selected. Tokens arrive as plain "views" made at the edge:
//   { id, name, actorId, actorUuid, actorName, actor, statuses }
// where `actor` is anything the data paths can be read from (an Actor document).
// Everything here is checked before a request leaves, so a typo in a sheet is
// reported with the token's name instead of an engine path holding a token id.

import { InputError } from "./errors.js";
import { getPath, readInteger, readNames, readWord } from "./paths.js";

// The names come from the engine's one spec (generated facts.js), never a hand copy.
import { CONDITIONS, DAMAGE_TYPES, METHODS, SIZES, STYLE_METHOD, STYLES } from "./facts.js";
import { t } from "./i18n.js";
import { DEFAULT_RULESET, ownClient, rulesetClient, rulesetEntry, structFields } from "./rulesets.js";
import { words } from "./words.js";

export { CONDITIONS, DAMAGE_TYPES, METHODS, SIZES, STYLE_METHOD, STYLES };

/** Foundry core status-effect ids that mean an ER condition (ids equal to ER names pass as they are). */
export const STATUS_CONDITIONS = {
  blind: "blind", deaf: "deaf", fear: "frightened", invisible: "invisible",
  paralysis: "paralyzed", poison: "poisoned", prone: "prone", restrain: "restrained",
  sleep: "unconscious", stun: "stunned", unconscious: "unconscious",
};

/**
 * A token as the pure modules read it (made at the edge, main.js tokenView).
 * @typedef {object} TokenView
 * @property {string} id
 * @property {string} [name]
 * @property {string|null} [actorId]
 * @property {string|null} [actorUuid]
 * @property {string|null} [actorName]
 * @property {any} [actor]  an Actor document: its data is the game system's, which has no fixed type
 * @property {string[]} [statuses]
 * @property {unknown} [tokenDocument]
 * @property {boolean} [hidden]  the token is hidden from players (GM only)
 * @property {boolean} [unnamed]  players who do not own it cannot see its nameplate (audience.js othersSeeName);
 *   a token some player owns is never unnamed (its players know it)
 * @property {boolean} [masked]  a speaker standing for a token whose name players may not read (name: what they read)
 * @property {import("./bystanders.js").Place|null} [place]  where it stands on its scene (ER-17 bystanders)
 * @property {number|null} [disposition]  TokenDocument#disposition, a CONST.TOKEN_DISPOSITIONS value (forecast.js sides)
 */

/** @typedef {Record<string, string>} Mapping  data paths (settings.readMapping) */
/** @typedef {Record<string, any>} Json  a request (or part) for the bridge, which checks every field: any JSON value */

// An Enchanted Realms strike's fields, as the engine's Strike struct has them (contract.js).
const STRIKE_KEYS = /** @type {readonly string[]} */ (structFields(DEFAULT_RULESET, "Strike"));

/**
 * How a token is named in messages: its name, and its id when names repeat.
 * @param {{id: string, name?: string}} view
 */
export function who(view) {
  return view.name ? `${view.name}` : t("FRACAS.Token.Unnamed", { id: view.id });
}

/**
 * @param {TokenView} view
 * @param {Mapping} mapping
 * @param {string} key
 * @param {string} field  what it is: FRACAS.Field.<field>
 * @param {string} because  why it is needed: FRACAS.Why.<because>
 * @returns {number}
 */
function needInteger(view, mapping, key, field, because) {
  const label = t(`FRACAS.Field.${field}`);
  const why = t(`FRACAS.Why.${because}`);
  const path = mapping[key];
  if (!path) {
    throw new InputError(t("FRACAS.Error.NoPath", { name: who(view), label, why }));
  }
  const { value, problem } = readInteger(view.actor, path);
  if (problem || value === undefined) throw new InputError(t("FRACAS.Error.Request01", { p0: who(view), label, problem, why }));
  return value;
}

/**
 * @param {TokenView} view
 * @param {Mapping} mapping
 * @param {string} key
 * @param {string} field  what it is: FRACAS.Field.<field>
 * @returns {number|undefined}
 */
function optionalInteger(view, mapping, key, field) {
  const label = t(`FRACAS.Field.${field}`);
  const path = mapping[key];
  if (!path) return undefined;
  const raw = getPath(view.actor, path);
  if (raw === undefined || raw === null || raw === "") return undefined;
  const { value, problem } = readInteger(view.actor, path);
  if (problem) throw new InputError(t("FRACAS.Error.Request02", { p0: who(view), label, problem }));
  return value;
}

/**
 * @param {TokenView} view
 * @param {Mapping} mapping
 */
function optionalSize(view, mapping) {
  const size = readWord(view.actor, mapping.size);
  if (size === undefined) return undefined;
  if (!SIZES.includes(size)) {
    throw new InputError(t("FRACAS.Error.Request03", { p0: who(view), size, p2: mapping.size, p3: SIZES.join(", ") }));
  }
  return size;
}

/**
 * @param {TokenView} view
 * @param {Mapping} mapping
 * @param {string} key
 * @param {string} field  what it is: FRACAS.Field.<field>
 */
export function damageTypes(view, mapping, key, field) {
  const label = t(`FRACAS.Field.${field}`);
  const names = readNames(view.actor, mapping[key]);
  for (const name of names) {
    if (!DAMAGE_TYPES.includes(name)) {
      throw new InputError(t("FRACAS.Error.NotDamageType", { who: who(view), label, name, path: mapping[key], types: DAMAGE_TYPES.join(", ") }));
    }
  }
  return names;
}

/**
 * ER conditions from a token's status effects; unknown statuses are not conditions.
 * @param {TokenView} view
 */
export function conditionsOf(view) {
  const out = new Set();
  for (const status of view.statuses ?? []) {
    const id = String(status).toLowerCase();
    const name = CONDITIONS.includes(id) ? id : /** @type {Record<string, string>} */ (STATUS_CONDITIONS)[id];
    if (name) out.add(name);
  }
  return [...out].sort();
}

/**
 * The engine's `attacker` for a token making `strikes`.
 * @param {TokenView} view
 * @param {Mapping} mapping  data paths (settings.readMapping)
 * @param {Json[]} strikes
 * @param {{conditions?: boolean}} [options]
 */
export function readAttacker(view, mapping, strikes, { conditions = true } = {}) {
  const methods = new Set(strikes.map((s) => s.method));
  /** @type {Json} */
  const attacker = {};
  const strengthMod = optionalInteger(view, mapping, "strengthMod", "StrengthMod");
  const agilityMod = optionalInteger(view, mapping, "agilityMod", "AgilityMod");
  if (methods.has("melee") || methods.has("savage")) {
    attacker.strength = needInteger(view, mapping, "strength", "Strength", "MeleeToHit");
  } else {
    const s = optionalInteger(view, mapping, "strength", "Strength");
    if (s !== undefined) attacker.strength = s;
  }
  if (methods.has("range")) {
    attacker.agility = needInteger(view, mapping, "agility", "Agility", "RangeToHit");
  } else {
    const a = optionalInteger(view, mapping, "agility", "Agility");
    if (a !== undefined) attacker.agility = a;
  }
  if (strengthMod !== undefined) attacker.strength_mod = strengthMod;
  if (agilityMod !== undefined) attacker.agility_mod = agilityMod;
  const size = optionalSize(view, mapping);
  if (size !== undefined) attacker.size = size;
  if (conditions) {
    const list = conditionsOf(view);
    if (list.length) attacker.conditions = list;
  }
  return attacker;
}

/**
 * The engine's entry in `targets` for a token.
 * @param {TokenView} view
 * @param {Mapping} mapping
 * @param {{conditions?: boolean, needBody?: boolean}} [options]
 */
export function readTarget(view, mapping, { conditions = true, needBody = false } = {}) {
  /** @type {Json} */
  const target = { ac: needInteger(view, mapping, "ac", "AC", "TargetNeedsOne") };
  if (needBody) needInteger(view, mapping, "body", "Body", "DamageThere");
  const size = optionalSize(view, mapping);
  if (size !== undefined) target.size = size;
  for (const [key, label] of [["resistant", "Resistances"], ["vulnerable", "Vulnerabilities"], ["immune", "Immunities"]]) {
    const list = damageTypes(view, mapping, key, label);
    if (list.length) target[key] = list;
  }
  if (conditions) {
    const list = conditionsOf(view);
    if (list.length) target.conditions = list;
  }
  const bodyMax = optionalInteger(view, mapping, "bodyMax", "BodyMax");
  if (bodyMax !== undefined) target.body_max = bodyMax;
  const saveBonus = optionalInteger(view, mapping, "saveBonus", "SaveBonus");
  if (saveBonus !== undefined) target.save_bonus = saveBonus;
  return target;
}

/**
 * Remove repeated tokens (the same id twice), keeping the first.
 * @template {{id: string}} V
 * @param {V[]} views
 * @returns {V[]}
 */
export function uniqueViews(views) {
  const seen = new Set();
  return views.filter((v) => (seen.has(v.id) ? false : (seen.add(v.id), true)));
}

/**
 * The target id a strike aims at. `ref` may be a token id, a token name, an index
 * into `targets`, a token view, or absent when exactly one token is targeted.
 * @param {unknown} ref
 * @param {TokenView[]} targets
 * @param {number} index
 * @returns {string}
 */
export function resolveTargetRef(ref, targets, index) {
  const where = `strike ${index + 1}`;
  if (ref === undefined || ref === null || ref === "") {
    if (targets.length === 1) return targets[0].id;
    throw new InputError(t("FRACAS.Error.NoStrikeTarget", { where, count: targets.length }));
  }
  if (ref && typeof ref === "object" && "id" in ref && typeof ref.id === "string") ref = ref.id;
  if (typeof ref === "number") {
    if (Number.isInteger(ref) && ref >= 0 && ref < targets.length) return targets[ref].id;
    throw new InputError(t("FRACAS.Error.Request04", { where, ref, length: targets.length }));
  }
  const byId = targets.find((t) => t.id === ref);
  if (byId) return byId.id;
  const byName = targets.filter((t) => t.name === ref);
  if (byName.length === 1) return byName[0].id;
  if (byName.length > 1) {
    throw new InputError(t("FRACAS.Error.Request05", { where, length: byName.length, ref }));
  }
  throw new InputError(t("FRACAS.Error.NotTargeted", { where, ref, targets: targets.map(who).join(", ") || t("FRACAS.Word.None") }));
}

/**
 * @param {any} spec  a strike as given (anything: it is checked here)
 * @param {string} where
 * @param {readonly string[]} allowed
 */
function checkStrikeKeys(spec, where, allowed) {
  if (spec === null || typeof spec !== "object" || Array.isArray(spec)) {
    throw new InputError(t("FRACAS.Error.Request06", { where }));
  }
  for (const key of Object.keys(spec)) {
    if (!allowed.includes(key)) {
      throw new InputError(t("FRACAS.Error.Request07", { where, key, p2: allowed.join(", ") }));
    }
  }
  for (const key of ["method", "style", "dice", "damage_type"]) {
    if (spec[key] === undefined) throw new InputError(t("FRACAS.Error.Request08", { where, key }));
  }
}

/**
 * An attack request for `attacker` striking `targets`.
 * @param {object} args
 * @param {TokenView} args.attacker   token view
 * @param {TokenView[]} args.targets  token views (the user's targets)
 * @param {Json[]} args.strikes  strike specs; `target` optional with one target
 * @param {Mapping} args.mapping
 * @param {Json} [args.options]  advantage, disadvantage, seed, rolls, conditions, needBody; nearby (views,
 *   one list for every target) or bystanders (views by target id, ER-17 from the scene)
 * @returns {{request: Json, targets: TokenView[], unread: {view: TokenView, why: string}[]}}
 *   unread: bystanders left out because their sheet could not be read
 */
export function buildAttackRequest({ attacker, targets, strikes, mapping, options = {} }) {
  if (!attacker) throw new InputError(t("FRACAS.Error.Request09"));
  targets = uniqueViews(targets ?? []);
  if (!targets.length) throw new InputError(t("FRACAS.Error.Request10"));
  if (!Array.isArray(strikes) || !strikes.length) {
    throw new InputError(t("FRACAS.Error.Request11"));
  }
  const engineStrikes = strikes.map((spec, i) => {
    checkStrikeKeys(spec, `strike ${i + 1}`, STRIKE_KEYS);
    /** @type {Record<string, any>} */
    const strike = {};
    for (const key of STRIKE_KEYS) if (spec[key] !== undefined && key !== "target") strike[key] = spec[key];
    return /** @type {{target: string, method: string, [key: string]: any}} */ ({ target: resolveTargetRef(spec.target, targets, i), ...strike });
  });
  const aimed = new Set(engineStrikes.map((s) => s.target));
  const used = targets.filter((t) => aimed.has(t.id));
  const conditions = options.conditions !== false;
  /** @type {Json} */
  const request = {
    attacker: readAttacker(attacker, mapping, engineStrikes, { conditions }),
    strikes: engineStrikes,
    targets: Object.fromEntries(used.map((t) => [t.id, readTarget(t, mapping, { conditions, needBody: options.needBody })])),
  };
  if (options.advantage) request.advantage = true;
  if (options.disadvantage) request.disadvantage = true;
  if (options.seed !== undefined && options.seed !== null) request.seed = options.seed;
  if (options.rolls !== undefined && options.rolls !== null) request.rolls = options.rolls;
  // ER-17: creatures near the targets (slots 1-8 in this order) that a missed shot may hit.
  const nearby = uniqueViews(options.nearby ?? []);
  for (const view of nearby) {
    if (aimed.has(view.id)) throw new InputError(t("FRACAS.Error.Request12", { p0: who(view) }));
    request.targets[view.id] = readTarget(view, mapping, { conditions, needBody: options.needBody });
    used.push(view);
  }
  if (nearby.length) for (const id of aimed) request.targets[id].nearby = nearby.map((v) => v.id);
  // ER-17 from the scene: each target's own bystanders (the holder derived them; another
  // target may be one). A creature whose sheet cannot be read is left out, and said so.
  /** @type {{view: TokenView, why: string}[]} */
  const unread = [];
  if (!nearby.length && options.bystanders) {
    for (const id of aimed) {
      const around = [];
      for (const view of uniqueViews(options.bystanders[id] ?? [])) {
        if (view.id === id) continue;
        if (!request.targets[view.id]) {
          try {
            request.targets[view.id] = readTarget(view, mapping, { conditions, needBody: options.needBody });
          } catch (error) {
            if (!unread.some((u) => u.view.id === view.id)) unread.push({ view, why: error instanceof Error ? error.message : String(error) });
            continue;
          }
          used.push(view);
        }
        around.push(view.id);
      }
      if (around.length) request.targets[id].nearby = around;
    }
  }
  // ER-20: a flee attack at a creature that moved `flee` feet.
  if (options.flee !== undefined && options.flee !== null) request.flee = { moved: options.flee };
  // ER-21: targets that hold someone make a Strength feat when hurt.
  for (const ref of options.grappling ?? []) {
    const view = used.find((t) => t.id === ref || t.name === ref);
    if (!view) throw new InputError(t("FRACAS.Error.Request13", { ref }));
    const hold = {};
    const strength = optionalInteger(view, mapping, "strength", "Strength");
    const strengthMod = optionalInteger(view, mapping, "strengthMod", "StrengthMod");
    if (strength !== undefined) hold.strength = strength;
    if (strengthMod !== undefined) hold.strength_mod = strengthMod;
    request.targets[view.id].grappling = hold;
  }
  // ER-22: the defense-roll variant: asked for, or by the world setting when a creature
  // no player owns attacks only player characters.
  const defense = options.defenseRolls ?? (!!options.defenseRollsSetting && !attacker.actor?.hasPlayerOwner
    && used.filter((t) => aimed.has(t.id)).every((t) => !!t.actor?.hasPlayerOwner)
    && !engineStrikes.some((st) => st.friendly_fire === true));
  if (defense) request.defense_rolls = true;
  return { request, targets: used, unread };
}

/**
 * One side of an ER-19 competition from its token: the chosen attribute's score or
 * modifier, size, speed (when the speed path is set), and its conditions from its statuses
 * (ER-12/ER-14: a bound or poisoned side rolls two d12 and keeps the worse, a prone one is
 * -5, ...) unless `options.conditions` is false; prone counts always (the ER-19 table).
 * @param {TokenView} view
 * @param {Mapping} mapping
 * @param {string} [attribute]
 * @param {Json} [extra]
 * @param {{conditions?: boolean}} [options]
 */
export function readCompetitor(view, mapping, attribute = "strength", extra = {}, options = {}) {
  if (!["strength", "agility"].includes(attribute)) {
    throw new InputError(t("FRACAS.Error.Request14", { p0: who(view), attribute }));
  }
  /** @type {Json} */
  const side = { id: view.id, attribute };
  for (const [key, field, label] of [["strength", "strength", "Strength"], ["agility", "agility", "Agility"],
    ["strengthMod", "strength_mod", "StrengthMod"], ["agilityMod", "agility_mod", "AgilityMod"],
    ["speed", "speed", "Speed"]]) {
    const value = optionalInteger(view, mapping, key, label);
    if (value !== undefined) side[field] = value;
  }
  if (side[attribute] === undefined && side[`${attribute}_mod`] === undefined) {
    throw new InputError(t("FRACAS.Error.NoCompeteScore", { name: who(view), attribute, path: mapping[attribute] || t("FRACAS.Word.NoPath") }));
  }
  const size = optionalSize(view, mapping);
  if (size !== undefined) side.size = size;
  const conditions = conditionsOf(view);
  if (options.conditions !== false && conditions.length) side.conditions = conditions;
  else if (conditions.includes("prone")) side.prone = true;
  return Object.assign(side, extra);
}

/**
 * An ER-18 initiative request (`initiative.roll`).
 * @param {object} args
 * @param {{id: string, name: string, view: any}[]} args.combatants  view: the combatant's token view
 * @param {Mapping} args.mapping
 * @param {{seed?: unknown, rolls?: number[]}} [args.options]
 */
export function buildInitiativeRequest({ combatants, mapping, options = {} }) {
  if (!combatants?.length) throw new InputError(t("FRACAS.Error.Request15"));
  const list = combatants.map((c) => {
    const view = { ...c.view, name: c.name ?? c.view?.name, id: c.id };
    if (!c.view?.actor) throw new InputError(t("FRACAS.Error.Request16", { p0: who(view) }));
    /** @type {Json} */
    const entry = { id: c.id };
    const agilityMod = optionalInteger(view, mapping, "agilityMod", "AgilityMod");
    const agility = optionalInteger(view, mapping, "agility", "Agility");
    if (agilityMod !== undefined) entry.agility_mod = agilityMod;
    if (agility !== undefined) entry.agility = agility;
    if (agility === undefined && agilityMod === undefined) {
      throw new InputError(t("FRACAS.Error.NoAgility", { name: who(view), path: mapping.agility || t("FRACAS.Word.NoPath") }));
    }
    const bonus = optionalInteger(view, mapping, "initiativeBonus", "InitiativeBonus");
    if (bonus !== undefined) entry.bonus = bonus;
    return entry;
  });
  /** @type {Json} */
  const request = { combatants: list };
  if (options.seed !== undefined && options.seed !== null) request.seed = options.seed;
  if (options.rolls !== undefined && options.rolls !== null) request.rolls = options.rolls;
  return request;
}

/**
 * Split `n` attacks across `k` targets as evenly as possible, first targets first.
 * @param {number} n
 * @param {number} k
 */
export function splitCounts(n, k) {
  return Array.from({ length: k }, (_, i) => Math.floor(n / k) + (i < n % k ? 1 : 0));
}

/** Order by text, the same in every browser (ids and keys; not the locale's collation). */
const byText = (/** @type {unknown} */ a, /** @type {unknown} */ b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0);

/**
 * A bulk request (`attack.bulk`, detail "summary") for a mob: the attacking tokens
 * grouped by actor as profiles.
 * @param {object} args
 * @param {TokenView[]} args.attackers  token views (the selected tokens)
 * @param {TokenView[]} args.targets    token views
 * @param {Json[]|Record<string, Json[]>} [args.strikes]  profile strikes keyed by
 *   actor name or id, or one list for every actor without its own `flags.fracas.strikes`
 * @param {"split"|"each"} [args.assign]  split the mob across the targets, or every
 *   token attacks every target
 * @param {Mapping} args.mapping
 * @param {Record<string, any>} [args.options]  seed, advantage, disadvantage, conditions, needBody
 */
export function buildBulkRequest({ attackers, targets, strikes, assign = "split", mapping, options = {} }) {
  attackers = uniqueViews(attackers ?? []);
  targets = uniqueViews(targets ?? []);
  if (!attackers.length) throw new InputError(t("FRACAS.Error.Request17"));
  if (!targets.length) throw new InputError(t("FRACAS.Error.Request18"));
  if (assign !== "split" && assign !== "each") {
    throw new InputError(t("FRACAS.Error.Request19", { p0: JSON.stringify(assign) }));
  }
  const conditions = options.conditions !== false;
  // Each token is read on its own (an unlinked token has its own statuses), and tokens
  // of one actor with the same attacker data share a profile. Tokens are taken in id
  // order and profiles in key order, so the request, and so the dice, do not depend on
  // the order the tokens were selected in.
  const ordered = [...attackers].sort((a, b) => byText(a.id, b.id));
  const groups = new Map();
  for (const view of ordered) {
    const actorKey = view.actorId ?? view.id;
    const label = view.actorName ?? view.name ?? actorKey;
    // Most specific first: strikes given for this actor, the actor's own flag, then
    // the strikes given for everyone.
    let list = Array.isArray(strikes) ? undefined : strikes?.[label] ?? strikes?.[actorKey];
    if (list === undefined) list = getPath(view.actor, "flags.fracas.strikes");
    if (list === undefined && Array.isArray(strikes)) list = strikes;
    if (!Array.isArray(list) || !list.length) {
      throw new InputError(t("FRACAS.Error.Request20", { label }));
    }
    const profileStrikes = list.map((spec, i) => {
      checkStrikeKeys(spec, `${label} strike ${i + 1}`, STRIKE_KEYS.filter((k) => k !== "target"));
      return { ...spec };
    });
    const attacker = readAttacker({ ...view, name: label }, mapping, profileStrikes, { conditions });
    const signature = `${actorKey}\u0000${JSON.stringify(attacker)}\u0000${JSON.stringify(profileStrikes)}`;
    if (!groups.has(signature)) groups.set(signature, { actorKey, label, attacker, strikes: profileStrikes, views: [] });
    groups.get(signature).views.push(view);
  }
  // Profile ids: the actor's key, numbered when its tokens differ (e.g. some are prone).
  const sortedGroups = [...groups.values()].sort((a, b) => byText(a.actorKey, b.actorKey));
  /** @type {Record<string, number>} */
  const variants = {};
  /** @type {Record<string, Json>} */
  const profiles = {};
  /** @type {Json[]} */
  const attacks = [];
  /** @type {Record<string, string>} */
  const profileNames = {};
  for (const group of sortedGroups) {
    variants[group.actorKey] = (variants[group.actorKey] ?? 0) + 1;
    const key = variants[group.actorKey] === 1 ? group.actorKey : `${group.actorKey}-${variants[group.actorKey]}`;
    const shown = group.attacker.conditions?.length ? `${group.label} (${words("Condition", group.attacker.conditions)})` : group.label;
    profiles[key] = { attacker: group.attacker, strikes: group.strikes };
    if (options.advantage) profiles[key].advantage = true;
    if (options.disadvantage) profiles[key].disadvantage = true;
    profileNames[key] = shown;
    const counts = assign === "each" ? targets.map(() => group.views.length) : splitCounts(group.views.length, targets.length);
    targets.forEach((t, i) => {
      if (counts[i] > 0) attacks.push({ profile: key, target: t.id, count: counts[i] });
    });
  }
  const used = targets.filter((t) => attacks.some((a) => a.target === t.id));
  /** @type {Json} */
  const request = {
    profiles,
    targets: Object.fromEntries(used.map((t) => [t.id, readTarget(t, mapping, { conditions, needBody: options.needBody })])),
    attacks,
    detail: bulkDetail(attacks),
  };
  if (options.seed !== undefined && options.seed !== null) request.seed = options.seed;
  return { request, targets: used, profileNames };
}

/**
 * A mob of at most this many attacks asks the bridge for every attack's dice (its
 * `detail: "dice"`, docs/ENGINE.md; the bridge allows it up to 10,000 attacks), so the
 * card can carry real dice; a larger one asks for the summary only.
 */
export const MOB_DICE_ATTACKS = 200;

/**
 * The `detail` of a bulk request: "dice" for a mob small enough to show its dice.
 * @param {Json[]} attacks  the request's attacks ({profile, target, count})
 */
export function bulkDetail(attacks) {
  return attacks.reduce((n, a) => n + Number(a.count), 0) <= MOB_DICE_ATTACKS ? "dice" : "summary";
}

/**
 * A Worldwalker, Cartyrion or old-school attack request (`attack.resolve`). The
 * attacker's and each target's fields come from the actor flags
 * `flags.fracas.<ruleset>` (e.g. `{level: 9, bonus: 8}`), overridden by
 * `attackerData` / `targetData` (one object for every target, or one per token id);
 * strikes are the ruleset's strike objects, `target` as for ER strikes. The bridge
 * checks every field and names the path of anything wrong.
 * @param {{ruleset: string, attacker: TokenView, targets: TokenView[], strikes: Json[], attackerData?: Json, targetData?: Json,
 *   mapping: Mapping, options?: Json}} args  ruleset, attacker, targets, strikes, attackerData, targetData, mapping,
 *   options ({seed, rolls, needBody})
 */
export function buildRulesetAttackRequest({ ruleset, attacker, targets, strikes, attackerData, targetData, mapping, options = {} }) {
  if (!attacker) throw new InputError(t("FRACAS.Error.Request21"));
  targets = uniqueViews(targets ?? []);
  if (!targets.length) throw new InputError(t("FRACAS.Error.Request22"));
  if (!Array.isArray(strikes) || !strikes.length) throw new InputError(t("FRACAS.Error.Request23", { ruleset }));
  const engineStrikes = strikes.map((spec, i) => {
    if (!spec || typeof spec !== "object" || Array.isArray(spec)) throw new InputError(t("FRACAS.Error.Request24", { p0: i + 1 }));
    const { target, ...rest } = spec;
    return { ...rest, target: resolveTargetRef(target, targets, i) };
  });
  const aimed = new Set(engineStrikes.map((s) => s.target));
  const used = targets.filter((t) => aimed.has(t.id));
  const dataFor = (/** @type {TokenView} */ t) => {
    if (targetData && typeof targetData === "object" && targetData[t.id] && typeof targetData[t.id] === "object") return targetData[t.id];
    return targetData && typeof targetData === "object" && !used.some((/** @type {TokenView} */ u) => u.id in targetData) ? targetData : {};
  };
  /** @type {Record<string, any>} */
  const request = {
    ruleset,
    attacker: { ...flagPart(attacker, ruleset, "attacker"), ...(attackerData ?? {}) },
    strikes: engineStrikes,
    targets: Object.fromEntries(used.map((t) => {
      if (options.needBody) needInteger(t, mapping, "body", "Body", "DamageThere");
      return [t.id, { ...flagPart(t, ruleset, "target"), ...dataFor(t) }];
    })),
  };
  if (options.seed !== undefined && options.seed !== null) request.seed = options.seed;
  if (options.rolls !== undefined && options.rolls !== null) request.rolls = options.rolls;
  return { request, targets: used };
}

/**
 * A Worldwalker, Cartyrion or old-school bulk request (`attack.bulk`): the tokens grouped
 * by actor, each actor's attacker fields from its flag `flags.fracas.<ruleset>` (then
 * `attackerData`), its strikes from `strikes` (keyed by actor name or id, or one list for
 * all); targets as in buildRulesetAttackRequest.
 * @param {{ruleset: string, attackers: TokenView[], targets: TokenView[], strikes: Json[]|Record<string, Json[]>, attackerData?: Json,
 *   targetData?: Json, assign?: string, mapping: Mapping, options?: Json}} args  as buildRulesetAttackRequest's, with attackers and assign
 */
export function buildRulesetBulkRequest({ ruleset, attackers, targets, strikes, attackerData, targetData, assign = "split",
  mapping, options = {} }) {
  attackers = uniqueViews(attackers ?? []);
  targets = uniqueViews(targets ?? []);
  if (!attackers.length) throw new InputError(t("FRACAS.Error.Request25"));
  if (!targets.length) throw new InputError(t("FRACAS.Error.Request26"));
  if (assign !== "split" && assign !== "each") throw new InputError(t("FRACAS.Error.Request27", { p0: JSON.stringify(assign) }));
  // As for Enchanted Realms: each token read on its own, grouped by actor and data, in
  // id and key order, so the request does not depend on the selection order.
  const groups = new Map();
  for (const view of [...attackers].sort((a, b) => byText(a.id, b.id))) {
    const key = view.actorId ?? view.id;
    const attacker = { ...flagPart(view, ruleset, "attacker"), ...(attackerData ?? {}) };
    const signature = `${key}\u0000${JSON.stringify(attacker)}`;
    if (!groups.has(signature)) groups.set(signature, { key, name: view.actorName ?? view.name, attacker, views: [] });
    groups.get(signature).views.push(view);
  }
  /** @type {Record<string, Json>} */
  const profiles = {};
  /** @type {Json[]} */
  const attacks = [];
  /** @type {Record<string, string>} */
  const profileNames = {};
  /** @type {Record<string, number>} */
  const variants = {};
  for (const group of [...groups.values()].sort((a, b) => byText(a.key, b.key))) {
    const label = group.name ?? group.key;
    const list = Array.isArray(strikes) ? strikes : strikes?.[group.name] ?? strikes?.[group.key];
    if (!Array.isArray(list) || !list.length) throw new InputError(t("FRACAS.Error.Request28", { label, ruleset }));
    variants[group.key] = (variants[group.key] ?? 0) + 1;
    const id = variants[group.key] === 1 ? group.key : `${group.key}-${variants[group.key]}`;
    profiles[id] = {
      attacker: group.attacker,
      strikes: list.map((spec) => {
        const { target, ...rest } = spec ?? {};
        return rest;
      }),
    };
    profileNames[id] = variants[group.key] === 1 ? label : `${label} (${variants[group.key]})`;
    const counts = assign === "each" ? targets.map(() => group.views.length) : splitCounts(group.views.length, targets.length);
    targets.forEach((t, i) => {
      if (counts[i] > 0) attacks.push({ profile: id, target: t.id, count: counts[i] });
    });
  }
  const used = targets.filter((t) => attacks.some((a) => a.target === t.id));
  /** @type {Record<string, any>} */
  const request = {
    ruleset, profiles, attacks, detail: bulkDetail(attacks),
    targets: Object.fromEntries(used.map((t) => {
      if (options.needBody) needInteger(t, mapping, "body", "Body", "DamageThere");
      return [t.id, { ...flagPart(t, ruleset, "target"), ...(targetData ?? {}) }];
    })),
  };
  if (options.seed !== undefined && options.seed !== null) request.seed = options.seed;
  return { request, targets: used, profileNames };
}

// Which fields of a flat `flags.fracas.<ruleset>` object are the attacker's and which the
// target's (a field in both lists goes to both): the ruleset's Attacker and Target request
// structs (contract.js); `{attacker, target, strikes}` is read as it is.
/**
 * @param {string} ruleset
 * @returns {{attacker: readonly string[], target: readonly string[]}|null}
 */
function rulesetFields(ruleset) {
  const attacker = structFields(ruleset, "Attacker");
  const target = structFields(ruleset, "Target");
  return attacker && target ? { attacker, target } : null;
}

/**
 * @param {Json} data
 * @param {readonly string[]} keys
 */
function pick(data, keys) {
  return Object.fromEntries(keys.filter((k) => data[k] !== undefined).map((k) => [k, data[k]]));
}

/**
 * One side of a token's `flags.fracas.<ruleset>` for an attack or a mob attack, read as a
 * fight reads it (scenarioEntry): `{attacker, target, strikes}` gives its `attacker` or
 * `target`; one flat object gives the fields of that side's request struct, so one flag
 * serves the actor attacking and attacked. A Worldwalker duelist's
 * `{skill: 4, str_mod: 2, defense: 13, two_weapon: {light: true, talent: "none"},
 * reaction: {kind: "block", bonus: 6, hand: "off"}}` attacks with its two weapons (WW-6)
 * and, attacked, blocks with its off hand. A ruleset whose structs the module lacks (a
 * served plug-in's) gets the flat object whole (servedAttack keeps each side's fields).
 * @param {TokenView} view
 * @param {string} ruleset
 * @param {"attacker"|"target"} side
 * @returns {Record<string, any>}
 */
export function flagPart(view, ruleset, side) {
  const data = getPath(view.actor, `flags.fracas.${ruleset}`);
  if (!data || typeof data !== "object" || Array.isArray(data)) return {};
  const nested = (data.attacker && typeof data.attacker === "object") || (data.target && typeof data.target === "object");
  if (nested) return data[side] && typeof data[side] === "object" ? { ...data[side] } : {};
  const fields = rulesetFields(ruleset);
  return fields ? pick(data, fields[side]) : { ...data };
}

/**
 * One token as a combatant of a scenario (docs/ENCOUNTERS.md), read from its actor as attacks
 * and mob attacks read it: its name the token id (so the engine's member id is the token's),
 * its label the token's name. Enchanted Realms reads the data paths and the strikes in
 * flags.fracas.strikes; the other rulesets read flags.fracas.<ruleset> ({attacker, target,
 * strikes}, or one flat object). Health is the Body maximum path, else the current Body.
 * Returns the entry and the token's current Body and maximum.
 * @param {TokenView} view
 * @param {{ruleset?: string, mapping: Mapping}} args
 * @returns {{entry: Json, body: number, hpMax: number}}
 */
export function scenarioEntry(view, { ruleset = DEFAULT_RULESET, mapping }) {
  if (!view.actor) throw new InputError(t("FRACAS.Error.Request30", { p0: who(view) }));
  const body = needInteger(view, mapping, "body", "Body", "FightDamage");
  const most = optionalInteger(view, mapping, "bodyMax", "BodyMax");
  const hpMax = Math.max(1, most ?? body);
  /** @type {Json} */
  const entry = { name: view.id, label: String(view.name ?? view.id).slice(0, 200), hp: hpMax };
  if (ownClient(ruleset)) {
    const strikes = getPath(view.actor, "flags.fracas.strikes");
    if (!Array.isArray(strikes) || !strikes.length) {
      throw new InputError(t("FRACAS.Error.Request31", { p0: who(view) }));
    }
    entry.attacks = strikes.map((spec, i) => {
      checkStrikeKeys(spec, `${who(view)} strike ${i + 1}`, STRIKE_KEYS.filter((k) => k !== "target"));
      return { ...spec };
    });
    entry.attacker = readAttacker(view, mapping, entry.attacks, { conditions: false });
    entry.target = readTarget(view, mapping, { conditions: false });
    const bonus = optionalInteger(view, mapping, "initiativeBonus", "InitiativeBonus");
    if (bonus) entry.initiative = bonus;
  } else {
    const fields = rulesetFields(ruleset);
    if (!fields) throw new InputError(t("FRACAS.Error.Request32", { p0: JSON.stringify(ruleset) }));
    const data = getPath(view.actor, `flags.fracas.${ruleset}`);
    if (!data || typeof data !== "object") throw new InputError(t("FRACAS.Error.Request33", { p0: who(view), ruleset }));
    const nested = (data.attacker && typeof data.attacker === "object") || (data.target && typeof data.target === "object");
    entry.attacker = nested ? { ...(data.attacker ?? {}) } : pick(data, fields.attacker);
    entry.target = nested ? { ...(data.target ?? {}) } : pick(data, fields.target);
    const strikes = data.strikes ?? getPath(view.actor, "flags.fracas.strikes");
    if (!Array.isArray(strikes) || !strikes.length) {
      throw new InputError(t("FRACAS.Error.Request34", { p0: who(view), ruleset }));
    }
    entry.attacks = strikes.map((spec) => {
      const { target: _aimed, ...rest } = spec ?? {};
      return rest;
    });
    // A ruleset with morale rules (its kinds include morale, as the engine's scenario checks: OS-4).
    if (rulesetEntry(ruleset)?.requests.includes("morale") && Number.isInteger(data.morale)) entry.morale = data.morale;
  }
  return { entry, body, hpMax };
}

/**
 * A scenario (docs/ENCOUNTERS.md) of a combat's standing combatants, for the bridge's
 * encounter.new: one combatant per token (scenarioEntry), on the side "party" when a player
 * owns the actor and "foes" otherwise.
 * Returns {scenario, names: {token id: name}, hp: {token id: current}, views}.
 */
/**
 * @param {{ruleset?: string, combatants: {name?: string, defeated?: boolean, view?: Partial<TokenView>}[], mapping: Mapping}} args
 */
export function buildScenario({ ruleset = DEFAULT_RULESET, combatants, mapping }) {
  const standing = (combatants ?? []).filter((c) => !c.defeated && c.view?.id);
  if (!standing.length) throw new InputError(t("FRACAS.Error.Request29"));
  /** @type {{party: Json[], foes: Json[]}} */
  const sides = { party: [], foes: [] };
  /** @type {Record<string, string>} */
  const names = {};
  /** @type {Record<string, number>} */
  const hp = {};
  /** @type {TokenView[]} */
  const views = [];
  for (const c of standing) {
    const view = /** @type {TokenView} */ ({ ...c.view, name: c.name ?? c.view?.name });
    if (names[view.id] !== undefined) continue;
    const { entry, body, hpMax } = scenarioEntry(view, { ruleset, mapping });
    (view.actor.hasPlayerOwner ? sides.party : sides.foes).push(entry);
    names[view.id] = String(view.name ?? view.id);
    hp[view.id] = Math.max(0, Math.min(hpMax, body));
    views.push(view);
  }
  if (!sides.party.length || !sides.foes.length) {
    throw new InputError(t("FRACAS.Error.Request35"));
  }
  /** @type {Record<string, any>} */
  const scenario = { ruleset, name: "Foundry combat", sides };
  const party = rulesetClient(ruleset).fight_party;
  if (party) scenario.initiative = { [party]: "party" }; // CT-1: the scenario option naming the party side
  return { scenario, names, hp, views };
}
