import "./english.js";
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { ActorQueue, planDamage, undoValue, writeAll } from "../scripts/damage.js";
import { FracasError } from "../scripts/errors.js";
import { fakeActor, sheet, view } from "./fakes.js";

const path = "system.health.value";

function world() {
  const hero = fakeActor({ uuid: "Actor.hero", name: "Aldric", system: sheet({ hp: 12 }) });
  const ogre = fakeActor({ uuid: "Actor.ogre", name: "Ogre", system: sheet({ hp: 3 }) });
  const docs = new Map([[hero.uuid, hero], [ogre.uuid, ogre]]);
  const io = { getDocument: async (uuid) => docs.get(uuid) ?? null, update: (doc, data) => doc.update(data) };
  return { hero, ogre, docs, io };
}

describe("planDamage", () => {
  test("one change per actor with damage; linked tokens of one actor add up; 0 damage changes nothing", () => {
    const { hero, ogre } = world();
    const targets = [view("t1", "Aldric", hero), view("t2", "Aldric (mirror)", hero), view("t3", "Ogre", ogre), view("t4", "Ghost", null)];
    const changes = planDamage({ targets, damageById: { t1: 2, t2: 3, t3: 5, t4: 0 }, path });
    assert.deepEqual(changes, [
      { uuid: "Actor.hero", name: "Aldric, Aldric (mirror)", path, before: 12, damage: 5, after: 7, targets: ["t1", "t2"] },
      { uuid: "Actor.ogre", name: "Ogre", path, before: 3, damage: 5, after: 0, targets: ["t3"] },
    ]);
    const negative = planDamage({ targets: [view("t3", "Ogre", ogre)], damageById: { t3: 5 }, path, floorAtZero: false });
    assert.equal(negative[0].after, -2);
  });

  test("a Body that is not a number stops everything, naming the token", () => {
    const { hero } = world();
    hero.system.health.value = "dying";
    assert.throws(() => planDamage({ targets: [view("t1", "Aldric", hero)], damageById: { t1: 1 }, path }),
      /Aldric: Body: system\.health\.value holds "dying", not a number; nothing was applied/);
  });
});

describe("undoValue: undo by delta", () => {
  test("gives back what the change took to the value found now; a maximum caps it and says how much", () => {
    assert.deepEqual(undoValue({ before: 12, after: 7 }, 7, 12), { value: 12, taken: 5, lost: 0 });
    assert.deepEqual(undoValue({ before: 12, after: 7 }, 3, 12), { value: 8, taken: 5, lost: 0 }, "a later blow of 4 is kept");
    assert.deepEqual(undoValue({ before: 12, after: 7 }, 10, 12), { value: 12, taken: 5, lost: 3 }, "healed meanwhile: 3 would go over");
    assert.deepEqual(undoValue({ before: 12, after: 7 }, 14, 12), { value: 14, taken: 5, lost: 5 }, "already above the maximum: nothing added");
    assert.deepEqual(undoValue({ before: 3, after: 0 }, 0, undefined), { value: 3, taken: 3, lost: 0 });
  });
});

describe("ActorQueue", () => {
  test("tasks on one actor run one after the other, in the order queued; other actors do not wait", async () => {
    const queue = new ActorQueue();
    const log = [];
    const step = (name, ms) => async () => {
      log.push(`${name} start`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`${name} end`);
      return name;
    };
    const out = await Promise.all([
      queue.run(["A"], step("a1", 5)), queue.run(["A"], step("a2", 1)), queue.run(["B"], step("b1", 1)), queue.run(["A", "B"], step("ab", 1)),
    ]);
    assert.deepEqual(out, ["a1", "a2", "b1", "ab"]);
    assert.ok(log.indexOf("a1 end") < log.indexOf("a2 start"));
    assert.ok(log.indexOf("b1 start") < log.indexOf("a1 end"), "B does not wait for A");
    assert.ok(log.indexOf("a2 end") < log.indexOf("ab start") && log.indexOf("b1 end") < log.indexOf("ab start"));
    assert.equal(queue.size, 0, "nothing left behind");
  });

  test("a failing task does not stop the ones behind it", async () => {
    const queue = new ActorQueue();
    const failed = queue.run(["A"], async () => { throw new Error("no"); });
    const next = queue.run(["A"], async () => "ran");
    await assert.rejects(failed, /no/);
    assert.equal(await next, "ran");
  });
});

describe("writeAll", () => {
  test("writes every value", async () => {
    const { hero, ogre, io } = world();
    await writeAll([
      { uuid: hero.uuid, name: "Aldric", path, value: 7, restore: 12 },
      { uuid: ogre.uuid, name: "Ogre", path, value: 0, restore: 3 },
    ], io);
    assert.equal(hero.system.health.value, 7);
    assert.equal(ogre.system.health.value, 0);
  });

  test("a missing actor stops it before the first write", async () => {
    const { hero, io } = world();
    await assert.rejects(writeAll([
      { uuid: hero.uuid, name: "Aldric", path, value: 7, restore: 12 },
      { uuid: "Actor.gone", name: "Wisp", path, value: 0, restore: 3 },
    ], io), /Wisp: the actor is gone \(Actor\.gone\); nothing was changed/);
    assert.deepEqual(hero.updates, []);
  });

  test("a failing write puts the earlier ones back: nothing half-applied", async () => {
    const { hero, ogre, io } = world();
    ogre.failNext = new Error("permission denied");
    await assert.rejects(writeAll([
      { uuid: hero.uuid, name: "Aldric", path, value: 7, restore: 12 },
      { uuid: ogre.uuid, name: "Ogre", path, value: 0, restore: 3 },
    ], io), (e) => e instanceof FracasError && e.message === "updating Ogre failed (permission denied); nothing was changed");
    assert.equal(hero.system.health.value, 12);
    assert.equal(ogre.system.health.value, 3);
    assert.deepEqual(hero.updates, [{ [path]: 7 }, { [path]: 12 }]);
  });

  test("when putting back fails too, the message says whom to check", async () => {
    const { hero, ogre, io } = world();
    ogre.failNext = new Error("offline");
    const update = io.update;
    let heroWrites = 0;
    io.update = async (doc, data) => {
      if (doc === hero && ++heroWrites === 2) throw new Error("offline");
      return update(doc, data);
    };
    await assert.rejects(writeAll([
      { uuid: hero.uuid, name: "Aldric", path, value: 7, restore: 12 },
      { uuid: ogre.uuid, name: "Ogre", path, value: 0, restore: 3 },
    ], io), /updating Ogre failed \(offline\); could not put back Aldric: check them by hand/);
  });
});
