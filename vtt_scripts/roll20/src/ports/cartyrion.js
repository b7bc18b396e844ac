'use strict';
// Cartyrion (CT-1 … CT-7): the twin of the Python package src/fracas/rulesets/ct/. Explosions stop at
// CT_EXPLODE_LIMIT per strike (rows.js), and the strike result says explosions_cut.

const { RulesError } = require('../errors');
const { structsOf, rulesetInfo } = require('../schema');
const { checkRange } = require('../plan');
const { CT_EXPLODE_LIMIT, say } = require('../facts');
const rows = require('../rows');

const { name: NAME, title: TITLE } = rulesetInfo('cartyrion');
const { AttackRequest, Target, InitiativeRequest } = structsOf(NAME);

// The strike compiler is translated from the Python's CLIENT_STRIKE functions.
const { checkAttacker, checkTarget, compileStrike, diceForLevel, damageBonus } = require('../strikes')[NAME];

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
