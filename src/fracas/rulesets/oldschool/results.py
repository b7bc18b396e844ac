"""Old-school results, declared once (`fracas.rulesets.results`): the spec writes the
bridge's exact result schemas from these; `strike_result`, `target_result`, the initiative
and morale rolls (this folder) and the Roll20 resolver build these keys."""

from __future__ import annotations

from typing import Annotated, Optional

import msgspec

from .. import results as R
from ..results import Count, Shape
from .schema import OsMethods, OsRanges, OsTies

D20 = Annotated[int, msgspec.Meta(ge=1, le=20)]
D6 = Annotated[int, msgspec.Meta(ge=1, le=6)]


class Strike(Shape):
    """One strike: d20 + bonus against the AC (OS-3, OS-6), damage dice + bonus."""

    target: str
    method: OsMethods
    range: Optional[OsRanges]
    rear: bool
    attack_roll: D20
    natural: Optional[D20]
    attack_bonus: int
    attack_total: int
    ac: int
    shield_ignored: bool
    hit: bool
    damage_dice: list[Annotated[int, msgspec.Meta(ge=1)]]
    damage_bonus: int
    damage: Count


class Target(Shape):
    """One target: its damage and the strikes that hit it."""

    damage: Count
    hits: Count


class Side(Shape):
    """OS-1: one side's d6 (None: it waits), its re-roll faces, and whether it waits."""

    id: str
    roll: Optional[D6]
    tiebreaks: list[D6]
    wait: bool


class InitiativeResult(R.Rolled):
    """OS-1 side initiative (`initiative.roll`): `order` lists groups of sides acting together."""

    ties: OsTies
    sides: list[Side]
    order: list[list[str]]


class MoraleResult(R.Rolled):
    """OS-4 morale (`morale.check`): 2d6 > morale + modifier breaks; morale 12 or two checks
    passed never check (`checked` false, no dice)."""

    morale: Annotated[int, msgspec.Meta(ge=2, le=12)]
    modifier: Annotated[int, msgspec.Meta(ge=-2, le=2)]
    checked: bool
    dice: list[D6]
    total: Optional[Annotated[int, msgspec.Meta(ge=2, le=12)]]
    breaks: bool
    successes: Annotated[int, msgspec.Meta(ge=0, le=2)]
    fights_to_death: bool


class SaveTarget(Shape):
    """One creature's saving throw: its target number, the d20 and modifiers, whether it
    saved (a natural 20 always saves, a natural 1 always fails) and its exact chance to."""

    id: str
    save: Annotated[int, msgspec.Meta(ge=1, le=30)]
    modifier: int
    total_modifier: int
    roll: D20
    natural: Optional[D20]
    total: int
    saved: bool
    p_save: R.Probability
    p_save_exact: R.Fraction


class Failures(Shape):
    """The exact chance that exactly `failed` of the creatures fail their saving throws."""

    failed: Count
    p: R.Probability
    p_exact: R.Fraction


class SaveResult(R.Rolled):
    """Old-school saving throws against one effect (`save.roll`, OS-5): `failed` names who
    failed; `p_failures` is the exact distribution of how many fail."""

    category: Optional[str]
    modifier: int
    effect: str
    targets: list[SaveTarget]
    saved: list[str]
    failed: list[str]
    p_failures: list[Failures]


#: What `Ruleset.result_types` holds: the result shape of each kind, and of its odds.
RESULT_TYPES: dict[str, type] = {**R.row_result_types(__name__, Strike, Target), "initiative": InitiativeResult,
                "morale": MoraleResult, "save": SaveResult}
