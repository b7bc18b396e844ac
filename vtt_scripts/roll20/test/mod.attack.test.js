'use strict';
// `!fracas attack` in the emulated sandbox: requests built from tokens and sheets,
// cards, damage on bars, undo, permissions, errors, escaping, and replay in Python.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { world, card, notices, plain, assertSafe } = require('./world');
const { Emulator } = require('./emulator');
const { resolve } = require('../src/engine');
const H = require('./helpers');

function lastLog(emu) {
  // A copy made here: objects from the sandbox's context have other prototypes.
  const log = JSON.parse(JSON.stringify(emu.state.fracas.log));
  return log[log.length - 1];
}

test('an attack with the sheet strikes: request from the sheets, card, damage on the bar', () => {
  const { emu, tokens } = world();
  const out = emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --seed 42`, { selected: [tokens.orc.id] });
  const entry = lastLog(emu);
  assert.deepEqual(entry.request, {
    attacker: { strength: 6, agility: 3, size: 'medium' },
    strikes: [{ method: 'melee', style: 'cleaving', dice: 2, damage_type: 'edged', weight: 2, target: tokens.goblin.id }],
    targets: { [tokens.goblin.id]: { ac: 13, resistant: ['poison'], body_max: 12, save_bonus: 2 } },
  });
  assert.equal(entry.seed, 42);
  const expected = resolve(entry.request, { seed: 42 });
  const fields = (require('./emulator').Emulator).fields(card(out).text);
  assert.equal(fields.name, 'Orc attacks');
  const strike = plain(fields[`1 → Goblin`]);
  // Every die with its total and the damage of the strike.
  for (const d of expected.strikes[0].dice) assert.ok(strike.includes(`${d.face}(${d.total})`), strike);
  assert.ok(strike.endsWith(`→ ${expected.strikes[0].damage}`) || strike.includes(`→ ${expected.strikes[0].damage}`), strike);
  assert.match(plain(fields.seed), /^42\b/);
  const damage = expected.targets[tokens.goblin.id].damage;
  assert.equal(tokens.goblin.get('bar1_value'), 12 - damage);
  // A public card does not show an NPC's Body (the goblin is the GM's).
  if (damage) assert.ok(plain(fields.Goblin).includes('damage applied') && !plain(fields.Goblin).includes('Body'));
  assertSafe(assert, emu);
});

test('every card roll is replayed exactly by the Python engine (fracas replay)', (t) => {
  if (!H.pythonHasFracas()) return H.skipUnlessCI(t, `no Python with fracas at ${H.pythonPath()}`);
  const { emu, tokens } = world();
  // No --seed: the seed comes from randomInteger, as at the table.
  emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --target ${tokens.knight.id} ` +
    `--dice 3 --style slashing --weight 1 --type edged --dice 2 --style bludgeoning --type blunt --adv`,
  { selected: [tokens.orc.id] });
  const entry = lastLog(emu);
  assert.ok(Number.isSafeInteger(entry.seed) && entry.seed > 2 ** 32, `seed ${entry.seed} should use ~53 bits`);
  const out = emu.chat(emu.gm, `!fracas request ${entry.id}`);
  const exported = JSON.parse(plain(out[0].text).split('fracas replay FILE')[1]);
  assert.equal(exported.seed, entry.seed);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fracas-replay-'));
  const file = path.join(dir, 'request.json');
  fs.writeFileSync(file, JSON.stringify(exported));
  const run = spawnSync(H.pythonPath(), ['-c', 'from fracas.cli import main; main()', 'replay', file, '--json'],
    { cwd: H.REPO_ROOT, encoding: 'utf8' });
  fs.rmSync(dir, { recursive: true, force: true });
  assert.equal(run.status, 0, run.stderr);
  const python = JSON.parse(run.stdout);
  delete python.backend;
  const js = resolve(entry.request, { seed: entry.seed });
  delete js.backend;
  assert.deepEqual(js, python);
});

