# cython: language_level=3
"""The strike-row kernel as Python calls it (Worldwalker, Cartyrion, old-school and any
ruleset of X_ rows): the detail and summary paths, the twins of
`fracas._native.xroll_detail` and `xroll_summary`. The strike itself is inline in _rows.pxd."""

from libc.stdint cimport uint32_t, uint64_t, int32_t, int64_t

from _layout cimport *
from _generator cimport *
from _er cimport find_group
from _rows cimport *

# The layout table (generated): the stale-core check compares it with fracas._layout.
include "_layout.pxi"

from fracas._facts import CT_EXPLODE_LIMIT as _CT_EXPLODE_LIMIT
# CT-3 decision: explosions in one strike before a maximum face adds no die (the spec's
# ct_explode_limit, as fracas._native bounds it; the strike result says explosions_cut).
cdef int64_t CT_EXPLODE_LIMIT = _CT_EXPLODE_LIMIT


# The cold helpers the .pxd files share, as plain `cdef` functions here (setup.py forces
# every `cdef inline` function inline, for xstrike's sake). GCC inlines these small static
# ones anyway (rows.so has no symbol for them), so the 8-12% the bulk scenarios lost with
# them `cdef inline` was no call saved or paid.
#
# The row kernel's speed depends on where its damage-dice loop lands. The one-module core
# and rows.so ran the same instructions (callgrind: 90.5 and 90.3 million for 200,000 d6
# pool attacks), yet rows.so was 3-6% slower; moving only that loop's head in the assembly
# moved the pool by 4% (its head 0 or 16 bytes into a 64-byte line fast, 32, 48 or 53
# slow; the one-module core's sat at 0, by chance). setup.py builds this module with
# FRACAS_REJECTION_RARE (see _generator.pxd), which takes Lemire's rare rejection out of
# that loop: 116 bytes instead of 172, its counting and explode flags in registers instead
# of on the stack, and the pool and Cartyrion at the one-module speed or better.

cdef int64_t checked_xplan(const int32_t[::1] plan, const int64_t[::1] groups, int64_t n_targets,
                           const int64_t[::1] tinit) except -1:
    return check_xplan(plan, groups, n_targets, tinit)


cdef void started(Dice* d, uint32_t[::1] state, const int32_t[::1] rolls, int64_t pos, const void* empty) noexcept:
    start_dice(d, state, rolls, pos, empty)


cdef void stored(Dice* d, uint32_t[::1] state) noexcept nogil:
    store_state(d, state)


cdef int64_t group_of(const int64_t[::1] groups, int64_t attack, int64_t* left) noexcept nogil:
    return find_group(groups, attack, left)


cdef inline int xsummary_single(const int32_t* p, int64_t count, Dice* dice, int64_t* tb, int64_t* gacc) noexcept nogil:
    """`count` attacks of one strike with no parry (the common bulk group): the same
    xstrike, its results kept in locals and added to the accumulators once. Inline: as a
    call the compiler no longer folded it into xroll_summary (the one-module core did)."""
    cdef int64_t o[XOUT_WIDTH]
    cdef int64_t a, damage, x, logpos = 0
    cdef int64_t sum_damage = 0, hits = 0, negated = 0, exploded = 0, longest = tb[U_LONGEST]
    cdef int64_t absorbed = 0, cost = 0
    cdef int64_t* hist = gacc + K_WIDTH
    cdef int err
    for a in range(count):
        err = xstrike(p, dice, NULL, o, NULL, 0, &logpos, True, CT_EXPLODE_LIMIT)
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


