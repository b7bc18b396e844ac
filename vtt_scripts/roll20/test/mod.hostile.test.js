'use strict';
// Hostile names and arguments: every command and its options, run by the GM and by a
// player, with token, character and argument text built to become live Roll20 markup
// (HTML, an API button that would run as the GM when clicked, @{…}, %{…}, [[…]], a forged
// roll template field, quotes). No output may carry any of it unescaped. And a player
// asking for odds never learns an NPC's Body.
const test = require('node:test');
const assert = require('node:assert/strict');
const { world, plain, assertSafe } = require('./world');

const HOSTILE = 'Evil<b>B</b><img src=x onerror=alert(1)>[pwn](!fracas config --players-seed on)' +
  '@{selected|token_id}[[1d100]]{{name=HACK}}%{Orc|Attack}"q\'s`*|';
// Each piece that must never reach chat as it is.
const LIVE = ['<b>B', '<img', '[pwn](', '@{selected', '[[1d100]]', '{{name=HACK}}', '%{Orc'];

function hostileWorld() {
  const w = world();
  const { emu, tokens, characters } = w;
  for (const key of Object.keys(tokens)) tokens[key].set('name', `${HOSTILE} ${key}`);
  for (const key of Object.keys(characters)) characters[key].set('name', `${HOSTILE} ${key}`);
  const archer = emu.addCharacter(`${HOSTILE} archer`, { strength: 3, agility: 6,
    fracas_strikes: '--dice 1 --style archery --type piercing' }, { controlledby: w.player.id });
  w.tokens.archer = emu.addToken({ name: `${HOSTILE} archer token`, represents: archer.id, controlledby: w.player.id });
  w.tokens.bystander = emu.addToken({ name: `${HOSTILE} bystander`, represents: characters.goblin.id, bar1_value: '9', bar1_max: '9' });
  emu.campaign().set('turnorder', JSON.stringify([tokens.knight, tokens.goblin].map((t) => ({ id: t.id, pr: 5, custom: '' }))));
  return w;
}

function assertClean(emu, since, what) {
  for (const out of emu.outputs.slice(since)) {
    for (const piece of LIVE) assert.ok(!out.raw.includes(piece), `${what}: "${piece}" reached chat unescaped:\n${out.raw}`);
  }
  assertSafe(assert, emu);
}

