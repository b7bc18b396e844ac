'use strict';
// What Worldwalker, Cartyrion and the old-school rules share: one strike-row kernel.
// The twin of src/fracas/rulesets/rows.py and of `_xstrike` in src/fracas/_native.py:
// same rows (LAYOUT.X_*), same draw order (docs/ENGINE.md section 2), same results.
// Each ruleset module (ww.js, ct.js, oldschool.js) holds only its rules; this file
// decodes, compiles, rolls and assembles results for all three.

const { DiceError, LimitError, RulesError, SchemaError, faces } = require('./errors');
const { convertMapping, decode, keyPath, pyRepr } = require('./schema');
const { checkRange, checkRolls, checkSeed } = require('./plan');
const { LAYOUT, CT_EXPLODE_LIMIT, MAX_STRIKES, MAX_TARGETS, say } = require('./facts');
const { LIMITS } = require('./contract');
const { Dice, KernelError } = require('./kernel');
const { Xoshiro128 } = require('./rng');

const L = LAYOUT;
const { ROWS_MAX_DICE: MAX_DICE, MAX_ROLL_OFFS } = LIMITS;
const EXPRESSION = /^\s*(\d*)\s*[dD]\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*$/;

/** An X_ row from column names ({TARGET: …, HIT: …}); the rest are 0. */
function row(columns) {
  const out = new Array(L.XPLAN_WIDTH).fill(0);
  for (const name of Object.keys(columns)) out[L[`X_${name}`]] = columns[name];
  return out;
}

function checkDie(sides, path, allowed, ruleset, rule) {
  if (!allowed.includes(sides)) {
    throw new RulesError(path, say('not_a_die', {
      faces: sides, ruleset, allowed: allowed.map((n) => `d${n}`).join(', '), rule,
    }));
  }
  return sides;
}

const ONE_DIE = /^\s*1?\s*[dD]\s*(\d+)\s*$/;

/** The faces of one die like "d6" or "1d8"; `code` is the message a text that is no die gets. */
function parseDie(text, path, allowed, ruleset, rule, code) {
  const match = typeof text === 'string' ? ONE_DIE.exec(text) : null;
  if (!match) throw new SchemaError(path, say(code, { text: pyRepr(text) }));
  return checkDie(Number(match[1]), path, allowed, ruleset, rule);
}

/** [dice, faces, modifier] of a damage expression like "1d8", "2d6+1", "d4-1". */
function parseDamage(text, path, allowed, ruleset, rule) {
  const match = typeof text === 'string' ? EXPRESSION.exec(text) : null;
  if (!match) throw new SchemaError(path, say('dice_expression', { text: pyRepr(text), rule }));
  const count = match[1] ? Number(match[1]) : 1;
  const sides = Number(match[2]);
  const modifier = Number(match[4] || 0) * (match[3] === '-' ? -1 : 1);
  checkDie(sides, path, allowed, ruleset, rule);
  checkRange(count, 1, MAX_DICE, path, 'dice');
  checkRange(modifier, -100, 100, path, 'modifier');
  return [count, sides, modifier];
}

