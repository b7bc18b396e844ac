"""The kernels in pure Python: the twin of the compiled core `fracas._core`.

Same signatures, same arithmetic, same draw order (docs/ENGINE.md). The compiled
core is the one that runs when it is installed; this one runs when it is not, or
when FRACAS_PUREPYTHON=1, and the whole test suite runs against both.

The kernels know no rules text and no JSON: they read plan rows (see `_layout`),
draw dice, and fill preallocated output buffers. They return an error code
(`_layout.E_*`) and write where it happened into `info`.
"""

from __future__ import annotations

from .dice import Dice, KernelError
from .rng import Xoshiro128
from ._layout import (
    CHAIN_LIMIT, E_CHAIN_LIMIT, E_LOG_FULL, E_OK,
    G_ATTACKS_HIT, G_CRITS, G_DAMAGE, G_WIDTH, HIST_BINS, LOG_WIDTH, N_TYPES,
    O_BASE, O_CHAIN_DMG, O_CHAIN_LEN, O_CRIT, O_DAMAGE, O_DISCARD, O_HITS, O_LOG,
    O_MOD, O_MOD_USED, O_NAT20, O_POOL, O_UNDODGEABLE, OUT_WIDTH, P_AC, P_ADV,
    P_AUTO_CRIT, P_CHAIN_DODGEABLE, P_CRIT, P_DISADV, P_MOD, P_NO_DODGE, P_ONLY_CHAIN, P_RESIST,
    P_SKILL, P_SNEAK, P_TARGET, P_TO_HIT, P_TYPE, P_WEIGHT, PLAN_WIDTH,
    R_DOUBLE, R_HALF, R_IMMUNE, T_ATTACKS, T_ATTACKS_HIT, T_CRITS, T_DAMAGE,
    T_LONGEST, T_STRIKES, T_STRIKES_HIT, T_UNDODGEABLE, T_WIDTH,
)

BACKEND = "python"


def _resist(amount: int, state: int) -> int:
    if state == R_HALF:
        return amount // 2
    if state == R_DOUBLE:
        return amount * 2
    if state == R_IMMUNE:
        return 0
    return amount


def _undodgeable(plan, p, damage, nat20, chain, only_chain, resist):
    """ER-11: natural 20s and the chain they start; all of it when the target may not dodge."""
    if plan[p + P_NO_DODGE]:
        return damage
    if not nat20:
        return 0
    raw = 0 if only_chain else nat20
    if not plan[p + P_CHAIN_DODGEABLE]:
        raw += chain
    return min(damage, _resist(raw, resist))


def _roll_attack(plan, begin, end, dice, mod_stamp, stamp, out, row, log, logpos):
    """Roll strikes begin..end-1 of the plan as one attack. Returns the new log position.

    `mod_stamp[t] == stamp` marks a target whose attribute modifier this attack has
    already used (ER-9). With `log` None nothing is logged (bulk summaries).
    """
    pool = [0] * 7
    for s in range(begin, end):
        p = s * PLAN_WIDTH
        dice.strike = s
        to_hit = plan[p + P_TO_HIT]
        ac = plan[p + P_AC]
        n = plan[p + P_SKILL] + plan[p + P_ADV] + plan[p + P_SNEAK] + plan[p + P_DISADV]
        for i in range(n):
            pool[i] = dice.die(20)
        discard = -1
        if plan[p + P_DISADV]:
            top = 0
            for i in range(n):
                if pool[i] > top:
                    top, discard = pool[i], i
        hits = nat20 = 0
        crit_face = False
        crit_thr = plan[p + P_CRIT]
        o = row * OUT_WIDTH
        if log is not None:
            if logpos + n > len(log) // LOG_WIDTH:
                raise KernelError(E_LOG_FULL, s)
            out[o + O_LOG] = logpos
        for i in range(n):
            face = pool[i]
            hit = face == 20 or (face != 1 and face + to_hit >= ac)
            if log is not None:
                log[logpos * 2] = face
                log[logpos * 2 + 1] = hit
                logpos += 1
            if i == discard:
                continue
            if hit:
                hits += 1
                if face == 20:
                    nat20 += 1
                if crit_thr and face >= crit_thr:
                    crit_face = True
        crit = hits > 0 and not plan[p + P_DISADV] and (
            crit_face or plan[p + P_AUTO_CRIT] != 0)
        chain_len = chain = 0
        if crit:
            while True:
                if chain_len >= CHAIN_LIMIT:
                    raise KernelError(E_CHAIN_LIMIT, s)
                face = dice.die(20)
                chain_len += 1
                hit = face == 20 or (face != 1 and face + to_hit >= ac)
                if log is not None:
                    if logpos + 2 > len(log) // LOG_WIDTH:
                        raise KernelError(E_LOG_FULL, s)
                    log[logpos * 2] = face
                    log[logpos * 2 + 1] = hit
                    logpos += 1
                if hit:
                    d3 = dice.die(3)
                    chain += d3
                    if log is not None:
                        log[logpos * 2] = d3
                        log[logpos * 2 + 1] = 1
                        logpos += 1
                if face != 20:
                    break
        only_chain = plan[p + P_ONLY_CHAIN]
        if hits == 0:
            base = 0
        elif only_chain:
            base = chain
        else:
            base = hits + chain + plan[p + P_WEIGHT]
        pre_mod = base
        mod = mod_used = 0
        target = plan[p + P_TARGET]
        if hits > 0 and not only_chain and mod_stamp[target] != stamp:
            mod_stamp[target] = stamp
            mod_used = 1
            mod = plan[p + P_MOD]
            base = max(0, base + mod)
        resist = plan[p + P_RESIST]
        damage = _resist(base, resist)
        undodgeable = _undodgeable(plan, p, damage, nat20, chain, only_chain, resist)
        out[o + O_HITS] = hits
        out[o + O_CRIT] = 1 if crit else 0
        out[o + O_CHAIN_LEN] = chain_len
        out[o + O_CHAIN_DMG] = chain
        out[o + O_BASE] = pre_mod
        out[o + O_MOD] = mod
        out[o + O_MOD_USED] = mod_used
        out[o + O_DAMAGE] = damage
        out[o + O_UNDODGEABLE] = undodgeable
        out[o + O_DISCARD] = discard
        out[o + O_NAT20] = nat20
        out[o + O_POOL] = n
        row += 1
    return logpos


