// Forecasts (issue 43): the fight on the map played many times over by the bridge's
// fight.forecast; the GM's card, a one-field sweep from its "Vary" button, and the
// players' copy from its "Share" button (forecast.js builds and draws them).

import { BridgeError, FracasError, InputError } from "../errors.js";
import { t } from "../i18n.js";
import {
  TOKEN_CHOICES, VARY_FIELDS, buildForecastScenario, defaultVaryMember, defaultVaryValues,
  explainForecastPath, forecastCardModel, plainJson, renderForecastCard, renderSweepCard, sideName, sweepCardModel, varyParams,
} from "../forecast.js";
import { DEFAULT_RULESET } from "../rulesets.js";
import { MODULE_ID } from "../settings.js";
import { attr, esc } from "../chat.js";

/** @typedef {import("../actions.js").Json} Json */
/** @typedef {import("../forecast.js").Member} Member */
/** @typedef {import("../forecast.js").Candidate} Candidate */

/**
 * How long a forecast may take before the module stops waiting (its own timeout: the bridge's
 * work budget keeps a forecast to about a second, a sweep to several, over the shorter
 * request timeout of single attacks).
 */
export const FORECAST_TIMEOUT_MS = 60000;

/** The fights of a forecast when neither the call nor the setting says (fight.forecast's default). */
export const DEFAULT_RUNS = 1000;

/** The fights per value of a vary sweep unless the GM says otherwise. */
export const DEFAULT_VARY_RUNS = 500;

/**
 * The forecast actions over the shared context (context.js).
 * @param {import("./context.js").Ctx} ctx
 */
