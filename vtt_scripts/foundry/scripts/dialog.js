// The attack dialog of the ready-made macro: its form, and reading the form back
// into a strike and options. The edge shows it with Foundry's DialogV2.

import { InputError } from "./errors.js";
import { t } from "./i18n.js";
import { DAMAGE_TYPES, METHODS, STYLES } from "./request.js";

export const DEFAULT_STRIKE = Object.freeze({
  method: "melee", style: "slashing", dice: 2, weight: 1, damage_type: "edged", bonus: 0,
  crit_range: 20, mode: "normal", sneak: "no",
});

const esc = (/** @type {unknown} */ v) => String(v).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;");

/**
 * @param {string} name
 * @param {string} label
 * @param {[string|number, string][]} options  value and text
 * @param {unknown} value
 */
function select(name, label, options, value) {
  const opts = options.map(([v, text]) => `<option value="${esc(v)}"${String(v) === String(value) ? " selected" : ""}>${esc(text)}</option>`);
  return `<div class="form-group"><label>${esc(label)}</label><select name="${name}">${opts.join("")}</select></div>`;
}

/**
 * @param {string} name
 * @param {string} label
 * @param {unknown} value
 * @param {number} min
 * @param {number} max
 */
function number(name, label, value, min, max) {
  return `<div class="form-group"><label>${esc(label)}</label>`
    + `<input type="number" name="${name}" value="${esc(value)}" min="${min}" max="${max}" step="1"></div>`;
}

/**
 * The form's HTML, filled with `values` (the last used, or the defaults).
 * @param {Record<string, any>|null} values  the last answers (a client setting: any JSON the form once gave)
 * @param {{targets?: string[], attacker?: string, weapons?: {id: string, name: string}[]}} [ctx]  names of the
 *   targeted tokens and the attacker, shown as a reminder; the attacker's weapon items with fracas strikes
 */
export function attackFormHtml(values, { targets = [], attacker = "", weapons = [] } = {}) {
  /** @type {Record<string, any>} */
  const v = { ...DEFAULT_STRIKE, ...(values ?? {}) };
  const pairs = (/** @type {readonly string[]} */ list) => list.map((x) => /** @type {[string, string]} */ ([x, x]));
  // Weapon items that carry fracas strike data (flags.fracas.strikes): choosing one uses its strikes.
  const weapon = weapons.length
    ? select("weapon", t("FRACAS.Dialog.Weapon"), [["", t("FRACAS.Dialog.WeaponNone")], ...weapons.map((w) => /** @type {[string, string]} */ ([w.id, w.name]))], v.weapon ?? "")
    : "";
  return `<div class="fracas-dialog">`
    + `<p>${esc(t("FRACAS.Dialog.Intro", { attacker: attacker || t("FRACAS.Dialog.Attacker"), targets: targets.join(", ") || t("FRACAS.Dialog.NoTargets") }))}</p>`
    + weapon
    + select("method", t("FRACAS.Dialog.Method"), pairs(METHODS), v.method)
    + select("style", t("FRACAS.Dialog.Style"), pairs(STYLES), v.style)
    + number("dice", t("FRACAS.Dialog.Dice"), v.dice, 1, 5)
    + select("weight", t("FRACAS.Dialog.Weight"), [[0, t("FRACAS.Dialog.WeightLight")], [1, t("FRACAS.Dialog.WeightMedium")], [2, t("FRACAS.Dialog.WeightHeavy")]], v.weight)
    + select("damage_type", t("FRACAS.Dialog.DamageType"), pairs(DAMAGE_TYPES), v.damage_type)
    + number("bonus", t("FRACAS.Dialog.Bonus"), v.bonus, -20, 20)
    + number("crit_range", t("FRACAS.Dialog.CritRange"), v.crit_range, 2, 20)
    + select("mode", t("FRACAS.Dialog.Advantage"), [["normal", t("FRACAS.Dialog.Normal")], ["advantage", t("FRACAS.Dialog.AdvantageYes")], ["disadvantage", t("FRACAS.Dialog.Disadvantage")]], v.mode)
    + select("sneak", t("FRACAS.Dialog.Sneak"), [["no", t("FRACAS.Dialog.SneakNo")], ["yes", t("FRACAS.Dialog.SneakYes")], ["advantage-only", t("FRACAS.Dialog.SneakAdvantageOnly")]], v.sneak)
    + select("action", t("FRACAS.Dialog.Then"), [["attack", t("FRACAS.Dialog.ThenAttack")], ["odds", t("FRACAS.Dialog.ThenOdds")]], v.action ?? "attack")
    + `<div class="form-group"><label>${esc(t("FRACAS.Dialog.PhysicalDice"))}</label>`
    + `<input type="text" name="rolls" value="" placeholder="${esc(t("FRACAS.Dialog.PhysicalDiceHint"))}"></div>`
    + `</div>`;
}

/**
 * @param {Record<string, unknown>} obj
 * @param {string} key
 * @param {string} label
 */
function integer(obj, key, label) {
  const raw = String(obj[key] ?? "").trim();
  if (!/^-?\d+$/.test(raw)) throw new InputError(t("FRACAS.Error.Dialog01", { label, raw }));
  return Number(raw);
}

/**
 * Read the submitted form (a name → value object) into a strike spec without target,
 * the attack options, and the values to remember for next time.
 * @param {Record<string, unknown>} obj
 */
export function parseAttackForm(obj) {
  const pick = (/** @type {string} */ key, /** @type {readonly string[]} */ list, /** @type {string} */ label) => {
    const value = String(obj[key] ?? "");
    if (!list.includes(value)) throw new InputError(t("FRACAS.Error.Dialog02", { label, value, p2: list.join(", ") }));
    return value;
  };
  /** @type {Record<string, any>} */
  const strike = {
    method: pick("method", METHODS, "method"),
    style: pick("style", STYLES, "style"),
    dice: integer(obj, "dice", "skill dice"),
    damage_type: pick("damage_type", DAMAGE_TYPES, "damage type"),
  };
  const weight = integer(obj, "weight", "weight");
  if (strike.method !== "range") strike.weight = weight;
  const bonus = integer(obj, "bonus", "to-hit bonus");
  if (bonus) strike.bonus = bonus;
  const critRange = integer(obj, "crit_range", "lowest crit face");
  if (critRange !== 20) strike.crit_range = critRange;
  const sneak = pick("sneak", ["no", "yes", "advantage-only"], "sneak attack");
  if (sneak === "yes") strike.sneak = true;
  if (sneak === "advantage-only") strike.sneak = "advantage-only";
  const mode = pick("mode", ["normal", "advantage", "disadvantage"], "advantage");
  /** @type {Record<string, any>} */
  const options = {};
  if (mode === "advantage") options.advantage = true;
  if (mode === "disadvantage") options.disadvantage = true;
  const rollsText = String(obj.rolls ?? "").trim();
  if (rollsText) {
    const faces = rollsText.split(/[\s,]+/);
    if (!faces.every((f) => /^\d+$/.test(f))) {
      throw new InputError(t("FRACAS.Error.Dialog03", { rollsText }));
    }
    options.rolls = faces.map(Number);
  }
  const action = obj.action === undefined ? "attack" : pick("action", ["attack", "odds"], "then");
  const weapon = String(obj.weapon ?? "");
  const remember = {
    method: strike.method, style: strike.style, dice: strike.dice, weight, damage_type: strike.damage_type,
    bonus, crit_range: critRange, mode, sneak,
  };
  return { strike, options, remember, action, weapon };
}
