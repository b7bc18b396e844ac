# cython: language_level=3
"""The lane kernel: the one-strike ER mob of a bulk request, rolled on FL_LANES chunk
streams side by side (lanes.h, lanes_body.h: AVX2 where the CPU has it), with the same
dice per stream as the summary kernel rolls."""

from libc.stdint cimport uint32_t, uint64_t, int32_t, int64_t

from _layout cimport *
from _generator cimport *
from _er cimport check_plan, crit_mask, hit_mask

# The layout table (generated): the stale-core check compares it with fracas._layout.
include "_layout.pxi"


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
    uint32_t fracas_lanes_words(uint32_t* states, int64_t count)
    int64_t fracas_lanes_dice(uint32_t* states, int64_t count, int32_t pool, uint32_t hmask)
    int64_t fracas_lanes_draws(uint32_t* states, int64_t count, int32_t pool, uint32_t hmask, uint32_t cmask,
                               int32_t chain_limit)

#: Chunk streams the lane kernel rolls side by side (roll_summary_lanes).
LANES = FL_LANES
#: The instruction set the lane kernel runs with here: "avx2", "vector" or "scalar".
LANES_ISA = fracas_lanes_isa().decode()


def lanes_fit(const int32_t[::1] plan, const int64_t[::1] groups):
    """Whether a bulk plan is one the lane kernel rolls: one group of one strike, no
    disadvantage, nothing left unrolled to count (no friendly-fire shot, no shock)."""
    if groups.shape[0] != 3 or groups[1] - groups[0] != 1:
        return False
    cdef int64_t p = groups[0] * PLAN_WIDTH
    return plan[p + P_DISADV] == 0 and plan[p + P_FRIENDLY] == 0 and plan[p + P_SHOCK] == 0


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
    check_plan(plan, groups, n_targets)
    if not lanes_fit(plan, groups):
        raise ValueError("roll_summary_lanes takes one group of one strike without disadvantage, friendly fire"
                         " or shock")
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


def lanes_words(uint32_t[::1] states, int64_t count):
    """The lanes' generator limit (benchmarks): LANES streams side by side, each drawing `count`
    raw words from states[4k..4k+3] (advanced in place); their XOR."""
    if states.shape[0] != 4 * FL_LANES or count < 0:
        raise ValueError(f"lanes_words takes {4 * FL_LANES} state words and a count >= 0")
    cdef uint32_t acc
    with nogil:
        acc = fracas_lanes_words(&states[0], count)
    return acc


def lanes_dice(uint32_t[::1] states, int64_t count, int32_t pool, uint32_t hmask):
    """The lanes' dice limit (benchmarks): `count` attacks in each of LANES streams, `pool` d20s
    each drawn as the kernel draws them; how many dice fell on a face of `hmask` (bit f: face f)."""
    if states.shape[0] != 4 * FL_LANES or count < 0 or pool < 0 or pool > 64:
        raise ValueError(f"lanes_dice takes {4 * FL_LANES} state words, a count >= 0 and a pool of 0..64")
    cdef int64_t hits
    with nogil:
        hits = fracas_lanes_dice(&states[0], count, pool, hmask)
    return hits


def lanes_draws(uint32_t[::1] states, int64_t count, int32_t pool, uint32_t hmask, uint32_t cmask):
    """The lane kernel's draws alone (benchmarks: its floor under the fixed draw order):
    `count` attacks in each of LANES streams, `pool` d20s each, then the crit chain's dice
    where a die that hit fell on a face of `cmask`, exactly as the kernel draws them (the
    first crit die and its d3 masked to the lanes that crit), and nothing computed from them;
    each lane's state ends where the kernel leaves it. Returns the hits and chain d3s summed."""
    if states.shape[0] != 4 * FL_LANES or count < 0 or pool < 0 or pool > 64:
        raise ValueError(f"lanes_draws takes {4 * FL_LANES} state words, a count >= 0 and a pool of 0..64")
    cdef int64_t total
    with nogil:
        total = fracas_lanes_draws(&states[0], count, pool, hmask, cmask, CHAIN_LIMIT)
    return total
