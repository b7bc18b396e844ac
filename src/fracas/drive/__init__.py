"""The drivers: single attack, bulk, initiative. They know no ruleset.

Each finds the request's ruleset in the registry and runs it through the
`Ruleset` protocol (`fracas.rulesets.base`); what they own is what every ruleset
shares: the seed, the generator streams, injected faces, bulk chunks and threads.
"""

from __future__ import annotations

import itertools
import os
import threading
from array import array
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Iterator, Mapping
from typing import Any, Callable, Optional

import msgspec
import orjson

from .. import _kernels
from .. import _layout as L
from .. import rulesets
from ..errors import Cancelled, LimitError, SchemaError
from ..requests import check_rolls, convert, parse_json, say
from ..rng import SEED_LIMIT, chunk_seed, new_seed, seed_state
from ..rulesets.base import AttackOutcome, BulkJob, BulkOutcome, Result, check_bulk_job
from ..rulesets.rolling import finish, pick_seed as _pick_seed, prepare


def _is_bulk(request: Any) -> bool:
    return isinstance(request, dict) and "attacks" in request


#: The bridge's own rolling methods that no request kind has, and their `fracas` functions.
OWN_CALLS: Mapping[str, str] = {"fight.forecast": "forecast"}


class _EngineCalls(Mapping[str, str]):
    """Bridge method → the `fracas` function that runs it, read from the registered
    rulesets' kinds (`Kind.method`, `Kind.call`) each time, so a ruleset registered later
    brings its kinds' methods too; then the bridge's own rolling methods (OWN_CALLS)."""

    def _calls(self) -> dict[str, str]:
        return {**{kind.method: kind.call for kind in rulesets.kinds().values()}, **OWN_CALLS}

    def __getitem__(self, method: str) -> str:
        return self._calls()[method]

    def __iter__(self) -> Iterator[str]:
        return iter(self._calls())

    def __len__(self) -> int:
        return len(self._calls())


#: The engine call (a `fracas` function) behind each rolling bridge method: the one map
#: the bridge's journal.replay, `fracas journal replay` and `fracas replay` share.
ENGINE_CALLS: Mapping[str, str] = _EngineCalls()


#: Compiled attacks of recent request shapes, by content (seed and rolls aside): a GM's
#: macro sends the same attack every turn, and checking and compiling it is most of a
#: single call's time. Plans are never changed by rolling, so one serves many rolls.
PLAN_CACHE_SIZE = 256
_PLANS: "OrderedDict[bytes, tuple[Any, Any, Any]]" = OrderedDict()
_PLANS_LOCK = threading.Lock()


class _SeedAndRolls(msgspec.Struct, forbid_unknown_fields=False):
    """What a cached attack still needs from its request: checked like the full decode."""

    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


def canonical(request: Any) -> bytes:
    """A request's one canonical encoding: JSON with sorted keys, so equal requests have
    equal bytes. The bridge journals it and digests it; seed and rolls aside, it is the
    plan caches' key."""
    return orjson.dumps(request, option=orjson.OPT_SORT_KEYS)


class Encoded(dict[str, Any]):
    """A request mapping with its `canonical` encoding, made once by the caller (the bridge
    made it for its journal): the plan caches key on those bytes instead of encoding the
    request again. It must be the encoding of exactly this mapping."""

    __slots__ = ("encoded",)

    def __init__(self, request: dict[str, Any], encoded: bytes) -> None:
        super().__init__(request)
        self.encoded = encoded


def _plan_key(request: Any) -> Optional[bytes]:
    """The cache key of a mapping request (its content without seed and rolls), or None."""
    if not isinstance(request, dict):
        return None
    try:
        if "seed" not in request and "rolls" not in request:
            return request.encoded if type(request) is Encoded else canonical(request)
        return orjson.dumps({k: v for k, v in request.items() if k != "seed" and k != "rolls"},
                            option=orjson.OPT_SORT_KEYS)
    except TypeError:  # not plain JSON data (a typed object inside): not cached
        return None


#: Compiled bulk requests of recent shapes, the same way: a mob macro, a benchmark, a
#: simulation send the same request with a new seed. Rolling never changes a job.
BULK_PLAN_CACHE_SIZE = 32
_BULK_PLANS: "OrderedDict[bytes, BulkJob]" = OrderedDict()


