'use strict';
// `!fracas attack`: build an ER request from tokens, sheets and options, resolve it
// with the JavaScript engine, apply the damage, post the card.

const { UsageError, integer, onOff } = require('./usage');
const { SheetReader } = require('./sheet');
const strikes = require('./strikes');
const args = require('./args');
const cards = require('./cards');
const store = require('./store');
const { applyDamage } = require('./apply');
const permissions = require('./permissions');
const { controls, selectedTokens, parseSeed } = require('./tokens');
const { rowsAttackCommand } = require('./rowsattack');
const { bridgeAttackCommand } = require('./bridgeattack');
const served = require('./served');
const rulesets = require('../rulesets');

const { resolve, names: rulesetNames } = rulesets;
const { COVERS } = require('../schema');

const ATTACK_OPTIONS = ['attacker', 'use', 'cover', 'obscurement', 'seed', 'rolls', 'ac', 'no-apply', 'whisper', 'public',
  'flee', 'nearby', 'friendly-fire', 'grappling', 'defense-rolls', 'current-page'];
// What a player's attack may say without `!fracas config --players-numbers on`: which token
// attacks with which of its sheet's strike sets, at whom, and where the card goes. Every
// other option is a number or a table situation, the GM's to decide (--seed and --rolls
// have their own setting, --players-seed).
const PLAYER_OPTIONS = ['attacker', 'use', 'target', 'seed', 'rolls', 'no-apply', 'whisper', 'public', 'ruleset', 'current-page'];
const TOKEN_ID = /^[-A-Za-z0-9_]{1,64}$/;

/** Token ids from an option's values (`--nearby @{target|1|token_id} @{target|2|token_id}`). */
function tokenIds(option) {
  const ids = option.values.join(' ').split(/[\s,]+/).filter(Boolean);
  if (!ids.length) throw new UsageError(`--${option.name} takes token ids, e.g. --${option.name} @{target|token_id}`);
  for (const id of ids) if (!TOKEN_ID.test(id)) throw new UsageError(`--${option.name}: "${id}" is not a token id`);
  return ids;
}

function oneValue(option) {
  if (option.values.length !== 1) throw new UsageError(`--${option.name} takes one value`);
  return option.values[0];
}

/** The command's own options (not strike options), checked. */
function attackOptions(rest, allowed = ATTACK_OPTIONS) {
  const o = { apply: true };
  for (const option of rest) {
    if (!allowed.includes(option.name)) throw new UsageError(`unknown option --${option.name} (see !fracas help)`);
    switch (option.name) {
      case 'attacker': o.attacker = oneValue(option); break;
      case 'use':
        o.use = oneValue(option);
        if (!/^[A-Za-z0-9_-]{1,40}$/.test(o.use)) throw new UsageError(`--use takes a short name, not "${o.use}"`);
        break;
      case 'cover': {
        const v = oneValue(option).toLowerCase();
        if (!COVERS.includes(v)) throw new UsageError(`--cover takes ${COVERS.join(', ')}, not "${v}"`);
        o.cover = v;
        break;
      }
      case 'obscurement': o.obscurement = integer(oneValue(option), '--obscurement', 0, 20); break;
      case 'seed': o.seed = parseSeed(oneValue(option)); break;
      case 'rolls':
        o.rolls = option.values.join(',').split(/[\s,]+/).filter(Boolean).map((f) => integer(f, '--rolls', 1, 20));
        if (!o.rolls.length) throw new UsageError('--rolls takes the faces in draw order, e.g. --rolls 12,7,20,3');
        break;
      case 'ac': o.ac = integer(oneValue(option), '--ac', -100, 200); break;
      case 'no-apply': o.apply = option.values.length ? !onOff(oneValue(option), '--no-apply') : false; break;
      case 'whisper': o.whisper = true; break;
      case 'public': o.whisper = false; break;
      // ER-20: the feet the fleeing creature moved (the engine words a negative or cautious move).
      case 'flee': o.flee = integer(oneValue(option), '--flee', -10000, 10000); break;
      // ER-17: creatures near the target, in slot order 1-8.
      case 'nearby': o.nearby = (o.nearby || []).concat(tokenIds(option)); break;
      case 'friendly-fire': o.friendlyFire = onOff(oneValue(option), '--friendly-fire'); break;
      // ER-21: targets that hold someone.
      case 'grappling': o.grappling = (o.grappling || []).concat(tokenIds(option)); break;
      // ER-22: the target's player rolls (on/off; the campaign's setting otherwise).
      case 'defense-rolls': o.defenseRolls = onOff(oneValue(option), '--defense-rolls'); break;
      // TokenMod's --current-page: targets only on the attacker's page.
      case 'current-page': o.currentPage = option.values.length ? onOff(oneValue(option), '--current-page') : true; break;
      default: break;
    }
  }
  return o;
}

