"""Bulk resolution: many attacks of a few profiles, compiled once, rolled in chunks.

The request is compiled once into the kernels' strike rows (one block of rows per
`attacks` entry). The attacks are cut into fixed-size chunks, each rolled from its
own generator stream (docs/ENGINE.md §5) on a pool of threads with the GIL released;
summaries are sums and maxima, so the result is identical for any thread count.
Summary mode streams: memory grows with targets and groups, never with attacks.
"""

from __future__ import annotations

import os
import threading
from array import array
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional

from . import _kernels
from . import _layout as L
from .engine import kernel_error
from .errors import LimitError, RequestError, SchemaError
from .plan import (
    TYPE_INDEX, check_attacker, check_range, check_ruleset, check_seed, check_targets,
    compile_strike,
)
from .result import AttackResult
from .rng import chunk_seed, new_seed, seed_state
from .schema import BulkRequest, Profile, Target, convert_mapping, decode, key_path

MAX_ATTACKS = 10**10
MAX_GROUPS = 10_000
MAX_PROFILE_STRIKES = 64
#: Largest request for each detail level (the per-attack output grows with it).
DETAIL_LIMITS = {"summary": MAX_ATTACKS, "attacks": 1_000_000, "dice": 10_000}


class BulkPlan:
    """A bulk request compiled into kernel arrays."""

    __slots__ = ("plan", "groups", "metas", "targets", "group_info", "total", "ruleset", "detail")

    def __init__(self):
        self.plan = array("i")
        self.groups = array("q")
        self.metas = []          # StrikeMeta per plan row
        self.targets = {}
        self.group_info = []     # (profile id, target(s), count)
        self.total = 0
        self.ruleset = "enchanted-realms"
        self.detail = "summary"


def compile_bulk(req: BulkRequest) -> BulkPlan:
    """Check a bulk request and compile it (same rules and error paths as single attacks)."""
    check_ruleset(req.ruleset)
    bulk = BulkPlan()
    bulk.ruleset, bulk.detail = req.ruleset, req.detail
    profiles: dict[str, Profile] = convert_mapping(req.profiles, Profile, "$.profiles")
    if not profiles:
        raise SchemaError("$.profiles", "no profiles: give at least one")
    conditions = {}
    for pid, profile in profiles.items():
        ppath = key_path("$.profiles", pid)
        conditions[pid] = check_attacker(profile.attacker, f"{ppath}.attacker")
        if not profile.strikes:
            raise SchemaError(f"{ppath}.strikes", "no strikes: a profile needs at least one (ER-1)")
        if len(profile.strikes) > MAX_PROFILE_STRIKES:
            raise LimitError(f"{ppath}.strikes", f"{len(profile.strikes)} strikes, the most is "
                             f"{MAX_PROFILE_STRIKES}")
    bulk.targets = check_targets(convert_mapping(req.targets, Target, "$.targets"))
    if not req.attacks:
        raise SchemaError("$.attacks", "no attacks: give at least one entry")
    if len(req.attacks) > MAX_GROUPS:
        raise LimitError("$.attacks", f"{len(req.attacks)} entries, the most is {MAX_GROUPS}")
    for g, group in enumerate(req.attacks):
        gpath = f"$.attacks[{g}]"
        profile = profiles.get(group.profile)
        if profile is None:
            raise SchemaError(f"{gpath}.profile", f"unknown profile {group.profile!r} "
                              f"(profiles: {', '.join(profiles)})")
        check_range(group.count, 0, MAX_ATTACKS, f"{gpath}.count", "count")
        names = [group.target] * len(profile.strikes) if isinstance(group.target, str) else group.target
        if len(names) != len(profile.strikes):
            raise SchemaError(f"{gpath}.target", f"{len(names)} targets for the {len(profile.strikes)} "
                              f"strikes of profile {group.profile!r}: give one target, or one per strike")
        begin = len(bulk.metas)
        ppath = key_path("$.profiles", group.profile)
        for i, (strike, tid) in enumerate(zip(profile.strikes, names)):
            tpath = f"{gpath}.target" if isinstance(group.target, str) else f"{gpath}.target[{i}]"
            target = bulk.targets.get(tid)
            if target is None:
                raise SchemaError(tpath, f"unknown target {tid!r} (targets: {', '.join(bulk.targets)})")
            row, meta = compile_strike(strike, f"{ppath}.strikes[{i}]", profile.attacker,
                                       f"{ppath}.attacker", conditions[group.profile], target,
                                       profile.advantage, profile.disadvantage, target_path=tpath)
            bulk.plan.extend(row)
            bulk.metas.append(meta)
        bulk.groups.extend((begin, len(bulk.metas), group.count))
        bulk.group_info.append((group.profile, group.target, group.count))
        bulk.total += group.count
    if bulk.total > DETAIL_LIMITS[req.detail]:
        raise LimitError("$.detail", f"detail {req.detail!r} is limited to {DETAIL_LIMITS[req.detail]:,} "
                         f"attacks and the request has {bulk.total:,}: use detail 'summary'")
    if bulk.total > MAX_ATTACKS:
        raise LimitError("$.attacks", f"{bulk.total:,} attacks, the most is {MAX_ATTACKS:,}")
    return bulk


