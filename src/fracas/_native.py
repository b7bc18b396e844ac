"""The kernels in pure Python: the twin of the compiled core `fracas._core`.

Same signatures, same arithmetic, same draw order (docs/ENGINE.md). The compiled
core is the one that runs when it is installed; this one runs when it is not, or
when FRACAS_PUREPYTHON=1, and the whole test suite runs against both.

The kernels know no rules text and no JSON: they read plan rows (see `_layout`),
draw dice, and fill preallocated output buffers. They return an error code
(`_layout.E_*`) and write where it happened into `info`.
"""

from __future__ import annotations

from array import array
from typing import Any

from ._draw import Draw, KernelError
from ._facts import CT_EXPLODE_LIMIT
from .rng import Xoshiro128
from .rng import seed_state as rng_seed_state
from ._layout import (
    I_ERROR_FACES, I_ERROR_POS, I_LOGPOS, I_POS, I_STRIKE, INFO_WIDTH,
    CHAIN_LIMIT, E_CHAIN_LIMIT, E_LOG_FULL, E_OK,
    G_ATTACKS_HIT, G_CRITS, G_DAMAGE, G_SHOCK, G_STRAYS, G_WIDTH, HIST_BINS, LOG_WIDTH, N_TYPES,
    O_BASE, O_CHAIN_DMG, O_CHAIN_LEN, O_CRIT, O_DAMAGE, O_DISCARD, O_HITS, O_LOG,
    O_MOD, O_MOD_USED, O_NAT20, O_POOL, O_UNDODGEABLE, OUT_WIDTH, P_AC, P_ADV,
    P_AUTO_CRIT, P_CHAIN_DODGEABLE, P_CRIT, P_DISADV, P_FRIENDLY, P_MOD, P_NO_DODGE, P_ONLY_CHAIN, P_RESIST,
    P_SHOCK, P_SKILL, P_SNEAK, P_TARGET, P_TO_HIT, P_TYPE, P_WEIGHT, PLAN_WIDTH,
    R_DOUBLE, R_HALF, R_IMMUNE, T_ATTACKS, T_ATTACKS_HIT, T_CRITS, T_DAMAGE,
    T_LONGEST, T_STRIKES, T_STRIKES_HIT, T_UNDODGEABLE, T_WIDTH,
    K_ATTACKS_HIT, K_DAMAGE, K_EXPLODED, K_WIDTH,
    U_ABSORBED, U_ATTACKS, U_ATTACKS_HIT, U_COST, U_DAMAGE, U_EXPLODED, U_INJURY, U_LONGEST,
    U_NEGATED, U_STRIKES, U_STRIKES_HIT, U_WIDTH,
    X_BONUS, X_CHECK, X_CHECK_BONUS, X_CHECK_DC, X_COST, X_COST_HALF, X_DICE, X_EXPLODE, X_FACES,
    X_FEINT, X_FEINT_BONUS, X_FEINT_DEFENSE, X_FLAT, X_HIT, X_HIT_COUNT, X_HIT_OS, X_HIT_WW, X_MIN, X_PARRY,
    X_PARRY_SHIELD, X_PARRY_WEAPON, X_PER_DIE, X_POOL, X_REACT, X_REACT_BONUS, X_REDUCE,
    X_REDUCE_PASS, X_TARGET, X_TN, XPLAN_WIDTH, XS_WIDTH, XOUT_WIDTH,
    Y_ABSORBED, Y_ATTACK, Y_CHECK, Y_CHECK_ROLL, Y_COST, Y_COST_ROLL, Y_DAMAGE, Y_DICE_SUM,
    Y_EXPLODED, Y_FEINT, Y_FEINT_DEF_ROLL, Y_FEINT_ROLL, Y_HIT, Y_LOG, Y_NEGATED, Y_NLOG,
    Y_PARRY_LEFT, Y_RAW, Y_REACT, Y_REACT_ROLL, Y_REDUCED, Y_ROLL,
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


def _undodgeable(plan: Any, p: Any, damage: Any, nat20: Any, chain: Any, only_chain: Any, resist: Any) -> Any:
    """ER-11: natural 20s and the chain they start; all of it when the target may not dodge."""
    if plan[p + P_NO_DODGE]:
        return damage
    if not nat20:
        return 0
    raw = 0 if only_chain else nat20
    if not plan[p + P_CHAIN_DODGEABLE]:
        raw += chain
    return min(damage, _resist(raw, resist))


def _roll_attack(plan: Any, begin: Any, end: Any, dice: Any, mod_stamp: Any, stamp: Any, out: Any, row: Any, log: Any, logpos: Any) -> Any:
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


def _attacks(groups: Any, first: Any, count: Any) -> Any:
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


def roll_detail(plan: Any, groups: Any, n_targets: Any, first: Any, count: Any, state: Any, rolls: Any, out: Any, log: Any, info: Any) -> Any:
    """Roll attacks first..first+count-1, every strike into `out`, every die into `log`.

    `groups` is int64 triples (first strike, end strike, attack count). `rolls` is an
    int32 buffer of injected faces or None. `info` (int64[INFO_WIDTH], the I_ slots)
    carries in: the rolls position; out: rolls position, log entries used, strike where
    an error happened, roll position of the error. Returns an error code.
    """
    dice = Draw(state, rolls, info[I_POS])
    mod_stamp = [-1] * n_targets
    row = logpos = 0
    if log is not None and len(log) == 0:
        log = None  # as in the compiled core: an empty log buffer means "log nothing"
    try:
        for a, _, begin, end in _attacks(groups, first, count):
            logpos = _roll_attack(plan, begin, end, dice, mod_stamp, a, out, row, log, logpos)
            row += end - begin
    except KernelError as err:
        info[I_POS], info[I_LOGPOS], info[I_STRIKE], info[I_ERROR_POS] = dice.pos, logpos, err.where, err.position
        return err.code
    info[I_POS], info[I_LOGPOS], info[I_STRIKE], info[I_ERROR_POS] = dice.pos, logpos, -1, -1
    return E_OK


def roll_summary(plan: Any, groups: Any, n_targets: Any, first: Any, count: Any, state: Any, targets: Any, by_type: Any, group_acc: Any, info: Any) -> Any:
    """Roll attacks first..first+count-1 into per-target and per-group accumulators.

    `targets` is int64[n_targets * T_WIDTH], `by_type` int64[n_targets * N_TYPES],
    `group_acc` int64[groups * (G_WIDTH + HIST_BINS)]; all are added to, not reset.
    Returns an error code (only the chain limit can happen: no injected rolls here).

    What a bulk request does not roll is counted per group: G_STRAYS, the shots under the
    friendly-fire rule (P_FRIENDLY) that missed entirely (ER-17); G_SHOCK, the targets whose
    summed sneak damage in one attack reached its strikes' P_SHOCK (ER-13).
    """
    n_groups = len(groups) // 3
    widest = max(groups[g * 3 + 1] - groups[g * 3] for g in range(n_groups))
    out = [0] * (widest * OUT_WIDTH)
    dice = Draw(state, None, 0)
    mod_stamp = [-1] * n_targets
    hit_stamp = [-1] * n_targets
    seen_stamp = [-1] * n_targets
    shock_stamp = [-1] * n_targets
    shock_sum = [0] * n_targets
    stride = G_WIDTH + HIST_BINS
    try:
        for a, g, begin, end in _attacks(groups, first, count):
            _roll_attack(plan, begin, end, dice, mod_stamp, a, out, 0, None, 0)
            total = crits = any_hit = strays = shock = 0
            for s in range(begin, end):
                o = (s - begin) * OUT_WIDTH
                p = s * PLAN_WIDTH
                t = plan[p + P_TARGET]
                tb = t * T_WIDTH
                damage = out[o + O_DAMAGE]
                if plan[p + P_FRIENDLY] and not out[o + O_HITS]:
                    strays += 1
                threshold = plan[p + P_SHOCK]
                if threshold:
                    if shock_stamp[t] != a:
                        shock_stamp[t], shock_sum[t] = a, 0
                    before = shock_sum[t]
                    shock_sum[t] = before + damage
                    if before < threshold <= shock_sum[t]:
                        shock += 1
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
            group_acc[gb + G_STRAYS] += strays
            group_acc[gb + G_SHOCK] += shock
            group_acc[gb + G_WIDTH + min(total, HIST_BINS - 1)] += 1
    except KernelError as err:
        info[I_STRIKE], info[I_ERROR_POS] = err.where, err.position
        return err.code
    return E_OK


#: Chunk streams `roll_summary_lanes` takes at once (the compiled core rolls them side by side).
LANES = 8
LANES_ISA = "scalar"


def lanes_fit(plan: Any, groups: Any) -> bool:
    """Whether a bulk plan is one the lane kernel rolls: one group of one strike, no
    disadvantage, nothing left unrolled to count (no friendly-fire shot, no shock)."""
    if len(groups) != 3 or groups[1] - groups[0] != 1:
        return False
    p = groups[0] * PLAN_WIDTH
    return bool(plan[p + P_DISADV] == 0 and plan[p + P_FRIENDLY] == 0 and plan[p + P_SHOCK] == 0)


def roll_summary_lanes(plan: Any, groups: Any, n_targets: Any, firsts: Any, counts: Any, states: Any,
                       targets: Any, by_type: Any, group_acc: Any, info: Any) -> Any:
    """Chunk k: attacks firsts[k]..firsts[k]+counts[k]-1 from states[4k..4k+3], as roll_summary
    rolls each (here one after the other; the compiled core rolls them side by side)."""
    if not lanes_fit(plan, groups):
        raise ValueError("roll_summary_lanes takes one group of one strike without disadvantage, friendly fire"
                         " or shock")
    if not 1 <= len(firsts) <= LANES or len(counts) != len(firsts) or len(states) != 4 * len(firsts):
        raise ValueError(f"roll_summary_lanes takes 1 to {LANES} chunks, with 4 state words each")
    for k in range(len(firsts)):
        state = states[4 * k:4 * k + 4]
        err = roll_summary(plan, groups, n_targets, firsts[k], counts[k], state, targets, by_type, group_acc, info)
        states[4 * k:4 * k + 4] = state
        if err:
            return err
    return 0


def seed_state(seed: int, state: Any) -> None:
    """Write the xoshiro128** state of a 64-bit seed into `state` (four words)."""
    state[:4] = array("I", rng_seed_state(seed))


def generator_words(state: Any, count: Any) -> Any:
    """Draw `count` raw 32-bit words and return their XOR (the generator's speed limit)."""
    gen = Xoshiro128(state)
    acc = 0
    for _ in range(count):
        acc ^= gen.next32()
    return acc


def die(state: Any, faces: int) -> int:
    """One face 1..faces from the generator state (four words, advanced in place)."""
    if faces < 1 or faces > (1 << 21):
        raise ValueError("faces must be 1..2**21")
    return Xoshiro128.die(Xoshiro128(state), faces)


def draw_faces(state: Any, faces: Any, out: Any) -> None:
    """Fill `out` with dice of `faces` faces from `state` (fairness tests, benchmarks)."""
    if faces < 1 or faces > (1 << 21):
        raise ValueError("faces must be 1..2**21")
    dice = Draw(state, None, 0)
    for i in range(len(out)):
        out[i] = dice.die(faces)


# -- the Worldwalker / Cartyrion / old-school kernel (X_ rows) ---------------------------

def _xstrike(plan: Any, p: Any, dice: Any, tstate: Any, out: Any, o: Any, log: Any, logpos: Any) -> Any:
    """Roll one X_ row into out[o:o+XOUT_WIDTH]; returns the new log position.

    Draw order (docs/ENGINE.md §2): feint d20s (attacker, defender), the sneak check's
    d20, the attack d20, the block/dodge d20 (only against a hit), the damage dice
    and their explosions breadth first (only when the strike lands; at most
    CT_EXPLODE_LIMIT explosions, after which a maximum face adds no die), the
    stamina-cost die. With X_HIT_COUNT there is no d20: the damage dice are a pool whose
    faces of X_TN or more are successes, and no success is a miss.
    """
    react = plan[p + X_REACT]
    feint = feint_roll = feint_def = 0
    if plan[p + X_FEINT]:
        feint_roll = dice.die(20)
        feint_def = dice.die(20)
        if feint_roll + plan[p + X_FEINT_BONUS] > feint_def + plan[p + X_FEINT_DEFENSE]:
            feint, react = 1, 0
        else:
            feint = 2
    check = check_roll = 0
    if plan[p + X_CHECK]:
        check_roll = dice.die(20)
        check = 1 if check_roll + plan[p + X_CHECK_BONUS] >= plan[p + X_CHECK_DC] else 2
    mode = plan[p + X_HIT]
    roll = attack = 0
    hit = 1
    if mode == X_HIT_WW:
        roll = dice.die(20)
        attack = (30 if roll == 20 else -10 if roll == 1 else roll) + plan[p + X_BONUS]
        hit = 1 if attack >= plan[p + X_TN] else 0
    elif mode == X_HIT_OS:
        roll = dice.die(20)
        attack = roll + plan[p + X_BONUS]
        hit = 1 if roll == 20 or (roll != 1 and attack >= plan[p + X_TN]) else 0
    react_roll = react_total = negated = 0
    if hit and react:
        react_roll = dice.die(20)
        react_total = react_roll + plan[p + X_REACT_BONUS]
        negated = 1 if react_total >= attack else 0
    dice_sum = exploded = raw = reduced = absorbed = damage = nlog = 0
    t = plan[p + X_TARGET]
    parry = plan[p + X_PARRY]
    parry_left = tstate[t * XS_WIDTH + (1 if parry == X_PARRY_SHIELD else 0)] if parry else 0
    out[o + Y_LOG] = logpos
    if hit and not negated:
        faces = plan[p + X_FACES]
        explode = plan[p + X_EXPLODE]
        pending = plan[p + X_DICE]
        counting = mode == X_HIT_COUNT  # a dice pool: no d20, the dice count successes
        tn = plan[p + X_TN]
        while pending:
            face = dice.die(faces)
            if log is not None:
                if logpos >= len(log):
                    raise KernelError(E_LOG_FULL, dice.strike)
                log[logpos] = face
                logpos += 1
                nlog += 1
            dice_sum += (face >= tn) if counting else face
            pending -= 1
            if explode and face == faces and exploded < CT_EXPLODE_LIMIT:  # bounded (CT-3 decision)
                pending += 1
                exploded += 1
        if counting and dice_sum == 0:
            hit = 0  # no success: the pool missed (no maximum face either, so nothing exploded)
    if hit and not negated:
        raw = dice_sum + plan[p + X_FLAT] + plan[p + X_PER_DIE] * plan[p + X_DICE]
        reduced = plan[p + X_REDUCE_PASS] if check == 1 else plan[p + X_REDUCE]
        damage = max(raw - reduced, 0, plan[p + X_MIN])
        if parry == X_PARRY_WEAPON and parry_left > 0:
            absorbed, damage = damage, 0
            parry_left = max(0, parry_left - exploded)
            tstate[t * XS_WIDTH] = parry_left
        elif parry == X_PARRY_SHIELD and parry_left > 0:
            absorbed = min(damage, (parry_left + 1) // 2)
            damage -= absorbed
            parry_left = max(0, parry_left - 2 * absorbed)
            tstate[t * XS_WIDTH + 1] = parry_left
    cost_roll = cost = 0
    if plan[p + X_COST]:
        cost_roll = dice.die(plan[p + X_COST])
        cost = (cost_roll + 1) // 2 if plan[p + X_COST_HALF] else cost_roll
    out[o + Y_HIT] = hit
    out[o + Y_ROLL] = roll
    out[o + Y_ATTACK] = attack
    out[o + Y_FEINT] = feint
    out[o + Y_FEINT_ROLL] = feint_roll
    out[o + Y_FEINT_DEF_ROLL] = feint_def
    out[o + Y_REACT_ROLL] = react_roll
    out[o + Y_REACT] = react_total
    out[o + Y_NEGATED] = negated
    out[o + Y_CHECK] = check
    out[o + Y_CHECK_ROLL] = check_roll
    out[o + Y_DICE_SUM] = dice_sum
    out[o + Y_EXPLODED] = exploded
    out[o + Y_RAW] = raw
    out[o + Y_REDUCED] = reduced
    out[o + Y_ABSORBED] = absorbed
    out[o + Y_DAMAGE] = damage
    out[o + Y_COST_ROLL] = cost_roll
    out[o + Y_COST] = cost
    out[o + Y_PARRY_LEFT] = parry_left
    out[o + Y_NLOG] = nlog
    return logpos


def _xattack(plan: Any, begin: Any, end: Any, dice: Any, tinit: Any, tstate: Any, out: Any, row: Any, log: Any, logpos: Any) -> Any:
    """Roll rows begin..end-1 as one attack (parry state starts afresh from `tinit`)."""
    tstate[:] = tinit
    for s in range(begin, end):
        dice.strike = s
        logpos = _xstrike(plan, s * XPLAN_WIDTH, dice, tstate, out, (row + s - begin) * XOUT_WIDTH, log, logpos)
    return logpos


def xroll_detail(plan: Any, groups: Any, n_targets: Any, tinit: Any, first: Any, count: Any, state: Any, rolls: Any, out: Any, log: Any, info: Any) -> Any:
    """The X_ kernel's `roll_detail`: every strike into `out`, every damage die into `log`.

    `tinit` is int64[n_targets * XS_WIDTH], the parry state every attack starts from;
    `log` holds one int32 face per damage die (None or empty: log nothing). `info` as
    for `roll_detail`, and info[I_ERROR_FACES] the faces of the die an injected face did
    not fit. Returns an error code.
    """
    dice = Draw(state, rolls, info[I_POS])
    tstate = list(tinit)
    row = logpos = 0
    if log is not None and len(log) == 0:
        log = None
    try:
        for _a, _g, begin, end in _attacks(groups, first, count):
            logpos = _xattack(plan, begin, end, dice, tinit, tstate, out, row, log, logpos)
            row += end - begin
    except KernelError as err:
        info[I_POS], info[I_LOGPOS], info[I_STRIKE], info[I_ERROR_POS], info[I_ERROR_FACES] = dice.pos, logpos, err.where, err.position, err.faces
        return err.code
    info[I_POS], info[I_LOGPOS], info[I_STRIKE], info[I_ERROR_POS], info[I_ERROR_FACES] = dice.pos, logpos, -1, -1, 0
    return E_OK


def xroll_summary(plan: Any, groups: Any, n_targets: Any, tinit: Any, first: Any, count: Any, state: Any, targets: Any, group_acc: Any, info: Any) -> Any:
    """The X_ kernel's `roll_summary`: attacks into `targets` (int64[n_targets * U_WIDTH])
    and `group_acc` (int64[groups * (K_WIDTH + HIST_BINS)]), added to. Returns an error code."""
    n_groups = len(groups) // 3
    widest = max(groups[g * 3 + 1] - groups[g * 3] for g in range(n_groups))
    out = [0] * (widest * XOUT_WIDTH)
    dice = Draw(state, None, 0)
    tstate = list(tinit)
    hit_stamp = [-1] * n_targets
    seen_stamp = [-1] * n_targets
    stride = K_WIDTH + HIST_BINS
    try:
        for a, g, begin, end in _attacks(groups, first, count):
            _xattack(plan, begin, end, dice, tinit, tstate, out, 0, None, 0)
            total = exploded = any_hit = 0
            for s in range(begin, end):
                o = (s - begin) * XOUT_WIDTH
                t = plan[s * XPLAN_WIDTH + X_TARGET]
                tb = t * U_WIDTH
                damage = out[o + Y_DAMAGE]
                if seen_stamp[t] != a:
                    seen_stamp[t] = a
                    targets[tb + U_ATTACKS] += 1
                targets[tb + U_STRIKES] += 1
                if out[o + Y_HIT]:
                    targets[tb + U_STRIKES_HIT] += 1
                    if out[o + Y_NEGATED]:
                        targets[tb + U_NEGATED] += 1
                    else:
                        any_hit = 1
                        if hit_stamp[t] != a:
                            hit_stamp[t] = a
                            targets[tb + U_ATTACKS_HIT] += 1
                targets[tb + U_DAMAGE] += damage
                if plan[s * XPLAN_WIDTH + X_POOL]:
                    targets[tb + U_INJURY] += damage
                x = out[o + Y_EXPLODED]
                targets[tb + U_EXPLODED] += x
                if x > targets[tb + U_LONGEST]:
                    targets[tb + U_LONGEST] = x
                targets[tb + U_ABSORBED] += out[o + Y_ABSORBED]
                targets[tb + U_COST] += out[o + Y_COST]
                total += damage
                exploded += x
            gb = g * stride
            group_acc[gb + K_ATTACKS_HIT] += any_hit
            group_acc[gb + K_DAMAGE] += total
            group_acc[gb + K_EXPLODED] += exploded
            group_acc[gb + K_WIDTH + min(total, HIST_BINS - 1)] += 1
    except KernelError as err:
        info[I_STRIKE], info[I_ERROR_POS] = err.where, err.position
        return err.code
    return E_OK


def roll_single(plan: Any, n_targets: Any, state: Any, rolls: Any, info: Any) -> tuple[int, Any, Any]:
    """One attack: strikes 0..n-1 of `plan`, as roll_detail with one group of count 1, but
    the out and log buffers are made here (new arrays, 'q' and 'i') and a crit chain too
    long for the log is rolled again from the same state with a larger log. Returns
    (error code, out, log); `info` as for roll_detail."""
    n = len(plan) // PLAN_WIDTH
    if not 1 <= n <= 4096:
        raise ValueError("one attack has 1 to 4096 strikes")
    if len(info) < INFO_WIDTH:
        raise ValueError(f"info needs {INFO_WIDTH} entries")
    groups = array("q", (0, n, 1))
    capacity = n * 24
    start = array("I", state)
    pos = info[I_POS]
    while True:
        out = array("q", [0]) * (n * OUT_WIDTH)
        log = array("i", [0]) * (2 * capacity)
        info[I_POS] = pos
        err = roll_detail(plan, groups, n_targets, 0, 1, state, rolls, out, log, info)
        if err != E_LOG_FULL:
            return err, out, log
        state[:] = start  # the chain outgrew the log: roll the same dice again with room for it
        capacity *= 4



def roll_seeded(plan: Any, n_targets: Any, seed: Any) -> tuple[int, Any, Any, int]:
    """One attack from the generator of `seed` (no injected faces): roll_single from the
    seed's state, with its own state and call info. Returns (error code, out, log, the
    strike of the error or -1). The fused single-call path (issue 44 item 3)."""
    state = array("I", rng_seed_state(seed))
    info = array("q", bytes(8 * INFO_WIDTH))
    err, out, log = roll_single(plan, n_targets, state, None, info)
    return err, out, log, (info[I_STRIKE] if err else -1)
