'use strict';
// `!fracas save`, `!fracas touch`, `!fracas drop`, `!fracas lock`, `!fracas throw` and `!fracas slam`:
// the Enchanted Realms request kinds this script has no JavaScript port of. The bridge rolls them
// (save.roll, touch.roll, drop.roll, lock.roll, throw.roll, slam.roll; bridge/README.md), so each command builds its request
// from the selected token(s), the --target(s) and their sheets and markers, sends it through
// the relay (relaylink.js, as `!fracas mob` does: kept pending until answered, `!fracas resend`),
// and the answer, checked against the result layout contract.js declares, becomes a card
// (kindcards.js) and the damage and conditions it says, applied with undo.
//
// Table-driven: KINDS holds one entry per kind, {method, title, options (its option parser),
// build (the request from tokens and options), effects (what the answer does to which token),
// card}. A new bridge-built kind is one entry; app.js makes a command of each.

const { UsageError, integer, onOff } = require('./usage');
const { SheetReader, tokenConditions } = require('./sheet');
const { attackOptions, findAttacker, oneValue, tokenIds, buildAttack } = require('./attack');
const { controls, selectedTokens } = require('./tokens');
const { applyDamage, addMarkers } = require('./apply');
const { markerFor } = require('./config');
const kindcards = require('./kindcards');
const cards = require('./cards');
const store = require('./store');
const esc = require('./escape');
const relaylink = require('./relaylink');
const permissions = require('./permissions');
const { layoutProblems } = require('../schema');
const { CONDITIONS, COVERS, DAMAGE_TYPES, SIZE_BONUS, MAX_SAVERS, MAX_SKILL_DICE, STANDARD_DICE } = require('../facts');
const { DEFAULT_RULESET } = require('../contract');
const { compileAttack } = require('../engine');

const { own } = require('./hints');

// Options every kind takes: the dice (GM's, or --players-seed), where the card goes, a preview.
const COMMON = ['seed', 'rolls', 'whisper', 'public', 'no-apply'];

function choiceOf(option, allowed) {
  const v = oneValue(option).toLowerCase();
  if (!allowed.includes(v)) throw new UsageError(`--${option.name} takes ${allowed.join(', ')}, not "${v}"`);
  return v;
}

/** A flag that may stand alone (`--area`) or say on/off (`--area off`). */
function flag(option) {
  return option.values.length ? onOff(oneValue(option), `--${option.name}`) : true;
}

/** A token by id, checked as attack checks its targets (layer, page) for a player. */
function tokenOf(app, msg, id, what) {
  if (!/^[-A-Za-z0-9_]{1,64}$/.test(id)) throw new UsageError(`--${what}: "${id}" is not a token id`);
  const token = app.edge.getGraphic(id);
  if (!token) throw new UsageError(`no token with the id "${id}" (--${what})`);
  permissions.checkTarget(app, msg, token, id);
  permissions.checkPage(app, msg, token, id, `--${what}`);
  return token;
}

/** The one --target of a command that has one victim. */
function oneTarget(app, msg, o, what = 'target') {
  if (!o.targets.length) throw new UsageError(`give the ${what}: --target @{target|token_id}`);
  if (o.targets.length > 1) throw new UsageError(`--target: this command has one ${what}, not ${o.targets.length}`);
  return tokenOf(app, msg, o.targets[0], 'target');
}

/** `score` or `modifier` of a side's attribute from its sheet (the explicit modifier wins, ER-4). */
function attributeOf(reader, attribute) {
  if (attribute === 'resilience') {
    // The sheet's Resilience is the save bonus fracas reads for shock saves (README): a modifier.
    const bonus = reader.number('save_bonus');
    return bonus === null ? null : { modifier: bonus };
  }
  const mod = reader.number(`${attribute}_mod`);
  if (mod !== null) return { modifier: mod };
  const score = reader.number(attribute);
  return score === null ? null : { score };
}

function needAttribute(app, reader, attribute, why) {
  const found = attributeOf(reader, attribute);
  if (found) return found;
  const attrs = app.s().config.attrs;
  const names = attribute === 'resilience' ? `"${attrs.save_bonus}"` : `"${attrs[attribute]}" (or "${attrs[`${attribute}_mod`]}")`;
  throw new UsageError(reader.character
    ? `${reader.name} has no ${names} attribute: ${why} needs it (or set the name with !fracas config --attr)`
    : `${reader.name} represents no character, so its ${attribute} is unknown: link it to a character`);
}

/** Scores and modifiers a side of a competition reads (lock's attacker and victim). */
function scores(reader) {
  const out = {};
  for (const field of ['strength', 'agility', 'strength_mod', 'agility_mod']) {
    const v = reader.number(field);
    if (v !== null) out[field] = v;
  }
  return out;
}

/**
 * Parse a command's options: the kind's own (`spec`: option → parse(option, o)), --target /
 * --targets, and the common ones. Returns {o, common (attackOptions: seed, rolls, whisper,
 * apply), numbers (the names of options a player may give only with --players-numbers)}.
 */
function parseOptions(name, cmd, spec, extra = []) {
  if (cmd.positional.length) throw new UsageError(`!fracas ${name} takes --options, not "${cmd.positional.join(' ')}"`);
  const o = { targets: [], rest: [] };
  const common = [];
  for (const option of cmd.options) {
    if (option.name === 'target' || option.name === 'targets') o.targets.push(...tokenIds(option));
    else if (own(spec, option.name)) spec[option.name].parse(option, o);
    else if (COMMON.includes(option.name)) common.push(option);
    else if (extra.includes(option.name)) o.rest.push(option);
    else {
      const known = Object.keys(spec).concat(['target', 'targets'], COMMON, extra).map((n) => `--${n}`).join(', ');
      throw new UsageError(`!fracas ${name} does not know --${option.name} (it takes ${known})`);
    }
  }
  const numbers = cmd.options.filter((x) => own(spec, x.name) && spec[x.name].number).map((x) => x.name);
  return { o, common: attackOptions(common, COMMON), numbers };
}

