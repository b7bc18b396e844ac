"""The sweep section of `fracas bench`: the wall time of a 20-point balance sweep.

The Enchanted Realms bandit rout with its bandits' count swept over 20 values (4, 6,
… 42): hurt bandits and adventurers leave the fight drawing flee attacks (ER-20), and
missed shots stray into the combatants named nearby (ER-17 friendly fire), both on the
compiled fight loop (the section reports how many fights played there). The same
number of fights at each point, from the same seed, three ways:
one process, every local core (processes started for the call, included), and a Dask
`LocalCluster` of 2 workers started before the section (its start-up reported on its
own) and reached by its scheduler address, as `fracas sweep --dask ADDRESS`. The
three tables are compared without their timing: they must be identical. The full
benchmark plays 10,000 fights per point (the issue's target: under 10 s on two
cores); `--quick` a few dozen.
"""

from __future__ import annotations

import gc
import time
from typing import Any, Optional

from fracas.drive.sweep import sweep

#: The swept field and its 20 values.
VARY = "$.sides.bandits[0].count=4..42:2"
POINTS = 20
SCENARIO = "@er-bandit-rout"


def _timed(runs: int, **how: Any) -> tuple[dict[str, Any], float]:
    # A full collection first, as the harness does before its timings: otherwise a
    # generation-2 collection the earlier sections made due (about 45 ms over the suite's
    # objects) may fall into this one-shot run and double its wall time.
    gc.collect()
    started = time.perf_counter()
    result = sweep(SCENARIO, [VARY], runs=runs, seed=2024, target=0.5, **how)
    return result.to_dict(), time.perf_counter() - started


def _without_timing(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "timing"}


def run(runs: int, cores: int) -> dict[str, Any]:
    """The wall time of a 20-point sweep of `runs` fights per point: one process, `cores`
    local processes and a Dask LocalCluster of 2 workers (None when dask is missing)."""
    from .fights_bench import _dask_cluster

    cluster, startup = _dask_cluster()
    seconds: dict[str, Optional[float]] = {}
    try:
        one, seconds["one_process"] = _timed(runs, workers=1)
        local, seconds["local_cores"] = _timed(runs, workers=cores)
        same = _without_timing(one) == _without_timing(local)
        seconds["dask"] = None
        if cluster is not None:
            on_dask, seconds["dask"] = _timed(runs, workers=2, dask=cluster.scheduler_address)
            same = same and _without_timing(one) == _without_timing(on_dask)
    finally:
        if cluster is not None:
            cluster.close()
    crossing = one["target"]["rows"][0]["crossings"]
    fights = runs * POINTS
    compiled = sum(point["fight_loop"]["compiled_fights"] for point in one["points"])
    return {"scenario": SCENARIO.lstrip("@"), "compiled_fights": compiled, "vary": VARY, "points": POINTS, "runs_per_point": runs, "fights": fights, "cores": cores,
            "dask_workers": 2 if cluster is not None else None,
            "dask_startup_s": round(startup, 3) if startup is not None else None,
            "seconds": {k: (round(v, 3) if v is not None else None) for k, v in seconds.items()},
            "fights_per_s": {k: (round(fights / v, 1) if v else None) for k, v in seconds.items()},
            "identical": same, "party_even_at": crossing[0]["at"] if crossing else None}


def table(section: Optional[dict[str, Any]]) -> list[str]:
    """The section as text lines for `fracas bench`."""
    if not section:
        return []
    s, rate = section["seconds"], section["fights_per_s"]
    dask = (f"{s['dask']:8.2f} s ({rate['dask']:,.0f} fights/s; 2 workers started once in"
            f" {section['dask_startup_s']:.1f} s)") if s["dask"] is not None else "       — (dask not installed)"
    even = section["party_even_at"]
    return [f"Sweep · {section['points']} points × {section['runs_per_point']:,} fights of {section['scenario']}"
            f" ({section['vary']}), the same seed each way; flee attacks (ER-20) and friendly fire (ER-17) on,"
            f" {section['compiled_fights']:,} of {section['fights']:,} fights on the compiled loop",
            f"  one process       {s['one_process']:8.2f} s ({rate['one_process']:,.0f} fights/s)",
            f"  {str(section['cores']) + ' local cores':<17} {s['local_cores']:8.2f} s ({rate['local_cores']:,.0f} fights/s, starting the processes included)",
            f"  Dask              {dask}",
            f"  same table each way: {'yes' if section['identical'] else 'NO'};"
            f" the party wins half its fights at {even if even is not None else 'no point swept'} bandits"]
