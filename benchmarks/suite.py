"""The benchmark suite `fracas bench` runs: sections, sizes, and the result document.

`Suite(options).run(tick)` measures every section and returns one JSON-ready dict
(documented in `benchmarks/README.md`); `report.format_report` prints it. Nothing
here asserts a figure: the targets are evaluated and reported, never enforced.
"""

from __future__ import annotations

import datetime
import os
import platform
import statistics
import time
from dataclasses import dataclass
from typing import Callable, Optional

import fracas
from fracas import _kernels

from . import (d20_library, engine_runs, fight_loop_bench, fights_bench, numpy_batch, odds_bench, randint_loop,
               rulesets_bench)

from . import plugin_bench, startup_bench, sweep_bench
from .harness import Contestant, calibrate, interleave, latencies, paired_ratio
from .scenarios import HEAVY, MULTI, TYPICAL, WORDS_PER_ATTACK

#: (what, threshold, unit) of every target the project answers to (issues 3 and 5).
TARGETS = {
    "vs_randint": ("compiled ÷ random.randint loop, scenario 1, single thread", 150.0, "×"),
    "vs_numpy": ("compiled ÷ NumPy batch, scenario 1, single thread", 5.0, "×"),
    "vs_numpy_table": ("compiled ÷ table-lookup NumPy batch (the fastest NumPy we know), scenario 1, single thread",
                       4.0, "×"),
    "vs_d20": ("compiled ÷ d20 library, scenario 1, single thread", 1000.0, "×"),
    "of_limit": ("compiled ÷ generator-only limit, scenario 1", 0.50, ""),
    "of_lanes_limit": ("compiled ÷ the 8-lane generator limit (the lane kernel's instruction set), scenario 1",
                       0.30, ""),
    "single_resolve_us": ("one fracas.resolve, typical attack, median", 10.0, "µs"),
    "single_resolve_to_dict_us": ("one fracas.resolve and to_dict(), typical attack, median", 12.0, "µs"),
    "resolve_vs_plain": ("one fracas.resolve ÷ the same attack as a plain random.randint function, median", 2.0, "×"),
    "resolve_to_dict_vs_plain": ("one fracas.resolve and to_dict() ÷ the plain random.randint function, median",
                                 3.0, "×"),
    "bulk_300_vs_dice": ("one 300-attack bulk request and to_dict() ÷ the bare kernel's time for those 300 attacks'"
                         " dice (its per-attack rate in a large call), median", 3.0, "×"),
    "bulk_single_thread": ("bulk summary, single thread", 5e7, "attacks/s"),
    "bulk_cores_ratio": ("bulk summary, both cores ÷ single thread, largest batch", 1.8, "×"),
    "bulk_memory_mb": ("peak memory, 10^8 attacks minus 10^3 attacks", 100.0, "MB"),
    "bridge_overhead": ("bridge 10^6-attack request ÷ in-process", 1.2, "×"),
    "forecast_overhead": ("fight.forecast of 10,000 fights of a 4-vs-12 skirmish through fracas serve ÷ in-process"
                          " fracas.simulate", 1.5, "×"),
    "forecast_examples_s": ("slowest shipped example's fight.forecast (1,000 fights) through the bridge", 1.0, "s"),
    "er_fights_per_s": ("er-skeleton-horde fights, compiled fight loop, one process", 1e5, "fights/s"),
    "fight_attacks_share": ("attacks/s inside compiled fights ÷ bulk attacks/s, 300-creature horde whose fights last about 300 attacks", 0.10, ""),
    "fight_attacks_share_reactions": ("attacks/s inside compiled fights ÷ bulk attacks/s, er-bandit-rout: ER-20 flee"
                                      " attacks and ER-17 friendly fire in play (issue 41)", 0.15, ""),
    "tactic_flat": ("compiled fight loop, time per attack among 2,000 creatures ÷ among 30, the worst of nearest,"
                    " weakest, random and focus, without and with ER-20 flee attacks", 1.5, "×"),
    "compile_2000_s": ("compiling a 2,000-creature scenario for the compiled fight loop", 0.1, "s"),

    "sweep_cores_s": ("20-point sweep of 10,000 fights each, every local core", 10.0, "s"),
    "import_vs_json_msgspec": ("import fracas ÷ import json, msgspec, fresh interpreters side by side, median", 2.0,
                               "×"),
    "help_ms": ("fracas --help, a fresh process, median", 150.0, "ms"),
    "largest_mob_odds_s": ("the largest mob fracas.odds accepts, answered whole (to_dict), slower of typical and"
                           " heavy strike", 1.0, "s"),
    "plugin_of_row": ("compiled example plug-in (docs/examples/burstpool, public bulk API) ÷ the row kernel,"
                      " the same 10d6 bursting pool, single thread", 0.30, ""),
}
#: Targets met by staying at or below the threshold (the rest: at or above).
AT_MOST = {"single_resolve_us", "single_resolve_to_dict_us", "resolve_vs_plain", "resolve_to_dict_vs_plain",
           "bulk_300_vs_dice", "bulk_memory_mb", "bridge_overhead", "sweep_cores_s",
           "forecast_overhead", "forecast_examples_s", "import_vs_json_msgspec", "help_ms", "tactic_flat",
           "compile_2000_s", "largest_mob_odds_s"}


