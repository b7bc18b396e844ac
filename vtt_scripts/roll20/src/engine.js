'use strict';
// Resolve Enchanted Realms attacks: parse → validate → plan → roll → aggregate.
// The twin of src/fracas/drive and rulesets/er (attack.py, result.py): same request + same seed gives the
// same result dict (docs/ENGINE.md section 7), with backend "javascript".

const { DiceError, LimitError, SchemaError, faces } = require('./errors');
const {
  AttackRequest, Target, convertMapping, decode, pyRepr, layoutKeys, DEFAULT_RULESET,
} = require('./schema');
const {
  MAX_STRIKES, checkAttacker, checkRolls, checkRuleset, checkSeed, checkTargets, compileStrike,
} = require('./plan');
const { Dice, KernelError, rollAttack } = require('./kernel');
const { LAYOUT, say, ER_DEFENSE_DC } = require('./facts');
const specials = require('./specials');
const { RulesError } = require('./errors');

const { E_ROLLS_SHORT, E_ROLL_RANGE, E_CHAIN_LIMIT, CHAIN_LIMIT } = LAYOUT;
const { Xoshiro128 } = require('./rng');

const BACKEND = 'javascript';

function kernelError(err, rolls, strikePath = '$.strikes') {
  if (err.code === E_ROLLS_SHORT) {
    return new DiceError('$.rolls', say('rolls_short', {
      given: faces(rolls.length), what: `${strikePath}[${err.where}]`, position: err.position,
    }));
  }
  if (err.code === E_ROLL_RANGE) {
    return new DiceError(`$.rolls[${err.position}]`, say('face_range_d3', {
      face: rolls[err.position], what: `${strikePath}[${err.where}]`,
    }));
  }
  if (err.code === E_CHAIN_LIMIT) {
    return new LimitError(`${strikePath}[${err.where}]`, say('chain_limit', { limit: CHAIN_LIMIT }));
  }
  return err;
}

/**
 * Check and compile an ER attack request without rolling it.
 * Returns {req, rows, metas, targets, seed, rolls}; throws a RequestError naming the path.
 */
function compileAttack(request, options = {}) {
  // As the Python driver: the ruleset first (it decides the schema), then the shape.
  if (request !== null && typeof request === 'object' && !Array.isArray(request) && 'ruleset' in request) {
    checkRuleset(request.ruleset);
  }
  const req = decode(request, AttackRequest);
  checkRuleset(req.ruleset);
  // The request's own seed is checked even when options.seed wins: a typo is still a typo.
  checkSeed(req.seed);
  const seed = options.seed !== undefined && options.seed !== null
    ? checkSeed(options.seed, 'seed') : req.seed;
  const rolls = checkRolls(req.rolls);
  const conditions = checkAttacker(req.attacker, '$.attacker');
  const targets = checkTargets(convertMapping(req.targets, Target, '$.targets'));
  if (!req.strikes.length) throw new SchemaError('$.strikes', say('no_strikes'));
  if (req.strikes.length > MAX_STRIKES) {
    throw new LimitError('$.strikes', say('too_many', { count: req.strikes.length, what: 'strikes', most: MAX_STRIKES }));
  }
  const rows = [];
  const metas = [];
  req.strikes.forEach((strike, i) => {
    const path = `$.strikes[${i}]`;
    const target = Object.prototype.hasOwnProperty.call(targets, strike.target) ? targets[strike.target] : null;
    if (!target) {
      throw new SchemaError(`${path}.target`, say('unknown_target', {
        target: pyRepr(strike.target), targets: Object.keys(targets).join(', '),
      }));
    }
    const { row, meta } = compileStrike(strike, path, req.attacker, '$.attacker', conditions, target,
      req.advantage, req.disadvantage);
    rows.push(row);
    metas.push(meta);
  });
  const flee = req.flee !== null ? specials.flee(req.flee, req.strikes, rows, metas, conditions, targets) : null;
  if (req.defense_rolls) {
    metas.forEach((meta, i) => {
      if (meta.friendly_fire) {
        throw new RulesError(`$.strikes[${i}].friendly_fire`, say('defense_friendly_fire', { strike: i }));
      }
    });
  }
  return { req, rows, metas, targets, seed, rolls, flee, defense: req.defense_rolls };
}

/**
 * Resolve one ER attack. `options.seed` wins over the request's own seed; with
 * neither, `options.newSeed()` draws one (the Mod script passes Roll20's randomInteger).
 * Returns the result dict of docs/ENGINE.md section 7.
 */
