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
from ..._facts import ER_DEFENSE_DC, ER_STRAY_SHIFT, ER_STRAY_SLOTS
from .followups import resist as _resist

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


@lru_cache(maxsize=256)
def defense_pool(n: int, disadv: bool, dc: int, ac: int) -> Dist:
    """ER-22: failures among the player's defense dice; the monster's disadvantage adds a die
    and drops the lowest (the twin of `defense.roll_defense`)."""
    def failed(face: int) -> bool:
        return face == 1 or (face != 20 and face + ac < dc)

    if disadv:
        state = Dist.point((21, 0))  # (lowest face so far, failures among all dice)
        for _ in range(n + 1):
            state = state.convolve(Dist.uniform(range(1, 21)), lambda s, f: (min(s[0], f), s[1] + failed(f)))
        return state.map(lambda s: s[1] - failed(s[0]))
    state = Dist.point(0)
    for _ in range(n):
        state = state.convolve(Dist.uniform(range(1, 21)), lambda s, f: s + failed(f))
    return state


def defense_strike(row: Any) -> Dist:
    """(hit, crit, base) of one strike under the defense-roll variant: a point per failed die."""
    n = row[L.P_SKILL] + row[L.P_ADV] + row[L.P_SNEAK]
    failures = defense_pool(n, bool(row[L.P_DISADV]), ER_DEFENSE_DC + row[L.P_TO_HIT], row[L.P_AC])
    only_chain = bool(row[L.P_ONLY_CHAIN])
    return failures.map(lambda f: (f > 0, False, 0 if only_chain else f))


def target_outcomes(rows: list[Any], defense: bool = False) -> Dist:
    """(damage, any hit, any crit) at one target over its strikes in request order."""
    state = Dist.point((False, 0, False, False))  # (modifier taken, damage, any hit, any crit)
    budget = Budget()
    for row in rows:
        only_chain, mod, resist = row[L.P_ONLY_CHAIN], row[L.P_MOD], row[L.P_RESIST]
        if defense:  # ER-22: no attribute modifier
            only_chain = True

        def step(s: Any, o: Any, only_chain: Any=only_chain, mod: Any=mod, resist: Any=resist) -> Any:
            taken, damage, any_hit, any_crit = s
            hit, crit, base = o
            if hit and not only_chain and not taken:
                taken, base = True, max(0, base + mod)
            return taken, damage + _resist(base, resist), any_hit or hit, any_crit or crit

        outcome = defense_strike(row) if defense else strike(row)
        budget.spend(state, outcome, "$.strikes")
        state = state.convolve(outcome, step)
    return state.map(lambda s: (s[1], s[2], s[3]))


def odds(plan: Any) -> dict[Any, Any]:
    """{target id: Dist of (damage, any hit, any crit)} of a compiled ER attack."""
    by_target: dict[str, list[Any]] = {tid: [] for tid in plan.targets}
    for s, meta in enumerate(plan.metas):
        by_target[meta.target].append(plan.plan[s * L.PLAN_WIDTH:(s + 1) * L.PLAN_WIDTH])
    return {tid: target_outcomes(rows, plan.defense) for tid, rows in by_target.items()}


