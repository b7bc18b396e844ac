'use strict';
// `!fracas counterspell` (Worldwalker WW-8) in the strict emulated sandbox: the request built
// from tokens and sheets, resolved offline by the JavaScript twin, the same result as Python's
// on the same seed; bad input whispered naming the option; who may counter, with what.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { world, card, gmCard, notices, plain, assertSafe } = require('./world');
const { Emulator } = require('./emulator');
const { counterspell } = require('../src/rulesets');
const H = require('./helpers');

/** The knight (Pat's) is trained in sorcery; the orc casts sorcery spells. */
function mageWorld() {
  const w = world();
  w.emu.create('attribute', { _characterid: w.characters.knight.id, name: 'school_sorcery', current: '4' });
  w.emu.create('attribute', { _characterid: w.characters.orc.id, name: 'school_sorcery', current: '3' });
  return w;
}

function request(tokens, extra = {}) {
  return {
    ruleset: 'worldwalker', school: 'sorcery',
    caster: { id: tokens.orc.id, skill: 3, modifier: extra.casterModifier || 0 },
    counterspeller: { id: tokens.knight.id, schools: { sorcery: 4 }, distance: 30, modifier: extra.modifier || 0 },
  };
}

test('WW-8: !fracas counterspell reads both sheets\' school ratings; the card equals the JS resolver', () => {
  const { emu, tokens, player } = mageWorld();
  const out = emu.chat(player, `!fracas counterspell --school Sorcery --caster ${tokens.orc.id} --distance 30`,
    { selected: [tokens.knight.id] });
  const fields = Emulator.fields(card(out).text);
  assert.equal(fields.name, 'Counterspell (WW-8): sorcery');
  const seed = Number(plain(fields.seed));
  const expected = counterspell(request(tokens), { seed });
  assert.ok(plain(fields['Sir Kay (counters)']).startsWith(`d20 ${expected.counterspeller.roll} +4 sorcery = ${expected.counterspeller.total}`));
  assert.ok(plain(fields['Orc (casts)']).startsWith(`d20 ${expected.caster.roll} +3 sorcery = ${expected.caster.total}`));
  assert.equal(plain(fields.outcome), expected.outcome.split(tokens.knight.id).join('Sir Kay').split(tokens.orc.id).join('Orc'));
  // d20+4 beats d20+3 when the caster's d20 is at most the counterspeller's: 210 of the 400 pairs.
  assert.equal(expected.p_countered_exact, '21/40');
  assert.match(plain(fields.chance), /^52\.5% to counter \(exactly 21\/40; a tie leaves the spell cast\)$/);
  assertSafe(assert, emu);
});

test('WW-8: typed rolls give the outcome named; a tie leaves the spell cast', () => {
  const { emu, tokens } = mageWorld();
  // 10 + 4 = 14 against 11 + 3 = 14: a tie, the counterspell fails.
  let fields = Emulator.fields(card(emu.chat(emu.gm, `!fracas counterspell --school sorcery --caster ${tokens.orc.id} --distance 60 --rolls 10,11`,
    { selected: [tokens.knight.id] })).text);
  assert.equal(plain(fields.outcome), "Orc's sorcery spell is cast: Sir Kay fails to counter it");
  fields = Emulator.fields(card(emu.chat(emu.gm, `!fracas counterspell --school sorcery --caster ${tokens.orc.id} --distance 5 ` +
    `--modifier 2 --caster-modifier -1 --rolls 10,11`, { selected: [tokens.knight.id] })).text);
  assert.equal(plain(fields.outcome), "Sir Kay counters Orc's sorcery spell: it fizzles");
  assert.ok(plain(fields['Sir Kay (counters)']).includes('+2 = 16'));
});

