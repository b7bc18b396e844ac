'use strict';
// Worldwalker d20 (WW-1 … WW-7): the twin of src/fracas/rulesets/ww/.

const { LimitError, RulesError, SchemaError } = require('./errors');
const { structsOf, rulesetInfo, choice, pyRepr } = require('./schema');
const { checkRange } = require('./plan');
const {
  LAYOUT: L, STANDARD_DICE, WW_TWO_WEAPON, WW_MAX_CRITICAL, WW_RANGED_ENGAGED, WW_COUNTER_RANGE, WW_MAX_SCHOOLS,
  BONUS_RANGE, say,
} = require('./facts');
const rows = require('./rows');
const { LIMITS } = require('./contract');

const { name: NAME, title: TITLE } = rulesetInfo('worldwalker');
const B = BONUS_RANGE;
const TALENTS = Object.keys(WW_TWO_WEAPON);
const { AttackRequest, Target, InitiativeRequest, CounterspellRequest } = structsOf(NAME);

function checkAttacker(attacker, path) {
  for (const name of ['skill', 'str_mod', 'dex_mod']) checkRange(attacker[name], ...B, `${path}.${name}`, name);
  if (attacker.two_weapon !== null) choice(attacker.two_weapon.talent, TALENTS, `${path}.two_weapon.talent`, 'talent');
  return attacker;
}

function checkTarget(target, path) {
  if (target.defense === null && target.dex_mod === null) throw new SchemaError(`${path}.defense`, say('ww_defense'));
  for (const name of ['defense', 'dex_mod', 'armor']) {
    if (target[name] !== null) checkRange(target[name], ...B, `${path}.${name}`, name);
  }
  if (target.two_weapon !== null) choice(target.two_weapon.talent, TALENTS, `${path}.two_weapon.talent`, 'talent');
  const reaction = target.reaction;
  if (reaction !== null) {
    checkRange(reaction.bonus, ...B, `${path}.reaction.bonus`, 'bonus');
    if (reaction.hand !== null && reaction.kind !== 'block') throw new RulesError(`${path}.reaction.hand`, say('ww_dodge_hand'));
    if (reaction.hand === 'off' && target.two_weapon === null) {
      throw new RulesError(`${path}.reaction.hand`, say('ww_off_hand_block'));
    }
  }
  return target;
}

const tn = (target) => (target.defense !== null ? target.defense : 10 + target.dex_mod);

/** WW-6: the table's penalty for a hand (null: the primary one), 0 without two weapons. */
function handPenalty(twoWeapon, hand) {
  if (twoWeapon === null) return 0;
  return WW_TWO_WEAPON[twoWeapon.talent][twoWeapon.light ? 1 : 0][hand === 'off' ? 1 : 0];
}

function twoWeaponPenalty(attacker, strike, path) {
  if (attacker.two_weapon === null && strike.hand === 'off') throw new RulesError(`${path}.hand`, say('ww_off_hand'));
  return handPenalty(attacker.two_weapon, strike.hand);
}

/** WW-6 on the target's block ("attack and block rolls"); a dodge is no block and takes none. */
function blockPenalty(target) {
  const reaction = target.reaction;
  if (reaction === null || reaction.kind !== 'block') return 0;
  return handPenalty(target.two_weapon, reaction.hand);
}

function compileStrike(strike, path, attacker, apath, target) {
  const [dice, faces, modifier] = rows.parseDamage(strike.damage, `${path}.damage`, STANDARD_DICE, TITLE, 'WW-3');
  if (!(strike.critical >= 0 && strike.critical <= WW_MAX_CRITICAL)) {
    throw new RulesError(`${path}.critical`, say('ww_critical', { value: strike.critical }));
  }
  checkRange(strike.crit_multiplier, 1, 10, `${path}.crit_multiplier`, 'crit_multiplier');
  checkRange(strike.modifier, ...B, `${path}.modifier`, 'modifier');
  const penalty = twoWeaponPenalty(attacker, strike, path);
  const ability = strike.method === 'melee' ? attacker.str_mod : attacker.dex_mod;
  const bonus = attacker.skill + ability + strike.modifier - strike.critical + penalty;
  const critBonus = strike.critical * strike.crit_multiplier;
  const cols = rows.row({
    HIT: L.X_HIT_WW, BONUS: bonus, TN: tn(target), DICE: dice, FACES: faces,
    FLAT: attacker.str_mod + modifier + critBonus, REDUCE: target.armor,
  });
  const reaction = target.reaction;
  if (reaction !== null) {
    cols[L.X_REACT] = 1;
    cols[L.X_REACT_BONUS] = reaction.bonus + (strike.engaged ? WW_RANGED_ENGAGED : 0) + blockPenalty(target);
  }
  if (strike.feint !== null) {
    checkRange(strike.feint.bonus, ...B, `${path}.feint.bonus`, 'bonus');
    checkRange(strike.feint.defense, ...B, `${path}.feint.defense`, 'defense');
    cols[L.X_FEINT] = 1;
    cols[L.X_FEINT_BONUS] = strike.feint.bonus;
    cols[L.X_FEINT_DEFENSE] = strike.feint.defense;
  }
  const facts = {
    method: strike.method, attack_bonus: bonus, tn: tn(target), critical: strike.critical, crit_bonus: critBonus,
    damage_bonus: attacker.str_mod + modifier + critBonus, armor: target.armor,
    reaction: reaction === null ? null : reaction.kind,
    reaction_bonus: reaction === null ? null : cols[L.X_REACT_BONUS], feint: strike.feint !== null,
  };
  return [cols, { target: '', path, facts }];
}

