# The strike-row kernel of Worldwalker, Cartyrion and old-school (X_ rows): an attack d20
# (or none, or a success-counting pool), block or dodge, feint, sneak check, exploding
# damage dice, parries and stamina, in the draw order of docs/ENGINE.md.


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