test('WW-8: the same seed gives the same result in Python', (t) => {
  if (!H.pythonHasFracas()) return H.skipUnlessCI(t, `no Python with fracas at ${H.pythonPath()}`);
  const { tokens } = mageWorld();
  for (const [seed, extra] of [[7, {}], [12345, { modifier: 3, casterModifier: -2 }], [2 ** 40 + 9, { casterModifier: 5 }]]) {
    const req = request(tokens, extra);
    const run = spawnSync(H.pythonPath(), ['-c', 'import json, sys, fracas\nr = fracas.roll("counterspell", json.load(sys.stdin), seed=int(sys.argv[1])).to_dict()\n' +
      'r.pop("backend", None)\nprint(json.dumps(r))', String(seed)], { cwd: H.REPO_ROOT, input: JSON.stringify(req), encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(JSON.stringify(counterspell(req, { seed }))), JSON.parse(run.stdout));
  }
});

test('WW-8: bad input is whispered naming the option; nothing is rolled', () => {
  const { emu, tokens } = mageWorld();
  const say = (text, selected = [tokens.knight.id]) => notices(emu.chat(emu.gm, text, { selected })).join('\n');
  const c = `--caster ${tokens.orc.id}`;
  assert.match(say(`!fracas counterspell ${c} --distance 30`), /--school sorcery/);
  assert.match(say(`!fracas counterspell --school sorcery --distance 30`), /--caster @\{target\|token_id\}/);
  assert.match(say(`!fracas counterspell --school sorcery ${c}`), /--distance 30/);
  assert.match(say(`!fracas counterspell --school sorcery ${c} --distance far`), /--distance takes a whole number, not "far"/);
  assert.match(say(`!fracas counterspell --school sorcery ${c} --distance 61`), /61 ft from the caster: .*60 ft \(WW-8\)/);
  assert.match(say(`!fracas counterspell --school sorcery ${c} --distance 10 --rating 0`), /--rating must be 1 to 100, not 0/);
  assert.match(say(`!fracas counterspell --school "a b" ${c} --distance 10`), /--school: .* is not a school name/);
  assert.match(say(`!fracas counterspell --school illusion ${c} --distance 10`), /Sir Kay has no "school_illusion" attribute: give its illusion rating with --rating/);
  assert.match(say(`!fracas counterspell --school illusion ${c} --distance 10 --rating 2`), /Orc has no "school_illusion" attribute: .*--caster-skill/);
  assert.match(say(`!fracas counterspell --school sorcery --caster nosuch --distance 10`), /no token with the id "nosuch" \(--caster\)/);
  assert.match(say(`!fracas counterspell --school sorcery ${c} --counterspeller nosuch --distance 10`), /no token with the id "nosuch" \(--counterspeller\)/);
  assert.match(say(`!fracas counterspell --school sorcery ${c} --distance 10`, [tokens.orc.id]), /answers another's spell: pick another --caster/);
  assert.match(say(`!fracas counterspell --school sorcery ${c} --distance 10 --range 5`), /does not know --range/);
  assert.ok(!emu.outputs.some((o) => o.text.startsWith('&{template:default}')), 'nothing was rolled');
});

test('WW-8: a player counters with a token they control; typed numbers and dice need the GM\'s leave', () => {
  const { emu, tokens, player } = mageWorld();
  const c = `--school sorcery --caster ${tokens.orc.id} --distance 10`;
  let text = notices(emu.chat(player, `!fracas counterspell ${c}`, { selected: [tokens.orc.id] })).join('\n');
  assert.match(text, /only with a token you control/);
  text = notices(emu.chat(player, `!fracas counterspell ${c} --rating 9 --caster-modifier -5`, { selected: [tokens.knight.id] })).join('\n');
  assert.match(text, /--rating, --caster-modifier: players attack with their character's strikes/);
  text = notices(emu.chat(player, `!fracas counterspell ${c} --seed 3`, { selected: [tokens.knight.id] })).join('\n');
  assert.match(text, /--seed/);
  emu.chat(emu.gm, '!fracas config --players-numbers on');
  const out = emu.chat(player, `!fracas counterspell ${c} --rating 9`, { selected: [tokens.knight.id] });
  assert.ok(plain(Emulator.fields(card(out).text)['Sir Kay (counters)']).includes('+9 sorcery'));
});

test('WW-8: a caster on the GM layer is "a hidden creature" on the public card, named on the GM\'s', () => {
  const { emu, tokens } = mageWorld();
  const lich = emu.addCharacter('Secret Lich', { school_sorcery: 6 });
  const lurker = emu.addToken({ name: 'Secret Lich', represents: lich.id, layer: 'gmlayer' });
  const out = emu.chat(emu.gm, `!fracas counterspell --school sorcery --caster ${lurker.id} --distance 20 --seed 4`,
    { selected: [tokens.knight.id] });
  const shown = plain(card(out.filter((o) => !o.to)).text);
  assert.ok(!shown.includes('Secret Lich') && shown.includes('a hidden creature'), shown);
  assert.ok(plain(gmCard(out).text).includes('Secret Lich'));
  const r = counterspell({ ruleset: 'worldwalker', school: 'sorcery', caster: { id: lurker.id, skill: 6 },
    counterspeller: { id: tokens.knight.id, schools: { sorcery: 4 }, distance: 20 } }, { seed: 4 });
  assert.ok(shown.includes(`= ${r.caster.total}`));
  assertSafe(assert, emu);
});
