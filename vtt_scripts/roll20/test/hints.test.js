'use strict';
// The Mod draws a ruleset's card, bars and nested options from the contract's hints
// (contract.js CLIENT, each manifest's [client] table; mod/hints.js), not from its name
// (issue 45, item 6): the same commands against a bundle whose contract carries other hints
// for the same rulesets do what those hints say. CT-4 (stamina and injury pools), WW-2 (the
// TN a strike is rolled against), WW-5 and WW-6 (the target's block and two weapons).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Emulator } = require('./emulator');
const { card, notices, plain } = require('./world');
const { CLIENT } = require('../src/contract');

const BUNDLE = path.join(__dirname, '..', 'fracas.js');

/** The built fracas.js with ruleset `name`'s CLIENT entry replaced by `hints`: a file's path. */
function bundleWith(name, hints) {
  const source = fs.readFileSync(BUNDLE, 'utf8');
  const start = source.indexOf('const CLIENT = Object.freeze({\n');
  assert.ok(start > 0 && source.indexOf('const CLIENT = Object.freeze({\n', start + 1) < 0, 'the bundle carries one CLIENT');
  const from = source.indexOf(`\n  ${JSON.stringify(name)}: {`, start) + 1;
  const to = source.indexOf('\n', from);
  assert.ok(from > start && to > from, `the bundle's CLIENT has ${name}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fracas-hints-'));
  const file = path.join(dir, 'fracas.js');
  fs.writeFileSync(file, `${source.slice(0, from)}  ${JSON.stringify(name)}: ${JSON.stringify(hints)},${source.slice(to)}`);
  return file;
}

function table(script) {
  const emu = new Emulator(script ? { script } : {});
  const giant = emu.addCharacter('Hill Giant', { fracas_dex: 3, fracas_armor: 1, fracas_level: 12, fracas_bonus: 9, fracas_defense: 12 });
  const tombril = emu.addCharacter('Tombril', { fracas_dex: 5, fracas_armor: 3, fracas_defense: 14 });
  const tokens = {
    giant: emu.addToken({ name: 'Hill Giant', represents: giant.id, bar1_value: '68', bar1_max: '68', showplayers_name: true }),
    tombril: emu.addToken({ name: 'Tombril', represents: tombril.id, bar1_value: '55', bar1_max: '55', bar2_value: '20', showplayers_name: true }),
  };
  return { emu, tokens };
}

const RANGED = (t) => `!fracas attack --ruleset cartyrion --method ranged --die d8 --target ${t.tombril.id} --seed 77`;

test('CT-4: the split hint splits the damage onto the injury bar; without it all of it is on the Body bar', () => {
  let { emu, tokens } = table();
  emu.chat(emu.gm, '!fracas config --injury-bar 2');
  let text = plain(card(emu.chat(emu.gm, RANGED(tokens), { selected: [tokens.giant.id] })).text);
  const injury = Number(/\(stamina 0, injury (\d+)\)/.exec(text)[1]);
  assert.ok(injury > 0);
  assert.equal(Number(tokens.tombril.get('bar2_value')), Math.max(0, 20 - injury));
  assert.equal(tokens.tombril.get('bar1_value'), '55');

  ({ emu, tokens } = table(bundleWith('cartyrion', Object.assign({}, CLIENT.cartyrion, { split: undefined }))));
  emu.chat(emu.gm, '!fracas config --injury-bar 2');
  text = plain(card(emu.chat(emu.gm, RANGED(tokens), { selected: [tokens.giant.id] })).text);
  assert.doesNotMatch(text, /stamina 0, injury/);
  assert.match(text, new RegExp(`Tombril=${injury} damage`));
  assert.equal(Number(tokens.tombril.get('bar1_value')), 55 - injury);
  assert.equal(tokens.tombril.get('bar2_value'), '20');
});

test('WW-2: the card says what a d20 strike is rolled against as the against hint names it', () => {
  const attack = (script) => {
    const { emu, tokens } = table(script);
    const out = emu.chat(emu.gm, `!fracas attack --ruleset worldwalker --skill 3 --damage 1d8 --target ${tokens.giant.id} --rolls 14,5`,
      { selected: [tokens.tombril.id] });
    return plain(card(out).text);
  };
  assert.match(attack(), /d20 14 \+3 = 17 vs TN 12: ✓ hit/);
  assert.match(attack(bundleWith('worldwalker', Object.assign({}, CLIENT.worldwalker, { against: 'armor' }))),
    /d20 14 \+3 = 17 vs ARMOR 1: ✓ hit/);
  assert.match(attack(bundleWith('worldwalker', Object.assign({}, CLIENT.worldwalker, { against: undefined }))),
    /d20 14 \+3 = 17: ✓ hit/);
});

test('WW-5, WW-6: the options that build the target\'s reaction and two weapons are the hints\' choices and switches', () => {
  const without = bundleWith('worldwalker', Object.assign({}, CLIENT.worldwalker, { choices: undefined, switches: undefined }));
  for (const [script, option, known] of [[undefined, '--block 3', true], [without, '--block 3', false],
    [undefined, '--two-weapon', true], [without, '--two-weapon', false]]) {
    const { emu, tokens } = table(script);
    const out = emu.chat(emu.gm, `!fracas attack --ruleset worldwalker --skill 3 --damage 1d8 ${option} --target ${tokens.giant.id} --seed 5`,
      { selected: [tokens.tombril.id] });
    const said = notices(out).join('\n');
    if (known) assert.doesNotMatch(said, /unknown option/, option);
    else assert.match(plain(said), new RegExp(`unknown option ${option.split(' ')[0]} for the worldwalker ruleset`), option);
  }
});
