"""Enchanted Realms bulk requests: many attacks of a few profiles, compiled once.

The request is compiled once into the kernels' strike rows (one block of rows per
`attacks` entry). The bulk driver (`fracas.drive.bulk`) cuts the attacks into
chunks, each rolled from its own generator stream (docs/ENGINE.md §5), and asks
this job to roll a chunk into totals, to merge totals, and to list attacks one by
one for the detail levels. Summaries are sums and maxima, so the result is
identical for any thread count.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from typing import Any, Optional

from ... import _kernels
from ... import _layout as L
from ...dice import kernel_info
from ...errors import LimitError, RequestError, RulesError, SchemaError
from ...requests import check_range, convert_mapping, decode, key_path, say
from ..base import merge_columns
from .attack import kernel_error
from .plan import TYPE_INDEX, check_attacker, check_targets, compile_strike
from . import strikes as _strikes
from .result import AttackResult
# A bulk job's bounds are every ruleset's (fracas.rulesets.rows declares them once).
from ..rows import MAX_ATTACKS, MAX_GROUPS, MAX_PROFILE_STRIKES, check_detail, group_index
from .schema import BulkRequest, Profile, Target

#: The summary builder by backend, as result.py picks the strike builder: strikes.py compiled
#: where setup.py built it, its .py source on the pure-Python backend.
_BULK_DICTS = {"compiled": _strikes.bulk_dict, "python": _kernels.pure_python(_strikes).bulk_dict}

#: Fewest chunks worth the lane kernel: with fewer, its unused lanes cost more than they save.
LANES_MIN = 4


#: One int64 zero: `_ZERO_Q * n` is n zeros, made in C (a small request's accumulators).
_ZERO_Q = array("q", [0])

class BulkPlan:
    """A bulk request compiled into kernel arrays: the ER bulk job."""

    __slots__ = ("plan", "groups", "metas", "targets", "group_info", "total", "ruleset", "detail",
                 "_group_bounds", "_shape")

    def __init__(self) -> None:
        self.plan = array("i")
        self.groups = array("q")
        self.metas: list[Any] = []          # StrikeMeta per plan row
        self.targets: dict[str, Any] = {}
        self.group_info: list[tuple[str, Any, int]] = []     # (profile id, target(s), count)
        self.total = 0
        self.ruleset = "enchanted-realms"
        self.detail = "summary"
        self._group_bounds: Optional[list[int]] = None
        #: What a result's to_dict reads, made by the first one (`_layout`).
        self._shape: Optional[tuple[list[Any], list[Any]]] = None

    @property
    def gil_free(self) -> bool:
        """Chunks roll in parallel threads only on the compiled core (it releases the GIL)."""
        return bool(_kernels.active().BACKEND != "python")

    # -- the bulk job protocol (fracas.rulesets.base.BulkJob) ----------------------------
    def new_totals(self) -> tuple[array[int], array[int], array[int]]:
        n_targets, n_groups = len(self.targets), len(self.group_info)
        return (_ZERO_Q * (n_targets * L.T_WIDTH), _ZERO_Q * (n_targets * L.N_TYPES),
                _ZERO_Q * (n_groups * (L.G_WIDTH + L.HIST_BINS)))

    def roll_chunk(self, totals: Any, state: array[int], first: int, count: int) -> None:
        acc_t, acc_b, acc_g = totals
        info = kernel_info()
        err = _kernels.active().roll_summary(self.plan, self.groups, len(self.targets), first, count, state,
                                             acc_t, acc_b, acc_g, info)
        if err:
            raise self._error(err, info[L.I_STRIKE])

    @property
    def lanes(self) -> int:
        """Chunks `roll_chunks` rolls at once: the compiled lane kernel's width for one group
        of one strike without disadvantage (the common mob), else 1."""
        kernel = _kernels.active()
        if kernel.BACKEND == "python" or not kernel.lanes_fit(self.plan, self.groups):
            return 1
        return int(kernel.LANES)

    def roll_chunks(self, totals: Any, items: list[tuple[array[int], int, int]]) -> None:
        """Several chunks (state, first, count) at once: the same totals as `roll_chunk` on
        each, rolled side by side by the lane kernel when there are enough of them."""
        if len(items) < LANES_MIN or self.lanes == 1:
            for state, first, count in items:
                self.roll_chunk(totals, state, first, count)
            return
        acc_t, acc_b, acc_g = totals
        states = array("I")
        for state, _first, _count in items:
            states.extend(state)
        info = kernel_info()
        err = _kernels.active().roll_summary_lanes(
            self.plan, self.groups, len(self.targets), array("q", [f for _s, f, _c in items]),
            array("q", [c for _s, _f, c in items]), states, acc_t, acc_b, acc_g, info)
        if err:
            raise self._error(err, info[L.I_STRIKE])

    def merge(self, parts: list[Any]) -> tuple[Any, Any, Any]:
        """Every worker's totals added up (the longest chain: the largest). One worker's (a
        request of one chunk) are the totals as they are: the result only reads them."""
        if len(parts) == 1:
            only: tuple[Any, Any, Any] = parts[0]
            return only
        return (merge_columns([p[0] for p in parts], L.T_LONGEST, L.T_WIDTH),
                merge_columns([p[1] for p in parts]), merge_columns([p[2] for p in parts]))

    def roll_listed(self, state: array[int], first: int, count: int) -> list[dict[str, Any]]:
        """Detail 'attacks' or 'dice': every attack's damage (and dice) in this chunk."""
        kernel = _kernels.active()
        widest = max(self.groups[3 * g + 1] - self.groups[3 * g] for g in range(len(self.group_info)))
        want_dice = self.detail == "dice"
        capacity = count * widest * 24
        start = array("I", state)
        while True:
            state[:] = start
            rows = count * widest
            out = array("q", bytes(8 * rows * L.OUT_WIDTH))
            log = array("i", bytes(4 * 2 * (capacity if want_dice else 0)))
            info = kernel_info()
            err = kernel.roll_detail(self.plan, self.groups, len(self.targets), first, count, state,
                                     None, out, log, info)
            if err != L.E_LOG_FULL or not want_dice:
                break
            capacity *= 4
        if err:
            raise self._error(err, info[L.I_STRIKE])
        listed = []
        row = 0
        for a in range(first, first + count):
            g = self.group_of_attack(a)
            begin, end = self.groups[3 * g], self.groups[3 * g + 1]
            width = end - begin
            damages = [out[(row + i) * L.OUT_WIDTH + L.O_DAMAGE] for i in range(width)]
            entry: dict[str, Any] = {"group": g, "damage": sum(damages)}
            if want_dice:
                single = AttackResult(0, self.ruleset, kernel.BACKEND, False, self.metas[begin:end],
                                      self.targets, out[row * L.OUT_WIDTH:(row + width) * L.OUT_WIDTH],
                                      log, {})
                entry["strikes"] = single.to_dict()["strikes"]
            else:
                entry["strikes"] = damages
            listed.append(entry)
            row += width
        return listed

    def result(self, totals: Any, seed: int, threads: int, listed: Optional[list[Any]]) -> "BulkResult":
        acc_t, acc_b, acc_g = totals
        return BulkResult(self, seed, _kernels.active().BACKEND, threads, acc_t, acc_b, acc_g, listed)

    # -- helpers --------------------------------------------------------------------------
    def group_of_attack(self, attack: int) -> int:
        """The `attacks` entry that attack number `attack` belongs to (binary search)."""
        if self._group_bounds is None:
            self._group_bounds = group_index(self.groups)
        return bisect_right(self._group_bounds, attack)

    def _error(self, code: int, row: int) -> Exception:
        g = next(i for i in range(len(self.group_info)) if self.groups[3 * i] <= row < self.groups[3 * i + 1])
        strike = row - self.groups[3 * g]
        return kernel_error(code, strike, -1, None,
                            strike_path=key_path("$.profiles", self.group_info[g][0]) + ".strikes")