function resolve(request, options = {}) {
  const plan = compileAttack(request, options);
  let seed = plan.seed;
  if (seed === null || seed === undefined) {
    if (typeof options.newSeed !== 'function') throw new Error('no seed given and no newSeed() to draw one');
    seed = options.newSeed();
  }
  const rolls = plan.rolls;
  const dice = new Dice(Xoshiro128.fromSeed(seed), rolls);
  const result = rollPlan(plan, dice, seed);
  if (rolls && dice.pos < rolls.length) {
    throw new DiceError('$.rolls', say('rolls_left_over', { given: faces(rolls.length), what: 'the attack', used: dice.pos }));
  }
  return result;
}

/** Roll a compiled attack from `dice` (the twin of attack.roll_attack): strikes, then follow-ups. */
function rollPlan(plan, dice, seed) {
  const rolls = dice.rolls;
  let records;
  try {
    records = plan.defense ? specials.rollDefense(plan.rows, dice) : rollAttack(plan.rows, dice);
  } catch (err) {
    if (!(err instanceof KernelError)) throw err;
    if (plan.defense) throw specials.dieError(err, rolls, say('rolls_for_defense', { strike: err.where }));
    throw kernelError(err, rolls);
  }
  let strays = new Map();
  if (!plan.defense) {
    specials.fullCoverMisses(plan.metas, records);
    strays = specials.strayShots(plan.metas, plan.rows, plan.targets, records, dice);
  }
  const { shock, releases } = followUps(plan.metas, plan.targets, records, dice, strays);
  return buildResult(seed, plan.req.ruleset, rolls !== null, plan.metas, plan.targets, records, shock,
    { strays, releases, flee: plan.flee, defense: plan.defense });
}

/** Per target in request order: the ER-13 shock save, then the ER-21 grapple release. */
function followUps(metas, targets, records, dice, strays) {
  const sneakDamage = new Map();
  metas.forEach((meta, s) => {
    if (meta.sneak !== false) sneakDamage.set(meta.target, (sneakDamage.get(meta.target) || 0) + records[s].damage);
  });
  const shock = new Map();
  const releases = new Map();
  const grapplers = Object.keys(targets).filter((tid) => targets[tid].spec.grappling !== null);
  if (!sneakDamage.size && !grapplers.length) return { shock, releases };
  // ER-21: [strike, as a stray?, damage] per grappler, in strike order.
  const struck = new Map(grapplers.map((tid) => [tid, []]));
  metas.forEach((meta, s) => {
    if (struck.has(meta.target)) struck.get(meta.target).push([s, false, records[s].damage]);
    const stray = strays.get(s);
    if (stray && stray.creature !== null && struck.has(stray.creature)) {
      struck.get(stray.creature).push([s, true, stray.damage]);
    }
  });
  for (const tid of Object.keys(targets)) {
    const target = targets[tid];
    const save = shockSave(target, sneakDamage.get(tid) || 0, dice);
    if (save !== null) shock.set(tid, save);
    if (struck.has(tid)) {
      const release = specials.grappleRelease(target, struck.get(tid), dice);
      if (release !== null) releases.set(tid, release);
    }
  }
  return { shock, releases };
}

/**
 * ER-13: the save a heavy sneak attack calls for, rolled when the target's bonus is known,
 * with the target's own conditions (ER-12/ER-14).
 */
function shockSave(target, damage, dice) {
  const bodyMax = target.spec.body_max;
  if (bodyMax === null || damage <= 0 || 2 * damage < bodyMax) return null;
  const sit = specials.situation(target.spec.conditions, 'save');
  const save = {
    dc: 5 + damage, roll: null, total: null, passed: null, incapacitated_actions: null, dice: [],
    situation: specials.situationDict(sit),
  };
  try {
    if (sit.fails !== null) {
      save.passed = false;
    } else if (target.spec.save_bonus !== null) {
      const rolled = specials.rollKept(dice, 20, sit);
      save.dice = rolled.dice;
      save.roll = rolled.kept;
      save.total = rolled.kept + target.spec.save_bonus + (sit.penalty ? sit.penalty[1] : 0);
      save.passed = save.total >= save.dc;
    }
    if (save.passed === false) save.incapacitated_actions = dice.die(3);
  } catch (err) {
    if (!(err instanceof KernelError)) throw err;
    if (err.code === E_ROLLS_SHORT) {
      throw new DiceError('$.rolls', say('rolls_short', {
        given: faces(dice.rolls.length), what: `the shock save of ${target.path}`, position: err.position,
      }));
    }
    throw new DiceError(`$.rolls[${err.position}]`, say('face_range_d3', {
      face: dice.rolls[err.position], what: `${target.path}'s failed shock save`,
    }));
  }
  return save;
}

