// The kinds the bridge rolls for this module without a card or resolver of its own:
// Enchanted Realms' save (ER-12/ER-13/ER-14/ER-16), touch ("ER Touch attacks"), drop (ER-13,
// getting the drop), lock ("ER Weapon Negation": lock, disarm, shield-blitz), throw ("ER
// Throwing Items": throwing items and throwing magic) and slam ("ER Grappling": a grappler's
// slam, into a second target). One entry per
// kind: the bridge method, which tokens take part (from the controlled and targeted tokens),
// the fields the GM sets at the table (the dialog's and the API's, checked alike, an error
// naming the field), the request built from those and the actors' data (the readers the attack
// uses: request.js, the data-path settings, the actor's flags.fracas.<ruleset>), what the
// result applies (Body damage, conditions), its dice and its one-line outcome. The card is the
// result's layout (layoutcard.js). A new bridge-built kind is one entry here plus its strings.

import { attackCardModel, attackRollSpecs } from "./chat.js";
import { COVERS, DAMAGE_TYPES, STYLE_DAMAGE, STYLE_METHOD, STYLES } from "./facts.js";
import { InputError } from "./errors.js";
import { t } from "./i18n.js";
import { getPath, readInteger } from "./paths.js";
import { CONDITIONS, buildAttackRequest, conditionsOf, readAttacker, readCompetitor, readTarget, who } from "./request.js";
import { DEFAULT_RULESET, rulesetOfKind } from "./rulesets.js";
import { word, words } from "./words.js";

/** @typedef {import("./request.js").TokenView} TokenView */
/** @typedef {import("./request.js").Json} Json */
/** @typedef {import("./request.js").Mapping} Mapping */
/** @typedef {import("./actions.js").RollSpec} RollSpec */

/**
 * A field the GM sets: its type and bounds, default, and (`when`) the modes it belongs to.
 * @typedef {{name: string, type: "int"|"choice"|"bool"|"text"|"conditions", choices?: readonly string[], min?: number,
 *   max?: number, def: unknown, when?: (values: Record<string, any>) => boolean}} Field
 */

/**
 * A part a token plays: `role` (the option naming it), `many` (several tokens), `from` (the
 * selection it comes from when the option is absent), `optional` (given the fields), `owned`
 * (a player must own it: players act only with their own tokens, as the attack checks),
 * `nth` (of that selection only the nth token, in the order they were targeted: a slam's
 * victim is the first targeted token, the one it is slammed into the second).
 * @typedef {{role: string, many?: boolean, from: "controlled"|"targeted"|"targeted-or-controlled",
 *   optional?: (values: Record<string, any>) => boolean, owned?: boolean, nth?: number}} Part
 */

/**
 * A part's tokens from the selection (its `from`, then its `nth`).
 * @template T
 * @param {Part} part @param {T[]} controlled @param {T[]} targeted
 * @returns {T[]}
 */
export function selectionOf(part, controlled, targeted) {
  const list = part.from === "controlled" ? controlled : part.from === "targeted" ? targeted : (targeted.length ? targeted : controlled);
  return part.nth === undefined ? list : list.slice(part.nth, part.nth + 1);
}

/**
 * What a kind's build gets: the fields' values, the tokens by role, the data paths, and
 * whether status effects count as ER conditions.
 * @typedef {{values: Record<string, any>, tokens: Record<string, TokenView[]>, mapping: Mapping, conditions: boolean, needBody: boolean}} BuildArgs
 */

/**
 * One kind the bridge rolls.
 * @typedef {object} Kind
 * @property {string} kind       the request kind (contract.js RULESETS requests)
 * @property {string} method     the bridge's method
 * @property {string} ruleset
 * @property {string} icon       the macro's image: a core icon (foundry-vtt-types 13.x client/config.d.mts l. 1115-1139,
 *   CONFIG.controlIcons' defaults: cowled, aura, padlock, explosion; fire: l. 1277, CONFIG.statusEffects' burning;
 *   falling: l. 1237, CONFIG.statusEffects' prone)
 * @property {Field[]} fields
 * @property {Part[]} parts
 * @property {(args: BuildArgs) => Json} build  the request (without seed and rolls)
 * @property {(result: any) => {damage: Record<string, number>, conditions: Record<string, string[]>}} effects
 *   what the result does to which token: Body damage, conditions gained (any: the bridge's JSON)
 * @property {(result: any, names: Record<string, string>) => RollSpec[]} rolls  its dice as Foundry rolls
 * @property {(result: any, names: Record<string, string>) => string} outcome  one line, in the user's language
 * @property {(result: any) => {key: string, parts: {id: string, exact: string, p: number}[]}[]} [odds]  exact chances
 *   the card puts first besides the result's own top-level ones: a FRACAS.Result key, and per token its fraction and float
 * @property {(tokens: Record<string, TokenView[]>) => TokenView|null} speaker
 */

const EDGES = Object.freeze(["normal", "advantage", "disadvantage"]);
const SAVES = Object.freeze(["agility", "resilience", "strength"]);
const WEAPONS = Object.freeze(["light", "medium", "heavy"]);
/** The throw table's items (the engine's throw.ITEMS), an unlisted item and throwing magic ("ER Throwing Items"). */
export const THROW_ITEMS = Object.freeze(["acid splash", "bonfire blend", "explosive oil", "firebreather's oil", "holy water", "other", "magic"]);
/** Items whose damage the request gives (the table has none for them). */
const OWN_DAMAGE = Object.freeze(["other", "magic"]);
const ownDamage = (/** @type {Record<string, any>} */ v) => OWN_DAMAGE.includes(v.item);

