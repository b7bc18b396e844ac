'use strict';
// Resolve Enchanted Realms attacks: parse → validate → plan → roll → aggregate.
// The twin of src/fracas/drive and rulesets/er (attack.py, result.py): same request + same seed gives the
// same result dict (docs/ENGINE.md section 7), with backend "javascript".

const { DiceError, LimitError, SchemaError, faces } = require('./errors');
const { AttackRequest, Target, convertMapping, decode, pyRepr } = require('./schema');
const {
  MAX_STRIKES, checkAttacker, checkRolls, checkRuleset, checkTargets, compileStrike,
} = require('./plan');
const { Dice, KernelError, rollAttack } = require('./kernel');
const { LAYOUT, say } = require('./facts');

const { E_ROLLS_SHORT, E_ROLL_RANGE, E_CHAIN_LIMIT, CHAIN_LIMIT } = LAYOUT;
const { Xoshiro128, seedWords } = require('./rng');

const BACKEND = 'javascript';

function checkSeed(seed, path = '$.seed') {
  if (seed !== null && seed !== undefined && !seedWords(seed)) {
    throw new SchemaError(path, say('seed_range', { seed: String(seed) }));
  }
  return seed;
}

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
  return { req, rows, metas, targets, seed, rolls };
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
  let records;
  try {
    records = rollAttack(plan.rows, dice);
  } catch (err) {
    if (err instanceof KernelError) throw kernelError(err, rolls);
    throw err;
  }
  const shock = followUps(plan.metas, plan.targets, records, dice);
  if (rolls && dice.pos < rolls.length) {
    throw new DiceError('$.rolls', say('rolls_left_over', { given: faces(rolls.length), what: 'the attack', used: dice.pos }));
  }
  return buildResult(seed, plan.req.ruleset, rolls !== null, plan.metas, plan.targets, records, shock);
}

/** ER-13 shock saves, target by target in request order (ENGINE.md section 2, D-5). */
function followUps(metas, targets, records, dice) {
  const sneakDamage = new Map();
  metas.forEach((meta, s) => {
    if (meta.sneak !== false) sneakDamage.set(meta.target, (sneakDamage.get(meta.target) || 0) + records[s].damage);
  });
  const shock = new Map();
  if (!sneakDamage.size) return shock;
  for (const tid of Object.keys(targets)) {
    const target = targets[tid];
    const damage = sneakDamage.get(tid) || 0;
    const bodyMax = target.spec.body_max;
    if (bodyMax === null || damage <= 0 || 2 * damage < bodyMax) continue;
    const save = { dc: 5 + damage, roll: null, total: null, passed: null, incapacitated_actions: null };
    if (target.spec.save_bonus !== null) {
      try {
        save.roll = dice.die(20);
        save.total = save.roll + target.spec.save_bonus;
        save.passed = save.total >= save.dc;
        if (!save.passed) save.incapacitated_actions = dice.die(3);
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
    }
    shock.set(tid, save);
  }
  return shock;
}

function buildResult(seed, ruleset, injected, metas, targetsInfo, records, shock) {
  const targets = {};
  for (const tid of Object.keys(targetsInfo)) {
    targets[tid] = { damage: 0, by_type: {}, undodgeable: 0, shock_save_dc: null, shock_save: null };
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
      dice.push({ face, total: face + meta.to_hit, hit: r.poolHits[i], source: meta.sources[i] });
    });
    const chain = r.chain.map((c) => ({ face: c.face, total: c.face + meta.to_hit, hit: c.hit, damage: c.d3 }));
    const entry = targets[meta.target];
    entry.damage += r.damage;
    entry.by_type[meta.damage_type] = (entry.by_type[meta.damage_type] || 0) + r.damage;
    entry.undodgeable += r.undodgeable;
    return {
      target: meta.target, method: meta.method, style: meta.style,
      damage_type: meta.damage_type, advantage: meta.advantage,
      disadvantage: meta.disadvantage, sneak: meta.sneak,
      to_hit: meta.to_hit, ac: meta.ac, crit_range: meta.crit_range,
      dice, discarded, crit_chain: chain,
      hits: r.hits, crit: r.crit, base: r.base,
      modifier: r.modUsed ? r.mod : null,
      resistance: meta.resistance, damage: r.damage, undodgeable: r.undodgeable,
      friendly_fire: meta.friendly_fire,
    };
  });
  for (const [tid, save] of shock) {
    targets[tid].shock_save_dc = save.dc;
    if (save.roll !== null) targets[tid].shock_save = save;
  }
  let total = 0;
  for (const tid of Object.keys(targets)) total += targets[tid].damage;
  return {
    ruleset, seed, backend: BACKEND, injected, strikes, targets, total_damage: total,
  };
}

module.exports = { resolve, compileAttack, checkSeed, BACKEND };
