"""Simulations: many independent fights of one scenario, and who wins how often.

Fight i plays from the seed chunk_seed(seed, i) (round r from
chunk_seed(chunk_seed(seed, i), r)), so a fight is the same whichever worker plays
it. Workers play batches of consecutive fights and return integer totals, which add
up to the same numbers in any order: the result is identical for one process, many
processes or a Dask cluster; only its `timing` differs.
"""

from __future__ import annotations

import contextlib
import copy
import math
import os
import signal
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from typing import Any, Optional, Union

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

#: When worker processes pay off (`default_workers`). A run's work is estimated as fights ×
#: combatants, a fight on the Python round loop counting PYTHON_LOOP_COST times one on the
#: compiled fight loop. Starting processes (the spawn method: each imports fracas) costs
#: more than a small run saves: below PROCESS_WORK units one process finishes first.
#: Measured with the four shipped examples at 1,000 to 100,000 fights on each loop, one
#: process against two (benchmarks/README.md, "Processes for simulations").
PROCESS_WORK = 3_000_000
PYTHON_LOOP_COST = 300


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


def checked(source: Any) -> tuple[bytes, Compiled]:
    """A scenario (parsed JSON) checked and compiled, and its JSON: every error a RequestError
    naming the field. A scenario of the same JSON is compiled once per process (a GM
    forecasting the same scene again, a bridge's forecast checked before its worker plays it)."""
    import orjson

    try:
        blob = orjson.dumps(source)
    except TypeError:  # not JSON data: the check says where
        compile_scenario(source)
        raise
    sc = _COMPILED.get(blob)
    if sc is None:
        sc = compile_scenario(source)
        if len(_COMPILED) > 8:
            _COMPILED.clear()
        _COMPILED[blob] = sc
    return blob, sc


def play_batch(scenario: bytes, seed: int, first: int, count: int, loop: str = "auto") -> dict[str, Any]:
    """Fights first..first+count-1: integer totals (see `merge`). `loop` "auto" plays them
    on the fight loop when it covers the scenario (`fastfight`: compiled, or its source run
    as Python with the pure-Python kernels), "python" on the Python round loop; a fight the
    fight loop stops is played by the Python round loop."""
    return play_compiled(_compiled(scenario), seed, first, count, loop)


def play_compiled(sc: Compiled, seed: int, first: int, count: int, loop: str = "auto") -> dict[str, Any]:
    """`play_batch` of a scenario compiled already."""
    nsides, nmembers = len(sc.sides), len(sc.member_ids)
    totals: dict[str, Any] = {
        "fights": 0, "wins": [0] * nsides, "draws": 0, "rounds": {}, "survivors": [0] * nsides,
        "dealt": [0] * nmembers, "taken": [0] * nmembers, "survived": [0] * nmembers, "fled": [0] * nmembers,
        "down": [0] * nmembers, "compiled_fights": 0, "flat_python_fights": 0, "python_fights": 0, "handed_over": 0,
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
                       "flat_python_fights": totals.get("flat_python_fights", 0),
                       "python_fights": totals.get("python_fights", 0),
                       "python_why": why_python if totals.get("python_fights") else None},
    }


#: Combatants "who is likely to fall" lists (the text report, a forecast card).
FALLING = 5


def likely_to_fall(result: Mapping[str, Any], top: int = FALLING) -> list[dict[str, Any]]:
    """Who is likely to fall: the `top` combatants of a simulation's (or a forecast's) result
    most often down or fled at the end of a fight, most likely first (then the most damage
    taken, then the scenario's order), leaving out any who never fell. Each is the
    combatant's numbers from `combatants` with its `id` and `fall_rate` (down or fled)."""
    ranked = []
    for order, (member, c) in enumerate(result["combatants"].items()):
        fall = round(c["down_rate"] + c["fled_rate"], 6)
        if fall > 0:
            ranked.append((-fall, -c["taken_mean"], order, {"id": member, "fall_rate": fall, **c}))
    ranked.sort(key=lambda entry: entry[:3])
    return [entry[3] for entry in ranked[:max(0, top)]]


