'use strict';
// Compile a typed ER request into strike rows: the twin of src/fracas/rulesets/er/plan.py.
// Everything the rules decide before a die is rolled happens here (ER-3, ER-4,
// ER-5, ER-6, ER-8, ER-10, ER-12 … ER-16); impossible attacks are refused with a path.

const { SchemaError, RulesError, LimitError, DiceError } = require('./errors');
const {
  CONDITIONS, COVERS, CRIT_STYLES, DAMAGE_TYPES, RULESETS, SIZES, STYLES, choice, keyPath, pyRepr, jsonType,
} = require('./schema');
const {
  LAYOUT, STYLE_METHOD, MECHANICAL_STYLES, SIZE_BONUS, COVER_AC, RESISTANCES, say,
  CANNOT_ATTACK, ATTACKER_DISADVANTAGE, TARGET_ADVANTAGE, DEFENDING_UNSEEING, DEFENDING_UNSEEN,
  MAX_SKILL_DICE, MAX_STRIKES, MAX_TARGETS, MAX_NEARBY, MAX_ROLLS, SCORE_RANGE, BONUS_RANGE, AC_RANGE,
} = require('./facts');
const { seedWords } = require('./rng');

const { R_NORMAL, R_HALF, R_DOUBLE, R_IMMUNE } = LAYOUT;
const RESISTANCE_NAMES = RESISTANCES;

/** A request's seed: absent, null, or 0 … 2**64 - 1 (a Number, BigInt or decimal string); returned. */
function checkSeed(seed, path = '$.seed') {
  if (seed !== null && seed !== undefined && !seedWords(seed)) {
    throw new SchemaError(path, say('seed_range', { seed: String(seed) }));
  }
  return seed;
}

/** A number within [low, high], or a SchemaError naming the bounds. */
function checkRange(value, low, high, path, what) {
  if (!(value >= low && value <= high)) {
    throw new SchemaError(path, say('out_of_range', { what, value, low, high }));
  }
  return value;
}

function checkRuleset(ruleset) {
  if (RULESETS.includes(ruleset)) return;
  if (typeof ruleset !== 'string') throw new SchemaError('$.ruleset', say('msgspec_type', { expected: 'str', got: jsonType(ruleset) }));
  throw new SchemaError('$.ruleset', say('unknown_name', { what: 'ruleset', value: pyRepr(ruleset), allowed: RULESETS.join(', ') }));
}

function checkRolls(rolls, largest = 20) {
  if (rolls === null || rolls === undefined) return null;
  if (!rolls.length) {
    throw new SchemaError('$.rolls', say('rolls_empty'));
  }
  if (rolls.length > MAX_ROLLS) {
    throw new LimitError('$.rolls', say('rolls_too_many', { count: rolls.length, most: MAX_ROLLS }));
  }
  rolls.forEach((face, i) => {
    if (!(face >= 1 && face <= largest)) {
      throw new DiceError(`$.rolls[${i}]`, say('face_range', { face, largest }));
    }
  });
  return rolls;
}

function checkNames(names, allowed, path, what) {
  names.forEach((name, i) => choice(name, allowed, `${path}[${i}]`, what));
  return new Set(names);
}

/** Check the attacker; returns its conditions. A condition that forbids attacking is refused. */
function checkAttacker(attacker, path) {
  for (const name of ['strength', 'agility']) {
    if (attacker[name] !== null) checkRange(attacker[name], ...SCORE_RANGE, `${path}.${name}`, 'score');
  }
  for (const name of ['strength_mod', 'agility_mod']) {
    if (attacker[name] !== null) checkRange(attacker[name], -20, 20, `${path}.${name}`, 'modifier');
  }
  choice(attacker.size, SIZES, `${path}.size`, 'size');
  checkRange(attacker.swim_speed, 0, 1000, `${path}.swim_speed`, 'swim speed');
  checkRange(attacker.obscurement, 0, 20, `${path}.obscurement`, 'obscurement penalty');
  const conditions = checkNames(attacker.conditions, CONDITIONS, `${path}.conditions`, 'condition');
  for (const name of CANNOT_ATTACK) {
    if (conditions.has(name)) throw new RulesError(`${path}.conditions`, say('cannot_attack', { condition: name }));
  }
  if (attacker.charmed_by !== null && !attacker.charmed_by) {
    throw new SchemaError(`${path}.charmed_by`, say('charmed_by_empty'));
  }
  return conditions;
}

