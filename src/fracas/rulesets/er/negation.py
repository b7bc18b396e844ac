"""Enchanted Realms weapon negation's roll (ER Weapon Negation; ER-6, ER-12, ER-19), written
once for the lock kind and both fight loops.

A shared rule file (`fracas._pure.rules` says what it may hold): the compiled fight loop
includes it as C, and the lock kind (`lock.py`: `negation_roll` rolls every lock and
disarm, a request's and a Python round's) imports it as Python.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the stand-in is what the type checker reads (Cython's module is untyped)
    from fracas._pure import cython
else:
    try:
        import cython
    except ImportError:  # Cython is a build dependency only: its names as plain Python
        from fracas._pure import cython

#: What a negation comes to: the feat failed; it holds (locked, disarmed); the victim's
#: reaction won (pulled free, kept); a tie still standing after NEG_ROUNDS rounds.
NEG_MISSED = cython.declare(cython.const[cython.int], 0)
NEG_HELD = cython.declare(cython.const[cython.int], 1)
NEG_FREED = cython.declare(cython.const[cython.int], 2)
NEG_TIES = cython.declare(cython.const[cython.int], -1)
#: ER-19: the competition's die.
NEG_DIE = cython.declare(cython.const[cython.int], 12)
#: Competition rounds at most (`rolloffs.LIMIT`, the limit of every re-rolled tie).
NEG_ROUNDS = cython.declare(cython.const[cython.int], 1000)

if not cython.compiled:  # the compiled loop has these from the files it includes before this one
    from fracas._pure.draws import Dice
    from fracas.rulesets.er.hurling import face_hits
    from fracas.rulesets.er.shock import kept_die


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def negation_roll(d: cython.pointer[Dice], feat_keep: cython.int, feat_total: cython.longlong,
                  ac: cython.longlong, reacts: cython.bint, v_keep: cython.int, v_total: cython.longlong,
                  a_keep: cython.int, a_total: cython.longlong, faces: cython.p_int,
                  rounds: cython.p_void) -> cython.int:
    """A weapon lock or disarm: the feat, a d20 kept by `feat_keep` (`shock.KEEP_*`: ER-12,
    `shock.kept_die`) + `feat_total` against the
    victim's `ac` ("no matter how many skills complement" it; ER-6, a raw 20 always
    succeeds, a raw 1 always fails); if it succeeds and the victim `reacts`, the ER-19
    competition: the victim's d12 kept by `v_keep` + `v_total` against the attacker's kept
    by `a_keep` + `a_total`, again on a tie. faces[0:2] get the feat's dice (0: none) and
    faces[2] the face kept (0 until it is drawn: an error before it is the feat's); as
    Python, `rounds` (a list, or None) gets each competition round as [victim's two dice, its kept,
    attacker's two dice, its kept]. Returns NEG_MISSED, NEG_HELD (locked, disarmed),
    NEG_FREED (the victim won), or NEG_TIES after NEG_ROUNDS tied rounds."""
    kept: cython.int
    n: cython.int
    v: cython.longlong
    a: cython.longlong
    if cython.compiled:
        comp = cython.declare(cython.int[4])
    else:
        comp = [0, 0, 0, 0]
    faces[2] = 0
    kept = kept_die(d, 20, feat_keep, faces, 0)
    faces[2] = kept
    if not face_hits(kept, feat_total, ac):
        return NEG_MISSED
    if not reacts:
        return NEG_HELD
    for n in range(NEG_ROUNDS):
        v = kept_die(d, NEG_DIE, v_keep, comp, 0) + v_total
        a = kept_die(d, NEG_DIE, a_keep, comp, 2) + a_total
        if not cython.compiled and rounds is not None:
            rounds.append([comp[0], comp[1], v - v_total, comp[2], comp[3], a - a_total])
        if v != a:
            return NEG_FREED if v > a else NEG_HELD
    return NEG_TIES


#: This turn's weapon for a locked weapon's wielder (`free_step`): its strike left out, or
#: made with the dice its freeing left (NEG_WEAPON_AS_USUAL: no lock to free).
NEG_WEAPON_AS_USUAL = cython.declare(cython.const[cython.int], 0)
NEG_WEAPON_OUT = cython.declare(cython.const[cython.int], 1)
NEG_WEAPON_REST = cython.declare(cython.const[cython.int], 2)
#: The attack dice a locked weapon's wielder gives up to free it (_facts.ER_LOCK_FREE_DICE).
NEG_FREE_DICE = cython.declare(cython.const[cython.int], 2)


@cython.cfunc
@cython.inline
@cython.nogil
@cython.exceptval(check=False)
def free_step(owed: cython.longlong, dice: cython.longlong, paid: cython.p_longlong) -> cython.int:
    """A locked weapon's wielder's turn: it gives up dice of the weapon's strike (its `dice`)
    to free it, NEG_FREE_DICE in all (`owed` still), so a 1-die strike pays over two turns.
    paid[0] gets the dice given up this turn. Returns NEG_WEAPON_REST when the weapon is
    free with dice left (its strike made with dice - NEG_FREE_DICE), else NEG_WEAPON_OUT
    (the strike left out this turn); the weapon is free once `owed` - paid[0] is 0."""
    paid[0] = owed if owed < dice else dice
    if owed - paid[0] == 0 and dice > paid[0]:
        return NEG_WEAPON_REST
    return NEG_WEAPON_OUT