def fight_cost(sc: Compiled, loop: str = "auto") -> int:
    """A fight's estimated work in `PROCESS_WORK` units: its combatants, times
    PYTHON_LOOP_COST when its fights play at Python's speed (on the Python round loop, or
    the fight loop run as Python)."""
    fast = loop == "auto" and fastfight.compiled() and isinstance(fastfight.plan_for(sc), fastfight.FastPlan)
    return len(sc.member_ids) * (1 if fast else PYTHON_LOOP_COST)


def default_workers(fights: int, cost: int, cores: int) -> int:
    """The processes `fracas simulate` and `fracas sweep` use when --workers is not given:
    one when the work (fights × `fight_cost`) is under PROCESS_WORK, else one per core.
    The result does not depend on it (fight i plays from (seed, i) on any count)."""
    return 1 if cores < 2 or fights * cost < PROCESS_WORK else cores


def why_python(sc: Compiled, loop: str, totals: Optional[dict[str, Any]] = None) -> str:
    """Why fights of `sc` played on the Python round loop, if any did with `loop`: it was
    asked for, the fight loop does not cover the scenario (`fastfight.plan_for` says why),
    the fight loop handed fights over (`totals`' `handed_over`: the plain round's initiative
    gave a slot it does not play), or it stopped a fight at a limit the Python loop reports."""
    if loop == "python":
        return "loop 'python' was asked for"
    fast = fastfight.plan_for(sc)
    if isinstance(fast, str):
        return fast
    if totals and totals.get("handed_over"):
        return fastfight.HANDED_OVER
    return "the fight loop stopped (the Python round loop reports why)"


def check_loop(loop: Any) -> None:
    """`loop` is "auto" or "python"."""
    if loop not in ("auto", "python"):
        raise SchemaError("loop", f"loop must be 'auto' or 'python', got {loop!r}")


def _batches(runs: int, batch: int) -> list[tuple[int, int]]:
    return [(first, min(batch, runs - first)) for first in range(0, runs, batch)]


#: What a worker says when a script without the `__main__` guard calls `simulate` again while the
#: worker imports it (the spawn start method runs the main script in every worker).
GUARD = ("fracas.simulate(workers > 1) was called while a worker process imported the main script: simulations"
         " start their workers with the spawn method, which runs the script again in each worker. Call it under"
         " `if __name__ == \"__main__\":`, or use workers=1.")


class WorkersFailed(RuntimeError):
    """The simulation's worker processes died (killed, out of memory, or a script without the
    `if __name__ == "__main__":` guard); the message says which is likely."""


