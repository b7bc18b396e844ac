'use strict';
// Worldwalker d20 (WW-1 … WW-7): the twin of the Python package src/fracas/rulesets/ww/.

const { LimitError, RulesError, SchemaError } = require('../errors');
const { structsOf, rulesetInfo, pyRepr } = require('../schema');
const { checkRange } = require('../plan');
const { STANDARD_DICE, WW_COUNTER_RANGE, WW_MAX_SCHOOLS, BONUS_RANGE, say } = require('../facts');
const rows = require('../rows');
const { LIMITS } = require('../contract');

const { name: NAME, title: TITLE } = rulesetInfo('worldwalker');
const B = BONUS_RANGE;
const { AttackRequest, Target, InitiativeRequest, CounterspellRequest } = structsOf(NAME);

// The strike compiler (WW-2 … WW-7) is translated from the Python's CLIENT_STRIKE functions.
const { checkAttacker, checkTarget, compileStrike, tn } = require('../strikes')[NAME];

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

// WW-8 counterspells: the twin of the Python package src/fracas/rulesets/ww/counterspell.py.
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