def resolve_bulk(request: Any, *, seed: Optional[int] = None, threads: Optional[int] = None):
    """Resolve a bulk request (profiles × targets × counts) in one call.

    `threads` defaults to the CPUs this process may use; the result does not depend
    on it. Raises a `RequestError` subclass with the field path for bad input.
    """
    req: BulkRequest = decode(request, BulkRequest)
    check_seed(req.seed)
    seed = check_seed(seed, "seed") if seed is not None else req.seed
    if threads is not None and not 1 <= threads <= 256:
        raise SchemaError("threads", f"threads {threads} is out of range (1 to 256)")
    bulk = compile_bulk(req)
    if seed is None:
        seed = new_seed()
    kernel = _kernels.active()
    if threads is None:
        threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if kernel.BACKEND == "python":
        threads = 1  # the pure kernels hold the GIL: more threads only add switching
    if bulk.detail == "summary":
        return _summary(bulk, seed, kernel, threads)
    return _detailed(bulk, seed, kernel)


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


def _chunks(total: int):
    return [(k, k * L.CHUNK_SIZE, min(L.CHUNK_SIZE, total - k * L.CHUNK_SIZE))
            for k in range((total + L.CHUNK_SIZE - 1) // L.CHUNK_SIZE)]


def _summary(bulk: BulkPlan, seed: int, kernel, threads: int) -> "BulkResult":
    n_targets, n_groups = len(bulk.targets), len(bulk.group_info)
    stride = L.G_WIDTH + L.HIST_BINS
    chunks = _chunks(bulk.total)
    lock = threading.Lock()
    queue = iter(chunks)

    def work():
        acc_t = array("q", bytes(8 * n_targets * L.T_WIDTH))
        acc_b = array("q", bytes(8 * n_targets * L.N_TYPES))
        acc_g = array("q", bytes(8 * n_groups * stride))
        info = array("q", (0, 0, 0, 0))
        while True:
            with lock:
                item = next(queue, None)
            if item is None:
                return acc_t, acc_b, acc_g, None
            k, first, count = item
            state = array("I", seed_state(chunk_seed(seed, k)))
            err = kernel.roll_summary(bulk.plan, bulk.groups, n_targets, first, count, state,
                                      acc_t, acc_b, acc_g, info)
            if err:
                return acc_t, acc_b, acc_g, (err, info[2])

    workers = max(1, min(threads, len(chunks)))
    if workers == 1:
        parts = [work()]
    else:
        parts = list(_pool(workers).map(lambda _: work(), range(workers)))
    for *_, failure in parts:
        if failure:
            raise _bulk_error(bulk, failure[0], failure[1])
    acc_t = [0] * (n_targets * L.T_WIDTH)
    acc_b = [0] * (n_targets * L.N_TYPES)
    acc_g = [0] * (n_groups * stride)
    for t, b, g, _ in parts:
        for i in range(len(acc_t)):
            if i % L.T_WIDTH == L.T_LONGEST:
                acc_t[i] = max(acc_t[i], t[i])
            else:
                acc_t[i] += t[i]
        for i in range(len(acc_b)):
            acc_b[i] += b[i]
        for i in range(len(acc_g)):
            acc_g[i] += g[i]
    return BulkResult(bulk, seed, kernel.BACKEND, threads, acc_t, acc_b, acc_g)


def _bulk_error(bulk: BulkPlan, code: int, row: int) -> RequestError:
    g = next(i for i in range(len(bulk.group_info)) if bulk.groups[3 * i] <= row < bulk.groups[3 * i + 1])
    strike = row - bulk.groups[3 * g]
    return kernel_error(code, strike, -1, None,
                        strike_path=key_path("$.profiles", bulk.group_info[g][0]) + ".strikes")


def _detailed(bulk: BulkPlan, seed: int, kernel) -> "BulkResult":
    """Detail 'attacks' or 'dice': every attack's damage (and dice), chunk by chunk."""
    per_attack = []
    n_targets = len(bulk.targets)
    widest = max(bulk.groups[3 * g + 1] - bulk.groups[3 * g] for g in range(len(bulk.group_info)))
    want_dice = bulk.detail == "dice"
    g_of_attack = _group_of_attack(bulk)
    for k, first, count in _chunks(bulk.total):
        capacity = count * widest * 24
        while True:
            state = array("I", seed_state(chunk_seed(seed, k)))
            rows = count * widest
            out = array("q", bytes(8 * rows * L.OUT_WIDTH))
            log = array("i", bytes(4 * 2 * (capacity if want_dice else 0)))
            info = array("q", (0, 0, 0, 0))
            err = kernel.roll_detail(bulk.plan, bulk.groups, n_targets, first, count, state,
                                     None, out, log, info)
            if err != L.E_LOG_FULL or not want_dice:
                break
            capacity *= 4
        if err:
            raise _bulk_error(bulk, err, info[2])
        row = 0
        for a in range(first, first + count):
            g = g_of_attack(a)
            begin, end = bulk.groups[3 * g], bulk.groups[3 * g + 1]
            width = end - begin
            damages = [out[(row + i) * L.OUT_WIDTH + L.O_DAMAGE] for i in range(width)]
            entry = {"group": g, "damage": sum(damages)}
            if want_dice:
                single = AttackResult(seed, bulk.ruleset, kernel.BACKEND, False, bulk.metas[begin:end],
                                      bulk.targets, out[row * L.OUT_WIDTH:(row + width) * L.OUT_WIDTH],
                                      log, {})
                entry["strikes"] = single.to_dict()["strikes"]
            else:
                entry["strikes"] = damages
            per_attack.append(entry)
            row += width
    # The summary kernel rolls the same dice from the same streams, so its totals
    # are those of the attacks listed; one code path computes every summary.
    result = _summary(bulk, seed, kernel, 1)
    result.attacks = per_attack
    return result


def _group_of_attack(bulk: BulkPlan):
    bounds = []
    start = 0
    for g in range(len(bulk.group_info)):
        start += bulk.groups[3 * g + 2]
        bounds.append(start)

    def find(a: int) -> int:
        for g, bound in enumerate(bounds):
            if a < bound:
                return g
        raise IndexError(a)
    return find


class BulkResult:
    """Per-target totals and per-group statistics of a bulk request."""

    __slots__ = ("bulk", "seed", "backend", "threads", "acc_t", "acc_b", "acc_g", "attacks")

    def __init__(self, bulk, seed, backend, threads, acc_t, acc_b, acc_g, attacks=None):
        self.bulk, self.seed, self.backend, self.threads = bulk, seed, backend, threads
        self.acc_t, self.acc_b, self.acc_g, self.attacks = acc_t, acc_b, acc_g, attacks

    @property
    def total_damage(self) -> int:
        return sum(t["damage"] for t in self.to_dict()["targets"].values())

    def to_dict(self) -> dict[str, Any]:
        bulk = self.bulk
        targets = {}
        for tid, info in bulk.targets.items():
            t = info.index * L.T_WIDTH
            acc = self.acc_t
            by_type = {}
            for m in bulk.metas:
                if m.target == tid:
                    by_type[m.damage_type] = self.acc_b[info.index * L.N_TYPES + TYPE_INDEX[m.damage_type]]
            targets[tid] = {
                "damage": acc[t + L.T_DAMAGE], "by_type": by_type,
                "attacks": acc[t + L.T_ATTACKS], "attacks_hit": acc[t + L.T_ATTACKS_HIT],
                "strikes": acc[t + L.T_STRIKES], "strikes_hit": acc[t + L.T_STRIKES_HIT],
                "crits": acc[t + L.T_CRITS], "longest_chain": acc[t + L.T_LONGEST],
                "undodgeable": acc[t + L.T_UNDODGEABLE],
            }
        stride = L.G_WIDTH + L.HIST_BINS
        groups = []
        for g, (profile, target, count) in enumerate(bulk.group_info):
            base = g * stride
            hist = list(self.acc_g[base + L.G_WIDTH: base + stride])
            while len(hist) > 1 and hist[-1] == 0:
                hist.pop()
            hit = self.acc_g[base + L.G_ATTACKS_HIT]
            damage = self.acc_g[base + L.G_DAMAGE]
            groups.append({
                "profile": profile, "target": target, "count": count,
                "attacks_hit": hit, "hit_rate": hit / count if count else 0.0,
                "damage": damage, "mean_damage": damage / count if count else 0.0,
                "crits": self.acc_g[base + L.G_CRITS], "histogram": hist,
            })
        result = {
            "ruleset": bulk.ruleset, "seed": self.seed, "backend": self.backend,
            "detail": bulk.detail, "attacks_total": bulk.total, "targets": targets,
            "groups": groups, "total_damage": sum(t["damage"] for t in targets.values()),
        }
        if self.attacks is not None:
            result["attacks"] = self.attacks
        return result