/** The acting token a player must control (the selected one, or --attacker), as attack finds it. */
function actor(app, msg, id) {
  return findAttacker(app, msg, { attacker: id });
}

// ---------------------------------------------------------------------------------
// save: one creature's save, or an area effect over several (ER-12, ER-14, ER-16)
// ---------------------------------------------------------------------------------

const SAVES = ['agility', 'resilience', 'strength'];

const SAVE_OPTIONS = {
  save: { parse: (op, o) => { o.save = choiceOf(op, SAVES); } },
  dc: { parse: (op, o) => { o.dc = integer(oneValue(op), '--dc', -50, 100); } },
  area: { parse: (op, o) => { o.area = flag(op); } },
  effect: {
    parse: (op, o) => {
      o.effect = op.values.join(' ').trim();
      if (o.effect.length > 200) throw new UsageError('--effect: at most 200 characters');
    },
  },
  'on-fail': {
    parse: (op, o) => {
      const list = op.values.join(' ').toLowerCase().split(/[\s,]+/).filter(Boolean);
      if (!list.length) throw new UsageError('--on-fail takes conditions, e.g. --on-fail asleep');
      for (const c of list) if (!CONDITIONS.includes(c)) throw new UsageError(`--on-fail: "${c}" is not a condition (one of: ${CONDITIONS.join(', ')})`);
      o.onFail = Array.from(new Set((o.onFail || []).concat(list)));
    },
  },
  // --cover LEVEL for every saver, --cover ID=LEVEL for one (ER-16: Agility saves against an area).
  cover: {
    number: true,
    parse: (op, o) => {
      for (const word of op.values.join(' ').split(/[\s,]+/).filter(Boolean)) {
        const [id, level] = word.includes('=') ? word.split('=', 2) : [null, word];
        const v = level.toLowerCase();
        if (!COVERS.includes(v)) throw new UsageError(`--cover takes ${COVERS.join(', ')} (or ID=LEVEL), not "${level}"`);
        if (id === null) o.cover = v;
        else {
          if (!/^[-A-Za-z0-9_]{1,64}$/.test(id)) throw new UsageError(`--cover: "${id}" is not a token id`);
          o.coverOf = Object.assign(o.coverOf || {}, { [id]: v });
        }
      }
    },
  },
  bonus: { number: true, parse: (op, o) => { o.bonus = integer(oneValue(op), '--bonus', -50, 50); } },
  advantage: { number: true, parse: (op, o) => { o.advantage = flag(op); } },
  disadvantage: { number: true, parse: (op, o) => { o.disadvantage = flag(op); } },
};

function buildSave(app, msg, cmd) {
  const { o, common, numbers } = parseOptions('save', cmd, SAVE_OPTIONS);
  if (!o.save) throw new UsageError(`give the save: --save ${SAVES.join('|')}`);
  if (o.dc === undefined) throw new UsageError('give the DC: --dc 13');
  const ids = o.targets.length ? Array.from(new Set(o.targets)) : selectedTokens(app.edge, msg).map((t) => t.id);
  if (!ids.length) throw new UsageError('select the saving tokens, or give them: --targets ID ID …');
  if (ids.length > MAX_SAVERS) throw new UsageError(`${ids.length} savers, the most is ${MAX_SAVERS}`);
  for (const id of Object.keys(o.coverOf || {})) {
    if (!ids.includes(id)) throw new UsageError(`--cover ${id}=…: not one of the savers`);
  }
  const names = {};
  const tokens = {};
  const targets = [];
  for (const id of ids) {
    const token = tokenOf(app, msg, id, o.targets.length ? 'targets' : 'selected');
    // A player rolls saves only for tokens they control (as an attack only with their own).
    if (!app.isGM(msg) && !controls(app.edge, msg.playerid, token)) {
      throw new UsageError(`--targets ${id}: you can roll saves only for tokens you control; nothing was rolled`);
    }
    const reader = new SheetReader(app.edge, app.s().config, token);
    names[id] = reader.name;
    tokens[id] = token;
    const saver = Object.assign({ id }, needAttribute(app, reader, o.save, `a ${o.save} save`));
    if (o.bonus) saver.bonus = o.bonus;
    const cover = (o.coverOf && o.coverOf[id]) || o.cover;
    if (cover && cover !== 'none') saver.cover = cover;
    const conditions = tokenConditions(app.s().config, token);
    if (conditions.length) saver.conditions = conditions;
    if (o.advantage) saver.advantage = true;
    if (o.disadvantage) saver.disadvantage = true;
    targets.push(saver);
  }
  const request = { save: o.save, dc: o.dc, area: !!o.area };
  if (o.effect) request.effect = o.effect;
  if (o.onFail) request.on_fail = o.onFail;
  request.targets = targets;
  const what = o.effect ? `${o.effect}: ` : '';
  return {
    request, names, tokens, common, numbers,
    title: `${what}${o.save} save${targets.length === 1 ? '' : 's'} DC ${o.dc}${o.area ? ' (area)' : ''}`,
  };
}

/** A failed saver's new conditions (on_fail) become its markers. */
function saveEffects(result) {
  const out = [];
  for (const t of Array.isArray(result.targets) ? result.targets : []) {
    if (!t || t.saved !== false || !Array.isArray(t.conditions_after)) continue;
    const before = new Set(Array.isArray(t.conditions) ? t.conditions : []);
    const added = t.conditions_after.filter((c) => CONDITIONS.includes(c) && !before.has(c));
    if (added.length) out.push({ id: t.id, conditions: added });
  }
  return out;
}

