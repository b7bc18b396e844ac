"""Exact odds of an Enchanted Realms attack, from its compiled strike rows.

Independent of the kernels' code but not of their contract: each strike's pool is
enumerated die by die (hits and whether a hitting die may crit; with disadvantage,
the highest face is the one discarded), the crit chain is a recursion over d20s with
a d3 per hitting link (cut below 1e-15, the cut reported), and each target's strikes
are folded in order, carrying whether its attribute modifier was taken (ER-9).
"""

from __future__ import annotations

import functools
from typing import Any

from fractions import Fraction
from functools import lru_cache

from ... import _layout as L
from ...exact import Budget, Dist, depth_for, mix

D3 = Dist.uniform((1, 2, 3))
CHAIN_DEPTH = depth_for(20)
#: The probability whose damage is counted short where a crit chain is cut.
CHAIN_CUT = Fraction(1, 20 ** CHAIN_DEPTH)


def _hit(face: int, to_hit: int, ac: int) -> bool:
    return face == 20 or (face != 1 and face + to_hit >= ac)


@lru_cache(maxsize=256)
def chain(to_hit: int, ac: int) -> Dist:
    """The crit chain's damage (ER-8): d20s, a d3 for each that hits, on while they show 20.

    Built from the last link outward over the denominator 60 per link (a d20 face and a
    d3). At CHAIN_DEPTH links the chain is cut: a 20 there ends it (its d3 counted), so
    the mass is all kept and hit and crit odds stay exact; only damage beyond the cut,
    with probability 20**-CHAIN_DEPTH < 1e-15 (`CHAIN_CUT`), is counted short."""
    hits = sum(1 for face in range(1, 20) if _hit(face, to_hit, ac))  # hitting faces other than 20
    misses = 19 - hits
    w = {0: 3 * misses, 1: hits + 1, 2: hits + 1, 3: hits + 1}  # the last link: a 20 adds its d3 and stops
    den = 60
    for _ in range(CHAIN_DEPTH - 1):
        new = {0: 3 * misses * den, 1: hits * den, 2: hits * den, 3: hits * den}
        for value, x in w.items():  # a 20: its d3, then the rest of the chain
            for d in (1, 2, 3):
                new[value + d] = new.get(value + d, 0) + x
        w, den = new, den * 60
    return Dist(w, den).reduced()


@lru_cache(maxsize=256)
def pool(n: int, disadv: bool, to_hit: int, ac: int, crit: int) -> Dist:
    """(hits, a hitting die may crit) of the pool; with disadvantage the top face is dropped."""
    if disadv:
        state = Dist.point((0, 0))  # (highest face so far, hits among all dice)
        for _ in range(n + 1):
            state = state.convolve(Dist.uniform(range(1, 21)),
                                   lambda s, f: (max(s[0], f), s[1] + _hit(f, to_hit, ac)))
        return state.map(lambda s: (s[1] - _hit(s[0], to_hit, ac), False))
    state = Dist.point((0, False))
    die = Dist.uniform(range(1, 21))
    for _ in range(n):
        state = state.convolve(die, lambda s, f: (s[0] + _hit(f, to_hit, ac),
                                                  s[1] or (bool(crit) and f >= crit and _hit(f, to_hit, ac))))
    return state


def strike(row: Any) -> Dist:
    """(hit, crit, base) of one strike row, base before the modifier and resistance."""
    n = row[L.P_SKILL] + row[L.P_ADV] + row[L.P_SNEAK]
    disadv = bool(row[L.P_DISADV])
    to_hit, ac = row[L.P_TO_HIT], row[L.P_AC]
    outcomes = pool(n, disadv, to_hit, ac, row[L.P_CRIT])
    parts = []
    for (hits, crit_face), x in outcomes.w.items():
        p = Fraction(x, outcomes.den)
        crit = hits > 0 and not disadv and (crit_face or bool(row[L.P_AUTO_CRIT]))
        if hits == 0:
            parts.append((p, Dist.point((False, False, 0))))
            continue
        weight = 0 if row[L.P_ONLY_CHAIN] else hits + row[L.P_WEIGHT]
        if crit:
            parts.append((p, chain(to_hit, ac).map(functools.partial(_crit_outcome, weight))))
        else:
            parts.append((p, Dist.point((True, False, weight))))
    return mix(parts)


def _resist(amount: int, state: int) -> int:
    if state == L.R_HALF:
        return amount // 2
    if state == L.R_DOUBLE:
        return amount * 2
    if state == L.R_IMMUNE:
        return 0
    return amount


def target_outcomes(rows: list[Any]) -> Dist:
    """(damage, any hit, any crit) at one target over its strikes in request order."""
    state = Dist.point((False, 0, False, False))  # (modifier taken, damage, any hit, any crit)
    budget = Budget()
    for row in rows:
        only_chain, mod, resist = row[L.P_ONLY_CHAIN], row[L.P_MOD], row[L.P_RESIST]

        def step(s: Any, o: Any, only_chain: Any=only_chain, mod: Any=mod, resist: Any=resist) -> Any:
            taken, damage, any_hit, any_crit = s
            hit, crit, base = o
            if hit and not only_chain and not taken:
                taken, base = True, max(0, base + mod)
            return taken, damage + _resist(base, resist), any_hit or hit, any_crit or crit

        outcome = strike(row)
        budget.spend(state, outcome, "$.strikes")
        state = state.convolve(outcome, step)
    return state.map(lambda s: (s[1], s[2], s[3]))


def odds(plan: Any) -> dict[Any, Any]:
    """{target id: Dist of (damage, any hit, any crit)} of a compiled ER attack."""
    by_target: dict[str, list[Any]] = {tid: [] for tid in plan.targets}
    for s, meta in enumerate(plan.metas):
        by_target[meta.target].append(plan.plan[s * L.PLAN_WIDTH:(s + 1) * L.PLAN_WIDTH])
    return {tid: target_outcomes(rows) for tid, rows in by_target.items()}


def _crit_outcome(weight: int, chain_damage: int) -> tuple[bool, bool, int]:
    """A strike with a crit: it landed, it critted, its weight plus the chain's damage."""
    return (True, True, weight + chain_damage)
