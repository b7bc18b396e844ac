'use strict';
// The emulator refuses what Roll20 would refuse or silently get wrong (see the sources
// cited in emulator.js): these tests keep it strict, so the Mod's tests can fail.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Emulator, SandboxCrash } = require('./emulator');

/** An emulator running `source` as a script beside fracas.js. */
/** A value from the sandbox's realm, as plain JSON here. */
const json = (v) => JSON.parse(JSON.stringify(v));

function withScript(source, name = 'other.js') {
  return new Emulator({ scripts: [{ name, source }] });
}

test('only Roll20 globals: no require, process, Buffer or setImmediate in the sandbox', () => {
  const emu = withScript(`
    on('ready', () => { state.probe = [typeof require, typeof process, typeof Buffer, typeof setImmediate, typeof sendChat, typeof findObjs]; });
  `);
  assert.deepEqual(json(emu.state.probe), ['undefined', 'undefined', 'undefined', 'undefined', 'function', 'function']);
});

test('all scripts share one scope: a top-level name declared twice breaks the whole sandbox', () => {
  assert.throws(() => withScript('const Fracas = 1;'), /already been declared/);
  // …and what one script leaves at the top level, the next one sees (Mod:Cookbook's `var m = m || …`).
  const emu = new Emulator({ scripts: [{ name: 'a.js', source: 'var shared = 41;' },
    { name: 'b.js', source: "on('ready', () => { state.seen = shared + 1; });" }] });
  assert.equal(emu.state.seen, 42);
});

test('a GM\'s message says "(GM)" in who, a player\'s does not (PowerCards strips it)', () => {
  const emu = withScript(`
    on('chat:message', (msg) => { if (msg.content === '!who') { state.who = state.who || []; state.who.push(msg.who); } });
  `);
  emu.chat(emu.addPlayer('Pat'), '!who');
  emu.chat(emu.gm, '!who');
  assert.deepEqual(json(emu.state.who), ['Pat', 'GM (GM)']);
});

test("a script's sendChat reaches every chat:message handler as playerid 'API'", () => {
  const emu = withScript(`
    on('chat:message', (msg) => {
      if (msg.type === 'api' && msg.content.startsWith('!fwd ')) sendChat(msg.who, '!' + msg.content.slice(5));
      if (msg.playerid === 'API' && msg.type === 'api') { state.heard = state.heard || []; state.heard.push([msg.type, msg.who, msg.content]); }
    });
  `);
  const pat = emu.addPlayer('Pat');
  emu.chat(pat, '!fwd probe 1');
  assert.deepEqual(json(emu.state.heard), [['api', 'Pat', '!probe 1']]);
  // player|id speaks as that player's name, still from 'API'.
  const emu2 = withScript(`
    on('chat:message', (msg) => {
      if (msg.type === 'api' && msg.content === '!as') sendChat('player|' + msg.playerid, '/w gm hello');
      if (msg.playerid === 'API' && msg.who !== 'fracas') state.heard = [msg.type, msg.who, msg.content, msg.target];
    });
  `);
  emu2.chat(emu2.addPlayer('Lee'), '!as');
  assert.deepEqual(json(emu2.state.heard), ['whisper', 'Lee', 'hello', 'gm']);
});

test('scripts that answer each other without end crash the sandbox', () => {
  const emu = withScript("on('chat:message', (msg) => { if (msg.content === '!ping') sendChat('x', '!ping'); });");
  assert.throws(() => emu.chat(emu.gm, '!ping'), /without end/);
});

test('state must stay JSON after every event', () => {
  for (const [bad, why] of [['NaN', /NaN/], ['undefined', /undefined/], ['new Map()', /Map/], ['() => 1', /function/],
    ['Infinity', /Infinity/], ['BigInt(1)', /bigint/]]) {
    const emu = withScript(`on('chat:message', (msg) => { if (msg.content === '!bad') state.other = { x: [1, ${bad}] }; });`);
    assert.throws(() => emu.chat(emu.gm, '!bad'), (err) => err instanceof SandboxCrash && why.test(err.message) &&
      /state\.other\.x\[1\]/.test(err.message), bad);
  }
  const emu = withScript("on('chat:message', (msg) => { if (msg.content === '!cycle') { const a = {}; a.a = a; state.c = a; } });");
  assert.throws(() => emu.chat(emu.gm, '!cycle'), /cycle/);
});

