'use strict';
// The Enchanted Realms table situations in the emulated sandbox: stray shots (ER-17),
// competitions (ER-19), flee attacks (ER-20), grapple release (ER-21), defense rolls
// (ER-22) and impalement (ER-23). Requests built from tokens and sheets, the engine's
// answer on the card, damage and undo, and clear errors.
const test = require('node:test');
const assert = require('node:assert/strict');
const { world, card, notices, plain, assertSafe } = require('./world');
const { Emulator } = require('./emulator');
const { resolve } = require('../src/engine');
const specials = require('../src/specials');

function lastLog(emu) {
  const log = JSON.parse(JSON.stringify(emu.state.fracas.log));
  return log[log.length - 1];
}

function archerWorld() {
  const w = world();
  const archer = w.emu.addCharacter('Archer', { agility: 4, strength: 2 });
  w.tokens.archer = w.emu.addToken({ name: 'Archer', represents: archer.id });
  return w;
}

test('ER-17: --nearby lists the creatures a missed shot may hit; the stray is on the card and applied', () => {
  const { emu, tokens } = archerWorld();
  // Find a seed whose shot misses the goblin behind three-quarters cover and strays onto the knight.
  let seed = 0;
  let expected;
  for (seed = 0; seed < 500; seed++) {
    const out = emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --dice 1 --style archery --type piercing ` +
      `--cover three-quarters --nearby ${tokens.knight.id} --no-apply --seed ${seed}`, { selected: [tokens.archer.id] });
    const entry = lastLog(emu);
    expected = resolve(entry.request, { seed });
    const stray = expected.strikes[0].stray;
    if (stray && stray.creature === tokens.knight.id && stray.hits) {
      assert.deepEqual(entry.request.targets[tokens.goblin.id].nearby, [tokens.knight.id]);
      assert.equal(entry.request.targets[tokens.knight.id].ac, 15);
      const text = plain(card(out).text);
      assert.ok(text.includes(`stray: d10 1 → Sir Kay`), text);
      assert.ok(text.includes(`→ ${stray.damage} to Sir Kay`), text);
      break;
    }
  }
  assert.ok(seed < 500, 'no seed strayed onto the knight');
  // Applied: the knight's bar takes the stray's damage, and undo gives it back.
  emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --dice 1 --style archery --type piercing ` +
    `--cover three-quarters --nearby ${tokens.knight.id} --seed ${seed}`, { selected: [tokens.archer.id] });
  assert.equal(Number(tokens.knight.get('bar1_value')), 20 - expected.targets[tokens.knight.id].damage);
  emu.chat(emu.gm, '!fracas undo');
  assert.equal(Number(tokens.knight.get('bar1_value')), 20);
  assertSafe(assert, emu);
});

test('ER-17: a target cannot also be nearby; an unknown token is named', () => {
  const { emu, tokens } = archerWorld();
  let out = emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --dice 1 --style archery --type piercing ` +
    `--nearby ${tokens.goblin.id}`, { selected: [tokens.archer.id] });
  assert.match(notices(out).join('\n'), /is a target of this attack/);
  out = emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --dice 1 --style archery --type piercing ` +
    '--nearby nosuchtoken', { selected: [tokens.archer.id] });
  assert.match(notices(out).join('\n'), /no token with the id "nosuchtoken" \(--nearby\)/);
});

test('ER-20: --flee builds a flee attack; a cautious move is refused with the rule', () => {
  const { emu, tokens } = world();
  emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --flee 80 --seed 3 --no-apply`, { selected: [tokens.orc.id] });
  const entry = lastLog(emu);
  assert.deepEqual(entry.request.flee, { moved: 80 });
  assert.equal(resolve(entry.request, { seed: 3 }).strikes[0].dice.length, 1);
  const out = emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --flee 10`, { selected: [tokens.orc.id] });
  assert.match(notices(out).join('\n'), /cautious move.*\(ER-20\)/);
});

