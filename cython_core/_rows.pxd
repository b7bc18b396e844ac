# cython: language_level=3
# The strike-row kernel of Worldwalker, Cartyrion and old-school (X_ rows), inline: an
# attack d20 (or none, or a success-counting pool), block or dodge, feint, sneak check,
# exploding damage dice, parries and stamina, in the draw order of docs/ENGINE.md, and the
# plan check. Inline in a .pxd so that rows.pyx and fights.pyx compile the same code into
# their loops.

from libc.stdint cimport uint32_t, uint64_t, int32_t, int64_t

from _layout cimport *
from _generator cimport *
from _er cimport find_group

cdef inline int xdraw(Dice* d, uint32_t n, bint gen_only) noexcept nogil:
    """`draw`, or the generator alone when the caller knows no faces are injected (bulk)."""
    if gen_only:
        return draw_gen(d, n)
    return draw(d, n)


cdef inline int xstrike(const int32_t* p, Dice* dice, int64_t* tstate, int64_t* o,
                        int32_t* log, int64_t log_cap, int64_t* logpos, bint gen_only,
                        int64_t explode_limit) noexcept nogil:
    """One X_ row into o[0:XOUT_WIDTH]; the twin of fracas._native._xstrike (same draw order).

    `gen_only` (a constant at each call site, so the C compiler drops the other branch):
    no injected faces, hence no error to check after a draw. `explode_limit`: CT-3's bound
    on the explosions of one strike (the spec's ct_explode_limit, which each calling
    module reads from fracas._facts at import)."""
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
            if p[X_EXPLODE] and face == faces and exploded < explode_limit:
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
                        int64_t* logpos, bint gen_only, int64_t explode_limit) noexcept nogil:
    cdef int64_t s, i
    cdef int err
    for i in range(n_state):
        tstate[i] = tinit[i]
    for s in range(begin, end):
        dice.strike = s
        err = xstrike(&plan[s * XPLAN_WIDTH], dice, tstate, &out[(s - begin) * XOUT_WIDTH], log, log_cap, logpos,
                      gen_only, explode_limit)
        if err:
            return err
    return E_OK


cdef inline int64_t check_xplan(const int32_t[::1] plan, const int64_t[::1] groups, int64_t n_targets,
                                const int64_t[::1] tinit) except -1:
    """The X_ plan rows and groups a kernel trusts; the attacks the groups hold."""
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
