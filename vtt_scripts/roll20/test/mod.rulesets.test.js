'use strict';
// `!fracas attack --ruleset …` in the emulated sandbox: Cartyrion, Worldwalker and
// old-school attacks from options and sheet attributes, the campaign's default
// ruleset in `!fracas config`, damage on the bars, and the same dice as Python.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Emulator } = require('./emulator');
const { card, notices, plain, assertSafe } = require('./world');
const { resolve } = require('../src/rulesets');

function table() {
  const emu = new Emulator();
  const tombril = emu.addCharacter('Tombril', { fracas_level: 9, fracas_bonus: 8, fracas_magic: 2, fracas_dex: 5, fracas_armor: 3 });
  const giant = emu.addCharacter('Hill Giant', { fracas_dex: 3, fracas_armor: 1, fracas_level: 12, fracas_bonus: 9 });
  const tokens = {
    tombril: emu.addToken({ name: 'Tombril', represents: tombril.id, bar1_value: '55', bar1_max: '55', bar2_value: '20', showplayers_name: true }),
    giant: emu.addToken({ name: 'Hill Giant', represents: giant.id, bar1_value: '68', bar1_max: '68', showplayers_name: true }),
  };
  return { emu, tokens };
}

function lastLog(emu) {
  const log = JSON.parse(JSON.stringify(emu.state.fracas.log));
  return log[log.length - 1];
}

test('Cartyrion: Tombril hits the Hill Giant for 31 with the dice of the text (CT-2, CT-3)', () => {
  const { emu, tokens } = table();
  const out = emu.chat(emu.gm, `!fracas attack --ruleset cartyrion --die d6 --target ${tokens.giant.id} --rolls 5,3,4,3,2`,
    { selected: [tokens.tombril.id] });
  const entry = lastLog(emu);
  assert.deepEqual(entry.request.attacker, { level: 9, bonus: 8, magic: 2 });
  assert.deepEqual(entry.request.targets[tokens.giant.id], { dex: 3, armor: 1 });
  const text = plain(card(out).text);
  assert.match(text, /Tombril attacks \(Cartyrion\)/);
  assert.match(text, /31 damage \(stamina 31, injury 0\)/);
  assert.equal(tokens.giant.get('bar1_value'), 68 - 31);
  assertSafe(assert, emu);
});

test('the campaign default ruleset, the injury bar, and the same result as the engine for the seed', () => {
  const { emu, tokens } = table();
  emu.chat(emu.gm, '!fracas config --ruleset cartyrion --injury-bar 2');
  assert.equal(emu.state.fracas.config.ruleset, 'cartyrion');
  const out = emu.chat(emu.gm, `!fracas attack --method ranged --die d8 --target ${tokens.tombril.id} --seed 77`,
    { selected: [tokens.giant.id] });
  const entry = lastLog(emu);
  assert.equal(entry.request.ruleset, 'cartyrion');
  const expected = resolve(entry.request, { seed: 77 });
  const damage = expected.targets[tokens.tombril.id];
  assert.equal(damage.stamina, 0);
  assert.equal(tokens.tombril.get('bar2_value'), Math.max(0, 20 - damage.injury));
  assert.equal(tokens.tombril.get('bar1_value'), '55');
  assert.match(plain(card(out).text), new RegExp(`spends ${expected.attacker.stamina_cost} stamina`));
  emu.chat(emu.gm, '!fracas undo');
  assert.equal(Number(tokens.tombril.get('bar2_value')), 20);
});

test('Worldwalker and old-school attacks from options; --target-FIELD for every target', () => {
  const { emu, tokens } = table();
  let out = emu.chat(emu.gm, `!fracas attack --ruleset worldwalker --skill 3 --str-mod 2 --damage 1d8 --critical 2 ` +
    `--target-defense 12 --target-armor 1 --block 4 --target ${tokens.giant.id} --seed 5`, { selected: [tokens.tombril.id] });
  let entry = lastLog(emu);
  assert.deepEqual(entry.request.targets[tokens.giant.id], { armor: 1, defense: 12, reaction: { kind: 'block', bonus: 4 } });
  const ww = resolve(entry.request, { seed: 5 });
  assert.match(plain(card(out).text), new RegExp(`${ww.targets[tokens.giant.id].damage} damage`));
  out = emu.chat(emu.gm, `!fracas attack --ruleset old-school --attack-bonus 2 --method missile --range long --damage 1d6 ` +
    `--target-ac 13 --target ${tokens.giant.id} --seed 9 --no-apply`, { selected: [tokens.tombril.id] });
  entry = lastLog(emu);
  assert.equal(entry.request.strikes[0].range, 'long');
  assert.match(plain(card(out).text), /vs AC 13/);
});

