# cython: language_level=3
"""The compiled kernels of fracas: the hot path in C, with the GIL released.

The twin of `fracas._native` (pure Python): same entry points, same buffers, same
arithmetic, same draw order (docs/ENGINE.md). Inputs are checked with the GIL held;
the loops then run `with nogil` over typed memoryviews into preallocated outputs.
The layout numbers come from `_layout.pxi`, generated with `fracas._layout` from
the one spec (src/fracas/spec/facts.toml).
"""

from libc.stdint cimport uint32_t, uint64_t, int32_t, int64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset
from cpython cimport array
import array as _pyarray
cimport cython

BACKEND = "compiled"

include "_layout.pxi"

from fracas._facts import CT_EXPLODE_LIMIT as _CT_EXPLODE_LIMIT
# CT-3 decision: explosions in one strike before a maximum face adds no die (the spec's
# ct_explode_limit, as fracas._native bounds it; the strike result says explosions_cut).
cdef int64_t CT_EXPLODE_LIMIT = _CT_EXPLODE_LIMIT


cdef extern from "lanes.h" nogil:
    enum: FL_LANES
    enum: FL_HIST
    ctypedef struct fl_row:
        int32_t pool
        uint32_t hmask
        uint32_t cmask
        int32_t auto_crit
        int32_t only_chain
        int32_t weight
        int32_t mod
        int32_t resist
        int32_t no_dodge
        int32_t chain_dodgeable
        int32_t chain_limit
    ctypedef struct fl_totals:
        int64_t damage
        int64_t attacks_hit
        int64_t crits
        int64_t undodgeable
        int64_t longest
        int64_t hist[64]
        int error
    int fracas_summary_lanes(const fl_row* r, int lanes, uint32_t* states, const int64_t* counts,
                             fl_totals* out)
    const char* fracas_lanes_isa()

#: Chunk streams the lane kernel rolls side by side (roll_summary_lanes).
LANES = FL_LANES
#: The instruction set the lane kernel runs with here: "avx2", "vector" or "scalar".
LANES_ISA = fracas_lanes_isa().decode()


cdef struct Dice:
    uint32_t s0
    uint32_t s1
    uint32_t s2
    uint32_t s3
    const int32_t* rolls     # NULL: draw from the generator
    int64_t n_rolls
    int64_t pos
    int64_t strike
    int error
    int64_t error_pos
    int error_faces


cdef inline uint32_t next32(Dice* d) noexcept nogil:
    cdef uint32_t s1 = d.s1
    cdef uint32_t x = s1 * 5u
    cdef uint32_t result = ((x << 7) | (x >> 25)) * 9u
    cdef uint32_t t = s1 << 9
    d.s2 ^= d.s0
    d.s3 ^= d.s1
    d.s1 ^= d.s2
    d.s0 ^= d.s3
    d.s2 ^= t
    d.s3 = (d.s3 << 11) | (d.s3 >> 21)
    return result


cdef inline int draw_gen(Dice* d, uint32_t n) noexcept nogil:
    """One face 1..n from the generator (never injected rolls): the bulk fast path."""
    cdef uint64_t m = <uint64_t>next32(d) * n
    cdef uint32_t low = <uint32_t>m
    cdef uint32_t threshold
    if low < n:
        threshold = (0u - n) % n
        while low < threshold:
            m = <uint64_t>next32(d) * n
            low = <uint32_t>m
    return <int>(m >> 32) + 1


cdef inline int draw(Dice* d, uint32_t n) noexcept nogil:
    """One face 1..n, or 0 with d.error set (injected rolls short or out of range)."""
    cdef int32_t face
    if d.rolls != NULL:
        if d.pos >= d.n_rolls:
            d.error = E_ROLLS_SHORT
            d.error_pos = d.pos
            return 0
        face = d.rolls[d.pos]
        if face < 1 or face > <int32_t>n:
            d.error = E_ROLL_RANGE
            d.error_pos = d.pos
            d.error_faces = <int>n
            return 0
        d.pos += 1
        return face
    return draw_gen(d, n)


cdef inline int64_t resist(int64_t amount, int state) noexcept nogil:
    if state == R_HALF:
        return amount // 2
    if state == R_DOUBLE:
        return amount * 2
    if state == R_IMMUNE:
        return 0
    return amount


cdef inline uint32_t hit_mask(const int32_t* p) noexcept nogil:
    """Bit f set when a die showing face f hits (ER-6): one table per strike, no branches per die."""
    cdef uint32_t mask = 1u << 20
    cdef int face
    for face in range(2, 20):
        if face + p[P_TO_HIT] >= p[P_AC]:
            mask |= 1u << face
    return mask


cdef inline uint32_t crit_mask(const int32_t* p, uint32_t hits) noexcept nogil:
    """Bit f set when face f is a hitting crit face (ER-8); 0 when the strike cannot crit."""
    cdef uint32_t mask = 0
    cdef int face
    if p[P_CRIT] == 0 or p[P_DISADV]:
        return 0
    for face in range(p[P_CRIT], 21):
        mask |= 1u << face
    return mask & hits


cdef struct Roll:
    # One strike's dice: what the pool and its crit chain showed.
    int64_t n            # dice drawn for the pool (counting + discarded)
    int64_t discard      # position of the die disadvantage discarded, or -1
    int64_t hits         # hitting counting dice
    int64_t nat20        # counting dice showing a natural 20
    int64_t crit         # 1 if the crit chain started
    int64_t chain_len    # crit dice rolled
    int64_t chain        # sum of the chain's d3s


cdef inline int roll_dice(const int32_t* p, uint32_t hmask, uint32_t cmask, Dice* dice, bint injected,
                          Roll* r, int32_t* log, int64_t log_cap, int64_t* logpos) noexcept nogil:
    """Draw one strike's pool and crit chain (ER-3, ER-6, ER-8, ER-12); the one strike loop.

    Every caller goes through here: `roll_strikes` (detail and multi-strike bulk) and
    `summary_single` (the one-strike mob). `injected` is a constant at each call
    site, so the compiler drops the injected-faces branch where it cannot happen;
    with log NULL nothing is logged. Returns an error code.
    """
    cdef int pool[8]
    cdef int64_t i, n = p[P_SKILL] + p[P_ADV] + p[P_SNEAK] + p[P_DISADV]
    cdef int face, top, d3, crit_face = 0
    cdef uint32_t hit
    r.n = n
    r.discard = -1
    r.hits = 0
    r.nat20 = 0
    if log == NULL and p[P_DISADV] == 0:
        # Nothing to log or discard (the common mob): count each die as it is drawn.
        for i in range(n):
            if injected:
                face = draw(dice, 20)
                if dice.error:
                    return dice.error
            else:
                face = draw_gen(dice, 20)
            r.hits += (hmask >> face) & 1
            r.nat20 += face == 20
            crit_face |= (cmask >> face) & 1
        return roll_chain(p, hmask, dice, injected, r, crit_face, log, log_cap, logpos)
    for i in range(n):
        if injected:
            pool[i] = draw(dice, 20)
            if dice.error:
                return dice.error
        else:
            pool[i] = draw_gen(dice, 20)
    if p[P_DISADV]:
        top = 0
        for i in range(n):
            if pool[i] > top:
                top = pool[i]
                r.discard = i
    if log != NULL:
        if logpos[0] + n > log_cap:
            return E_LOG_FULL
        for i in range(n):
            log[logpos[0] * 2] = pool[i]
            log[logpos[0] * 2 + 1] = (hmask >> pool[i]) & 1
            logpos[0] += 1
    for i in range(n):
        # Branch-free: the hit and crit tables replace the comparisons (ER-6, ER-8).
        face = pool[i] if i != r.discard else 0
        r.hits += (hmask >> face) & 1
        r.nat20 += face == 20
        crit_face |= (cmask >> face) & 1
    return roll_chain(p, hmask, dice, injected, r, crit_face, log, log_cap, logpos)


