# One ER attack on the single-call path: the buffers made here, a crit chain too long for
# the log rolled again with a larger one, and its strike dicts for the result.


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
