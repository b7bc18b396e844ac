"""The Cartyrion round of the compiled fight loop (CT-1, CT-4 to CT-7): `CtRound`'s rules,
played on the loop's flat state.

A round procedure file (`fracas._pure.rules` says what it may hold), included by
`cython_core/fights.pyx` and compiled as inline C over the loop's `FightPlan` and
`FightState`. What a round changes: one d6 for side initiative and surprise, a slot per
side, the members that cannot be surprised in a last slot (CT-1); at a turn's start a
parry instead of an attack (CT-6), no attack once every weapon is broken (CT-5); an
attack's variant by the weapons left, a power attack, no sneak attack at a target
attacked the round before (CT-7), the target's parry; after it, a ranged attack's
stamina, broken weapons and what the parry's weapon or shield has left (CT-4 to CT-6).
`fracas.rulesets.ct.fight.CtRound` plays the same rules with results logged; the two
loops' parity tests (tests/fights/test_fast_fights.py) play them side by side.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the stand-in is what the type checker reads (Cython's module is untyped)
    from fracas._pure import cython
else:
    try:
        import cython
    except ImportError:  # Cython is a build dependency only: its names as plain Python
        from fracas._pure import cython
    if not cython.compiled:  # run as Python (fracas.drive.pyloop): always the stand-in, whose NULL is None
        from fracas._pure import cython

#: A group's fields in FightPlan.ct_group (CTG each, fastfight lays them out): its tactic's
#: parry, parry_at, power; whether its strikes can break, the situation dimensions (power,
#: sneak), its strikes' sneak bits, its strikes, whether it cannot be surprised (CT-1).
CTG = cython.declare(cython.const[cython.int], 9)
CTG_PARRY = cython.declare(cython.const[cython.int], 0)
CTG_PARRY_AT = cython.declare(cython.const[cython.int], 1)
CTG_POWER = cython.declare(cython.const[cython.int], 2)
CTG_BREAKS = cython.declare(cython.const[cython.int], 3)
CTG_POWER_DIM = cython.declare(cython.const[cython.int], 4)
CTG_SNEAK_DIM = cython.declare(cython.const[cython.int], 5)
CTG_SNEAK_BITS = cython.declare(cython.const[cython.int], 6)
CTG_STRIKES = cython.declare(cython.const[cython.int], 7)
CTG_IMMUNE = cython.declare(cython.const[cython.int], 8)

if not cython.compiled:  # compiled, these are the loop's own (cython_core/fights.pyx)
    from fracas._layout import XOUT_WIDTH, Y_PARRY_LEFT
    from fracas._pure.draws import draw_gen
    from fracas.rulesets.loop import (ST_STANDING, _attack, _attacked_prior, _choose, _dice, _moved, _note_target,
                                   _stream)
    from fracas.rulesets.loopstate import FightPlan, FightState
    from fracas.rulesets.ct.turn import (PARRY_NONE, PARRY_SHIELD, PARRY_WEAPON, parry_after, parry_now, power_now,
                                         shatters, weapon_breaks)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _ct_start(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState]) -> cython.void:
    """A fight's start: no weapon broken, no parry, each weapon and shield whole (CT-5, CT-6),
    no turn taken."""
    i: cython.longlong
    for i in range(p.members):
        f.broken[i] = 0
        f.parrying[i] = PARRY_NONE
        f.weapon_left[i] = p.weapon0[i]
        f.shield_left[i] = p.shield0[i]
        f.turns[i] = 0


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _ct_initiative(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState],
                   r: cython.longlong) -> cython.longlong:
    """CtRound.initiative (CT-1): one d6 for the sides; a slot per side that is not
    surprised, its standing members in scenario order (f.slot_end); in a round its side is
    surprised, a member that cannot be surprised ("these exceptions are individual")
    takes its turn in a last slot, after the side that surprised it. Returns the slots."""
    roll: cython.longlong
    at: cython.longlong
    first: cython.longlong
    surprised: cython.longlong
    side: cython.longlong
    i: cython.longlong
    turn: cython.longlong
    awake: cython.longlong
    n: cython.longlong = 0
    slots: cython.longlong = 0
    _stream(f)
    roll = draw_gen(_dice(f), 6)
    at = ((0 if r == 1 else 1) * 6 + roll - 1) * 2
    first, surprised = p.ct_init[at], p.ct_init[at + 1]
    for turn in range(2):
        side = first if turn == 0 else 1 - first
        if side == surprised:
            continue
        for i in range(p.members):
            if p.side[i] == side and f.status[i] == ST_STANDING:
                f.order[n] = i
                n += 1
        f.slot_end[slots] = n
        slots += 1
    if surprised >= 0:
        awake = n
        for i in range(p.members):
            if (p.side[i] == surprised and f.status[i] == ST_STANDING
                    and p.ct_group[p.group[i] * CTG + CTG_IMMUNE]):
                f.order[n] = i
                n += 1
        if n > awake:
            f.slot_end[slots] = n
            slots += 1
    return slots


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _ct_turn(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState],
             m: cython.longlong) -> cython.void:
    """CtRound.turn: a parry ends; its tactic may parry this turn instead of attacking
    (CT-6: parry_now); a combatant whose weapons are all broken makes no attack (CT-5)."""
    at: cython.longlong = p.group[m] * CTG
    every: cython.longlong = (cython.cast(cython.longlong, 1) << p.ct_group[at + CTG_STRIKES]) - 1
    f.turns[m] += 1
    f.acts[m] = p.ct_group[at + CTG_STRIKES] > 0 and (f.broken[m] & every) != every
    f.parrying[m] = parry_now(cython.cast(cython.int, p.ct_group[at + CTG_PARRY]), p.ct_group[at + CTG_PARRY_AT],
                              f.hp[m], f.weapon_left[m], f.broken[m] & 1, f.shield_left[m], f.casting[m] != 0)
    if f.parrying[m] != PARRY_NONE:
        f.acts[m] = 0


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _ct_round(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState],
              r: cython.longlong) -> cython.int:
    """A Cartyrion round (Fight.play_round): side initiative, then side by side each
    standing member's turn (all of the slot's turns start first), its attack or spell.
    Returns an error code (0: none)."""
    slots: cython.longlong
    slot: cython.longlong
    a: cython.longlong = 0
    b: cython.longlong
    j: cython.longlong
    m: cython.longlong
    t: cython.longlong
    g: cython.longlong
    err: cython.int = 0
    slots = _ct_initiative(p, f, r)
    for m in range(p.members):
        f.casting[m] = 0
    for j in range(f.slot_end[slots - 1] if slots else 0):  # casters that act this round
        m = f.order[j]
        f.casting[m] = f.spell[m] > 0
    for slot in range(slots):
        if f.over:
            break
        b = f.slot_end[slot]
        for j in range(a, b):
            if f.status[f.order[j]] == ST_STANDING:
                _ct_turn(p, f, f.order[j])
        for j in range(a, b):
            if f.over:
                break
            m = f.order[j]
            if f.status[m] != ST_STANDING:
                continue
            g = p.group[m]
            if f.casting[m]:
                f.spell[m] -= 1
                t = _choose(p, f, m)
                if t >= 0:
                    err = _attack(p, f, m, t, p.units[3 * g + 2], True, r)
            elif f.acts[m]:
                t = _choose(p, f, m)
                if t >= 0:
                    err = _attack(p, f, m, t, p.units[3 * g], False, r)
            if err:
                return err
        a = b
    return 0


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _ct_variant(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], m: cython.longlong,
                t: cython.longlong) -> cython.longlong:
    """The variant of m's attack at t (CtRound.situation): the weapons m has left (CT-5), a
    power attack at its tactic's moment (CT-5), no sneak attack at a target m attacked the
    round before (CT-7), the parry t makes with its weapon or shield (CT-6) and what that
    has left (the weapons broken and the power are kept for `_ct_attacked`). Returns -1 when the parry's state lies outside the plan's variants."""
    at: cython.longlong = p.group[m] * CTG
    tg: cython.longlong = p.group[t]
    broken: cython.longlong = f.broken[m] if p.ct_group[at + CTG_BREAKS] else 0
    power: cython.bint = p.ct_group[at + CTG_POWER_DIM] > 1 and power_now(
        cython.cast(cython.int, p.ct_group[at + CTG_POWER]), f.turns[m], f.hp[m], p.hp[m])
    v: cython.longlong = broken * p.ct_group[at + CTG_POWER_DIM] + power
    f.ct_broken, f.ct_power = broken, power  # for _ct_attacked
    w: cython.longlong = p.parry_dims[2 * tg]
    sh: cython.longlong = p.parry_dims[2 * tg + 1]
    v = v * p.ct_group[at + CTG_SNEAK_DIM] + (p.ct_group[at + CTG_SNEAK_DIM] > 1 and _attacked_prior(f, m, t))
    v = v * (1 + w + sh)
    if f.parrying[t] == PARRY_WEAPON:
        if not 1 <= f.weapon_left[t] <= w:
            return -1
        v += f.weapon_left[t]
    elif f.parrying[t] == PARRY_SHIELD:
        if not 1 <= f.shield_left[t] <= sh:
            return -1
        v += w + f.shield_left[t]
    return v


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _ct_attacked(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], m: cython.longlong,
                 t: cython.longlong, spell: cython.bint, n: cython.longlong, cost: cython.longlong) -> cython.void:
    """What m's attack at t, its n strike rows rolled into f.out, leaves (CtRound.attacked):
    a ranged attack's d4 stamina (CT-4, never below 0), its target noted (CT-7); not a
    spell: a power attack breaks the weapon, a marked power strike too (CT-5); the parry's
    weapon or shield keeps what the kernel left of it, a weapon shattering at 0 (CT-6); the
    weapons broken and the power being those its variant was chosen by (`_ct_variant`)."""
    at: cython.longlong = p.group[m] * CTG
    broken: cython.longlong = f.ct_broken
    power: cython.bint = f.ct_power
    s: cython.longlong
    left: cython.longlong
    if cost:
        f.hp[m] = f.hp[m] - cost if f.hp[m] > cost else 0
        _moved(p, f, m)
    _note_target(f, m, t)
    if spell:
        return
    for s in range(p.ct_group[at + CTG_STRIKES]):
        if not (broken >> s) & 1 and weapon_breaks(power, (p.ct_group[at + CTG_SNEAK_BITS] >> s) & 1,
                                                   (p.own_power[p.group[m]] >> s) & 1):
            f.broken[m] |= cython.cast(cython.longlong, 1) << s
    if f.parrying[t]:
        left = f.out[(n - 1) * XOUT_WIDTH + Y_PARRY_LEFT]
        if f.parrying[t] == PARRY_WEAPON:
            f.weapon_left[t] = left
        else:
            f.shield_left[t] = left
        if shatters(f.parrying[t], left):
            f.broken[t] |= 1
        f.parrying[t] = parry_after(f.parrying[t], left)


if not cython.compiled:  # (as Python only: fastfight lays plans out in Python)
    def neutral_tables(sides: int, groups: int, members: int) -> dict[str, object]:
        """This round's plan tables as a fight of another round has them (the one loop takes
        every round's tables: `pyloop.neutral_tables` gathers each ruleset's): no side turns,
        no parrying weapons or shields, no power strikes, no CT-1 side initiative;
        `ct_group` is set only where this round plays (`CtRound.compiled_tables`)."""
        from array import array

        return {"side_turns": False, "weapon0": array("q", [0] * members), "shield0": array("q", [0] * members),
                "ct_group": array("q"), "own_power": array("q", [0] * groups),
                "parry_dims": array("q", [0] * 2 * groups), "ct_init": array("q", [0, -1] * 12)}