cdef inline int roll_chain(const int32_t* p, uint32_t hmask, Dice* dice, bint injected, Roll* r,
                           int crit_face, int32_t* log, int64_t log_cap, int64_t* logpos) noexcept nogil:
    """The crit chain of a strike whose pool has been counted (ER-8): one crit die, then
    another for every crit die showing a natural 20; each hitting crit die adds d3."""
    cdef int face, d3
    cdef uint32_t hit
    r.crit = r.hits > 0 and (crit_face or (p[P_AUTO_CRIT] != 0 and p[P_DISADV] == 0))
    r.chain_len = 0
    r.chain = 0
    if r.crit:
        while True:
            if r.chain_len >= CHAIN_LIMIT:
                return E_CHAIN_LIMIT
            if injected:
                face = draw(dice, 20)
                if dice.error:
                    return dice.error
            else:
                face = draw_gen(dice, 20)
            r.chain_len += 1
            hit = (hmask >> face) & 1
            if log != NULL:
                if logpos[0] + 2 > log_cap:
                    return E_LOG_FULL
                log[logpos[0] * 2] = face
                log[logpos[0] * 2 + 1] = hit
                logpos[0] += 1
            if hit:
                if injected:
                    d3 = draw(dice, 3)
                    if dice.error:
                        return dice.error
                else:
                    d3 = draw_gen(dice, 3)
                r.chain += d3
                if log != NULL:
                    log[logpos[0] * 2] = d3
                    log[logpos[0] * 2 + 1] = 1
                    logpos[0] += 1
            if face != 20:
                break
    return E_OK


cdef inline int64_t strike_damage(const int32_t* p, const Roll* r, bint take_mod, int64_t* base_out,
                                  int64_t* undodgeable) noexcept nogil:
    """ER-7, ER-9, ER-10, ER-11: the strike's damage and its undodgeable part.

    `take_mod`: this strike adds the target's attribute modifier (the first hitting
    strike at it). `base_out` gets the damage before modifier and resistance.
    """
    cdef int64_t base = 0, damage, raw
    cdef int state = p[P_RESIST]
    if r.hits:
        if p[P_ONLY_CHAIN]:
            base = r.chain
        else:
            base = r.hits + r.chain + p[P_WEIGHT]
    base_out[0] = base
    if take_mod:
        base += p[P_MOD]
        if base < 0:
            base = 0
    damage = resist(base, state)
    if p[P_NO_DODGE]:
        undodgeable[0] = damage
    elif r.nat20:
        raw = 0 if p[P_ONLY_CHAIN] else r.nat20
        if not p[P_CHAIN_DODGEABLE]:
            raw += r.chain
        raw = resist(raw, state)
        undodgeable[0] = raw if raw < damage else damage
    else:
        undodgeable[0] = 0
    return damage


cdef inline int roll_attack(const int32_t* plan, const uint32_t* masks, int64_t begin, int64_t end,
                            Dice* shared, int64_t* mod_stamp, int64_t stamp, int64_t* out,
                            int32_t* log, int64_t log_cap, int64_t* logpos, bint injected=1,
                            int64_t* damage_total=NULL) noexcept nogil:
    """Roll one attack with the generator state in a local copy (kept in registers).
    `injected` 0 (a constant at the call site): the dice come from the generator only;
    `out` NULL: only the damage, added to `damage_total` (a fight's attack)."""
    cdef Dice local = shared[0]
    cdef int err = roll_strikes(plan, masks, begin, end, &local, mod_stamp, stamp, out,
                                log, log_cap, logpos, injected, damage_total)
    shared[0] = local
    return err


cdef inline int roll_strikes(const int32_t* plan, const uint32_t* masks, int64_t begin, int64_t end,
                             Dice* dice, int64_t* mod_stamp, int64_t stamp, int64_t* out,
                             int32_t* log, int64_t log_cap, int64_t* logpos, bint injected=1,
                             int64_t* damage_total=NULL) noexcept nogil:
    """Roll strikes begin..end-1 as one attack; out gets one row per strike.

    `masks` holds two words per plan row (hit mask, crit mask). With log NULL
    nothing is logged. With out NULL (and log NULL) no row is written: the strikes'
    damage is added to `damage_total`. Returns an error code.
    """
    cdef Roll r
    cdef int64_t s, base, undodgeable, damage
    cdef int err, target
    cdef bint take_mod
    cdef const int32_t* p
    cdef int64_t* o
    for s in range(begin, end):
        p = plan + s * PLAN_WIDTH
        o = out + (s - begin) * OUT_WIDTH if out != NULL else NULL
        dice.strike = s
        if log != NULL:
            o[O_LOG] = logpos[0]
        err = roll_dice(p, masks[2 * s], masks[2 * s + 1], dice, injected, &r, log, log_cap, logpos)
        if err:
            return err
        target = p[P_TARGET]
        take_mod = r.hits > 0 and p[P_ONLY_CHAIN] == 0 and mod_stamp[target] != stamp
        if take_mod:
            mod_stamp[target] = stamp
        damage = strike_damage(p, &r, take_mod, &base, &undodgeable)
        if out == NULL:
            damage_total[0] += damage
            continue
        o[O_HITS] = r.hits
        o[O_CRIT] = r.crit
        o[O_CHAIN_LEN] = r.chain_len
        o[O_CHAIN_DMG] = r.chain
        o[O_BASE] = base
        o[O_MOD] = p[P_MOD] if take_mod else 0
        o[O_MOD_USED] = take_mod
        o[O_DAMAGE] = damage
        o[O_UNDODGEABLE] = undodgeable
        o[O_DISCARD] = r.discard
        o[O_NAT20] = r.nat20
        o[O_POOL] = r.n
    return E_OK


cdef object plan_masks(const int32_t[::1] plan):
    """Two words per plan row: the hit mask and the crit mask (see hit_mask, crit_mask)."""
    cdef int64_t n = plan.shape[0] // PLAN_WIDTH
    buf = bytearray(8 * max(n, 1))
    cdef uint32_t[::1] masks = memoryview(buf).cast("I")
    if n:
        fill_masks(&plan[0], n, &masks[0])
    return masks


cdef void fill_masks(const int32_t* plan, int64_t n, uint32_t* masks) noexcept nogil:
    """masks[2s], masks[2s+1]: strike s's hit mask and crit mask."""
    cdef int64_t s
    for s in range(n):
        masks[2 * s] = hit_mask(&plan[s * PLAN_WIDTH])
        masks[2 * s + 1] = crit_mask(&plan[s * PLAN_WIDTH], masks[2 * s])


