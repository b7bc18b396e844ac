/* The lane kernel's body, included by lanes.h once per instruction set (FL_TARGET and
 * FL_NAME set there). Lane k of every vector is chunk stream k. */

typedef uint64_t FL_NAME(fl_u64) __attribute__((vector_size(4 * FL_LANES)));

static inline FL_TARGET int FL_NAME(fl_any)(fl_u32 v) {
#ifdef FL_AVX2
    typedef long long v4di __attribute__((vector_size(32)));
    return !__builtin_ia32_ptestz256((v4di)v, (v4di)v);   /* one vptest */
#else
    FL_NAME(fl_u64) w = (FL_NAME(fl_u64))v;
    uint64_t r = 0;
    for (int i = 0; i < FL_LANES / 2; i++) r |= w[i];
    return r != 0;
#endif
}

/* One word of every lane's generator (all lanes advance). */
static inline FL_TARGET fl_u32 FL_NAME(fl_vnext)(fl_u32* s) {
    fl_u32 x = s[1] * 5u;
    fl_u32 result = ((x << 7) | (x >> 25)) * 9u;
    fl_u32 t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 11) | (s[3] >> 21);
    return result;
}

/* Lemire's rejection, lane by lane, where a lane's first word fell below n (rare). */
static __attribute__((noinline, cold)) FL_TARGET void FL_NAME(fl_fixup)(fl_u32* s, uint32_t n, fl_u32 low, fl_u32* face, fl_u32 bad) {
    for (int i = 0; i < FL_LANES; i++) {
        if (!bad[i]) continue;
        uint32_t lane[4] = {s[0][i], s[1][i], s[2][i], s[3][i]};
        (*face)[i] = fl_redraw(lane, n, low[i], (*face)[i]);
        s[0][i] = lane[0];
        s[1][i] = lane[1];
        s[2][i] = lane[2];
        s[3][i] = lane[3];
    }
}

/* The fix-up through a copy: the states' own address never escapes, so the compiler
 * keeps them in registers on the hot path. */
static inline FL_TARGET void FL_NAME(fl_cold)(fl_u32* s, uint32_t n, fl_u32 low, fl_u32* face, fl_u32 bad) {
    fl_u32 copy[4] = {s[0], s[1], s[2], s[3]};
    fl_u32 f = *face;
    FL_NAME(fl_fixup)(copy, n, low, &f, bad);
    *face = f;
    for (int j = 0; j < 4; j++) s[j] = copy[j];
}

/* A face 1..n in every lane (n <= 2^16: the high word of x*n without 64-bit lanes). */
static inline FL_TARGET fl_u32 FL_NAME(fl_vface)(fl_u32 x, uint32_t n) {
    return ((((x >> 16) * n) + (((x & 0xFFFFu) * n) >> 16)) >> 16) + 1u;
}

/* A die of n faces in the lanes of `used` (the others advance, unused). */
static inline FL_TARGET fl_u32 FL_NAME(fl_vdraw)(fl_u32* s, uint32_t n, fl_u32 used) {
    fl_u32 x = FL_NAME(fl_vnext)(s);
    fl_u32 low = x * n;
    fl_u32 face = FL_NAME(fl_vface)(x, n);
    fl_u32 bad = (fl_u32)(low < ((fl_u32){0} + n)) & used;
    if (__builtin_expect(FL_NAME(fl_any)(bad), 0)) FL_NAME(fl_cold)(s, n, low, &face, bad);
    return face;
}

/* A die of n faces in the lanes of `active` only: the other lanes' states stay as they were. */
static inline FL_TARGET fl_u32 FL_NAME(fl_vdraw_masked)(fl_u32* s, uint32_t n, fl_u32 active) {
    fl_u32 old[4] = {s[0], s[1], s[2], s[3]};
    fl_u32 x = FL_NAME(fl_vnext)(s);
    for (int j = 0; j < 4; j++) s[j] = (s[j] & active) | (old[j] & ~active);
    fl_u32 low = x * n;
    fl_u32 face = FL_NAME(fl_vface)(x, n);
    fl_u32 bad = (fl_u32)(low < ((fl_u32){0} + n)) & active;
    if (__builtin_expect(FL_NAME(fl_any)(bad), 0)) FL_NAME(fl_cold)(s, n, low, &face, bad);
    return face;
}

