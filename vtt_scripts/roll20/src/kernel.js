'use strict';
// The strike kernel: the twin of `_roll_attack` in src/fracas/_native.py.
// It knows no rules text and no JSON: it reads compiled strike rows, draws dice
// in the documented order (docs/ENGINE.md section 2) and reports what happened.

const { LAYOUT } = require('./facts');

const { R_HALF, R_DOUBLE, R_IMMUNE, E_ROLLS_SHORT, E_ROLL_RANGE, E_CHAIN_LIMIT, CHAIN_LIMIT } = LAYOUT;

class KernelError extends Error {
  constructor(code, where, position, faces = 0) {
    super(`kernel error ${code}`);
    this.code = code;
    this.where = where;
    this.position = position;
    this.faces = faces;
  }
}

/** Draws faces from the generator, or from injected rolls when given. */
class Dice {
  constructor(generator, rolls, pos = 0) {
    this.generator = generator;
    this.rolls = rolls;
    this.pos = pos;
    this.strike = -1;
  }

  die(n) {
    const rolls = this.rolls;
    if (rolls) {
      const pos = this.pos;
      if (pos >= rolls.length) throw new KernelError(E_ROLLS_SHORT, this.strike, pos);
      const face = rolls[pos];
      if (face < 1 || face > n) throw new KernelError(E_ROLL_RANGE, this.strike, pos, n);
      this.pos = pos + 1;
      return face;
    }
    return this.generator.die(n);
  }
}

function resist(amount, state) {
  if (state === R_HALF) return Math.floor(amount / 2);
  if (state === R_DOUBLE) return amount * 2;
  if (state === R_IMMUNE) return 0;
  return amount;
}

/**
 * Roll one attack: every strike row in order. `modTaken` is a Set of target indices
 * whose attribute modifier this attack has already used (ER-9). Returns one record
 * per strike: the pool faces with their hits, the discarded position, the crit chain.
 */
function rollAttack(rows, dice) {
  const modTaken = new Set();
  const records = [];
  rows.forEach((p, s) => {
    dice.strike = s;
    const n = p.skill + p.adv + p.sneak + p.disadv;
    const pool = [];
    for (let i = 0; i < n; i++) pool.push(dice.die(20));
    let discard = -1;
    if (p.disadv) {
      let top = 0;
      pool.forEach((face, i) => {
        if (face > top) { top = face; discard = i; }
      });
    }
    let hits = 0, nat20 = 0, critFace = false;
    const poolHits = pool.map((face, i) => {
      const hit = face === 20 || (face !== 1 && face + p.toHit >= p.ac);
      if (i !== discard && hit) {
        hits += 1;
        if (face === 20) nat20 += 1;
        if (p.crit && face >= p.crit) critFace = true;
      }
      return hit;
    });
    const crit = hits > 0 && !p.disadv && (critFace || p.autoCrit !== 0);
    const chain = [];
    let chainDamage = 0;
    if (crit) {
      for (;;) {
        if (chain.length >= CHAIN_LIMIT) throw new KernelError(E_CHAIN_LIMIT, s, -1);
        const face = dice.die(20);
        const hit = face === 20 || (face !== 1 && face + p.toHit >= p.ac);
        let d3 = 0;
        if (hit) {
          d3 = dice.die(3);
          chainDamage += d3;
        }
        chain.push({ face, hit, d3 });
        if (face !== 20) break;
      }
    }
    let base;
    if (hits === 0) base = 0;
    else if (p.onlyChain) base = chainDamage;
    else base = hits + chainDamage + p.weight;
    const preMod = base;
    let mod = 0, modUsed = false;
    if (hits > 0 && !p.onlyChain && !modTaken.has(p.target)) {
      modTaken.add(p.target);
      modUsed = true;
      mod = p.mod;
      base = Math.max(0, base + mod);
    }
    const damage = resist(base, p.resist);
    // ER-11: natural 20s and their chain (dodgeable again on a crit_proof target);
    // all of it when the target may not dodge (restrained, ER-15).
    let undodgeable = 0;
    if (p.noDodge) {
      undodgeable = damage;
    } else if (nat20) {
      const raw = (p.onlyChain ? 0 : nat20) + (p.chainDodgeable ? 0 : chainDamage);
      undodgeable = Math.min(damage, resist(raw, p.resist));
    }
    records.push({
      pool, poolHits, discard, chain, hits, crit, base: preMod, mod, modUsed, damage, undodgeable, nat20, chainDamage,
    });
  });
  return records;
}

module.exports = { Dice, KernelError, rollAttack, resist, E_ROLLS_SHORT, E_ROLL_RANGE, E_CHAIN_LIMIT, CHAIN_LIMIT };
