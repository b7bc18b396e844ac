// Damage and undo on the holding client: every change of an actor's Body runs on that
// actor's queue, all or none, and Undo gives back by delta (README: Damage and Undo).

import { gmOnly } from "../audience.js";
import { ActorQueue, documentsOf, undoValue } from "../damage.js";
import { FracasError, InputError } from "../errors.js";
import { t } from "../i18n.js";
import { readInteger } from "../paths.js";
import { who } from "../request.js";
import { MODULE_ID } from "../settings.js";
import { damageAdapter } from "../systems.js";

/** @typedef {import("../actions.js").Json} Json */
/** @typedef {import("../actions.js").Change} Change */
/** @typedef {import("../actions.js").Flags} Flags */
/** @typedef {import("../actions.js").Post} Post */

/**
 * The applying actions over the shared context (context.js).
 * @param {import("./context.js").Ctx} ctx
 */
export function applyingActions(ctx) {
  const { vtt, deps, mapping, setting, requireGM, numberAt } = ctx;

  /**
   * Apply `changes` (all or none), then post the card; if posting fails the damage
   * is taken back, so the world never holds damage without its Undo button.
   * @param {Change[]} changes
   * @param {Post} card
   */
  async function applyAndPost(changes, card) {
    await applyChanges(changes);
    try {
      // Body values are the GM's: on a card players see, the flags keep only what the card
      // shows (who took how much); before and after go to a GM-only ledger (a whisper).
      const flags = card.flags?.[MODULE_ID];
      if (flags && changes.length && !card.whisperToGM && !gmOnly(card.rollMode ?? "publicroll", card.requester, card.gmRequester) && vtt.postLedger) {
        flags.ledger = await vtt.postLedger(changes);
        flags.changes = publicChanges(changes);
      }
      return await vtt.postCard(card);
    } catch (error) {
      let tail = t("FRACAS.Damage.TakenBack");
      try {
        await revertChanges(changes);
      } catch (inner) {
        tail = t("FRACAS.Damage.TakeBackFailed", { why: inner instanceof Error ? inner.message : String(inner) });
      }
      throw new FracasError(t("FRACAS.Error.Actions05", { p0: error instanceof Error ? error.message : String(error), tail }));
    }
  }

  /** What the flags of a card players see may say of its changes: no Body values. */
  const publicChanges = (/** @type {Change[]} */ changes) => changes.map((c) => ({ uuid: c.uuid, name: c.name, damage: c.damage, targets: c.targets ?? [] }));

  /**
   * A card's changes with their Body values (from its GM-only ledger when it has one).
   * @param {Flags} flags
   * @returns {Change[]}
   */
  function changesOf(flags) {
    const list = flags.ledger ? vtt.ledger?.(flags.ledger) : flags.changes;
    // a card's own flags keep the changes applyAndPost wrote (a ledger's, or the public ones)
    return Array.isArray(list) ? /** @type {Change[]} */ (list) : [];
  }

  /**
   * Keep a card's changes (and other flags): Body values in its ledger, the rest on the card.
   * @param {string} messageId
   * @param {Flags} flags
   * @param {Change[]} changes
   * @param {Json} [extra]
   */
  async function saveChanges(messageId, flags, changes, extra = {}) {
    if (flags.ledger && vtt.setLedger) {
      await vtt.setLedger(flags.ledger, changes);
      await vtt.setMessageFlags(messageId, { ...extra, changes: publicChanges(changes) });
    } else {
      await vtt.setMessageFlags(messageId, { ...extra, changes });
    }
  }

  /** Every damage and undo of an actor, in order, on this (the holding) client. */
  const queue = deps.queue ?? new ActorQueue();

  /**
   * Apply planned changes, all or none, on the actors' queue: each change's Body is read
   * when its turn comes and the damage taken from that value (never from the value the
   * attack saw when it was sent). The game system's adapter (systems.js, by
   * game.system.id) takes the damage where there is one and the setting allows; otherwise
   * the Body path is written. Each change records what it found and left (Body and
   * temporary Body), so Undo gives back exactly the difference; a target brought to 0 is
   * marked defeated (when the setting allows), and Undo takes that back too.
   */
  /** @param {Change[]} changes */
  function applyChanges(changes) {
    return queue.run(changes.map((c) => c.uuid), () => applyNow(changes));
  }

  /** @param {Change[]} changes */
  async function applyNow(changes) {
    const docs = await documentsOf(changes, (uuid) => vtt.getDocument(uuid));
    /** @type {number[]} */
    const done = [];
    const tempPath = mapping().bodyTemp;
    const adapter = setting("damageThroughSystem") !== false ? damageAdapter(vtt.systemId?.()) : null;
    const floor = setting("floorBodyAtZero") !== false;
    for (let i = 0; i < changes.length; i++) {
      const c = changes[i];
      const doc = docs[i];
      try {
        const { value: current, problem } = readInteger(doc, c.path);
        if (problem) throw new InputError(t("FRACAS.Error.Actions07", { problem }));
        if (current === undefined) throw new InputError(t("FRACAS.Error.Actions07", { problem: c.path }));
        c.before = current;
        c.after = Math.min(current, floor ? Math.max(0, current - c.damage) : current - c.damage);
        if (tempPath) {
          c.tempPath = tempPath;
          c.tempBefore = numberAt(doc, tempPath) ?? null;
        }
        if (adapter) {
          await adapter.apply(doc, c.damage, vtt.tokenDocument?.(c.targets[0]) ?? null);
          c.system = adapter.id;
          const after = numberAt(doc, c.path);
          if (after !== undefined) c.after = after;
        } else {
          await vtt.updateDocument(doc, { [c.path]: c.after });
        }
        if (tempPath) c.tempAfter = numberAt(doc, tempPath) ?? null;
        if (setting("markDefeated") !== false && c.after <= 0 && c.before > 0 && vtt.setDefeated) {
          await vtt.setDefeated(doc, true);
          c.defeated = true;
        }
        done.push(i);
      } catch (error) {
        /** @type {string[]} */
        const failedBack = [];
        for (const j of done.reverse()) {
          try {
            await revertOne(changes[j], docs[j]);
          } catch {
            failedBack.push(changes[j].name);
          }
        }
        const why = error instanceof Error ? error.message : String(error);
        const tail = failedBack.length ? t("FRACAS.Damage.NotPutBack", { names: failedBack.join(", ") }) : t("FRACAS.Damage.NothingChanged");
        throw new FracasError(t("FRACAS.Error.Actions08", { name: c.name, why, tail }));
      }
    }
  }

  /**
   * Give back one applied change by delta (Body and temporary Body), the defeated mark
   * off when Body is above 0 again. Returns what was written and what a maximum kept back.
   * @param {Change} c
   * @param {any} doc  the actor (the game system's document, untyped)
   */
  async function revertOne(c, doc) {
    const { value: current, problem } = readInteger(doc, c.path);
    if (problem || current === undefined) throw new FracasError(t("FRACAS.Error.Actions09", { problem: problem ?? c.path }));
    const max = mapping().bodyMax ? numberAt(doc, mapping().bodyMax) : undefined;
    const { value, taken, lost } = undoValue(c, current, max);
    /** @type {Record<string, number>} */
    const data = { [c.path]: value };
    if (c.tempPath && typeof c.tempBefore === "number" && typeof c.tempAfter === "number" && Number.isFinite(c.tempBefore) && Number.isFinite(c.tempAfter)) {
      const temp = numberAt(doc, c.tempPath) ?? 0;
      data[c.tempPath] = temp + Math.max(0, c.tempBefore - c.tempAfter);
    }
    await vtt.updateDocument(doc, data);
    if (c.defeated && vtt.setDefeated && value > 0) await vtt.setDefeated(doc, false);
    return { value, taken, lost };
  }

  /** @param {Change[]} changes */
  function revertChanges(changes) {
    return queue.run(changes.map((c) => c.uuid), async () => {
      for (const c of changes) {
        const doc = await vtt.getDocument(c.uuid);
        if (doc) await revertOne(c, doc);
      }
    });
  }

  /**
   * Undo `changes` on their actors' queues, each on its own: what was given back, and
   * exactly what could not be (an actor gone, a Body no longer a number, a maximum).
   * @param {Change[]} changes
   */
  function undoChanges(changes) {
    return queue.run(changes.map((c) => c.uuid), async () => {
      /** @type {{change: Change, value: number, taken: number, lost: number}[]} */
      const restored = [];
      /** @type {{change: Change, why: string, partial?: boolean}[]} */
      const failed = [];
      for (const c of [...changes].reverse()) {
        let doc = null;
        try {
          doc = await vtt.getDocument(c.uuid);
        } catch {
          doc = null;
        }
        if (!doc) {
          failed.push({ change: c, why: t("FRACAS.Undo.Gone", { name: c.name }) });
          continue;
        }
        try {
          const out = await revertOne(c, doc);
          restored.push({ change: c, ...out });
          if (out.lost) failed.push({ change: c, partial: true, why: t("FRACAS.Undo.Capped", { name: c.name, lost: out.lost, taken: out.taken }) });
        } catch (error) {
          failed.push({ change: c, why: `${c.name}: ${error instanceof Error ? error.message : String(error)}` });
        }
      }
      return { restored: restored.reverse(), failed };
    });
  }

  /** Undo the damage of a fracas chat card: restore every exact previous value. */
  /** Cards whose damage is being applied or undone now: one button press at a time per card. */
  /** @type {Set<string>} */
  const cardBusy = new Set();

  /**
   * Run `fn` for one card at a time (two quick clicks on Undo give back the damage once).
   * @template T
   * @param {string} messageId
   * @param {() => Promise<T>} fn
   * @returns {Promise<T>}
   */
  async function onCard(messageId, fn) {
    if (cardBusy.has(messageId)) throw new InputError(t("FRACAS.Undo.Busy"));
    cardBusy.add(messageId);
    try {
      return await fn();
    } finally {
      cardBusy.delete(messageId);
    }
  }

  /**
   * Tell the GM what an undo gave back and, one by one, what it could not.
   * @param {Awaited<ReturnType<typeof undoChanges>>} out
   */
  function reportUndo({ restored, failed }) {
    const back = restored.filter((r) => !failed.some((f) => f.change === r.change && !f.partial));
    if (back.length) {
      vtt.notify("info", t("FRACAS.Undo.Done", { list: back.map((r) => t("FRACAS.Undo.Back", { name: r.change.name, value: r.value })).join(", ") }));
    }
    if (failed.length) vtt.notify("warn", t("FRACAS.Undo.NotRestored", { list: failed.map((f) => f.why).join("; ") }));
  }

  /**
   * Undo the damage of a fracas chat card, by delta: each actor gets back what the card
   * took, whatever happened to it since; what cannot be given back is named, and stays
   * on the card to undo later.
   * @param {string} messageId
   */
  async function undo(messageId) {
    requireGM("UndoDamage");
    return onCard(messageId, async () => {
      const flags = vtt.messageFlags(messageId);
      if (!flags) throw new InputError(t("FRACAS.Error.Actions24"));
      if (flags.undone) throw new InputError(t("FRACAS.Error.Actions25"));
      const changes = changesOf(flags);
      // The status effects a bridge-rolled kind set (a failed save's conditions: bridged.js).
      const statuses = Array.isArray(flags.statuses) ? flags.statuses : [];
      if (!changes.length && !statuses.length) throw new InputError(t("FRACAS.Error.Actions26"));
      const out = changes.length ? await undoChanges(changes) : { restored: [], failed: [] };
      const off = statuses.length ? await ctx.undoStatuses({ statuses }) : null;
      const kept = out.failed.filter((f) => !f.partial).map((f) => f.change);
      if (kept.length) await saveChanges(messageId, flags, changes.filter((c) => kept.some((k) => k.uuid === c.uuid)), off ? { statuses: [] } : {});
      else await vtt.setMessageFlags(messageId, { undone: { at: new Date().toISOString() }, ...(off ? { statuses: [] } : {}) });
      reportUndo(out);
      if (off?.removed.length) vtt.notify("info", t("FRACAS.Bridged.StatusesRemoved", { list: off.removed.join(", ") }));
      if (off?.failed.length) vtt.notify("warn", t("FRACAS.Bridged.StatusesKept", { list: off.failed.join(", ") }));
      return {
        restored: out.restored.map((r) => ({ uuid: r.change.uuid, name: r.change.name, value: r.value, given: r.taken - r.lost })),
        failed: out.failed.map((f) => f.why),
      };
    });
  }

  /**
   * The per-target buttons of a card: apply `multiplier` (1, 0.5 or 2) of the damage the
   * target took in that attack (half rounds down), or undo what was applied to it.
   * @param {string} messageId
   * @param {string} targetId
   * @param {number} [multiplier]
   */
  async function applyTarget(messageId, targetId, multiplier = 1) {
    requireGM("ApplyDamage");
    return onCard(messageId, async () => {
      const flags = vtt.messageFlags(messageId);
      if (!flags) throw new InputError(t("FRACAS.Error.Actions27"));
      const target = (flags.targets ?? []).find((x) => x.id === targetId);
      if (!target) throw new InputError(t("FRACAS.Error.Actions28"));
      if (![1, 0.5, 2].includes(multiplier)) throw new InputError(t("FRACAS.Error.Actions29", { multiplier }));
      const changes = changesOf(flags);
      if (changes.some((c) => (c.targets ?? []).includes(targetId))) {
        throw new InputError(t("FRACAS.Error.Actions30", { name: target.name }));
      }
      if (!target.uuid) throw new InputError(t("FRACAS.Error.Actions31", { name: target.name }));
      const damage = Math.floor((target.damage ?? 0) * multiplier);
      // before and after are measured on the actor's queue, when the damage lands.
      /** @type {Change & {multiplier: number}} */
      const change = { uuid: target.uuid, name: target.name ?? targetId, path: mapping().body, before: 0, damage, after: 0, targets: [targetId], multiplier };
      await applyChanges([change]);
      await saveChanges(messageId, flags, [...changes, change], { undone: null });
      return change;
    });
  }

  /**
   * @param {string} messageId
   * @param {string} targetId
   */
  async function undoTarget(messageId, targetId) {
    requireGM("UndoDamage");
    return onCard(messageId, async () => {
      const flags = vtt.messageFlags(messageId);
      if (!flags) throw new InputError(t("FRACAS.Error.Actions32"));
      const changes = changesOf(flags);
      const mine = changes.filter((c) => (c.targets ?? []).includes(targetId));
      if (!mine.length) throw new InputError(t("FRACAS.Error.Actions33"));
      const out = await undoChanges(mine);
      const kept = out.failed.filter((f) => !f.partial).map((f) => f.change);
      const rest = changes.filter((c) => !mine.includes(c) || kept.includes(c));
      await saveChanges(messageId, flags, rest, { undone: rest.length ? null : flags.undone });
      reportUndo(out);
      return mine;
    });
  }

  return { applyAndPost, publicChanges, changesOf, saveChanges, queue, applyChanges, applyNow, revertOne, revertChanges, undoChanges, onCard, reportUndo, undo, applyTarget, undoTarget };
}
