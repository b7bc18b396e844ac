"""A stray shot's dice (ER-17), written once for single attacks and both fight loops.

"If the attack misses, roll a d10 to see where the shot strays … the creature there is
attacked with the same dice, each counting die moved up by 2." This file holds what that
means for the dice: a counting die moved up, whether it hits the creature there, whether
the stray crits, and its damage before the modifier and resistance. `followups.py` (a
single attack's strays, and the Python fight loop's), the exact odds (`odds.py`) and the
compiled fight loop read it.

A shared rule file (`fracas._pure.rules` says what it may hold): the compiled fight loop
includes it as inline C, and `followups.py` and `odds.py` import it as Python.
"""

from typing import TYPE_CHECKING

from fracas import _facts

if TYPE_CHECKING:  # the stand-in is what the type checker reads (Cython's module is untyped)
    from fracas._pure import cython
else:
    try:
        import cython
    except ImportError:  # Cython is a build dependency only: its names as plain Python
        from fracas._pure import cython

#: ER-17: how far a stray's counting dice move up (the manifest's fact, read when the module
#: loads: a C variable, not a constant, which only costs a read on a stray's path).
STRAY_SHIFT = cython.declare(cython.int, _facts.ER_STRAY_SHIFT)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def stray_face(face: cython.int) -> cython.int:
    """ER-17: a counting die of the missed shot, moved up by STRAY_SHIFT, at most 20."""
    return face + STRAY_SHIFT if face + STRAY_SHIFT < 20 else 20


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def stray_hits(shifted: cython.int, to_hit: cython.longlong, ac: cython.longlong) -> cython.bint:
    """ER-17: a moved-up die hits the creature the shot strays into on a 20, or when it and
    the shot's to-hit reach that creature's own AC (cover included)."""
    return shifted == 20 or shifted + to_hit >= ac


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def stray_crits(hits: cython.longlong, disadvantage: cython.bint, crit_face: cython.bint,
                paralyzed: cython.bint) -> cython.bint:
    """A stray that hits crits as an attack does (ER-8): a hitting die in the shot's crit
    range, or any hit on a paralyzed creature; never with disadvantage."""
    return hits > 0 and not disadvantage and (crit_face or paralyzed)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def stray_base(hits: cython.longlong, chain: cython.longlong, only_chain: cython.bint) -> cython.longlong:
    """A stray's damage before its modifier and resistance: a point per hitting die and the
    crit chain's (a shot at range has no weight, ER-4); at a petrified creature only the
    chain's; nothing when no die hits."""
    if hits == 0:
        return 0
    return chain if only_chain else hits + chain
