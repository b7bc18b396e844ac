"""A ruleset that lives only in the tests and has no Roll20 port: a d6 pool.

An attack is `attacker` + `strikes` + `targets`, like the built-in rulesets; each strike
rolls `dice` d6 (the attacker's `pool` added to them), every 5 or 6 hits for 1, less the
target's `armor`, never below 0. Its clients are Python only (`clients`), so the
generated Roll20 contract marks it `roll20: false`: the Mod script sends its attacks to
the bridge (vtt_scripts/roll20/test/relay.browser.test.js registers it in a real bridge).
"""

from __future__ import annotations

from typing import Any, Optional

import msgspec

from fracas.dice import Dice, KernelError
from fracas.errors import DiceError, SchemaError
from fracas.requests import convert_mapping
from fracas.rulesets import Ruleset

NAME = "d6-pool"


class Attacker(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pool: int = 0


class Strike(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    dice: int = 1
    target: str


class Target(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    armor: int = 0


class AttackRequest(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    attacker: Attacker
    strikes: list[Strike]
    targets: dict[str, Any]
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


#: Read by fracas.spec.generate (as for the built-in rulesets' packages).
SCHEMA_TYPES = [Target]


class PoolResult:
    def __init__(self, seed: int, injected: bool, strikes: list[dict[str, Any]]):
        self.seed, self.ruleset, self.injected, self.strikes = seed, NAME, injected, strikes

    @property
    def target_damage(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for s in self.strikes:
            out[s["target"]] = out.get(s["target"], 0) + s["damage"]
        return out

    @property
    def total_damage(self) -> int:
        return sum(self.target_damage.values())

    def to_dict(self) -> dict[str, Any]:
        return {"ruleset": NAME, "seed": self.seed, "injected": self.injected, "strikes": self.strikes,
                "targets": {tid: {"damage": damage} for tid, damage in self.target_damage.items()}}


class D6Pool(Ruleset):
    name = NAME
    title = "D6 Pool"
    largest_die = 6
    #: The clients that implement it (a manifest's list): Python only, no Roll20 port.
    clients = ("python",)
    request_types = {"attack": AttackRequest}

    def compile_attack(self, request: AttackRequest) -> tuple[AttackRequest, dict[str, Target]]:
        targets = convert_mapping(request.targets, Target, "$.targets")
        for i, strike in enumerate(request.strikes):
            if strike.target not in targets:
                raise SchemaError(f"$.strikes[{i}].target", f"unknown target {strike.target!r}")
            if not 1 <= strike.dice + request.attacker.pool <= 20:
                raise SchemaError(f"$.strikes[{i}].dice", "a pool of 1 to 20 dice")
        return request, targets

    def roll_attack(self, plan: tuple[AttackRequest, dict[str, Target]], dice: Dice, seed: int) -> PoolResult:
        request, targets = plan
        strikes = []
        try:
            for strike in request.strikes:
                faces = [dice.die(6) for _ in range(strike.dice + request.attacker.pool)]
                hits = sum(face >= 5 for face in faces)
                damage = max(0, hits - targets[strike.target].armor)
                strikes.append({"target": strike.target, "faces": faces, "hit": hits > 0, "damage": damage})
        except KernelError as exc:
            raise DiceError("$.rolls", f"the pool needs another face (position {exc.position})") from None
        return PoolResult(seed, dice.injected, strikes)


D6_POOL = D6Pool()
