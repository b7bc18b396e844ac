'use strict';
// `!fracas round`: the next round of a whole fight, played by `fracas serve` (the
// bridge's encounter.* methods, through the relay) for the tokens in the turn order.
//
//   !fracas round --new     make the encounter from the turn order, then play round 1
//   !fracas round           play the next round (the bars' current values count first)
//   !fracas round --undo    take the last round back on the bridge and on the tokens
//
// Sides: tokens a player controls (or whose character a player controls) are the
// party, the rest are the foes. Each token's stats are read as `!fracas attack` and
// `!fracas mob` read them (Enchanted Realms: the sheet attributes and the strikes
// attribute; the other rulesets: fracas_<field> attributes). Health is the Body bar.
// The answer names every member's health: the bars are set to it (one undo entry per
// round), fallen tokens get the dead marker, and one card tells the round.

const { UsageError, integer } = require('./usage');
const { SheetReader } = require('./sheet');
const cards = require('./cards');
const store = require('./store');
const esc = require('./escape');
const relaylink = require('./relaylink');
const permissions = require('./permissions');
const { asNumber, bodyHolder } = require('./apply');
const { setProp } = require('./observers');
const { ownClient } = require('../registry');
const hints = require('./hints');

const MAX_TOKENS = 300;
const OPTIONS = ['new', 'undo', 'seed', 'use', 'ruleset', 'whisper', 'public'];

/** One combatant of the scenario for a token of the turn order. */
function combatantOf(app, token, ruleset, use) {
  const s = app.s();
  const reader = new SheetReader(app.edge, s.config, token);
  const holder = bodyHolder(app.edge, s.config, token);
  const now = asNumber(holder.obj.get(holder.prop));
  const max = asNumber(holder.obj.get(holder.maxProp));
  if (now === null) throw new UsageError(`${reader.name}: bar ${s.config.bar} holds no number, so its health is unknown`);
  const hpMax = Math.max(1, Math.round(max !== null && max >= 1 ? max : now));
  const out = { name: token.id, label: String(reader.name).slice(0, 200), hp: hpMax };
  if (ownClient(ruleset)) {
    const { profileStrikes } = require('./mob');
    const attacker = reader.attacker();
    delete attacker.conditions; // a fight applies damage only: markers stay the GM's
    const target = reader.target();
    delete target.conditions;
    out.attacker = attacker;
    out.target = target;
    out.attacks = profileStrikes(app, reader, { strikes: [], defaults: {} }, use);
    const bonus = reader.number('initiative_bonus');
    if (bonus) out.initiative = bonus;
  } else {
    const rows = require('./rowsattack');
    const spec = rows.FIELDS[ruleset];
    out.attacker = rows.fromSheet(app, token, spec.attacker, {}).values;
    out.target = rows.fromSheet(app, token, spec.target, {}).values;
    out.attacks = [Object.assign({ method: 'melee' }, rows.fromSheet(app, token, spec.strike, {}).values)];
    // A ruleset with morale checks (a `morale` kind, as fracas.drive.scenario asks) reads the
    // group's morale from the sheet (OS-4).
    if (hints.hasKind(ruleset, 'morale') && reader.character) {
      const morale = app.edge.attribute(reader.character.id, 'fracas_morale');
      if (morale !== null && morale !== undefined && String(morale).trim() !== '') {
        out.morale = integer(String(morale).trim(), `${reader.name}'s attribute "fracas_morale"`, 2, 12);
      }
    }
  }
  return { combatant: out, hp: Math.max(0, Math.min(hpMax, Math.round(now))), name: reader.name };
}