// ---------------------------------------------------------------------------------
// touch: a touch attack (ER Touch attacks): a hit for no damage, or a sleight-of-hand feat
// ---------------------------------------------------------------------------------

const TOUCH_OPTIONS = {
  touch: { parse: (op, o) => { o.touch = choiceOf(op, ['hit', 'sleight']); } },
  attacker: { parse: (op, o) => { o.attacker = oneValue(op); } },
  dice: { number: true, parse: (op, o) => { o.dice = integer(oneValue(op), '--dice', 1, MAX_SKILL_DICE); } },
  bonus: { number: true, parse: (op, o) => { o.bonus = integer(oneValue(op), '--bonus', -50, 50); } },
  advantage: { number: true, parse: (op, o) => { o.advantage = flag(op); } },
  disadvantage: { number: true, parse: (op, o) => { o.disadvantage = flag(op); } },
  'other-ac': { number: true, parse: (op, o) => { o.otherAc = integer(oneValue(op), '--other-ac', -50, 50); } },
  ac: { number: true, parse: (op, o) => { o.ac = integer(oneValue(op), '--ac', -100, 200); } },
};

function buildTouch(app, msg, cmd) {
  const { o, common, numbers } = parseOptions('touch', cmd, TOUCH_OPTIONS);
  if (!o.touch) throw new UsageError('give the touch: --touch hit (a hit for no damage) or --touch sleight (a sleight-of-hand feat)');
  const casterToken = actor(app, msg, o.attacker);
  const targetToken = oneTarget(app, msg, o);
  if (casterToken.id === targetToken.id) throw new UsageError('--target: a touch attack is at another creature');
  const config = app.s().config;
  const caster = new SheetReader(app.edge, config, casterToken);
  const victim = new SheetReader(app.edge, config, targetToken);
  const target = { id: targetToken.id };
  if (o.touch === 'hit') {
    const ac = o.ac !== undefined && permissions.mayOverride(app, msg, targetToken) ? o.ac : victim.number('ac');
    if (ac === null) {
      throw new UsageError(`${victim.name} has no "${config.attrs.ac}" attribute: a touch by hit needs its AC (give --ac for a token without a character)`);
    }
    target.ac = ac;
  }
  const size = victim.size();
  if (size) target.size = size;
  const conditions = tokenConditions(config, targetToken);
  if (conditions.length) target.conditions = conditions;
  Object.assign(target, pick(scores(victim), ['agility', 'agility_mod']));
  if (o.touch === 'sleight' && target.agility === undefined && target.agility_mod === undefined) {
    needAttribute(app, victim, 'agility', 'a sleight-of-hand touch (DC 10 + its Agility modifier)');
  }
  if (o.otherAc) target.other_ac = o.otherAc;
  const request = { touch: o.touch, caster: caster.attacker(), target };
  if (o.dice !== undefined) request.dice = o.dice;
  if (o.bonus) request.bonus = o.bonus;
  if (o.advantage) request.advantage = true;
  if (o.disadvantage) request.disadvantage = true;
  return {
    request, names: { [targetToken.id]: victim.name }, tokens: { [targetToken.id]: targetToken }, common, numbers,
    actorToken: casterToken, actorName: caster.name, title: o.touch === 'hit' ? 'a hit for no damage' : 'sleight of hand',
  };
}

function pick(obj, keys) {
  const out = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}

// ---------------------------------------------------------------------------------
// drop: getting the drop (ER-13): a sneak attack's damage held; later inflicted, the victim's
// feat against DC max(20 - rounds, 14) halving it
// ---------------------------------------------------------------------------------

const DROP_OPTIONS = {
  surrenders: { parse: (op, o) => { o.surrenders = flag(op); } },
  inflict: { number: true, parse: (op, o) => { o.inflict = integer(oneValue(op), '--inflict', 0, 100000); } },
  rounds: { number: true, parse: (op, o) => { o.rounds = integer(oneValue(op), '--rounds', 0, 1000); } },
  'foul-play': { number: true, parse: (op, o) => { o.foulPlay = flag(op); } },
  attribute: { parse: (op, o) => { o.attribute = choiceOf(op, ['agility', 'strength']); } },
  bonus: { number: true, parse: (op, o) => { o.bonus = integer(oneValue(op), '--bonus', -50, 50); } },
  advantage: { number: true, parse: (op, o) => { o.advantage = flag(op); } },
  disadvantage: { number: true, parse: (op, o) => { o.disadvantage = flag(op); } },
};
// The drop's attack is an attack: its strike options and --attacker/--use are attack's.
const DROP_ATTACK = ['attacker', 'use', 'dice', 'style', 'type', 'method', 'weight', 'crit', 'no-crit', 'crit-range',
  'adv', 'disadv', 'sneak', 'reach', 'sneak-ok', 'cover', 'obscurement', 'ac'];

