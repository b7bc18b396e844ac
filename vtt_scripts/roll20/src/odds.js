'use strict';
// Exact odds of an attack of any ruleset, answered in the Mod script itself: the twin
// of src/fracas/exact.py, src/fracas/rulesets/er/odds.py, src/fracas/rulesets/rows_odds.py
// and src/fracas/drive/odds.py. Probabilities are BigInt numerators over one BigInt
// denominator, so every answer is exact and equal to Python's (the `*_exact` fields);
// the floats are those fractions rounded.

const { LimitError, SchemaError } = require('./errors');
const { keyPath, pyRepr } = require('./schema');
const { checkRange, resistanceState } = require('./plan');
const { LAYOUT: L, say, COVER_AC, ER_DEFENSE_DC, ER_STRAY_SHIFT, ER_STRAY_SLOTS } = require('./facts');
const engine = require('./engine');
const rows = require('./rows');
const { rulesOf } = require('./registry');

const TAIL_DEN = 10n ** 15n; // answers leave out (count short) less than 1 / TAIL_DEN
const {
  ODDS_MAX_COUNT: MAX_COUNT, ODDS_MAX_SUPPORT: MAX_SUPPORT, ODDS_MAX_MOB_COST: MAX_MOB_COST, ODDS_MAX_WORK: MAX_WORK,
  ODDS_MAX_THRESHOLDS: MAX_THRESHOLDS, MAX_ODDS_DICE,
} = require('./contract').LIMITS;

/** Counts the pairings a fold is about to do; refuses past MAX_WORK, before doing them. */
class Budget {
  constructor() {
    this.used = 0;
  }

  spend(a, b, path) {
    this.used += a.size * b.size;
    if (this.used > MAX_WORK) throw new LimitError(path, say('odds_too_large', { most: MAX_WORK.toLocaleString('en-US') }));
  }
}

const bigAbs = (a) => (a < 0n ? -a : a);
function gcd(a, b) {
  a = bigAbs(a);
  b = bigAbs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}

// Every denominator here is a product of die sizes (at most d100) and their lcms, so
// its prime factors are small: reducing by them is exact and far faster than Euclid on
// numbers hundreds of digits long (a mob's numerators are).
const SMALL_PRIMES = [2n, 3n, 5n, 7n, 11n, 13n, 17n, 19n, 23n, 29n, 31n, 37n, 41n, 43n, 47n, 53n, 59n, 61n, 67n,
  71n, 73n, 79n, 83n, 89n, 97n];