@dataclass
class Options:
    """What to run and how long to spend on it."""

    quick: bool = False
    rounds: Optional[int] = None
    scale: float = 1.0          # multiplies every size and sample time (tests use tiny ones)
    bridge: bool = False
    threads: Optional[int] = None   # "both cores" figure; None = every core this process may use

    @property
    def n_rounds(self) -> int:
        return self.rounds if self.rounds else (5 if self.quick else 7)

    @property
    def sample_s(self) -> float:
        """Seconds one timed sample aims for."""
        return (0.08 if self.quick else 0.4) * self.scale

    def size(self, n: int) -> int:
        return max(1, int(n * self.scale))

    @property
    def bulk_sizes(self) -> list[int]:
        return [self.size(10**6)] if self.quick else [self.size(10**6), self.size(10**7)]

    @property
    def scaling_sizes(self) -> list[int]:
        top = self.size(10**7)
        return [10**k for k in range(1, 8) if 10**k <= max(top, 1000)]

    @property
    def memory_sizes(self) -> tuple[int, int]:
        return 1000, (self.size(10**7) if self.quick else self.size(10**8))

    @property
    def fight_runs(self) -> int:
        """Simulated fights per example scenario and way of running them."""
        return max(20, int((1_000 if self.quick else 5_000) * self.scale))

    @property
    def fight_loop_sizes(self) -> tuple[int, int, int, int]:
        """Fights on the compiled loop, fights on the Python loop, bulk attacks, logged fights."""
        fast, slow, bulk, logged = (20_000, 200, 10**6, 50) if self.quick else (200_000, 1_000, 10**7, 200)
        return (max(50, int(fast * self.scale)), max(10, int(slow * self.scale)), max(10**4, int(bulk * self.scale)),
                max(5, int(logged * self.scale)))

    @property
    def sweep_runs(self) -> int:
        """Fights per point of the 20-point sweep: the target's 10,000 (a few dozen with --quick)."""
        return max(10, int((40 if self.quick else 10_000) * self.scale))

    @property
    def latency_calls(self) -> int:
        return max(20, int((2_000 if self.quick else 20_000) * self.scale))

    @property
    def cores(self) -> int:
        if self.threads:
            return self.threads
        if hasattr(os, "sched_getaffinity"):
            return len(os.sched_getaffinity(0))
        return os.cpu_count() or 1


def machine() -> dict:
    """What the figures were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cpu": cpu, "cores": cores, "platform": platform.platform(),
            "python": platform.python_version(), "implementation": platform.python_implementation(),
            "load_average_start": _load_average()}


def _load_average() -> Optional[float]:
    """The 1-minute load average: other work on a shared machine skews the figures
    (the both-cores ratio most of all), so the report shows it."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def _versions() -> dict:
    out = {"fracas": fracas.__version__}
    for name in ("numpy", "d20"):
        try:
            from importlib.metadata import version

            out[name] = version(name)
        except Exception:  # noqa: BLE001 - not installed is a fine answer
            out[name] = None
    return out


