"""A d6 pool: each die showing 5 or 6 hits for 1 (rules.md, DP-1, DP-2). The adding-a-ruleset
guide's example of a ruleset on the row kernel (docs/ADDING_A_RULESET.md quotes this file),
and the plug-in the tests install (tests/seam/test_new_ruleset.py, the JavaScript clients'
bridge-only tests).

A third-party ruleset as a separate distribution ships it so: this package, its
`manifest.toml`, and an entry point `d6-pool = "d6pool"` in the group `fracas.rulesets`
(../pyproject.toml: `pip install docs/examples/d6pool`). It names nothing of fracas's
drivers, bridge, CLI or docs: it subclasses `rows.RowRuleset`, so its attacks, bulk
requests and exact odds run on the row kernel's success-counting mode (`rows.pool_row`:
X_HIT_COUNT, 5 or 6 of a d6 a success), on the compiled core when it is built (a bulk
result's `backend` says "compiled"), as the manifest's `row_kernel` declares.
"""

from __future__ import annotations

from typing import Any, Optional

import click
import msgspec

from fracas.dice import Dice, KernelError
from fracas.errors import DiceError, SchemaError
from fracas.rulesets import Kind, flags, results, rows
from fracas.rulesets.manifest import own

MANIFEST = own(__name__)  # this folder's manifest.toml, checked
NAME = MANIFEST.name
HIT_ON, FACES, MOST = (MANIFEST.constants[k] for k in ("dp_hit_on", "dp_faces", "dp_most_dice"))


class Attacker(msgspec.Struct, forbid_unknown_fields=True):
    extra: int = 0


class Strike(msgspec.Struct, forbid_unknown_fields=True):
    dice: int
    target: str = ""


class Target(msgspec.Struct, forbid_unknown_fields=True):
    pass


#: Its attack and bulk requests, in the row layout (`attacker`, `strikes` at `targets` by id;
#: `profiles`, `targets`, `attacks`, `detail`), as msgspec Structs of this module.
AttackRequest, Profile, Group, BulkRequest = rows.request_types(__name__, NAME, Attacker, Strike, Target)


class Combatant(msgspec.Struct, forbid_unknown_fields=True):
    id: str
    bonus: int = 0


class InitiativeRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    combatants: list[Combatant]
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


class PoolRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A bare pool, no target (DP-1): how many of `dice` d6 hit."""

    dice: int
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


#: A kind of request of its own: `fracas.roll("pool", ...)`, `fracas.roll_pool`, the bridge's
#: `pool.roll` and `fracas pool`, with nothing of fracas edited.
POOL = Kind("pool", "pool.roll", "roll_pool", "the pool", "bare pool", "compile_pool", "roll_pool",
            command="d6pool:pool_command")


def check_attacker(attacker: Attacker, path: str) -> Attacker:
    return attacker  # `extra` is checked with each pool it adds to (DP-1)


def check_target(target: Target, path: str) -> Target:
    return target


def compile_strike(strike: Strike, path: str, attacker: Attacker, apath: str, target: Target,
                   tpath: str) -> tuple[list[int], rows.Meta]:
    """DP-1: the strike's pool, each die showing 5 or 6 one success, one damage each: a row
    of the row kernel's success-counting mode."""
    dice = strike.dice + attacker.extra
    if not 1 <= dice <= MOST:
        raise SchemaError(f"{path}.dice", MANIFEST.say("dp_dice_range", dice=dice, most=MOST))
    return rows.pool_row(dice, FACES, HIT_ON), rows.Meta("", path, {}, FACES)


def strike_result(meta: rows.Meta, out: rows.Out, faces: list[int]) -> dict[str, Any]:
    # DP-1: each hit is 1 damage; `hit` and `damage` are what every attack result's strikes
    # say (a client that knows nothing of the ruleset reads them). With X_HIT_COUNT the
    # kernel's dice sum is the successes.
    return {"target": meta.target, "faces": faces, "hits": out.dice_sum, "hit": bool(out.hit), "damage": out.damage}


class StrikeResult(results.Shape):
    """One strike's pool (DP-1): its faces, its successes, and the damage they deal."""

    target: str
    faces: list[int]
    hits: results.Count
    hit: bool
    damage: results.Count


class Ranked(results.Shape):
    """DP-2: a combatant's d6 and its total with the initiative bonus."""

    id: str
    roll: int
    total: int


class InitiativeResult(results.Rolled):
    """DP-2 initiative: highest total first."""

    total_damage: results.Count
    order: list[Ranked]


