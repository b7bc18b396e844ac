"""Exact odds of a Worldwalker, Cartyrion or old-school attack, from its X_ rows.

Each strike: the feint (two d20s), the sneak check (a d20), the attack d20 and the
block/dodge d20 are counted face by face (a success-counting pool, X_HIT_COUNT, by
its successes); the damage dice in closed form (plain dice
convolved; exploding dice as F x explosions + the final faces, the explosions a
negative binomial summed until less than 1e-15 is left, that remainder kept as a
lower bound so no mass is lost: only the damage it carries, `cut`, is counted short). A target's strikes are folded in
order, carrying the parry state (weapon explosions left, shield points), CT-6.
"""

from __future__ import annotations

from typing import Any

import math
from fractions import Fraction
from functools import lru_cache

from .. import _layout as L
from ..errors import LimitError
from ..exact import Budget, Dist, TAIL, mix
from ..requests import say

MAX_ODDS_DICE = 24
D20 = range(1, 21)


@lru_cache(maxsize=256)
def _faces_sum(n: int, low: int, high: int) -> Dist:
    """The sum of n independent uniform faces low..high."""
    total = Dist.point(0)
    face = Dist.uniform(range(low, high + 1))
    for _ in range(n):
        total = total.convolve(face)
    return total


@lru_cache(maxsize=256)
def _explosions(n: int, faces: int) -> tuple[Dist, Fraction]:
    """K, the explosions of n exploding dice: a negative binomial, P(K = k) =
    C(k + n - 1, k) (F - 1)^n / F^(n + k). It is summed term by term until what is left
    is below 1e-15; that remainder is kept at the next k (so no mass is lost, and the
    damage it carries is counted short) and returned as the cut."""
    w: dict[Any, Any] = {}
    k = 0
    mass = Fraction(0)
    while True:
        p = Fraction(math.comb(k + n - 1, k) * (faces - 1) ** n, faces ** (n + k))
        w[k] = p
        mass += p
        k += 1
        if 1 - mass < TAIL:
            break
    w[k] = 1 - mass
    cut = w[k]
    den = 1
    for p in w.values():
        den = den * p.denominator // math.gcd(den, p.denominator)
    return Dist({k: p.numerator * (den // p.denominator) for k, p in w.items()}, den), cut


@lru_cache(maxsize=256)
def dice(n: int, faces: int, explode: bool) -> Dist:
    """(sum, explosions) of n dice. Exploding (CT-3), each die is F x its explosions plus
    a final face 1..F-1, all independent: the sum is F*K + T, K the explosions (negative
    binomial), T the sum of n faces 1..F-1 (a closed form, not a die-by-die series)."""
    if not explode:
        return _faces_sum(n, 1, faces).map(lambda v: (v, 0))
    if n == 0:
        return Dist.point((0, 0))
    k_dist, _cut = _explosions(n, faces)
    return k_dist.convolve(_faces_sum(n, 1, faces - 1), lambda k, t: (faces * k + t, k)).reduced()


@lru_cache(maxsize=256)
def successes(n: int, faces: int, tn: int, explode: bool) -> Dist:
    """(successes, explosions) of a pool of n dice counting the faces of `tn` or more
    (X_HIT_COUNT). Plain, a sum of n two-sided dice; exploding, each die is its
    explosions (maximum faces, each one a success) and a final face 1..F-1, so the
    successes are K, the negative binomial of `dice`, plus the final faces' successes."""
    def counted(sides: int, hits: int) -> Dist:
        return Dist({v: w for v, w in ((0, sides - hits), (1, hits)) if w}, sides)

    if explode:
        if n == 0:
            return Dist.point((0, 0))
        die = counted(faces - 1, faces - tn)
        k_dist = _explosions(n, faces)[0]
    else:
        die, k_dist = counted(faces, faces - tn + 1), Dist.point(0)
    total = Dist.point(0)
    for _ in range(n):
        total = total.convolve(die)
    return k_dist.convolve(total, lambda k, hits: (k + hits, k)).reduced()


def explosion_cut(n: int, faces: int) -> Fraction:
    return _explosions(n, faces)[1] if n else Fraction(0)


def _count(pred: Any, *ranges: Any) -> Fraction:
    from itertools import product

    total = hits = 0
    for faces in product(*ranges):
        total += 1
        hits += bool(pred(*faces))
    return Fraction(hits, total)


def strike(row: Any) -> Dist:
    """(landed, damage, explosions) of one row, before any parry."""
    path = "$.strikes"
    if row[L.X_DICE] > MAX_ODDS_DICE:
        raise LimitError(path, say("odds_dice", dice=row[L.X_DICE], most=MAX_ODDS_DICE))
    if row[L.X_HIT] == L.X_HIT_COUNT:  # a pool: no success is a miss (no block, feint or check with it)
        base, least, reduce = row[L.X_FLAT] + row[L.X_PER_DIE] * row[L.X_DICE], row[L.X_MIN], row[L.X_REDUCE]
        pool = successes(row[L.X_DICE], row[L.X_FACES], row[L.X_TN], bool(row[L.X_EXPLODE]))
        return pool.map(lambda o: (True, max(o[0] + base - reduce, 0, least), o[1]) if o[0]
                        else (False, 0, 0)).reduced()
    p_react = Fraction(row[L.X_REACT])
    if row[L.X_FEINT]:
        fb, fd = row[L.X_FEINT_BONUS], row[L.X_FEINT_DEFENSE]
        p_react *= 1 - _count(lambda a, d: a + fb > d + fd, D20, D20)
    mode, bonus, tn = row[L.X_HIT], row[L.X_BONUS], row[L.X_TN]
    if mode == L.X_HIT_NONE:
        p_land = Fraction(1)
    else:
        p_land = Fraction(0)
        for f in D20:
            if mode == L.X_HIT_WW:
                attack = (30 if f == 20 else -10 if f == 1 else f) + bonus
                hit = attack >= tn
            else:
                attack = f + bonus
                hit = f == 20 or (f != 1 and attack >= tn)
            if not hit:
                continue
            p_neg = Fraction(sum(1 for r in D20 if r + row[L.X_REACT_BONUS] >= attack), 20)
            p_land += Fraction(1, 20) * (1 - p_react * p_neg)
    rolled = dice(row[L.X_DICE], row[L.X_FACES], bool(row[L.X_EXPLODE]))
    base = row[L.X_FLAT] + row[L.X_PER_DIE] * row[L.X_DICE]
    least = row[L.X_MIN]

    def damage(reduce: Any) -> Any:
        return rolled.map(lambda o: (True, max(o[0] + base - reduce, 0, least), o[1]))

    if row[L.X_CHECK]:
        cb, dc = row[L.X_CHECK_BONUS], row[L.X_CHECK_DC]
        p_pass = Fraction(sum(1 for f in D20 if f + cb >= dc), 20)
        landed = mix([(p_pass, damage(row[L.X_REDUCE_PASS])), (1 - p_pass, damage(row[L.X_REDUCE]))])
    else:
        landed = damage(row[L.X_REDUCE])
    return mix([(p_land, landed), (1 - p_land, Dist.point((False, 0, 0)))]).reduced()


def target_outcomes(rows: list[Any], weapon: int, shield: int) -> Dist:
    """(damage, any strike landed) at one target over its strikes in request order."""
    state = Dist.point((weapon, shield, 0, False))
    budget = Budget()
    for row in rows:
        parry = row[L.X_PARRY]

        def step(s: Any, o: Any, parry: Any=parry) -> Any:
            left_w, left_s, total, any_landed = s
            landed, dmg, exploded = o
            if landed and parry == L.X_PARRY_WEAPON and left_w > 0:
                left_w, dmg = max(0, left_w - exploded), 0
            elif landed and parry == L.X_PARRY_SHIELD and left_s > 0:
                absorbed = min(dmg, (left_s + 1) // 2)
                dmg -= absorbed
                left_s = max(0, left_s - 2 * absorbed)
            return left_w, left_s, total + dmg, any_landed or landed

        outcome = strike(row)
        if parry != L.X_PARRY_WEAPON:
            outcome = outcome.map(lambda o: (o[0], o[1], 0))
        budget.spend(state, outcome, "$.strikes")
        state = state.convolve(outcome, step).reduced()
    return state.map(lambda s: (s[2], s[3], False))


def odds(plan: Any) -> dict[Any, Any]:
    """{target id: Dist of (damage, any strike landed, False)} of a compiled attack."""
    rows: dict[str, list[Any]] = {tid: [] for tid in plan.targets}
    for s, meta in enumerate(plan.metas):
        rows[meta.target].append(plan.rows[s * L.XPLAN_WIDTH:(s + 1) * L.XPLAN_WIDTH])
    out = {}
    for t, tid in enumerate(plan.targets):
        out[tid] = target_outcomes(rows[tid], plan.tinit[t * L.XS_WIDTH], plan.tinit[t * L.XS_WIDTH + 1])
    return out


def cut(plan: Any) -> Fraction:
    """Probability (an upper bound) whose damage the explosion cuts count short."""
    total = Fraction(0)
    for s in range(len(plan.metas)):
        row = plan.rows[s * L.XPLAN_WIDTH:(s + 1) * L.XPLAN_WIDTH]
        if row[L.X_EXPLODE]:
            total += explosion_cut(row[L.X_DICE], row[L.X_FACES])
    return total

