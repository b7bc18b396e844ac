"""A d6 pool (tests only): each die showing 5 or 6 hits for 1 (rules.md, DP-1, DP-2).

A third-party ruleset as a separate distribution would ship it: this package, its
`manifest.toml`, and an entry point `d6-pool = "d6pool"` in the group `fracas.rulesets`.
It names nothing of fracas's drivers, bridge, CLI or docs: it only subclasses `Ruleset`.
"""

from __future__ import annotations

from array import array
from typing import Any, Optional

import click
import msgspec

from fracas.dice import Dice, KernelError
from fracas.errors import DiceError, SchemaError
from fracas.exact import Dist
from fracas.rulesets import Kind, Ruleset
from fracas.rulesets.manifest import read

MANIFEST = read(__name__)
assert MANIFEST is not None
NAME = MANIFEST.name
HIT_ON, FACES, MOST = (MANIFEST.constants[k] for k in ("hit_on", "faces", "most_dice"))


class Attacker(msgspec.Struct, forbid_unknown_fields=True):
    extra: int = 0


class Strike(msgspec.Struct, forbid_unknown_fields=True):
    dice: int
    target: str = ""


class Target(msgspec.Struct, forbid_unknown_fields=True):
    pass


class AttackRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    attacker: Attacker
    strikes: list[Strike]
    targets: dict[str, Target]
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


class Profile(msgspec.Struct, forbid_unknown_fields=True):
    attacker: Attacker
    strikes: list[Strike]


class Group(msgspec.Struct, forbid_unknown_fields=True):
    profile: str
    target: str
    count: int


class BulkRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    profiles: dict[str, Profile]
    targets: dict[str, Target]
    attacks: list[Group]
    ruleset: str = NAME
    seed: Optional[int] = None
    detail: str = "summary"


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


class Plan(msgspec.Struct):
    pools: list[tuple[str, int]]   # (target, dice) per strike
    targets: dict[str, Target]


def _pools(attacker: Attacker, strikes: list[Strike], targets: dict[str, Target], path: str,
           aimed: Optional[str] = None) -> list[tuple[str, int]]:
    pools = []
    for i, strike in enumerate(strikes):
        dice = strike.dice + attacker.extra
        if not 1 <= dice <= MOST:
            raise SchemaError(f"{path}.strikes[{i}].dice", MANIFEST.say("dice_range", dice=dice, most=MOST))
        target = aimed if aimed is not None else strike.target
        if target not in targets:
            raise SchemaError(f"{path}.strikes[{i}].target" if aimed is None else "$.attacks",
                              f"unknown target {target!r}")
        pools.append((target, dice))
    return pools


def _hits(dice: int, roll: Any) -> tuple[list[int], int]:
    faces = [roll(FACES) for _ in range(dice)]
    return faces, sum(1 for f in faces if f >= HIT_ON)


class AttackResult:
    def __init__(self, seed: int, injected: bool, strikes: list[dict[str, Any]], damage: dict[str, int]):
        self.seed, self.ruleset, self.injected = seed, NAME, injected
        self.strikes, self.target_damage = strikes, damage

    @property
    def total_damage(self) -> int:
        return sum(self.target_damage.values())

    def to_dict(self) -> dict[str, Any]:
        return {"ruleset": NAME, "seed": self.seed, "injected": self.injected, "strikes": self.strikes,
                "targets": {t: {"damage": d} for t, d in self.target_damage.items()},
                "total_damage": self.total_damage}


class Rolled:
    def __init__(self, seed: int, data: dict[str, Any]):
        self.seed, self.ruleset, self.data = seed, NAME, data

    @property
    def total_damage(self) -> int:
        total: int = self.data["total_damage"]
        return total

    def to_dict(self) -> dict[str, Any]:
        return dict(self.data)