function buildDrop(app, msg, cmd) {
  const { o, common, numbers } = parseOptions('drop', cmd, DROP_OPTIONS, DROP_ATTACK);
  if (o.inflict === undefined) return buildDropAttack(app, msg, cmd, o, common);
  for (const op of o.rest) {
    if (op.name !== 'attacker') throw new UsageError(`--${op.name} is an option of the drop's attack, not of --inflict`);
  }
  if (o.surrenders !== undefined) throw new UsageError('--surrenders is for the drop\'s attack, not for --inflict');
  const by = o.rest.find((op) => op.name === 'attacker');
  const assailantToken = actor(app, msg, by ? oneValue(by) : undefined);
  const victimToken = oneTarget(app, msg, o, 'victim');
  if (victimToken.id === assailantToken.id) throw new UsageError('--target: the victim is another creature');
  const config = app.s().config;
  const assailant = new SheetReader(app.edge, config, assailantToken);
  const reader = new SheetReader(app.edge, config, victimToken);
  const attribute = o.attribute || 'agility';
  const victim = Object.assign({ id: victimToken.id, attribute }, needAttribute(app, reader, attribute, `the ${attribute} feat against the held damage`));
  if (o.bonus) victim.bonus = o.bonus;
  if (o.foulPlay) victim.foul_play = true;
  const conditions = tokenConditions(config, victimToken);
  if (conditions.length) victim.conditions = conditions;
  if (o.advantage) victim.advantage = true;
  if (o.disadvantage) victim.disadvantage = true;
  const bodyMax = Number(victimToken.get(`bar${config.bar}_max`));
  if (Number.isInteger(bodyMax) && bodyMax >= 1 && bodyMax <= 1000000) victim.body_max = bodyMax;
  const request = { inflict: { held: o.inflict, victim, rounds: o.rounds || 0 } };
  return {
    request, names: { [victimToken.id]: reader.name }, tokens: { [victimToken.id]: victimToken }, common, numbers,
    actorToken: assailantToken, actorName: assailant.name, title: 'the held damage dealt',
  };
}

function buildDropAttack(app, msg, cmd, o, common) {
  for (const name of ['rounds', 'foul-play', 'attribute', 'bonus', 'advantage', 'disadvantage']) {
    if (cmd.options.some((op) => op.name === name)) throw new UsageError(`--${name} is for --inflict (the victim's feat), not for the drop's attack`);
  }
  if (o.targets.length !== 1) throw new UsageError('give the victim: one --target @{target|token_id} (the drop is at one creature)');
  // The attack as !fracas attack builds it (strikes from the options or the sheet), every strike a sneak attack (ER-13).
  const attackCmd = {
    name: 'drop', positional: [],
    options: cmd.options.filter((op) => DROP_ATTACK.includes(op.name) || op.name === 'target' || op.name === 'targets' ||
      ['seed', 'rolls', 'no-apply', 'whisper', 'public'].includes(op.name))
      .map((op) => (op.name === 'targets' ? { name: 'target', values: op.values } : op)),
  };
  const built = buildAttack(app, msg, attackCmd);
  const attack = built.request;
  delete attack.rolls; // the drop's rolls are its own (top level)
  for (const st of attack.strikes) if (st.sneak === undefined) st.sneak = true;
  // A mistake in the attack is told now, in table words, not after a round trip (as mob checks
  // its profiles): the JavaScript resolver compiles it (ER-13's sneak attack rules included).
  try {
    compileAttack(attack, { seed: 0 });
  } catch (err) {
    if (err.path === undefined) throw err;
    throw new UsageError(`the drop's attack: ${app.explain(err, built.names)}`);
  }
  const request = { attack };
  if (o.surrenders === false) request.surrenders = false;
  const victimId = Object.keys(attack.targets)[0];
  return {
    request, names: built.names, tokens: built.tokens, common, numbers: [],
    actorToken: built.attackerToken, actorName: built.attacker.name,
    title: o.surrenders === false ? 'a sneak attack (no surrender)' : 'the sneak attack held',
    victim: victimId,
  };
}

function dropEffects(result) {
  const n = Number(result.inflicted);
  return Number.isInteger(n) && n > 0 && typeof result.victim === 'string' ? [{ id: result.victim, damage: n }] : [];
}

// ---------------------------------------------------------------------------------
// lock: weapon lock, weapon disarm, shield-blitz (ER Weapon Lock, ER Weapon Disarm, ER-19)
// ---------------------------------------------------------------------------------

const LOCK_OPTIONS = {
  mode: { parse: (op, o) => { o.mode = choiceOf(op, ['lock', 'disarm', 'blitz']); } },
  attacker: { parse: (op, o) => { o.attacker = oneValue(op); } },
  'to-hit': { number: true, parse: (op, o) => { o.toHit = integer(oneValue(op), '--to-hit', -100, 100); } },
  weapon: { number: true, parse: (op, o) => { o.weapon = choiceOf(op, ['light', 'medium', 'heavy']); } },
  type: { number: true, parse: (op, o) => { o.type = choiceOf(op, DAMAGE_TYPES); } },
  bonus: { number: true, parse: (op, o) => { o.bonus = integer(oneValue(op), '--bonus', -50, 50); } },
  'victim-bonus': { number: true, parse: (op, o) => { o.victimBonus = integer(oneValue(op), '--victim-bonus', -50, 50); } },
  advantage: { number: true, parse: (op, o) => { o.advantage = flag(op); } },
  disadvantage: { number: true, parse: (op, o) => { o.disadvantage = flag(op); } },
  reacts: { parse: (op, o) => { o.reacts = flag(op); } },
  'reaction-left': { number: true, parse: (op, o) => { o.reactionLeft = flag(op); } },
  ac: { number: true, parse: (op, o) => { o.ac = integer(oneValue(op), '--ac', -100, 200); } },
};

