/* The lane kernel's body, included by lanes.h once per instruction set (FL_TARGET and
 * FL_NAME set there). Lane k of every vector is chunk stream k. */

typedef uint64_t FL_NAME(fl_u64) __attribute__((vector_size(4 * FL_LANES)));

static inline FL_TARGET int FL_NAME(fl_any)(fl_u32 v) {
    FL_NAME(fl_u64) w = (FL_NAME(fl_u64))v;
    uint64_t r = 0;
    for (int i = 0; i < FL_LANES / 2; i++) r |= w[i];
    return r != 0;
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
static FL_TARGET void FL_NAME(fl_fixup)(fl_u32* s, uint32_t n, fl_u32 low, fl_u32* face, fl_u32 bad) {
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
    if (__builtin_expect(FL_NAME(fl_any)(bad), 0)) FL_NAME(fl_fixup)(s, n, low, &face, bad);
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
    if (__builtin_expect(FL_NAME(fl_any)(bad), 0)) FL_NAME(fl_fixup)(s, n, low, &face, bad);
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
    int64_t common = -1;
    for (int i = 0; i < FL_LANES; i++) {
        for (int j = 0; j < 4; j++) s[j][i] = i < lanes ? states[4 * i + j] : 0x9E3779B9u * (uint32_t)(i + j + 1);
        used[i] = i < lanes ? 0xFFFFFFFFu : 0u;
        if (i < lanes && (common < 0 || counts[i] < common)) common = counts[i];
    }
    if (common < 0) common = 0;
    const fl_u32 zero = {0};
    const fl_u32 hm = zero + r->hmask, cm = zero + r->cmask;
    const fl_u32 autocrit = r->auto_crit ? ~zero : zero;
    const fl_u32 one = zero + 1u, twenty = zero + 20u, limit = zero + (uint32_t)r->chain_limit;
    fl_i32 dmg = (fl_i32)zero, und_sum = (fl_i32)zero, hit_sum = (fl_i32)zero, crit_sum = (fl_i32)zero;
    fl_u32 longest = zero;
    int err = 0;
    for (int64_t a = 0; a < common; a++) {
        fl_u32 hits = zero, nat20 = zero, cf = zero;
        for (int32_t i = 0; i < r->pool; i++) {
            fl_u32 face = FL_NAME(fl_vdraw)(s, 20, used);
            hits += (hm >> face) & 1u;
            nat20 += (fl_u32)(face == twenty) & one;
            cf |= (cm >> face) & 1u;
        }
        fl_u32 hitany = (fl_u32)(hits != zero);
        fl_u32 critm = hitany & ((fl_u32)(cf != zero) | autocrit);
        fl_u32 active = critm & used;
        fl_u32 chain_len = zero, chain = zero;
        while (FL_NAME(fl_any)(active)) {
            if (FL_NAME(fl_any)(active & (fl_u32)(chain_len >= limit))) {
                err = 3;
                break;
            }
            fl_u32 face = FL_NAME(fl_vdraw_masked)(s, 20, active);
            chain_len += active & 1u;
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
            und &= (fl_i32)(nat20 != zero);
        }
        dmg += damage;
        und_sum += und;
        hit_sum -= (fl_i32)hitany;
        crit_sum -= (fl_i32)critm;
        fl_u32 longer = (fl_u32)(chain_len > longest);
        longest = (chain_len & longer) | (longest & ~longer);
        for (int i = 0; i < lanes; i++) {
            int32_t d = damage[i];
            out->hist[d < FL_HIST - 1 ? d : FL_HIST - 1] += 1;
        }
        if ((a & 1023) == 1023) {   /* flush the 32-bit sums before they could overflow */
            for (int i = 0; i < lanes; i++) {
                out->damage += dmg[i];
                out->undodgeable += und_sum[i];
                out->attacks_hit += hit_sum[i];
                out->crits += crit_sum[i];
            }
            dmg = und_sum = hit_sum = crit_sum = (fl_i32)zero;
        }
    }
    for (int i = 0; i < lanes; i++) {
        out->damage += dmg[i];
        out->undodgeable += und_sum[i];
        out->attacks_hit += hit_sum[i];
        out->crits += crit_sum[i];
        if ((int64_t)longest[i] > out->longest) out->longest = longest[i];
        for (int j = 0; j < 4; j++) states[4 * i + j] = s[j][i];
    }
    if (err) {
        out->error = err;
        return err;
    }
    for (int i = 0; i < lanes; i++) {   /* what is left of the longer lanes, one by one */
        if (counts[i] > common) {
            err = fl_scalar(r, states + 4 * i, counts[i] - common, out);
            if (err) return err;
        }
    }
    return 0;
}
