'use strict';
// `!fracas save`, `touch`, `drop` and `lock` (issue 42 item 2): the Enchanted Realms kinds the Mod
// has no port of, sent through the relay for the bridge to roll (save.roll, touch.roll,
// drop.roll, lock.roll), in the emulated sandbox with the built fracas.js: the request each
// command builds from tokens, sheets and markers; bad input named by its option, nothing
// sent; who may use them; a missing relay (kept, resent); the answer, rolled by the Python
// engine as the bridge rolls it, rendered from its layout and applied once, with undo.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { world, card, gmCard, plain, assertSafe, relayRequests, relayAnswer } = require('./world');
const { Emulator } = require('./emulator');
const H = require('./helpers');
const P = require('../src/protocol');

/** The commands' outputs split: the relay requests, and what was said (plain text). */
function run(emu, who, text, selected = []) {
  const out = emu.chat(who, text, { selected });
  return { out, rpcs: relayRequests(out), said: out.filter((o) => !P.parseFrame(o.text)).map((o) => plain(o.text)).join('\n') };
}

/** What the bridge answers: the Python engine's roll of the request (fracas.roll, as save.roll etc. run it). */
function bridgeRoll(rpc) {
  const kind = rpc.method.split('.')[0];
  const py = spawnSync(H.pythonPath(), ['-c',
    `import json, sys, fracas\nprint(json.dumps(fracas.roll(${JSON.stringify(kind)}, json.load(sys.stdin)).to_dict()))`],
  { cwd: H.REPO_ROOT, input: JSON.stringify(rpc.params), encoding: 'utf8' });
  assert.equal(py.status, 0, py.stderr);
  return JSON.parse(py.stdout);
}

function answer(emu, rpc, result) {
  return relayAnswer(emu, { jsonrpc: '2.0', id: rpc.id, result });
}

function table() {
  const w = world();
  const { emu, player } = w;
  // A thief the player controls, with a dagger (a light weapon, ER-13's sneak attack).
  const thief = emu.addCharacter('Thief', { strength: 3, agility: 6, ac: 12,
    fracas_strikes: '--dice 2 --style piercing --weight 0 --type piercing' }, { controlledby: player.id });
  w.tokens.thief = emu.addToken({ name: 'Thief', represents: thief.id, bar1_value: '10', bar1_max: '10', showplayers_name: true });
  w.tokens.lurker = emu.addToken({ name: 'Secret Lich', layer: 'gmlayer', represents: w.characters.goblin.id });
  return w;
}

test('ER-16 cover saves: !fracas save sends save.roll built from the savers\' sheets and markers, cover per token', () => {
  const { emu, tokens } = table();
  tokens.goblin.set('statusmarkers', 'poisoned');
  const { rpcs, said } = run(emu, emu.gm, `!fracas save --save agility --dc 13 --area --effect "sleep smoke" --on-fail asleep ` +
    `--targets ${tokens.goblin.id} ${tokens.knight.id} --cover half --cover ${tokens.knight.id}=three-quarters --bonus 1 --seed 9`);
  assert.equal(rpcs.length, 1);
  assert.equal(rpcs[0].method, 'save.roll');
  assert.match(rpcs[0].id, /^k-[0-9a-z]{6}-\d+$/);
  assert.deepEqual(rpcs[0].params, {
    save: 'agility', dc: 13, area: true, effect: 'sleep smoke', on_fail: ['asleep'],
    targets: [
      { id: tokens.goblin.id, score: 4, bonus: 1, cover: 'half', conditions: ['poisoned'] },
      { id: tokens.knight.id, score: 2, bonus: 1, cover: 'three-quarters' },
    ],
    seed: 9,
  });
  assert.match(said, /no offline save resolver: the bridge rolls it/);
  // Without --targets, the selected tokens save; a Resilience save reads the save bonus (resilience).
  const sel = run(emu, emu.gm, '!fracas save --save resilience --dc 14 --seed 1', [tokens.goblin.id]);
  assert.deepEqual(sel.rpcs[0].params, { save: 'resilience', dc: 14, area: false,
    targets: [{ id: tokens.goblin.id, modifier: 2, conditions: ['poisoned'] }], seed: 1 });
  assertSafe(assert, emu);
});

test('ER Touch attacks: !fracas touch sends touch.roll: the caster\'s sheet, the target\'s AC or Agility', () => {
  const { emu, tokens } = table();
  const hit = run(emu, emu.gm, `!fracas touch --touch hit --target ${tokens.goblin.id} --dice 2 --advantage --seed 4`, [tokens.orc.id]);
  assert.equal(hit.rpcs[0].method, 'touch.roll');
  assert.deepEqual(hit.rpcs[0].params, {
    touch: 'hit', caster: { strength: 6, agility: 3, size: 'medium' },
    target: { id: tokens.goblin.id, ac: 13, agility: 4 }, dice: 2, advantage: true, seed: 4,
  });
  const sleight = run(emu, emu.gm, `!fracas touch --touch sleight --target ${tokens.knight.id} --other-ac 1 --bonus 2 --seed 4`, [tokens.thief.id]);
  assert.deepEqual(sleight.rpcs[0].params, {
    touch: 'sleight', caster: { strength: 3, agility: 6 },
    target: { id: tokens.knight.id, agility: 2, other_ac: 1 }, bonus: 2, seed: 4,
  });
});

test('ER-13 getting the drop: !fracas drop sends drop.roll, the attack with every strike a sneak attack; --inflict the held damage', () => {
  const { emu, tokens } = table();
  const drop = run(emu, emu.gm, `!fracas drop --target ${tokens.goblin.id} --seed 5`, [tokens.thief.id]);
  assert.equal(drop.rpcs[0].method, 'drop.roll');
  assert.deepEqual(drop.rpcs[0].params, {
    attack: {
      attacker: { strength: 3, agility: 6 },
      strikes: [{ method: 'melee', style: 'piercing', dice: 2, damage_type: 'piercing', weight: 0, target: tokens.goblin.id, sneak: true }],
      targets: { [tokens.goblin.id]: { ac: 13, resistant: ['poison'], body_max: 12, save_bonus: 2 } },
    },
    seed: 5,
  });
  const animal = run(emu, emu.gm, `!fracas drop --target ${tokens.goblin.id} --surrenders off --rolls 15,3,9,2`, [tokens.thief.id]);
  assert.equal(animal.rpcs[0].params.surrenders, false);
  assert.deepEqual(animal.rpcs[0].params.rolls, [15, 3, 9, 2], 'the faces go to the drop request, not its attack');
  assert.equal(animal.rpcs[0].params.attack.rolls, undefined);
  const inflict = run(emu, emu.gm, `!fracas drop --inflict 9 --target ${tokens.goblin.id} --rounds 3 --foul-play --attribute strength --seed 2`,
    [tokens.thief.id]);
  assert.equal(inflict.rpcs.length, 0, 'the goblin has no Strength on its sheet');
  assert.match(inflict.said, /Goblin has no "strength" \(or "strength_mod"\) attribute: the strength feat against the held damage needs it/);
  const agile = run(emu, emu.gm, `!fracas drop --inflict 9 --target ${tokens.goblin.id} --rounds 3 --foul-play --seed 2`, [tokens.thief.id]);
  assert.deepEqual(agile.rpcs[0].params, {
    inflict: { held: 9, victim: { id: tokens.goblin.id, attribute: 'agility', score: 4, foul_play: true, body_max: 12 }, rounds: 3 },
    seed: 2,
  });
});