static inline FL_TARGET fl_i32 FL_NAME(fl_vresist)(fl_i32 v, int32_t state) {
    if (state == 1) return v >> 1;   /* v >= 0 here: the same as amount // 2 */
    if (state == 2) return v + v;
    if (state == 3) return v - v;
    return v;
}

static FL_TARGET int FL_NAME(fl_lanes)(const fl_row* r, int lanes, uint32_t* states, const int64_t* counts,
                                       fl_totals* out) {
    fl_u32 s[4];
    fl_u32 used = {0};
    int64_t left[FL_LANES];
    for (int i = 0; i < FL_LANES; i++) {
        for (int j = 0; j < 4; j++) s[j][i] = i < lanes ? states[4 * i + j] : 0x9E3779B9u * (uint32_t)(i + j + 1);
        left[i] = i < lanes ? counts[i] : 0;
        used[i] = left[i] > 0 ? 0xFFFFFFFFu : 0u;
    }
    const fl_u32 zero = {0};
    const fl_u32 hm = zero + r->hmask, cm = zero + r->cmask;
    const fl_u32 autocrit = r->auto_crit ? ~zero : zero;
    const fl_u32 one = zero + 1u, twenty = zero + 20u, limit = zero + (uint32_t)r->chain_limit;
    /* Whether the first crit die is drawn without a test (see below): the row can crit, and
     * its first die is within the chain's limit. */
    const int first_die = (r->cmask != 0 || r->auto_crit) && r->chain_limit > 0;
    fl_i32 dmg = (fl_i32)zero, und_sum = (fl_i32)zero, hit_sum = (fl_i32)zero, crit_sum = (fl_i32)zero;
    fl_u32 longest = zero;
    uint32_t hist[FL_LANES][FL_HIST];
    memset(hist, 0, sizeof hist);
    int err = 0;
    int64_t done = 0;   /* attacks since the last flush of the 32-bit sums */
    /* Rounds of lockstep: every lane still rolling takes as many attacks as the shortest
     * of them has left; a lane that is done drops out (its state is kept as it ends). */
    while (FL_NAME(fl_any)(used) && !err) {
        int64_t steps = -1;
        for (int i = 0; i < FL_LANES; i++)
            if (used[i] && (steps < 0 || left[i] < steps)) steps = left[i];
        for (int64_t a = 0; a < steps; a++) {
            fl_u32 hits = zero, nat20 = zero, cf = zero;
            for (int32_t i = 0; i < r->pool; i++) {
                fl_u32 face = FL_NAME(fl_vdraw)(s, 20, used);
                hits += (hm >> face) & one;
                nat20 += (fl_u32)(face == twenty) & one;
                cf |= (cm >> face) & one;
            }
            fl_u32 hitany = (fl_u32)(hits != zero) & used;
            fl_u32 critm = hitany & ((fl_u32)(cf != zero) | autocrit);
            fl_u32 active = critm;
            fl_u32 chain_len = zero, chain = zero;
            if (first_die) {
                /* The first crit die and its d3, drawn branch-free in the lanes that crit (the
                 * others' states stay as they were): with eight lanes, most rounds have a lane
                 * that crits, and testing for one cost more than the masked draw. Only where the
                 * strike can crit at all (a row that cannot would draw for nothing). */
                fl_u32 face = FL_NAME(fl_vdraw_masked)(s, 20, active);
                chain_len += active & one;
                fl_u32 hit = active & (fl_u32)(((hm >> face) & one) != zero);
                chain += FL_NAME(fl_vdraw_masked)(s, 3, hit) & hit;
                active &= (fl_u32)(face == twenty);
            }
            while (FL_NAME(fl_any)(active)) {
                if (FL_NAME(fl_any)(active & (fl_u32)(chain_len >= limit))) {
                    err = 3;
                    break;
                }
                fl_u32 face = FL_NAME(fl_vdraw_masked)(s, 20, active);
                chain_len += active & one;
                fl_u32 hit = active & (fl_u32)(((hm >> face) & one) != zero);
                if (FL_NAME(fl_any)(hit)) chain += FL_NAME(fl_vdraw_masked)(s, 3, hit) & hit;
                active &= (fl_u32)(face == twenty);
            }
            if (err) break;
            fl_i32 base;
            if (r->only_chain) {
                base = (fl_i32)(chain & hitany);
            } else {
                base = (fl_i32)hits + (fl_i32)chain + r->weight + r->mod;
                base &= ~(fl_i32)(base < (fl_i32)zero);
                base &= (fl_i32)hitany;
            }
            fl_i32 damage = FL_NAME(fl_vresist)(base, r->resist);
            fl_i32 und;
            if (r->no_dodge) {
                und = damage;
            } else {
                fl_i32 raw = (r->only_chain ? (fl_i32)zero : (fl_i32)nat20) + (r->chain_dodgeable ? (fl_i32)zero : (fl_i32)chain);
                raw = FL_NAME(fl_vresist)(raw, r->resist);
                fl_i32 less = (fl_i32)(raw < damage);
                und = (raw & less) | (damage & ~less);
                und &= (fl_i32)(nat20 != zero) & (fl_i32)used;
            }
            dmg += damage;   /* 0 in lanes that are done: their hits are masked out above */
            und_sum += und;
            hit_sum -= (fl_i32)hitany;
            crit_sum -= (fl_i32)critm;
            fl_u32 longer = (fl_u32)(chain_len > longest);
            longest = (chain_len & longer) | (longest & ~longer);
            /* One histogram per lane: increments of the same bin by different lanes do not
             * wait on each other (a shared one serialises them through memory). */
            for (int i = 0; i < FL_LANES; i++) {
                int32_t d = damage[i];
                hist[i][d < FL_HIST - 1 ? d : FL_HIST - 1] += used[i] & 1u;
            }
            if (++done == 1024) {   /* flush the 32-bit sums before they could overflow */
                for (int i = 0; i < lanes; i++) {
                    out->damage += dmg[i];
                    out->undodgeable += und_sum[i];
                    out->attacks_hit += hit_sum[i];
                    out->crits += crit_sum[i];
                    for (int b = 0; b < FL_HIST; b++) out->hist[b] += hist[i][b];
                }
                dmg = und_sum = hit_sum = crit_sum = (fl_i32)zero;
                memset(hist, 0, sizeof hist);
                done = 0;
            }
        }
        for (int i = 0; i < FL_LANES; i++) {
            if (!used[i]) continue;
            left[i] -= steps;
            if (left[i] == 0 || err) {
                used[i] = 0;
                for (int j = 0; j < 4; j++) states[4 * i + j] = s[j][i];
            }
        }
    }
    for (int i = 0; i < lanes; i++) {
        for (int b = 0; b < FL_HIST; b++) out->hist[b] += hist[i][b];
        out->damage += dmg[i];
        out->undodgeable += und_sum[i];
        out->attacks_hit += hit_sum[i];
        out->crits += crit_sum[i];
        if ((int64_t)longest[i] > out->longest) out->longest = longest[i];
    }
    out->error = err;
    return err;
}