/** `edge` ("normal" | "advantage" | "disadvantage") as request flags. @param {unknown} edge */
const edgeFlags = (edge) => (edge === "advantage" ? { advantage: true } : edge === "disadvantage" ? { disadvantage: true } : {});

/**
 * One d20 group (two at advantage or disadvantage, the kept one active).
 * @param {number[]} dice @param {number|null} kept @param {boolean} success @param {string} flavor
 * @param {number} [faces]
 */
function keptGroup(dice, kept, success, flavor, faces = 20) {
  const at = kept === null ? -1 : dice.indexOf(kept);
  return { faces, flavor, results: dice.map((result, i) => ({ result, active: i === at, success: i === at && success, failure: i === at && !success })) };
}

/**
 * A saving attribute's score or modifier of a token: Strength and Agility from the data paths
 * (as a competition reads them), Resilience from the actor's flags.fracas.<ruleset>
 * (`resilience`, `resilience_mod`) or the Resilience save bonus path (its modifier).
 * @param {TokenView} view
 * @param {Mapping} mapping
 * @param {string} attribute
 * @returns {{score?: number, modifier?: number}}
 */
export function savingScore(view, mapping, attribute) {
  if (attribute === "strength" || attribute === "agility") {
    const side = readCompetitor(view, mapping, attribute, {}, { conditions: false });
    const out = {};
    if (side[attribute] !== undefined) Object.assign(out, { score: side[attribute] });
    if (side[`${attribute}_mod`] !== undefined) Object.assign(out, { modifier: side[`${attribute}_mod`] });
    return out;
  }
  const flagPath = `flags.fracas.${DEFAULT_RULESET}`;
  for (const [key, field] of [["resilience_mod", "modifier"], ["resilience", "score"]]) {
    if (getPath(view.actor, `${flagPath}.${key}`) === undefined) continue;
    const { value, problem } = readInteger(view.actor, `${flagPath}.${key}`);
    if (problem || value === undefined) throw new InputError(t("FRACAS.Error.Request02", { p0: who(view), label: key, problem: problem ?? key }));
    return { [field]: value };
  }
  if (mapping.saveBonus) {
    const { value, problem } = readInteger(view.actor, mapping.saveBonus);
    if (!problem && value !== undefined) return { modifier: value };
  }
  throw new InputError(t("FRACAS.Bridged.NoResilience", { name: who(view), flag: `${flagPath}.resilience`, path: mapping.saveBonus || t("FRACAS.Word.NoPath") }));
}

/**
 * A pool of d20s against an AC (a touch hit, a drop's strike: ER-6), the die ER-12 discarded
 * (disadvantage drops the highest) shown inactive, as an attack's pool (chat.js attackRollSpecs).
 * @param {{face: number, hit: boolean}[]} dice @param {number|null} discarded @param {string} flavor
 */
function poolGroup(dice, discarded, flavor) {
  const results = dice.map((d) => ({ result: d.face, active: true, success: !!d.hit, failure: !d.hit }));
  if (discarded !== null && discarded !== undefined) results.push({ result: discarded, active: false, success: false, failure: false });
  return { faces: 20, flavor, results };
}

/** The one token of a role. @param {Record<string, TokenView[]>} tokens @param {string} role */
const one = (tokens, role) => tokens[role]?.[0] ?? null;

/** The ruleset whose kinds include counterspell (contract.js; the bridge refuses it in any other). */
const COUNTERSPELL_RULESET = rulesetOfKind("counterspell") ?? DEFAULT_RULESET;

