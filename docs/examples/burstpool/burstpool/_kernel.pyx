# cython: language_level=3
"""The burst pool's compiled kernel (rules.md, BP-1, BP-2) on fracas's dice: the code of
fracas's generator, cimported from fracas_dice.pxd (fracas.dice.get_include()) and compiled
in here, draws the faces `fracas.dice.Dice.die` draws, in the same order. Its twin is
`burstpool.twin` (pure Python); the tests check that both give the same result from a seed."""

from libc.stdint cimport int32_t, int64_t, uint32_t

from fracas_dice cimport Dice, dice_of, draw, draw_gen, load_state, store_state
from fracas_rows cimport RowsAPI, rows_api
from _layout cimport XPLAN_WIDTH, XOUT_WIDTH, XS_WIDTH, X_HIT, X_HIT_COUNT, X_DICE, X_FACES, X_TN, X_EXPLODE
from _layout cimport Y_DICE_SUM, Y_EXPLODED

from fracas.dice import KernelError


cdef inline int64_t pool_gen(Dice* d, int dice, int most_bursts, int hit_on) noexcept nogil:
    """BP-1 from the generator: the pool's successes, its burst dice rolled after it."""
    cdef int left = dice, bursts = 0, face
    cdef int64_t successes = 0
    while left > 0:
        face = draw_gen(d, 6)
        left -= 1
        if face >= hit_on:
            successes += 1
        if face == 6 and bursts < most_bursts:
            bursts += 1
            left += 1
    return successes


cdef inline int pool_faces(Dice* d, int dice, int most_bursts, int32_t* faces) noexcept nogil:
    """BP-1 from the stream (injected faces too): the faces, in draw order, into `faces`
    (room for dice + most_bursts); their number, or -1 with d.error set."""
    cdef int left = dice, bursts = 0, n = 0, face
    while left > 0:
        face = draw(d, 6)
        if face == 0:
            return -1
        faces[n] = face
        n += 1
        left -= 1
        if face == 6 and bursts < most_bursts:
            bursts += 1
            left += 1
    return n


def strike(uint32_t[::1] state, rolls, int64_t pos, int dice, int most_bursts):
    """One strike's faces (BP-1) from a `fracas.dice.Dice`'s state and injected faces from
    `pos`: (faces, the next position); the state is advanced in place. A KernelError when
    the injected faces run out or do not fit, as `Dice.die` raises it."""
    cdef Dice d
    cdef const int32_t[::1] injected
    cdef int32_t faces[64]
    if state.shape[0] != 4:
        raise ValueError("the state is four words")
    if not 1 <= dice <= 32 or not 0 <= most_bursts <= 32:
        raise ValueError("1 to 32 dice and 0 to 32 bursts")
    load_state(&d, state)
    d.rolls = NULL
    d.n_rolls = 0
    if rolls is not None:
        injected = rolls
        d.n_rolls = injected.shape[0]
        d.rolls = &injected[0] if d.n_rolls else <const int32_t*>&d.s0
    d.pos = pos
    d.error = 0
    cdef int n = pool_faces(&d, dice, most_bursts, faces)
    if n < 0:
        raise KernelError(d.error, -1, d.error_pos, d.error_faces)
    store_state(&d, state)
    return [faces[i] for i in range(n)], d.pos