def xroll_detail(const int32_t[::1] plan, const int64_t[::1] groups, int64_t n_targets,
                 const int64_t[::1] tinit, int64_t first, int64_t count, uint32_t[::1] state,
                 const int32_t[::1] rolls, int64_t[::1] out, int32_t[::1] log, int64_t[::1] info):
    """Every strike into `out`, every damage die into `log`; see `fracas._native.xroll_detail`."""
    cdef Dice dice
    cdef int64_t a, g, left, begin, end, row = 0, logpos = 0, rows_needed = 0, take
    cdef int err = E_OK
    cdef int64_t total = checked_xplan(plan, groups, n_targets, tinit)
    if first < 0 or count < 0 or first + count > total:
        raise ValueError("attack range out of the groups")
    if info.shape[0] < INFO_WIDTH:
        raise ValueError(f"info needs {INFO_WIDTH} entries")  # written unchecked below
    g = group_of(groups, first, &left)
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
    started(&dice, state, rolls, info[I_POS], &info[I_POS])
    cdef int32_t* log_p = &log[0] if log is not None and log.shape[0] else NULL
    cdef int64_t log_cap = log.shape[0] if log is not None else 0
    with nogil:
        g = group_of(groups, first, &left)
        for a in range(count):
            while left == 0:
                g += 1
                left = groups[g * 3 + 2]
            left -= 1
            begin = groups[g * 3]
            end = groups[g * 3 + 1]
            err = xattack(&plan[0], begin, end, &dice, tinit_p, &tstate[0], n_targets * XS_WIDTH,
                          &out[row * XOUT_WIDTH], log_p, log_cap, &logpos, False, CT_EXPLODE_LIMIT)
            if err:
                break
            row += end - begin
        stored(&dice, state)
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
    cdef int64_t attacks_total = checked_xplan(plan, groups, n_targets, tinit)
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
    started(&dice, state, None, 0, NULL)
    with nogil:
        g = group_of(groups, first, &left)
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
                              &out[0], NULL, 0, &logpos, True, CT_EXPLODE_LIMIT)
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
        stored(&dice, state)
    info[I_STRIKE] = dice.strike if err else -1
    info[I_ERROR_POS] = -1
    return err


# The row kernel's public C entry points (cython_core/fracas_rows.pxd, docs/ADDING_A_RULESET.md
# "The row kernel from a plug-in"): a table of function pointers in the capsule `API`
# ("fracas.RowsAPI"), which a compiled plug-in fetches at import (fracas_rows.rows_api()) and
# checks by its version. A table rather than `__pyx_capi__`: a plug-in cimports one .pxd
# from fracas/include and needs no .pxd of fracas._core.rows, whose module layout is
# fracas's own; the version says when the table or the X_/Y_ layout changes.
from cpython.pycapsule cimport PyCapsule_New

cdef int api_strike(const int32_t* row, Dice* dice, int64_t* tstate, int64_t* out,
                    int64_t explode_limit) noexcept nogil:
    cdef int64_t logpos = 0  # no log: Y_LOG reads 0
    return xstrike(row, dice, tstate, out, NULL, 0, &logpos, False, explode_limit)


cdef int api_attack(const int32_t* rows, int64_t n_rows, Dice* dice, int64_t* tstate, int64_t* out,
                    int64_t explode_limit) noexcept nogil:
    cdef int64_t s, logpos = 0
    cdef int err
    for s in range(n_rows):
        dice.strike = s
        err = xstrike(&rows[s * XPLAN_WIDTH], dice, tstate, &out[s * XOUT_WIDTH], NULL, 0, &logpos, False,
                      explode_limit)
        if err:
            return err
    return E_OK


# The table's layout, field for field, is the public header's (fracas_rows.pxd): one declaration.
from fracas_rows cimport RowsAPI, FRACAS_ROWS_API_VERSION

#: The table's version: raised (in fracas_rows.pxd) whenever RowsAPI, the entry points' meaning or
#: the X_/Y_ layout change.
ROWS_API_VERSION = FRACAS_ROWS_API_VERSION
cdef RowsAPI _api
_api.version = ROWS_API_VERSION
_api.plan_width = XPLAN_WIDTH
_api.out_width = XOUT_WIDTH
_api.state_width = XS_WIDTH
_api.explode_limit = CT_EXPLODE_LIMIT
_api.strike = api_strike
_api.attack = api_attack
API = PyCapsule_New(<void*>&_api, "fracas.RowsAPI", NULL)
