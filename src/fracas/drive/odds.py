"""`fracas.odds`: the exact damage distribution of an attack, for any ruleset.

The request is the one `resolve` takes (its `seed` and `rolls` are ignored), plus
three optional fields of its own:

- `count`: the distribution of the total of that many identical attacks (a mob);
- `remaining`: {target id: Body/Stamina/HP left}, for the chance it drops;
- `at_least`: damage thresholds N, for P(damage >= N).

The ruleset compiles the request exactly as for `resolve` (same checks, same error
paths) and answers with one exact distribution per target (`fracas.exact.Dist`).

**The odds contract** (one statement, docs/ADDING_A_RULESET.md "Exact odds"): every
distribution a ruleset answers sums to exactly 1. A ruleset that cuts an unbounded chain
(ER's crit chain, an exploding die) keeps the mass past the cut at the cut, so hit and crit
odds stay exact, and reports that mass as `cut`: the probability whose damage is counted
short. A distribution that leaves mass out is the ruleset's mistake (`RulesetInvalid`,
naming the ruleset and the target), checked here before any figure is computed.
"""

from __future__ import annotations

import copy
import math
from fractions import Fraction
from typing import Any, Optional

from .. import rulesets
from ..errors import LimitError, SchemaError
from ..exact import Dist
from ..requests import check_range, key_path, parse_json, say, type_name
from ..rulesets.base import RulesetInvalid, check_odds_plan

MAX_COUNT = 10_000
MAX_SUPPORT = 200_000
#: The work a mob's odds may take, in `mob_cost` units, summed over its targets: about half
#: a second of CPython on the machine fracas is measured on (one unit is some 1.3e-8 s there;
#: `fracas bench` times the largest mob it accepts). Checked before any convolution.
MAX_MOB_COST = 50_000_000
#: `at_least` thresholds one odds request may ask about.
MAX_THRESHOLDS = 100
ODDS_FIELDS = ("count", "remaining", "at_least")


