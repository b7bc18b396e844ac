'use strict';
// The trust model (README "Who may do what"): a command another Mod script sends is not
// the GM's; a player's attack uses the player's character and the targets' sheets; a
// player reaches only the page they are on. The forwarder below stands in for ScriptCards,
// which re-sends a player's text with sendChat(msg.who, …): in the strict emulator its
// message comes back to fracas from playerid 'API', as on Roll20.
const test = require('node:test');
const assert = require('node:assert/strict');
const { world, notices, plain, assertSafe, relayRequests, relayAnswer } = require('./world');
const { Emulator } = require('./emulator');

const FORWARDER = {
  name: 'forwarder.js',
  source: `on('chat:message', (msg) => {
    if (msg.type === 'api' && msg.content.startsWith('!fwd ')) sendChat(msg.who, '!' + msg.content.slice(5));
  });`,
};

function table() {
  const w = world({ scripts: [FORWARDER] });
  w.lastLog = () => w.emu.state.fracas.log[w.emu.state.fracas.log.length - 1];
  return w;
}

test('a command forwarded by another script cannot change config, undo, or touch the relay secret', () => {
  const { emu, player, tokens } = table();
  const secret = emu.state.fracas.relay.secret;
  // Something to undo.
  emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --rolls 20,19,3`, { selected: [tokens.orc.id] });
  const undoable = emu.state.fracas.undo.length;
  assert.equal(undoable, 1);
  for (const command of ['config --players-seed on', 'config --players-any-layer on', 'config --trust-scripts on', 'undo',
    'relay --secret', 'relay --new-secret', `config --players-numbers on --api-as ${emu.gm.id}`]) {
    const out = emu.chat(player, `!fwd fracas ${command}`);
    const said = out.map((o) => plain(o.text)).join('\n');
    assert.match(said, /is for the GM/, command);
    assert.ok(!said.includes(secret), `${command} showed the secret`);
  }
  const config = emu.state.fracas.config;
  assert.deepEqual([config.players_seed, config.players_any_layer, config.trust_scripts, config.players_numbers],
    [false, false, false, false]);
  assert.equal(emu.state.fracas.undo.length, undoable);
  assert.equal(emu.state.fracas.relay.secret, secret);
  // A player typing --api-as themselves is refused: it is for scripts.
  const own = emu.chat(player, `!fracas attack --api-as ${emu.gm.id} --target ${tokens.goblin.id}`, { selected: [tokens.orc.id] });
  assert.match(plain(own[0].text), /--api-as is for commands other Mod scripts send/);
  // The GM can trust scripts; then the forwarded GM command works.
  emu.chat(emu.gm, '!fracas config --trust-scripts on');
  emu.chat(emu.gm, '!fwd fracas config --players-seed on');
  assert.equal(emu.state.fracas.config.players_seed, true);
  assertSafe(assert, emu);
});

test("a forwarded attack acts for the --api-as player, with that player's character's numbers only", () => {
  const { emu, player, tokens, lastLog } = table();
  // No --api-as: the script acts for nobody, who controls no token (not even the GM's Orc).
  let out = emu.chat(player, `!fwd fracas attack --attacker ${tokens.orc.id} --target ${tokens.knight.id}`);
  assert.match(plain(out[0].text), /only with a token you control/);
  assert.equal(tokens.knight.get('bar1_value'), '20');
  // As the player: their own knight, their sheet's strikes; typed numbers are refused.
  out = emu.chat(player, `!fwd fracas attack --api-as ${player.id} --attacker ${tokens.orc.id} --target ${tokens.knight.id}`);
  assert.match(plain(out[0].text), /only with a token you control/);
  for (const typed of ['--bonus 100', '--dice 5 --style cleaving --weight 2 --type edged', '--crit-range 2', '--ac -100', '--adv',
    '--cover none', '--nearby ' + tokens.orc.id]) {
    out = emu.chat(player, `!fwd fracas attack --api-as ${player.id} --attacker ${tokens.knight.id} --target ${tokens.goblin.id} ${typed}`);
    assert.match(plain(out[0].text), /players attack with their character's strikes/, typed);
    assert.equal(tokens.goblin.get('bar1_value'), '12', typed);
  }
  const before = emu.state.fracas.log.length;
  out = emu.chat(player, `!fwd fracas attack --api-as ${player.id} --attacker ${tokens.knight.id} --target ${tokens.goblin.id}`);
  assert.equal(emu.state.fracas.log.length, before + 1, out.map((o) => plain(o.text)).join('\n'));
  const request = JSON.parse(JSON.stringify(lastLog().request));
  assert.deepEqual(request.strikes.map((s) => [s.dice, s.style, s.damage_type, s.bonus === undefined ? null : s.bonus]), [[2, 'slashing', 'edged', null]]);
  assert.equal(request.targets[tokens.goblin.id].ac, 13, "the goblin's sheet AC");
  assertSafe(assert, emu);
});

test('--ac and --target-FIELD never replace a sheet for a player; the GM may; a player reaches only their page', () => {
  const { emu, player, tokens, lastLog } = table();
  emu.chat(emu.gm, '!fracas config --players-numbers on');
  // Typed numbers allowed, but --ac stays for tokens without a character.
  emu.chat(player, `!fracas attack --target ${tokens.goblin.id} --ac -100`, { selected: [tokens.knight.id] });
  assert.equal(lastLog().request.targets[tokens.goblin.id].ac, 13);
  emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --ac 2 --dice 1 --style slashing --type edged`, { selected: [tokens.orc.id] });
  assert.equal(lastLog().request.targets[tokens.goblin.id].ac, 2);
  emu.create('attribute', { _characterid: tokens.goblin.get('represents'), name: 'fracas_ac', current: '12' });
  const wwBefore = emu.state.fracas.log.length;
  emu.chat(player, `!fracas attack --ruleset old-school --target ${tokens.goblin.id} --target-ac -50 --damage 1d6`, { selected: [tokens.knight.id] });
  assert.equal(emu.state.fracas.log.length, wwBefore + 1);
  assert.equal(lastLog().request.targets[tokens.goblin.id].ac, 12, "the goblin's fracas_ac, not the player's --target-ac");

  // Another page: the player's knight cannot reach a token there; the GM can, unless --current-page.
  emu.create('page', { _id: 'page-2', name: 'Cellar' });
  const cellar = emu.addToken({ _pageid: 'page-2', name: 'Rat', represents: emu.addCharacter('Rat', { ac: 5 }).id, bar1_value: '3', bar1_max: '3' });
  let out = emu.chat(player, `!fracas attack --target ${cellar.id}`, { selected: [tokens.knight.id] });
  assert.match(plain(out[0].text), /players may use only tokens on the page they are on/);
  assert.ok(!plain(out[0].text).includes('Rat'));
  assert.equal(cellar.get('bar1_value'), '3');
  out = emu.chat(emu.gm, `!fracas attack --target ${cellar.id} --current-page`, { selected: [tokens.orc.id] });
  assert.match(plain(out[0].text), /not on the attacker's page \(--current-page\)/);
  out = emu.chat(emu.gm, `!fracas attack --ruleset old-school --target ${cellar.id} --damage 1d4 --current-page`, { selected: [tokens.orc.id] });
  assert.match(plain(out[0].text), /not on the attacker's page \(--current-page\)/);
  emu.chat(emu.gm, `!fracas attack --target ${cellar.id} --no-apply`, { selected: [tokens.orc.id] });
  assert.ok(lastLog().request.targets[cellar.id]);
  // Split party: the player is moved to the cellar; now the main page is out of reach (and so is the knight).
  emu.campaign().set('playerspecificpages', { [player.id]: 'page-2' });
  out = emu.chat(player, `!fracas attack --target ${tokens.goblin.id}`, { selected: [tokens.knight.id] });
  assert.match(plain(out[0].text), /players may use only tokens on the page they are on/);
  assert.deepEqual(notices(out).length, 1);
  assertSafe(assert, emu);
});

test("public cards: a GM-layer token is left out of initiative, 'a hidden creature' on an attack, and GM buttons go only to the GM", () => {
  const { emu, tokens } = table();
  tokens.goblin.set('layer', 'gmlayer');
  tokens.goblin.set('name', 'Hidden Ogre');
  const out = emu.chat(emu.gm, '!fracas init --seed 2', { selected: [tokens.orc.id, tokens.goblin.id] });
  const pub = out.filter((o) => !o.to).map((o) => o.raw).join('\n');
  const gm = out.filter((o) => o.to === 'gm').map((o) => plain(o.text)).join('\n');
  // Roll20's turn tracker hides a GM-layer token's entry from players: so does the card (no
  // name, no "hidden creature" row, one row only).
  assert.ok(pub.length && !pub.includes('Hidden Ogre') && !/hidden creature/i.test(pub), pub);
  assert.ok(/1\. /.test(plain(pub)) && !/2\. /.test(plain(pub)), pub);
  assert.ok(/1\. /.test(gm) && /2\. /.test(gm), gm);
  assert.ok(!pub.includes('](!fracas'), pub);
  assert.ok(gm.includes('Hidden Ogre'), gm);
  // The other rulesets' cards too.
  emu.create('attribute', { _characterid: tokens.goblin.get('represents'), name: 'fracas_ac', current: '12' });
  const os = emu.chat(emu.gm, `!fracas attack --ruleset old-school --target ${tokens.goblin.id} --damage 1d6 --seed 3`, { selected: [tokens.orc.id] });
  const osPub = os.filter((o) => !o.to).map((o) => o.raw).join('\n');
  assert.ok(osPub.length && !osPub.includes('Hidden Ogre') && osPub.includes('a hidden creature') && !osPub.includes('](!fracas'), osPub);
  assert.ok(os.some((o) => o.to === 'gm' && plain(o.text).includes('Hidden Ogre')));
  assertSafe(assert, emu);
});

test("public cards of compete, impale and mob: a GM-layer token is 'a hidden creature'; the GM's whisper names it", () => {
  const { emu, tokens } = table();
  tokens.goblin.set('layer', 'gmlayer');
  tokens.goblin.set('name', 'Hidden Ogre');
  emu.create('attribute', { _characterid: tokens.goblin.get('represents'), name: 'strength', current: '5' });
  const ambusher = emu.addCharacter('Secret Assassin', { strength: 4, agility: 4,
    fracas_strikes: '--dice 1 --style slashing --weight 1 --type edged' });
  const hiddenMob = [1, 2].map((n) => emu.addToken({ name: `Secret Assassin ${n}`, represents: ambusher.id, layer: 'gmlayer' }));
  const check = (what, out) => {
    const pub = out.filter((o) => !o.to).map((o) => o.raw).join('\n');
    const gm = out.filter((o) => o.to === 'gm').map((o) => plain(o.text)).join('\n');
    assert.ok(pub.length, `${what}: no public card`);
    assert.ok(!/Hidden Ogre|Secret Assassin/.test(pub), `${what} names a GM-layer token in public: ${pub}`);
    assert.match(pub, /a hidden creature|hidden creatures/i, what);
    assert.match(gm, /Hidden Ogre|Secret Assassin/, `${what}: the GM's whisper names it`);
  };
  check('compete (defender)', emu.chat(emu.gm, `!fracas compete --contest grapple --defender ${tokens.goblin.id} --seed 1`, { selected: [tokens.orc.id] }));
  check('compete (challenger)', emu.chat(emu.gm, `!fracas compete --contest grapple --challenger ${tokens.goblin.id} --defender ${tokens.knight.id} --seed 1`));
  check('impale', emu.chat(emu.gm, `!fracas impale --charger ${tokens.goblin.id} --closed 30 --seed 1`, { selected: [tokens.orc.id] }));
  // A mob: a hidden target (the ogre) and hidden attackers (the assassins), the card from the bridge's answer.
  const sent = emu.chat(emu.gm, `!fracas mob --target ${tokens.goblin.id} --target ${tokens.knight.id} --each`, { selected: hiddenMob.map((t) => t.id) });
  const rpc = relayRequests(sent)[0];
  assert.equal(rpc.method, 'attack.bulk');
  const result = { ruleset: 'enchanted-realms', seed: 7, backend: 'compiled', detail: 'summary', targets: {}, groups: [] };
  for (const id of [tokens.goblin.id, tokens.knight.id]) {
    result.targets[id] = { damage: 2, by_type: { edged: 2 }, attacks: 2, attacks_hit: 1, strikes: 2, strikes_hit: 1, crits: 0, longest_chain: 0, undodgeable: 0 };
  }
  check('mob', relayAnswer(emu, { jsonrpc: '2.0', id: rpc.id, result }));
  assertSafe(assert, emu);
});

test("a mob's attackers whose nameplates players do not see are 'unnamed creatures' on the public card; the GM's card names them (issue 39 item 11)", () => {
  const { emu, tokens } = table();
  // showplayers_name off is Roll20's default for a new token (API:Objects, Graphic; test/world.js).
  const prowler = emu.addCharacter('Night Prowler', { strength: 4, agility: 4,
    fracas_strikes: '--dice 1 --style slashing --weight 1 --type edged' });
  const pack = [1, 2].map((n) => emu.addToken({ name: `Night Prowler ${n}`, represents: prowler.id }));
  const sent = emu.chat(emu.gm, `!fracas mob --target ${tokens.knight.id}`, { selected: pack.map((t) => t.id) });
  const rpc = relayRequests(sent)[0];
  assert.equal(rpc.method, 'attack.bulk');
  const result = { ruleset: 'enchanted-realms', seed: 7, backend: 'compiled', detail: 'summary', groups: [], targets: {
    [tokens.knight.id]: { damage: 2, by_type: { edged: 2 }, attacks: 2, attacks_hit: 1, strikes: 2, strikes_hit: 1, crits: 0,
      longest_chain: 0, undodgeable: 0 } } };
  const out = relayAnswer(emu, { jsonrpc: '2.0', id: rpc.id, result });
  const pub = out.filter((o) => !o.to).map((o) => o.raw).join('\n');
  const gm = out.filter((o) => o.to === 'gm').map((o) => plain(o.text)).join('\n');
  assert.ok(pub.length, 'no public card');
  assert.ok(!pub.includes('Night Prowler'), `the public card names an unnamed attacker: ${pub}`);
  assert.match(pub, /unnamed creatures/, pub);
  assert.match(gm, /Night Prowler/, `the GM's card names them: ${gm}`);
  assertSafe(assert, emu);
});

test('--help on every command whispers that command\'s help and runs nothing', () => {
  const { emu, player, tokens } = table();
  const { COMMANDS } = require('../src/mod/app');
  for (const name of Object.keys(COMMANDS)) {
    for (const who of [emu.gm, player]) {
      const before = JSON.stringify(emu.state.fracas);
      const out = emu.chat(who, `!fracas ${name} --help`, { selected: [tokens.knight.id] });
      assert.equal(out.length, 1, name);
      assert.match(plain(out[0].text), new RegExp(`^fracas ${name}!fracas ${name}`), name);
      assert.equal(JSON.stringify(emu.state.fracas), before, `${name} --help changed state`);
    }
  }
});

test('whispers reach a player by quoted display name; a name Roll20 cannot quote goes to the GM, saying for whom', () => {
  const { emu, tokens, player } = table();
  const odds = () => emu.chat(player, `!fracas odds --target ${tokens.goblin.id}`, { selected: [tokens.knight.id] });
  player.data._displayname = 'Pat the Bold';
  let out = odds();
  assert.equal(out[0].to, 'pat the bold');
  assert.deepEqual(out[0].players, [player.id]);
  assert.ok(out[0].raw.startsWith('/w "Pat the Bold" '));
  // A double quote cannot be quoted in /w: the first word reaches the player when it begins no other name.
  player.data._displayname = 'Bob "The Axe" Jones';
  out = odds();
  assert.equal(out.length, 1);
  assert.ok(out[0].raw.startsWith('/w Bob &{template:default} {{name=Odds: Sir Kay'), out[0].raw);
  assert.deepEqual(out[0].players, [player.id]);
  // A second player whose name begins "Bob": the word would be ambiguous, so the character
  // only Bob controls (Knight) carries the whisper.
  emu.addPlayer('Bobby');
  out = odds();
  assert.ok(out[0].raw.startsWith('/w "Knight" '), out[0].raw);
  assert.deepEqual(out[0].players, [player.id]);
  // Only quotes: no first word to use; the character still reaches them.
  player.data._displayname = '"""';
  out = odds();
  assert.ok(out[0].raw.startsWith('/w "Knight" '), out[0].raw);
  assert.deepEqual(out[0].players, [player.id]);
  assertSafe(assert, emu);
});

test('a player Roll20 cannot whisper to: the GM gets their whispers, saying for whom, and is told why once', () => {
  const { emu, tokens, player, characters } = table();
  const odds = () => emu.chat(player, `!fracas odds --target ${tokens.goblin.id}`, { selected: [tokens.knight.id] });
  player.data._displayname = 'Pat "the <b>Bold</b>"';
  emu.addPlayer('Patricia');
  // Knight shared with another player would reach them too: not a way to reach Pat alone.
  const other = emu.addPlayer('Quinn');
  characters.knight.set('controlledby', `${player.id},${other.id}`);
  let out = odds();
  assert.deepEqual(out.map((o) => o.to), ['gm', 'gm']);
  assert.match(plain(out[0].text), /^Roll20 cannot whisper to the player Pat "the <b>Bold<\/b>": a display name with a double quote/);
  assert.ok(out[1].text.startsWith('&{template:default} {{name=Odds: Sir Kay'), out[1].text);
  assert.equal(plain(Emulator.fields(out[1].text).note), 'for Pat "the <b>Bold</b>"');
  out = odds();
  assert.deepEqual(out.map((o) => o.to), ['gm'], 'told once');
  assert.equal(plain(Emulator.fields(out[0].text).note), 'for Pat "the <b>Bold</b>"');
  assertSafe(assert, emu);
});

test("a target's unreadable sheet value is the GM's: the player is told whose sheet, the GM the value", () => {
  const { emu, tokens, player } = table();
  emu.attribute(tokens.goblin.get('represents'), 'ac').set('current', '13 (secret 7)');
  const out = emu.chat(player, `!fracas attack --target ${tokens.goblin.id}`, { selected: [tokens.knight.id] });
  const toPlayer = out.filter((o) => o.to === 'pat').map((o) => plain(o.text)).join('\n');
  const toGm = out.filter((o) => o.to === 'gm').map((o) => plain(o.text)).join('\n');
  assert.match(toPlayer, /Goblin's sheet has a value fracas cannot use; the GM has been told/);
  assert.ok(!toPlayer.includes('secret'), toPlayer);
  assert.match(toGm, /Goblin: the attribute "ac" is "13 \(secret 7\)", not a whole number/);
  // The player's own sheet: they see the value.
  emu.attribute(tokens.goblin.get('represents'), 'ac').set('current', '13');
  emu.attribute(tokens.knight.get('represents'), 'strength').set('current', 'strong');
  const own = emu.chat(player, `!fracas attack --target ${tokens.goblin.id}`, { selected: [tokens.knight.id] });
  assert.match(plain(own[0].text), /Sir Kay: the attribute "strength" is "strong"/);
  // Engine errors name the target in table words, for whoever the command acts for.
  emu.attribute(tokens.goblin.get('represents'), 'resilience').set('current', '9999999');
  const engine = emu.chat(emu.gm, `!fracas attack --target ${tokens.goblin.id} --dice 1 --style slashing --type edged`, { selected: [tokens.orc.id] });
  assert.match(plain(engine[0].text), /target Goblin\.save_bonus: save bonus 9999999 is out of range/);
  assertSafe(assert, emu);
});
