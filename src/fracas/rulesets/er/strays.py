"""A stray shot's dice (ER-17), written once for single attacks and both fight loops.

"If the attack misses, roll a d10 to see where the shot strays … the creature there is
attacked with the same dice, each counting die moved up by 2." This file holds what that
means for the dice: a counting die moved up, whether it hits the creature there, whether
the stray crits, and its damage before the modifier and resistance. `followups.py` (a
single attack's strays, and the Python fight loop's), the exact odds (`odds.py`) and the
compiled fight loop read it.

A shared rule file (`fracas._pure.rules` says what it may hold): the compiled fight loop
includes it as C, and `followups.py` and `odds.py` import it as Python (`stray_check`
checks every stray's creature: a single attack's and both fight loops').
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
#: stray_check's results, by their place in its `got`: hits, natural 20s among them, a
#: crit (1), the crit chain's damage.
GOT_HITS = cython.declare(cython.const[cython.int], 0)
GOT_NAT20 = cython.declare(cython.const[cython.int], 1)
GOT_CRIT = cython.declare(cython.const[cython.int], 2)
GOT_CHAIN = cython.declare(cython.const[cython.int], 3)

if not cython.compiled:  # the compiled loop draws with the generator's inline C, its CHAIN_LIMIT is _layout.pxd's
    from fracas._layout import CHAIN_LIMIT
    from fracas._pure.draws import Dice, draw_gen


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


@cython.cfunc
@cython.nogil
@cython.exceptval(check=False)
def stray_check(d: cython.pointer[Dice], faces: cython.p_int, stride: cython.int, npool: cython.longlong,
                discard: cython.longlong, to_hit: cython.longlong, ac: cython.longlong, crit_thr: cython.longlong,
                disadvantage: cython.bint, paralyzed: cython.bint, got: cython.p_longlong,
                chain_log: cython.p_void) -> cython.int:
    """ER-17: the creature in a stray shot's slot, checked with the pool's counting dice
    (faces[stride * i] for i < npool but `discard`), each moved up (`stray_face`), against
    its own `ac` (`stray_hits`); a crit (`stray_crits`: `crit_thr` the shot's crit range, 0
    none) draws its chain there: a d20 at that AC, a d3 when it hits, again while it shows
    a 20 (ER-8). got[GOT_*] gets the hits, natural 20s, crit and chain damage; returns 0, or
    -1 when the chain would pass CHAIN_LIMIT dice. As Python, `chain_log` (a list, or None)
    gets each chain die's (face, hit, d3)."""
    i: cython.longlong
    shifted: cython.int
    face: cython.int
    d3: cython.int
    hits: cython.longlong = 0
    nat20: cython.longlong = 0
    chain: cython.longlong = 0
    chain_len: cython.longlong = 0
    crit_face: cython.bint = False
    crit: cython.bint
    for i in range(npool):
        if i == discard:
            continue
        shifted = stray_face(faces[stride * i])
        if stray_hits(shifted, to_hit, ac):
            hits += 1
            if shifted == 20:
                nat20 += 1
            if crit_thr and shifted >= crit_thr:
                crit_face = True
    crit = stray_crits(hits, disadvantage, crit_face, paralyzed)
    if crit:
        while True:
            if chain_len >= CHAIN_LIMIT:
                return -1
            face = draw_gen(d, 20)
            chain_len += 1
            d3 = 0
            if face == 20 or (face != 1 and face + to_hit >= ac):
                d3 = draw_gen(d, 3)
                chain += d3
            if not cython.compiled:
                if chain_log is not None:
                    chain_log.append((face, face == 20 or (face != 1 and face + to_hit >= ac), d3))
            if face != 20:
                break
    got[GOT_HITS] = hits
    got[GOT_NAT20] = nat20
    got[GOT_CRIT] = crit
    got[GOT_CHAIN] = chain
    return 0