/** @type {Record<string, Kind>} */
export const KINDS = {
  save: {
    kind: "save", method: "save.roll", ruleset: DEFAULT_RULESET, icon: "icons/svg/aura.svg",
    fields: [
      { name: "save", type: "choice", choices: SAVES, def: "agility" },
      { name: "dc", type: "int", min: -50, max: 100, def: 13 },
      { name: "area", type: "bool", def: false },
      { name: "cover", type: "choice", choices: COVERS, def: "none" },
      { name: "effect", type: "text", max: 200, def: "" },
      { name: "on_fail", type: "conditions", def: [] },
      { name: "edge", type: "choice", choices: EDGES, def: "normal" },
    ],
    // The savers: the targeted tokens (an area the GM aimed), else the controlled ones (a player's own save).
    parts: [{ role: "savers", many: true, from: "targeted-or-controlled", owned: true }],
    build: ({ values, tokens, mapping, conditions }) => ({
      save: values.save, dc: values.dc, area: values.area, effect: values.effect, on_fail: values.on_fail,
      targets: tokens.savers.map((v) => {
        const list = conditions ? conditionsOf(v) : [];
        return { id: v.id, ...savingScore(v, mapping, values.save), cover: values.cover, ...edgeFlags(values.edge), ...(list.length ? { conditions: list } : {}) };
      }),
    }),
    effects: (r) => ({
      damage: {},
      conditions: Object.fromEntries(r.targets.filter((/** @type {any} */ x) => !x.saved)
        .map((/** @type {any} */ x) => [x.id, x.conditions_after.filter((/** @type {string} */ c) => !x.conditions.includes(c))])
        .filter((/** @type {[string, string[]]} */ [, gained]) => gained.length)),
    }),
    rolls: (r, names) => r.targets.filter((/** @type {any} */ x) => x.dice.length).map((/** @type {any} */ x) => ({
      label: t("FRACAS.Bridged.SaveOf", { name: names[x.id] ?? x.id }), total: x.total,
      groups: [keptGroup(x.dice, x.kept, x.saved, t("FRACAS.Bridged.Dice.Save"))] })),
    outcome: (r, names) => t("FRACAS.Bridged.Outcome.save", {
      save: word("Attribute", r.save), dc: r.dc,
      saved: r.saved.map((/** @type {string} */ id) => names[id] ?? id).join(", ") || t("FRACAS.Word.None"),
      failed: r.failed.map((/** @type {string} */ id) => names[id] ?? id).join(", ") || t("FRACAS.Word.None") }),
    // Each saver's exact chance, by name (the layout has them per target).
    odds: (r) => [{ key: "p_save", parts: r.targets.map((/** @type {any} */ x) => ({ id: x.id, exact: x.p_save_exact, p: x.p_save })) }],
    speaker: () => null,
  },

  touch: {
    kind: "touch", method: "touch.roll", ruleset: DEFAULT_RULESET, icon: "icons/svg/explosion.svg",
    fields: [
      { name: "touch", type: "choice", choices: ["hit", "sleight"], def: "hit" },
      { name: "dice", type: "int", min: 1, max: 5, def: 1, when: (v) => v.touch === "hit" },
      { name: "bonus", type: "int", min: -100, max: 100, def: 0 },
      { name: "other_ac", type: "int", min: -20, max: 20, def: 0, when: (v) => v.touch === "sleight" },
      { name: "edge", type: "choice", choices: EDGES, def: "normal" },
    ],
    parts: [{ role: "caster", from: "controlled", owned: true }, { role: "target", from: "targeted" }],
    build: ({ values, tokens, mapping, conditions }) => {
      const caster = /** @type {TokenView} */ (one(tokens, "caster"));
      const victim = /** @type {TokenView} */ (one(tokens, "target"));
      /** @type {Json} */
      const target = { id: victim.id };
      if (values.touch === "hit") {
        const read = readTarget(victim, mapping, { conditions });
        for (const key of ["ac", "size", "conditions"]) if (read[key] !== undefined) target[key] = read[key];
      } else {
        const side = readCompetitor(victim, mapping, "agility", {}, { conditions: false });
        if (side.agility !== undefined) target.agility = side.agility;
        if (side.agility_mod !== undefined) target.agility_mod = side.agility_mod;
        target.other_ac = values.other_ac;
      }
      const strikes = [{ method: values.touch === "hit" ? "melee" : "range" }];
      /** @type {Json} */
      const request = { touch: values.touch, caster: readAttacker(caster, mapping, strikes, { conditions }), target, bonus: values.bonus, ...edgeFlags(values.edge) };
      if (values.touch === "hit") request.dice = values.dice;
      return request;
    },
    effects: () => ({ damage: {}, conditions: {} }),
    rolls: (r) => {
      if (r.hit) {
        return [{ label: t("FRACAS.Bridged.Dice.Touch"), groups: [poolGroup(r.hit.dice, r.hit.discarded, t("FRACAS.Bridged.Dice.Touch"))] }];
      }
      if (r.sleight && r.sleight.dice.length) {
        return [{ label: t("FRACAS.Bridged.Dice.Sleight"), total: r.sleight.total,
          groups: [keptGroup(r.sleight.dice, r.sleight.kept, !!r.touched, t("FRACAS.Bridged.Dice.Sleight"))] }];
      }
      return [];
    },
    outcome: (r, names) => t(r.touched ? (r.clandestine ? "FRACAS.Bridged.Outcome.touchClandestine" : "FRACAS.Bridged.Outcome.touched") : "FRACAS.Bridged.Outcome.touchMissed",
      { target: names[r.target] ?? r.target, mode: word("Mode", r.touch) }),
    speaker: (tokens) => one(tokens, "caster"),
  },

  drop: {
    kind: "drop", method: "drop.roll", ruleset: DEFAULT_RULESET, icon: "icons/svg/cowled.svg",
    fields: [
      { name: "phase", type: "choice", choices: ["drop", "inflict"], def: "drop" },
      { name: "surrenders", type: "bool", def: true, when: (v) => v.phase === "drop" },
      { name: "style", type: "choice", choices: STYLES, def: "piercing", when: (v) => v.phase === "drop" },
      { name: "dice", type: "int", min: 1, max: 5, def: 1, when: (v) => v.phase === "drop" },
      { name: "weight", type: "int", min: 0, max: 2, def: 1, when: (v) => v.phase === "drop" },
      { name: "damage_type", type: "choice", choices: DAMAGE_TYPES, def: "", when: (v) => v.phase === "drop" },
      { name: "bonus", type: "int", min: -100, max: 100, def: 0 },
      { name: "sneak", type: "choice", choices: ["yes", "advantage-only"], def: "yes", when: (v) => v.phase === "drop" },
      { name: "held", type: "int", min: 0, max: 100000, def: 0, when: (v) => v.phase === "inflict" },
      { name: "rounds", type: "int", min: 0, max: 1000, def: 0, when: (v) => v.phase === "inflict" },
      { name: "attribute", type: "choice", choices: ["agility", "strength"], def: "agility", when: (v) => v.phase === "inflict" },
      { name: "foul_play", type: "bool", def: false, when: (v) => v.phase === "inflict" },
      { name: "edge", type: "choice", choices: EDGES, def: "normal", when: (v) => v.phase === "inflict" },
    ],
    parts: [{ role: "attacker", from: "controlled", owned: true }, { role: "victim", from: "targeted" }],
    build: ({ values, tokens, mapping, conditions, needBody }) => {
      const attacker = /** @type {TokenView} */ (one(tokens, "attacker"));
      const victim = /** @type {TokenView} */ (one(tokens, "victim"));
      if (values.phase === "inflict") {
        const side = savingScore(victim, mapping, values.attribute);
        /** @type {Json} */
        const held = { id: victim.id, attribute: values.attribute, ...side, bonus: values.bonus, foul_play: values.foul_play, ...edgeFlags(values.edge) };
        const list = conditions ? conditionsOf(victim) : [];
        if (list.length) held.conditions = list;
        const bodyMax = readTarget(victim, mapping, { conditions: false }).body_max;
        if (bodyMax !== undefined) held.body_max = bodyMax;
        return { inflict: { held: values.held, rounds: values.rounds, victim: held } };
      }
      /** @type {Json} */
      const strike = { method: STYLE_METHOD[/** @type {keyof typeof STYLE_METHOD} */ (values.style)], style: values.style, dice: values.dice,
        damage_type: values.damage_type || STYLE_DAMAGE[/** @type {keyof typeof STYLE_DAMAGE} */ (values.style)],
        sneak: values.sneak === "yes" ? true : "advantage-only", target: victim.id };
      if (strike.method !== "range") strike.weight = values.weight;
      if (values.bonus) strike.bonus = values.bonus;
      const { request } = buildAttackRequest({ attacker, targets: [victim], strikes: [strike], mapping, options: { conditions, needBody } });
      return { attack: request, surrenders: values.surrenders };
    },
    // Held damage is not dealt; dealt damage (a victim that cannot surrender, or the inflicting) is.
    effects: (r) => ({ damage: r.inflicted > 0 ? { [r.victim]: r.inflicted } : {}, conditions: {} }),
    rolls: (r, names) => {
      if (r.release && r.release.dice.length) {
        return [{ label: t("FRACAS.Bridged.Dice.Release", { name: names[r.victim] ?? r.victim }), total: r.release.total,
          groups: [keptGroup(r.release.dice, r.release.kept, !!r.release.halved, t("FRACAS.Bridged.Dice.Release", { name: names[r.victim] ?? r.victim }))] }];
      }
      // The drop's attack as an attack card rolls it (its pools, crit chains and, for a victim that
      // cannot surrender, the shock save): chat.js's own specs.
      return r.attack ? attackRollSpecs(attackCardModel(r.attack, { attackerName: "", names, requestId: "" })) : [];
    },
    outcome: (r, names) => {
      const victim = names[r.victim] ?? r.victim;
      if (r.phase === "inflict") return t(r.release?.halved ? "FRACAS.Bridged.Outcome.inflictHalf" : "FRACAS.Bridged.Outcome.inflict", { victim, held: r.held, inflicted: r.inflicted });
      return r.surrenders ? t("FRACAS.Bridged.Outcome.dropHeld", { victim, held: r.held }) : t("FRACAS.Bridged.Outcome.dropDealt", { victim, inflicted: r.inflicted });
    },
    speaker: (tokens) => one(tokens, "attacker"),
  },

  lock: {
    kind: "lock", method: "lock.roll", ruleset: DEFAULT_RULESET, icon: "icons/svg/padlock.svg",
    fields: [
      { name: "mode", type: "choice", choices: ["lock", "disarm", "blitz"], def: "lock" },
      { name: "to_hit", type: "int", min: -100, max: 100, def: 0, when: (v) => v.mode !== "blitz" },
      { name: "weapon", type: "choice", choices: WEAPONS, def: "medium", when: (v) => v.mode === "disarm" },
      { name: "damage_type", type: "choice", choices: DAMAGE_TYPES, def: "edged", when: (v) => v.mode === "disarm" },
      { name: "reacts", type: "bool", def: false, when: (v) => v.mode !== "blitz" },
      { name: "reaction_left", type: "bool", def: true, when: (v) => v.mode !== "blitz" },
      { name: "edge", type: "choice", choices: EDGES, def: "normal", when: (v) => v.mode !== "blitz" },
    ],
    parts: [{ role: "attacker", from: "controlled", owned: true }, { role: "victim", from: "targeted" }],
    build: ({ values, tokens, mapping, conditions }) => {
      const attacker = /** @type {TokenView} */ (one(tokens, "attacker"));
      const victim = /** @type {TokenView} */ (one(tokens, "victim"));
      // The feat's to-hit: the attacker's Strength score (a melee weapon's, ER-4) plus the dialog's to-hit.
      const a = readAttacker(attacker, mapping, values.mode === "blitz" ? [] : [{ method: "melee" }], { conditions });
      /** @type {Json} */
      const locker = { id: attacker.id, to_hit: (a.strength ?? 0) + values.to_hit, ...edgeFlags(values.edge) };
      for (const key of ["strength", "agility", "strength_mod", "agility_mod", "conditions"]) if (a[key] !== undefined) locker[key] = a[key];
      if (values.mode === "disarm") Object.assign(locker, { weapon: values.weapon, damage_type: values.damage_type });
      const read = readTarget(victim, mapping, { conditions });
      /** @type {Json} */
      const held = { id: victim.id, ac: read.ac };
      // The victim's reaction is a competition (ER-19): its Strength (a lock) or Agility (a disarm), needed when it reacts.
      if (values.mode !== "blitz" && values.reacts) {
        const attribute = values.mode === "disarm" ? "agility" : "strength";
        const side = readCompetitor(victim, mapping, attribute, {}, { conditions: false });
        for (const key of [attribute, `${attribute}_mod`]) if (side[key] !== undefined) held[key] = side[key];
      }
      for (const key of ["conditions", "resistant", "vulnerable", "immune"]) if (read[key] !== undefined) held[key] = read[key];
      if (values.mode !== "blitz") Object.assign(held, { reacts: values.reacts, reaction_left: values.reaction_left });
      return { mode: values.mode, attacker: locker, victim: held };
    },
    // A resisted disarm costs the victim Body (its body_cost); a shield-blitz deals its d20.
    effects: (r) => {
      const cost = r.reaction?.body_cost?.points ?? 0;
      const blitz = r.blitz?.damage ?? 0;
      return { damage: cost + blitz > 0 ? { [r.victim]: cost + blitz } : {}, conditions: {} };
    },
    rolls: (r) => {
      /** @type {RollSpec[]} */
      const specs = [];
      if (r.feat && r.feat.dice.length) specs.push({ label: t("FRACAS.Bridged.Dice.Feat"), total: r.feat.total, groups: [keptGroup(r.feat.dice, r.feat.kept, !!r.feat.success, t("FRACAS.Bridged.Dice.Feat"))] });
      for (const round of r.reaction?.rounds ?? []) {
        specs.push({ label: t("FRACAS.Bridged.Dice.Reaction"), groups: [
          keptGroup(round.victim.dice, round.victim.kept, !!r.reaction.victim_wins, t("FRACAS.Bridged.Dice.Victim"), 12),
          keptGroup(round.attacker.dice, round.attacker.kept, !r.reaction.victim_wins, t("FRACAS.Bridged.Dice.Attacker"), 12)] });
      }
      if (r.blitz) specs.push({ label: t("FRACAS.Bridged.Dice.Blitz"), total: r.blitz.damage, groups: [{ faces: 20, flavor: t("FRACAS.Bridged.Dice.Blitz"), results: [{ result: r.blitz.die, active: true, success: false, failure: false }] }] });
      return specs;
    },
    outcome: (r, names) => t("FRACAS.Bridged.Outcome.lock", { attacker: names[r.attacker] ?? r.attacker, victim: names[r.victim] ?? r.victim,
      mode: word("Mode", r.mode), outcome: word("Outcome", r.outcome) })
      + (r.free_cost_dice ? ` ${t("FRACAS.Bridged.FreeCost", { dice: r.free_cost_dice })}` : "")
      + (r.blitz ? ` ${t("FRACAS.Bridged.BlitzDamage", { damage: r.blitz.damage, type: word("DamageType", r.blitz.damage_type) })}` : ""),
    speaker: (tokens) => one(tokens, "attacker"),
  },

  throw: {
    kind: "throw", method: "throw.roll", ruleset: DEFAULT_RULESET, icon: "icons/svg/fire.svg",
    fields: [
      { name: "item", type: "choice", choices: THROW_ITEMS, def: "acid splash" },
      { name: "skill", type: "choice", choices: ["none", "ranged", "hurling"], def: "none" },
      // The damage of an unlisted item or a spell (the engine's throw.py limits: 0-10 dice, a flat -50..50).
      { name: "dice", type: "int", min: 0, max: 10, def: 1, when: ownDamage },
      { name: "faces", type: "int", min: 2, max: 100, def: 4, when: ownDamage },
      { name: "damage_bonus", type: "int", min: -50, max: 50, def: 0, when: ownDamage },
      { name: "damage_type", type: "choice", choices: DAMAGE_TYPES, def: "fire", when: ownDamage },
      { name: "cover", type: "choice", choices: COVERS, def: "none" },
      { name: "bonus", type: "int", min: -50, max: 50, def: 0 },
      { name: "edge", type: "choice", choices: EDGES, def: "normal" },
    ],
    parts: [{ role: "thrower", from: "controlled", owned: true }, { role: "target", from: "targeted" }],
    build: ({ values, tokens, mapping, conditions }) => {
      const thrower = /** @type {TokenView} */ (one(tokens, "thrower"));
      const victim = /** @type {TokenView} */ (one(tokens, "target"));
      // Throwing magic adds the thrower's Agility (a ranged to-hit: needed); a flask's raw face takes none.
      const a = readAttacker(thrower, mapping, values.item === "magic" ? [{ method: "range" }] : [], { conditions });
      const read = readTarget(victim, mapping, { conditions });
      /** @type {Json} */
      const target = { id: victim.id, ac: read.ac, cover: values.cover };
      for (const key of ["resistant", "vulnerable", "immune", "conditions"]) if (read[key] !== undefined) target[key] = read[key];
      /** @type {Json} */
      const request = { item: values.item, thrower: a, target, skill: values.skill, bonus: values.bonus, ...edgeFlags(values.edge) };
      if (ownDamage(values)) request.damage = { dice: values.dice, faces: values.faces, bonus: values.damage_bonus, damage_type: values.damage_type };
      return request;
    },
    // A hit deals its damage (after the target's resistance, ER-10) once.
    effects: (r) => ({ damage: r.hit && r.damage && r.damage.damage > 0 ? { [r.target]: r.damage.damage } : {}, conditions: {} }),
    rolls: (r) => {
      /** @type {RollSpec[]} */
      const specs = [{ label: t("FRACAS.Bridged.Dice.Throw"), groups: [{ faces: 20, flavor: t("FRACAS.Bridged.Dice.Throw"),
        results: r.thrown.dice.map((/** @type {number} */ face, /** @type {number} */ i) => ({ result: face, active: i !== r.thrown.dropped,
          success: !!r.thrown.hits[i], failure: i !== r.thrown.dropped && !r.thrown.hits[i] })) }] }];
      if (r.damage && r.damage.dice.length) {
        specs.push({ label: t("FRACAS.Bridged.Dice.ThrowDamage"), total: r.damage.damage, groups: [{ faces: r.damage.faces, flavor: t("FRACAS.Bridged.Dice.ThrowDamage"),
          results: r.damage.dice.map((/** @type {number} */ face) => ({ result: face, active: true, success: false, failure: false })) }] });
      }
      return specs;
    },
    outcome: (r, names) => {
      const item = r.magic ? t("FRACAS.Bridged.Choice.item.magic") : t(`FRACAS.Bridged.Choice.item.${String(r.item).replace(/[^A-Za-z0-9-]+/g, "_")}`);
      const target = names[r.target] ?? r.target;
      return r.hit
        ? t("FRACAS.Bridged.Outcome.throwHit", { item, target, damage: r.damage?.damage ?? 0, type: word("DamageType", r.damage_type) })
        : t("FRACAS.Bridged.Outcome.throwMissed", { item, target });
    },
    // The exact chance of a hit (the result's own p_hit and mean damage are its top-level odds).
    speaker: (tokens) => one(tokens, "thrower"),
  },

  slam: {
    kind: "slam", method: "slam.roll", ruleset: DEFAULT_RULESET, icon: "icons/svg/falling.svg",
    fields: [
      // "or appropriate damage for the terrain" (ER Grappling): the victim's damage type.
      { name: "damage_type", type: "choice", choices: DAMAGE_TYPES, def: "blunt" },
      // The grappler's height in feet; 0: its size decides (huge and larger stand ten feet or taller).
      { name: "height", type: "int", min: 0, max: 1000, def: 0 },
      // The hurl into a second target (the second targeted token): its distance, to-hit and advantage.
      { name: "distance", type: "int", min: 0, max: 10, def: 5 },
      { name: "to_hit", type: "int", min: -100, max: 100, def: 0 },
      { name: "edge", type: "choice", choices: EDGES, def: "normal" },
    ],
    // The first targeted token is the victim held, the second (if any) the one it is slammed into.
    parts: [{ role: "grappler", from: "controlled", owned: true }, { role: "victim", from: "targeted", nth: 0 },
      { role: "into", from: "targeted", nth: 1, optional: () => true }],
    build: ({ values, tokens, mapping, conditions }) => {
      const grappler = /** @type {TokenView} */ (one(tokens, "grappler"));
      const held = /** @type {TokenView} */ (one(tokens, "victim"));
      const into = one(tokens, "into");
      const a = readAttacker(grappler, mapping, [], { conditions });
      if (a.strength === undefined && a.strength_mod === undefined) {
        throw new InputError(t("FRACAS.Bridged.NoStrength", { name: who(grappler), path: mapping.strength || t("FRACAS.Word.NoPath") }));
      }
      /** @type {Json} */
      const g = { id: grappler.id, size: a.size ?? "medium" };
      for (const key of ["strength", "strength_mod", "conditions"]) if (a[key] !== undefined) g[key] = a[key];
      if (values.height > 0) g.height = values.height;
      // The victim's size (two or more categories smaller), resistances and conditions (ER-10, ER-15).
      const read = readTarget(held, mapping, { conditions });
      /** @type {Json} */
      const victim = { id: held.id, size: read.size ?? "medium" };
      for (const key of ["resistant", "vulnerable", "immune", "conditions"]) if (read[key] !== undefined) victim[key] = read[key];
      /** @type {Json} */
      const request = { grappler: g, victim, damage_type: values.damage_type };
      if (into) {
        const other = readTarget(into, mapping, { conditions: false });
        /** @type {Json} */
        const target = { id: into.id, ac: other.ac, size: other.size ?? "medium", distance: values.distance };
        for (const key of ["resistant", "vulnerable", "immune"]) if (other[key] !== undefined) target[key] = other[key];
        request.into = target;
        Object.assign(g, { to_hit: values.to_hit, ...edgeFlags(values.edge) });
      }
      return request;
    },
    // The victim's damage (ER-10 applied), and the second target's on a hit.
    effects: (r) => {
      /** @type {Record<string, number>} */
      const damage = {};
      if (r.victim_damage.damage > 0) damage[r.victim] = r.victim_damage.damage;
      if (r.into && r.into.hit && r.into.damage > 0) damage[r.into.id] = r.into.damage;
      return { damage, conditions: {} };
    },
    rolls: (r) => (r.into ? [{ label: t("FRACAS.Bridged.Dice.Hurl"), groups: [{ faces: 20, flavor: t("FRACAS.Bridged.Dice.Hurl"),
      results: r.into.dice.map((/** @type {{face: number, hit: boolean, dropped: boolean}} */ d) => ({ result: d.face, active: !d.dropped,
        success: !d.dropped && d.hit, failure: !d.dropped && !d.hit })) }] }] : []),
    outcome: (r, names) => {
      const victim = names[r.victim] ?? r.victim;
      const line = t("FRACAS.Bridged.Outcome.slam", { victim, damage: r.victim_damage.damage, type: word("DamageType", r.victim_damage.damage_type) });
      if (!r.into) return line;
      const target = names[r.into.id] ?? r.into.id;
      return `${line}; ${r.into.hit ? t("FRACAS.Bridged.Outcome.slamInto", { target, damage: r.into.damage }) : t("FRACAS.Bridged.Outcome.slamMissed", { target })}`;
    },
    speaker: (tokens) => one(tokens, "grappler"),
  },

  // WW-8 (the ruleset whose kinds include counterspell, contract.js): the controlled token counters
  // the one targeted token's spell, d20 + its rating in the spell's school each (the dialog's
  // numbers); the counterspeller must beat the caster.
  counterspell: {
    kind: "counterspell", method: "counterspell.roll", ruleset: COUNTERSPELL_RULESET, icon: "icons/svg/aura.svg",
    fields: [
      { name: "school", type: "text", max: 40, def: "sorcery" },
      // Feet to the caster (the engine refuses over 60 with WW-8, naming $.counterspeller.distance).
      { name: "distance", type: "int", min: 0, max: 1000000, def: 30 },
      { name: "rating", type: "int", min: 1, max: 100, def: 1 },
      { name: "caster_skill", type: "int", min: -100, max: 100, def: 0 },
      { name: "modifier", type: "int", min: -100, max: 100, def: 0 },
      { name: "caster_modifier", type: "int", min: -100, max: 100, def: 0 },
    ],
    parts: [{ role: "counterspeller", from: "controlled", owned: true }, { role: "caster", from: "targeted" }],
    build: ({ values, tokens }) => {
      const counter = /** @type {TokenView} */ (one(tokens, "counterspeller"));
      const caster = /** @type {TokenView} */ (one(tokens, "caster"));
      return {
        ruleset: COUNTERSPELL_RULESET, school: values.school,
        caster: { id: caster.id, skill: values.caster_skill, modifier: values.caster_modifier },
        counterspeller: { id: counter.id, schools: { [values.school]: values.rating }, distance: values.distance, modifier: values.modifier },
      };
    },
    effects: () => ({ damage: {}, conditions: {} }),
    // Draw order: the counterspeller's d20, then the caster's (WW-8).
    rolls: (r, names) => [r.counterspeller, r.caster].map((side) => {
      const flavor = `${names[side.id] ?? side.id}: ${t("FRACAS.Bridged.Dice.Counterspell")}`;
      return { label: flavor, total: side.total, groups: [{ faces: 20, flavor, results: [{ result: side.roll, active: true, success: false, failure: false }] }] };
    }),
    outcome: (r, names) => t(r.countered ? "FRACAS.Bridged.Outcome.counterspellCountered" : "FRACAS.Bridged.Outcome.counterspellCast", {
      counterspeller: names[r.counterspeller.id] ?? r.counterspeller.id, caster: names[r.caster.id] ?? r.caster.id, school: r.school,
    }),
    speaker: (tokens) => one(tokens, "counterspeller"),
  },
};

