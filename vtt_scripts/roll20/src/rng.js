'use strict';
// The dice generator: xoshiro128** seeded by SplitMix64, Lemire's unbiased dice.
// The twin of src/fracas/rng.py; docs/ENGINE.md section 1 is the contract.
//
// SplitMix64 needs 64-bit arithmetic. It is done on pairs of unsigned 32-bit
// words (hi, lo) rather than with BigInt, so the generator runs in any sandbox
// Roll20 hands us. Seeds are Numbers up to 2**53, decimal strings, or BigInts.

const TWO32 = 4294967296;

// Full 64-bit product of two unsigned 32-bit words, as [hi, lo].
function mul32(a, b) {
  const a0 = a & 0xffff, a1 = a >>> 16;
  const b0 = b & 0xffff, b1 = b >>> 16;
  const mid = a0 * b1 + a1 * b0; // < 2**33, exact
  const low = a0 * b0 + (mid % 65536) * 65536; // < 2**33, exact
  const lo = low % TWO32;
  const hi = (a1 * b1 + Math.floor(mid / 65536) + Math.floor(low / TWO32)) % TWO32;
  return [hi, lo];
}

// (a * b) mod 2**64 for [hi, lo] pairs.
function mul64(a, b) {
  const [hi, lo] = mul32(a[1], b[1]);
  return [(hi + Math.imul(a[0], b[1]) + Math.imul(a[1], b[0])) >>> 0, lo];
}

function add64(a, b) {
  const lo = a[1] + b[1];
  return [(a[0] + b[0] + (lo >= TWO32 ? 1 : 0)) >>> 0, lo % TWO32];
}

function xorShiftRight(z, k) { // z ^ (z >> k), 0 < k < 32
  const lo = ((z[1] >>> k) | (z[0] << (32 - k))) >>> 0;
  return [(z[0] ^ (z[0] >>> k)) >>> 0, (z[1] ^ lo) >>> 0];
}

const GOLDEN_GAMMA = [0x9e3779b9, 0x7f4a7c15];
const MIX1 = [0xbf58476d, 0x1ce4e5b9];
const MIX2 = [0x94d049bb, 0x133111eb];
const CHUNK_MULTIPLIER = [0xd6e8feb8, 0x6659fd93];

/** Advance a SplitMix64 state ([hi, lo]); returns [newState, output]. */
function splitmix64Next(state) {
  const next = add64(state, GOLDEN_GAMMA);
  let z = mul64(xorShiftRight(next, 30), MIX1);
  z = mul64(xorShiftRight(z, 27), MIX2);
  return [next, xorShiftRight(z, 31)];
}

/** A seed as [hi, lo] words, or null when it is not an integer in 0 .. 2**64 - 1. */
function seedWords(seed) {
  if (typeof seed === 'number') {
    if (!Number.isSafeInteger(seed) || seed < 0) return null;
    return [Math.floor(seed / TWO32), seed % TWO32];
  }
  if (typeof seed === 'bigint') {
    if (seed < 0n || seed >= (1n << 64n)) return null;
    return [Number(seed >> 32n), Number(seed & 0xffffffffn)];
  }
  if (typeof seed === 'string' && /^[0-9]{1,20}$/.test(seed)) {
    // Decimal digits into base 2**32 words, by schoolbook multiply-add on 16-bit limbs.
    const limbs = [0, 0, 0, 0, 0]; // little-endian 16-bit limbs; the fifth catches overflow
    for (const ch of seed) {
      let carry = ch.charCodeAt(0) - 48;
      for (let i = 0; i < limbs.length; i++) {
        const v = limbs[i] * 10 + carry;
        limbs[i] = v % 65536;
        carry = Math.floor(v / 65536);
      }
      if (carry || limbs[4]) return null;
    }
    return [limbs[3] * 65536 + limbs[2], limbs[1] * 65536 + limbs[0]];
  }
  return null;
}

/** The xoshiro128** state of a seed: two SplitMix64 outputs, each low word first. */
function seedState(seed) {
  const words = seedWords(seed);
  if (!words) throw new RangeError(`seed must be an integer 0 <= seed < 2**64, got ${String(seed)}`);
  const [sm, o1] = splitmix64Next(words);
  const [, o2] = splitmix64Next(sm);
  return new Uint32Array([o1[1], o1[0], o2[1], o2[0]]);
}

/** The seed ([hi, lo]) of bulk chunk `chunk`; chunk 0 keeps the request's seed (ENGINE.md 5). */
function chunkSeedWords(seed, chunk) {
  const words = seedWords(seed);
  if (!words) throw new RangeError(`seed must be an integer 0 <= seed < 2**64, got ${String(seed)}`);
  if (chunk === 0) return words;
  const k = mul64([Math.floor(chunk / TWO32), chunk % TWO32], CHUNK_MULTIPLIER);
  return splitmix64Next([(words[0] ^ k[0]) >>> 0, (words[1] ^ k[1]) >>> 0])[1];
}

/** A decimal string of a [hi, lo] pair (for showing chunk seeds and >2**53 seeds). */
function wordsToDecimal(words) {
  let hi = words[0], lo = words[1];
  if (hi < 2097152) return String(hi * TWO32 + lo); // below 2**53: exact
  const digits = [];
  // Repeated division by 10 over four 16-bit limbs; at most 20 digits.
  let limbs = [hi >>> 16, hi & 0xffff, lo >>> 16, lo & 0xffff];
  for (let guard = 0; guard < 21 && limbs.some((x) => x); guard++) {
    let rem = 0;
    limbs = limbs.map((limb) => {
      const v = rem * 65536 + limb;
      rem = v % 10;
      return Math.floor(v / 10);
    });
    digits.push(rem);
  }
  return digits.reverse().join('') || '0';
}

function rotl(x, k) {
  return (x << k) | (x >>> (32 - k));
}

/** xoshiro128** over a four-word Uint32Array state (shared with the caller). */
class Xoshiro128 {
  constructor(state) {
    this.s = state;
  }

  static fromSeed(seed) {
    return new Xoshiro128(seedState(seed));
  }

  next32() {
    const s = this.s;
    const s1 = s[1];
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /** One die of `faces` faces (1 .. 2**21), by Lemire's multiply-and-reject. */
  die(faces) {
    let m = this.next32() * faces; // < 2**53: exact in a double
    let low = m % TWO32;
    if (low < faces) {
      const threshold = (TWO32 - faces) % faces;
      // Each try rejects with probability < faces / 2**32; the bound is never reached by chance.
      for (let tries = 0; low < threshold; tries++) {
        if (tries > 1000) throw new Error('generator stuck: 1000 rejections in a row');
        m = this.next32() * faces;
        low = m % TWO32;
      }
    }
    return Math.floor(m / TWO32) + 1;
  }
}

module.exports = {
  Xoshiro128, seedState, seedWords, splitmix64Next, chunkSeedWords, wordsToDecimal, TWO32,
};
