// api.round / api.roundUndo: a whole fight from the combat tracker, played by the real
// bridge dispatcher (Python, one process per call, one journal file), applied to the actors.
import "./english.js";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { createActions } from "../scripts/actions.js";
import { buildScenario } from "../scripts/request.js";
import { readMapping } from "../scripts/settings.js";
import { fakeActor, fakeVtt, sheet, view } from "./fakes.js";
import { enrichments } from "./enrich.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const PYTHON = process.env.FRACAS_PYTHON || path.join(REPO, ".venv", "bin", "python");
const TOKEN = "foundry-round-token-0123456789";
const BRIDGE = `
import sys, orjson
from fracas.bridge.dispatcher import Dispatcher, Session
from fracas.bridge.journal import Journal
d = Dispatcher(token="${TOKEN}", journal=Journal(sys.argv[1]))
s = Session(peer="test")
d.handle(s, orjson.dumps({"jsonrpc": "2.0", "id": 0, "method": "auth", "params": {"token": "${TOKEN}"}}).decode())
sys.stdout.write(d.handle(s, sys.stdin.read()).data.decode())
`;

function havePython() {
  return fs.existsSync(PYTHON) && spawnSync(PYTHON, ["-c", "import fracas.bridge"], { cwd: REPO }).status === 0;
}

/** A connection whose answers come from the real dispatcher on `journal`. */
function bridgeConnection(journal) {
  const calls = [];
  return {
    calls,
    async call(method, params, { id } = {}) {
      calls.push({ method, params: structuredClone(params), id });
      const run = spawnSync(PYTHON, ["-c", BRIDGE, journal], {
        cwd: REPO, encoding: "utf8", input: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
      });
      assert.equal(run.status, 0, run.stderr);
      const reply = JSON.parse(run.stdout);
      if (reply.error) throw Object.assign(new Error(reply.error.message), { name: "BridgeError", data: reply.error.data });
      return reply.result;
    },
  };
}

const STRIKES = [{ method: "melee", style: "slashing", dice: 2, weight: 1, damage_type: "edged" }];

function setup() {
  const hero = fakeActor({ uuid: "Actor.hero", name: "Aldric <b>", system: sheet({ ac: 15, hp: 30, hpMax: 30, str: 6, agi: 4 }),
    flags: { fracas: { strikes: [{ method: "melee", style: "cleaving", dice: 3, weight: 2, damage_type: "edged" }] } } });
  hero.hasPlayerOwner = true;
  const gob = fakeActor({ uuid: "Actor.gob", name: "Goblin", system: sheet({ ac: 12, hp: 8, hpMax: 8, str: 2, agi: 3 }),
    flags: { fracas: { strikes: STRIKES } } });
  const gob2 = fakeActor({ uuid: "Actor.gob2", name: "Goblin", system: sheet({ ac: 12, hp: 5, hpMax: 8, str: 2, agi: 3 }),
    flags: { fracas: { strikes: STRIKES } } });
  const tokens = [view("tHero", "Aldric [[1d20]]", hero), view("tGob", "Goblin", gob), view("tGob2", "Goblin 2", gob2)];
  const vtt = fakeVtt({ tokens });
  vtt.combatState = { id: "combat1", current: null, combatants: tokens.map((t, i) => ({ id: `c${i}`, name: t.name, view: t })) };
  vtt.flag = null;
  vtt.combatFlag = () => vtt.flag;
  vtt.setCombatFlag = async (_combat, value) => {
    vtt.flag = structuredClone(value);
  };
  vtt.defeated = [];
  vtt.setDefeated = async (actor, on) => vtt.defeated.push([actor.uuid, on]);
  let n = 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fracas-foundry-round-"));
  process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }));  // no journal left in /tmp
  const journal = path.join(dir, "journal.sqlite3");
  const conn = bridgeConnection(journal);
  const api = createActions({ vtt, connection: () => conn, newId: () => `id-${++n}-0000-0000` });
  return { api, vtt, conn, hero, gob, gob2 };
}

