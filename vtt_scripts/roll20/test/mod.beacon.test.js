'use strict';
// Beacon character sheets keep their fields as sheet items, read with the asynchronous
// getSheetItem: the Mod script fetches what a command needs, then runs it, once.
const test = require('node:test');
const assert = require('node:assert/strict');
const { notices, plain, assertSafe } = require('./world');
const { Emulator } = require('./emulator');
const { resolve } = require('../src/engine');

function beaconWorld() {
  const emu = new Emulator({ beacon: true });
  const orc = emu.addBeaconCharacter('Orc', { strength: 6, size: 'large', fracas_strikes: '--dice 2 --style cleaving --weight 2 --type edged' });
  const goblin = emu.addBeaconCharacter('Goblin', { ac: 13, resistant: 'edged', ac_fire: 9 });
  const tokens = {
    orc: emu.addToken({ name: 'Orc', represents: orc.id }),
    goblin: emu.addToken({ name: 'Goblin', represents: goblin.id, bar1_value: '12', bar1_max: '12' }),
  };
  return { emu, tokens };
}

test('an attack reads a Beacon sheet\'s items, rolls once, and applies the damage once', async () => {
  const { emu, tokens } = beaconWorld();
  const out = emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --seed 42`, { selected: [tokens.orc.id] });
  assert.equal(out.length, 0, 'nothing yet: the sheet items are being fetched');
  await emu.settle();
  const log = JSON.parse(JSON.stringify(emu.state.fracas.log));
  assert.equal(log.length, 1, 'rolled once');
  const { request } = log[0];
  assert.deepEqual(request.attacker, { strength: 6, size: 'large' });
  assert.deepEqual(request.strikes[0], { method: 'melee', style: 'cleaving', dice: 2, damage_type: 'edged', weight: 2, target: tokens.goblin.id });
  assert.deepEqual(request.targets[tokens.goblin.id], { ac: 13, ac_by_type: { fire: 9 }, resistant: ['edged'], body_max: 12 });
  const expected = resolve(request, { seed: 42 });
  assert.equal(tokens.goblin.get('bar1_value'), Math.max(0, 12 - expected.targets[tokens.goblin.id].damage));
  const cards = emu.outputs.filter((o) => o.text.startsWith('&{template:default}') && !o.to);
  assert.equal(cards.length, 1, 'one public card (and the GM\'s companion beside it)');
  assert.ok(emu.sheetItemReads > 0 && emu.sheetItemReads < 80, `${emu.sheetItemReads} sheet-item reads`);
  assertSafe(assert, emu);
});

test('a Beacon sheet without the fields a command needs gets the usual clear message', async () => {
  const { emu, tokens } = beaconWorld();
  const blank = emu.addBeaconCharacter('Blank', {});
  const token = emu.addToken({ name: 'Blank', represents: blank.id });
  emu.chat(emu.gm, `!fracas attack --target ${token.id} --dice 1 --style slashing --type edged`, { selected: [tokens.orc.id] });
  await emu.settle();
  const said = notices(emu.outputs).join('\n');
  assert.match(said, /Blank has no "ac" attribute/);
  assert.equal(JSON.parse(JSON.stringify(emu.state.fracas.log)).length, 0);
});

test('legacy sheets (attribute objects) still work in a sandbox that has getSheetItem', async () => {
  const emu = new Emulator({ beacon: true });
  const orc = emu.addCharacter('Orc', { strength: 6, ac: 12, size: 'medium', resistant: '', vulnerable: '', immune: '' });
  const token = emu.addToken({ name: 'Orc', represents: orc.id, bar1_value: '10' });
  const out = emu.chat(emu.gm, `!fracas odds --target ${token.id} --dice 2 --style slashing --type edged`, { selected: [token.id] });
  await emu.settle();
  const all = out.concat(emu.outputs).map((o) => plain(o.text)).join('\n');
  assert.match(all, /P\(hit\)/);
  assert.equal(emu.outputs.filter((o) => /P\(hit\)/.test(plain(o.text))).length, 1, 'answered once');
});
