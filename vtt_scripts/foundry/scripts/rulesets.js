// The rulesets as the engine declares them (contract.js, generated from each ruleset's
// manifest and request types by `python -m fracas.spec`): their names, titles in the
// user's language, and the fields the module reads from an actor's flags. Nothing here
// names a ruleset: a ruleset added to the engine shows up in the module by regenerating.

import { DEFAULT_RULESET, FIELDS, RESULTS, RULESETS } from "./contract.js";
import { t } from "./i18n.js";
import { layoutStrikeLine, servedClient, servedEntry, servedStructFields } from "./served.js";

export { DEFAULT_RULESET };

/**
 * The contract's entry of ruleset `name`, or undefined.
 * @param {unknown} name
 */
export function rulesetEntry(name) {
  return RULESETS.find((r) => r.name === name);
}

/**
 * A ruleset's title in the user's language (lang/*.json FRACAS.Ruleset.Title.<name>,
 * generated from its manifest); the engine's title when the language lacks it, the
 * bridge's for a ruleset it served (served.js), and the name itself for one neither knows.
 * @param {unknown} name
 */
export function rulesetTitle(name) {
  const known = rulesetEntry(name);
  if (!known) return servedEntry(name)?.title ?? String(name); // a ruleset the bridge served (served.js)
  const out = t(known.titleKey);
  return out === known.titleKey ? known.title : out;
}

/** The rulesets this module offers (their manifests list the client `foundry`), by name. */
export function offeredRulesets() {
  return RULESETS.filter((r) => r.foundry).map((r) => r.name);
}

/**
 * The field names of request struct `struct` of ruleset `name` (msgspec's, in declaration
 * order), or null when the ruleset has no such struct. A ruleset contract.js does not list
 * has the structs the bridge served for it (served.js), once learned.
 * @param {string} name
 * @param {string} struct  e.g. "Attacker", "Target", "Strike"
 * @returns {readonly string[]|null}
 */
export function structFields(name, struct) {
  if (!rulesetEntry(name)) return servedStructFields(name, struct);
  const structs = /** @type {Record<string, Record<string, readonly string[]>>} */ (FIELDS)[name];
  return structs && Object.prototype.hasOwnProperty.call(structs, struct) ? structs[struct] : null;
}

/**
 * @typedef {object} ClientHints  how the module draws a ruleset (its manifest's [client]
 *   table, fracas/rulesets/manifest.py CLIENT_KEYS); every key optional
 * @property {"d20"|"pool"} [strike]  a strike's line and dice: an attack roll, or a pool of its die
 * @property {string} [against]  the strike field a d20 is rolled against ("tn": "vs TN 14")
 * @property {string[]} [split]  per-target result fields a card shows beside the damage
 * @property {"combatant"|"side"} [initiative]  each combatant rolls, or the party and its opponents as sides
 * @property {string[]} [initiative_flags]  Combatant fields read from flags.fracas.<ruleset>.<field>
 * @property {Record<string, string|number|boolean>} [initiative_options]  side initiative options' defaults
 * @property {number} [initiative_die]  the faces of a side's initiative die
 * @property {string} [initiative_rule]  the rule ID an initiative card and its errors cite
 * @property {string} [fight_party]  the scenario's initiative option naming its party side (CT-1: party)
 */

/**
 * How the module draws ruleset `name` (contract.js RULESETS[].client, or for a plug-in
 * only the bridge knows, the hints it served: served.js); {} for a ruleset neither says
 * anything of (a card then shows a strike's values in its result layout's order).
 * @param {unknown} name
 * @returns {ClientHints}
 */
export function rulesetClient(name) {
  const entry = /** @type {any} */ (rulesetEntry(name));
  return /** @type {ClientHints} */ (entry ? entry.client ?? {} : servedClient(name) ?? {});
}

/**
 * Whether `name` has this module's own client: the default ruleset (the contract's
 * DEFAULT_RULESET), whose attacks, mobs, odds, fights and cards read its sheet mapping and
 * `flags.fracas.strikes` and draw its dice as its strikes are. Every other ruleset, built in
 * or served by the bridge, is drawn from its contract: its [client] hints, request structs,
 * result layouts and kinds (the one place that decides).
 * @param {unknown} name
 */
export function ownClient(name) {
  return name === DEFAULT_RULESET;
}

/**
 * The ruleset that offers request kind `kind` (its manifest's kinds), the default ruleset
 * first; undefined when none does.
 * @param {string} kind
 * @returns {string|undefined}
 */
export function rulesetOfKind(kind) {
  const offering = RULESETS.filter((r) => r.requests.includes(kind)).map((r) => r.name);
  return offering.includes(DEFAULT_RULESET) ? DEFAULT_RULESET : offering[0];
}

/**
 * A strike of ruleset `name` as its contract's result layout orders its values (the card
 * of a ruleset whose contract says no more of its strikes).
 * @param {string} name
 * @param {Record<string, any>} strike
 */
export function rulesetLayoutStrikeLine(name, strike) {
  const layouts = /** @type {Record<string, unknown>} */ (RESULTS);
  return layoutStrikeLine(Object.prototype.hasOwnProperty.call(layouts, name) ? layouts[name] : null, strike);
}
