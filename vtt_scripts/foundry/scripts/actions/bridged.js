// The kinds the bridge rolls with no resolver or card of this module's own (kinds.js: ER save,
// touch, drop, lock): one action per kind from the table, its dialog, a player's request sent
// to the holding GM client, the card from the result's layout (layoutcard.js), and what the
// result does applied on the GM's side: Body damage with Undo, as an attack's, and the
// conditions a failed save gives as status effects (Undo takes them off too).

import { attr, esc } from "../chat.js";
import { FracasError, InputError } from "../errors.js";
import { MAX_SAVERS } from "../facts.js";
import { t } from "../i18n.js";
import { KINDS, kindFormHtml, readFields, selectionOf } from "../kinds.js";
import { chance, fieldLabel, renderLayout } from "../layoutcard.js";
import { ROLL_MODES } from "../audience.js";
import { STATUS_CONDITIONS, uniqueViews, who } from "../request.js";
import { displayNames, explained } from "./context.js";
import { LIMITS } from "./players.js";

/** @typedef {import("../actions.js").TokenView} TokenView */
/** @typedef {import("../actions.js").Json} Json */
/** @typedef {import("../kinds.js").Kind} Kind */

/** Options of a kind's action besides its fields (the tokens by role come from the kind's parts). */
const CONTROL = ["seed", "rolls", "requestId", "requester", "rollMode", "scene", "applyDamage", "applyConditions"];

/**
 * Foundry's core status ids that read back as an ER condition (request.js STATUS_CONDITIONS), by
 * condition: poisoned → poison, frightened → fear … (core "sleep" reads as unconscious, so it is
 * no status for asleep).
 */
const STATUS_OF = Object.fromEntries(Object.entries(STATUS_CONDITIONS).filter(([id, c]) => id !== c && id !== "sleep").map(([id, c]) => [c, id]));

/**
 * The status effect ids that set an ER condition, in the order tried: the ER name itself (a world
 * whose status effects are ER's), then Foundry's core id that reads back as it.
 * @param {string} condition
 * @returns {string[]}
 */
export const statusesFor = (condition) => [condition, /** @type {Record<string, string>} */ (STATUS_OF)[condition]].filter((x) => typeof x === "string");

/**
 * The card of a bridge-rolled kind: the outcome in one line, the result's exact chances, each
 * damaged token's buttons, the result laid out (its layout's keys in order), and a footer saying
 * the bridge rolled it (its method, the seed) with Undo when something was applied.
 * @param {Kind} entry
 * @param {any} result  the bridge's answer (JSON)
 * @param {Record<string, string>} names
 * @param {{requestId: string, undoable?: boolean, damaged?: string[]}} options
 */
export function renderBridgedCard(entry, result, names, { requestId, undoable = false, damaged = [] }) {
  const odds = Object.keys(result).filter((k) => k.startsWith("p_") && !k.endsWith("_exact") && typeof result[`${k}_exact`] === "string")
    .map((k) => `${esc(fieldLabel(k))}: ${chance(result[`${k}_exact`], result[k])}`)
    .concat((entry.odds?.(result) ?? []).map(({ key, parts }) => `${esc(fieldLabel(key))}: ${parts.map((x) => `${esc(names[x.id] ?? x.id)} ${chance(x.exact, x.p)}`).join(", ")}`));
  const slots = damaged.map((id) => `<li class="fracas-target" data-target="${attr(id)}"><strong>${esc(names[id] ?? id)}</strong>`
    + `<span class="fracas-target-actions" data-target="${attr(id)}"></span></li>`);
  const undo = undoable ? `<button type="button" class="fracas-undo" data-fracas-action="undo">${esc(t("FRACAS.Bridged.Undo"))}</button>` : "";
  return `<div class="fracas-card fracas-bridged fracas-${attr(entry.kind)}" data-request-id="${attr(requestId)}">`
    + `<header class="fracas-title">${esc(t(`FRACAS.Bridged.Title.${entry.kind}`))}</header>`
    + `<div class="fracas-outcome"><strong>${esc(entry.outcome(result, names))}</strong></div>`
    + (odds.length ? `<div class="fracas-odds">${odds.join(" · ")}</div>` : "")
    + (slots.length ? `<ul class="fracas-targets">${slots.join("")}</ul>` : "")
    + `<details class="fracas-detail"><summary>${esc(t("FRACAS.Bridged.Detail"))}</summary>${renderLayout(entry.ruleset, entry.kind, result, names)}</details>`
    + `<footer class="fracas-footer"><span class="fracas-seed">${esc(t("FRACAS.Bridged.Rolled", { method: entry.method, seed: String(result.seed) }))}`
    + `${result.injected ? ` · ${esc(t("FRACAS.Card.DiceGiven"))}` : ""}</span><span class="fracas-applied"></span>${undo}</footer>`
    + "</div>";
}

