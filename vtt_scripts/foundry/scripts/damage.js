// Damage bookkeeping: what to write where, what to write back on Undo, and writing
// a set of values so that either all of them land or none does.
//
// A change is { uuid, name, path, before, after, damage } for one actor. Two targeted
// tokens of one linked actor are one change (their damage adds up), so Undo restores
// the actor's exact value from before the attack.

import { FracasError, InputError } from "./errors.js";
import { readInteger } from "./paths.js";

/**
 * The Body changes for an attack's per-target damage.
 * @param {object} args
 * @param {{id: string, name: string, actorUuid: string, actor: object}[]} args.targets
 * @param {Record<string, number>} args.damageById  damage per target (token) id
 * @param {string} args.path        the Body data path
 * @param {boolean} [args.floorAtZero=true]
 * @returns {object[]} changes, in target order, only for actors that take damage
 */
export function planDamage({ targets, damageById, path, floorAtZero = true }) {
  if (!path) throw new InputError("no data path is set for Body; set it in the fracas module settings");
  const byActor = new Map();
  for (const t of targets) {
    const damage = damageById[t.id] ?? 0;
    if (!Number.isInteger(damage) || damage < 0) {
      throw new FracasError(`the bridge reported damage ${JSON.stringify(damage)} for ${t.name}; nothing was applied`);
    }
    if (damage === 0) continue;
    if (!t.actorUuid || !t.actor) throw new InputError(`${t.name}: the token has no actor to take damage`);
    let entry = byActor.get(t.actorUuid);
    if (!entry) {
      const { value, problem } = readInteger(t.actor, path);
      if (problem) throw new InputError(`${t.name}: Body: ${problem}; nothing was applied`);
      entry = { uuid: t.actorUuid, name: t.name, path, before: value, damage: 0 };
      byActor.set(t.actorUuid, entry);
    } else if (!entry.name.split(", ").includes(t.name)) {
      entry.name = `${entry.name}, ${t.name}`;
    }
    entry.damage += damage;
  }
  return [...byActor.values()].map((e) => {
    const after = floorAtZero ? Math.max(0, e.before - e.damage) : e.before - e.damage;
    return { ...e, after: Math.min(after, e.before) };
  });
}

/**
 * Undo of `changes` given the actors' current values.
 * @param {object[]} changes  as planned by planDamage (kept in the message flags)
 * @param {(change: object) => unknown} currentOf  the value at change.path now
 * @returns {{writes: object[], drifted: object[]}} writes restore `before`; drifted
 *   lists actors whose value changed since the attack (restored all the same)
 */
export function planUndo(changes, currentOf) {
  const writes = [];
  const drifted = [];
  for (const c of changes) {
    const current = currentOf(c);
    writes.push({ uuid: c.uuid, name: c.name, path: c.path, value: c.before, restore: current });
    if (current !== c.after) drifted.push({ name: c.name, expected: c.after, current });
  }
  return { writes, drifted };
}

/**
 * Write `writes` ({uuid, name, path, value, restore}) to their documents, all or none:
 * every document is looked up before the first write, and when a write fails the
 * ones already made are written back to `restore`.
 * @param {object[]} writes
 * @param {{getDocument: (uuid: string) => Promise<object|null>,
 *          update: (doc: object, data: object) => Promise<unknown>}} io
 */
export async function writeAll(writes, io) {
  const docs = [];
  for (const w of writes) {
    let doc = null;
    try {
      doc = await io.getDocument(w.uuid);
    } catch {
      doc = null;
    }
    if (!doc) throw new FracasError(`${w.name}: the actor is gone (${w.uuid}); nothing was changed`);
    docs.push(doc);
  }
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
      const tail = failedBack.length
        ? `; could not put back ${failedBack.join(", ")}: check them by hand`
        : "; nothing was changed";
      throw new FracasError(`updating ${w.name} failed (${why})${tail}`);
    }
  }
}
