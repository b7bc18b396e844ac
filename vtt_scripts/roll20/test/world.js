'use strict';
// A small table for the Mod script tests: an orc, a goblin, an archer, a player.
const { Emulator } = require('./emulator');
const { hasExpansion } = require('../src/mod/escape');
const P = require('../src/protocol');

function world(options = {}) {
  const emu = new Emulator(options);
  const player = emu.addPlayer('Pat');
  const orc = emu.addCharacter('Orc', {
    strength: 6, agility: 3, size: 'medium',
    fracas_strikes: '--dice 2 --style cleaving --weight 2 --type edged',
  });
  const goblin = emu.addCharacter('Goblin', { ac: 13, resistant: 'poison', resilience: 2, agility: 4 });
  const knight = emu.addCharacter('Knight', { ac: 15, ac_edged: 18, resistant: 'edged, blunt', agility: 2, strength: 5,
    fracas_strikes: '--dice 2 --style slashing --type edged' },
    { controlledby: player.id });
  // Nameplates players see (showplayers_name: Roll20's default is off), and the party's Body
  // bar with its numbers shown to everyone (showplayers_bar1, bar1_num_permission 'everyone'),
  // as a GM sets them up; the goblin's bar numbers stay editors-only (Roll20's default).
  const named = { showplayers_name: true };
  const tokens = {
    orc: emu.addToken({ name: 'Orc', represents: orc.id, ...named }),
    goblin: emu.addToken({ name: 'Goblin', represents: goblin.id, bar1_value: '12', bar1_max: '12', ...named }),
    knight: emu.addToken({ name: 'Sir Kay', represents: knight.id, bar1_value: '20', bar1_max: '20', controlledby: player.id, ...named,
      showplayers_bar1: true, bar1_num_permission: 'everyone' }),
  };
  return { emu, player, characters: { orc, goblin, knight }, tokens };
}

/**
 * The one output of a chat command that is a roll template card (beside a public card, the
 * GM's whispered companion card, titled "… (GM)", is left out: gmCard() gives it).
 */
function card(outputs) {
  let cards = outputs.filter((o) => o.text.startsWith('&{template:default}'));
  if (cards.length > 1) cards = cards.filter((o) => !/^&\{template:default\} \{\{name=[^}]* \(GM\)\}\}/.test(o.text));
  if (cards.length !== 1) throw new Error(`expected one card, got ${cards.length}: ${outputs.map((o) => o.raw).join('\n')}`);
  return cards[0];
}

/** The GM's whispered companion card beside a public card, or null. */
function gmCard(outputs) {
  const found = outputs.filter((o) => o.to === 'gm' && /^&\{template:default\} \{\{name=[^}]* \(GM\)\}\}/.test(o.text));
  if (found.length > 1) throw new Error(`expected at most one GM card, got ${found.length}`);
  return found[0] || null;
}

/** Whispered notices of some outputs, as plain text. */
function notices(outputs) {
  return outputs.filter((o) => o.to).map((o) => plain(o.text));
}

/** Text of chat HTML without tags and with entities decoded. */
function plain(html) {
  return html.replace(/<br>/g, '\n').replace(/<[^>]+>/g, '').replace(/&#(\d+);/g, (m, n) => String.fromCharCode(Number(n)))
    .replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** Every output so far is safe: nothing Roll20 would expand, balanced template fields. */
function assertSafe(assert, emu) {
  for (const out of emu.outputs) {
    assert.ok(!hasExpansion(out.raw), `output expands in Roll20: ${out.raw}`);
    if (out.text.startsWith('&{template:')) {
      assert.equal((out.text.match(/\{\{/g) || []).length, (out.text.match(/\}\}/g) || []).length, `unbalanced fields: ${out.text}`);
    }
  }
}

/**
 * The JSON-RPC requests the Mod whispered as relay frames among `outputs`: their texts
 * (as the relay would forward them), each checked to go to the GM only and unarchived.
 */
function relayTexts(outputs) {
  const r = new P.Reassembler();
  const out = [];
  for (const o of outputs) {
    const frame = P.parseFrame(o.text);
    if (!frame) continue;
    if (o.to !== 'gm' || !o.noarchive) throw new Error(`a relay frame went to ${o.to} (archived: ${!o.noarchive})`);
    const whole = r.add(frame);
    if (whole) out.push(whole.text);
  }
  return out;
}

/** The same requests, decoded. */
function relayRequests(outputs) {
  return relayTexts(outputs).map((text) => JSON.parse(text));
}

/** The relay's answer `message`, typed into chat by the GM's browser (`player`, default the GM). */
function relayAnswer(emu, message, player = emu.gm, chunk = 300) {
  const outs = [];
  for (const frame of P.frames('res', message.id, JSON.stringify(message), chunk, emu.state.fracas.relay.secret)) {
    outs.push(...emu.chat(player, `!fracas-relay ${frame}`));
  }
  return outs;
}

module.exports = { world, card, gmCard, notices, plain, assertSafe, relayTexts, relayRequests, relayAnswer };