function findAttacker(app, msg, options) {
  const edge = app.edge;
  let token;
  if (options.attacker) {
    token = edge.getGraphic(options.attacker);
    if (!token) throw new UsageError(`no token with the id "${options.attacker}" (--attacker)`);
  } else {
    const selected = selectedTokens(edge, msg);
    if (selected.length !== 1) {
      throw new UsageError(selected.length ? `${selected.length} tokens are selected: select only the attacker, or give --attacker`
        : 'select the attacking token, or give --attacker @{selected|token_id}');
    }
    token = selected[0];
  }
  if (!app.isGM(msg)) {
    if (!app.s().config.players_attack) throw new UsageError('only the GM may attack (!fracas config --players-attack)');
    if (!controls(edge, msg.playerid, token)) throw new UsageError('you can attack only with a token you control');
    permissions.checkPage(app, msg, token, options.attacker || 'selected', '--attacker');
  }
  return token;
}

/** The strikes of the attack: from the command, else from the attacker's sheet. */
function strikesFor(app, reader, collected, options) {
  if (collected.strikes.length) return collected;
  const config = app.s().config;
  const attr = config.attrs.strikes + (options.use ? `_${options.use}` : '');
  const text = reader.character ? app.edge.attribute(reader.character.id, attr) : null;
  if (text === null || text === undefined || String(text).trim() === '') {
    throw new UsageError(`no strikes: give --dice …, or put them in ${reader.name}'s "${attr}" attribute ` +
      '(e.g. --dice 2 --style slashing --weight 1 --type edged)');
  }
  let sheet;
  try {
    sheet = strikes.collect(args.parseOptions(text));
  } catch (err) {
    throw new UsageError(`${reader.name}'s "${attr}" attribute: ${err.message}`);
  }
  if (sheet.rest.length) throw new UsageError(`${reader.name}'s "${attr}" attribute: --${sheet.rest[0].name} is not a strike option`);
  if (!sheet.strikes.length) throw new UsageError(`${reader.name}'s "${attr}" attribute has no --dice`);
  // Command-line defaults (e.g. --adv, --bonus 1, --target) win over the sheet's.
  const commandDefaults = Object.assign({}, collected.defaults);
  return {
    defaults: Object.assign({}, sheet.defaults, commandDefaults),
    strikes: sheet.strikes,
    targets: commandDefaults.targets,
  };
}

/** Give each strike its target (ids); see `!fracas help`. */
function assignTargets(defaultTargets, list) {
  const shared = defaultTargets || [];
  const ownless = list.filter((s) => !s.targets || !s.targets.length).length;
  return list.map((s, i) => {
    if (s.targets && s.targets.length) {
      if (s.targets.length > 1) throw new UsageError(`strike ${i + 1} names ${s.targets.length} targets: a strike has one`);
      return s.targets[0];
    }
    if (shared.length === 1) return shared[0];
    if (!shared.length) throw new UsageError('no target: add --target @{target|token_id}');
    if (shared.length === ownless && ownless === list.length) return shared[i];
    throw new UsageError(`${shared.length} targets for ${list.length} strikes: give each strike its own --target after its --dice`);
  });
}

/**
 * The ruleset of a command (--ruleset, else the campaign's), checked. Returns its name.
 */
