// Damage bookkeeping: what to write where, what to write back on Undo, and writing
// a set of values so that either all of them land or none does.
//
// A change is { uuid, name, path, before, after, damage } for one actor. Two targeted
// tokens of one linked actor are one change (their damage adds up). `before` and
// `after` are measured when the change is applied, on the actor's queue (ActorQueue),
// and Undo gives back their difference: it never writes an old value over damage or
// healing that landed since.

import { FracasError, InputError } from "./errors.js";
import { readInteger } from "./paths.js";
import { t } from "./i18n.js";

/**
 * One actor's Body change: planned by planDamage, then filled in when applied (what was
 * found and left, the system adapter used, the defeated mark) so Undo can give it back.
 * @typedef {object} Change
 * @property {string} uuid      the actor's uuid
 * @property {string} name      its tokens' names
 * @property {string} path      the Body data path
 * @property {number} before
 * @property {number} after
 * @property {number} damage
 * @property {string[]} targets  the token ids hit
 * @property {string} [tempPath]
 * @property {number|null} [tempBefore]
 * @property {number|null} [tempAfter]
 * @property {string} [system]   the game system adapter that took the damage
 * @property {boolean} [defeated]
 */

/**
 * The Body changes for an attack's per-target damage.
 * @param {object} args
 * @param {{id: string, name?: string, actorUuid?: string|null, actor?: unknown}[]} args.targets
 * @param {Record<string, number>} args.damageById  damage per target (token) id
 * @param {string} args.path        the Body data path
 * @param {boolean} [args.floorAtZero=true]
 * @returns {Change[]} changes, in target order, only for actors that take damage
 */
export function planDamage({ targets, damageById, path, floorAtZero = true }) {
  if (!path) throw new InputError(t("FRACAS.Error.Damage01"));
  const byActor = new Map();
  for (const tv of targets) {
    const damage = damageById[tv.id] ?? 0;
    if (!Number.isInteger(damage) || damage < 0) {
      throw new FracasError(t("FRACAS.Error.Damage02", { p0: JSON.stringify(damage), name: tv.name }));
    }
    if (damage === 0) continue;
    if (!tv.actorUuid || !tv.actor) throw new InputError(t("FRACAS.Error.Damage03", { name: tv.name }));
    let entry = byActor.get(tv.actorUuid);
    if (!entry) {
      const { value, problem } = readInteger(tv.actor, path);
      if (problem) throw new InputError(t("FRACAS.Error.Damage04", { name: tv.name, problem }));
      entry = { uuid: tv.actorUuid, name: tv.name ?? tv.id, path, before: /** @type {number} no problem: an integer */ (value), damage: 0, targets: /** @type {string[]} */ ([]) };
      byActor.set(tv.actorUuid, entry);
    } else if (tv.name && !entry.name.split(", ").includes(tv.name)) {
      entry.name = `${entry.name}, ${tv.name}`;
    }
    entry.damage += damage;
    if (!entry.targets.includes(tv.id)) entry.targets.push(tv.id);
  }
  return [...byActor.values()].map((e) => {
    const after = floorAtZero ? Math.max(0, e.before - e.damage) : e.before - e.damage;
    const { targets: hit, ...rest } = e;
    return { ...rest, after: Math.min(after, e.before), targets: hit };
  });
}

/**
 * The Body an undo restores for one change, by delta: what the change took (before −
 * after, as measured when it was applied) is given back to the value found now, so
 * damage or healing that landed in between is kept. A known maximum caps it, and what
 * the cap kept back is reported.
 * @param {{before: number, after: number}} change
 * @param {number} current   the Body now
 * @param {number|undefined} max  the Body maximum, when known
 * @returns {{value: number, taken: number, lost: number}} the value to write, what the
 *   change took, and how much of that could not be given back
 */
export function undoValue(change, current, max) {
  const taken = Math.max(0, change.before - change.after);
  let value = current + taken;
  let lost = 0;
  if (max !== undefined && Number.isFinite(max) && value > max) {
    lost = Math.min(taken, value - Math.max(max, current));
    value = current + taken - lost;
  }
  return { value, taken, lost };
}

/**
 * One ordered queue per actor: every damage and undo of an actor runs after the ones
 * queued before it, so each reads the value the previous one wrote (five attacks at
 * once on one target all land). A task on several actors waits for all of them; it
 * takes its place on every actor's queue at once, so two tasks never wait on each other.
 */
export class ActorQueue {
  /** @type {Map<string, Promise<void>>} */
  #tails = new Map();

  /**
   * Run `task` once every task queued before it on any of `keys` has finished.
   * @template T
   * @param {string[]} keys    actor uuids
   * @param {() => Promise<T>} task
   * @returns {Promise<T>}
   */
  run(keys, task) {
    const unique = [...new Set(keys)];
    const before = unique.map((k) => this.#tails.get(k) ?? Promise.resolve());
    const result = Promise.all(before).then(() => task());
    /** @type {Promise<void>} */
    const done = result.then(() => undefined, () => undefined);
    for (const k of unique) this.#tails.set(k, done);
    done.then(() => {
      for (const k of unique) if (this.#tails.get(k) === done) this.#tails.delete(k);
    });
    return result;
  }

  /** How many actors have work queued (for tests). */
  get size() {
    return this.#tails.size;
  }
}

/**
 * The documents of `items` ({uuid, name}), every one looked up before anything is
 * written: one that is gone (or cannot be read) stops it all, named.
 * @param {{uuid: string, name: string}[]} items
 * @param {(uuid: string) => Promise<any>} getDocument  (any: an Actor, the game system's document)
 * @returns {Promise<any[]>}
 */
export async function documentsOf(items, getDocument) {
  const docs = [];
  for (const item of items) {
    let doc = null;
    try {
      doc = await getDocument(item.uuid);
    } catch {
      doc = null;
    }
    if (!doc) throw new FracasError(t("FRACAS.Error.Damage05", { name: item.name, uuid: item.uuid }));
    docs.push(doc);
  }
  return docs;
}

/**
 * Write `writes` ({uuid, name, path, value, restore}) to their documents, all or none:
 * every document is looked up before the first write, and when a write fails the
 * ones already made are written back to `restore`.
 * @param {{uuid: string, name: string, path: string, value: unknown, restore: unknown}[]} writes
 * @param {{getDocument: (uuid: string) => Promise<object|null>,
 *          update: (doc: object, data: object) => Promise<unknown>}} io
 */
export async function writeAll(writes, io) {
  const docs = await documentsOf(writes, io.getDocument);
  const done = [];
  for (let i = 0; i < writes.length; i++) {
    const w = writes[i];
    try {
      await io.update(docs[i], { [w.path]: w.value });
      done.push(i);
    } catch (error) {
      const failedBack = [];
      for (const j of done.reverse()) {
        try {
          await io.update(docs[j], { [writes[j].path]: writes[j].restore });
        } catch {
          failedBack.push(writes[j].name);
        }
      }
      const why = error instanceof Error ? error.message : String(error);
      const tail = failedBack.length ? t("FRACAS.Damage.NotPutBack", { names: failedBack.join(", ") }) : t("FRACAS.Damage.NothingChanged");
      throw new FracasError(t("FRACAS.Error.Damage06", { name: w.name, why, tail }));
    }
  }
}