/** Check every target; returns {id: {id, index, spec, path}} in request order. */
function checkTargets(targets, path = '$.targets') {
  const ids = Object.keys(targets);
  if (!ids.length) throw new SchemaError(path, say('no_targets'));
  if (ids.length > MAX_TARGETS) throw new LimitError(path, say('too_many', { count: ids.length, what: 'targets', most: MAX_TARGETS }));
  const infos = {};
  ids.forEach((tid, index) => {
    const spec = targets[tid];
    const tpath = keyPath(path, tid);
    if (!tid) throw new SchemaError(path, say('empty_target_id'));
    checkRange(spec.ac, ...AC_RANGE, `${tpath}.ac`, 'AC');
    for (const dtype of Object.keys(spec.ac_by_type)) {
      choice(dtype, DAMAGE_TYPES, `${tpath}.ac_by_type`, 'damage type');
      checkRange(spec.ac_by_type[dtype], ...AC_RANGE, keyPath(`${tpath}.ac_by_type`, dtype), 'AC');
    }
    choice(spec.size, SIZES, `${tpath}.size`, 'size');
    choice(spec.cover, COVERS, `${tpath}.cover`, 'cover');
    for (const name of ['resistant', 'vulnerable', 'immune']) {
      checkNames(spec[name], DAMAGE_TYPES, `${tpath}.${name}`, 'damage type');
    }
    checkNames(spec.conditions, CONDITIONS, `${tpath}.conditions`, 'condition');
    if (spec.body_max !== null) checkRange(spec.body_max, 1, 1000000, `${tpath}.body_max`, 'maximum Body');
    if (spec.save_bonus !== null) checkRange(spec.save_bonus, -50, 50, `${tpath}.save_bonus`, 'save bonus');
    if (spec.nearby.length > MAX_NEARBY) {
      throw new LimitError(`${tpath}.nearby`, say('nearby_max', { count: spec.nearby.length, target: pyRepr(tid), most: MAX_NEARBY }));
    }
    if (spec.grappling !== null) checkGrapple(spec.grappling, `${tpath}.grappling`);
    spec.nearby.forEach((other, i) => {
      if (other === tid) throw new SchemaError(`${tpath}.nearby[${i}]`, say('nearby_self'));
      if (!Object.prototype.hasOwnProperty.call(targets, other)) {
        throw new SchemaError(`${tpath}.nearby[${i}]`, say('nearby_unknown', {
          creature: pyRepr(other), target: pyRepr(tid), targets: ids.join(', '),
        }));
      }
    });
    infos[tid] = { id: tid, index, spec, path: tpath };
  });
  return infos;
}

/** ER-21: the grappler's Strength (score or modifier) and other feat bonus, when given. */
function checkGrapple(hold, path) {
  if (hold.strength !== null) checkRange(hold.strength, ...SCORE_RANGE, `${path}.strength`, 'score');
  if (hold.strength_mod !== null) checkRange(hold.strength_mod, -20, 20, `${path}.strength_mod`, 'modifier');
  checkRange(hold.bonus, -50, 50, `${path}.bonus`, 'bonus');
}

/** ER-4 (D-8): the explicit modifier wins; else floor((score - 2) / 2). */
function modifier(score, explicit) {
  if (explicit !== null && explicit !== undefined) return explicit;
  return Math.floor((score - 2) / 2);
}

/**
 * ER-15: whether a defending target can see the incoming attacks ("provided it is possible
 * for the character [to] see the incoming attacks"): not when it is blind, unconscious or
 * petrified, nor when the attacker is invisible. Only then does defending put the attack
 * at disadvantage. `attackerConditions` is a Set.
 */
function defenderSees(targetConditions, attackerConditions) {
  return !(DEFENDING_UNSEEING.some((name) => targetConditions.includes(name)) ||
    DEFENDING_UNSEEN.some((name) => attackerConditions.has(name)));
}

/** ER-10: immune → 0; resistant and vulnerable together → normal. */
function resistanceState(target, damageType) {
  if (target.immune.includes(damageType)) return R_IMMUNE;
  // ER-15: an underwater target resists fire, on top of its own resistances (counted once).
  const resistant = target.resistant.includes(damageType) ||
    (damageType === 'fire' && target.conditions.includes('underwater'));
  const vulnerable = target.vulnerable.includes(damageType);
  if (resistant && !vulnerable) return R_HALF;
  if (vulnerable && !resistant) return R_DOUBLE;
  return R_NORMAL;
}