test('set() refuses unknown properties, read-only ones and bad values (API:Objects)', () => {
  const emu = new Emulator();
  const token = emu.addToken({ name: 'T' });
  const ctx = (code) => {
    emu.context.t = token;
    return () => require('node:vm').runInContext(code, emu.context);
  };
  assert.throws(ctx("t.set('hp', 3)"), /no such property/);
  assert.throws(ctx("t.set('_pageid', 'x')"), /read-only/);
  assert.throws(ctx("t.set('layer', 'sky')"), /not a layer/);
  assert.throws(ctx("t.set('bar1_value', NaN)"), /NaN/);
  assert.throws(ctx("t.set('bar1_value', {})"), /not a string or number/);
  assert.throws(ctx("t.set('showname', 'yes')"), /not true or false/);
  assert.throws(ctx("t.set('status_dead', 'yes')"), /status marker/);
  assert.throws(ctx("createObj('attribute', { _characterid: 'c', name: 'x', current: 1, colour: 'red' })"), /no settable property colour/);
  assert.throws(ctx("createObj('page', { name: 'x' })"), /cannot create page/);
  ctx("t.set({ bar1_value: 3, layer: 'gmlayer', status_dead: true })")();
  assert.equal(token.get('bar1_value'), 3);
  assert.equal(token.get('layer'), 'gmlayer');
  assert.throws(() => emu.addToken({ hitpoints: 3 }), /no property hitpoints/);
});

test("playerIsGM('API') is false: another script's message carries no player", () => {
  const emu = withScript("on('ready', () => { state.api = playerIsGM('API'); });");
  assert.equal(emu.state.api, false);
});

test("/w reads its target as Roll20 does: a quoted name up to the next quote, or one word that begins one name", () => {
  const emu = withScript(`on('chat:message', (msg) => {
    if (msg.type === 'api' && msg.content.startsWith('!say ')) sendChat('t', msg.content.slice(5));
  });`);
  const bob = emu.addPlayer('Bob "The Axe" Jones');
  emu.addCharacter('Axe', {}, { controlledby: bob.id });
  const say = (text) => emu.chat(emu.gm, `!say ${text}`);
  // Exact names, quoted or as one word, any case; `gm` is the GMs.
  assert.deepEqual(json(say('/w gm hi')[0].players), ['gm']);
  assert.deepEqual(json(say('/w "axe" hi')[0].players), [bob.id], 'a character reaches its controllers');
  // A bare word reaches the one name it begins (Sequence.js whispers a display name's first word).
  const out = say('/w Bob hi');
  assert.deepEqual(json(out[0].players), [bob.id]);
  assert.equal(out[0].text, 'hi');
  // The quote ends at the next `"`: quoting a name that holds one addresses `Bob `, nobody.
  assert.throws(() => say('/w "Bob "The Axe" Jones" hi'), /a whisper to "bob " reaches nobody/);
  // No escape either (Earthdawn.js: such a name cannot be whispered to by quoting).
  assert.throws(() => say('/w "Bob \\"The Axe\\" Jones" hi'), /reaches nobody/);
  // A quoted target is a whole name, never a prefix.
  assert.throws(() => say('/w "Bob" hi'), /reaches nobody/);
  // A word that begins two names could reach the wrong one.
  emu.addPlayer('Bobby');
  assert.throws(() => say('/w Bob hi'), /names player Bob "The Axe" Jones and player Bobby/);
  assert.throws(() => say('/w Nobody hi'), /reaches nobody/);
  // A character controlled by all would tell everyone.
  emu.addCharacter('Crowd', {}, { controlledby: 'all' });
  assert.throws(() => say('/w "Crowd" hi'), /reaches every player/);
});
