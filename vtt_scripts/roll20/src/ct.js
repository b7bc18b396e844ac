'use strict';
// Cartyrion (CT-1 … CT-7): the twin of src/fracas/rulesets/ct/. Explosions stop at
// CT_EXPLODE_LIMIT per strike (rows.js), and the strike result says explosions_cut.

const { RulesError, SchemaError } = require('./errors');
const { structsOf, rulesetInfo, pyRepr } = require('./schema');
const { checkRange } = require('./plan');
const {
  LAYOUT: L, CT_DICE, CT_EXPLODE_LIMIT, BONUS_RANGE, say,
} = require('./facts');
const rows = require('./rows');

const { name: NAME, title: TITLE } = rulesetInfo('cartyrion');
const B = BONUS_RANGE;
const DIE = /^\s*1?\s*[dD]\s*(\d+)\s*$/;
const { AttackRequest, Target, InitiativeRequest } = structsOf(NAME);

/** CT-3: 1 die at level 1, 2 at level 3, one more at every odd level. */
const diceForLevel = (level) => Math.floor((level + 1) / 2);

function checkAttacker(attacker, path) {
  checkRange(attacker.level, 1, 40, `${path}.level`, 'level');
  checkRange(attacker.bonus, ...B, `${path}.bonus`, 'bonus');
  checkRange(attacker.magic, 0, 10, `${path}.magic`, 'magic');
  if (attacker.awa !== null) checkRange(attacker.awa, ...B, `${path}.awa`, 'awa');
  return attacker;
}

function checkTarget(target, path) {
  checkRange(target.dex, ...B, `${path}.dex`, 'dex');
  checkRange(target.armor, 0, 100, `${path}.armor`, 'armor');
  checkRange(target.weapon_magic, 0, 10, `${path}.weapon_magic`, 'weapon_magic');
  if (target.shield !== null) checkRange(target.shield, 0, 10000, `${path}.shield`, 'shield');
  return target;
}

function parseDie(text, path) {
  const match = DIE.exec(text);
  if (!match) throw new SchemaError(path, say('ct_die', { text: pyRepr(text) }));
  return rows.checkDie(Number(match[1]), path, CT_DICE, TITLE, 'CT-3');
}

/**
 * CT-2: the attacker's bonus a strike of this kind adds to its damage: melee `bonus` (STR,
 * or DEX for a finesse weapon); ranged the AWA bonus, `awa` when given, else `bonus`.
 */
function damageBonus(attacker, method) {
  return method === 'ranged' && attacker.awa !== null ? attacker.awa : attacker.bonus;
}

function compileStrike(strike, path, attacker, apath, target) {
  const faces = parseDie(strike.die, `${path}.die`);
  if (strike.dice !== null) checkRange(strike.dice, 1, rows.MAX_DICE, `${path}.dice`, 'dice');
  let dice = strike.dice !== null ? strike.dice : diceForLevel(attacker.level);
  if (strike.power) dice *= 2;
  const bonus = damageBonus(attacker, strike.method);
  const cols = rows.row({
    HIT: L.X_HIT_NONE, DICE: dice, FACES: faces, EXPLODE: 1, PER_DIE: attacker.magic, FLAT: bonus,
  });
  const sneak = strike.sneak;
  if (sneak !== null && strike.power) throw new RulesError(`${path}.sneak`, say('ct_sneak_power'));
  let dex = target.dex;
  let armor = target.armor;
  if (sneak === null) {
    cols[L.X_REDUCE] = dex + armor;
  } else if (sneak === 'passed') {
    cols[L.X_REDUCE] = 0;
    dex = 0;
    armor = 0;
  } else if (sneak === 'failed') {
    cols[L.X_REDUCE] = armor;
    dex = 0;
  } else {
    if (attacker.awa === null) throw new RulesError(`${path}.sneak`, say('ct_sneak_roll'));
    cols[L.X_CHECK] = 1;
    cols[L.X_CHECK_BONUS] = attacker.awa;
    cols[L.X_CHECK_DC] = 10 + armor;
    cols[L.X_REDUCE] = armor;
    cols[L.X_REDUCE_PASS] = 0;
    dex = 0;
  }
  const injury = strike.method === 'ranged' || sneak !== null;
  cols[L.X_POOL] = injury ? 1 : 0;
  if (strike.method === 'ranged') {
    cols[L.X_COST] = 4;
    cols[L.X_COST_HALF] = strike.specialized ? 1 : 0;
  }
  if (strike.parry === 'weapon') {
    cols[L.X_PARRY] = L.X_PARRY_WEAPON;
  } else if (strike.parry === 'shield') {
    if (target.shield === null) throw new RulesError(`${path}.parry`, say('ct_shield'));
    cols[L.X_PARRY] = L.X_PARRY_SHIELD;
  }
  const facts = {
    method: strike.method, die: `d${faces}`, dice, power: strike.power, bonus,
    magic_bonus: attacker.magic * dice, dex, armor, target_armor: target.armor, sneak, parry: strike.parry,
    pool: injury ? 'injury' : 'stamina', dc: 10 + target.armor, awa: attacker.awa,
  };
  return [cols, { target: '', path, facts, faces }];
}

