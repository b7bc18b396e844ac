// The module's settings as data; the edge registers them with game.settings.
// Data paths default to what Foundry's "Simple Worldbuilding" system offers (its
// health bar and attributes named ac, strength, agility …); README.md shows how to
// map other systems.

import { DEFAULT_RULESET, RULESETS } from "./contract.js";

export const MODULE_ID = "fracas";

/** The rulesets a world may choose (contract.js: their manifests list the client `foundry`). */
const OFFERED = RULESETS.filter((r) => r.foundry);

/** Settings whose change means: drop the connection and connect again. */
export const CONNECTION_KEYS = ["bridgeUrl", "bridgeToken", "heartbeatSeconds", "requestTimeoutSeconds"];

/** Data-path settings: key, default, what it holds, whether a target needs it. */
export const DATA_PATHS = [
  { key: "ac", default: "system.attributes.ac.value", label: "AC", hint: "Armour class of a target (ER-6). Required for targets." },
  { key: "body", default: "system.health.value", label: "Body (current HP)", hint: "Damage is taken from here; Undo restores it." },
  { key: "bodyTemp", default: "", label: "temporary Body", hint: "Optional: temporary hit points the system's damage method uses up first; Undo restores them too." },
  { key: "bodyMax", default: "system.health.max", label: "Body maximum", hint: "Used for the sneak-attack shock save (ER-13) and as the ceiling of an Undo. Optional." },
  { key: "strength", default: "system.attributes.strength.value", label: "Strength score", hint: "Melee and savage to-hit (ER-4)." },
  { key: "agility", default: "system.attributes.agility.value", label: "Agility score", hint: "Range to-hit (ER-4) and initiative (ER-18)." },
  { key: "strengthMod", default: "", label: "Strength modifier", hint: "Optional: an explicit modifier wins over floor((score − 2) / 2)." },
  { key: "agilityMod", default: "", label: "Agility modifier", hint: "Optional, as for Strength." },
  { key: "size", default: "system.attributes.size.value", label: "Size", hint: "tiny … colossal (ER-5). Optional: absent means medium." },
  { key: "resistant", default: "system.attributes.resistant.value", label: "Resistances", hint: "Damage types, a list or \"fire, cold\" (ER-10). Optional." },
  { key: "vulnerable", default: "system.attributes.vulnerable.value", label: "Vulnerabilities", hint: "Damage types (ER-10). Optional." },
  { key: "immune", default: "system.attributes.immune.value", label: "Immunities", hint: "Damage types (ER-10). Optional." },
  { key: "saveBonus", default: "", label: "Resilience save bonus", hint: "Optional: when set, the engine rolls shock saves (ER-13)." },
  { key: "initiativeBonus", default: "", label: "Initiative bonus", hint: "Optional: other initiative modifiers (ER-18)." },
  { key: "speed", default: "", label: "Speed (feet)", hint: "Optional: a faster grapple victim gets +1 per 10 ft (ER-19)." },
];

/** Every setting the module registers. `type` is "string" | "boolean" | "number". */
/**
 * @typedef {object} SettingSpec
 * @property {string} key
 * @property {"world"|"client"} scope
 * @property {boolean} config
 * @property {"string"|"boolean"|"number"|"object"} type
 * @property {unknown} default
 * @property {string} name
 * @property {string} hint
 * @property {Record<string, string>} [choices]
 * @property {Record<string, string>} [choiceKeys]  a choice's translation key, where it is not settingChoiceKey's
 */

