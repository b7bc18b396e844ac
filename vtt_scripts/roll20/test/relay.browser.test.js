'use strict';
// The relay in a real browser: Debian's Chromium loads the relay extension unpacked,
// a page that mimics Roll20's chat stands in for the editor, the extension's popup is
// given the bridge URL, token and relay secret, its background worker connects to a real
// `fracas serve` (which accepts the extension's origin by default), and the Mod script
// (the built fracas.js in the emulated sandbox) is wired to that page's chat.
// Every Mod command that needs the bridge then makes the whole round trip, one test each:
// sandbox → signed whisper frames → page → content script → worker → bridge → worker →
// chat box → sandbox → bars, cards, undo: `!fracas mob` (attack.bulk), `replay`
// (journal.replay), `journal` (journal.get), `round --new` (encounter.new + encounter.round),
// `round` (encounter.round), `round --undo` (encounter.undo), `odds` past the sandbox's
// budget (attack.odds), an attack of a ruleset without a Roll20 port (the tests' d6 pool,
// registered in that bridge only: the shipped bundle asks for its contract, server.contract
// with a rulesets filter, then sends attack.resolve; its DP-2 initiative from the served hints,
// initiative.roll into the turn order), `save` and `lock` (save.roll, lock.roll: kinds the
// Mod has no port of) and `resend`. The extension is
// the shipped one, unmodified but for the test page's origin in its content-script matches.
// The page itself never holds the token or the secret, and a frame it plants is not signed,
// so it never reaches the bridge; a plain chat line with "FRACAS1" in it stays visible.
const test = require('node:test');
const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const H = require('./helpers');
const B = require('./browser');
const { Emulator } = require('./emulator');
const { plain } = require('./world');
const P = require('../src/protocol');

const { waitFor, rpcs } = B;

/** One browser, bridge, page and sandbox for the whole file (the tests run in order). */
let T = null;

