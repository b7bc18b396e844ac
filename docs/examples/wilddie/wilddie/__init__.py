"""A trait die and a wild die (rules.md, WD-1 … WD-4): the guide's example of a ruleset on the
generic path (docs/ADDING_A_RULESET.md, "Off the row kernel: the generic path").

Its strike, the higher of two acing dice, fits no row of the row kernel, so it subclasses
`fracas.rulesets.generic.StrikeRuleset`: it says how a strike compiles and how it rolls from
a dice stream, and the base gives it single attacks, bulk requests, result shapes and error
paths. It gives exact odds too (`strike_odds`, optional) and plays whole fights
(`fight_initiative`). Installed on its own (`pip install docs/examples/wilddie`), it names
nothing of fracas's drivers, bridge, CLI or docs.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

import msgspec

from fracas.dice import Dice
from fracas.errors import RulesError, SchemaError
from fracas.exact import Dist, mix
from fracas.requests import check_range
from fracas.rulesets import generic, results, rows
from fracas.rulesets.manifest import own

MANIFEST = own(__name__)  # this folder's manifest.toml, checked
NAME = MANIFEST.name
TRAIT_DICE = tuple(MANIFEST.constants["wd_trait_dice"])
ACES = MANIFEST.constants["wd_aces"]
MOST_DAMAGE = MANIFEST.constants["wd_most_damage"]


# -- its requests ---------------------------------------------------------------------------------

class Attacker(msgspec.Struct, forbid_unknown_fields=True):
    pass


class Strike(msgspec.Struct, forbid_unknown_fields=True):
    die: int
    damage: int = 1
    target: str = ""  # a bulk profile's strikes take theirs from the `attacks` entry


class Target(msgspec.Struct, forbid_unknown_fields=True):
    parry: int = 4
    armor: int = 0


#: Its attack and bulk requests, in the row layout (`attacker`, `strikes` at `targets` by id;
#: `profiles`, `targets`, `attacks`, `detail`), as msgspec Structs of this module.
AttackRequest, Profile, Group, BulkRequest = rows.request_types(__name__, NAME, Attacker, Strike, Target)


# -- its results ----------------------------------------------------------------------------------

class StrikeResult(results.Shape):
    """One strike (what roll_strike returns): both dice's faces, the total, the raises."""

    target: str
    trait: list[int]
    wild: list[int]
    total: int
    raises: results.Count
    damage_faces: list[int]
    hit: bool
    damage: results.Count


# -- its rules -------------------------------------------------------------------------------------

class Compiled(NamedTuple):
    """A compiled strike: read by roll_strike and strike_odds, never changed."""

    target: str
    die: int
    damage: int
    parry: int
    armor: int


def acing(dice: Dice, faces: int) -> list[int]:
    """WD-1: one die, rolled again while it shows its highest face, at most ACES times."""
    rolled = [dice.die(faces)]
    while rolled[-1] == faces and len(rolled) <= ACES:
        rolled.append(dice.die(faces))
    return rolled


class WildDie(generic.StrikeRuleset):
    name = NAME
    largest_die = max(TRAIT_DICE)
    attack_rule = "WD-1"
    target_type = Target
    profile_type = Profile
    request_types = {"attack": AttackRequest, "bulk": BulkRequest}
    result_types = results.strike_result_types(__name__, StrikeResult)

    def check_target(self, target: Target, path: str) -> Target:
        check_range(target.parry, 1, 40, f"{path}.parry", "parry")
        check_range(target.armor, 0, 40, f"{path}.armor", "armor")
        return target

    def compile_strike(self, strike: Strike, path: str, attacker: Attacker, attacker_path: str,
                       target: Target, target_path: str) -> Compiled:
        if strike.die not in TRAIT_DICE:
            raise RulesError(f"{path}.die", MANIFEST.say("wd_trait_die", die=strike.die,
                                                         allowed=", ".join(f"d{n}" for n in TRAIT_DICE)))
        if not 1 <= strike.damage <= MOST_DAMAGE:
            raise SchemaError(f"{path}.damage", MANIFEST.say("wd_damage_range", damage=strike.damage,
                                                             most=MOST_DAMAGE))
        return Compiled(strike.target, strike.die, strike.damage, target.parry, target.armor)

    def roll_strike(self, plan: Compiled, dice: Dice) -> dict[str, Any]:
        trait, wild = acing(dice, plan.die), acing(dice, 6)           # WD-1, in this order
        total = max(sum(trait), sum(wild))
        hit = total >= plan.parry                                     # WD-2
        raises = (total - plan.parry) // 4 if hit else 0
        faces = [dice.die(6) for _ in range(plan.damage + raises)] if hit else []
        damage = max(0, sum(faces) - plan.armor)                      # WD-3
        return {"target": plan.target, "trait": trait, "wild": wild, "total": total, "raises": raises,
                "damage_faces": faces, "hit": hit, "damage": damage}

    def strike_odds(self, plan: Compiled) -> Dist:
        """Exact odds of one strike: (damage, hit) outcomes, summing to exactly 1."""
        total = _acing(plan.die).convolve(_acing(6), max)
        parts = []
        for value, p in total.items():
            if value < plan.parry:
                parts.append((p, Dist.point((0, False))))
            else:
                dice = plan.damage + (value - plan.parry) // 4
                parts.append((p, _d6_sum(dice).map(lambda s: (max(0, s - plan.armor), True))))
        return mix(parts).reduced()

    def fight_initiative(self, setup: Any, actors: list[Any], sides: list[str], round_: int, dice: Any,
                         seed: int) -> tuple[list[list[str]], dict[str, Any]]:
        """WD-4 every round: d10 + initiative, highest first, ties in standing order."""
        rolled = [(dice.die(10) + actor.initiative, i, actor.id) for i, actor in enumerate(actors)]
        order = sorted(rolled, key=lambda entry: (-entry[0], entry[1]))
        return [[actor_id] for _total, _i, actor_id in order], {
            "ruleset": NAME, "order": [{"id": actor_id, "total": total} for total, _i, actor_id in order]}


@lru_cache(maxsize=None)
def _acing(faces: int) -> Dist:
    """WD-1's sum of one acing die: k aces (each 1/faces) then a face that does not ace, or
    after ACES aces any face."""
    weights: dict[int, int] = {}
    for aces in range(ACES + 1):
        last = range(1, faces + 1) if aces == ACES else range(1, faces)
        for face in last:
            weights[aces * faces + face] = faces ** (ACES - aces)
    return Dist(weights, faces ** (ACES + 1))


@lru_cache(maxsize=None)
def _d6_sum(dice: int) -> Dist:
    return Dist.uniform(range(1, 7)).power(dice)


WILD_DIE = WildDie()
