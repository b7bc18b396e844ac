"""Exact odds of an Enchanted Realms attack, from its compiled strike rows.

Independent of the kernels' code but not of their contract: each strike's pool is
enumerated die by die (hits and whether a hitting die may crit; with disadvantage,
the highest face is the one discarded), the crit chain is a recursion over d20s with
a d3 per hitting link (cut below 1e-15, the cut reported for each strike that can
crit), and each creature's strikes are folded in request order, carrying whether its
attribute modifier was taken (ER-9).

ER-17 strays count where `resolve` counts them: a shot under the friendly-fire rule
that misses its target entirely lands, with probability 1/10 per slot, on a creature
near it, and that stray is one more of the creature's strikes in request order (its
P(hit), mean, P(damage >= N), P(drop); ER-9: it takes the modifier when it is the
first in request order to hit). A shot at a creature behind full cover, asked for
under friendly fire, never hits it (ER-16) and only strays. When strays are possible
the creatures' damage is not independent (a stray lands only when its shot missed),
so the total is folded over all strikes jointly (`total`).
"""

from __future__ import annotations

import functools
from typing import Any, Optional

from fractions import Fraction
from functools import lru_cache

from ... import _layout as L
from ...exact import Budget, Dist, depth_for, mix
from ..._facts import ER_DEFENSE_DC, ER_STRAY_SLOTS
from . import strays
from .followups import resist as _resist

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


MISS = Dist.point((False, False, 0))


def _row(plan: Any, s: int) -> Any:
    return plan.plan[s * L.PLAN_WIDTH:(s + 1) * L.PLAN_WIDTH]


def _direct(plan: Any, s: int) -> Dist:
    """(hit, crit, base) of strike `s` at its own target."""
    if plan.metas[s].full_cover:  # ER-16: behind full cover it cannot be hit
        return MISS
    row = _row(plan, s)
    return defense_strike(row) if plan.defense else strike(row)


def _strays(plan: Any, s: int) -> list[tuple[str, Dist, bool, int]]:
    """ER-17: per creature near the target of strike `s` (a shot under friendly fire), the
    part of the outcomes where the shot missed its target and strayed to that creature:
    (creature, (hit, crit, base) weighing P(miss) x its slots / 10, petrified?, resistance)."""
    meta = plan.metas[s]
    if plan.defense or not meta.friendly_fire:
        return []
    from .plan import resistance_state

    row = _row(plan, s)
    n = row[L.P_SKILL] + row[L.P_ADV] + row[L.P_SNEAK]
    slots: dict[str, int] = {}
    for creature in plan.targets[meta.target].spec.nearby:
        slots[creature] = slots.get(creature, 0) + 1
    out = []
    for creature, k in slots.items():
        spec = plan.targets[creature].spec
        sub = _stray_at(meta, row, spec, n, bool(row[L.P_DISADV]))
        out.append((creature, mix([(Fraction(k, ER_STRAY_SLOTS), sub)]), "petrified" in spec.conditions,
                    resistance_state(spec, meta.damage_type)))
    return out


def _complete(sub: Dist) -> Dist:
    """A part of the outcomes, the rest a miss."""
    return mix([(Fraction(1), sub), (1 - sub.mass, MISS)]).reduced()


def contributions(plan: Any) -> dict[str, list[tuple[Dist, bool, int, int]]]:
    """Per creature, in request order: (outcome (hit, crit, base), no modifier?, modifier,
    resistance) of every strike that can land on it, directly or as a stray."""
    by: dict[str, list[tuple[Dist, bool, int, int]]] = {tid: [] for tid in plan.targets}
    for s, meta in enumerate(plan.metas):
        row = _row(plan, s)
        # ER-22 (defense rolls): no attribute modifier.
        by[meta.target].append((_direct(plan, s), bool(plan.defense or row[L.P_ONLY_CHAIN]), row[L.P_MOD],
                                row[L.P_RESIST]))
        for creature, sub, petrified, resist in _strays(plan, s):
            by[creature].append((_complete(sub), petrified, row[L.P_MOD], resist))
    return by


