// ER-19 competitions and ER-23 impalements.

import { competeRollSpecs, impaleRollSpecs, renderCompeteCard, renderImpaleCard } from "../chat.js";
import { InputError } from "../errors.js";
import { t } from "../i18n.js";
import { getPath } from "../paths.js";
import { DEFAULT_RULESET, FIELDS } from "../contract.js";
import { DAMAGE_TYPES } from "../facts.js";
import { buildAttackRequest, damageTypes, readCompetitor, uniqueViews, who } from "../request.js";
import { MODULE_ID } from "../settings.js";
import { displayNames } from "./context.js";

/** @typedef {import("../actions.js").TokenView} TokenView */
/** @typedef {import("../actions.js").Json} Json */

/**
 * The specials actions over the shared context (context.js).
 * @param {import("./context.js").Ctx} ctx
 */
export function specialsActions(ctx) {
  const { vtt, newId, mapping, setting, requireGM, link, seedOption, cardFlags, firstOf, oneToken, planChanges } = ctx;

  /**
   * A token's Body (an integer at the mapped path) before a request whose damage lands there.
   * @param {TokenView} view @param {string|undefined} path @param {string} message  its i18n key
   */
  function readBody(view, path, message) {
    const body = Number(getPath(view.actor, path ?? ""));
    if (!path || !Number.isInteger(body)) throw new InputError(t(message, { p0: who(view), p1: path || "(no data path set)" }));
    return body;
  }

  /**
   * `ref` (a token, its id or name), or else the user's one targeted token.
   * @param {unknown} ref
   * @param {string} label
   * @param {(count: number) => string} notOne  the message when not exactly one token is targeted
   * @returns {TokenView}
   */
  function oneTargeted(ref, label, notOne) {
    if (ref !== undefined) return firstOf(ref, label);
    const targeted = uniqueViews(vtt.targeted());
    if (targeted.length !== 1) throw new InputError(notOne(targeted.length));
    return targeted[0];
  }

  /**
   * A side's savage-form strikes as the request's `savage_form` ("ER Grappling: Uncommon
   * Conditions"), checked with the option's path named; null when not given.
   * @param {unknown} value @param {string} label
   * @returns {Json[]|null}
   */
  function savageForm(value, label) {
    if (value === undefined || value === null) return null;
    const bad = (/** @type {string} */ path, /** @type {string} */ problem) => new InputError(t("FRACAS.Error.Savage", { path, problem }));
    if (!Array.isArray(value) || value.length > 8) throw bad(label, t("FRACAS.Error.SavageList"));
    return value.map((s, i) => {
      const at = `${label}[${i}]`;
      if (!s || typeof s !== "object" || Array.isArray(s)) throw bad(at, t("FRACAS.Error.SavageList"));
      // The fields of a savage strike, as the engine's request struct has them (contract.js).
      for (const key of Object.keys(s)) if (!FIELDS[DEFAULT_RULESET].SavageStrike.includes(key)) throw bad(`${at}.${key}`, t("FRACAS.Error.SavageKey"));
      if (typeof s.strike !== "string" || !s.strike.trim() || s.strike.length > 40) throw bad(`${at}.strike`, t("FRACAS.Error.SavageStrike"));
      if (!DAMAGE_TYPES.includes(s.type)) throw bad(`${at}.type`, t("FRACAS.Error.SavageType", { types: DAMAGE_TYPES.join(", ") }));
      if (s.poison !== undefined && typeof s.poison !== "boolean") throw bad(`${at}.poison`, t("FRACAS.Error.SavagePoison"));
      if (s.special !== undefined && (typeof s.special !== "string" || s.special.length > 80)) throw bad(`${at}.special`, t("FRACAS.Error.SavageSpecial"));
      /** @type {Json} */
      const out = { strike: s.strike.trim(), type: s.type };
      if (s.poison) out.poison = true;
      if (s.special) out.special = s.special;
      return out;
    });
  }

  /**
   * An ER-19 competition: the controlled token (or `challenger`) against `defender` (or
   * the one targeted token). `contest`: plain, grapple, escape, shove, trip; `use` /
   * `against`: each side's attribute (strength or agility); `slick`, `challengerEdge` /
   * `defenderEdge`: "advantage" or "disadvantage". `challengerSavage` / `defenderSavage`: a
   * side's savage-form strikes ("ER Grappling: Uncommon Conditions": a grapple's victim, an
   * escape's challenger), each {strike, type, poison?, special?}; given, both sides'
   * resistances are read too (ER-10 on the grappler's incidental point). Posts the card; the
   * grappler's incidental point is applied with Undo as an attack's damage is ("Apply damage"
   * setting, or `applyDamage`), so its Body path is checked before anything is sent.
   * @param {Json} [options]
   */
  async function compete(options = {}) {
    requireGM("Competitions");
    const conn = link();
    const challenger = oneToken(options.challenger, "challenger");
    const defender = oneTargeted(options.defender, "defender", (n) => t("FRACAS.Error.Actions18", { length: n }));
    if (challenger.id === defender.id) throw new InputError(t("FRACAS.Error.Actions19"));
    const map = mapping();
    const edge = (/** @type {unknown} */ value, /** @type {string} */ label) => {
      if (value === undefined || value === null) return {};
      if (typeof value !== "string" || !["advantage", "disadvantage"].includes(value)) throw new InputError(t("FRACAS.Error.Actions20", { label, value }));
      return { [value]: true };
    };
    const fromStatuses = { conditions: setting("conditionsFromStatuses") !== false };
    /** @type {Json} */
    const request = {
      contest: options.contest ?? "plain", slick: !!options.slick,
      challenger: readCompetitor(challenger, map, options.use ?? "strength", edge(options.challengerEdge, "challengerEdge"),
        fromStatuses),
      defender: readCompetitor(defender, map, options.against ?? "strength", edge(options.defenderEdge, "defenderEdge"),
        fromStatuses),
    };
    /** @type {[string, Json[]|null, TokenView][]} */
    const savage = [["challenger", savageForm(options.challengerSavage, "challengerSavage"), challenger],
      ["defender", savageForm(options.defenderSavage, "defenderSavage"), defender]];
    if (savage.some(([, list]) => list)) {
      for (const [side, list, view] of savage) {
        if (list) request[side].savage_form = list;
        for (const [key, field] of [["resistant", "Resistances"], ["vulnerable", "Vulnerabilities"], ["immune", "Immunities"]]) {
          const names = damageTypes(view, map, key, field);
          if (names.length) request[side][key] = names;
        }
      }
    }
    // The incidental point lands on the side facing a savage form (a grapple's grappler, an
    // escape's holder): its Body must be readable before the request goes out.
    const apply = options.applyDamage ?? setting("applyDamage") !== false;
    if (apply) {
      for (const [, list, view] of savage) if (list) readBody(view === challenger ? defender : challenger, map.body, "FRACAS.Error.CompeteBody");
    }
    const seed = seedOption(options);
    if (seed !== undefined && seed !== null) request.seed = seed;
    if (options.rolls) request.rolls = options.rolls;
    const requestId = options.requestId ?? newId();
    const result = /** @type {any} the engine's competition result */ (await conn.call("compete.roll", request, { id: requestId }));
    const x = result.incidental;
    const hurt = x && x.damage > 0 ? [challenger, defender].find((v) => v.id === x.to) : undefined;
    const changes = hurt ? planChanges(apply, [hurt], { [hurt.id]: x.damage }) : [];
    const names = displayNames([challenger, defender]);
    // Hidden tokens and hidden nameplates: the GM's card whole, the players' copy as they know them.
    const masked = ctx.shownNames([challenger, defender], names);
    const message = await ctx.postWithCopy(changes, {
      content: renderCompeteCard(result, { names }, { undoable: changes.length > 0 }),
      rolls: await vtt.makeRolls(competeRollSpecs(result, { [challenger.id]: names[challenger.id], [defender.id]: names[defender.id] })),
      flags: cardFlags("compete", requestId, String(result.seed), changes,
        hurt ? [{ id: hurt.id, name: hurt.name, uuid: hurt.actorUuid ?? null, damage: x.damage }] : []),
      speaker: challenger, ...ctx.audienceOf(options),
    }, masked && {
      content: renderCompeteCard(result, { names: masked }), kind: "compete", speaker: ctx.speakerAs(challenger, masked),
      rolls: await vtt.makeRolls(competeRollSpecs(result, { [challenger.id]: masked[challenger.id], [defender.id]: masked[defender.id] })),
    });
    return { requestId, result, messageId: message?.id ?? null, changes };
  }

  /**
   * An ER-23 impalement: the controlled pikeman (or `pikeman`) strikes the targeted
   * charger (or `charger`) that closed `closed` feet, before its charge. `forte`,
   * `weight`, `bonus` describe the pole-arm. The damage is applied with Undo; the card
   * says whether the charge is void.
   * @param {Json} [options]
   */
  async function impale(options = {}) {
    requireGM("Impalements");
    const conn = link();
    const pikeman = oneToken(options.pikeman, "pikeman");
    const charger = oneTargeted(options.charger, "charger", (n) => t("FRACAS.Error.Actions21", { length: n }));
    if (!Number.isInteger(options.closed)) throw new InputError(t("FRACAS.Error.Actions22"));
    const map = mapping();
    const apply = options.applyDamage ?? setting("applyDamage") !== false;
    const body = readBody(charger, map.body, "FRACAS.Error.Actions23");
    const { request: strikeRequest } = buildAttackRequest({
      attacker: pikeman, targets: [charger], mapping: map,
      strikes: [{ method: "melee", style: "pole-arm", dice: 3, damage_type: "piercing" }],
      options: { conditions: setting("conditionsFromStatuses") !== false, needBody: apply },
    });
    /** @type {Json} */
    const request = {
      pikeman: strikeRequest.attacker,
      weapon: { forte: !!options.forte, weight: options.weight ?? 0, bonus: options.bonus ?? 0 },
      charger: { ...strikeRequest.targets[charger.id], id: charger.id, body, closed: options.closed },
    };
    const seed = seedOption(options);
    if (seed !== undefined && seed !== null) request.seed = seed;
    if (options.rolls) request.rolls = options.rolls;
    const requestId = options.requestId ?? newId();
    const result = /** @type {any} the engine's impalement result */ (await conn.call("impale.resolve", request, { id: requestId }));
    const changes = planChanges(apply, [charger], { [charger.id]: result.charger.damage });
    const named = { pikemanName: pikeman.name ?? pikeman.id, chargerName: charger.name ?? charger.id };
    // Hidden tokens and hidden nameplates: the GM's card whole, the players' copy as they know them.
    const masked = ctx.shownNames([pikeman, charger], { [pikeman.id]: named.pikemanName, [charger.id]: named.chargerName });
    const shownAs = masked && { pikemanName: masked[pikeman.id], chargerName: masked[charger.id] };
    const message = await ctx.postWithCopy(changes, {
      content: renderImpaleCard(result, { ...named, requestId }, { undoable: changes.length > 0 }),
      rolls: await vtt.makeRolls(impaleRollSpecs(result, named)),
      flags: cardFlags("impale", requestId, String(result.seed), changes,
        result.charger.damage > 0 ? [{ id: charger.id, name: charger.name, uuid: charger.actorUuid ?? null, damage: result.charger.damage }] : []),
      speaker: pikeman, ...ctx.audienceOf(options),
    }, shownAs && {
      content: renderImpaleCard(result, { ...shownAs, requestId }), rolls: await vtt.makeRolls(impaleRollSpecs(result, shownAs)),
      speaker: ctx.speakerAs(pikeman, masked), kind: "impale",
    });
    return { requestId, result, messageId: message?.id ?? null, changes };
  }

  return { compete, impale };
}
