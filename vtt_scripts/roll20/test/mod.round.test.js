'use strict';
// `!fracas round`: a whole fight from the turn order, played by the real bridge
// dispatcher (Python, one process per answer, the same journal file throughout) and
// applied to the tokens through the relay.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { plain, assertSafe, relayTexts } = require('./world');
const { Emulator } = require('./emulator');
const P = require('../src/protocol');
const { pythonPath, pythonHasFracas, skipUnlessCI, REPO_ROOT } = require('./helpers');

const TOKEN = 'round-test-token-0123456789';
const BRIDGE = `
import sys, orjson
from fracas.bridge.dispatcher import Dispatcher, Session
from fracas.bridge.journal import Journal
d = Dispatcher(token=${JSON.stringify(TOKEN)}, journal=Journal(sys.argv[1]))
s = Session(peer="test")
d.handle(s, orjson.dumps({"jsonrpc": "2.0", "id": 0, "method": "auth", "params": {"token": ${JSON.stringify(TOKEN)}}}).decode())
sys.stdout.write(d.handle(s, sys.stdin.read()).data.decode())
`;

const requests = relayTexts;

/** The bridge answers a request text (a real Dispatcher on `journal`). */
function bridge(journal, text) {
  const run = spawnSync(pythonPath(), ['-c', BRIDGE, journal], { input: text, cwd: REPO_ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

/** Relay: answer every request the outputs hold, feed the answers back; returns all outputs. */
function relay(emu, journal, outputs) {
  const seen = [];
  let pending = requests(outputs);
  let rounds = 0;
  while (pending.length && rounds++ < 5) {
    const next = [];
    for (const text of pending) {
      const reply = bridge(journal, text);
      const id = JSON.parse(text).id;
      for (const frame of P.frames('res', id, reply, 500, emu.state.fracas.relay.secret)) {
        const outs = emu.chat(emu.gm, `!fracas-relay ${frame}`);
        seen.push(...outs);
        next.push(...requests(outs));
      }
    }
    pending = next;
  }
  return seen;
}

function fightWorld() {
  const emu = new Emulator();
  const player = emu.addPlayer('Pat');
  const hero = emu.addCharacter('Hero', {
    strength: 6, agility: 4, ac: 15, fracas_strikes: '--dice 3 --style cleaving --weight 2 --type edged',
  }, { controlledby: player.id });
  const goblin = emu.addCharacter('Goblin', {
    strength: 2, agility: 3, ac: 12, fracas_strikes: '--dice 2 --style slashing --weight 1 --type edged',
  });
  // Nameplates players see (showplayers_name; Roll20's default is off: test/world.js).
  const named = { showplayers_name: true };
  const tokens = {
    hero: emu.addToken({ name: 'Hero', represents: hero.id, bar1_value: '30', bar1_max: '30', controlledby: player.id, ...named }),
    g1: emu.addToken({ name: 'Goblin <b>1</b>', represents: goblin.id, bar1_value: '8', bar1_max: '8', ...named }),
    g2: emu.addToken({ name: 'Goblin 2', represents: goblin.id, bar1_value: '5', bar1_max: '8', ...named }),
  };
  emu.campaign().set('turnorder', JSON.stringify(Object.values(tokens).map((t) => ({ id: t.id, pr: 10, custom: '' }))));
  return { emu, player, tokens };
}

test('!fracas round --new builds the fight from the turn order, plays round 1 on the bridge and sets the bars', (t) => {
  if (!pythonHasFracas()) return skipUnlessCI(t, 'no Python with fracas to answer as the bridge');
  const journal = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fracas-round-')), 'journal.sqlite3');
  const { emu, tokens } = fightWorld();
  const sent = emu.chat(emu.gm, '!fracas round --new --seed 5');
  const [newText] = requests(sent);
  const made = JSON.parse(newText);
  assert.equal(made.method, 'encounter.new');
  const sides = made.params.scenario.sides;
  assert.deepEqual(sides.party.map((c) => c.label), ['Hero']);
  assert.deepEqual(sides.foes.map((c) => c.name), [tokens.g1.id, tokens.g2.id]);
  assert.equal(sides.foes[0].attacks[0].style, 'slashing');
  const outs = relay(emu, journal, sent);
  const round1 = outs.map((o) => plain(o.text)).find((text) => text.includes('round 1 (seed 5)'));
  assert.ok(round1, outs.map((o) => o.text).join('\n'));
  assert.ok(round1.includes('Goblin <b>1</b>'), 'names are shown as text');
  assert.equal(emu.state.fracas.fight.round, 1);
  // The bars hold what the bridge says; Goblin 2 started at 5 of 8 (the bar counted).
  const shown = JSON.parse(bridge(journal, JSON.stringify({ jsonrpc: '2.0', id: 'show', method: 'encounter.show',
    params: { name: emu.state.fracas.fight.name } }))).result;
  for (const m of [...shown.sides.party, ...shown.sides.foes]) {
    const token = emu.get(m.id);
    assert.equal(Number(token.get('bar1_value')), m.hp);
    assert.equal(Boolean(token.get('status_dead')), m.status === 'down');
  }
  assertSafe(assert, emu);
});

test('!fracas round plays the next round with the bars as they are, and --undo takes it back', (t) => {
  if (!pythonHasFracas()) return skipUnlessCI(t, 'no Python with fracas to answer as the bridge');
  const journal = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fracas-round-')), 'journal.sqlite3');
  const { emu, tokens } = fightWorld();
  relay(emu, journal, emu.chat(emu.gm, '!fracas round --new --seed 1'));
  const afterOne = Object.fromEntries(Object.entries(tokens).map(([k, tk]) => [k, tk.get('bar1_value')]));
  tokens.hero.set('bar1_value', '25'); // the GM edits a bar between rounds
  const sent = emu.chat(emu.gm, '!fracas round');
  const [text] = requests(sent);
  const req = JSON.parse(text);
  assert.equal(req.method, 'encounter.round');
  assert.equal(req.params.expect_round, 1);
  assert.equal(req.params.hp[tokens.hero.id], 25);
  relay(emu, journal, sent);
  assert.equal(emu.state.fracas.fight.round, 2);
  relay(emu, journal, emu.chat(emu.gm, '!fracas round --undo'));
  assert.equal(emu.state.fracas.fight.round, 1);
  assert.equal(tokens.g1.get('bar1_value'), afterOne.g1);
});

test('a GM-layer member: the players\' round card names it "a hidden creature" and counts no side (the GM\'s card has both)', (t) => {
  if (!pythonHasFracas()) return skipUnlessCI(t, 'no Python with fracas to answer as the bridge');
  const journal = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fracas-round-')), 'journal.sqlite3');
  const { emu, tokens } = fightWorld();
  tokens.g2.set('layer', 'gmlayer');
  tokens.g2.set('name', 'Secret Assassin');
  const outs = relay(emu, journal, emu.chat(emu.gm, '!fracas round --new --seed 5'));
  const pub = outs.filter((o) => !o.to && plain(o.text).includes('round 1')).map((o) => plain(o.text)).join('\n');
  const gm = outs.filter((o) => o.to === 'gm' && plain(o.text).includes('round 1')).map((o) => plain(o.text)).join('\n');
  assert.ok(pub, outs.map((o) => o.raw).join('\n'));
  assert.ok(!pub.includes('Secret Assassin'), pub);
  // Roll20's turn tracker hides a GM-layer token's entry from players: so does the order line.
  const rows = (to) => outs.filter((o) => (o.to || undefined) === to && plain(o.text).includes('round 1'))
    .flatMap((o) => o.text.split('<div>').map((row) => plain(row)));
  const orderOf = (to) => rows(to).find((row) => row.startsWith('order: ')) || '';
  assert.ok(orderOf(undefined) && !/hidden/.test(orderOf(undefined)), orderOf(undefined));
  assert.match(orderOf('gm'), /Secret Assassin/);
  // Nothing only the hidden member does among the hidden (going down, fleeing) reaches players.
  assert.ok(!/a hidden creature (is down|flees)/.test(pub), pub);
  // "standing: foes 2" would tell the players how many hidden creatures there are.
  assert.ok(!/standing/.test(pub), pub);
  assert.match(gm, /Secret Assassin/);
  assert.match(gm, /standing: /);
  assertSafe(assert, emu);
});

test('!fracas round: clear refusals, GM only, nothing sent', () => {
  const { emu, player } = fightWorld();
  let out = emu.chat(emu.gm, '!fracas round');
  assert.match(plain(out[0].text), /no fight yet: !fracas round --new/);
  out = emu.chat(player, '!fracas round --new');
  assert.equal(requests(out).length, 0);
  assert.match(plain(out.map((o) => o.text).join('\n')), /GM/);
  out = emu.chat(emu.gm, '!fracas round --sideways');
  assert.match(plain(out[0].text), /does not know --sideways/);
  emu.campaign().set('turnorder', '[]');
  out = emu.chat(emu.gm, '!fracas round --new');
  assert.match(plain(out[0].text), /the turn order has no tokens/);
  assert.equal(requests(out).length, 0);
});
