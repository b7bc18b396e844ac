'use strict';
// `!fracas forecast` end to end: the shipped bundle (fracas.js as committed) in the emulated
// sandbox, the shipped relay extension in headless Chromium (browser.js), a real `fracas serve`.
// The command builds the scenario from the page, its `fight.forecast` request goes out as signed
// frames through the page, the extension's worker and the bridge, and the answer comes back
// through the chat box as the GM's card; the numbers on it are the engine's for the same request
// and seed (fracas.forecast, what `fracas simulate` answers). Then the card's buttons: share
// (the players' card, without the GM-layer creature or an unnamed one's name), vary (a sweep of a
// group's count) and replay (journal.replay: the bridge journaled it); and the budget's refusal.
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const test = require('node:test');
const { before, after } = require('node:test');
const B = require('./browser');
const H = require('./helpers');
const { Emulator } = require('./emulator');
const { plain } = require('./world');

let T = null;

before(async () => {
  const pre = B.prerequisites();
  if (pre.missing) {
    T = { missing: pre.missing };
    return;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fracas-forecast-'));
  const token = 'forecast-test-token-0123456789';
  const bridge = await B.startBridge(path.join(tmp, 'journal.sqlite3'), token);
  const emu = new Emulator({ script: path.join(H.ROLL20_DIR, 'fracas.js') });
  // The page: Pat's hero and a squire against three goblins players see, one whose nameplate
  // they do not, and a shaman hidden on the GM layer.
  const pat = emu.addPlayer('Pat');
  const hero = emu.addCharacter('Hero', { strength: 6, agility: 4, ac: 15, fracas_strikes: '--dice 3 --style cleaving --weight 2 --type edged' },
    { controlledby: pat.id });
  const squire = emu.addCharacter('Squire', { strength: 4, agility: 4, ac: 13, fracas_strikes: '--dice 2 --style slashing --weight 1 --type edged' },
    { controlledby: pat.id });
  const goblin = emu.addCharacter('Goblin', { strength: 4, agility: 3, ac: 12, fracas_strikes: '--dice 3 --style slashing --weight 1 --type edged' });
  const shaman = emu.addCharacter('Shaman', { strength: 2, agility: 5, ac: 11, fracas_strikes: '--dice 2 --style archery --type piercing' });
  const named = { showplayers_name: true };
  const tokens = {
    hero: emu.addToken({ name: 'Hero', represents: hero.id, bar1_value: '30', bar1_max: '30', controlledby: pat.id, ...named }),
    squire: emu.addToken({ name: 'Squire', represents: squire.id, bar1_value: '16', bar1_max: '20', controlledby: pat.id, ...named }),
    g1: emu.addToken({ name: 'Goblin', represents: goblin.id, bar1_value: '12', bar1_max: '12', ...named }),
    g2: emu.addToken({ name: 'Goblin', represents: goblin.id, bar1_value: '12', bar1_max: '12', ...named }),
    lurker: emu.addToken({ name: 'Goblin lurker', represents: goblin.id, bar1_value: '12', bar1_max: '12' }),
    shaman: emu.addToken({ name: 'Goblin Shaman', represents: shaman.id, bar1_value: '10', bar1_max: '10', layer: 'gmlayer' }),
  };
  const table = await B.openTable(pre.playwright, emu, tmp);
  T = Object.assign(table, { tmp, bridge, emu, token, tokens, pat });
  await B.connect(T, emu, bridge, token);
});

after(() => B.teardown(T));

/** Skip (or, under CI, fail) when Chromium, playwright-core or fracas is missing. */
const ready = (t) => B.ready(t, T);

/** A GM command; waits for an output after it whose plain text matches `pattern`. */
async function command(text, pattern) {
  const start = T.emu.outputs.length;
  const sent = T.emu.chat(T.emu.gm, text);
  const found = await B.waitFor(`${text} → ${pattern}`, () => T.emu.outputs.slice(start).find((o) => pattern.test(plain(o.text))));
  return { sent, found, requests: B.rpcs(sent) };
}

/** The engine's forecast of `params` (fracas.forecast: simulate's result, and sweep's with vary). */
function engine(params) {
  const run = spawnSync(H.pythonPath(), ['-c', 'import json, sys, fracas; print(json.dumps(fracas.forecast(json.load(sys.stdin)).to_dict()))'],
    { cwd: H.REPO_ROOT, input: JSON.stringify(params), encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

/** A card's text, a line per block. */
const lines = (html) => plain(html.replace(/<\/(div|tr)>/g, '\n').replace(/<\/td>/g, ' '));
/** A chance as the card writes it (under 1 % and over 99 % but not 0 or 1: "<1%", ">99%"). */
const pct = (r) => (r > 0 && r < 0.005 ? '<1%' : r < 1 && r > 0.995 ? '>99%' : `${Math.round(r * 100)}%`);

test('!fracas forecast: fight.forecast through the relay; the GM\'s card holds the engine\'s numbers for that request and seed', async (t) => {
  if (!ready(t)) return;
  const { emu, tokens } = T;
  const { requests: [rpc], found } = await command('!fracas forecast --runs 2000 --seed 5', /^Forecast: party vs foes/);
  assert.equal(rpc.method, 'fight.forecast');
  assert.deepEqual(rpc.params.scenario.sides.foes.map((g) => g.name), [tokens.g1.id, tokens.g2.id, tokens.lurker.id, tokens.shaman.id]);
  assert.deepEqual(rpc.params.scenario.sides.party.map((g) => g.hp), [30, 16]); // the Body now
  assert.equal(found.to, 'gm');
  const expected = engine(rpc.params);
  const card = lines(found.text);
  for (const side of ['party', 'foes']) {
    const s = expected.sides[side];
    assert.match(card, new RegExp(`^${side} ${pct(s.win_rate)} \\(${Math.round(s.win_rate_ci95[0] * 100)}–${pct(s.win_rate_ci95[1])}\\)$`, 'm'));
  }
  assert.match(card, new RegExp(`^rounds: ${Math.round(expected.rounds.mean * 10) / 10} on average`, 'm'));
  // The one most likely to fall is on the card with its chance and mean damage taken.
  const [top] = Object.entries(expected.combatants).sort((a, b) => (b[1].down_rate + b[1].fled_rate) - (a[1].down_rate + a[1].fled_rate));
  const names = { [tokens.hero.id]: 'Hero', [tokens.squire.id]: 'Squire', [tokens.g1.id]: 'Goblin #1', [tokens.g2.id]: 'Goblin #2',
    [tokens.lurker.id]: 'Goblin lurker', [tokens.shaman.id]: 'Goblin Shaman' };
  assert.ok(card.includes(`${names[top[0]]} (${top[1].side})\n ${pct(top[1].down_rate)}`), `${top[0]} in:\n${card}`);
  assert.match(card, /^seed 5 · /m);
  T.id = rpc.id;
  assert.equal(Object.keys(emu.state.fracas.relay.pending).length, 0);
  assert.deepEqual(T.pageErrors, []);
});

test('its share button: the players\' card in public chat, without the GM-layer shaman and the lurker unnamed', async (t) => {
  if (!ready(t) || !T.id) return;
  const start = T.emu.outputs.length;
  T.emu.chat(T.emu.gm, `!fracas forecast --share ${T.id}`);
  const pub = T.emu.outputs.slice(start).filter((o) => !o.to);
  assert.equal(pub.length, 1);
  const card = lines(pub[0].text);
  assert.match(card, /^Forecast: party vs foes$/m);
  assert.ok(!/Shaman|lurker|seed|\[/.test(card), card);
});

test('its vary button, with a goblin clicked: the two alike goblins one group, its count swept, the engine\'s numbers at each count', async (t) => {
  if (!ready(t) || !T.id) return;
  const { tokens } = T;
  // What Roll20 sends when the GM clicks the button and then the goblin (@{target|…|token_id}).
  const { requests: [rpc], found } = await command(`!fracas forecast --from ${T.id} --vary ${tokens.g1.id} --values 1..4 --runs 400`,
    /chance by the number of Goblin \(foes; now 2\)/);
  assert.equal(rpc.method, 'fight.forecast');
  assert.deepEqual(rpc.params.vary, { path: '$.sides.foes[0].count', values: '1..4', target: 0.5, side: 'party' });
  assert.deepEqual(rpc.params.scenario.sides.foes.map((g) => [g.name, g.count]),
    [[tokens.g1.id, 2], [tokens.lurker.id, undefined], [tokens.shaman.id, undefined]]);
  const expected = engine(rpc.params);
  const card = lines(found.text);
  for (const point of expected.sweep.points) {
    const count = Object.values(point.values)[0];
    assert.match(card, new RegExp(`^${count}\\s+${pct(point.sides.party.win_rate)}`, 'm'));
  }
});

test('its replay button: the bridge journaled the forecast and replays it to the same result', async (t) => {
  if (!ready(t) || !T.id) return;
  const { requests: [rpc], found } = await command(`!fracas replay ${T.id}`, /journal\.replay/);
  assert.equal(rpc.method, 'journal.replay');
  assert.match(plain(found.text), /✓ the replay matches the journaled result/);
});

test('past the bridge\'s forecast limit: refused before any fight, the GM told, a button for what fits', async (t) => {
  if (!ready(t)) return;
  const { found, requests: [rpc] } = await command('!fracas forecast --runs 20000000', /--runs must be/);
  assert.equal(rpc, undefined, 'past --runs\'s own limit nothing is sent');
  assert.match(plain(found.text), /--runs must be 1 to 10000000/);
  const refused = await command('!fracas forecast --runs 9000000', /forecast budget refused/);
  const text = plain(refused.found.text);
  assert.match(text, /ask for at most [\d,]+ fights/);
  assert.equal(refused.found.to, 'gm');
  const most = /\[forecast (\d+) fights\]\(!fracas forecast --from (\S+) --runs (\d+)\)/.exec(refused.found.text);
  assert.ok(most, refused.found.text);
  // The button plays what the bridge allows.
  const again = await command(`!fracas forecast --from ${most[2]} --runs ${most[3]}`, /^Forecast: party vs foes/);
  assert.equal(again.requests[0].params.runs, Number(most[1]));
  assert.deepEqual(T.pageErrors, []);
});
