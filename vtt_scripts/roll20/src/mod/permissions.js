'use strict';
// Who may do what. Players may attack (with tokens they control), but by default only
// the GM chooses the dice (--seed, --rolls), targets tokens off the token layer, or
// sees an NPC's Body on a public card. `!fracas config` turns each on for players.

const { UsageError } = require('./usage');
const { controls } = require('./tokens');

/** Refuse a player's --seed or --rolls unless `!fracas config --players-seed on`. */
function checkDice(app, msg, options) {
  if (app.isGM(msg) || app.s().config.players_seed) return;
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
  if (app.isGM(msg) || app.s().config.players_any_layer) return;
  if (token.get('layer') !== 'objects') {
    throw new UsageError(`--target ${id}: players may target only tokens on the token layer (the GM can allow ` +
      'others with !fracas config --players-any-layer on); nothing was rolled');
  }
}

/**
 * Refuse a player's own numbers (the options named in `given`) unless
 * `!fracas config --players-numbers on`: a player's attack uses the strikes the GM put on
 * the player's character sheet and the targets' sheets, not numbers typed in chat.
 */
function checkNumbers(app, msg, given) {
  if (app.isGM(msg) || app.s().config.players_numbers || !given.length) return;
  const names = Array.from(new Set(given)).map((n) => `--${n}`);
  throw new UsageError(`${names.join(', ')}: players attack with their character's strikes (the GM's "${app.s().config.attrs.strikes}" ` +
    'attribute) against their targets\' sheets; the GM can allow typed numbers with !fracas config --players-numbers on. ' +
    'Nothing was rolled');
}

/**
 * Whether a command's target numbers (`--ac`, `--target-FIELD`) replace `token`'s own: the
 * GM's always do; a player's (with --players-numbers on) only for a token with no character.
 */
function mayOverride(app, msg, token) {
  return app.isGM(msg) || !token.get('represents') || !app.edge.getCharacter(token.get('represents'));
}

/** The page a player is on: their own (Campaign playerspecificpages) or the players' page. */
function pageOf(app, playerId) {
  return app.edge.playerPage(playerId);
}

/**
 * Refuse a player's target (or attacker) on another page than the one the player is on,
 * and, with `--current-page` (TokenMod's option), anyone's target off the attacker's page.
 */
function checkPage(app, msg, token, id, option = '--target', page = null) {
  const own = token.get('_pageid') || token.get('pageid');
  if (page && own !== page) {
    throw new UsageError(`${option} ${id}: not on the attacker's page (--current-page); nothing was rolled`);
  }
  if (app.isGM(msg)) return;
  const here = pageOf(app, msg.playerid);
  if (here && own !== here) {
    throw new UsageError(`${option} ${id}: players may use only tokens on the page they are on; nothing was rolled`);
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
 * Mark, in `applied` (token id → what applyDamage did), the NPC targets whose Body a card
 * a player sees must not show (unless `!fracas config --show-npc-body on`): a public card,
 * or one whispered to a player who asked (`msg`, not the GM).
 */
function hideNpcBody(app, whisper, tokens, applied, msg = null) {
  if (app.s().config.show_npc_body) return applied;
  if (!isPublic(app, whisper) && !(msg && !app.isGM(msg))) return applied;
  for (const tid of Object.keys(applied)) {
    const token = tokens[tid] || app.edge.getGraphic(tid);
    const entries = Array.isArray(applied[tid]) ? applied[tid] : [applied[tid]];
    if (token && isNpc(app.edge, token)) for (const entry of entries) if (entry) entry.hidden = true;
  }
  return applied;
}

/**
 * Whether a player (`msg`, not the GM) may learn the Body on `token`'s bar: a token they
 * control, or one whose bar the GM shows players (showplayers_barN) and that is not an
 * NPC whose Body cards hide (--show-npc-body).
 */
function mayReadBody(app, msg, token) {
  if (app.isGM(msg)) return true;
  const config = app.s().config;
  if (controls(app.edge, msg.playerid, token)) return true;
  if (token.get(`showplayers_bar${config.bar}`) !== true) return false;
  return config.show_npc_body || !isNpc(app.edge, token);
}

/**
 * The names a card players see may show: a token on the GM layer is "a hidden creature"
 * (Roll20's turn tracker hides such tokens from players too). Returns {names, attacker}.
 */
function playerNames(names, tokens, attackerToken, attackerName) {
  const hidden = (token) => !!token && token.get('layer') === 'gmlayer';
  const seen = Object.assign({}, names);
  for (const tid of Object.keys(tokens)) if (hidden(tokens[tid])) seen[tid] = 'a hidden creature';
  return { names: seen, attacker: hidden(attackerToken) ? 'A hidden creature' : attackerName };
}

module.exports = { playerNames, mayReadBody, checkDice, checkTarget, checkNumbers, checkPage, mayOverride, isNpc, isPublic, hideNpcBody };