/** The scenario of the turn order's tokens: {scenario, names, hp}. */
function scenarioFromTurnOrder(app, ruleset, use) {
  const edge = app.edge;
  const entries = edge.turnOrder().filter((e) => e && typeof e.id === 'string' && e.id !== '-1');
  const ids = Array.from(new Set(entries.map((e) => e.id)));
  if (!ids.length) throw new UsageError('the turn order has no tokens: add the fighters to it (!fracas init, or the tracker)');
  if (ids.length > MAX_TOKENS) throw new UsageError(`${ids.length} tokens in the turn order, the most is ${MAX_TOKENS}`);
  const sides = { party: [], foes: [] };
  const names = {};
  const hp = {};
  for (const id of ids) {
    const token = edge.getGraphic(id);
    if (!token) continue;
    const read = combatantOf(app, token, ruleset, use);
    (permissions.isNpc(edge, token) ? sides.foes : sides.party).push(read.combatant);
    names[id] = read.name;
    hp[id] = read.hp;
  }
  if (!sides.party.length || !sides.foes.length) {
    throw new UsageError('a fight needs two sides in the turn order: tokens a player controls (the party) and the GM\'s (the foes)');
  }
  const scenario = { ruleset, name: 'Roll20 turn order', sides };
  // Side initiative between the party and its opponents (CT-1): the ruleset's hints name the option.
  const party = hints.hints(ruleset).fight_party;
  if (party) scenario.initiative = { [party]: 'party' };
  return { scenario, names, hp };
}

function roundCommand(app, msg, cmd) {
  const s = app.s();
  const o = { seed: undefined, use: undefined, whisper: undefined };
  let mode = 'play';
  for (const option of cmd.options) {
    if (!OPTIONS.includes(option.name)) {
      throw new UsageError(`!fracas round does not know --${option.name} (--${OPTIONS.join(', --')})`);
    }
    if (option.name === 'ruleset') continue;
    if (option.name === 'new') mode = 'new';
    else if (option.name === 'undo') mode = 'undo';
    else if (option.name === 'seed') o.seed = require('./attack').parseSeed(option.values.join(''));
    else if (option.name === 'use') o.use = option.values.join('');
    else if (option.name === 'whisper') o.whisper = true;
    else if (option.name === 'public') o.whisper = false;
  }
  const fight = s.fight && typeof s.fight === 'object' && typeof s.fight.name === 'string' ? s.fight : null;
  // Roll20 keeps `state` (and so a pending request's meta) as JSON: no undefined, a big seed as digits.
  const meta = { playerid: msg.playerid, whisper: o.whisper === true };
  if (o.seed !== undefined) meta.seed = typeof o.seed === 'bigint' ? o.seed.toString() : o.seed;
  if (mode === 'new') {
    const ruleset = require('./attack').rulesetOf(app, cmd);
    const built = scenarioFromTurnOrder(app, ruleset, o.use);
    const name = app.newId('roll20-fight');
    s.fight = { name, round: null, names: built.names, ruleset };
    Object.assign(meta, { name, names: built.names, hp: built.hp });
    const sent = relaylink.send(app, 'encounter.new', { name, scenario: built.scenario }, meta);
    app.whisper(msg.playerid, cards.notice('fracas round', [
      `${Object.keys(built.names).length} combatants sent to the bridge as ${esc.text(sent.id)}; round 1 follows.`]));
    return sent;
  }
  if (!fight || fight.round === null) {
    throw new UsageError('no fight yet: !fracas round --new makes one from the turn order');
  }
  if (mode === 'undo') {
    if (!fight.round) throw new UsageError('the fight has no round to undo');
    Object.assign(meta, { name: fight.name });
    return relaylink.send(app, 'encounter.undo', { name: fight.name, expect_round: fight.round }, meta);
  }
  return sendRound(app, fight, meta, currentHp(app, fight));
}

/** Members' health as the bars show it now (a GM's edits count). */
function currentHp(app, fight) {
  const hp = {};
  for (const id of Object.keys(fight.names || {})) {
    const token = app.edge.getGraphic(id);
    if (!token) continue;
    const holder = bodyHolder(app.edge, app.s().config, token);
    const now = asNumber(holder.obj.get(holder.prop));
    const max = fight.max && Number.isInteger(fight.max[id]) ? fight.max[id] : null;
    if (now !== null && max !== null) hp[id] = Math.max(0, Math.min(max, Math.round(now)));
  }
  return hp;
}

