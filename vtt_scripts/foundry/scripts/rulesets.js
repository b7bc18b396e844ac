// The rulesets as the engine declares them (contract.js, generated from each ruleset's
// manifest and request types by `python -m fracas.spec`): their names, titles in the
// user's language, and the fields the module reads from an actor's flags. Nothing here
// names a ruleset: a ruleset added to the engine shows up in the module by regenerating.

import { DEFAULT_RULESET, FIELDS, RULESETS } from "./contract.js";
import { t } from "./i18n.js";
import { servedEntry } from "./served.js";

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
 * order), or null when the ruleset has no such struct.
 * @param {string} name
 * @param {string} struct  e.g. "Attacker", "Target", "Strike"
 * @returns {readonly string[]|null}
 */
export function structFields(name, struct) {
  const structs = /** @type {Record<string, Record<string, readonly string[]>>} */ (FIELDS)[name];
  return structs && Object.prototype.hasOwnProperty.call(structs, struct) ? structs[struct] : null;
}