cdef int summary_single(const int32_t* p, uint32_t hmask, uint32_t cmask, int64_t count,
                        Dice* shared, int64_t* tb, int64_t* type_slot, int64_t* gacc) noexcept nogil:
    """`count` attacks of one strike, totals kept in registers: the common mob's path.

    The same `roll_dice` and `strike_damage` as every other attack (the modifier
    always goes to the only strike, when it hits), only the bookkeeping differs.
    """
    cdef Dice d = shared[0]
    cdef Roll r
    cdef int64_t a, base, damage, und, logpos = 0
    cdef int err, i
    cdef int64_t sum_damage = 0, attacks_hit = 0, crits = 0, sum_und = 0
    cdef int64_t longest = tb[T_LONGEST]
    cdef int64_t* hist = gacc + G_WIDTH
    # A private copy of the plan row: the generator's uint32 state may alias an int32
    # buffer, but not a local array, so the compiler keeps the row in registers.
    cdef int32_t row[PLAN_WIDTH]
    for i in range(PLAN_WIDTH):
        row[i] = p[i]
    for a in range(count):
        err = roll_dice(row, hmask, cmask, &d, 0, &r, NULL, 0, &logpos)
        if err:
            shared[0] = d
            return err
        damage = strike_damage(row, &r, r.hits > 0 and row[P_ONLY_CHAIN] == 0, &base, &und)
        crits += r.crit
        if r.chain_len > longest:
            longest = r.chain_len
        attacks_hit += r.hits > 0
        sum_damage += damage
        sum_und += und
        hist[damage if damage < HIST_BINS - 1 else HIST_BINS - 1] += 1
    tb[T_DAMAGE] += sum_damage
    tb[T_ATTACKS] += count
    tb[T_ATTACKS_HIT] += attacks_hit
    tb[T_STRIKES] += count
    tb[T_STRIKES_HIT] += attacks_hit
    tb[T_CRITS] += crits
    tb[T_LONGEST] = longest
    tb[T_UNDODGEABLE] += sum_und
    type_slot[0] += sum_damage
    gacc[G_ATTACKS_HIT] += attacks_hit
    gacc[G_DAMAGE] += sum_damage
    gacc[G_CRITS] += crits
    shared[0] = d
    return E_OK


cdef void load_state(Dice* d, uint32_t[::1] state) noexcept nogil:
    d.s0 = state[0]
    d.s1 = state[1]
    d.s2 = state[2]
    d.s3 = state[3]


cdef void store_state(Dice* d, uint32_t[::1] state) noexcept nogil:
    state[0] = d.s0
    state[1] = d.s1
    state[2] = d.s2
    state[3] = d.s3


cdef void start_dice(Dice* d, uint32_t[::1] state, const int32_t[::1] rolls, int64_t pos,
                     const void* empty) noexcept:
    """A stream at `state`: from the generator (`rolls` None), or injected faces from `pos`.
    An empty list is injected too (its first draw is an error): `empty` is then its
    non-NULL pointer."""
    load_state(d, state)
    if rolls is None:
        d.rolls = NULL
        d.n_rolls = 0
    else:
        d.rolls = &rolls[0] if rolls.shape[0] else <const int32_t*>empty
        d.n_rolls = rolls.shape[0]
    d.pos = pos
    d.error = 0
    d.error_pos = -1
    d.strike = -1


cdef int64_t find_group(const int64_t[::1] groups, int64_t attack, int64_t* left) noexcept nogil:
    cdef int64_t g = 0
    while attack >= groups[g * 3 + 2]:
        attack -= groups[g * 3 + 2]
        g += 1
    left[0] = groups[g * 3 + 2] - attack
    return g


cdef int check_rows(const int32_t[::1] plan, int64_t n_strikes, int64_t n_targets) except -1:
    """The plan rows a kernel trusts: a known target and damage type, at most 8 dice."""
    cdef int64_t s
    for s in range(n_strikes):
        if not (0 <= plan[s * PLAN_WIDTH + P_TARGET] < n_targets):
            raise ValueError("strike %d targets no known target" % s)
        if not (0 <= plan[s * PLAN_WIDTH + P_TYPE] < N_TYPES):
            raise ValueError("strike %d has no known damage type" % s)
        if plan[s * PLAN_WIDTH + P_SKILL] + plan[s * PLAN_WIDTH + P_ADV] + plan[s * PLAN_WIDTH + P_SNEAK] + plan[s * PLAN_WIDTH + P_DISADV] > 8:
            raise ValueError("strike %d has more than 8 dice" % s)
    return 0