function buildLock(app, msg, cmd) {
  const { o, common, numbers } = parseOptions('lock', cmd, LOCK_OPTIONS);
  if (!o.mode) throw new UsageError('give the maneuver: --mode lock|disarm|blitz');
  const attackerToken = actor(app, msg, o.attacker);
  const victimToken = oneTarget(app, msg, o, 'victim');
  if (victimToken.id === attackerToken.id) throw new UsageError('--target: the victim is another creature');
  const config = app.s().config;
  const a = new SheetReader(app.edge, config, attackerToken);
  const v = new SheetReader(app.edge, config, victimToken);
  // Whether the victim reacts is its controller's choice: a player says it only for a victim they control.
  const said = ['reacts', 'reaction-left'].filter((name) => cmd.options.some((op) => op.name === name));
  if (said.length && !app.isGM(msg) && !controls(app.edge, msg.playerid, victimToken)) {
    throw new UsageError(`--${said[0]}: whether ${v.name} reacts is for whoever controls it (the GM) to say; ` +
      'ask the GM to run this maneuver. Nothing was rolled');
  }
  const attacker = Object.assign({ id: attackerToken.id }, scores(a));
  if (o.mode !== 'blitz') {
    // The feat's to-hit: --to-hit, else the melee to-hit of the sheet, Strength score + size bonus (ER-4, ER-5).
    let toHit = o.toHit;
    if (toHit === undefined) {
      const strength = a.number('strength');
      if (strength === null) {
        throw new UsageError(`${a.name} has no "${config.attrs.strength}" attribute for the feat's to-hit: add it, or give --to-hit N`);
      }
      toHit = strength + SIZE_BONUS[a.size() || 'medium'];
    }
    attacker.to_hit = toHit;
  }
  if (o.bonus) attacker.bonus = o.bonus;
  if (o.advantage) attacker.advantage = true;
  if (o.disadvantage) attacker.disadvantage = true;
  const conditions = tokenConditions(config, attackerToken);
  if (conditions.length) attacker.conditions = conditions;
  if (o.weapon) attacker.weapon = o.weapon;
  if (o.type) attacker.damage_type = o.type;
  const ac = o.ac !== undefined && permissions.mayOverride(app, msg, victimToken) ? o.ac : v.number('ac');
  if (ac === null) throw new UsageError(`${v.name} has no "${config.attrs.ac}" attribute: the feat is against its AC (give --ac for a token without a character)`);
  const victim = Object.assign({ id: victimToken.id, ac }, scores(v));
  if (o.victimBonus) victim.bonus = o.victimBonus;
  const vconditions = tokenConditions(config, victimToken);
  if (vconditions.length) victim.conditions = vconditions;
  if (o.reacts) victim.reacts = true;
  if (o.reactionLeft === false) victim.reaction_left = false;
  for (const field of ['resistant', 'vulnerable', 'immune']) {
    const list = v.names(field, DAMAGE_TYPES, 'damage type');
    if (list.length) victim[field] = list;
  }
  const request = { mode: o.mode, attacker, victim };
  const verb = { lock: 'lock', disarm: 'disarm', blitz: 'shield-blitz' }[o.mode];
  return {
    request, names: { [victimToken.id]: v.name, [attackerToken.id]: a.name }, tokens: { [victimToken.id]: victimToken },
    common, numbers, actorToken: attackerToken, actorName: a.name, title: verb,
  };
}

/** The victim's Body: a disarm's cost paid to react (ER-10), a blitz's blunt d20. */
function lockEffects(result) {
  const out = [];
  if (typeof result.victim !== 'string') return out;
  const cost = result.reaction && result.reaction.body_cost;
  const paid = cost && Number(cost.points);
  if (Number.isInteger(paid) && paid > 0) out.push({ id: result.victim, damage: paid });
  const blitz = result.blitz && Number(result.blitz.damage);
  if (Number.isInteger(blitz) && blitz > 0) out.push({ id: result.victim, damage: blitz });
  return out;
}

// ---------------------------------------------------------------------------------
// throw: throwing items and throwing magic (ER Throwing Items): a pool of 1/2/3 d20 by skill
// (none, ranged fighting, hurling), each raw face against the AC; magic one d20 + Agility
// ---------------------------------------------------------------------------------

/** The items of the table (the engine's throw.ITEMS), "other" (give --damage) and "magic". */
const THROW_ITEMS = ['acid splash', 'bonfire blend', 'explosive oil', "firebreather's oil", 'holy water', 'other', 'magic'];
const OWN_DAMAGE = ['other', 'magic'];
/** The engine's limits of a request's own damage (throw.py MAX_DAMAGE_DICE, DAMAGE_BONUS). */
const THROW_DAMAGE_DICE = 10;
const THROW_DAMAGE_BONUS = 50;

