'use strict';
// Enchanted Realms beyond the single strike: the twin of src/fracas/rulesets/er/
// followups.py (ER-17 stray shots, ER-21 grapple release), feats.py (ER-12/ER-14 on
// feats, saves and competitions), defense.py (ER-22), attack.py's flee attacks (ER-20),
// compete.py (ER-19, with savage form's incidental damage); impale.js has ER-23 (it rolls whole attacks through engine.js,
// which draws its follow-ups from here).
// Same draw order, same arithmetic, same errors (docs/ENGINE.md section 2).

const { DiceError, LimitError, RulesError, SchemaError, faces } = require('./errors');
const { CompeteRequest, choice, decode, pyRepr } = require('./schema');
const { checkNames, checkRange, checkRolls, checkRuleset, checkSeed, modifier, resistanceState } = require('./plan');
const { Dice, KernelError, E_ROLLS_SHORT, resist } = require('./kernel');
const { Xoshiro128 } = require('./rng');
const {
  LAYOUT, say, COVER_AC, SIZES, SCORE_RANGE, RESISTANCES,
  ER_STRAY_SHIFT, ER_STRAY_SLOTS, ER_FLEE_NORMAL, ER_FLEE_RAPID, ER_RELEASE_DC, ER_DEFENSE_DC,
  ER_COMPETITION_DIE, ER_GRAPPLE_SIZE, ER_GRAPPLE_SPEED,
  ER_GRAPPLE_SLICK, ER_PUSH_SIZE, ER_PUSH_SLICK, ER_PRONE, CONDITIONS, CANNOT_ATTACK,
  FEAT_DISADVANTAGE, COMPETITION_DISADVANTAGE, FEAT_ADVANTAGE, FEAT_PENALTY_2, FEAT_AUTOMATIC_FAILURE,
  DAMAGE_TYPES, ER_SAVAGE_RAW, ER_SAVAGE_SPECIAL, ER_SAVAGE_DAMAGE, MAX_SAVAGE_STRIKES,
} = require('./facts');

const { CHAIN_LIMIT } = LAYOUT;
// Resistance states by their layout index (R_NORMAL … R_IMMUNE), as the results name them.
const RESISTANCE_NAMES = RESISTANCES;
const { MAX_ROLL_OFFS } = require('./contract').LIMITS;

/** The error for injected faces that ran out or do not fit a follow-up's die. */
function dieError(err, rolls, what) {
  if (err.code === E_ROLLS_SHORT) {
    return new DiceError('$.rolls', say('rolls_short', { given: faces(rolls.length), what, position: err.position }));
  }
  return new DiceError(`$.rolls[${err.position}]`, say('face_range_die', { face: rolls[err.position], faces: err.faces }));
}

// ---- ER-12 / ER-14 on single-die Body rolls (feats.py) ----------------------------------

const FEAT_DIS = { feat: FEAT_DISADVANTAGE, save: FEAT_DISADVANTAGE, competition: COMPETITION_DISADVANTAGE };

/** What a roller's conditions make of one feat, save or competition roll (feats.situation). */
function situation(conditions, kind, advantage = false, disadvantage = false) {
  const advFrom = (advantage ? ['request'] : []).concat(FEAT_ADVANTAGE.filter((n) => conditions.includes(n)));
  const disFrom = (disadvantage ? ['request'] : []).concat(FEAT_DIS[kind].filter((n) => conditions.includes(n)));
  const shaken = FEAT_PENALTY_2.find((n) => conditions.includes(n));
  const fails = FEAT_AUTOMATIC_FAILURE.find((n) => conditions.includes(n));
  return {
    advantage: advFrom.length > 0 && !disFrom.length,
    disadvantage: disFrom.length > 0 && !advFrom.length,
    advantageFrom: advFrom,
    disadvantageFrom: disFrom,
    penalty: shaken === undefined ? null : [shaken, -2],
    fails: fails === undefined ? null : fails,
  };
}

function situationDict(sit) {
  return {
    advantage: sit.advantage, disadvantage: sit.disadvantage, advantage_from: sit.advantageFrom.slice(),
    disadvantage_from: sit.disadvantageFrom.slice(),
    penalty: sit.penalty === null ? null : { condition: sit.penalty[0], value: sit.penalty[1] },
    automatic_failure: sit.fails,
  };
}

