'use strict';
// Initiative into the turn order, settings, and the versioned `state` with its migrations.
const test = require('node:test');
const assert = require('node:assert/strict');
const { world, card, plain, assertSafe } = require('./world');
const { Emulator } = require('./emulator');
const { rollInitiative } = require('../src/initiative');
const store = require('../src/mod/store');

const copy = (x) => JSON.parse(JSON.stringify(x));

test('!fracas init puts the selected tokens in ER-18 order into the turn order; undo restores it', () => {
  const { emu, tokens } = world();
  const existing = [{ id: 'custom-1', pr: 30, custom: 'Lair action', _pageid: 'page-1' },
    { id: tokens.knight.id, pr: 99, custom: '', _pageid: 'page-1' },
    { id: 'custom-2', pr: -5, custom: 'Round end', _pageid: 'page-1' }];
  emu.campaign().set('turnorder', JSON.stringify(existing));
  const out = emu.chat(emu.gm, '!fracas init --seed 11', { selected: [tokens.orc.id, tokens.goblin.id, tokens.knight.id] });
  const expected = rollInitiative({
    combatants: [{ id: tokens.orc.id, agility: 3 }, { id: tokens.goblin.id, agility: 4 }, { id: tokens.knight.id, agility: 2 }],
  }, { seed: 11 });
  const order = JSON.parse(emu.campaign().get('turnorder'));
  // The rolled tokens in their ranked order, the other entries kept around them by number.
  const rolled = order.filter((e) => !e.custom).map((e) => [e.id, e.pr]);
  assert.deepEqual(rolled, expected.order.map((e) => [e.id, e.total]));
  assert.equal(order.length, 5);
  assert.equal(order[0].id, 'custom-1');
  assert.equal(order[4].id, 'custom-2');
  const fields = Emulator.fields(card(out).text);
  assert.equal(fields.name, 'Initiative (ER-18)');
  assert.match(plain(fields.seed), /^11/);
  emu.chat(emu.gm, '!fracas undo');
  assert.deepEqual(JSON.parse(emu.campaign().get('turnorder')), existing);
  assertSafe(assert, emu);
});

test('!fracas init: ties are broken by d20 roll-offs shown on the card; bonuses add', () => {
  const { emu, tokens, characters } = world();
  emu.create('attribute', { _characterid: characters.orc.id, name: 'initiative_bonus', current: '2' });
  const out = emu.chat(emu.gm, '!fracas init --bonus 1 --seed 3', { selected: [tokens.orc.id, tokens.goblin.id] });
  const expected = rollInitiative({
    combatants: [{ id: tokens.orc.id, agility: 3, bonus: 3 }, { id: tokens.goblin.id, agility: 4, bonus: 1 }],
  }, { seed: 3 });
  const fields = Emulator.fields(card(out).text);
  expected.order.forEach((e, i) => {
    const label = `${i + 1}. ${e.id === tokens.orc.id ? 'Orc' : 'Goblin'}`;
    assert.match(plain(fields[label]), new RegExp(`^${e.total} = d10 ${e.roll}`));
  });
  const err = emu.chat(emu.gm, '!fracas init', {});
  assert.match(plain(err[0].text), /select the tokens that roll initiative/);
});

