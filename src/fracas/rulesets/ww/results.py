"""Worldwalker results, declared once (`fracas.rulesets.results`): the spec writes the
bridge's exact result schemas from these; `strike_result`, `target_result` (this folder)
and the Roll20 resolver build these keys."""

from __future__ import annotations

from typing import Annotated, Optional

import msgspec

from .. import results as R
from ..results import Count, Shape
from .schema import WwMethods, WwReactions

D20 = Annotated[int, msgspec.Meta(ge=1, le=20)]


class Feint(Shape):
    """WW-7: the feint's d20 against the defender's; success forbids the block or dodge."""

    roll: D20
    defense_roll: D20
    succeeded: bool


class Reaction(Shape):
    """WW-5: the target's block or dodge against a hit, and whether it negated it."""

    kind: WwReactions
    roll: D20
    bonus: int
    total: int
    negated: bool


class Strike(Shape):
    """One strike: d20 + bonus against the TN (WW-2), the critical attack (WW-4), the
    damage dice less armor (WW-3)."""

    target: str
    method: WwMethods
    attack_roll: D20
    natural: Optional[D20]
    attack_bonus: int
    attack_total: int
    tn: int
    hit: bool
    critical: Annotated[int, msgspec.Meta(ge=0, le=5)]
    feint: Optional[Feint]
    reaction: Optional[Reaction]
    negated: bool
    damage_dice: list[Annotated[int, msgspec.Meta(ge=1)]]
    damage_bonus: int
    armor: int
    damage: Count


class Target(Shape):
    """One target: its damage, TN, hits that landed and hits its reactions negated."""

    damage: Count
    tn: int
    hits: Count
    negated: Count


class BulkTarget(R.BulkTotals):
    """One target's totals over a bulk request, with the hits its reactions negated."""

    negated: Count


# The shared Ranked's keys with dex_mod before tiebreaks, where results hold it (a
# subclass would append it): the Roll20 contract's layouts check the order.
class Ranked(Shape):
    """WW-1: d20 + Dexterity modifier + bonus; ties go to the higher Dexterity modifier."""

    id: str
    roll: int
    modifier: int
    total: int
    dex_mod: int
    tiebreaks: list[int]


class InitiativeResult(R.Rolled):
    """WW-1 initiative (`initiative.roll`)."""

    order: list[Ranked]


class Caster(Shape):
    """The caster's side of a WW-8 counterspell: its skill rating in the spell's school, the
    modifier its check adds, its d20 and total."""

    id: str
    skill: int
    modifier: int
    roll: D20
    total: int


class Counterspeller(Shape):
    """The counterspeller's side of a WW-8 counterspell, with its distance to the caster (feet)."""

    id: str
    skill: Annotated[int, msgspec.Meta(ge=1)]
    modifier: int
    distance: Annotated[int, msgspec.Meta(ge=0, le=60)]
    roll: D20
    total: int


class CounterspellResult(R.Rolled):
    """WW-8 counterspell (`counterspell.roll`): the counterspeller's check must beat the
    caster's (a tie leaves the spell cast); the exact chance it had."""

    school: str
    counterspeller: Counterspeller
    caster: Caster
    countered: bool
    p_countered: R.Probability
    p_countered_exact: R.Fraction
    outcome: str


#: What `Ruleset.result_types` holds: the result shape of each kind, and of its odds.
RESULT_TYPES: dict[str, type] = {**R.row_result_types(__name__, Strike, Target, BulkTarget), "initiative": InitiativeResult,
                                 "counterspell": CounterspellResult}
