'use strict';
// `!fracas odds` in the emulated sandbox: answered by the Mod script itself, whispered
// to the asker, the target's Body bar read for the chance it drops; every ruleset.
const test = require('node:test');
const assert = require('node:assert/strict');
const { world, plain, assertSafe } = require('./world');
const { odds } = require('../src/rulesets');

function whispered(out) {
  const cards = out.filter((o) => o.to && o.text.startsWith('&{template:default}'));
  assert.equal(cards.length, 1, out.map((o) => o.raw).join('\n'));
  return plain(cards[0].text);
}

test('!fracas odds for the sheet strikes: P(hit), mean, P(drops) from the Body bar, whispered', () => {
  const { emu, tokens } = world();
  const before = emu.outputs.length;
  const out = emu.chat(emu.gm, `!fracas odds --target ${tokens.goblin.id} --at-least 5`, { selected: [tokens.orc.id] });
  const text = whispered(out);
  assert.match(text, /Odds: Orc \(Enchanted Realms\)/);
  const expected = odds({
    attacker: { strength: 6, agility: 3, size: 'medium' },
    strikes: [{ method: 'melee', style: 'cleaving', dice: 2, damage_type: 'edged', weight: 2, target: tokens.goblin.id }],
    targets: { [tokens.goblin.id]: { ac: 13, resistant: ['poison'], body_max: 12, save_bonus: 2 } },
    remaining: { [tokens.goblin.id]: 12 }, at_least: [5],
  }).targets[tokens.goblin.id];
  assert.match(text, new RegExp(`P\\(hit\\) ${Math.round(expected.p_hit * 100)}%`));
  assert.match(text, /P\(drops, 12 left\)/);
  assert.match(text, /P\(≥5\)/);
  assert.equal(tokens.goblin.get('bar1_value'), '12', 'odds change nothing');
  assert.ok(emu.outputs.length > before);
  assertSafe(assert, emu);
});

test('!fracas odds for another ruleset and a mob of identical attacks', () => {
  const { emu, tokens } = world();
  const out = emu.chat(emu.gm, `!fracas odds --ruleset cartyrion --level 9 --bonus 8 --magic 2 --die d6 ` +
    `--target-dex 3 --target-armor 1 --target ${tokens.goblin.id} --count 2`, { selected: [tokens.orc.id] });
  const text = whispered(out);
  assert.match(text, /Odds: Orc ×2 \(Cartyrion\)/);
  assert.match(text, /mean 70\.00/);
  assert.match(text, /P\(drops, 12 left\) 100\.0%/);
});

test('bad odds input is a clear whisper', () => {
  const { emu, tokens } = world();
  let out = emu.chat(emu.gm, `!fracas odds --target ${tokens.goblin.id} --dice 9 --style slashing --type edged`, { selected: [tokens.orc.id] });
  assert.match(out.map((o) => plain(o.text)).join('\n'), /9 skill dice, the most is 5 \(ER-3\)/);
  out = emu.chat(emu.gm, `!fracas odds --target ${tokens.goblin.id} --count 0`, { selected: [tokens.orc.id] });
  assert.match(out.map((o) => plain(o.text)).join('\n'), /--count/);
  assertSafe(assert, emu);
});

test('!fracas odds with WW-6 two weapons: the off hand at -10 and the target\'s off-hand block are in the exact odds', () => {
  const { emu, tokens } = world();
  const ask = (extra) => whispered(emu.chat(emu.gm, `!fracas odds --ruleset worldwalker --skill 6 --str-mod 2 --damage 1d8 ` +
    `--target-defense 12 --block 8 --target ${tokens.goblin.id} ${extra}`, { selected: [tokens.orc.id] }));
  const base = { ruleset: 'worldwalker', attacker: { skill: 6, str_mod: 2 },
    strikes: [{ method: 'melee', damage: '1d8', target: tokens.goblin.id }] };
  const target = { defense: 12, reaction: { kind: 'block', bonus: 8 } };
  const pct = (request) => Math.round(odds(request).targets[tokens.goblin.id].p_hit * 100);
  const plainP = pct(Object.assign({}, base, { targets: { [tokens.goblin.id]: target } }));
  const twoP = pct({ ruleset: 'worldwalker', attacker: { skill: 6, str_mod: 2, two_weapon: { light: false, talent: 'none' } },
    strikes: [{ method: 'melee', damage: '1d8', hand: 'off', target: tokens.goblin.id }],
    targets: { [tokens.goblin.id]: Object.assign({}, target, { reaction: { kind: 'block', bonus: 8, hand: 'off' },
      two_weapon: { light: true, talent: 'none' } }) } });
  assert.notEqual(plainP, twoP);
  assert.match(ask(''), new RegExp(`P\\(hit\\) ${plainP}%`));
  assert.match(ask('--two-weapon --hand off --target-two-weapon --target-light-off-hand --block-hand off'),
    new RegExp(`P\\(hit\\) ${twoP}%`));
  assertSafe(assert, emu);
});
