"""Damage against a combatant's health pools, written once for both fight loops.

Every ruleset's fight takes damage from one pool, hit points; a ruleset whose round has a
second pool (its procedure's `pools`, Cartyrion's Stamina and Injury Points: CT-4) loses
the first pool's overflow from the second and is down when the second is gone.

A shared rule file (`fracas._pure.rules` says what it may hold): the compiled fight loop
includes it as inline C, and the Python loop (`drive/fight.py`) imports it as Python.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the stand-in is what the type checker reads (Cython's module is untyped)
    from fracas._pure import cython
else:
    try:
        import cython
    except ImportError:  # Cython is a build dependency only: its names as plain Python
        from fracas._pure import cython


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def after_damage(hp: cython.longlong, injury: cython.longlong, pooled: cython.bint, to_hp: cython.longlong,
                 to_injury: cython.longlong) -> tuple[cython.longlong, cython.longlong]:
    """(hit points, injury points) left after `to_hp` damage to the first pool and
    `to_injury` to the second. With one pool (not `pooled`) both come off hit points, never
    below 0, and the second is left as it is. With two, the first pool's damage past 0 goes
    on to the second (CT-4: "Stamina damage past 0 becomes Injury"), each never below 0."""
    left: cython.longlong
    if not pooled:
        left = hp - to_hp - to_injury
        return (left if left > 0 else 0), injury
    left = hp - to_hp
    injury = injury - to_injury - (-left if left < 0 else 0)
    return (left if left > 0 else 0), (injury if injury > 0 else 0)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def down(pooled: cython.bint, hp: cython.longlong, injury: cython.longlong) -> cython.bint:
    """Out of the fight: at 0 hit points, or with two pools at 0 in the second (CT-4)."""
    return injury == 0 if pooled else hp == 0
