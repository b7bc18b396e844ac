"""Balance sweeps: one scenario with one or two fields varied, many fights at each point.

`sweep` sets each point's fields (`$.sides.skeletons[0].count=4..40`), checks every
point's scenario before any fight starts, and plays `runs` fights per point with
`simulate`'s machinery: the same batches of integer totals, on this process, local
processes or Dask, and the same clean stop on SIGINT or SIGTERM. Point p plays from the
seed chunk_seed(seed, p) (fight i of it from chunk_seed(that, i), as in `simulate`), so
the table is the same on every executor and for any batch size.

Where a side's win rate crosses a target (0.5: a fair fight) is read off by linear
interpolation between the two points around the crossing, along the first field (for
each value of the second). The sweep reports every crossing it sees: noise near the
target can make a curve cross more than once, and the intervals say how sure each
point is.
"""

from __future__ import annotations

import copy
import math
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional, Union

from ..errors import LimitError, RequestError, SchemaError
from ..requests import check_seed, key_path, shown
from ..rng import chunk_seed, new_seed
from .scenario import compile_scenario
from .simulate import (
    BATCH, GUARD, MAX_RUNS, MissingExtra, Result, Task, check_loop, merge, play, read_scenario, report, save_png,
    why_python,
)

#: Points of one sweep (a 100 × 100 grid).
MAX_POINTS = 10_000
#: Fields one sweep varies.
MAX_FIELDS = 2
#: The most fights a task plays: small enough for a lively progress bar on big points.
MAX_BATCH = 2_000

_STEP = re.compile(r"""\.([^.\[\]'"=\s]+)|\[(\d+)\]|\[(['"])((?:\\.|(?!\3).)*)\3\]""")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")

Step = Union[str, int]
Value = Union[int, float, str, bool, None]


@dataclass(frozen=True)
class Vary:
    """One field a sweep varies: its path in the scenario and the values it takes."""

    path: str
    steps: tuple[Step, ...]
    values: tuple[Value, ...]


def parse_path(path: str, where: str = "vary") -> tuple[Step, ...]:
    """The steps of a scenario path in its JSON-path style: `$.sides.party[1].target.ac`,
    `$.sides['the party'][0].hp` (keys and list indexes)."""
    if not isinstance(path, str) or not path.startswith("$"):
        raise SchemaError(where, f"a path starts at the scenario's root, $ (e.g. $.sides.party[0].hp), got {shown(path)}")
    steps: list[Step] = []
    at = 1
    while at < len(path):
        match = _STEP.match(path, at)
        if match is None:
            raise SchemaError(where, f"{path}: cannot read the path at {path[at:]!r} (write .key, [index] or ['key'])")
        key, index, _quote, quoted = match.groups()
        if key is not None:
            steps.append(key)
        elif index is not None:
            steps.append(int(index))
        else:
            steps.append(re.sub(r"\\(.)", r"\1", quoted))
        at = match.end()
    if not steps:
        raise SchemaError(where, f"{path}: the path names no field (a sweep varies a field, not the whole scenario)")
    return tuple(steps)


def path_of(steps: Sequence[Step]) -> str:
    """The canonical path of `steps` (as the scenario's errors write it)."""
    out = "$"
    for step in steps:
        out = f"{out}[{step}]" if isinstance(step, int) else key_path(out, step)
    return out


def _number(text: str) -> Optional[Union[int, float]]:
    text = text.strip()
    if not _NUMBER.fullmatch(text):
        return None
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    return float(text)


def _item(text: str) -> Value:
    """A list item: a number, true/false/null, or else the text itself (a string)."""
    number = _number(text)
    if number is not None:
        return number
    word = text.strip()
    return {"true": True, "false": False, "null": None}.get(word, word)


