"""Simulations: many independent fights of one scenario, and who wins how often.

Fight i plays from the seed chunk_seed(seed, i) (round r from
chunk_seed(chunk_seed(seed, i), r)), so a fight is the same whichever worker plays
it. Workers play batches of consecutive fights and return integer totals, which add
up to the same numbers in any order: the result is identical for one process, many
processes or a Dask cluster; only its `timing` differs.
"""

from __future__ import annotations

import math
import os
import signal
import time
from collections.abc import Callable, Iterator
from typing import Any, Optional

from ..errors import LimitError, SchemaError
from ..requests import check_seed, parse_json
from ..rng import chunk_seed, new_seed
from . import fastfight
from .fight import DOWN, FLED, STANDING, Fight
from .scenario import Compiled, compile_scenario

MAX_RUNS = 10_000_000
#: Fights a worker plays per task (small enough for a lively progress bar and Ctrl-C).
BATCH = 200

_COMPILED: dict[bytes, Compiled] = {}


class MissingExtra(Exception):
    """An optional dependency (dask, matplotlib) is not installed; the message says how."""


def _compiled(scenario: bytes) -> Compiled:
    """A worker compiles each scenario once."""
    sc = _COMPILED.get(scenario)
    if sc is None:
        if len(_COMPILED) > 8:
            _COMPILED.clear()
        sc = _COMPILED[scenario] = compile_scenario(scenario)
    return sc


def play_batch(scenario: bytes, seed: int, first: int, count: int, loop: str = "auto") -> dict[str, Any]:
    """Fights first..first+count-1: integer totals (see `merge`). `loop` "auto" plays them
    on the compiled fight loop when it covers the scenario (`fastfight`), "python" on the
    Python round loop; a fight the compiled loop stops is played by the Python loop."""
    sc = _compiled(scenario)
    nsides, nmembers = len(sc.sides), len(sc.member_ids)
    totals: dict[str, Any] = {
        "fights": 0, "wins": [0] * nsides, "draws": 0, "rounds": {}, "survivors": [0] * nsides,
        "dealt": [0] * nmembers, "taken": [0] * nmembers, "survived": [0] * nmembers, "fled": [0] * nmembers,
        "down": [0] * nmembers, "compiled_fights": 0, "python_fights": 0,
    }
    fast = fastfight.plan_for(sc) if loop == "auto" else None
    i, end = first, first + count
    while i < end:
        if isinstance(fast, fastfight.FastPlan):
            i = fast.play(seed, i, end, totals)
            if i == end:
                break
        _play_python(sc, seed, i, totals)
        i += 1
    return totals


def _play_python(sc: Compiled, seed: int, i: int, totals: dict[str, Any]) -> None:
    """Fight i on the Python round loop, added to `totals`."""
    fight = Fight(sc)
    fight_seed = chunk_seed(seed, i)
    while not fight.over:
        fight.play_round(chunk_seed(fight_seed, fight.round + 1), log=False)
    totals["fights"] += 1
    totals["python_fights"] += 1
    if fight.winner is None:
        totals["draws"] += 1
    else:
        totals["wins"][sc.sides.index(fight.winner)] += 1
    rounds = totals["rounds"]
    rounds[fight.round] = rounds.get(fight.round, 0) + 1
    survivors, dealt, taken = totals["survivors"], totals["dealt"], totals["taken"]
    survived, fled, down = totals["survived"], totals["fled"], totals["down"]
    for m in fight.members:
        dealt[m.index] += m.dealt
        taken[m.index] += m.taken
        if m.status == STANDING:
            survived[m.index] += 1
            survivors[m.side] += 1
        elif m.status == FLED:
            fled[m.index] += 1
        elif m.status == DOWN:
            down[m.index] += 1


def merge(into: Optional[dict[str, Any]], part: dict[str, Any]) -> dict[str, Any]:
    """Add a batch's totals to `into` (integer sums: the order does not matter)."""
    if into is None:
        return {k: (dict(v) if isinstance(v, dict) else list(v) if isinstance(v, list) else v) for k, v in part.items()}
    for key, value in part.items():
        if isinstance(value, list):
            into[key] = [a + b for a, b in zip(into[key], value)]
        elif isinstance(value, dict):
            for r, n in value.items():
                into[key][r] = into[key].get(r, 0) + n
        else:
            into[key] += value
    return into


