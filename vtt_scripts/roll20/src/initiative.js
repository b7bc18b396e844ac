'use strict';
// ER-18 initiative: d10 + Agility modifier + other modifiers, ties by d20 roll-offs.
// The twin of src/fracas/rulesets/er/initiative.py, with the same draw order: one d10 per
// combatant in request order; then, for each group of tied totals from the highest
// total down, one d20 per tied combatant in request order; combatants still tied
// roll again (their group first), until every tie is broken.

const { DiceError, LimitError, SchemaError, faces } = require('./errors');
const { InitiativeRequest, decode, pyRepr } = require('./schema');
const { checkRange, checkRolls, checkRuleset, checkSeed, modifier } = require('./plan');
const { say } = require('./facts');
const { Dice, KernelError, E_ROLLS_SHORT } = require('./kernel');
const { Xoshiro128 } = require('./rng');
const rows = require('./rows');

const { ER_MAX_COMBATANTS: MAX_COMBATANTS } = require('./contract').LIMITS;

/** Roll ER-18 initiative for `request.combatants`; returns {ruleset, seed, injected, order}. */
function rollInitiative(request, options = {}) {
  const req = decode(request, InitiativeRequest);
  checkRuleset(req.ruleset);
  checkSeed(req.seed);
  let seed = options.seed !== undefined && options.seed !== null ? checkSeed(options.seed, 'seed') : req.seed;
  const rolls = checkRolls(req.rolls);
  if (!req.combatants.length) throw new SchemaError('$.combatants', say('no_combatants'));
  if (req.combatants.length > MAX_COMBATANTS) {
    throw new LimitError('$.combatants', say('too_many', { count: req.combatants.length, what: 'combatants', most: MAX_COMBATANTS }));
  }
  const seen = new Set();
  const mods = req.combatants.map((c, i) => {
    const path = `$.combatants[${i}]`;
    if (seen.has(c.id)) throw new SchemaError(`${path}.id`, say('duplicate_combatant', { id: pyRepr(c.id) }));
    seen.add(c.id);
    if (c.agility === null && c.agility_mod === null) {
      throw new SchemaError(`${path}.agility`, say('initiative_needs_agility'));
    }
    if (c.agility !== null) checkRange(c.agility, -10, 40, `${path}.agility`, 'score');
    checkRange(c.bonus, -100, 100, `${path}.bonus`, 'bonus');
    return modifier(c.agility, c.agility_mod) + c.bonus;
  });
  if (seed === null || seed === undefined) {
    if (typeof options.newSeed !== 'function') throw new Error('no seed given and no newSeed() to draw one');
    seed = options.newSeed();
  }
  const dice = new Dice(Xoshiro128.fromSeed(seed), rolls);
  let order;
  try {
    order = rankAll(req.combatants, mods, dice);
  } catch (err) {
    if (!(err instanceof KernelError)) throw err;
    if (err.code === E_ROLLS_SHORT) {
      throw new DiceError('$.rolls', say('rolls_short', { given: faces(rolls.length), what: 'initiative', position: err.position }));
    }
    // the die the face was drawn for: a combatant's d10, or a roll-off's d20
    throw new DiceError(`$.rolls[${err.position}]`, say('face_range_die', { face: rolls[err.position], faces: err.faces || 10 }));
  }
  if (rolls && dice.pos < rolls.length) {
    throw new DiceError('$.rolls', say('rolls_left_over', { given: faces(rolls.length), what: 'initiative', used: dice.pos }));
  }
  return { ruleset: req.ruleset, seed, injected: rolls !== null, order };
}

function rankAll(combatants, mods, dice) {
  const entries = combatants.map((c, i) => {
    const roll = dice.die(10);
    return { id: c.id, roll, modifier: mods[i], total: roll + mods[i], tiebreaks: [] };
  });
  const ranked = [];
  for (const total of rows.distinctDescending(entries.map((e) => e.total))) {
    ranked.push(...breakTies(entries.filter((e) => e.total === total), dice, 0));
  }
  return ranked;
}

function breakTies(tied, dice, depth) {
  return rows.breakTies(tied, () => dice.die(20), '$.combatants', depth);
}

module.exports = { rollInitiative, MAX_COMBATANTS };
