// Initiative for the active combat, built as the ruleset's contract says (contract.js
// RULESETS[].client, its manifest's [client]): per combatant (from the system sheet through
// the mapping, or from the actor flags it names) or per side (the party and its opponents).

import { initiativeCardModel, initiativeRollSpecs, initiativeValues, renderInitiativeCard, renderSideInitiativeCard, sideInitiativeRollSpecs } from "../chat.js";
import { gmOnly } from "../audience.js";
import { InputError } from "../errors.js";
import { t } from "../i18n.js";
import { getPath } from "../paths.js";
import { buildInitiativeRequest, who } from "../request.js";
import { DEFAULT_RULESET, rulesetClient, rulesetEntry, structFields } from "../rulesets.js";
import { learnRuleset } from "../served.js";
import { MODULE_ID } from "../settings.js";

/** @typedef {import("../actions.js").Json} Json */
/** @typedef {import("../actions.js").CombatantView} CombatantView */
/** @typedef {import("../actions.js").CombatView} CombatView */

/**
 * The initiative actions over the shared context (context.js).
 * @param {import("./context.js").Ctx} ctx
 */
export function initiativeActions(ctx) {
  const { vtt, newId, mapping, setting, requireGM, link, seedOption } = ctx;

  /**
   * Initiative for the active combat in `options.ruleset` (the default ruleset's when none);
   * sets the tracker and posts the dice.
   * @param {Json} [options]
   */
  async function initiative(options = {}) {
    requireGM("Initiative");
    const conn = link();
    const combat = vtt.combat();
    if (!combat) throw new InputError(t("FRACAS.Error.Actions14"));
    // Defeated combatants roll nothing and keep their place.
    const standing = combat.combatants.filter((c) => !c.defeated);
    if (!standing.length) throw new InputError(t("FRACAS.Error.Actions15"));
    const ruleset = options.ruleset ?? DEFAULT_RULESET;
    // A ruleset this module has no code for: its contract and [client] hints from the bridge
    // (served.js), asked for before anything is built; without an `initiative` hint the
    // module cannot know whether its combatants or its sides roll, and says so.
    const served = !rulesetEntry(ruleset);
    if (served) await learnRuleset(conn, ruleset);
    const client = rulesetClient(ruleset);
    if (served && !client.initiative) throw new InputError(t("FRACAS.Error.ServedInitiative", { ruleset }));
    if (client.initiative === "side") return sideInitiative(conn, ruleset, combat, standing, options);
    /** @type {Record<string, any>} */
    let request;
    if (client.initiative_flags?.length || served) {
      // Each combatant's fields from its actor's flags (WW-1: flags.fracas.worldwalker.dex_mod).
      const flags = client.initiative_flags ?? [];
      request = { ruleset, combatants: standing.map((c) => {
        /** @type {Record<string, any>} */
        const entry = { id: c.id };
        for (const field of flags) {
          const path = `flags.fracas.${ruleset}.${field}`;
          const value = getPath(c.view?.actor, path);
          if (!Number.isInteger(value)) throw new InputError(t("FRACAS.Error.Actions16", { name: c.name, field, path, rule: client.initiative_rule ?? ruleset }));
          entry[field] = value;
        }
        return entry;
      }) };
      const seed = seedOption(options);
      if (seed !== undefined && seed !== null) request.seed = seed;
      if (options.rolls) request.rolls = options.rolls;
    } else {
      request = buildInitiativeRequest({
        combatants: standing, mapping: mapping(),
        options: { seed: seedOption(options), rolls: options.rolls },
      });
    }
    const requestId = options.requestId ?? newId();
    const result = await conn.call("initiative.roll", request, { id: requestId });
    const names = Object.fromEntries(standing.map((c) => [c.id, c.name]));
    const model = initiativeCardModel(result, { names, requestId });
    const values = initiativeValues(model.order);
    await vtt.setInitiative(combat, values, { keepTurnOf: combat.current ?? null });
    const flags = { [MODULE_ID]: { kind: "initiative", requestId, seed: model.seed, changes: [], undone: null } };
    // Hidden combatants are the GM's: the whole order goes to the GM; a public card
    // (when chat is public) shows only the combatants the players can see.
    const hidden = new Set(standing.filter((c) => c.hidden).map((c) => c.id));
    const audience = ctx.audienceOf(options);
    const everyone = !gmOnly(audience.rollMode, audience.requester, audience.gmRequester);
    let message;
    if (!everyone || hidden.size) {
      message = await vtt.postCard({
        content: renderInitiativeCard(model), rolls: await vtt.makeRolls(initiativeRollSpecs(model)),
        flags, speaker: null, whisperToGM: true,
      });
    }
    // A roll-off shows only when someone visible tied: a tie with a hidden combatant alone
    // would tell the players it is there.
    /** @type {{id: string, total: number, tiebreaks: number[]}[]} */
    const order = model.order;
    const shown = order.filter((e) => !hidden.has(e.id));
    const visible = { ...model, order: shown.map((e, i) => ({ ...e, rank: i + 1,
      tiebreaks: shown.some((o) => o !== e && o.total === e.total) ? e.tiebreaks : [] })) };
    if (everyone && visible.order.length) {
      message = await vtt.postCard({
        content: renderInitiativeCard(visible), rolls: await vtt.makeRolls(initiativeRollSpecs(visible)),
        flags, speaker: null, whisperToGM: false, ...audience,
      });
    }
    return { requestId, result, values, messageId: message?.id ?? null };
  }

  /**
   * Side initiative (a ruleset whose contract says `initiative: "side"`: CT-1, OS-1): the
   * party (combatants a player owns) and its opponents (the rest) roll as sides; every
   * combatant of the side that acts first gets the higher initiative (sides acting together
   * get the same). The request has what the ruleset's initiative request takes: the combat's
   * `round`, the two `sides`, and its options (contract.js initiative_options: the caller's,
   * else their defaults). The card names the sides, not the combatants, so hidden ones stay
   * hidden.
   * @param {import("../connection.js").BridgeConnection} conn
   * @param {string} ruleset
   * @param {import("../actions.js").CombatView & {round?: number}} combat
   * @param {import("../actions.js").CombatantView[]} standing
   * @param {Json} options
   */
  async function sideInitiative(conn, ruleset, combat, standing, options) {
    /** @type {Record<string, any>} */
    const request = { ruleset };
    const fields = structFields(ruleset, "InitiativeRequest") ?? [];
    if (fields.includes("round")) request.round = combat.round ?? options.round ?? 1;
    if (fields.includes("sides")) request.sides = [{ id: "party" }, { id: "opponents" }];
    for (const [field, value] of Object.entries(rulesetClient(ruleset).initiative_options ?? {})) {
      request[field] = options[field] ?? value;
    }
    const seed = seedOption(options);
    if (seed !== undefined && seed !== null) request.seed = seed;
    if (options.rolls) request.rolls = options.rolls;
    const requestId = options.requestId ?? newId();
    const result = await conn.call("initiative.roll", request, { id: requestId });
    const sideOf = (/** @type {import("../actions.js").CombatantView} */ c) => (c.view?.actor?.hasPlayerOwner ? "party" : "opponents");
    // Groups of sides in acting order: the side that acts `first` (CT-1), or the groups (OS-1).
    const groups = typeof result.first === "string"
      ? [[result.first], [result.first === "party" ? "opponents" : "party"]]
      : result.order;
    const values = standing.map((c) => ({ id: c.id, value: groups.length - groups.findIndex((/** @type {string[]} */ g) => g.includes(sideOf(c))) }));
    await vtt.setInitiative(combat, values, { keepTurnOf: combat.current ?? null });
    const message = await vtt.postCard({
      content: renderSideInitiativeCard(result), rolls: await vtt.makeRolls(sideInitiativeRollSpecs(result)),
      flags: { [MODULE_ID]: { kind: "initiative", requestId, seed: String(result.seed), changes: [], undone: null } },
      speaker: null, ...ctx.audienceOf(options),
    });
    return { requestId, result, values, messageId: message?.id ?? null };
  }

  return { initiative, sideInitiative };
}