/**
 * The bridged actions over the shared context (context.js).
 * @param {import("./context.js").Ctx} ctx
 */
export function bridgedActions(ctx) {
  const { vtt, newId, mapping, setting, requireGM, link, seedOption, viewsOf, cardFlags, planChanges } = ctx;

  /**
   * @param {string} kind
   * @returns {Kind}
   */
  function entryOf(kind) {
    const entry = Object.prototype.hasOwnProperty.call(KINDS, kind) ? KINDS[kind] : null;
    if (!entry) throw InputError.of("FRACAS.Bridged.UnknownKind", { kind: String(kind), kinds: Object.keys(KINDS).join(", ") });
    return entry;
  }

  /**
   * A kind's options split into its fields (checked by readFields) and the rest: the tokens by
   * role and the control options; anything else is refused naming it.
   * @param {Kind} entry
   * @param {Json} options
   */
  function splitOptions(entry, options) {
    if (options === null || typeof options !== "object" || Array.isArray(options)) throw InputError.of("FRACAS.Bridged.NotOptions", { kind: entry.kind });
    const roles = entry.parts.map((p) => p.role);
    const fieldNames = entry.fields.map((f) => f.name);
    /** @type {Record<string, unknown>} */
    const given = {};
    for (const [key, value] of Object.entries(options)) {
      if (fieldNames.includes(key)) given[key] = value;
      else if (!roles.includes(key) && !CONTROL.includes(key)) {
        throw InputError.of("FRACAS.Bridged.UnknownField", { kind: entry.kind, field: key, fields: [...fieldNames, ...roles, ...CONTROL].join(", ") });
      }
    }
    return given;
  }

  /**
   * The tokens of each part: the option naming them, else the selection; one or several as
   * the part says, no token in two parts.
   * @param {Kind} entry
   * @param {Json} options
   * @param {Record<string, any>} values
   * @returns {Record<string, TokenView[]>}
   */
  function tokensOf(entry, options, values) {
    /** @type {Record<string, TokenView[]>} */
    const out = {};
    const seen = new Map();
    // Parts that take the nth token of a selection (a slam's victim, then what it is slammed
    // into): a selection longer than they take is refused, not cut short without a word.
    for (const from of new Set(entry.parts.filter((p) => p.nth !== undefined && options[p.role] === undefined).map((p) => p.from))) {
      const most = Math.max(...entry.parts.filter((p) => p.from === from && p.nth !== undefined).map((p) => Number(p.nth))) + 1;
      const count = selectionOf({ role: "", from }, uniqueViews(vtt.controlled()), uniqueViews(vtt.targeted())).length;
      if (count > most) throw InputError.of("FRACAS.Bridged.TooManyPicked", { count, max: most, from: t(`FRACAS.Bridged.From.${from}`) });
    }
    for (const part of entry.parts) {
      let list;
      if (options[part.role] !== undefined) list = uniqueViews(viewsOf(options[part.role], part.role, options.scene) ?? []);
      else list = selectionOf(part, uniqueViews(vtt.controlled()), uniqueViews(vtt.targeted()));
      if (part.optional?.(values) && !list.length) {
        out[part.role] = [];
        continue;
      }
      if (part.many ? !list.length : list.length !== 1) {
        throw InputError.of(part.many ? "FRACAS.Bridged.NoTokens" : "FRACAS.Bridged.OneToken",
          { role: t(`FRACAS.Bridged.Role.${part.role}`), count: list.length, from: t(`FRACAS.Bridged.From.${part.from}`) });
      }
      // The engine's limit on creatures saving at once (facts.js), checked before anything is read or sent.
      if (part.many && list.length > MAX_SAVERS) throw InputError.of("FRACAS.Bridged.TooMany", { role: t(`FRACAS.Bridged.Role.${part.role}`), count: list.length, max: MAX_SAVERS });
      for (const v of list) {
        if (!v.actor) throw InputError.of("FRACAS.Bridged.NoActor", { name: who(v) });
        const other = seen.get(v.id);
        if (other) throw InputError.of("FRACAS.Bridged.SameToken", { name: who(v), a: t(`FRACAS.Bridged.Role.${other}`), b: t(`FRACAS.Bridged.Role.${part.role}`) });
        seen.set(v.id, part.role);
      }
      out[part.role] = list;
    }
    return out;
  }

  /**
   * Roll `kind` through the bridge: its fields (the dialog's, or a macro's options), the tokens
   * from the selection (or named), the request from the actors' data; the card posted from the
   * result's layout; damage and conditions applied as the result says (the settings "Apply
   * damage" and "Conditions from saves", or `applyDamage` / `applyConditions`), with Undo.
   * A player's request goes to the holding GM client (tokens the player owns only).
   * @param {string} kind
   * @param {Json} [options]
   * @returns {Promise<any>} {requestId, result, messageId, changes, statuses} (result: the bridge's JSON), or a player's answer
   */
  async function bridged(kind, options = {}) {
    const entry = entryOf(kind);
    if (!vtt.isGM()) return playerBridged(entry, options);
    requireGM("Bridged");
    const given = splitOptions(entry, options);
    const values = readFields(entry, given);
    const tokens = tokensOf(entry, options, values);
    // Nothing is read or sent without the bridge: a clear message, and the GM's selection stays as it was.
    const conn = link();
    const apply = options.applyDamage ?? setting("applyDamage") !== false;
    const applyConditions = options.applyConditions ?? setting("applyConditions") !== false;
    /** @type {Json} */
    const request = entry.build({ values, tokens, mapping: mapping(), conditions: setting("conditionsFromStatuses") !== false, needBody: apply });
    const seed = seedOption(options);
    if (seed !== undefined && seed !== null) request.seed = seed;
    if (options.rolls !== undefined) request.rolls = options.rolls;
    const requestId = options.requestId ?? newId();
    const views = Object.values(tokens).flat();
    const names = displayNames(views);
    const result = /** @type {any} the bridge's JSON */ (await conn.call(entry.method, request, { id: requestId }).catch((error) => {
      throw explained(error, { names });
    }));
    const { damage, conditions } = entry.effects(result);
    const byId = new Map(views.map((v) => [v.id, v]));
    const hurt = views.filter((v) => (damage[v.id] ?? 0) > 0);
    const changes = planChanges(apply, hurt, damage);
    const damaged = hurt.map((v) => v.id);
    const masked = ctx.shownNames(views, names);
    const speaker = entry.speaker(tokens);
    const total = Object.values(damage).reduce((a, b) => a + b, 0);
    const flagged = hurt.map((v) => ({ id: v.id, name: v.name, uuid: v.actorUuid ?? null, damage: damage[v.id] }));
    // Who sees it: the asking user's roll mode with the world setting (audience.js), posted by the edge
    // as Foundry's ChatMessage.applyRollMode would (v13 client/documents/chat-message.mjs l. 152-172;
    // main.js postCard): a private, blind or self roll is a real whisper (blind for a blind roll), its
    // dice shown on the card and thrown by Dice So Nice for the recipients only.
    const message = await ctx.postWithCopy(changes, {
      content: renderBridgedCard(entry, result, names, { requestId, undoable: changes.length > 0 || (applyConditions && Object.keys(conditions).length > 0), damaged }),
      rolls: await vtt.makeRolls(entry.rolls(result, names)),
      flags: cardFlags(kind, requestId, String(result.seed), changes, flagged, total),
      speaker, ...ctx.audienceOf(options),
    }, masked && {
      content: renderBridgedCard(entry, result, masked, { requestId }), rolls: await vtt.makeRolls(entry.rolls(result, masked)),
      speaker: speaker ? ctx.speakerAs(speaker, masked) : null, kind,
    });
    const statuses = applyConditions ? await setConditions(conditions, byId) : [];
    if (statuses.length && message?.id) await vtt.setMessageFlags(message.id, { statuses, undone: null });
    return { requestId, result, messageId: message?.id ?? null, changes, statuses };
  }

  /**
   * Set the conditions a result gave as status effects (the GM's client: vtt.setStatus on each
   * token's actor); each one set is returned for Undo, each that could not be is named.
   * @param {Record<string, string[]>} conditions
   * @param {Map<string, TokenView>} byId
   */
  async function setConditions(conditions, byId) {
    /** @type {{uuid: string, name: string, status: string, target: string}[]} */
    const done = [];
    /** @type {string[]} */
    const failed = [];
    for (const [id, list] of Object.entries(conditions)) {
      const view = byId.get(id);
      const actor = view?.actorUuid ? await vtt.getDocument(view.actorUuid) : null;
      for (const condition of list) {
        const ids = statusesFor(condition);
        if (view && ids.some((x) => (view.statuses ?? []).includes(x))) continue;
        /** @type {string|null} */
        let status = null;
        try {
          status = actor && vtt.setStatus ? await vtt.setStatus(actor, ids, true) : null;
        } catch (error) {
          ctx.log(error);
        }
        if (status && view) done.push({ uuid: /** @type {string} */ (view.actorUuid), name: view.name ?? id, status, target: id });
        else failed.push(t("FRACAS.Bridged.StatusFailed", { name: view?.name ?? id, status: ids.join(" / ") }));
      }
    }
    if (failed.length) vtt.notify("warn", failed.join("; "));
    return done;
  }

  /**
   * The dialog of a kind (the macro's): who takes part from the selection, the kind's fields
   * (remembered from the last time), then the action, on the holding client for a GM tab that
   * does not hold the bridge. Without a kind it asks which first.
   * @param {string} [kind]
   */
  async function bridgedDialog(kind = undefined) {
    if (kind === undefined) {
      const choice = await vtt.promptForm(`<div class="fracas-dialog"><div class="form-group"><label>${esc(t("FRACAS.Bridged.Which"))}</label><select name="kind">`
        + Object.keys(KINDS).map((k) => `<option value="${attr(k)}">${esc(t(`FRACAS.Bridged.Title.${k}`))}</option>`).join("")
        + `</select></div></div>`, t("FRACAS.Bridged.WhichTitle"), t("FRACAS.Bridged.Next"));
      if (!choice) return null;
      kind = String(choice.kind);
    }
    const entry = entryOf(kind);
    if (vtt.isGM() && vtt.holdsConnection()) link();
    /** @type {Record<string, string[]>} */
    const named = {};
    const values0 = Object.fromEntries(entry.fields.map((f) => [f.name, f.def]));
    for (const part of entry.parts) {
      named[part.role] = selectionOf(part, uniqueViews(vtt.controlled()), uniqueViews(vtt.targeted())).map(who);
    }
    // Checked before the dialog: the tokens each part needs are there.
    tokensOf(entry, {}, values0);
    const last = /** @type {Record<string, any>|null} the dialog's last answers (a setting the dialog wrote) */ (vtt.setting("lastBridged") ?? null);
    const form = await vtt.promptForm(kindFormHtml(entry, last?.[kind] ?? null, named), t(`FRACAS.Bridged.Title.${kind}`));
    if (!form) return null;
    const values = readFields(entry, form, { fromForm: true });
    await vtt.setSetting("lastBridged", { ...(last ?? {}), [kind]: values });
    const options = { ...values };
    // This tab's selection as ids: a relayed request names the tokens it means.
    for (const part of entry.parts) {
      Object.assign(options, { [part.role]: selectionOf(part, uniqueViews(vtt.controlled()), uniqueViews(vtt.targeted())).map((v) => v.id) });
    }
    const out = /** @type {any} the action's answer: {result} holds the bridge's JSON */ (await ctx.viaHolder(kind, (/** @type {Json} */ o) => bridged(kind, o))(options));
    // ER-13: a drop got holds its damage; the dialog opens next time ready to deal it (the held damage, 0 rounds).
    if (kind === "drop" && out?.result?.phase === "drop" && Number.isInteger(out.result.held)) {
      const now = /** @type {Record<string, any>} */ (vtt.setting("lastBridged") ?? {});
      await vtt.setSetting("lastBridged", { ...now, drop: { ...values, phase: "inflict", held: out.result.held, rounds: 0 } });
    }
    return out;
  }

  /**
   * A player's request: only tokens the player owns in the parts that act (the savers, the
   * caster, the attacker), checked here and again on the holding GM client; the fields as the
   * player chose them; no dice of the player's own.
   * @param {Kind} entry
   * @param {Json} options
   */
  async function playerBridged(entry, options) {
    if (options.seed !== undefined || options.rolls !== undefined) throw new InputError(t("FRACAS.Player.NoDice"));
    const given = splitOptions(entry, options);
    const values = readFields(entry, given);
    const tokens = tokensOf(entry, options, values);
    for (const part of entry.parts) {
      if (part.owned && tokens[part.role].some((v) => !vtt.ownsToken(v))) throw InputError.of("FRACAS.Player.NotYourTokens");
    }
    /** @type {Json} */
    const request = { ...values };
    for (const part of entry.parts) request[part.role] = tokens[part.role].map((v) => v.id);
    const scene = vtt.sceneId?.();
    if (scene) request.scene = scene;
    const rollMode = options.rollMode ?? vtt.rollMode?.();
    if (typeof rollMode === "string") request.rollMode = rollMode;
    return ctx.relay(entry.kind, request);
  }

  /**
   * The holding client's side of a player's request of a bridge-rolled kind: every token on the
   * sender's scene, the acting ones the sender's own, no hidden token; then the action, as the
   * player's (its roll mode; the card says it like the player's attack).
   * @param {string} kind
   * @param {any} request  what the player's client sent: every field is checked here
   * @param {string} senderId
   * @param {string} bridgeId
   */
  async function resolvePlayerBridged(kind, request, senderId, bridgeId) {
    const entry = entryOf(kind);
    if (!request || typeof request !== "object" || Array.isArray(request)) return ctx.refusal("FRACAS.Player.Malformed");
    const scene = vtt.userScene?.(senderId) ?? (typeof request.scene === "string" ? request.scene : undefined);
    /** @type {Json} */
    const options = {};
    for (const f of entry.fields) if (request[f.name] !== undefined) options[f.name] = request[f.name];
    for (const part of entry.parts) {
      const ids = request[part.role];
      if (!Array.isArray(ids) || !ids.every((x) => typeof x === "string") || (!part.many && ids.length > 1)) return ctx.refusal("FRACAS.Player.Malformed");
      // A player's request names at most LIMITS.maxTargets tokens in a part, as its attack's targets.
      if (ids.length > LIMITS.maxTargets) return ctx.refusal("FRACAS.Player.TooManyTargets", { count: ids.length, max: LIMITS.maxTargets });
      const list = uniqueViews(viewsOf(ids, part.role, scene) ?? []);
      const unseen = list.find((v) => v.hidden);
      if (unseen) throw InputError.of("FRACAS.Error.Actions04", { label: part.role, p1: JSON.stringify(unseen.id) });
      if (part.owned && list.some((v) => !vtt.userOwnsToken(senderId, v))) return ctx.refusal("FRACAS.Player.NotYourTokens");
      options[part.role] = list.map((v) => v.id);
    }
    const rollMode = typeof request.rollMode === "string" && ROLL_MODES.includes(request.rollMode) ? request.rollMode : "publicroll";
    Object.assign(options, { scene, requestId: bridgeId, requester: senderId, rollMode });
    const out = await bridged(kind, options);
    if (!out) throw new FracasError(t("FRACAS.Error.Actions13"));
    return { requestId: out.requestId, messageId: out.messageId, total_damage: null };
  }

  /**
   * Undo the status effects a card set (its flags' statuses); the names of those that could not be taken off.
   * @param {{statuses?: unknown}} flags
   * @returns {Promise<{removed: string[], failed: string[]}>}
   */
  async function undoStatuses(flags) {
    const list = Array.isArray(flags.statuses) ? /** @type {{uuid: string, name: string, status: string}[]} */ (flags.statuses) : [];
    /** @type {string[]} */
    const removed = [];
    /** @type {string[]} */
    const failed = [];
    for (const s of list) {
      try {
        const actor = await vtt.getDocument(s.uuid);
        if (actor && vtt.setStatus && (await vtt.setStatus(actor, [s.status], false))) removed.push(`${s.name}: ${s.status}`);
        else failed.push(`${s.name}: ${s.status}`);
      } catch {
        failed.push(`${s.name}: ${s.status}`);
      }
    }
    return { removed, failed };
  }

  return { bridged, bridgedDialog, playerBridged, resolvePlayerBridged, undoStatuses };
}