test('!fracas config: shows and changes settings, refuses bad values, and Body moves to the chosen bar', () => {
  const { emu, tokens, characters } = world();
  let out = emu.chat(emu.gm, '!fracas config');
  assert.match(plain(out[0].text), /Body bar: 1 · minimum 0/);
  out = emu.chat(emu.gm, '!fracas config --bar 2 --attr ac=armor_class --output whisper');
  assert.match(plain(out[0].text), /Body is on bar 2/);
  assert.match(plain(out[0].text), /ac is read from the attribute "armor_class"/);
  for (const [bad, pattern] of [['--bar 5', /--bar must be 1 to 4/], ['--attr nope=x', /unknown field "nope"/],
    ['--marker dizzy=x', /unknown condition "dizzy"/], ['--output loud', /--output takes public or whisper/],
    ['--below-min maybe', /takes on or off/], ['--colour red', /does not know --colour/], ['oops', /takes --options/]]) {
    out = emu.chat(emu.gm, `!fracas config ${bad}`);
    assert.match(plain(out[0].text), pattern, bad);
  }
  assert.equal(emu.state.fracas.config.bar, 2);
  emu.create('attribute', { _characterid: characters.goblin.id, name: 'armor_class', current: '10' });
  tokens.goblin.set({ bar2_value: '8', bar2_max: '8' });
  out = emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --dice 1 --style slashing --type edged --rolls 12`,
    { selected: [tokens.orc.id] });
  // 12 + 6 ≥ AC 10 (armor_class, not ac 13): 1 hit + 2 Str = 3 off bar 2; the card is whispered.
  assert.equal(tokens.goblin.get('bar2_value'), 5);
  assert.equal(tokens.goblin.get('bar1_value'), '12');
  assert.deepEqual(out.map((o) => o.to), ['gm']);
  // The help handout shows the new attribute name.
  assert.match(emu.find({ _type: 'handout', name: 'Help: fracas' })[0].data.notes, /ac: armor_class/);
  out = emu.chat(emu.gm, '!fracas config --reset');
  assert.equal(emu.state.fracas.config.bar, 1);
});

test('state: a fresh campaign gets the current version; settings and undo survive a sandbox restart', () => {
  const { emu, tokens } = world();
  assert.equal(emu.state.fracas.version, store.SCHEMA_VERSION);
  emu.chat(emu.gm, '!fracas config --bar 1 --min -5');
  emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --dice 1 --style slashing --type edged --rolls 12`,
    { selected: [tokens.orc.id] });
  assert.equal(tokens.goblin.get('bar1_value'), 9);
  emu.reload();
  assert.equal(emu.state.fracas.config.min, -5);
  emu.chat(emu.gm, '!fracas undo');
  assert.equal(tokens.goblin.get('bar1_value'), 12);
});

test('state: version 1 (flat settings, old undo entries) migrates to the current version', () => {
  const { emu, tokens } = world();
  tokens.goblin.set('bar2_value', 4);
  emu.setStoredState({
    fracas: { version: 1, bar: 2, whisper: true, undo: [{ id: 'old', label: 'old attack', time: 5, tokens: [{ id: tokens.goblin.id, before: 9 }, { id: 'x', before: 'NaN' }] }] },
    OtherScript: { keep: true },
  });
  const s = copy(emu.state.fracas);
  assert.equal(s.version, store.SCHEMA_VERSION);
  assert.equal(s.config.bar, 2);
  assert.equal(s.config.output, 'whisper');
  assert.deepEqual(s.config.attrs, store.DEFAULT_ATTRS);
  assert.deepEqual(s.undo, [{ id: 'old', label: 'old attack', time: 5, changes: [{ type: 'graphic', id: tokens.goblin.id, prop: 'bar2_value', before: 9 }] }]);
  // A relay secret is made when the script starts, and shown to the GM once.
  assert.match(s.relay.secret, /^[0-9a-f]{64}$/);
  assert.deepEqual(s.relay, { pending: {}, applied: [], last_hello: null, counter: 0, secret: s.relay.secret, secret_shown: true });
  assert.deepEqual(copy(emu.state.OtherScript), { keep: true });
  const notes = emu.outputs.filter((o) => o.to === 'gm').map((o) => plain(o.text));
  assert.ok(notes.some((n) => /updated from version 1 to 2/.test(n)) && notes.some((n) => /from version 2 to 3/.test(n)), notes.join('\n'));
  // The migrated undo entry still works.
  emu.chat(emu.gm, '!fracas undo');
  assert.equal(tokens.goblin.get('bar2_value'), 9);
});

test('state: version 2 migrates; unreadable or newer state is kept aside and defaults used', () => {
  const { emu } = world();
  emu.setStoredState({ fracas: { version: 2, config: { bar: 3, attrs: { ac: 'AC' } }, undo: [], help_version: '0.0.1' } });
  let s = copy(emu.state.fracas);
  assert.equal(s.version, store.SCHEMA_VERSION);
  assert.equal(s.config.bar, 3);
  assert.equal(s.config.attrs.ac, 'AC');
  assert.equal(s.config.attrs.strength, 'strength');
  assert.equal(s.help_version, '0.1.0', 'the help handout is rewritten for the new version');
  for (const bad of [{ version: 99, future: true }, 'a string', { version: 'x' }, { version: 0 }, [1, 2]]) {
    emu.setStoredState({ fracas: bad });
    s = copy(emu.state.fracas);
    assert.equal(s.version, store.SCHEMA_VERSION);
    assert.deepEqual(copy(emu.state.fracas_backup), bad);
    assert.ok(emu.outputs.some((o) => /cannot read/.test(plain(o.text))));
  }
});

