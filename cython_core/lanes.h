/* fracas: the lane-parallel bulk kernel (included by lanes.pyx).
 *
 * Eight chunk streams side by side in one thread: lane k rolls attacks of its own
 * bulk chunk from its own xoshiro128** state, exactly as the scalar kernel would
 * (same draws in the same order per chunk, so results are bit-identical); the lanes
 * only share instructions. The pool dice of an attack are drawn for all lanes at once;
 * the crit chain is a masked loop (a lane whose chain ended keeps its state untouched
 * while the others draw). Lemire's rejection (a 32-bit word whose low product is
 * below the threshold: about 5e-9 of d20 draws) is redone lane by lane, in scalar code.
 *
 * Written with GCC/Clang vector extensions; built twice on x86-64 (AVX2, and the
 * baseline), chosen at run time. Elsewhere (MSVC) the same code runs lane by lane
 * through the scalar fallback below, with the same results.
 *
 * One strike per attack (the common mob: `summary_single` in er.pyx), no
 * disadvantage (its discard needs the whole pool); the caller falls back otherwise.
 */
#ifndef FRACAS_LANES_H
#define FRACAS_LANES_H

#include <stdint.h>
#include <string.h>

#define FL_LANES 8
#define FL_HIST 64   /* = HIST_BINS (checked by lanes.pyx) */

typedef struct {
    int32_t pool;            /* dice in the pool: skill + advantage + sneak */
    uint32_t hmask, cmask;   /* hit and crit tables (bit f: face f) */
    int32_t auto_crit;       /* P_AUTO_CRIT (disadvantage is excluded here) */
    int32_t only_chain;      /* P_ONLY_CHAIN */
    int32_t weight;          /* P_WEIGHT */
    int32_t mod;             /* P_MOD */
    int32_t resist;          /* 0 normal, 1 half, 2 double, 3 immune */
    int32_t no_dodge;        /* P_NO_DODGE */
    int32_t chain_dodgeable; /* P_CHAIN_DODGEABLE */
    int32_t chain_limit;     /* CHAIN_LIMIT */
} fl_row;

typedef struct {
    int64_t damage, attacks_hit, crits, undodgeable, longest;
    int64_t hist[FL_HIST];
    int error;               /* 0, or E_CHAIN_LIMIT (3) */
} fl_totals;

/* ---- scalar pieces (the fix-ups, and the fallback) ------------------------------ */

static inline uint32_t fl_next(uint32_t* s) {
    uint32_t s1 = s[1];
    uint32_t x = s1 * 5u;
    uint32_t result = ((x << 7) | (x >> 25)) * 9u;
    uint32_t t = s1 << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 11) | (s[3] >> 21);
    return result;
}

/* The rest of a Lemire draw whose first word gave `low` < n: redraw while below the threshold. */
static inline uint32_t fl_redraw(uint32_t* s, uint32_t n, uint32_t low, uint32_t face) {
    uint32_t threshold = (0u - n) % n;
    uint64_t m;
    while (low < threshold) {
        m = (uint64_t)fl_next(s) * n;
        low = (uint32_t)m;
        face = (uint32_t)(m >> 32) + 1u;
    }
    return face;
}

static inline uint32_t fl_draw(uint32_t* s, uint32_t n) {
    uint64_t m = (uint64_t)fl_next(s) * n;
    uint32_t low = (uint32_t)m;
    uint32_t face = (uint32_t)(m >> 32) + 1u;
    if (low < n) face = fl_redraw(s, n, low, face);
    return face;
}

static inline int32_t fl_resist(int32_t amount, int32_t state) {
    if (state == 1) return amount / 2;
    if (state == 2) return amount * 2;
    if (state == 3) return 0;
    return amount;
}

/* `count` attacks of one lane, in scalar code: the same arithmetic as summary_single. */
static int fl_scalar(const fl_row* r, uint32_t* s, int64_t count, fl_totals* out) {
    for (int64_t a = 0; a < count; a++) {
        int32_t hits = 0, nat20 = 0, crit_face = 0, chain_len = 0, chain = 0;
        for (int32_t i = 0; i < r->pool; i++) {
            uint32_t face = fl_draw(s, 20);
            hits += (r->hmask >> face) & 1u;
            nat20 += face == 20;
            crit_face |= (r->cmask >> face) & 1u;
        }
        int32_t crit = hits > 0 && (crit_face || r->auto_crit);
        if (crit) {
            for (;;) {
                if (chain_len >= r->chain_limit) { out->error = 3; return 3; }
                uint32_t face = fl_draw(s, 20);
                chain_len++;
                if ((r->hmask >> face) & 1u) chain += (int32_t)fl_draw(s, 3);
                if (face != 20) break;
            }
        }
        int32_t base = 0, damage, und = 0;
        if (hits) base = r->only_chain ? chain : hits + chain + r->weight;
        if (hits && !r->only_chain) {
            base += r->mod;
            if (base < 0) base = 0;
        }
        damage = fl_resist(base, r->resist);
        if (r->no_dodge) und = damage;
        else if (nat20) {
            int32_t raw = (r->only_chain ? 0 : nat20) + (r->chain_dodgeable ? 0 : chain);
            raw = fl_resist(raw, r->resist);
            und = raw < damage ? raw : damage;
        }
        out->crits += crit;
        if (chain_len > out->longest) out->longest = chain_len;
        out->attacks_hit += hits > 0;
        out->damage += damage;
        out->undodgeable += und;
        out->hist[damage < FL_HIST - 1 ? damage : FL_HIST - 1] += 1;
    }
    return 0;
}

