"""Enchanted Realms shock (ER-13), written once for single attacks, drops and both fight loops.

A shared rule file (`fracas._pure.rules` says what it may hold): the compiled fight loop
includes it as inline C, and an attack's follow-ups (`attack.py`) and the drop kind
(`drop.py`) import it as Python.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the stand-in is what the type checker reads (Cython's module is untyped)
    from fracas._pure import cython
else:
    try:
        import cython
    except ImportError:  # Cython is a build dependency only: its names as plain Python
        from fracas._pure import cython

#: A shock save's DC is this plus the sneak attack's damage.
DC_BASE = cython.declare(cython.const[cython.int], 5)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def calls_for_save(damage: cython.longlong, body_max: cython.longlong) -> cython.bint:
    """ER-13 "Shock": one sneak attack's `damage` to a target of maximum Body `body_max`
    calls for a Resilience save when it is at least half that Body."""
    return damage > 0 and 2 * damage >= body_max


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def save_dc(damage: cython.longlong) -> cython.longlong:
    """ER-13: the shock save's DC, 5 + the damage dealt."""
    return DC_BASE + damage
