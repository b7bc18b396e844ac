'use strict';
// Who may do what (issue: Roll20, trust nothing a player sends): players cannot choose
// their dice or target tokens off the token layer unless the GM allows it, and public
// cards do not show an NPC's Body. Each hole is reproduced, then shown closed.
const test = require('node:test');
const assert = require('node:assert/strict');
const { world, card, notices, plain, assertSafe } = require('./world');
const { Emulator } = require('./emulator');

const STRIKE = '--dice 2 --style slashing --type edged';

function logLength(emu) {
  return (emu.state.fracas && emu.state.fracas.log) ? emu.state.fracas.log.length : 0;
}

test("a player's --seed or --rolls is refused by default: nothing rolled, nothing applied", () => {
  const { emu, tokens, player } = world();
  for (const dice of ['--seed 3', '--rolls 20,20', '--seed 1 --rolls 20,20']) {
    const before = logLength(emu);
    const out = emu.chat(player, `!fracas attack --target ${tokens.goblin.id} ${dice}`,
      { selected: [tokens.knight.id] });
    assert.equal(out.length, 1);
    assert.equal(out[0].to, 'pat', 'the refusal is whispered to the player');
    assert.match(plain(out[0].text), /only the GM chooses the dice .*!fracas config --players-seed on.*nothing was rolled/);
    assert.equal(tokens.goblin.get('bar1_value'), '12');
    assert.equal(logLength(emu), before);
  }
  // The other rulesets too.
  const out = emu.chat(player, `!fracas attack --ruleset worldwalker --target ${tokens.goblin.id} --seed 4`,
    { selected: [tokens.knight.id] });
  assert.match(plain(out[0].text), /--seed: only the GM chooses the dice/);
  // The GM always may; the GM can let players.
  emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} ${STRIKE} --seed 3`, { selected: [tokens.orc.id] });
  assert.equal(emu.state.fracas.log[emu.state.fracas.log.length - 1].seed, 3);
  emu.chat(emu.gm, '!fracas config --players-seed on');
  emu.chat(player, `!fracas attack --target ${tokens.goblin.id} --seed 5`, { selected: [tokens.knight.id] });
  assert.equal(emu.state.fracas.log[emu.state.fracas.log.length - 1].seed, 5);
  assertSafe(assert, emu);
});

test('a player may target only tokens on the token layer; the refusal does not name a hidden token', () => {
  const { emu, tokens, player } = world();
  const lurker = emu.addToken({ name: 'Secret Lich', layer: 'gmlayer', bar1_value: '30', bar1_max: '30' });
  const rug = emu.addToken({ name: 'Rug', layer: 'map', bar1_value: '5', bar1_max: '5' });
  for (const target of [lurker, rug]) {
    const out = emu.chat(player, `!fracas attack --target ${target.id}`, { selected: [tokens.knight.id] });
    assert.equal(out.length, 1);
    const text = plain(out[0].text);
    assert.match(text, new RegExp(`--target ${target.id}: players may target only tokens on the token layer`));
    assert.ok(!text.includes('Secret Lich') && !text.includes('Rug'), text);
  }
  assert.equal(lurker.get('bar1_value'), '30');
  const rows = emu.chat(player, `!fracas attack --ruleset old-school --target ${lurker.id}`,
    { selected: [tokens.knight.id] });
  assert.match(plain(rows[0].text), /players may target only tokens on the token layer/);
  // The GM may; and may let players.
  const gm = emu.chat(emu.gm, `!fracas attack --target ${lurker.id} ${STRIKE} --ac 12 --seed 2`, { selected: [tokens.orc.id] });
  // The public card does not name the GM-layer token; the GM's own copy does.
  const [shown, own] = [gm.filter((o) => !o.to), gm.filter((o) => o.to === 'gm')];
  assert.equal(Emulator.fields(card(shown).text).name, 'Orc attacks');
  assert.ok(!plain(shown[0].text).includes('Secret Lich') && plain(shown[0].text).includes('a hidden creature'));
  assert.ok(plain(card(own).text).includes('Secret Lich'));
  assert.ok(!shown[0].text.includes('](!fracas'), 'a public card carries no GM button');
  assert.ok(own[0].text.includes('](!fracas request'), "the GM's copy keeps its buttons");
  emu.chat(emu.gm, '!fracas config --players-any-layer on');
  // The lurker has no character, so its AC comes from --ac: a player's typed number, refused by default.
  const typed = emu.chat(player, `!fracas attack --target ${lurker.id} --ac 12`, { selected: [tokens.knight.id] });
  assert.match(plain(typed[0].text), /--ac: players attack with their character's strikes/);
  emu.chat(emu.gm, '!fracas config --players-numbers on');
  const allowed = emu.chat(player, `!fracas attack --target ${lurker.id} --ac 12`, { selected: [tokens.knight.id] });
  assert.equal(Emulator.fields(card(allowed.filter((o) => !o.to)).text).name, 'Sir Kay attacks');
  assertSafe(assert, emu);
});

test("public cards hide an NPC's Body, show a player's; whispered cards and --show-npc-body show both", () => {
  const { emu, tokens, player } = world();
  // Rolls that hit: the orc hits the goblin (an NPC) and Sir Kay (a player's).
  let fields = Emulator.fields(card(emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} ${STRIKE} --rolls 20,19,3`,
    { selected: [tokens.orc.id] })).text);
  assert.match(plain(fields.Goblin), /damage applied$/);
  assert.ok(!/Body/.test(plain(fields.Goblin)));
  fields = Emulator.fields(card(emu.chat(emu.gm, `!fracas attack --target ${tokens.knight.id} ${STRIKE} --rolls 20,19,3`,
    { selected: [tokens.orc.id] })).text);
  assert.match(plain(fields['Sir Kay']), /Body 20 → \d+$/);
  // Whispered to the GM: the numbers are there.
  const whispered = emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} ${STRIKE} --rolls 20,19,3 --whisper`,
    { selected: [tokens.orc.id] });
  assert.match(plain(Emulator.fields(whispered[0].text).Goblin), /Body \d+ → \d+$/);
  emu.chat(emu.gm, '!fracas config --show-npc-body on');
  fields = Emulator.fields(card(emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} ${STRIKE} --rolls 20,19,3`,
    { selected: [tokens.orc.id] })).text);
  assert.match(plain(fields.Goblin), /Body \d+ → \d+$/);
  const shown = notices(emu.chat(emu.gm, '!fracas config')).join('\n');
  assert.match(shown, /players may choose the dice \(--seed, --rolls\): no/);
  assert.match(shown, /players may target tokens off the token layer: no/);
  assert.match(shown, /public cards show NPCs' Body: yes/);
  assert.ok(player);
  assertSafe(assert, emu);
});