function rulesetOf(app, cmd, options = {}) {
  const named = cmd.options.filter((o) => o.name === 'ruleset');
  if (named.length > 1) throw new UsageError('--ruleset is given more than once');
  const ruleset = named.length ? oneValue(named[0]).toLowerCase() : (app.s().config.ruleset || rulesets.DEFAULT);
  // options.served: a ruleset the bridge serves (served.js) is one too (!fracas attack only).
  const known = options.served ? rulesetNames().concat(served.names()) : rulesetNames();
  if (!known.includes(ruleset)) {
    throw new UsageError(`unknown ruleset "${ruleset}" (--ruleset: one of ${known.join(', ')})`);
  }
  return ruleset;
}

/**
 * An Enchanted Realms request from the command, the tokens and the sheets:
 * {request, names, tokens, attacker, options}. `extra`: options the caller handles.
 */
function buildAttack(app, msg, cmd, extra = []) {
  const edge = app.edge;
  const config = app.s().config;
  if (cmd.positional.length) throw new UsageError(`!fracas ${cmd.name || 'attack'} takes --options, not "${cmd.positional.join(' ')}"`);
  permissions.checkNumbers(app, msg, cmd.options.map((o) => o.name).filter((n) => !PLAYER_OPTIONS.includes(n) && !extra.includes(n)));
  const collected = strikes.collect(cmd.options.filter((o) => o.name !== 'ruleset' && !extra.includes(o.name)));
  const options = attackOptions(collected.rest);
  const attackerToken = findAttacker(app, msg, options);
  const page = options.currentPage ? (attackerToken.get('_pageid') || null) : null;
  permissions.checkDice(app, msg, options);
  const attacker = new SheetReader(edge, config, attackerToken);
  const plan = strikesFor(app, attacker, collected, options);
  const targetIds = assignTargets(plan.targets || plan.defaults.targets, plan.strikes);

  const names = {};
  const targets = {};
  const tokens = {};
  for (const id of targetIds) {
    if (targets[id]) continue;
    const token = edge.getGraphic(id);
    if (!token) throw new UsageError(`no token with the id "${id}" (--target)`);
    permissions.checkTarget(app, msg, token, id);
    permissions.checkPage(app, msg, token, id, '--target', page);
    const reader = new SheetReader(edge, config, token);
    names[id] = reader.name;
    tokens[id] = token;
    // --ac is for a token without a character; only the GM's replaces a sheet's AC.
    const ac = options.ac !== undefined && permissions.mayOverride(app, msg, token) ? options.ac : undefined;
    targets[id] = reader.target({ cover: options.cover, ac });
  }
  const request = {
    attacker: attacker.attacker(options.obscurement ? { obscurement: options.obscurement } : {}),
    strikes: plan.strikes.map((st, i) => Object.assign(strikes.finish(st, plan.defaults, i), { target: targetIds[i] })),
    targets,
  };
  situation(app, msg, request, { names, tokens, attackerToken, options, page });
  if (options.rolls) request.rolls = options.rolls;
  return { request, names, tokens, attacker, options, attackerToken };
}

/**
 * The table situation around the strikes: creatures near the targets (ER-17), a flee
 * attack (ER-20), grappling targets (ER-21), and who rolls (ER-22).
 */