/** The kinds' names, in the table's order. */
export const KIND_NAMES = Object.freeze(Object.keys(KINDS));

/**
 * A kind's fields from what the dialog or a macro gave (`given`: any JSON, every field checked;
 * `fromForm`: the dialog's strings, a checkbox "on" or absent). A field of another mode is left
 * at its default; an unknown field is refused. Throws an InputError naming the field.
 * @param {Kind} entry
 * @param {Record<string, unknown>} given
 * @param {{fromForm?: boolean}} [options]
 * @returns {Record<string, any>}
 */
export function readFields(entry, given, { fromForm = false } = {}) {
  const known = entry.fields.map((f) => f.name);
  if (!fromForm) {
    for (const key of Object.keys(given)) {
      if (!known.includes(key)) throw InputError.of("FRACAS.Bridged.UnknownField", { kind: entry.kind, field: key, fields: known.join(", ") });
    }
  }
  /** @type {Record<string, any>} */
  const values = {};
  // Modes first (a choice other fields' `when` reads), then the rest.
  for (const f of [...entry.fields].sort((a, b) => Number(!!a.when) - Number(!!b.when))) {
    if (f.when && !f.when(values)) {
      values[f.name] = f.def;
      continue;
    }
    values[f.name] = readField(entry, f, given[f.name], fromForm);
  }
  return values;
}

