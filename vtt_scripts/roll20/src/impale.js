'use strict';
// ER-23 impalement and the charge it answers: the twin of src/fracas/rulesets/er/impale.py.
// It compiles and rolls whole ER attacks (engine.js), so it sits above engine.js and
// specials.js, which engine.js draws its follow-ups from.

const { RulesError, SchemaError } = require('./errors');
const { ImpaleRequest, choice, decode, keyPath, pyRepr } = require('./schema');
const { checkRange } = require('./plan');
const { say, STYLES, DAMAGE_TYPES, ER_IMPALE_CLOSED, ER_IMPALE_DICE, ER_IMPALE_HEAVY_FACE } = require('./facts');
const engine = require('./engine');
const { streamOf, leftOver } = require('./specials');
const { Dice } = require('./kernel');
const { Xoshiro128 } = require('./rng');
const { DEFAULT_RULESET } = require('./contract');

function moved(err, moves) {
  let path = err.path, reason = err.reason;
  for (const [old, now] of moves) {
    if (path === old || path.startsWith(`${old}.`) || path.startsWith(`${old}[`)) {
      path = now + path.slice(old.length);
      break;
    }
  }
  for (const [old, now] of moves) if (old !== '$') reason = reason.split(old).join(now);
  return new err.constructor(path, reason);
}

/** An attack result inside another: less what the outer one says (backend). */
function inner(result) {
  const copy = Object.assign({}, result);
  delete copy.backend;
  return copy;
}

/**
 * The next `count` d20 faces of `dice`, read from a copy (the stream does not move); null
 * when injected faces run short or do not fit (the strike itself then says so). ER-23: a
 * glaive's skill dice decide its heavy property's disadvantage (the twin of impale.skill_faces).
 */
function skillFaces(dice, count) {
  const copy = new Dice(new Xoshiro128(dice.generator.s.slice()), dice.rolls, dice.pos);
  try {
    const out = [];
    for (let i = 0; i < count; i++) out.push(copy.die(20));
    return out;
  } catch (err) {
    return null;
  }
}

function isRequestError(err) {
  return err && typeof err.path === 'string' && typeof err.reason === 'string';
}

