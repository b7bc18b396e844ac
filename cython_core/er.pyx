# cython: language_level=3
"""The Enchanted Realms kernel as Python calls it: the detail path (every strike and die)
and the summary path (per-target and per-group totals), the twins of
`fracas._native.roll_detail` and `roll_summary`. The strike kernel itself is inline in
_er.pxd."""

from libc.stdint cimport uint32_t, uint64_t, int32_t, int64_t
from libc.stdlib cimport calloc, free

from _layout cimport *
from _generator cimport *
from _er cimport *

# The layout table (generated): the stale-core check compares it with fracas._layout.
include "_layout.pxi"


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
    cdef int64_t sum_damage = 0, attacks_hit = 0, crits = 0, sum_und = 0, strays = 0, shock = 0
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
        # What a bulk request does not roll, counted (ER-17 strays, ER-13 shock saves).
        strays += row[P_FRIENDLY] != 0 and r.hits == 0
        shock += row[P_SHOCK] != 0 and damage >= row[P_SHOCK]
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
    gacc[G_STRAYS] += strays
    gacc[G_SHOCK] += shock
    shared[0] = d
    return E_OK


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
    check_plan(plan, groups, n_targets)
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
    cdef int64_t strays, shock, threshold, before
    cdef int64_t n_groups = groups.shape[0] // 3
    cdef int64_t stride = G_WIDTH + HIST_BINS
    cdef int64_t attacks_total = 0
    cdef int err = E_OK
    cdef int64_t* o
    cdef int64_t* tb
    check_plan(plan, groups, n_targets)
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
    # The scratch buffers in C memory (a small request's fixed cost, issue 44 item 3): the out
    # rows of the widest attack, five stamps per target, two mask words per plan row.
    cdef int64_t n_rows = plan.shape[0] // PLAN_WIDTH
    cdef int64_t* out = <int64_t*>calloc(max(widest, 1) * OUT_WIDTH, sizeof(int64_t))
    cdef int64_t* stamps = <int64_t*>calloc(5 * max(n_targets, 1), sizeof(int64_t))
    cdef uint32_t* masks = <uint32_t*>calloc(2 * max(n_rows, 1), sizeof(uint32_t))
    if out == NULL or stamps == NULL or masks == NULL:
        free(out)
        free(stamps)
        free(masks)
        raise MemoryError()
    for t in range(4 * max(n_targets, 1)):
        stamps[t] = -1
    cdef int64_t* mod_stamp = stamps
    cdef int64_t* hit_stamp = mod_stamp + max(n_targets, 1)
    cdef int64_t* seen_stamp = hit_stamp + max(n_targets, 1)
    cdef int64_t* shock_stamp = seen_stamp + max(n_targets, 1)
    cdef int64_t* shock_sum = shock_stamp + max(n_targets, 1)  # starts 0, reset by its stamp
    cdef int64_t logpos = 0
    if n_rows:
        fill_masks(&plan[0], n_rows, masks)
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
                err = roll_attack(&plan[0], masks, begin, end, &dice, mod_stamp, a, out,
                                  NULL, 0, &logpos)
                if err:
                    break
                total = 0
                crits = 0
                any_hit = 0
                strays = 0
                shock = 0
                for s in range(begin, end):
                    o = &out[(s - begin) * OUT_WIDTH]
                    t = plan[s * PLAN_WIDTH + P_TARGET]
                    tb = &targets[t * T_WIDTH]
                    damage = o[O_DAMAGE]
                    # What a bulk request does not roll, counted (ER-17 strays, ER-13 shock saves).
                    if plan[s * PLAN_WIDTH + P_FRIENDLY] != 0 and o[O_HITS] == 0:
                        strays += 1
                    threshold = plan[s * PLAN_WIDTH + P_SHOCK]
                    if threshold != 0:
                        if shock_stamp[t] != a:
                            shock_stamp[t] = a
                            shock_sum[t] = 0
                        before = shock_sum[t]
                        shock_sum[t] = before + damage
                        if before < threshold and shock_sum[t] >= threshold:
                            shock += 1
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
                group_acc[g * stride + G_STRAYS] += strays
                group_acc[g * stride + G_SHOCK] += shock
                group_acc[g * stride + G_WIDTH + (total if total < HIST_BINS - 1 else HIST_BINS - 1)] += 1
                a += 1
            left -= take
        store_state(&dice, state)
    free(out)
    free(stamps)
    free(masks)
    info[I_STRIKE] = dice.strike if err else -1
    info[I_ERROR_POS] = -1
    return err
