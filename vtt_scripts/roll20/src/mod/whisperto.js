'use strict';
// How to address a Roll20 whisper (`/w <target> text`) so it reaches one player, whatever
// their display name. Roll20's `/w` reads its target as either a double-quoted name, up to
// the next `"`, or one word up to the first space (wiki "Text Chat", Whispers: "/w Robert
// ...", `/w "John Smith" ...`, quotation marks for a name with spaces); the target is a
// player's display name or a character's name, and a whisper to a character goes to every
// player in its "controlled by" list (same page). A bare word also reaches the one name it
// begins: real Mod scripts whisper a player by the first word of the display name
// (Roll20/roll20-api-scripts: Sequence/Sequence.js `/w ${displayname.split(' ')[0]}`,
// DSA4_1-CritChecker `'/w ' + name.split(' ')[0]`). No escape lets a quoted target hold a
// `"` (Earthdawn.js in the same repository warns "contains a double quote mark, which makes
// it impossible to send a whisper to that person"), so a name with one is reached, in order:
//   1. by its first word, when that word has no `"` and begins no other player's or
//      character's name (else the whisper could reach someone else);
//   2. by the name of a character only this player controls, quoted, when no other player or
//      character has that name;
//   3. not at all: the caller sends it to the GM, saying for whom.
// The test emulator (test/emulator.js) parses `/w` the same way and fails on a target that
// reaches nobody or more than one name.

const lower = (s) => String(s).toLowerCase();

/**
 * The `/w` target that reaches the player `playerId`, whose display name is `name`, only;
 * or null when none does. `game()` gives the campaign's names, asked only for a name that
 * cannot be quoted: { players: [{ id, name }] (display names), characters: [{ name,
 * controlledby }] } with `controlledby` Roll20's comma-separated player ids ('all': everyone).
 */
function whisperTarget(playerId, name, game) {
  name = String(name || '');
  const isGm = (s) => lower(s) === 'gm'; // `/w gm` whispers to the GMs (wiki "Text Chat")
  if (name && !name.includes('"') && !isGm(name)) return { to: `"${name}"`, via: 'name' };
  const { players, characters } = game();
  const names = [...players.map((p) => ({ name: lower(p.name), player: p.id })),
    ...characters.map((c) => ({ name: lower(c.name), player: null }))];
  const word = name.split(/\s/)[0];
  if (word && !word.includes('"') && !isGm(word)) {
    const begun = names.filter((n) => n.name.startsWith(lower(word)));
    if (begun.length === 1 && begun[0].player === playerId) return { to: word, via: 'word' };
  }
  for (const c of characters) {
    const owners = String(c.controlledby || '').split(',').map((s) => s.trim()).filter(Boolean);
    const cname = String(c.name || '');
    if (owners.length !== 1 || owners[0] !== playerId || !cname || cname.includes('"') || isGm(cname)) continue;
    if (names.filter((n) => n.name === lower(cname)).length === 1) return { to: `"${cname}"`, via: 'character', character: cname };
  }
  return null;
}

module.exports = { whisperTarget };