def _quiet_worker() -> None:
    """Workers leave SIGINT to the parent, which stops them (a terminal's Ctrl-C reaches the
    whole process group; the parent alone decides what is kept)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _Stop:
    """SIGINT and SIGTERM while a simulation runs: the first one stops it, and the fights
    finished so far are reported (`interrupted`, `stopped_by`).

    With worker processes or Dask the handler only sets a flag, which the parent polls:
    a KeyboardInterrupt raised at an arbitrary point of concurrent.futures or Dask code can
    leave a lock held, and the shutdown then hangs (the way `fracas simulate` used to hang
    on `timeout -s INT`). Further signals while the workers are stopped are ignored, so a
    second Ctrl-C cannot orphan them. In-process, the handler raises KeyboardInterrupt at
    once: there is nothing to clean up. Handlers are installed only on the main thread
    (Python allows no other) and restored afterwards; elsewhere a KeyboardInterrupt still
    stops the run. A signal the process ignores (SIG_IGN: a bridge's worker process, which
    its bridge stops) is left ignored.
    """

    def __init__(self, immediate: bool) -> None:
        self.immediate = immediate
        self.signum: Optional[int] = None
        self.event = threading.Event()
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> _Stop:
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                if signal.getsignal(signum) is None:  # a handler set outside Python: it could not be put back
                    continue
                if signal.getsignal(signum) == signal.SIG_IGN:
                    # Ignored by whoever runs this process (a bridge's worker, whose bridge stops it;
                    # `nohup`): the signal does not stop the run either.
                    continue
                try:
                    self._previous[signum] = signal.signal(signum, self._handle)
                except (ValueError, OSError):  # an embedded interpreter may refuse
                    pass
        return self

    def _handle(self, signum: int, _frame: Any) -> None:
        first = self.signum is None
        if first:
            self.signum = signum
        self.event.set()
        if self.immediate and first:
            raise KeyboardInterrupt

    def __exit__(self, *_exc: Any) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)

    @property
    def name(self) -> Optional[str]:
        return signal.Signals(self.signum).name if self.signum is not None else None


@contextlib.contextmanager
def _children_deaf_to_sigint() -> Iterator[None]:
    """Worker processes started inside ignore SIGINT for life; the parent's is delivered after.

    A terminal's Ctrl-C goes to the whole process group: a worker that gets it while it
    still imports fracas (before `_quiet_worker` runs) dies with a traceback while the
    parent is stopping it anyway. So SIGINT is ignored while the pool starts its
    workers: an ignored signal stays ignored across fork and exec (a blocked one does
    not: subprocess resets the mask), and Python then installs no KeyboardInterrupt
    handler. Meanwhile this thread blocks SIGINT, and so do the threads the pool starts
    here (they inherit the mask): Linux keeps a blocked signal pending even while it is
    ignored, so a SIGINT sent to the parent in between reaches `_Stop`'s handler once
    that is back and the signal unblocked, instead of being lost. (A thread of the
    caller's own that does not block SIGINT could still take it meanwhile.) Main thread
    only (Python sets handlers nowhere else); not on Windows, which has no such signal.
    """
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None or threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is None:  # a handler set outside Python could not be put back
        yield
        return
    from multiprocessing import resource_tracker

    # The tracker first: starting it unblocks SIGINT in this thread (bpo-33613's mask for the
    # tracker's own start is taken off with SIG_UNBLOCK), and it ignores SIGINT itself.
    resource_tracker.ensure_running()
    blocked = mask(signal.SIG_BLOCK, {signal.SIGINT})
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)
        mask(signal.SIG_SETMASK, blocked)


def _close_pool(pool: Any, running: Iterable[Any], finished: bool) -> None:
    """Shut the pool down; after a stop or an error, without waiting for the batches running.

    `shutdown(cancel_futures=True)` alone waits for every running batch, and a worker
    that is never told to stop keeps the interpreter's exit waiting; so the workers are
    terminated, joined with a deadline and killed if they linger. `_processes` is the
    executor's own table of its workers (CPython has no public handle on them; it is
    what `ProcessPoolExecutor.terminate_workers` of Python 3.14 uses).
    """
    if finished:
        pool.shutdown(wait=True)
        return
    for future in running:
        future.cancel()
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown() forgets both
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    deadline = time.monotonic() + 5
    for process in processes:
        process.join(max(0.05, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join(1)
    if manager is not None:  # it notices the dead workers and ends; joined here, not raced at exit
        manager.join(max(0.05, deadline - time.monotonic()))


#: A task: `play_batch`'s arguments (scenario, seed, first, count[, loop]).
Task = Union[tuple[bytes, int, int, int], tuple[bytes, int, int, int, str]]


def _local(tasks: list[Task], workers: int, stop: _Stop) -> Generator[tuple[int, dict[str, Any]], None, None]:
    """Play the tasks in this process or on `workers` processes; yields (task index, totals)
    as each finishes, at most two tasks per worker in flight, in the tasks' order."""
    if workers == 1:
        for i, task in enumerate(tasks):
            yield i, play_batch(*task)
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    running: dict[Any, int] = {}
    finished = False
    queue = enumerate(tasks)
    pool = None
    try:
        with _children_deaf_to_sigint():  # the workers start at the first submits
            pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=_quiet_worker)
            for i, task in queue:  # two tasks per worker in flight, the rest as they finish
                running[pool.submit(play_batch, *task)] = i
                if len(running) >= 2 * workers:
                    break
        while running and not stop.event.is_set():
            done, _ = wait(running, timeout=0.1, return_when=FIRST_COMPLETED)
            for future in done:
                index = running.pop(future)
                try:
                    part = future.result()
                except BrokenProcessPool:
                    raise WorkersFailed(
                        "the simulation's worker processes died. Workers start with the spawn method, which"
                        " imports the main script again in each: a script must call fracas.simulate(workers > 1)"
                        " under `if __name__ == \"__main__\":` (or use workers=1); otherwise a worker was"
                        " killed (out of memory?)") from None
                yield index, part
                nxt = None if stop.event.is_set() else next(queue, None)
                if nxt is not None:
                    running[pool.submit(play_batch, *nxt[1])] = nxt[0]
        finished = not running
    finally:
        if pool is not None:
            _close_pool(pool, running, finished)