def mob_cost(span: int, den_bits: int, count: int) -> float:
    """The work of the `count`-fold sum of one attack's damage (`span` values from its lowest to
    its highest, weights over a denominator of `den_bits` bits), as `Dist.power` does it: one
    big-integer power of the weights packed as digits (`fracas.exact.kronecker_power`). The
    result holds (span - 1)·count + 1 digits of 8·⌈(count·den_bits + 1)/8⌉ bits; CPython (and
    JavaScript's BigInt) multiply by Karatsuba, so the cost is that size in 64-bit words to the
    power log2(3). The Roll20 resolver computes the same figure (odds.js `mobCost`)."""
    slot_bits = 8 * -(-(count * den_bits + 1) // 8)
    words = slot_bits * ((span - 1) * count + 1) / 64
    return float(words ** math.log2(3))


def _mob_costs(damages: list[Dist], count: int) -> float:
    total = 0.0
    for damage in damages:
        low, high = damage.integer_span() or (0, len(damage.w) - 1)
        total += mob_cost(high - low + 1, damage.den.bit_length(), count)
    return total


def _check_mob(damages: list[Dist], count: int, limit: float) -> None:
    """Refuse, before any work, a mob whose odds would cost more than `limit` (`mob_cost`),
    naming its cost, the limit and the largest count that fits."""
    cost = _mob_costs(damages, count)
    if cost <= limit:
        return
    low, high = 1, count  # the cost grows with the count: the largest that fits, by halving
    while low < high:
        mid = (low + high + 1) // 2
        if _mob_costs(damages, mid) <= limit:
            low = mid
        else:
            high = mid - 1
    size = max(len(damage.w) for damage in damages)
    raise LimitError("$.count", say("odds_convolve", count=count, size=size, work=f"{cost:.2e}",
                                    limit=f"{limit:.2e}", most=low))


def _frac(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


class OddsResult:
    """Per target: exact distribution, mean, spread, hit and crit odds; `to_dict()` is the wire shape."""

    __slots__ = ("ruleset", "count", "targets", "remaining", "at_least", "cut", "has_crit", "seed", "notes", "total")

    def __init__(self, ruleset: str, count: int, targets: dict[str, Any], remaining: dict[str, Any], at_least: list[Any],
                 cut: Fraction, has_crit: bool):
        self.ruleset, self.count, self.targets = ruleset, count, targets
        self.remaining, self.at_least, self.cut, self.has_crit = remaining, at_least, cut, has_crit
        self.seed = None
        #: What the ruleset adds beyond the per-target distributions (ER-17: `friendly_fire`).
        self.notes: dict[str, Any] = {}
        #: The total's distribution when the targets' damage is not independent (ER-17 strays).
        self.total: Optional[Dist] = None

    def __repr__(self) -> str:
        means = {tid: round(float(sum((v * p for v, p in d.items()), Fraction(0))), 3)
                 for tid, (d, _h, _c) in self.targets.items()}
        return f"<{self.ruleset} odds count={self.count} mean={means}>"

    def distribution(self, target: str) -> list[tuple[int, Fraction]]:
        """[(damage, exact probability)] at `target`, ascending."""
        return list(self.targets[target][0].items())

    def to_dict(self) -> dict[str, Any]:
        out_targets = {}
        total: Optional[Dist] = None
        for tid, (damage, p_hit, p_crit) in self.targets.items():
            entry = _summary(damage)
            entry["p_hit"] = float(p_hit)
            entry["p_hit_exact"] = _frac(p_hit)
            if self.has_crit:
                entry["p_crit"] = float(p_crit)
                entry["p_crit_exact"] = _frac(p_crit)
            entry["p_at_least"] = {str(n): float(damage.prob(lambda v, n=n: v >= n)) for n in self.at_least}
            if tid in self.remaining:
                drop = damage.prob(lambda v, r=self.remaining[tid]: v >= r)
                entry["remaining"] = self.remaining[tid]
                entry["p_drop"] = float(drop)
                entry["p_drop_exact"] = _frac(drop)
            out_targets[tid] = entry
            if self.total is None:
                total = damage if total is None else total.convolve(damage).reduced()
        if self.total is not None:
            total = self.total
        totals = _summary(total) if total is not None else {}
        return {"ruleset": self.ruleset, "count": self.count, "targets": out_targets,
                "total": {k: totals[k] for k in ("mean", "mean_exact", "sd", "distribution")},
                "cut": float(self.cut),
                "cut_note": "probability (below 1e-15) whose damage past a cut crit chain or explosion "
                            "is counted short; every other figure is exact", **copy.deepcopy(self.notes)}


def _summary(damage: Dist) -> dict[str, Any]:
    """Mean, spread and distribution, in integers over the one denominator (a mob's weights are
    integers of thousands of bits: summing them as Fractions cost a gcd per term). The figures
    are the Fractions' exactly: var = Σ(v − mean)²·w/den = (S2·den² − 2·S1²·den + S1²·W) / den³,
    with S1 = Σv·w, S2 = Σv²·w and W = Σw (W < den when a cut chain left mass out)."""
    den = damage.den
    ordered = sorted(damage.w.items())
    first = sum(v * w for v, w in ordered)
    second = sum(v * v * w for v, w in ordered)
    mass = sum(w for _v, w in ordered)
    mean = Fraction(first, den)
    var = Fraction(second * den * den - 2 * first * first * den + first * first * mass, den ** 3)
    return {"mean": float(mean), "mean_exact": _frac(mean), "sd": math.sqrt(var),
            "distribution": [[v, w / den] for v, w in ordered],
            "exact": [[v, _ratio(w, den)] for v, w in ordered]}


def _ratio(numerator: int, denominator: int) -> str:
    """`numerator/denominator` in lowest terms, as _frac(Fraction(numerator, denominator)) writes it."""
    g = math.gcd(numerator, denominator)
    return f"{numerator // g}/{denominator // g}"


def odds(request: Any, *, count: Optional[int] = None, remaining: Optional[dict[str, Any]] = None,
         at_least: Optional[list[Any]] = None, max_mob_cost: Optional[float] = None) -> OddsResult:
    """Exact odds of an attack request of any ruleset; see the module docstring. A mob
    (`count` > 1) whose work (`mob_cost`) is past `max_mob_cost` (default MAX_MOB_COST) is
    refused before any convolution."""
    request = parse_json(request)
    if not isinstance(request, dict):
        raise SchemaError("$", say("odds_object"))
    extra = {k: request[k] for k in ODDS_FIELDS if k in request}
    # Odds roll nothing: the request's seed and rolls are not read (nor checked).
    attack = {k: v for k, v in request.items() if k not in ODDS_FIELDS and k not in ("seed", "rolls")}
    count = extra.get("count", 1) if count is None else count
    remaining = extra.get("remaining", {}) if remaining is None else remaining
    at_least = extra.get("at_least", []) if at_least is None else at_least
    if isinstance(count, bool) or not isinstance(count, int):
        raise SchemaError("$.count", say("msgspec_type", expected="int", got=type_name(count)))
    check_range(count, 1, MAX_COUNT, "$.count", "count")
    if not isinstance(remaining, dict):
        raise SchemaError("$.remaining", say("odds_remaining"))
    if not isinstance(at_least, list) or not all(isinstance(n, int) and not isinstance(n, bool) for n in at_least):
        raise SchemaError("$.at_least", say("odds_at_least"))
    if len(at_least) > MAX_THRESHOLDS:
        raise LimitError("$.at_least", say("too_many", count=len(at_least), what="thresholds", most=MAX_THRESHOLDS))
    ruleset = rulesets.for_request(attack)
    bound = ruleset.kind("attack")
    plan = bound.compile(bound.decode(attack))
    check_odds_plan(plan, ruleset.name)
    for tid, left in remaining.items():
        if tid not in plan.targets:
            raise SchemaError(key_path("$.remaining", tid), say("odds_remaining_target", target=repr(tid)))
        if isinstance(left, bool) or not isinstance(left, int):
            raise SchemaError(key_path("$.remaining", tid), say("msgspec_type", expected="int", got=type_name(left)))
        check_range(left, 1, 10**9, key_path("$.remaining", tid), "remaining")
    outcomes, cut, has_crit = ruleset.odds(plan)
    for tid, dist in outcomes.items():
        if dist.omitted:
            raise RulesetInvalid(f"the {ruleset.name} ruleset's odds for target {tid!r} sum to {float(dist.mass)!r},"
                                 " not exactly 1: keep the mass past a cut chain at the cut and report it as the"
                                 " cut (the odds contract, docs/ADDING_A_RULESET.md)")
    damages = {tid: dist.map(lambda o: o[0]).reduced() for tid, dist in outcomes.items()}
    joint = ruleset.odds_total(plan)
    if count > 1:
        for damage in damages.values():
            if len(damage.w) * count > MAX_SUPPORT:
                raise LimitError("$.count", say("odds_support", count=count, most=f"{MAX_SUPPORT:,}"))
        _check_mob([*damages.values(), *([joint] if joint is not None else [])], count,
                   MAX_MOB_COST if max_mob_cost is None else max_mob_cost)
    targets = {}
    for tid, dist in outcomes.items():
        damage = damages[tid]
        p_hit = dist.prob(lambda o: o[1])
        p_crit = dist.prob(lambda o: o[2])
        if count > 1:
            damage = damage.power(count).reduced()
            p_hit = 1 - (1 - p_hit) ** count
            p_crit = 1 - (1 - p_crit) ** count
        targets[tid] = (damage, p_hit, p_crit)
    result = OddsResult(ruleset.name, count, targets, remaining, at_least, cut * count, has_crit)
    if joint is not None:
        result.total = joint.power(count).reduced() if count > 1 else joint
    if count == 1:  # a mob's strays are not summed: ask for one attack to see them
        result.notes = ruleset.odds_notes(plan)
    return result