/* Every lane's generator state from states[4k..4k+3], and back (the yardsticks below). */
static inline FL_TARGET void FL_NAME(fl_load)(fl_u32* s, const uint32_t* states) {
    for (int i = 0; i < FL_LANES; i++)
        for (int j = 0; j < 4; j++) s[j][i] = states[4 * i + j];
}

static inline FL_TARGET void FL_NAME(fl_store)(const fl_u32* s, uint32_t* states) {
    for (int i = 0; i < FL_LANES; i++)
        for (int j = 0; j < 4; j++) states[4 * i + j] = s[j][i];
}

/* The lanes' own limit (the bench's yardstick, issue 44): `count` words of every lane's
 * generator, XORed, and nothing else, on this instruction set. */
static FL_TARGET uint32_t FL_NAME(fl_words)(uint32_t* states, int64_t count) {
    fl_u32 s[4];
    fl_u32 acc = {0};
    FL_NAME(fl_load)(s, states);
    for (int64_t a = 0; a < count; a++) acc ^= FL_NAME(fl_vnext)(s);
    FL_NAME(fl_store)(s, states);
    uint32_t r = 0;
    for (int i = 0; i < FL_LANES; i++) r ^= acc[i];
    return r;
}

/* The bare attack-shaped loop beside it: `count` attacks in every lane of `pool` d20s each
 * (Lemire's draw, as the kernel draws them), counting the dice that hit `hmask`. No crit
 * chain, no damage: what the dice of a strike cost on the lanes, and nothing else. */
