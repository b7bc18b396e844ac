// Exactly one holder of the bridge connection among one GM's tabs (issue: two tabs of
// the same GM both resolved a player's attack, with two rolls and double damage).

import "./english.js";
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { HolderElection } from "../scripts/holder.js";
import { FakeClock } from "./fakes.js";

/** Tabs of one user on one relay: a message reaches every other started tab, as Foundry's socket does. */
function world() {
  const clock = new FakeClock();
  const clockApi = { setTimeout: clock.setTimeout, clearTimeout: clock.clearTimeout, now: () => clock.now };
  const tabs = [];
  const open = (name) => {
    const tab = { name, up: true, changes: [] };
    tab.election = new HolderElection({
      clientId: name, since: clock.now, clock: clockApi, beaconMs: 5000, listenMs: 1500,
      emit: (message) => { if (!tab.up) return; for (const other of tabs) if (other !== tab && other.up) other.election.receive(structuredClone(message)); },
      onChange: (holds) => tab.changes.push(holds),
    });
    tabs.push(tab);
    tab.election.start();
    return tab;
  };
  const holders = () => tabs.filter((t) => t.up && t.election.holds).map((t) => t.name);
  return { clock, open, holders };
}

describe("the bridge holder", () => {
  test("the first tab holds; a second tab of the same GM never does while the first is open", () => {
    const w = world();
    const first = w.open("a");
    assert.deepEqual(w.holders(), [], "nobody holds while listening for older tabs");
    w.clock.advance(1500);
    assert.deepEqual(w.holders(), ["a"]);
    w.clock.advance(10000);
    w.open("b");
    w.clock.advance(60000);
    assert.deepEqual(w.holders(), ["a"]);
    assert.deepEqual(first.changes, [true], "the first tab never let go");
  });

  test("hand-over: the holder closes (bye) and the next oldest takes over at once", () => {
    const w = world();
    const a = w.open("a");
    w.clock.advance(2000);
    const b = w.open("b");
    w.clock.advance(2000);
    const c = w.open("c");
    w.clock.advance(2000);
    a.election.stop();
    a.up = false;
    assert.deepEqual(w.holders(), ["b"]);
    assert.deepEqual(b.changes, [true]);
    assert.deepEqual(c.changes, []);
  });

  test("a crashed holder (no bye) is replaced after three missed beacons, not before", () => {
    const w = world();
    const a = w.open("a");
    w.clock.advance(2000);
    w.open("b");
    w.clock.advance(2000);
    a.up = false; // gone without a word: its timers may still run, but nobody hears it
    w.clock.advance(10000);
    assert.deepEqual(w.holders(), [], "two missed beacons: still waiting");
    w.clock.advance(10000);
    assert.deepEqual(w.holders(), ["b"]);
  });

  test("two tabs opened at the same moment: the smaller id holds, exactly one", () => {
    const w = world();
    w.open("y");
    w.open("x");
    w.clock.advance(1500);
    assert.deepEqual(w.holders(), ["x"]);
  });

  test("messages without a client id, or with a bad time, change nothing", () => {
    const w = world();
    const a = w.open("a");
    w.clock.advance(1500);
    a.election.receive({ kind: "here", client: "0", since: "yesterday" });
    a.election.receive({ kind: "here", since: -1 });
    a.election.receive(null);
    assert.deepEqual(w.holders(), ["a"]);
  });
});