/** The die (or two dice, the first drawn first) and the face kept. */
function rollKept(dice, faces, sit) {
  if (sit.advantage || sit.disadvantage) {
    const pair = [dice.die(faces), dice.die(faces)];
    return { dice: pair, kept: sit.advantage ? Math.max(...pair) : Math.min(...pair) };
  }
  const face = dice.die(faces);
  return { dice: [face], kept: face };
}

// ---- ER-20 flee attacks ---------------------------------------------------------------

function flee(spec, strikes, rows, metas, conditions, targets) {
  const moved = spec.moved;
  if (moved < 0) throw new SchemaError('$.flee.moved', say('flee_negative', { moved }));
  if (moved < ER_FLEE_NORMAL) throw new RulesError('$.flee.moved', say('flee_cautious', { moved }));
  if (strikes.length !== 1) throw new RulesError('$.strikes', say('flee_one_strike', { count: strikes.length }));
  if (strikes[0].method === 'range') {
    throw new RulesError('$.strikes[0].method', say('flee_method', { method: strikes[0].method }));
  }
  if (strikes[0].sneak !== false) throw new RulesError('$.strikes[0].sneak', say('flee_sneak'));
  // ER-15: defending "removes all reactions for both rounds"; ER-20: a defensive-only
  // creature leaves the fray without drawing flee attacks.
  if (conditions.has('defending')) throw new RulesError('$.attacker.conditions', say('flee_defending'));
  const mover = targets[strikes[0].target];
  if (mover.spec.conditions.includes('defending')) {
    throw new RulesError(`${mover.path}.conditions`, say('flee_defensive_mover'));
  }
  const speed = moved < ER_FLEE_RAPID ? 'normal' : 'rapid';
  const row = rows[0];
  if (speed === 'rapid') {
    // "only 1d20 is permitted": a pool of one d20; ER-12 applies to it as to any pool.
    row.skill = 1;
    metas[0].sources = ['skill'].concat(metas[0].sources.slice(strikes[0].dice));
  }
  return { moved, speed, dice: row.skill + row.adv + row.sneak + row.disadv };
}

// ---- ER-22 defense rolls --------------------------------------------------------------

/** The player's defense dice for every strike row; records as the kernel's. */
function rollDefense(rows, dice) {
  return rows.map((p, s) => {
    dice.strike = s;
    const n = p.skill + p.adv + p.sneak + p.disadv;
    const pool = [];
    for (let i = 0; i < n; i++) pool.push(dice.die(20));
    let discard = -1;
    if (p.disadv) {
      let low = 21;
      pool.forEach((face, i) => { if (face < low) { low = face; discard = i; } });
    }
    const dc = ER_DEFENSE_DC + p.toHit;
    let failures = 0, ones = 0;
    const poolHits = pool.map((face, i) => {
      const avoided = face === 20 || (face !== 1 && face + p.ac >= dc);
      if (i !== discard && !avoided) {
        failures += 1;
        if (face === 1) ones += 1;
      }
      return !avoided;
    });
    const base = p.onlyChain ? 0 : failures;
    const damage = resist(base, p.resist);
    const undodgeable = p.noDodge ? damage : Math.min(damage, resist(p.onlyChain ? 0 : ones, p.resist));
    return {
      pool, poolHits, discard, chain: [], hits: failures, crit: false, base, mod: 0, modUsed: false, damage, undodgeable,
    };
  });
}

// ---- ER-17 stray shots ----------------------------------------------------------------

/** ER-16: a full-cover shot under friendly fire cannot hit its target: its dice miss. */
function fullCoverMisses(metas, records) {
  metas.forEach((meta, s) => {
    if (!meta.full_cover) return;
    const r = records[s];
    r.poolHits = r.poolHits.map(() => false);
    r.hits = 0;
    r.nat20 = 0;
  });
}

/** ER-9: strike `s` loses the modifier an earlier stray took (followups.drop_modifier). */
function dropModifier(p, r) {
  const damage = resist(r.base, p.resist);
  let undodgeable = 0;
  if (p.noDodge) undodgeable = damage;
  else if (r.nat20) {
    undodgeable = Math.min(damage, resist((p.onlyChain ? 0 : r.nat20) + (p.chainDodgeable ? 0 : r.chainDamage), p.resist));
  }
  r.mod = 0;
  r.modUsed = false;
  r.damage = damage;
  r.undodgeable = undodgeable;
}

