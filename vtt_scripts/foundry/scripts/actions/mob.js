// Mob attacks: the controlled tokens grouped by actor, one bulk request, one card.

import { mobCardModel, mobRollSpecs, renderMobCard } from "../chat.js";
import { InputError } from "../errors.js";
import { t } from "../i18n.js";
import { buildBulkRequest, buildRulesetBulkRequest, uniqueViews } from "../request.js";
import { DEFAULT_RULESET, ownClient } from "../rulesets.js";
import { displayNames, explained } from "./context.js";

/** @typedef {import("../actions.js").TokenView} TokenView */

/**
 * The mob actions over the shared context (context.js).
 * @param {import("./context.js").Ctx} ctx
 */
export function mobActions(ctx) {
  const { planChanges, damageOf, vtt, newId, mapping, setting, requireGM, link, seedOption, viewsOf, cardFlags, flagTargets } = ctx;

  /**
   * A mob attack (bulk, summary): the controlled tokens grouped by actor attack the
   * targets; per-target totals applied with Undo; one compact card.
   * @param {Record<string, any>} [options] strikes, assign ("split" | "each"), attackers, targets, seed,
   *   advantage, disadvantage, ruleset, attackerData, targetData, applyDamage, requestId
   */
  async function mob(options = {}) {
    if (!vtt.isGM()) return ctx.playerMob(options);
    requireGM("Mobs");
    const conn = link();
    const chosen = viewsOf(options.attackers, "attackers", options.scene) ?? vtt.controlled();
    // Defeated tokens do not attack: left out, and named on the card.
    const out = vtt.defeatedStatus?.() ?? "dead";
    const attackers = chosen.filter((v) => !(v.statuses ?? []).includes(out));
    const skipped = chosen.filter((v) => !attackers.includes(v)).map((v) => v.name ?? v.id);
    if (chosen.length && !attackers.length) throw new InputError(t("FRACAS.Notify.AllDefeated", { names: skipped.join(", ") }));
    const targets = uniqueViews(viewsOf(options.targets, "targets", options.scene) ?? vtt.targeted());
    const apply = options.applyDamage ?? setting("applyDamage") !== false;
    const map = mapping();
    const ruleset = options.ruleset ?? DEFAULT_RULESET;
    const { request, targets: used, profileNames } = ownClient(ruleset)
      ? buildBulkRequest({
        attackers, targets, strikes: options.strikes, assign: options.assign, mapping: map,
        options: {
          seed: seedOption(options), advantage: options.advantage, disadvantage: options.disadvantage,
          conditions: setting("conditionsFromStatuses") !== false, needBody: apply,
        },
      })
      : buildRulesetBulkRequest({
        ruleset, attackers, targets, strikes: options.strikes, attackerData: options.attackerData,
        targetData: options.targetData, assign: options.assign, mapping: map,
        options: { seed: seedOption(options), needBody: apply },
      });
    const requestId = options.requestId ?? newId();
    const names = displayNames(used);
    const result = await conn.call("attack.bulk", request, { id: requestId }).catch((error) => {
      throw explained(error, { names, profileNames });
    });
    const model = { ...mobCardModel(result, { names, profileNames, requestId }), skipped };
    const changes = planChanges(apply, used, damageOf(model));
    // Hidden tokens and hidden nameplates, among the targets and the mob: the GM's card whole,
    // the players' copy as they know them (a profile is named by its actor: masked when any
    // of its tokens is). A hidden target's row stays off the copy, and its damage out of the total.
    const masked = ctx.shownNames(used, names);
    const maskedProfiles = maskProfiles(profileNames, attackers);
    const secretSkipped = chosen.some((v) => !attackers.includes(v) && (v.hidden || v.unnamed));
    /** @type {any} the players' copy of the card model, when it differs */
    let open = null;
    if (masked || maskedProfiles || secretSkipped) {
      const shownAs = masked ?? names;
      const shownProfiles = maskedProfiles ?? profileNames;
      const skippedAs = chosen.filter((v) => !attackers.includes(v))
        .map((v) => (v.hidden ? t("FRACAS.Card.Unseen") : v.unnamed ? t("FRACAS.Card.Unnamed") : v.name ?? v.id));
      open = { ...mobCardModel(result, { names: shownAs, profileNames: shownProfiles, requestId }), skipped: skippedAs };
      const unseen = new Set(used.filter((v) => v.hidden).map((v) => v.id));
      open.targets = open.targets.filter((/** @type {{id: string}} */ x) => !unseen.has(x.id));
      open.totalDamage = open.targets.reduce((/** @type {number} */ sum, /** @type {{damage: number}} */ x) => sum + x.damage, 0);
      open.rolls = mobRollSpecs(result, { names: shownAs, profileNames: shownProfiles });
    }
    const message = await ctx.postWithCopy(changes, {
      content: renderMobCard(model, { undoable: changes.length > 0 }),
      rolls: await vtt.makeRolls(mobRollSpecs(result, { names, profileNames })),
      flags: cardFlags("mob", requestId, model.seed, changes, flagTargets(model, used), open ? open.totalDamage : model.totalDamage),
      speaker: null,
      ...ctx.audienceOf(options),
    }, open && { content: renderMobCard(open), rolls: await vtt.makeRolls(open.rolls), speaker: null, kind: "mob" });
    return { requestId, result, messageId: message?.id ?? null, changes, shownTotal: open ? open.totalDamage : model.totalDamage };
  }

  /**
   * The mob's profile names as players may read them, or null when they may read all: a
   * profile (named by its actor, key = the actor's id or token id, "-2" … for variants) is
   * "someone unseen" when a token of it is hidden, "an unnamed creature" when one's nameplate
   * players do not see.
   * @param {Record<string, string>} profileNames
   * @param {TokenView[]} attackers
   * @returns {Record<string, string>|null}
   */
  function maskProfiles(profileNames, attackers) {
    /** @type {Record<string, string>} */
    const out = { ...profileNames };
    const keys = Object.keys(profileNames).sort();
    const secretOf = (/** @type {string} */ key) => {
      const mine = attackers.filter((v) => { const k = v.actorId ?? v.id; return key === k || key.startsWith(`${k}-`); });
      return mine.some((v) => v.hidden) ? "unseen" : mine.some((v) => v.unnamed) ? "unnamed" : null;
    };
    const unnamed = keys.filter((k) => secretOf(k) === "unnamed");
    let n = 0;
    let any = false;
    for (const key of keys) {
      const why = secretOf(key);
      if (why === "unseen") out[key] = t("FRACAS.Card.Unseen");
      else if (why === "unnamed") out[key] = unnamed.length > 1 ? t("FRACAS.Card.UnnamedN", { n: ++n }) : t("FRACAS.Card.Unnamed");
      any ||= why !== null;
    }
    return any ? out : null;
  }

  return { mob };
}