def _retarget(meta: Any, tid: str) -> Any:
    """A copy of a strike's metadata aimed at another (alike) target; a few µs, where
    dataclasses.replace takes tens."""
    copy = object.__new__(type(meta))
    for name in type(meta).__slots__:
        setattr(copy, name, getattr(meta, name))
    copy.target = tid
    return copy


def _unrolled(row: list[int], meta: Any, target: Any) -> None:
    """Mark what a bulk request does not roll, for the kernels to count per group: a shot
    under the friendly-fire rule with creatures near its target, whose stray a single
    attack would roll (ER-17, P_FRIENDLY), and a sneak strike at a target with `body_max`,
    with the least summed sneak damage that calls for a shock save (ER-13, D-5: half its
    maximum Body, rounded up; P_SHOCK)."""
    spec = target.spec
    row[L.P_FRIENDLY] = int(bool(meta.friendly_fire and spec.nearby))
    if meta.sneak is not False and spec.body_max is not None:
        row[L.P_SHOCK] = (spec.body_max + 1) // 2


def compile_bulk(request: Any) -> BulkPlan:
    """Check a bulk request and compile it (same rules and error paths as single attacks)."""
    req: BulkRequest = decode(request, BulkRequest)
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
            raise LimitError(f"{ppath}.strikes", say("too_many", count=len(profile.strikes), what="strikes",
                                                     most=MAX_PROFILE_STRIKES))
    bulk.targets = check_targets(convert_mapping(req.targets, Target, "$.targets"))
    if not req.attacks:
        raise SchemaError("$.attacks", "no attacks: give at least one entry")
    if len(req.attacks) > MAX_GROUPS:
        raise LimitError("$.attacks", say("too_many", count=len(req.attacks), what="entries", most=MAX_GROUPS))
    # Alike targets (the same fields, no bystanders) compile alike: a profile's strike at
    # the second of them reuses the first's row with its own target index, so a request
    # of many groups at look-alike targets compiles in time that does not grow with them.
    compiled: dict[tuple[str, int, bytes], tuple[list[int], Any]] = {}
    for g, group in enumerate(req.attacks):
        gpath = f"$.attacks[{g}]"
        found = profiles.get(group.profile)
        if found is None:
            raise SchemaError(f"{gpath}.profile", f"unknown profile {group.profile!r} "
                              f"(profiles: {', '.join(profiles)})")
        profile = found
        check_range(group.count, 0, MAX_ATTACKS, f"{gpath}.count", "count")
        names = [group.target] * len(profile.strikes) if isinstance(group.target, str) else group.target
        if len(names) != len(profile.strikes):
            raise SchemaError(f"{gpath}.target", f"{len(names)} targets for the {len(profile.strikes)} "
                              f"strikes of profile {group.profile!r}: give one target, or one per strike")
        begin = len(bulk.metas)
        for i, (strike, tid) in enumerate(zip(profile.strikes, names)):
            tpath = f"{gpath}.target" if isinstance(group.target, str) else f"{gpath}.target[{i}]"
            target = bulk.targets.get(tid)
            if target is None:
                raise SchemaError(tpath, f"unknown target {tid!r} (targets: {', '.join(bulk.targets)})")
            if profile.attacker.charmed_by == tid:  # ER-14, before the alike targets' shortcut
                raise RulesError(tpath, say("charmed_attack", target=repr(tid),
                                            path=f"{key_path('$.profiles', group.profile)}.attacker.charmed_by"))
            key = target.alike
            done = compiled.get((group.profile, i, key)) if key is not None else None
            if done is not None:
                row = list(done[0])
                row[L.P_TARGET] = target.index
                meta = _retarget(done[1], tid)
            else:
                ppath = key_path("$.profiles", group.profile)
                row, meta = compile_strike(strike, f"{ppath}.strikes[{i}]", profile.attacker,
                                           f"{ppath}.attacker", conditions[group.profile], target,
                                           profile.advantage, profile.disadvantage, target_path=tpath,
                                           strays=False)
                _unrolled(row, meta, target)
                if key is not None:
                    compiled[(group.profile, i, key)] = (row, meta)
            bulk.plan.extend(row)
            bulk.metas.append(meta)
        bulk.groups.extend((begin, len(bulk.metas), group.count))
        bulk.group_info.append((group.profile, group.target, group.count))
        bulk.total += group.count
    check_detail(req.detail, bulk.total)  # the row rulesets' detail limits and MAX_ATTACKS
    return bulk


