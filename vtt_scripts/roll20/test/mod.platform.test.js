'use strict';
// Issue 39, Roll20 items 7-11: each against the emulator's rule as Roll20 has it (the rule's
// source is cited in emulator.js): a real campaign's `_token_markers`, Beacon computed
// properties written through setComputed, bar 4 and the bars' number permissions, undo per
// card by delta, one GM card beside a public one, `initiativepage` a page id, nameplates.
const test = require('node:test');
const assert = require('node:assert/strict');
const { world, card, gmCard, notices, plain, assertSafe } = require('./world');
const { Emulator } = require('./emulator');

const HIT = (target) => `!fracas attack --target ${target} --dice 1 --style slashing --type edged --rolls 15`;

test('item 7: a real campaign lists no colour dots nor dead, yet stunned=red and unconscious=dead map and read as conditions', () => {
  const { emu, tokens } = world();
  const listed = JSON.parse(emu.campaign().get('_token_markers')).map((m) => m.tag);
  for (const builtin of ['red', 'blue', 'green', 'brown', 'purple', 'pink', 'yellow', 'dead']) assert.ok(!listed.includes(builtin), builtin);
  for (const option of ['--marker stunned=red', '--marker unconscious=dead']) {
    const said = notices(emu.chat(emu.gm, `!fracas config ${option}`)).join('\n');
    assert.ok(!/no token marker/.test(said), said);
  }
  assert.deepEqual(JSON.parse(JSON.stringify(emu.state.fracas.config.markers)), { stunned: 'red', unconscious: 'dead' });
  // A marker the campaign has not is still refused, naming what it was given.
  assert.match(notices(emu.chat(emu.gm, '!fracas config --marker prone=reddish')).join('\n'), /no token marker "reddish"/);
  tokens.goblin.set('status_red', true);
  tokens.goblin.set('status_dead', true);
  emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --dice 1 --style slashing --type edged --seed 5 --no-apply`, { selected: [tokens.orc.id] });
  const log = JSON.parse(JSON.stringify(emu.state.fracas.log));
  assert.deepEqual(log[log.length - 1].request.targets[tokens.goblin.id].conditions, ['stunned', 'unconscious']);
  assertSafe(assert, emu);
});

function beaconTable() {
  const emu = new Emulator({ beacon: true, computed: { hp: { tokenBarValue: true, readonly: false }, ac_total: { readonly: true } } });
  const orc = emu.addBeaconCharacter('Orc', { strength: 6 });
  const goblin = emu.addBeaconCharacter('Goblin', { ac: 13, hp: 12 });
  const tokens = {
    orc: emu.addToken({ name: 'Orc', represents: orc.id, showplayers_name: true }),
    // The bar links to the sheet's computed hp by name (TokenMod.js 3748-3753).
    goblin: emu.addToken({ name: 'Goblin', represents: goblin.id, bar1_link: 'hp', bar1_value: 12, bar1_max: 12, showplayers_name: true }),
  };
  return { emu, tokens, goblin };
}

test('item 8 and the acceptance: damage to a Beacon computed HP goes through setComputed; undo of an older card by delta, the same way', async () => {
  const { emu, tokens, goblin } = beaconTable();
  // The emulator is strict: setComputed on a read-only or unknown property crashes the sandbox.
  assert.throws(() => emu.context.setComputed({ characterId: goblin.id, property: 'ac_total', args: [3] }), /read-only/);
  assert.throws(() => emu.context.setComputed({ characterId: goblin.id, property: 'nope', args: [3] }), /computedSummary/);
  emu.chat(emu.gm, HIT(tokens.goblin.id), { selected: [tokens.orc.id] }); // 1 hit + 2 Str = 3
  await emu.settle();
  emu.chat(emu.gm, HIT(tokens.goblin.id), { selected: [tokens.orc.id] });
  await emu.settle();
  assert.equal(emu.sheetItems[goblin.id].hp, 6, "the character's HP changed, not only the bar");
  assert.equal(tokens.goblin.get('bar1_value'), 6);
  assert.deepEqual(emu.computedWrites.map((w) => w.value), [9, 6]);
  const [older] = emu.state.fracas.undo;
  emu.context.setComputed({ characterId: goblin.id, property: 'hp', args: [8] }); // healed 2 since
  emu.chat(emu.gm, `!fracas undo ${older.id}`);
  assert.equal(emu.sheetItems[goblin.id].hp, 11, "the older card's 3 come back; the healing stays");
  assert.equal(tokens.goblin.get('bar1_value'), 11);
  assert.match(notices(emu.chat(emu.gm, `!fracas undo ${older.id}`)).join('\n'), /already undone/);
  assertSafe(assert, emu);
});

test('item 8: a bar linked to a read-only computed property is not written; the card says why', async () => {
  const { emu, tokens } = beaconTable();
  tokens.goblin.set('bar1_link', 'ac_total');
  emu.chat(emu.gm, HIT(tokens.goblin.id), { selected: [tokens.orc.id] });
  await emu.settle();
  assert.equal(emu.computedWrites.length, 0);
  const shown = emu.outputs.map((o) => plain(o.text)).join('\n');
  assert.match(shown, /not applied: bar 1 shows the sheet's read-only "ac_total"/);
});

test('item 9: bar 4 and the number permissions exist; unknown values are refused; odds honour the permission', () => {
  const { emu, tokens, player } = world();
  const t = tokens.goblin;
  t.set({ bar4_value: 10, bar4_max: 10, bar1_num_permission: 'hidden', showplayers_bar4: true });
  assert.throws(() => t.set('bar1_num_permission', 'players'), /number permission/);
  assert.throws(() => t.set('bar5_value', 3), /no such property/);
  emu.chat(emu.gm, '!fracas config --bar 4');
  emu.chat(emu.gm, HIT(t.id), { selected: [tokens.orc.id] });
  assert.equal(t.get('bar4_value'), 7);
  emu.chat(emu.gm, '!fracas config --bar 1');
  // Another player's token, bar shown, numbers editors-only (Roll20's default): no Body for Pat.
  const other = emu.addPlayer('Robin');
  const mage = emu.addToken({ name: 'Mage', controlledby: other.id, bar1_value: 9, bar1_max: 9, showplayers_bar1: true, showplayers_name: true });
  emu.chat(emu.gm, '!fracas config --players-numbers on');
  const odds = () => notices(emu.chat(player, `!fracas odds --target ${mage.id} --ac 12`, { selected: [tokens.knight.id] })).join('\n');
  assert.ok(!/drops/.test(odds()), 'editors only: Pat does not edit the mage');
  mage.set('bar1_num_permission', 'everyone');
  assert.match(odds(), /P\(drops, 9 left\)/);
  assertSafe(assert, emu);
});

test('item 10: undo by card and by delta; a deleted token and a value past its maximum are told, not crashed on', () => {
  const { emu, tokens } = world();
  const g = tokens.goblin;
  emu.chat(emu.gm, HIT(g.id), { selected: [tokens.orc.id] }); // 12 → 9
  const first = emu.state.fracas.undo[0].id;
  const out = emu.chat(emu.gm, HIT(g.id), { selected: [tokens.orc.id] }); // 9 → 6
  assert.ok(gmCard(out).text.includes(`(!fracas undo ${emu.state.fracas.undo[1].id})`), "the card's button names the card");
  g.set('bar1_value', 11); // healed 5 since
  emu.chat(emu.gm, `!fracas undo ${first}`);
  assert.equal(g.get('bar1_value'), 12, '11 + 3 is past the maximum 12: capped');
  assert.match(notices(emu.outputs.slice(-1)).join('\n'), /past its maximum 12; set to 12/);
  assert.match(notices(emu.chat(emu.gm, '!fracas undo nope-1')).join('\n'), /no card "nope-1" to undo/);
  g.remove();
  assert.match(notices(emu.chat(emu.gm, '!fracas undo')).join('\n'), /Goblin is gone \(deleted since\): nothing to put back/);
  assertSafe(assert, emu);
});

test('item 11: one GM card beside a public card; initiativepage a page id, never true; hidden nameplates unnamed', () => {
  const { emu, tokens } = world();
  tokens.goblin.set('showplayers_name', false);
  const out = emu.chat(emu.gm, HIT(tokens.goblin.id), { selected: [tokens.orc.id] });
  const shown = card(out);
  assert.equal(shown.to, null);
  assert.ok(!/Goblin/.test(plain(shown.text)) && /an unnamed creature/.test(plain(shown.text)), plain(shown.text));
  assert.ok(!shown.text.includes('](!fracas'));
  const whispers = out.filter((o) => o.to);
  assert.equal(whispers.length, 1, 'one whisper to the GM');
  const gm = gmCard(out);
  assert.ok(gm && /Goblin/.test(plain(gm.text)) && /\[undo\]\(!fracas undo a-/.test(gm.text));
  // A named target: the GM card carries only what the public card leaves out (the NPC's Body, the buttons).
  tokens.goblin.set('showplayers_name', true);
  const named = gmCard(emu.chat(emu.gm, HIT(tokens.goblin.id), { selected: [tokens.orc.id] }));
  assert.ok(!/dice:/.test(plain(named.text)), plain(named.text));
  assert.match(plain(named.text), /Body 9 → 6/);
  // The turn tracker: the players' page may be none (Campaign playerpageid `string | false`).
  emu.campaign().data.playerpageid = false;
  emu.create('page', { _id: 'page-2' });
  tokens.orc.data._pageid = 'page-2';
  emu.chat(emu.gm, '!fracas init --seed 3', { selected: [tokens.orc.id] });
  assert.equal(emu.campaign().get('initiativepage'), 'page-2');
  assert.throws(() => emu.campaign().set('initiativepage', true), /not false or a page id/);
  assertSafe(assert, emu);
});