def stray_odds(plan: Any) -> list[dict[str, Any]]:
    """ER-17: for each shot under the friendly-fire rule, the chance it misses entirely and,
    per creature near its target, the chance its stray lands on it and hits, and the stray's
    exact damage there. The damage is given for a creature no strike of the attack aims at,
    as if this shot's stray were the first to land on it (it then takes the attribute
    modifier, ER-9); for a creature also struck directly it is left out (ER-9 ties it to
    those strikes). Chances of different shots are independent (each has its own dice)."""
    aimed = {meta.target for meta in plan.metas}
    out = []
    for s, meta in enumerate(plan.metas):
        if not meta.friendly_fire:
            continue
        row = plan.plan[s * L.PLAN_WIDTH:(s + 1) * L.PLAN_WIDTH]
        nearby = plan.targets[meta.target].spec.nearby
        n = row[L.P_SKILL] + row[L.P_ADV] + row[L.P_SNEAK]
        disadv = bool(row[L.P_DISADV])
        to_hit, ac = row[L.P_TO_HIT], row[L.P_AC]
        p_miss = pool(n, disadv, to_hit, ac, 0).prob(lambda o: o[0] == 0)
        entry: dict[str, Any] = {"strike": s, "target": meta.target, "p_miss": float(p_miss),
                                 "p_miss_exact": _frac(p_miss), "bystanders": {}}
        for slot, creature in enumerate(nearby, 1):
            spec = plan.targets[creature].spec
            dist = _stray_at(meta, row, spec, n, disadv)  # (hit, crit, damage) joint with missing the target
            slot_p = Fraction(1, ER_STRAY_SLOTS)
            p_hit = dist.prob(lambda o: o[0]) * slot_p
            info: dict[str, Any] = {"slot": slot, "p_hit": float(p_hit), "p_hit_exact": _frac(p_hit)}
            if meta.crit_range or "paralyzed" in spec.conditions:
                p_crit = dist.prob(lambda o: o[1]) * slot_p
                info.update(p_crit=float(p_crit), p_crit_exact=_frac(p_crit))
            if creature not in aimed:
                damage = mix([(slot_p, dist.map(lambda o: o[2])), (1 - slot_p * p_miss, Dist.point(0))]).reduced()
                mean = sum((v * p for v, p in damage.items()), Fraction(0))
                info.update(mean_damage=float(mean), mean_damage_exact=_frac(mean),
                            damage=[[v, float(p)] for v, p in damage.items()])
            entry["bystanders"][creature] = info
        out.append(entry)
    return out


def _frac(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def _stray_at(meta: Any, row: Any, spec: Any, n: int, disadv: bool) -> Dist:
    """Over the pool's faces: when every counting die misses the target, the shifted dice
    checked against `spec` → (hit, crit, damage); the rest of the mass (a hit on the target)
    is left out, so the weights sum to P(miss entirely)."""
    from ..._facts import COVER_AC
    from .plan import resistance_state

    to_hit, ac = row[L.P_TO_HIT], row[L.P_AC]
    covered = spec.cover == "full"  # behind full cover: a stray into its slot hits nothing
    by_ac = spec.ac_by_type.get(meta.damage_type, spec.ac) + COVER_AC[spec.cover]
    crit_thr = meta.crit_range or 0

    def shifted(face: int) -> int:
        return min(face + ER_STRAY_SHIFT, 20)

    def b_hit(face: int) -> bool:
        f = shifted(face)
        return not covered and (f == 20 or f + to_hit >= by_ac)

    # state: (top face (disadvantage only), target hits, bystander hits, bystander nat 20s, crit face)
    state = Dist.point((0, 0, 0, 0, False))
    for _ in range(n + (1 if disadv else 0)):
        state = state.convolve(Dist.uniform(range(1, 21)), lambda st, f: (
            max(st[0], f), st[1] + _hit(f, to_hit, ac), st[2] + b_hit(f), st[3] + (b_hit(f) and shifted(f) == 20),
            st[4] or (bool(crit_thr) and b_hit(f) and shifted(f) >= crit_thr)))
    if disadv:
        state = state.map(lambda st: (st[0], st[1] - _hit(st[0], to_hit, ac), st[2] - b_hit(st[0]),
                                      st[3] - (b_hit(st[0]) and shifted(st[0]) == 20), False))
    missed = Dist({k: x for k, x in state.w.items() if k[1] == 0}, state.den)
    conds = spec.conditions
    only_chain = "petrified" in conds
    resist = resistance_state(spec, meta.damage_type)
    mod = row[L.P_MOD]
    parts = []
    for (_, _, hits, _, crit_face), x in missed.w.items():
        p = Fraction(x, missed.den)
        crit = hits > 0 and not disadv and (crit_face or "paralyzed" in conds)
        if hits == 0:
            parts.append((p, Dist.point((False, False, 0))))
            continue
        weight = 0 if only_chain else hits
        chain_dist = chain(to_hit, by_ac) if crit else Dist.point(0)

        def outcome(c: int, weight: int = weight, crit: bool = crit) -> tuple[bool, bool, int]:
            base = weight + c
            if not only_chain:
                base = max(0, base + mod)
            return True, crit, _resist(base, resist)

        parts.append((p, chain_dist.map(outcome)))
    return mix(parts)


def _crit_outcome(weight: int, chain_damage: int) -> tuple[bool, bool, int]:
    """A strike with a crit: it landed, it critted, its weight plus the chain's damage."""
    return (True, True, weight + chain_damage)
