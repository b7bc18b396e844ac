'use strict';
// Issue 39 item 12: a ruleset installed as a plug-in in `fracas serve` is in no contract.js
// built before it. The shipped bundle (no contract patched in) asks the bridge for its
// contract (server.contract) when an attack names a ruleset it does not know, builds the
// attack from the served request structs, renders the card from the served result layout
// and applies damage from the per-target totals; a contract that is not usable is refused
// saying where, and nothing is sent. relay.browser.test.js plays this against a real bridge.
const test = require('node:test');
const assert = require('node:assert/strict');
const { world, card, plain, assertSafe, relayRequests: requests, relayAnswer: answer } = require('./world');
const { Emulator } = require('./emulator');
const { d6PoolContract } = require('./helpers');
const P = require('../src/protocol');

const POOL = d6PoolContract();
// The d6 pool's result layouts as server.contract serves them (tests/bridge/test_contract.py checks the bridge's).
const LAYOUT = { kinds: { attack: 'AttackResult' }, shapes: {
  AttackResult: ['ruleset', 'seed', 'backend', 'injected', ['strikes', { list: 'StrikeResult' }], ['targets', { dict: 'Damage' }], 'total_damage'],
  StrikeResult: ['target', 'faces', 'hits', 'hit', 'damage'], Damage: ['damage'] } };
const served = (changes = {}) => Object.assign({ version: '0', default_ruleset: 'enchanted-realms', rulesets: [POOL.entry],
  structs: { 'd6-pool': POOL.structs }, limits: {}, results: { 'd6-pool': LAYOUT } }, changes);

function hello(emu) {
  for (const frame of P.frames('hello', 'h1', JSON.stringify({ bridge: 'ws://127.0.0.1:8765', version: '0' }), 300, emu.state.fracas.relay.secret)) {
    emu.chat(emu.gm, `!fracas-relay ${frame}`);
  }
}

/** The shipped bundle (its contract.js lists no d6 pool), a relay that said hello. */
function shipped() {
  const w = world();
  w.emu.chat(w.emu.gm, '!fracas relay'); // makes the relay secret
  hello(w.emu);
  return w;
}

test('the shipped bundle asks the bridge for a ruleset it lacks, then sends the attack built from the served structs', () => {
  const { emu, tokens, characters } = shipped();
  emu.create('attribute', { _characterid: characters.orc.id, name: 'fracas_extra', current: '4' });
  const out = emu.chat(emu.gm, `!fracas attack --ruleset d6-pool --target ${tokens.goblin.id} --dice 3`, { selected: [tokens.orc.id] });
  const [ask] = requests(out);
  assert.equal(ask.method, 'server.contract', 'asked, not refused as unknown');
  assert.deepEqual(ask.params, { rulesets: ['d6-pool'] }, 'only the ruleset it lacks (3 frames through the relay, not 17)');
  assert.match(out.filter((o) => !P.parseFrame(o.text)).map((o) => plain(o.text)).join('\n'), /no ruleset "d6-pool" built in: asked the bridge/);

  const again = answer(emu, { jsonrpc: '2.0', id: ask.id, result: served() });
  const [sent] = requests(again);
  assert.equal(sent.method, 'attack.resolve');
  assert.equal(sent.params.ruleset, 'd6-pool');
  assert.deepEqual(sent.params.attacker, { extra: 4 }, 'the attacker field from the sheet, named by the served struct');
  assert.deepEqual(sent.params.strikes, [{ dice: 3, target: tokens.goblin.id }]);

  const result = { ruleset: 'd6-pool', seed: sent.params.seed, backend: 'python', injected: false,
    strikes: [{ target: tokens.goblin.id, faces: [5, 6, 2], hits: 2, hit: true, damage: 2 }],
    targets: { [tokens.goblin.id]: { damage: 2 } }, total_damage: 2 };
  const shown = answer(emu, { jsonrpc: '2.0', id: sent.id, result });
  assert.equal(String(tokens.goblin.get('bar1_value')), '10', 'damage from the per-target totals');
  const fields = Emulator.fields(card(shown).text);
  assert.equal(plain(fields.name), `Orc attacks (${POOL.entry.title})`);
  assert.equal(plain(fields['1 → Goblin']), 'faces 5, 6, 2 · hits 2 · ✓ hit · 2 damage', 'the strike in the served layout\'s order');
  // Known now: the next attack goes straight to the bridge.
  const next = emu.chat(emu.gm, `!fracas attack --ruleset d6-pool --target ${tokens.goblin.id} --dice 1`, { selected: [tokens.orc.id] });
  assert.deepEqual(requests(next).map((r) => r.method), ['attack.resolve']);
  // An unknown option names the served fields.
  const wrong = emu.chat(emu.gm, `!fracas attack --ruleset d6-pool --target ${tokens.goblin.id} --dise 1`, { selected: [tokens.orc.id] });
  assert.match(plain(wrong.map((o) => o.text).join('\n')), /unknown option --dise for the d6-pool ruleset \(options: .*--extra --dice\)/);
  assertSafe(assert, emu);
});