/** One X_ row: the twin of _xstrike. `out` gets the Y_ columns by name, `log` the damage faces. */
function xstrike(p, dice, tstate) {
  let react = p[L.X_REACT];
  let feint = 0; let feintRoll = 0; let feintDef = 0;
  if (p[L.X_FEINT]) {
    feintRoll = dice.die(20);
    feintDef = dice.die(20);
    if (feintRoll + p[L.X_FEINT_BONUS] > feintDef + p[L.X_FEINT_DEFENSE]) {
      feint = 1;
      react = 0;
    } else {
      feint = 2;
    }
  }
  let check = 0; let checkRoll = 0;
  if (p[L.X_CHECK]) {
    checkRoll = dice.die(20);
    check = checkRoll + p[L.X_CHECK_BONUS] >= p[L.X_CHECK_DC] ? 1 : 2;
  }
  let roll = 0; let attack = 0; let hit = 1;
  if (p[L.X_HIT] === L.X_HIT_WW) {
    roll = dice.die(20);
    attack = (roll === 20 ? 30 : roll === 1 ? -10 : roll) + p[L.X_BONUS];
    hit = attack >= p[L.X_TN] ? 1 : 0;
  } else if (p[L.X_HIT] === L.X_HIT_OS) {
    roll = dice.die(20);
    attack = roll + p[L.X_BONUS];
    hit = roll === 20 || (roll !== 1 && attack >= p[L.X_TN]) ? 1 : 0;
  }
  let reactRoll = 0; let reactTotal = 0; let negated = 0;
  if (hit && react) {
    reactRoll = dice.die(20);
    reactTotal = reactRoll + p[L.X_REACT_BONUS];
    negated = reactTotal >= attack ? 1 : 0;
  }
  let diceSum = 0; let exploded = 0; let raw = 0; let reduced = 0; let absorbed = 0; let damage = 0;
  const t = p[L.X_TARGET];
  const parry = p[L.X_PARRY];
  const slot = t * L.XS_WIDTH + (parry === L.X_PARRY_SHIELD ? 1 : 0);
  let parryLeft = parry ? tstate[slot] : 0;
  const log = [];
  if (hit && !negated) {
    const sides = p[L.X_FACES];
    let pending = p[L.X_DICE];
    while (pending) {
      const face = dice.die(sides);
      log.push(face);
      diceSum += face;
      pending -= 1;
      if (p[L.X_EXPLODE] && face === sides && exploded < CT_EXPLODE_LIMIT) { // bounded (CT-3 decision)
        pending += 1;
        exploded += 1;
      }
    }
    raw = diceSum + p[L.X_FLAT] + p[L.X_PER_DIE] * p[L.X_DICE];
    reduced = check === 1 ? p[L.X_REDUCE_PASS] : p[L.X_REDUCE];
    damage = Math.max(raw - reduced, 0, p[L.X_MIN]);
    if (parry === L.X_PARRY_WEAPON && parryLeft > 0) {
      absorbed = damage;
      damage = 0;
      parryLeft = Math.max(0, parryLeft - exploded);
      tstate[slot] = parryLeft;
    } else if (parry === L.X_PARRY_SHIELD && parryLeft > 0) {
      absorbed = Math.min(damage, Math.floor((parryLeft + 1) / 2));
      damage -= absorbed;
      parryLeft = Math.max(0, parryLeft - 2 * absorbed);
      tstate[slot] = parryLeft;
    }
  }
  let costRoll = 0; let cost = 0;
  if (p[L.X_COST]) {
    costRoll = dice.die(p[L.X_COST]);
    cost = p[L.X_COST_HALF] ? Math.floor((costRoll + 1) / 2) : costRoll;
  }
  return {
    hit, roll, attack, feint, feint_roll: feintRoll, feint_def_roll: feintDef, react_roll: reactRoll,
    react: reactTotal, negated, check, check_roll: checkRoll, dice_sum: diceSum, exploded, raw, reduced,
    absorbed, damage, cost_roll: costRoll, cost, parry_left: parryLeft, log,
  };
}

function checkTargets(rules, raw, path = '$.targets') {
  const targets = convertMapping(raw, rules.Target, path);
  const ids = Object.keys(targets);
  if (!ids.length) throw new SchemaError(path, say('no_targets'));
  if (ids.length > MAX_TARGETS) throw new LimitError(path, say('too_many', { count: ids.length, what: 'targets', most: MAX_TARGETS }));
  for (const tid of ids) {
    if (!tid) throw new SchemaError(path, say('empty_target_id'));
    rules.checkTarget(targets[tid], keyPath(path, tid));
  }
  return targets;
}

/** The shared prologue of the drivers: decode, seeds, rolls (as fracas.drive._roll). */
function prologue(request, type, largest, options) {
  const req = decode(request, type);
  checkSeed(req.seed);
  let seed = options.seed !== undefined && options.seed !== null ? checkSeed(options.seed, 'seed') : req.seed;
  const rolls = checkRolls(req.rolls, largest);
  return { req, rolls, pickSeed: () => {
    if (seed === null || seed === undefined) {
      if (typeof options.newSeed !== 'function') throw new Error('no seed given and no newSeed() to draw one');
      seed = options.newSeed();
    }
    return seed;
  } };
}

function leftOver(dice, rolls, what) {
  if (rolls && dice.pos < rolls.length) {
    throw new DiceError('$.rolls', say('rolls_left_over', { given: faces(rolls.length), what, used: dice.pos }));
  }
}

/** Check and compile an attack of `rules` into X_ rows (no dice): {req, rolls, pickSeed, targets, ids, compiled}. */
function compileAttack(rules, request, options = {}) {
  const { req, rolls, pickSeed } = prologue(request, rules.AttackRequest, rules.largestDie, options);
  const attacker = rules.checkAttacker(req.attacker, '$.attacker');
  const targets = checkTargets(rules, req.targets);
  if (!req.strikes.length) throw new SchemaError('$.strikes', say('no_strikes_rule', { rule: rules.attackRule }));
  if (req.strikes.length > MAX_STRIKES) {
    throw new LimitError('$.strikes', say('too_many', { count: req.strikes.length, what: 'strikes', most: MAX_STRIKES }));
  }
  const ids = Object.keys(targets);
  const compiled = req.strikes.map((strike, i) => {
    const path = `$.strikes[${i}]`;
    if (!Object.prototype.hasOwnProperty.call(targets, strike.target)) {
      throw new SchemaError(`${path}.target`, say('unknown_target', { target: pyRepr(strike.target), targets: ids.join(', ') }));
    }
    const [cols, meta] = rules.compileStrike(strike, path, attacker, '$.attacker', targets[strike.target],
      keyPath('$.targets', strike.target));
    meta.target = strike.target;
    cols[L.X_TARGET] = ids.indexOf(strike.target);
    return [cols, meta];
  });
  return { req, rolls, pickSeed, targets, ids, compiled };
}

