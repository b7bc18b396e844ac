'use strict';
// `!fracas mob` and the Mod script's end of the relay, in the emulated sandbox:
// the frames whispered to the GM, the answer typed back as `!fracas-relay`, applied once.
const test = require('node:test');
const assert = require('node:assert/strict');
const { world, card, plain, assertSafe, relayRequests, relayAnswer } = require('./world');
const { Emulator } = require('./emulator');
const P = require('../src/protocol');

const requests = relayRequests;
/** The relay's answer, typed into chat by `player` (mob's tests say who). */
const answer = (emu, player, message, chunk = 300) => relayAnswer(emu, message, player, chunk);

function mobWorld() {
  const w = world();
  const { emu, characters } = w;
  const skeleton = emu.addCharacter('Skeleton', {
    strength: 3, agility: 2, fracas_strikes: '--dice 1 --style slashing --weight 1 --type edged',
  });
  w.skeletons = [];
  // Nameplates players see (showplayers_name; Roll20's default is off: test/world.js), as a GM
  // sets them up: a mob's groups are named on public cards (mod.trust.test.js: when they are not).
  const named = { showplayers_name: true };
  for (let i = 0; i < 5; i++) w.skeletons.push(emu.addToken({ name: `Skeleton ${i + 1}`, represents: skeleton.id, ...named }));
  w.skeletons[4].set('statusmarkers', 'prone');
  w.orcs = [emu.addToken({ name: 'Orc A', represents: characters.orc.id, ...named }),
    emu.addToken({ name: 'Orc B', represents: characters.orc.id, ...named })];
  return w;
}

function summary(targets) {
  const result = { ruleset: 'enchanted-realms', seed: 7, backend: 'compiled', detail: 'summary', targets: {}, groups: [] };
  for (const [id, damage] of Object.entries(targets)) {
    result.targets[id] = { damage, by_type: { edged: damage }, attacks: 4, attacks_hit: 2, strikes: 4, strikes_hit: 2, crits: 1, longest_chain: 1, undodgeable: 1 };
  }
  return result;
}

test('!fracas mob: tokens grouped by character and markers into profiles, spread over the targets', () => {
  const w = mobWorld();
  const { emu, tokens } = w;
  const selected = [...w.skeletons, ...w.orcs].map((t) => t.id);
  const out = emu.chat(emu.gm, `!fracas mob --target ${tokens.goblin.id} --target ${tokens.knight.id} --seed 77`, { selected });
  const sent = requests(out.filter((o) => P.parseFrame(o.text)));
  assert.equal(sent.length, 1);
  const rpc = sent[0];
  assert.equal(rpc.jsonrpc, '2.0');
  assert.equal(rpc.method, 'attack.bulk');
  assert.match(rpc.id, /^r20-[0-9a-z]{6}-\d+$/);
  const req = rpc.params;
  assert.equal(req.seed, 77);
  assert.equal(req.detail, 'summary');
  assert.deepEqual(Object.keys(req.profiles), ['Skeleton', 'Skeleton (prone)', 'Orc']);
  assert.deepEqual(req.profiles.Skeleton.attacker, { strength: 3, agility: 2 });
  assert.deepEqual(req.profiles['Skeleton (prone)'].attacker.conditions, ['prone']);
  assert.deepEqual(req.profiles.Orc.strikes, [{ method: 'melee', style: 'cleaving', dice: 2, damage_type: 'edged', weight: 2 }]);
  assert.deepEqual(Object.keys(req.targets), [tokens.goblin.id, tokens.knight.id]);
  // Token k of the selection attacks target k mod 2.
  assert.deepEqual(req.attacks, [
    { profile: 'Skeleton', target: tokens.goblin.id, count: 2 },
    { profile: 'Skeleton', target: tokens.knight.id, count: 2 },
    { profile: 'Skeleton (prone)', target: tokens.goblin.id, count: 1 },
    { profile: 'Orc', target: tokens.goblin.id, count: 1 },
    { profile: 'Orc', target: tokens.knight.id, count: 1 },
  ]);
  const note = out.find((o) => !P.parseFrame(o.text));
  assert.match(plain(note.text), /7 attacks sent to the bridge as r20-/);
  // --each: every token attacks every target.
  const each = requests(emu.chat(emu.gm, `!fracas mob --target ${tokens.goblin.id} --target ${tokens.knight.id} --each`,
    { selected }).filter((o) => P.parseFrame(o.text)))[0];
  assert.equal(each.params.attacks.reduce((n, a) => n + a.count, 0), 14);
  assertSafe(assert, emu);
});