function situation(app, msg, request, ctx) {
  const { names, tokens, attackerToken, options, page } = ctx;
  const edge = app.edge;
  const config = app.s().config;
  const aimed = Object.keys(request.targets);
  for (const id of options.nearby || []) {
    if (request.targets[id]) {
      if (aimed.includes(id)) throw new UsageError(`--nearby ${id}: ${names[id]} is a target of this attack`);
      throw new UsageError(`--nearby ${id} is given twice`);
    }
    const token = edge.getGraphic(id);
    if (!token) throw new UsageError(`no token with the id "${id}" (--nearby)`);
    permissions.checkTarget(app, msg, token, id);
    permissions.checkPage(app, msg, token, id, '--nearby', page);
    const reader = new SheetReader(edge, config, token);
    names[id] = reader.name;
    tokens[id] = token;
    request.targets[id] = reader.target({});
  }
  if (options.nearby) for (const tid of aimed) request.targets[tid].nearby = options.nearby.slice();
  if (options.friendlyFire !== undefined) {
    for (const st of request.strikes) if (st.method === 'range') st.friendly_fire = options.friendlyFire;
  }
  for (const id of options.grappling || []) {
    if (!request.targets[id]) throw new UsageError(`--grappling ${id}: not a target of this attack`);
    const reader = new SheetReader(edge, config, tokens[id]);
    const hold = {};
    const strength = reader.number('strength');
    const mod = reader.number('strength_mod');
    if (strength !== null) hold.strength = strength;
    if (mod !== null) hold.strength_mod = mod;
    request.targets[id].grappling = hold;
  }
  if (options.flee !== undefined) request.flee = { moved: options.flee };
  // ER-22: with the campaign's setting on, a GM's creature attacking only player characters
  // lets the players roll; --defense-rolls on|off decides for one attack.
  const defense = options.defenseRolls !== undefined ? options.defenseRolls
    : !!config.defense_rolls && permissions.isNpc(edge, attackerToken) &&
      aimed.every((tid) => !permissions.isNpc(edge, tokens[tid])) &&
      !request.strikes.some((st) => st.friendly_fire === true);
  if (defense) request.defense_rolls = true;
}

function attackCommand(app, msg, cmd) {
  const edge = app.edge;
  const s = app.s();
  const config = s.config;
  if (cmd.positional.length) throw new UsageError(`!fracas attack takes --options, not "${cmd.positional.join(' ')}"`);
  // A ruleset this script does not have built in: ask the bridge for it first (served.js).
  const asked = served.askIfUnknown(app, msg, cmd);
  if (asked) return asked;
  const ruleset = rulesetOf(app, cmd, { served: true });
  if (!rulesets.ownClient(ruleset)) {
    const by = cmd.options.filter((o) => o.name === 'attacker');
    const token = findAttacker(app, msg, { attacker: by.length ? oneValue(by[0]) : undefined });
    // A ruleset without a JavaScript port (the spec's roll20 flag) is resolved by the bridge.
    if (!rulesets.offline(ruleset)) return bridgeAttackCommand(app, msg, cmd, ruleset, token);
    return rowsAttackCommand(app, msg, cmd, ruleset, token);
  }
  const { request, names, tokens, attacker, options, attackerToken } = buildAttack(app, msg, cmd);
  msg.fracasNames = names;
  const seed = options.seed !== undefined ? options.seed : app.newSeed();
  const result = resolve(request, { seed });

  const id = app.newId('a');
  const applied = {};
  const changes = [];
  if (options.apply) {
    for (const tid of Object.keys(result.targets)) {
      const damage = result.targets[tid].damage;
      if (!damage) continue;
      applied[tid] = applyDamage(edge, config, tokens[tid], damage);
      if (applied[tid].change) changes.push(applied[tid].change);
    }
    if (changes.length) {
      store.pushUndo(s, { id, label: `${attacker.name}'s attack`, time: edge.now(), changes });
    }
  }
  // Roll20 keeps state as JSON: a BigInt seed is kept as its digits.
  store.pushLog(s, { id, request, seed: typeof seed === 'bigint' ? seed.toString() : seed });
  const seenApplied = permissions.hideBody(app, options.whisper, tokens, applied, msg);
  const undo = changes.length > 0 ? id : null;
  const card = (seen, attackerName, shown) => cards.attackCard(result, { id, attackerName, names: seen, applied: shown, undo });
  const seen = permissions.playerNames(names, tokens, attackerToken, attacker.name, app.edge);
  app.postCard(msg, card(seen.names, seen.attacker, seenApplied), options.whisper, card(names, attacker.name, applied));
  return result;
}

module.exports = {
  attackCommand, attackOptions, selectedTokens, controls, assignTargets, parseSeed, buildAttack, rulesetOf, findAttacker,
  oneValue, tokenIds, PLAYER_OPTIONS,
};