def _recall(cache: "OrderedDict[bytes, Any]", key: Optional[bytes]) -> Any:
    """The cached plan of `key` (None when absent or uncacheable), now the most recent.

    Without the lock (a hit is the single-attack path's hot step): `OrderedDict.get` and
    `move_to_end` are each one C call, atomic under the GIL; a key evicted by another
    thread between the two is still a hit (its plan is whole: plans are never changed).
    Inserting and evicting (`_keep`) take the lock."""
    if key is None:
        return None
    found = cache.get(key)
    if found is not None:
        try:
            cache.move_to_end(key)
        except KeyError:  # evicted meanwhile by another thread: the plan found is still good
            pass
    return found


def _keep(cache: "OrderedDict[bytes, Any]", key: Optional[bytes], plan: Any, size: int) -> None:
    """Cache `plan` under `key`, forgetting the least recent past `size` entries."""
    if key is None:
        return
    with _PLANS_LOCK:
        cache[key] = plan
        if len(cache) > size:
            cache.popitem(last=False)


def clear_plan_cache() -> None:
    """Forget every cached plan (tests and benchmarks that time compilation)."""
    with _PLANS_LOCK:
        _PLANS.clear()
        _BULK_PLANS.clear()


rulesets.on_change(clear_plan_cache)  # a plan is its ruleset's: one registered anew compiles its own


#: `_roll`'s "work the plan key out yourself".
_NO_KEY: Any = object()


def _roll(kind: str, request: Any, seed: Optional[int], key: Any = _NO_KEY) -> Any:
    """One request of a rolled kind (an attack, initiative, a ruleset's own kind): ruleset →
    its `kind` → decode → seed and faces → compile → roll (`fracas.rulesets.rolling`, which
    a ruleset's own commands roll with too).

    `request` is already decoded from JSON (a mapping or a typed request). An attack
    whose content was compiled recently reuses that plan (`PLAN_CACHE_SIZE`); `key`, when
    given, is its plan key already worked out (`_plan_key`)."""
    if key is _NO_KEY:
        key = _plan_key(request) if kind == "attack" else None
    cached = _recall(_PLANS, key)
    if cached is not None:
        ruleset, bound, plan = cached
        given_seed, given_rolls = request.get("seed"), request.get("rolls")
        if given_rolls is not None or (given_seed is not None and type(given_seed) is not int):
            extras = convert({"seed": given_seed, "rolls": given_rolls}, _SeedAndRolls)
            given_seed, given_rolls = extras.seed, extras.rolls
        seed = _pick_seed(given_seed, seed)
        rolls = check_rolls(given_rolls, ruleset.largest_die)
    else:
        ruleset, bound, plan, seed, rolls = prepare(kind, request, seed)
        _keep(_PLANS, key, (ruleset, bound, plan), PLAN_CACHE_SIZE)
    return finish(bound, plan, seed, rolls)


def roll(kind: str, request: Any, *, seed: Optional[int] = None) -> "Result":
    """Roll a request of any kind its ruleset resolves (`fracas.rulesets.kinds()`): "attack",
    "initiative", or a ruleset's own, such as Enchanted Realms' "compete" and "impale" or
    old-school's "morale". A ruleset without that kind is a `RulesError` at `$.ruleset`."""
    if kind == "attack":
        return resolve(request, seed=seed)
    result: Result = _roll(kind, parse_json(request), seed)
    return result


def resolve(request: Any, *, seed: Optional[int] = None) -> "AttackOutcome":
    """Resolve one attack of any ruleset; the result is always that ruleset's attack result.

    `request` is a mapping, JSON str/bytes or a typed request. `seed` wins over the
    request's own; with neither, one is drawn from the OS. Raises a `RequestError`
    subclass naming the field path for anything invalid or impossible; a bulk
    request (one with `attacks`) is refused at `$.attacks`: it goes to `resolve_bulk`.
    """
    request = parse_json(request)  # `roll("attack", ...)` without its frame: a single attack is a hot path
    key: Any = _NO_KEY
    if (type(request) is dict or type(request) is Encoded) and "seed" not in request and "rolls" not in request:
        fused = _fused(request, seed)
        if type(fused) is bytes or fused is None:
            key = fused  # not fused: its plan key (None: not cacheable), for the full path
        else:
            return fused  # type: ignore[no-any-return]
    if _is_bulk(request):
        raise SchemaError("$.attacks", "a bulk request (with attacks) goes to fracas.resolve_bulk;"
                                       " resolve takes one attack")
    result: AttackOutcome = _roll("attack", request, seed, key)
    return result


