// Attacks: the controlled token strikes its targets (Enchanted Realms, with ER-17
// bystanders from the scene, or another ruleset), damage applied with Undo.

import { gmOnly } from "../audience.js";
import { bystandersOf } from "../bystanders.js";
import { attackCardModel, attackRollSpecs, renderAttackCard, renderRulesetCard, rulesetCardModel, rulesetRollSpecs } from "../chat.js";
import { InputError } from "../errors.js";
import { t } from "../i18n.js";
import { getPath } from "../paths.js";
import { buildAttackRequest, buildRulesetAttackRequest, uniqueViews, who } from "../request.js";
import { DEFAULT_RULESET, ownClient, rulesetEntry } from "../rulesets.js";
import { learnRuleset, servedAttackFields } from "../served.js";
import { MODULE_ID } from "../settings.js";
import { displayNames, explained, strikeWords } from "./context.js";

/** @typedef {import("../actions.js").TokenView} TokenView */
/** @typedef {import("../actions.js").Json} Json */

/**
 * The attack actions over the shared context (context.js).
 * @param {import("./context.js").Ctx} ctx
 */
export function attackActions(ctx) {
  const { planChanges, damageOf, vtt, newId, mapping, setting, requireGM, link, seedOption, viewsOf, cardFlags, flagTargets, attackerOf } = ctx;

  /**
   * Resolve an attack: the controlled token (or `attacker`) strikes the user's
   * targets (or `targets`). Returns { requestId, result, messageId, changes }.
   * @param {Json} [options]
   * @returns {Promise<any>} a player's answer, or {requestId, result, messageId, changes}
   *   (result: the engine's JSON)
   */
  async function attack(options = {}) {
    if (!vtt.isGM()) return ctx.playerAttack(options);
    requireGM("Attacks");
    const conn = link();
    const attacker = attackerOf(options);
    const targets = uniqueViews(viewsOf(options.targets, "targets", options.scene) ?? vtt.targeted());
    const apply = options.applyDamage ?? setting("applyDamage") !== false;
    const map = mapping();
    const ruleset = options.ruleset ?? DEFAULT_RULESET;
    if (options.item !== undefined && options.strikes === undefined) {
      // A weapon item's strikes (flags.fracas.strikes): each at every target.
      const list = itemStrikes(attacker, options.item);
      options = { ...options, strikes: targets.flatMap((tv) => list.map((/** @type {Json} */ st) => ({ ...st, target: tv.id }))) };
    }
    // A ruleset this module has no code for: the bridge's contract for it (served.js).
    if (!rulesetEntry(ruleset)) return servedAttack(conn, ruleset, attacker, targets, apply, map, options);
    if (!ownClient(ruleset)) return rulesetAttack(conn, ruleset, attacker, targets, apply, map, options);
    const { request, targets: used, unread } = buildAttackRequest({
      attacker, targets, strikes: options.strikes, mapping: map,
      options: {
        advantage: options.advantage, disadvantage: options.disadvantage, seed: seedOption(options),
        rolls: options.rolls, conditions: setting("conditionsFromStatuses") !== false, needBody: apply,
        nearby: viewsOf(options.nearby, "nearby", options.scene), flee: options.flee, grappling: options.grappling,
        bystanders: options.nearby === undefined ? sceneBystanders(attacker, targets, options) : undefined,
        defenseRolls: options.defenseRolls, defenseRollsSetting: setting("defenseRolls") === true,
      },
    });
    for (const { view, why } of unread) vtt.notify("warn", t("FRACAS.Notify.BystanderUnread", { name: who(view), why }));
    const requestId = options.requestId ?? newId();
    const names = displayNames(used);
    const result = await conn.call("attack.resolve", request, { id: requestId }).catch((error) => {
      throw explained(error, { strikes: request.strikes, names, attackerName: attacker.name });
    });
    const aimed = new Set(request.strikes.map((/** @type {{target: string}} */ s) => s.target));
    const model = shownTargets(attackCardModel(result, { attackerName: attacker.name ?? attacker.id, names, requestId }), aimed);
    const changes = planChanges(apply, used, damageOf(model));
    // A hidden bystander the shot touched (hit, or picked by the stray die) is the GM's:
    // the card with its name and buttons goes to the GMs, and everyone else gets one that
    // calls it "someone unseen" and leaves out its damage. A token whose nameplate players
    // do not see (its display mode), or a hidden one aimed at, is named on the players' copy
    // as they know it ("an unnamed creature", "someone unseen"), the speaker too.
    const secret = new Set(used.filter((v) => v.hidden && !aimed.has(v.id)).map((v) => v.id));
    const touched = model.targets.some((/** @type {{id: string}} */ x) => secret.has(x.id));
    const shown = new Set(model.targets.map((/** @type {{id: string}} */ x) => x.id));
    const masked = ctx.shownNames([attacker, ...used.filter((v) => shown.has(v.id) || aimed.has(v.id))], { ...names, [attacker.id]: attacker.name ?? attacker.id });
    // Who sees the card: the roll mode of whoever asked, with the world setting (audience.js).
    const audience = ctx.audienceOf(options);
    const everyone = !gmOnly(audience.rollMode, audience.requester, audience.gmRequester);
    /** @type {import("../chat.js").CardModel|null} the card everyone sees, when it differs */
    let open = null;
    if (everyone && (touched || masked)) {
      const unseen = Object.fromEntries([...secret].map((id) => [id, t("FRACAS.Card.Unseen")]));
      const shownAs = { ...names, ...(masked ?? {}), ...unseen };
      open = shownTargets(attackCardModel(result, { attackerName: shownAs[attacker.id] ?? attacker.name ?? attacker.id, names: shownAs, requestId }), aimed);
      open.targets = open.targets.filter((/** @type {{id: string}} */ x) => !secret.has(x.id));
      open.totalDamage = open.targets.reduce((/** @type {number} */ sum, /** @type {{damage: number}} */ x) => sum + x.damage, 0);
    }
    // What a resent request and a player's answer say: the total the players' card shows.
    const shownTotal = open ? open.totalDamage : model.totalDamage;
    const message = await ctx.postWithCopy(changes, {
      content: renderAttackCard(model, { undoable: changes.length > 0 }),
      rolls: await vtt.makeRolls(attackRollSpecs(model)),
      flags: cardFlags("attack", requestId, model.seed, changes, flagTargets(model, used), shownTotal),
      speaker: attacker,
      whisperToGM: false, // true when there is a players' copy (postWithCopy)
      ...audience,
    }, open && { content: renderAttackCard(open), rolls: await vtt.makeRolls(attackRollSpecs(open)), speaker: ctx.speakerAs(attacker, masked), kind: "attack" });
    return { requestId, result, messageId: message?.id ?? null, changes, shownTotal };
  }

  /**
   * ER-17 bystanders from the scene (bystanders.js), per target, for an attack with a
   * ranged strike when the GM's setting allows: the creatures around each target and in
   * the line of fire, hidden ones included, the defeated and tokens without an actor not.
   * Undefined when there is nothing to derive (no scene, no ranged strike, the setting off).
   * @param {TokenView} attacker
   * @param {TokenView[]} targets
   * @param {Json} options
   * @returns {Record<string, TokenView[]>|undefined}
   */
  function sceneBystanders(attacker, targets, options) {
    if (setting("bystandersFromScene") === false || !vtt.sceneTokens) return undefined;
    const ranged = Array.isArray(options.strikes) && options.strikes.some((/** @type {Json|null} */ s) => s?.method === "range");
    if (!ranged) return undefined;
    const scene = vtt.sceneTokens(typeof options.scene === "string" ? options.scene : undefined);
    if (!scene) return undefined;
    const out = vtt.defeatedStatus?.() ?? "dead";
    const others = scene.views.filter((v) => v.actor && !(v.statuses ?? []).includes(out));
    const placed = (/** @type {TokenView} */ v) => scene.views.find((x) => x.id === v.id) ?? null;
    const from = placed(attacker);
    /** @type {Record<string, TokenView[]>} */
    const found = {};
    for (const tv of targets) {
      const here = placed(tv);
      if (here) found[tv.id] = bystandersOf({ target: here, attacker: from, others, grid: scene.grid });
    }
    return found;
  }

  /**
   * An attack card's targets as shown: the ones aimed at, and any bystander the shot
   * touched (took damage, or the stray die picked it); untouched bystanders stay off.
   * @param {import("../chat.js").CardModel} model
   * @param {Set<string>} aimed
   */
  function shownTargets(model, aimed) {
    const picked = new Set(model.strikes.map((/** @type {{stray: {creature?: string|null}|null}} */ s) => s.stray?.creature).filter(Boolean));
    model.targets = model.targets.filter((/** @type {{id: string, damage: number}} */ x) => aimed.has(x.id) || x.damage > 0 || picked.has(x.id));
    return model;
  }

  /**
   * The fracas weapons of a token's actor: items whose flags.fracas.strikes (or .strike) hold strikes.
   * @param {TokenView|null|undefined} view
   */
  function weaponsOf(view) {
    /** @type {{id: string, name: string, strikes: unknown[]}[]} */
    const out = [];
    for (const item of view?.actor?.items ?? []) {
      const data = item?.flags?.[MODULE_ID];
      const strikes = Array.isArray(data?.strikes) ? data.strikes : data?.strike ? [data.strike] : null;
      if (strikes && strikes.length) out.push({ id: item.id, name: item.name, strikes });
    }
    return out;
  }

  /**
   * @param {TokenView} view
   * @param {unknown} ref  an item's id or name
   * @returns {Json[]}
   */
  function itemStrikes(view, ref) {
    const weapons = weaponsOf(view);
    const found = weapons.filter((w) => w.id === ref || w.name === ref);
    if (found.length !== 1) {
      throw InputError.of("FRACAS.Error.NoWeapon", { name: who(view), ref: String(ref), weapons: weapons.map((w) => w.name).join(", ") || t("FRACAS.Word.None") });
    }
    return found[0].strikes.map((st) => {
      if (st === null || typeof st !== "object" || Array.isArray(st)) throw InputError.of("FRACAS.Error.Actions10", { p0: found[0].name });
      const { target: _ignored, ...rest } = /** @type {Json} */ (st);
      return rest;
    });
  }

  /** "Longsword, strike 1 (melee slashing)" : the attacks a token's actor has, for messages. */
  /** @param {TokenView} view */
  function describeAttacks(view) {
    const names = weaponsOf(view).map((w) => w.name);
    const own = getPath(view?.actor, "flags.fracas.strikes");
    if (Array.isArray(own)) own.forEach((/** @type {Json|null} */ s, /** @type {number} */ i) => names.push(`${t("FRACAS.Dialog.OwnStrike", { n: i + 1 })} (${strikeWords(s)})`));
    return names.join(", ") || t("FRACAS.Word.None");
  }

  /** The strikes of one of the attacker's own attacks, chosen by item (id or name) or flag index. */
  /**
   * @param {TokenView} attacker
   * @param {Json} request
   * @returns {Json[]}
   */
  function ownAttack(attacker, request) {
    if (request.item !== undefined) {
      if (typeof request.item !== "string") throw InputError.of("FRACAS.Error.Actions11");
      return itemStrikes(attacker, request.item);
    }
    if (request.strike !== undefined) {
      const own = getPath(attacker.actor, "flags.fracas.strikes");
      const i = request.strike;
      if (!Array.isArray(own) || !Number.isInteger(i) || i < 0 || i >= own.length) {
        throw InputError.of("FRACAS.Player.NoSuchAttack", { name: who(attacker), attacks: describeAttacks(attacker) });
      }
      const spec = own[i];
      if (spec === null || typeof spec !== "object" || Array.isArray(spec)) throw InputError.of("FRACAS.Error.Actions12", { p0: who(attacker), p1: i + 1 });
      const { target: _aimed, ...rest } = spec;
      return [rest];
    }
    throw InputError.of("FRACAS.Player.PickAttack", { name: who(attacker), attacks: describeAttacks(attacker) });
  }

  /**
   * `attack({ruleset, …})` for Worldwalker, Cartyrion and old-school: same steps, the ruleset's card.
   * @param {import("../connection.js").BridgeConnection} conn
   * @param {string} ruleset
   * @param {TokenView} attacker
   * @param {TokenView[]} targets
   * @param {boolean} apply
   * @param {import("../request.js").Mapping} map
   * @param {Json} options
   * @param {(request: Record<string, any>) => void} [shape]  fits the request to a served ruleset's fields
   */
  async function rulesetAttack(conn, ruleset, attacker, targets, apply, map, options, shape) {
    const { request, targets: used } = buildRulesetAttackRequest({
      ruleset, attacker, targets, strikes: options.strikes, attackerData: options.attackerData,
      targetData: options.targetData, mapping: map,
      options: { seed: seedOption(options), rolls: options.rolls, needBody: apply },
    });
    shape?.(request);
    const requestId = options.requestId ?? newId();
    const names = displayNames(used);
    const result = await conn.call("attack.resolve", request, { id: requestId }).catch((error) => {
      throw explained(error, { strikes: request.strikes, names, attackerName: attacker.name });
    });
    const model = rulesetCardModel(result, { attackerName: attacker.name ?? attacker.id, names, requestId });
    const changes = planChanges(apply, used, damageOf(model));
    // Hidden tokens and hidden nameplates: the GM's card whole, the players' copy as they know them.
    const masked = ctx.shownNames([attacker, ...used], { ...names, [attacker.id]: attacker.name ?? attacker.id });
    const message = await ctx.postWithCopy(changes, {
      content: renderRulesetCard(model, { undoable: changes.length > 0 }),
      rolls: await vtt.makeRolls(rulesetRollSpecs(result)),
      flags: cardFlags("attack", requestId, model.seed, changes),
      speaker: attacker,
      ...ctx.audienceOf(options),
    }, masked && {
      content: renderRulesetCard(rulesetCardModel(result, { attackerName: masked[attacker.id], names: masked, requestId })),
      rolls: await vtt.makeRolls(rulesetRollSpecs(result)), speaker: ctx.speakerAs(attacker, masked), kind: "attack",
    });
    return { requestId, result, messageId: message?.id ?? null, changes };
  }

  /**
   * `attack({ruleset, …})` for a ruleset this module does not port (a plug-in of the
   * bridge's): its contract asked for (server.contract), the request built as for the
   * other rulesets but from the served structs' fields (the actors' flags.fracas.<ruleset>
   * keep only those; a strike, attackerData or targetData field the ruleset lacks is refused
   * naming it), the card from the served result layout, damage from the per-target totals.
   * @param {import("../connection.js").BridgeConnection} conn
   * @param {unknown} ruleset
   * @param {TokenView} attacker
   * @param {TokenView[]} targets
   * @param {boolean} apply
   * @param {import("../request.js").Mapping} map
   * @param {Json} options
   */
  async function servedAttack(conn, ruleset, attacker, targets, apply, map, options) {
    const entry = await learnRuleset(conn, ruleset);
    const fields = servedAttackFields(entry.name);
    if (!fields) throw InputError.of("FRACAS.Error.ServedShape", { ruleset: entry.title });
    /** @param {unknown} data @param {string[]} allowed @param {string} where */
    const only = (data, allowed, where) => {
      if (data === undefined || data === null) return;
      if (typeof data !== "object" || Array.isArray(data)) throw InputError.of("FRACAS.Error.ServedField", { ruleset: entry.title, where, field: "", fields: allowed.join(", ") });
      for (const key of Object.keys(data)) {
        if (!allowed.includes(key)) throw InputError.of("FRACAS.Error.ServedField", { ruleset: entry.title, where, field: key, fields: allowed.join(", ") || "—" });
      }
    };
    if (Array.isArray(options.strikes)) options.strikes.forEach((/** @type {unknown} */ st, /** @type {number} */ i) => only(st, fields.strike, `strikes[${i}]`));
    only(options.attackerData, fields.attacker, "attackerData");
    const perTarget = options.targetData && typeof options.targetData === "object"
      && targets.some((tv) => Object.prototype.hasOwnProperty.call(options.targetData, tv.id));
    if (perTarget) for (const [id, data] of Object.entries(options.targetData)) only(data, fields.target, `targetData.${id}`);
    else only(options.targetData, fields.target, "targetData");
    /** @param {Record<string, any>} data @param {string[]} keep */
    const pick = (data, keep) => Object.fromEntries(Object.entries(data).filter(([k]) => keep.includes(k)));
    return rulesetAttack(conn, entry.name, attacker, targets, apply, map, options, (request) => {
      // flags.fracas.<ruleset> may hold both parts' fields: each part keeps its own.
      request.attacker = pick(request.attacker, fields.attacker);
      for (const id of Object.keys(request.targets)) request.targets[id] = pick(request.targets[id], fields.target);
    });
  }

  return { attack, sceneBystanders, shownTargets, weaponsOf, itemStrikes, describeAttacks, ownAttack, rulesetAttack };
}
