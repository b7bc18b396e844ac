// A GM tab that does not hold the bridge (an assistant GM, a second tab): its actions go
// to the holding client like a player's request, with this tab's selection as token ids.

import { KINDS, selectionOf } from "../kinds.js";
import { uniqueViews } from "../request.js";

/** @typedef {import("../actions.js").Json} Json */

/**
 * The relay actions over the shared context (context.js).
 * @param {import("./context.js").Ctx} ctx
 */
export function relayActions(ctx) {
  const { vtt } = ctx;

  /** @param {any} ref  a token, a token document or an id, from a macro */
  const idOf = (ref) => (ref && typeof ref === "object" ? ref.document?.id ?? ref.id : ref);

  /** @param {unknown} refs */
  const idsOf = (refs) => (refs === undefined ? undefined : (Array.isArray(refs) || refs instanceof Set ? [...refs] : [refs]).map(idOf));
  const controlledIds = () => vtt.controlled().map((v) => v.id);
  const targetedIds = () => uniqueViews(vtt.targeted()).map((v) => v.id);
  const oneControlled = () => (vtt.controlled().length === 1 ? vtt.controlled()[0].id : undefined);

  /** Each relayed action: how this tab's selection fills its options. */
  /** @type {Record<string, (o: Json) => Json>} */
  const SELECTION = {
    attack: (o) => ({ attacker: idOf(o.attacker) ?? oneControlled(), targets: idsOf(o.targets) ?? targetedIds(), nearby: idsOf(o.nearby),
      scene: o.scene ?? vtt.sceneId?.() ?? undefined }),
    odds: (o) => ({ attacker: idOf(o.attacker) ?? oneControlled(), targets: idsOf(o.targets) ?? targetedIds() }),
    mob: (o) => ({ attackers: idsOf(o.attackers) ?? controlledIds(), targets: idsOf(o.targets) ?? targetedIds() }),
    compete: (o) => ({ challenger: idOf(o.challenger) ?? oneControlled(), defender: idOf(o.defender) ?? targetedIds()[0] }),
    impale: (o) => ({ pikeman: idOf(o.pikeman) ?? oneControlled(), charger: idOf(o.charger) ?? targetedIds()[0] }),
    initiative: () => ({}),
    round: () => ({}),
    roundUndo: () => ({}),
    // A forecast reads the asking tab's scene (its own selection plays no part).
    forecast: (o) => ({ scene: o.scene ?? vtt.sceneId?.() ?? undefined }),
    // The kinds the bridge rolls (kinds.js): each part's tokens, named or from this tab's selection.
    ...Object.fromEntries(Object.values(KINDS).map((entry) => [entry.kind, (/** @type {Json} */ o) => Object.fromEntries(entry.parts.map((part) => {
      const own = idsOf(o[part.role]);
      if (own) return [part.role, own];
      return [part.role, selectionOf(part, controlledIds(), targetedIds())];
    }))])),
  };

  /** The holder's side: the actions a GM-role sender may run there. */
  /** @type {Record<string, (o: Json) => Promise<unknown>>} the actions another GM tab may relay */
  const RELAYED = {
    attack: (o) => ctx.attack(o), odds: (o) => ctx.odds(o), mob: (o) => ctx.mob(o), compete: (o) => ctx.compete(o),
    impale: (o) => ctx.impale(o), initiative: (o) => ctx.initiative(o), round: (o) => ctx.round(o), roundUndo: () => ctx.roundUndo(),
    undo: (o) => ctx.undo(o.messageId), applyTarget: (o) => ctx.applyTarget(o.messageId, o.targetId, o.multiplier),
    undoTarget: (o) => ctx.undoTarget(o.messageId, o.targetId),
    forecast: (o) => ctx.forecast(o), forecastVary: (o) => ctx.forecastVary(o.messageId, o.choice),
    forecastShare: (o) => ctx.forecastShare(o.messageId),
    ...Object.fromEntries(Object.keys(KINDS).map((kind) => [kind, (/** @type {Json} */ o) => ctx.bridged(kind, o)])),
  };

  /** `fn`, or on a GM tab that does not hold the bridge, the same action on the holding client. */
  /**
   * @param {string} name
   * @param {(...args: any[]) => Promise<unknown>} fn  one of the actions (each with its own arguments)
   */
  const viaHolder = (name, fn) => async (/** @type {any[]} the action's own arguments, passed on as they are */ ...args) => {
    if (!vtt.isGM() || vtt.holdsConnection()) return fn(...args);
    /** @type {Record<string, any>} */
    let data;
    if (name === "undo") data = { messageId: args[0] };
    else if (name === "applyTarget") data = { messageId: args[0], targetId: args[1], multiplier: args[2] ?? 1 };
    else if (name === "undoTarget") data = { messageId: args[0], targetId: args[1] };
    else if (name === "forecastShare") data = { messageId: args[0] };
    else if (name === "forecastVary") data = { messageId: args[0], choice: args[1] };
    else {
      const options = { ...(args[0] ?? {}) };
      // This tab's chat roll mode (core.rollMode): the holder posts the card as this user would
      // (a self roll to this user alone, private and blind to the GMs), not with the holder's mode.
      const rollMode = options.rollMode ?? vtt.rollMode?.();
      data = { ...options, ...SELECTION[name](options), rollMode };
      for (const [k, v] of Object.entries(data)) if (v === undefined) delete data[k];
    }
    return ctx.relay(name, data);
  };

  return { idOf, idsOf, controlledIds, targetedIds, oneControlled, SELECTION, RELAYED, viaHolder };
}