function strayShots(metas, rows, targets, records, dice) {
  // ER-9: the modifier goes to the first strike in request order that hits a creature,
  // directly or as a stray.
  const direct = new Map();
  records.forEach((r, s) => { if (r.modUsed) direct.set(metas[s].target, s); });
  const byStray = new Set();
  const strays = new Map();
  metas.forEach((meta, s) => {
    if (!meta.friendly_fire || records[s].hits) return;
    const r = records[s];
    const pool = r.pool.filter((_, i) => i !== r.discard);
    const takes = (creature) => !byStray.has(creature) && (direct.has(creature) ? direct.get(creature) : metas.length) > s;
    let st;
    try {
      st = stray(meta, rows[s], s, targets, pool, dice, takes);
    } catch (err) {
      if (!(err instanceof KernelError)) throw err;
      throw dieError(err, dice.rolls, say('rolls_for_stray', { strike: s }));
    }
    strays.set(s, st);
    if (st.modifier !== null) {
      byStray.add(st.creature);
      if (direct.has(st.creature)) {
        const later = direct.get(st.creature);
        direct.delete(st.creature);
        dropModifier(rows[later], records[later]);
      }
    }
  });
  return strays;
}

function empty(roll, creature, why) {
  return {
    roll, creature, why, ac: null, dice: [], chain: [], hits: 0, crit: false, base: 0, modifier: null,
    resistance: null, damage: 0, undodgeable: 0, damage_type: '',
  };
}

function stray(meta, row, s, targets, pool, dice, takes) {
  const nearby = targets[meta.target].spec.nearby;
  const roll = dice.die(ER_STRAY_SLOTS);
  const lead = meta.full_cover ? `${meta.target} is behind full cover, the shot strays: ` : '';
  if (roll > nearby.length) {
    const why = roll > 8 ? `slot ${roll} is always empty`
      : `slot ${roll} is empty (${nearby.length} creature${nearby.length !== 1 ? 's' : ''} near ${meta.target})`;
    return empty(roll, null, lead + why);
  }
  const creature = nearby[roll - 1];
  const spec = targets[creature].spec;
  if (spec.cover === 'full') {
    return empty(roll, creature, `${lead}slot ${roll} is ${creature}, behind full cover: the shot hits nothing`);
  }
  const toHit = meta.to_hit;
  const byType = spec.ac_by_type[meta.damage_type];
  const ac = (byType !== undefined ? byType : spec.ac) + COVER_AC[spec.cover];
  const critThr = meta.crit_range || 0;
  const conds = spec.conditions;
  const out = empty(roll, creature, `${lead}slot ${roll} is ${creature}`);
  out.ac = ac;
  out.damage_type = meta.damage_type;
  let hits = 0, nat20 = 0, critFace = false;
  for (const face of pool) {
    const shifted = Math.min(face + ER_STRAY_SHIFT, 20);
    const hit = shifted === 20 || shifted + toHit >= ac;
    out.dice.push({ face, shifted, total: shifted + toHit, hit });
    if (hit) {
      hits += 1;
      if (shifted === 20) nat20 += 1;
      if (critThr && shifted >= critThr) critFace = true;
    }
  }
  const crit = hits > 0 && !meta.disadvantage && (critFace || conds.includes('paralyzed'));
  let chain = 0;
  if (crit) {
    for (;;) {
      if (out.chain.length >= CHAIN_LIMIT) throw new LimitError(`$.strikes[${s}]`, say('chain_limit', { limit: CHAIN_LIMIT }));
      const face = dice.die(20);
      const hit = face === 20 || (face !== 1 && face + toHit >= ac);
      const d3 = hit ? dice.die(3) : 0;
      chain += d3;
      out.chain.push({ face, total: face + toHit, hit, damage: d3 });
      if (face !== 20) break;
    }
  }
  const onlyChain = conds.includes('petrified');
  let base;
  if (hits === 0) base = 0;
  else if (onlyChain) base = chain;
  else base = hits + chain;
  out.base = base;
  if (hits > 0 && !onlyChain && takes(creature)) {
    out.modifier = row.mod;
    base = Math.max(0, base + row.mod);
  }
  const state = resistanceState(spec, meta.damage_type);
  const damage = resist(base, state);
  let undodgeable;
  if (conds.includes('restrained')) undodgeable = damage;
  else if (!nat20) undodgeable = 0;
  else undodgeable = Math.min(damage, resist((onlyChain ? 0 : nat20) + (spec.crit_proof ? 0 : chain), state));
  out.hits = hits;
  out.crit = crit;
  out.resistance = RESISTANCE_NAMES[state];
  out.damage = damage;
  out.undodgeable = undodgeable;
  if (hits === 0) out.why += ': the shifted dice miss it too';
  return out;
}

