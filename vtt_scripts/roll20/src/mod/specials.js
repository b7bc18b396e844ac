'use strict';
// `!fracas compete` (ER-19) and `!fracas impale` (ER-23): the Enchanted Realms table
// situations that are not one attack, from tokens and sheets.

const { UsageError, integer, onOff } = require('./usage');
const { SheetReader, tokenConditions } = require('./sheet');
const { attackOptions, findAttacker, oneValue, parseSeed } = require('./attack');
const cards = require('./cards');
const store = require('./store');
const permissions = require('./permissions');
const { applyDamage } = require('./apply');
const { compete } = require('../specials');
const { impale } = require('../impale');
const { ER_CONTESTS } = require('../facts');

const SIDES = ['challenger', 'defender'];

function tokenOf(app, msg, id, what) {
  if (!/^[-A-Za-z0-9_]{1,64}$/.test(id)) throw new UsageError(`--${what}: "${id}" is not a token id`);
  const token = app.edge.getGraphic(id);
  if (!token) throw new UsageError(`no token with the id "${id}" (--${what})`);
  permissions.checkTarget(app, msg, token, id);
  permissions.checkPage(app, msg, token, id, `--${what}`);
  return token;
}

/** One side of a competition from its token's sheet and markers: scores, size, speed, and its
 * conditions (ER-12/ER-14: bound, poisoned, shaken, prone, ... change its d12). */
function competitor(app, token, attribute) {
  const reader = new SheetReader(app.edge, app.s().config, token);
  const side = { id: token.id, attribute };
  for (const field of ['strength', 'agility', 'strength_mod', 'agility_mod', 'speed']) {
    const v = reader.number(field);
    if (v !== null) side[field] = v;
  }
  const size = reader.size();
  if (size) side.size = size;
  const conditions = tokenConditions(app.s().config, token);
  if (conditions.length) side.conditions = conditions;
  return { side, name: reader.name };
}

function attributeOf(option) {
  const v = oneValue(option).toLowerCase();
  if (!['strength', 'agility'].includes(v)) throw new UsageError(`--${option.name} takes strength or agility, not "${v}"`);
  return v;
}

function sideOf(side, option) {
  if (side === undefined || !SIDES.includes(side.toLowerCase())) {
    throw new UsageError(`--${option.name} takes challenger or defender first, not "${side === undefined ? '' : side}"`);
  }
}

/** `claw:edged`, `bite:piercing:poison`: one savage-form strike (the engine checks the names). */
function savageStrike(text) {
  const [strike, type, extra, ...rest] = text.split(':');
  if (!strike || !type || rest.length || (extra !== undefined && extra.toLowerCase() !== 'poison')) {
    throw new UsageError(`--savage: "${text}" is not STRIKE:TYPE or STRIKE:TYPE:poison (e.g. bite:piercing:poison)`);
  }
  const out = { strike, type: type.toLowerCase() };
  if (extra !== undefined) out.poison = true;
  return out;
}

/**
 * `damage` off one token's bar (applyDamage), one undo entry named `label` when it changed
 * something: {applied, seenApplied (what the players' card may say of it), undo (its id)}.
 */
function applyWithUndo(app, msg, whisper, token, damage, label) {
  const applied = applyDamage(app.edge, app.s().config, token, damage);
  let undo = null;
  if (applied.change) {
    undo = app.newId('m');
    store.pushUndo(app.s(), { id: undo, label, time: app.edge.now(), changes: [applied.change] });
  }
  const seenApplied = permissions.hideBody(app, whisper, { [token.id]: token }, { [token.id]: applied }, msg)[token.id];
  return { applied, seenApplied, undo };
}

/**
 * `!fracas compete --contest grapple --defender @{target|token_id}`: the selected token
 * (or --challenger ID) against the defender, d12 + modifier each, ties rolled again.
 */