test('state: the undo stack and attack log are bounded', () => {
  const { emu, tokens } = world();
  tokens.goblin.set({ bar1_value: 100000 });
  for (let i = 0; i < store.LOG_LIMIT + 5; i++) {
    emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --dice 1 --style slashing --type edged --rolls 12`,
      { selected: [tokens.orc.id] });
  }
  assert.equal(emu.state.fracas.undo.length, store.UNDO_LIMIT);
  assert.equal(emu.state.fracas.log.length, store.LOG_LIMIT);
  assert.ok(JSON.stringify(emu.state).length < 200000);
});

test('state: every bad setting is reset to its default on load, and the GM is told which, by its path', () => {
  const { emu, tokens } = world();
  const good = copy(emu.state.fracas);
  const bad = copy(good);
  Object.assign(bad.config, { bar: 7, min: 'abc', output: 'loud', players_seed: 'yes', relay_chunk: 5, ruleset: 'chess',
    injury_bar: 0, trust_scripts: 1, mystery: true });
  bad.config.attrs.ac = { evil: 1 };
  bad.config.attrs.strength = 'str<b>';
  bad.config.markers = { prone: 'back-pain', stunned: 5, flying: 'x' };
  bad.undo = [{ id: 'u1', label: 'ok', time: 0, changes: [] }, 'garbage', { changes: 'no' }];
  bad.relay.pending = { 'r20-x-1': 3 };
  bad.relay.secret = 'short';
  const before = emu.outputs.length;
  emu.setStoredState({ fracas: bad });
  const c = emu.state.fracas.config;
  assert.deepEqual([c.bar, c.min, c.output, c.players_seed, c.relay_chunk, c.ruleset, c.injury_bar, c.trust_scripts],
    [1, 0, 'public', false, 1800, 'enchanted-realms', null, false]);
  assert.equal(c.mystery, undefined);
  assert.equal(c.attrs.ac, 'ac');
  assert.equal(c.attrs.strength, 'strength');
  assert.deepEqual(copy(c.markers), { prone: 'back-pain' });
  assert.equal(emu.state.fracas.undo.length, 1);
  assert.deepEqual(copy(emu.state.fracas.relay.pending), {});
  assert.match(emu.state.fracas.relay.secret, /^[0-9a-f]{64}$/);
  const told = emu.outputs.slice(before).filter((o) => o.to === 'gm').map((o) => plain(o.text)).join('\n');
  for (const path of ['config.bar was 7', 'config.min was "abc"', 'config.output was "loud"', 'config.players_seed was "yes"',
    'config.relay_chunk was 5', 'config.ruleset was "chess"', 'config.injury_bar was 0', 'config.trust_scripts was 1',
    'config.mystery is not a fracas setting', 'config.attrs.ac was {"evil":1}', 'config.attrs.strength was "str<b>"',
    'config.markers.stunned was 5', 'config.markers.flying was "x"', 'undo: 2 unreadable entries dropped',
    'relay.pending.r20-x-1 is not a request', 'relay.secret is not 64 hex digits']) {
    assert.ok(told.includes(`state.fracas.${path}`), `not told: ${path}\n${told}`);
  }
  // The bad values are not used: an attack applies to bar 1 (not "not applied" on bar 7).
  emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --dice 2 --style slashing --type edged --rolls 20,19,3`,
    { selected: [tokens.orc.id] });
  assert.ok(Number(tokens.goblin.get('bar1_value')) < 12);
  // A good state says nothing.
  const quiet = emu.outputs.length;
  emu.setStoredState({ fracas: good });
  assert.ok(!emu.outputs.slice(quiet).some((o) => /state\.fracas\./.test(plain(o.text))));
  assertSafe(assert, emu);
});
