"""Cartyrion results, declared once (`fracas.rulesets.results`): the spec writes the
bridge's exact result schemas from these; `strike_result`, `target_result`,
`attack_result` and the initiative roll (this folder) and the Roll20 resolver build
these keys."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, Optional

import msgspec

from ..._facts import CT_DICE
from .. import results as R
from ..results import Count, Shape
from .schema import CtAmbush, CtMethods, CtParry, CtSneak

Side = Literal["party", "opponents"]
if TYPE_CHECKING:  # for mypy: the dice come from facts.toml when the module loads
    Die = str
else:
    Die = Literal[tuple(f"d{faces}" for faces in CT_DICE)]


class SneakCheck(Shape):
    """CT-7: the attacker's d20 + Awareness against 10 + armor; passing ignores the armor."""

    roll: Annotated[int, msgspec.Meta(ge=1, le=20)]
    bonus: int
    total: int
    dc: int
    passed: bool


class Parry(Shape):
    """CT-6: what the parry absorbed, what it has left, and whether it broke."""

    kind: CtParry
    absorbed: Count
    left: int
    broken: bool


class StaminaCost(Shape):
    """CT-4: the stamina a ranged strike costs the attacker (its roll and the cost)."""

    roll: Count
    cost: Count


class Strike(Shape):
    """One strike: exploding damage dice (CT-3) + bonuses less Dexterity and armor, into
    Stamina or Injury (CT-4)."""

    target: str
    method: CtMethods
    die: Die
    dice: Annotated[int, msgspec.Meta(ge=1)]
    power: bool
    faces: list[Annotated[int, msgspec.Meta(ge=1)]]
    exploded: Count
    explosions_cut: bool
    dice_total: Count
    bonus: int
    magic_bonus: int
    raw: int
    dex: int
    armor: int
    sneak: Optional[CtSneak]
    sneak_check: Optional[SneakCheck]
    parry: Optional[Parry]
    pool: Literal["stamina", "injury"]
    damage: Count
    stamina_cost: Optional[StaminaCost]


class Target(Shape):
    """One target: damage in all, to Stamina and to Injury."""

    damage: Count
    stamina: Count
    injury: Count


class Attacker(Shape):
    """What the attack cost the attacker."""

    stamina_cost: Count


class Attack(R.Attack):
    """The top of a Cartyrion attack: the attacker's stamina cost beside the damage."""

    attacker: Attacker


class BulkTarget(R.BulkTotals):
    """One target's totals over a bulk request: Stamina and Injury, explosions, parries."""

    stamina: Count
    injury: Count
    exploded: Count
    longest_explosion: Count
    absorbed: Count
    stamina_cost: Count


class InitiativeResult(R.Rolled):
    """CT-1 side initiative (`initiative.roll`): a d6, the side acting first and the side
    surprised (round 1 only), for the round and ambush asked."""

    round: Annotated[int, msgspec.Meta(ge=1)]
    ambush: CtAmbush
    roll: Annotated[int, msgspec.Meta(ge=1, le=6)]
    first: Side
    surprised: Optional[Side]


#: What `Ruleset.result_types` holds: the result shape of each kind, and of its odds.
RESULT_TYPES: dict[str, type] = {**R.row_result_types(__name__, Strike, Target, BulkTarget, Attack), "initiative": InitiativeResult}
