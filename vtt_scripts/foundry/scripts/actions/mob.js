// Mob attacks: the controlled tokens grouped by actor, one bulk request, one card.

import { mobCardModel, mobRollSpecs, renderMobCard } from "../chat.js";
import { InputError } from "../errors.js";
import { t } from "../i18n.js";
import { buildBulkRequest, buildRulesetBulkRequest, uniqueViews } from "../request.js";
import { DEFAULT_RULESET } from "../rulesets.js";
import { displayNames, explained } from "./context.js";

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
    requireGM("Mobs");
    const conn = link();
    const chosen = viewsOf(options.attackers, "attackers") ?? vtt.controlled();
    // Defeated tokens do not attack: left out, and named on the card.
    const out = vtt.defeatedStatus?.() ?? "dead";
    const attackers = chosen.filter((v) => !(v.statuses ?? []).includes(out));
    const skipped = chosen.filter((v) => !attackers.includes(v)).map((v) => v.name ?? v.id);
    if (chosen.length && !attackers.length) throw new InputError(t("FRACAS.Notify.AllDefeated", { names: skipped.join(", ") }));
    const targets = uniqueViews(viewsOf(options.targets, "targets") ?? vtt.targeted());
    const apply = options.applyDamage ?? setting("applyDamage") !== false;
    const map = mapping();
    const ruleset = options.ruleset ?? DEFAULT_RULESET;
    const { request, targets: used, profileNames } = ruleset === DEFAULT_RULESET
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
    const message = await ctx.applyAndPost(changes, {
      content: renderMobCard(model, { undoable: changes.length > 0 }),
      rolls: await vtt.makeRolls(mobRollSpecs(result, { names, profileNames })),
      flags: cardFlags("mob", requestId, model.seed, changes, flagTargets(model, used), model.totalDamage),
      speaker: null,
      ...ctx.audienceOf(options),
    });
    return { requestId, result, messageId: message?.id ?? null, changes };
  }

  return { mob };
}