def parse_values(text: str, where: str) -> tuple[Value, ...]:
    """Values as a sweep takes them: a range `a..b` (step 1, or `a..b:step`; both ends
    included when the steps reach them) or a comma list (numbers or strings)."""
    if ".." in text and "," not in text:
        span, _, step_text = text.partition(":")
        low_text, _, high_text = span.partition("..")
        low, high = _number(low_text), _number(high_text)
        step = _number(step_text) if step_text else (1 if low is None or high is None or high >= low else -1)
        if low is None or high is None or step is None:
            raise SchemaError(where, f"a range is a..b or a..b:step of numbers (e.g. 4..40 or 0.5..2:0.25),"
                                     f" got {text!r}")
        if step == 0 or (high - low) * step < 0:
            raise SchemaError(where, f"the step {step} of {text!r} never reaches {high} from {low}")
        count = math.floor((high - low) / step + 1e-9) + 1
        if count > MAX_POINTS:
            raise LimitError(where, f"{text!r} is {count:,} values; a sweep has at most {MAX_POINTS:,} points")
        if all(isinstance(v, int) for v in (low, high, step)):
            return tuple(int(low + k * step) for k in range(count))
        return tuple(round(low + k * step, 10) for k in range(count))
    items = text.split(",")
    if len(items) > MAX_POINTS:
        raise LimitError(where, f"{len(items):,} values; a sweep has at most {MAX_POINTS:,} points")
    if any(not item.strip() for item in items):
        raise SchemaError(where, f"an empty value in the list {text!r} (write a,b,c)")
    return tuple(_item(item) for item in items)


def parse_vary(spec: Any, index: int = 0) -> Vary:
    """One `vary` entry: the text `PATH=VALUES` (`$.sides.skeletons[0].count=4..40`,
    `$.sides.party[1].target.ac=14,16,18`) or a pair (PATH, list of values)."""
    where = f"vary[{index}]"
    if isinstance(spec, str):
        path, sep, values_text = spec.partition("=")
        path = path.strip()
        if not sep or not values_text.strip():
            raise SchemaError(where, f"write PATH=VALUES (e.g. $.sides.skeletons[0].count=4..40), got {spec!r}")
        steps = parse_path(path, where)
        values = parse_values(values_text.strip(), path)
    elif isinstance(spec, (tuple, list)) and len(spec) == 2 and isinstance(spec[0], str):
        steps = parse_path(spec[0].strip(), where)
        path = spec[0].strip()
        if isinstance(spec[1], (str, bytes, Mapping)) or not isinstance(spec[1], Iterable):
            raise SchemaError(where, f"{path}: the values are a list (or a range), got {shown(spec[1])}")
        values = tuple(spec[1])
        if len(values) > MAX_POINTS:
            raise LimitError(where, f"{path}: {len(values):,} values; a sweep has at most {MAX_POINTS:,} points")
    else:
        raise SchemaError(where, f"a vary entry is 'PATH=VALUES' or (PATH, values), got {shown(spec)}")
    if not values:
        raise SchemaError(where, f"{path}: no values to sweep")
    for value in values:
        if not (value is None or isinstance(value, (int, float, str, bool))) or \
                (isinstance(value, float) and not math.isfinite(value)):
            raise SchemaError(where, f"{path}: a value is a number, a string, true, false or null, got {shown(value)}")
    if len(set(map(repr, values))) != len(values):
        raise SchemaError(where, f"{path}: a value is repeated in {list(values)}")
    return Vary(path_of(steps), steps, values)


def _locate(source: Any, vary: Vary) -> None:
    """The field exists in the scenario (its last key may be missing from an object: the
    field's default then; the scenario check refuses a key that is no field)."""
    node = source
    for depth, step in enumerate(vary.steps):
        here = path_of(vary.steps[:depth])
        last = depth == len(vary.steps) - 1
        if isinstance(step, int):
            if not isinstance(node, list):
                raise SchemaError(vary.path, f"{here} is not a list in the scenario (it is {shown(node)}), so it"
                                             f" has no [{step}]")
            if step >= len(node):
                raise SchemaError(vary.path, f"{here} has {len(node)} entr{'y' if len(node) == 1 else 'ies'} in the"
                                             f" scenario, so there is no [{step}]")
        else:
            if not isinstance(node, dict):
                raise SchemaError(vary.path, f"{here} is not an object in the scenario (it is {shown(node)}), so it"
                                             f" has no {step!r}")
            if step not in node and not last:
                have = ", ".join(map(str, node)) or "nothing"
                raise SchemaError(vary.path, f"{key_path(here, step)} does not exist in the scenario ({here} has:"
                                             f" {have})")
            if last:
                return
        node = node[step]