before(async () => {
  const pre = B.prerequisites();
  if (pre.missing) {
    T = { missing: pre.missing };
    return;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fracas-relay-'));
  const token = 'relay-test-token-0123456789';
  // `fracas serve` with the tests' d6 pool registered (a ruleset without a Roll20 port).
  const bridge = await B.startBridge(path.join(tmp, 'journal.sqlite3'), token, H.WITH_D6_POOL);

  // The table: five skeletons, a goblin, a knight (for mob); a hero and two goblins in the turn order (for round).
  // The Mod script as shipped (fracas.js as committed): it has no d6 pool, and asks the bridge for it.
  const emu = new Emulator({ script: path.join(H.ROLL20_DIR, 'fracas.js') });
  // Nameplates players see (showplayers_name; Roll20's default is off, and a public card then
  // names no creature: test/world.js), as a GM sets them up for a fight on the table.
  const named = { showplayers_name: true };
  const skeleton = emu.addCharacter('Skeleton', { strength: 3, fracas_strikes: '--dice 1 --style slashing --weight 1 --type edged' });
  const skeletons = [0, 1, 2, 3, 4].map((i) => emu.addToken({ name: `Skeleton ${i + 1}`, represents: skeleton.id, ...named }));
  const goblin = emu.addToken({ name: 'Goblin', represents: emu.addCharacter('Goblin', { ac: 8 }).id, bar1_value: '40', bar1_max: '40', ...named });
  const knight = emu.addToken({ name: 'Knight', represents: emu.addCharacter('Knight', { ac: 9, resistant: 'edged' }).id, bar1_value: '40', bar1_max: '40', ...named });
  const ogre = emu.addToken({ name: 'Ogre', represents: emu.addCharacter('Ogre', { fracas_armor: 0 }).id, bar1_value: '40', bar1_max: '40', ...named });
  const pat = emu.addPlayer('Pat');
  const hero = emu.addCharacter('Hero', { strength: 6, agility: 4, ac: 15, fracas_strikes: '--dice 3 --style cleaving --weight 2 --type edged' },
    { controlledby: pat.id });
  const grunt = emu.addCharacter('Grunt', { strength: 2, agility: 3, ac: 12, fracas_strikes: '--dice 2 --style slashing --weight 1 --type edged' });
  const fighters = {
    hero: emu.addToken({ name: 'Hero', represents: hero.id, bar1_value: '30', bar1_max: '30', controlledby: pat.id, ...named }),
    g1: emu.addToken({ name: 'Grunt 1', represents: grunt.id, bar1_value: '8', bar1_max: '8', ...named }),
    g2: emu.addToken({ name: 'Grunt 2', represents: grunt.id, bar1_value: '8', bar1_max: '8', ...named }),
  };
  emu.campaign().set('turnorder', JSON.stringify(Object.values(fighters).map((tk) => ({ id: tk.id, pr: 10, custom: '' }))));

  const table = await B.openTable(pre.playwright, emu, tmp);
  T = Object.assign(table, { tmp, bridge, emu, token, skeletons, goblin, knight, ogre, fighters, ids: {} });
});

after(() => B.teardown(T));

/** Skip (or, under CI, fail) when Chromium, playwright-core or fracas is missing. */
const ready = (t) => B.ready(t, T);

/** Run a GM command; wait until an output after it matches `pattern` (plain text). */
async function command(text, pattern, options = {}) {
  const before = T.emu.outputs.length;
  const sent = T.emu.chat(T.emu.gm, text, options);
  const found = await waitFor(`${text} → ${pattern}`, () => T.emu.outputs.slice(before).find((o) => pattern.test(plain(o.text))));
  return { sent, found, requests: rpcs(sent), after: () => T.emu.outputs.slice(before) };
}

test('the shipped extension links to a real fracas serve; the page holds no secret and its frames are refused', async (t) => {
  if (!ready(t)) return;
  const { emu, bridge, popup, page, token, status, extensionId } = T;
  assert.equal(extensionId, 'gkdobbfmdgnlmmlkeoifkomnimlgpnaa');
  // The GM pastes the URL, the token and the secret the Mod script whispered into the popup;
  // the relay authenticates and says hello to the Mod script through the chat box.
  const secret = emu.state.fracas.relay.secret;
  assert.match(secret, /^[0-9a-f]{64}$/);
  await B.connect(T, emu, bridge, token);
  assert.equal(emu.state.fracas.relay.last_hello.bridge, bridge.url);
  await waitFor('the popup status', async () => /connected to ws:\/\/127\.0\.0\.1/.test(await popup.textContent('#status')));
  assert.match(await popup.textContent('#diagnosis'), /Working/);

  // The page holds neither the token nor the secret, and a frame it plants is not signed:
  // the worker refuses it and nothing reaches the bridge.
  const pageSees = await page.evaluate(() => JSON.stringify(Object.assign({}, window.localStorage)) +
    document.documentElement.outerHTML + Object.keys(window).join(' '));
  assert.ok(!pageSees.includes(token) && !pageSees.includes(secret), 'the page can read the token or the secret');
  const planted = P.frames('req', 'planted-1', JSON.stringify({ jsonrpc: '2.0', id: 'planted-1', method: 'attack.bulk',
    params: { profiles: {}, targets: {}, attacks: [] } }))[0];
  await page.evaluate((f) => window.addMessage('general', f), planted);
  await waitFor('the planted frame refused', async () => (await status()).stats.refused === 1);
  assert.equal((await status()).stats.forwarded, 0);
  // …and stays visible: only frames the worker verified are hidden (a player cannot hide chat from the GM).
  const shown = await page.$$eval('#textchat .content .message', (els) => els.filter((e) => e.style.display !== 'none' && e.textContent.includes('planted-1')).length);
  assert.equal(shown, 1);
});

test('!fracas mob: attack.bulk through the relay, bars set, frames hidden', async (t) => {
  if (!ready(t)) return;
  const { emu, goblin, knight, skeletons, page } = T;
  const { requests: [rpc] } = await command(`!fracas mob --target ${goblin.id} --target ${knight.id}`, /damage from/,
    { selected: skeletons.map((s) => s.id) });
  assert.equal(rpc.method, 'attack.bulk');
  T.ids.mob = rpc.id;
  const card = emu.outputs.find((o) => o.text.startsWith('&{template:default}'));
  // What the bridge rolled is what the engine rolls for that request and seed.
  const py = spawnSync(H.pythonPath(), ['-c',
    'import json,sys,fracas; r=fracas.resolve_bulk(json.load(sys.stdin)).to_dict(); print(json.dumps({k: v["damage"] for k, v in r["targets"].items()}))'],
  { cwd: H.REPO_ROOT, input: JSON.stringify(rpc.params), encoding: 'utf8' });
  assert.equal(py.status, 0, py.stderr);
  const damage = JSON.parse(py.stdout);
  assert.ok(damage[goblin.id] > 0 && damage[knight.id] > 0, `AC 8 and 9 against +3 should take damage: ${py.stdout}`);
  assert.equal(goblin.get('bar1_value'), Math.max(0, 40 - damage[goblin.id]));
  assert.equal(knight.get('bar1_value'), Math.max(0, 40 - damage[knight.id]));
  const fields = Emulator.fields(card.text);
  assert.match(plain(fields.Goblin), new RegExp(`^${damage[goblin.id]} damage from 3 attacks`));
  assert.match(plain(fields.Knight), new RegExp(`^${damage[knight.id]} damage from 2 attacks`));
  assert.equal(Object.keys(emu.state.fracas.relay.pending).length, 0);
  // Relay frames are hidden on the page; nothing was applied twice.
  const visible = await page.$$eval('#textchat .content .message', (els) => els.filter((e) => e.style.display !== 'none' && e.textContent.includes('FRACAS1') && !e.textContent.includes('planted-1')).length);
  assert.equal(visible, 0);
});

test('!fracas replay: journal.replay through the relay matches the journaled roll', async (t) => {
  if (!ready(t) || !T.ids.mob) return;
  const { found, requests: [rpc] } = await command(`!fracas replay ${T.ids.mob}`, /journal\.replay/);
  assert.equal(rpc.method, 'journal.replay');
  assert.match(plain(found.text), /✓ the replay matches the journaled result/);
});

test('!fracas journal: journal.get through the relay shows the journaled request', async (t) => {
  if (!ready(t) || !T.ids.mob) return;
  const { found, requests: [rpc] } = await command(`!fracas journal ${T.ids.mob}`, /journal\.get/);
  assert.equal(rpc.method, 'journal.get');
  assert.ok(plain(found.text).includes(T.ids.mob), plain(found.text));
  // …and undo (the Mod's own) puts the mob's damage back.
  T.emu.chat(T.emu.gm, '!fracas undo');
  assert.equal(String(T.goblin.get('bar1_value')), '40'); // undo writes the number back
});

test('!fracas round --new: encounter.new then encounter.round through the relay; round 1 played, bars set', async (t) => {
  if (!ready(t)) return;
  const { emu, fighters } = T;
  const { requests: [rpc], after } = await command('!fracas round --new --seed 5', /round 1 \(seed 5\)/);
  assert.equal(rpc.method, 'encounter.new');
  assert.equal(emu.state.fracas.fight.round, 1);
  const methods = rpcs(after()).map((r) => r.method);
  assert.deepEqual(methods, ['encounter.new', 'encounter.round']);
  // The bars hold what the bridge says the fighters have left.
  const changed = Object.values(fighters).filter((tk) => Number(tk.get('bar1_value')) < Number(tk.get('bar1_max')));
  assert.ok(changed.length > 0, 'round 1 changed no bar');
  T.afterRound1 = Object.fromEntries(Object.entries(fighters).map(([k, tk]) => [k, String(tk.get('bar1_value'))]));
});

test('!fracas round: encounter.round through the relay plays round 2', async (t) => {
  if (!ready(t) || !T.afterRound1) return;
  const { requests: [rpc] } = await command('!fracas round', /round 2 \(seed/);
  assert.equal(rpc.method, 'encounter.round');
  assert.equal(rpc.params.expect_round, 1);
  assert.equal(T.emu.state.fracas.fight.round, 2);
});

test('!fracas round --undo: encounter.undo through the relay takes round 2 back', async (t) => {
  if (!ready(t) || !T.afterRound1) return;
  const { emu, fighters } = T;
  const { requests: [rpc] } = await command('!fracas round --undo', /round/);
  assert.equal(rpc.method, 'encounter.undo');
  await waitFor('the fight back at round 1', () => emu.state.fracas.fight.round === 1);
  for (const [k, tk] of Object.entries(fighters)) assert.equal(String(tk.get('bar1_value')), T.afterRound1[k], k);
});

test('!fracas odds past the sandbox budget: attack.odds through the relay, the card from the bridge', async (t) => {
  if (!ready(t)) return;
  const { goblin, skeletons } = T;
  const heavy = Array.from({ length: 12 }, () => '--dice 5 --style cleaving --weight 2 --type edged --crit-range 2').join(' ');
  const { requests: [rpc], found } = await command(`!fracas odds --target ${goblin.id} ${heavy}`, /Odds: Skeleton 1/,
    { selected: [skeletons[0].id] });
  assert.equal(rpc.method, 'attack.odds');
  assert.match(plain(found.text), /Goblin=P\(hit\) .*P\(drops, 40 left\)/s);
});

test('a ruleset without a Roll20 port: attack.resolve through the relay, the bridge rolls, the bar is set', async (t) => {
  if (!ready(t)) return;
  const { emu, ogre, skeletons } = T;
  // The shipped bundle has no d6 pool: the Mod asks the bridge for that ruleset's contract first.
  const { sent, requests: [ask], found, after: outputs } = await command(
    `!fracas attack --ruleset d6-pool --target ${ogre.id} --dice 4 --extra 2`, /attacks \(D6 pool\)/, { selected: [skeletons[0].id] });
  assert.match(sent.map((o) => plain(o.text)).join('\n'), /no ruleset "d6-pool" built in: asked the bridge/);
  assert.equal(ask.method, 'server.contract');
  assert.deepEqual(ask.params, { rulesets: ['d6-pool'] });
  const [rpc] = rpcs(outputs()).filter((r) => r.method === 'attack.resolve');
  assert.match(outputs().map((o) => plain(o.text)).join('\n'), /D6 pool has no offline resolver: sent to the bridge/);
  assert.equal(rpc.params.ruleset, 'd6-pool');
  assert.deepEqual(rpc.params.strikes, [{ dice: 4, target: ogre.id }]);
  // The card shows the strike in the served result layout's order.
  assert.match(plain(Emulator.fields(found.text)['1 → Ogre']), /^faces [1-6](, [1-6])* · hits \d+ · /);
  // What the bridge rolled is what the engine rolls for that request and seed.
  const py = spawnSync(H.pythonPath(), ['-c', `${H.WITH_D6_POOL}import json
print(json.dumps(fracas.resolve(json.load(sys.stdin)).to_dict()))`],
  { cwd: H.REPO_ROOT, input: JSON.stringify(rpc.params), encoding: 'utf8' });
  assert.equal(py.status, 0, py.stderr);
  const damage = JSON.parse(py.stdout).targets[ogre.id].damage;
  assert.equal(String(ogre.get('bar1_value')), String(40 - damage));
  assert.equal(plain(Emulator.fields(found.text)['1 → Ogre']).endsWith(`${damage} damage`), true);
  assert.equal(Object.keys(emu.state.fracas.relay.pending).length, 0);
});

test('DP-2 initiative of the plug-in: initiative.roll through the relay from its served [client] hints and fracas_bonus, the turn order set from the bridge\'s roll, undone', async (t) => {
  if (!ready(t)) return;
  const { emu, ogre, skeletons } = T;
  emu.create('attribute', { _characterid: ogre.get('represents'), name: 'fracas_bonus', current: '3' });
  emu.create('attribute', { _characterid: skeletons[1].get('represents'), name: 'fracas_bonus', current: '-1' });
  const before = emu.campaign().get('turnorder');
  const { requests, found, after: outputs } = await command('!fracas init --ruleset d6-pool', /Initiative \(D6 pool, DP-2\)/,
    { selected: [ogre.id, skeletons[1].id] });
  // The d6 pool was learned with the attack's contract above (its hints came with it): nothing asked again.
  assert.deepEqual(requests.map((r) => r.method), ['initiative.roll']);
  const [rpc] = requests;
  assert.deepEqual(rpc.params.combatants, [{ id: ogre.id, bonus: 3 }, { id: skeletons[1].id, bonus: -1 }]);
  // What the bridge rolled is what the engine rolls for that request and seed.
  const py = spawnSync(H.pythonPath(), ['-c', `${H.WITH_D6_POOL}import json
print(json.dumps(fracas.roll_initiative(json.load(sys.stdin)).to_dict()["order"]))`],
  { cwd: H.REPO_ROOT, input: JSON.stringify(rpc.params), encoding: 'utf8' });
  assert.equal(py.status, 0, py.stderr);
  const order = JSON.parse(py.stdout);
  const names = { [ogre.id]: 'Ogre', [skeletons[1].id]: 'Skeleton 2' };
  const fields = Emulator.fields(found.text);
  order.forEach((e, i) => {
    assert.equal(plain(fields[`${i + 1}. ${names[e.id]}`]), `${e.total} = d6 ${e.roll} ${e.total - e.roll < 0 ? '−' : '+'}${Math.abs(e.total - e.roll)}`);
  });
  // Both tokens in the turn order with the bridge's totals, in its order (Campaign turnorder, a JSON string).
  const turns = JSON.parse(emu.campaign().get('turnorder')).filter((e) => names[e.id]);
  assert.deepEqual(turns.map((e) => [e.id, e.pr]), order.map((e) => [e.id, e.total]));
  assert.ok(outputs().some((o) => o.text.includes(`!fracas undo ${rpc.id}`)), 'the GM\'s card has the undo button');
  emu.chat(emu.gm, `!fracas undo ${rpc.id}`);
  assert.equal(emu.campaign().get('turnorder'), before, 'undo puts the turn order back');
  assert.equal(Object.keys(emu.state.fracas.relay.pending).length, 0);
});

test('!fracas save and !fracas lock: save.roll and lock.roll through the relay, the bridge rolls, marker and bar set (ER-16, ER Weapon Lock)', async (t) => {
  if (!ready(t)) return;
  const { emu, knight, skeletons, fighters } = T;
  // An area Agility save the hero cannot make (DC 40): it falls asleep, its marker set; undo takes it off.
  const save = await command(`!fracas save --save agility --dc 40 --area --effect "sleep smoke" --on-fail asleep --targets ${fighters.hero.id}`,
    /how many fail|failed ✗/);
  assert.equal(save.requests[0].method, 'save.roll');
  assert.match(save.sent.map((o) => plain(o.text)).join('\n'), /no offline save resolver: the bridge rolls it/);
  const saveCard = Emulator.fields(save.found.text);
  assert.match(plain(saveCard.Hero), /vs DC 40 \(agility \+1\)\nfailed ✗ · 0\.0% \(0\/1\) to save\nnow asleep \(marker set\)/);
  assert.match(plain(saveCard['rolled by']), /^the bridge \(fracas serve\)/);
  assert.equal(fighters.hero.get('statusmarkers'), 'asleep');
  emu.chat(emu.gm, '!fracas undo');
  assert.equal(fighters.hero.get('statusmarkers'), '');
  // A shield-blitz: the bridge's d20 of blunt damage off the knight's bar, as the engine rolls it for that request and seed.
  const before = Number(knight.get('bar1_value'));
  const blitz = await command(`!fracas lock --mode blitz --target ${knight.id}`, /shield-blitz=/, { selected: [skeletons[0].id] });
  const [rpc] = blitz.requests;
  assert.equal(rpc.method, 'lock.roll');
  const py = spawnSync(H.pythonPath(), ['-c', 'import json,sys,fracas; print(json.dumps(fracas.roll("lock", json.load(sys.stdin)).to_dict()))'],
    { cwd: H.REPO_ROOT, input: JSON.stringify(rpc.params), encoding: 'utf8' });
  assert.equal(py.status, 0, py.stderr);
  const damage = JSON.parse(py.stdout).blitz.damage;
  assert.equal(Number(knight.get('bar1_value')), Math.max(0, before - damage));
  assert.match(plain(Emulator.fields(blitz.found.text)['shield-blitz']), new RegExp(`→ ${damage} damage`));
  assert.equal(Object.keys(emu.state.fracas.relay.pending).length, 0);
});

test('!fracas resend: a request still waiting is sent again and answered once', async (t) => {
  if (!ready(t)) return;
  const { emu, goblin, skeletons, status } = T;
  // A mob request whose frames never reach the page (the GM's tab was closed): it waits.
  const hold = emu.onOutput;
  emu.onOutput = () => {};
  const sent = emu.chat(emu.gm, `!fracas mob --target ${goblin.id}`, { selected: skeletons.map((s) => s.id) });
  emu.onOutput = hold;
  const [rpc] = rpcs(sent);
  assert.ok(emu.state.fracas.relay.pending[rpc.id]);
  const forwarded = (await status()).stats.forwarded;
  await command(`!fracas resend ${rpc.id}`, /damage from/);
  assert.equal(emu.state.fracas.relay.pending[rpc.id], undefined);
  assert.equal((await status()).stats.forwarded, forwarded + 1);
  emu.chat(emu.gm, '!fracas undo');
  assert.equal(String(goblin.get('bar1_value')), '40');
  assert.deepEqual(T.pageErrors, []);
});