def _dask(tasks: list[Task], address: str, workers: int,
          stop: _Stop) -> Generator[tuple[int, dict[str, Any]], None, None]:
    """Play the tasks on a Dask cluster (`address`, or "local": a LocalCluster of `workers`);
    yields (task index, totals) as each finishes."""
    try:
        import importlib

        dd: Any = importlib.import_module("dask.distributed")  # untyped: used through Any
    except ImportError:
        raise MissingExtra("--dask needs dask.distributed: pip install 'fracas[dask]'") from None
    Client, LocalCluster, as_completed = dd.Client, dd.LocalCluster, dd.as_completed
    cluster = client = None
    if address == "local":
        try:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
            client = Client(cluster)
            # Dask starts its workers from threads of its own, which would take a SIGINT meant for
            # the parent while _children_deaf_to_sigint ignores it: each worker is told to leave
            # SIGINT to the parent once it runs instead (on its event loop, its main thread).
            client.run(_quiet_worker)
        except Exception:
            # A terminal's Ctrl-C reaches the workers too: one still starting dies of it, and the
            # cluster's start, the client or `run` fails. That is the stop, not an error.
            _close_dask(client, cluster)
            if _stopping(stop):
                return
            raise
    else:
        try:
            client = Client(address, timeout="10s")
        except OSError as exc:
            raise MissingExtra(f"--dask {address}: cannot reach the scheduler ({exc})") from None
    running: dict[Any, int] = {}
    try:
        # A few batches per worker thread in flight, the rest as they finish (as _local does): a
        # stop then cancels a handful, not thousands of computed results a worker holds.
        threads = sum(w.get("nthreads", 1) for w in client.scheduler_info().get("workers", {}).values())
        queue = enumerate(tasks)
        for i, task in queue:
            running[client.submit(play_batch, *task, pure=False)] = i
            if len(running) >= 2 * max(workers, threads):
                break
        arriving = as_completed(running)
        while running and not stop.event.is_set():
            if not arriving.has_ready():
                stop.event.wait(0.05)  # polled: a signal only sets the flag (see _Stop)
                continue
            for future in arriving.next_batch(block=False):
                index = running.pop(future)
                try:
                    part = future.result()
                except Exception:
                    if _stopping(stop):  # a worker the group's Ctrl-C reached: the stop, not an error
                        return
                    raise
                yield index, part
                nxt = None if stop.event.is_set() else next(queue, None)
                if nxt is not None:
                    more = client.submit(play_batch, *nxt[1], pure=False)
                    running[more] = nxt[0]
                    arriving.add(more)
    finally:
        if running:
            client.cancel(list(running))  # one message for all
            running.clear()
        _close_dask(client, cluster)


def _stopping(stop: _Stop) -> bool:
    """Whether a stop signal came: already handled, or arriving with the failure it caused
    (a signal sent to the whole group reaches a worker, which fails the parent's call a
    moment before the parent's own handler runs)."""
    return stop.event.wait(0.5)


def _close_dask(client: Any, cluster: Any) -> None:
    """Close a Dask client and its local cluster, whatever state a stop left them in."""
    for closing in (client, cluster):
        if closing is not None:
            with contextlib.suppress(Exception):
                closing.close()


def play(tasks: list[Task], workers: int, dask: Optional[str], add: Callable[[int, dict[str, Any]], None],
         progress: Optional[Callable[[int], None]] = None) -> _Stop:
    """Play the tasks on the executor asked for, giving each one's totals to `add` (task
    index, totals) as it finishes, until all are done or SIGINT, SIGTERM or a
    KeyboardInterrupt stops them (no worker left running); returns the `_Stop`, which
    names the signal."""
    with _Stop(immediate=workers == 1 and not dask) as stop:
        stream = _dask(tasks, dask, workers, stop) if dask else _local(tasks, workers, stop)
        try:
            for task, part in stream:
                add(task, part)
                if progress is not None:
                    progress(part["fights"])
                if stop.event.is_set():
                    break
        except KeyboardInterrupt:
            pass
        finally:
            stream.close()  # ends the generator: its `finally` stops the workers
    return stop