function strikeResult(meta, out, faces) {
  const f = meta.facts;
  const roll = out.roll;
  const feint = f.feint ? { roll: out.feint_roll, defense_roll: out.feint_def_roll, succeeded: out.feint === 1 } : null;
  const reaction = out.react_roll ? {
    kind: f.reaction, roll: out.react_roll, bonus: f.reaction_bonus, total: out.react, negated: Boolean(out.negated),
  } : null;
  return {
    target: meta.target, method: f.method, attack_roll: roll, natural: roll === 1 || roll === 20 ? roll : null,
    attack_bonus: f.attack_bonus, attack_total: out.attack, tn: f.tn, hit: Boolean(out.hit), critical: f.critical,
    feint, reaction, negated: Boolean(out.negated), damage_dice: faces, damage_bonus: f.damage_bonus,
    armor: f.armor, damage: out.damage,
  };
}

function targetResult(entry, target, strikes) {
  entry.tn = tn(target);
  entry.hits = strikes.filter(([, out]) => out.hit && !out.negated).length;
  entry.negated = strikes.filter(([, out]) => out.negated).length;
}

const initiative = {
  Request: InitiativeRequest,
  what: 'initiative',
  compile(req) {
    if (!req.combatants.length) throw new SchemaError('$.combatants', say('no_combatants'));
    if (req.combatants.length > LIMITS.WW_MAX_COMBATANTS) {
      throw new LimitError('$.combatants', say('too_many', { count: req.combatants.length, what: 'combatants', most: LIMITS.WW_MAX_COMBATANTS }));
    }
    const seen = new Set();
    req.combatants.forEach((c, i) => {
      if (seen.has(c.id)) throw new SchemaError(`$.combatants[${i}].id`, say('duplicate_combatant', { id: pyRepr(c.id) }));
      seen.add(c.id);
      checkRange(c.dex_mod, ...B, `$.combatants[${i}].dex_mod`, 'dex_mod');
      checkRange(c.bonus, ...B, `$.combatants[${i}].bonus`, 'bonus');
    });
  },
  roll(req, dice, seed, injected) {
    const entries = req.combatants.map((c) => {
      const roll = rows.rollOrSay(dice, 20, 'initiative');
      return { id: c.id, roll, modifier: c.dex_mod + c.bonus, total: roll + c.dex_mod + c.bonus, dex_mod: c.dex_mod, tiebreaks: [] };
    });
    const keys = new Map();
    for (const e of entries) keys.set(`${e.total},${e.dex_mod}`, [e.total, e.dex_mod]);
    const sorted = Array.from(keys.values()).sort((a, b) => (b[0] - a[0]) || (b[1] - a[1]));
    const order = [];
    for (const [total, dex] of sorted) {
      const tied = entries.filter((e) => e.total === total && e.dex_mod === dex);
      order.push(...rows.breakTies(tied, () => rows.rollOrSay(dice, 20, 'an initiative roll-off'), '$.combatants'));
    }
    return { ruleset: NAME, seed, injected, order };
  },
};

// WW-8 counterspells: the twin of src/fracas/rulesets/ww/counterspell.py.
const MAX_DISTANCE = 1000000;
const MAX_SCHOOL_NAME = 40;
/** Characters as Python counts them (code points), not UTF-16 units. */
const codePoints = (text) => Array.from(text).length;