test('the answer is applied once: per-target totals off the bars, one card, one undo', () => {
  const w = mobWorld();
  const { emu, tokens, player } = w;
  const out = emu.chat(emu.gm, `!fracas mob --target ${tokens.goblin.id} --target ${tokens.knight.id}`,
    { selected: w.skeletons.map((t) => t.id) });
  const rpc = requests(out.filter((o) => P.parseFrame(o.text)))[0];
  const reply = { jsonrpc: '2.0', id: rpc.id, result: summary({ [tokens.goblin.id]: 5, [tokens.knight.id]: 3 }) };
  // A player cannot forge an answer.
  assert.deepEqual(answer(emu, player, reply), []);
  assert.equal(tokens.goblin.get('bar1_value'), '12');
  const got = answer(emu, emu.gm, reply);
  const fields = Emulator.fields(card(got).text);
  assert.equal(fields.name, 'Mob: 5 attackers, 5 attacks');
  // The goblin is an NPC: a public card says the damage was applied, not its Body; Sir Kay is a player's.
  assert.match(plain(fields.Goblin), /^5 damage from 4 attacks · 2 hit · 1 crit · 1 undodgeable\ndamage applied$/);
  assert.equal(tokens.goblin.get('bar1_value'), 7);
  assert.match(plain(fields['Sir Kay']), /Body 20 → 17/);
  assert.equal(plain(fields.mob), '2 × Skeleton → Goblin\n2 × Skeleton → Sir Kay\n1 × Skeleton (prone) → Goblin');
  assert.equal(tokens.goblin.get('bar1_value'), 7);
  assert.equal(tokens.knight.get('bar1_value'), 17);
  // The same answer again (a resend, a repeated frame): nothing more happens.
  assert.deepEqual(answer(emu, emu.gm, reply, 50), []);
  assert.equal(tokens.goblin.get('bar1_value'), 7);
  emu.chat(emu.gm, '!fracas undo');
  assert.equal(tokens.goblin.get('bar1_value'), 12);
  assert.equal(tokens.knight.get('bar1_value'), 20);
  assertSafe(assert, emu);
});

test('no answer in time: the GM is told, can resend with the same id, and a late answer still applies', () => {
  const w = mobWorld();
  const { emu, tokens } = w;
  const out = emu.chat(emu.gm, `!fracas mob --target ${tokens.goblin.id}`, { selected: [w.skeletons[0].id] });
  const rpc = requests(out.filter((o) => P.parseFrame(o.text)))[0];
  const before = emu.outputs.length;
  emu.advance(29000);
  assert.equal(emu.outputs.length, before);
  emu.advance(2000);
  const warned = emu.outputs.slice(before);
  assert.equal(warned.length, 1);
  assert.match(plain(warned[0].text), new RegExp(`Request ${rpc.id} has had no answer for 30 s`));
  assert.ok(warned[0].text.includes(`!fracas resend ${rpc.id}`));
  const status = emu.chat(emu.gm, '!fracas relay');
  assert.match(plain(status[0].text), /has not said hello/);
  assert.match(plain(status[0].text), new RegExp(`waiting for: ${rpc.id} \\(attack.bulk\\)`));
  const again = requests(emu.chat(emu.gm, `!fracas resend ${rpc.id}`).filter((o) => P.parseFrame(o.text)));
  assert.deepEqual(again, [rpc], 'the resend is the same request with the same id');
  answer(emu, emu.gm, { jsonrpc: '2.0', id: rpc.id, result: summary({ [tokens.goblin.id]: 4 }) });
  assert.equal(tokens.goblin.get('bar1_value'), 8);
  assert.match(plain(emu.chat(emu.gm, `!fracas resend ${rpc.id}`)[0].text), /is not waiting for an answer/);
});