def wilson(k: int, n: int, z: float = 1.959963984540054) -> list[float]:
    """The 95 % Wilson score interval of k successes in n trials."""
    if n == 0:
        return [0.0, 1.0]
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return [round(max(0.0, centre - half), 6), round(min(1.0, centre + half), 6)]


def report(sc: Compiled, totals: dict[str, Any], runs: int, seed: int, why_python: Optional[str] = None) -> dict[str, Any]:
    """The result JSON (without timing) of the merged totals; `why_python`: why the fights
    played on the Python round loop, if they did."""
    n = totals["fights"]
    share = (lambda k: round(k / n, 6)) if n else (lambda k: 0.0)
    rounds = {int(r): c for r, c in totals["rounds"].items()}
    ordered = sorted(rounds)
    count = 0
    median = None
    for r in ordered:
        count += rounds[r]
        if 2 * count >= n:
            median = r
            break
    sides = {}
    for s, side in enumerate(sc.sides):
        members = [i for i, g in enumerate(sc.member_group) if sc.groups[g].side == s]
        sides[side] = {"wins": totals["wins"][s], "win_rate": share(totals["wins"][s]),
                       "win_rate_ci95": wilson(totals["wins"][s], n), "combatants": len(members),
                       "survivors_mean": round(totals["survivors"][s] / n, 4) if n else 0.0}
    combatants = {}
    for i, member in enumerate(sc.member_ids):
        g = sc.groups[sc.member_group[i]]
        combatants[member] = {"side": sc.sides[g.side], "group": g.spec.name,
                              "dealt_mean": round(totals["dealt"][i] / n, 4) if n else 0.0,
                              "taken_mean": round(totals["taken"][i] / n, 4) if n else 0.0,
                              "survived_rate": share(totals["survived"][i]), "fled_rate": share(totals["fled"][i]),
                              "down_rate": share(totals["down"][i])}
    return {
        "scenario": sc.name, "ruleset": sc.ruleset.name, "seed": seed, "runs": runs, "completed": n,
        "interrupted": n < runs,
        "sides": sides,
        "draws": {"count": totals["draws"], "rate": share(totals["draws"]), "rate_ci95": wilson(totals["draws"], n)},
        "rounds": {"mean": round(sum(r * c for r, c in rounds.items()) / n, 4) if n else 0.0,
                   "median": median, "min": ordered[0] if ordered else None, "max": ordered[-1] if ordered else None,
                   "histogram": {str(r): rounds[r] for r in ordered}},
        "combatants": combatants,
        "fight_loop": {"compiled_fights": totals.get("compiled_fights", 0),
                       "python_fights": totals.get("python_fights", 0),
                       "python_why": why_python if totals.get("python_fights") else None},
    }


def _batches(runs: int, batch: int) -> list[tuple[int, int]]:
    return [(first, min(batch, runs - first)) for first in range(0, runs, batch)]