/** ER-23: the impalement, then the charge unless it is void (the twin of fracas.impale). */
function impale(request, options = {}) {
  const req = decode(request, ImpaleRequest);
  const stream = streamOf(req, options);
  const charger = req.charger, weapon = req.weapon;
  checkRange(charger.closed, 0, 10000, '$.charger.closed', 'distance closed');
  if (charger.closed < ER_IMPALE_CLOSED) throw new RulesError('$.charger.closed', say('impale_closed', { closed: charger.closed }));
  checkRange(charger.body, 1, 1000000, '$.charger.body', 'current Body');
  if (!charger.id) throw new SchemaError('$.charger.id', say('empty_target_id'));
  if (req.pikeman.charmed_by !== null && req.pikeman.charmed_by === charger.id) { // ER-14
    throw new RulesError('$.pikeman.charmed_by', say('charmed_attack', { target: pyRepr(charger.id), path: '$.pikeman.charmed_by' }));
  }
  // ER-15: defending "removes all reactions for both rounds".
  if (req.pikeman.conditions.includes('defending')) throw new RulesError('$.pikeman.conditions', say('impale_defending'));
  choice(weapon.style, STYLES, '$.weapon.style', 'style');
  if (weapon.style !== 'pole-arm') throw new RulesError('$.weapon.style', say('impale_style', { style: weapon.style }));
  choice(weapon.damage_type, DAMAGE_TYPES, '$.weapon.damage_type', 'damage type');
  if (weapon.damage_type !== 'piercing' && weapon.pole !== 'ula') { // the ula is the exception
    throw new RulesError('$.weapon.damage_type', say('impale_damage', { damage_type: weapon.damage_type }));
  }
  const target = Object.assign({}, charger);
  for (const key of ['id', 'body', 'closed']) delete target[key];
  const dice = ER_IMPALE_DICE[weapon.forte ? 1 : 0];
  const innerRequest = {
    attacker: req.pikeman,
    strikes: [{
      target: charger.id, method: 'melee', style: weapon.style, dice, damage_type: weapon.damage_type,
      weight: weapon.weight, bonus: weapon.bonus, crit: weapon.crit, crit_range: weapon.crit_range,
    }],
    targets: { [charger.id]: target },
  };
  const chargerPath = keyPath('$.targets', charger.id);
  const moves = [['$.attacker', '$.pikeman'], ['$.strikes[0]', '$.weapon'], ['$.strikes', '$.weapon'],
    [chargerPath, '$.charger'], ['$.targets', '$.charger']];
  let impalementPlan, heavyPlan = null;
  try {
    impalementPlan = engine.compileAttack(innerRequest);
    if (weapon.pole === 'glaive') { // the same strike at disadvantage (ER-12), for a natural 18-20
      heavyPlan = engine.compileAttack(Object.assign({}, innerRequest, {
        strikes: [Object.assign({}, innerRequest.strikes[0], { disadvantage: true })],
      }));
    }
  } catch (err) {
    throw isRequestError(err) ? moved(err, moves) : err;
  }
  let chargePlan = null;
  if (req.charge !== null) {
    const ruleset = req.charge.ruleset === undefined ? DEFAULT_RULESET : req.charge.ruleset;
    if (ruleset !== DEFAULT_RULESET) {
      throw new SchemaError('$.charge.ruleset', say('impale_charge_ruleset'));
    }
    for (const key of ['seed', 'rolls']) {
      if (req.charge[key] !== undefined && req.charge[key] !== null) {
        throw new SchemaError(`$.charge.${key}`, say('impale_charge_dice', { path: `$.charge.${key}` }));
      }
    }
    try {
      chargePlan = engine.compileAttack(req.charge);
    } catch (err) {
      throw isRequestError(err) ? moved(err, [['$', '$.charge']]) : err;
    }
    chargePlan.metas.forEach((meta, i) => {
      if (meta.method === 'range') {
        throw new RulesError(`$.charge.strikes[${i}].method`, say('impale_charge_melee', { method: meta.method }));
      }
    });
  }
  const { seed, dice: stream_ } = stream.start();
  let strikePlan = impalementPlan, heavy = null;
  if (heavyPlan !== null) { // a glaive: its skill dice decide the heavy property's disadvantage
    const faces = skillFaces(stream_, dice);
    const triggered = faces !== null && Math.max(...faces) >= ER_IMPALE_HEAVY_FACE;
    heavy = { faces: faces || [], disadvantage: triggered };
    if (triggered) strikePlan = heavyPlan;
  }
  let impalement;
  try {
    impalement = inner(engine.rollPlan(strikePlan, stream_, seed));
  } catch (err) {
    if (!isRequestError(err)) throw err;
    if (err.path === '$.rolls' || err.path.startsWith('$.rolls[')) {
      throw new err.constructor(err.path, err.reason.split('$.strikes[0]').join('the impalement ($.weapon)'));
    }
    throw moved(err, [['$.strikes[0]', '$.weapon'], [chargerPath, '$.charger']]);
  }
  const damage = impalement.targets[charger.id].damage;
  const after = charger.body - damage;
  const incapacitated = after <= 0;
  let charge = null;
  if (chargePlan !== null && !incapacitated) {
    try {
      charge = inner(engine.rollPlan(chargePlan, stream_, seed));
    } catch (err) {
      if (!isRequestError(err)) throw err;
      if (err.path === '$.rolls' || err.path.startsWith('$.rolls[')) {
        throw new err.constructor(err.path, err.reason.split('$.strikes').join('$.charge.strikes'));
      }
      throw moved(err, [['$', '$.charge']]);
    }
  }
  leftOver(stream_, 'the impalement and the charge');
  return {
    ruleset: req.ruleset, seed, injected: stream_.rolls !== null, closed: charger.closed, dice,
    impalement,
    charger: { id: charger.id, body: charger.body, damage, body_after: after, incapacitated },
    charge_void: incapacitated, charge, pole: weapon.pole, heavy,
  };
}

module.exports = { impale };