function sendRound(app, fight, meta, hp) {
  const params = { name: fight.name, expect_round: fight.round };
  if (meta.seed !== undefined) params.seed = typeof meta.seed === 'string' && typeof BigInt === 'function' ? BigInt(meta.seed) : meta.seed;
  if (Object.keys(hp).length) params.hp = hp;
  return relaylink.send(app, 'encounter.round', params, Object.assign({}, meta, { name: fight.name }));
}

function members(shown) {
  const out = {};
  for (const side of Object.keys(shown.sides || {})) {
    for (const m of shown.sides[side] || []) if (m && typeof m.id === 'string') out[m.id] = m;
  }
  return out;
}

/** encounter.new answered: remember every member's most health, then play round 1. */
function onNew(app, pending, result, id) {
  const s = app.s();
  const meta = pending.meta;
  if (!s.fight || s.fight.name !== meta.name || !result || typeof result !== 'object') {
    app.edge.log(`fracas: the answer to ${id} is for a fight that is no longer the current one`);
    return;
  }
  s.fight.round = 0;
  s.fight.max = {};
  for (const [mid, m] of Object.entries(members(result))) {
    if (Object.prototype.hasOwnProperty.call(meta.names, mid) && Number.isInteger(m.hp_max)) s.fight.max[mid] = m.hp_max;
  }
  const hp = {};
  for (const mid of Object.keys(meta.hp || {})) if (meta.hp[mid] !== s.fight.max[mid]) hp[mid] = meta.hp[mid];
  const next = { playerid: meta.playerid, whisper: meta.whisper };
  if (meta.seed !== undefined) next.seed = meta.seed;
  sendRound(app, s.fight, next, hp);
}

/** Set each named token's bar to `hp`, mark the fallen; returns undo changes and lines. */
function applyHealth(app, fight, health) {
  const edge = app.edge;
  const config = app.s().config;
  const changes = [];
  for (const mid of Object.keys(health)) {
    // Only the tokens of this fight: an answer cannot reach any other token.
    if (!Object.prototype.hasOwnProperty.call(fight.names || {}, mid)) continue;
    const m = health[mid];
    const token = edge.getGraphic(mid);
    if (!token || !m || !Number.isInteger(m.hp)) continue;
    const holder = bodyHolder(edge, config, token);
    const raw = holder.obj.get(holder.prop);
    const before = asNumber(raw);
    if (before !== null && before !== m.hp) {
      setProp(holder.obj, holder.prop, m.hp, edge.log);
      changes.push({ type: holder.type, id: holder.obj.id, prop: holder.prop, before: raw, after: m.hp });
    }
    const dead = m.status === 'down';
    if (Boolean(token.get('status_dead')) !== dead) setProp(token, 'status_dead', dead, edge.log);
  }
  return changes;
}

/** Whether the member's token is on the GM layer (hidden from players). */
function isHidden(app, mid) {
  const token = typeof mid === 'string' ? app.edge.getGraphic(mid) : null;
  return !!token && token.get('layer') === 'gmlayer';
}

/**
 * A member's name for a card: the GM's card names everyone; a card players see says
 * "a hidden creature" for a token on the GM layer (Roll20's turn tracker hides those too).
 */
function namer(app, fight, forPlayers) {
  return (mid) => {
    if (forPlayers) {
      const as = permissions.unnamedAs(typeof mid === 'string' ? app.edge.getGraphic(mid) : null, app.edge);
      if (as) return as;
    }
    return esc.text((fight.names && fight.names[mid]) || mid);
  };
}

function eventLine(fight, e, name) {
  if (!e || typeof e !== 'object') return null;
  if (e.type === 'attack' || e.type === 'spell') {
    const how = e.type === 'spell' ? ` casts ${esc.text(e.spell)} at` : ' →';
    return `${name(e.who)}${how} ${name(e.target)}: <b>${Number(e.damage) || 0}</b>`;
  }
  if (e.type === 'down') return `&nbsp;&nbsp;${name(e.who)} is down`;
  if (e.type === 'fled') return `&nbsp;&nbsp;${name(e.who)} flees (${esc.text(e.why)})`;
  if (e.type === 'morale') {
    return `morale (${esc.text(e.trigger)}, ${esc.text(e.rule)}): 2d6 ${Number(e.total)} vs ${Number(e.against)}: ` +
      `${e.breaks ? 'breaks' : 'holds'}`;
  }
  if (e.type === 'spell lost') return `${name(e.who)} loses ${esc.text(e.spell)} (${esc.text(e.rule)})`;
  if (e.type === 'end') return `<b>${e.winner ? `${esc.text(e.winner)} win` : esc.text(e.reason)}</b>`;
  return null;
}