def _attacks(groups, first, count):
    """(attack number in this call, group, first strike, end strike) for each attack rolled."""
    g = 0
    attack = first
    while attack >= groups[g * 3 + 2]:
        attack -= groups[g * 3 + 2]
        g += 1
    left = groups[g * 3 + 2] - attack
    for a in range(count):
        while left == 0:
            g += 1
            left = groups[g * 3 + 2]
        left -= 1
        yield a, g, groups[g * 3], groups[g * 3 + 1]


def roll_detail(plan, groups, n_targets, first, count, state, rolls, out, log, info):
    """Roll attacks first..first+count-1, every strike into `out`, every die into `log`.

    `groups` is int64 triples (first strike, end strike, attack count). `rolls` is an
    int32 buffer of injected faces or None. `info` (int64[4]) carries in: the rolls
    position; out: rolls position, log entries used, strike where an error happened,
    roll position of the error. Returns an error code.
    """
    dice = Dice(state, rolls, info[0])
    mod_stamp = [-1] * n_targets
    row = logpos = 0
    if log is not None and len(log) == 0:
        log = None  # as in the compiled core: an empty log buffer means "log nothing"
    try:
        for a, _, begin, end in _attacks(groups, first, count):
            logpos = _roll_attack(plan, begin, end, dice, mod_stamp, a, out, row, log, logpos)
            row += end - begin
    except KernelError as err:
        info[0], info[1], info[2], info[3] = dice.pos, logpos, err.where, err.position
        return err.code
    info[0], info[1], info[2], info[3] = dice.pos, logpos, -1, -1
    return E_OK


def roll_summary(plan, groups, n_targets, first, count, state, targets, by_type, group_acc, info):
    """Roll attacks first..first+count-1 into per-target and per-group accumulators.

    `targets` is int64[n_targets * T_WIDTH], `by_type` int64[n_targets * N_TYPES],
    `group_acc` int64[groups * (G_WIDTH + HIST_BINS)]; all are added to, not reset.
    Returns an error code (only the chain limit can happen: no injected rolls here).
    """
    n_groups = len(groups) // 3
    widest = max(groups[g * 3 + 1] - groups[g * 3] for g in range(n_groups))
    out = [0] * (widest * OUT_WIDTH)
    dice = Dice(state, None, 0)
    mod_stamp = [-1] * n_targets
    hit_stamp = [-1] * n_targets
    seen_stamp = [-1] * n_targets
    stride = G_WIDTH + HIST_BINS
    try:
        for a, g, begin, end in _attacks(groups, first, count):
            _roll_attack(plan, begin, end, dice, mod_stamp, a, out, 0, None, 0)
            total = crits = any_hit = 0
            for s in range(begin, end):
                o = (s - begin) * OUT_WIDTH
                t = plan[s * PLAN_WIDTH + P_TARGET]
                tb = t * T_WIDTH
                damage = out[o + O_DAMAGE]
                if seen_stamp[t] != a:
                    seen_stamp[t] = a
                    targets[tb + T_ATTACKS] += 1
                targets[tb + T_STRIKES] += 1
                if out[o + O_HITS]:
                    any_hit = 1
                    targets[tb + T_STRIKES_HIT] += 1
                    if hit_stamp[t] != a:
                        hit_stamp[t] = a
                        targets[tb + T_ATTACKS_HIT] += 1
                targets[tb + T_DAMAGE] += damage
                targets[tb + T_UNDODGEABLE] += out[o + O_UNDODGEABLE]
                targets[tb + T_CRITS] += out[o + O_CRIT]
                if out[o + O_CHAIN_LEN] > targets[tb + T_LONGEST]:
                    targets[tb + T_LONGEST] = out[o + O_CHAIN_LEN]
                by_type[t * N_TYPES + plan[s * PLAN_WIDTH + P_TYPE]] += damage
                total += damage
                crits += out[o + O_CRIT]
            gb = g * stride
            group_acc[gb + G_ATTACKS_HIT] += any_hit
            group_acc[gb + G_DAMAGE] += total
            group_acc[gb + G_CRITS] += crits
            group_acc[gb + G_WIDTH + min(total, HIST_BINS - 1)] += 1
    except KernelError as err:
        info[2], info[3] = err.where, err.position
        return err.code
    return E_OK


def generator_words(state, count):
    """Draw `count` raw 32-bit words and return their XOR (the generator's speed limit)."""
    gen = Xoshiro128(state)
    acc = 0
    for _ in range(count):
        acc ^= gen.next32()
    return acc


def draw_faces(state, faces, out):
    """Fill `out` with dice of `faces` faces from `state` (fairness tests, benchmarks)."""
    if faces < 1 or faces > (1 << 21):
        raise ValueError("faces must be 1..2**21")
    dice = Dice(state, None, 0)
    for i in range(len(out)):
        out[i] = dice.die(faces)
