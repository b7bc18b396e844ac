# cython: language_level=3
# The Enchanted Realms strike kernel, inline (ER-3 … ER-12): a strike's d20 pool and crit
# chain, its damage, an attack's strikes in draw order (docs/ENGINE.md "Draw order"), and
# the plan checks. Inline code in a .pxd so that every module that rolls ER strikes (er.pyx,
# single.pyx, fights.pyx; lanes.pyx its masks) compiles the same code into its own loops: a
# call into another module per strike would cost the hot paths their speed.

from libc.stdint cimport uint32_t, uint64_t, int32_t, int64_t

from _layout cimport *
from _generator cimport *

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


cdef inline object plan_masks(const int32_t[::1] plan):
    """Two words per plan row: the hit mask and the crit mask (see hit_mask, crit_mask)."""
    cdef int64_t n = plan.shape[0] // PLAN_WIDTH
    buf = bytearray(8 * max(n, 1))
    cdef uint32_t[::1] masks = memoryview(buf).cast("I")
    if n:
        fill_masks(&plan[0], n, &masks[0])
    return masks


cdef inline void fill_masks(const int32_t* plan, int64_t n, uint32_t* masks) noexcept nogil:
    """masks[2s], masks[2s+1]: strike s's hit mask and crit mask."""
    cdef int64_t s
    for s in range(n):
        masks[2 * s] = hit_mask(&plan[s * PLAN_WIDTH])
        masks[2 * s + 1] = crit_mask(&plan[s * PLAN_WIDTH], masks[2 * s])


cdef inline int64_t find_group(const int64_t[::1] groups, int64_t attack, int64_t* left) noexcept nogil:
    cdef int64_t g = 0
    while attack >= groups[g * 3 + 2]:
        attack -= groups[g * 3 + 2]
        g += 1
    left[0] = groups[g * 3 + 2] - attack
    return g


cdef inline int check_rows(const int32_t[::1] plan, int64_t n_strikes, int64_t n_targets) except -1:
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


cdef inline int check_plan(const int32_t[::1] plan, const int64_t[::1] groups, int64_t n_targets) except -1:
    """The groups and plan rows the ER kernels trust."""
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
    return 0