/** encounter.round answered: bars, markers, one undo entry, one card. */
function onRound(app, pending, result, id) {
  const s = app.s();
  const meta = pending.meta;
  const fight = s.fight;
  if (!fight || fight.name !== meta.name || !result || typeof result !== 'object' || !Number.isInteger(result.round)) {
    app.edge.log(`fracas: the answer to ${id} is for a fight that is no longer the current one`);
    return;
  }
  fight.round = result.round;
  const changes = applyHealth(app, fight, result.members && typeof result.members === 'object' ? result.members : {});
  if (changes.length) store.pushUndo(s, { id, label: `round ${result.round}`, time: app.edge.now(), changes });
  const card = (forPlayers) => {
    const name = namer(app, fight, forPlayers);
    const lines = [];
    // Players' card: GM-layer members are left out of the order (Roll20's turn tracker hides
    // them from players), and so is what only they do among themselves (one going down,
    // fleeing, losing a spell; a hidden attacker on a hidden target). An attack on a member
    // players see stays, its attacker "a hidden creature": its damage shows on the bar anyway.
    const unseen = (mid) => forPlayers && isHidden(app, mid);
    const order = (Array.isArray(result.order) ? result.order : [])
      .map((slot) => (Array.isArray(slot) ? slot : []).filter((m) => !unseen(m)))
      .filter((slot) => slot.length);
    if (order.length) lines.push(`order: ${order.map((slot) => slot.map((m) => name(m)).join(', ')).join('; ')}`);
    for (const e of Array.isArray(result.events) ? result.events : []) {
      if (e && typeof e === 'object' && unseen(e.who) && (e.target === undefined || unseen(e.target))) continue;
      const line = eventLine(fight, e, name);
      if (line) lines.push(line);
    }
    const standing = result.standing && typeof result.standing === 'object' ? result.standing : {};
    // The count of each side would tell players how many hidden creatures there are: theirs leaves it out then.
    const hiddenHere = Object.keys(fight.names || {}).some((mid) => isHidden(app, mid));
    if (!(forPlayers && hiddenHere)) {
      lines.push(`standing: ${Object.keys(standing).map((side) => `${esc.text(side)} ${Number(standing[side]) || 0}`).join(', ')}`);
    }
    if (!result.over) lines.push(esc.button('next round', '!fracas round') + ' ' + esc.button('undo round', '!fracas round --undo'));
    else lines.push(esc.button('undo round', '!fracas round --undo'));
    return cards.notice(`fracas · round ${result.round} (seed ${esc.text(String(result.seed))})`, lines);
  };
  app.postCard({ playerid: meta.playerid }, card(true), meta.whisper, card(false));
}

/** encounter.undo answered: the tokens as the encounter now stands. */
function onUndo(app, pending, result, id) {
  const s = app.s();
  const fight = s.fight;
  if (!fight || fight.name !== pending.meta.name || !result || !Number.isInteger(result.round)) {
    app.edge.log(`fracas: the answer to ${id} is for a fight that is no longer the current one`);
    return;
  }
  fight.round = result.round;
  const changes = applyHealth(app, fight, members(result));
  if (changes.length) store.pushUndo(s, { id, label: `undo to round ${result.round}`, time: app.edge.now(), changes });
  app.whisper(pending.meta.playerid, cards.notice('fracas round', [
    `back to the state after round ${result.round}; ${changes.length} bar${changes.length === 1 ? '' : 's'} set back.`,
    esc.button('next round', '!fracas round')]));
}

relaylink.register('encounter.new', onNew);
relaylink.register('encounter.round', onRound);
relaylink.register('encounter.undo', onUndo);

module.exports = { roundCommand, scenarioFromTurnOrder, combatantOf };
