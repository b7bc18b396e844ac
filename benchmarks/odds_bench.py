"""The odds section of `fracas bench`: one exact distribution, three ways.

The typical Enchanted Realms strike (3d20 +2 vs AC 14, weight 1, modifier +1, crit
chain on) as an exact damage distribution:

- `fracas.odds` (pure Python; cold = caches cleared, warm = a repeat call);
- icepool (optional, the bench extra): the same rule written with `icepool.map` over
  the three pool dice and a recursive crit-chain die cut at the same depth, so both
  give the same fractions (checked);
- a 10^6-attack Monte Carlo (`fracas.resolve_bulk`, compiled) reaching the same answer
  to sampling error: its largest gap to the exact distribution is reported.
"""

from __future__ import annotations

import re
import time
from fractions import Fraction
from typing import Optional

import fracas

from .scenarios import TYPICAL

TO_HIT, AC, WEIGHT, MODIFIER = 2, 14, 1, 1


def request() -> dict:
    return TYPICAL.single_request()


def available_icepool() -> bool:
    try:
        import icepool  # noqa: F401
    except Exception:  # noqa: BLE001 - absent, or an install that cannot import on this Python
        return False
    return True


def fracas_exact(cold: bool) -> dict[int, Fraction]:
    if cold:
        from fracas.rulesets.er import odds as er_odds

        er_odds.chain.cache_clear()
        er_odds.pool.cache_clear()
    return dict(fracas.odds(request()).distribution("foe"))


def icepool_exact() -> dict[int, Fraction]:
    import icepool

    from fracas.rulesets.er.odds import CHAIN_DEPTH

    def hit(face: int) -> bool:
        return face == 20 or (face != 1 and face + TO_HIT >= AC)

    d3 = icepool.d3

    def link(rest):
        # One crit die: a hit adds d3; a 20 adds d3 and the rest of the chain.
        def face(f):
            return (d3 + rest) if f == 20 else (d3 if hit(f) else 0)
        return icepool.d20.map(face)

    chain = icepool.Die([0])  # past the last link: the cut ends the chain there, as in fracas
    for _ in range(CHAIN_DEPTH):
        chain = link(chain)

    def strike(a: int, b: int, c: int):
        faces = (a, b, c)
        hits = sum(hit(f) for f in faces)
        if not hits:
            return 0
        base = hits + WEIGHT + MODIFIER
        return base + chain if 20 in faces else base

    die = icepool.map(strike, icepool.d20, icepool.d20, icepool.d20)
    den = die.denominator()
    return {int(v): Fraction(q, den) for v, q in die.items()}


def monte_carlo(n: int, seed: int = 1) -> dict[int, float]:
    hist = fracas.resolve_bulk(TYPICAL.bulk_request(n), seed=seed, threads=1).to_dict()["groups"][0]["histogram"]
    return {v: h / n for v, h in enumerate(hist) if h}


def _time(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def run(quick: bool) -> dict:
    """Seconds per exact distribution (best of several calls), side by side; and the checks."""
    repeat = 3 if quick else 7
    exact = fracas_exact(False)
    out: dict = {"description": "typical ER strike, exact damage distribution", "seconds": {}, "ratios": {},
                 "labels": {"fracas_cold": "fracas.odds, caches cleared (pure Python)",
                            "fracas_warm": "fracas.odds, repeat call (pure Python)",
                            "icepool": "icepool (icepool.map + recursive chain die)",
                            "monte_carlo": ""}}
    s = out["seconds"]
    s["fracas_cold"] = _time(lambda: fracas_exact(True), repeat)
    s["fracas_warm"] = _time(lambda: fracas_exact(False), repeat * 10)
    icepool_s: Optional[float] = None
    if available_icepool():
        icepool_s = _time(icepool_exact, repeat)
        out["icepool_matches"] = icepool_exact() == exact
    else:
        out["icepool_matches"] = None
    s["icepool"] = icepool_s
    n = 10**5 if quick else 10**6
    out["labels"]["monte_carlo"] = f"10^{len(str(n)) - 1}-attack Monte Carlo (resolve_bulk, compiled)"
    s["monte_carlo"] = _time(lambda: monte_carlo(n), max(1, repeat // 2))
    sampled = monte_carlo(n)
    out["monte_carlo_attacks"] = n
    out["monte_carlo_max_gap"] = max(abs(sampled.get(v, 0.0) - float(p)) for v, p in exact.items())
    # The largest mob the limits accept (max_mob_cost), answered whole: the issue-44 target.
    # One call each for the typical and the heavy strike (the slower is the figure).
    from .scenarios import HEAVY

    mobs = {}
    for name, scenario in (("typical", TYPICAL), ("heavy", HEAVY)):
        mob = {**scenario.single_request(), "count": _largest_mob(scenario.single_request())}
        started = time.perf_counter()
        fracas.odds(mob).to_dict()
        mobs[name] = {"count": mob["count"], "seconds": time.perf_counter() - started}
    out["largest_mob"] = mobs
    out["largest_mob_s"] = max(mob["seconds"] for mob in mobs.values())
    for other in ("fracas_warm", "icepool", "monte_carlo"):
        if s.get(other):
            out["ratios"][f"{other}_vs_cold"] = s[other] / s["fracas_cold"]
    return out


def _largest_mob(request: dict) -> int:
    """The largest count of `request`'s attack whose exact odds fracas accepts (max_mob_cost)."""
    from fracas.drive.odds import MAX_COUNT

    try:
        fracas.odds({**request, "count": min(1000, MAX_COUNT)})
    except fracas.LimitError as refused:
        found = re.search(r"at most (\d+) here", str(refused))
        if found:
            return int(found.group(1))
    return min(1000, MAX_COUNT)