function strayDict(st) {
  return {
    roll: st.roll, creature: st.creature, why: st.why, ac: st.ac,
    dice: st.dice.map((d) => Object.assign({}, d)), crit_chain: st.chain.map((c) => Object.assign({}, c)),
    hits: st.hits, crit: st.crit, base: st.base, modifier: st.modifier, resistance: st.resistance,
    damage: st.damage, undodgeable: st.undodgeable,
  };
}

// ---- ER-21 grapple release ------------------------------------------------------------

/**
 * ER-21 for one target: one Strength feat per [strike, stray?, damage] in `struck`, in
 * strike order, until the first failure (followups.grapple_release).
 */
function grappleRelease(target, struck, dice) {
  const hold = target.spec.grappling;
  const hits = struck.filter((h) => h[2] > 0);
  if (hold === null || !hits.length) return null;
  const sit = situation(target.spec.conditions, 'feat');
  let feats = hits.map(([s, isStray, damage]) => ({
    strike: s, stray: isStray, damage, dc: ER_RELEASE_DC + damage, dice: [], roll: null, modifier: null, total: null,
    held: null,
  }));
  let held = null;
  if (sit.fails !== null) {
    feats = [feats[0]];
    feats[0].held = held = false;
  } else if (hold.strength !== null || hold.strength_mod !== null) {
    const mod = modifier(hold.strength, hold.strength_mod) + hold.bonus + (sit.penalty ? sit.penalty[1] : 0);
    for (const feat of feats) {
      let rolled;
      try {
        rolled = rollKept(dice, 20, sit);
      } catch (err) {
        if (!(err instanceof KernelError)) throw err;
        throw dieError(err, dice.rolls, say('rolls_for_release', { path: target.path }));
      }
      feat.dice = rolled.dice;
      feat.roll = rolled.kept;
      feat.modifier = mod;
      feat.total = rolled.kept + mod;
      feat.held = feat.total >= feat.dc;
      if (!feat.held) break;
    }
    feats = feats.filter((f) => f.held !== null);
    held = feats[feats.length - 1].held;
  }
  // The top level repeats the feat that decided (the last rolled; the first when the table rolls).
  const rolledFeats = feats.filter((f) => f.held !== null);
  const decided = rolledFeats.length ? rolledFeats[rolledFeats.length - 1] : feats[0];
  return {
    damage: decided.damage, dc: decided.dc, roll: decided.roll, modifier: decided.modifier, total: decided.total,
    held, damage_taken: hits.reduce((a, h) => a + h[2], 0), feats, situation: situationDict(sit),
  };
}

// ---- shared by compete and impale -----------------------------------------------------

function streamOf(req, options) {
  checkRuleset(req.ruleset);
  checkSeed(req.seed);
  let seed = options.seed !== undefined && options.seed !== null ? checkSeed(options.seed, 'seed') : req.seed;
  const rolls = checkRolls(req.rolls);
  return {
    rolls,
    start() {
      if (seed === null || seed === undefined) {
        if (typeof options.newSeed !== 'function') throw new Error('no seed given and no newSeed() to draw one');
        seed = options.newSeed();
      }
      return { seed, dice: new Dice(Xoshiro128.fromSeed(seed), rolls) };
    },
  };
}

function leftOver(dice, what) {
  const rolls = dice.rolls;
  if (rolls && dice.pos < rolls.length) {
    throw new DiceError('$.rolls', say('rolls_left_over', { given: faces(rolls.length), what, used: dice.pos }));
  }
}

// ---- ER-19 competitions ---------------------------------------------------------------

const OUTCOMES = {
  grapple: ['{c} grapples {d}: {d} is held', '{d} slips free: {c} could not keep the hold'],
  escape: ["{c} escapes {d}'s hold", "{c} stays in {d}'s hold"],
  shove: ['{c} shoves {d} 5 ft away', '{d} stands firm'],
  trip: ['{c} trips {d}: {d} is prone', '{d} keeps their feet'],
  plain: ['{c} wins', '{d} wins'],
};

