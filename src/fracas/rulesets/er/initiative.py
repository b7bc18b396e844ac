"""ER-18 initiative: d10 + Agility modifier + other modifiers, ties by d20 roll-offs.

Draw order: one d10 per combatant in request order; then, for each group of tied
totals from the highest total down, one d20 per tied combatant in request order;
combatants still tied roll again (their group first), until every tie is broken.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ... import _layout as L
from ...dice import Dice, KernelError
from ...errors import DiceError, LimitError, SchemaError
from ...requests import check_range, decode, faces, say
from .plan import modifier
from .schema import InitiativeRequest
from ..rows import roll_order

MAX_COMBATANTS = 10_000


class InitiativeResult:
    """The turn order, highest first, with every die rolled."""

    __slots__ = ("seed", "ruleset", "injected", "order")

    def __init__(self, seed: int, ruleset: str, injected: bool, order: list[dict[str, Any]]):
        self.seed = seed
        self.ruleset = ruleset
        self.injected = injected
        self.order = order

    def to_dict(self) -> dict[str, Any]:
        """A fresh dict each call (changing it changes nothing here)."""
        import copy

        return {"ruleset": self.ruleset, "seed": self.seed, "injected": self.injected,
                "order": copy.deepcopy(self.order)}

    def __repr__(self) -> str:
        return f"<{self.ruleset} initiative seed={self.seed} order={[e['id'] for e in self.order]}>"


@dataclass(slots=True)
class InitiativePlan:
    """Checked combatants and their modifiers."""

    request: InitiativeRequest
    mods: list[int]


def compile_initiative(request: Any) -> InitiativePlan:
    """Check an ER-18 initiative request; see the module docstring."""
    req: InitiativeRequest = decode(request, InitiativeRequest)
    if not req.combatants:
        raise SchemaError("$.combatants", say("no_combatants"))
    if len(req.combatants) > MAX_COMBATANTS:
        raise LimitError("$.combatants", say("too_many", count=len(req.combatants), what="combatants",
                                             most=MAX_COMBATANTS))
    seen = set()
    mods = []
    for i, c in enumerate(req.combatants):
        path = f"$.combatants[{i}]"
        if c.id in seen:
            raise SchemaError(f"{path}.id", say("duplicate_combatant", id=repr(c.id)))
        seen.add(c.id)
        if c.agility is None and c.agility_mod is None:
            raise SchemaError(f"{path}.agility", say("initiative_needs_agility"))
        if c.agility is not None:
            check_range(c.agility, -10, 40, f"{path}.agility", "score")
        check_range(c.bonus, -100, 100, f"{path}.bonus", "bonus")
        mods.append(modifier(c.agility, c.agility_mod) + c.bonus)
    return InitiativePlan(req, mods)


def roll_initiative(plan: InitiativePlan, dice: Dice, seed: int) -> InitiativeResult:
    """Roll a checked initiative request from `dice`."""
    try:
        order = _order(plan.request, plan.mods, dice)
    except KernelError as exc:
        rolls = dice.rolls
        assert rolls is not None  # only injected faces can run short or out of range
        if exc.code == L.E_ROLLS_SHORT:
            raise DiceError("$.rolls", say("rolls_short", given=faces(len(rolls)), what="initiative",
                                           position=exc.position)) from None
        # the die the face was drawn for: a combatant's d10, or a roll-off's d20
        raise DiceError(f"$.rolls[{exc.position}]", say("face_range_die", face=rolls[exc.position],
                                                         faces=exc.faces or 10)) from None
    return InitiativeResult(seed, plan.request.ruleset, dice.injected, order)


def _order(req: InitiativeRequest, mods: list[int], dice: Dice) -> list[dict[str, Any]]:
    """`rows.roll_order`: the d10s, then the roll-offs (the compiled fight loop's order too)."""
    order, rolls, marks = roll_order(mods, [0] * len(mods), dice, 10, "$.combatants")
    entries = [{"id": c.id, "roll": roll, "modifier": mod, "total": roll + mod, "tiebreaks": tiebreaks}
               for c, mod, roll, tiebreaks in zip(req.combatants, mods, rolls, marks)]
    return [entries[k] for k in order]
