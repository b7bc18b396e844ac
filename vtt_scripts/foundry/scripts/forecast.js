// "How deadly is this fight?" (issue 43): the fight on the map as a scenario for the
// bridge's `fight.forecast` (bridge/README.md), which plays it many times over as `fracas
// simulate` does, and its answer as chat cards: the GM's (every combatant, hidden ones
// too) and the players' copy the GM may share (no hidden combatant, names as players read
// them). Pure: the edge (main.js) gives the tokens as views, and posts what this makes.
//
// The scenario (docs/ENCOUNTERS.md): one group per token, count 1, named by the token id
// (so the engine's member id is the token's: a group of count 1 is its name) and labelled
// with the token's name (numbered when names repeat); its numbers read from the actor as
// attacks and fights read them (request.js scenarioEntry); its health the token's current
// Body (the fight as it stands now); its position the token's centre in feet (scenario
// `position`, for the `nearest` tactic). Sides by token disposition.

import { displayNames } from "./actions/context.js";
import { attr, esc, pct } from "./chat.js";
import { FracasError, InputError } from "./errors.js";
import { t } from "./i18n.js";
import { scenarioEntry } from "./request.js";
import { DEFAULT_RULESET, rulesetClient, rulesetTitle } from "./rulesets.js";

/** @typedef {import("./request.js").TokenView} TokenView */
/** @typedef {import("./request.js").Json} Json */
/** @typedef {import("./request.js").Mapping} Mapping */
/** @typedef {import("./bystanders.js").Grid} Grid */

/**
 * CONST.TOKEN_DISPOSITIONS (foundry-vtt-types 13.x src/foundry/common/constants.d.mts l. 1040-1060:
 * SECRET -2 "purple borders for owners", HOSTILE -1 "an enemy with a red border", NEUTRAL 0, FRIENDLY 1
 * "an ally"); TokenDocument#disposition holds one, HOSTILE when not set (client/data/documents/token.d.mts
 * l. 330-345, `initial: CONST.TOKEN_DISPOSITIONS.HOSTILE`).
 */
export const TOKEN_DISPOSITIONS = Object.freeze({ SECRET: -2, HOSTILE: -1, NEUTRAL: 0, FRIENDLY: 1 });

/** Where neutral tokens go (the setting forecastNeutral): left out, with the friendly or the hostile, or a side of their own. */
export const NEUTRAL_CHOICES = Object.freeze(["leave", "friendly", "hostile", "side"]);

/** Which tokens fight (the setting forecastTokens): the combat's when there is one, the combat's, or the scene's. */
export const TOKEN_CHOICES = Object.freeze(["auto", "combat", "scene"]);

/** The sides of a forecast, in the scenario's order (the first is the one a sweep follows by default). */
export const SIDES = Object.freeze(["friendly", "hostile", "neutral"]);

/** The fields a "vary" sweeps: the count of one token's group (copies of it), or its health. */
export const VARY_FIELDS = Object.freeze(["count", "hp"]);

/** How many combatants the cards list as likely to fall. */
export const TOP_FALLEN = 5;

/** Side colours of the bars (the tokens' border colours: friendly cyan-green, hostile red, neutral amber). */
const COLOURS = /** @type {Record<string, string>} */ ({ friendly: "#2e7d32", hostile: "#b71c1c", neutral: "#b26a00", draws: "#6d6d6d" });

/**
 * The side of a token's disposition: friendly, hostile (SECRET counts as hostile: Foundry hides
 * such a token's allegiance from players, as GMs do an ambusher's), or for a neutral one what
 * `neutral` says (null: left out). Anything else is left out.
 * @param {unknown} disposition
 * @param {string} [neutral]
 * @returns {string|null}
 */
