"""What the generators of request-kind vectors share (generate_save.py, generate_touch.py,
generate_drop.py, generate_lock.py, ...): one vector of a kind, the curated and random
list, its committed text and the script's entry point. A generator keeps only what is its
own: its docstring (the draw order it pins), its curated requests and its random request.
Here, beside `regen`, since the generators are scripts loaded by path, not a package."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

Json = dict[str, Any]
Curated = list[tuple[str, Json, int]]  # (name, request, seed)


def vector(kind: str, name: str, request: Json, seed: int) -> Json:
    """The request, its seed and the engine's result (`to_dict()` without `backend`) or
    its error (`type`, `path`, `reason`)."""
    import fracas

    entry: Json = {"name": name, "kind": kind, "request": request, "seed": seed}
    try:
        result = fracas.roll(kind, request, seed=seed).to_dict()
    except fracas.RequestError as exc:
        entry["error"] = {"type": type(exc).__name__, "path": exc.path, "reason": exc.reason}
    else:
        result.pop("backend", None)
        entry["result"] = result
    return entry


def build(kind: str, curated: Curated, make: Callable[[random.Random], Json], *, seed: int,
          count: int, prefix: str = "") -> list[Json]:
    """The curated vectors, then `count` random ones named `PREFIX-i` (the kind by default),
    each request and seed drawn from one generator seeded with `seed` (request first, then
    its seed)."""
    rng = random.Random(seed)
    vectors = [vector(kind, name, request, s) for name, request, s in curated]
    for i in range(count):
        vectors.append(vector(kind, f"{prefix or kind}-{i}", make(rng), rng.getrandbits(64)))
    return vectors


def dumps(vectors: list[Json]) -> str:
    return json.dumps(vectors, indent=1, ensure_ascii=False) + "\n"


def main(outputs: Callable[[], dict[Path, str]]) -> None:
    """`python tests/vectors/generate_KIND.py`: write what the generator makes."""
    from fracas.spec import regen

    regen.write(outputs())