def _check_plan(const int32_t[::1] plan, const int64_t[::1] groups, int64_t n_targets):
    cdef int64_t g
    cdef int64_t n_strikes = plan.shape[0] // PLAN_WIDTH
    if groups.shape[0] % 3 or groups.shape[0] == 0:
        raise ValueError("groups must be non-empty triples")
    for g in range(groups.shape[0] // 3):
        if not (0 <= groups[g * 3] < groups[g * 3 + 1] <= n_strikes) or groups[g * 3 + 2] < 0:
            raise ValueError("group %d is out of the plan" % g)
        if groups[g * 3 + 1] - groups[g * 3] > 4096:
            raise ValueError("group %d has too many strikes" % g)
    check_rows(plan, n_strikes, n_targets)


def roll_detail(const int32_t[::1] plan, const int64_t[::1] groups, int64_t n_targets,
                int64_t first, int64_t count, uint32_t[::1] state,
                const int32_t[::1] rolls, int64_t[::1] out, int32_t[::1] log,
                int64_t[::1] info):
    """Roll attacks first..first+count-1, every strike into `out`, every die into `log`.

    See `fracas._native.roll_detail` for the buffers; returns an error code.
    """
    cdef Dice dice
    cdef int64_t a, g, left, begin, end, row = 0, logpos = 0
    cdef int err = E_OK
    cdef int64_t log_cap = log.shape[0] // 2
    cdef int64_t total = 0
    _check_plan(plan, groups, n_targets)
    g = 0
    for a in range(groups.shape[0] // 3):
        total += groups[a * 3 + 2]
    if first < 0 or count < 0 or first + count > total:
        raise ValueError("attack range out of the groups")
    if info.shape[0] < INFO_WIDTH:
        raise ValueError(f"info needs {INFO_WIDTH} entries")  # written unchecked below
    mod_stamp_buf = bytearray(8 * max(n_targets, 1))
    cdef int64_t[::1] mod_stamp = memoryview(mod_stamp_buf).cast("q")
    for a in range(n_targets):
        mod_stamp[a] = -1
    # Rows needed: every strike of every attack rolled.
    g = find_group(groups, first, &left)
    a = 0
    row = 0
    while a < count:
        if left == 0:
            g += 1
            left = groups[g * 3 + 2]
            continue
        take = min(left, count - a)
        row += take * (groups[g * 3 + 1] - groups[g * 3])
        a += take
        left -= take
    if out.shape[0] < row * OUT_WIDTH:
        raise ValueError("out is too small: %d rows needed" % row)
    cdef uint32_t[::1] masks = plan_masks(plan)
    start_dice(&dice, state, rolls, info[I_POS], &info[I_POS])
    row = 0
    with nogil:
        g = find_group(groups, first, &left)
        for a in range(count):
            while left == 0:  # skip groups of count 0
                g += 1
                left = groups[g * 3 + 2]
            left -= 1
            begin = groups[g * 3]
            end = groups[g * 3 + 1]
            err = roll_attack(&plan[0], &masks[0], begin, end, &dice, &mod_stamp[0], a,
                              &out[row * OUT_WIDTH], &log[0] if log.shape[0] else NULL,
                              log_cap, &logpos)
            if err:
                break
            row += end - begin
        store_state(&dice, state)
    info[I_POS] = dice.pos
    info[I_LOGPOS] = logpos
    info[I_STRIKE] = dice.strike if err else -1
    info[I_ERROR_POS] = dice.error_pos if err else -1
    return err


def lanes_fit(const int32_t[::1] plan, const int64_t[::1] groups):
    """Whether a bulk plan is one the lane kernel rolls: one group of one strike, no disadvantage."""
    if groups.shape[0] != 3 or groups[1] - groups[0] != 1:
        return False
    return plan[groups[0] * PLAN_WIDTH + P_DISADV] == 0


def roll_summary_lanes(const int32_t[::1] plan, const int64_t[::1] groups, int64_t n_targets,
                       const int64_t[::1] firsts, const int64_t[::1] counts, uint32_t[::1] states,
                       int64_t[::1] targets, int64_t[::1] by_type, int64_t[::1] group_acc, int64_t[::1] info):
    """Up to LANES chunks at once: chunk k is attacks firsts[k]..firsts[k]+counts[k]-1 rolled
    from states[4k..4k+3] (advanced in place), exactly as roll_summary would roll each.

    Only for plans `lanes_fit` accepts; the totals are added to the same accumulators
    as roll_summary's. Returns an error code.
    """
    cdef int64_t k, n = firsts.shape[0], total = 0, strike, t
    cdef fl_row row
    cdef fl_totals acc
    cdef int err, i
    cdef const int32_t* p
    cdef int64_t* tb
    cdef int64_t* gacc
    cdef int64_t* hist
    _check_plan(plan, groups, n_targets)
    if not lanes_fit(plan, groups):
        raise ValueError("roll_summary_lanes takes one group of one strike without disadvantage")
    if n < 1 or n > FL_LANES or counts.shape[0] != n or states.shape[0] != 4 * n:
        raise ValueError(f"roll_summary_lanes takes 1 to {FL_LANES} chunks, with 4 state words each")
    if FL_HIST != HIST_BINS or info.shape[0] < INFO_WIDTH:
        raise ValueError("the lane kernel's histogram or info size does not match")
    for k in range(n):
        if firsts[k] < 0 or counts[k] < 0 or firsts[k] + counts[k] > groups[2]:
            raise ValueError("attack range out of the groups")
        total += counts[k]
    strike = groups[0]
    t = plan[strike * PLAN_WIDTH + P_TARGET]
    if targets.shape[0] < n_targets * T_WIDTH or by_type.shape[0] < n_targets * N_TYPES:
        raise ValueError("target accumulators too small")
    if group_acc.shape[0] < G_WIDTH + HIST_BINS:
        raise ValueError("group accumulators too small")
    p = &plan[strike * PLAN_WIDTH]
    row.pool = p[P_SKILL] + p[P_ADV] + p[P_SNEAK]
    row.hmask = hit_mask(p)
    row.cmask = crit_mask(p, row.hmask)
    row.auto_crit = p[P_AUTO_CRIT] != 0
    row.only_chain = p[P_ONLY_CHAIN]
    row.weight = p[P_WEIGHT]
    row.mod = p[P_MOD]
    row.resist = p[P_RESIST]
    row.no_dodge = p[P_NO_DODGE]
    row.chain_dodgeable = p[P_CHAIN_DODGEABLE]
    row.chain_limit = CHAIN_LIMIT
    memset_totals(&acc)
    with nogil:
        err = fracas_summary_lanes(&row, <int>n, &states[0], &counts[0], &acc)
    if err:
        info[I_STRIKE] = strike
        return err
    tb = &targets[t * T_WIDTH]
    tb[T_DAMAGE] += acc.damage
    tb[T_ATTACKS] += total
    tb[T_ATTACKS_HIT] += acc.attacks_hit
    tb[T_STRIKES] += total
    tb[T_STRIKES_HIT] += acc.attacks_hit
    tb[T_CRITS] += acc.crits
    if acc.longest > tb[T_LONGEST]:
        tb[T_LONGEST] = acc.longest
    tb[T_UNDODGEABLE] += acc.undodgeable
    by_type[t * N_TYPES + p[P_TYPE]] += acc.damage
    gacc = &group_acc[0]
    gacc[G_ATTACKS_HIT] += acc.attacks_hit
    gacc[G_DAMAGE] += acc.damage
    gacc[G_CRITS] += acc.crits
    hist = gacc + G_WIDTH
    for i in range(HIST_BINS):
        hist[i] += acc.hist[i]
    info[I_STRIKE] = -1
    info[I_ERROR_POS] = -1
    return E_OK


cdef void memset_totals(fl_totals* acc) noexcept nogil:
    cdef int i
    acc.damage = 0
    acc.attacks_hit = 0
    acc.crits = 0
    acc.undodgeable = 0
    acc.longest = 0
    acc.error = 0
    for i in range(FL_HIST):
        acc.hist[i] = 0


def roll_summary(const int32_t[::1] plan, const int64_t[::1] groups, int64_t n_targets,
                 int64_t first, int64_t count, uint32_t[::1] state,
                 int64_t[::1] targets, int64_t[::1] by_type, int64_t[::1] group_acc,
                 int64_t[::1] info):
    """Roll attacks first..first+count-1 into per-target and per-group accumulators.

    See `fracas._native.roll_summary`; returns an error code.
    """
    cdef Dice dice
    cdef int64_t a, g, left, begin, end, s, widest = 0, total, crits, any_hit, t, damage, take, j
    cdef int64_t n_groups = groups.shape[0] // 3
    cdef int64_t stride = G_WIDTH + HIST_BINS
    cdef int64_t attacks_total = 0
    cdef int err = E_OK
    cdef int64_t* o
    cdef int64_t* tb
    _check_plan(plan, groups, n_targets)
    for g in range(n_groups):
        attacks_total += groups[g * 3 + 2]
        widest = max(widest, groups[g * 3 + 1] - groups[g * 3])
    if first < 0 or count < 0 or first + count > attacks_total:
        raise ValueError("attack range out of the groups")
    if info.shape[0] < INFO_WIDTH:
        raise ValueError(f"info needs {INFO_WIDTH} entries")  # written unchecked below
    if targets.shape[0] < n_targets * T_WIDTH or by_type.shape[0] < n_targets * N_TYPES:
        raise ValueError("target accumulators too small")
    if group_acc.shape[0] < n_groups * stride:
        raise ValueError("group accumulators too small")
    out_buf = bytearray(8 * widest * OUT_WIDTH)
    stamps_buf = bytearray(8 * 3 * max(n_targets, 1))
    cdef int64_t[::1] out = memoryview(out_buf).cast("q")
    cdef int64_t[::1] stamps = memoryview(stamps_buf).cast("q")
    for t in range(3 * max(n_targets, 1)):
        stamps[t] = -1
    cdef int64_t* mod_stamp = &stamps[0]
    cdef int64_t* hit_stamp = mod_stamp + max(n_targets, 1)
    cdef int64_t* seen_stamp = hit_stamp + max(n_targets, 1)
    cdef int64_t logpos = 0
    cdef uint32_t[::1] masks = plan_masks(plan)
    start_dice(&dice, state, None, 0, NULL)
    with nogil:
        g = find_group(groups, first, &left)
        a = 0
        while a < count and err == E_OK:
            if left == 0:
                g += 1
                left = groups[g * 3 + 2]
                continue
            take = left if left < count - a else count - a
            begin = groups[g * 3]
            end = groups[g * 3 + 1]
            if end - begin == 1:
                t = plan[begin * PLAN_WIDTH + P_TARGET]
                dice.strike = begin
                err = summary_single(&plan[begin * PLAN_WIDTH], masks[2 * begin], masks[2 * begin + 1],
                                     take, &dice, &targets[t * T_WIDTH],
                                     &by_type[t * N_TYPES + plan[begin * PLAN_WIDTH + P_TYPE]],
                                     &group_acc[g * stride])
                a += take
                left -= take
                continue
            for j in range(take):
                err = roll_attack(&plan[0], &masks[0], begin, end, &dice, mod_stamp, a, &out[0],
                                  NULL, 0, &logpos)
                if err:
                    break
                total = 0
                crits = 0
                any_hit = 0
                for s in range(begin, end):
                    o = &out[(s - begin) * OUT_WIDTH]
                    t = plan[s * PLAN_WIDTH + P_TARGET]
                    tb = &targets[t * T_WIDTH]
                    damage = o[O_DAMAGE]
                    if seen_stamp[t] != a:
                        seen_stamp[t] = a
                        tb[T_ATTACKS] += 1
                    tb[T_STRIKES] += 1
                    if o[O_HITS]:
                        any_hit = 1
                        tb[T_STRIKES_HIT] += 1
                        if hit_stamp[t] != a:
                            hit_stamp[t] = a
                            tb[T_ATTACKS_HIT] += 1
                    tb[T_DAMAGE] += damage
                    tb[T_UNDODGEABLE] += o[O_UNDODGEABLE]
                    tb[T_CRITS] += o[O_CRIT]
                    if o[O_CHAIN_LEN] > tb[T_LONGEST]:
                        tb[T_LONGEST] = o[O_CHAIN_LEN]
                    by_type[t * N_TYPES + plan[s * PLAN_WIDTH + P_TYPE]] += damage
                    total += damage
                    crits += o[O_CRIT]
                group_acc[g * stride + G_ATTACKS_HIT] += any_hit
                group_acc[g * stride + G_DAMAGE] += total
                group_acc[g * stride + G_CRITS] += crits
                group_acc[g * stride + G_WIDTH + (total if total < HIST_BINS - 1 else HIST_BINS - 1)] += 1
                a += 1
            left -= take
        store_state(&dice, state)
    info[I_STRIKE] = dice.strike if err else -1
    info[I_ERROR_POS] = -1
    return err


cdef inline uint64_t _splitmix64(uint64_t* state) noexcept nogil:
    state[0] += <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


def seed_state(uint64_t seed, uint32_t[::1] state):
    """Write the xoshiro128** state of a 64-bit seed into `state` (four words): two
    SplitMix64 outputs, low word first (fracas.rng.seed_state, in C)."""
    if state.shape[0] < 4:
        raise ValueError("the state needs four words")
    cdef uint64_t sm = seed
    cdef uint64_t o1 = _splitmix64(&sm)
    cdef uint64_t o2 = _splitmix64(&sm)
    state[0] = <uint32_t>(o1 & 0xFFFFFFFF)
    state[1] = <uint32_t>(o1 >> 32)
    state[2] = <uint32_t>(o2 & 0xFFFFFFFF)
    state[3] = <uint32_t>(o2 >> 32)


def generator_words(uint32_t[::1] state, int64_t count):
    """Draw `count` raw 32-bit words and return their XOR (the generator's speed limit)."""
    cdef Dice dice
    cdef int64_t i
    cdef uint32_t acc = 0
    load_state(&dice, state)
    with nogil:
        for i in range(count):
            acc ^= next32(&dice)
        store_state(&dice, state)
    return acc


def die(uint32_t[::1] state, uint32_t faces):
    """One face 1..faces from the generator state (four words, advanced in place): the
    follow-up dice rulesets draw outside the kernels (fracas.dice.Dice.die), in C."""
    if state.shape[0] < 4:
        raise ValueError("the state needs four words")
    if faces < 1 or faces > (1u << 21):
        raise ValueError("faces must be 1..2**21")
    cdef Dice dice
    load_state(&dice, state)
    cdef int face = draw_gen(&dice, faces)
    store_state(&dice, state)
    return face


def draw_faces(uint32_t[::1] state, int faces, int32_t[::1] out):
    """Fill `out` with dice of `faces` faces from `state` (fairness tests, benchmarks)."""
    cdef Dice dice
    cdef int64_t i
    if faces < 1 or faces > (1 << 21):
        raise ValueError("faces must be 1..2**21")
    load_state(&dice, state)
    dice.rolls = NULL
    dice.error = 0
    with nogil:
        for i in range(out.shape[0]):
            out[i] = draw(&dice, faces)
        store_state(&dice, state)


# -- the Worldwalker / Cartyrion / old-school kernel (X_ rows) ---------------------------

cdef inline int xdraw(Dice* d, uint32_t n, bint gen_only) noexcept nogil:
    """`draw`, or the generator alone when the caller knows no faces are injected (bulk)."""
    if gen_only:
        return draw_gen(d, n)
    return draw(d, n)


cdef inline int xstrike(const int32_t* p, Dice* dice, int64_t* tstate, int64_t* o,
                        int32_t* log, int64_t log_cap, int64_t* logpos, bint gen_only) noexcept nogil:
    """One X_ row into o[0:XOUT_WIDTH]; the twin of fracas._native._xstrike (same draw order).

    `gen_only` (a constant at each call site, so the C compiler drops the other branch):
    no injected faces, hence no error to check after a draw."""
    cdef int react = p[X_REACT]
    cdef bint counting = p[X_HIT] == X_HIT_COUNT  # a dice pool: no d20, the dice count successes
    cdef int feint = 0, feint_roll = 0, feint_def = 0, check = 0, check_roll = 0
    cdef int roll = 0, hit = 1, react_roll = 0, negated = 0, face, faces, cost_roll = 0
    cdef int64_t attack = 0, react_total = 0, dice_sum = 0, exploded = 0, raw = 0, reduced = 0
    cdef int64_t absorbed = 0, damage = 0, nlog = 0, pending, parry_left = 0, cost = 0, t
    if p[X_FEINT]:
        feint_roll = xdraw(dice, 20, gen_only)
        feint_def = xdraw(dice, 20, gen_only)
        if not gen_only and dice.error:
            return dice.error
        if feint_roll + p[X_FEINT_BONUS] > feint_def + p[X_FEINT_DEFENSE]:
            feint = 1
            react = 0
        else:
            feint = 2
    if p[X_CHECK]:
        check_roll = xdraw(dice, 20, gen_only)
        if not gen_only and dice.error:
            return dice.error
        check = 1 if check_roll + p[X_CHECK_BONUS] >= p[X_CHECK_DC] else 2
    if p[X_HIT] == X_HIT_WW:
        roll = xdraw(dice, 20, gen_only)
        if not gen_only and dice.error:
            return dice.error
        attack = (30 if roll == 20 else (-10 if roll == 1 else roll)) + p[X_BONUS]
        hit = 1 if attack >= p[X_TN] else 0
    elif p[X_HIT] == X_HIT_OS:
        roll = xdraw(dice, 20, gen_only)
        if not gen_only and dice.error:
            return dice.error
        attack = roll + p[X_BONUS]
        hit = 1 if roll == 20 or (roll != 1 and attack >= p[X_TN]) else 0
    if hit and react:
        react_roll = xdraw(dice, 20, gen_only)
        if not gen_only and dice.error:
            return dice.error
        react_total = react_roll + p[X_REACT_BONUS]
        negated = 1 if react_total >= attack else 0
    t = p[X_TARGET]
    if p[X_PARRY] == X_PARRY_WEAPON:
        parry_left = tstate[t * XS_WIDTH]
    elif p[X_PARRY] == X_PARRY_SHIELD:
        parry_left = tstate[t * XS_WIDTH + 1]
    o[Y_LOG] = logpos[0]
    if hit and not negated:
        faces = p[X_FACES]
        pending = p[X_DICE]
        while pending:
            face = xdraw(dice, faces, gen_only)
            if not gen_only and dice.error:
                return dice.error
            if log != NULL:
                if logpos[0] >= log_cap:
                    return E_LOG_FULL
                log[logpos[0]] = face
                logpos[0] += 1
                nlog += 1
            dice_sum += <int>(face >= p[X_TN]) if counting else face
            pending -= 1
            if p[X_EXPLODE] and face == faces and exploded < CT_EXPLODE_LIMIT:
                pending += 1
                exploded += 1
        if counting and dice_sum == 0:
            hit = 0  # no success: the pool missed (no maximum face either, so nothing exploded)
    if hit and not negated:
        raw = dice_sum + p[X_FLAT] + <int64_t>p[X_PER_DIE] * p[X_DICE]
        reduced = p[X_REDUCE_PASS] if check == 1 else p[X_REDUCE]
        damage = raw - reduced
        if damage < 0:
            damage = 0
        if damage < p[X_MIN]:
            damage = p[X_MIN]
        if p[X_PARRY] == X_PARRY_WEAPON and parry_left > 0:
            absorbed = damage
            damage = 0
            parry_left = parry_left - exploded if parry_left > exploded else 0
            tstate[t * XS_WIDTH] = parry_left
        elif p[X_PARRY] == X_PARRY_SHIELD and parry_left > 0:
            absorbed = (parry_left + 1) // 2
            if damage < absorbed:
                absorbed = damage
            damage -= absorbed
            parry_left = parry_left - 2 * absorbed if parry_left > 2 * absorbed else 0
            tstate[t * XS_WIDTH + 1] = parry_left
    if p[X_COST]:
        cost_roll = xdraw(dice, p[X_COST], gen_only)
        if not gen_only and dice.error:
            return dice.error
        cost = (cost_roll + 1) // 2 if p[X_COST_HALF] else cost_roll
    o[Y_HIT] = hit
    o[Y_ROLL] = roll
    o[Y_ATTACK] = attack
    o[Y_FEINT] = feint
    o[Y_FEINT_ROLL] = feint_roll
    o[Y_FEINT_DEF_ROLL] = feint_def
    o[Y_REACT_ROLL] = react_roll
    o[Y_REACT] = react_total
    o[Y_NEGATED] = negated
    o[Y_CHECK] = check
    o[Y_CHECK_ROLL] = check_roll
    o[Y_DICE_SUM] = dice_sum
    o[Y_EXPLODED] = exploded
    o[Y_RAW] = raw
    o[Y_REDUCED] = reduced
    o[Y_ABSORBED] = absorbed
    o[Y_DAMAGE] = damage
    o[Y_COST_ROLL] = cost_roll
    o[Y_COST] = cost
    o[Y_PARRY_LEFT] = parry_left
    o[Y_NLOG] = nlog
    return E_OK


cdef inline int xattack(const int32_t* plan, int64_t begin, int64_t end, Dice* dice, const int64_t* tinit,
                        int64_t* tstate, int64_t n_state, int64_t* out, int32_t* log, int64_t log_cap,
                        int64_t* logpos, bint gen_only) noexcept nogil:
    cdef int64_t s, i
    cdef int err
    for i in range(n_state):
        tstate[i] = tinit[i]
    for s in range(begin, end):
        dice.strike = s
        err = xstrike(&plan[s * XPLAN_WIDTH], dice, tstate, &out[(s - begin) * XOUT_WIDTH], log, log_cap, logpos,
                      gen_only)
        if err:
            return err
    return E_OK


cdef int xsummary_single(const int32_t* p, int64_t count, Dice* dice, int64_t* tb, int64_t* gacc) noexcept nogil:
    """`count` attacks of one strike with no parry (the common bulk group): the same
    xstrike, its results kept in locals and added to the accumulators once."""
    cdef int64_t o[XOUT_WIDTH]
    cdef int64_t a, damage, x, logpos = 0
    cdef int64_t sum_damage = 0, hits = 0, negated = 0, exploded = 0, longest = tb[U_LONGEST]
    cdef int64_t absorbed = 0, cost = 0
    cdef int64_t* hist = gacc + K_WIDTH
    cdef int err
    for a in range(count):
        err = xstrike(p, dice, NULL, o, NULL, 0, &logpos, True)
        if err:
            return err
        damage = o[Y_DAMAGE]
        if o[Y_HIT]:
            if o[Y_NEGATED]:
                negated += 1
            else:
                hits += 1
        x = o[Y_EXPLODED]
        exploded += x
        if x > longest:
            longest = x
        cost += o[Y_COST]
        sum_damage += damage
        hist[damage if damage < HIST_BINS - 1 else HIST_BINS - 1] += 1
    tb[U_DAMAGE] += sum_damage
    if p[X_POOL]:
        tb[U_INJURY] += sum_damage
    tb[U_ATTACKS] += count
    tb[U_STRIKES] += count
    tb[U_STRIKES_HIT] += hits + negated
    tb[U_NEGATED] += negated
    tb[U_ATTACKS_HIT] += hits
    tb[U_EXPLODED] += exploded
    tb[U_LONGEST] = longest
    tb[U_COST] += cost
    gacc[K_ATTACKS_HIT] += hits
    gacc[K_DAMAGE] += sum_damage
    gacc[K_EXPLODED] += exploded
    return E_OK


def _check_xplan(const int32_t[::1] plan, const int64_t[::1] groups, int64_t n_targets, const int64_t[::1] tinit):
    cdef int64_t g, s, total = 0
    cdef int64_t n_strikes = plan.shape[0] // XPLAN_WIDTH
    cdef const int32_t* p
    if groups.shape[0] % 3 or groups.shape[0] == 0:
        raise ValueError("groups must be non-empty triples")
    if tinit.shape[0] != n_targets * XS_WIDTH:
        raise ValueError("tinit must hold XS_WIDTH words per target")
    for g in range(groups.shape[0] // 3):
        if not (0 <= groups[g * 3] < groups[g * 3 + 1] <= n_strikes) or groups[g * 3 + 2] < 0:
            raise ValueError("group %d is out of the plan" % g)
        total += groups[g * 3 + 2]
    for s in range(n_strikes):
        p = &plan[s * XPLAN_WIDTH]
        if not (0 <= p[X_TARGET] < n_targets):
            raise ValueError("strike %d targets no known target" % s)
        if not (2 <= p[X_FACES] <= 1000) or not (0 <= p[X_DICE] <= 100000) or not (0 <= p[X_COST] <= 1000):
            raise ValueError("strike %d has no valid dice" % s)
        if not (X_HIT_NONE <= p[X_HIT] <= X_HIT_COUNT):
            raise ValueError("strike %d has no known hit mode" % s)
        if p[X_HIT] == X_HIT_COUNT and (not (1 <= p[X_TN] <= p[X_FACES]) or p[X_REACT] or p[X_FEINT] or p[X_CHECK]):
            raise ValueError("strike %d counts successes: its TN is a face, with no block, dodge, feint or check" % s)
    return total


def xroll_detail(const int32_t[::1] plan, const int64_t[::1] groups, int64_t n_targets,
                 const int64_t[::1] tinit, int64_t first, int64_t count, uint32_t[::1] state,
                 const int32_t[::1] rolls, int64_t[::1] out, int32_t[::1] log, int64_t[::1] info):
    """Every strike into `out`, every damage die into `log`; see `fracas._native.xroll_detail`."""
    cdef Dice dice
    cdef int64_t a, g, left, begin, end, row = 0, logpos = 0, rows_needed = 0, take
    cdef int err = E_OK
    cdef int64_t total = _check_xplan(plan, groups, n_targets, tinit)
    if first < 0 or count < 0 or first + count > total:
        raise ValueError("attack range out of the groups")
    if info.shape[0] < INFO_WIDTH:
        raise ValueError(f"info needs {INFO_WIDTH} entries")  # written unchecked below
    g = find_group(groups, first, &left)
    a = 0
    while a < count:
        if left == 0:
            g += 1
            left = groups[g * 3 + 2]
            continue
        take = min(left, count - a)
        rows_needed += take * (groups[g * 3 + 1] - groups[g * 3])
        a += take
        left -= take
    if out.shape[0] < rows_needed * XOUT_WIDTH:
        raise ValueError("out is too small: %d rows needed" % rows_needed)
    tstate_buf = bytearray(8 * max(n_targets * XS_WIDTH, 1))
    cdef int64_t[::1] tstate = memoryview(tstate_buf).cast("q")
    cdef const int64_t* tinit_p = &tinit[0] if tinit.shape[0] else <const int64_t*>&tstate[0]
    start_dice(&dice, state, rolls, info[I_POS], &info[I_POS])
    cdef int32_t* log_p = &log[0] if log is not None and log.shape[0] else NULL
    cdef int64_t log_cap = log.shape[0] if log is not None else 0
    with nogil:
        g = find_group(groups, first, &left)
        for a in range(count):
            while left == 0:
                g += 1
                left = groups[g * 3 + 2]
            left -= 1
            begin = groups[g * 3]
            end = groups[g * 3 + 1]
            err = xattack(&plan[0], begin, end, &dice, tinit_p, &tstate[0], n_targets * XS_WIDTH,
                          &out[row * XOUT_WIDTH], log_p, log_cap, &logpos, False)
            if err:
                break
            row += end - begin
        store_state(&dice, state)
    info[I_POS] = dice.pos
    info[I_LOGPOS] = logpos
    info[I_STRIKE] = dice.strike if err else -1
    info[I_ERROR_POS] = dice.error_pos if err else -1
    info[I_ERROR_FACES] = dice.error_faces if err == E_ROLL_RANGE else 0
    return err


def xroll_summary(const int32_t[::1] plan, const int64_t[::1] groups, int64_t n_targets,
                  const int64_t[::1] tinit, int64_t first, int64_t count, uint32_t[::1] state,
                  int64_t[::1] targets, int64_t[::1] group_acc, int64_t[::1] info):
    """Attacks into per-target and per-group accumulators; see `fracas._native.xroll_summary`."""
    cdef Dice dice
    cdef int64_t a, g, left, begin, end, s, widest = 0, t, damage, take, j, x, total, exploded
    cdef int64_t n_groups = groups.shape[0] // 3
    cdef int64_t stride = K_WIDTH + HIST_BINS
    cdef int err = E_OK
    cdef int any_hit
    cdef int64_t* o
    cdef int64_t* tb
    cdef int64_t logpos = 0
    cdef int64_t attacks_total = _check_xplan(plan, groups, n_targets, tinit)
    for g in range(n_groups):
        widest = max(widest, groups[g * 3 + 1] - groups[g * 3])
    if first < 0 or count < 0 or first + count > attacks_total:
        raise ValueError("attack range out of the groups")
    if info.shape[0] < INFO_WIDTH:
        raise ValueError(f"info needs {INFO_WIDTH} entries")  # written unchecked below
    if targets.shape[0] < n_targets * U_WIDTH or group_acc.shape[0] < n_groups * stride:
        raise ValueError("accumulators too small")
    out_buf = bytearray(8 * widest * XOUT_WIDTH)
    stamps_buf = bytearray(8 * 2 * max(n_targets, 1))
    tstate_buf = bytearray(8 * max(n_targets * XS_WIDTH, 1))
    cdef int64_t[::1] out = memoryview(out_buf).cast("q")
    cdef int64_t[::1] stamps = memoryview(stamps_buf).cast("q")
    cdef int64_t[::1] tstate = memoryview(tstate_buf).cast("q")
    cdef const int64_t* tinit_p = &tinit[0] if tinit.shape[0] else <const int64_t*>&tstate[0]
    for t in range(2 * max(n_targets, 1)):
        stamps[t] = -1
    cdef int64_t* hit_stamp = &stamps[0]
    cdef int64_t* seen_stamp = hit_stamp + max(n_targets, 1)
    start_dice(&dice, state, None, 0, NULL)
    with nogil:
        g = find_group(groups, first, &left)
        a = 0
        while a < count and err == E_OK:
            if left == 0:
                g += 1
                left = groups[g * 3 + 2]
                continue
            take = left if left < count - a else count - a
            begin = groups[g * 3]
            end = groups[g * 3 + 1]
            if end - begin == 1 and plan[begin * XPLAN_WIDTH + X_PARRY] == X_PARRY_NONE:
                t = plan[begin * XPLAN_WIDTH + X_TARGET]
                dice.strike = begin
                err = xsummary_single(&plan[begin * XPLAN_WIDTH], take, &dice, &targets[t * U_WIDTH],
                                      &group_acc[g * stride])
                a += take
                left -= take
                continue
            for j in range(take):
                err = xattack(&plan[0], begin, end, &dice, tinit_p, &tstate[0], n_targets * XS_WIDTH,
                              &out[0], NULL, 0, &logpos, True)
                if err:
                    break
                total = 0
                exploded = 0
                any_hit = 0
                for s in range(begin, end):
                    o = &out[(s - begin) * XOUT_WIDTH]
                    t = plan[s * XPLAN_WIDTH + X_TARGET]
                    tb = &targets[t * U_WIDTH]
                    damage = o[Y_DAMAGE]
                    if seen_stamp[t] != a:
                        seen_stamp[t] = a
                        tb[U_ATTACKS] += 1
                    tb[U_STRIKES] += 1
                    if o[Y_HIT]:
                        tb[U_STRIKES_HIT] += 1
                        if o[Y_NEGATED]:
                            tb[U_NEGATED] += 1
                        else:
                            any_hit = 1
                            if hit_stamp[t] != a:
                                hit_stamp[t] = a
                                tb[U_ATTACKS_HIT] += 1
                    tb[U_DAMAGE] += damage
                    if plan[s * XPLAN_WIDTH + X_POOL]:
                        tb[U_INJURY] += damage
                    x = o[Y_EXPLODED]
                    tb[U_EXPLODED] += x
                    if x > tb[U_LONGEST]:
                        tb[U_LONGEST] = x
                    tb[U_ABSORBED] += o[Y_ABSORBED]
                    tb[U_COST] += o[Y_COST]
                    total += damage
                    exploded += x
                group_acc[g * stride + K_ATTACKS_HIT] += any_hit
                group_acc[g * stride + K_DAMAGE] += total
                group_acc[g * stride + K_EXPLODED] += exploded
                group_acc[g * stride + K_WIDTH + (total if total < HIST_BINS - 1 else HIST_BINS - 1)] += 1
                a += 1
            left -= take
        store_state(&dice, state)
    info[I_STRIKE] = dice.strike if err else -1
    info[I_ERROR_POS] = -1
    return err


# ── one attack: the single-call path, buffers made here ───────────────────────────

cdef array.array _Q = _pyarray.array("q", [])
cdef array.array _I = _pyarray.array("i", [])


def roll_single(const int32_t[::1] plan, int64_t n_targets, uint32_t[::1] state, const int32_t[::1] rolls,
                int64_t[::1] info):
    """One attack: strikes 0..n-1 of `plan`, as roll_detail with one group of count 1, but
    the out and log buffers are made here (new arrays, 'q' and 'i') and a crit chain too
    long for the log is rolled again from the same state with a larger log. Returns
    (error code, out, log); `info` as for roll_detail. The twin of `_native.roll_single`."""
    cdef int64_t n = plan.shape[0] // PLAN_WIDTH
    cdef int64_t t, capacity = n * 24, logpos
    cdef int err
    cdef Dice dice, start
    cdef array.array out, log
    cdef int64_t* stamp
    cdef uint32_t* masks
    if n < 1 or n > 4096:
        raise ValueError("one attack has 1 to 4096 strikes")
    if info.shape[0] < INFO_WIDTH:
        raise ValueError(f"info needs {INFO_WIDTH} entries")
    if n_targets < 1:
        raise ValueError("an attack needs a target")
    check_rows(plan, n, n_targets)
    stamp = <int64_t*>malloc(n_targets * sizeof(int64_t))
    masks = <uint32_t*>malloc(2 * n * sizeof(uint32_t))
    if stamp == NULL or masks == NULL:
        free(stamp)
        free(masks)
        raise MemoryError()
    try:
        fill_masks(&plan[0], n, masks)
        start_dice(&dice, state, rolls, info[I_POS], &info[I_POS])
        start = dice
        while True:
            out = array.clone(_Q, n * OUT_WIDTH, zero=True)
            log = array.clone(_I, 2 * capacity, zero=True)
            for t in range(n_targets):
                stamp[t] = -1
            logpos = 0
            err = roll_attack(&plan[0], masks, 0, n, &dice, stamp, 0, <int64_t*>out.data.as_longlongs, <int32_t*>log.data.as_ints,
                              capacity, &logpos)
            if err != E_LOG_FULL:
                break
            dice = start  # the chain outgrew the log: roll the same dice again with room for it
            capacity *= 4
        store_state(&dice, state)
    finally:
        free(stamp)
        free(masks)
    info[I_POS] = dice.pos
    info[I_LOGPOS] = logpos
    info[I_STRIKE] = dice.strike if err else -1
    info[I_ERROR_POS] = dice.error_pos if err else -1
    return err, out, log


# ── results: the strike entries of an Enchanted Realms attack, built in C ──────────

@cython.boundscheck(True)
def strike_dicts(list metas, const int64_t[::1] out, const int32_t[::1] log, bint defense, int64_t dc_base):
    """The `strikes` of an ER attack result (docs/ENGINE.md §7) from the kernel's out rows
    and die log: the twin of `_native.strike_dicts`, key for key and value for value."""
    cdef Py_ssize_t s, i, n = len(metas)
    cdef int64_t o, pool, pos, discard, chain_len, face, d3, to_hit, ac
    cdef bint hit
    cdef list strikes = [], dice, chain
    cdef object meta, sources, discarded
    if out.shape[0] < n * OUT_WIDTH:
        raise ValueError("the out buffer is shorter than the strikes")
    for s in range(n):
        meta = metas[s]
        o = s * OUT_WIDTH
        to_hit = meta.to_hit
        ac = meta.ac
        sources = meta.sources
        pos = out[o + O_LOG]
        pool = out[o + O_POOL]
        discard = out[o + O_DISCARD]
        dice = []
        discarded = None
        for i in range(pool):
            face = log[2 * (pos + i)]
            if i == discard:
                discarded = face
                continue
            hit = log[2 * (pos + i) + 1] != 0
            if defense:  # ER-22: the player's die + the AC against DC 21 + the to-hit
                dice.append({"face": face, "total": face + ac, "hit": hit, "source": sources[i], "avoided": not hit})
            else:
                dice.append({"face": face, "total": face + to_hit, "hit": hit, "source": sources[i]})
        pos += pool
        chain = []
        chain_len = out[o + O_CHAIN_LEN]
        for i in range(chain_len):
            face = log[2 * pos]
            hit = log[2 * pos + 1] != 0
            pos += 1
            d3 = 0
            if hit:
                d3 = log[2 * pos]
                pos += 1
            chain.append({"face": face, "total": face + to_hit, "hit": hit, "damage": d3})
        strikes.append({
            "target": meta.target, "method": meta.method, "style": meta.style,
            "damage_type": meta.damage_type, "advantage": meta.advantage,
            "disadvantage": meta.disadvantage, "sneak": meta.sneak,
            "to_hit": to_hit, "ac": ac, "crit_range": meta.crit_range,
            "dice": dice, "discarded": discarded, "crit_chain": chain,
            "hits": out[o + O_HITS], "crit": out[o + O_CRIT] != 0,
            "base": out[o + O_BASE],
            "modifier": out[o + O_MOD] if out[o + O_MOD_USED] else None,
            "resistance": meta.resistance, "damage": out[o + O_DAMAGE], "undodgeable": out[o + O_UNDODGEABLE],
            "friendly_fire": meta.friendly_fire, "stray": None,
            "defense_dc": dc_base + to_hit if defense else None,
        })
    return strikes
include "_fights.pxi"
