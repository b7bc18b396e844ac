'use strict';
// `!fracas init`: ER-18 initiative for the selected tokens, into the turn order; with
// `--ruleset NAME` another ruleset's, rolled by the bridge through the relay, built from
// its [client] hints (contract.js, or the ones the bridge served for a plug-in: served.js).

const { UsageError, integer } = require('./usage');
const { SheetReader } = require('./sheet');
const { selectedTokens, parseSeed } = require('./attack');
const cards = require('./cards');
const store = require('./store');
const permissions = require('./permissions');
const { rollInitiative } = require('../initiative');
const esc = require('./escape');
const relaylink = require('./relaylink');
const served = require('./served');
const hints = require('./hints');
const { own } = hints;
const rulesets = require('../rulesets');
const { rulesetOf } = require('./attack');


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
  if (cmd.options.some((o) => o.name === 'ruleset')) {
    // A ruleset this script does not have built in: ask the bridge for it first (served.js).
    const asked = served.askIfUnknown(app, msg, cmd);
    if (asked) return asked;
    const ruleset = rulesetOf(app, cmd, { served: true });
    if (!rulesets.ownClient(ruleset)) return bridgeInitCommand(app, msg, cmd, ruleset);
  }
  let bonus = 0;
  let seed;
  for (const option of cmd.options) {
    if (option.name === 'ruleset') continue;
    else if (option.name === 'bonus') bonus = integer(option.values.join(''), '--bonus', -100, 100);
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

/**
 * `!fracas init --ruleset NAME` for a ruleset other than Enchanted Realms: the request its
 * hints describe (`initiative = "combatant"`: each selected token's `initiative_flags`
 * fields from its character's fracas_<field> attributes, as `!fracas attack` reads a
 * ruleset's fields), sent as initiative.roll through the relay; the turn order is set when
 * the bridge answers (bridgeInitiative). A ruleset whose hints say nothing of initiative, or
 * whose sides roll (`!fracas round` plays those), is refused naming it and what is missing.
 */
function bridgeInitCommand(app, msg, cmd, ruleset) {
  const edge = app.edge;
  const title = (rulesets.entry(ruleset) || served.entry(ruleset) || { title: ruleset }).title;
  const h = hints.hints(ruleset);
  if (!h.initiative) {
    throw new UsageError(`the ${title} ruleset (${ruleset}) has no initiative hint ([client] initiative in its manifest): ` +
      'this script cannot build its initiative request');
  }
  if (h.initiative !== 'combatant') {
    throw new UsageError(`the ${title} ruleset (${ruleset}) rolls initiative by sides ([client] initiative = "${h.initiative}"): ` +
      '!fracas round plays its rounds with it; !fracas init rolls for combatants only');
  }
  let seed;
  for (const option of cmd.options) {
    if (option.name === 'ruleset') continue;
    if (option.name === 'seed') seed = parseSeed(option.values.join(''));
    else throw new UsageError(`!fracas init --ruleset ${ruleset} does not know --${option.name} (its fields come from fracas_<field> attributes)`);
  }
  const tokens = selectedTokens(edge, msg);
  if (!tokens.length) throw new UsageError('select the tokens that roll initiative');
  const flags = Array.isArray(h.initiative_flags) ? h.initiative_flags : [];
  const rule = h.initiative_rule || title;
  const names = {};
  const pages = {};
  const combatants = tokens.map((token) => {
    const reader = new SheetReader(edge, app.s().config, token);
    names[token.id] = reader.name;
    pages[token.id] = token.get('_pageid') || null;
    const c = { id: token.id };
    for (const field of flags) {
      const text = reader.character ? edge.attribute(reader.character.id, `fracas_${field}`) : null;
      if (text === null || text === undefined || String(text).trim() === '') {
        throw new UsageError(`${reader.name} has no "fracas_${field}" attribute for ${title} initiative (${rule})`);
      }
      c[field] = integer(String(text).trim(), `${reader.name}'s attribute "fracas_${field}"`, -100000, 100000);
    }
    return c;
  });
  const request = { ruleset, combatants, seed: seed !== undefined ? seed : app.newSeed() };
  const hidden = tokens.filter((t) => t.get('layer') === 'gmlayer').map((t) => t.id);
  const seen = permissions.playerNames(names, Object.fromEntries(tokens.map((t) => [t.id, t])), null, '', edge).names;
  const meta = { ruleset, title, rule, die: Number.isInteger(h.initiative_die) ? h.initiative_die : null, names, seen, pages, hidden, playerid: msg.playerid };
  const sent = relaylink.send(app, 'initiative.roll', request, meta, 'i');
  store.pushLog(app.s(), { id: sent.id, request, seed: typeof request.seed === 'bigint' ? request.seed.toString() : request.seed });
  app.whisper(msg.playerid, cards.notice('fracas init', [
    `${esc.text(title)} initiative is rolled by the bridge: sent as ${esc.text(sent.id)} ` +
    `(${sent.frames} relay frame${sent.frames === 1 ? '' : 's'}); the turn order is set when it answers.`,
  ]));
  return sent;
}

/**
 * The bridge's initiative.roll answer: its order (each named token's `total`, highest first)
 * merged into the turn order as `!fracas init` merges ER-18's, one undo entry, the card.
 */
function bridgeInitiative(app, pending, result, id) {
  const edge = app.edge;
  const s = app.s();
  const meta = pending.meta;
  const order = result && Array.isArray(result.order) ? result.order : null;
  if (!order || !order.every((e) => e && own(meta.names, e.id) && Number.isSafeInteger(e.total))) {
    throw new UsageError(`the bridge's answer to ${id} is not an initiative order of the tokens asked for (each an id and a total)`);
  }
  const gone = order.filter((e) => !edge.getGraphic(e.id)).map((e) => meta.names[e.id]);
  const ranked = order.filter((e) => edge.getGraphic(e.id)).map((e) => ({ id: e.id, pr: e.total, custom: '', _pageid: meta.pages[e.id] }));
  const before = edge.turnOrderText();
  const after = JSON.stringify(mergeTurnOrder(edge.turnOrder(), ranked));
  edge.setTurnOrderText(after);
  // As !fracas init: the tracker opens on the rolled tokens' page (Campaign initiativepage is `string | false`).
  const page = ranked.length ? meta.pages[ranked[0].id] : null;
  if (page) edge.openTurnTracker(page);
  store.pushUndo(s, { id, label: 'initiative', time: edge.now(), changes: [{ type: 'turnorder', before, after }] });
  const hidden = new Set(meta.hidden);
  const card = (entries, names) => {
    const rows = entries.map((e, i) => {
      const roll = Number.isSafeInteger(e.roll) ? e.roll : null;
      const dice = roll === null ? '' : ` = ${meta.die ? `d${meta.die}` : 'roll'} ${roll} ${cards.signed(e.total - roll)}`;
      return [`${i + 1}. ${names[e.id] || e.id}`, `${cards.span(cards.STYLE.big, `${e.total}`)}${dice}`];
    });
    rows.push(['seed', `${esc.text(String(result.seed))} (the bridge) ${esc.button('undo', `!fracas undo ${id}`)}`]);
    return cards.template(`Initiative (${meta.title}, ${meta.rule})`, rows); // template escapes both
  };
  // Players see the tokens Roll20's turn tracker shows them (GM-layer ones left out, as visibleOrder).
  app.postCard({ playerid: meta.playerid }, card(order.filter((e) => !hidden.has(e.id)), meta.seen), false, card(order, meta.names));
  if (gone.length) app.error(null, `not in the turn order, the token is gone: ${gone.join(', ')}`);
}

relaylink.register('initiative.roll', bridgeInitiative);

module.exports = { initCommand, mergeTurnOrder, visibleOrder, bridgeInitCommand, bridgeInitiative };