function competeCommand(app, msg, cmd) {
  if (cmd.positional.length) throw new UsageError(`!fracas compete takes --options, not "${cmd.positional.join(' ')}"`);
  const o = { contest: 'plain', use: 'strength', against: 'strength', slick: false, edge: {}, savage: {} };
  const dice = [];
  for (const option of cmd.options) {
    switch (option.name) {
      case 'contest': {
        const v = oneValue(option).toLowerCase();
        if (!ER_CONTESTS.includes(v)) throw new UsageError(`--contest takes ${ER_CONTESTS.join(', ')}, not "${v}"`);
        o.contest = v;
        break;
      }
      case 'challenger': o.challenger = oneValue(option); break;
      case 'defender': o.defender = oneValue(option); break;
      case 'use': o.use = attributeOf(option); break;
      case 'against': o.against = attributeOf(option); break;
      case 'slick': o.slick = option.values.length ? onOff(oneValue(option), '--slick') : true; break;
      case 'advantage': case 'disadvantage': {
        const side = oneValue(option).toLowerCase();
        if (!SIDES.includes(side)) throw new UsageError(`--${option.name} takes challenger or defender, not "${side}"`);
        o.edge[side] = Object.assign(o.edge[side] || {}, { [option.name]: true });
        break;
      }
      case 'bonus': o.bonus = integer(oneValue(option), '--bonus', -50, 50); break;
      // "ER Grappling: Uncommon Conditions": --savage defender claw:edged bite:piercing:poison
      case 'savage': {
        const [side, ...strikes] = option.values.map((v) => String(v));
        sideOf(side, option);
        if (!strikes.length) throw new UsageError('--savage takes a side and its strikes, e.g. --savage defender claw:edged bite:piercing:poison');
        o.savage[side.toLowerCase()] = strikes.map((text) => savageStrike(text));
        break;
      }
      // ER-10 of a side (the grappler's, against its victim's savage form): --resistant challenger edged
      case 'resistant': case 'vulnerable': case 'immune': {
        const [side, ...types] = option.values.map((v) => String(v));
        sideOf(side, option);
        if (!types.length) throw new UsageError(`--${option.name} takes a side and damage types, e.g. --${option.name} challenger edged`);
        o.edge[side.toLowerCase()] = Object.assign(o.edge[side.toLowerCase()] || {}, { [option.name]: types });
        break;
      }
      case 'seed': case 'rolls': case 'whisper': case 'public': case 'no-apply': dice.push(option); break;
      default: throw new UsageError(`!fracas compete does not know --${option.name} (see !fracas help)`);
    }
  }
  permissions.checkNumbers(app, msg, cmd.options.filter((x) => ['bonus', 'advantage', 'disadvantage', 'slick', 'savage', 'resistant', 'vulnerable', 'immune'].includes(x.name)).map((x) => x.name));
  const options = attackOptions(dice);
  permissions.checkDice(app, msg, options);
  if (!o.defender) throw new UsageError('give the other side: --defender @{target|token_id}');
  const challengerToken = findAttacker(app, msg, { attacker: o.challenger });
  const defenderToken = tokenOf(app, msg, o.defender, 'defender');
  if (challengerToken.id === defenderToken.id) throw new UsageError('a competition has two sides: pick another --defender');
  const a = competitor(app, challengerToken, o.use);
  const b = competitor(app, defenderToken, o.against);
  Object.assign(a.side, o.edge.challenger || {});
  Object.assign(b.side, o.edge.defender || {});
  if (o.savage.challenger) a.side.savage_form = o.savage.challenger;
  if (o.savage.defender) b.side.savage_form = o.savage.defender;
  if (o.bonus) a.side.bonus = o.bonus;
  const names = { [challengerToken.id]: a.name, [defenderToken.id]: b.name, challenger: a.name, defender: b.name };
  msg.fracasNames = names;
  const request = { contest: o.contest, slick: o.slick, challenger: a.side, defender: b.side };
  if (options.rolls) request.rolls = options.rolls;
  const result = compete(request, { seed: options.seed !== undefined ? options.seed : app.newSeed() });
  // The players' card names a GM-layer side "a hidden creature"; the GM's names it.
  const tokens = { [challengerToken.id]: challengerToken, [defenderToken.id]: defenderToken };
  // The grappler's incidental point lands on its Body as an attack's damage does (--no-apply
  // leaves it), with undo.
  const inc = result.incidental;
  const { applied, seenApplied, undo } = options.apply && inc && inc.damage > 0
    ? applyWithUndo(app, msg, options.whisper, tokens[inc.to], inc.damage, `${names[inc.to]}'s incidental damage`)
    : { applied: null, seenApplied: null, undo: null };
  const seen = permissions.playerNames(names, tokens, null, '', app.edge).names;
  seen.challenger = seen[challengerToken.id];
  seen.defender = seen[defenderToken.id];
  app.postCard(msg, cards.competeCard(result, { names: seen, applied: seenApplied, undo }), options.whisper,
    cards.competeCard(result, { names, applied, undo }));
  return result;
}