test('pending requests survive a sandbox restart and are offered for resending', () => {
  const w = mobWorld();
  const { emu, tokens } = w;
  const out = emu.chat(emu.gm, `!fracas mob --target ${tokens.goblin.id}`, { selected: [w.skeletons[0].id] });
  const rpc = requests(out.filter((o) => P.parseFrame(o.text)))[0];
  const before = emu.outputs.length;
  emu.reload();
  const told = emu.outputs.slice(before).map((o) => plain(o.text)).join('\n');
  assert.match(told, /1 relay request were waiting when the sandbox restarted/);
  answer(emu, emu.gm, { jsonrpc: '2.0', id: rpc.id, result: summary({ [tokens.goblin.id]: 2 }) });
  assert.equal(tokens.goblin.get('bar1_value'), 10);
});

test('a bridge error is whispered with its path; a hello is acknowledged', () => {
  const w = mobWorld();
  const { emu, tokens } = w;
  const out = emu.chat(emu.gm, `!fracas mob --target ${tokens.goblin.id}`, { selected: [w.skeletons[0].id] });
  const rpc = requests(out.filter((o) => P.parseFrame(o.text)))[0];
  const got = answer(emu, emu.gm, { jsonrpc: '2.0', id: rpc.id, error: { code: -32003, message: 'too many attacks', data: { path: '$.params.attacks' } } });
  assert.match(plain(got[0].text), new RegExp(`the bridge refused request ${rpc.id} at \\$\\.params\\.attacks: too many attacks \\(code -32003\\)`));
  assert.equal(tokens.goblin.get('bar1_value'), '12');
  const hello = [];
  for (const f of P.frames('hello', 'hello-1', JSON.stringify({ relay: '0.1.0', bridge: 'ws://127.0.0.1:9', version: '1.2' }),
    300, emu.state.fracas.relay.secret)) {
    hello.push(...emu.chat(emu.gm, `!fracas-relay ${f}`));
  }
  assert.match(plain(hello[0].text), /relay connected to ws:\/\/127\.0\.0\.1:9 \(fracas 1\.2\)/);
  assert.match(plain(emu.chat(emu.gm, '!fracas relay')[0].text), /last hello: \d+ s ago from ws:\/\/127\.0\.0\.1:9/);
});

test('mob mistakes are caught before anything is sent', () => {
  const w = mobWorld();
  const { emu, tokens, characters } = w;
  const bare = emu.addToken({ name: 'Bare', represents: emu.addCharacter('Bare', { ac: 10 }).id });
  const cases = [
    ['!fracas mob', { selected: [w.skeletons[0].id] }, /no target/],
    [`!fracas mob --target ${tokens.goblin.id}`, {}, /select the attacking tokens/],
    [`!fracas mob --target ${tokens.goblin.id}`, { selected: [bare.id] }, /Bare has no strikes/],
    [`!fracas mob --target ${tokens.goblin.id} --dice 1 --style slashing --type edged --target ${tokens.knight.id}`,
      { selected: [w.skeletons[0].id] }, /takes --target before any --dice/],
    [`!fracas mob --target ${tokens.goblin.id} --frob`, { selected: [w.skeletons[0].id] }, /unknown option --frob/],
  ];
  for (const [command, options, pattern] of cases) {
    const out = emu.chat(emu.gm, command, options);
    assert.equal(out.length, 1, command);
    assert.match(plain(out[0].text), pattern, command);
  }
  // A rules error in one profile is found by the local resolver, in table words.
  tokens.goblin.set('statusmarkers', 'invisible');
  emu.attribute(characters.orc.id, 'fracas_strikes').set('current', '--dice 1 --style slashing --type edged --sneak');
  const out = emu.chat(emu.gm, `!fracas mob --target ${tokens.goblin.id}`, { selected: [w.orcs[0].id] });
  assert.match(plain(out[0].text), /Orc against Goblin: strike 1\.sneak: a sneak attack cannot be made at disadvantage/);
  const player = emu.chat(w.player, `!fracas mob --target ${tokens.goblin.id}`, { selected: [w.skeletons[0].id] });
  assert.match(plain(player[0].text), /!fracas mob is for the GM/);
  assert.equal(Object.keys(emu.state.fracas.relay.pending).length, 0);
});