test('ER Weapon Lock / ER-19: !fracas lock sends lock.roll: lock, disarm and shield-blitz from both sheets', () => {
  const { emu, tokens, characters } = table();
  tokens.knight.set('statusmarkers', 'prone');
  const disarm = run(emu, emu.gm, `!fracas lock --mode disarm --target ${tokens.knight.id} --reacts --weapon heavy --type blunt --seed 3`,
    [tokens.orc.id]);
  assert.equal(disarm.rpcs[0].method, 'lock.roll');
  assert.deepEqual(disarm.rpcs[0].params, {
    mode: 'disarm',
    // The feat's to-hit: the melee to-hit of the sheet, Strength 6 + a medium creature's size bonus 0 (ER-4, ER-5).
    attacker: { id: tokens.orc.id, strength: 6, agility: 3, to_hit: 6, weapon: 'heavy', damage_type: 'blunt' },
    victim: { id: tokens.knight.id, ac: 15, strength: 5, agility: 2, conditions: ['prone'], reacts: true, resistant: ['edged', 'blunt'] },
    seed: 3,
  });
  const lock = run(emu, emu.gm, `!fracas lock --mode lock --target ${tokens.goblin.id} --to-hit 4 --advantage --victim-bonus 1 --seed 3`,
    [tokens.orc.id]);
  assert.deepEqual(lock.rpcs[0].params.attacker, { id: tokens.orc.id, strength: 6, agility: 3, to_hit: 4, advantage: true });
  assert.deepEqual(lock.rpcs[0].params.victim, { id: tokens.goblin.id, ac: 13, agility: 4, bonus: 1, resistant: ['poison'] });
  // ER-10 on the disarm's cost and the blitz: the victim's sheet immunities go too.
  emu.create('attribute', { _characterid: characters.goblin.id, name: 'immune', current: 'blunt' });
  const immune = run(emu, emu.gm, `!fracas lock --mode blitz --target ${tokens.goblin.id} --seed 3`, [tokens.orc.id]);
  assert.deepEqual(immune.rpcs[0].params.victim.immune, ['blunt']);
  emu.find({ _type: 'attribute', name: 'immune' }).forEach((a) => a.remove());
  const blitz = run(emu, emu.gm, `!fracas lock --mode blitz --target ${tokens.goblin.id} --seed 3`, [tokens.orc.id]);
  assert.equal(blitz.rpcs[0].params.attacker.to_hit, undefined, 'a blitz has no roll to hit');
});