def _set(source: Any, vary: Vary, value: Value) -> None:
    node = source
    for step in vary.steps[:-1]:
        node = node[step]
    node[vary.steps[-1]] = value


def _shown_value(value: Value) -> str:
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    return str(value)


def _setting(varies: Sequence[Vary], values: Sequence[Value]) -> str:
    return ", ".join(f"{v.path}={_shown_value(x)}" for v, x in zip(varies, values))


def crossings(xs: Sequence[Value], rates: Sequence[Optional[float]], target: float) -> list[dict[str, Any]]:
    """Where `rates` (measured at `xs`, in order) cross `target`.

    Each crossing is `{"at": x, "between": [x_i, x_j]}`: between two neighbouring measured
    points on either side of the target (or one exactly on it), `at` by linear
    interpolation (None when the values are not numbers). Points not measured (None)
    are skipped, so an interrupted sweep interpolates across the gap.
    """
    known = [(x, r) for x, r in zip(xs, rates) if r is not None]
    out: list[dict[str, Any]] = []
    for i, (x, r) in enumerate(known):
        if r == target and (not out or out[-1]["between"][-1] != x):
            out.append({"at": x, "between": [x, x]})
            continue
        if i + 1 == len(known):
            break
        x2, r2 = known[i + 1]
        if (r - target) * (r2 - target) < 0:
            numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (x, x2))
            at = round(x + (target - r) * (x2 - x) / (r2 - r), 4) if numeric else None  # type: ignore[operator]
            out.append({"at": at, "between": [x, x2]})
    return out


class SweepResult(Result):
    """What `sweep` reports: one row per point, and where a side's win rate crosses a target.

    The attributes are the result's fields; `to_dict()` gives the JSON shape (what
    `fracas sweep --json` writes). It is also a read-only mapping of the same fields.

    Attributes:
        scenario: The scenario's `name` (None when it has none).
        ruleset: The ruleset the fights were played by.
        seed: The sweep's seed: point p plays from (seed, p), fight i of it from that and i.
        runs: Fights asked for at each point.
        vary: The fields varied, in order: `path` and `values`.
        sides: The scenario's sides, in order.
        points: One per point, the first field varying fastest: `index`, `values`
            ({path: value}), `seed`, `completed`, `sides` (per side: `wins`, `win_rate`,
            `win_rate_ci95`, `survivors_mean`, `combatants`), `draws` (`count`, `rate`,
            `rate_ci95`), `rounds` (`mean`, `median`, `min`, `max`) and `fight_loop`
            (`compiled_fights`, `flat_python_fights` and `python_fights`: how many of its
            fights the compiled fight loop, that loop run as Python with the pure-Python
            kernels and the Python round loop played, and `python_why`: why any played on
            the Python round loop, else None). Only
            points whose fights all finished are listed (an interrupted sweep lists fewer).
        completed_points: How many points finished.
        interrupted: True when a signal or KeyboardInterrupt stopped the sweep early.
        stopped_by: "SIGINT" or "SIGTERM" when a signal stopped it, else None.
        target: None, or `side`, `win_rate`, `along` (the first field's path) and `rows`:
            per value of the second field (one row with one field), `at` ({path: value},
            empty with one field) and `crossings` (each `at`, interpolated, and `between`,
            the two points around it); `crossings` is empty when the rate never crosses.
        timing: `seconds`, `fights_per_second`, `workers`, `executor`, `cpus`.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        fields = " × ".join(v["path"] for v in self._data["vary"])
        total = 1
        for v in self._data["vary"]:
            total *= len(v["values"])
        return (f"<SweepResult {self._data['scenario'] or 'scenario'} ({self._data['ruleset']}) {fields}:"
                f" {self._data['completed_points']}/{total} points of {self._data['runs']} fights"
                f"{' interrupted' if self._data['interrupted'] else ''}>")

    @property
    def vary(self) -> list[dict[str, Any]]:
        return self._data["vary"]  # type: ignore[no-any-return]

    @property
    def sides(self) -> list[str]:
        return self._data["sides"]  # type: ignore[no-any-return]

    @property
    def points(self) -> list[dict[str, Any]]:
        return self._data["points"]  # type: ignore[no-any-return]

    @property
    def completed_points(self) -> int:
        return int(self._data["completed_points"])

    @property
    def target(self) -> Optional[dict[str, Any]]:
        return self._data["target"]  # type: ignore[no-any-return]


def _point_report(sc: Any, totals: dict[str, Any], runs: int, seed: int, loop: str) -> dict[str, Any]:
    full = report(sc, totals, runs, seed, why_python(sc, loop, totals) if totals.get("python_fights") else None)
    return {"seed": seed, "completed": full["completed"], "sides": full["sides"], "draws": full["draws"],
            "rounds": {k: full["rounds"][k] for k in ("mean", "median", "min", "max")},
            "fight_loop": full["fight_loop"]}


def _target(varies: Sequence[Vary], points: list[dict[str, Any]], target: float, side: str) -> dict[str, Any]:
    first = varies[0]
    by_index = {p["index"]: p for p in points}
    rows = []
    for j, other in enumerate(varies[1].values if len(varies) > 1 else [None]):
        rates = []
        for i in range(len(first.values)):
            point = by_index.get(j * len(first.values) + i)
            rates.append(point["sides"][side]["win_rate"] if point else None)
        rows.append({"at": {varies[1].path: other} if len(varies) > 1 else {},
                     "crossings": crossings(first.values, rates, target)})
    return {"side": side, "win_rate": target, "along": first.path, "rows": rows}


def point_scenarios(source: Any, varies: Sequence[Vary], grid: Sequence[tuple[Value, ...]]) -> tuple[list[bytes], list[Any]]:
    """Each point's scenario (`source` with the fields of `varies` set to one row of `grid`),
    checked, as JSON and compiled: every point before any fight starts. A point the scenario
    check refuses is an error at the point (`$.sides.skeletons[0].count=0`), its reason
    naming the scenario field; a point may not change the scenario's sides."""
    import orjson

    sides = list(source["sides"])
    blobs, compiled = [], []
    for values in grid:
        point = copy.deepcopy(source)
        for v, x in zip(varies, values):
            _set(point, v, x)
        try:
            compiled.append(compile_scenario(point))
        except RequestError as err:
            raise type(err)(_setting(varies, values), f"{err.path}: {err.reason}") from None
        if list(point["sides"]) != sides:
            raise SchemaError(_setting(varies, values), "a sweep keeps the scenario's sides")
        blobs.append(orjson.dumps(point))
    return blobs, compiled