test('!fracas mob --ruleset cartyrion: profiles from fracas_FIELD attributes, the bridge answer applied with its split', () => {
  const w = mobWorld();
  const { emu, tokens } = w;
  const brute = emu.addCharacter('Brute', { fracas_level: 5, fracas_bonus: 3 });
  const brutes = [0, 1, 2].map((i) => emu.addToken({ name: `Brute ${i + 1}`, represents: brute.id }));
  const out = emu.chat(emu.gm, `!fracas mob --ruleset cartyrion --die d8 --target-armor 2 --target ${tokens.goblin.id} --seed 9`,
    { selected: brutes.map((t) => t.id) });
  const rpc = requests(out.filter((o) => P.parseFrame(o.text)))[0];
  assert.equal(rpc.method, 'attack.bulk');
  assert.deepEqual(rpc.params.profiles, { Brute: { attacker: { level: 5, bonus: 3 }, strikes: [{ method: 'melee', die: 'd8' }] } });
  assert.deepEqual(rpc.params.targets, { [tokens.goblin.id]: { armor: 2 } });
  assert.deepEqual(rpc.params.attacks, [{ profile: 'Brute', target: tokens.goblin.id, count: 3 }]);
  assert.equal(rpc.params.ruleset, 'cartyrion');
  const result = {
    ruleset: 'cartyrion', seed: 9, backend: 'compiled', detail: 'summary', attacks_total: 3, total_damage: 40,
    targets: { [tokens.goblin.id]: { damage: 40, attacks: 3, attacks_hit: 3, strikes: 3, strikes_hit: 3, stamina: 40,
      injury: 0, exploded: 2, longest_explosion: 1, absorbed: 0, stamina_cost: 0 } },
    groups: [],
  };
  const got = answer(emu, emu.gm, { jsonrpc: '2.0', id: rpc.id, result });
  const fields = Emulator.fields(card(got).text);
  assert.equal(fields.name, 'Mob (Cartyrion): 3 attackers, 3 attacks');
  assert.match(plain(fields.Goblin), /^40 damage from 3 attacks · 3 hit · stamina 40, injury 0 · 2 explosions\ndamage applied$/);
  // A mistake is caught before anything is sent.
  const bad = emu.chat(emu.gm, `!fracas mob --ruleset cartyrion --die d7 --target ${tokens.goblin.id}`, { selected: brutes.map((t) => t.id) });
  assert.ok(bad.every((o) => !P.parseFrame(o.text)));
  assert.match(bad.map((o) => plain(o.text)).join('\n'), /Brute against Goblin: .*d7 is not a die of the Cartyrion rules/);
  assertSafe(assert, emu);
});

