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
 * Who sees the numbers on a token's bar `bar` on the tabletop (Roll20's "bar permission",
 * barN_num_permission: '' editors only, the default; 'hidden' nobody; 'everyone' everyone who
 * sees the bar: TokenMod.js lines 2312 and 336-345). Players who are not editors see a bar at
 * all only when showplayers_barN is on (API:Objects, Graphic).
 */
function barNumbers(token, bar) {
  const perm = token.get(`bar${bar}_num_permission`);
  if (perm === 'hidden') return 'nobody';
  if (perm === 'everyone' && token.get(`showplayers_bar${bar}`) === true) return 'everyone';
  return 'editors';
}

/**
 * Whether every player may learn the Body on `token`'s bar. A GM's creature (an NPC): only with
 * `--show-npc-body on`, the GM's choice for cards, and not when its bar numbers are hidden even
 * from editors ('hidden'). A player's token: when Roll20 shows its bar numbers to every player
 * (showplayers_barN on and barN_num_permission 'everyone'), or all players control it.
 */
function everyoneReadsBody(app, token) {
  const config = app.s().config;
  if (isNpc(app.edge, token)) return !!config.show_npc_body && barNumbers(token, config.bar) !== 'nobody';
  return listed(token.get('controlledby')).includes('all') || barNumbers(token, config.bar) === 'everyone';
}

/**
 * Whether a player (`msg`, not the GM) may learn the Body on `token`'s bar: a token they
 * control (they edit its bar), or one whose Body every player may read (everyoneReadsBody).
 */
function mayReadBody(app, msg, token) {
  if (app.isGM(msg)) return true;
  if (controls(app.edge, msg.playerid, token)) return true;
  return everyoneReadsBody(app, token);
}

/**
 * The `applied` (token id → what applyDamage did, or a list of them) of a card players see:
 * a copy in which the Body of a token they may not read is marked `hidden` (the card then
 * says the damage was applied, not the numbers). A public card shows only the Body every
 * player may read (everyoneReadsBody); one whispered to a player who asked (`msg`, not the
 * GM), what that player may read (mayReadBody). The GM's card keeps `applied` whole.
 */
function hideBody(app, whisper, tokens, applied, msg = null) {
  const out = {};
  const pub = isPublic(app, whisper);
  const player = !pub && msg && !app.isGM(msg) ? msg : null;
  for (const tid of Object.keys(applied || {})) {
    const token = (tokens && tokens[tid]) || app.edge.getGraphic(tid);
    const hide = !!token && (pub ? !everyoneReadsBody(app, token) : player ? !mayReadBody(app, player, token) : false);
    const copy = (entry) => (entry && typeof entry === 'object' ? Object.assign({}, entry, hide ? { hidden: true } : {}) : entry);
    out[tid] = Array.isArray(applied[tid]) ? applied[tid].map(copy) : copy(applied[tid]);
  }
  return out;
}

/**
 * How players know `token` when its name must not show, or null when they may read its name:
 * a token on the GM layer is "a hidden creature" (Roll20's turn tracker hides such tokens from
 * players too); a GM's creature whose nameplate players do not see (showplayers_name off,
 * Roll20's default: API:Objects, Graphic; TokenMod.js line 21 sets it) is "an unnamed
 * creature". A player's token is named: its players know it (`edge` tells; without it, only
 * the token's own controlledby).
 */
function unnamedAs(token, edge) {
  if (!token || typeof token.get !== 'function') return null;
  if (token.get('layer') === 'gmlayer') return 'a hidden creature';
  if (token.get('showplayers_name') === true) return null;
  const npc = edge ? isNpc(edge, token) : !listed(token.get('controlledby')).length;
  return npc ? 'an unnamed creature' : null;
}

/**
 * The names a card players see may show (unnamedAs), numbered when several tokens on one card
 * go unnamed ("an unnamed creature (2)"). Returns {names, attacker}.
 */
function playerNames(names, tokens, attackerToken, attackerName, edge = null) {
  const seen = Object.assign({}, names);
  const ids = Object.keys(tokens).filter((tid) => unnamedAs(tokens[tid], edge));
  if (attackerToken && unnamedAs(attackerToken, edge) && !ids.includes(attackerToken.id)) ids.unshift(attackerToken.id);
  const count = {};
  for (const tid of ids) { const as = unnamedAs(tokens[tid] || attackerToken, edge); count[as] = (count[as] || 0) + 1; }
  const nth = {};
  const label = {};
  for (const tid of ids) {
    const as = unnamedAs(tokens[tid] || attackerToken, edge);
    nth[as] = (nth[as] || 0) + 1;
    label[tid] = count[as] > 1 ? `${as} (${nth[as]})` : as;
    if (Object.prototype.hasOwnProperty.call(tokens, tid)) seen[tid] = label[tid];
  }
  const cap = (text) => text.charAt(0).toUpperCase() + text.slice(1);
  const attacker = attackerToken && label[attackerToken.id] ? cap(label[attackerToken.id]) : attackerName;
  return { names: seen, attacker };
}

module.exports = {
  playerNames, mayReadBody, everyoneReadsBody, barNumbers, checkDice, checkTarget, checkNumbers, checkPage, mayOverride, isNpc,
  isPublic, hideBody, unnamedAs,
};