test('a served contract that is not usable is refused, saying where; nothing is sent and the name stays unknown', () => {
  const broken = [
    [served({ structs: {} }), /\$\.structs: no request structs for d6-pool/],
    [served({ rulesets: [Object.assign({}, POOL.entry, { title: 7 })] }), /\$\.rulesets\[0\]\.title: not a title/],
    [served({ structs: { 'd6-pool': { AttackRequest: [['attacker', { weird: 1 }]] } } }), /\$\.structs\.d6-pool\.AttackRequest\[0\]\[1\]: unknown type key "weird"/],
    [null, /\$: not an object/],
    // Its [client] hints: checked as its manifest's are, naming the ruleset and key.
    [served({ client: [] }), /\$\.client: not an object/],
    [served({ client: { 'd6-pool': { colour: 'red' } } }), /\$\.client\.d6-pool\.colour: not a \[client\] key \(strike, against, split/],
    [served({ client: { 'd6-pool': { split: 'wounds' } } }), /\$\.client\.d6-pool\.split: not a list of field names/],
    [served({ client: { 'd6-pool': { strike: 'd12' } } }), /\$\.client\.d6-pool\.strike: "d12" is not one of d20, pool/],
    [served({ client: { 'd6-pool': { fight_sides: -1 } } }), /\$\.client\.d6-pool\.fight_sides: not an integer/],
  ];
  for (const [contract, why] of broken) {
    const { emu, tokens } = shipped();
    const [ask] = requests(emu.chat(emu.gm, `!fracas attack --ruleset d6-pool --target ${tokens.goblin.id} --dice 3`, { selected: [tokens.orc.id] }));
    const out = answer(emu, { jsonrpc: '2.0', id: ask.id, result: contract });
    assert.equal(requests(out).length, 0);
    const text = plain(out.map((o) => o.text).join('\n'));
    assert.match(text, why);
    assert.match(text, /server\.contract\) cannot be used/);
    const later = emu.chat(emu.gm, `!fracas attack --ruleset d6-pool --target ${tokens.goblin.id} --dice 3`, { selected: [tokens.orc.id] });
    assert.equal(requests(later)[0].method, 'server.contract', 'asked again, not taken from a refused contract');
    assertSafe(assert, emu);
  }
});

test('a served ruleset\'s [client] split names the per-target fields its card shows beside the damage', () => {
  const { emu, tokens } = shipped();
  const [ask] = requests(emu.chat(emu.gm, `!fracas attack --ruleset d6-pool --target ${tokens.goblin.id} --dice 3`, { selected: [tokens.orc.id] }));
  const layout = JSON.parse(JSON.stringify(LAYOUT));
  layout.shapes.Damage = ['damage', 'wounds'];
  const [sent] = requests(answer(emu, { jsonrpc: '2.0', id: ask.id,
    result: served({ results: { 'd6-pool': layout }, client: { 'd6-pool': { split: ['wounds'] } } }) }));
  const result = { ruleset: 'd6-pool', seed: sent.params.seed, backend: 'python', injected: false,
    strikes: [{ target: tokens.goblin.id, faces: [5, 6, 2], hits: 2, hit: true, damage: 2 }],
    targets: { [tokens.goblin.id]: { damage: 2, wounds: 1 } }, total_damage: 2 };
  const fields = Emulator.fields(card(answer(emu, { jsonrpc: '2.0', id: sent.id, result })).text);
  assert.match(plain(fields.Goblin), /^2 damage \(wounds 1\)/, plain(fields.Goblin));
  assertSafe(assert, emu);
});