class Suite:
    """Every section of the benchmark, run in order; `total_steps` sizes a progress bar."""

    def __init__(self, options: Options, bridge_module=None):
        if _kernels.compiled is None:
            raise RuntimeError("the compiled core is not built in this install: "
                               "fracas bench measures it against the rest")
        self.options = options
        self.bridge_module = bridge_module
        self.has_numpy = numpy_batch.available()
        self.has_d20 = d20_library.available()
        self._label = ""

    # -- sizing the progress bar -----------------------------------------------------
    def _typical_contestants(self) -> int:
        return 5 + 2 * self.has_numpy + self.has_d20

    @property
    def total_steps(self) -> int:
        o = self.options
        r = o.n_rounds
        steps = r * self._typical_contestants() + 2 * r * 3
        steps += len(o.bulk_sizes) * r * (3 + self.has_numpy)
        steps += 5 * r                                       # latency blocks
        steps += len(rulesets_bench.SCENARIOS) * r * (3 + self.has_numpy)
        steps += 3 * r                                       # the compiled plug-in
        steps += len(o.scaling_sizes) * r * 2
        steps += 2                                           # memory probes
        steps += r                                           # bulk over many groups
        steps += 1                                           # odds
        steps += 1                                           # fights
        steps += 1                                           # fight loop
        steps += 1                                           # sweep
        steps += 1                                           # start-up
        steps += 1 if (o.bridge and self.bridge_module) else 0
        return steps

    @property
    def label(self) -> str:
        """The section being measured now (for a progress bar)."""
        return self._label

    # -- running ---------------------------------------------------------------------
    def run(self, tick: Callable[[], None] = lambda: None) -> dict:
        o = self.options
        started = time.perf_counter()
        result: dict = {
            "fracas_version": fracas.__version__,
            "backend": fracas.backend,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "machine": machine(),
            "versions": _versions(),
            "quick": o.quick, "rounds": o.n_rounds, "scale": o.scale,
            "sample_s": o.sample_s,
        }
        self._label = "scenario 1: typical strike"
        typical, generator = self._typical(tick)
        scenarios = {"typical": typical}
        for scenario in (HEAVY, MULTI):
            self._label = f"scenario: {scenario.title}"
            scenarios[scenario.key] = self._engine_only(scenario, tick)
        for key in rulesets_bench.SCENARIOS:
            self._label = f"scenario: {rulesets_bench.SCENARIOS[key][0]}"
            scenarios[key] = self._ruleset(key, tick)
        self._label = "compiled plug-in"
        result["plugin"] = self._plugin(tick)
        self._label = "bulk"
        bulk = self._bulk(tick)
        scenarios["bulk"] = bulk.pop("scenario")
        result["scenarios"] = scenarios
        result["generator"] = generator
        self._label = "single resolve latency"
        result["api"] = self._latency(tick)
        self._label = "exact odds"
        result["odds"] = odds_bench.run(o.quick)
        tick()
        self._label = "fights"
        result["fights"] = fights_bench.run(o.fight_runs, o.cores,
                                            None if o.quick else max(20, int(10_000 * o.scale)))
        tick()
        self._label = "fight loop"
        result["fight_loop"] = fight_loop_bench.run(*o.fight_loop_sizes)
        tick()
        self._label = "sweep"
        result["sweep"] = sweep_bench.run(o.sweep_runs, o.cores)
        tick()
        self._label = "start-up"
        result["startup"] = startup_bench.run(o.n_rounds * (1 if o.quick else 3))
        tick()
        self._label = "scaling"
        result["scaling"] = self._scaling(tick)
        self._label = "bulk groups"
        bulk["groups"] = self._groups(tick)
        self._label = "bulk memory"
        bulk["memory"] = self._memory(tick)
        result["bulk"] = bulk
        if o.bridge and self.bridge_module is not None:
            self._label = "bridge"
            result["bridge"] = self.bridge_module.run(o.quick)
            tick()
        else:
            result["bridge"] = None
        result["targets"] = evaluate_targets(result)
        result["machine"]["load_average_end"] = _load_average()
        result["elapsed_s"] = round(time.perf_counter() - started, 2)
        return result

    def _calibrated(self, contestants: list[Contestant]) -> list[Contestant]:
        for contestant in contestants:
            calibrate(contestant, self.options.sample_s)
        return contestants

    def _typical(self, tick) -> tuple[dict, dict]:
        """Scenario 1: every contestant side by side, plus the generator limit."""
        o = self.options
        contestants = [
            Contestant("compiled", "fracas compiled (public API)",
                       engine_runs.api(TYPICAL, "compiled", threads=1)),
            Contestant("kernel", "fracas compiled (bare kernel)", engine_runs.kernel(TYPICAL)),
            Contestant("python", "fracas pure Python (public API)",
                       engine_runs.api(TYPICAL, "python", threads=1)),
            Contestant("randint", randint_loop.LABEL, randint_loop.run),
            Contestant("generator", "xoshiro128** alone (limit)",
                       engine_runs.generator(float(WORDS_PER_ATTACK))),
        ]
        if hasattr(_kernels.compiled, "lanes_words"):
            isa = _kernels.compiled.LANES_ISA
            contestants.append(Contestant("generator_lanes", f"xoshiro128** ×{_kernels.compiled.LANES} lanes, {isa}"
                                          " (the lane kernel's limit)",
                                          engine_runs.generator_lanes(float(WORDS_PER_ATTACK))))
            contestants.append(Contestant("dice_lanes", f"{_kernels.compiled.LANES}-lane d20 pool and hit count, {isa}"
                                          " (no crits, no damage)", engine_runs.dice_lanes(TYPICAL)))
            contestants.append(Contestant("draws_lanes", f"{_kernels.compiled.LANES}-lane kernel's draws alone, {isa}"
                                          " (its d20s and crit chains, nothing computed)",
                                          engine_runs.draws_lanes(TYPICAL)))
        if self.has_numpy:
            contestants.append(Contestant("numpy", numpy_batch.LABEL, numpy_batch.run))
            contestants.append(Contestant("numpy_simple", numpy_batch.LABEL_SIMPLE, numpy_batch.run_simple))
            contestants.append(Contestant("numpy_table", numpy_batch.LABEL_TABLE, numpy_batch.run_table))
        if self.has_d20:
            contestants.append(Contestant("d20", d20_library.LABEL, d20_library.run))
        interleave(self._calibrated(contestants), o.n_rounds, tick)
        by_key = {c.key: c for c in contestants}
        rates = {key: (by_key[key].median if key in by_key else None)
                 for key in ("compiled", "kernel", "python", "randint", "numpy", "numpy_simple", "numpy_table", "d20")}
        ratios = {"compiled_vs_kernel": paired_ratio(by_key["compiled"], by_key["kernel"])}
        for head in ("compiled", "kernel"):
            for other in ("python", "randint", "numpy", "numpy_simple", "numpy_table", "d20", "generator",
                          "generator_lanes", "dice_lanes", "draws_lanes"):
                if other in by_key:
                    ratios[f"{head}_vs_{other}"] = paired_ratio(by_key[head], by_key[other])
        typical = {
            "title": TYPICAL.title, "description": TYPICAL.description,
            "attacks_per_s": rates, "ratios": ratios,
            "batch": {c.key: c.batch for c in contestants},
            "labels": {c.key: c.label for c in contestants},
        }
        limit = by_key["generator"].median
        generator = {"words_per_s": limit * float(WORDS_PER_ATTACK),
                     "attacks_per_s_limit": limit,
                     "words_per_attack": float(WORDS_PER_ATTACK),
                     "compiled_fraction_of_limit": ratios["compiled_vs_generator"],
                     "kernel_fraction_of_limit": ratios["kernel_vs_generator"]}
        if "generator_lanes" in by_key:
            generator.update(lanes_attacks_per_s_limit=by_key["generator_lanes"].median,
                             lanes_dice_attacks_per_s=by_key["dice_lanes"].median,
                             compiled_fraction_of_lanes_limit=ratios["compiled_vs_generator_lanes"],
                             kernel_fraction_of_lanes_limit=ratios["kernel_vs_generator_lanes"],
                             compiled_fraction_of_lanes_dice=ratios["compiled_vs_dice_lanes"],
                             lanes_draws_attacks_per_s=by_key["draws_lanes"].median,
                             compiled_fraction_of_lanes_draws=ratios["compiled_vs_draws_lanes"],
                             draws_fraction_of_lanes_limit=paired_ratio(by_key["draws_lanes"],
                                                                        by_key["generator_lanes"]))
        return typical, generator

    def _engine_only(self, scenario, tick) -> dict:
        """Scenarios 2 and 3: the engine's own backends (competitors do scenario 1 only)."""
        contestants = [
            Contestant("compiled", "fracas compiled (public API)",
                       engine_runs.api(scenario, "compiled", threads=1)),
            Contestant("kernel", "fracas compiled (bare kernel)", engine_runs.kernel(scenario)),
            Contestant("python", "fracas pure Python (public API)",
                       engine_runs.api(scenario, "python", threads=1)),
        ]
        interleave(self._calibrated(contestants), self.options.n_rounds, tick)
        by_key = {c.key: c for c in contestants}
        rates = {key: by_key[key].median for key in ("compiled", "kernel", "python")}
        rates.update(randint=None, numpy=None, numpy_simple=None, numpy_table=None, d20=None)
        ratios = {
            "compiled_vs_python": paired_ratio(by_key["compiled"], by_key["python"]),
            "kernel_vs_python": paired_ratio(by_key["kernel"], by_key["python"]),
            "compiled_vs_kernel": paired_ratio(by_key["compiled"], by_key["kernel"]),
        }
        return {"title": scenario.title, "description": scenario.description,
                "attacks_per_s": rates, "ratios": ratios,
                "batch": {c.key: c.batch for c in contestants},
                "labels": {c.key: c.label for c in contestants}}

    def _ruleset(self, key: str, tick) -> dict:
        """A Cartyrion, Worldwalker or d6-pool scenario: fracas beside a randint loop and NumPy, same rule."""
        title, description, _profile, _target = rulesets_bench.SCENARIOS[key]
        own = rulesets_bench.CONTESTANTS[key]
        way = "row kernel" if key == "pool" else "public API"  # no shipped ruleset rolls the pool yet
        contestants = [
            Contestant("compiled", f"fracas compiled ({way})", rulesets_bench.api(key, "compiled")),
            Contestant("python", f"fracas pure Python ({way})", rulesets_bench.api(key, "python")),
            Contestant("randint", "random.randint loop", own["randint"]),
        ]
        if self.has_numpy:
            contestants.append(Contestant("numpy", "NumPy batch (tuned)", own["numpy"]))
        interleave(self._calibrated(contestants), self.options.n_rounds, tick)
        by_key = {c.key: c for c in contestants}
        rates = {k: (by_key[k].median if k in by_key else None) for k in ("compiled", "python", "randint", "numpy")}
        ratios = {f"compiled_vs_{k}": paired_ratio(by_key["compiled"], by_key[k])
                  for k in ("python", "randint", "numpy") if k in by_key}
        return {"title": title, "description": description, "attacks_per_s": rates, "ratios": ratios,
                "batch": {c.key: c.batch for c in contestants},
                "labels": {c.key: c.label for c in contestants}}

    def _plugin(self, tick) -> dict:
        """The compiled example plug-in beside the row kernel, same pool (plugin_bench)."""
        why = plugin_bench.missing()
        if why is not None:
            for _ in range(3 * self.options.n_rounds):
                tick()
            return {"missing": why}
        contestants = [
            Contestant("row", "row kernel, bare (xroll_summary)", plugin_bench.row_kernel()),
            Contestant("plugin", "burstpool's Cython kernel (public bulk API)", plugin_bench.plugin("compiled")),
            Contestant("twin", "burstpool's pure-Python twin (public bulk API)", plugin_bench.plugin("python")),
            Contestant("rowapi", "burstpool's row_pools (fracas_rows.pxd)", plugin_bench.row_api()),
        ]
        interleave(self._calibrated(contestants), self.options.n_rounds, tick)
        by_key = {c.key: c for c in contestants}
        return {"attacks_per_s": {c.key: c.median for c in contestants},
                "labels": {c.key: c.label for c in contestants},
                "of_row": paired_ratio(by_key["plugin"], by_key["row"]),
                "plugin_vs_twin": paired_ratio(by_key["plugin"], by_key["twin"]),
                "row_api_of_row": paired_ratio(by_key["rowapi"], by_key["row"])}

    def _bulk(self, tick) -> dict:
        """Scenario 4 and the bulk figures: big batches, one thread and every core."""
        o = self.options
        cores = o.cores
        sizes = []
        for n in o.bulk_sizes:
            contestants = [
                Contestant("compiled", "public bulk API, 1 thread",
                           engine_runs.api(TYPICAL, "compiled", 1), n),
                Contestant("compiled_cores", f"public bulk API, {cores} threads",
                           engine_runs.api(TYPICAL, "compiled", cores), n),
                Contestant("kernel", "bare kernel, 1 thread", engine_runs.kernel(TYPICAL), n),
            ]
            if self.has_numpy:
                contestants.append(Contestant("numpy", numpy_batch.LABEL, numpy_batch.run, n))
            interleave(contestants, o.n_rounds, tick)
            by_key = {c.key: c for c in contestants}
            entry = {"attacks": n, "threads": cores,
                     "attacks_per_s": {c.key: c.median for c in contestants},
                     "cores_vs_single": paired_ratio(by_key["compiled_cores"], by_key["compiled"]),
                     "compiled_vs_kernel": paired_ratio(by_key["compiled"], by_key["kernel"]),
                     "labels": {c.key: c.label for c in contestants}}
            if "numpy" in by_key:
                entry["compiled_vs_numpy"] = paired_ratio(by_key["compiled"], by_key["numpy"])
            sizes.append(entry)
        largest = sizes[-1]
        rates = largest["attacks_per_s"]
        scenario = {"title": "bulk", "description": f"{largest['attacks']:,} typical strikes in one batch",
                    "attacks": largest["attacks"],
                    "attacks_per_s": {"compiled": rates.get("compiled"),
                                      "compiled_cores": rates.get("compiled_cores"),
                                      "kernel": rates.get("kernel"), "python": None,
                                      "randint": None, "numpy": rates.get("numpy"),
                                      "numpy_simple": None, "numpy_table": None, "d20": None}}
        return {"sizes": sizes, "threads": cores, "scenario": scenario}

    #: Groups (and as many targets) one bulk request of 10^5 attacks is spread over.
    GROUPS = (10, 100, 1600)

    def _groups(self, tick) -> list[dict]:
        """10^5 attacks over 10, 100 and 1600 `attacks` entries (each its own target): resolve
        and to_dict, single thread, medians of interleaved rounds. Flat µs per attack is the
        aim; what grows with the groups is the answer itself (one entry per group and target)."""
        o = self.options
        total = o.size(10**5)
        strike = {k: v for k, v in TYPICAL.single_request()["strikes"][0].items() if k != "target"}
        attacker = TYPICAL.single_request()["attacker"]
        requests = {}
        for groups in self.GROUPS:
            per = max(1, total // groups)
            requests[groups] = {
                "profiles": {"p": {"attacker": attacker, "strikes": [strike]}},
                "targets": {f"t{i}": {"ac": 14} for i in range(groups)},
                "attacks": [{"profile": "p", "target": f"t{i}", "count": per} for i in range(groups)],
                "seed": 7,
            }
        samples: dict[int, list[tuple[float, float]]] = {g: [] for g in self.GROUPS}
        # The first call of each request compiles it (checked group by group, in Python);
        # later calls of the same request reuse the compiled plan, as a repeated macro does.
        first: dict[int, float] = {}
        from fracas.drive import clear_plan_cache

        clear_plan_cache()
        for groups in self.GROUPS:
            start = time.perf_counter()
            fracas.resolve_bulk(requests[groups], threads=1)
            first[groups] = time.perf_counter() - start
        for r in range(o.n_rounds):
            order = list(self.GROUPS)
            order = order[r % len(order):] + order[:r % len(order)]
            for groups in order:
                start = time.perf_counter()
                result = fracas.resolve_bulk(requests[groups], threads=1)
                rolled = time.perf_counter()
                result.to_dict()
                samples[groups].append((rolled - start, time.perf_counter() - rolled))
            tick()
        rows = []
        for groups in self.GROUPS:
            attacks = max(1, total // groups) * groups
            resolve_s = statistics.median(s for s, _ in samples[groups])
            to_dict_s = statistics.median(d for _, d in samples[groups])
            rows.append({"groups": groups, "attacks": attacks, "resolve_s": resolve_s, "to_dict_s": to_dict_s,
                         "resolve_us_per_attack": resolve_s / attacks * 1e6,
                         "to_dict_us_per_group": to_dict_s / groups * 1e6,
                         "first_call_s": first[groups]})
        return rows

    def _latency(self, tick) -> dict:
        """One `fracas.resolve` per call, each call timed alone; medians in µs."""
        o = self.options
        calls = {
            "single_resolve_us": engine_runs.single(TYPICAL),
            "single_resolve_json_us": engine_runs.single(TYPICAL, as_json=True),
            "single_resolve_to_dict_us": engine_runs.single(TYPICAL, to_dict=True),
            "single_resolve_first_us": engine_runs.single(TYPICAL, first=True),
            "single_resolve_python_us": engine_runs.single(TYPICAL),
            # The same attack as a plain Python function a user writes (random.randint): the
            # yardstick of one resolve's overhead (issue 44: one resolve is mostly overhead).
            "single_plain_python_us": randint_loop.single(),
            # A small charge (issue 44: a 300-attack request paid ~9× its dice in fixed costs):
            # resolve_bulk and to_dict of one request, made once as the single attack's is
            # (a repeated macro's: its plan cached), so the harness's dict building is not timed.
            "bulk_300_us": lambda: fracas.resolve_bulk(charge, seed=7, threads=1).to_dict(),
        }
        charge = TYPICAL.bulk_request(300)
        samples: dict[str, list[float]] = {key: [] for key in calls}
        block = max(1, o.latency_calls // o.n_rounds)
        for call in calls.values():    # warm caches and imports before timing
            with _kernels.using("python"):
                call()
            call()
        for r in range(o.n_rounds):
            keys = list(calls)
            keys = keys[r % len(keys):] + keys[:r % len(keys)]
            for key in keys:
                backend = "python" if key == "single_resolve_python_us" else "compiled"
                with _kernels.using(backend):
                    samples[key].extend(latencies(calls[key], block))
                tick()
        out: dict = {key: statistics.median(values) * 1e6 for key, values in samples.items()}
        times = sorted(samples["single_resolve_us"])
        out["single_resolve_p90_us"] = times[int(0.9 * (len(times) - 1))] * 1e6
        out["calls"] = block * o.n_rounds
        plain = out["single_plain_python_us"]
        out["resolve_vs_plain"] = out["single_resolve_us"] / plain
        out["resolve_to_dict_vs_plain"] = out["single_resolve_to_dict_us"] / plain
        # The dice of those 300 attacks: the bare kernel's time per attack in a call large
        # enough that its fixed cost does not show, times 300. The fastest of the rounds: the
        # dice's time is a floor, and a call of 10^5 attacks is long enough for a busy machine
        # to stretch a median (the ratio is then, if anything, larger than the truth).
        kernel = engine_runs.kernel(TYPICAL)
        big = o.size(10**5)
        kernel(big, 1)
        per_attack = min(latencies(lambda: kernel(big, 1), 1)[0] for _ in range(max(o.n_rounds, 5))) / big
        out["dice_300_us"] = per_attack * 300 * 1e6
        out["bulk_300_vs_dice"] = out["bulk_300_us"] / out["dice_300_us"]
        return out

    def _scaling(self, tick) -> list[dict]:
        """Attacks/s by batch size: the per-call overhead against the steady state."""
        o = self.options
        rows = []
        for n in o.scaling_sizes:
            def calls(run, n=n):
                def many(k: int, seed: int):
                    for i in range(k):
                        run(n, seed + i)
                return many

            contestants = [
                Contestant("api", "public bulk API", calls(engine_runs.api(TYPICAL, None, 1))),
                Contestant("kernel", "bare kernel", calls(engine_runs.kernel(TYPICAL))),
            ]
            with _kernels.using("compiled"):
                for contestant in contestants:
                    calibrate(contestant, o.sample_s / 2)
                interleave(contestants, o.n_rounds, tick)
            by_key = {c.key: c for c in contestants}
            rows.append({
                "batch": n,
                "api_attacks_per_s": by_key["api"].median * n,
                "api_us_per_call": 1e6 / by_key["api"].median,
                "kernel_attacks_per_s": by_key["kernel"].median * n,
                "kernel_us_per_call": 1e6 / by_key["kernel"].median,
                "api_vs_kernel": paired_ratio(by_key["api"], by_key["kernel"]),
            })
        return rows

    def _memory(self, tick) -> dict:
        """Peak memory of a small and a huge summary request, each in a fresh process."""
        from .memory import in_subprocess

        o = self.options
        small, large = o.memory_sizes
        base = in_subprocess(small)
        tick()
        big = in_subprocess(large)
        tick()
        note = None
        if large < 10**8:
            note = (f"10^8 attacks skipped in --quick; measured {large:,} instead"
                    if o.quick else f"scaled run: measured {large:,} attacks")
        return {"small_attacks": small, "small_peak_mb": base["peak_bytes"] / 1e6,
                "large_attacks": large, "large_peak_mb": big["peak_bytes"] / 1e6,
                "delta_mb": (big["peak_bytes"] - base["peak_bytes"]) / 1e6,
                "note": note}


def evaluate_targets(result: dict) -> list[dict]:
    """Each target with the figure measured and whether it is met (None: not measured)."""
    typical = result["scenarios"]["typical"]["ratios"]
    sizes = result["bulk"]["sizes"]
    memory = result["bulk"].get("memory") or {}
    measured = {
        "vs_randint": typical.get("compiled_vs_randint"),
        "vs_numpy": typical.get("compiled_vs_numpy"),
        "vs_numpy_table": typical.get("compiled_vs_numpy_table"),
        "vs_d20": typical.get("compiled_vs_d20"),
        "of_limit": typical.get("compiled_vs_generator"),
        "of_lanes_limit": typical.get("compiled_vs_generator_lanes"),
        "single_resolve_us": result["api"].get("single_resolve_us"),
        "single_resolve_to_dict_us": result["api"].get("single_resolve_to_dict_us"),
        "resolve_vs_plain": result["api"].get("resolve_vs_plain"),
        "resolve_to_dict_vs_plain": result["api"].get("resolve_to_dict_vs_plain"),
        "bulk_300_vs_dice": result["api"].get("bulk_300_vs_dice"),
        "bulk_single_thread": min((s["attacks_per_s"].get("compiled") or 0) for s in sizes) if sizes else None,
        # The largest batch: smaller ones are shown in their table, with the fixed cost of a call.
        "bulk_cores_ratio": sizes[-1].get("cores_vs_single") if sizes else None,
        "bulk_memory_mb": memory.get("delta_mb") if memory.get("large_attacks", 0) >= 10**8 else None,
        "bridge_overhead": _bridge_overhead(result.get("bridge")),
        "forecast_overhead": _forecast(result.get("bridge"), "overhead"),
        "forecast_examples_s": _forecast(result.get("bridge"), "examples_s"),
        "er_fights_per_s": _fight_loop(result, "er-skeleton-horde", "fights_per_s"),
        "fight_attacks_share": _fight_loop(result, fight_loop_bench.LONG_HORDE, "share_of_bulk"),
        "fight_attacks_share_reactions": _fight_loop(result, "er-bandit-rout", "share_of_bulk"),
        "tactic_flat": ((result.get("fight_loop") or {}).get("tactics") or {}).get("worst_ratio"),
        "compile_2000_s": (((result.get("fight_loop") or {}).get("tactics") or {}).get("compile") or {}).get("seconds"),

        "sweep_cores_s": _sweep_seconds(result.get("sweep")),
        "import_vs_json_msgspec": (result.get("startup") or {}).get("import_vs_json_msgspec"),
        "help_ms": ((result.get("startup") or {}).get("ms") or {}).get("help"),
        "largest_mob_odds_s": (result.get("odds") or {}).get("largest_mob_s"),
        "plugin_of_row": (result.get("plugin") or {}).get("of_row"),
    }
    out = []
    for key, (what, threshold, unit) in TARGETS.items():
        value = measured[key]
        met = None
        if value is not None:
            met = value <= threshold if key in AT_MOST else value >= threshold
        out.append({"key": key, "what": what, "target": threshold, "unit": unit,
                    "at_most": key in AT_MOST, "measured": value, "met": met})
    return out


def _fight_loop(result: dict, scenario: str, figure: str) -> Optional[float]:
    """A compiled-loop figure of the fight-loop section (None: not measured there)."""
    row = (result.get("fight_loop") or {}).get("scenarios", {}).get(scenario)
    if not row or not row["compiled"]:
        return None
    value = row[figure]
    return value["compiled"] if isinstance(value, dict) else value

def _sweep_seconds(sweep: Optional[dict]) -> Optional[float]:
    """The sweep's wall time on the local cores, when it played the target's 10,000 fights per point."""
    if not isinstance(sweep, dict) or sweep.get("runs_per_point", 0) < 10_000:
        return None
    return sweep["seconds"]["local_cores"]  # type: ignore[no-any-return]


def _forecast(bridge: Optional[dict], figure: str) -> Optional[float]:
    """An issue-43 figure of the bridge section's forecast (`bench_bridge.forecast`), measured
    at the target's size on the compiled core: the skirmish's ratio ("overhead") or the
    slowest example's seconds ("examples_s"); None when not measured so."""
    found = bridge.get("forecast") if isinstance(bridge, dict) else None
    if not isinstance(found, dict) or found.get("backend") != "compiled":
        return None
    if figure == "overhead":
        return found["ratio"] if found.get("fights", 0) >= 10_000 else None  # type: ignore[no-any-return]
    rows = found.get("examples") or {}
    if not rows or found.get("example_fights", 0) < 1_000:
        return None
    return max(row["max_s"] for row in rows.values())


def _bridge_overhead(bridge: Optional[dict]) -> Optional[float]:
    """The bridge's overhead ratio for a large request, if its result reports one.

    `bench_bridge.run()` is free in its shape; the first number found under
    `overhead_ratio`, `bulk_overhead_ratio` or `overhead`, at the top or one level
    down, is the figure.
    """
    if not isinstance(bridge, dict):
        return None
    names = ("overhead_ratio", "bulk_overhead_ratio", "overhead")
    for scope in [bridge, *(v for v in bridge.values() if isinstance(v, dict))]:
        for key in names:
            value = scope.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
    return None
