// Exact odds of an attack through the bridge's attack.odds: nothing rolled or applied.

import { renderOddsCard } from "../chat.js";
import { t } from "../i18n.js";
import { getPath } from "../paths.js";
import { buildAttackRequest, buildRulesetAttackRequest, uniqueViews } from "../request.js";
import { DEFAULT_RULESET } from "../rulesets.js";
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
    requireGM("Odds");
    const conn = link();
    const attacker = attackerOf(options);
    const targets = uniqueViews(viewsOf(options.targets, "targets") ?? vtt.targeted());
    const map = mapping();
    const ruleset = options.ruleset ?? DEFAULT_RULESET;
    const built = ruleset === DEFAULT_RULESET
      ? buildAttackRequest({
        attacker, targets, strikes: options.strikes, mapping: map,
        options: { advantage: options.advantage, disadvantage: options.disadvantage,
          conditions: setting("conditionsFromStatuses") !== false,
          // ER-17 in odds: a stray's damage counts for the creature it would hit, so the odds
          // see the same bystanders the attack would.
          nearby: viewsOf(options.nearby, "nearby"),
          bystanders: options.nearby === undefined ? ctx.sceneBystanders(attacker, targets, options) : undefined },
      })
      : buildRulesetAttackRequest({
        ruleset, attacker, targets, strikes: options.strikes, attackerData: options.attackerData,
        targetData: options.targetData, mapping: map,
      });
    const { request, targets: used } = built;
    /** @type {Record<string, number>} */
    const remaining = {};
    for (const t of used) {
      const body = Number(getPath(t.actor, map.body));
      if (Number.isInteger(body) && body > 0) remaining[t.id] = body;
    }
    /** @type {Record<string, any>} the odds request: the attack's, with what the targets have left */
    const params = { ...request, remaining };
    if (options.count !== undefined) params.count = options.count;
    if (options.atLeast !== undefined) params.at_least = options.atLeast;
    const names = displayNames(used);
    const result = await conn.call("attack.odds", params, { id: newId() }).catch((error) => {
      throw explained(error, { strikes: request.strikes, names, attackerName: attacker.name });
    });
    const message = await vtt.postCard({
      content: renderOddsCard(result, { attackerName: attacker.name ?? attacker.id, names }),
      rolls: [], flags: { [MODULE_ID]: { kind: "odds" } }, speaker: attacker, whisperToGM: true,
    });
    return { result, messageId: message?.id ?? null };
  }

  return { odds };
}