/** @type {SettingSpec[]} */
export const SETTINGS = [
  // The bridge runs on the GM's machine: one URL for the world, set by the GM (a world setting:
  // the settings window shows those to users who may configure the world only). The token
  // stays in the GM's own browser (client scope: never stored on the server, never sent to a
  // player) and is not in the settings window (config: false), where Foundry shows every
  // client setting to every user, `restricted` or not (SettingsConfig reads `restricted` on
  // menus only): it is edited through TOKEN_MENU, a menu registered `restricted: true`.
  { key: "bridgeUrl", scope: "world", config: true, type: "string", default: "ws://127.0.0.1:8765",
    name: "Bridge URL", hint: "Where `fracas serve` listens, as it printed it (ws://127.0.0.1:8765)." },
  { key: "bridgeToken", scope: "client", config: false, type: "string", default: "",
    name: "Bridge access token", hint: "The token `fracas serve` printed. Kept in this browser only." },
  { key: "chatVisibility", scope: "world", config: true, type: "string", default: "public",
    choices: { public: "Public: everyone sees the dice", gm: "Whispered to GMs" },
    name: "Results in chat", hint: "Who sees fracas result cards." },
  { key: "applyDamage", scope: "world", config: true, type: "boolean", default: true,
    name: "Apply damage", hint: "Take the damage from each target's Body path (with an Undo button on the card)." },
  { key: "damageThroughSystem", scope: "world", config: true, type: "boolean", default: true,
    name: "Damage through the game system",
    hint: "In a dnd5e or pf2e world, apply damage through the system's own damage method (temporary HP first, the system's rules); in any other system, or with this off, the Body data path is written." },
  { key: "applyConditions", scope: "world", config: true, type: "boolean", default: true,
    name: "Conditions from saves", hint: "Give a creature that fails a save the conditions the save names (sleep smoke: asleep) as status effects (Undo takes them off)." },
  { key: "markDefeated", scope: "world", config: true, type: "boolean", default: true,
    name: "Mark the defeated", hint: "Give a target brought to 0 Body the defeated status (Undo takes it away again)." },
  { key: "floorBodyAtZero", scope: "world", config: true, type: "boolean", default: true,
    name: "Body never below 0", hint: "Stop applied damage at 0 instead of going negative." },
  { key: "defenseRolls", scope: "world", config: true, type: "boolean", default: false,
    name: "Defense rolls (ER-22)",
    hint: "When a creature no player owns attacks only player characters, the players roll d20 + AC against DC 21 + the monster's to-hit instead." },
  // Players' attacks: by default a player picks one of the attacker's own attacks and the
  // GM's data decides every number; the GM may allow players to describe strikes instead.
  { key: "playerFreeForm", scope: "world", config: true, type: "boolean", default: false,
    name: "Free-form player attacks",
    hint: "Let players describe their own strikes (dice, bonus, weight, ruleset, advantage). Off: a player only picks one of the attacker's own attacks and the GM's data decides every number." },
  // Players' mobs (Mob Attack Tool's world setting `playerAccess`, default off): a player may
  // run a mob of tokens it owns; the GM's client checks every token and reads every number.
  { key: "playerMobs", scope: "world", config: true, type: "boolean", default: false,
    name: "Players' mobs",
    hint: "Let players run a mob attack with tokens they own (summons, familiars, hirelings). The strikes and numbers come from each actor's data; the GM's client checks every token." },
  { key: "ruleset", scope: "world", config: true, type: "string", default: DEFAULT_RULESET,
    choices: Object.fromEntries(OFFERED.map((r) => [r.name, r.title])),
    choiceKeys: Object.fromEntries(OFFERED.map((r) => [r.name, r.titleKey])),
    name: "Ruleset of players' attacks",
    hint: "The ruleset a player's attack is resolved with; the numbers come from the actors." },
  // ER-17: a ranged attack's strays may hit the creatures around its target; the holding
  // GM client finds them on the scene (bystanders.js), for players' attacks and the GM's own.
  { key: "bystandersFromScene", scope: "world", config: true, type: "boolean", default: true,
    name: "Bystanders from the scene (ER-17)",
    hint: "A ranged attack that misses under the friendly-fire rule may stray into the creatures next to its target and 10 ft in front and behind it, found from the tokens on the scene (hidden ones too, never named to players). Off: only creatures an attack names itself." },
  // Forecasts (forecast.js): which tokens fight, where neutral ones go, how many fights.
  { key: "forecastTokens", scope: "world", config: true, type: "string", default: "auto",
    choices: { auto: "The combat's combatants when there is a combat, else the scene's tokens", combat: "The combat's combatants", scene: "Every token of the scene" },
    name: "Forecast: who fights",
    hint: "The tokens a forecast plays: sides by token disposition (friendly against hostile; secret counts as hostile)." },
  { key: "forecastNeutral", scope: "world", config: true, type: "string", default: "leave",
    choices: { leave: "Left out", friendly: "With the friendly", hostile: "With the hostile", side: "A side of their own" },
    name: "Forecast: neutral tokens", hint: "Where tokens of neutral disposition fight in a forecast." },
  { key: "forecastRuns", scope: "world", config: true, type: "number", default: 1000,
    name: "Forecast: fights", hint: "How many fights a forecast plays (the bridge's work budget caps it)." },
  { key: "conditionsFromStatuses", scope: "world", config: true, type: "boolean", default: true,
    name: "Conditions from status effects", hint: "Send tokens' status effects (prone, blind, restrained …) as ER conditions." },
  { key: "requestTimeoutSeconds", scope: "world", config: true, type: "number", default: 10,
    name: "Request timeout (seconds)", hint: "How long to wait for the bridge before giving up (nothing is applied)." },
  { key: "heartbeatSeconds", scope: "world", config: true, type: "number", default: 15,
    name: "Heartbeat (seconds)", hint: "How often the connection is checked; a missed answer reconnects." },
  ...DATA_PATHS.map((p) => /** @type {SettingSpec} */ ({
    key: pathSettingKey(p.key), scope: "world", config: true, type: "string", default: p.default,
    name: `Data path: ${p.label}`, hint: `${p.hint} Leave empty when the system has none.`,
  })),
  { key: "lastStrike", scope: "client", config: false, type: "object", default: null,
    name: "Last attack dialog values", hint: "" },
  { key: "lastBridged", scope: "client", config: false, type: "object", default: null,
    name: "Last save, touch, drop, lock and throw dialog values", hint: "" },
  { key: "macrosInstalled", scope: "world", config: false, type: "boolean", default: false,
    name: "Macros installed", hint: "" },
];

