"""The fight loop's shared steps, written once for the compiled loop and its Python run: the
random events' streams, initiative for a round of one combatant per slot, choosing a target
by tactic in time flat in the fight's size, an attack's variant and its dice, damage,
reactions at a leaving enemy, and the whole fight.

A round procedure file (`fracas._pure.rules` says what it may hold) in Cython's "pure
Python mode": `cython_core/fights.pyx` includes it after its `FightPlan` and `FightState`
and compiles it as inline C; `fracas.drive.pyloop` runs the same text as Python, over
objects of arrays (`rulesets.loopstate`) and the kernels' Python twins. The rulesets'
rounds are theirs (`rulesets/<ruleset>/loop.py`); this file plays what every round has and
calls theirs (`ROUND_STEPS`: one C module compiled, bound by `pyloop.bind` as Python). Where
C and Python must differ (a kernel called through a pointer, a bulk copy), the two sit side
by side behind `if cython.compiled:`.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the stand-in is what the type checker reads (Cython's module is untyped)
    from fracas._pure import cython
else:
    try:
        import cython
    except ImportError:  # Cython is a build dependency only: its names as plain Python
        from fracas._pure import cython
    if not cython.compiled:  # run as Python (fracas.drive.pyloop): always the stand-in, whose NULL is None
        from fracas._pure import cython

#: A member's status (FightState.status)
ST_STANDING = cython.declare(cython.const[cython.int], 0)
ST_DOWN = cython.declare(cython.const[cython.int], 1)
ST_FLED = cython.declare(cython.const[cython.int], 2)
#: A member's tactic (FightPlan.tactic)
TAC_NEAREST = cython.declare(cython.const[cython.int], 0)
TAC_WEAKEST = cython.declare(cython.const[cython.int], 1)
TAC_RANDOM = cython.declare(cython.const[cython.int], 2)
TAC_FOCUS = cython.declare(cython.const[cython.int], 3)
#: A tie still unbroken after rolloffs.LIMIT roll-offs: the fight stops and the Python loop
#: reports the LimitError.
E_FIGHT_TIES = cython.declare(cython.const[cython.int], 100)
#: The plan holds no variant for what the fight reached (a check the plan's builder vouches for)
E_FIGHT_PLAN = cython.declare(cython.const[cython.int], 101)
#: The plain round's initiative call gave no order the loop plays (it failed, or a slot of
#: several sides acting at once): the Python round loop plays the fight
E_FIGHT_CALL = cython.declare(cython.const[cython.int], 102)
#: weakest: a tree key is health << WK_SHIFT | member (members < 1 << 20, health < 1 << 42)
WK_SHIFT = cython.declare(cython.const[cython.int], 21)
#: weakest: the key of no member (a side's tree with no one standing)
WK_NONE = cython.declare(cython.const[cython.longlong], 0x7FFFFFFFFFFFFFFF)
#: ER-17: a shot's stray slot is a d10 (slots 1-8 hold the creatures next to the target)
BY_SLOTS = cython.declare(cython.const[cython.int], 10)
#: log entries per strike kept for its strays (its pool and a crit chain this long)
SLOG_STRIKE = cython.declare(cython.const[cython.int], 8 + 2 * 64)
#: The uint64 arithmetic of `_select`: its masks, and the one Python keeps the words in (C wraps by itself)
MASK64 = cython.declare(cython.const[cython.ulonglong], 0xFFFFFFFFFFFFFFFF)
BYTES_LOW = cython.declare(cython.const[cython.ulonglong], 0x0101010101010101)
BYTES_HIGH = cython.declare(cython.const[cython.ulonglong], 0x8080808080808080)
ODD_BITS = cython.declare(cython.const[cython.ulonglong], 0x5555555555555555)
BIT_PAIRS = cython.declare(cython.const[cython.ulonglong], 0x3333333333333333)
NIBBLES = cython.declare(cython.const[cython.ulonglong], 0x0F0F0F0F0F0F0F0F)

if not cython.compiled:  # compiled, these are the loop's own (cython_core/fights.pyx) and the kernels'
    from fracas._layout import (O_DAMAGE, O_HITS, OUT_WIDTH, X_POOL, XOUT_WIDTH, XPLAN_WIDTH, Y_COST, Y_DAMAGE,
                                Y_REACT_ROLL)
    from fracas._pure.cython import int32_t, int64_t, uint32_t
    from fracas._pure.draws import Dice, draw_gen, seed_words
    from fracas.rulesets.pools import after_damage, down
    from fracas.rulesets.loopstate import BY_MAX, FightPlan, FightState, er_kernel, row_kernel
    from fracas.rng import chunk_seed as _chunk_seed
    from fracas.rulesets.rolloffs import roll_order


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _dice(f: cython.pointer[FightState]) -> cython.pointer[Dice]:
    """The fight's stream, which every random event draws from: compiled, the state's own
    generator (a field the C compiler knows, so a draw through it changes nothing else); as
    Python, its `fracas.dice.Dice`."""
    if cython.compiled:
        return cython.address(f.dice)
    else:
        return f.d


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _stream(f: cython.pointer[FightState]) -> cython.void:
    """The round's next random event draws from stream k (Fight._stream). Only the words
    change: a fight injects no faces."""
    seed_words(_dice(f), _chunk_seed(f.round_seed, f.k))
    f.k += 1


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _initiative(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState]) -> cython.longlong:
    """ER-18, WW-1 (`rolloffs.roll_order`, as the initiative kinds roll it): a die per
    standing combatant in scenario order plus its modifier, totals highest first (WW-1:
    then the higher Dexterity modifier), ties broken by d20 roll-offs. Fills f.order;
    returns the combatants in it, or -1 when a tie stands after the roll-off limit."""
    i: cython.longlong
    n: cython.longlong = 0
    placed: cython.longlong
    if p.init_once and f.once_n:  # WW-1: the fight's order, without the fallen; no dice
        for i in range(f.once_n):
            if f.status[f.once[i]] == ST_STANDING:
                f.order[n] = f.once[i]
                n += 1
        return n
    _stream(f)
    for i in range(p.members):  # the standing, in scenario order: rolled for in that order
        if f.status[i] == ST_STANDING:
            f.order[n] = i
            n += 1
    # (the plan's modifiers are const: roll_order reads them only; f.rolls is written as Python only)
    placed = roll_order(_dice(f), p.init_die, f.order, n, cython.cast(cython.p_longlong, p.init_mod),
                        cython.cast(cython.p_longlong, p.init_sub), p.init_low, p.init_span, p.sub_low, p.sub_span,
                        f.bucket, f.keys, f.tie, f.order, f.rolls, cython.NULL)
    if placed < 0:
        return -1
    if p.init_once:
        for i in range(n):
            f.once[i] = f.order[i]
        f.once_n = n
    return n


@cython.cfunc
@cython.exceptval(check=False)
def _call_initiative(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], r: cython.longlong,
                     seed: cython.ulonglong) -> cython.longlong:
    """`_called_initiative`'s call, with the GIL held: the plan's `init_call` with the round,
    the event's seed and who stands; the members it orders into f.order (-1: none)."""
    i: cython.longlong
    n: cython.longlong
    if cython.compiled:
        call = cython.cast(object, p.init_call)
    else:
        call = p.init_call
    try:
        got = call(r, seed, [f.status[i] == ST_STANDING for i in range(p.members)])
        if got is None or len(got) > p.members:
            return -1
        n = len(got)
        for i in range(n):
            if not 0 <= got[i] < p.members:
                return -1
            f.order[i] = got[i]
        return n
    except Exception:  # the Python round loop plays the fight again, and says what failed
        return -1
    except BaseException as stop:  # Ctrl-C (simulate's handler): C cannot carry it; play_fights raises it
        if not cython.compiled:
            raise
        _STOPPED.append(stop)  # fights.pyx's: a Python list is no C constant of an included file
        return -1


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _called_initiative(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState],
                       r: cython.longlong) -> cython.longlong:
    """The plain round's initiative: the ruleset's own `fight_initiative`, which only Python
    states (Procedure.initiative_call lays it out as the plan's `init_call`). One random
    event: its seed, the round and who stands go to the call, with the GIL. Fills f.order
    with the members in slot order; returns how many, or -1 (the Python round loop plays
    the fight)."""
    seed: cython.ulonglong = _chunk_seed(f.round_seed, f.k)
    n: cython.longlong
    f.k += 1
    with cython.gil:
        n = _call_initiative(p, f, r, seed)
    return n


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _first_standing(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], m: cython.longlong,
                    focus: cython.bint) -> cython.longlong:
    """The first standing member of m's nearest-first list of its focus's members (`focus`)
    or of its enemies, from where its last search stopped (statuses only ever leave
    standing), that place moved on to it (-1: none)."""
    end: cython.longlong
    at: cython.longlong
    if focus:
        at, end = f.focus_at[m], p.focus_off[m + 1]
        while at < end and f.status[p.focus[at]] != ST_STANDING:
            at += 1
        f.focus_at[m] = at
        return p.focus[at] if at < end else -1
    at, end = f.near_at[m], p.near_off[m + 1]
    while at < end and f.status[p.near[at]] != ST_STANDING:
        at += 1
    f.near_at[m] = at
    return p.near[at] if at < end else -1


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _choose(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState],
            m: cython.longlong) -> cython.longlong:
    """Fight._choose: the target of m by its tactic among the standing enemies (-1: none)."""
    e: cython.longlong
    n: cython.longlong
    best: cython.longlong
    tactic: cython.int = p.tactic[m]
    side: cython.int = p.side[m]
    if tactic == TAC_FOCUS:
        if p.walk[m] and p.focus_lo[m] >= 0:
            e = _walk(p, f, m, p.focus_lo[m], p.focus_hi[m])
        else:
            e = _first_standing(p, f, m, True)
        if e >= 0:
            return e
        tactic = TAC_NEAREST
    if tactic == TAC_NEAREST:
        if p.walk[m]:
            return _walk(p, f, m, 0, p.members)
        return _first_standing(p, f, m, False)
    if tactic == TAC_WEAKEST:
        # the least (health, index) among the standing enemies: the root of each enemy side's
        # tree (Fight._choose's `min` over them all)
        best = WK_NONE
        for n in range(p.sides):
            if n != side:
                best = min(best, f.wk[p.wk_off[n] + 1])
        return -1 if best == WK_NONE else best & ((cython.cast(cython.longlong, 1) << WK_SHIFT) - 1)
    # random: the k-th of the standing enemies in member order, k rolled on their count
    # (Fight._choose: dice.die(len(enemies))), found from the prefix counts of its bitset
    n = 0
    for e in range(p.sides):
        if e != side:
            n += f.side_standing[e]
    if n == 0:
        return -1
    _stream(f)
    n = draw_gen(_dice(f), cython.cast(cython.uint, n))
    return _fw_kth(p, f, side, n)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _up(f: cython.pointer[FightState], i: cython.longlong) -> cython.longlong:
    """The first standing member at or above i (p.members: none), halving the path."""
    while f.next_up[i] != i:
        f.next_up[i] = f.next_up[f.next_up[i]]
        i = f.next_up[i]
    return i


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _down(f: cython.pointer[FightState], i: cython.longlong) -> cython.longlong:
    """The last standing member at or below i (-1: none), halving the path."""
    k: cython.longlong = i + 1
    while f.next_down[k] != k:
        f.next_down[k] = f.next_down[f.next_down[k]]
        k = f.next_down[k]
    return k - 1


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _walk(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], m: cython.longlong,
          lo: cython.longlong, hi: cython.longlong) -> cython.longlong:
    """m's nearest standing enemy among members lo..hi-1, as its nearest-first list has it:
    in each enemy row the first standing one either way from m's x, the least (key, index)
    of those (nearest_lists vouched that these keys order as math.hypot does)."""
    r: cython.longlong
    a: cython.longlong
    b: cython.longlong
    sp: cython.longlong
    e: cython.longlong
    k: cython.longlong
    best: cython.longlong = -1
    key: cython.double
    best_key: cython.double = 0
    dx: cython.double
    dy: cython.double
    side: cython.int = p.side[m]
    for r in range(p.rows_n):
        a, b = p.rows_at[2 * r], p.rows_at[2 * r + 1]
        if p.side[a] == side:
            continue
        a = a if a > lo else lo
        b = b if b < hi else hi
        if a >= b:
            continue
        sp = p.split[m * p.rows_n + r]
        sp = a if sp < a else (b if sp > b else sp)
        for k in range(2):
            if k == 0:
                if sp <= a:
                    continue
                e = _down(f, sp - 1)
                if e < a:
                    continue
            else:
                if sp >= b:
                    continue
                e = _up(f, sp)
                if e >= b:
                    continue
            dx, dy = p.xs[e] - p.xs[m], p.ys[e] - p.ys[m]
            key = dx * dx + dy * dy
            if best < 0 or key < best_key or (key == best_key and e < best):
                best, best_key = e, key
    return best


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _wk_key(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState],
            e: cython.longlong) -> cython.longlong:
    """What the weakest tactic compares: hp, plus Injury Points left (CT-4), then the index."""
    return ((f.hp[e] + (f.injury[e] if p.injury[e] >= 0 else 0)) << WK_SHIFT) | e


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _wk_build(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState]) -> cython.void:
    """Every side's tree at a fight's start: each leaf its member's key (all stand), WK_NONE past them."""
    s: cython.longlong
    i: cython.longlong
    base: cython.longlong
    size: cython.longlong
    for s in range(p.sides):
        base, size = p.wk_off[s], p.wk_size[s]
        for i in range(size, 2 * size):
            f.wk[base + i] = WK_NONE
    for i in range(p.members):
        f.wk[p.wk_off[p.side[i]] + p.wk_size[p.side[i]] + p.side_pos[i]] = _wk_key(p, f, i)
    for s in range(p.sides):
        base, size = p.wk_off[s], p.wk_size[s]
        for i in range(size - 1, 0, -1):
            f.wk[base + i] = min(f.wk[base + 2 * i], f.wk[base + 2 * i + 1])


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _moved(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState],
           t: cython.longlong) -> cython.void:
    """t's health or status changed: its side's tree again from its leaf up (weakest), as
    far as a node changes (the nodes above one that keeps its key keep theirs)."""
    base: cython.longlong
    i: cython.longlong
    key: cython.longlong
    if not p.any_weakest:
        return
    base = p.wk_off[p.side[t]]
    i = p.wk_size[p.side[t]] + p.side_pos[t]
    f.wk[base + i] = _wk_key(p, f, t) if f.status[t] == ST_STANDING else WK_NONE
    i >>= 1
    while i >= 1:
        key = min(f.wk[base + 2 * i], f.wk[base + 2 * i + 1])
        if f.wk[base + i] == key:
            break
        f.wk[base + i] = key
        i >>= 1


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _fallen(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState],
            t: cython.longlong) -> cython.void:
    """t no longer stands: out of its enemies' bitsets and prefix counts (random), its
    side's tree (weakest), the walks' links (nearest, focus)."""
    i: cython.longlong
    s: cython.longlong
    pre: cython.longlong
    if p.any_walk:
        f.next_up[t] = t + 1
        f.next_down[t + 1] = t
    if p.any_random:
        for s in range(p.sides):
            if s != p.side[t]:
                f.eb[s * p.fw_words + (t >> 6)] &= ~(cython.cast(cython.ulonglong, 1) << (t & 63)) & MASK64
                pre = s * p.fw_n
                for i in range((t >> 6) + 1, p.fw_words):  # the words after t's count one fewer
                    f.fw[pre + i] -= 1
    _moved(p, f, t)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _select(p: cython.pointer[cython.const[FightPlan]], x: cython.ulonglong, k: cython.longlong) -> cython.longlong:
    """The place of the k-th (from 1, k <= its bits) set bit of x, in constant time: the
    bytes' bit counts summed up to each byte, the byte where the sum reaches k found by
    comparing all eight sums at once, the bit in it from a table (FightPlan.select8,
    `pyloop.layout`)."""
    c: cython.ulonglong = x - ((x >> 1) & ODD_BITS)
    below: cython.ulonglong
    b: cython.longlong
    c = (c & BIT_PAIRS) + ((c >> 2) & BIT_PAIRS)
    c = (((c + (c >> 4)) & NIBBLES) * BYTES_LOW) & MASK64  # byte i: the bits of bytes 0..i
    # bytes whose sum is below k (every sum <= 64 < 128 and k <= 64: no borrow between bytes)
    below = ((((c | BYTES_HIGH) - cython.cast(cython.ulonglong, k) * BYTES_LOW) & BYTES_HIGH) >> 7) ^ BYTES_LOW
    b = cython.cast(cython.longlong, ((below * BYTES_LOW) & MASK64) >> 56)  # the byte holding the k-th bit
    k -= cython.cast(cython.longlong, ((c << 8) >> (8 * b)) & 0xFF)  # the bits before that byte
    return 8 * b + p.select8[((x >> (8 * b)) & 0xFF) * 8 + k - 1]


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _fw_kth(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], side: cython.int,
            k: cython.longlong) -> cython.longlong:
    """The k-th (from 1, k <= their count) standing member not of `side`, in member order:
    its word is the last whose prefix count is below k (the prefixes rise, pre[0] = 0 < k:
    the number of those below k, less one, counted without branches over all words at once),
    then the bit in that word."""
    pre: cython.longlong = side * p.fw_n
    below: cython.int = cython.cast(cython.int, k)
    w: cython.longlong
    pos: cython.longlong = 0
    if p.fw_words > 1:  # (64 enemies or fewer: the first word)
        for w in range(1, p.fw_n):
            pos += f.fw[pre + w] < below
    return 64 * pos + _select(p, f.eb[side * p.fw_words + pos], k - f.fw[pre + pos])


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _decide(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState]) -> cython.void:
    """Fight.decide: over once at most one side stands."""
    s: cython.longlong
    if f.sides_left <= 1 and not f.over:
        f.over = True
        f.winner = -1
        for s in range(p.sides):
            if f.side_standing[s]:
                f.winner = s


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _er_roll(plans: cython.pointer[cython.const[int32_t]], masks: cython.pointer[cython.const[uint32_t]],
             f: cython.pointer[FightState], first: cython.longlong, n: cython.longlong, rows: cython.bint,
             log: cython.bint) -> cython.int:
    """The ER strike kernel (`roll_attack`, a single attack's and the bulk API's) on rows
    first..first+n-1 of `plans` from f's stream, as one attack: its rows into f.out
    (`rows`) and its dice into f.slog (`log`), else only its damage, into f.dmg. Returns
    the kernel's error code."""
    damage: int64_t = 0  # (the kernel's own C type: it writes them through pointers)
    logpos: int64_t = 0
    err: cython.int
    f.stamp[0] = -1
    if cython.compiled:  # (the totals in locals: the inlined kernel keeps them in registers)
        err = roll_attack(cython.address(plans[first * PLAN_WIDTH]), cython.address(masks[2 * first]), 0, n, _dice(f),
                          f.stamp, 0, f.out if rows else cython.NULL, f.slog if log else cython.NULL,
                          f.slog_cap if log else 0, cython.address(logpos), 0,
                          cython.NULL if rows else cython.address(damage))
        f.dmg = damage
        return err
    else:
        f.dmg = 0
        return er_kernel(plans, f, first, n, rows, log)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _row_roll(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], t: cython.longlong,
              at: cython.longlong) -> cython.int:
    """Variant `at`'s attack at t on the strike-row kernel: its damage into f.dmg (CT-4: a
    pool strike's into f.inj), its stamina cost into f.cost; the blocks and dodges it
    rolled spend t's reserve (WW-5). Returns the kernel's error code."""
    first: cython.longlong = p.pair[2 * at]
    n: cython.longlong = p.pair[2 * at + 1]
    s: cython.longlong
    reacted: cython.longlong = 0
    damage: cython.longlong = 0
    injury: cython.longlong = 0
    cost: cython.longlong = 0
    err: cython.int
    f.logpos = 0
    if cython.compiled:
        err = xattack(p.plans, first, first + n, _dice(f), cython.address(p.tinit[at * XS_WIDTH]), f.tstate, XS_WIDTH,
                      f.out, cython.NULL, 0, cython.address(f.logpos), True, CT_EXPLODE_LIMIT)
    else:
        err = row_kernel(p, f, first, n, at)
    if err:
        return err
    for s in range(n):
        if p.side_turns and p.plans[(first + s) * XPLAN_WIDTH + X_POOL]:
            injury += f.out[s * XOUT_WIDTH + Y_DAMAGE]
        else:
            damage += f.out[s * XOUT_WIDTH + Y_DAMAGE]
        cost += f.out[s * XOUT_WIDTH + Y_COST]
        reacted += f.out[s * XOUT_WIDTH + Y_REACT_ROLL] != 0
    # CT-4: a stamina cost is the side-turn round's (the plain round deals damage only)
    f.dmg, f.inj, f.cost = damage, injury, cost if p.side_turns else 0
    if f.reserve[t] > 0:
        f.reserve[t] -= reacted
    return 0


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _engage(f: cython.pointer[FightState], a: cython.longlong, b: cython.longlong) -> cython.int:
    """ER-20 flee attacks, attacks of opportunity: a and b engaged each other in
    melee this round: a record in each one's list of this round's parity (the two always
    together, so a pair already at the head of a's list is recorded both ways)."""
    q: cython.longlong = f.now & 1
    ha: cython.longlong = 2 * a + q
    hb: cython.longlong = 2 * b + q
    rec: cython.longlong
    base: cython.longlong = q * f.eg_cap  # this parity's pool of records
    if f.eg_pool[q] != f.now:  # the pool's first records this round: the round two before is gone
        f.eg_pool[q] = f.now
        f.eg_used[q] = 0
    if f.eg_stamp[ha] != f.now:
        f.eg_stamp[ha] = f.now
        f.eg_head[ha] = -1
    elif f.eg_other[base + f.eg_head[ha]] == b:
        return 0  # the same pair again (strikes made as attacks of their own, WW-5)
    if f.eg_stamp[hb] != f.now:
        f.eg_stamp[hb] = f.now
        f.eg_head[hb] = -1
    rec = f.eg_used[q]
    if rec + 2 > f.eg_cap:
        return E_FIGHT_PLAN  # more engagements in a round than its attacks and reactions can make
    f.eg_used[q] = rec + 2
    f.eg_other[base + rec], f.eg_next[base + rec], f.eg_head[ha] = b, f.eg_head[ha], rec
    f.eg_other[base + rec + 1], f.eg_next[base + rec + 1], f.eg_head[hb] = a, f.eg_head[hb], rec + 1
    return 0


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _engaged(f: cython.pointer[FightState], t: cython.longlong) -> cython.longlong:
    """The members engaged with t in melee this round or the round before, each once, in
    member order, into f.eg_list; returns their count (flat in the fight's size: t's own
    records only)."""
    n: cython.longlong = 0
    stamp: cython.longlong
    h: cython.longlong
    rec: cython.longlong
    q: cython.longlong
    j: cython.longlong
    e: cython.int
    f.eg_token += 1
    for stamp in range(f.now - 1, f.now + 1):
        q = stamp & 1
        h = 2 * t + q
        if f.eg_stamp[h] != stamp or f.eg_pool[q] != stamp:
            continue
        rec = f.eg_head[h]
        while rec >= 0:
            e = f.eg_other[q * f.eg_cap + rec]
            if f.eg_mark[e] != f.eg_token:
                f.eg_mark[e] = f.eg_token
                j = n  # insertion sort: a handful of enemies
                while j > 0 and f.eg_list[j - 1] > e:
                    f.eg_list[j] = f.eg_list[j - 1]
                    j -= 1
                f.eg_list[j] = e
                n += 1
            rec = f.eg_next[q * f.eg_cap + rec]
    return n


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _begin_attack(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], unit: cython.longlong,
                  tg: cython.longlong, v: cython.longlong) -> cython.longlong:
    """An attack (or reaction) of attack unit `unit` at a member of group tg, in its variant
    v: its rows in the plan (FightPlan.pair[2 * at:2 * at + 2]), and its random event's
    stream, the round's next. Returns `at`, or -1 when the plan holds no such variant."""
    at: cython.longlong
    if not 0 <= v < p.vcount[unit * p.groups + tg]:
        return -1
    at = p.vbase[unit * p.groups + tg] + v
    if p.pair[2 * at + 1] <= 0:
        return -1
    _stream(f)
    f.attacks += 1
    return at


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _reactions(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState],
               t: cython.longlong) -> cython.int:
    """The procedure's `harmed` for a leaving combatant whose leaving draws reactions (ER-20
    flee attacks, attacks of opportunity): each standing enemy engaged with it
    in melee this round or the round before (`_engaged`), with its reaction left (one a
    round) and a reaction unit, in member order, makes its reaction (one random event), its
    damage landing at once; it stops when t is at 0. On strike rows the
    variant is the target's reaction left or not, and its blocks and dodges spend its
    reserve (WW-5)."""
    e: cython.longlong
    unit: cython.longlong
    at: cython.longlong
    first: cython.longlong
    n: cython.longlong
    v: cython.longlong
    k: cython.longlong
    engaged: cython.longlong
    err: cython.int
    tg: cython.longlong = p.group[t]
    engaged = _engaged(f, t)
    for k in range(engaged):
        e = f.eg_list[k]
        if f.status[e] != ST_STANDING or p.side[e] == p.side[t] or not _can_react(p, f, e):
            continue  # its reaction spent, or taken away (ER-13 shock, ER-15 defending)
        if p.negates and _neg_busy(f, e):
            continue  # ER Weapon Negation: its weapon locked, holding a lock, or on the ground
        unit = p.react_unit[p.group[e]]
        if unit < 0:
            continue
        f.reacted[e] = f.now
        v = p.rows and p.reaction[t] and f.reserve[t] <= 0
        at = _begin_attack(p, f, unit, tg, v)
        if at < 0:
            return E_FIGHT_PLAN
        first, n = p.pair[2 * at], p.pair[2 * at + 1]
        # (a reaction's stamina cost and injury: side-turn rounds make no reactions)
        err = _row_roll(p, f, t, at) if p.rows else _er_roll(p.plans, p.masks, f, first, n, False, False)
        if err:
            return err
        f.dealt[e] += f.dmg
        f.taken[t] += f.dmg
        err = _engage(f, e, t)
        if err:
            return err
        if f.dmg:
            f.hp[t] = f.hp[t] - f.dmg if f.hp[t] > f.dmg else 0
        if f.hp[t] == 0:
            return 0
    return 0


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _harm(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], t: cython.longlong,
          damage: cython.longlong, injury: cython.longlong) -> cython.int:
    """Fight._harm: down at 0 (with Injury Points, CT-4: Stamina damage past 0 becomes
    injury, down when they are gone), else fled at its flee_at, after the reactions its
    leaving draws (down if they bring it to 0)."""
    pooled: cython.bint = p.injury[t] >= 0
    out: cython.bint
    err: cython.int
    if damage + injury <= 0:
        return 0
    f.hp[t], f.injury[t] = after_damage(f.hp[t], f.injury[t], pooled, damage, injury)
    out = down(pooled, f.hp[t], f.injury[t])
    if out:
        f.status[t] = ST_DOWN
    elif f.hp[t] <= p.flee_at[t]:
        out = False
        if p.reactions and p.leave_draws[p.group[t]] and not (p.defends and f.defending[t]):
            err = _reactions(p, f, t)
            if err:
                return err
            out = f.hp[t] == 0  # the reactions brought it down: down, not fled
        f.status[t] = ST_DOWN if out else ST_FLED
    else:
        _moved(p, f, t)
        return 0
    _fallen(p, f, t)
    f.side_standing[p.side[t]] -= 1
    if f.side_standing[p.side[t]] == 0:
        f.sides_left -= 1
    _decide(p, f)
    return 0


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _can_react(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState],
               t: cython.longlong) -> cython.bint:
    """ErRound._can_react: its reaction of the round left: not spent, not incapacitated
    (ER-13), not taken away by defending (ER-15)."""
    return not (f.reacted[t] == f.now or (p.shock and f.incap[t] > 0)
                or (p.defends and (f.defending[t] or f.no_react[t] >= f.now)))


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _note_target(f: cython.pointer[FightState], m: cython.longlong, t: cython.longlong) -> cython.void:
    """ER-13, CT-7: whom m's turn attacked (or threw at): this round's target, the last round's kept."""
    if f.fo_r[m] != f.now:
        f.fo_pt[m], f.fo_pr[m] = f.fo_t[m], f.fo_r[m]
        f.fo_t[m], f.fo_r[m] = t, f.now


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _attacked_prior(f: cython.pointer[FightState], m: cython.longlong, t: cython.longlong) -> cython.bint:
    """CT-7: m attacked t in the prior round."""
    prior: cython.longlong = f.now - 1
    return (f.fo_r[m] == prior and f.fo_t[m] == t) or (f.fo_pr[m] == prior and f.fo_pt[m] == t)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _fought(f: cython.pointer[FightState], m: cython.longlong, t: cython.longlong) -> cython.bint:
    """ER-13 (ErRound.situation): m attacked t, or t attacked m, in the prior round."""
    return _attacked_prior(f, m, t) or _attacked_prior(f, t, m)


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _attack(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], m: cython.longlong,
            t: cython.longlong, unit: cython.longlong, spell: cython.bint, r: cython.longlong) -> cython.int:
    """Fight._attack and _after_attack: m's attack `unit` at t from the next stream, in the
    situation the round puts it in (its variant: `_ct_variant` on side turns, a fleeing
    target on phases (OS-3), else a target with no reserved action left cannot block or
    dodge (WW-5), ER-17 those next to a shot's target, ER-15 a defending target, ER-13 a
    sneak attack, the weapon's state (ER Weapon Negation)); then what it leaves (the
    round's own: `_ct_attacked`, `_os_attacked`), its engagement (reactions), its strays'
    and its own damage. Returns an error code (0: none)."""
    g: cython.longlong = p.group[m]
    tg: cython.longlong = p.group[t]
    v: cython.longlong = 0
    first: cython.longlong
    n: cython.longlong
    s: cython.longlong
    at: cython.longlong
    damage: cython.longlong = 0
    injury: cython.longlong = 0
    cost: cython.longlong = 0
    nb: cython.longlong = 0
    i: cython.longlong
    e: cython.longlong
    shocking: cython.bint = False
    err: cython.int
    if p.side_turns and not spell:
        v = _ct_variant(p, f, m, t)
        if v < 0:
            return E_FIGHT_PLAN
    elif p.phased:
        v = f.leaving[t] != 0  # OS-3: a target that declared flight is a fleeing target
    elif not p.side_turns:
        v = p.reaction[t] and f.reserve[t] <= 0
        if p.strays and not spell and p.shoots[g]:  # ER-17: who stands next to the target (variant 1)
            for i in range(p.by_off[tg], p.by_off[tg + 1]):
                e = p.by_list[i]
                if e != t and e != m and f.status[e] == ST_STANDING:
                    f.by[nb] = e
                    nb += 1
                    if nb == BY_MAX:
                        break
            v = nb > 0
        if p.er_extra:
            i = 2  # the next variant bit
            if p.defends and p.can_defend[tg]:  # ER-15: at a defending target
                v += 2 * f.defending[t]
                i = 4
            if p.sneaks:
                if not spell and p.sneaky[g] and _fought(f, m, t):  # ER-13: t has not lost track of m
                    v += i
                _note_target(f, m, t)
            shocking = p.shock and p.shock_body[tg] >= 0  # ER-13: its sneak strikes may shock t
        if p.negates and not spell and p.neg_blocks[g] == 3:  # the block of its weapon's state this turn
            v += f.neg_ws[m] * (p.vcount[unit * p.groups + tg] // 3)
    at = _begin_attack(p, f, unit, tg, v)
    if at < 0:
        return E_FIGHT_PLAN
    first, n = p.pair[2 * at], p.pair[2 * at + 1]
    if p.rows:
        err = _row_roll(p, f, t, at)
        if err:
            return err
        damage, injury, cost = f.dmg, f.inj, f.cost
    elif nb:  # the strikes with their dice logged and their rows out, then the strays (and the shock save)
        if n * SLOG_STRIKE > f.slog_cap:
            return E_FIGHT_PLAN
        err = _er_roll(p.plans, p.masks, f, first, n, True, True)
        if err:
            return err
        for s in range(n):
            damage += f.out[s * OUT_WIDTH + O_DAMAGE]
        err = _stray_shots(p, f, first, n, nb)
        if err:
            return err
        if shocking:
            _shock(p, f, t, first, n)
    elif shocking:  # the strikes with their rows out, then the shock save
        err = _er_roll(p.plans, p.masks, f, first, n, True, False)
        if err:
            return err
        for s in range(n):
            damage += f.out[s * OUT_WIDTH + O_DAMAGE]
            if _strays(p.row_info[2 * (first + s)], f.out[s * OUT_WIDTH + O_HITS]):
                draw_gen(_dice(f), BY_SLOTS)  # ER-17: a missed shot's stray slot, with no one next to t: empty
        _shock(p, f, t, first, n)
    else:
        err = _er_roll(p.plans, p.masks, f, first, n, False, False)
        if err:
            return err
        damage = f.dmg
    f.dealt[m] += damage + injury
    f.taken[t] += damage + injury
    if p.side_turns:
        _ct_attacked(p, f, m, t, spell, n, cost)
    if p.phased:
        return _os_attacked(p, f, m, t, spell, damage)
    if p.reactions and not spell and p.engages_u[unit] and not (p.negates and _strike_left_out(p, f, m)):
        # engaged in melee, both ways (ER-20 flee attacks, attacks of opportunity)
        err = _engage(f, m, t)
        if err:
            return err
    for i in range(nb):  # ER-17: a stray's damage lands on its bystander, in bystander order
        e = f.by[i]
        if f.by_dmg[i] and f.status[e] == ST_STANDING:
            f.dealt[m] += f.by_dmg[i]
            f.taken[e] += f.by_dmg[i]
            err = _harm(p, f, e, f.by_dmg[i], 0)
            if err:
                return err
    return _harm(p, f, t, damage, injury)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _member_round(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState],
                  r: cython.longlong) -> cython.int:
    """A round of one combatant per slot (Fight.play_round for ErRound and WwRound): ER-18
    initiative every round or WW-1's once for the fight (`_initiative`), casters with a use
    left cast; each standing member's turn: its start (`_turn_start`: ER-13, ER-15, ER
    Weapon Negation), WW-7 feints made instead of their strikes' attacks, its target, what
    comes before the attack (`_before_attack`: ER-23, thrown items, a lock or disarm), then
    one attack, or (WW-5) one per strike while the target stands. Returns an error code."""
    i: cython.longlong
    m: cython.longlong
    t: cython.longlong
    n: cython.longlong
    slot: cython.longlong
    g: cython.longlong
    u: cython.longlong
    first: cython.longlong
    count: cython.longlong
    skip: cython.longlong
    err: cython.int = 0
    # read once: the writes to f below could alias the plan's flags for the C compiler
    feints: cython.bint = p.feints
    extras: cython.bint = feints or p.shock or p.defends or p.throws or p.charges or p.negates
    if p.init_called:
        n = _called_initiative(p, f, r)
        if n < 0:
            return E_FIGHT_CALL
    else:
        n = _initiative(p, f)
        if n < 0:
            return E_FIGHT_TIES
    if p.spells:  # casters with a use left cast this round (the others never do: 0 since the fight began)
        for i in range(p.casters_n):
            m = p.casters[i]
            f.casting[m] = f.status[m] == ST_STANDING and f.spell[m] > 0
    for slot in range(n):
        if f.over:
            break
        m = f.order[slot]
        if f.status[m] != ST_STANDING:
            continue
        g = p.group[m]
        if extras:
            err = _turn_start(p, f, m)
            if err:
                return err
            if f.turn_done:
                continue
        if f.casting[m]:
            f.spell[m] -= 1
            t = _choose(p, f, m)
            if t >= 0:
                err = _attack(p, f, m, t, p.units[3 * g + 2], True, r)
        elif p.units[3 * g + 1]:
            first, count, skip = p.units[3 * g], p.units[3 * g + 1], 0
            if extras and feints:  # WW-7 (WwRound.turn): a strike to feint feints, no attack
                skip = p.feint_units[g] & ~f.feinted[m]
                f.feinted[m] |= skip
                if skip == (cython.cast(cython.longlong, 1) << count) - 1:
                    continue  # every strike feints this turn: no attack, no target
            t = _choose(p, f, m)
            if extras and t >= 0:
                err = _before_attack(p, f, m, t)
                if err:
                    return err
                if f.turn_done:
                    continue
            # one attack, or (WW-5) one per strike while the target stands
            for u in range(first, first + count):
                if skip and (skip >> (u - first)) & 1:
                    continue
                if t < 0 or f.status[t] != ST_STANDING:
                    break
                err = _attack(p, f, m, t, u, False, r)
                if err:
                    break
                if extras and feints:
                    f.feinted[m] &= ~(cython.cast(cython.longlong, 1) << (u - first))  # WW-7: the feint's attack is made
        if err:
            return err
    return 0


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _fight(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState],
           fight_seed: cython.ulonglong) -> cython.longlong:
    """One whole fight (Fight + simulate.play_batch's loop): every member afresh, then
    round after round (the round procedure the plan's round says: side turns, phases, or
    one combatant per slot) until one side is left or max_rounds. Returns its rounds, or
    minus an error code."""
    i: cython.longlong
    r: cython.longlong = 0
    err: cython.int
    f.sides_left = 0
    for i in range(p.sides):
        f.side_standing[i] = 0
    # Every member afresh, in bulk copies (a horde's fight is short next to its 300 members;
    # ST_STANDING, PARRY_NONE and NEG_WEAPON_AS_USUAL are 0)
    n: cython.Py_ssize_t = p.members
    if cython.compiled:
        memcpy(f.hp, p.hp, n * 8)
        memset(f.status, 0, n * 4)
        memcpy(f.spell, p.spell_uses, n * 8)
        memset(f.dealt, 0, n * 8)
        memset(f.taken, 0, n * 8)
        memcpy(f.near_at, p.near_off, n * 8)
        memcpy(f.focus_at, p.focus_off, n * 8)
        memcpy(f.injury, p.injury, n * 8)
        memset(f.casting, 0, n * 4)
        if p.feints:
            memset(f.feinted, 0, n * 8)
        if p.defends:
            memset(f.defending, 0, n * 4)
        if p.shock:
            memset(f.incap, 0, n * 8)
        if p.throws:
            memset(f.thrown, 0, n * 8)
        if p.charges:
            memset(f.charged, 0, n * 4)
        if p.negates:
            memset(f.neg_free, 0, n * 8)
            memset(f.neg_disarmed, 0, n * 4)
            memset(f.neg_ws, 0, n * 4)
    else:
        f.hp[:n], f.spell[:n], f.injury[:n] = p.hp[:n], p.spell_uses[:n], p.injury[:n]
        f.near_at[:n], f.focus_at[:n] = p.near_off[:n], p.focus_off[:n]
        for name in ("status", "dealt", "taken", "casting", "feinted", "defending", "incap", "thrown", "charged",
                     "neg_free", "neg_disarmed", "neg_ws"):
            getattr(f, name)[:n] = [0] * n
    for i in range(p.members):
        f.side_standing[p.side[i]] += 1
    if p.side_turns:
        _ct_start(p, f)
    for i in range(p.sides):
        if f.side_standing[i]:
            f.sides_left += 1
    f.over = False
    f.winner = -1
    f.once_n = 0
    f.epoch += p.max_rounds + 2  # a new fight: no one attacked anyone the round before its first
    if p.negates:
        for i in range(p.members):
            f.neg_hold[i] = f.neg_pin[i] = -1
    if p.any_weakest:
        _wk_build(p, f)
    if p.any_walk:
        for i in range(p.members + 1):
            f.next_up[i] = i
            f.next_down[i] = i
    if p.any_random:
        for i in range(p.sides * p.fw_n):
            f.fw[i] = p.fw_init[i]
        for i in range(p.sides * p.fw_words):
            f.eb[i] = p.eb_init[i]
    if p.phased:
        _os_start(p, f)
    while not f.over:
        r += 1
        f.round_seed = _chunk_seed(fight_seed, r)
        f.k = 0
        f.now = f.epoch + r
        if p.rows or r == 1:  # WW-5: actions held in reserve, for this round (spent on the strike-row kernel only)
            for i in range(p.members):
                f.reserve[i] = p.reserve[i]
        if p.phased:
            err = _os_round(p, f, r)
        elif p.side_turns:
            err = _ct_round(p, f, r)
        else:
            err = _member_round(p, f, r)
        if err:
            return -err
        if not f.over and r >= p.max_rounds:
            f.over = True  # max_rounds: a draw
    return r


#: The rulesets' round steps the shared steps call: compiled, the round procedure files
#: fights.pyx includes after this one; as Python, bound here by `fracas.drive.pyloop.bind`
#: from each ruleset's own `loop.py`.
if not cython.compiled:
    #: fights.pyx's: a KeyboardInterrupt raised in an initiative call of the compiled loop
    _STOPPED: list[BaseException]
    ROUND_STEPS = ("_ct_attacked", "_ct_round", "_ct_start", "_ct_variant", "_before_attack", "_neg_busy", "_shock",
                   "_strike_left_out", "_stray_shots", "_strays", "_turn_start", "_os_attacked", "_os_round",
                   "_os_start")
    _ct_attacked: Any
    _ct_round: Any
    _ct_start: Any
    _ct_variant: Any
    _before_attack: Any
    _neg_busy: Any
    _shock: Any
    _strike_left_out: Any
    _stray_shots: Any
    _strays: Any
    _turn_start: Any
    _os_attacked: Any
    _os_round: Any
    _os_start: Any