/** `--item holy water`, `--item holy-water`, `--item firebreathers oil`: one of THROW_ITEMS. */
function throwItem(option) {
  const said = option.values.join(' ').trim().toLowerCase();
  const key = (x) => x.replace(/[-_\s]+/g, ' ').replace(/'/g, '');
  const found = THROW_ITEMS.find((item) => key(item) === key(said));
  if (!found) throw new UsageError(`--item takes ${THROW_ITEMS.join(', ')}, not "${said}"`);
  return found;
}

/** `--damage 2d6+1` (dice d faces + bonus) or `--damage 3` (a flat amount): the request's damage. */
function throwDamage(option) {
  const text = oneValue(option).replace(/\s+/g, '');
  const m = /^(?:(\d{1,3})d(\d{1,3}))?([+-]\d{1,3})?$/i.exec(text);
  const flat = /^\d{1,3}$/.exec(text);
  if (!text || (!m && !flat)) throw new UsageError(`--damage takes dice like 2d6+1, or a flat amount like 3, not "${text}"`);
  if (flat) {
    const bonus = integer(text, '--damage', 0, THROW_DAMAGE_BONUS);
    return { dice: 0, faces: 4, bonus };
  }
  if (!m[1] && !m[3]) throw new UsageError(`--damage takes dice like 2d6+1, not "${text}"`);
  const dice = m[1] ? integer(m[1], '--damage (dice)', 0, THROW_DAMAGE_DICE) : 0;
  const faces = m[2] ? Number(m[2]) : 4;
  if (!STANDARD_DICE.includes(faces)) throw new UsageError(`--damage: d${faces} is not a die (one of: ${STANDARD_DICE.map((f) => `d${f}`).join(', ')})`);
  const bonus = m[3] ? integer(m[3], '--damage (bonus)', -THROW_DAMAGE_BONUS, THROW_DAMAGE_BONUS) : 0;
  return { dice, faces, bonus };
}

const THROW_OPTIONS = {
  item: { parse: (op, o) => { o.item = throwItem(op); } },
  attacker: { parse: (op, o) => { o.attacker = oneValue(op); } },
  skill: { number: true, parse: (op, o) => { o.skill = choiceOf(op, ['none', 'ranged', 'hurling']); } },
  damage: { number: true, parse: (op, o) => { o.damage = throwDamage(op); } },
  type: { number: true, parse: (op, o) => { o.type = choiceOf(op, DAMAGE_TYPES); } },
  bonus: { number: true, parse: (op, o) => { o.bonus = integer(oneValue(op), '--bonus', -50, 50); } },
  advantage: { number: true, parse: (op, o) => { o.advantage = flag(op); } },
  disadvantage: { number: true, parse: (op, o) => { o.disadvantage = flag(op); } },
  cover: {
    number: true,
    parse: (op, o) => {
      const v = oneValue(op).toLowerCase();
      if (!COVERS.includes(v)) throw new UsageError(`--cover takes ${COVERS.join(', ')}, not "${v}"`);
      o.cover = v;
    },
  },
  ac: { number: true, parse: (op, o) => { o.ac = integer(oneValue(op), '--ac', -100, 200); } },
};

function buildThrow(app, msg, cmd) {
  const { o, common, numbers } = parseOptions('throw', cmd, THROW_OPTIONS);
  if (!o.item) throw new UsageError(`give what is thrown: --item ${THROW_ITEMS.join('|')}`);
  const ownDamage = OWN_DAMAGE.includes(o.item);
  if (ownDamage && !o.damage) {
    throw new UsageError(`--item ${o.item}: give its damage, --damage 2d6 (dice, and +N) or --damage 3 (a flat amount), and --type T`);
  }
  if (!ownDamage && (o.damage || o.type)) {
    throw new UsageError(`--${o.damage ? 'damage' : 'type'}: ${o.item} does the table's damage; --damage and --type are for --item other or magic`);
  }
  const throwerToken = actor(app, msg, o.attacker);
  const targetToken = oneTarget(app, msg, o);
  if (throwerToken.id === targetToken.id) throw new UsageError('--target: a throw is at another creature');
  const config = app.s().config;
  const thrower = new SheetReader(app.edge, config, throwerToken);
  const victim = new SheetReader(app.edge, config, targetToken);
  const ac = o.ac !== undefined && permissions.mayOverride(app, msg, targetToken) ? o.ac : victim.number('ac');
  if (ac === null) {
    throw new UsageError(`${victim.name} has no "${config.attrs.ac}" attribute: a throw is against its AC (give --ac for a token without a character)`);
  }
  // The target as an attack reads it (its AC by damage type, resistances, markers, --cover), the fields a throw takes.
  const read = victim.target({ ac, cover: o.cover });
  const target = Object.assign({ id: targetToken.id }, pick(read, ['ac', 'ac_by_type', 'cover', 'resistant', 'vulnerable', 'immune', 'conditions']));
  const request = { item: o.item, thrower: thrower.attacker(), target };
  if (o.skill) request.skill = o.skill;
  if (ownDamage) request.damage = Object.assign({}, o.damage, { damage_type: o.type || 'fire' });
  if (o.bonus) request.bonus = o.bonus;
  if (o.advantage) request.advantage = true;
  if (o.disadvantage) request.disadvantage = true;
  return {
    request, names: { [targetToken.id]: victim.name }, tokens: { [targetToken.id]: targetToken }, common, numbers,
    actorToken: throwerToken, actorName: thrower.name, title: o.item === 'magic' ? 'throwing magic' : o.item,
  };
}

/** The target's damage on a hit (after its resistance, ER-10). */
function throwEffects(result) {
  const n = result.damage && Number(result.damage.damage);
  return result.hit === true && Number.isInteger(n) && n > 0 && typeof result.target === 'string' ? [{ id: result.target, damage: n }] : [];
}

// ---------------------------------------------------------------------------------
// slam: a grappler hurls and slams the victim it holds ("ER Grappling", "ER Grappling:
// Uncommon Conditions"): its Strength bonus in damage, the victim freed; a grappler ten feet
// or taller may slam it into another target within two hexes (a 3d20 hurling attack)
// ---------------------------------------------------------------------------------

const SLAM_OPTIONS = {
  attacker: { parse: (op, o) => { o.attacker = oneValue(op); } },
  into: { parse: (op, o) => { o.into = oneValue(op); } },
  distance: { number: true, parse: (op, o) => { o.distance = integer(oneValue(op), '--distance', 0, 1000); } },
  'damage-type': { number: true, parse: (op, o) => { o.damageType = choiceOf(op, DAMAGE_TYPES); } },
  height: { number: true, parse: (op, o) => { o.height = integer(oneValue(op), '--height', 0, 1000); } },
  'to-hit': { number: true, parse: (op, o) => { o.toHit = integer(oneValue(op), '--to-hit', -100, 100); } },
  advantage: { number: true, parse: (op, o) => { o.advantage = flag(op); } },
  disadvantage: { number: true, parse: (op, o) => { o.disadvantage = flag(op); } },
  ac: { number: true, parse: (op, o) => { o.ac = integer(oneValue(op), '--ac', -100, 200); } },
};

/** A side's resistances from its sheet (ER-10). */
function resistances(reader, into) {
  for (const field of ['resistant', 'vulnerable', 'immune']) {
    const list = reader.names(field, DAMAGE_TYPES, 'damage type');
    if (list.length) into[field] = list;
  }
  return into;
}

function buildSlam(app, msg, cmd) {
  const { o, common, numbers } = parseOptions('slam', cmd, SLAM_OPTIONS);
  if (o.into === undefined && (o.distance !== undefined || o.toHit !== undefined || o.advantage || o.disadvantage || o.ac !== undefined)) {
    const said = ['distance', 'to-hit', 'advantage', 'disadvantage', 'ac'].find((name) => cmd.options.some((op) => op.name === name));
    throw new UsageError(`--${said} is for the hurl into a second target: give --into TOKEN`);
  }
  const grapplerToken = actor(app, msg, o.attacker);
  const victimToken = oneTarget(app, msg, o, 'victim');
  if (victimToken.id === grapplerToken.id) throw new UsageError('--target: the victim is another creature, the one the grappler holds');
  const config = app.s().config;
  const g = new SheetReader(app.edge, config, grapplerToken);
  const v = new SheetReader(app.edge, config, victimToken);
  // Sizes decide who may slam (two or more categories larger) and whether the grappler is tall.
  const grappler = { id: grapplerToken.id, size: g.size() || 'medium' };
  const strength = needAttribute(app, g, 'strength', 'the slam\'s damage (its Strength bonus, ER-4)');
  if (strength.modifier !== undefined) grappler.strength_mod = strength.modifier;
  else grappler.strength = strength.score;
  if (o.height !== undefined) grappler.height = o.height;
  const conditions = tokenConditions(config, grapplerToken);
  if (conditions.length) grappler.conditions = conditions;
  const victim = resistances(v, { id: victimToken.id, size: v.size() || 'medium' });
  const vconditions = tokenConditions(config, victimToken);
  if (vconditions.length) victim.conditions = vconditions;
  const request = { grappler, victim };
  if (o.damageType) request.damage_type = o.damageType;
  const names = { [victimToken.id]: v.name, [grapplerToken.id]: g.name };
  const tokens = { [victimToken.id]: victimToken };
  if (o.into !== undefined) {
    const intoToken = tokenOf(app, msg, o.into, 'into');
    if ([grapplerToken.id, victimToken.id].includes(intoToken.id)) {
      throw new UsageError('--into: the second target is a third creature, neither the grappler nor its victim');
    }
    const t = new SheetReader(app.edge, config, intoToken);
    const ac = o.ac !== undefined && permissions.mayOverride(app, msg, intoToken) ? o.ac : t.number('ac');
    if (ac === null) {
      throw new UsageError(`${t.name} has no "${config.attrs.ac}" attribute: the hurl is against its AC (give --ac for a token without a character)`);
    }
    request.into = resistances(t, { id: intoToken.id, ac, size: t.size() || 'medium', distance: o.distance !== undefined ? o.distance : 5 });
    if (o.toHit !== undefined) grappler.to_hit = o.toHit;
    if (o.advantage) grappler.advantage = true;
    if (o.disadvantage) grappler.disadvantage = true;
    names[intoToken.id] = t.name;
    tokens[intoToken.id] = intoToken;
  }
  return { request, names, tokens, common, numbers, actorToken: grapplerToken, actorName: g.name, title: request.into ? 'slam into a target' : 'slam' };
}

/** The victim's damage (ER-10 applied), and the second target's on a hit. */
function slamEffects(result) {
  const out = [];
  const taken = result.victim_damage && Number(result.victim_damage.damage);
  if (typeof result.victim === 'string' && Number.isInteger(taken) && taken > 0) out.push({ id: result.victim, damage: taken });
  const t = result.into;
  const hurt = t && Number(t.damage);
  if (t && t.hit === true && typeof t.id === 'string' && Number.isInteger(hurt) && hurt > 0) out.push({ id: t.id, damage: hurt });
  return out;
}

// ---------------------------------------------------------------------------------
// The table: one entry per bridge-built kind. `method`: the bridge's (bridge/README.md);
// `noun`: what the notices call it; `build(app, msg, cmd)` → {request, names, tokens, common,
// numbers, actorToken?, actorName?, title}; `effects(result)` → [{id, damage?, conditions?}];
// `card(result, ctx)` → the card's rows (kindcards.js).
// ---------------------------------------------------------------------------------

const KINDS = {
  save: { method: 'save.roll', title: 'Save', noun: 'save', build: buildSave, effects: saveEffects, card: kindcards.saveRows },
  touch: { method: 'touch.roll', title: 'Touch attack', noun: 'touch attack', build: buildTouch, effects: () => [], card: kindcards.touchRows },
  drop: { method: 'drop.roll', title: 'Getting the drop (ER-13)', noun: 'getting-the-drop', build: buildDrop, effects: dropEffects, card: kindcards.dropRows },
  lock: { method: 'lock.roll', title: 'Weapon lock and disarm', noun: 'weapon lock and disarm', build: buildLock, effects: lockEffects, card: kindcards.lockRows },
  throw: { method: 'throw.roll', title: 'Throw', noun: 'throw', build: buildThrow, effects: throwEffects, card: kindcards.throwRows },
  slam: { method: 'slam.roll', title: 'Slam', noun: 'slam', build: buildSlam, effects: slamEffects, card: kindcards.slamRows },
};

/** `!fracas KIND …`: build the request, send it through the relay, say so. */
function kindCommand(app, msg, cmd, kind) {
  const entry = KINDS[kind];
  const built = entry.build(app, msg, cmd);
  permissions.checkNumbers(app, msg, built.numbers);
  permissions.checkDice(app, msg, built.common);
  const { request, names, tokens, common } = built;
  msg.fracasNames = names;
  request.seed = common.seed !== undefined ? common.seed : app.newSeed();
  if (common.rolls) request.rolls = common.rolls;
  const seen = permissions.playerNames(names, tokens, built.actorToken || null, built.actorName || '', app.edge);
  // The acting token is named on the card too (a lock's sides, its outcome): as players know it.
  if (built.actorToken && own(seen.names, built.actorToken.id)) seen.names[built.actorToken.id] = seen.attacker;
  const meta = {
    kind, names, seen: seen.names, actor: built.actorName || null, actorSeen: built.actorToken ? seen.attacker : null,
    title: built.title, apply: common.apply, whisper: common.whisper === undefined ? null : common.whisper,
    playerid: msg.playerid, actorId: built.actorToken ? built.actorToken.id : null,
  };
  const sent = relaylink.send(app, entry.method, request, meta, 'k');
  store.pushLog(app.s(), { id: sent.id, request, seed: typeof request.seed === 'bigint' ? request.seed.toString() : request.seed });
  const lines = [`This script has no offline ${esc.text(entry.noun)} resolver: the bridge rolls it. ` +
    `Sent as ${esc.text(sent.id)} (${sent.frames} relay frame${sent.frames === 1 ? '' : 's'}); the card follows when it answers.`];
  if (!app.s().relay.last_hello) {
    lines.push('The relay is not connected (it has not said hello): the request is kept, nothing is lost. ' +
      `Start fracas serve and the relay extension (!fracas relay), then ${esc.button('resend', `!fracas resend ${sent.id}`)}.`);
  }
  app.whisper(msg.playerid, cards.notice(`fracas ${kind}`, lines));
  return sent;
}

/** The bridge's answer: checked against its layout, effects applied to the named tokens, one undo, the card. */
function applyKind(app, pending, result, id) {
  const meta = pending.meta;
  const kind = Object.keys(KINDS).find((k) => KINDS[k].method === pending.method);
  const entry = KINDS[kind];
  const problems = layoutProblems(DEFAULT_RULESET, kind, result);
  if (problems.length) {
    app.error(null, `the bridge's answer to ${id} is not a ${kind} result (${problems.slice(0, 3).join('; ')}): nothing was applied`);
    return;
  }
  const edge = app.edge;
  const s = app.s();
  const config = s.config;
  const applied = {};
  const markers = {};
  const changes = [];
  const missing = [];
  for (const effect of entry.effects(result)) {
    if (!own(meta.names, effect.id)) {
      edge.log(`relay answer ${id} names a token the request did not (${effect.id}): ignored`);
      continue;
    }
    if (!meta.apply) continue;
    const token = edge.getGraphic(effect.id);
    if (!token) {
      missing.push(meta.names[effect.id]);
      continue;
    }
    if (effect.damage) {
      applied[effect.id] = applyDamage(edge, config, token, effect.damage);
      if (applied[effect.id].change) changes.push(applied[effect.id].change);
    }
    if (effect.conditions) {
      const done = addMarkers(edge, token, effect.conditions, (c) => edge.markerTag(markerFor(config, c)));
      markers[effect.id] = done.added;
      if (done.change) changes.push(done.change);
    }
  }
  if (changes.length) store.pushUndo(s, { id, label: `${entry.title}: ${meta.title}`, time: edge.now(), changes });
  const asker = { playerid: meta.playerid };
  const whisper = meta.whisper === null ? undefined : meta.whisper;
  const seenApplied = permissions.hideBody(app, whisper, {}, applied, asker);
  const card = (names, actorName, shown) => {
    const rows = entry.card(result, { names, actor: actorName, applied: shown, markers, apply: meta.apply, actorId: meta.actorId, id });
    rows.push(kindcards.footer(result, { id, undo: changes.length ? id : null, kind: entry.noun }));
    return cards.template(`${entry.title}: ${meta.title}${actorName ? ` (${actorName})` : ''}`, rows);
  };
  app.postCard(asker, card(meta.seen, meta.actorSeen, seenApplied), whisper, card(meta.names, meta.actor, applied));
  if (missing.length) app.error(null, `not applied, the token is gone: ${missing.join(', ')}`);
}

/** The bridge's refusal (a JSON-RPC error), told with the tokens' names for its ids, to the GM and the asker. */
function refusedKind(app, pending, error, id) {
  const meta = pending.meta;
  let text = `${error.data && typeof error.data.path === 'string' ? `${error.data.path}: ` : ''}${error.message || 'error'}`;
  for (const tid of Object.keys(meta.names || {})) text = text.split(`'${tid}'`).join(meta.names[tid]).split(tid).join(meta.names[tid]);
  const line = `the bridge refused request ${id}: ${text} (code ${error.code}); nothing was rolled or applied`;
  app.error(null, line);
  if (meta.playerid && meta.playerid !== 'API' && !app.edge.isGM(meta.playerid)) app.error({ playerid: meta.playerid }, line);
}

for (const entry of Object.values(KINDS)) relaylink.register(entry.method, applyKind, refusedKind);

/** The methods the table sends (relay.unit.test.js checks the relay carries exactly the Mod's). */
function methods() {
  return Object.values(KINDS).map((e) => e.method);
}

module.exports = { KINDS, kindCommand, applyKind, methods, SAVE_OPTIONS, TOUCH_OPTIONS, DROP_OPTIONS, LOCK_OPTIONS, THROW_OPTIONS, THROW_ITEMS, SLAM_OPTIONS };