test('strikes from flags: two targets, one strike each; resistance and AC by type from the sheet', () => {
  const { emu, tokens } = world();
  const out = emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --target ${tokens.knight.id} ` +
    '--dice 2 --style slashing --weight 1 --type edged --dice 1 --style shield --type blunt --seed 7',
  { selected: [tokens.orc.id] });
  const { request } = lastLog(emu);
  assert.deepEqual(request.strikes.map((s) => [s.target, s.style, s.damage_type]),
    [[tokens.goblin.id, 'slashing', 'edged'], [tokens.knight.id, 'shield', 'blunt']]);
  assert.deepEqual(request.targets[tokens.knight.id],
    { ac: 15, ac_by_type: { edged: 18 }, resistant: ['edged', 'blunt'], body_max: 20 });
  const result = resolve(request, { seed: 7 });
  assert.equal(result.strikes[1].resistance, 'resistant');
  assert.equal(tokens.knight.get('bar1_value'), 20 - result.targets[tokens.knight.id].damage);
  assert.ok(card(out));
});

test('conditions come from token markers (configurable), and cannot-attack is refused by name', () => {
  const { emu, tokens } = world();
  tokens.goblin.set('statusmarkers', 'red,prone::4471@2');
  emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --seed 1`, { selected: [tokens.orc.id] });
  assert.deepEqual(lastLog(emu).request.targets[tokens.goblin.id].conditions, ['prone']);
  emu.chat(emu.gm, '!fracas config --marker stunned=sleepy');
  tokens.orc.set('statusmarkers', 'sleepy');
  const before = emu.state.fracas.log.length;
  const out = emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id}`, { selected: [tokens.orc.id] });
  assert.equal(emu.state.fracas.log.length, before, 'nothing was rolled');
  assert.equal(out.length, 1);
  assert.equal(out[0].to, 'gm');
  assert.match(plain(out[0].text), /a stunned attacker cannot attack \(ER-14\)/);
});

test('engine errors are whispered in table words, with the rule', () => {
  const { emu, tokens } = world();
  const out = emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --dice 6 --style slashing --type edged`,
    { selected: [tokens.orc.id] });
  assert.equal(out.length, 1);
  assert.match(plain(out[0].text), /strike 1\.dice: 6 skill dice, the most is 5 \(ER-3\)/);
  assert.equal(tokens.goblin.get('bar1_value'), '12');
});

test('bad input: each mistake gets a whispered error naming it, and changes nothing', () => {
  const { emu, tokens } = world();
  const sel = { selected: [tokens.orc.id] };
  const cases = [
    [`!fracas attack --target ${tokens.goblin.id}`, {}, /select the attacking token/],
    [`!fracas attack --target ${tokens.goblin.id}`, { selected: [tokens.orc.id, tokens.knight.id] }, /2 tokens are selected/],
    ['!fracas attack --target -NoSuchToken', sel, /no token with the id "-NoSuchToken"/],
    ['!fracas attack', sel, /no target: add --target/],
    [`!fracas attack --target ${tokens.goblin.id} --dice 2 --type edged`, sel, /strike 1 needs --style/],
    [`!fracas attack --target ${tokens.goblin.id} --dice 2 --style slashing --type laser`, sel, /unknown damage type "laser"/],
    [`!fracas attack --target ${tokens.goblin.id} --dice two --style slashing --type edged`, sel, /--dice takes a whole number, not "two"/],
    [`!fracas attack --target ${tokens.goblin.id} --frobnicate`, sel, /unknown option --frobnicate/],
    [`!fracas attack --target ${tokens.goblin.id} --seed -5`, sel, /--seed takes a whole number/],
    [`!fracas attack --target ${tokens.goblin.id} --cover some`, sel, /--cover takes none, half/],
    [`!fracas attack --target ${tokens.goblin.id} --rolls 3,30`, sel, /--rolls must be 1 to 20, not 30/],
    [`!fracas attack --target ${tokens.goblin.id} --rolls 3`, sel, /\$\.rolls: 1 face given, but strike 1 needs another die/],
    [`!fracas attack --target ${tokens.goblin.id} --target ${tokens.knight.id} --dice 1 --style slashing --type edged`, sel,
      /2 targets for 1 strikes/],
    [`!fracas attack --target ${tokens.goblin.id} --use offhand`, sel, /"fracas_strikes_offhand" attribute/],
    [`!fracas attack --target ${tokens.orc.id} --dice 1 --style slashing --type edged`, { selected: [tokens.goblin.id] },
      /Orc has no "ac" attribute/],
    ['!fracas zap', {}, /unknown command "zap"/],
  ];
  for (const [command, options, pattern] of cases) {
    const out = emu.chat(emu.gm, command, options);
    assert.equal(out.length, 1, `${command}: ${out.map((o) => o.raw).join(' | ')}`);
    assert.equal(out[0].to, 'gm', command);
    assert.match(plain(out[0].text), pattern, command);
  }
  assert.equal(tokens.goblin.get('bar1_value'), '12');
  assert.equal(tokens.orc.changes.length, 0);
  assert.equal(emu.state.fracas.undo.length, 0);
  assertSafe(assert, emu);
});