def read_scenario(scenario: Any) -> Any:
    """A scenario as `simulate` and `Encounter.new` take it: a dict, JSON text or bytes, a
    file path (str or `os.PathLike`) or `@NAME` (an example that ships with fracas)."""
    from .scenario import example

    if isinstance(scenario, os.PathLike) or (isinstance(scenario, str) and not scenario.lstrip().startswith(("{", "["))
                                             and not scenario.startswith("@")):
        path = os.fspath(scenario)
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            raise SchemaError("scenario", f"cannot read the scenario file {path!r}: {exc.strerror or exc}") from None
        try:
            return parse_json(data)
        except SchemaError as exc:
            raise SchemaError("scenario", f"the scenario file {path!r} is not valid JSON: {exc.reason}") from None
    if isinstance(scenario, str) and scenario.startswith("@"):
        return parse_json(example(scenario[1:]))
    return parse_json(scenario)


class Result(Mapping[str, Any]):
    """A result of fights played (`SimulationResult`, `SweepResult`): JSON-ready data with
    its fields as attributes, and a read-only mapping of the same fields."""

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data (a copy: changing it leaves the result as it is)."""
        return copy.deepcopy(self._data)

    @property
    def scenario(self) -> Optional[str]:
        return self._data["scenario"]  # type: ignore[no-any-return]

    @property
    def ruleset(self) -> str:
        return str(self._data["ruleset"])

    @property
    def seed(self) -> int:
        return int(self._data["seed"])

    @property
    def runs(self) -> int:
        return int(self._data["runs"])

    @property
    def interrupted(self) -> bool:
        return bool(self._data["interrupted"])

    @property
    def stopped_by(self) -> Optional[str]:
        return self._data["stopped_by"]  # type: ignore[no-any-return]

    @property
    def timing(self) -> dict[str, Any]:
        return self._data["timing"]  # type: ignore[no-any-return]


class SimulationResult(Result):
    """What `simulate` reports: who wins how often, how long fights last, who survives.

    The attributes are the result's fields; `to_dict()` gives the JSON shape (what
    `fracas simulate --json` writes). It is also a read-only mapping of the same fields
    (`result["sides"]`), as the plain dict `simulate` returned before.

    Attributes:
        scenario: The scenario's `name` (None when it has none).
        ruleset: The ruleset the fights were played by.
        seed: The seed: fight i plays from (seed, i), so the same seed repeats the result.
        runs: Fights asked for.
        completed: Fights played (fewer than `runs` when the run was interrupted).
        interrupted: True when a signal or KeyboardInterrupt stopped the run early.
        stopped_by: "SIGINT" or "SIGTERM" when a signal stopped it, else None.
        sides: Per side: `wins`, `win_rate`, `win_rate_ci95` (95 % Wilson interval),
            `combatants`, `survivors_mean`.
        draws: `count`, `rate`, `rate_ci95`.
        rounds: `mean`, `median`, `min`, `max` and `histogram` ({rounds: fights}).
        combatants: Per combatant: `side`, `group`, `dealt_mean`, `taken_mean` (the
            expected damage taken), `survived_rate`, `fled_rate`, `down_rate` (the chance
            of being fled or down at the end); `likely_to_fall()` ranks them.
        timing: `seconds`, `fights_per_second`, `workers`, `executor`, `cpus`.
        fight_loop: `compiled_fights`, `flat_python_fights` and `python_fights` (how many
            fights the compiled fight loop, the same loop run as Python with the
            pure-Python kernels, and the Python round loop played) and `python_why` (why
            any played on the Python round loop, else None).
    """

    __slots__ = ()

    def __repr__(self) -> str:
        rates = {side: s["win_rate"] for side, s in self._data["sides"].items()}
        return (f"<SimulationResult {self._data['scenario'] or 'scenario'} ({self._data['ruleset']})"
                f" {self._data['completed']}/{self._data['runs']} fights win_rate={rates}"
                f"{' interrupted' if self._data['interrupted'] else ''}>")

    @property
    def completed(self) -> int:
        return int(self._data["completed"])

    @property
    def fight_loop(self) -> dict[str, Any]:
        return self._data["fight_loop"]  # type: ignore[no-any-return]

    @property
    def sides(self) -> dict[str, Any]:
        return self._data["sides"]  # type: ignore[no-any-return]

    @property
    def draws(self) -> dict[str, Any]:
        return self._data["draws"]  # type: ignore[no-any-return]

    @property
    def rounds(self) -> dict[str, Any]:
        return self._data["rounds"]  # type: ignore[no-any-return]

    @property
    def combatants(self) -> dict[str, Any]:
        return self._data["combatants"]  # type: ignore[no-any-return]

    def likely_to_fall(self, top: int = FALLING) -> list[dict[str, Any]]:
        """The `top` combatants most often down or fled at the end of a fight, most likely
        first, each with its `id`, `fall_rate` (down or fled), `down_rate`, `fled_rate`,
        `taken_mean` (expected damage taken) and the rest of its `combatants` entry; those
        who never fell are left out. What `fracas simulate` lists as "likely to fall"."""
        return likely_to_fall(self._data, top)


def simulate(scenario: Any, *, runs: int, seed: Optional[int] = None, workers: int = 1,
             dask: Optional[str] = None, progress: Optional[Callable[[int], None]] = None,
             batch: int = BATCH, loop: str = "auto") -> SimulationResult:
    """Play `runs` fights of `scenario` and report who wins how often, rounds, survivors,
    and damage dealt and taken per combatant (`fracas.simulate` documents the arguments).
    `batch` is the fights a worker plays per task. `loop`: "auto" plays the fights on the
    compiled fight loop when it covers the scenario (the same fights, faster: `fastfight`),
    "python" on the Python round loop; `fight_loop` in the result says how many fights each
    played, and why any played on the Python loop.

    SIGINT (Ctrl-C, a KeyboardInterrupt) or SIGTERM while it runs stops the workers and
    returns the fights finished so far (`interrupted`, `stopped_by`)."""
    import multiprocessing

    source = read_scenario(scenario)
    blob, sc = checked(source)  # every error before any worker starts; this process plays with it (workers=1)
    check_loop(loop)
    if isinstance(runs, bool) or not isinstance(runs, int) or not 1 <= runs <= MAX_RUNS:
        raise LimitError("runs", f"runs must be 1 to {MAX_RUNS}, got {runs!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 1024:
        raise SchemaError("workers", f"workers must be 1 to 1024, got {workers!r}")
    check_seed(seed, "seed")
    if (workers > 1 or dask) and getattr(multiprocessing.current_process(), "_inheriting", False):
        raise SystemExit(GUARD)  # in a spawned worker: one line, not a traceback per worker
    seed = new_seed() if seed is None else seed
    batches = _batches(runs, max(1, batch))
    started = time.perf_counter()
    totals: Optional[dict[str, Any]] = None

    def add(_task: int, part: dict[str, Any]) -> None:
        nonlocal totals
        totals = merge(totals, part)

    stop = play([(blob, seed, first, count, loop) for first, count in batches], workers, dask, add, progress)
    elapsed = time.perf_counter() - started
    if totals is None:
        totals = merge(None, play_batch(blob, seed, 0, 0, loop))
    out = report(sc, totals, runs, seed, why_python(sc, loop, totals))
    out["stopped_by"] = stop.name
    out["timing"] = {"seconds": round(elapsed, 4), "fights_per_second": round(totals["fights"] / elapsed, 1)
                     if elapsed > 0 else None, "workers": workers,
                     "executor": f"dask {dask}" if dask else ("processes" if workers > 1 else "in-process"),
                     "cpus": os.cpu_count()}
    return SimulationResult(out)


def figure(result: Mapping[str, Any]) -> Any:
    """Win rates (with their 95 % intervals) and the rounds histogram, as a matplotlib figure
    (whole-number ticks on the rounds axis: a fight lasts 3 rounds, not 2.5)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator
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
    right.xaxis.set_major_locator(MaxNLocator(integer=True))
    right.yaxis.set_major_locator(MaxNLocator(integer=True))
    right.set_xlabel("rounds to finish")
    right.set_ylabel("fights")
    right.set_title("How long the fights last")
    fig.suptitle(result["scenario"] or "fracas simulation")
    fig.tight_layout()
    return fig


def save_png(fig: Any, path: str) -> None:
    """Write a matplotlib figure as a PNG at `path` and free it."""
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot(result: Mapping[str, Any], path: str) -> None:
    """Win rates (with their 95 % intervals) and the rounds histogram, as a PNG at `path`."""
    save_png(figure(result), path)
