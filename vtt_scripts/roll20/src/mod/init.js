'use strict';
// `!fracas init`: ER-18 initiative for the selected tokens, into the turn order.

const { UsageError, integer } = require('./usage');
const { SheetReader } = require('./sheet');
const { selectedTokens, parseSeed } = require('./attack');
const cards = require('./cards');
const store = require('./store');
const permissions = require('./permissions');
const { rollInitiative } = require('../initiative');

/**
 * Merge new entries (ranked, highest first) into the existing turn order: the
 * rolled tokens' old entries go; each new entry goes before the first remaining
 * entry with a lower number, so the rest of the order is kept as it was.
 */
function mergeTurnOrder(existing, ranked) {
  const rolled = new Set(ranked.map((e) => e.id));
  const old = existing.filter((e) => !(e && rolled.has(e.id)));
  const out = [];
  let i = 0;
  for (const entry of old) {
    const pr = Number(entry && entry.pr);
    while (i < ranked.length && Number.isFinite(pr) && ranked[i].pr > pr) out.push(ranked[i++]);
    out.push(entry);
  }
  while (i < ranked.length) out.push(ranked[i++]);
  return out;
}

function initCommand(app, msg, cmd) {
  const edge = app.edge;
  const s = app.s();
  let bonus = 0;
  let seed;
  for (const option of cmd.options) {
    if (option.name === 'bonus') bonus = integer(option.values.join(''), '--bonus', -100, 100);
    else if (option.name === 'seed') seed = parseSeed(option.values.join(''));
    else throw new UsageError(`!fracas init does not know --${option.name}`);
  }
  const tokens = selectedTokens(edge, msg);
  if (!tokens.length) throw new UsageError('select the tokens that roll initiative');
  const names = {};
  const combatants = tokens.map((token) => {
    const reader = new SheetReader(edge, s.config, token);
    names[token.id] = reader.name;
    const c = { id: token.id };
    const agility = reader.number('agility');
    const agilityMod = reader.number('agility_mod');
    if (agility === null && agilityMod === null) {
      throw new UsageError(`${reader.name} has no "${s.config.attrs.agility}" (or "${s.config.attrs.agility_mod}") attribute for initiative`);
    }
    if (agility !== null) c.agility = agility;
    if (agilityMod !== null) c.agility_mod = agilityMod;
    const other = (reader.number('initiative_bonus') || 0) + bonus;
    if (other) c.bonus = other;
    return c;
  });
  msg.fracasNames = names;
  const result = rollInitiative({ combatants }, { seed: seed !== undefined ? seed : app.newSeed() });
  const pageOf = {};
  tokens.forEach((t) => { pageOf[t.id] = t.get('_pageid'); });
  const ranked = result.order.map((e) => ({ id: e.id, pr: e.total, custom: '', _pageid: pageOf[e.id] }));
  const before = edge.turnOrderText();
  const after = JSON.stringify(mergeTurnOrder(edge.turnOrder(), ranked));
  edge.setTurnOrderText(after);
  // The tracker opens on the rolled tokens' page (GroupInitiative.js lines 1453-1455 set
  // initiativepage to the tokens' page id: Campaign initiativepage is `string | false`).
  edge.openTurnTracker(tokens[0].get('_pageid'));
  const id = app.newId('i');
  store.pushUndo(s, { id, label: 'initiative', time: edge.now(), changes: [{ type: 'turnorder', before, after }] });
  const seen = permissions.playerNames(names, Object.fromEntries(tokens.map((t) => [t.id, t])), null, '', edge).names;
  app.postCard(msg, cards.initiativeCard(visibleOrder(result, tokens), { names: seen, undo: id }), false,
    cards.initiativeCard(result, { names, undo: id }));
  return result;
}

/**
 * The initiative players may see: GM-layer tokens left out, as Roll20's turn tracker hides
 * their entries from players (wiki "Turn Tracker": "tokens on the GM layer ... are hidden from
 * players"); a tie broken against only hidden ones is not shown as a tie (it would tell there is one).
 */
function visibleOrder(result, tokens) {
  const hidden = new Set(tokens.filter((t) => t.get('layer') === 'gmlayer').map((t) => t.id));
  if (!hidden.size) return result;
  const order = result.order.filter((e) => !hidden.has(e.id));
  const shownTotals = {};
  for (const e of order) shownTotals[e.total] = (shownTotals[e.total] || 0) + 1;
  return { ...result, order: order.map((e) => (shownTotals[e.total] > 1 ? e : { ...e, tiebreaks: [] })) };
}

module.exports = { initCommand, mergeTurnOrder, visibleOrder };