function checkCompetitor(c, path, contest) {
  if (!c.id) throw new SchemaError(`${path}.id`, say('competitor_empty_id'));
  choice(c.size, SIZES, `${path}.size`, 'size');
  if (c.speed !== null) checkRange(c.speed, 0, 1000, `${path}.speed`, 'speed');
  checkRange(c.bonus, -50, 50, `${path}.bonus`, 'bonus');
  checkNames(c.conditions, CONDITIONS, `${path}.conditions`, 'condition');
  if (c.savage_form.length > MAX_SAVAGE_STRIKES) {
    throw new LimitError(`${path}.savage_form`, say('too_many', {
      count: c.savage_form.length, what: 'savage-form strikes', most: MAX_SAVAGE_STRIKES,
    }));
  }
  if (c.savage_form.length && contest !== 'grapple' && contest !== 'escape') {
    throw new RulesError(`${path}.savage_form`, say('savage_contest', { contest }));
  }
  c.savage_form.forEach((strike, i) => {
    if (!strike.strike.trim()) throw new SchemaError(`${path}.savage_form[${i}].strike`, say('savage_strike_name'));
    choice(strike.type, DAMAGE_TYPES, `${path}.savage_form[${i}].type`, 'damage type');
  });
  for (const name of ['resistant', 'vulnerable', 'immune']) {
    checkNames(c[name], DAMAGE_TYPES, `${path}.${name}`, 'damage type');
  }
  if ((contest === 'shove' || contest === 'trip') && c.attribute !== 'strength') {
    throw new RulesError(`${path}.attribute`, say('compete_strength', { contest }));
  }
  const score = c.attribute === 'strength' ? c.strength : c.agility;
  const explicit = c.attribute === 'strength' ? c.strength_mod : c.agility_mod;
  if (score === null && explicit === null) {
    throw new SchemaError(`${path}.${c.attribute}`, say('compete_needs', { attribute: c.attribute }));
  }
  if (score !== null) checkRange(score, ...SCORE_RANGE, `${path}.${c.attribute}`, 'score');
  if (explicit !== null) checkRange(explicit, -20, 20, `${path}.${c.attribute}_mod`, 'modifier');
  return modifier(score, explicit);
}

function categories(n) {
  return `size: ${n} categor${n === 1 ? 'y' : 'ies'} larger`;
}

function compileCompete(req) {
  const contest = req.contest;
  const chal = req.challenger, dfd = req.defender;
  const mods = [checkCompetitor(chal, '$.challenger', contest), checkCompetitor(dfd, '$.defender', contest)];
  if (chal.id === dfd.id) throw new SchemaError('$.defender.id', say('compete_same', { id: pyRepr(chal.id) }));
  const extra = [[], []];
  const diff = SIZES.indexOf(chal.size) - SIZES.indexOf(dfd.size);
  // ER-19: full 10 ft the victim is faster by; a speed not given is unknown, not 0, and
  // with either side's unknown there is no difference to count (the decision of compete.py).
  const faster = (victim, other) => (victim === null || other === null || victim <= other
    ? 0 : Math.floor((victim - other) / 10));
  if (contest === 'grapple') {
    if (diff > 0) extra[0].push([categories(diff), ER_GRAPPLE_SIZE * diff]);
    if (faster(dfd.speed, chal.speed)) {
      extra[1].push([`faster by ${dfd.speed - chal.speed} ft`, ER_GRAPPLE_SPEED * faster(dfd.speed, chal.speed)]);
    }
    if (req.slick) extra[1].push(['slick ground', ER_GRAPPLE_SLICK]);
  } else if (contest === 'escape') {
    if (diff) extra[diff > 0 ? 0 : 1].push([categories(Math.abs(diff)), ER_GRAPPLE_SIZE * Math.abs(diff)]);
    if (faster(chal.speed, dfd.speed)) {
      extra[0].push([`faster by ${chal.speed - dfd.speed} ft`, ER_GRAPPLE_SPEED * faster(chal.speed, dfd.speed)]);
    }
    if (req.slick) extra[0].push(['slick ground', ER_GRAPPLE_SLICK]);
  } else if (contest === 'shove' || contest === 'trip') {
    if (-diff > 1) {
      throw new RulesError('$.defender.size', say('compete_size', {
        contest, victim: pyRepr(dfd.id), victim_size: dfd.size, pusher: pyRepr(chal.id), pusher_size: chal.size,
      }));
    }
    if (diff) extra[diff > 0 ? 0 : 1].push(['larger', ER_PUSH_SIZE]);
    if (req.slick) extra[1].push(['slick ground', ER_PUSH_SLICK]);
  }
  if (contest !== 'plain') {
    for (const name of CANNOT_ATTACK) {
      if (chal.conditions.includes(name)) {
        throw new RulesError('$.challenger.conditions', say('compete_cannot_act', { condition: name, contest }));
      }
    }
  }
  const sits = [chal, dfd].map((c) => situation(c.conditions, 'competition', c.advantage, c.disadvantage));
  [chal, dfd].forEach((c, i) => {
    if (c.prone || c.conditions.includes('prone')) extra[i].push(['prone', ER_PRONE]);
    if (sits[i].penalty !== null) extra[i].push(sits[i].penalty);
  });
  const sides = [chal, dfd].map((c, i) => ({
    mod: mods[i], extra: extra[i], adv: sits[i].advantage, dis: sits[i].disadvantage, sit: sits[i],
  }));
  const totals = [chal, dfd].map((c, i) => mods[i] + c.bonus + extra[i].reduce((a, [, v]) => a + v, 0));
  let savage = null;
  if (contest === 'grapple' || contest === 'escape') {
    const v = contest === 'grapple' ? 1 : 0; // the victim: held, or about to be
    const [victim, grappler] = v === 1 ? [dfd, chal] : [chal, dfd];
    if (victim.savage_form.length && !grappler.savage_form.length) {
      const strike = savageStrike(victim.savage_form);
      savage = { v, strike, state: resistanceState(grappler, strike.type) };
    }
  }
  return { sides, totals, savage };
}