/**
 * @param {Kind} entry @param {Field} f @param {unknown} raw @param {boolean} fromForm
 * @returns {unknown}
 */
function readField(entry, f, raw, fromForm) {
  const bad = (/** @type {string} */ why) => InputError.of("FRACAS.Bridged.BadField", { kind: entry.kind, field: f.name, value: JSON.stringify(raw) ?? "undefined", why });
  if (f.type === "bool") {
    if (fromForm) return raw === "on" || raw === "true" || raw === true;
    if (raw === undefined) return f.def;
    if (typeof raw !== "boolean") throw bad(t("FRACAS.Bridged.Why.Bool"));
    return raw;
  }
  // "" is the choice "(the style's)" where a choice's default is "" (a drop's damage type).
  if (raw === undefined || (raw === "" && f.type === "choice" && f.def === "")) return f.def;
  if (f.type === "int") {
    const n = typeof raw === "string" && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : raw;
    if (typeof n !== "number" || !Number.isInteger(n)) throw bad(t("FRACAS.Bridged.Why.Int"));
    if (n < /** @type {number} */ (f.min) || n > /** @type {number} */ (f.max)) throw bad(t("FRACAS.Bridged.Why.Range", { min: String(f.min), max: String(f.max) }));
    return n;
  }
  if (f.type === "choice") {
    if (typeof raw !== "string" || !(f.choices ?? []).includes(raw)) throw bad(t("FRACAS.Bridged.Why.Choice", { choices: (f.choices ?? []).join(", ") }));
    return raw;
  }
  if (f.type === "text") {
    if (typeof raw !== "string" || raw.length > (f.max ?? 200)) throw bad(t("FRACAS.Bridged.Why.Text", { max: String(f.max ?? 200) }));
    return raw.trim();
  }
  // conditions: a list of ER conditions (the dialog's "asleep, prone")
  const list = typeof raw === "string" ? raw.split(/[,;]/).map((s) => s.trim().toLowerCase()).filter(Boolean) : raw;
  if (!Array.isArray(list) || list.length > CONDITIONS.length) throw bad(t("FRACAS.Bridged.Why.Conditions", { conditions: CONDITIONS.join(", ") }));
  for (const c of list) if (typeof c !== "string" || !CONDITIONS.includes(c)) throw bad(t("FRACAS.Bridged.Why.Conditions", { conditions: CONDITIONS.join(", ") }));
  return [...new Set(list)];
}