/** The largest e <= cap with powers[e] (= p^e) dividing x, by binary search. */
function valuation(x, powers, cap) {
  if (x === 0n) return cap;
  let lo = 0;
  let hi = cap;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (x % powers[mid] === 0n) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// The last denominators factored: a distribution's values all share one.
const factored = new Map();

/** [[p, [1, p, p², …, p^e]] for each small prime p^e dividing den, and what is left]. */
function smallFactors(den) {
  const known = factored.get(den);
  if (known) return known;
  const out = [];
  let rest = den;
  for (const p of SMALL_PRIMES) {
    if (rest % p !== 0n) continue;
    const powers = [1n];
    while (rest % p === 0n) {
      rest /= p;
      powers.push(powers[powers.length - 1] * p);
    }
    out.push(powers);
  }
  const result = [out, rest];
  if (factored.size > 64) factored.clear();
  factored.set(den, result);
  return result;
}

/** The common factor of `den` and every value of `nums` (den > 0). */
function commonFactor(den, nums) {
  let g = 1n;
  const [factors, rest] = smallFactors(den);
  for (const powers of factors) {
    let e = powers.length - 1;
    for (const x of nums) {
      e = valuation(x, powers, e);
      if (e === 0) break;
    }
    g *= powers[e];
  }
  if (rest !== 1n) {
    // A larger prime factor (never expected): fall back to Euclid for it.
    let h = rest;
    for (const x of nums) h = gcd(h, x / g);
    g *= h || 1n;
  }
  return g;
}

/** An exact fraction [num, den], reduced, den > 0. */
function frac(num, den = 1n) {
  if (num === 0n) return [0n, 1n];
  const g = commonFactor(den, [num]);
  return [num / g, den / g];
}
const fadd = (a, b) => frac(a[0] * b[1] + b[0] * a[1], a[1] * b[1]);
const fsub = (a, b) => frac(a[0] * b[1] - b[0] * a[1], a[1] * b[1]);
const fmul = (a, b) => frac(a[0] * b[0], a[1] * b[1]);
const fstr = (a) => `${a[0]}/${a[1]}`;

/** A correctly rounded double of num/den (as Python's float(Fraction)). */
function toFloat(f) {
  const [num, den] = f;
  if (num === 0n) return 0;
  const neg = num < 0n;
  let n = bigAbs(num);
  // Scale to a 64-bit quotient, then let one final division round.
  const shift = BigInt(Math.max(0, 64 - (n.toString(2).length - den.toString(2).length)));
  const q = (n << shift) / den;
  const r = (n << shift) % den;
  let value = Number(q | (r ? 1n : 0n)) / 2 ** Number(shift);
  if (neg) value = -value;
  return value;
}

const keyOf = (v) => (Array.isArray(v) ? v.join(',') : v);

// A work meter for the Roll20 sandbox, where every Mod script shares one thread: each pair
// of outcomes combined (convolve, map, mix) is one unit of work, weighted by the size of
// the numbers multiplied. odds() with options.budget stops with a LimitError once the
// units pass the budget (vtt_scripts/roll20/src/mod/odds.js turns that into a message).
let meter = null;
let spentEver = 0; // all units since the script started (Fracas.stats() shows it)
function spend(units) {
  // Charged before the work is done: the work that would pass the budget is never started.
  if (meter !== null && meter.used + units > meter.limit) {
    const err = new LimitError('$', say('odds_work', { limit: meter.limit.toLocaleString('en-US') }));
    err.overBudget = true;
    throw err;
  }
  if (meter !== null) meter.used += units;
  spentEver += units;
}
const bits = (x) => Math.max(1, Math.ceil(x.toString(16).length / 16)); // 64-bit words
// Outcomes that are arrays (a pool's [best face, hits, …]) are keyed by a joined string:
// measured about 2 × their length times the cost of a number's.
const keyCost = (d) => {
  const first = d.w.values().next().value;
  return first && Array.isArray(first.v) ? 2 * first.v.length : 1;
};

/** Outcome → BigInt weight over `den` (weights sum to at most den). */
class Dist {
  constructor(w, den) {
    this.w = w; // Map key → {v, x}
    this.den = den;
  }

  static point(v) {
    return new Dist(new Map([[keyOf(v), { v, x: 1n }]]), 1n);
  }

  static uniform(values) {
    const w = new Map();
    let n = 0n;
    for (const v of values) {
      const k = keyOf(v);
      const e = w.get(k);
      if (e) e.x += 1n;
      else w.set(k, { v, x: 1n });
      n += 1n;
    }
    return new Dist(w, n);
  }

  add(w, v, x) {
    const k = keyOf(v);
    const e = w.get(k);
    if (e) e.x += x;
    else w.set(k, { v, x });
  }

  map(f) {
    spend(this.w.size * bits(this.den) * keyCost(this));
    const w = new Map();
    for (const { v, x } of this.w.values()) this.add(w, f(v), x);
    return new Dist(w, this.den);
  }

  convolve(other, combine = (a, b) => a + b) {
    spend(this.w.size * other.w.size * (bits(this.den) + bits(other.den)) * Math.max(keyCost(this), keyCost(other)));
    const w = new Map();
    for (const a of this.w.values()) {
      for (const b of other.w.values()) this.add(w, combine(a.v, b.v), a.x * b.x);
    }
    return new Dist(w, this.den * other.den);
  }

  /** [lowest, highest] outcome when every outcome is an integer (damage totals), else null. */
  integerSpan() {
    let low = null;
    let high = null;
    for (const { v } of this.w.values()) {
      if (!Number.isInteger(v)) return null;
      if (low === null || v < low) low = v;
      if (high === null || v > high) high = v;
    }
    return low === null ? null : [low, high];
  }

  power(n) {
    if (n > 1 && this.integerSpan() !== null) return kroneckerPower(this, n);
    let result = null;
    let base = this;
    while (n) {
      if (n & 1) result = result === null ? base : result.convolve(base);
      n >>= 1;
      if (n) base = base.convolve(base);
    }
    return result;
  }

  reduced() {
    const g = commonFactor(this.den, Array.from(this.w.values(), (e) => e.x));
    if (g <= 1n) return this;
    const w = new Map();
    for (const [k, e] of this.w) w.set(k, { v: e.v, x: e.x / g });
    return new Dist(w, this.den / g);
  }

  prob(pred) {
    let num = 0n;
    for (const { v, x } of this.w.values()) if (pred(v)) num += x;
    return frac(num, this.den);
  }

  /** [value, exact fraction] in ascending (numeric) value order. */
  items() {
    return Array.from(this.w.values()).sort((a, b) => a.v - b.v).map(({ v, x }) => [v, frac(x, this.den)]);
  }

  get size() {
    return this.w.size;
  }
}

/**
 * The sum of `n` independent copies of an integer-valued distribution, exactly, as one BigInt
 * power (Kronecker substitution, as fracas.exact.kronecker_power): the weights, shifted to
 * start at 0, are the digits of one integer in base 2^(8·slot) with slot bytes enough for any
 * weight of the result (they sum to at most den^n); its n-th power has the n-fold sum's
 * weights as its digits. Charged to the meter as mobCost says, before the power.
 */
function kroneckerPower(dist, n) {
  const [low, high] = dist.integerSpan();
  const den = dist.den ** BigInt(n);
  const slotHex = 2 * Math.ceil((den.toString(2).length + 1) / 8); // hex digits per slot
  spend(Math.ceil(mobCost(high - low + 1, dist.den.toString(2).length, n)));
  const digits = new Array(high - low + 1).fill('0'.repeat(slotHex));
  for (const { v, x } of dist.w.values()) digits[v - low] = x.toString(16).padStart(slotHex, '0');
  const packed = BigInt(`0x${digits.reverse().join('')}`) ** BigInt(n);
  const size = (high - low) * n + 1;
  const hex = packed.toString(16).padStart(size * slotHex, '0');
  const w = new Map();
  for (let i = 0; i < size; i++) {
    const at = hex.length - (i + 1) * slotHex;
    const x = BigInt(`0x${hex.slice(at, at + slotHex)}`);
    if (x) w.set(keyOf(low * n + i), { v: low * n + i, x });
  }
  return new Dist(w, den);
}

/**
 * The work of the `count`-fold sum of one attack's damage (`span` values from its lowest to
 * its highest, weights over a `denBits`-bit denominator), as src/fracas/drive/odds.py
 * mob_cost counts it: the packed result's size in 64-bit words to the power log2(3)
 * (Karatsuba's), the same figure Python checks against the same MAX_MOB_COST.
 */
function mobCost(span, denBits, count) {
  const slotBits = 8 * Math.ceil((count * denBits + 1) / 8);
  const words = slotBits * ((span - 1) * count + 1) / 64;
  return words ** Math.log2(3);
}

function mobCosts(damages, count) {
  let total = 0;
  for (const d of damages) {
    const span = d.integerSpan();
    total += mobCost(span === null ? d.size : span[1] - span[0] + 1, d.den.toString(2).length, count);
  }
  return total;
}

/** Refuse, before any work, a mob whose odds cost more than MAX_MOB_COST (as Python does). */
function checkMob(damages, count) {
  const cost = mobCosts(damages, count);
  if (cost <= MAX_MOB_COST) return;
  let low = 1;
  let high = count;
  while (low < high) {
    const mid = Math.floor((low + high + 1) / 2);
    if (mobCosts(damages, mid) <= MAX_MOB_COST) low = mid;
    else high = mid - 1;
  }
  const size = Math.max(...damages.map((d) => d.size));
  throw new LimitError('$.count', say('odds_convolve', {
    count, size, work: sci(cost), limit: sci(MAX_MOB_COST), most: low,
  }));
}

/** A number as Python's f"{x:.2e}" writes it (5.00e+07). */
function sci(x) {
  const [mantissa, exponent] = x.toExponential(2).split('e');
  const e = Number(exponent);
  return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

/** The mixture: with probability p (a fraction) take a draw from d. */
function mix(parts) {
  let den = 1n;
  for (const [p, d] of parts) {
    const scale = p[1] * d.den;
    den = den * scale / gcd(den, scale);
  }
  const w = new Map();
  const out = new Dist(w, den);
  spend(parts.reduce((n, [, d]) => n + d.w.size, 0) * bits(den));
  for (const [p, d] of parts) {
    if (p[0] === 0n) continue;
    const factor = den / (p[1] * d.den) * p[0];
    for (const { v, x } of d.w.values()) out.add(w, v, x * factor);
  }
  return out;
}

function depthFor(faces, copies = 1) {
  let depth = 1;
  while (BigInt(copies) * TAIL_DEN >= BigInt(faces) ** BigInt(depth)) depth += 1;
  return depth;
}

// -- Enchanted Realms --------------------------------------------------------------------------

const D3 = Dist.uniform([1, 2, 3]);
const D20 = Array.from({ length: 20 }, (_, i) => i + 1);
const CHAIN_DEPTH = depthFor(20);
const CHAIN_CUT = frac(1n, 20n ** BigInt(CHAIN_DEPTH));
const hitER = (f, toHit, ac) => f === 20 || (f !== 1 && f + toHit >= ac);

const chainCache = new Map();
function chain(toHit, ac, depth = 0) {
  const key = `${toHit},${ac},${depth}`;
  if (chainCache.has(key)) return chainCache.get(key);
  const parts = [];
  for (let f = 1; f < 20; f++) parts.push([[1n, 20n], hitER(f, toHit, ac) ? D3 : Dist.point(0)]);
  const rest = depth + 1 < CHAIN_DEPTH ? D3.convolve(chain(toHit, ac, depth + 1)) : D3;
  parts.push([[1n, 20n], rest]);
  const out = mix(parts).reduced();
  chainCache.set(key, out);
  return out;
}

function pool(n, disadv, toHit, ac, crit) {
  const die = Dist.uniform(D20);
  if (disadv) {
    let state = Dist.point([0, 0]);
    for (let i = 0; i < n + 1; i++) {
      state = state.convolve(die, (s, f) => [Math.max(s[0], f), s[1] + (hitER(f, toHit, ac) ? 1 : 0)]);
    }
    return state.map((s) => [s[1] - (hitER(s[0], toHit, ac) ? 1 : 0), 0]);
  }
  let state = Dist.point([0, 0]);
  for (let i = 0; i < n; i++) {
    state = state.convolve(die, (s, f) => [s[0] + (hitER(f, toHit, ac) ? 1 : 0),
      s[1] || (crit && f >= crit && hitER(f, toHit, ac)) ? 1 : 0]);
  }
  return state;
}

function strikeER(p) {
  const n = p.skill + p.adv + p.sneak;
  const disadv = !!p.disadv;
  const outcomes = pool(n, disadv, p.toHit, p.ac, p.crit);
  const parts = [];
  for (const { v: [hits, critFace], x } of outcomes.w.values()) {
    const prob = frac(x, outcomes.den);
    const crit = hits > 0 && !disadv && (critFace || p.autoCrit !== 0);
    if (hits === 0) {
      parts.push([prob, Dist.point([0, 0, 0])]);
      continue;
    }
    const weight = p.onlyChain ? 0 : hits + p.weight;
    if (crit) parts.push([prob, chain(p.toHit, p.ac).map((c) => [1, 1, weight + c])]);
    else parts.push([prob, Dist.point([1, 0, weight])]);
  }
  return mix(parts);
}

function resist(amount, state) {
  if (state === L.R_HALF) return Math.floor(amount / 2);
  if (state === L.R_DOUBLE) return amount * 2;
  if (state === L.R_IMMUNE) return 0;
  return amount;
}

// ER-22: failures among the player's defense dice (the twin of odds.defense_pool).
const defenseCache = new Map();
function defensePool(n, disadv, dc, ac) {
  const key = `${n},${disadv},${dc},${ac}`;
  if (defenseCache.has(key)) return defenseCache.get(key);
  const failed = (f) => (f === 1 || (f !== 20 && f + ac < dc) ? 1 : 0);
  const die = Dist.uniform(D20);
  let out;
  if (disadv) {
    let state = Dist.point([21, 0]);
    for (let i = 0; i < n + 1; i++) state = state.convolve(die, (s, f) => [Math.min(s[0], f), s[1] + failed(f)]);
    out = state.map((s) => s[1] - failed(s[0]));
  } else {
    let state = Dist.point(0);
    for (let i = 0; i < n; i++) state = state.convolve(die, (s, f) => s + failed(f));
    out = state;
  }
  defenseCache.set(key, out);
  return out;
}

function defenseStrike(p) {
  const failures = defensePool(p.skill + p.adv + p.sneak, !!p.disadv, ER_DEFENSE_DC + p.toHit, p.ac);
  return failures.map((f) => [f > 0 ? 1 : 0, 0, p.onlyChain ? 0 : f]);
}

// ER-17: strays count where resolve counts them (the twin of odds.contributions / odds.total).
const MISS_ER = Dist.point([0, 0, 0]);
const ONE = [1n, 1n];

function massOf(d) {
  let m = 0n;
  for (const { x } of d.w.values()) m += x;
  return frac(m, d.den);
}

/** (hit, crit, base) of strike `s` at its own target; behind full cover it cannot be hit (ER-16). */
function directER(plan, s) {
  if (plan.metas[s].full_cover) return MISS_ER;
  const p = plan.rows[s];
  return plan.defense ? defenseStrike(p) : strikeER(p);
}

/** Per creature near the target of a shot under friendly fire: the part of the outcomes where
 * the shot missed and strayed to it (weighing P(miss) x its slots / 10). */
function straysER(plan, s) {
  const meta = plan.metas[s];
  if (plan.defense || !meta.friendly_fire) return [];
  const p = plan.rows[s];
  const n = p.skill + p.adv + p.sneak;
  const slots = new Map();
  for (const c of plan.targets[meta.target].spec.nearby) slots.set(c, (slots.get(c) || 0) + 1);
  const out = [];
  for (const [creature, k] of slots) {
    const spec = plan.targets[creature].spec;
    const sub = strayAt(meta, p, spec, n, !!p.disadv);
    out.push({
      creature, sub: mix([[[BigInt(k), BigInt(ER_STRAY_SLOTS)], sub]]),
      petrified: spec.conditions.includes('petrified'), resist: resistanceState(spec, meta.damage_type),
    });
  }
  return out;
}

function complete(sub) {
  return mix([[ONE, sub], [fsub(ONE, massOf(sub)), MISS_ER]]).reduced();
}

/** Per creature, in request order, every strike that can land on it, directly or as a stray. */
function contributions(plan) {
  const by = {};
  for (const tid of Object.keys(plan.targets)) by[tid] = [];
  plan.metas.forEach((meta, s) => {
    const p = plan.rows[s];
    // ER-22 (defense rolls): no attribute modifier.
    by[meta.target].push({ outcome: directER(plan, s), noMod: !!(plan.defense || p.onlyChain), mod: p.mod, resist: p.resist });
    for (const st of straysER(plan, s)) {
      by[st.creature].push({ outcome: complete(st.sub), noMod: st.petrified, mod: p.mod, resist: st.resist });
    }
  });
  return by;
}

function targetER(steps) {
  let state = Dist.point([0, 0, 0, 0]); // modifier taken, damage, any hit, any crit
  const budget = new Budget();
  for (const step of steps) {
    budget.spend(state, step.outcome, '$.strikes');
    state = state.convolve(step.outcome, (s, o) => {
      let [taken, damage, anyHit, anyCrit] = s;
      let [hit, crit, base] = o;
      if (hit && !step.noMod && !taken) { // ER-9: the first hit takes the modifier
        taken = 1;
        base = Math.max(0, base + step.mod);
      }
      return [taken, damage + resist(base, step.resist), anyHit || hit, anyCrit || crit];
    });
  }
  return state.map((s) => [s[1], s[2], s[3]]);
}

/** The total over all creatures when a stray is possible, folded jointly; null otherwise. */
function totalER(plan) {
  const strays = plan.metas.map((_, s) => straysER(plan, s));
  if (!strays.some((list) => list.length)) return null;
  const index = new Map(Object.keys(plan.targets).map((tid, i) => [tid, i]));
  let state = Dist.point(['', 0]); // (indices of the creatures whose modifier is taken, total)
  const budget = new Budget();
  plan.metas.forEach((meta, s) => {
    const p = plan.rows[s];
    const params = new Map([[index.get(meta.target), [!!p.onlyChain, p.resist]]]);
    const direct = directER(plan, s);
    const hits = new Dist(new Map([...direct.w].filter(([, e]) => e.v[0])), direct.den);
    const parts = [[ONE, hits.map((o) => [index.get(meta.target), o[0], o[2]])]];
    for (const st of strays[s]) {
      const i = index.get(st.creature);
      params.set(i, [st.petrified, st.resist]);
      parts.push([ONE, st.sub.map((o) => [i, o[0], o[2]])]);
    }
    const landed = mix(parts);
    const outcome = mix([[ONE, landed], [fsub(ONE, massOf(landed)), Dist.point([-1, 0, 0])]]).reduced();
    budget.spend(state, outcome, '$.strikes');
    state = state.convolve(outcome, (st, o) => {
      const [taken, damage] = st;
      const [i, hit, base0] = o;
      if (!hit) return st;
      const [noMod, res] = params.get(i);
      const had = taken !== '' && taken.split('.').includes(String(i));
      let base = base0;
      let now = taken;
      if (!noMod && !had) {
        base = Math.max(0, base + p.mod);
        now = (taken === '' ? [] : taken.split('.').map(Number)).concat([i]).sort((x, y) => x - y).join('.');
      }
      return [now, damage + resist(base, res)];
    });
  });
  return state.map((st) => st[1]).reduced();
}

/** Strikes that can start a crit chain, at their target or as a stray. */
function critStrikes(plan) {
  let count = 0;
  plan.metas.forEach((meta, s) => {
    const p = plan.rows[s];
    const direct = !plan.defense && !meta.full_cover && !!(p.crit || p.autoCrit);
    const stray = meta.friendly_fire && !plan.defense && plan.targets[meta.target].spec.nearby.some(
      (c) => meta.crit_range || plan.targets[c].spec.conditions.includes('paralyzed'));
    if (direct || stray) count += 1;
  });
  return count;
}

// ER-17: the stray odds of each shot under friendly fire (the twin of odds.stray_odds).
function strayOdds(plan) {
  const aimed = new Set(plan.metas.map((m) => m.target));
  const out = [];
  plan.metas.forEach((meta, s) => {
    if (!meta.friendly_fire) return;
    const p = plan.rows[s];
    const nearby = plan.targets[meta.target].spec.nearby;
    const n = p.skill + p.adv + p.sneak;
    const disadv = !!p.disadv;
    const pMiss = meta.full_cover ? ONE : pool(n, disadv, p.toHit, p.ac, 0).prob((o) => o[0] === 0);
    const entry = { strike: s, target: meta.target, p_miss: toFloat(pMiss), p_miss_exact: fstr(pMiss), bystanders: {} };
    nearby.forEach((creature, i) => {
      const spec = plan.targets[creature].spec;
      const dist = strayAt(meta, p, spec, n, disadv);
      const slotP = [1n, BigInt(ER_STRAY_SLOTS)];
      const pHit = fmul(dist.prob((o) => !!o[0]), slotP);
      const info = { slot: i + 1, p_hit: toFloat(pHit), p_hit_exact: fstr(pHit) };
      if (meta.crit_range || spec.conditions.includes('paralyzed')) {
        const pCrit = fmul(dist.prob((o) => !!o[1]), slotP);
        info.p_crit = toFloat(pCrit);
        info.p_crit_exact = fstr(pCrit);
      }
      if (!aimed.has(creature)) {
        const petrified = spec.conditions.includes('petrified');
        const state = resistanceState(spec, meta.damage_type);
        const landed = (o) => resist(o[0] && !petrified ? Math.max(0, o[2] + p.mod) : o[2], state);
        const damage = mix([[slotP, dist.map(landed)], [fsub(ONE, fmul(slotP, pMiss)), Dist.point(0)]]).reduced();
        let mean = [0n, 1n];
        const items = damage.items();
        for (const [v, q] of items) mean = fadd(mean, fmul([BigInt(v), 1n], q));
        info.mean_damage = toFloat(mean);
        info.mean_damage_exact = fstr(mean);
        info.damage = items.map(([v, q]) => [v, toFloat(q)]);
      }
      entry.bystanders[creature] = info;
    });
    out.push(entry);
  });
  return out;
}

/** Over the pool's faces, when every counting die misses the target: the shifted dice against
 * `spec` -> (hit, crit, base before the modifier and resistance); weights sum to P(miss). */
function strayAt(meta, p, spec, n, disadv) {
  const { toHit, ac } = p;
  const covered = spec.cover === 'full';
  const byType = spec.ac_by_type[meta.damage_type];
  const byAc = (byType !== undefined ? byType : spec.ac) + COVER_AC[spec.cover];
  const critThr = meta.crit_range || 0;
  // ER-16: a shot at a target behind full cover never hits it.
  const targetHit = meta.full_cover ? () => false : (f) => hitER(f, toHit, ac);
  const shifted = (f) => Math.min(f + ER_STRAY_SHIFT, 20);
  const bHit = (f) => !covered && (shifted(f) === 20 || shifted(f) + toHit >= byAc);
  const die = Dist.uniform(D20);
  let state = Dist.point([0, 0, 0, 0, 0]);
  for (let i = 0; i < n + (disadv ? 1 : 0); i++) {
    state = state.convolve(die, (st, f) => [
      Math.max(st[0], f), st[1] + (targetHit(f) ? 1 : 0), st[2] + (bHit(f) ? 1 : 0),
      st[3] + (bHit(f) && shifted(f) === 20 ? 1 : 0), st[4] || (critThr && bHit(f) && shifted(f) >= critThr) ? 1 : 0]);
  }
  if (disadv) {
    state = state.map((st) => [st[0], st[1] - (targetHit(st[0]) ? 1 : 0), st[2] - (bHit(st[0]) ? 1 : 0),
      st[3] - (bHit(st[0]) && shifted(st[0]) === 20 ? 1 : 0), 0]);
  }
  const conds = spec.conditions;
  const onlyChain = conds.includes('petrified');
  const parts = [];
  for (const { v: [, tHits, hits, , critFace], x } of state.w.values()) {
    if (tHits !== 0) continue;
    const prob = frac(x, state.den);
    const crit = hits > 0 && !disadv && (critFace || conds.includes('paralyzed'));
    if (hits === 0) {
      parts.push([prob, MISS_ER]);
      continue;
    }
    const weight = onlyChain ? 0 : hits; // a shot at range has no weight (ER-4)
    const chainDist = crit ? chain(toHit, byAc) : Dist.point(0);
    parts.push([prob, chainDist.map((c) => [1, crit ? 1 : 0, weight + c])]);
  }
  return mix(parts);
}

// -- Worldwalker, Cartyrion, old-school ------------------------------------------------------

const facesSumCache = new Map();
function facesSum(n, low, high) {
  const key = `${n},${low},${high}`;
  if (facesSumCache.has(key)) return facesSumCache.get(key);
  let total = Dist.point(0);
  const face = Dist.uniform(Array.from({ length: high - low + 1 }, (_, i) => low + i));
  for (let i = 0; i < n; i++) total = total.convolve(face);
  facesSumCache.set(key, total);
  return total;
}

function comb(n, k) {
  let r = 1n;
  for (let i = 1n; i <= BigInt(k); i++) r = r * (BigInt(n) - BigInt(k) + i) / i;
  return r;
}

const explosionCache = new Map();
/** K, the explosions of n exploding dice (negative binomial), and the mass kept at the cut. */
function explosions(n, faces) {
  const key = `${n},${faces}`;
  if (explosionCache.has(key)) return explosionCache.get(key);
  const F = BigInt(faces);
  const parts = [];
  let mass = [0n, 1n];
  let k = 0;
  for (;;) {
    const p = frac(comb(k + n - 1, k) * (F - 1n) ** BigInt(n), F ** BigInt(n + k));
    parts.push([k, p]);
    mass = fadd(mass, p);
    k += 1;
    const left = fsub([1n, 1n], mass);
    if (left[0] * TAIL_DEN < left[1]) break;
  }
  const cut = fsub([1n, 1n], mass);
  parts.push([k, cut]);
  let den = 1n;
  for (const [, p] of parts) den = den * p[1] / gcd(den, p[1]);
  const w = new Map();
  const out = new Dist(w, den);
  for (const [kk, p] of parts) out.add(w, kk, p[0] * (den / p[1]));
  const result = [out, cut];
  explosionCache.set(key, result);
  return result;
}

function dice(n, faces, explode) {
  if (!explode) return facesSum(n, 1, faces).map((v) => [v, 0]);
  if (n === 0) return Dist.point([0, 0]);
  const [k] = explosions(n, faces);
  return k.convolve(facesSum(n, 1, faces - 1), (kk, t) => [faces * kk + t, kk]).reduced();
}

function countFaces(pred, sizes) {
  let hits = 0n;
  let total = 0n;
  const walk = (prefix) => {
    if (prefix.length === sizes.length) {
      total += 1n;
      if (pred(...prefix)) hits += 1n;
      return;
    }
    for (const f of sizes[prefix.length]) walk(prefix.concat([f]));
  };
  walk([]);
  return frac(hits, total);
}

function strikeX(row) {
  if (row[L.X_DICE] > MAX_ODDS_DICE) {
    throw new LimitError('$.strikes', say('odds_dice', { dice: row[L.X_DICE], most: MAX_ODDS_DICE }));
  }
  let pReact = [BigInt(row[L.X_REACT]), 1n];
  if (row[L.X_FEINT]) {
    const fb = row[L.X_FEINT_BONUS];
    const fd = row[L.X_FEINT_DEFENSE];
    pReact = fmul(pReact, fsub([1n, 1n], countFaces((a, d) => a + fb > d + fd, [D20, D20])));
  }
  const mode = row[L.X_HIT];
  let pLand;
  if (mode === L.X_HIT_NONE) {
    pLand = [1n, 1n];
  } else {
    pLand = [0n, 1n];
    for (const f of D20) {
      let attack;
      let hit;
      if (mode === L.X_HIT_WW) {
        attack = (f === 20 ? 30 : f === 1 ? -10 : f) + row[L.X_BONUS];
        hit = attack >= row[L.X_TN];
      } else {
        attack = f + row[L.X_BONUS];
        hit = f === 20 || (f !== 1 && attack >= row[L.X_TN]);
      }
      if (!hit) continue;
      const pNeg = frac(BigInt(D20.filter((r) => r + row[L.X_REACT_BONUS] >= attack).length), 20n);
      pLand = fadd(pLand, fmul([1n, 20n], fsub([1n, 1n], fmul(pReact, pNeg))));
    }
  }
  const rolled = dice(row[L.X_DICE], row[L.X_FACES], !!row[L.X_EXPLODE]);
  const base = row[L.X_FLAT] + row[L.X_PER_DIE] * row[L.X_DICE];
  const least = row[L.X_MIN];
  const damage = (reduce) => rolled.map((o) => [1, Math.max(o[0] + base - reduce, 0, least), o[1]]);
  let landed;
  if (row[L.X_CHECK]) {
    const pPass = frac(BigInt(D20.filter((f) => f + row[L.X_CHECK_BONUS] >= row[L.X_CHECK_DC]).length), 20n);
    landed = mix([[pPass, damage(row[L.X_REDUCE_PASS])], [fsub([1n, 1n], pPass), damage(row[L.X_REDUCE])]]);
  } else {
    landed = damage(row[L.X_REDUCE]);
  }
  return mix([[pLand, landed], [fsub([1n, 1n], pLand), Dist.point([0, 0, 0])]]).reduced();
}

function targetX(rowsOf, weapon, shield) {
  let state = Dist.point([weapon, shield, 0, 0]);
  const budget = new Budget();
  for (const row of rowsOf) {
    const parry = row[L.X_PARRY];
    let outcome = strikeX(row);
    if (parry !== L.X_PARRY_WEAPON) outcome = outcome.map((o) => [o[0], o[1], 0]);
    budget.spend(state, outcome, '$.strikes');
    state = state.convolve(outcome, (s, o) => {
      let [leftW, leftS, total, anyLanded] = s;
      const [landed, dmg0, exploded] = o;
      let dmg = dmg0;
      if (landed && parry === L.X_PARRY_WEAPON && leftW > 0) {
        leftW = Math.max(0, leftW - exploded);
        dmg = 0;
      } else if (landed && parry === L.X_PARRY_SHIELD && leftS > 0) {
        const absorbed = Math.min(dmg, Math.floor((leftS + 1) / 2));
        dmg -= absorbed;
        leftS = Math.max(0, leftS - 2 * absorbed);
      }
      return [leftW, leftS, total + dmg, anyLanded || landed ? 1 : 0];
    }).reduced();
  }
  return state.map((s) => [s[2], s[3], 0]);
}

// -- the driver ---------------------------------------------------------------------------------

function summary(damage) {
  const items = damage.items();
  // Mean and variance as single fractions: sum(v x) / den and (den sum(v² x) - (sum(v x))²) / den².
  let s1 = 0n;
  let s2 = 0n;
  for (const { v, x } of damage.w.values()) {
    s1 += BigInt(v) * x;
    s2 += BigInt(v) * BigInt(v) * x;
  }
  const mean = frac(s1, damage.den);
  const variance = frac(damage.den * s2 - s1 * s1, damage.den * damage.den);
  return {
    mean: toFloat(mean), mean_exact: fstr(mean), sd: Math.sqrt(toFloat(variance)),
    distribution: items.map(([v, p]) => [v, toFloat(p)]), exact: items.map(([v, p]) => [v, fstr(p)]),
  };
}

/** A JSON value's type in msgspec's words, as fracas.requests.type_name says it. */
function typeName(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  return 'object';
}

/**
 * Exact odds of an attack request of any ruleset (the twin of fracas.odds): per target
 * the damage distribution, mean, sd, P(hit), P(crit) (ER), P(damage >= N), P(drop).
 */
function odds(request, options = {}) {
  if (options.budget === undefined || options.budget === null) return oddsOf(request, options);
  const outer = meter;
  meter = { used: 0, limit: options.budget };
  try {
    const result = oddsOf(request, options);
    result.work = meter.used;
    return result;
  } finally {
    meter = outer;
  }
}

function oddsOf(request, options) {
  let parsed = request;
  if (typeof request === 'string') parsed = JSON.parse(request);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new SchemaError('$', say('odds_object'));
  const attack = {};
  // Odds roll nothing: the request's seed and rolls are not read (nor checked).
  for (const key of Object.keys(parsed)) {
    if (!['count', 'remaining', 'at_least', 'seed', 'rolls'].includes(key)) attack[key] = parsed[key];
  }
  const count = options.count !== undefined && options.count !== null ? options.count : ('count' in parsed ? parsed.count : 1);
  const remaining = options.remaining || ('remaining' in parsed ? parsed.remaining : {});
  const atLeast = options.at_least || ('at_least' in parsed ? parsed.at_least : []);
  if (typeof count !== 'number' || !Number.isInteger(count)) throw new SchemaError('$.count', say('msgspec_type', { expected: 'int', got: typeName(count) }));
  checkRange(count, 1, MAX_COUNT, '$.count', 'count');
  if (remaining === null || typeof remaining !== 'object' || Array.isArray(remaining)) {
    throw new SchemaError('$.remaining', say('odds_remaining'));
  }
  if (!Array.isArray(atLeast) || !atLeast.every((n) => Number.isInteger(n))) throw new SchemaError('$.at_least', say('odds_at_least'));
  if (atLeast.length > MAX_THRESHOLDS) {
    throw new LimitError('$.at_least', say('too_many', { count: atLeast.length, what: 'thresholds', most: MAX_THRESHOLDS }));
  }
  const { rules } = rulesOf(attack);
  let outcomes;
  let cut = [0n, 1n];
  let hasCrit = false;
  let ids;
  let rulesetName;
  const notes = {};
  let joint = null; // ER-17: the total when the targets' damage is not independent
  if (!rules) {
    const plan = engine.compileAttack(attack, { seed: 0 });
    ids = Object.keys(plan.targets);
    rulesetName = plan.req.ruleset;
    checkRemaining(remaining, ids);
    outcomes = {};
    const steps = contributions(plan);
    for (const tid of ids) outcomes[tid] = targetER(steps[tid]);
    joint = totalER(plan);
    if (count === 1) {
      const strays = strayOdds(plan);
      if (strays.length) notes.friendly_fire = strays;
    }
    cut = fmul(CHAIN_CUT, [BigInt(critStrikes(plan)), 1n]);
    hasCrit = true;
  } else {
    const plan = rows.compileAttack(rules, attack, { seed: 0 });
    ids = plan.ids;
    rulesetName = rules.name;
    checkRemaining(remaining, ids);
    outcomes = {};
    ids.forEach((tid) => {
      const state = rules.parryState ? rules.parryState(plan.targets[tid]) : [0, 0];
      outcomes[tid] = targetX(plan.compiled.filter(([, m]) => m.target === tid).map(([c]) => c), state[0], state[1]);
    });
    for (const [cols] of plan.compiled) {
      if (cols[L.X_EXPLODE] && cols[L.X_DICE]) cut = fadd(cut, explosions(cols[L.X_DICE], cols[L.X_FACES])[1]);
    }
  }
  const targets = {};
  let total = null;
  const damages = {};
  for (const tid of ids) damages[tid] = outcomes[tid].map((o) => o[0]).reduced();
  if (count > 1) {
    for (const tid of ids) {
      if (damages[tid].size * count > MAX_SUPPORT) {
        throw new LimitError('$.count', say('odds_support', { count, most: MAX_SUPPORT.toLocaleString('en-US') }));
      }
    }
    checkMob([...ids.map((tid) => damages[tid]), ...(joint !== null ? [joint] : [])], count);
  }
  for (const tid of ids) {
    let damage = damages[tid];
    let pHit = outcomes[tid].prob((o) => !!o[1]);
    let pCrit = outcomes[tid].prob((o) => !!o[2]);
    if (count > 1) {
      damage = damage.power(count).reduced();
      const miss = fsub([1n, 1n], pHit);
      const nocrit = fsub([1n, 1n], pCrit);
      pHit = fsub([1n, 1n], frac(miss[0] ** BigInt(count), miss[1] ** BigInt(count)));
      pCrit = fsub([1n, 1n], frac(nocrit[0] ** BigInt(count), nocrit[1] ** BigInt(count)));
    }
    const entry = summary(damage);
    entry.p_hit = toFloat(pHit);
    entry.p_hit_exact = fstr(pHit);
    if (hasCrit) {
      entry.p_crit = toFloat(pCrit);
      entry.p_crit_exact = fstr(pCrit);
    }
    entry.p_at_least = {};
    for (const n of atLeast) entry.p_at_least[String(n)] = toFloat(damage.prob((v) => v >= n));
    if (Object.prototype.hasOwnProperty.call(remaining, tid)) {
      const drop = damage.prob((v) => v >= remaining[tid]);
      entry.remaining = remaining[tid];
      entry.p_drop = toFloat(drop);
      entry.p_drop_exact = fstr(drop);
    }
    targets[tid] = entry;
    if (joint === null) total = total === null ? damage : total.convolve(damage).reduced();
  }
  if (joint !== null) total = count > 1 ? joint.power(count).reduced() : joint;
  const totals = summary(total);
  return {
    ruleset: rulesetName, count, targets,
    total: { mean: totals.mean, mean_exact: totals.mean_exact, sd: totals.sd, distribution: totals.distribution },
    cut: toFloat(fmul(cut, [BigInt(count), 1n])),
    cut_note: 'probability (below 1e-15) whose damage past a cut crit chain or explosion is counted short; every other figure is exact',
    ...notes,
  };
}

function checkRemaining(remaining, ids) {
  for (const tid of Object.keys(remaining)) {
    const path = keyPath('$.remaining', tid);
    if (!ids.includes(tid)) throw new SchemaError(path, say('odds_remaining_target', { target: pyRepr(tid) }));
    const left = remaining[tid];
    if (typeof left !== 'number' || !Number.isInteger(left)) throw new SchemaError(path, say('msgspec_type', { expected: 'int', got: typeName(left) }));
    checkRange(left, 1, 1e9, path, 'remaining');
  }
}

/** The units of work all odds have taken since the script started. */
function workDone() {
  return spentEver;
}

module.exports = { odds, Dist, toFloat, CHAIN_DEPTH, workDone };