test('bad input is a clear whisper naming the option or the request path and rule, and changes nothing', () => {
  const { emu, tokens } = table();
  let out = emu.chat(emu.gm, `!fracas attack --ruleset cartyrion --die d7 --target ${tokens.giant.id}`, { selected: [tokens.tombril.id] });
  assert.match(notices(out).join('\n'), /strike 1\.die: d7 is not a die of the Cartyrion rules.*CT-3/);
  out = emu.chat(emu.gm, `!fracas attack --ruleset chess --target ${tokens.giant.id}`, { selected: [tokens.tombril.id] });
  assert.match(notices(out).join('\n'), /unknown ruleset "chess"/);
  out = emu.chat(emu.gm, `!fracas attack --ruleset cartyrion --die d6 --style slashing --target ${tokens.giant.id}`, { selected: [tokens.tombril.id] });
  assert.match(notices(out).join('\n'), /unknown option --style for the cartyrion ruleset/);
  out = emu.chat(emu.gm, '!fracas config --ruleset chess');
  assert.match(notices(out).join('\n'), /unknown ruleset "chess"/);
  assert.equal(tokens.giant.get('bar1_value'), '68');
  assertSafe(assert, emu);
});

test('WW-6 from the command: the attacker\'s two weapons and hand, the target\'s and its blocking hand', () => {
  const { emu, tokens } = table();
  const out = emu.chat(emu.gm, '!fracas attack --ruleset worldwalker --skill 5 --str-mod 2 --damage 1d6 ' +
    '--two-weapon --talent dual-weapon-training --hand off --target-defense 5 --block 9 --block-hand off ' +
    `--target-two-weapon --target-light-off-hand --target ${tokens.giant.id} --rolls 14,12,4`, { selected: [tokens.tombril.id] });
  const entry = lastLog(emu);
  assert.deepEqual(entry.request.attacker, { skill: 5, str_mod: 2, two_weapon: { light: false, talent: 'dual-weapon-training' } });
  assert.equal(entry.request.strikes[0].hand, 'off');
  assert.deepEqual(entry.request.targets[tokens.giant.id], {
    defense: 5, armor: 1, reaction: { kind: 'block', bonus: 9, hand: 'off' }, two_weapon: { light: true, talent: 'none' },
  });
  // the off hand with Dual Weapon Training: 5 + 2 - 4 = +3; the light off-hand block: 9 - 8 = +1
  const ww = resolve(entry.request, { seed: 1 });
  assert.deepEqual([ww.strikes[0].attack_bonus, ww.strikes[0].reaction.bonus], [3, 1]);
  assert.match(plain(card(out).text), /d20 14 \+3 = 17 vs TN 5: ✓ hit · block 13: fails/);
  assertSafe(assert, emu);
});

test('WW-6 options without what they describe are refused, naming the option', () => {
  const { emu, tokens } = table();
  const attack = (extra) => notices(emu.chat(emu.gm, `!fracas attack --ruleset worldwalker --skill 3 --damage 1d8 ` +
    `--target-defense 10 --target ${tokens.giant.id} ${extra}`, { selected: [tokens.tombril.id] })).join('\n');
  assert.match(attack('--talent dual-weapon-mastery'), /--talent describes two-weapon fighting: give --two-weapon too \(WW-6\)/);
  assert.match(attack('--target-light-off-hand'), /--target-light-off-hand describes the target's two-weapon fighting: give --target-two-weapon too/);
  assert.match(attack('--block-hand off'), /--block-hand says which hand blocks: give --block too \(WW-6\)/);
  assert.match(attack('--block 3 --dodge 4'), /give --block or --dodge, not both/);
  assert.match(attack('--block 7 --block-hand off'), /reaction\.hand.*WW-6/);
  assert.match(attack('--hand off'), /hand.*WW-6/);
  assert.match(attack('--two-weapon --talent lucky'), /talent/);
  assert.equal(tokens.giant.get('bar1_value'), '68');
  assertSafe(assert, emu);
});
