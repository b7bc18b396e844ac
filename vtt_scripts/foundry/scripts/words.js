// The engine's own words in the user's language: names (methods, styles, damage types,
// conditions, sizes, sides …), the texts of a fight's round log (why a combatant fled,
// why the fight ended, what called for a morale check) and the bridge's error codes.
//
// The engine and the bridge answer in English, and they stay the authority: a word or a
// text this file does not know is shown as the engine wrote it, and a bridge error's
// English detail (its path and reason) is kept for the GM only, after the localized
// summary of its code.

import { CONDITIONS, COVERS, CT_PARRY, DAMAGE_TYPES, ER_CONTESTS, ERROR_CODES, METHODS, RESISTANCES, SIZES, STYLES, WW_REACTIONS } from "./facts.js";
import { t } from "./i18n.js";

/**
 * The kinds of engine words with a translation each (lang/*.json: FRACAS.Engine.<Kind>.<word>).
 * The lists are the engine's (facts.js, generated from the shared spec) plus what results add.
 */
export const WORD_KINDS = Object.freeze({
  Method: [...METHODS, "ranged"],
  Style: [...STYLES],
  DamageType: [...DAMAGE_TYPES],
  Condition: [...CONDITIONS],
  Size: [...SIZES],
  Resistance: [...RESISTANCES, "half", "double"],
  Source: ["skill", "advantage", "disadvantage", "sneak"],
  Contest: [...ER_CONTESTS],
  Side: ["party", "foes", "opponents"],
  Attribute: ["strength", "agility", "resilience"],
  Trigger: ["first death", "half the side defeated", "lone creature harmed", "lone creature at 1/4 hp"],
  Parry: [...CT_PARRY],
  Reaction: [...WW_REACTIONS],
  // The kinds the bridge rolls (kinds.js): a touch's and a lock's mode, a lock's outcome, a drop's phase, sizes of weapons, covers.
  Mode: ["hit", "sleight", "lock", "disarm", "blitz"],
  Outcome: ["locked", "pulled free", "disarmed", "kept", "missed", "blitzed"],
  Phase: ["drop", "inflict"],
  Weapon: ["light", "medium", "heavy"],
  Cover: [...COVERS],
});

/** A translation key's last part: the word with spaces and slashes made key-safe. */
const slug = (/** @type {string} */ value) => value.replace(/[^A-Za-z0-9-]+/g, "_");

/**
 * An engine word in the user's language, or as the engine wrote it when it has none.
 * @param {keyof typeof WORD_KINDS} kind
 * @param {unknown} value
 */
export function word(kind, value) {
  const text = String(value ?? "");
  const key = `FRACAS.Engine.${kind}.${slug(text)}`;
  const out = t(key);
  return out === key ? text : out;
}

/**
 * A list of engine words, translated and joined.
 * @param {keyof typeof WORD_KINDS} kind
 * @param {unknown[]} values
 */
export const words = (kind, values) => values.map((v) => word(kind, v)).join(", ");

/**
 * Texts of a round log (src/fracas/drive/fight.py writes them), as patterns of the
 * English text and the key that says it. A text none of them matches is shown as it is.
 * @type {[RegExp, string, (m: RegExpExecArray) => Record<string, unknown>][]}
 */
const LOG_TEXTS = [
  [/^one side left standing$/, "FRACAS.Round.Reason.OneSide", () => ({})],
  [/^no one left standing$/, "FRACAS.Round.Reason.NoOne", () => ({})],
  [/^max_rounds (\d+) reached: a draw$/, "FRACAS.Round.Reason.MaxRounds", (m) => ({ rounds: m[1] })],
  [/^hp (-?\d+) <= flee_at (-?\d+)$/, "FRACAS.Round.Reason.FleeAt", (m) => ({ hp: m[1], at: m[2] })],
  [/^its morale broke$/, "FRACAS.Round.Reason.MoraleBroke", () => ({})],
  [/^harmed this round before its side acted$/, "FRACAS.Round.Reason.Harmed", () => ({})],
  [/^every weapon it attacks with is broken$/, "FRACAS.Round.Reason.AllBroken", () => ({})],
  [/^flees next round \(declared before initiative\)$/, "FRACAS.Round.Then.Flees", () => ({})],
  [/^surrenders next round$/, "FRACAS.Round.Then.Surrenders", () => ({})],
  [/^fights on \(flee: never\)$/, "FRACAS.Round.Then.FightsOn", () => ({})],
  // ER-19 competition modifiers (src/fracas/rulesets/er/compete.py)
  [/^size: 1 category larger$/, "FRACAS.Compete.SizeLargerOne", () => ({})],
  [/^size: (\d+) categories larger$/, "FRACAS.Compete.SizeLarger", (m) => ({ n: m[1] })],
  [/^faster by (\d+) ft$/, "FRACAS.Compete.Faster", (m) => ({ feet: m[1] })],
  [/^slick ground$/, "FRACAS.Compete.Slick", () => ({})],
  [/^larger$/, "FRACAS.Compete.Larger", () => ({})],
  [/^prone$/, "FRACAS.Compete.Prone", () => ({})],
];

/**
 * A round log's text (an end's reason, a flight's why, a morale check's outcome) in the
 * user's language; "…; leaves as its side moves, as declared" keeps its tail.
 * @param {unknown} text
 * @returns {string}
 */
export function logText(text) {
  const raw = String(text ?? "");
  const declared = /^(.*); leaves as its side moves, as declared$/.exec(raw);
  if (declared) return t("FRACAS.Round.Reason.AsDeclared", { why: logText(declared[1]) });
  for (const [pattern, key, data] of LOG_TEXTS) {
    const m = pattern.exec(raw);
    if (m) return t(key, data(m));
  }
  return raw;
}

/** The error codes the bridge answers with, by number (facts.js). */
const CODE_NAMES = Object.fromEntries(Object.entries(ERROR_CODES).map(([name, code]) => [code, name]));

/**
 * What a bridge error means, in the user's language, from its code, with the rule IDs its
 * English reason cites (e.g. "the rules forbid this (ER-14)"); null for an unknown code.
 * @param {number|null} code
 * @param {string} reason  the bridge's English text
 */
export function bridgeCodeText(code, reason) {
  const name = code === null ? undefined : CODE_NAMES[code];
  if (!name) return null;
  const rules = [...new Set([...String(reason).matchAll(/\b(?:ER|WW|CT|OS)-\d+\b/g)].map((m) => m[0]))];
  const lead = t(`FRACAS.Bridge.Code.${name}`);
  return rules.length ? `${lead} (${rules.join(", ")})` : lead;
}