/** Whether a maximum face added no die because the strike had exploded CT_EXPLODE_LIMIT
 * times (every other maximum face explodes: CT-3); explosionsCut in rulesets/ct. */
function explosionsCut(meta, out, faces) {
  return out.exploded >= CT_EXPLODE_LIMIT && faces.filter((face) => face === meta.faces).length > out.exploded;
}

function strikeResult(meta, out, faces) {
  const f = meta.facts;
  let armor = f.armor;
  let check = null;
  if (out.check) {
    const passed = out.check === 1;
    check = { roll: out.check_roll, bonus: f.awa, total: out.check_roll + f.awa, dc: f.dc, passed };
    armor = passed ? 0 : f.target_armor;
  }
  const parry = f.parry ? { kind: f.parry, absorbed: out.absorbed, left: out.parry_left, broken: out.parry_left === 0 } : null;
  const cost = out.cost_roll ? { roll: out.cost_roll, cost: out.cost } : null;
  return {
    target: meta.target, method: f.method, die: f.die, dice: f.dice, power: f.power, faces,
    exploded: out.exploded, explosions_cut: explosionsCut(meta, out, faces), dice_total: out.dice_sum,
    bonus: f.bonus, magic_bonus: f.magic_bonus, raw: out.raw,
    dex: f.dex, armor, sneak: f.sneak, sneak_check: check, parry, pool: f.pool, damage: out.damage,
    stamina_cost: cost,
  };
}

function targetResult(entry, target, strikes) {
  entry.stamina = strikes.filter(([m]) => m.facts.pool === 'stamina').reduce((s, [, o]) => s + o.damage, 0);
  entry.injury = strikes.filter(([m]) => m.facts.pool === 'injury').reduce((s, [, o]) => s + o.damage, 0);
}

function attackResult(result, strikes) {
  result.attacker = { stamina_cost: strikes.reduce((s, [, o]) => s + o.cost, 0) };
}

/** [side acting first, side surprised or null] for a d6 (CT-1). */
function sideInitiative(roll, round, ambush) {
  if (round === 1 && ambush === 'opponents') {
    if (roll <= 2) return ['opponents', 'party'];
    return roll === 3 ? ['opponents', null] : ['party', null];
  }
  if (round === 1 && ambush === 'party') {
    if (roll >= 5) return ['party', 'opponents'];
    return roll === 4 ? ['party', null] : ['opponents', null];
  }
  const first = roll <= 3 ? 'opponents' : 'party';
  if (round === 1 && roll === 1) return [first, 'party'];
  if (round === 1 && roll === 6) return [first, 'opponents'];
  return [first, null];
}

const initiative = {
  Request: InitiativeRequest,
  what: 'initiative',
  compile(req) {
    checkRange(req.round, 1, 1000000, '$.round', 'round');
    if (req.round > 1 && req.ambush !== 'none') throw new RulesError('$.ambush', say('ct_ambush_round', { round: req.round }));
  },
  roll(req, dice, seed, injected) {
    const roll = rows.rollOrSay(dice, 6, 'initiative');
    const [first, surprised] = sideInitiative(roll, req.round, req.ambush);
    return { ruleset: NAME, seed, injected, round: req.round, ambush: req.ambush, roll, first, surprised };
  },
};

module.exports = {
  name: NAME, title: TITLE, attackRule: 'CT-2', largestDie: 20, AttackRequest, Target, checkAttacker, checkTarget,
  compileStrike, strikeResult, targetResult, attackResult, initiative, diceForLevel, sideInitiative, damageBonus,
  parryState: (target) => [target.weapon_magic + 1, target.shield || 0],
};