export function sideOf(disposition, neutral = "leave") {
  if (disposition === TOKEN_DISPOSITIONS.FRIENDLY) return "friendly";
  if (disposition === TOKEN_DISPOSITIONS.HOSTILE || disposition === TOKEN_DISPOSITIONS.SECRET) return "hostile";
  if (disposition !== TOKEN_DISPOSITIONS.NEUTRAL) return null;
  return neutral === "friendly" ? "friendly" : neutral === "hostile" ? "hostile" : neutral === "side" ? "neutral" : null;
}

/**
 * A token in the fight.
 * @typedef {{id: string, side: string, index: number, name: string, hidden: boolean, unnamed: boolean,
 *   actorId: string|null, hp: number}} Member
 */

/**
 * A token that could take part.
 * @typedef {{view: TokenView, hidden?: boolean, defeated?: boolean}} Candidate
 */

/** Feet per grid space: the grid's distance when it counts in feet, else 5 (as bystanders.js reads a grid). */
const feetPerSpace = (/** @type {Grid|null|undefined} */ grid) => {
  const feet = typeof grid?.units === "string" && /^(ft|feet|foot|')\.?$/i.test(grid.units.trim());
  return feet && Number.isFinite(grid?.distance) && Number(grid?.distance) > 0 ? Number(grid?.distance) : 5;
};

/**
 * A token's centre in feet (scenario `position`), or undefined without a place or a grid.
 * @param {TokenView} view
 * @param {Grid|null|undefined} grid
 * @returns {[number, number]|undefined}
 */
function positionOf(view, grid) {
  const place = view.place;
  const size = Number(grid?.size);
  if (!place || !Number.isFinite(place.x) || !Number.isFinite(place.y) || !(size > 0)) return undefined;
  const w = Number.isFinite(place.width) && place.width > 0 ? place.width : 1;
  const h = Number.isFinite(place.height) && place.height > 0 ? place.height : 1;
  const feet = feetPerSpace(grid);
  const round = (/** @type {number} */ n) => Math.round(n * 10) / 10;
  return [round((place.x / size + w / 2) * feet), round((place.y / size + h / 2) * feet)];
}

/**
 * The scenario of a forecast from the tokens that may fight: every standing token with an
 * actor whose disposition gives it a side, read from its actor (request.js scenarioEntry), in
 * token id order (the same scene gives the same scenario whatever the selection). A token
 * already down (the defeated mark, or no Body left) is not in it; one whose sheet cannot be
 * read is left out and said so (`left`), as the GM's card lists. Hidden tokens are in it: the
 * fight is the GM's; only the players' card leaves them out.
 * @param {{ruleset?: string, candidates: Candidate[], neutral?: string, mapping: Mapping, grid?: Grid|null,
 *   defeatedStatus?: string, name?: string}} args
 * @returns {{scenario: Json, members: Member[], left: {id: string, name: string, why: string, hidden: boolean}[]}}
 */
export function buildForecastScenario({ ruleset = DEFAULT_RULESET, candidates, neutral = "leave", mapping, grid = null,
  defeatedStatus = "dead", name = "Foundry forecast" }) {
  if (!NEUTRAL_CHOICES.includes(neutral)) throw new InputError(t("FRACAS.Forecast.Error.Neutral", { value: JSON.stringify(neutral), choices: NEUTRAL_CHOICES.join(", ") }));
  /** @type {Map<string, Candidate>} */
  const byId = new Map();
  for (const c of candidates ?? []) if (c?.view?.id && !byId.has(c.view.id)) byId.set(c.view.id, c);
  const ordered = [...byId.values()].sort((a, b) => (a.view.id < b.view.id ? -1 : a.view.id > b.view.id ? 1 : 0));
  /** @type {{c: Candidate, side: string, entry: Json, hp: number}[]} */
  const fighting = [];
  /** @type {{id: string, name: string, why: string, hidden: boolean}[]} */
  const left = [];
  for (const c of ordered) {
    const view = c.view;
    if (!view.actor) continue; // a token without an actor is no creature (a marker, a tile-like token)
    const side = sideOf(view.disposition, neutral);
    if (side === null) continue;
    if (c.defeated || (view.statuses ?? []).includes(defeatedStatus)) continue;
    let read;
    try {
      read = scenarioEntry(view, { ruleset, mapping });
    } catch (error) {
      if (!(error instanceof FracasError)) throw error;
      left.push({ id: view.id, name: String(view.name ?? view.id), why: error.message, hidden: !!(c.hidden || view.hidden) });
      continue;
    }
    if (read.body <= 0) continue; // down already
    fighting.push({ c, side, entry: read.entry, hp: read.body });
  }
  const labels = displayNames(fighting.map((f) => ({ id: f.c.view.id, name: f.c.view.name ?? f.c.view.id })));
  /** @type {Record<string, Json[]>} */
  const bySide = {};
  /** @type {Member[]} */
  const members = [];
  for (const f of fighting) {
    const list = (bySide[f.side] ??= []);
    const label = String(labels[f.c.view.id]).slice(0, 200);
    /** @type {Json} */
    const entry = { ...f.entry, label, hp: f.hp };
    const position = positionOf(f.c.view, grid);
    if (position) entry.position = position;
    members.push({ id: f.c.view.id, side: f.side, index: list.length, name: label, hidden: !!(f.c.hidden || f.c.view.hidden),
      unnamed: !!f.c.view.unnamed, actorId: f.c.view.actorId ?? null, hp: f.hp });
    list.push(entry);
  }
  // The members in the scenario's order: side by side (SIDES), each side's in token id order.
  members.sort((a, b) => SIDES.indexOf(a.side) - SIDES.indexOf(b.side) || a.index - b.index);
  const sides = SIDES.filter((s) => bySide[s]?.length);
  if (sides.length < 2) {
    throw new InputError(t("FRACAS.Forecast.Error.TwoSides", {
      friendly: bySide.friendly?.length ?? 0, hostile: bySide.hostile?.length ?? 0, left: left.length,
    }));
  }
  /** @type {Json} */
  const scenario = { ruleset, name, sides: Object.fromEntries(sides.map((s) => [s, bySide[s]])) };
  // A ruleset whose fights name the party side (contract.js fight_party: CT-1): the first side.
  const party = rulesetClient(ruleset).fight_party;
  if (party) scenario.initiative = { [party]: sides[0] };
  return { scenario, members, left };
}

/**
 * The parameters of a sweep of one token's `field` (VARY_FIELDS): the path the bridge varies
 * ($.sides.<side>[<index>].<field>), the values (the `fracas sweep --vary` forms a..b, a..b:step,
 * a,b,c), the side the crossing follows (default the token's opponents' first side, else the
 * first) and the win rate to cross (default 0.5).
 * @param {Member[]} members
 * @param {{token?: unknown, field?: unknown, values?: unknown, side?: unknown, target?: unknown}} choice
 * @returns {{path: string, values: string, side?: string, target: number}}
 */
export function varyParams(members, choice) {
  const ref = String(choice.token ?? "");
  const member = members.find((m) => m.id === ref) ?? (members.filter((m) => m.name === ref).length === 1 ? members.find((m) => m.name === ref) : undefined);
  if (!member) throw new InputError(t("FRACAS.Forecast.Error.VaryToken", { token: JSON.stringify(ref), names: members.map((m) => m.name).join(", ") }));
  const field = choice.field ?? "count";
  if (typeof field !== "string" || !VARY_FIELDS.includes(field)) throw new InputError(t("FRACAS.Forecast.Error.VaryField", { field: JSON.stringify(field), fields: VARY_FIELDS.join(", ") }));
  const values = typeof choice.values === "string" ? choice.values.trim() : Array.isArray(choice.values) ? choice.values.join(",") : "";
  if (!values || values.length > 200) throw new InputError(t("FRACAS.Forecast.Error.VaryValues", { values: JSON.stringify(choice.values ?? "") }));
  const target = choice.target === undefined || choice.target === "" ? 0.5 : Number(choice.target);
  if (!(Number.isFinite(target) && target >= 0 && target <= 1)) throw new InputError(t("FRACAS.Forecast.Error.VaryTarget", { target: JSON.stringify(choice.target) }));
  /** @type {{path: string, values: string, side?: string, target: number}} */
  const out = { path: `$.sides.${member.side}[${member.index}].${field}`, values, target };
  const sides = [...new Set(members.map((m) => m.side))];
  if (choice.side !== undefined && choice.side !== "") {
    if (typeof choice.side !== "string" || !sides.includes(choice.side)) throw new InputError(t("FRACAS.Forecast.Error.VarySide", { side: JSON.stringify(choice.side), sides: sides.join(", ") }));
    out.side = choice.side;
  }
  return out;
}

/**
 * What a vary sweeps by default for a token: its copies from 1 to twice the tokens of its actor on
 * its side (at least 4, at most 20), or its health from a quarter of it to twice it.
 * @param {Member[]} members
 * @param {Member} member
 * @param {string} field
 */
export function defaultVaryValues(members, member, field) {
  if (field === "hp") {
    const step = Math.max(1, Math.round(member.hp / 4));
    return `${step}..${step * 8}:${step}`;
  }
  const kin = members.filter((m) => m.side === member.side && member.actorId !== null && m.actorId === member.actorId).length || 1;
  return `1..${Math.min(20, Math.max(4, 2 * kin))}`;
}

/**
 * The token a vary sweeps when the GM does not choose: the most numerous kind of creature
 * (tokens of one actor) on the first side's opponents, its first token ("how many of the
 * largest enemy group make it 50/50?").
 * @param {Member[]} members
 * @returns {Member|undefined}
 */
export function defaultVaryMember(members) {
  const first = members[0]?.side;
  const foes = members.filter((m) => m.side !== first);
  const pool = foes.length ? foes : members;
  /** @type {Map<string, Member[]>} */
  const kinds = new Map();
  for (const m of pool) {
    const key = m.actorId ?? m.id;
    kinds.set(key, [...(kinds.get(key) ?? []), m]);
  }
  let best;
  for (const list of kinds.values()) if (!best || list.length > best.length) best = list;
  return best?.[0];
}

/** A side's name on a card: "friendly", "hostile", "neutral" in the user's language. */
export const sideName = (/** @type {string} */ side) => (SIDES.includes(side) ? t(`FRACAS.Forecast.Side.${side}`) : side);

/**
 * The card model of a forecast: each side's chance to win with its 95 % interval, draws, the
 * rounds, and who is likely to fall (down or fled), the top few. `forPlayers`: the players' copy,
 * without hidden combatants (no row, no name) and with the names players cannot read masked.
 * @param {Record<string, any>} result  the bridge's fight.forecast answer (simulate's result)
 * @param {{members: Member[], forPlayers?: boolean, top?: number}} ctx
 */
export function forecastCardModel(result, { members, forPlayers = false, top = TOP_FALLEN }) {
  /** @type {Map<string, Member>} */
  const byId = new Map(members.map((m) => [m.id, m]));
  const unnamed = members.filter((m) => !m.hidden && m.unnamed);
  /** @type {Record<string, string>} */
  const shown = {};
  let n = 0;
  for (const m of members) {
    shown[m.id] = forPlayers && m.unnamed && !m.hidden
      ? (unnamed.length > 1 ? t("FRACAS.Card.UnnamedN", { n: ++n }) : t("FRACAS.Card.Unnamed")) : m.name;
  }
  const sides = Object.entries(result.sides ?? {}).map(([side, s]) => ({
    side, name: sideName(side), winRate: Number(s.win_rate), ci: [Number(s.win_rate_ci95?.[0]), Number(s.win_rate_ci95?.[1])],
    combatants: Number(s.combatants), survivors: Number(s.survivors_mean),
  }));
  const fall = Object.entries(result.combatants ?? {})
    .filter(([id]) => byId.has(id) && !(forPlayers && byId.get(id)?.hidden))
    .map(([id, c]) => ({ id, name: shown[id] ?? id, side: String(c.side), hidden: !!byId.get(id)?.hidden,
      down: Number(c.down_rate), fled: Number(c.fled_rate), taken: Number(c.taken_mean) }))
    .filter((c) => c.down + c.fled > 0)
    .sort((a, b) => (b.down + b.fled) - (a.down + a.fled) || b.taken - a.taken || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .slice(0, top);
  const rounds = result.rounds ?? {};
  return {
    kind: forPlayers ? "forecast-public" : "forecast",
    forPlayers,
    ruleset: String(result.ruleset ?? DEFAULT_RULESET),
    runs: Number(result.runs), completed: Number(result.completed), interrupted: !!result.interrupted,
    seed: String(result.seed),
    sides,
    draws: { rate: Number(result.draws?.rate ?? 0), ci: [Number(result.draws?.rate_ci95?.[0] ?? 0), Number(result.draws?.rate_ci95?.[1] ?? 0)] },
    rounds: { mean: Number(rounds.mean), median: Number(rounds.median), min: Number(rounds.min), max: Number(rounds.max),
      histogram: Object.fromEntries(Object.entries(rounds.histogram ?? {}).map(([k, v]) => [Number(k), Number(v)])) },
    fall,
  };
}

/** A number for an SVG attribute (never text from the world). */
const num = (/** @type {number} */ n) => (Number.isFinite(n) ? String(Math.round(n * 10) / 10) : "0");
const clamp01 = (/** @type {number} */ p) => (Number.isFinite(p) ? Math.min(1, Math.max(0, p)) : 0);

/**
 * A horizontal bar of a probability with its 95 % interval as a whisker: inline SVG, numbers only
 * (names stay in the card's HTML, where they are escaped for the enricher).
 * @param {number} p
 * @param {number[]} ci
 * @param {string} colour
 * @param {string} label  its accessible text
 */
function barSvg(p, ci, colour, label) {
  const w = 100 * clamp01(p);
  const lo = 100 * clamp01(ci[0]);
  const hi = 100 * clamp01(ci[1]);
  return `<svg class="fracas-bar" viewBox="0 0 100 12" width="100" height="12" preserveAspectRatio="none" role="img" aria-label="${attr(label)}">`
    + `<rect x="0" y="2" width="100" height="8" fill="#000000" fill-opacity="0.12"></rect>`
    + `<rect class="fracas-bar-value" x="0" y="2" width="${num(w)}" height="8" fill="${colour}"></rect>`
    + `<line x1="${num(lo)}" x2="${num(hi)}" y1="6" y2="6" stroke="#000000" stroke-width="1"></line>`
    + `<line x1="${num(lo)}" x2="${num(lo)}" y1="3" y2="9" stroke="#000000" stroke-width="1"></line>`
    + `<line x1="${num(hi)}" x2="${num(hi)}" y1="3" y2="9" stroke="#000000" stroke-width="1"></line></svg>`;
}

/**
 * The rounds a fight lasted, as a small column chart (inline SVG): one column per round count.
 * @param {Record<number, number>} histogram
 * @param {string} label
 */
function roundsSvg(histogram, label) {
  const keys = Object.keys(histogram).map(Number).filter(Number.isFinite).sort((a, b) => a - b);
  if (!keys.length) return "";
  const first = keys[0];
  const span = Math.min(60, keys[keys.length - 1] - first + 1);
  const most = Math.max(...keys.map((k) => histogram[k]));
  const width = 3 * span;
  const cols = [];
  for (const k of keys) {
    const x = Math.min(span - 1, k - first);
    const h = most > 0 ? (22 * histogram[k]) / most : 0;
    cols.push(`<rect x="${num(3 * x)}" y="${num(24 - h)}" width="2.4" height="${num(h)}" fill="#555555"></rect>`);
  }
  return `<svg class="fracas-rounds-chart" viewBox="0 0 ${width} 24" width="${Math.min(200, Math.max(40, width * 2))}" height="24" `
    + `preserveAspectRatio="none" role="img" aria-label="${attr(label)}">${cols.join("")}</svg>`;
}

/** "62% (59–65%)" */
const withInterval = (/** @type {number} */ p, /** @type {number[]} */ ci) => t("FRACAS.Forecast.Chance", { p: pct(p), lo: pct(ci[0]), hi: pct(ci[1]) });

/**
 * The chat card of a forecast. The GM's (model.forPlayers false) also lists the tokens it
 * could not count and carries the Vary and Share buttons (card.js wires them); hidden
 * combatants are marked on it. The players' copy has neither.
 * @param {ReturnType<typeof forecastCardModel>} model
 * @param {{left?: {name: string, why: string}[], requestId?: string}} [extra]
 */
export function renderForecastCard(model, { left = [], requestId = "" } = {}) {
  const rows = model.sides.map((s) => {
    const text = withInterval(s.winRate, s.ci);
    return `<tr class="fracas-forecast-side" data-side="${attr(s.side)}"><th>${esc(s.name)}</th>`
      + `<td>${barSvg(s.winRate, s.ci, COLOURS[s.side] ?? COLOURS.draws, t("FRACAS.Forecast.WinsLabel", { side: s.name, chance: text }))}</td>`
      + `<td class="fracas-forecast-chance">${esc(text)}</td></tr>`;
  });
  const drawText = withInterval(model.draws.rate, model.draws.ci);
  rows.push(`<tr class="fracas-forecast-side" data-side="draws"><th>${esc(t("FRACAS.Forecast.Draws"))}</th>`
    + `<td>${barSvg(model.draws.rate, model.draws.ci, COLOURS.draws, t("FRACAS.Forecast.DrawsLabel", { chance: drawText }))}</td>`
    + `<td class="fracas-forecast-chance">${esc(drawText)}</td></tr>`);
  const r = model.rounds;
  const roundsText = t("FRACAS.Forecast.Rounds", { mean: r.mean.toFixed(1), median: r.median, min: r.min, max: r.max });
  const fall = model.fall.length
    ? `<ol class="fracas-forecast-fall">${model.fall.map((c) => {
      const facts = [t("FRACAS.Forecast.Down", { p: pct(c.down) })];
      if (c.fled > 0) facts.push(t("FRACAS.Forecast.Fled", { p: pct(c.fled) }));
      facts.push(t("FRACAS.Forecast.Taken", { damage: c.taken.toFixed(1) }));
      const mark = !model.forPlayers && c.hidden ? ` <span class="fracas-hidden-mark">${esc(t("FRACAS.Forecast.HiddenMark"))}</span>` : "";
      // The players' copy names no token id (a token whose nameplate they cannot see is unnamed there).
      const token = model.forPlayers ? "" : ` data-token="${attr(c.id)}"`;
      return `<li class="fracas-forecast-member"${token}><strong>${esc(c.name)}</strong>${mark} `
        + `<span class="fracas-tags">${esc(sideName(c.side))}</span>: ${esc(facts.join(" · "))}</li>`;
    }).join("")}</ol>`
    : `<div class="fracas-forecast-fall">${esc(t("FRACAS.Forecast.NobodyFalls"))}</div>`;
  const notCounted = !model.forPlayers && left.length
    ? `<div class="fracas-forecast-left">${esc(t("FRACAS.Forecast.Left", { list: left.map((x) => `${x.name} (${x.why})`).join("; ") }))}</div>` : "";
  const stopped = model.interrupted ? `<div class="fracas-forecast-note">${esc(t("FRACAS.Forecast.Interrupted", { completed: model.completed, runs: model.runs }))}</div>` : "";
  const footer = model.forPlayers
    ? `<footer class="fracas-footer"><span class="fracas-seed">${esc(t("FRACAS.Forecast.SharedFooter", { runs: model.completed }))}</span></footer>`
    : `<footer class="fracas-footer"><span class="fracas-seed">${esc(t("FRACAS.Forecast.Footer", { runs: model.completed, seed: model.seed }))}</span>`
      + `<button type="button" class="fracas-forecast-action" data-fracas-action="vary">${esc(t("FRACAS.Forecast.VaryButton"))}</button>`
      + `<button type="button" class="fracas-forecast-action" data-fracas-action="share">${esc(t("FRACAS.Forecast.ShareButton"))}</button></footer>`;
  const title = model.forPlayers ? t("FRACAS.Forecast.SharedTitle") : t("FRACAS.Forecast.Title", { ruleset: rulesetTitle(model.ruleset) });
  return `<div class="fracas-card fracas-forecast${model.forPlayers ? " fracas-forecast-public" : ""}"${requestId && !model.forPlayers ? ` data-request-id="${attr(requestId)}"` : ""}>`
    + `<header class="fracas-title">${esc(title)}</header>`
    + `<table class="fracas-forecast-sides"><tbody>${rows.join("")}</tbody></table>`
    + `<div class="fracas-forecast-rounds">${roundsSvg(r.histogram, roundsText)} <span>${esc(roundsText)}</span></div>`
    + `<div class="fracas-label">${esc(t("FRACAS.Forecast.LikelyToFall"))}</div>${fall}`
    + notCounted + stopped + footer + "</div>";
}

/**
 * The card model of a vary sweep (the bridge's `sweep`, as `fracas sweep --json`): per value
 * the followed side's chance to win with its interval, and where it crosses the target.
 * @param {Record<string, any>} sweep  the answer's `sweep`
 * @param {{member: Member, field: string}} ctx
 */
export function sweepCardModel(sweep, { member, field }) {
  const target = sweep.target ?? {};
  const side = String(target.side ?? sweep.sides?.[0] ?? "");
  const path = String(sweep.vary?.[0]?.path ?? target.along ?? "");
  /** @type {{value: number, winRate: number, ci: number[], completed: number}[]} */
  const points = (sweep.points ?? []).map((/** @type {Record<string, any>} */ p) => {
    const s = p.sides?.[side] ?? {};
    return { value: Number(p.values?.[path]), winRate: Number(s.win_rate), ci: [Number(s.win_rate_ci95?.[0]), Number(s.win_rate_ci95?.[1])],
      completed: Number(p.completed) };
  });
  /** @type {{at: number, between: number[]}[]} */
  const crossings = [];
  for (const row of target.rows ?? []) {
    for (const c of row.crossings ?? []) crossings.push({ at: Number(c.at), between: (c.between ?? []).map(Number) });
  }
  return { kind: "forecast-vary", member, field, side, sideName: sideName(side), target: Number(target.win_rate ?? 0.5), runs: Number(sweep.runs),
    seed: String(sweep.seed), points, crossings, interrupted: !!sweep.interrupted };
}

/** A value of the varied field as the card says it: "×3" copies, "12 Body". */
const valueText = (/** @type {string} */ field, /** @type {number} */ v) => t(field === "hp" ? "FRACAS.Forecast.Vary.Hp" : "FRACAS.Forecast.Vary.Count", { n: Number.isInteger(v) ? v : v.toFixed(1) });

/**
 * The chat card of a vary sweep: the followed side's chance per value as columns with their
 * intervals and the target line (inline SVG), a row per value, and where the chance crosses the
 * target. The GM's only (it names the varied token, hidden or not).
 * @param {ReturnType<typeof sweepCardModel>} model
 */
export function renderSweepCard(model) {
  const n = model.points.length;
  const width = Math.max(40, 12 * n);
  const y = (/** @type {number} */ p) => 42 - 40 * clamp01(p);
  const cols = model.points.map((p, i) => {
    const x = 12 * i + 2;
    return `<rect x="${num(x)}" y="${num(y(p.winRate))}" width="8" height="${num(42 - y(p.winRate))}" fill="${COLOURS[model.side] ?? COLOURS.draws}"></rect>`
      + `<line x1="${num(x + 4)}" x2="${num(x + 4)}" y1="${num(y(p.ci[1]))}" y2="${num(y(p.ci[0]))}" stroke="#000000" stroke-width="1"></line>`;
  });
  const targetLine = `<line class="fracas-sweep-target" x1="0" x2="${width}" y1="${num(y(model.target))}" y2="${num(y(model.target))}" stroke="#000000" stroke-width="0.8" stroke-dasharray="3 2"></line>`;
  const what = t(model.field === "hp" ? "FRACAS.Forecast.Vary.WhatHp" : "FRACAS.Forecast.Vary.WhatCount", { name: model.member.name });
  const chart = `<svg class="fracas-sweep-chart" viewBox="0 0 ${width} 44" width="${Math.min(240, width * 2)}" height="60" preserveAspectRatio="none" role="img" `
    + `aria-label="${attr(t("FRACAS.Forecast.Vary.ChartLabel", { side: model.sideName, what }))}">${cols.join("")}${targetLine}</svg>`;
  const rows = model.points.map((p) => `<tr data-value="${attr(p.value)}"><th>${esc(valueText(model.field, p.value))}</th>`
    + `<td>${esc(withInterval(p.winRate, p.ci))}</td></tr>`);
  const goal = pct(model.target);
  let verdict;
  if (model.crossings.length) {
    verdict = model.crossings.map((c) => t("FRACAS.Forecast.Vary.Crosses", { side: model.sideName, goal, at: valueText(model.field, c.at),
      from: valueText(model.field, c.between[0]), to: valueText(model.field, c.between[1]) })).join(" ");
  } else if (model.points.length) {
    const above = model.points.every((p) => p.winRate >= model.target);
    verdict = t(above ? "FRACAS.Forecast.Vary.AlwaysAbove" : "FRACAS.Forecast.Vary.NeverCrosses", { side: model.sideName, goal,
      from: valueText(model.field, model.points[0].value), to: valueText(model.field, model.points[n - 1].value) });
  } else {
    verdict = t("FRACAS.Forecast.Vary.NoPoints");
  }
  return `<div class="fracas-card fracas-forecast fracas-forecast-vary">`
    + `<header class="fracas-title">${esc(t("FRACAS.Forecast.Vary.Title", { what }))}</header>`
    + `<div class="fracas-forecast-rounds">${chart}</div>`
    + `<div class="fracas-outcome"><strong>${esc(verdict)}</strong></div>`
    + `<table class="fracas-forecast-sweep"><tbody>${rows.join("")}</tbody></table>`
    + `<footer class="fracas-footer"><span class="fracas-seed">${esc(t("FRACAS.Forecast.Vary.Footer", { runs: model.runs, side: model.sideName, seed: model.seed }))}</span></footer></div>`;
}

/**
 * Where a bridge error about a forecast points, in the GM's words: "$.params.scenario.sides.hostile[2]…"
 * is the token in that slot.
 * @param {unknown} path
 * @param {Member[]} members
 * @returns {string}
 */
export function explainForecastPath(path, members) {
  if (typeof path !== "string") return "";
  const m = /^\$\.params\.scenario\.sides(?:\.([A-Za-z_][A-Za-z0-9_]*)|\['((?:[^'\\]|\\.)*)'\])\[(\d+)\]/.exec(path);
  if (!m) return "";
  const side = m[1] ?? m[2].replace(/\\(.)/g, "$1");
  const member = members.find((x) => x.side === side && x.index === Number(m[3]));
  return member ? t("FRACAS.Where.Combatant", { name: member.name }) : "";
}

/**
 * A JSON value safe to keep in a document's flags: 64-bit integers (BigInt, from the bridge's
 * codec) as their digits.
 * @param {unknown} value
 * @returns {any}
 */
export function plainJson(value) {
  return JSON.parse(JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? v.toString() : v)));
}
