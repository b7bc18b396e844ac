"""Cartyrion's turn decisions, written once for both fight loops (CT-5, CT-6).

A shared rule file (`fracas._pure.rules` says what it may hold): the compiled fight loop
includes it as inline C, and the Python round (`fight.py` beside it) imports it as Python.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the stand-in is what the type checker reads (Cython's module is untyped)
    from fracas._pure import cython
else:
    try:
        import cython
    except ImportError:  # Cython is a build dependency only: its names as plain Python
        from fracas._pure import cython

#: CT-6: what a combatant parries with this turn.
PARRY_NONE = cython.declare(cython.const[cython.int], 0)
PARRY_WEAPON = cython.declare(cython.const[cython.int], 1)
PARRY_SHIELD = cython.declare(cython.const[cython.int], 2)
#: CT-5: the tactic's moment for a power attack (`tactic.power`).
POWER_NEVER = cython.declare(cython.const[cython.int], 0)
POWER_FIRST = cython.declare(cython.const[cython.int], 1)
POWER_HURT = cython.declare(cython.const[cython.int], 2)
#: A `parry_at` that every Stamina is at or below (a tactic that parries on every turn).
PARRY_ALWAYS = cython.declare(cython.const[cython.longlong], 1 << 62)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def parry_now(parry: cython.int, parry_at: cython.longlong, stamina: cython.longlong, weapon_left: cython.longlong,
              weapon_broken: cython.bint, shield_left: cython.longlong, casting: cython.bint) -> cython.int:
    """CT-6 at the start of a turn: what the combatant parries with (PARRY_*), making no
    attack this turn. Its tactic's `parry` (PARRY_NONE: never), from `parry_at` Stamina
    down (PARRY_ALWAYS: always); not while it casts a spell this round; a weapon while it
    is whole and has explosions left, a shield while it has points left."""
    if casting or parry == PARRY_NONE or stamina > parry_at:
        return PARRY_NONE
    if parry == PARRY_WEAPON:
        return PARRY_WEAPON if weapon_left > 0 and not weapon_broken else PARRY_NONE
    return PARRY_SHIELD if shield_left > 0 else PARRY_NONE


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def power_now(power: cython.int, turns: cython.longlong, stamina: cython.longlong,
              stamina_max: cython.longlong) -> cython.bint:
    """CT-5: the tactic's moment for a power attack: on its first turn (POWER_FIRST), or
    once its Stamina is at half or less (POWER_HURT)."""
    return (power == POWER_FIRST and turns == 1) or (power == POWER_HURT and 2 * stamina <= stamina_max)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def weapon_breaks(powered: cython.bint, sneak: cython.bint, marked_power: cython.bint) -> cython.bint:
    """CT-5: a strike's weapon breaks (unusable for the rest of the fight) when the strike
    is a power attack: the tactic's power attack (which a sneak strike never is), or a
    strike the scenario marks `power`."""
    return (powered and not sneak) or marked_power


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def parry_after(parrying: cython.int, left: cython.longlong) -> cython.int:
    """CT-6 after an attack at a parrying combatant, `left` being what its parry has left
    (explosions its weapon takes, or its shield's points): the parry goes on while anything
    is left; at 0 the weapon has shattered or the shield is destroyed, and the parry ends
    (PARRY_NONE), for good."""
    return parrying if left > 0 else PARRY_NONE


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def shatters(parrying: cython.int, left: cython.longlong) -> cython.bint:
    """CT-6: a parrying weapon with nothing left has shattered: from then on it is a broken
    weapon (CT-5), unusable for the rest of the fight."""
    return parrying == PARRY_WEAPON and left <= 0