def _layout(bulk: BulkPlan) -> tuple[list[Any], list[Any]]:
    """What a result's `to_dict` reads, worked out once per plan (a plan is cached and
    rolled again; its strikes never change): per target its id, its offsets in the
    totals and the damage types struck at it in strike order (kind, column); per group
    its profile, target(s), count and its offsets in the group totals."""
    types: dict[str, list[str]] = {tid: [] for tid in bulk.targets}
    for m in bulk.metas:
        if m.damage_type not in types[m.target]:
            types[m.target].append(m.damage_type)
    targets = [(tid, info.index * L.T_WIDTH, info.index * L.N_TYPES,
                tuple((kind, TYPE_INDEX[kind]) for kind in types[tid]))
               for tid, info in bulk.targets.items()]
    stride = L.G_WIDTH + L.HIST_BINS
    groups = [(profile, target, count, g * stride, g * stride + L.G_WIDTH, (g + 1) * stride)
              for g, (profile, target, count) in enumerate(bulk.group_info)]
    return targets, groups


class BulkResult:
    """Per-target totals and per-group statistics of a bulk request."""

    __slots__ = ("bulk", "seed", "backend", "threads", "acc_t", "acc_b", "acc_g", "attacks")

    def __init__(self, bulk: Any, seed: Any, backend: Any, threads: Any, acc_t: Any, acc_b: Any, acc_g: Any, attacks: Any=None) -> None:
        self.bulk, self.seed, self.backend, self.threads = bulk, seed, backend, threads
        self.acc_t, self.acc_b, self.acc_g, self.attacks = acc_t, acc_b, acc_g, attacks

    @property
    def total_damage(self) -> int:
        """Damage dealt to all targets together (read from the totals, no dict built)."""
        return sum(self.acc_t[t * L.T_WIDTH + L.T_DAMAGE] for t in range(len(self.bulk.targets)))

    def __repr__(self) -> str:
        return f"<{self.bulk.ruleset} bulk seed={self.seed} attacks={self.bulk.total} total_damage={self.total_damage}>"

    def to_dict(self) -> dict[str, Any]:
        bulk = self.bulk
        layout = bulk._shape
        if layout is None:
            layout = bulk._shape = _layout(bulk)
        acc_t, acc_b, acc_g = self.acc_t, self.acc_b, self.acc_g
        if type(acc_t) is not array or type(acc_b) is not array or type(acc_g) is not array:
            acc_t, acc_b, acc_g = array("q", acc_t), array("q", acc_b), array("q", acc_g)
        # One call builds the summary (compiled where setup.py built strikes.py: issue 44 item 3).
        result: dict[str, Any] = _BULK_DICTS[self.backend](
            bulk.ruleset, self.seed, self.backend, bulk.detail, bulk.total, layout[0], layout[1], acc_t, acc_b, acc_g)
        if self.attacks is not None:
            result["attacks"] = self.attacks
        return result