test('a sheet attribute that is not a number is named in the error', () => {
  const { emu, tokens, characters } = world();
  emu.attribute(characters.goblin.id, 'ac').set('current', 'thirteen');
  const out = emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id}`, { selected: [tokens.orc.id] });
  assert.match(plain(out[0].text), /Goblin: the attribute "ac" is "thirteen", not a whole number/);
});

test('damage stops at the minimum unless configured; a bar without a number is left alone', () => {
  const { emu, tokens } = world();
  const hit = `!fracas attack --target ${tokens.goblin.id} --dice 5 --style slashing --weight 2 --type edged --rolls 20,20,20,20,20,1`;
  tokens.goblin.set('bar1_value', 3);
  emu.chat(emu.gm, hit, { selected: [tokens.orc.id] });
  assert.equal(tokens.goblin.get('bar1_value'), 0);
  emu.chat(emu.gm, '!fracas config --below-min on');
  tokens.goblin.set('bar1_value', 3);
  emu.chat(emu.gm, hit, { selected: [tokens.orc.id] });
  assert.ok(tokens.goblin.get('bar1_value') < 0);
  tokens.goblin.set('bar1_value', 'lots');
  const out = emu.chat(emu.gm, hit, { selected: [tokens.orc.id] });
  assert.equal(tokens.goblin.get('bar1_value'), 'lots');
  assert.match(plain(card(out).text), /not applied: bar 1 holds "lots", not a number/);
});

test('a bar linked to an attribute: the attribute takes the damage, undo puts it back', () => {
  const { emu, tokens, characters } = world();
  const body = emu.create('attribute', { _characterid: characters.goblin.id, name: 'body', current: '12', max: '12' });
  tokens.goblin.set({ bar1_link: body.id });
  emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --dice 3 --style slashing --weight 1 --type edged --rolls 20,15,15,5`,
    { selected: [tokens.orc.id] });
  // 20, 15, 15 hit AC 13 with +6; the crit die 5 misses: 3 hits + 1 weight + 2 Str = 6.
  assert.equal(body.get('current'), 6);
  assert.equal(tokens.goblin.get('bar1_value'), 6);
  const out = emu.chat(emu.gm, '!fracas undo');
  assert.match(plain(out[0].text), /Orc's attack: 1 change put back/);
  assert.equal(body.get('current'), 12);
  assert.match(plain(emu.chat(emu.gm, '!fracas undo')[0].text), /nothing to undo/);
});

test('undo without an id takes back the newest card not undone, by delta: a hand edit since stays', () => {
  const { emu, tokens } = world();
  const a = `!fracas attack --target ${tokens.goblin.id} --dice 1 --style slashing --type edged --rolls 15`;
  emu.chat(emu.gm, a, { selected: [tokens.orc.id] }); // 1 hit + 2 Str = 3
  emu.chat(emu.gm, a, { selected: [tokens.orc.id] });
  assert.equal(tokens.goblin.get('bar1_value'), 6);
  tokens.goblin.set('bar1_value', 5); // the GM takes 1 more off by hand
  const out = emu.chat(emu.gm, '!fracas undo');
  assert.match(plain(out[0].text), /Orc's attack: 1 change put back/);
  assert.equal(tokens.goblin.get('bar1_value'), 8, "the card's 3 come back; the GM's 1 stays off");
  emu.chat(emu.gm, '!fracas undo');
  assert.equal(tokens.goblin.get('bar1_value'), 11);
  assert.match(plain(emu.chat(emu.gm, '!fracas undo')[0].text), /nothing to undo/);
});

test('players attack only with tokens they control; cards can be whispered', () => {
  const { emu, tokens, player } = world();
  let out = emu.chat(player, `!fracas attack --target ${tokens.goblin.id}`, { selected: [tokens.orc.id] });
  assert.equal(out[0].to, 'pat');
  assert.match(plain(out[0].text), /only with a token you control/);
  out = emu.chat(player, `!fracas attack --target ${tokens.goblin.id} --whisper`,
    { selected: [tokens.knight.id] });
  assert.deepEqual(out.map((o) => o.to), ['gm', 'pat']);
  assert.ok(out.every((o) => o.text.startsWith('&{template:default}')));
  out = emu.chat(player, '!fracas undo');
  assert.match(plain(out[0].text), /!fracas undo is for the GM/);
  emu.chat(emu.gm, '!fracas config --players-attack off');
  out = emu.chat(player, `!fracas attack --target ${tokens.goblin.id}`, { selected: [tokens.knight.id] });
  assert.match(plain(out[0].text), /only the GM may attack/);
});

test('inline rolls in options are read as their totals', () => {
  const { emu, tokens } = world();
  emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --dice 1 --style slashing --type edged --bonus $[[0]] --seed 5`,
    { selected: [tokens.orc.id], inlinerolls: [{ results: { total: 3 } }] });
  assert.equal(lastLog(emu).request.strikes[0].bonus, 3);
});

test('names and ids from the table cannot inject Roll20 expansions into a card', () => {
  const { emu, tokens } = world();
  tokens.goblin.set('name', '@{Orc|strength} [[1d20]] %{Orc|Attack}}} {{x=y}} <b>|*');
  const out = emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --dice 1 --style slashing --type edged --seed 9`,
    { selected: [tokens.orc.id] });
  const text = card(out).text;
  assert.ok(!text.includes('@{') && !text.includes('[[') && !text.includes('%{') && !text.includes('<b>'));
  assert.ok(plain(text).includes('@{Orc|strength} [[1d20]] %{Orc|Attack}}} {{x=y}} <b>|*'));
  assertSafe(assert, emu);
  // Error messages quote user text too.
  const err = emu.chat(emu.gm, '!fracas attack --target @{bad}[[2]]', { selected: [tokens.orc.id] });
  assertSafe(assert, emu);
  assert.match(plain(err[0].text), /no token with the id "@\{bad\}\[\[2\]\]"/);
});

