# cython: language_level=3
"""One ER attack on the single-call path (`fracas.resolve`): the buffers made here, a crit
chain too long for the log rolled again with a larger one. The twin of
`fracas._native.roll_single`. Its result's strike entries are built in the ruleset
(src/fracas/rulesets/er/strikes.py): the kernels return arrays only."""

from libc.stdint cimport uint32_t, uint64_t, int32_t, int64_t
from libc.stdlib cimport malloc, free
from cpython cimport array
import array as _pyarray

from _layout cimport *
from _generator cimport *
from _er cimport *

# The layout table (generated): the stale-core check compares it with fracas._layout.
include "_layout.pxi"


cdef array.array _Q = _pyarray.array("q", [])
cdef array.array _I = _pyarray.array("i", [])


cdef tuple _roll_rows(const int32_t[::1] plan, int64_t n_targets, Dice* dice):
    """Strikes 0..n-1 of `plan` from `dice` into new out and log arrays ('q' and 'i'), a crit
    chain too long for the log rolled again from the same start with a larger log. Returns
    (error code, out, log, the log's length); `dice` is left where the attack ended."""
    cdef int64_t n = plan.shape[0] // PLAN_WIDTH
    cdef int64_t t, capacity = n * 24, logpos = 0
    cdef int err
    cdef Dice start
    cdef array.array out, log
    cdef int64_t* stamp
    cdef uint32_t* masks
    if n < 1 or n > 4096:
        raise ValueError("one attack has 1 to 4096 strikes")
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
        start = dice[0]
        while True:
            out = array.clone(_Q, n * OUT_WIDTH, zero=True)
            log = array.clone(_I, 2 * capacity, zero=True)
            for t in range(n_targets):
                stamp[t] = -1
            logpos = 0
            err = roll_attack(&plan[0], masks, 0, n, dice, stamp, 0, <int64_t*>out.data.as_longlongs,
                              <int32_t*>log.data.as_ints, capacity, &logpos)
            if err != E_LOG_FULL:
                break
            dice[0] = start  # the chain outgrew the log: roll the same dice again with room for it
            capacity *= 4
    finally:
        free(stamp)
        free(masks)
    return err, out, log, logpos


def roll_single(const int32_t[::1] plan, int64_t n_targets, uint32_t[::1] state, const int32_t[::1] rolls,
                int64_t[::1] info):
    """One attack: strikes 0..n-1 of `plan`, as roll_detail with one group of count 1, but
    the out and log buffers are made here (new arrays, 'q' and 'i') and a crit chain too
    long for the log is rolled again from the same state with a larger log. Returns
    (error code, out, log); `info` as for roll_detail. The twin of `_native.roll_single`."""
    cdef Dice dice
    if info.shape[0] < INFO_WIDTH:
        raise ValueError(f"info needs {INFO_WIDTH} entries")
    start_dice(&dice, state, rolls, info[I_POS], &info[I_POS])
    err, out, log, logpos = _roll_rows(plan, n_targets, &dice)
    store_state(&dice, state)
    info[I_POS] = dice.pos
    info[I_LOGPOS] = logpos
    info[I_STRIKE] = dice.strike if err else -1
    info[I_ERROR_POS] = dice.error_pos if err else -1
    return err, out, log


def roll_seeded(const int32_t[::1] plan, int64_t n_targets, uint64_t seed):
    """One attack from the generator of `seed` (no injected faces): the fused single-call path
    (issue 44 item 3). The generator is seeded here (as `seed_state`: two SplitMix64
    outputs, low word first), the buffers made here, a crit chain too long for the log
    rolled again from the same start with a larger one, as roll_single. Returns (error code,
    out, log, the strike of the error or -1). The twin of `_native.roll_seeded`."""
    cdef Dice dice
    seed_dice(&dice, seed)
    err, out, log, _ = _roll_rows(plan, n_targets, &dice)
    return err, out, log, (dice.strike if err else -1)
