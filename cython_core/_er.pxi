# The Enchanted Realms kernel (ER-3 … ER-12): a strike's d20 pool and crit chain, its
# damage, the attack's strikes in draw order (docs/ENGINE.md "Draw order"), the detail
# path (every strike and die) and the summary path (per-target and per-group totals).


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