function schoolName(name, path) {
  const length = codePoints(name);
  if (length < 1 || length > MAX_SCHOOL_NAME) throw new SchemaError(path, say('ww_counter_name', { length }));
}

/** The exact chance d20 + counterBonus beats d20 + casterBonus (a tie does not): [wins, 400] reduced. */
function counterChance(counterBonus, casterBonus) {
  let wins = 0;
  for (let a = 1; a <= 20; a++) for (let b = 1; b <= 20; b++) if (a + counterBonus > b + casterBonus) wins++;
  let [x, y] = [wins, 400];
  while (y) [x, y] = [y, x % y];
  return { p: wins / 400, exact: `${wins / x}/${400 / x}` };
}

const counterspell = {
  Request: CounterspellRequest,
  what: 'the counterspell',
  compile(req) {
    const caster = req.caster;
    const counter = req.counterspeller;
    schoolName(req.school, '$.school');
    for (const [path, who] of [['$.caster', caster], ['$.counterspeller', counter]]) {
      if (!who.id) throw new SchemaError(`${path}.id`, say('ww_counter_empty_id'));
      checkRange(who.modifier, ...B, `${path}.modifier`, 'modifier');
    }
    if (caster.id === counter.id) throw new SchemaError('$.counterspeller.id', say('ww_counter_same', { id: pyRepr(caster.id) }));
    checkRange(caster.skill, ...B, '$.caster.skill', 'skill');
    const names = Object.keys(counter.schools).sort();
    if (names.length > WW_MAX_SCHOOLS) {
      throw new LimitError('$.counterspeller.schools', say('too_many', { count: names.length, what: 'schools', most: WW_MAX_SCHOOLS }));
    }
    for (const name of names) {
      const path = `$.counterspeller.schools.${name}`;
      const rating = counter.schools[name];
      schoolName(name, path);
      if (rating < 1) throw new RulesError(path, say('ww_counter_no_rank', { rating, school: pyRepr(name) }));
      checkRange(rating, 1, B[1], path, 'skill');
    }
    if (counter.distance === null) {
      throw new SchemaError('$.counterspeller.distance', say('ww_counter_distance', { most: WW_COUNTER_RANGE }));
    }
    checkRange(counter.distance, 0, MAX_DISTANCE, '$.counterspeller.distance', 'distance');
    if (counter.distance > WW_COUNTER_RANGE) {
      throw new RulesError('$.counterspeller.distance', say('ww_counter_far', { distance: counter.distance, most: WW_COUNTER_RANGE }));
    }
    if (!Object.prototype.hasOwnProperty.call(counter.schools, req.school)) {
      throw new RulesError('$.counterspeller.schools', say('ww_counter_untrained', {
        id: pyRepr(counter.id), school: pyRepr(req.school), schools: names.join(', ') || 'none',
      }));
    }
  },
  /** Draw order: the counterspeller's d20, then the caster's (WW-8). */
  roll(req, dice, seed, injected) {
    const cs = req.counterspeller;
    const caster = req.caster;
    const counterBonus = cs.schools[req.school] + cs.modifier;
    const casterBonus = caster.skill + caster.modifier;
    const counterRoll = rows.rollOrSay(dice, 20, 'the counterspell');
    const casterRoll = rows.rollOrSay(dice, 20, 'the counterspell');
    const counterTotal = counterRoll + counterBonus;
    const casterTotal = casterRoll + casterBonus;
    const countered = counterTotal > casterTotal;
    const { p, exact } = counterChance(counterBonus, casterBonus);
    return {
      ruleset: NAME, seed, injected, school: req.school,
      counterspeller: { id: cs.id, skill: cs.schools[req.school], modifier: cs.modifier, distance: cs.distance, roll: counterRoll, total: counterTotal },
      caster: { id: caster.id, skill: caster.skill, modifier: caster.modifier, roll: casterRoll, total: casterTotal },
      countered, p_countered: p, p_countered_exact: exact,
      outcome: countered ? `${cs.id} counters ${caster.id}'s ${req.school} spell: it fizzles`
        : `${caster.id}'s ${req.school} spell is cast: ${cs.id} fails to counter it`,
    };
  },
};

module.exports = {
  name: NAME, title: TITLE, attackRule: 'WW-2', largestDie: Math.max(...STANDARD_DICE),
  AttackRequest, Target, checkAttacker, checkTarget, compileStrike, strikeResult, targetResult, initiative, counterspell,
};