test('every command and option with hostile names and arguments: no live markup in any output', () => {
  const { emu, tokens, player } = hostileWorld();
  const t = tokens;
  const gmCommands = [
    [`!fracas attack --target ${t.goblin.id} --dice 1 --style slashing --type edged --rolls 20,19,3`, [t.orc.id]],
    [`!fracas attack --target ${t.goblin.id} --dice 1 --style slashing --type edged --rolls 20,19,3 --whisper`, [t.orc.id]],
    [`!fracas attack --target ${t.goblin.id} --dice 1 --style archery --type piercing --cover three-quarters --nearby ${t.bystander.id} ${t.knight.id} --seed 3`, [t.archer.id]],
    [`!fracas odds --target ${t.goblin.id} --dice 1 --style archery --type piercing --cover three-quarters --nearby ${t.bystander.id} ${t.knight.id} --friendly-fire on`, [t.archer.id]],
    [`!fracas odds --target ${t.goblin.id} --count 2 --at-least 3`, [t.orc.id]],
    [`!fracas attack --ruleset old-school --target ${t.goblin.id} --damage 1d6 --attack-bonus 3 --target-ac 10 --seed 2`, [t.orc.id]],
    [`!fracas attack --ruleset worldwalker --target ${t.goblin.id} --damage 1d8 --target-defense 3 --seed 2`, [t.orc.id]],
    [`!fracas attack --ruleset cartyrion --target ${t.goblin.id} --die d6 --target-dex 1 --seed 2`, [t.orc.id]],
    [`!fracas compete --contest grapple --defender ${t.knight.id} --seed 4`, [t.orc.id]],
    [`!fracas impale --charger ${t.goblin.id} --closed 30 --forte --seed 5`, [t.knight.id]],
    ['!fracas init --seed 2', [t.orc.id, t.goblin.id, t.knight.id]],
    [`!fracas mob --target ${t.goblin.id}`, [t.orc.id]],
    ['!fracas round --new --seed 1', []],
    ['!fracas undo', []], ['!fracas undo', []], ['!fracas undo', []],
    ['!fracas help', []], ['!fracas config', []], ['!fracas relay', []],
    // Hostile arguments: ids, option values, unknown options and commands are quoted back.
    [`!fracas attack --target ${HOSTILE} --dice 1 --style slashing --type edged`, [t.orc.id]],
    [`!fracas attack --target ${t.goblin.id} --dice 1 --style ${HOSTILE} --type edged`, [t.orc.id]],
    [`!fracas attack --target ${t.goblin.id} --use ${HOSTILE}`, [t.orc.id]],
    [`!fracas attack --attacker ${HOSTILE} --target ${t.goblin.id}`, []],
    [`!fracas attack --target ${t.goblin.id} --${HOSTILE} 1`, [t.orc.id]],
    [`!fracas odds --ruleset ${HOSTILE} --target ${t.goblin.id}`, [t.orc.id]],
    [`!fracas ${HOSTILE}`, []],
    [`!fracas config --attr ac=${HOSTILE}`, []], [`!fracas config --marker prone=${HOSTILE}`, []],
    [`!fracas config --output ${HOSTILE}`, []], [`!fracas config ${HOSTILE}`, []],
    [`!fracas request ${HOSTILE}`, []], [`!fracas resend ${HOSTILE}`, []],
    [`!fracas journal ${HOSTILE}`, []], [`!fracas replay ${HOSTILE}`, []],
    [`!fracas round --${HOSTILE}`, []], [`!fracas compete --contest ${HOSTILE} --defender ${t.knight.id}`, [t.orc.id]],
    [`!fracas init --${HOSTILE}`, [t.orc.id]],
  ];
  let ran = 0;
  for (const [command, selected] of gmCommands) {
    const since = emu.outputs.length;
    emu.chat(emu.gm, command, { selected });
    assert.ok(emu.outputs.length > since, `${command}: no answer`);
    assertClean(emu, since, command);
    ran += 1;
  }
  // The attack log's request: its card shows ids and request JSON as text.
  const id = emu.state.fracas.log[0].id;
  let since = emu.outputs.length;
  emu.chat(emu.gm, `!fracas request ${id}`);
  assertClean(emu, since, 'request');
  // A player: their own archer and knight, odds and attacks, refusals quoting their text.
  emu.chat(emu.gm, '!fracas config --players-numbers on');
  for (const [command, selected] of [
    [`!fracas attack --target ${t.goblin.id}`, [t.knight.id]],
    [`!fracas attack --target ${t.goblin.id} --nearby ${t.bystander.id} --cover three-quarters`, [t.archer.id]],
    [`!fracas odds --target ${t.goblin.id} --nearby ${t.bystander.id} --friendly-fire on --cover three-quarters`, [t.archer.id]],
    [`!fracas attack --target ${t.goblin.id}`, [t.orc.id]],
    [`!fracas undo ${HOSTILE}`, []], [`!fracas help ${HOSTILE}`, []],
  ]) {
    since = emu.outputs.length;
    emu.chat(player, command, { selected });
    assert.ok(emu.outputs.length > since, `${command}: no answer`);
    assertClean(emu, since, `player: ${command}`);
    ran += 1;
  }
  assert.ok(ran > 40);
  // The friendly-fire rows were among them, and named the bystander as text.
  assert.ok(emu.outputs.some((o) => /stray of strike 1/.test(o.text) && plain(o.text).includes(`${HOSTILE} bystander`)));
});

test("!fracas odds never shows a player an NPC's Body, nor a bar the GM hides; the GM sees both", () => {
  const { emu, tokens, player } = world();
  const odds = (who, selected) => plain(emu.chat(who, `!fracas odds --target ${tokens.goblin.id}`, { selected }).map((o) => o.text).join('\n'));
  assert.match(odds(emu.gm, [tokens.orc.id]), /P\(drops, 12 left\)/);
  const seen = odds(player, [tokens.knight.id]);
  assert.match(seen, /P\(hit\)/);
  assert.ok(!/left\)|drops/.test(seen), seen);
  // Shown bar, but an NPC: still hidden unless the GM shows NPCs' Body.
  tokens.goblin.set('showplayers_bar1', true);
  assert.ok(!/drops/.test(odds(player, [tokens.knight.id])));
  emu.chat(emu.gm, '!fracas config --show-npc-body on');
  assert.match(odds(player, [tokens.knight.id]), /P\(drops, 12 left\)/);
  // And a whispered attack card to the player hides the NPC's Body like a public one.
  emu.chat(emu.gm, '!fracas config --show-npc-body off');
  const card = emu.chat(player, `!fracas attack --target ${tokens.goblin.id} --whisper`, { selected: [tokens.knight.id] });
  const toPlayer = card.filter((o) => o.to !== 'gm');
  assert.ok(toPlayer.length >= 1);
  for (const out of toPlayer) assert.ok(!/Body \d+ →/.test(plain(out.text)), plain(out.text));
  // The GM's own copy keeps the numbers.
  assert.ok(card.some((o) => o.to === 'gm' && /Body 12 →/.test(plain(o.text))));
  assertSafe(assert, emu);
});