/**
 * The menu (game.settings.registerMenu) through which a GM sets the bridge token: `restricted`,
 * so SettingsConfig shows it only to users who may configure settings (v13
 * client/applications/settings/config.mjs, _prepareCategoryData: `if ( menu.restricted &&
 * !canConfigure ) continue;`). Its translation keys: FRACAS.Settings.bridgeTokenMenu.*.
 */
export const TOKEN_MENU = Object.freeze({ key: "bridgeTokenMenu", setting: "bridgeToken", restricted: true, icon: "fa-solid fa-key" });

/**
 * The translation key of a setting's name or hint ("Name" | "Hint"), e.g. FRACAS.Settings.bridgeUrl.Name.
 * @param {string} key
 * @param {"Name"|"Hint"} part
 */
export function settingLabelKey(key, part) {
  return `FRACAS.Settings.${key}.${part}`;
}

/**
 * The translation key of one of a setting's choices, e.g. FRACAS.Settings.chatVisibility.GM;
 * a ruleset's is its title's (FRACAS.Ruleset.Title.<name>, generated from its manifest).
 * @param {string} key
 * @param {string} value
 */
export function settingChoiceKey(key, value) {
  const own = SETTINGS.find((s) => s.key === key)?.choiceKeys?.[value];
  if (own) return own;
  return `FRACAS.Settings.${key}.${value === "gm" ? "GM" : value[0].toUpperCase() + value.slice(1)}`;
}

/**
 * The setting key of a data path: "ac" → "pathAc" (Foundry keys stay dot-free).
 * @param {string} key
 */
export function pathSettingKey(key) {
  return `path${key[0].toUpperCase()}${key.slice(1)}`;
}

/**
 * The data-path mapping, read through `get(key)`.
 * @param {(key: string) => unknown} get
 * @returns {Record<string, string>}
 */
export function readMapping(get) {
  /** @type {Record<string, string>} */
  const mapping = {};
  for (const p of DATA_PATHS) {
    const value = get(pathSettingKey(p.key));
    mapping[p.key] = typeof value === "string" ? value.trim() : "";
  }
  return mapping;
}