class PoolResult(results.Rolled):
    """A bare pool (DP-1): its faces and successes."""

    faces: list[int]
    hits: results.Count
    total_damage: results.Count


RESULT_TYPES = {**results.row_result_types(__name__, StrikeResult),
                "initiative": InitiativeResult, "pool": PoolResult}


RULES = rows.Rules(NAME, "DP-1", compile_strike, check_attacker, check_target, Target, Profile, strike_result,
                   kernel="success-count")


def _hits(dice: int, roll: Any) -> tuple[list[int], int]:
    """A bare pool (the `pool` kind): its faces and successes (DP-1)."""
    faces = [roll(FACES) for _ in range(dice)]
    return faces, sum(1 for f in faces if f >= HIT_ON)


class Rolled:
    def __init__(self, seed: int, data: dict[str, Any]):
        self.seed, self.ruleset, self.data = seed, NAME, data

    @property
    def total_damage(self) -> int:
        total: int = self.data["total_damage"]
        return total

    def to_dict(self) -> dict[str, Any]:
        return dict(self.data)


class D6Pool(rows.RowRuleset):
    """Attacks, bulk requests and exact odds on the row kernel's success-counting mode
    (its `rules`); initiative and the bare pool on its own calls."""

    name = NAME
    largest_die = FACES
    request_types = {"attack": AttackRequest, "bulk": BulkRequest, "initiative": InitiativeRequest,
                     "pool": PoolRequest}
    own_kinds = (POOL,)
    result_types = RESULT_TYPES
    rules = RULES

    def compile_pool(self, request: PoolRequest) -> PoolRequest:
        if not 1 <= request.dice <= MOST:
            raise SchemaError("$.dice", MANIFEST.say("dp_dice_range", dice=request.dice, most=MOST))
        return request

    def roll_pool(self, plan: PoolRequest, dice: Dice, seed: int) -> Rolled:
        try:
            faces, hits = _hits(plan.dice, dice.die)
        except KernelError as exc:
            raise DiceError("$.rolls", f"the pool needs another d6 (position {exc.position})") from None
        return Rolled(seed, {"ruleset": NAME, "seed": seed, "injected": dice.injected, "faces": faces,
                             "hits": hits, "total_damage": hits})

    def compile_initiative(self, request: InitiativeRequest) -> InitiativeRequest:
        return request

    def roll_initiative(self, plan: InitiativeRequest, dice: Dice, seed: int) -> Rolled:
        rolled = [(dice.die(FACES), c) for c in plan.combatants]
        order = sorted(((r + c.bonus, i, c.id, r) for i, (r, c) in enumerate(rolled)), key=lambda e: (-e[0], e[1]))
        return Rolled(seed, {"ruleset": NAME, "seed": seed, "injected": dice.injected, "total_damage": 0,
                             "order": [{"id": cid, "roll": r, "total": t} for t, _, cid, r in order]})

    def kind_cli_options(self, kind: str) -> list[click.Option]:
        """`fracas initiative --ruleset d6-pool --combatant ID=BONUS` (DP-2)."""
        return [flags.combatants_option("its initiative bonus (DP-2: d6 + bonus)")] if kind == "initiative" else []

    def kind_from_flags(self, kind: str, given: dict[str, Any]) -> dict[str, Any]:
        if kind != "initiative":
            return super().kind_from_flags(kind, given)
        return flags.combatants_request(NAME, given, "bonus")

    def fight_initiative(self, setup: Any, actors: list[Any], sides: list[str], round_: int, dice: Any,
                         seed: int) -> tuple[list[list[str]], dict[str, Any]]:
        """DP-2 every round: d6 + the combatant's initiative bonus, highest first."""
        rolled = self.roll_initiative(InitiativeRequest(combatants=[Combatant(a.id, a.initiative) for a in actors]),
                                      dice, seed).data
        return [[e["id"]] for e in rolled["order"]], rolled


D6_POOL = D6Pool()


@click.command("pool")
@click.option("--dice", type=int, required=True, help="Dice in the pool, 1-20 (DP-1).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="Roll from this seed.")
def pool_command(dice: int, seed: Optional[int]) -> None:
    """Roll a bare d6 pool (DP-1) and print the result as JSON."""
    import json

    import fracas

    try:
        result = fracas.roll("pool", {"ruleset": NAME, "dice": dice}, seed=seed)
    except fracas.RequestError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps(result.to_dict()))