def _taking(taken: bool, hit: bool, base: int, no_mod: bool, mod: int) -> tuple[bool, int]:
    """ER-9: the first hit (not a petrified target's) takes the modifier."""
    if hit and not no_mod and not taken:
        return True, max(0, base + mod)
    return taken, base


def target_outcomes(steps: list[tuple[Dist, bool, int, int]]) -> Dist:
    """(damage, any hit, any crit) at one creature over its strikes in request order."""
    state = Dist.point((False, 0, False, False))  # (modifier taken, damage, any hit, any crit)
    budget = Budget()
    for outcome, no_mod, mod, resist in steps:

        def step(s: Any, o: Any, no_mod: bool = no_mod, mod: int = mod, resist: int = resist) -> Any:
            taken, damage, any_hit, any_crit = s
            hit, crit, base = o
            taken, base = _taking(taken, hit, base, no_mod, mod)
            return taken, damage + _resist(base, resist), any_hit or hit, any_crit or crit

        budget.spend(state, outcome, "$.strikes")
        state = state.convolve(outcome, step)
    return state.map(lambda s: (s[1], s[2], s[3]))


def odds(plan: Any) -> dict[Any, Any]:
    """{target id: Dist of (damage, any hit, any crit)} of a compiled ER attack, strays included."""
    return {tid: target_outcomes(steps) for tid, steps in contributions(plan).items()}


def total(plan: Any) -> Optional[Dist]:
    """The total damage over all creatures when a stray is possible (then the creatures'
    damage is not independent), folded over the strikes in request order; None otherwise."""
    strays = [_strays(plan, s) for s in range(len(plan.metas))]
    if not any(strays):
        return None
    state = Dist.point((frozenset(), 0))  # (creatures whose modifier is taken, total damage)
    budget = Budget()
    for s, meta in enumerate(plan.metas):
        row = _row(plan, s)
        params = {meta.target: (bool(row[L.P_ONLY_CHAIN]), row[L.P_RESIST])}
        direct = _direct(plan, s)
        hits = Dist({k: x for k, x in direct.w.items() if k[0]}, direct.den)
        parts = [(Fraction(1), hits.map(functools.partial(_landed_on, meta.target)))]
        for creature, sub, petrified, resist in strays[s]:
            params[creature] = (petrified, resist)
            parts.append((Fraction(1), sub.map(functools.partial(_landed_on, creature))))
        landed = mix(parts)
        outcome = mix([(Fraction(1), landed), (1 - landed.mass, Dist.point((None, False, 0)))]).reduced()

        def step(st: Any, o: Any, params: Any = params, mod: int = row[L.P_MOD]) -> Any:
            taken, damage = st
            creature, hit, base = o
            if not hit:
                return st
            no_mod, resist = params[creature]
            took, base = _taking(creature in taken, hit, base, no_mod, mod)
            return (taken | {creature} if took else taken), damage + _resist(base, resist)

        budget.spend(state, outcome, "$.strikes")
        state = state.convolve(outcome, step)
    return state.map(lambda st: st[1]).reduced()


def crit_strikes(plan: Any) -> int:
    """Strikes that can start a crit chain, at their target or as a stray (each may be cut once)."""
    count = 0
    for s, meta in enumerate(plan.metas):
        row = _row(plan, s)
        direct = not plan.defense and not meta.full_cover and bool(row[L.P_CRIT] or row[L.P_AUTO_CRIT])
        stray = meta.friendly_fire and not plan.defense and any(
            meta.crit_range or "paralyzed" in plan.targets[c].spec.conditions
            for c in plan.targets[meta.target].spec.nearby)
        count += direct or stray
    return count


