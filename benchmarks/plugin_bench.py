"""The compiled plug-in section of `fracas bench` (issue 45, item 2): an outside ruleset off the
row kernel whose bulk loop is its own Cython kernel on fracas's dice (docs/examples/burstpool,
cimporting fracas_dice.pxd), beside the row kernel, on the same pool: 10d6, each 5 or 6 a
success, each 6 bursting into one more die (the row kernel's success-counting mode with
exploding dice, rulesets_bench's "pool" scenario, at most 10 bursts in the plug-in).

The plug-in runs through the public bulk API (`fracas.resolve_bulk`, one thread); the row
kernel bare (`xroll_summary`), so the ratio is the plug-in's whole cost against the row
kernel's loop alone. The target: the plug-in at 30 % or more of the row kernel's attacks/s.
Its pure-Python twin is timed too. The plug-in is measured when it is installed
(`pip install --no-build-isolation docs/examples/burstpool`), or built into the folder that
`FRACAS_BENCH_PLUGIN_PATH` names (`pip install --target FOLDER ...`: scripts/test.sh does so),
and the compiled core is built; otherwise the section says why not. From that folder it is
imported and registered in this process only (`fracas.rulesets.register` with its manifest),
so the fresh interpreters of the start-up section time fracas as installed, without the
import of a plug-in a user may or may not have.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import fracas
from fracas import _kernels

from . import rulesets_bench
from .tally import Tally

NAME = "burst-pool"
DICE = rulesets_bench.POOL_DICE


def request(n: int) -> dict[str, Any]:
    return {"ruleset": NAME, "profiles": {"p": {"attacker": {}, "strikes": [{"dice": DICE}]}},
            "targets": {"t": {"soak": 0}}, "attacks": [{"profile": "p", "target": "t", "count": n}]}


#: A folder holding the example plug-in built (`pip install --target`), for this process only.
PATH_VARIABLE = "FRACAS_BENCH_PLUGIN_PATH"


def _from_folder() -> None:
    """Register the plug-in from the folder `FRACAS_BENCH_PLUGIN_PATH` names, when it is not
    registered already (installed): on this process's import path, not on the environment's."""
    import os
    import sys

    folder = os.environ.get(PATH_VARIABLE)
    if not folder or NAME in fracas.rulesets():
        return
    from fracas.rulesets import manifest as _manifest

    if folder not in sys.path:
        sys.path.append(folder)
    found = _manifest.read("burstpool")
    if found is not None:
        import importlib

        fracas.rulesets.register(getattr(importlib.import_module(found.package), found.object), found)


def missing() -> Optional[str]:
    """Why the section cannot run here, or None."""
    if _kernels.compiled is None:
        return "the compiled core is not built"
    _from_folder()
    if NAME not in fracas.rulesets():
        return ("the example plug-in is not installed (pip install --no-build-isolation docs/examples/burstpool)")
    module = type(fracas.rulesets.get(NAME)).__module__
    import importlib

    if getattr(importlib.import_module(module), "_kernel", None) is None:
        return "the example plug-in was installed without its compiled kernel"
    return None


def plugin(backend: str) -> Callable[[int, int], Tally]:
    """`n` attacks of the plug-in through the public bulk API on `backend` (its kernel on the
    compiled core, its twin on the pure-Python one)."""
    def run(n: int, seed: int) -> Tally:
        with _kernels.using(backend):
            summary = fracas.resolve_bulk(request(n), seed=seed, threads=1).to_dict()
        return Tally(n, summary["total_damage"], summary["groups"][0]["attacks_hit"])
    return run


def row_api() -> Callable[[int, int], Tally]:
    """`n` pools of the plug-in's `roll_row_pools`: fracas's row kernel called from the
    plug-in's Cython through fracas_rows.pxd (the same success-counting 10d6 row, one C call a
    pool, on a `fracas.dice.stream`), plus its twist (a burst is one success more)."""
    import importlib

    from fracas.dice import stream

    module = importlib.import_module(type(fracas.rulesets.get(NAME)).__module__)

    def run(n: int, seed: int) -> Tally:
        pools = module.roll_row_pools(stream(seed), DICE, n)
        return Tally(n, sum(pools), sum(1 for successes in pools if successes))
    return run


def row_kernel() -> Callable[[int, int], Tally]:
    return rulesets_bench.pool_kernel("compiled")


def table(section: Optional[dict[str, Any]]) -> list[str]:
    """The section as text lines for `fracas bench`."""
    if not section:
        return []
    title = f"Compiled plug-in · docs/examples/burstpool, {DICE}d6 bursting pool, beside the row kernel (single thread)"
    if section.get("missing"):
        return [title, f"  not measured: {section['missing']}"]
    rates, labels = section["attacks_per_s"], section["labels"]
    lines = [title]
    for key in ("row", "plugin", "twin", "rowapi"):
        if key not in labels:  # a section of a bench from before the row kernel's entry points
            continue
        figure = rates.get(key)
        lines.append(f"  {labels[key]:<46} {figure:>14,.0f} attacks/s" if figure else f"  {labels[key]:<46} —")
    share = section.get("of_row")
    lines.append(f"  plug-in ÷ row kernel: {share:.2f} (target: 0.30 or more)" if share is not None else
                 "  plug-in ÷ row kernel: —")
    through = section.get("row_api_of_row")
    if through is not None:
        lines.append(f"  plug-in on the row kernel (fracas_rows.pxd) ÷ row kernel: {through:.2f}")
    return lines