test('ER-21: --grappling reads the grappler\'s Strength from its sheet; the card shows the feat', () => {
  const { emu, tokens } = world();
  for (let seed = 0; seed < 200; seed++) {
    const out = emu.chat(emu.gm, `!fracas attack --target ${tokens.knight.id} --grappling ${tokens.knight.id} ` +
      `--no-apply --seed ${seed}`, { selected: [tokens.orc.id] });
    const entry = lastLog(emu);
    assert.deepEqual(entry.request.targets[tokens.knight.id].grappling, { strength: 5 });
    const release = resolve(entry.request, { seed }).targets[tokens.knight.id].grapple_release;
    if (release) {
      const text = plain(card(out).text);
      assert.ok(text.includes(`grappling: Strength feat DC ${release.dc} · rolled ${release.roll}`), text);
      return;
    }
  }
  assert.fail('no seed hurt the grappler');
});

test('ER-22: !fracas config --defense-rolls on lets players roll against the GM\'s creatures', () => {
  const { emu, tokens } = world();
  let out = emu.chat(emu.gm, '!fracas config --defense-rolls on');
  assert.match(notices(out).join('\n'), /players roll defense dice/);
  // The orc (the GM's) attacks the knight (a player's): defense rolls.
  out = emu.chat(emu.gm, `!fracas attack --target ${tokens.knight.id} --seed 5 --no-apply`, { selected: [tokens.orc.id] });
  let entry = lastLog(emu);
  assert.equal(entry.request.defense_rolls, true);
  const text = plain(card(out).text);
  assert.ok(text.includes('defense d20') && text.includes(`DC ${21 + 6}`), text);
  // ...but not at the GM's own goblin, and --defense-rolls off decides for one attack.
  emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --seed 5 --no-apply`, { selected: [tokens.orc.id] });
  assert.equal(lastLog(emu).request.defense_rolls, undefined);
  emu.chat(emu.gm, `!fracas attack --target ${tokens.knight.id} --seed 5 --no-apply --defense-rolls off`,
    { selected: [tokens.orc.id] });
  entry = lastLog(emu);
  assert.equal(entry.request.defense_rolls, undefined);
  assert.equal(emu.state.fracas.config.defense_rolls, true);
});

test('ER-19: !fracas compete reads both sheets; the card shows odds, rolls and the outcome in names', () => {
  const { emu, tokens } = world();
  const out = emu.chat(emu.gm, `!fracas compete --contest grapple --defender ${tokens.knight.id} --slick --seed 4`,
    { selected: [tokens.orc.id] });
  const expected = specials.compete({
    contest: 'grapple', slick: true,
    challenger: { id: tokens.orc.id, attribute: 'strength', strength: 6, agility: 3, size: 'medium' },
    defender: { id: tokens.knight.id, attribute: 'strength', strength: 5, agility: 2 },
  }, { seed: 4 });
  const fields = Emulator.fields(card(out).text);
  assert.equal(fields.name, 'Competition: grapple (ER-19)');
  assert.ok(plain(fields.Orc).includes(`${(100 * expected.challenger.win_chance).toFixed(1)}% to win`), plain(fields.Orc));
  assert.ok(plain(fields['Sir Kay']).includes('slick ground +3'), plain(fields['Sir Kay']));
  const winner = expected.winner === tokens.orc.id ? 'Orc' : 'Sir Kay';
  assert.ok(plain(fields.outcome).includes(winner), plain(fields.outcome));
  assertSafe(assert, emu);
});

test('ER-19 with ER-12/ER-14: !fracas compete reads each side\'s conditions from its token markers', () => {
  // Seed 000, Bound: "All Body saves/feats and competitions are made at disadvantage";
  // Shaken: "-2 penalty on all to hit, saves/feats".
  const { emu, tokens } = world();
  tokens.orc.set('statusmarkers', 'bound');
  tokens.knight.set('statusmarkers', 'shaken,prone');
  const out = emu.chat(emu.gm, `!fracas compete --contest grapple --defender ${tokens.knight.id} --rolls 11,3,5`,
    { selected: [tokens.orc.id] });
  const fields = Emulator.fields(card(out).text);
  assert.ok(plain(fields.Orc).includes('disadvantage (bound)'), plain(fields.Orc));
  assert.match(plain(fields['Sir Kay']), /prone \u22125, shaken \u22122/); // the cards sign with U+2212
  assert.ok(plain(fields.d12).includes('11/3'), plain(fields.d12));
  const expected = specials.compete({
    contest: 'grapple', rolls: [11, 3, 5],
    challenger: { id: tokens.orc.id, attribute: 'strength', strength: 6, agility: 3, size: 'medium', conditions: ['bound'] },
    defender: { id: tokens.knight.id, attribute: 'strength', strength: 5, agility: 2, conditions: ['prone', 'shaken'] },
  }, { seed: 1 });
  assert.ok(plain(fields.outcome).includes(expected.winner === tokens.orc.id ? 'Orc' : 'Sir Kay'), plain(fields.outcome));
  assertSafe(assert, emu);
});

test('ER Grappling: Uncommon Conditions: !fracas compete --savage gives the victim claws; ER-10 --resistant the grappler', () => {
  // "if such a defender rolls a raw 8 or higher on competition, then the attacker suffers 1
  // point of the appropriate damage, claw damage over biting if both apply"; an escape lost
  // calls for the grappler's Strength feat (DC:11).
  const { emu, tokens } = world();
  const knightBody = Number(tokens.knight.get('bar1_value'));
  let out = emu.chat(emu.gm, `!fracas compete --contest escape --defender ${tokens.knight.id} ` +
    '--savage challenger bite:piercing:poison claw:edged --rolls 9,11,2', { selected: [tokens.orc.id] });
  const expected = specials.compete({
    contest: 'escape', rolls: [9, 11, 2],
    challenger: { id: tokens.orc.id, attribute: 'strength', strength: 6, agility: 3, size: 'medium',
      savage_form: [{ strike: 'bite', type: 'piercing', poison: true }, { strike: 'claw', type: 'edged' }] },
    defender: { id: tokens.knight.id, attribute: 'strength', strength: 5, agility: 2 },
  }, { seed: 1 });
  assert.equal(expected.incidental.strike, 'claw');
  assert.equal(expected.incidental.release.held, false);
  let fields = Emulator.fields(card(out).text);
  const savage = plain(fields['savage form']);
  assert.ok(savage.includes('claw (edged): raw 9') && savage.includes('1 damage'), savage);
  assert.ok(savage.includes(`${(100 * expected.incidental.p_dealt).toFixed(1)}% to hurt`), savage);
  assert.ok(savage.includes('Strength feat DC 11: 2→3 · lets go'), savage);
  assert.ok(plain(fields.outcome).includes('lets go'), plain(fields.outcome));
  // The point lands on the grappler's Body (the knight holds the orc in an escape), with undo.
  assert.equal(Number(tokens.knight.get('bar1_value')), knightBody - 1);
  assert.ok(savage.includes(`Body ${knightBody} → ${knightBody - 1}`), savage);
  assert.ok(out.some((o) => /!fracas undo m/.test(o.text)), 'the GM gets the undo button');
  emu.chat(emu.gm, '!fracas undo');
  assert.equal(Number(tokens.knight.get('bar1_value')), knightBody);
  // --no-apply leaves it to the GM.
  out = emu.chat(emu.gm, `!fracas compete --contest escape --defender ${tokens.knight.id} ` +
    '--savage challenger claw:edged --rolls 9,11,2 --no-apply', { selected: [tokens.orc.id] });
  assert.ok(plain(Emulator.fields(card(out).text)['savage form']).includes('1 damage'));
  assert.equal(Number(tokens.knight.get('bar1_value')), knightBody);
  out = emu.chat(emu.gm, `!fracas compete --contest escape --defender ${tokens.knight.id} ` +
    '--savage challenger claw:edged --resistant defender edged --rolls 9,11', { selected: [tokens.orc.id] });
  fields = Emulator.fields(card(out).text);
  assert.ok(plain(fields['savage form']).includes('0 damage'), plain(fields['savage form']));
  out = emu.chat(emu.gm, `!fracas compete --contest shove --defender ${tokens.knight.id} --savage defender claw:edged`,
    { selected: [tokens.orc.id] });
  assert.match(notices(out).join('\n'), /savage form counts only in a grapple or an escape/);
  out = emu.chat(emu.gm, `!fracas compete --contest grapple --defender ${tokens.knight.id} --savage defender claw`,
    { selected: [tokens.orc.id] });
  assert.match(notices(out).join('\n'), /is not STRIKE:TYPE/);
  out = emu.chat(emu.gm, `!fracas compete --contest grapple --defender ${tokens.knight.id} --savage wolf claw:edged`,
    { selected: [tokens.orc.id] });
  assert.match(notices(out).join('\n'), /takes challenger or defender first/);
  assertSafe(assert, emu);
});

test('ER-19: bad competitions are refused with the reason', () => {
  const { emu, tokens } = world();
  let out = emu.chat(emu.gm, `!fracas compete --contest shove --use agility --defender ${tokens.knight.id}`,
    { selected: [tokens.orc.id] });
  assert.match(notices(out).join('\n'), /Strength competition.*\(ER-19\)/);
  out = emu.chat(emu.gm, '!fracas compete --contest wrestle', { selected: [tokens.orc.id] });
  assert.match(notices(out).join('\n'), /--contest takes plain, grapple, escape, shove, trip/);
  out = emu.chat(emu.gm, `!fracas compete --defender ${tokens.orc.id}`, { selected: [tokens.orc.id] });
  assert.match(notices(out).join('\n'), /two sides/);
});

test('ER-23: !fracas impale strikes the charger first, applies the damage, and says if the charge is void', () => {
  const { emu, tokens } = world();
  const pike = emu.addCharacter('Pikeman', { strength: 4 });
  const pikeman = emu.addToken({ name: 'Pikeman', represents: pike.id });
  for (let seed = 0; seed < 300; seed++) {
    tokens.goblin.set('bar1_value', '3');
    const out = emu.chat(emu.gm, `!fracas impale --charger ${tokens.goblin.id} --closed 30 --forte --seed ${seed}`,
      { selected: [pikeman.id] });
    const expected = require('../src/impale').impale({
      pikeman: { strength: 4 }, weapon: { forte: true },
      charger: { ac: 13, resistant: ['poison'], body_max: 12, save_bonus: 2, id: tokens.goblin.id, body: 3, closed: 30 },
    }, { seed });
    // The bar stops at 0 (!fracas config --min).
    assert.equal(Number(tokens.goblin.get('bar1_value')), Math.max(0, 3 - expected.charger.damage));
    if (expected.charge_void) {
      const text = plain(card(out).text);
      assert.ok(text.includes('incapacitated: the charge is void'), text);
      assert.ok(text.includes('4d20'), text);
      emu.chat(emu.gm, '!fracas undo');
      assert.equal(Number(tokens.goblin.get('bar1_value')), 3);
      assertSafe(assert, emu);
      return;
    }
  }
  assert.fail('no seed dropped the charger');
});

test('ER-23: a charger that closed less than 25 ft is refused; so is a missing --closed', () => {
  const { emu, tokens } = world();
  let out = emu.chat(emu.gm, `!fracas impale --charger ${tokens.goblin.id} --closed 20`, { selected: [tokens.orc.id] });
  assert.match(notices(out).join('\n'), /25 ft or more.*\(ER-23\)/);
  out = emu.chat(emu.gm, `!fracas impale --charger ${tokens.goblin.id}`, { selected: [tokens.orc.id] });
  assert.match(notices(out).join('\n'), /--closed 30/);
  assert.equal(tokens.goblin.get('bar1_value'), '12');
});

test('ER-17: !fracas odds with --nearby whispers each creature\'s chance of being hit by the stray', () => {
  const { emu, tokens } = archerWorld();
  const out = emu.chat(emu.gm, `!fracas odds --target ${tokens.goblin.id} --dice 2 --style archery --type piercing ` +
    `--cover three-quarters --nearby ${tokens.knight.id}`, { selected: [tokens.archer.id] });
  const text = plain(out.map((o) => o.text).join('\n'));
  const odds = require('../src/odds').odds({
    attacker: { strength: 2, agility: 4 },
    strikes: [{ method: 'range', style: 'archery', dice: 2, damage_type: 'piercing', target: tokens.goblin.id }],
    targets: { [tokens.goblin.id]: { ac: 13, resistant: ['poison'], body_max: 12, save_bonus: 2, cover: 'three-quarters', nearby: [tokens.knight.id] },
      [tokens.knight.id]: { ac: 15, ac_by_type: { edged: 18 }, resistant: ['edged', 'blunt'], body_max: 20 } },
  });
  const p = odds.friendly_fire[0].bystanders[tokens.knight.id].p_hit;
  assert.ok(text.includes('stray of strike 1') && text.includes('slot 1 Sir Kay: P(hit)'), text);
  assert.ok(p > 0 && p < 0.1, String(p));
});