class BulkJob:
    """Attacks laid out group by group; each rolls its profile's pools (DP-1)."""

    gil_free = False

    def __init__(self, req: BulkRequest):
        self.total = sum(g.count for g in req.attacks)
        self.detail = req.detail
        self.targets = list(req.targets)
        self.pools = []
        rows = [0]
        for i, g in enumerate(req.attacks):
            if g.profile not in req.profiles:
                raise SchemaError(f"$.attacks[{i}].profile", f"unknown profile {g.profile!r}")
            if not 1 <= g.count <= 10**7:
                raise SchemaError(f"$.attacks[{i}].count", f"{g.count} attacks, 1 to 10,000,000")
            profile = req.profiles[g.profile]
            self.pools.append(_pools(profile.attacker, profile.strikes, req.targets, f"$.profiles.{g.profile}",
                                     g.target))
            rows.append(rows[-1] + len(profile.strikes))
        # What the bulk driver reads of every job: (first row, end row, count) per entry.
        self.groups = array("q", [x for i, g in enumerate(req.attacks) for x in (rows[i], rows[i + 1], g.count)])
        self.group_info = [(g.profile, g.target, g.count) for g in req.attacks]
        self.starts = [sum(g.count for g in req.attacks[:i]) for i in range(len(req.attacks))]

    def _group(self, attack: int) -> int:
        return max(i for i, s in enumerate(self.starts) if s <= attack)

    def new_totals(self) -> list[int]:
        return [0] * (len(self.targets) + len(self.pools))

    def roll_chunk(self, totals: list[int], state: array, first: int, count: int) -> None:
        dice = Dice(state)
        for attack in range(first, first + count):
            g = self._group(attack)
            for target, n in self.pools[g]:
                hits = _hits(n, dice.die)[1]
                totals[self.targets.index(target)] += hits
                totals[len(self.targets) + g] += hits

    def merge(self, parts: list[list[int]]) -> list[int]:
        return [sum(column) for column in zip(*parts)]

    def roll_listed(self, state: array, first: int, count: int) -> list[dict[str, Any]]:
        dice = Dice(state)
        out = []
        for attack in range(first, first + count):
            g = self._group(attack)
            strikes = [_hits(n, dice.die)[1] for _, n in self.pools[g]]
            out.append({"group": g, "damage": sum(strikes), "strikes": strikes})
        return out

    def result(self, totals: list[int], seed: int, threads: int, listed: Optional[list[Any]]) -> Rolled:
        data: dict[str, Any] = {
            "ruleset": NAME, "seed": seed, "detail": self.detail, "attacks_total": self.total,
            "total_damage": sum(totals[:len(self.targets)]),
            "targets": {t: {"damage": totals[i]} for i, t in enumerate(self.targets)},
            "groups": [{"profile": p, "target": t, "count": c, "damage": totals[len(self.targets) + i]}
                       for i, (p, t, c) in enumerate(self.group_info)]}
        if listed is not None:
            data["attacks"] = listed
        return Rolled(seed, data)


class D6Pool(Ruleset):
    name = NAME
    largest_die = FACES
    request_types = {"attack": AttackRequest, "bulk": BulkRequest, "initiative": InitiativeRequest,
                     "pool": PoolRequest}
    own_kinds = (POOL,)

    def compile_pool(self, request: PoolRequest) -> PoolRequest:
        if not 1 <= request.dice <= MOST:
            raise SchemaError("$.dice", MANIFEST.say("dice_range", dice=request.dice, most=MOST))
        return request

    def roll_pool(self, plan: PoolRequest, dice: Dice, seed: int) -> Rolled:
        faces, hits = _hits(plan.dice, dice.die)
        return Rolled(seed, {"ruleset": NAME, "seed": seed, "injected": dice.injected, "faces": faces,
                             "hits": hits, "total_damage": hits})

    def compile_attack(self, request: AttackRequest) -> Plan:
        return Plan(_pools(request.attacker, request.strikes, request.targets, "$"), request.targets)

    def roll_attack(self, plan: Plan, dice: Dice, seed: int) -> AttackResult:
        strikes, damage = [], {t: 0 for t in plan.targets}
        try:
            for target, n in plan.pools:
                faces, hits = _hits(n, dice.die)
                # DP-1: each hit is 1 damage; `hit` and `damage` are what every attack result's
                # strikes say (a client that knows nothing of the ruleset reads them).
                strikes.append({"target": target, "faces": faces, "hits": hits, "hit": hits > 0, "damage": hits})
                damage[target] += hits
        except KernelError as exc:
            raise DiceError("$.rolls", f"the pools need another d6 (position {exc.position})") from None
        return AttackResult(seed, dice.injected, strikes, damage)

    def compile_bulk(self, request: BulkRequest) -> BulkJob:
        return BulkJob(request)

    def compile_initiative(self, request: InitiativeRequest) -> InitiativeRequest:
        return request

    def roll_initiative(self, plan: InitiativeRequest, dice: Dice, seed: int) -> Rolled:
        rolled = [(dice.die(FACES), c) for c in plan.combatants]
        order = sorted(((r + c.bonus, i, c.id, r) for i, (r, c) in enumerate(rolled)), key=lambda e: (-e[0], e[1]))
        return Rolled(seed, {"ruleset": NAME, "seed": seed, "injected": dice.injected, "total_damage": 0,
                             "order": [{"id": cid, "roll": r, "total": t} for t, _, cid, r in order]})

    def odds(self, plan: Plan) -> tuple[dict[str, Dist], int, bool]:
        one = Dist({(0, False, False): 2, (1, True, False): 1}, 3)  # a die: 5 or 6 of 6 faces

        def both(a: Any, b: Any) -> Any:
            return (a[0] + b[0], a[1] or b[1], False)

        out: dict[str, Dist] = {}
        for target, n in plan.pools:
            pool = _pool(one, n, both)
            out[target] = out[target].convolve(pool, both) if target in out else pool
        for target in plan.targets:
            out.setdefault(target, Dist.point((0, False, False)))
        return out, 0, False

    def fight_initiative(self, setup: Any, actors: list[Any], sides: list[str], round_: int, dice: Any,
                         seed: int) -> tuple[list[list[str]], dict[str, Any]]:
        """DP-2 every round: d6 + the combatant's initiative bonus, highest first."""
        rolled = self.roll_initiative(InitiativeRequest(combatants=[Combatant(a.id, a.initiative) for a in actors]),
                                      dice, seed).data
        return [[e["id"]] for e in rolled["order"]], rolled


def _pool(one: Dist, n: int, both: Any) -> Dist:
    pool = one
    for _ in range(n - 1):
        pool = pool.convolve(one, both)
    return pool.reduced()


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
