// A chat card drawn from a result's layout (contract.js RESULTS, generated from the engine's
// result types): for the kinds the bridge rolls and this module has no card of its own for
// (Enchanted Realms' save, touch, drop, lock and throw: kinds.js). Every key of the result is shown
// in the order the layout gives, nested shapes inside, so a field the engine adds to a result
// appears on the card without a change here. An exact chance (`p_x` with its `p_x_exact`
// fraction) is written as the fraction and its percentage; token ids as the tokens' names;
// the engine's words (conditions, damage types, attributes, outcomes …) through words.js.

import { esc } from "./chat.js";
import { RESULTS } from "./contract.js";
import { t } from "./i18n.js";
import { word } from "./words.js";

/** Keys a card never shows: the record's own (seed is in the footer) and English sentences the card says itself. */
const HIDDEN = new Set(["ruleset", "seed", "injected", "text", "rebuff", "why"]);

/** How deep a card goes into nested shapes (a drop's attack result: its strikes, their dice). */
const MAX_DEPTH = 5;

/** The words.js kind of a key's values (values of other keys are numbers, booleans or names). */
const WORD_OF = Object.freeze({
  conditions: "Condition", conditions_after: "Condition", on_fail: "Condition", advantage_from: "Condition",
  disadvantage_from: "Condition", automatic_failure: "Condition", condition: "Condition",
  damage_type: "DamageType", resistance: "Resistance", attribute: "Attribute", save: "Attribute",
  source: "Source", method: "Method", style: "Style", mode: "Mode", touch: "Mode", outcome: "Outcome",
  phase: "Phase", weapon: "Weapon", cover: "Cover",
});

/** Keys whose values are token ids (shown as the tokens' names). */
const ID_KEYS = new Set(["id", "target", "victim", "attacker", "saved", "failed", "creature"]);

/**
 * A key's label in the user's language (lang/*.json FRACAS.Result.<key>), else the key in words.
 * @param {string} key
 */
export function fieldLabel(key) {
  const k = `FRACAS.Result.${key}`;
  const out = t(k);
  return out === k ? key.replace(/_/g, " ") : out;
}

/**
 * A percentage with one decimal ("55.0%"), or "<0.1%" / ">99.9%" near the ends but not at them.
 * @param {number} p
 */
export function percent(p) {
  if (!Number.isFinite(p)) return String(p);
  if (p > 0 && p < 0.0005) return "<0.1%";
  if (p < 1 && p > 0.9995) return ">99.9%";
  return `${(p * 100).toFixed(1)}%`;
}

/**
 * An exact chance as the card writes it: "11/20 (55.0%)".
 * @param {unknown} exact  the `_exact` fraction ("11/20")
 * @param {unknown} p  its float
 */
export function chance(exact, p) {
  return `${esc(exact)} (${percent(Number(p))})`;
}

/** @typedef {{names: Record<string, string>}} Ctx  token ids → names on this card */

/**
 * One scalar (or a list of scalars) under `key`, as text.
 * @param {string} key
 * @param {unknown} value
 * @param {Ctx} ctx
 * @returns {string}
 */
function scalar(key, value, ctx) {
  if (Array.isArray(value)) return value.map((v) => scalar(key, v, ctx)).join(", ");
  if (typeof value === "boolean") return esc(t(value ? "FRACAS.Word.Yes" : "FRACAS.Word.No"));
  if (value === null || value === undefined) return "—";
  if (typeof value === "string" && ID_KEYS.has(key) && Object.prototype.hasOwnProperty.call(ctx.names, value)) return esc(ctx.names[value]);
  const kind = /** @type {Record<string, string>} */ (WORD_OF)[key];
  if (kind && typeof value === "string") return esc(word(/** @type {any} a words.js kind (WORD_OF's values) */ (kind), value));
  if (typeof value === "number" && !Number.isInteger(value)) return esc(Math.round(value * 1000) / 1000);
  return esc(value);
}

/**
 * A value laid out by `nest` (null: a plain value; a shape's name; {list|dict|nullable|or_scalar: nest}).
 * @param {string} key
 * @param {unknown} value
 * @param {unknown} nest
 * @param {Record<string, readonly unknown[]>} shapes
 * @param {Ctx} ctx
 * @param {number} depth
 * @returns {string|null}  null: nothing to show
 */