def stray_odds(plan: Any) -> list[dict[str, Any]]:
    """ER-17: for each shot under the friendly-fire rule, the chance it misses entirely and,
    per creature near its target, the chance its stray lands on it and hits, and the stray's
    exact damage there. The damage is given for a creature no strike of the attack aims at,
    as if this shot's stray were the first to land on it (it then takes the attribute
    modifier, ER-9); for a creature also struck directly it is left out (ER-9 ties it to
    those strikes). Chances of different shots are independent (each has its own dice)."""
    from .plan import resistance_state

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
        p_miss = Fraction(1) if meta.full_cover else pool(n, disadv, to_hit, ac, 0).prob(lambda o: o[0] == 0)
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
                petrified = "petrified" in spec.conditions
                state = resistance_state(spec, meta.damage_type)

                def landed(o: Any, petrified: bool = petrified, state: int = state) -> int:
                    return _resist(_taking(False, o[0], o[2], petrified, row[L.P_MOD])[1], state)

                damage = mix([(slot_p, dist.map(landed)), (1 - slot_p * p_miss, Dist.point(0))]).reduced()
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
    checked against `spec` → (hit, crit, base before the modifier and resistance); the rest
    of the mass (a hit on the target) is left out, so the weights sum to P(miss entirely)."""
    from ..._facts import COVER_AC

    to_hit, ac = row[L.P_TO_HIT], row[L.P_AC]
    def target_hit(face: int) -> bool:
        return not meta.full_cover and _hit(face, to_hit, ac)  # ER-16: full cover is never hit
    covered = spec.cover == "full"  # behind full cover: a stray into its slot hits nothing
    by_ac = spec.ac_by_type.get(meta.damage_type, spec.ac) + COVER_AC[spec.cover]
    crit_thr = meta.crit_range or 0

    def shifted(face: int) -> int:
        return strays.stray_face(face)

    def b_hit(face: int) -> bool:
        return not covered and bool(strays.stray_hits(shifted(face), to_hit, by_ac))

    # state: (top face (disadvantage only), target hits, bystander hits, bystander nat 20s, crit face)
    state = Dist.point((0, 0, 0, 0, False))
    for _ in range(n + (1 if disadv else 0)):
        state = state.convolve(Dist.uniform(range(1, 21)), lambda st, f: (
            max(st[0], f), st[1] + target_hit(f), st[2] + b_hit(f), st[3] + (b_hit(f) and shifted(f) == 20),
            st[4] or (bool(crit_thr) and b_hit(f) and shifted(f) >= crit_thr)))
    if disadv:
        state = state.map(lambda st: (st[0], st[1] - target_hit(st[0]), st[2] - b_hit(st[0]),
                                      st[3] - (b_hit(st[0]) and shifted(st[0]) == 20), False))
    missed = Dist({k: x for k, x in state.w.items() if k[1] == 0}, state.den)
    conds = spec.conditions
    only_chain = "petrified" in conds
    parts = []
    for (_, _, hits, _, crit_face), x in missed.w.items():
        p = Fraction(x, missed.den)
        crit = strays.stray_crits(hits, disadv, crit_face, "paralyzed" in conds)
        if hits == 0:
            parts.append((p, MISS))
            continue
        weight = 0 if only_chain else hits  # a shot at range has no weight (ER-4)
        if crit:
            parts.append((p, chain(to_hit, by_ac).map(functools.partial(_crit_outcome, weight))))
        else:
            parts.append((p, Dist.point((True, False, weight))))
    return mix(parts)


def _landed_on(creature: str, o: tuple[bool, bool, int]) -> tuple[str, bool, int]:
    """(creature, hit, base) of a strike's outcome where it landed."""
    return creature, o[0], o[2]


def _crit_outcome(weight: int, chain_damage: int) -> tuple[bool, bool, int]:
    """A strike with a crit: it landed, it critted, its weight plus the chain's damage."""
    return (True, True, weight + chain_damage)
