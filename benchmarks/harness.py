"""Side-by-side timing: interleaved rounds, medians, paired ratios.

The machines this runs on are shared and noisy, so no figure is trusted alone:
every contestant of a table is timed once per round, in a rotating order, several
rounds; a table reports each contestant's median rate and, for a ratio, the median
of the per-round ratios (two contestants timed seconds apart share the same noise).
"""

from __future__ import annotations

import gc
import statistics
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

#: Called after every timed sample (a progress bar advances by one).
Tick = Callable[[], None]


def _no_tick() -> None:
    return None


@dataclass
class Contestant:
    """One thing being timed: `run(n, seed)` does `n` units of work (attacks)."""

    key: str
    label: str
    run: Callable[[int, int], object]
    batch: int = 0                  # units per sample, set by `calibrate`
    max_batch: int = 10**9
    samples: list = field(default_factory=list)   # units per second, one per round

    @property
    def median(self) -> Optional[float]:
        return statistics.median(self.samples) if self.samples else None


def timed(run: Callable[[int, int], object], n: int, seed: int) -> float:
    """Seconds one call `run(n, seed)` takes, with the garbage collector held off.

    Callers collect the young garbage once per round instead of before every
    sample: a full collection costs milliseconds in a big process.
    """
    gc.disable()
    try:
        start = time.perf_counter_ns()
        run(n, seed)
        elapsed = time.perf_counter_ns() - start
    finally:
        gc.enable()
    return max(elapsed, 1) / 1e9


def calibrate(contestant: Contestant, target_s: float, seed: int = 7) -> int:
    """Pick the batch size whose one call takes about `target_s` seconds.

    Starts small and grows by the measured rate (at most ×100 per step), so a slow
    contestant (the d20 library) is never handed a batch that takes minutes.
    """
    n = 1
    contestant.run(1, seed)          # first-call costs (imports, caches) are not its speed
    gc.collect(1)
    while True:
        elapsed = timed(contestant.run, n, seed)
        if elapsed >= target_s * 0.5 or n >= contestant.max_batch:
            break
        grow = target_s / elapsed if elapsed > 0 else 100.0
        n = min(contestant.max_batch, max(n + 1, int(n * min(grow, 100.0))))
    contestant.batch = max(1, min(n, contestant.max_batch))
    return contestant.batch


def interleave(contestants: list[Contestant], rounds: int, tick: Tick = _no_tick,
               seed: int = 1000) -> None:
    """Time every contestant once per round, rotating who goes first; fills `.samples`."""
    for contestant in contestants:
        contestant.samples = []
    k = len(contestants)
    for r in range(rounds):
        gc.collect(1)
        for i in range(k):
            contestant = contestants[(r + i) % k]
            elapsed = timed(contestant.run, contestant.batch, seed + r)
            contestant.samples.append(contestant.batch / elapsed)
            tick()


def paired_ratio(numerator: Contestant, denominator: Contestant) -> Optional[float]:
    """Median over rounds of numerator rate / denominator rate (same-round pairs)."""
    pairs = [a / b for a, b in zip(numerator.samples, denominator.samples) if b > 0]
    return statistics.median(pairs) if pairs else None


def latencies(call: Callable[[], object], count: int) -> list[float]:
    """Seconds per call of `count` separate calls (each timed alone)."""
    out = []
    clock = time.perf_counter_ns
    gc.collect(1)
    gc.disable()
    try:
        for _ in range(count):
            start = clock()
            call()
            out.append((clock() - start) / 1e9)
    finally:
        gc.enable()
    return out