/**
 * One strike row and what the result needs to know about it, or an error with the strike's path.
 * The row's fields are those of src/fracas/_layout.py (skill, adv, sneak, disadv, toHit, …).
 */
function compileStrike(strike, path, attacker, attackerPath, attackerConditions, target,
  actionAdvantage, actionDisadvantage, targetPath = null, strays = true) {
  // Where the target was chosen: the strike's own field, or a bulk `attacks` entry.
  targetPath = targetPath || `${path}.target`;
  choice(strike.style, STYLES, `${path}.style`, 'style');
  const styleMethod = STYLE_METHOD[strike.style];
  if (styleMethod !== strike.method) {
    throw new SchemaError(`${path}.style`, say('style_method', { style: strike.style, style_method: styleMethod, method: strike.method }));
  }
  choice(strike.damage_type, DAMAGE_TYPES, `${path}.damage_type`, 'damage type');
  if (strike.dice > MAX_SKILL_DICE) {
    throw new SchemaError(`${path}.dice`, say('skill_dice_max', { dice: strike.dice, most: MAX_SKILL_DICE }));
  }
  if (strike.dice < 1) {
    throw new SchemaError(`${path}.dice`, say('skill_dice_min', { dice: strike.dice }));
  }
  checkRange(strike.bonus, ...BONUS_RANGE, `${path}.bonus`, 'bonus');
  const ranged = strike.method === 'range';
  if (ranged && strike.weight) {
    throw new SchemaError(`${path}.weight`, say('ranged_weight'));
  }
  checkRange(strike.weight, 0, 2, `${path}.weight`, 'weight');
  const critCapable = strike.crit !== null ? strike.crit : CRIT_STYLES.includes(strike.style);
  if (strike.crit_range !== null) {
    checkRange(strike.crit_range, 2, 20, `${path}.crit_range`, 'crit range');
    if (!critCapable) {
      throw new SchemaError(`${path}.crit_range`, say('crit_range_not_capable', { style: strike.style }));
    }
  }
  const attribute = ranged ? 'agility' : 'strength';
  const score = attacker[attribute];
  const explicit = attacker[`${attribute}_mod`];
  if (score === null) {
    throw new SchemaError(`${attackerPath}.${attribute}`, say('needs_score', { method: strike.method, path, attribute }));
  }
  // ER-14: a charmed creature "cannot attack the charmer".
  if (attacker.charmed_by !== null && attacker.charmed_by === target.id) {
    throw new RulesError(targetPath, say('charmed_attack', { target: pyRepr(target.id), path: `${attackerPath}.charmed_by` }));
  }
  const spec = target.spec;
  const tconds = spec.conditions;
  // ER-16: full cover refuses a ranged strike, unless the request asks for friendly fire:
  // then it is a miss that strays (ER-17). A bulk request resolves no strays.
  const fullCover = spec.cover === 'full' && ranged;
  if (fullCover && !(strays && strike.friendly_fire)) {
    throw new RulesError(targetPath, say(strays ? 'full_cover' : 'bulk_full_cover', { target: pyRepr(target.id) }));
  }
  if (ranged && attackerConditions.has('bound') && MECHANICAL_STYLES.includes(strike.style)) {
    throw new RulesError(`${path}.style`, say('bound_mechanical', { style: strike.style }));
  }
  if (ranged && attackerConditions.has('underwater') && strike.style !== 'archery') {
    throw new RulesError(`${path}.style`, say('underwater_ranged', { style: strike.style }));
  }

  const advantageFrom = [];
  const disadvantageFrom = [];
  if (strike.advantage) advantageFrom.push('strike');
  if (actionAdvantage) advantageFrom.push('action');
  if (strike.disadvantage) disadvantageFrom.push('strike');
  if (actionDisadvantage) disadvantageFrom.push('action');
  for (const name of ATTACKER_DISADVANTAGE) {
    if (attackerConditions.has(name)) disadvantageFrom.push(`attacker ${name}`);
  }
  if (attackerConditions.has('underwater') && (ranged || attacker.swim_speed < 20)) {
    disadvantageFrom.push('attacker underwater');
  }
  for (const name of TARGET_ADVANTAGE) {
    if (tconds.includes(name)) advantageFrom.push(`target ${name}`);
  }
  for (const name of ['prone', 'unconscious']) {
    if (tconds.includes(name)) (ranged ? disadvantageFrom : advantageFrom).push(`target ${name}`);
  }
  if (tconds.includes('invisible')) disadvantageFrom.push('target invisible');
  if (tconds.includes('defending') && defenderSees(tconds, attackerConditions)) disadvantageFrom.push('target defending');
  const sneak = strike.sneak;
  if (sneak !== false) {
    if (disadvantageFrom.length) {
      const where = targetPath === `${path}.target` ? '' : ` against ${targetPath}`;
      throw new RulesError(`${path}.sneak`, say('sneak_disadvantage', { sources: disadvantageFrom.join(', '), where }));
    }
    if (!(ranged || strike.weight === 0 || strike.reach || strike.sneak_ok)) {
      throw new RulesError(`${path}.sneak`, say('sneak_weapon', { style: strike.style, weight: strike.weight }));
    }
    advantageFrom.push('sneak attack');
  }
  const hasAdv = advantageFrom.length > 0 && disadvantageFrom.length === 0;
  const hasDis = disadvantageFrom.length > 0 && advantageFrom.length === 0;
  const sneakDie = sneak === true;
  // ER-17: a shot under the friendly-fire rule; asked for, or by default under
  // three-quarters cover (ER-16), by a blind attacker or at an invisible target, when
  // other creatures are listed near the target.
  if (strike.friendly_fire && !ranged) {
    throw new RulesError(`${path}.friendly_fire`, say('friendly_fire_melee', { method: strike.method }));
  }
  const friendlyFire = strike.friendly_fire === null
    ? ranged && spec.nearby.length > 0 && (spec.cover === 'three-quarters' || attackerConditions.has('blind') ||
      tconds.includes('invisible'))
    : strike.friendly_fire;

  const penalty = Math.max(attackerConditions.has('bound') ? 5 : 0,
    attackerConditions.has('shaken') ? 2 : 0,
    tconds.includes('invisible') ? 3 : 0);
  const toHit = score + SIZE_BONUS[attacker.size] + (ranged ? SIZE_BONUS[spec.size] : 0) +
    strike.bonus - penalty - attacker.obscurement;
  const byType = spec.ac_by_type[strike.damage_type];
  // ER-16: cover protects against ranged strikes only.
  const ac = (byType !== undefined ? byType : spec.ac) + (ranged ? COVER_AC[spec.cover] : 0);
  const critThr = critCapable && !hasDis ? (strike.crit_range || 20) : 0;
  const resist = resistanceState(spec, strike.damage_type);
  const sources = [];
  for (let i = 0; i < strike.dice; i++) sources.push('skill');
  if (hasAdv) sources.push('advantage');
  if (sneakDie) sources.push('sneak');
  if (hasDis) sources.push('disadvantage');
  const row = {
    skill: strike.dice,
    adv: hasAdv ? 1 : 0,
    sneak: sneakDie ? 1 : 0,
    disadv: hasDis ? 1 : 0,
    toHit,
    ac,
    // A full-cover shot rolls its pool but cannot crit or deal damage at its target.
    crit: fullCover ? 0 : critThr,
    autoCrit: !fullCover && tconds.includes('paralyzed') && !hasDis ? 1 : 0,
    weight: ranged ? 0 : strike.weight,
    mod: modifier(score, explicit),
    resist,
    onlyChain: tconds.includes('petrified') || fullCover ? 1 : 0,
    chainDodgeable: spec.crit_proof ? 1 : 0,
    noDodge: tconds.includes('restrained') ? 1 : 0,
    target: target.index,
    type: DAMAGE_TYPES.indexOf(strike.damage_type),
  };
  const meta = {
    target: target.id, method: strike.method, style: strike.style,
    damage_type: strike.damage_type, advantage: hasAdv, disadvantage: hasDis, sneak,
    to_hit: toHit, ac, crit_range: critThr || null,
    resistance: RESISTANCE_NAMES[resist], sources,
    advantage_from: advantageFrom, disadvantage_from: disadvantageFrom,
    friendly_fire: friendlyFire,
    full_cover: fullCover,
  };
  return { row, meta };
}

module.exports = {
  MAX_SKILL_DICE, MAX_STRIKES, MAX_TARGETS, MAX_ROLLS, SIZE_BONUS, STYLE_METHOD, R_NORMAL, R_HALF, R_DOUBLE, R_IMMUNE,
  checkRange, checkRuleset, checkRolls, checkSeed, checkNames, checkAttacker, checkTargets, modifier,
  resistanceState, defenderSees, compileStrike, checkGrapple,
};