/**
 * `!fracas impale --charger @{target|token_id} --closed 30`: the selected pikeman's
 * 3d20 (4d20 with --forte) at the charger before its charge; damage applied, with undo.
 */
function impaleCommand(app, msg, cmd) {
  if (cmd.positional.length) throw new UsageError(`!fracas impale takes --options, not "${cmd.positional.join(' ')}"`);
  const weapon = { forte: false };
  let chargerId;
  let closed;
  const rest = [];
  for (const option of cmd.options) {
    switch (option.name) {
      case 'charger': chargerId = oneValue(option); break;
      case 'closed': closed = integer(oneValue(option), '--closed', 0, 10000); break;
      case 'forte': weapon.forte = option.values.length ? onOff(oneValue(option), '--forte') : true; break;
      case 'weight': weapon.weight = integer(oneValue(option), '--weight', 0, 2); break;
      case 'bonus': weapon.bonus = integer(oneValue(option), '--bonus', -100, 100); break;
      case 'type': weapon.damage_type = oneValue(option).toLowerCase(); break;
      case 'attacker': case 'seed': case 'rolls': case 'no-apply': case 'whisper': case 'public': rest.push(option); break;
      default: throw new UsageError(`!fracas impale does not know --${option.name} (see !fracas help)`);
    }
  }
  permissions.checkNumbers(app, msg, cmd.options.filter((x) => ['closed', 'forte', 'weight', 'bonus', 'type'].includes(x.name)).map((x) => x.name));
  const options = attackOptions(rest);
  permissions.checkDice(app, msg, options);
  if (!chargerId) throw new UsageError('give the charging attacker: --charger @{target|token_id}');
  if (closed === undefined) throw new UsageError('give how far the charger closed this turn: --closed 30 (25 ft or more)');
  const edge = app.edge;
  const config = app.s().config;
  const pikemanToken = findAttacker(app, msg, options);
  const chargerToken = tokenOf(app, msg, chargerId, 'charger');
  const pikeman = new SheetReader(edge, config, pikemanToken);
  const charger = new SheetReader(edge, config, chargerToken);
  const body = Number(String(chargerToken.get(`bar${config.bar}_value`)).trim());
  if (!Number.isInteger(body)) {
    throw new UsageError(`${charger.name}'s bar ${config.bar} holds "${chargerToken.get(`bar${config.bar}_value`)}", ` +
      'not its Body: impalement needs to know whether it drops');
  }
  const names = { [chargerToken.id]: charger.name };
  msg.fracasNames = names;
  const request = {
    pikeman: pikeman.attacker(), weapon,
    charger: Object.assign(charger.target({}), { id: chargerToken.id, body, closed }),
  };
  if (options.rolls) request.rolls = options.rolls;
  const result = impale(request, { seed: options.seed !== undefined ? options.seed : app.newSeed() });
  const { applied, seenApplied, undo } = options.apply && result.charger.damage > 0
    ? applyWithUndo(app, msg, options.whisper, chargerToken, result.charger.damage, `${pikeman.name}'s impalement`)
    : { applied: null, seenApplied: null, undo: null };
  const card = (ctx) => cards.impaleCard(result, Object.assign({ applied, undo }, ctx));
  const seen = permissions.playerNames({ [chargerToken.id]: charger.name }, { [chargerToken.id]: chargerToken }, pikemanToken, pikeman.name, edge);
  app.postCard(msg, card({ pikeman: seen.attacker, charger: seen.names[chargerToken.id], applied: seenApplied }), options.whisper,
    card({ pikeman: pikeman.name, charger: charger.name }));
  return result;
}

module.exports = { competeCommand, impaleCommand, parseSeed, tokenOf };
