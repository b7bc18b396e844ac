"""ER-18 initiative: d10 + Agility modifier + other modifiers, ties by d20 roll-offs.

Draw order: one d10 per combatant in request order; then, for each group of tied
totals from the highest total down, one d20 per tied combatant in request order;
combatants still tied roll again (their group first), until every tie is broken.
"""

from __future__ import annotations

from typing import Any, Optional

from ._native import _Dice, _KernelError
from .errors import DiceError, LimitError, SchemaError
from .plan import check_range, check_rolls, check_ruleset, check_seed, faces, modifier
from .rng import new_seed, seed_state
from .schema import InitiativeRequest, decode

MAX_COMBATANTS = 10_000
MAX_ROLL_OFFS = 1_000


class InitiativeResult:
    """The turn order, highest first, with every die rolled."""

    __slots__ = ("seed", "ruleset", "injected", "order")

    def __init__(self, seed: int, ruleset: str, injected: bool, order: list[dict]):
        self.seed = seed
        self.ruleset = ruleset
        self.injected = injected
        self.order = order

    def to_dict(self) -> dict[str, Any]:
        return {"ruleset": self.ruleset, "seed": self.seed, "injected": self.injected,
                "order": self.order}


def roll_initiative(request: Any, *, seed: Optional[int] = None) -> InitiativeResult:
    """Roll ER-18 initiative for `request["combatants"]`; see the module docstring."""
    req: InitiativeRequest = decode(request, InitiativeRequest)
    check_ruleset(req.ruleset)
    check_seed(req.seed)
    seed = check_seed(seed, "seed") if seed is not None else req.seed
    rolls = check_rolls(req.rolls)
    if not req.combatants:
        raise SchemaError("$.combatants", "no combatants: give at least one")
    if len(req.combatants) > MAX_COMBATANTS:
        raise LimitError("$.combatants", f"{len(req.combatants)} combatants, the most is {MAX_COMBATANTS}")
    seen = set()
    mods = []
    for i, c in enumerate(req.combatants):
        path = f"$.combatants[{i}]"
        if c.id in seen:
            raise SchemaError(f"{path}.id", f"duplicate combatant id {c.id!r}")
        seen.add(c.id)
        if c.agility is None and c.agility_mod is None:
            raise SchemaError(f"{path}.agility", "give the agility score or agility_mod (ER-18)")
        if c.agility is not None:
            check_range(c.agility, -10, 40, f"{path}.agility", "score")
        check_range(c.bonus, -100, 100, f"{path}.bonus", "bonus")
        mods.append(modifier(c.agility, c.agility_mod) + c.bonus)
    if seed is None:
        seed = new_seed()
    dice = _Dice(seed_state(seed), rolls, 0)
    try:
        order = _order(req, mods, dice)
    except _KernelError as exc:
        if exc.code == 1:
            raise DiceError("$.rolls", f"{faces(len(rolls))} given, but initiative needs another die "
                            f"(position {exc.position} in draw order)") from None
        raise DiceError(f"$.rolls[{exc.position}]", f"face {rolls[exc.position]} is out of range "
                        "for the d10 drawn there (1 to 10)") from None
    if rolls is not None and dice.pos < len(rolls):
        raise DiceError("$.rolls", f"{faces(len(rolls))} given, but initiative used only {dice.pos}: "
                        "remove the extra faces")
    return InitiativeResult(seed, req.ruleset, rolls is not None, order)


def _order(req: InitiativeRequest, mods: list[int], dice: _Dice) -> list[dict]:
    entries = []
    for c, mod in zip(req.combatants, mods):
        roll = dice.die(10)
        entries.append({"id": c.id, "roll": roll, "modifier": mod, "total": roll + mod,
                        "tiebreaks": []})
    ranked: list[dict] = []
    for total in sorted({e["total"] for e in entries}, reverse=True):
        tied = [e for e in entries if e["total"] == total]
        ranked.extend(_break_ties(tied, dice, 0))
    return ranked


def _break_ties(tied: list[dict], dice: _Dice, depth: int) -> list[dict]:
    """Order tied combatants by repeated d20 roll-offs (request order within each round)."""
    if len(tied) == 1:
        return tied
    if depth >= MAX_ROLL_OFFS:
        raise LimitError("$.combatants", f"a tie survived {MAX_ROLL_OFFS} d20 roll-offs")
    rolled = []
    for entry in tied:
        face = dice.die(20)
        entry["tiebreaks"].append(face)
        rolled.append((face, entry))
    ranked = []
    for face in sorted({f for f, _ in rolled}, reverse=True):
        ranked.extend(_break_ties([e for f, e in rolled if f == face], dice, depth + 1))
    return ranked
