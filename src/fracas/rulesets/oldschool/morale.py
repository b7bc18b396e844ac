"""Old-school morale (OS-4), written once for the morale check, both fight loops and the
check's own request kind.

A shared rule file (`fracas._pure.rules` says what it may hold): the compiled fight loop
includes it as inline C, and the Python round (`fight.py`) and the `morale` request kind
import it as Python.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the stand-in is what the type checker reads (Cython's module is untyped)
    from fracas._pure import cython
else:
    try:
        import cython
    except ImportError:  # Cython is a build dependency only: its names as plain Python
        from fracas._pure import cython

#: OS-4's triggers of a Morale Check, by the bit `triggers` sets for each.
FIRST_DEATH = cython.declare(cython.const[cython.int], 0)
HALF_DEFEATED = cython.declare(cython.const[cython.int], 1)
LONE_HARMED = cython.declare(cython.const[cython.int], 2)
LONE_QUARTER = cython.declare(cython.const[cython.int], 3)
#: The triggers (bits 0 .. TRIGGERS - 1 of `triggers`).
TRIGGERS = cython.declare(cython.const[cython.int], 4)
#: A Morale that never checks: the group fights to the death.
FEARLESS = cython.declare(cython.const[cython.int], 12)
#: Checks passed after which a group fights to the death.
STEADY = cython.declare(cython.const[cython.int], 2)
#: A group's tactic `flee` once its morale has broken (OS-4): fights on, flees, surrenders.
FLEE_NEVER = cython.declare(cython.const[cython.int], 0)
FLEE_BROKEN = cython.declare(cython.const[cython.int], 1)
FLEE_SURRENDER = cython.declare(cython.const[cython.int], 2)
#: What a combatant declares before initiative (`declaration`).
STAYS = cython.declare(cython.const[cython.int], 0)
SURRENDERS = cython.declare(cython.const[cython.int], 1)
FLEES_BROKEN = cython.declare(cython.const[cython.int], 2)
FLEES_HURT = cython.declare(cython.const[cython.int], 3)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def triggers(killed: cython.longlong, defeated: cython.longlong, start: cython.longlong, standing: cython.longlong,
             lone_harmed: cython.bint, lone_hp: cython.longlong, lone_hp_max: cython.longlong) -> cython.int:
    """OS-4 "When to check Morale: The first time a combatant on the same side is killed,
    and when half of the side has been killed or defeated. For a creature encountered
    alone, a Morale Check should be made when it is first harmed and when it is reduced
    to 1/4 or less Hit Points." The triggers that hold for a side (or morale group) that
    started with `start` members, as bits (1 << FIRST_DEATH, ...): `killed` of them down,
    `defeated` down or fled, `standing` still in the fight; a side of one is a creature
    alone, its `lone_hp` of `lone_hp_max` and whether it has been harmed."""
    fired: cython.int = 0
    if killed >= 1:
        fired |= 1 << FIRST_DEATH
    if 2 * defeated >= start:
        fired |= 1 << HALF_DEFEATED
    if start == 1 and standing > 0:
        if lone_harmed:
            fired |= 1 << LONE_HARMED
        if 4 * lone_hp <= lone_hp_max:
            fired |= 1 << LONE_QUARTER
    return fired


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def breaks(total: cython.longlong, morale: cython.longlong, modifier: cython.longlong) -> cython.bint:
    """OS-4: a Morale Check's 2d6 above Morale + modifier breaks the group."""
    return total > morale + modifier


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def fights_to_death(morale: cython.longlong, successes: cython.longlong) -> cython.bint:
    """OS-4: a group of Morale 12, or one that has passed two checks, checks no more."""
    return morale == FEARLESS or successes >= STEADY


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def declaration(broken: cython.bint, flee: cython.int, hp: cython.longlong, flee_at: cython.longlong) -> cython.int:
    """OS-4 before initiative: "they try to surrender or flee in the next Round", and "the
    intention to flee from melee this Round must be declared". A standing combatant of a
    group whose morale broke surrenders (SURRENDERS: out of the fight at once) or declares
    flight (FLEES_BROKEN) as its tactic's `flee` says; otherwise it declares flight at or
    below its `flee_at` hit points (FLEES_HURT; a `flee_at` below 0: never); else it STAYS."""
    if broken and flee == FLEE_SURRENDER:
        return SURRENDERS
    if broken and flee == FLEE_BROKEN:
        return FLEES_BROKEN
    if hp <= flee_at:
        return FLEES_HURT
    return STAYS