const esc = (/** @type {unknown} */ v) => String(v).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");

/**
 * A choice's words in the user's language (the engine's words through words.js).
 * @param {Field} f @param {string} value
 */
function choiceText(f, value) {
  const key = `FRACAS.Bridged.Choice.${f.name}.${value.replace(/[^A-Za-z0-9-]+/g, "_")}`;
  const out = t(key);
  if (out !== key) return out;
  if (f.name === "damage_type") return word("DamageType", value);
  if (f.name === "style") return word("Style", value);
  if (f.name === "save" || f.name === "attribute") return word("Attribute", value);
  if (f.name === "cover") return word("Cover", value);
  if (f.name === "touch" || f.name === "mode") return word("Mode", value);
  if (f.name === "phase") return word("Phase", value);
  if (f.name === "weapon") return word("Weapon", value);
  return value;
}

/**
 * The dialog's form for `entry`, filled with `values` (the last answers, or the defaults), with
 * who takes part as a reminder.
 * @param {Kind} entry
 * @param {Record<string, any>|null} values
 * @param {Record<string, string[]>} named  role → the names of its tokens
 */
export function kindFormHtml(entry, values, named) {
  /** @type {Record<string, any>} */
  const v = Object.fromEntries(entry.fields.map((f) => [f.name, values?.[f.name] ?? f.def]));
  const who = Object.entries(named).map(([role, list]) => `${esc(t(`FRACAS.Bridged.Role.${role}`))}: ${esc(list.join(", ") || t("FRACAS.Word.None"))}`).join(" · ");
  const rows = entry.fields.map((f) => {
    const label = esc(t(`FRACAS.Bridged.Field.${entry.kind}.${f.name}`));
    if (f.type === "bool") return `<div class="form-group"><label>${label}</label><input type="checkbox" name="${f.name}"${v[f.name] ? " checked" : ""}></div>`;
    if (f.type === "choice") {
      const opts = (f.def === "" ? [["", t("FRACAS.Bridged.Default")]] : []).concat((f.choices ?? []).map((c) => [c, choiceText(f, c)]))
        .map(([value, text]) => `<option value="${esc(value)}"${String(value) === String(v[f.name]) ? " selected" : ""}>${esc(text)}</option>`);
      return `<div class="form-group"><label>${label}</label><select name="${f.name}">${opts.join("")}</select></div>`;
    }
    if (f.type === "int") return `<div class="form-group"><label>${label}</label><input type="number" name="${f.name}" value="${esc(v[f.name])}" min="${f.min}" max="${f.max}" step="1"></div>`;
    const text = Array.isArray(v[f.name]) ? v[f.name].join(", ") : v[f.name];
    const hint = f.type === "conditions" ? ` placeholder="${esc(words("Condition", ["asleep", "prone"]))}"` : "";
    return `<div class="form-group"><label>${label}</label><input type="text" name="${f.name}" value="${esc(text)}"${hint}></div>`;
  });
  return `<div class="fracas-dialog"><p>${who}</p>${rows.join("")}</div>`;
}