export function forecastActions(ctx) {
  const { vtt, newId, mapping, setting, requireGM, link, seedOption } = ctx;

  /**
   * The tokens that may fight: the current combat's combatants (`from: "combat"`), every token
   * of the scene (`"scene"`: the asking GM's scene, else the canvas's), or (`"auto"`, the
   * default) the combat's when there is one with combatants, else the scene's.
   * @param {Json} options
   * @returns {{from: string, candidates: Candidate[], grid: import("../bystanders.js").Grid|null}}
   */
  function candidatesOf(options) {
    const from = options.from ?? setting("forecastTokens") ?? "auto";
    if (!TOKEN_CHOICES.includes(from)) throw new InputError(t("FRACAS.Forecast.Error.From", { value: JSON.stringify(from), choices: TOKEN_CHOICES.join(", ") }));
    const combat = vtt.combat();
    const scene = vtt.sceneTokens?.(typeof options.scene === "string" ? options.scene : undefined) ?? null;
    const useCombat = from === "combat" || (from === "auto" && !!combat?.combatants.length);
    if (useCombat) {
      if (!combat?.combatants.length) throw new InputError(t("FRACAS.Forecast.Error.NoCombat"));
      // A combatant hidden in the tracker is the GM's as a hidden token is (Combatant#hidden).
      const candidates = combat.combatants.filter((c) => c.view?.id).map((c) => ({
        view: /** @type {import("../actions.js").TokenView} */ ({ ...c.view, name: c.name || c.view.name }),
        hidden: !!(c.hidden || c.view.hidden), defeated: c.defeated,
      }));
      return { from: "combat", candidates, grid: scene?.grid ?? null };
    }
    if (!scene) throw new InputError(t("FRACAS.Forecast.Error.NoScene"));
    return { from: "scene", candidates: scene.views.map((view) => ({ view, hidden: !!view.hidden })), grid: scene.grid };
  }

  /** @param {unknown} value */
  function runsOf(value) {
    const runs = value === undefined || value === null || value === "" ? Number(setting("forecastRuns") ?? DEFAULT_RUNS) : Number(value);
    if (!Number.isSafeInteger(runs) || runs < 1) throw new InputError(t("FRACAS.Forecast.Error.Runs", { value: JSON.stringify(value ?? setting("forecastRuns")) }));
    return runs;
  }

  /**
   * The bridge's answer to a forecast, with the token named where its error points.
   * @param {Json} params
   * @param {Member[]} members
   * @param {string} requestId
   */
  async function ask(params, members, requestId) {
    const conn = link();
    const result = await conn.call("fight.forecast", params, { id: requestId, timeoutMs: FORECAST_TIMEOUT_MS }).catch((/** @type {unknown} */ error) => {
      if (error instanceof BridgeError) {
        const where = explainForecastPath(error.path, members);
        if (where) error.message = `${error.message} [${where}]`;
      }
      throw error;
    });
    // The bridge checks its answers against its schema; a reply without sides is not a forecast.
    if (!result || typeof result !== "object" || !result.sides || typeof result.sides !== "object" || !result.combatants) {
      throw new FracasError(t("FRACAS.Forecast.Error.Answer"));
    }
    if (params.vary && !(result.sweep && Array.isArray(result.sweep.points))) throw new FracasError(t("FRACAS.Forecast.Error.Answer"));
    return result;
  }

  /**
   * Post a vary sweep's card to the GMs.
   * @param {Record<string, any>} sweep
   * @param {Member} member
   * @param {string} field
   * @param {string} requestId
   */
  async function postSweep(sweep, member, field, requestId) {
    return vtt.postCard({
      content: renderSweepCard(sweepCardModel(sweep, { member, field })), rolls: [],
      flags: { [MODULE_ID]: { kind: "forecast-vary", requestId } }, speaker: null, whisperToGM: true,
    });
  }

  /**
   * "How deadly is this fight?": the tokens of the combat or the scene (candidatesOf) as a
   * scenario (forecast.js), sides by disposition (neutral ones as the setting says), each one's
   * numbers from its actor, played `runs` times by the bridge's fight.forecast; the GM's card
   * is whispered to the GMs (no dice in it). With `vary` ({token, field: "count"|"hp", values,
   * side, target, runs}) the sweep comes too, on its own card.
   * @param {Json} [options]  from, neutral, runs, seed, ruleset, scene, vary, requestId
   */
  async function forecast(options = {}) {
    requireGM("Forecasts");
    link();
    const ruleset = options.ruleset ?? setting("ruleset") ?? DEFAULT_RULESET;
    const neutral = options.neutral ?? setting("forecastNeutral") ?? "leave";
    const runs = runsOf(options.runs);
    const { candidates, grid, from } = candidatesOf(options);
    const built = buildForecastScenario({ ruleset, candidates, neutral, mapping: mapping(), grid, defeatedStatus: vtt.defeatedStatus?.() ?? "dead" });
    /** @type {Json} */
    const params = { scenario: built.scenario, runs };
    const seed = seedOption(options);
    if (seed !== undefined) params.seed = seed;
    /** @type {{member: Member, field: string}|null} */
    let varied = null;
    if (options.vary !== undefined && options.vary !== null) {
      if (typeof options.vary !== "object" || Array.isArray(options.vary)) throw new InputError(t("FRACAS.Forecast.Error.VaryOption"));
      const v = varyParams(built.members, options.vary);
      params.vary = v;
      const index = Number(/\[(\d+)\]/.exec(v.path)?.[1]);
      const member = built.members.find((m) => v.path.startsWith(`$.sides.${m.side}[`) && m.index === index);
      if (member) varied = { member, field: String(options.vary.field ?? "count") };
    }
    const requestId = options.requestId ?? newId();
    const result = await ask(params, built.members, requestId);
    const model = forecastCardModel(result, { members: built.members });
    const message = await vtt.postCard({
      content: renderForecastCard(model, { left: built.left, requestId }), rolls: [],
      flags: { [MODULE_ID]: { kind: "forecast", requestId, seed: String(result.seed), from, runs,
        scenario: plainJson(built.scenario), members: built.members, left: built.left, result: plainJson({ ...result, sweep: undefined }) } },
      speaker: null, whisperToGM: true,
    });
    if (varied && result.sweep) await postSweep(result.sweep, varied.member, varied.field, requestId);
    return { requestId, result, messageId: message?.id ?? null, scenario: built.scenario };
  }

  /**
   * A forecast card's flags, or an error naming why there is none.
   * @param {unknown} messageId
   */
  function forecastFlags(messageId) {
    const flags = typeof messageId === "string" ? vtt.messageFlags(messageId) : null;
    if (!flags || flags.kind !== "forecast" || !Array.isArray(flags.members) || !flags.scenario || !flags.result) {
      throw new InputError(t("FRACAS.Forecast.Error.NoCard", { id: String(messageId) }));
    }
    return /** @type {{members: Member[], scenario: Json, result: Json, runs: number, requestId: string, left?: any[]}} the card's own flags */ (
      /** @type {unknown} */ (flags));
  }

  /**
   * The Vary button: a one-field sweep of the card's own fight (the scenario it played, kept on
   * the GM-only card). `choice`: {token (id or name), field ("count" | "hp"), values, side,
   * target (0..1), runs (per value), seed}, as askVary's dialog answers it.
   * @param {string} messageId
   * @param {Json} asked
   */
  async function forecastVary(messageId, asked) {
    requireGM("Forecasts");
    const flags = forecastFlags(messageId);
    if (!asked || typeof asked !== "object" || Array.isArray(asked)) throw new InputError(t("FRACAS.Forecast.Error.VaryOption"));
    const v = varyParams(flags.members, asked);
    const runs = asked.runs === undefined || asked.runs === "" ? DEFAULT_VARY_RUNS : runsOf(asked.runs);
    /** @type {Json} */
    const params = { scenario: flags.scenario, runs, vary: v };
    const seed = seedOption(asked);
    if (seed !== undefined) params.seed = seed;
    const requestId = asked.requestId ?? newId();
    const result = await ask(params, flags.members, requestId);
    const index = Number(/\[(\d+)\]/.exec(v.path)?.[1]);
    const member = /** @type {Member} varyParams found it */ (flags.members.find((m) => v.path.startsWith(`$.sides.${m.side}[`) && m.index === index));
    const message = await postSweep(result.sweep, member, String(asked.field ?? "count"), requestId);
    return { requestId, result, messageId: message?.id ?? null };
  }

  /**
   * The vary dialog (DialogV2 through the adapter) for a forecast card, on this tab: the token
   * (every combatant of the card, the GM's: hidden ones too; proposed, the first of the most
   * numerous kind of the opponents), the field, its values (its copies from 1 up), the side
   * followed, the chance to cross and the fights per value. Null when the GM closes it.
   * @param {string} messageId
   * @returns {Promise<Json|null>}
   */
  async function askVary(messageId) {
    requireGM("Forecasts");
    const { members } = forecastFlags(messageId);
    const proposed = defaultVaryMember(members);
    if (!proposed) return null;
    const options = members.map((m) => `<option value="${attr(m.id)}"${m.id === proposed.id ? " selected" : ""}>${esc(m.name)} (${esc(sideName(m.side))}`
      + `${m.hidden ? `, ${esc(t("FRACAS.Forecast.HiddenMark"))}` : ""})</option>`).join("");
    const fields = VARY_FIELDS.map((f) => `<option value="${f}">${esc(t(`FRACAS.Forecast.Vary.Field.${f}`))}</option>`).join("");
    const sides = [...new Set(members.map((m) => m.side))];
    const follow = sides.map((s, i) => `<option value="${attr(s)}"${i === 0 ? " selected" : ""}>${esc(sideName(s))}</option>`).join("");
    const html = `<p>${esc(t("FRACAS.Forecast.Vary.Hint"))}</p>`
      + `<label>${esc(t("FRACAS.Forecast.Vary.Token"))} <select name="token">${options}</select></label>`
      + `<label>${esc(t("FRACAS.Forecast.Vary.FieldLabel"))} <select name="field">${fields}</select></label>`
      + `<label>${esc(t("FRACAS.Forecast.Vary.Values"))} <input type="text" name="values" value="${attr(defaultVaryValues(members, proposed, "count"))}"></label>`
      + `<label>${esc(t("FRACAS.Forecast.Vary.Side"))} <select name="side">${follow}</select></label>`
      + `<label>${esc(t("FRACAS.Forecast.Vary.Target"))} <input type="number" name="target" min="0" max="100" step="1" value="50"></label>`
      + `<label>${esc(t("FRACAS.Forecast.Vary.Runs"))} <input type="number" name="runs" min="1" step="1" value="${DEFAULT_VARY_RUNS}"></label>`;
    const form = await vtt.promptForm(html, t("FRACAS.Forecast.Vary.DialogTitle"), t("FRACAS.Forecast.Vary.Ok"));
    if (!form) return null;
    const target = form.target === undefined || form.target === "" ? 0.5 : Number(form.target) / 100;
    return { token: form.token, field: form.field, values: form.values, side: form.side, target, runs: form.runs };
  }

  /**
   * The Share button: the card's forecast posted for everyone, without hidden combatants (no
   * row, no name) and with the names players cannot read masked; its flags carry nothing of
   * the GM's (no scenario, no member). The chances are the whole fight's, hidden combatants
   * included: sharing them is the GM's choice (README).
   * @param {string} messageId
   */
  async function forecastShare(messageId) {
    requireGM("Forecasts");
    const flags = forecastFlags(messageId);
    const model = forecastCardModel(flags.result, { members: flags.members, forPlayers: true });
    const message = await vtt.postCard({
      content: renderForecastCard(model), rolls: [], flags: { [MODULE_ID]: { kind: "forecast-public" } },
      speaker: null, whisperToGM: false, rollMode: "publicroll",
    });
    return { messageId: message?.id ?? null };
  }

  return { forecast, forecastVary, forecastShare, askVary };
}
