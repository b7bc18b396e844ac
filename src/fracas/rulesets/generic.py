"""The generic path: a ruleset whose strikes do not fit the row kernel, from two calls.

A `StrikeRuleset` subclass says how one strike compiles (from its part of the request,
with its path for errors) and how a compiled strike rolls from a dice stream (`Dice`):

    compile_strike(strike, path, attacker, attacker_path, target, target_path) -> plan
    roll_strike(plan, dice) -> {"target": …, …, "hit": bool, "damage": int}

and gets the rest: single attacks (`fracas.resolve`), bulk requests (`fracas.resolve_bulk`:
per-target totals, per-entry hit rate, mean damage and histogram, attacks listed one by one
under `detail` "attacks" or "dice", with the row rulesets' limits, `rows.DETAIL_LIMITS`),
the result objects and their declared shapes (`result_types`, from the strike's shape),
and errors that name their field: a target's by its id (`$.targets.orc.guard`), a bulk
profile's by its name, a strike's by its index, an injected face that runs short or does
not fit by `$.rolls`. The requests have the row rulesets' shape (`attacker`, `strikes` each
with a `target`, `targets`; for bulk `profiles`, `targets`, `attacks`, `detail`); the checks
and limits are theirs (`rows.check_attack`, `rows.check_bulk`).

**Draw order**: an attack rolls its strikes in request order, each from the same stream
(`roll_strike` draws what it needs and leaves the stream where the next strike starts);
a bulk request rolls its attacks in order, chunk by chunk, each chunk from its own stream
(`fracas.drive.chunk_seed`), so a listed attack (`detail` "attacks" or "dice") is the attack
the summary counts, whatever the threads. The same seed gives the same result on either
backend: `Dice` draws the same faces from the compiled generator as from the Python one.

**Exact odds are optional**: override `strike_odds(plan)` to return the strike's exact
distribution (`fracas.exact.Dist` of (damage, hit) outcomes, summing to exactly 1) and
`fracas.odds` folds each target's strikes (damage added, hit if any hit); without it,
odds requests are refused naming the ruleset.

The compiled plans are cached by request content and shared across threads: a plan, and
whatever `compile_strike` returns, must not change once compiled (`roll_strike` reads it
only). Bulk requests roll in one thread (`gil_free` is False: the rolling is Python).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from typing import Any, Callable, NamedTuple, Optional

from .._layout import HIST_BINS
from ..dice import Dice, KernelError
from .base import Ruleset, RulesetInvalid, merge_columns
from .rows import (DETAIL_LIMITS, BulkStrike, aim, check_attack, check_bulk, check_detail, group_index,
                   kernel_error)

__all__ = ["StrikeRuleset", "Plan", "Strike", "AttackResult", "BulkJob", "BulkResult", "DETAIL_LIMITS"]

#: Per-target bulk totals, in the order `results.BulkTotals` holds them.
_TOTALS = ("damage", "attacks", "attacks_hit", "strikes", "strikes_hit")


class Strike(NamedTuple):
    """One compiled strike: what `compile_strike` returned, its target id and its path."""

    plan: Any
    target: str
    path: str


class Plan(NamedTuple):
    """A compiled attack: its strikes in request order and its checked targets (`targets`,
    target id → target, in request order: what exact odds read)."""

    ruleset: "StrikeRuleset"
    strikes: list[Strike]
    targets: dict[str, Any]
    request: Any


def _roll(ruleset: "StrikeRuleset", strikes: list[Strike], dice: Dice, where: str) -> list[dict[str, Any]]:
    """Each strike rolled in order from `dice`; injected faces that run short or do not fit are
    a `DiceError` naming `$.rolls` (`where`: how the error names the strikes)."""
    results = []
    for i, strike in enumerate(strikes):
        try:
            results.append(ruleset.roll_strike(strike.plan, dice))
        except KernelError as exc:
            raise kernel_error(exc.code, i, exc.position, exc.faces, dice.rolls, where) from None
    return results


class AttackResult:
    """One attack: each strike's result and each target's damage; `to_dict()` is the wire shape."""

    __slots__ = ("plan", "seed", "ruleset", "injected", "strikes")

    def __init__(self, plan: Plan, seed: int, injected: bool, strikes: list[dict[str, Any]]) -> None:
        self.plan, self.seed, self.ruleset = plan, seed, plan.ruleset.name
        self.injected, self.strikes = injected, strikes

    @property
    def total_damage(self) -> int:
        return sum(int(s["damage"]) for s in self.strikes)

    @property
    def target_damage(self) -> dict[str, int]:
        """Damage per target id, every target of the request (a fresh dict)."""
        damage = {tid: 0 for tid in self.plan.targets}
        for strike, rolled in zip(self.plan.strikes, self.strikes):
            damage[strike.target] += int(rolled["damage"])
        return damage

    def __repr__(self) -> str:
        return f"<{self.ruleset} attack seed={self.seed} total_damage={self.total_damage}>"

    def to_dict(self) -> dict[str, Any]:
        import copy

        targets = {tid: {"damage": damage} for tid, damage in self.target_damage.items()}
        strikes = copy.deepcopy(self.strikes)
        result: dict[str, Any] = {"ruleset": self.ruleset, "seed": self.seed, "backend": "python",
                                  "injected": self.injected, "strikes": strikes, "targets": targets,
                                  "total_damage": sum(t["damage"] for t in targets.values())}
        self.plan.ruleset.attack_fields(result, self.plan, strikes)
        return result


class BulkJob:
    """A compiled bulk request of a `StrikeRuleset` (the bulk driver's `BulkJob` protocol):
    its strikes by `attacks` entry, rolled in Python from each chunk's stream."""

    gil_free = False

    def __init__(self, ruleset: "StrikeRuleset") -> None:
        self.ruleset = ruleset
        self.strikes: list[Strike] = []
        self.targets: dict[str, Any] = {}
        self.index: list[int] = []  # target index of each strike
        self.groups = array("q")
        self.group_info: list[tuple[str, Any, int]] = []
        self.total = 0
        self.detail = "summary"
        self._bounds: Optional[list[int]] = None

    def _attacks(self, first: int, count: int) -> Any:
        """(attack number, entry, first strike, end strike) of attacks first..first+count-1."""
        if self._bounds is None:
            self._bounds = group_index(self.groups)
        for a in range(first, first + count):
            g = bisect_right(self._bounds, a)
            yield a, g, self.groups[3 * g], self.groups[3 * g + 1]

    def new_totals(self) -> Any:
        """Per target the five `_TOTALS`; per entry its attacks hit, damage and histogram."""
        return (array("q", bytes(8 * len(_TOTALS) * len(self.targets))),
                array("q", bytes(8 * (2 + HIST_BINS) * len(self.group_info))))

    def roll_chunk(self, totals: Any, state: array[int], first: int, count: int) -> None:
        self._roll(totals, state, first, count, None)

    def _roll(self, totals: Any, state: array[int], first: int, count: int, listed: Optional[list[Any]]) -> None:
        acc_t, acc_g = totals
        width, stride = len(_TOTALS), 2 + HIST_BINS
        dice = Dice(state)
        for _a, g, begin, end in self._attacks(first, count):
            strikes = _roll(self.ruleset, self.strikes[begin:end], dice, "$.profiles")
            seen, hit_at, damage, any_hit = set(), set(), 0, 0
            for s, rolled in zip(range(begin, end), strikes):
                t = self.index[s]
                base = t * width
                dealt, hit = int(rolled["damage"]), bool(rolled["hit"])
                if t not in seen:
                    seen.add(t)
                    acc_t[base + 1] += 1
                acc_t[base] += dealt
                acc_t[base + 3] += 1
                if hit:
                    acc_t[base + 4] += 1
                    any_hit = 1
                    if t not in hit_at:
                        hit_at.add(t)
                        acc_t[base + 2] += 1
                damage += dealt
            gb = g * stride
            acc_g[gb] += any_hit
            acc_g[gb + 1] += damage
            acc_g[gb + 2 + min(damage, HIST_BINS - 1)] += 1
            if listed is not None:
                listed.append({"group": g, "damage": damage,
                               "strikes": strikes if self.detail == "dice" else [int(r["damage"]) for r in strikes]})

    def merge(self, parts: list[Any]) -> Any:
        return (array("q", merge_columns([p[0] for p in parts])), array("q", merge_columns([p[1] for p in parts])))

    def roll_listed(self, state: array[int], first: int, count: int) -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = []
        self._roll(self.new_totals(), state, first, count, listed)
        return listed

    def result(self, totals: Any, seed: int, threads: int, listed: Optional[list[Any]]) -> "BulkResult":
        return BulkResult(self, seed, totals, listed)


class BulkResult:
    """A bulk request's totals per target and per `attacks` entry; `to_dict()` is the wire shape
    (the row rulesets' bulk result less `exploded`)."""

    __slots__ = ("job", "seed", "ruleset", "acc_t", "acc_g", "attacks")

    def __init__(self, job: BulkJob, seed: int, totals: Any, attacks: Optional[list[Any]]) -> None:
        self.job, self.seed, self.ruleset = job, seed, job.ruleset.name
        self.acc_t, self.acc_g = totals
        self.attacks = attacks

    @property
    def total_damage(self) -> int:
        return sum(self.acc_t[t * len(_TOTALS)] for t in range(len(self.job.targets)))

    def __repr__(self) -> str:
        return f"<{self.ruleset} bulk seed={self.seed} attacks={self.job.total} total_damage={self.total_damage}>"

    def to_dict(self) -> dict[str, Any]:
        job, width, stride = self.job, len(_TOTALS), 2 + HIST_BINS
        targets = {tid: dict(zip(_TOTALS, self.acc_t[t * width:(t + 1) * width])) for t, tid in enumerate(job.targets)}
        groups = []
        for g, (profile, target, count) in enumerate(job.group_info):
            base = g * stride
            hit, damage = self.acc_g[base], self.acc_g[base + 1]
            hist = list(self.acc_g[base + 2:base + stride])
            while len(hist) > 1 and hist[-1] == 0:
                hist.pop()
            groups.append({"profile": profile, "target": target, "count": count, "attacks_hit": hit,
                           "hit_rate": hit / count if count else 0.0, "damage": damage,
                           "mean_damage": damage / count if count else 0.0, "histogram": hist})
        out = {"ruleset": self.ruleset, "seed": self.seed, "backend": "python", "detail": job.detail,
               "attacks_total": job.total, "targets": targets, "groups": groups,
               "total_damage": sum(t["damage"] for t in targets.values())}
        if self.attacks is not None:
            import copy

            out["attacks"] = copy.deepcopy(self.attacks)
        return out


class StrikeRuleset(Ruleset):
    """A ruleset off the row kernel: a subclass gives `compile_strike` and `roll_strike` (and
    optionally `check_attacker`, `check_target`, `strike_odds`), its request types (attack:
    `attacker`, `strikes` with `target`, `targets`; bulk: `profiles`, `targets`, `attacks`,
    `detail`; the targets and profiles as `dict[str, Any]`, checked here as `target_type` and
    `profile_type` so an error names the target or profile by its id) and its result
    shapes (`results.strike_result_types(__name__, StrikeShape)`); attacks, bulk requests,
    results and error paths are this class's (module docstring)."""

    #: The rule an attack cites when it has no strikes ("give at least one (MR-1)").
    attack_rule: str = ""
    #: msgspec Struct of a target (the value of `targets` by id) and of a bulk profile
    #: (`attacker` and `strikes`).
    target_type: type
    profile_type: type
    #: The bulk job a request compiles to: a subclass may roll its chunks in a compiled
    #: kernel (`roll_chunk`, `gil_free`), as docs/examples/burstpool does.
    bulk_job_type: type[BulkJob] = BulkJob

    # -- what a subclass gives -------------------------------------------------------------------

    def check_attacker(self, attacker: Any, path: str) -> Any:
        """The attacker checked (errors name `path`); as it is by default."""
        return attacker

    def check_target(self, target: Any, path: str) -> Any:
        """A target checked (errors name `path`, its id in it); as it is by default."""
        return target

    def compile_strike(self, strike: Any, path: str, attacker: Any, attacker_path: str, target: Any,
                       target_path: str) -> Any:
        """One strike compiled for `roll_strike`: raise a `RequestError` naming `path` (or
        `attacker_path`, `target_path`) for what the rules refuse. Never changed afterwards."""
        raise RulesetInvalid(f"the {self.name} ruleset (a StrikeRuleset) has no compile_strike")

    def roll_strike(self, plan: Any, dice: Dice) -> dict[str, Any]:
        """One compiled strike rolled from `dice` (`dice.die(n)`: a face 1..n, the next of the
        stream): its result, a dict holding at least `damage` (an int >= 0) and `hit` (a bool),
        its keys in the order of its declared shape."""
        raise RulesetInvalid(f"the {self.name} ruleset (a StrikeRuleset) has no roll_strike")

    def strike_odds(self, plan: Any) -> Any:
        """Optional: the exact distribution of one compiled strike, a `fracas.exact.Dist` of
        (damage, hit) outcomes summing to exactly 1; None (the default): no exact odds."""
        return None

    # -- what it gets -----------------------------------------------------------------------------

    def attack_strikes(self, request: Any) -> tuple[Any, dict[str, Any], Any]:
        """The request's layout, read: (typed request, checked targets, its strikes in request
        order, each (strike, path, attacker, attacker path, target, target id)). By default
        the row rulesets' (`rows.check_attack`: `attacker`, `strikes` each naming its
        `target`, `targets`); a ruleset whose requests are laid out otherwise overrides it
        (the tests' coin toss: one strike, the request itself)."""
        req, attacker, targets = check_attack(self, self.request_types["attack"], request)
        return req, targets, ((strike, path, attacker, "$.attacker", target, strike.target)
                              for _i, strike, path, target in aim(req.strikes, targets))

    def bulk_strikes(self, request: Any, strike: Callable[[BulkStrike], None],
                     group: Callable[[str, Any, int], None]) -> tuple[Any, dict[str, Any], int]:
        """A bulk request's layout, read: each `attacks` entry's strikes to `strike`, then the
        entry to `group(profile, target(s), count)`; returns (typed request, checked targets,
        attacks in all). By default the row rulesets' (`rows.check_bulk`: `profiles`,
        `targets`, `attacks`, `detail`); the `detail` level and its limit are checked after it
        either way (`rows.check_detail`)."""
        return check_bulk(self, self.request_types["bulk"], request, strike, group)

    def attack_fields(self, result: dict[str, Any], plan: "Plan", strikes: list[dict[str, Any]]) -> None:
        """Keys of an attack's result beyond the shared ones, added to `result` (after
        `total_damage`; declared with `results.strike_result_types(..., attack=...)`); none
        by default."""

    # -- what it gets -----------------------------------------------------------------------------

    def compile_attack(self, request: Any) -> Plan:
        req, targets, aimed = self.attack_strikes(request)
        strikes = [Strike(self.compile_strike(strike, path, attacker, attacker_path, target, _target_path(tid)), tid,
                          path) for strike, path, attacker, attacker_path, target, tid in aimed]
        return Plan(self, strikes, targets, req)

    def roll_attack(self, plan: Plan, dice: Dice, seed: int) -> AttackResult:
        return AttackResult(plan, seed, dice.injected, _roll(self, plan.strikes, dice, "$.strikes"))

    def compile_bulk(self, request: Any) -> BulkJob:
        job = self.bulk_job_type(self)

        def strike(aimed: BulkStrike) -> None:
            job.strikes.append(Strike(self.compile_strike(aimed.strike, aimed.path, aimed.attacker,
                                                          aimed.attacker_path, aimed.target,
                                                          _target_path(aimed.target_id)), aimed.target_id, aimed.path))
            job.index.append(aimed.target_index)

        def group(profile: str, target: Any, count: int) -> None:
            begin = job.groups[-2] if job.groups else 0
            job.groups.extend((begin, len(job.strikes), count))
            job.group_info.append((profile, target, count))

        req, job.targets, job.total = self.bulk_strikes(request, strike, group)
        job.detail = getattr(req, "detail", "summary")
        check_detail(job.detail, job.total)
        return job

    @property
    def has_odds(self) -> bool:
        """Whether it answers exact odds: it gives `strike_odds` (or its own `odds`)."""
        return type(self).strike_odds is not StrikeRuleset.strike_odds or type(self).odds is not StrikeRuleset.odds

    def odds(self, plan: Plan) -> tuple[dict[str, Any], Any, bool]:
        """Each target's strikes folded (`strike_odds`): (damage, hit, crit=False) outcomes."""
        from fractions import Fraction

        from ..exact import Budget, Dist

        folded: dict[str, Any] = {tid: Dist.point((0, False, False)) for tid in plan.targets}
        budget = Budget()
        for strike in plan.strikes:
            dist = self.strike_odds(strike.plan)
            if dist is None:
                raise self._unsupported("odds")
            budget.spend(folded[strike.target], dist, strike.path)
            folded[strike.target] = folded[strike.target].convolve(
                dist, lambda a, b: (a[0] + b[0], a[1] or b[1], False)).reduced()
        return folded, Fraction(0), False


def _target_path(tid: str) -> str:
    from ..requests import key_path

    return key_path("$.targets", tid)