def _fused(request: dict[str, Any], seed: Optional[int]) -> Any:
    """The fused single-attack path (issue 44 item 3): an attack mapping without `seed` or
    `rolls` in it (a VTT macro's call; the caller checked) whose content was compiled
    recently, rolled in one step by its plan's `roll_seed(seed)` (the compiled core seeds
    its own generator state and makes the buffers, the result is built once, its JSON when
    asked), or by its ruleset's `roll_attack` when the plan has none. Returns the result;
    or, when the request is not such a one (not yet compiled, a bulk request, a bad seed),
    its plan key (bytes, or None when not cacheable) for the full path, which compiles and
    caches it or says what is wrong. The same dice as the full path for the same seed, on either backend."""
    try:
        key = request.encoded if type(request) is Encoded else canonical(request)
    except TypeError:  # not plain JSON data (a typed object inside): not cached
        return None
    cached = _recall(_PLANS, key)
    if cached is None or "attacks" in request:
        return key
    if seed is None:
        seed = new_seed()
    elif type(seed) is not int or not 0 <= seed < SEED_LIMIT:
        return key  # the full path says what is wrong with it, naming the field
    roll_seed = getattr(cached[2], "roll_seed", None)
    if roll_seed is None:
        # A plan without its own fused roll (the strike-row rulesets', a plug-in's): rolled
        # as the full path rolls a cached plan without seed or rolls in the request, by its
        # ruleset's own `roll_attack`, without looking the plan up again.
        return finish(cached[1], cached[2], seed, None)
    return roll_seed(seed)


def roll_initiative(request: Any, *, seed: Optional[int] = None) -> "Result":
    """Roll initiative for the combatants of a request, by its ruleset's rules."""
    return roll("initiative", request, seed=seed)


def check_morale(request: Any, *, seed: Optional[int] = None) -> "Result":
    """`roll("morale", ...)`, kept by its name (old-school OS-4's kind, from its folder)."""
    return roll("morale", request, seed=seed)


def compete(request: Any, *, seed: Optional[int] = None) -> "Result":
    """`roll("compete", ...)`, kept by its name (Enchanted Realms ER-19's kind)."""
    return roll("compete", request, seed=seed)


def impale(request: Any, *, seed: Optional[int] = None) -> "Result":
    """`roll("impale", ...)`, kept by its name (Enchanted Realms ER-23's kind)."""
    return roll("impale", request, seed=seed)


# -- bulk --------------------------------------------------------------------------------

_POOLS: dict[int, ThreadPoolExecutor] = {}
_POOLS_LOCK = threading.Lock()


def _pool(workers: int) -> ThreadPoolExecutor:
    """A thread pool of `workers` threads, kept for the next request (no start-up per call)."""
    with _POOLS_LOCK:
        pool = _POOLS.get(workers)
        if pool is None:
            pool = _POOLS[workers] = ThreadPoolExecutor(max_workers=workers,
                                                        thread_name_prefix="fracas-bulk")
        return pool