describe("api.round", () => {
  test("builds the fight from the combat, plays round 1 on the bridge and applies it", async (t) => {
    if (!havePython()) {
      if (process.env.CI) assert.fail("no Python with fracas (CI is set)");
      return t.skip("no Python with fracas");
    }
    const { api, vtt, conn, hero, gob, gob2 } = setup();
    const out = await api.round({ seed: 4 });
    assert.ok(out, JSON.stringify(vtt.notes));
    assert.deepEqual(conn.calls.map((c) => c.method), ["encounter.new", "encounter.round"]);
    const sides = conn.calls[0].params.scenario.sides;
    assert.deepEqual(sides.party.map((c) => c.name), ["tHero"]);
    assert.deepEqual(sides.foes.map((c) => c.name), ["tGob", "tGob2"]);
    assert.deepEqual(conn.calls[1].params.hp, { tHero: 30, tGob: 8, tGob2: 5 });
    const members = out.result.members;
    assert.equal(hero.system.health.value, members.tHero.hp);
    assert.equal(gob.system.health.value, members.tGob.hp);
    assert.equal(gob2.system.health.value, members.tGob2.hp);
    for (const [uuid, id] of [["Actor.gob", "tGob"], ["Actor.gob2", "tGob2"]]) {
      assert.equal(vtt.defeated.some(([u, on]) => u === uuid && on), members[id].status === "down");
    }
    assert.equal(vtt.flag.round, 1);
    const card = vtt.messages[0].content;
    assert.match(card, /fracas · round 1/);
    assert.ok(!card.includes("[[1d20]]"), "names are escaped");
    assert.deepEqual(enrichments(card), [], "and never enriched, even after decoding");
  });

  test("a hidden combatant: the round goes whole to the GMs; the players' card has no trace of it; real dice on both", async (t) => {
    if (!havePython()) {
      if (process.env.CI) assert.fail("no Python with fracas (CI is set)");
      return t.skip("no Python with fracas");
    }
    const { api, vtt } = setup();
    vtt.combatState.combatants[1].hidden = true;
    vtt.combatState.combatants[1].name = "Secret Assassin";
    vtt.combatState.combatants[1].view = { ...vtt.combatState.combatants[1].view, name: "Secret Assassin" };
    const out = await api.round({ seed: 4 });
    assert.ok(out, JSON.stringify(vtt.notes));
    const [gm, everyone] = vtt.messages;
    assert.equal(gm.whisperToGM, true);
    assert.match(gm.content, /Secret Assassin/);
    assert.equal(everyone.whisperToGM, false);
    assert.doesNotMatch(everyone.content, /Secret Assassin|tGob"|foes/);
    assert.doesNotMatch(JSON.stringify(everyone.flags), /Secret Assassin|before|after/);
    assert.ok(gm.rolls.length > 0, "the GM's card carries the round's dice as rolls");
    assert.ok(everyone.rolls.length < gm.rolls.length, "the players' card only the dice of what they may see");
    // Per-target buttons on the round card: each member hurt this round has a slot and a flag entry.
    const hurt = gm.flags.fracas.targets.map((x) => x.id);
    assert.ok(hurt.length > 0);
    for (const id of hurt) assert.match(gm.content, new RegExp(`fracas-target-actions" data-target="${id}"`));
  });

  test("the next round reads the Body as it is now; roundUndo takes it back", async (t) => {
    if (!havePython()) return process.env.CI ? assert.fail("no Python with fracas (CI is set)") : t.skip("no Python");
    const { api, vtt, conn, hero, gob } = setup();
    await api.round({ seed: 2 });
    const afterOne = { hero: hero.system.health.value, gob: gob.system.health.value };
    hero.system.health.value = Math.max(1, afterOne.hero - 1); // the GM edits a sheet between rounds
    const second = await api.round({ seed: 3 });
    assert.ok(second, JSON.stringify(vtt.notes));
    const sent = conn.calls.at(-1);
    assert.equal(sent.method, "encounter.round");
    assert.equal(sent.params.expect_round, 1);
    assert.equal(sent.params.hp.tHero, Math.max(1, afterOne.hero - 1));
    const shown = await api.roundUndo();
    assert.equal(shown.round, 1);
    assert.equal(vtt.flag.round, 1);
    assert.equal(gob.system.health.value, afterOne.gob);
  });

  test("clear refusals: no combat, one side only, a player", async () => {
    const { api, vtt } = setup();
    vtt.combatState = null;
    assert.equal(await api.round(), null);
    assert.match(vtt.notes.at(-1).text, /no active combat/);
    vtt.gm = false;
    assert.equal(await api.round(), null);
    assert.match(vtt.notes.at(-1).text, /only a GM/);
  });
});

describe("buildScenario", () => {
  test("one side only, or no strikes, is refused with the token's name", () => {
    const { vtt } = setup();
    const mapping = readMapping((key) => vtt.setting(key));
    const foes = vtt.combatState.combatants.slice(1);
    assert.throws(() => buildScenario({ combatants: foes, mapping }), /two sides/);
    const bare = fakeActor({ uuid: "Actor.x", name: "X", system: sheet(), flags: {} });
    const combatants = [...vtt.combatState.combatants, { id: "cx", name: "Bare", view: view("tX", "Bare", bare) }];
    assert.throws(() => buildScenario({ combatants, mapping }), /Bare: no strikes/);
  });

  test("other rulesets read flags.fracas.<ruleset>", () => {
    const { vtt } = setup();
    const mapping = readMapping((key) => vtt.setting(key));
    for (const c of vtt.combatState.combatants) {
      c.view.actor.flags.fracas["old-school"] = { attack_bonus: 1, str_mod: 1, ac: 14, morale: 8,
        strikes: [{ method: "melee", damage: "1d6" }] };
    }
    const { scenario } = buildScenario({ ruleset: "old-school", combatants: vtt.combatState.combatants, mapping });
    assert.deepEqual(scenario.sides.foes[0].attacker, { attack_bonus: 1, str_mod: 1 });
    assert.deepEqual(scenario.sides.foes[0].target, { ac: 14 });
    assert.equal(scenario.sides.foes[0].morale, 8);
  });
});