/** "claw damage over biting if both apply": a claw first, then a bite, then the first listed. */
function savageStrike(strikes) {
  for (const names of [['claw', 'claws'], ['bite']]) {
    const found = strikes.find((s) => names.includes(s.strike.trim().toLowerCase()));
    if (found) return found;
  }
  return strikes[0];
}

function gcd(a, b) {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** A probability as Python's Fraction: its float (one division) and "n/d" in lowest terms. */
function ratio(num, den) {
  const g = gcd(num, den) || 1;
  return { p: num / den, exact: `${num / g}/${den / g}` };
}

/** [count of kept d20 faces + mod short of dc, outcomes] of a grappler's ER-21 Strength feat. */
function releaseFails(sit, mod, dc) {
  if (sit.fails !== null) return [1, 1];
  const n = 20;
  let fail = 0, total = 0;
  const add = (k, w) => { total += w; if (k + mod < dc) fail += w; };
  if (!sit.advantage && !sit.disadvantage) {
    for (let f = 1; f <= n; f++) add(f, 1);
  } else {
    for (let a = 1; a <= n; a++) for (let b = 1; b <= n; b++) add(sit.advantage ? Math.max(a, b) : Math.min(a, b), 1);
  }
  return [fail, total];
}

/** Counts over the deciding round (ties rolled again): the damage, the special, the victim losing hurt. */
function savageCounts(plan) {
  if (plan.sides.some((side) => side.sit.fails !== null)) return { dealt: 0, special: 0, lost: 0, nontie: 1 };
  const { v } = plan.savage;
  const [a, b] = plan.sides.map((side) => keptCounts(side.adv, side.dis));
  const [ta, tb] = plan.totals;
  let dealt = 0, special = 0, lost = 0, nontie = 0;
  for (const [fa, ca] of a.counts) {
    for (const [fb, cb] of b.counts) {
      if (fa + ta === fb + tb) continue;
      const n = ca * cb;
      nontie += n;
      const face = v === 0 ? fa : fb;
      const victimLost = v === 0 ? fa + ta < fb + tb : fb + tb < fa + ta;
      if (face >= ER_SAVAGE_RAW) {
        dealt += n;
        if (victimLost) lost += n;
      }
      if (face >= ER_SAVAGE_SPECIAL) special += n;
    }
  }
  return { dealt, special, lost, nontie };
}

/** Savage form's incidental damage on the grappler, and an escape's release feat (compete._incidental). */
function incidental(req, plan, rounds, challengerWins, dice) {
  if (plan.savage === null) return null;
  const { v, strike, state } = plan.savage;
  const [victim, grappler] = v === 0 ? [req.challenger, req.defender] : [req.defender, req.challenger];
  const sideName = v === 0 ? 'challenger' : 'defender';
  const raw = rounds.length ? rounds[rounds.length - 1][sideName].kept : null;
  const dealt = raw !== null && raw >= ER_SAVAGE_RAW;
  const damage = dealt ? resist(ER_SAVAGE_DAMAGE, state) : 0;
  const carries = strike.poison || strike.special !== null;
  const delivered = carries && raw !== null && raw >= ER_SAVAGE_SPECIAL;
  const counts = savageCounts(plan);
  const pDealt = ratio(counts.dealt, counts.nontie);
  const pDelivered = ratio(carries ? counts.special : 0, counts.nontie);
  const victimLost = v === 0 ? !challengerWins : challengerWins;
  const sit = situation(grappler.conditions, 'feat');
  const strengthKnown = grappler.strength !== null || grappler.strength_mod !== null;
  const hurtBy = resist(ER_SAVAGE_DAMAGE, state);
  const featDc = ER_RELEASE_DC + hurtBy;
  let release = null;
  let pRelease = null;
  if (req.contest === 'escape') {
    let mod = null;
    if (strengthKnown) mod = modifier(grappler.strength, grappler.strength_mod) + (sit.penalty ? sit.penalty[1] : 0);
    if (hurtBy <= 0) pRelease = ratio(0, 1);
    else if (mod !== null) {
      const [fail, total] = releaseFails(sit, mod, featDc);
      pRelease = ratio(counts.lost * fail, counts.nontie * total);
    }
    if (victimLost && damage > 0) {
      release = { dc: featDc, dice: [], roll: null, modifier: mod, total: null, held: null, situation: situationDict(sit) };
      if (mod !== null) { // (a grappler failing Body feats automatically rolled no round either)
        let rolled;
        try {
          rolled = rollKept(dice, 20, sit);
        } catch (err) {
          if (!(err instanceof KernelError)) throw err;
          throw dieError(err, dice.rolls, say('rolls_for_release', { path: `$.${v === 0 ? 'defender' : 'challenger'}` }));
        }
        Object.assign(release, {
          dice: rolled.dice, roll: rolled.kept, total: rolled.kept + mod, held: rolled.kept + mod >= featDc,
        });
      }
    }
  }
  return {
    by: victim.id, to: grappler.id, strike: strike.strike, damage_type: strike.type, poison: strike.poison,
    special: strike.special, raw, threshold: ER_SAVAGE_RAW, dealt, resistance: RESISTANCE_NAMES[state], damage,
    delivered, release, p_dealt: pDealt.p, p_dealt_exact: pDealt.exact, p_delivered: pDelivered.p,
    p_delivered_exact: pDelivered.exact, p_release: pRelease === null ? null : pRelease.p,
    p_release_exact: pRelease === null ? null : pRelease.exact,
  };
}

function savageText(inc) {
  if (!inc.dealt) return '';
  let text = inc.damage === 0
    ? `; ${inc.by}'s ${inc.strike} strikes ${inc.to}, who is ${inc.resistance}: no damage`
    : `; ${inc.by}'s ${inc.strike} deals ${inc.to} ${inc.damage} ${inc.damage_type} damage`;
  if (inc.delivered) text += ` and delivers ${inc.special || 'its poison'} (its save is triggered)`;
  const rel = inc.release;
  if (rel !== null) {
    if (rel.held === null) text += `; ${inc.to} makes a Strength feat DC ${rel.dc} to keep the hold`;
    else if (rel.held) text += `; ${inc.to} keeps the hold (Strength feat ${rel.total} vs DC ${rel.dc})`;
    else text += `; ${inc.to} lets go: ${inc.by} is free`;
  }
  return text;
}

/** Counts of each kept d12 face over all outcomes (1 die: 12 outcomes; 2 dice: 144). */
function keptCounts(adv, dis) {
  const n = ER_COMPETITION_DIE;
  const counts = new Map();
  if (!adv && !dis) {
    for (let f = 1; f <= n; f++) counts.set(f, 1);
    return { counts, outcomes: n };
  }
  for (let a = 1; a <= n; a++) {
    for (let b = 1; b <= n; b++) {
      const k = adv ? Math.max(a, b) : Math.min(a, b);
      counts.set(k, (counts.get(k) || 0) + 1);
    }
  }
  return { counts, outcomes: n * n };
}

/** Exact chances (ties rolled again), as integers over one denominator, then divided once. */
function winChances(plan) {
  const fails = plan.sides.map((side) => side.sit.fails !== null);
  if (fails[0]) return [0, 1];
  if (fails[1]) return [1, 0];
  const [a, b] = plan.sides.map((side) => keptCounts(side.adv, side.dis));
  let win = 0, tie = 0;
  for (const [fa, ca] of a.counts) {
    for (const [fb, cb] of b.counts) {
      const ta = fa + plan.totals[0], tb = fb + plan.totals[1];
      if (ta > tb) win += ca * cb;
      else if (ta === tb) tie += ca * cb;
    }
  }
  const total = a.outcomes * b.outcomes;
  return [win / (total - tie), (total - tie - win) / (total - tie)];
}

/** ER-19: a competition (the twin of fracas.compete). */
function compete(request, options = {}) {
  const req = decode(request, CompeteRequest);
  const stream = streamOf(req, options);
  const plan = compileCompete(req);
  const { seed, dice } = stream.start();
  const rounds = [];
  const fails = plan.sides.map((side) => side.sit.fails);
  try {
    while (fails[0] === null && fails[1] === null) { // a side that fails automatically rolls nothing
      if (rounds.length >= MAX_ROLL_OFFS) throw new LimitError('$.challenger', say('tie_limit', { limit: MAX_ROLL_OFFS }));
      const entry = {};
      ['challenger', 'defender'].forEach((name, i) => {
        const side = plan.sides[i];
        const rolled = rollKept(dice, ER_COMPETITION_DIE, side.sit);
        entry[name] = { dice: rolled.dice, kept: rolled.kept, total: rolled.kept + plan.totals[i] };
      });
      rounds.push(entry);
      if (entry.challenger.total !== entry.defender.total) break;
    }
  } catch (err) {
    if (!(err instanceof KernelError)) throw err;
    if (err.code === E_ROLLS_SHORT) {
      throw new DiceError('$.rolls', say('rolls_short', { given: faces(dice.rolls.length), what: 'the competition', position: err.position }));
    }
    throw new DiceError(`$.rolls[${err.position}]`, say('face_range_die', { face: dice.rolls[err.position], faces: ER_COMPETITION_DIE }));
  }
  // ER-14: an automatic failure decides; both failing, the challenger's attempt fails.
  const last = rounds[rounds.length - 1];
  const challengerWins = last ? last.challenger.total > last.defender.total : fails[0] === null;
  const inc = incidental(req, plan, rounds, challengerWins, dice);
  leftOver(dice, 'the competition');
  const c = req.challenger.id, d = req.defender.id;
  let outcome = OUTCOMES[req.contest][challengerWins ? 0 : 1].replace(/\{c\}/g, c).replace(/\{d\}/g, d);
  if (inc !== null) outcome += savageText(inc);
  const chance = winChances(plan);
  const result = {
    ruleset: req.ruleset, seed, injected: dice.rolls !== null, contest: req.contest, slick: req.slick,
  };
  [req.challenger, req.defender].forEach((person, i) => {
    const side = plan.sides[i];
    result[i ? 'defender' : 'challenger'] = {
      id: person.id, attribute: person.attribute, modifier: side.mod, bonus: person.bonus,
      situation: side.extra.map(([why, value]) => ({ why, value })), total_modifier: plan.totals[i],
      advantage: side.adv, disadvantage: side.dis, win_chance: chance[i],
      conditions: person.conditions.slice(), advantage_from: side.sit.advantageFrom.slice(),
      disadvantage_from: side.sit.disadvantageFrom.slice(), automatic_failure: side.sit.fails,
    };
  });
  Object.assign(result, {
    rounds, ties: Math.max(rounds.length - 1, 0), winner: challengerWins ? c : d, loser: challengerWins ? d : c, outcome,
    incidental: inc,
  });
  return result;
}

module.exports = {
  flee, rollDefense, strayShots, strayDict, grappleRelease, dieError, compete, winChances, compileCompete,
  fullCoverMisses, situation, situationDict, rollKept, streamOf, leftOver,
};