def _quiet_worker() -> None:
    """Workers leave Ctrl-C to the parent, which stops them cleanly."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _local(scenario: bytes, seed: int, batches: list[tuple[int, int]], workers: int,
           loop: str) -> Iterator[dict[str, Any]]:
    if workers == 1:
        for first, count in batches:
            yield play_batch(scenario, seed, first, count, loop)
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_quiet_worker)
    try:
        queue = iter(batches)
        running = set()
        for first, count in queue:  # two tasks per worker in flight, the rest as they finish
            running.add(pool.submit(play_batch, scenario, seed, first, count, loop))
            if len(running) >= 2 * workers:
                break
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
                nxt = next(queue, None)
                if nxt is not None:
                    running.add(pool.submit(play_batch, scenario, seed, *nxt, loop))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _dask(scenario: bytes, seed: int, batches: list[tuple[int, int]], address: str,
          workers: int, loop: str) -> Iterator[dict[str, Any]]:
    try:
        import importlib

        dd: Any = importlib.import_module("dask.distributed")  # untyped: used through Any
    except ImportError:
        raise MissingExtra("--dask needs dask.distributed: pip install 'fracas[dask]'") from None
    Client, LocalCluster, as_completed = dd.Client, dd.LocalCluster, dd.as_completed
    cluster = None
    if address == "local":
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    else:
        try:
            client = Client(address, timeout="10s")
        except OSError as exc:
            raise MissingExtra(f"--dask {address}: cannot reach the scheduler ({exc})") from None
    futures: list[Any] = []
    try:
        futures = [client.submit(play_batch, scenario, seed, first, count, loop, pure=False)
                   for first, count in batches]
        for future in as_completed(futures):
            yield future.result()
    finally:
        for future in futures:
            future.cancel()
        client.close()
        if cluster is not None:
            cluster.close()


def simulate(scenario: Any, *, runs: int, seed: Optional[int] = None, workers: int = 1,
             dask: Optional[str] = None, progress: Optional[Callable[[int], None]] = None,
             batch: int = BATCH, loop: str = "auto") -> dict[str, Any]:
    """Play `runs` fights of `scenario` and report who wins how often, rounds, survivors,
    and damage dealt and taken per combatant. `workers` processes on this machine, or
    `dask` (a scheduler address, or "local" for a LocalCluster of `workers` workers).
    `progress(fights_done)` is called as batches finish. On KeyboardInterrupt the fights
    finished so far are reported (`interrupted: true`). `loop`: "auto" plays the fights on
    the compiled fight loop when it covers the scenario (the same fights, faster:
    `fastfight`), "python" on the Python round loop; `fight_loop` in the result says how
    many fights each played, and why any played on the Python loop."""
    import orjson

    source = parse_json(scenario)
    sc = compile_scenario(source)  # every error before any worker starts
    blob = orjson.dumps(source)
    _COMPILED.setdefault(blob, sc)  # this process plays with it (workers=1)
    sc = _compiled(blob)
    if loop not in ("auto", "python"):
        raise SchemaError("loop", f"loop must be 'auto' or 'python', got {loop!r}")
    if isinstance(runs, bool) or not isinstance(runs, int) or not 1 <= runs <= MAX_RUNS:
        raise LimitError("runs", f"runs must be 1 to {MAX_RUNS}, got {runs!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 1024:
        raise SchemaError("workers", f"workers must be 1 to 1024, got {workers!r}")
    check_seed(seed, "seed")
    seed = new_seed() if seed is None else seed
    fast = fastfight.plan_for(sc) if loop == "auto" else "loop 'python' was asked for"
    batches = _batches(runs, max(1, batch))
    started = time.perf_counter()
    totals: Optional[dict[str, Any]] = None
    stream = (_dask(blob, seed, batches, dask, workers, loop) if dask
              else _local(blob, seed, batches, workers, loop))
    try:
        for part in stream:
            totals = merge(totals, part)
            if progress is not None:
                progress(part["fights"])
    except KeyboardInterrupt:
        pass
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    elapsed = time.perf_counter() - started
    if totals is None:
        totals = merge(None, play_batch(blob, seed, 0, 0, loop))
    why = fast if isinstance(fast, str) else "the compiled fight loop stopped (the Python loop reports why)"
    out = report(sc, totals, runs, seed, why)
    out["timing"] = {"seconds": round(elapsed, 4), "fights_per_second": round(totals["fights"] / elapsed, 1)
                     if elapsed > 0 else None, "workers": workers,
                     "executor": f"dask {dask}" if dask else ("processes" if workers > 1 else "in-process"),
                     "cpus": os.cpu_count()}
    return out


def plot(result: dict[str, Any], path: str) -> None:
    """Win rates (with their 95 % intervals) and the rounds histogram, as a PNG."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingExtra("--plot needs matplotlib: pip install 'fracas[plot]'") from None
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    names = [*result["sides"], "draw"]
    rates = [s["win_rate"] for s in result["sides"].values()] + [result["draws"]["rate"]]
    cis = [s["win_rate_ci95"] for s in result["sides"].values()] + [result["draws"]["rate_ci95"]]
    errors = [[r - lo for r, (lo, _hi) in zip(rates, cis)], [hi - r for r, (_lo, hi) in zip(rates, cis)]]
    left.bar(names, rates, yerr=errors, capsize=4, color=["#4c72b0", "#c44e52", "#55a868", "#8172b2"][:len(names)])
    left.set_ylim(0, 1)
    left.set_ylabel("share of fights")
    left.set_title(f"Who wins ({result['completed']} fights, 95 % intervals)")
    hist = result["rounds"]["histogram"]
    right.bar([int(r) for r in hist], list(hist.values()), color="#4c72b0")
    right.set_xlabel("rounds to finish")
    right.set_ylabel("fights")
    right.set_title("How long the fights last")
    fig.suptitle(result["scenario"] or "fracas simulation")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
