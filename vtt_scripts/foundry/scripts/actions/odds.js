// Exact odds of an attack through the bridge's attack.odds: nothing rolled or applied.

import { renderOddsCard } from "../chat.js";
import { t } from "../i18n.js";
import { getPath } from "../paths.js";
import { buildAttackRequest, buildRulesetAttackRequest, uniqueViews } from "../request.js";
import { DEFAULT_RULESET, ownClient } from "../rulesets.js";
import { MODULE_ID } from "../settings.js";
import { displayNames, explained } from "./context.js";

/** @typedef {import("../actions.js").Json} Json */

/**
 * The odds actions over the shared context (context.js).
 * @param {import("./context.js").Ctx} ctx
 */
export function oddsActions(ctx) {
  const { vtt, newId, mapping, setting, requireGM, link, viewsOf, attackerOf } = ctx;

  /**
   * Exact odds of the attack `attack(options)` would make (any ruleset), through the
   * bridge's `attack.odds`: nothing is rolled or applied. Each target's Body (the
   * configured path) is read for the chance it drops; `count` (a mob of identical
   * attacks) and `atLeast` (damage thresholds) are optional. Shows a card to the GM
   * and returns the bridge's answer.
   * @param {Json} [options]
   */
  async function odds(options = {}) {
    if (!vtt.isGM()) return ctx.playerOdds(options);
    requireGM("Odds");
    const conn = link();
    const attacker = attackerOf(options);
    const targets = uniqueViews(viewsOf(options.targets, "targets", options.scene) ?? vtt.targeted());
    const map = mapping();
    const ruleset = options.ruleset ?? DEFAULT_RULESET;
    const built = ownClient(ruleset)
      ? buildAttackRequest({
        attacker, targets, strikes: options.strikes, mapping: map,
        options: { advantage: options.advantage, disadvantage: options.disadvantage,
          conditions: setting("conditionsFromStatuses") !== false,
          // ER-17 in odds: a stray's damage counts for the creature it would hit, so the odds
          // see the same bystanders the attack would.
          nearby: viewsOf(options.nearby, "nearby", options.scene),
          bystanders: options.nearby === undefined ? ctx.sceneBystanders(attacker, targets, options) : undefined },
      })
      : buildRulesetAttackRequest({
        ruleset, attacker, targets, strikes: options.strikes, attackerData: options.attackerData,
        targetData: options.targetData, mapping: map,
      });
    const { request, targets: used } = built;
    /** @type {Record<string, number>} */
    const remaining = {};
    // A player's odds (requester) give the chance to drop only for the tokens whose Body that
    // player may read (readsBody: the ones it owns); the GM's, for every target.
    const reads = Array.isArray(options.readsBody) ? new Set(options.readsBody) : null;
    for (const t of used) {
      if (reads && !reads.has(t.id)) continue;
      const body = Number(getPath(t.actor, map.body));
      if (Number.isInteger(body) && body > 0) remaining[t.id] = body;
    }
    /** @type {Record<string, any>} the odds request: the attack's, with what the targets have left */
    const params = { ...request, remaining };
    if (options.count !== undefined) params.count = options.count;
    if (options.atLeast !== undefined) params.at_least = options.atLeast;
    const names = displayNames(used);
    const result = await conn.call("attack.odds", params, { id: options.requestId ?? newId() }).catch((error) => {
      throw explained(error, { strikes: request.strikes, names, attackerName: attacker.name });
    });
    const requester = typeof options.requester === "string" ? options.requester : null;
    // A player's odds go to that player and the GMs (a private roll), named as the player
    // knows the tokens (hidden nameplates masked); the GM's own, to the GMs.
    const shownAs = requester ? ctx.shownNames([attacker, ...used], { ...names, [attacker.id]: attacker.name ?? attacker.id }) : null;
    const message = await vtt.postCard({
      content: renderOddsCard(result, { attackerName: shownAs?.[attacker.id] ?? attacker.name ?? attacker.id, names: shownAs ?? names }),
      rolls: [], flags: { [MODULE_ID]: { kind: "odds" } }, speaker: ctx.speakerAs(attacker, shownAs),
      ...(requester ? { rollMode: "gmroll", requester } : { whisperToGM: true }),
    });
    return { result, messageId: message?.id ?? null };
  }

  return { odds };
}