test('the bridge does not have the ruleset either: unknown, after one question', () => {
  const { emu, tokens } = shipped();
  const [ask] = requests(emu.chat(emu.gm, `!fracas attack --ruleset wild-die --target ${tokens.goblin.id}`, { selected: [tokens.orc.id] }));
  assert.equal(ask.method, 'server.contract');
  const out = answer(emu, { jsonrpc: '2.0', id: ask.id, result: served() });
  assert.equal(requests(out).length, 0);
  assert.match(plain(out.map((o) => o.text).join('\n')), /unknown ruleset "wild-die" \(--ruleset: one of enchanted-realms, .*d6-pool\)/);
  assertSafe(assert, emu);
});

// DP-2 (docs/examples/d6pool rules.md): each combatant rolls a d6 and adds its `bonus`, highest
// first. The d6 pool's [client] table as its manifest has it and the bridge serves it.
const INITIATIVE = { initiative: 'combatant', initiative_flags: ['bonus'], initiative_die: 6, initiative_rule: 'DP-2' };

test('DP-2: !fracas init --ruleset of a served ruleset asks for its contract, sends the tokens\' fracas_bonus, sets the turn order from the answer', () => {
  const { emu, tokens, characters } = shipped();
  emu.create('attribute', { _characterid: characters.orc.id, name: 'fracas_bonus', current: '2' });
  emu.create('attribute', { _characterid: characters.goblin.id, name: 'fracas_bonus', current: '-1' });
  // A token already in the turn order stays where its number puts it (Roll20 keeps turnorder as
  // a JSON string of {id, pr, custom}: roll20-api-scripts .types/index.d.ts, Campaign turnorder).
  emu.campaign().set('turnorder', JSON.stringify([{ id: tokens.knight.id, pr: 4, custom: '' }]));
  const out = emu.chat(emu.gm, '!fracas init --ruleset d6-pool --seed 7', { selected: [tokens.orc.id, tokens.goblin.id] });
  const [ask] = requests(out);
  assert.equal(ask.method, 'server.contract');
  assert.match(plain(out.map((o) => o.text).join('\n')), /no ruleset "d6-pool" built in: asked the bridge .* the initiative is rolled once it answers/);
  const [sent] = requests(answer(emu, { jsonrpc: '2.0', id: ask.id, result: served({ client: { 'd6-pool': INITIATIVE } }) }));
  assert.equal(sent.method, 'initiative.roll');
  assert.deepEqual(sent.params, { ruleset: 'd6-pool', seed: 7,
    combatants: [{ id: tokens.orc.id, bonus: 2 }, { id: tokens.goblin.id, bonus: -1 }] });
  const result = { ruleset: 'd6-pool', seed: 7, injected: false, total_damage: 0,
    order: [{ id: tokens.goblin.id, roll: 6, total: 5 }, { id: tokens.orc.id, roll: 1, total: 3 }] };
  const shown = answer(emu, { jsonrpc: '2.0', id: sent.id, result });
  assert.deepEqual(JSON.parse(emu.campaign().get('turnorder')).map((e) => [e.id, e.pr]),
    [[tokens.goblin.id, 5], [tokens.knight.id, 4], [tokens.orc.id, 3]]);
  const fields = Emulator.fields(card(shown).text);
  assert.equal(plain(fields.name), 'Initiative (D6 pool, DP-2)');
  assert.equal(plain(fields['1. Goblin']), '5 = d6 6 −1');
  assert.equal(plain(fields['2. Orc']), '3 = d6 1 +2');
  // One undo entry puts the turn order back.
  emu.chat(emu.gm, `!fracas undo ${sent.id}`);
  assert.deepEqual(JSON.parse(emu.campaign().get('turnorder')).map((e) => e.id), [tokens.knight.id]);
  assertSafe(assert, emu);
});

test('a served per-combatant initiative without initiative_die: the card shows the bridge\'s roll, naming no die', () => {
  const { emu, tokens, characters } = shipped();
  emu.create('attribute', { _characterid: characters.orc.id, name: 'fracas_bonus', current: '2' });
  const [ask] = requests(emu.chat(emu.gm, '!fracas init --ruleset d6-pool --seed 7', { selected: [tokens.orc.id] }));
  const { initiative_die: _die, ...dieless } = INITIATIVE;
  const [sent] = requests(answer(emu, { jsonrpc: '2.0', id: ask.id, result: served({ client: { 'd6-pool': dieless } }) }));
  const shown = answer(emu, { jsonrpc: '2.0', id: sent.id, result: { ruleset: 'd6-pool', seed: 7, order: [{ id: tokens.orc.id, roll: 1, total: 3 }] } });
  assert.equal(plain(Emulator.fields(card(shown).text)['1. Orc']), '3 = roll 1 +2');
  assertSafe(assert, emu);
});

