"""Enchanted Realms hurling at an AC (ER-6, ER-12), written once for throws, slams and both fight loops.

A shared rule file (`fracas._pure.rules` says what it may hold): the compiled fight loop
includes it as C, and the throw and slam kinds (`throw.py`, `slam.py`) import it as Python
(`hurl` rolls every hurled pool: a throw's, a slam's hurling attack, a fight's thrown item).
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the stand-in is what the type checker reads (Cython's module is untyped)
    from fracas._pure import cython
else:
    try:
        import cython
    except ImportError:  # Cython is a build dependency only: its names as plain Python
        from fracas._pure import cython

if not cython.compiled:  # the compiled loop draws with the generator's inline C
    from fracas._pure.draws import Dice, draw_gen


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


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def hurl(d: cython.pointer[Dice], n: cython.int, to_hit: cython.longlong, ac: cython.longlong,
         disadvantage: cython.bint, faces: cython.p_int) -> cython.int:
    """A pool hurled at an AC (ER Throwing Items): `n` counted d20s, and at disadvantage
    (ER-12) one more, the highest face (the first of equals) dropped; each counted die hits
    by `face_hits`. faces[0:n + disadvantage] get the dice in draw order and the next entry
    the dropped die's place (-1: none); returns the counted dice that hit."""
    i: cython.int
    dropped: cython.int = -1
    hits: cython.int = 0
    k: cython.int = n + (1 if disadvantage else 0)
    for i in range(k):
        faces[i] = draw_gen(d, 20)
        if disadvantage and (dropped < 0 or faces[i] > faces[dropped]):
            dropped = i
    faces[k] = dropped
    for i in range(k):
        if i != dropped and face_hits(faces[i], to_hit, ac):
            hits += 1
    return hits