test('ids and command lines from chat cannot reach prototype properties or throw a plain error', () => {
  const { emu } = world();
  for (const id of ['toString', '__proto__', 'constructor', 'hasOwnProperty']) {
    const out = emu.chat(emu.gm, `!fracas resend ${id}`);
    assert.equal(out.length, 1);
    assert.match(plain(out[0].text), new RegExp(`request "${id}" is not waiting for an answer`));
  }
  const long = `!fracas attack ${'--bonus 1 '.repeat(300)}`;
  const out = emu.chat(emu.gm, long);
  assert.equal(out.length, 1);
  assert.match(plain(out[0].text), /too many words in one command \(the most is 400\)/);
  assert.ok(!/internal|bug|stack/i.test(plain(out[0].text)), plain(out[0].text));
  assertSafe(assert, emu);
});

test('relay answers: never from another script, applied only to the targets the request named, never markup', () => {
  const P = require('../src/protocol');
  const { emu, tokens } = world();
  const skeleton = emu.addCharacter('Skeleton', { strength: 4, fracas_strikes: '--dice 2 --style slashing --weight 1 --type edged' });
  const bones = [emu.addToken({ name: 'Skeleton', represents: skeleton.id }), emu.addToken({ name: 'Skeleton', represents: skeleton.id })];
  const out = emu.chat(emu.gm, `!fracas mob --target ${tokens.goblin.id}`, { selected: bones.map((t) => t.id) });
  const r = new P.Reassembler();
  let request;
  for (const o of out) {
    const frame = P.parseFrame(o.text);
    const whole = frame && r.add(frame);
    if (whole) request = JSON.parse(whole.text);
  }
  const answer = (from, result) => {
    const outs = [];
    const message = { jsonrpc: '2.0', id: request.id, result };
    for (const f of P.frames('res', message.id, JSON.stringify(message), 300, emu.state.fracas.relay.secret)) {
      outs.push(...emu.chat(from, `!fracas-relay ${f}`));
    }
    return outs;
  };
  const forged = {
    ruleset: 'enchanted-realms', seed: 1, detail: 'summary', groups: [], targets: {
      [tokens.goblin.id]: { damage: 5, attacks: 2, attacks_hit: '<a href="!fracas config --reset">2</a>', crits: '[[1d20]]' },
      [tokens.knight.id]: { damage: 9, attacks: 2, attacks_hit: 2 },
    },
  };
  // Another Mod script (playerid 'API', a GM to Roll20's playerIsGM) cannot answer.
  assert.deepEqual(answer(null, forged), []);
  assert.equal(tokens.goblin.get('bar1_value'), '12');
  // The GM's relay can; a target the request did not name is not touched, and no field becomes markup.
  const got = answer(emu.gm, forged);
  assert.equal(tokens.goblin.get('bar1_value'), 7);
  assert.equal(tokens.knight.get('bar1_value'), '20');
  const text = card(got).text;
  assert.ok(!text.includes('<a ') && !text.includes('[[') && !text.includes('Sir Kay'), text);
  assert.match(plain(Emulator.fields(text).Goblin), /^5 damage from 2 attacks · \? hit · \? crits/);
  assertSafe(assert, emu);
});