// The keys of an attack result, a strike and a target, in order: Enchanted Realms' declared
// result shapes (er/results.py, in contract.js RESULTS), which the Python backends build too.
const ER_ATTACK_KEYS = layoutKeys(DEFAULT_RULESET, 'AttackResult');
const ER_STRIKE_KEYS = layoutKeys(DEFAULT_RULESET, 'Strike');
const ER_TARGET_KEYS = layoutKeys(DEFAULT_RULESET, 'Target');

/**
 * `values` with its keys in the order of `keys` (a result layout above); a key missing
 * or extra is a bug here, so it throws.
 */
function laidOut(keys, values) {
  const out = {};
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(values, key)) throw new Error(`result layout: no ${key}`);
    out[key] = values[key];
  }
  if (Object.keys(values).length !== keys.length) {
    throw new Error(`result layout: keys beyond the spec's: ${Object.keys(values).filter((k) => !keys.includes(k))}`);
  }
  return out;
}

function buildResult(seed, ruleset, injected, metas, targetsInfo, records, shock, extra = {}) {
  const strays = extra.strays || new Map();
  const releases = extra.releases || new Map();
  const defense = Boolean(extra.defense);
  const targets = {};
  for (const tid of Object.keys(targetsInfo)) {
    targets[tid] = laidOut(ER_TARGET_KEYS, {
      damage: 0, by_type: {}, undodgeable: 0, shock_save_dc: null, shock_save: null, grapple_release: null,
    });
  }
  const strikes = metas.map((meta, s) => {
    const r = records[s];
    const dice = [];
    let discarded = null;
    r.pool.forEach((face, i) => {
      if (i === r.discard) {
        discarded = face;
        return;
      }
      if (defense) { // ER-22: the player's die + the AC against DC 21 + the to-hit
        dice.push({ face, total: face + meta.ac, hit: r.poolHits[i], source: meta.sources[i], avoided: !r.poolHits[i] });
      } else {
        dice.push({ face, total: face + meta.to_hit, hit: r.poolHits[i], source: meta.sources[i] });
      }
    });
    const chain = r.chain.map((c) => ({ face: c.face, total: c.face + meta.to_hit, hit: c.hit, damage: c.d3 }));
    const entry = targets[meta.target];
    entry.damage += r.damage;
    entry.by_type[meta.damage_type] = (entry.by_type[meta.damage_type] || 0) + r.damage;
    entry.undodgeable += r.undodgeable;
    return laidOut(ER_STRIKE_KEYS, {
      target: meta.target, method: meta.method, style: meta.style,
      damage_type: meta.damage_type, advantage: meta.advantage,
      disadvantage: meta.disadvantage, sneak: meta.sneak,
      to_hit: meta.to_hit, ac: meta.ac, crit_range: meta.crit_range,
      dice, discarded, crit_chain: chain,
      hits: r.hits, crit: r.crit, base: r.base,
      modifier: r.modUsed ? r.mod : null,
      resistance: meta.resistance, damage: r.damage, undodgeable: r.undodgeable,
      friendly_fire: meta.friendly_fire, stray: null,
      defense_dc: defense ? ER_DEFENSE_DC + meta.to_hit : null,
    });
  });
  for (const [s, stray] of strays) {
    strikes[s].stray = specials.strayDict(stray);
    if (stray.creature !== null && stray.hits) {
      const entry = targets[stray.creature];
      entry.damage += stray.damage;
      entry.by_type[stray.damage_type] = (entry.by_type[stray.damage_type] || 0) + stray.damage;
      entry.undodgeable += stray.undodgeable;
    }
  }
  for (const [tid, save] of shock) {
    targets[tid].shock_save_dc = save.dc;
    if (save.passed !== null) targets[tid].shock_save = save;
  }
  for (const [tid, release] of releases) targets[tid].grapple_release = release;
  let total = 0;
  for (const tid of Object.keys(targets)) total += targets[tid].damage;
  return laidOut(ER_ATTACK_KEYS, {
    ruleset, seed, backend: BACKEND, injected, strikes, targets, total_damage: total,
    flee: extra.flee ? Object.assign({}, extra.flee) : null, defense_rolls: defense,
  });
}

module.exports = { resolve, compileAttack, rollPlan, checkSeed, kernelError, BACKEND };