/** Resolve one attack of `rules` (a ruleset module's description). */
function resolveAttack(rules, request, options = {}) {
  const { rolls, pickSeed, targets, ids, compiled } = compileAttack(rules, request, options);
  const seed = pickSeed();
  const dice = new Dice(Xoshiro128.fromSeed(seed), rolls);
  const tstate = [];
  for (const tid of ids) tstate.push(...(rules.parryState ? rules.parryState(targets[tid]) : [0, 0]));
  const outs = [];
  try {
    compiled.forEach(([cols], s) => {
      dice.strike = s;
      outs.push(xstrike(cols, dice, tstate));
    });
  } catch (err) {
    if (!(err instanceof KernelError)) throw err;
    if (err.code === L.E_ROLLS_SHORT) {
      throw new DiceError('$.rolls', say('rolls_short', { given: faces(rolls.length), what: `$.strikes[${err.where}]`, position: err.position }));
    }
    throw new DiceError(`$.rolls[${err.position}]`, say('face_range_die', { face: rolls[err.position], faces: err.faces }));
  }
  leftOver(dice, rolls, 'the attack');
  const strikes = [];
  const byTarget = {};
  for (const tid of ids) byTarget[tid] = [];
  compiled.forEach(([, meta], s) => {
    strikes.push(rules.strikeResult(meta, outs[s], outs[s].log));
    byTarget[meta.target].push([meta, outs[s]]);
  });
  const resultTargets = {};
  let total = 0;
  for (const tid of ids) {
    const entry = { damage: byTarget[tid].reduce((sum, [, out]) => sum + out.damage, 0) };
    rules.targetResult(entry, targets[tid], byTarget[tid]);
    resultTargets[tid] = entry;
    total += entry.damage;
  }
  const result = {
    ruleset: rules.name, seed, backend: 'javascript', injected: rolls !== null, strikes, targets: resultTargets,
    total_damage: total,
  };
  if (rules.attackResult) rules.attackResult(result, compiled.map(([, meta], s) => [meta, outs[s]]));
  return result;
}

/** A roll of initiative or morale by `rules`: `kind.compile(req)` then `kind.roll(req, roll, seed)`. */
function resolveRoll(rules, kind, request, options = {}) {
  const spec = rules[kind];
  const { req, rolls, pickSeed } = prologue(request, spec.Request, rules.largestDie, options);
  spec.compile(req);
  const seed = pickSeed();
  const dice = new Dice(Xoshiro128.fromSeed(seed), rolls);
  const result = spec.roll(req, dice, seed, rolls !== null);
  leftOver(dice, rolls, spec.what);
  return result;
}

/** One die for `what`; injected faces that run out or do not fit name it (rows.roll_or_say). */
function rollOrSay(dice, sides, what) {
  try {
    return dice.die(sides);
  } catch (err) {
    if (!(err instanceof KernelError)) throw err;
    if (err.code === L.E_ROLLS_SHORT) {
      throw new DiceError('$.rolls', say('rolls_short', { given: faces(dice.rolls.length), what, position: err.position }));
    }
    throw new DiceError(`$.rolls[${err.position}]`, say('face_range_die', { face: dice.rolls[err.position], faces: sides }));
  }
}

function distinctDescending(values) {
  return Array.from(new Set(values)).sort((a, b) => b - a);
}

/** Order tied entries by repeated roll-offs, highest first (rows.break_ties). */
function breakTies(tied, roll, path, depth = 0) {
  if (tied.length === 1) return tied;
  if (depth >= MAX_ROLL_OFFS) throw new LimitError(path, say('tie_limit', { limit: MAX_ROLL_OFFS }));
  const rolled = tied.map((entry) => {
    const face = roll();
    entry.tiebreaks.push(face);
    return [face, entry];
  });
  const ranked = [];
  for (const face of distinctDescending(rolled.map(([f]) => f))) {
    ranked.push(...breakTies(rolled.filter(([f]) => f === face).map(([, e]) => e), roll, path, depth + 1));
  }
  return ranked;
}

module.exports = {
  row, parseDamage, parseDie, checkDie, compileAttack, resolveAttack, resolveRoll, rollOrSay, breakTies, distinctDescending, MAX_DICE,
};
