"""The fights section of `fracas bench`: whole simulated fights per second.

Each example scenario that ships with fracas (examples/scenarios) is simulated the
same number of times, from the same seed, three ways side by side:

- one process (`fracas.simulate(workers=1)`: no start-up cost);
- every local core (`workers=<cores>`: processes started for the call, included);
- a Dask `LocalCluster` of 2 workers, started once before the section (its start-up
  is reported on its own) and reached by its scheduler address, as `--dask ADDRESS`.

The three results are compared without their timing: they must be identical (the
simulation's promise), and the section says whether they were. `dask_vs_local` is
the wall time on Dask ÷ the wall time on local processes for the same fights: the
overhead of going through a scheduler.
"""

from __future__ import annotations

import time
from typing import Any, Optional

import orjson

from fracas.drive.scenario import example, examples
from fracas.drive.simulate import simulate


def _dask_cluster() -> tuple[Any, Optional[float]]:
    try:
        from dask.distributed import LocalCluster
    except ImportError:
        return None, None
    started = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    return cluster, time.perf_counter() - started


def _timed(scenario: bytes, runs: int, **how: Any) -> tuple[dict[str, Any], float]:
    started = time.perf_counter()
    result = simulate(scenario, runs=runs, seed=2024, **how)
    return result, time.perf_counter() - started


def run(runs: int, cores: int, big: Optional[int] = None) -> dict[str, Any]:
    """Fights per second of every example scenario, `runs` fights each way; with `big`,
    also the wall time of `big` fights of the Enchanted Realms example on the local cores."""
    started = time.perf_counter()
    simulate(example("ww-duel"), runs=cores, seed=1, workers=cores, batch=1)
    local_startup = time.perf_counter() - started
    cluster, startup = _dask_cluster()
    out: dict[str, Any] = {"runs": runs, "cores": cores, "dask_workers": 2 if cluster else None,
                           "local_startup_s": round(local_startup, 3),
                           "dask_startup_s": round(startup, 3) if startup is not None else None, "scenarios": {},
                           "er_big": None}
    try:
        for name in examples():
            scenario = example(name)
            title = orjson.loads(scenario).get("name", name)
            one, t_one = _timed(scenario, runs, workers=1)
            local, t_local = _timed(scenario, runs, workers=cores)
            row: dict[str, Any] = {"title": title, "ruleset": one["ruleset"],
                                   "seconds": {"one_process": round(t_one, 4), "local_cores": round(t_local, 4)},
                                   "fights_per_s": {"one_process": round(runs / t_one, 1),
                                                    "local_cores": round(runs / t_local, 1)}}
            same = _strip(one) == _strip(local)
            if cluster is not None:
                on_dask, t_dask = _timed(scenario, runs, workers=2, dask=cluster.scheduler_address)
                row["seconds"]["dask"] = round(t_dask, 4)
                row["fights_per_s"]["dask"] = round(runs / t_dask, 1)
                row["dask_vs_local"] = round(t_dask / t_local, 3)
                same = same and _strip(one) == _strip(on_dask)
            else:
                row["seconds"]["dask"] = row["fights_per_s"]["dask"] = row["dask_vs_local"] = None
            row["identical"] = same
            row["rounds_mean"] = one["rounds"]["mean"]
            out["scenarios"][name] = row
        if big:
            _result, seconds = _timed(example("er-skeleton-horde"), big, workers=cores)
            out["er_big"] = {"runs": big, "seconds": round(seconds, 3), "workers": cores}
    finally:
        if cluster is not None:
            cluster.close()
    return out


def _strip(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "timing"}


def table(section: Optional[dict[str, Any]]) -> list[str]:
    """The section as text lines for `fracas bench`."""
    if not section:
        return []
    dask = section["dask_workers"]
    lines = [f"Fights · {section['runs']:,} simulated fights per example scenario, the same seed each way "
             f"(one process | {section['cores']} local processes, started for each call in about "
             f"{section['local_startup_s']:.1f} s | Dask LocalCluster, "
             + (f"2 workers, started once in {section['dask_startup_s']:.1f} s)" if dask else "not installed)")]
    lines.append(f"  {'scenario':<22} {'1 process':>12} {'local cores':>12} {'Dask':>12} {'Dask ÷ local':>13}  same")
    for name, row in section["scenarios"].items():
        rates = row["fights_per_s"]
        dask_rate = f"{rates['dask']:,.0f}/s" if rates["dask"] else "—"
        ratio = f"{row['dask_vs_local']:.2f}×" if row["dask_vs_local"] else "—"
        lines.append(f"  {name:<22} {rates['one_process']:>10,.0f}/s {rates['local_cores']:>10,.0f}/s {dask_rate:>12}"
                     f" {ratio:>13}  {'yes' if row['identical'] else 'NO'}")
    lines.append("  (local cores include starting their processes; Dask ÷ local is wall time for the same fights;"
                 " same: identical results without timing)")
    big = section.get("er_big")
    if big:
        lines.append(f"  {big['runs']:,} fights of er-skeleton-horde on {big['workers']} local cores:"
                     f" {big['seconds']:.1f} s")
    else:
        lines.append("  (the 10,000-fight er-skeleton-horde run is part of the full benchmark, not --quick)")
    return lines
