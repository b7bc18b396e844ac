"""ER-12 / ER-14 on single-die rolls: what a roller's conditions do to its feats, saves
and competition rolls (seed 000's "Restrictions in Combat" table).

Every roll this module judges is a Body roll: the ER-21 grapple release (a Strength
feat), the ER-13 shock save (a Resilience save) and the ER-19 competitions (a Strength
or Agility "save competition" on d12s). From the table:

- asphyxiating, held-breath, poisoned: "all attacks, saves/feats ... at disadvantage";
- bound: "All Body saves/feats and competitions are made at disadvantage";
- frightened: "disadvantage on all die rolls" (the source of fear present, ER-14);
- restrained: "Body preservation saves/feats are at disadvantage" (a feat or a save;
  a competition is not a preservation save, so not there);
- shaken: "-2 penalty on all to hit, saves/feats"; drowsy: "-2 penalty on all Body,
  Mind and Spirit saves" (the strongest penalty applies, not both: they do not stack);
- defending: "any saves made during a defensive duration are at advantage";
- paralyzed, petrified, stunned, unconscious: "Automatically fails all saves/feats
  involving Body attributes": no die is rolled, the roll fails;
- prone in a competition: the ER-19 table's -5 ("One or both sides are prone"), once
  whether given as the `prone` flag or as a condition.

Adjustments do not stack ("the strongest would be in effect"): one advantage, one
disadvantage, the largest penalty. Advantage and disadvantage together cancel (ER-12).
A single die at advantage or disadvantage is two dice, the better or the worse kept;
they are drawn one after the other from the stream, the first die first
(docs/ENGINE.md §2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from ..._facts import (
    COMPETITION_DISADVANTAGE, FEAT_ADVANTAGE, FEAT_AUTOMATIC_FAILURE, FEAT_DISADVANTAGE, FEAT_PENALTY_2,
)
from .shock import KEEP_HIGHER, KEEP_LOWER, KEEP_ONE

#: Conditions that put a roll of this kind at disadvantage (see the module doc).
DISADVANTAGE = {"feat": FEAT_DISADVANTAGE, "save": FEAT_DISADVANTAGE, "competition": COMPETITION_DISADVANTAGE}
ADVANTAGE = FEAT_ADVANTAGE
#: (condition, penalty): the largest applies.
PENALTIES = tuple((name, 2) for name in FEAT_PENALTY_2)
AUTO_FAIL = FEAT_AUTOMATIC_FAILURE


@dataclass(slots=True)
class Situation:
    """What a roller's conditions (and the request's own flags) make of one single-die roll."""

    advantage: bool = False
    disadvantage: bool = False
    advantage_from: list[str] = field(default_factory=list)
    disadvantage_from: list[str] = field(default_factory=list)
    #: (condition, value) added to the roll: the strongest penalty, as a negative number.
    penalty: Optional[tuple[str, int]] = None
    #: The condition that makes the roll fail without a die, or None.
    fails: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        return {"advantage": self.advantage, "disadvantage": self.disadvantage,
                "advantage_from": list(self.advantage_from), "disadvantage_from": list(self.disadvantage_from),
                "penalty": None if self.penalty is None else {"condition": self.penalty[0], "value": self.penalty[1]},
                "automatic_failure": self.fails}


def situation(conditions: Iterable[str], kind: str, advantage: bool = False,
              disadvantage: bool = False) -> Situation:
    """The situation of a `kind` roll ("feat", "save" or "competition") by a roller with
    `conditions`; `advantage`/`disadvantage` are the request's own flags."""
    conds = set(conditions)
    adv_from = ["request"] if advantage else []
    dis_from = ["request"] if disadvantage else []
    adv_from += [name for name in ADVANTAGE if name in conds]
    dis_from += [name for name in DISADVANTAGE[kind] if name in conds]
    penalty: Optional[tuple[str, int]] = None
    for name, value in PENALTIES:
        if name in conds and (penalty is None or value > -penalty[1]):
            penalty = (name, -value)
    fails = next((name for name in AUTO_FAIL if name in conds), None)
    return Situation(bool(adv_from) and not dis_from, bool(dis_from) and not adv_from, adv_from, dis_from,
                     penalty, fails)


def roll_kept(dice: Any, faces: int, sit: Situation) -> tuple[list[int], int]:
    """The die (or the two dice, the first drawn first) and the face kept."""
    if sit.advantage or sit.disadvantage:
        pair = [dice.die(faces), dice.die(faces)]
        return pair, max(pair) if sit.advantage else min(pair)
    face = dice.die(faces)
    return [face], face


def keep_code(sit: Situation) -> int:
    """How `roll_kept` keeps a roll in `sit`, as the shared rule files take it (`shock.KEEP_*`)."""
    return KEEP_HIGHER if sit.advantage else KEEP_LOWER if sit.disadvantage else KEEP_ONE


def kept_weights(faces: int, sit: Situation) -> dict[int, int]:
    """How many of the equally likely outcomes keep each face (faces, or faces² with two dice)."""
    if not (sit.advantage or sit.disadvantage):
        return {f: 1 for f in range(1, faces + 1)}
    weights: dict[int, int] = {}
    for a in range(1, faces + 1):
        for b in range(1, faces + 1):
            k = max(a, b) if sit.advantage else min(a, b)
            weights[k] = weights.get(k, 0) + 1
    return weights
