// Whole fights, one round per call, from the combat tracker (docs/ENCOUNTERS.md).

import { renderRoundCard, roundRollSpecs } from "../chat.js";
import { gmOnly } from "../audience.js";
import { InputError } from "../errors.js";
import { t } from "../i18n.js";
import { buildScenario } from "../request.js";
import { DEFAULT_RULESET } from "../rulesets.js";
import { MODULE_ID } from "../settings.js";

/** @typedef {import("../actions.js").TokenView} TokenView */
/** @typedef {import("../actions.js").Json} Json */
/** @typedef {import("../actions.js").CombatView} CombatView */

/**
 * The round actions over the shared context (context.js).
 * @param {import("./context.js").Ctx} ctx
 */
export function roundActions(ctx) {
  const { planChanges, vtt, newId, log, mapping, setting, requireGM, link, seedOption, numberAt, cardFlags } = ctx;

  /** The combat's standing combatants by token id (their views), for a fight's members. */
  /**
   * @param {CombatView} combat
   * @returns {Map<string, TokenView>}
   */
  function membersOf(combat) {
    /** @type {Map<string, TokenView>} */
    const byToken = new Map();
    for (const c of combat.combatants) if (c.view?.id) byToken.set(c.view.id, { ...c.view, id: c.view.id, name: c.name ?? c.view.name });
    return byToken;
  }

  /**
   * A whole fight on the bridge (docs/ENCOUNTERS.md), one round per call: the first call
   * (or `new: true`) makes the encounter from the combat's standing combatants (players'
   * actors are the party, the rest the foes); each call plays the next round with every
   * member's Body as it is now, applies the damage (the system's damage API where there
   * is one, defeated at 0) and posts the round's card with Undo. The encounter's name and
   * round are kept in the combat's flags.
   * @param {Json} [options]
   */
  async function round(options = {}) {
    requireGM("Rounds");
    const conn = link();
    const combat = vtt.combat();
    if (!combat) throw new InputError(t("FRACAS.Error.Actions36"));
    const map = mapping();
    let state = options.new ? null : vtt.combatFlag(combat);
    if (!state || typeof state.name !== "string") {
      const built = buildScenario({ ruleset: options.ruleset ?? DEFAULT_RULESET, combatants: combat.combatants, mapping: map });
      const name = `foundry-${String(combat.id).replace(/[^A-Za-z0-9]/g, "").slice(0, 20)}-${newId().slice(0, 8)}`;
      const made = await conn.call("encounter.new", { name, scenario: built.scenario, replace: true },
        { id: newId() });
      /** @type {Record<string, number>} */
      const max = {};
      for (const side of Object.values(made.sides ?? {})) for (const m of side) max[m.id] = m.hp_max;
      state = { name, round: 0, names: built.names, max };
      await vtt.setCombatFlag(combat, state);
    }
    const views = membersOf(combat);
    /** @type {Record<string, number>} */
    const hp = {};
    for (const id of Object.keys(state.names)) {
      const view = views.get(id);
      const raw = view?.actor ? numberAt(view.actor, map.body) : undefined;
      if (raw !== undefined && Number.isFinite(state.max?.[id])) hp[id] = Math.max(0, Math.min(state.max[id], Math.round(raw)));
    }
    /** @type {Record<string, any>} */
    const params = { name: state.name, expect_round: state.round, hp };
    const seed = seedOption(options);
    if (seed !== undefined && seed !== null) params.seed = seed;
    const requestId = options.requestId ?? newId();
    const log = await conn.call("encounter.round", params, { id: requestId });
    /** @type {Record<string, number>} */
    const damageById = {};
    /** @type {TokenView[]} */
    const hit = [];
    for (const [id, m] of Object.entries(log.members ?? {})) {
      // Only this fight's tokens: an answer cannot reach any other.
      if (!Object.prototype.hasOwnProperty.call(state.names, id) || hp[id] === undefined) continue;
      const taken = hp[id] - m.hp;
      const view = views.get(id);
      if (Number.isInteger(taken) && taken > 0 && view) {
        damageById[id] = taken;
        hit.push(view);
      }
    }
    const apply = options.applyDamage ?? setting("applyDamage") !== false;
    const changes = planChanges(apply, hit, damageById);
    // Hidden combatants are the GM's: with any in the fight, the whole round goes to the
    // GMs (with its Undo), and the players get a card without them.
    /** @type {Set<string>} */
    const hidden = new Set();
    for (const c of combat.combatants) if (c.hidden && c.view?.id) hidden.add(c.view.id);
    // Who took damage this round, for the card's per-target buttons (Undo, Apply, Half, Double).
    const hurt = hit.map((v) => ({ id: v.id, name: state.names[v.id] ?? v.name, uuid: v.actorUuid ?? null, damage: damageById[v.id] }));
    const audience = ctx.audienceOf(options);
    const everyone = !gmOnly(audience.rollMode, audience.requester, audience.gmRequester);
    const message = await ctx.applyAndPost(changes, {
      content: renderRoundCard(log, { names: state.names, requestId, hurt }, { undoable: changes.length > 0 }),
      rolls: await vtt.makeRolls(roundRollSpecs(log, new Set(), state.names)),
      flags: cardFlags("round", requestId, String(log.seed), changes, hurt),
      speaker: null,
      whisperToGM: hidden.size > 0,
      ...audience,
    });
    if (everyone && hidden.size) {
      await vtt.postCard({
        content: renderRoundCard(log, { names: state.names, requestId, hidden }),
        rolls: await vtt.makeRolls(roundRollSpecs(log, hidden, state.names)),
        flags: { [MODULE_ID]: { kind: "round-public", requestId } }, speaker: null, whisperToGM: false, ...audience,
      });
    }
    await vtt.setCombatFlag(combat, { ...state, round: log.round });
    return { requestId, result: log, messageId: message?.id ?? null, changes };
  }

  /** Take the last round back on the bridge, and set every member's Body (and defeated mark) to match. */
  async function roundUndo() {
    requireGM("UndoRounds");
    const conn = link();
    const combat = vtt.combat();
    if (!combat) throw new InputError(t("FRACAS.Error.Actions37"));
    const state = vtt.combatFlag(combat);
    if (!state || typeof state.name !== "string" || !state.round) throw new InputError(t("FRACAS.Error.Actions38"));
    const shown = await conn.call("encounter.undo", { name: state.name, expect_round: state.round },
      { id: newId() });
    const map = mapping();
    const views = membersOf(combat);
    for (const side of Object.values(shown.sides ?? {})) {
      for (const m of side) {
        const view = views.get(m.id);
        if (!view?.actorUuid || !Object.prototype.hasOwnProperty.call(state.names, m.id)) continue;
        const doc = await vtt.getDocument(view.actorUuid);
        if (!doc) continue;
        await vtt.updateDocument(doc, { [map.body]: m.hp });
        if (vtt.setDefeated && setting("markDefeated") !== false) await vtt.setDefeated(doc, m.status === "down");
      }
    }
    await vtt.setCombatFlag(combat, { ...state, round: shown.round });
    vtt.notify("info", t("FRACAS.Round.Undone", { round: shown.round }));
    return shown;
  }

  return { membersOf, round, roundUndo };
}