test('bad input to save (ER-16), touch (ER Touch attacks), drop (ER-13), lock (ER-19): a clear whisper naming the option; nothing is sent', () => {
  const { emu, tokens } = table();
  const g = tokens.goblin.id;
  const o = [tokens.orc.id];
  const cases = [
    [`!fracas save --dc 13 --targets ${g}`, [], /give the save: --save agility\|resilience\|strength/],
    [`!fracas save --save wisdom --dc 13 --targets ${g}`, [], /--save takes agility, resilience, strength, not "wisdom"/],
    [`!fracas save --save agility --targets ${g}`, [], /give the DC: --dc 13/],
    [`!fracas save --save agility --dc 300 --targets ${g}`, [], /--dc must be -50 to 100, not 300/],
    [`!fracas save --save agility --dc 13 --on-fail sleepy --targets ${g}`, [], /--on-fail: "sleepy" is not a condition/],
    [`!fracas save --save agility --dc 13 --cover behind --targets ${g}`, [], /--cover takes none, half, three-quarters, full \(or ID=LEVEL\), not "behind"/],
    [`!fracas save --save agility --dc 13 --cover ${tokens.orc.id}=half --targets ${g}`, [], /--cover -\S+=…: not one of the savers/],
    [`!fracas save --save resilience --dc 13 --targets ${tokens.orc.id}`, [], /Orc has no "resilience" attribute: a resilience save needs it/],
    ['!fracas save --save agility --dc 13', [], /select the saving tokens, or give them: --targets ID ID/],
    [`!fracas save --save agility --dc 13 --frobnicate --targets ${g}`, [], /!fracas save does not know --frobnicate \(it takes --save, --dc/],
    [`!fracas save --save agility --dc 13 --targets nope`, [], /no token with the id "nope" \(--targets\)/],
    [`!fracas touch --target ${g}`, o, /give the touch: --touch hit .* or --touch sleight/],
    [`!fracas touch --touch hit --target ${g} --dice 9`, o, /--dice must be 1 to 5, not 9/],
    ['!fracas touch --touch hit', o, /give the target: --target @\{target\|token_id\}/],
    [`!fracas touch --touch hit --target ${g} --target ${tokens.knight.id}`, o, /--target: this command has one target, not 2/],
    [`!fracas touch --touch hit --target ${g}`, [], /select the attacking token, or give --attacker/],
    [`!fracas lock --target ${g}`, o, /give the maneuver: --mode lock\|disarm\|blitz/],
    [`!fracas lock --mode grab --target ${g}`, o, /--mode takes lock, disarm, blitz, not "grab"/],
    [`!fracas lock --mode lock --target ${g} --weapon huge`, o, /--weapon takes light, medium, heavy, not "huge"/],
    [`!fracas lock --mode lock --target ${g} --reacts maybe`, o, /--reacts takes on or off, not "maybe"/],
    [`!fracas lock --mode lock --target ${g}`, [tokens.goblin.id], /--target: the victim is another creature/],
    [`!fracas drop --inflict x --target ${g}`, o, /--inflict takes a whole number, not "x"/],
    [`!fracas drop --inflict 5 --target ${g} --dice 2`, o, /--dice is an option of the drop's attack, not of --inflict/],
    [`!fracas drop --target ${g} --rounds 2`, o, /--rounds is for --inflict \(the victim's feat\), not for the drop's attack/],
    [`!fracas drop --target ${g}`, o, /the drop's attack: strike 1\.sneak: a sneak attack needs a ranged, light \(weight 0\) or reach weapon/],
    [`!fracas drop --target ${g} --target ${tokens.knight.id}`, [tokens.thief.id], /one --target @\{target\|token_id\} \(the drop is at one creature\)/],
  ];
  for (const [text, selected, pattern] of cases) {
    const r = run(emu, emu.gm, text, selected);
    assert.equal(r.rpcs.length, 0, `${text}: nothing is sent`);
    assert.match(r.said, pattern, text);
    assert.ok(r.out.every((x) => x.to === 'gm'), `${text}: the error is whispered`);
  }
  assert.deepEqual(Object.keys(emu.state.fracas.relay.pending), []);
  assertSafe(assert, emu);
});

test('who may (ER-13, ER-16, ER-19, ER Touch attacks): a player with the acting token they control, as attack; not another\'s, not typed numbers or dice', () => {
  const { emu, tokens, player } = table();
  const g = tokens.goblin.id;
  // The thief is the player's: a touch, a lock, the drop and a save for their own tokens are theirs to roll.
  assert.equal(run(emu, player, `!fracas touch --touch sleight --target ${g}`, [tokens.thief.id]).rpcs.length, 1);
  assert.equal(run(emu, player, `!fracas lock --mode disarm --target ${g}`, [tokens.thief.id]).rpcs.length, 1);
  assert.equal(run(emu, player, `!fracas drop --target ${g}`, [tokens.thief.id]).rpcs.length, 1);
  assert.equal(run(emu, player, `!fracas save --save agility --dc 12 --targets ${tokens.thief.id} ${tokens.knight.id}`).rpcs.length, 1);
  const refusals = [
    [`!fracas touch --touch hit --target ${g}`, [tokens.orc.id], /you can attack only with a token you control/],
    [`!fracas lock --mode lock --target ${tokens.knight.id}`, [tokens.goblin.id], /you can attack only with a token you control/],
    [`!fracas save --save agility --dc 12 --targets ${g}`, [], /you can roll saves only for tokens you control; nothing was rolled/],
    [`!fracas lock --mode lock --target ${g} --to-hit 20`, [tokens.thief.id], /--to-hit: players attack with their character's strikes .* --players-numbers on/],
    [`!fracas save --save agility --dc 12 --targets ${tokens.thief.id} --advantage`, [], /--advantage: players attack with .* --players-numbers on/],
    [`!fracas touch --touch hit --target ${g} --seed 7`, [tokens.thief.id], /--seed: only the GM chooses the dice/],
    [`!fracas touch --touch hit --target ${tokens.lurker.id}`, [tokens.thief.id], /players may target only tokens on the token layer/],
    [`!fracas drop --inflict 30 --target ${g}`, [tokens.thief.id], /--inflict: players attack with .* --players-numbers on/],
    [`!fracas lock --mode disarm --target ${g} --reacts off`, [tokens.thief.id], /--reacts: whether Goblin reacts is for whoever controls it \(the GM\) to say/],
  ];
  for (const [text, selected, pattern] of refusals) {
    const r = run(emu, player, text, selected);
    assert.equal(r.rpcs.length, 0, `${text}: nothing is sent`);
    assert.match(r.said, pattern, text);
    assert.ok(!r.said.includes('Secret Lich'), 'a hidden token is named by its id only');
  }
  emu.chat(emu.gm, '!fracas config --players-attack off');
  assert.match(run(emu, player, `!fracas touch --touch hit --target ${g}`, [tokens.thief.id]).said, /only the GM may attack/);
});

test('no relay (ER Touch attacks): the command says so and loses nothing; !fracas resend sends the same request', () => {
  const { emu, tokens } = table();
  const { rpcs, said } = run(emu, emu.gm, `!fracas touch --touch hit --target ${tokens.goblin.id}`, [tokens.orc.id]);
  assert.match(said, /The relay is not connected \(it has not said hello\): the request is kept, nothing is lost/);
  assert.ok(emu.state.fracas.relay.pending[rpcs[0].id]);
  assert.equal(emu.state.fracas.relay.pending[rpcs[0].id].method, 'touch.roll');
  assert.match(plain(emu.chat(emu.gm, '!fracas relay')[0].text), new RegExp(`waiting for: ${rpcs[0].id} \\(touch\\.roll\\)`));
  const again = relayRequests(emu.chat(emu.gm, `!fracas resend ${rpcs[0].id}`));
  assert.deepEqual(again, rpcs, 'the resend is the same request with the same id');
  // After the relay's hello the notice no longer says it is missing.
  const hello = P.frames('hello', 'h-1', JSON.stringify({ bridge: 'ws://127.0.0.1:8765', version: '0' }), 300, emu.state.fracas.relay.secret);
  for (const f of hello) emu.chat(emu.gm, `!fracas-relay ${f}`);
  assert.doesNotMatch(run(emu, emu.gm, `!fracas touch --touch hit --target ${tokens.goblin.id}`, [tokens.orc.id]).said, /not connected/);
});

test('ER-19 lock answers: a bad one is refused by its layout, a bridge error is told with names; nothing applied', () => {
  const { emu, tokens } = table();
  const { rpcs } = run(emu, emu.gm, `!fracas lock --mode blitz --target ${tokens.goblin.id}`, [tokens.orc.id]);
  const forged = { ruleset: 'enchanted-realms', seed: 1, mode: 'blitz', victim: tokens.goblin.id, blitz: { damage: 9 } };
  const out = answer(emu, rpcs[0], forged);
  assert.match(plain(out.map((o) => o.text).join('\n')), /is not a lock result \(\$: no key injected \(LockResult\)/);
  assert.equal(tokens.goblin.get('bar1_value'), '12');
  const second = run(emu, emu.gm, `!fracas lock --mode lock --target ${tokens.goblin.id} --reacts`, [tokens.orc.id]).rpcs[0];
  const err = relayAnswer(emu, { jsonrpc: '2.0', id: second.id, error: { code: -32602, message: `'${tokens.goblin.id}' is asleep: it cannot use a reaction against the lock`, data: { path: '$.victim.reacts' } } });
  assert.match(plain(err[0].text), /the bridge refused request k-\S+: \$\.victim\.reacts: Goblin is asleep: it cannot use a reaction against the lock/);
});

test('answers rolled by the engine: cards with the exact odds, effects applied once, undo (ER-16, ER-13, ER Weapon Disarm, ER Touch attacks)', (t) => {
  if (!H.pythonHasFracas()) return H.skipUnlessCI(t, `no Python with fracas at ${H.pythonPath()}`);
  const { emu, tokens, player } = table();
  // ER-16 / ER-12: an area Agility save; the knight fails (a 3) and falls asleep: its marker is set, undo takes it off.
  const save = run(emu, emu.gm, `!fracas save --save agility --dc 13 --area --effect "sleep smoke" --on-fail asleep ` +
    `--targets ${tokens.goblin.id} ${tokens.knight.id} --cover ${tokens.goblin.id}=half --seed 5`).rpcs[0];
  const result = bridgeRoll(save);
  assert.deepEqual([result.saved, result.failed], [[tokens.goblin.id], [tokens.knight.id]]);
  const out = answer(emu, save, result);
  const f = Emulator.fields(card(out).text);
  assert.equal(f.name, 'Save: sleep smoke: agility saves DC 13 (area)');
  assert.equal(plain(f.Goblin), 'd20 16 → 16 +3 = 19 vs DC 13 (agility +1, half cover +2 (ER-16))\nsaved ✓ · 55.0% (11/20) to save');
  assert.equal(plain(f['Sir Kay']), 'd20 3 → 3 +0 = 3 vs DC 13 (agility +0)\nfailed ✗ · 40.0% (2/5) to save\nnow asleep (marker set)');
  assert.equal(plain(f['how many fail']), '0: 22.0% (11/50) · 1: 51.0% (51/100) · 2: 27.0% (27/100)');
  assert.match(plain(f['rolled by']), /^the bridge \(fracas serve\): this script has no offline save resolver\nseed 5 · request k-/);
  assert.equal(tokens.knight.get('statusmarkers'), 'asleep');
  assert.match(gmCard(out).text, /\[undo\]\(!fracas undo k-/);
  // The same answer again: applied once.
  assert.deepEqual(answer(emu, save, result), []);
  emu.chat(emu.gm, `!fracas undo ${save.id}`);
  assert.equal(tokens.knight.get('statusmarkers'), '');

  // ER-13: the held damage dealt, the victim's feat; the damage off the bar, the shock save named.
  const inflict = run(emu, emu.gm, `!fracas drop --inflict 9 --target ${tokens.goblin.id} --rounds 2 --foul-play --seed 5`, [tokens.thief.id]).rpcs[0];
  const dealt = bridgeRoll(inflict);
  const dOut = answer(emu, inflict, dealt);
  const d = Emulator.fields(card(dOut).text);
  assert.equal(plain(d['feat of Goblin']), 'agility feat d20 16/3 → 16 +1 = 17 vs DC 18 (2 rounds since the drop) · advantage (foul play)\n' +
    'not halved ✗ · P(half) 36.0% (9/25) · mean 7.20 (36/5) inflicted');
  assert.equal(plain(d.Goblin), '9 held → 9 damage · damage applied\nshock: Resilience save DC 14 (ER-13)');
  assert.equal(tokens.goblin.get('bar1_value'), 3);
  assert.match(gmCard(dOut).text, /!fracas save --save resilience --dc 14 --targets/);

  // ER Weapon Disarm: the reacting knight pays 3 Body, halved to 1 (resistant to edged, ER-10), then loses the Agility competition.
  const disarm = run(emu, player, `!fracas lock --mode disarm --target ${tokens.knight.id} --reacts`, [tokens.thief.id]);
  assert.equal(disarm.rpcs.length, 1);
  const lockRpc = disarm.rpcs[0];
  const lockResult = bridgeRoll(lockRpc);
  const lOut = answer(emu, lockRpc, lockResult);
  const l = Emulator.fields(card(lOut).text);
  assert.equal(l.name, 'Weapon lock and disarm: disarm (Thief)');
  assert.match(plain(l.feat), new RegExp(`vs AC 15\\n(success ✓|failure ✗) · P\\(success\\) ${(100 * lockResult.feat.p_success).toFixed(1)}% \\(${lockResult.feat.p_success_exact}\\)`));
  assert.match(plain(l.outcome), new RegExp(`^${lockResult.outcome}: `));
  if (lockResult.reaction && lockResult.reaction.rolled) {
    assert.match(plain(l.reaction), /Sir Kay pays 1 Body to react \(medium edged weapon, resistant\) · Body 20 → 19/);
    assert.equal(tokens.knight.get('bar1_value'), 19);
  }

  // ER Touch attacks: a card and the odds; nothing to apply.
  const touch = run(emu, emu.gm, `!fracas touch --touch sleight --target ${tokens.goblin.id} --seed 3`, [tokens.orc.id]).rpcs[0];
  const tOut = answer(emu, touch, bridgeRoll(touch));
  const tc = Emulator.fields(card(tOut).text);
  assert.equal(plain(tc['Orc → Goblin']), 'sleight of hand: d20 10 → 10 +0 = 10 vs DC 11 (10 +1 Agility +0 other AC); unnoticed at 15');
  assert.equal(plain(tc.outcome), 'not touched ✗');
  assert.equal(plain(tc.odds), 'P(touch) 50.0% (1/2) · P(unnoticed) 30.0% (3/10)');
  assertSafe(assert, emu);
});

test('ER-12 saves: --no-apply shows what a failure would do; --marker maps a condition to a custom marker, which undo takes off alone', (t) => {
  if (!H.pythonHasFracas()) return H.skipUnlessCI(t, `no Python with fracas at ${H.pythonPath()}`);
  const { emu, tokens } = table();
  // DC 40: nobody saves. A preview changes nothing.
  const preview = run(emu, emu.gm, `!fracas save --save agility --dc 40 --on-fail asleep --targets ${tokens.goblin.id} --no-apply --seed 1`).rpcs[0];
  const out = answer(emu, preview, bridgeRoll(preview));
  assert.match(plain(Emulator.fields(card(out).text).Goblin), /failed ✗ · 0\.0% \(0\/1\) to save\non a failure: asleep \(not applied\)$/);
  assert.equal(tokens.goblin.get('statusmarkers'), '');
  assert.equal(gmCard(out) && /\[undo\]/.test(gmCard(out).text), false, 'nothing to undo');
  // The campaign's custom marker "Hexed" (tag Hexed::4242) shows asleep: it is written by its tag, beside the markers there.
  emu.chat(emu.gm, '!fracas config --marker asleep=Hexed');
  tokens.goblin.set('statusmarkers', 'red,prone');
  const real = run(emu, emu.gm, `!fracas save --save agility --dc 40 --on-fail asleep,prone --targets ${tokens.goblin.id} --seed 1`).rpcs[0];
  const got = answer(emu, real, bridgeRoll(real));
  assert.match(plain(Emulator.fields(card(got).text).Goblin), /now asleep \(marker set\)$/);
  assert.equal(tokens.goblin.get('statusmarkers'), 'red,prone,Hexed::4242');
  tokens.goblin.set('statusmarkers', 'red,prone,Hexed::4242,blue');
  emu.chat(emu.gm, `!fracas undo ${real.id}`);
  assert.equal(tokens.goblin.get('statusmarkers'), 'red,prone,blue', 'undo takes off the marker the card put on, and only it');
});

test('ER-13: !fracas request gives the drop request with its seed, and fracas replay rolls what the bridge rolled', (t) => {
  if (!H.pythonHasFracas()) return H.skipUnlessCI(t, `no Python with fracas at ${H.pythonPath()}`);
  const { emu, tokens } = table();
  const rpc = run(emu, emu.gm, `!fracas drop --target ${tokens.goblin.id} --seed 11`, [tokens.thief.id]).rpcs[0];
  const shown = plain(emu.chat(emu.gm, `!fracas request ${rpc.id}`)[0].text);
  const record = JSON.parse(shown.slice(shown.indexOf('{')));
  assert.deepEqual(record, rpc.params);
  const replay = spawnSync(H.pythonPath(), ['-m', 'fracas', 'replay', '-', '--json'],
    { cwd: H.REPO_ROOT, input: JSON.stringify(record), encoding: 'utf8' });
  assert.equal(replay.status, 0, replay.stderr);
  const replayed = JSON.parse(replay.stdout);
  assert.deepEqual(replayed, bridgeRoll(rpc));
});

test('ER Weapon Lock: a public card names no creature whose nameplate players do not see; the GM\'s card does', (t) => {
  if (!H.pythonHasFracas()) return H.skipUnlessCI(t, `no Python with fracas at ${H.pythonPath()}`);
  const { emu, tokens } = table();
  // A GM's creature with its nameplate hidden from players (showplayers_name off, Roll20's default).
  const prowler = emu.addToken({ name: 'Night Prowler', represents: emu.addCharacter('Prowler', { strength: 7, agility: 5 }).id });
  const rpc = run(emu, emu.gm, `!fracas lock --mode disarm --target ${tokens.knight.id} --reacts --rolls 18,3,9,10`, [prowler.id]).rpcs[0];
  const result = bridgeRoll(rpc);
  assert.ok(result.reaction && result.reaction.rolled, 'the feat succeeds with these faces, so the sides are named');
  const out = answer(emu, rpc, result);
  const pub = out.filter((o) => !o.to).map((o) => plain(o.text)).join('\n');
  assert.ok(pub.length, 'a public card');
  assert.ok(!pub.includes('Night Prowler'), pub);
  assert.match(pub, /An unnamed creature/);
  assert.match(plain(gmCard(out).text), /Night Prowler/);
  assertSafe(assert, emu);
});

test('the table: each bridge-built kind (ER-13, ER-16, ER-19, ER Touch attacks) is a kind of the contract without a port, its method relayed, its command known', () => {
  const { KINDS } = require('../src/mod/bridgekinds');
  const { RULESETS, RESULTS, DEFAULT_RULESET } = require('../src/contract');
  const { RELAYED } = require('../relay/methods');
  const { COMMANDS } = require('../src/mod/app');
  const er = RULESETS.find((r) => r.name === DEFAULT_RULESET);
  for (const [kind, entry] of Object.entries(KINDS)) {
    assert.ok(er.requests[kind], `${kind}: a request kind of the contract`);
    assert.ok(RESULTS[DEFAULT_RULESET].kinds[kind], `${kind}: its result layout, which the answer is checked against`);
    assert.match(entry.method, /^[a-z]+\.[a-z]+$/);
    assert.ok(RELAYED.includes(entry.method), `${entry.method} is carried by the relay (Kind.relay)`);
    assert.equal(typeof COMMANDS[kind].run, 'function');
    assert.equal(COMMANDS[kind].player, true);
    for (const field of ['title', 'noun', 'build', 'effects', 'card']) assert.ok(entry[field], `${kind}.${field}`);
  }
  for (const kind of ['save', 'touch', 'drop', 'lock', 'throw', 'slam']) assert.ok(KINDS[kind], kind);
});

test('ER Throwing Items: !fracas throw sends throw.roll: the thrower\'s sheet, the target\'s AC, resistances, markers and --cover; an item\'s own damage', () => {
  const { emu, tokens } = table();
  tokens.goblin.set('statusmarkers', 'prone');
  const flask = run(emu, emu.gm, `!fracas throw --item holy water --skill ranged --target ${tokens.goblin.id} --advantage --seed 3`, [tokens.orc.id]);
  assert.equal(flask.rpcs[0].method, 'throw.roll');
  assert.deepEqual(flask.rpcs[0].params, {
    item: 'holy water', thrower: { strength: 6, agility: 3, size: 'medium' },
    target: { id: tokens.goblin.id, ac: 13, resistant: ['poison'], conditions: ['prone'] }, skill: 'ranged', advantage: true, seed: 3,
  });
  assert.match(flask.said, /no offline throw resolver: the bridge rolls it/);
  // Throwing magic: the spell's damage from --damage and --type; the knight's AC by damage type and --cover go as an attack reads them.
  const magic = run(emu, emu.gm, `!fracas throw --item magic --damage 2d6+1 --type lightning --skill hurling --cover half ` +
    `--target ${tokens.knight.id} --bonus 1 --seed 4`, [tokens.thief.id]);
  assert.deepEqual(magic.rpcs[0].params, {
    item: 'magic', thrower: { strength: 3, agility: 6 },
    target: { id: tokens.knight.id, ac: 15, ac_by_type: { edged: 18 }, cover: 'half', resistant: ['edged', 'blunt'] },
    skill: 'hurling', damage: { dice: 2, faces: 6, bonus: 1, damage_type: 'lightning' }, bonus: 1, seed: 4,
  });
  // An unlisted item with a flat damage; the item's name as typed (hyphens, no apostrophe); --ac for the GM.
  const other = run(emu, emu.gm, `!fracas throw --item other --damage 3 --type fire --target ${tokens.goblin.id} --ac 9 --seed 1`, [tokens.orc.id]);
  assert.deepEqual(other.rpcs[0].params.damage, { dice: 0, faces: 4, bonus: 3, damage_type: 'fire' });
  assert.equal(other.rpcs[0].params.target.ac, 9);
  const oil = run(emu, emu.gm, `!fracas throw --item firebreathers-oil --target ${tokens.goblin.id}`, [tokens.orc.id]);
  assert.equal(oil.rpcs[0].params.item, "firebreather's oil");
});

test('bad input to throw (ER Throwing Items): a clear whisper naming the option; nothing is sent', () => {
  const { emu, tokens } = table();
  const g = tokens.goblin.id;
  const o = [tokens.orc.id];
  const cases = [
    [`!fracas throw --target ${g}`, o, /give what is thrown: --item acid splash\|bonfire blend\|/],
    [`!fracas throw --item rock --target ${g}`, o, /--item takes acid splash, bonfire blend, explosive oil, firebreather's oil, holy water, other, magic, not "rock"/],
    [`!fracas throw --item magic --target ${g}`, o, /--item magic: give its damage, --damage 2d6/],
    [`!fracas throw --item holy water --damage 1d6 --target ${g}`, o, /--damage: holy water does the table's damage; --damage and --type are for --item other or magic/],
    [`!fracas throw --item other --damage 2d7 --target ${g}`, o, /--damage: d7 is not a die/],
    [`!fracas throw --item other --damage lots --target ${g}`, o, /--damage takes dice like 2d6\+1, or a flat amount like 3, not "lots"/],
    [`!fracas throw --item other --damage 11d6 --target ${g}`, o, /--damage \(dice\) must be 0 to 10, not 11/],
    [`!fracas throw --item magic --damage 1d6 --type plasma --target ${g}`, o, /--type takes alchemical, .* not "plasma"/],
    [`!fracas throw --item acid splash --skill expert --target ${g}`, o, /--skill takes none, ranged, hurling, not "expert"/],
    [`!fracas throw --item acid splash --cover behind --target ${g}`, o, /--cover takes none, half, three-quarters, full, not "behind"/],
    [`!fracas throw --item acid splash --bonus 99 --target ${g}`, o, /--bonus must be -50 to 50, not 99/],
    [`!fracas throw --item acid splash --target ${g}`, [g], /--target: a throw is at another creature/],
    [`!fracas throw --item acid splash`, o, /give the target: --target @\{target\|token_id\}/],
    [`!fracas throw --item acid splash --target ${g}`, [], /select the attacking token, or give --attacker/],
    [`!fracas throw --item acid splash --target ${g} --style thrown`, o, /!fracas throw does not know --style \(it takes --item/],
  ];
  for (const [text, selected, pattern] of cases) {
    const r = run(emu, emu.gm, text, selected);
    assert.equal(r.rpcs.length, 0, `${text}: nothing is sent`);
    assert.match(r.said, pattern, text);
    assert.ok(r.out.every((x) => x.to === 'gm'), `${text}: the error is whispered`);
  }
  assert.deepEqual(Object.keys(emu.state.fracas.relay.pending), []);
  assertSafe(assert, emu);
});

test('who may throw (ER Throwing Items): a player with a token they control, as attack; not another\'s, not typed numbers or dice', () => {
  const { emu, tokens, player } = table();
  const g = tokens.goblin.id;
  assert.equal(run(emu, player, `!fracas throw --item acid splash --target ${g}`, [tokens.thief.id]).rpcs.length, 1);
  const refusals = [
    [`!fracas throw --item acid splash --target ${g}`, [tokens.orc.id], /you can attack only with a token you control/],
    [`!fracas throw --item acid splash --target ${g} --skill hurling`, [tokens.thief.id], /--skill: players attack with their character's strikes .* --players-numbers on/],
    [`!fracas throw --item magic --damage 8d6 --target ${g}`, [tokens.thief.id], /--damage: players attack with .* --players-numbers on/],
    [`!fracas throw --item acid splash --target ${g} --seed 7`, [tokens.thief.id], /--seed: only the GM chooses the dice/],
    [`!fracas throw --item acid splash --target ${tokens.lurker.id}`, [tokens.thief.id], /players may target only tokens on the token layer/],
  ];
  for (const [text, selected, pattern] of refusals) {
    const r = run(emu, player, text, selected);
    assert.equal(r.rpcs.length, 0, `${text}: nothing is sent`);
    assert.match(r.said, pattern, text);
  }
  // --ac is a typed number (as touch's and lock's): a player gives it only with --players-numbers.
  const typed = run(emu, player, `!fracas throw --item acid splash --target ${g} --ac 1`, [tokens.thief.id]);
  assert.equal(typed.rpcs.length, 0);
  assert.match(typed.said, /--ac: players attack with .* --players-numbers on/);
  emu.chat(emu.gm, '!fracas config --players-attack off');
  assert.match(run(emu, player, `!fracas throw --item acid splash --target ${g}`, [tokens.thief.id]).said, /only the GM may attack/);
});

test('ER Throwing Items answers rolled by the engine: the pool\'s dice and hits, the damage off the target\'s bar with undo, the exact p_hit and mean damage', (t) => {
  if (!H.pythonHasFracas()) return H.skipUnlessCI(t, `no Python with fracas at ${H.pythonPath()}`);
  const { emu, tokens } = table();
  // Holy water by a ranged fighter (two d20s, each raw face against AC 13): a 10 misses, a 15 hits; d4 smite.
  const rpc = run(emu, emu.gm, `!fracas throw --item holy water --skill ranged --target ${tokens.goblin.id} --seed 3`, [tokens.orc.id]).rpcs[0];
  const result = bridgeRoll(rpc);
  assert.equal(result.hit, true);
  const out = answer(emu, rpc, result);
  const f = Emulator.fields(card(out).text);
  assert.equal(f.name, 'Throw: holy water (Orc)');
  assert.equal(plain(f['Orc → Goblin']), 'holy water (ranged fighting): 2 d20 +0 vs AC 13\ndice: 10✗ 15✓ · 1 hit (any one is enough)');
  assert.equal(plain(f.outcome), `hit ✓: 1d4 ${result.damage.dice[0]} → ${result.damage.damage} smite damage · damage applied\nsmiting damage; limited victims`);
  assert.equal(plain(f.odds), `P(hit) 64.0% (16/25) · mean damage 1.60 (8/5)`);
  assert.equal(tokens.goblin.get('bar1_value'), 12 - result.damage.damage);
  assert.match(gmCard(out).text, /\[undo\]\(!fracas undo k-/);
  assert.deepEqual(answer(emu, rpc, result), [], 'applied once');
  emu.chat(emu.gm, `!fracas undo ${rpc.id}`);
  assert.equal(Number(tokens.goblin.get('bar1_value')), 12);
  // A miss: nothing applied, no undo.
  const miss = run(emu, emu.gm, `!fracas throw --item acid splash --target ${tokens.goblin.id} --rolls 2`, [tokens.orc.id]).rpcs[0];
  const missed = bridgeRoll(miss);
  const mOut = answer(emu, miss, missed);
  const m = Emulator.fields(card(mOut).text);
  assert.equal(plain(m.outcome), 'miss ✗\nalchemical damage');
  assert.equal(plain(m.odds), `P(hit) 40.0% (2/5) · mean damage ${missed.mean_damage.toFixed(2)} (${missed.mean_damage_exact})`);
  assert.doesNotMatch(gmCard(mOut).text, /!fracas undo/);
  assert.equal(Number(tokens.goblin.get('bar1_value')), 12);
  // Throwing magic by a hurler: one d20 plus the whole Agility score (6), the spell's damage from the request.
  const spell = run(emu, emu.gm, `!fracas throw --item magic --damage 1d6+1 --type fire --skill hurling --target ${tokens.goblin.id} --rolls 9,4`, [tokens.thief.id]).rpcs[0];
  const cast = bridgeRoll(spell);
  assert.deepEqual([cast.hit, cast.thrown.agility_added, cast.damage.damage], [true, 6, 5]);
  const s = Emulator.fields(card(answer(emu, spell, cast)).text);
  assert.equal(s.name, 'Throw: throwing magic (Thief)');
  assert.equal(plain(s['Thief → Goblin']), 'throwing magic (hurling): 1 d20 +6 (Agility +6 of it) vs AC 13\ndice: 9✓ · 1 hit (any one is enough)');
  assert.equal(plain(s.outcome), 'hit ✓: 1d6 4 +1 → 5 fire damage · damage applied');
  assert.equal(plain(s.odds), `P(hit) ${(100 * cast.p_hit).toFixed(1)}% (${cast.p_hit_exact}) · mean damage ${cast.mean_damage.toFixed(2)} (${cast.mean_damage_exact})`);
  assert.equal(Number(tokens.goblin.get('bar1_value')), 7);
  assertSafe(assert, emu);
});

/** The table with a huge giant (Strength 10: bonus +4, ER-4) the player does not control. */
function giantTable() {
  const w = table();
  const giant = w.emu.addCharacter('Giant', { strength: 10, size: 'huge', ac: 11 });
  w.tokens.giant = w.emu.addToken({ name: 'Giant', represents: giant.id, bar1_value: '40', bar1_max: '40', showplayers_name: true });
  const ogre = w.emu.addCharacter('Ogre', { strength_mod: 3, size: 'large', ac: 11 });
  w.tokens.ogre = w.emu.addToken({ name: 'Ogre', represents: ogre.id, showplayers_name: true });
  return w;
}

test('ER Grappling: !fracas slam sends slam.roll: the grappler\'s size and Strength, the victim\'s size and resistances, --into a second target', () => {
  const { emu, tokens } = giantTable();
  const plainSlam = run(emu, emu.gm, `!fracas slam --target ${tokens.thief.id} --damage-type fire --seed 2`, [tokens.giant.id]);
  assert.equal(plainSlam.rpcs[0].method, 'slam.roll');
  assert.deepEqual(plainSlam.rpcs[0].params, {
    grappler: { id: tokens.giant.id, size: 'huge', strength: 10 },
    victim: { id: tokens.thief.id, size: 'medium' }, damage_type: 'fire', seed: 2,
  });
  assert.match(plainSlam.said, /no offline slam resolver: the bridge rolls it/);
  // Into the knight (its AC and blunt resistance from its sheet), 10 ft off, at advantage; the grappler's markers.
  tokens.giant.set('statusmarkers', 'poisoned');
  const into = run(emu, emu.gm, `!fracas slam --attacker ${tokens.giant.id} --target ${tokens.goblin.id} --into ${tokens.knight.id} ` +
    '--distance 10 --to-hit 2 --advantage --height 14 --seed 5');
  assert.deepEqual(into.rpcs[0].params, {
    grappler: { id: tokens.giant.id, size: 'huge', strength: 10, height: 14, conditions: ['poisoned'], to_hit: 2, advantage: true },
    victim: { id: tokens.goblin.id, size: 'medium', resistant: ['poison'] },
    into: { id: tokens.knight.id, ac: 15, size: 'medium', distance: 10, resistant: ['edged', 'blunt'] }, seed: 5,
  });
  // A sheet's Strength modifier is sent as such (ER-4); --ac stands in for a target's missing AC.
  const ogre = run(emu, emu.gm, `!fracas slam --target ${tokens.thief.id} --into ${tokens.orc.id} --ac 9 --height 10`, [tokens.ogre.id]);
  assert.deepEqual(ogre.rpcs[0].params.grappler, { id: tokens.ogre.id, size: 'large', strength_mod: 3, height: 10 });
  assert.deepEqual(ogre.rpcs[0].params.into, { id: tokens.orc.id, ac: 9, size: 'medium', distance: 5 });
  assertSafe(assert, emu);
});

test('bad input to slam (ER Grappling): a clear whisper naming the option; nothing is sent', () => {
  const { emu, tokens } = giantTable();
  const v = tokens.thief.id;
  const o = [tokens.giant.id];
  const cases = [
    [`!fracas slam`, o, /give the victim: --target @\{target\|token_id\}/],
    [`!fracas slam --target ${v}`, [], /select the attacking token, or give --attacker/],
    [`!fracas slam --target ${tokens.giant.id}`, o, /--target: the victim is another creature/],
    [`!fracas slam --target ${v} --into ${v}`, o, /--into: the second target is a third creature/],
    [`!fracas slam --target ${v} --distance 10`, o, /--distance is for the hurl into a second target: give --into TOKEN/],
    [`!fracas slam --target ${v} --advantage`, o, /--advantage is for the hurl into a second target/],
    [`!fracas slam --target ${v} --into nobody1`, o, /no token with the id "nobody1" \(--into\)/],
    [`!fracas slam --target ${v} --into ${tokens.orc.id}`, o, /Orc has no "ac" attribute: the hurl is against its AC/],
    [`!fracas slam --target ${v} --damage-type plasma`, o, /--damage-type takes alchemical, .* not "plasma"/],
    [`!fracas slam --target ${v} --height tall`, o, /--height/],
    [`!fracas slam --target ${v} --into ${tokens.knight.id} --distance 5000`, o, /--distance must be 0 to 1000, not 5000/],
    [`!fracas slam --target ${v}`, [tokens.goblin.id], /Goblin has no "strength" \(or "strength_mod"\) attribute: the slam's damage/],
    [`!fracas slam --target ${v} --style thrown`, o, /!fracas slam does not know --style \(it takes --attacker/],
  ];
  for (const [text, selected, pattern] of cases) {
    const r = run(emu, emu.gm, text, selected);
    assert.equal(r.rpcs.length, 0, `${text}: nothing is sent`);
    assert.match(r.said, pattern, text);
  }
  assert.deepEqual(Object.keys(emu.state.fracas.relay.pending), []);
  assertSafe(assert, emu);
});

test('ER Grappling answers: the bridge refuses a grappler not two sizes larger, told with names; nothing applied', () => {
  const { emu, tokens } = giantTable();
  const rpc = run(emu, emu.gm, `!fracas slam --target ${tokens.goblin.id}`, [tokens.orc.id]).rpcs[0];
  const out = relayAnswer(emu, { jsonrpc: '2.0', id: rpc.id, error: { code: -32001, message: `'${tokens.orc.id}' is medium`, data: { path: '$.grappler.size' } } });
  assert.match(out.map((x) => plain(x.text)).join('\n'), /\$\.grappler\.size: Orc is medium .* nothing was rolled or applied/);
  assert.equal(Number(tokens.goblin.get('bar1_value')), 12);
});

test('ER Grappling answers rolled by the engine: the victim\'s damage and the hurl\'s dice, hit and p_hit; both targets\' damage applied with one undo', (t) => {
  if (!H.pythonHasFracas()) return H.skipUnlessCI(t, `no Python with fracas at ${H.pythonPath()}`);
  const { emu, tokens } = giantTable();
  // The giant slams the goblin into Sir Kay (AC 15, resists blunt): 3, 11, 15 → the 15 hits; 4 → 2 for the knight.
  const rpc = run(emu, emu.gm, `!fracas slam --target ${tokens.goblin.id} --into ${tokens.knight.id} --distance 10 --rolls 3,11,15`, [tokens.giant.id]).rpcs[0];
  const result = bridgeRoll(rpc);
  const out = answer(emu, rpc, result);
  const f = Emulator.fields(card(out).text);
  assert.equal(f.name, 'Slam: slam into a target (Giant)');
  assert.equal(plain(f['Giant → Goblin']), '2 sizes larger, ten feet or taller (by its size) · Strength bonus +4\n' +
    'Goblin takes 4 blunt damage · damage applied · freed, placed within 10 ft');
  assert.equal(plain(f['the hurl']), 'hurled into Sir Kay (10 ft): 3 d20 +0 vs AC 15\ndice: 3✗ 11✗ 15✓ · hit ✓: 2 blunt damage (resistant) · Body 20 → 18');
  assert.equal(plain(f.odds), 'P(hit) 65.7% (657/1000)');
  assert.equal(Number(tokens.goblin.get('bar1_value')), 8);
  assert.equal(Number(tokens.knight.get('bar1_value')), 18);
  assert.deepEqual(answer(emu, rpc, result), [], 'applied once');
  emu.chat(emu.gm, `!fracas undo ${rpc.id}`);
  assert.deepEqual([Number(tokens.goblin.get('bar1_value')), Number(tokens.knight.get('bar1_value'))], [12, 20]);
  // A miss hurts the victim only; a plain slam rolls nothing and has no hurl row.
  const miss = run(emu, emu.gm, `!fracas slam --target ${tokens.goblin.id} --into ${tokens.knight.id} --rolls 1,2,3`, [tokens.giant.id]).rpcs[0];
  const m = Emulator.fields(card(answer(emu, miss, bridgeRoll(miss))).text);
  assert.match(plain(m['the hurl']), /dice: 1✗ 2✗ 3✗ · miss ✗$/);
  assert.deepEqual([Number(tokens.goblin.get('bar1_value')), Number(tokens.knight.get('bar1_value'))], [8, 20]);
  const lone = run(emu, emu.gm, `!fracas slam --target ${tokens.goblin.id}`, [tokens.giant.id]).rpcs[0];
  const l = Emulator.fields(card(answer(emu, lone, bridgeRoll(lone))).text);
  assert.equal(l['the hurl'], undefined);
  assert.equal(Number(tokens.goblin.get('bar1_value')), 4);
  assertSafe(assert, emu);
});

test('who may slam (ER Grappling): a player with a grappler they control, as attack; not another\'s, not typed numbers or dice', () => {
  const { emu, tokens, player } = giantTable();
  const g = tokens.goblin.id;
  assert.equal(run(emu, player, `!fracas slam --target ${g}`, [tokens.thief.id]).rpcs.length, 1);
  const refusals = [
    [`!fracas slam --target ${g}`, [tokens.giant.id], /you can attack only with a token you control/],
    [`!fracas slam --target ${g} --height 12`, [tokens.thief.id], /--height: players attack with .* --players-numbers on/],
    [`!fracas slam --target ${g} --into ${tokens.knight.id} --to-hit 9`, [tokens.thief.id], /--to-hit: players attack with .* --players-numbers on/],
    [`!fracas slam --target ${g} --seed 7`, [tokens.thief.id], /--seed: only the GM chooses the dice/],
    [`!fracas slam --target ${tokens.lurker.id}`, [tokens.thief.id], /players may target only tokens on the token layer/],
  ];
  for (const [text, selected, pattern] of refusals) {
    const r = run(emu, player, text, selected);
    assert.equal(r.rpcs.length, 0, `${text}: nothing is sent`);
    assert.match(r.said, pattern, text);
  }
  emu.chat(emu.gm, '!fracas config --players-attack off');
  assert.match(run(emu, player, `!fracas slam --target ${g}`, [tokens.thief.id]).said, /only the GM may attack/);
});