test('!fracas init --ruleset of a served ruleset without initiative hints, with side initiative, a token without the attribute, a bad answer: refused naming what', () => {
  const cases = [
    [{}, /the D6 pool ruleset \(d6-pool\) has no initiative hint \(\[client\] initiative in its manifest\)/],
    [{ initiative_flags: ['bonus'] }, /the D6 pool ruleset \(d6-pool\) has no initiative hint/],
    [{ initiative: 'side', initiative_die: 6 }, /the D6 pool ruleset \(d6-pool\) rolls initiative by sides/],
    [INITIATIVE, /Goblin has no "fracas_bonus" attribute for D6 pool initiative \(DP-2\)/],
    [{ ...INITIATIVE, initiative: 'all' }, /\$\.client\.d6-pool\.initiative: "all" is not one of combatant, side/],
  ];
  for (const [hints, why] of cases) {
    const { emu, tokens, characters } = shipped();
    emu.create('attribute', { _characterid: characters.orc.id, name: 'fracas_bonus', current: '2' });
    const [ask] = requests(emu.chat(emu.gm, '!fracas init --ruleset d6-pool', { selected: [tokens.orc.id, tokens.goblin.id] }));
    const out = answer(emu, { jsonrpc: '2.0', id: ask.id, result: served({ client: { 'd6-pool': hints } }) });
    assert.equal(requests(out).length, 0, 'nothing rolled');
    assert.match(plain(out.map((o) => o.text).join('\n')), why);
    assert.equal(emu.campaign().get('turnorder') || '', '');
    assertSafe(assert, emu);
  }
  const { emu, tokens, characters } = shipped();
  emu.create('attribute', { _characterid: characters.orc.id, name: 'fracas_bonus', current: '2' });
  const [ask] = requests(emu.chat(emu.gm, '!fracas init --ruleset d6-pool', { selected: [tokens.orc.id] }));
  const [sent] = requests(answer(emu, { jsonrpc: '2.0', id: ask.id, result: served({ client: { 'd6-pool': INITIATIVE } }) }));
  const out = answer(emu, { jsonrpc: '2.0', id: sent.id, result: { seed: 1, order: [{ id: tokens.knight.id, roll: 2, total: 2 }] } });
  assert.match(plain(out.map((o) => o.text).join('\n')), /not an initiative order of the tokens asked for/);
  assert.equal(emu.campaign().get('turnorder') || '', '');
  assertSafe(assert, emu);
});

test('WW-1 through the same path: !fracas init --ruleset worldwalker reads fracas_dex_mod (its contract.js hints), asks nothing first', () => {
  const { emu, tokens, characters } = shipped();
  emu.create('attribute', { _characterid: characters.orc.id, name: 'fracas_dex_mod', current: '3' });
  const [sent, more] = requests(emu.chat(emu.gm, '!fracas init --ruleset worldwalker --seed 2', { selected: [tokens.orc.id] }));
  assert.equal(more, undefined);
  assert.equal(sent.method, 'initiative.roll');
  assert.deepEqual(sent.params, { ruleset: 'worldwalker', seed: 2, combatants: [{ id: tokens.orc.id, dex_mod: 3 }] });
  const shown = answer(emu, { jsonrpc: '2.0', id: sent.id, result: { ruleset: 'worldwalker', seed: 2,
    order: [{ id: tokens.orc.id, roll: 11, modifier: 3, total: 14, dex_mod: 3, tiebreaks: [] }] } });
  assert.deepEqual(JSON.parse(emu.campaign().get('turnorder')).map((e) => [e.id, e.pr]), [[tokens.orc.id, 14]]);
  assert.equal(plain(Emulator.fields(card(shown).text)['1. Orc']), '14 = d20 11 +3', 'WW-1: the contract\'s initiative_die names the d20');
  assertSafe(assert, emu);
});