function render(key, value, nest, shapes, ctx, depth) {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value) && !value.length) return null;
  if (nest === null || nest === undefined) return scalar(key, value, ctx);
  if (depth > MAX_DEPTH) return "…";
  if (typeof nest === "string") {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return scalar(key, value, ctx);
    return shape(/** @type {Record<string, unknown>} */ (value), shapes[nest] ?? [], shapes, ctx, depth + 1);
  }
  const n = /** @type {Record<string, unknown>} */ (nest);
  if ("nullable" in n) return render(key, value, n.nullable, shapes, ctx, depth);
  if ("or_scalar" in n) return value !== null && typeof value === "object" ? render(key, value, n.or_scalar, shapes, ctx, depth) : scalar(key, value, ctx);
  if ("list" in n && Array.isArray(value)) {
    const items = value.map((v) => render(key, v, n.list, shapes, ctx, depth)).filter((x) => x !== null);
    if (n.list === null || n.list === undefined) return items.join(", ");
    return `<ol class="fracas-layout-list">${items.map((x) => `<li>${x}</li>`).join("")}</ol>`;
  }
  if ("dict" in n && value !== null && typeof value === "object") {
    const rows = Object.entries(/** @type {Record<string, unknown>} */ (value)).map(([k, v]) => {
      const inner = render(k, v, n.dict, shapes, ctx, depth);
      return inner === null ? "" : `<dt>${esc(ctx.names[k] ?? k)}</dt><dd>${inner}</dd>`;
    });
    return `<dl class="fracas-layout">${rows.join("")}</dl>`;
  }
  return scalar(key, value, ctx);
}

/**
 * One shape's keys in the layout's order; a `p_x` beside its `p_x_exact` (and a mean beside its
 * `mean_exact`) as one entry.
 * @param {Record<string, unknown>} value
 * @param {readonly unknown[]} keys
 * @param {Record<string, readonly unknown[]>} shapes
 * @param {Ctx} ctx
 * @param {number} depth
 */
function shape(value, keys, shapes, ctx, depth) {
  const names = keys.map((k) => (Array.isArray(k) ? String(k[0]) : String(k)));
  const rows = [];
  for (const k of keys) {
    const key = Array.isArray(k) ? String(k[0]) : String(k);
    const nest = Array.isArray(k) ? k[1] : null;
    if (HIDDEN.has(key) || !Object.prototype.hasOwnProperty.call(value, key)) continue;
    if (key.endsWith("_exact") && names.includes(key.slice(0, -6))) continue;
    let text;
    if (names.includes(`${key}_exact`) && value[`${key}_exact`] !== null && value[`${key}_exact`] !== undefined) {
      text = key === "p" || key.startsWith("p_") || key === "win_chance" ? chance(value[`${key}_exact`], value[key]) : `${esc(value[`${key}_exact`])} (${scalar(key, value[key], ctx)})`;
    } else {
      text = render(key, value[key], nest, shapes, ctx, depth);
    }
    if (text === null) continue;
    rows.push(`<dt>${esc(fieldLabel(key))}</dt><dd>${text}</dd>`);
  }
  return `<dl class="fracas-layout">${rows.join("")}</dl>`;
}

/**
 * A result of `kind` laid out as its ruleset's layout says, as card HTML (a <dl>).
 * @param {string} ruleset
 * @param {string} kind
 * @param {Record<string, unknown>} result
 * @param {Record<string, string>} names  token ids → the names this card may show
 * @returns {string}
 */
export function renderLayout(ruleset, kind, result, names) {
  const layout = /** @type {Record<string, {kinds: Record<string, string>, shapes: Record<string, readonly unknown[]>}>} */ (RESULTS)[ruleset];
  const top = layout?.kinds?.[kind];
  if (!layout || !top) throw new Error(t("FRACAS.Bridged.NoLayout", { ruleset, kind }));
  return shape(result, layout.shapes[top], layout.shapes, { names }, 0);
}

/**
 * Every key the layout of `kind` can show (its shapes', nested ones included): lang/*.json labels them.
 * @param {string} ruleset
 * @param {string} kind
 * @returns {string[]}
 */
export function layoutKeys(ruleset, kind) {
  const layout = /** @type {Record<string, {kinds: Record<string, string>, shapes: Record<string, readonly unknown[]>}>} */ (RESULTS)[ruleset];
  /** @type {Set<string>} */
  const seen = new Set();
  /** @type {Set<string>} */
  const keys = new Set();
  const nestShapes = (/** @type {unknown} */ nest) => {
    if (typeof nest === "string") walk(nest);
    else if (nest && typeof nest === "object") for (const v of Object.values(nest)) nestShapes(v);
  };
  const walk = (/** @type {string} */ name) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const k of layout.shapes[name] ?? []) {
      const key = Array.isArray(k) ? String(k[0]) : String(k);
      if (!HIDDEN.has(key) && !key.endsWith("_exact")) keys.add(key);
      if (Array.isArray(k)) nestShapes(k[1]);
    }
  };
  walk(layout.kinds[kind]);
  return [...keys];
}