def _batch_size(runs: int, points: int, workers: int) -> int:
    """Fights per task: a point in a few tasks when there are fewer points than workers
    (all cores busy), else whole points up to MAX_BATCH (fewer, larger tasks)."""
    parts = max(1, math.ceil(2 * workers / points))
    return max(1, min(MAX_BATCH, max(BATCH, math.ceil(runs / parts))))


def sweep(scenario: Any, vary: Sequence[Any], *, runs: int, seed: Optional[int] = None, workers: int = 1,
          dask: Optional[str] = None, target: Optional[float] = None, side: Optional[str] = None,
          progress: Optional[Callable[[int], None]] = None, batch: Optional[int] = None,
          loop: str = "auto") -> SweepResult:
    """Play `runs` fights at every point of one or two varied fields (`fracas.sweep`
    documents the arguments). `batch` is the fights a task plays (default: chosen from
    the runs, points and workers; the result does not depend on it)."""
    import multiprocessing

    source = read_scenario(scenario)
    compile_scenario(source)  # the scenario as given is valid before its fields are varied
    if isinstance(vary, (str, bytes)) or not isinstance(vary, Sequence) or not 1 <= len(vary) <= MAX_FIELDS:
        raise SchemaError("vary", f"a sweep varies 1 or {MAX_FIELDS} fields (a list of 'PATH=VALUES'), got"
                                  f" {shown(vary)}")
    varies = [parse_vary(spec, i) for i, spec in enumerate(vary)]
    if len(varies) == 2 and varies[0].path == varies[1].path:
        raise SchemaError("vary[1]", f"{varies[1].path} is varied twice")
    if isinstance(runs, bool) or not isinstance(runs, int) or not 1 <= runs <= MAX_RUNS:
        raise LimitError("runs", f"runs must be 1 to {MAX_RUNS}, got {runs!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 1024:
        raise SchemaError("workers", f"workers must be 1 to 1024, got {workers!r}")
    if target is not None and (isinstance(target, bool) or not isinstance(target, (int, float))
                               or not 0 <= target <= 1):
        raise SchemaError("target", f"a target win rate is 0 to 1, got {shown(target)}")
    sides = list(source["sides"])
    if side is not None and side not in sides:
        raise SchemaError("side", f"the scenario has no side {side!r} (its sides: {', '.join(sides)})")
    if batch is not None and (isinstance(batch, bool) or not isinstance(batch, int) or batch < 1):
        raise SchemaError("batch", f"batch is a positive number of fights, got {shown(batch)}")
    check_seed(seed, "seed")
    check_loop(loop)
    for v in varies:
        _locate(source, v)
    grid: list[tuple[Value, ...]] = [(x,) for x in varies[0].values] if len(varies) == 1 else \
        [(x, y) for y in varies[1].values for x in varies[0].values]
    if len(grid) > MAX_POINTS:
        raise LimitError("vary", f"{len(grid):,} points; a sweep has at most {MAX_POINTS:,}")
    blobs, compiled = point_scenarios(source, varies, grid)
    if (workers > 1 or dask) and getattr(multiprocessing.current_process(), "_inheriting", False):
        raise SystemExit(GUARD.replace("simulate", "sweep"))
    seed = new_seed() if seed is None else seed
    seeds = [chunk_seed(seed, p) for p in range(len(grid))]
    size = batch or _batch_size(runs, len(grid), workers)
    tasks: list[Task] = []
    owner: list[int] = []
    for p, blob in enumerate(blobs):
        for first in range(0, runs, size):
            tasks.append((blob, seeds[p], first, min(size, runs - first), loop))
            owner.append(p)
    totals: list[Optional[dict[str, Any]]] = [None] * len(grid)
    started = time.perf_counter()

    def add(task: int, part: dict[str, Any]) -> None:
        totals[owner[task]] = merge(totals[owner[task]], part)

    stop = play(tasks, workers, dask, add, progress)
    elapsed = time.perf_counter() - started
    points = []
    fights = 0
    for p, values in enumerate(grid):
        done = totals[p]
        if done is None or done["fights"] < runs:
            continue
        fights += done["fights"]
        points.append({"index": p, "values": {v.path: x for v, x in zip(varies, values)},
                       **_point_report(compiled[p], done, runs, seeds[p], loop)})
    interrupted = len(points) < len(grid)
    out: dict[str, Any] = {
        "scenario": compiled[0].name, "ruleset": compiled[0].ruleset.name, "seed": seed, "runs": runs,
        "vary": [{"path": v.path, "values": list(v.values)} for v in varies], "sides": sides,
        "points": points, "completed_points": len(points), "interrupted": interrupted, "stopped_by": stop.name,
        "target": _target(varies, points, float(target), side or sides[0]) if target is not None else None,
        "timing": {"seconds": round(elapsed, 4),
                   "fights_per_second": round(fights / elapsed, 1) if elapsed > 0 and fights else None,
                   "workers": workers, "batch": size,
                   "executor": f"dask {dask}" if dask else ("processes" if workers > 1 else "in-process"),
                   "cpus": _cpus()},
    }
    return SweepResult(out)


def _cpus() -> Optional[int]:
    import os

    return os.cpu_count()


# -- the table and the plot --------------------------------------------------------------

def _percent(rate: float) -> str:
    return f"{100 * rate:5.1f}"


def _crossing_text(row: dict[str, Any]) -> str:
    if not row["crossings"]:
        return "never crosses"
    parts = []
    for c in row["crossings"]:
        lo, hi = c["between"]
        if c["at"] is None:
            parts.append(f"between {_shown_value(lo)} and {_shown_value(hi)}")
        elif lo == hi:
            parts.append(f"at {_shown_value(lo)}")
        else:
            parts.append(f"at {c['at']:g} (between {_shown_value(lo)} and {_shown_value(hi)})")
    return "; ".join(parts)


def render(result: Mapping[str, Any], style: Callable[..., str] = lambda text, **_: text) -> str:
    """The sweep as a text table: a row per point (win % with its 95 % interval per side,
    draws, mean rounds, mean survivors per side, and the fights it played on the Python
    round loop when any point played some, with why), then the target's crossings."""
    paths = [v["path"] for v in result["vary"]]
    total = 1
    for v in result["vary"]:
        total *= len(v["values"])
    out = [style(result["scenario"] or "sweep", bold=True) + f" ({result['ruleset']}): {result['completed_points']}"
           f" of {total} points, {result['runs']:,} fights each, seed {result['seed']}"]
    if result["interrupted"]:
        out.append(style("  interrupted: the points listed are those finished", fg="yellow"))
    names = [p.rsplit(".", 1)[-1] if len(p) > 14 else p for p in paths]
    widths = [max(len(n), *(len(_shown_value(x)) for x in v["values"])) for n, v in zip(names, result["vary"])]
    head = "  " + "  ".join(n.rjust(w) for n, w in zip(names, widths))
    win = {side: max(24, len(side) + 14) for side in result["sides"]}
    left = {side: max(14, len(side) + 5) for side in result["sides"]}
    for side in result["sides"]:
        head += "  " + f"{side} win % (95 %)".rjust(win[side])
    head += f"  {'draw %':>6}  {'rounds':>6}"
    for side in result["sides"]:
        head += "  " + f"{side} left".rjust(left[side])
    # Fights on the Python round loop (as `fracas simulate` says them): a column only when
    # some point had any, and each reason once under the table.
    slow = [p for p in result["points"] if (p.get("fight_loop") or {}).get("python_fights")]
    if slow:
        head += f"  {'python loop':>11}"
    out.append(head)
    for point in result["points"]:
        line = "  " + "  ".join(_shown_value(point["values"][p]).rjust(w) for p, w in zip(paths, widths))
        for side in result["sides"]:
            s = point["sides"][side]
            lo, hi = s["win_rate_ci95"]
            cell = f"{_percent(s['win_rate'])} ({100 * lo:.1f}–{100 * hi:.1f})"
            line += "  " + cell.rjust(win[side])
        line += f"  {_percent(point['draws']['rate']):>6}  {point['rounds']['mean']:6.2f}"
        for side in result["sides"]:
            s = point["sides"][side]
            cell = f"{s['survivors_mean']:.2f} of {s['combatants']}"
            line += "  " + cell.rjust(left[side])
        if slow:
            line += f"  {(point.get('fight_loop') or {}).get('python_fights', 0):>11,}"
        out.append(line)
    if len(paths) > 1 or any(n != p for n, p in zip(names, paths)):
        out.append("  (" + "; ".join(f"{n}: {p}" for n, p in zip(names, paths) if n != p or len(paths) > 1) + ")")
    reasons: dict[str, int] = {}
    for point in slow:
        why = point["fight_loop"]["python_why"]
        reasons[why] = reasons.get(why, 0) + 1
    for why, count in reasons.items():
        out.append(style(f"  python loop: {count} point{'s' if count != 1 else ''} played on the Python round loop: {why}",
                         fg="yellow"))
    goal = result.get("target")
    if goal:
        out.append(style(f"  {goal['side']} wins {100 * goal['win_rate']:g} % of fights along {goal['along']}:",
                         bold=True))
        for row in goal["rows"]:
            where = ", ".join(f"{p}={_shown_value(x)}" for p, x in row["at"].items())
            out.append(f"    {where + ': ' if where else ''}{_crossing_text(row)}")
    t = result["timing"]
    rate = f", {t['fights_per_second']:,.0f} fights/s" if t["fights_per_second"] else ""
    out.append(f"  {t['seconds']:.2f} s{rate} ({t['executor']}, {t['workers']}"
               f" worker{'s' if t['workers'] != 1 else ''})")
    return "\n".join(out)


def figure(result: Mapping[str, Any]) -> Any:
    """The sweep as a matplotlib figure: for one field, each side's win rate against it
    with its 95 % band; for two, a heatmap of the target side's (or the first side's) win
    rate. The target's crossings are marked."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingExtra("--plot needs matplotlib: pip install 'fracas[plot]'") from None
    vary, points, goal = result["vary"], result["points"], result.get("target")
    first = vary[0]
    numeric = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in first["values"])
    position = {repr(x): (x if numeric else i) for i, x in enumerate(first["values"])}

    def place(x: Any) -> float:
        return position[repr(x)]

    title = result["scenario"] or "fracas sweep"
    if len(vary) == 1:
        fig, ax = plt.subplots(figsize=(8, 4.5))
        xs = [place(p["values"][first["path"]]) for p in points]
        for side in result["sides"]:
            rates = [p["sides"][side]["win_rate"] for p in points]
            line, = ax.plot(xs, rates, marker="o", ms=3, label=f"{side} wins")
            ax.fill_between(xs, [p["sides"][side]["win_rate_ci95"][0] for p in points],
                            [p["sides"][side]["win_rate_ci95"][1] for p in points], alpha=0.2,
                            color=line.get_color())
        if any(p["draws"]["count"] for p in points):
            ax.plot(xs, [p["draws"]["rate"] for p in points], ls=":", color="grey", label="draws")
        if goal:
            ax.axhline(goal["win_rate"], color="black", lw=0.8, ls="--")
            for c in goal["rows"][0]["crossings"]:
                at = c["at"] if c["at"] is not None else (place(c["between"][0]) + place(c["between"][1])) / 2
                ax.axvline(at, color="black", lw=0.8)
                label = f"{c['at']:.3g}" if c["at"] is not None else "crossing"
                ax.annotate(f"{goal['side']} {100 * goal['win_rate']:g} %: {label}", (at, goal["win_rate"]),
                            xytext=(5, 8), textcoords="offset points", fontsize=8)
        if not numeric:
            ax.set_xticks(range(len(first["values"])), [str(x) for x in first["values"]])
        ax.set_ylim(0, 1)
        ax.set_xlabel(first["path"])
        ax.set_ylabel("share of fights (95 % band)")
        ax.legend(loc="best", fontsize=8)
        ax.set_title(f"{title}\n{result['runs']:,} fights per point", fontsize=10)
    else:
        import numpy as np

        second = vary[1]
        side = goal["side"] if goal else result["sides"][0]
        grid = np.full((len(second["values"]), len(first["values"])), np.nan)
        for p in points:
            grid[p["index"] // len(first["values"]), p["index"] % len(first["values"])] = \
                p["sides"][side]["win_rate"]
        fig, ax = plt.subplots(figsize=(max(8.0, 0.45 * len(first["values"]) + 3), max(4.0, 0.4 * len(second["values"])
                                                                                         + 2)))
        image = ax.imshow(grid, origin="lower", aspect="auto", vmin=0, vmax=1, cmap="RdYlBu")
        fig.colorbar(image, ax=ax, label=f"{side} win rate")
        ax.set_xticks(range(len(first["values"])), [str(x) for x in first["values"]], fontsize=7)
        ax.set_yticks(range(len(second["values"])), [str(y) for y in second["values"]], fontsize=7)
        if goal:
            index = {repr(x): i for i, x in enumerate(first["values"])}
            marks = []
            for j, row in enumerate(goal["rows"]):
                for c in row["crossings"]:
                    lo, hi = (index[repr(b)] for b in c["between"])
                    if c["at"] is not None and hi != lo:
                        lo_x, hi_x = c["between"]
                        marks.append((lo + (hi - lo) * (c["at"] - lo_x) / (hi_x - lo_x), j))
                    else:
                        marks.append(((lo + hi) / 2, j))
            if marks:
                ax.plot([m[0] for m in marks], [m[1] for m in marks], "k|", ms=14, mew=2,
                        label=f"{side} wins {100 * goal['win_rate']:g} %")
                ax.legend(loc="upper right", fontsize=8)
        ax.set_xlabel(first["path"])
        ax.set_ylabel(second["path"])
        ax.set_title(f"{title}\n{side} win rate, {result['runs']:,} fights per point", fontsize=10)
    fig.tight_layout()
    return fig


def plot(result: Mapping[str, Any], path: str) -> None:
    """The sweep's figure (`figure`) as a PNG at `path`."""
    save_png(figure(result), path)
