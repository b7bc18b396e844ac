"""Old-school saving throws (OS-5), written once for the save request kind and both fight loops.

A shared rule file (`fracas._pure.rules` says what it may hold): the compiled fight loop
includes it as inline C, and the Python round (`fight.py`) and the `save` request kind
(`save.py`) import it as Python.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the stand-in is what the type checker reads (Cython's module is untyped)
    from fracas._pure import cython
else:
    try:
        import cython
    except ImportError:  # Cython is a build dependency only: its names as plain Python
        from fracas._pure import cython

#: A `save_or`'s `by`: which of a combatant's attacks force the saving throw.
BY_ANY = cython.declare(cython.const[cython.int], 0)
BY_ATTACKS = cython.declare(cython.const[cython.int], 1)
BY_SPELL = cython.declare(cython.const[cython.int], 2)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def saves(face: cython.int, total: cython.longlong, number: cython.longlong) -> cython.bint:
    """The decision on saving throws (the texts name them, OS-5, but not how one is rolled):
    a natural 20 always saves, a natural 1 always fails, as attack rolls do (OS-6); else
    the d20's `face` + `total` (the creature's and the effect's modifiers) saves when it
    meets or beats the target `number`."""
    return face == 20 or (face != 1 and face + total >= number)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def forces(by: cython.int, spell: cython.bint) -> cython.bint:
    """Whether an attack forces the `save_or` of its combatant: any attack (BY_ANY), only
    its strikes (BY_ATTACKS), or only its spell (BY_SPELL); `spell`: the attack is the spell."""
    return by == BY_ANY or (by == BY_SPELL) == spell