def chunks(total: int) -> list[tuple[int, int, int]]:
    """(chunk index, first attack, attacks) for `total` attacks in CHUNK_SIZE pieces."""
    return [(k, k * L.CHUNK_SIZE, min(L.CHUNK_SIZE, total - k * L.CHUNK_SIZE))
            for k in range((total + L.CHUNK_SIZE - 1) // L.CHUNK_SIZE)]


def _default_threads() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def listed_rows(job: BulkJob) -> int:
    """Strike rows the answer lists one by one (0 for detail "summary"): Σ count × strikes."""
    if job.detail == "summary":
        return 0
    groups = job.groups
    rows: int = sum((groups[3 * g + 1] - groups[3 * g]) * info[2] for g, info in enumerate(job.group_info))
    return rows


def resolve_bulk(request: Any, *, seed: Optional[int] = None, threads: Optional[int] = None,
                 max_attacks: Optional[int] = None, max_listed: Optional[int] = None,
                 cancel: Any = None, admit: Optional[Callable[[int, int, str], None]] = None) -> "BulkOutcome":
    """Resolve a bulk request (profiles × targets × counts) of any ruleset in one call.

    `threads` defaults to the CPUs this process may use; the result does not depend
    on it. `max_attacks` and `max_listed` (attacks listed one by one, any detail but
    "summary") are a caller's limits, checked once the request is compiled and
    before a die is rolled (the bridge passes its own). `admit(attacks, rows,
    detail)`, when given, is called at that same point (rows: strike rows listed one
    by one) and may raise `LimitError` to refuse the work. `cancel` is anything with
    `is_set()` (a `threading.Event`): once set, the rolling stops at the next chunk
    of CHUNK_SIZE attacks and `Cancelled` is raised. Raises a `RequestError`
    subclass with the field path for bad input.
    """
    request = parse_json(request)
    if threads is not None and not 1 <= threads <= 256:
        raise SchemaError("threads", say("out_of_range", what="threads", value=threads, low=1, high=256))
    key = _plan_key(request)
    job: Optional[BulkJob] = _recall(_BULK_PLANS, key)
    if job is not None:  # the same request content compiled before: only its seed is new
        given = request.get("seed")
        if given is not None and type(given) is not int:
            given = convert({"seed": given}, _SeedAndRolls).seed
        seed = _pick_seed(given, seed)
    else:
        ruleset = rulesets.for_request(request)
        bound = ruleset.kind("bulk")
        typed = bound.decode(request)
        seed = _pick_seed(typed.seed, seed)
        job = bound.compile(typed)
        check_bulk_job(job, ruleset.name)
        _keep(_BULK_PLANS, key, job, BULK_PLAN_CACHE_SIZE)
    if max_attacks is not None and job.total > max_attacks:
        raise LimitError("$.attacks", f"{job.total:,} attacks is more than the limit of {max_attacks:,}")
    if max_listed is not None and job.detail != "summary" and job.total > max_listed:
        raise LimitError("$.detail", f"detail {job.detail!r} for {job.total:,} attacks is more than the limit "
                         f"of {max_listed:,}; use detail 'summary'")
    if admit is not None:
        admit(job.total, listed_rows(job), job.detail)
    if seed is None:
        seed = new_seed()
    threads = _default_threads() if threads is None else threads
    if not job.gil_free:
        threads = 1  # kernels that hold the GIL: more threads only add switching
    listed: Optional[list[Any]] = None
    if job.detail != "summary":
        listed = []
        for k, first, count in chunks(job.total):
            if cancel is not None and cancel.is_set():
                raise Cancelled("cancelled: the bulk request was stopped before it finished")
            listed.extend(job.roll_listed(_chunk_state(seed, k), first, count))
        # The summary rolls the same dice from the same streams, so its totals are
        # those of the attacks listed; one code path computes every summary.
        threads = 1
    result: BulkOutcome = job.result(_summary(job, seed, threads, cancel), seed, threads, listed)
    return result


_FOUR_ZEROS = (0, 0, 0, 0)


def _chunk_state(seed: int, k: int) -> "array[int]":
    """The generator state of bulk chunk `k` (`seed_state(chunk_seed(seed, k))`), seeded by
    the active kernels (in C on the compiled core)."""
    state = array("I", _FOUR_ZEROS)
    _kernels.active().seed_state(chunk_seed(seed, k) if k else seed, state)
    return state


def _summary(job: BulkJob, seed: int, threads: int, cancel: Any = None) -> Any:
    if job.total <= L.CHUNK_SIZE:
        # One chunk (a charge of a few hundred attacks, issue 44 item 3): rolled here, on this
        # thread, without the queue and its lock; the same stream and totals as below.
        if cancel is not None and cancel.is_set():
            raise Cancelled("cancelled: the bulk request was stopped before it finished")
        totals = job.new_totals()
        job.roll_chunk(totals, _chunk_state(seed, 0), 0, job.total)
        return job.merge([totals])
    work_list = chunks(job.total)
    lock = threading.Lock()
    queue = iter(work_list)
    workers = max(1, min(threads, len(work_list)))
    # A job with a lane kernel rolls several chunks at once (each from its own stream, so
    # the totals are the same); each worker takes as many as keep the workers even.
    lanes = getattr(job, "lanes", 1)
    take = max(1, min(lanes, len(work_list) // workers))

    def work() -> Any:
        totals = job.new_totals()
        while True:
            with lock:
                items = list(itertools.islice(queue, take))
            if not items:
                return totals
            if cancel is not None and cancel.is_set():
                raise Cancelled("cancelled: the bulk request was stopped before it finished")
            if len(items) == 1:
                k, first, count = items[0]
                job.roll_chunk(totals, _chunk_state(seed, k), first, count)
            else:
                job.roll_chunks(totals, [(_chunk_state(seed, k), first, count)  # type: ignore[attr-defined]
                                         for k, first, count in items])

    if workers == 1:
        parts = [work()]
    else:
        parts = list(_pool(workers).map(lambda _: work(), range(workers)))
    return job.merge(parts)
