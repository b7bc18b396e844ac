"""A ruleset that lives only in the tests: coins flipped at targets.

It proves the seam: registered with `fracas.rulesets.register`, it runs through
`fracas.resolve`, `fracas.resolve_bulk`, the bridge dispatcher and the CLI, none of
which name it. Rules: an attack flips `coins` coins (d2, 2 = heads) at `target`;
damage is the heads less the target's `guard`, never below 0. A bulk request
flips `count` such attacks. It has no initiative.
"""

from __future__ import annotations

from array import array
from typing import Any, Optional, Union

import click
import msgspec

from fracas.dice import Dice, KernelError
from fracas.errors import DiceError, SchemaError
from fracas.rulesets import Ruleset, results

NAME = "coin-toss"


class Guarded(msgspec.Struct, forbid_unknown_fields=True):
    guard: int = 0


class CoinAttack(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    coins: int
    target: str
    targets: dict[str, Guarded]
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


class CoinBulk(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    coins: int
    target: str
    targets: dict[str, Guarded]
    attacks: int
    ruleset: str = NAME
    seed: Optional[int] = None
    detail: str = "summary"


class Damage(results.Shape):
    damage: results.Count


class CoinAttackResult(results.Rolled):
    """Its attack result (a ruleset declares each result's shape: `result_types`)."""

    faces: list[int]
    targets: dict[str, Damage]
    total_damage: results.Count


class CoinTotals(results.Shape):
    damage: results.Count
    attacks_hit: results.Count


class CoinBulkResult(results.Shape, kw_only=True):
    ruleset: str
    seed: results.Seed
    attacks_total: results.Count
    targets: dict[str, CoinTotals]
    total_damage: results.Count
    attacks: Union[list[Damage], results.UnsetType] = results.UNSET


class CoinResult:
    def __init__(self, seed: int, faces: list[int], target: str, damage: int, injected: bool):
        self.seed, self.ruleset = seed, NAME
        self.faces, self.target, self.damage, self.injected = faces, target, damage, injected

    def to_dict(self) -> dict[str, Any]:
        return {"ruleset": NAME, "seed": self.seed, "injected": self.injected, "faces": self.faces,
                "targets": {self.target: {"damage": self.damage}}, "total_damage": self.damage}


def _check(req, path: str = "$") -> None:
    if not 1 <= req.coins <= 10:
        raise SchemaError(f"{path}.coins", f"{req.coins} coins, flip 1 to 10")
    if req.target not in req.targets:
        raise SchemaError(f"{path}.target", f"unknown target {req.target!r}")


def _flip(coins: int, guard: int, dice: Dice) -> tuple[list[int], int]:
    faces = [dice.die(2) for _ in range(coins)]
    return faces, max(0, faces.count(2) - guard)


class CoinBulkJob:
    gil_free = False

    def __init__(self, req: CoinBulk):
        self.req, self.total, self.detail = req, req.attacks, req.detail
        self.guard = req.targets[req.target].guard
        # What the bulk driver and the bridge's budget read of every job (base.REQUIREMENTS
        # "bulk"): one group of all the attacks, one strike row each (first row 0, end row 1).
        self.groups = array("q", [0, 1, req.attacks])
        self.group_info = [("coins", req.target, req.attacks)]

    def new_totals(self) -> list[int]:
        return [0, 0]  # damage, attacks that did damage

    def roll_chunk(self, totals, state: array, first: int, count: int) -> None:
        dice = Dice(state)
        for _ in range(count):
            damage = _flip(self.req.coins, self.guard, dice)[1]
            totals[0] += damage
            totals[1] += damage > 0

    def merge(self, parts):
        return [sum(p[0] for p in parts), sum(p[1] for p in parts)]

    def roll_listed(self, state: array, first: int, count: int) -> list[dict]:
        dice = Dice(state)
        return [{"damage": _flip(self.req.coins, self.guard, dice)[1]} for _ in range(count)]

    def result(self, totals, seed: int, threads: int, listed):
        outer = self

        class _Result:
            ruleset = NAME

            def __init__(self):
                self.seed = seed

            def to_dict(self):
                out = {"ruleset": NAME, "seed": seed, "attacks_total": outer.total,
                       "targets": {outer.req.target: {"damage": totals[0], "attacks_hit": totals[1]}},
                       "total_damage": totals[0]}
                if listed is not None:
                    out["attacks"] = listed
                return out

        return _Result()


class CoinToss(Ruleset):
    name = NAME
    title = "Coin toss (tests only)"
    largest_die = 2
    request_types = {"attack": CoinAttack, "bulk": CoinBulk}
    result_types = {"attack": CoinAttackResult, "bulk": CoinBulkResult}

    def compile_attack(self, request: CoinAttack) -> CoinAttack:
        _check(request)
        return request

    def roll_attack(self, plan: CoinAttack, dice: Dice, seed: int) -> CoinResult:
        try:
            faces, damage = _flip(plan.coins, plan.targets[plan.target].guard, dice)
        except KernelError as exc:
            raise DiceError("$.rolls", f"the coins need another face (position {exc.position})") from None
        return CoinResult(seed, faces, plan.target, damage, dice.injected)

    def compile_bulk(self, request: CoinBulk) -> CoinBulkJob:
        _check(request)
        if not 0 <= request.attacks <= 10**7:
            raise SchemaError("$.attacks", f"{request.attacks} attacks, 0 to 10,000,000")
        return CoinBulkJob(request)

    def cli_options(self) -> list[click.Option]:
        return [click.Option(["--coins"], type=int, default=None, help="Coins to flip (coin-toss ruleset)."),
                click.Option(["--guard"], type=int, default=0, help="The target's guard (coin-toss ruleset).")]

    def request_from_flags(self, flags: dict[str, Any]) -> dict[str, Any]:
        if flags.get("coins") is None:
            raise click.UsageError("give --coins")
        return {"ruleset": NAME, "coins": flags["coins"], "target": "t", "targets": {"t": {"guard": flags["guard"]}}}

    def flag_hint(self, path: str, flags: dict[str, Any]) -> Optional[str]:
        return "--coins" if path == "$.coins" else None

    def render(self, result: dict[str, Any], style=None) -> str:
        if "faces" not in result:
            return f"coin toss bulk: {result['total_damage']} damage in {result['attacks_total']} attacks"
        heads = "".join("H" if face == 2 else "T" for face in result["faces"])
        return f"coin toss {heads}: {result['total_damage']} damage (seed {result['seed']})"


COIN_TOSS = CoinToss()
