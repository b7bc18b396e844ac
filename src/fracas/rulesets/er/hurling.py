"""Enchanted Realms hurling at an AC (ER-6, ER-12), written once for throws, slams and both fight loops.

A shared rule file (`fracas._pure.rules` says what it may hold): the compiled fight loop
includes it as inline C, and the throw and slam kinds (`throw.py`, `slam.py`) import it
as Python.
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
def face_hits(face: cython.int, to_hit: cython.longlong, ac: cython.longlong) -> cython.bint:
    """ER-6 for one d20 of a pool hurled at an AC: a raw 20 always hits, a raw 1 never, else
    the face + `to_hit` meets the AC."""
    return face == 20 or (face != 1 and face + to_hit >= ac)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def thrown_damage(rolled: cython.longlong, flat: cython.longlong) -> cython.longlong:
    """A thrown item's damage before resistance: its dice and bonus, never below 0."""
    total: cython.longlong = rolled + flat
    return total if total > 0 else 0