#if defined(__GNUC__) || defined(__clang__)
#define FL_VECTORS 1
typedef uint32_t fl_u32 __attribute__((vector_size(4 * FL_LANES)));
typedef int32_t fl_i32 __attribute__((vector_size(4 * FL_LANES)));

#if (defined(__x86_64__) || defined(__i386__)) && !defined(__AVX2__)
#define FL_DISPATCH 1
#define FL_TARGET __attribute__((target("avx2")))
#define FL_NAME(x) x##_avx2
#define FL_AVX2 1
#include "lanes_body.h"
#undef FL_TARGET
#undef FL_NAME
#undef FL_AVX2
#endif

#define FL_TARGET
#define FL_NAME(x) x##_base
#ifdef __AVX2__
#define FL_AVX2 1
#endif
#include "lanes_body.h"
#undef FL_TARGET
#undef FL_NAME
#endif

/* Roll counts[k] attacks of lane k from states[4k..4k+3] (advanced in place) into `out`.
 * `lanes` may be below FL_LANES: the missing lanes do nothing. Returns 0 or an error code. */
static int fracas_summary_lanes(const fl_row* r, int lanes, uint32_t* states, const int64_t* counts,
                                fl_totals* out) {
#ifdef FL_VECTORS
#ifdef FL_DISPATCH
    static int avx2 = -1;
    if (avx2 < 0) {
        __builtin_cpu_init();
        avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
    }
    if (avx2) return fl_lanes_avx2(r, lanes, states, counts, out);
#endif
    return fl_lanes_base(r, lanes, states, counts, out);
#else
    for (int k = 0; k < lanes; k++) {
        int err = fl_scalar(r, states + 4 * k, counts[k], out);
        if (err) return err;
    }
    return 0;
#endif
}

/* The lanes' limits (benchmarks only): FL_LANES generators side by side drawing `count` words
 * each (their XOR), and `count` attacks of `pool` d20s each counting hits, from states[4k..]. */
static uint32_t fracas_lanes_words(uint32_t* states, int64_t count) {
#ifdef FL_VECTORS
#ifdef FL_DISPATCH
    if (__builtin_cpu_supports("avx2")) return fl_words_avx2(states, count);
#endif
    return fl_words_base(states, count);
#else
    uint32_t r = 0;
    for (int k = 0; k < FL_LANES; k++)
        for (int64_t a = 0; a < count; a++) r ^= fl_next(states + 4 * k);
    return r;
#endif
}

static int64_t fracas_lanes_dice(uint32_t* states, int64_t count, int32_t pool, uint32_t hmask) {
#ifdef FL_VECTORS
#ifdef FL_DISPATCH
    if (__builtin_cpu_supports("avx2")) return fl_dice_avx2(states, count, pool, hmask);
#endif
    return fl_dice_base(states, count, pool, hmask);
#else
    int64_t total = 0;
    for (int k = 0; k < FL_LANES; k++)
        for (int64_t a = 0; a < count; a++)
            for (int32_t p = 0; p < pool; p++) total += (hmask >> fl_draw(states + 4 * k, 20)) & 1u;
    return total;
#endif
}

/* The kernel's draws alone (fl_draws): its dice and crit chains, nothing computed from them.
 * Scalar builds draw lane by lane as fracas_summary_lanes's scalar path does. */
static int64_t fracas_lanes_draws(uint32_t* states, int64_t count, int32_t pool, uint32_t hmask, uint32_t cmask,
                                  int32_t chain_limit) {
#ifdef FL_VECTORS
#ifdef FL_DISPATCH
    if (__builtin_cpu_supports("avx2")) return fl_draws_avx2(states, count, pool, hmask, cmask, chain_limit);
#endif
    return fl_draws_base(states, count, pool, hmask, cmask, chain_limit);
#else
    int64_t total = 0;
    for (int k = 0; k < FL_LANES; k++) {
        uint32_t* st = states + 4 * k;
        for (int64_t a = 0; a < count; a++) {
            int32_t hits = 0, crit = 0;
            for (int32_t p = 0; p < pool; p++) {
                uint32_t face = fl_draw(st, 20);
                hits += (hmask >> face) & 1u;
                crit |= (cmask >> face) & 1u;
            }
            int32_t len = 0;
            if (hits && crit) {
                for (;;) {
                    if (len >= chain_limit) break;
                    uint32_t face = fl_draw(st, 20);
                    len++;
                    if ((hmask >> face) & 1u) hits += fl_draw(st, 3);
                    if (face != 20) break;
                }
            }
            total += hits;
        }
    }
    return total;
#endif
}

/* Which code runs: "avx2", "vector" (the baseline vector build) or "scalar". */
static const char* fracas_lanes_isa(void) {
#ifdef FL_VECTORS
#ifdef FL_DISPATCH
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) return "avx2";
#endif
#ifdef __AVX2__
    return "avx2";
#else
    return "vector";
#endif
#else
    return "scalar";
#endif
}

#endif
