"""A ruleset that lives only in the tests: coins flipped at targets.

It proves the seam: registered with `fracas.rulesets.register`, it runs through
`fracas.resolve`, `fracas.resolve_bulk`, the bridge dispatcher and the CLI, none of
which name it. Rules: an attack flips `coins` coins (d2, 2 = heads) at `target`;
damage is the heads less the target's `guard`, never below 0. A bulk request
flips `attacks` such attacks. It has no initiative.

It is written on the generic path (`fracas.rulesets.generic.StrikeRuleset`): how one
flip compiles and rolls, and where its one strike sits in its requests (the request
itself: `attack_strikes`, `bulk_strikes`); attacks, bulk totals, listed attacks, the
result objects and the errors' paths are the base's.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import click
import msgspec

from fracas.dice import Dice
from fracas.errors import SchemaError
from fracas.requests import decode
from fracas.rulesets import results, rows
from fracas.rulesets.generic import StrikeRuleset

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


class Flip(results.Shape):
    """One attack's flip (what `roll_strike` returns)."""

    target: str
    faces: list[int]
    heads: results.Count
    hit: bool
    damage: results.Count


class CoinTop(results.Attack):
    """The top of its attack result: the shared keys and every face flipped."""

    faces: list[int]


def _check(req: Any, path: str = "$") -> None:
    if not 1 <= req.coins <= 10:
        raise SchemaError(f"{path}.coins", f"{req.coins} coins, flip 1 to 10")


class CoinToss(StrikeRuleset):
    name = NAME
    title = "Coin toss (tests only)"
    largest_die = 2
    target_type = Guarded
    request_types = {"attack": CoinAttack, "bulk": CoinBulk}
    result_types = results.strike_result_types(__name__, Flip, attack=CoinTop)

    # Where its one strike is: the request itself, at the target it names.
    def attack_strikes(self, request: Any) -> tuple[Any, dict[str, Any], Any]:
        req = decode(request, CoinAttack)
        targets = rows.check_targets(self, req.targets)
        return req, targets, [(req, "$", None, "$", rows.target_of(req.target, targets, "$.target"), req.target)]

    def bulk_strikes(self, request: Any, strike: Callable[[rows.BulkStrike], None],
                     group: Callable[[str, Any, int], None]) -> tuple[Any, dict[str, Any], int]:
        req = decode(request, CoinBulk)
        targets = rows.check_targets(self, req.targets)
        target = rows.target_of(req.target, targets, "$.target")
        if not 0 <= req.attacks <= 10**7:
            raise SchemaError("$.attacks", f"{req.attacks} attacks, 0 to 10,000,000")
        strike(rows.BulkStrike(req, "$", None, "$", target, req.target, list(targets).index(req.target)))
        group("coins", req.target, req.attacks)
        return req, targets, req.attacks

    def compile_strike(self, strike: Any, path: str, attacker: Any, attacker_path: str, target: Guarded,
                       target_path: str) -> tuple[str, int, int]:
        _check(strike, path)
        return strike.target, strike.coins, target.guard

    def roll_strike(self, plan: tuple[str, int, int], dice: Dice) -> dict[str, Any]:
        target, coins, guard = plan
        faces = [dice.die(2) for _ in range(coins)]
        damage = max(0, faces.count(2) - guard)
        return {"target": target, "faces": faces, "heads": faces.count(2), "hit": damage > 0, "damage": damage}

    def attack_fields(self, result: dict[str, Any], plan: Any, strikes: list[dict[str, Any]]) -> None:
        result["faces"] = [face for strike in strikes for face in strike["faces"]]

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