test('the script never lets an exception out of a handler, even for a broken message', () => {
  const { emu, tokens } = world();
  for (const content of ['!fracas', '!fracas attack --', '!fracas "unclosed', '!fracas-relay garbage', '!fracasx',
    '!fracas attack --target', `!fracas attack --target ${tokens.goblin.id} --dice`, '!fracas request', '!fracas resend nope']) {
    assert.doesNotThrow(() => emu.chat(emu.gm, content, { selected: [tokens.orc.id] }), content);
  }
  assert.doesNotThrow(() => emu.fire('chat:message', { type: 'api', content: null, playerid: emu.gm.id }));
  assert.doesNotThrow(() => emu.fire('chat:message', undefined));
  assert.equal(tokens.goblin.get('bar1_value'), '12');
});

test('the help is whispered, and the help handout is created', () => {
  const { emu } = world();
  const out = emu.chat(emu.gm, '!fracas help');
  assert.equal(out[0].to, 'gm');
  assert.match(plain(out[0].text), /!fracas attack --target @\{target\|token_id\}/);
  const handout = emu.find({ _type: 'handout', name: 'Help: fracas' });
  assert.equal(handout.length, 1);
  assert.match(handout[0].data.notes, /fracas 0\.1\.0/);
  assertSafe(assert, emu);
});

test('a fresh emulator proves it loads the built file, not the sources', () => {
  const emu = new Emulator();
  assert.ok(emu.logs.some((l) => /fracas 0\.1\.0 ready/.test(l)));
  const api = require('node:vm').runInContext('Fracas', emu.context);
  assert.equal(typeof api.resolve, 'function');
  assert.equal(api.version, '0.1.0');
});

test('sheet defaults count for core fields only, so the API console is not flooded', () => {
  const { emu, tokens } = world();
  emu.sheetDefaults.ac = '11';
  const bare = emu.addToken({ name: 'Zombie', represents: emu.addCharacter('Zombie', {}).id, bar1_value: '9' });
  emu.chat(emu.gm, `!fracas attack --target ${bare.id} --dice 1 --style slashing --type edged --seed 2`, { selected: [tokens.orc.id] });
  assert.equal(lastLog(emu).request.targets[bare.id].ac, 11);
  // ac, size (target) were asked of the sheet; no ac_<type>, resistances or save bonus.
  const errors = emu.logs.filter((l) => l.startsWith('ERROR'));
  assert.deepEqual(errors.map((l) => l.split(' named ')[1]).sort(), ['size']);
});

test('a sneak attack needs a qualifying weapon: --reach lets a heavy pole-arm sneak (ER-13)', () => {
  const { emu, tokens } = world();
  const refused = emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --seed 1 ` +
    '--dice 1 --style pole-arm --weight 2 --type piercing --sneak', { selected: [tokens.orc.id] });
  assert.match(plain(refused.map((m) => m.text).join(' ')), /sneak attack needs a ranged, light \(weight 0\) or reach weapon.*\(ER-13\)/);
  emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --seed 1 ` +
    '--dice 1 --style pole-arm --weight 2 --type piercing --sneak --reach', { selected: [tokens.orc.id] });
  const entry = lastLog(emu);
  assert.deepEqual(entry.request.strikes[0], {
    method: 'melee', style: 'pole-arm', dice: 1, damage_type: 'piercing', weight: 2, sneak: true, reach: true,
    target: tokens.goblin.id,
  });
  assertSafe(assert, emu);
});