def roll_chunk(const int32_t[::1] plans, const int32_t[::1] index, const int64_t[::1] groups,
               const int64_t[::1] bounds, int64_t[::1] acc_t, int64_t[::1] acc_g, int64_t[::1] marks,
               uint32_t[::1] state, int64_t first, int64_t count, int most_bursts, int hit_on, int hist_bins):
    """Attacks first..first+count-1 of a bulk job from one chunk's stream, added to its
    totals as `fracas.rulesets.generic.BulkJob` adds them (per target: damage, attacks,
    attacks hit, strikes, strikes hit; per entry: attacks hit, damage, histogram). `plans`:
    (dice, soak) per strike; `index`: each strike's target; `groups`: (first strike, end
    strike, count) per entry and `bounds` their running counts; `marks`: two per target, the
    last attack that struck it and that hit it. The GIL is released while it rolls."""
    cdef Dice d
    cdef int64_t a, s, g = 0, begin, end, t, base, gb, damage, dealt, successes, any_hit
    cdef int64_t n_groups = bounds.shape[0], stride = 2 + hist_bins
    if state.shape[0] != 4 or groups.shape[0] != 3 * n_groups or plans.shape[0] != 2 * index.shape[0]:
        raise ValueError("the job's arrays do not agree")
    if first < 0 or count < 0 or (count and (n_groups == 0 or first + count > bounds[n_groups - 1])):
        raise ValueError("attacks out of the job's range")
    load_state(&d, state)
    with nogil:
        for a in range(first, first + count):
            while bounds[g] <= a:
                g += 1
            begin, end = groups[3 * g], groups[3 * g + 1]
            damage = 0
            any_hit = 0
            for s in range(begin, end):
                t = index[s]
                base = 5 * t
                successes = pool_gen(&d, plans[2 * s], most_bursts, hit_on)   # BP-1
                dealt = successes - plans[2 * s + 1]                           # BP-2
                if dealt < 0:
                    dealt = 0
                if marks[2 * t] != a:
                    marks[2 * t] = a
                    acc_t[base + 1] += 1
                acc_t[base] += dealt
                acc_t[base + 3] += 1
                if successes > 0:
                    acc_t[base + 4] += 1
                    any_hit = 1
                    if marks[2 * t + 1] != a:
                        marks[2 * t + 1] = a
                        acc_t[base + 2] += 1
                damage += dealt
            gb = g * stride
            acc_g[gb] += any_hit
            acc_g[gb + 1] += damage
            acc_g[gb + 2 + (damage if damage < hist_bins - 1 else hist_bins - 1)] += 1
        store_state(&d, state)


def pools(stream, int dice, int64_t count, int most_bursts, int hit_on):
    """`count` bare pools of `dice` d6 (BP-1) drawn from a `fracas.dice.stream(...)` through
    its capsule: their successes. The stream goes on where the kernel left it, so Python's
    `stream.die(...)` before and after draws around these in one order."""
    cdef Dice* d = dice_of(stream.capsule)
    cdef int64_t i
    cdef int32_t faces[64]
    cdef int n, k, successes
    if not 1 <= dice <= 32 or not 0 <= most_bursts <= 32 or count < 0:
        raise ValueError("1 to 32 dice, 0 to 32 bursts, count >= 0")
    out = []
    for i in range(count):
        n = pool_faces(d, dice, most_bursts, faces)
        if n < 0:
            stream.check()  # the stream's KernelError, as its die() raises it
        successes = 0
        for k in range(n):
            if faces[k] >= hit_on:
                successes += 1
        out.append(successes)
    return out


cdef const RowsAPI* _rows = NULL


def row_pools(stream, int dice, int64_t count, int hit_on):
    """`count` pools of `dice` d6 rolled by fracas's own row kernel (fracas_rows.pxd: a
    success-counting row, each die at `hit_on` or more one success, a 6 one more die within
    CT-3's bound), with burstpool's twist on top: each burst counts one success more. Drawn
    from a `fracas.dice.stream(...)` through its capsule, in the row kernel's order; the
    twin is `burstpool.roll_row_pools` on a `fracas.dice.Dice`."""
    global _rows
    if _rows == NULL:
        _rows = rows_api()  # fracas's table, its version checked (an ImportError if it differs)
    cdef Dice* d = dice_of(stream.capsule)
    cdef int32_t row[XPLAN_WIDTH]
    cdef int64_t out[XOUT_WIDTH]
    cdef int64_t tstate[XS_WIDTH]
    cdef int64_t i
    cdef int k
    if not 1 <= dice <= 32 or not 1 <= hit_on <= 6 or count < 0:
        raise ValueError("1 to 32 dice, a success on 1 to 6, count >= 0")
    for k in range(XPLAN_WIDTH):
        row[k] = 0
    for k in range(XS_WIDTH):
        tstate[k] = 0
    row[X_HIT] = X_HIT_COUNT
    row[X_DICE] = dice
    row[X_FACES] = 6
    row[X_TN] = hit_on
    row[X_EXPLODE] = 1
    result = []
    for i in range(count):
        if _rows.strike(row, d, tstate, out, _rows.explode_limit):
            stream.check()  # the stream's KernelError, as its die() raises it
        result.append(out[Y_DICE_SUM] + out[Y_EXPLODED])  # the twist: a burst is one success more
    return result
