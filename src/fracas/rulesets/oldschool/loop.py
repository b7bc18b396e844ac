"""The old-school round of the compiled fight loop (OS-1 to OS-5): `OsRound`'s rules, played
on the loop's flat state.

A round procedure file (`fracas._pure.rules` says what it may hold): Cython's "pure Python
mode", included by `cython_core/fights.pyx`, which compiles it as inline C over the loop's
`FightPlan` and `FightState` (`p`, `f`: every table indexed, no pointer arithmetic) and the
loop's own steps (`_stream`, `_choose`, `_attack`, `_decide`, `_moved`, `_fallen`). What a
round changes: flight and surrender declared before initiative (OS-4), side initiative
(OS-1), a caster harmed or failing a saving throw before its slot loses the spell (OS-5),
the missile, magic and melee phases with one action each (OS-2; a slot of tied sides lands
a phase's damage at its end), morale at the end of the round (OS-4, a 2d6 per unit and
trigger). `fracas.rulesets.oldschool.fight.OsRound` plays the same rules with results
logged; the two loops' parity tests (tests/fights/test_fast_fights.py) play them side by
side.
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

if not cython.compiled:  # compiled, these are the loop's own (cython_core/fights.pyx)
    from fracas._pure.draws import draw_gen
    from fracas.rulesets.loop import (E_FIGHT_TIES, ST_DOWN, ST_FLED, ST_STANDING, _attack, _choose, _decide, _dice,
                                   _fallen, _moved, _stream)
    from fracas.rulesets.loopstate import FightPlan, FightState
    from fracas.rulesets.oldschool.morale import (SURRENDERS, STAYS, TRIGGERS, breaks, declaration,
                                                  fights_to_death, triggers)
    from fracas.rulesets.oldschool.saving import forces, saves
    from fracas.rulesets.rolloffs import side_order


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _os_note(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], u: cython.longlong,
             harmed: cython.longlong) -> cython.void:
    """Fight.note with OsRound.morale_triggers (OS-4: morale.triggers): the triggers a loss
    of unit u calls for, each once a fight, noted for the end of the round: the first death,
    half the unit defeated, a lone creature first harmed and at 1/4 hp or less."""
    start: cython.longlong
    standing: cython.longlong
    lone: cython.longlong
    code: cython.longlong
    at: cython.longlong
    fire: cython.int
    if not p.has_morale:
        return
    start, standing = p.unit_start[u], f.u_standing[u]
    lone = p.unit_first[u]
    fire = triggers(f.u_killed[u], start - standing, start, standing, lone == harmed, f.hp[lone], p.hp[lone])
    at = u * (TRIGGERS + 1)  # the unit's noted triggers: a count, then their codes
    for code in range(TRIGGERS):
        if (fire >> code) & 1 and not (f.u_fired[u] >> code) & 1:
            f.u_fired[u] |= cython.cast(cython.longlong, 1) << code
            f.u_noted[at + 1 + f.u_noted[at]] = code
            f.u_noted[at] += 1


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _os_out(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], m: cython.longlong,
            status: cython.int) -> cython.void:
    """A standing combatant goes down or leaves: the counts sides, groups and units keep."""
    f.status[m] = status
    _fallen(p, f, m)
    f.side_standing[p.side[m]] -= 1
    if f.side_standing[p.side[m]] == 0:
        f.sides_left -= 1
    f.g_standing[p.group[m]] -= 1
    f.u_standing[p.member_unit[m]] -= 1
    if status == ST_DOWN:
        f.u_killed[p.member_unit[m]] += 1


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _os_leave(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], m: cython.longlong) -> cython.void:
    """Fight._leave (OS-4): a combatant that declared flight leaves as its side moves."""
    _os_out(p, f, m, ST_FLED)
    f.leaving[m] = 0
    _os_note(p, f, p.member_unit[m], -1)
    _decide(p, f)


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _os_harm(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], t: cython.longlong,
             damage: cython.longlong) -> cython.void:
    """Fight._harm where flight is declared (OS): down at 0 hp; the loss's morale triggers."""
    if damage <= 0:
        return
    f.hurt[t] = 1
    f.hp[t] = f.hp[t] - damage if f.hp[t] > damage else 0
    if f.hp[t] == 0:
        _os_out(p, f, t, ST_DOWN)
    else:
        _moved(p, f, t)
    _os_note(p, f, p.member_unit[t], t)
    _decide(p, f)


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _os_start(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState]) -> cython.void:
    """A fight's start (OS-4): every group's morale afresh, each unit's counts."""
    g: cython.longlong
    u: cython.longlong
    i: cython.longlong
    for g in range(p.groups):
        f.g_standing[g] = 0
        f.g_succ[g] = 0
        f.g_broken[g] = 0
        f.g_death[g] = fights_to_death(p.morale[g], 0)
    for u in range(p.units_n):
        f.u_standing[u] = 0
        f.u_killed[u] = 0
        f.u_fired[u] = 0
    for i in range(p.members):
        f.g_standing[p.group[i]] += 1
        f.u_standing[p.member_unit[i]] += 1


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _os_attacked(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], m: cython.longlong,
                 t: cython.longlong, spell: cython.bint, damage: cython.longlong) -> cython.int:
    """What m's attack at t leaves (OsRound.attacked): OS-5, an attack with a `save_or` forces
    t's saving throw, hit or miss, the next random event, and a failure costs a declared
    spell; its damage lands now, or at the phase's end in a slot of several sides (OS-1)."""
    sv: cython.longlong = 3 * p.group[m]
    if p.os_saves and p.os_save_or[sv] >= 0 and forces(cython.cast(cython.int, p.os_save_or[sv + 1]), spell) and (
            f.status[t] == ST_STANDING):
        _stream(f)
        if not saves(draw_gen(_dice(f), 20), p.os_save_or[sv + 2], p.os_save_num[p.os_save_or[sv] * p.groups + p.group[t]]):
            f.os_failed[t] = 1
    if f.defer:
        f.pend_t[f.pend_n] = t
        f.pend_d[f.pend_n] = damage
        f.pend_n += 1
    else:
        _os_harm(p, f, t, damage)
    return 0


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def _os_checks(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], g: cython.longlong,
               u: cython.longlong) -> cython.bint:
    """Group g checks unit u's morale (Fight._morale_step): it has a Morale, has not broken,
    does not fight to the death, and has a member standing."""
    return (p.group_unit[g] == u and p.morale[g] >= 0 and not f.g_broken[g] and not f.g_death[g]
            and f.g_standing[g] > 0)


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _os_initiative(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState],
                   r: cython.longlong) -> cython.longlong:
    """OldSchool.fight_initiative (OS-1): the present sides (sides surprised lose round 1)
    in `rolloffs.side_order`: a d6 per side that does not wait, in side order, highest
    first, ties re-rolled side by side or acting together, waiting sides last; one side
    present rolls nothing. Fills f.order, f.os_slot_end and f.os_together; returns the
    slots, or -1 when a tie stands after the roll-off limit."""
    s: cython.longlong
    i: cython.longlong
    j: cython.longlong
    n: cython.longlong = 0
    slots: cython.longlong = 0
    members: cython.longlong = 0
    _stream(f)
    for s in range(p.sides):
        f.os_slot_of[s] = -1
        if f.side_standing[s] and not (r == 1 and p.os_side[s] & 1):
            f.os_present[n] = s
            f.os_waits[n] = (p.os_side[s] & 2) != 0
            n += 1
    if n < 2:  # one side left to act (the rest surprised): nothing to roll
        for i in range(n):
            f.os_slot_of[f.os_present[i]] = slots
            f.os_together[slots] = 0
            slots += 1
    else:
        slots = side_order(_dice(f), n, f.os_waits, p.os_ties == 1, f.os_faces, f.os_tied, f.os_ranked, f.os_slot_in,
                           f.os_tog, cython.NULL)
        if slots < 0:
            return -1
        for i in range(n):
            f.os_slot_of[f.os_present[i]] = f.os_slot_in[i]
        for j in range(slots):
            f.os_together[j] = f.os_tog[j]
    for j in range(slots):  # each slot's standing members in scenario order
        for i in range(p.members):
            if f.status[i] == ST_STANDING and f.os_slot_of[p.side[i]] == j:
                f.order[members] = i
                members += 1
        f.os_slot_end[j] = members
    return slots


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def _os_round(p: cython.pointer[cython.const[FightPlan]], f: cython.pointer[FightState], r: cython.longlong) -> cython.int:
    """An old-school round (Fight.play_round): flight and surrender declared (OS-4), side
    initiative (OS-1), slot by slot the declared leave, casters harmed before their slot
    lose the spell (OS-5), then the missile, magic and melee phases (OS-2), each combatant
    its one action or its spell; morale at the end of the round (OS-4). Returns an error
    code (0: none)."""
    m: cython.longlong
    g: cython.longlong
    u: cython.longlong
    slots: cython.longlong
    slot: cython.longlong
    a: cython.longlong = 0
    b: cython.longlong
    j: cython.longlong
    t: cython.longlong
    phase: cython.longlong
    unit: cython.longlong
    c: cython.longlong
    i: cython.longlong
    at: cython.longlong
    total: cython.longlong
    said: cython.int
    together: cython.bint
    checks: cython.bint
    err: cython.int = 0
    for u in range(p.units_n):
        f.u_noted[u * (TRIGGERS + 1)] = 0
    for m in range(p.members):  # declarations, before initiative
        f.hurt[m] = 0
        f.os_failed[m] = 0
        f.leaving[m] = 0
        if f.status[m] != ST_STANDING:
            continue
        g = p.group[m]
        said = declaration(f.g_broken[g] != 0, p.os_flee[g], f.hp[m], p.flee_at[m])
        if said == SURRENDERS:
            _os_out(p, f, m, ST_FLED)  # it surrenders: out of the fight
            _os_note(p, f, p.member_unit[m], -1)
            _decide(p, f)
        elif said != STAYS:
            f.leaving[m] = 1
    if f.over:
        return 0
    slots = _os_initiative(p, f, r)
    if slots < 0:
        return E_FIGHT_TIES
    for m in range(p.members):
        f.casting[m] = 0
    for j in range(f.os_slot_end[slots - 1] if slots else 0):  # casters that act this round
        m = f.order[j]
        f.casting[m] = f.spell[m] > 0 and not f.leaving[m]
    for slot in range(slots):
        if f.over:
            break
        b = f.os_slot_end[slot]
        together = f.os_together[slot]
        for j in range(a, b):  # those who declared flight leave
            m = f.order[j]
            if f.leaving[m] and f.status[m] == ST_STANDING:
                _os_leave(p, f, m)
                if f.over:
                    return 0
        # OS-5: a caster harmed, or that failed a saving throw, this round before its slot loses the spell
        for j in range(a, b):
            m = f.order[j]
            f.os_able[m] = f.status[m] == ST_STANDING
            if f.casting[m] and (f.hurt[m] or f.os_failed[m]) and f.status[m] == ST_STANDING:
                f.casting[m] = 0
                f.spell[m] -= 1
                f.os_able[m] = 0
        for phase in range(3):
            f.pend_n = 0
            f.defer = together
            for j in range(a, b):
                m = f.order[j]
                if not f.os_able[m]:
                    continue
                if f.over:
                    f.defer = False
                    return 0
                if f.status[m] != ST_STANDING and not together:
                    continue
                g = p.group[m]
                if f.casting[m]:
                    if phase != 1:
                        continue
                    f.spell[m] -= 1
                    unit = p.units[3 * g + 2]
                elif phase == p.os_phase[g] and p.units[3 * g + 1]:
                    unit = p.units[3 * g]
                else:
                    continue
                t = _choose(p, f, m)
                if t < 0:
                    continue
                err = _attack(p, f, m, t, unit, f.casting[m] != 0, r)
                if err:
                    f.defer = False
                    return err
            f.defer = False
            for i in range(f.pend_n):  # simultaneous: the phase's damage lands now
                if f.status[f.pend_t[i]] == ST_STANDING:
                    _os_harm(p, f, f.pend_t[i], f.pend_d[i])
        a = b
    for m in range(p.members):  # declared flight but had no slot (surprised): gone now
        if f.status[m] == ST_STANDING and f.leaving[m] and not f.over:
            _os_leave(p, f, m)
    if f.over or not p.has_morale:
        return 0
    for u in range(p.units_n):  # OS-4: one 2d6 per unit and trigger, read by each of its groups
        at = u * (TRIGGERS + 1)
        for c in range(f.u_noted[at]):
            checks = False
            for g in range(p.groups):
                if _os_checks(p, f, g, u):
                    checks = True
            if not checks:
                continue
            _stream(f)
            total = draw_gen(_dice(f), 6)
            total += draw_gen(_dice(f), 6)
            for g in range(p.groups):
                if _os_checks(p, f, g, u):
                    f.g_broken[g] = breaks(total, p.morale[g], p.morale_mod[g])
                    f.g_succ[g] += not f.g_broken[g]
                    f.g_death[g] = fights_to_death(p.morale[g], f.g_succ[g])
    return 0


if not cython.compiled:  # (as Python only: fastfight lays plans out in Python)
    def neutral_tables(sides: int, groups: int, members: int) -> dict[str, object]:
        """This round's plan tables as a fight of another round has them (the one loop takes
        every round's tables: `pyloop.neutral_tables` gathers each ruleset's): no phases, no
        side initiative, no flight declared, no saving throws."""
        from array import array

        return {"phased": False, "os_ties": 0, "os_side": array("q", [0] * sides),
                "os_phase": array("q", [-1] * groups), "os_flee": array("q", [0] * groups),
                "os_save_or": array("q", [-1, 0, 0] * groups), "os_save_num": array("q")}