test('relay secret: shown to the GM once, again on request, rotated on request; unsigned answers are ignored', () => {
  const w = mobWorld();
  const { emu, tokens } = w;
  const secret = emu.state.fracas.relay.secret;
  assert.match(secret, /^[0-9a-f]{64}$/);
  assert.equal(emu.outputs.filter((o) => o.to === 'gm' && plain(o.text).includes(secret)).length, 1, 'shown once at start');
  assert.ok(plain(emu.chat(emu.gm, '!fracas relay --secret')[0].text).includes(secret));
  const players = emu.chat(w.player.id, '!fracas relay --secret');
  assert.ok(!players.some((o) => plain(o.text).includes(secret)), 'never to a player');
  // An answer with no mac, or signed with another secret, is not applied.
  const out = emu.chat(emu.gm, `!fracas mob --target ${tokens.goblin.id}`, { selected: [w.skeletons[0].id] });
  const rpc = requests(out.filter((o) => P.parseFrame(o.text)))[0];
  const message = { jsonrpc: '2.0', id: rpc.id, result: { ruleset: 'enchanted-realms', seed: 1, targets: { [tokens.goblin.id]: { damage: 5, attacks: 1, attacks_hit: 1 } }, groups: [] } };
  for (const key of [null, 'e'.repeat(64)]) {
    for (const f of P.frames('res', rpc.id, JSON.stringify(message), 300, key)) emu.chat(emu.gm, `!fracas-relay ${f}`);
  }
  assert.equal(tokens.goblin.get('bar1_value'), '12');
  assert.ok(emu.state.fracas.relay.pending[rpc.id], 'still waiting for a real answer');
  // The frames the Mod script sends are signed with its secret.
  for (const o of out) {
    const frame = P.parseFrame(o.text);
    if (frame) assert.ok(P.verify(frame, secret));
  }
  emu.chat(emu.gm, '!fracas relay --new-secret');
  assert.notEqual(emu.state.fracas.relay.secret, secret);
});

test('characters named __proto__, constructor or toString are mob profiles like any other', () => {
  const w = mobWorld();
  const { emu, tokens } = w;
  const odd = ['__proto__', 'constructor', 'toString'].map((name) => emu.addToken({ name, represents: emu.addCharacter(name,
    { strength: 3, fracas_strikes: '--dice 1 --style slashing --weight 1 --type edged' }).id }));
  const out = emu.chat(emu.gm, `!fracas mob --target ${tokens.goblin.id}`, { selected: odd.map((t) => t.id) });
  const P = require('../src/protocol');
  const r = new P.Reassembler();
  let request = null;
  for (const o of out) {
    const frame = P.parseFrame(o.text);
    const whole = frame && r.add(frame);
    if (whole) request = JSON.parse(whole.text).params;
  }
  assert.ok(request, out.map((o) => plain(o.text)).join('\n'));
  assert.deepEqual(Object.keys(request.profiles).sort(), ['__proto__', 'constructor', 'toString']);
  assert.deepEqual(request.attacks.map((a) => a.profile).sort(), ['__proto__', 'constructor', 'toString']);
});

test('the card says what bulk did not roll: ER-13 shock saves and ER-17 strays, per group, when not 0', () => {
  const w = mobWorld();
  const { emu, tokens } = w;
  const out = emu.chat(emu.gm, `!fracas mob --target ${tokens.goblin.id} --target ${tokens.knight.id}`,
    { selected: w.skeletons.map((t) => t.id) });
  const rpc = requests(out.filter((o) => P.parseFrame(o.text)))[0];
  const result = summary({ [tokens.goblin.id]: 5, [tokens.knight.id]: 3 });
  const group = (profile, target, count, shock, strays) => ({
    profile, target, count, attacks_hit: 1, hit_rate: 0.5, damage: 2, mean_damage: 1, crits: 0,
    shock_checks: shock, strays_omitted: strays, histogram: [1, 1],
  });
  result.groups = [group('Skeleton', tokens.goblin.id, 2, 12, 0), group('Skeleton', tokens.knight.id, 2, 0, 1),
    group('Skeleton (prone)', tokens.goblin.id, 1, 0, 0)];
  const fields = Emulator.fields(card(answer(emu, emu.gm, { jsonrpc: '2.0', id: rpc.id, result })).text);
  assert.equal(plain(fields.mob), '2 × Skeleton → Goblin · 12 shock saves not rolled (ER-13)\n' +
    '2 × Skeleton → Sir Kay · strays of 1 missed shot omitted (ER-17)\n1 × Skeleton (prone) → Goblin');
  assertSafe(assert, emu);
});
