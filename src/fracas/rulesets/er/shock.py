"""Enchanted Realms shock (ER-13), written once for single attacks, drops and both fight loops.

A shared rule file (`fracas._pure.rules` says what it may hold): the compiled fight loop
includes it as C, and an attack's follow-ups (`attack.py`: `shock_roll` rolls every shock
save, a single attack's and a Python round's) and the drop kind (`drop.py`) import it as
Python.
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
#: How a target makes its shock save: not rolled (no save bonus given: the save and its DC
#: are reported), rolled, or failed without a die (its condition fails Body saves, ER-14).
SAVE_REPORTED = cython.declare(cython.const[cython.int], 0)
SAVE_ROLLED = cython.declare(cython.const[cython.int], 1)
SAVE_FAILS = cython.declare(cython.const[cython.int], 2)
#: Which d20 it keeps: its one die, the higher of two (advantage), the lower (disadvantage).
KEEP_ONE = cython.declare(cython.const[cython.int], 0)
KEEP_HIGHER = cython.declare(cython.const[cython.int], 1)
KEEP_LOWER = cython.declare(cython.const[cython.int], 2)

if not cython.compiled:  # the compiled loop draws with the generator's inline C
    from fracas._pure.draws import Dice, draw_gen


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


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def kept_die(d: cython.pointer[Dice], faces: cython.int, keep: cython.int, dice: cython.p_int,
             at: cython.int) -> cython.int:
    """ER-12: a die of `faces`, or two (the first drawn first) keeping `keep` (KEEP_*);
    dice[at] and dice[at + 1] get them (0: none). Returns the face kept (a shock save's
    d20 here, a weapon negation's feat and competition dice in `negation.py`)."""
    face: cython.int = draw_gen(d, faces)
    other: cython.int = 0
    dice[at] = face
    if keep != KEEP_ONE:
        other = draw_gen(d, faces)
        if (other > face) == (keep == KEEP_HIGHER):
            face = other
    dice[at + 1] = other
    return face


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def shock_roll(d: cython.pointer[Dice], how: cython.int, keep: cython.int, added: cython.longlong,
               damage: cython.longlong, faces: cython.p_int) -> cython.int:
    """ER-13: the shock save a sneak attack's `damage` called for, made `how` (SAVE_*): a
    d20, or two (the first drawn first) keeping `keep` (KEEP_*), plus `added` (the save
    bonus and any penalty) against save_dc(damage); on a failure, a d3 for the actions it
    costs. Returns those actions (0: passed, or not rolled); faces[0] and faces[1] get the
    d20s drawn (0: none), faces[2] the one kept."""
    faces[0] = faces[1] = faces[2] = 0
    if how == SAVE_REPORTED:
        return 0
    if how == SAVE_ROLLED:
        faces[2] = kept_die(d, 20, keep, faces, 0)
        if faces[2] + added >= save_dc(damage):
            return 0
    return draw_gen(d, 3)