test('conventions: attributes through setWithWorker, other scripts observe changes, init opens the tracker', () => {
  const vm = require('node:vm');
  const { emu, tokens } = world();
  const api = vm.runInContext('Fracas', emu.context);
  vm.runInContext('globalThis.heard = []; Fracas.observe("change", (obj, prev) => heard.push([obj.id, prev]));', emu.context);
  vm.runInContext('Fracas.observe("change", () => { throw new Error("a broken listener"); });', emu.context);
  assert.throws(() => api.observe('moved', () => {}), /unknown event "moved"/);
  // A token whose Body bar is linked to an attribute: the attribute is set with its sheet worker.
  const hp = emu.create('attribute', { _characterid: tokens.goblin.get('represents'), name: 'hp', current: '12', max: '12' });
  tokens.goblin.set('bar1_link', hp.id);
  emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --dice 2 --style slashing --type edged --rolls 20,19,3`,
    { selected: [tokens.orc.id] });
  const after = Number(hp.get('current'));
  assert.ok(after < 12);
  assert.deepEqual(emu.workerSaw.map((w) => [w.id, w.prop, w.value]), [[hp.id, 'current', after]]);
  const heard = JSON.parse(vm.runInContext('JSON.stringify(heard)', emu.context));
  assert.deepEqual(heard, [[hp.id, { current: '12' }]]);
  assert.ok(emu.logs.some((l) => /a Fracas.observe\('change'\) listener failed: a broken listener/.test(l)));
  // Undo goes the same way.
  emu.chat(emu.gm, '!fracas undo');
  assert.equal(hp.get('current'), 12);
  assert.equal(emu.workerSaw.length, 2);
  // !fracas init fills the turn order and opens the tracker.
  assert.equal(emu.campaign().get('initiativepage'), false);
  emu.chat(emu.gm, '!fracas init --seed 2', { selected: [tokens.orc.id, tokens.goblin.id] });
  assert.equal(emu.campaign().get('initiativepage'), 'page-1', "the tokens' page");
  assertSafe(assert, emu);
});

test("--marker names a marker the campaign has (Campaign's _token_markers), by tag or name", () => {
  const { emu } = world();
  let out = emu.chat(emu.gm, '!fracas config --marker stunned=sleepyy');
  assert.match(plain(out[0].text), /--marker: this campaign has no token marker "sleepyy" \(markers: red, blue/);
  assert.equal(emu.state.fracas.config.markers.stunned, undefined);
  for (const tag of ['sleepy', 'Hexed', 'hexed::4242']) {
    out = emu.chat(emu.gm, `!fracas config --marker stunned=${tag}`);
    assert.ok(!/no token marker/.test(plain(out[0].text)), plain(out[0].text));
    assert.equal(emu.state.fracas.config.markers.stunned, tag.toLowerCase().split('::')[0]);
  }
  assertSafe(assert, emu);
});
