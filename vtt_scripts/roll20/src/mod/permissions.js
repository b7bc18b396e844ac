'use strict';
// Who may do what. Players may attack (with tokens they control), but by default only
// the GM chooses the dice (--seed, --rolls), targets tokens off the token layer, or
// sees an NPC's Body on a public card. `!fracas config` turns each on for players.

const { UsageError } = require('./usage');

/** Refuse a player's --seed or --rolls unless `!fracas config --players-seed on`. */
function checkDice(app, msg, options) {
  if (app.edge.isGM(msg.playerid) || app.s().config.players_seed) return;
  const given = [];
  if (options.seed !== undefined) given.push('--seed');
  if (options.rolls) given.push('--rolls');
  if (given.length) {
    throw new UsageError(`${given.join(' and ')}: only the GM chooses the dice (the GM can allow it with ` +
      '!fracas config --players-seed on); nothing was rolled');
  }
}

/**
 * Refuse a player's target that is not on the token layer (a GM-layer token, a map
 * object) unless `!fracas config --players-any-layer on`. The refusal names the id the
 * player gave, never the token's name (a hidden token stays hidden).
 */
function checkTarget(app, msg, token, id) {
  if (app.edge.isGM(msg.playerid) || app.s().config.players_any_layer) return;
  if (token.get('layer') !== 'objects') {
    throw new UsageError(`--target ${id}: players may target only tokens on the token layer (the GM can allow ` +
      'others with !fracas config --players-any-layer on); nothing was rolled');
  }
}

function listed(value) {
  return String(value || '').split(',').map((x) => x.trim()).filter(Boolean);
}

/** Whether no player controls `token` (nor the character it represents): a GM's creature. */
function isNpc(edge, token) {
  if (listed(token.get('controlledby')).length) return false;
  const character = edge.getCharacter(token.get('represents'));
  return !character || !listed(character.get('controlledby')).length;
}

/** Whether a card posted now would be public (not whispered). */
function isPublic(app, whisper) {
  return !whisper && app.s().config.output === 'public';
}

/**
 * Mark, in `applied` (token id → what applyDamage did), the NPC targets whose Body a
 * public card must not show (unless `!fracas config --show-npc-body on`).
 */
function hideNpcBody(app, whisper, tokens, applied) {
  if (!isPublic(app, whisper) || app.s().config.show_npc_body) return applied;
  for (const tid of Object.keys(applied)) {
    const token = tokens[tid] || app.edge.getGraphic(tid);
    const entries = Array.isArray(applied[tid]) ? applied[tid] : [applied[tid]];
    if (token && isNpc(app.edge, token)) for (const entry of entries) if (entry) entry.hidden = true;
  }
  return applied;
}

module.exports = { checkDice, checkTarget, isNpc, isPublic, hideNpcBody };