static FL_TARGET int64_t FL_NAME(fl_dice)(uint32_t* states, int64_t count, int32_t pool, uint32_t hmask) {
    fl_u32 s[4];
    const fl_u32 zero = {0}, one = zero + 1u, hm = zero + hmask, all = ~zero;
    fl_u32 hits = zero;
    int64_t total = 0;
    FL_NAME(fl_load)(s, states);
    for (int64_t a = 0; a < count; a++) {
        for (int32_t p = 0; p < pool; p++) hits += (hm >> FL_NAME(fl_vdraw)(s, 20, all)) & one;
        if ((a & 0xFFFFF) == 0xFFFFF) {   /* before the 32-bit counts could overflow */
            for (int i = 0; i < FL_LANES; i++) total += hits[i];
            hits = zero;
        }
    }
    for (int i = 0; i < FL_LANES; i++) total += hits[i];
    FL_NAME(fl_store)(s, states);
    return total;
}

/* The kernel's draws alone (the bench's floor for it under a fixed draw order, issue 44):
 * `count` attacks in every lane of `pool` d20s, then, as fl_lanes draws them, the first crit
 * die and its d3 masked to the lanes that crit (a die on a face of `cmask` among hits) and the
 * chain's later dice while a crit die shows a 20 (at most `chain_limit` of them). No damage,
 * resistance, sums or histogram: each lane ends where the kernel leaves it for such a row. */
static FL_TARGET int64_t FL_NAME(fl_draws)(uint32_t* states, int64_t count, int32_t pool, uint32_t hmask,
                                           uint32_t cmask, int32_t chain_limit) {
    fl_u32 s[4];
    const fl_u32 zero = {0}, one = zero + 1u, hm = zero + hmask, cm = zero + cmask, twenty = zero + 20u,
                 all = ~zero, limit = zero + (uint32_t)chain_limit;
    const int first_die = cmask != 0 && chain_limit > 0;
    fl_u32 acc = zero;
    int64_t total = 0;
    FL_NAME(fl_load)(s, states);
    for (int64_t a = 0; a < count; a++) {
        fl_u32 hits = zero, cf = zero;
        for (int32_t p = 0; p < pool; p++) {
            fl_u32 face = FL_NAME(fl_vdraw)(s, 20, all);
            hits += (hm >> face) & one;
            cf |= (cm >> face) & one;
        }
        fl_u32 active = (fl_u32)(hits != zero) & (fl_u32)(cf != zero);
        fl_u32 chain_len = zero;
        if (first_die) {
            fl_u32 face = FL_NAME(fl_vdraw_masked)(s, 20, active);
            chain_len += active & one;
            fl_u32 hit = active & (fl_u32)(((hm >> face) & one) != zero);
            hits += FL_NAME(fl_vdraw_masked)(s, 3, hit) & hit;
            active &= (fl_u32)(face == twenty);
            while (FL_NAME(fl_any)(active)) {
                if (FL_NAME(fl_any)(active & (fl_u32)(chain_len >= limit))) break;
                face = FL_NAME(fl_vdraw_masked)(s, 20, active);
                chain_len += active & one;
                hit = active & (fl_u32)(((hm >> face) & one) != zero);
                if (FL_NAME(fl_any)(hit)) hits += FL_NAME(fl_vdraw_masked)(s, 3, hit) & hit;
                active &= (fl_u32)(face == twenty);
            }
        }
        acc += hits;
        if ((a & 0xFFFFF) == 0xFFFFF) {   /* before the 32-bit sums could overflow */
            for (int i = 0; i < FL_LANES; i++) total += acc[i];
            acc = zero;
        }
    }
    for (int i = 0; i < FL_LANES; i++) total += acc[i];
    FL_NAME(fl_store)(s, states);
    return total;
}
