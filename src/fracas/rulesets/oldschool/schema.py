"""Old-school sides requests as typed structs (docs/rules/old-school.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Optional, Union

from ..._facts import OS_METHODS, OS_RANGES, OS_TIES
from ..rows import AttackGroup, Spec


if TYPE_CHECKING:  # for mypy: the choices come from facts.toml when the module loads
    OsMethods = str
    OsRanges = str
    OsTies = str
else:
    OsMethods = Literal[OS_METHODS]
    OsRanges = Literal[OS_RANGES]
    OsTies = Literal[OS_TIES]

NAME = "old-school"


class Attacker(Spec):
    attack_bonus: int = 0
    str_mod: int = 0
    dex_mod: int = 0


class ProfileStrike(Spec):
    method: OsMethods
    damage: str
    range: Optional[OsRanges] = None
    rear: bool = False
    modifier: int = 0


class Strike(ProfileStrike, kw_only=True):
    target: str


class Target(Spec):
    """Ascending AC (shield bonus included; `shield` says how much of it the shield gives)."""

    ac: int
    shield: int = 0
    fleeing: bool = False
    cover: Union[int, Literal["full"]] = 0


class AttackRequest(Spec):
    attacker: Attacker
    strikes: list[Strike]
    targets: dict[str, Any]
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


class Profile(Spec):
    attacker: Attacker
    strikes: list[ProfileStrike]


class BulkRequest(Spec):
    profiles: dict[str, Any]
    targets: dict[str, Any]
    attacks: list[AttackGroup]
    ruleset: str = NAME
    seed: Optional[int] = None
    detail: Literal["summary", "attacks", "dice"] = "summary"


class Side(Spec):
    id: str
    wait: bool = False


class InitiativeRequest(Spec):
    """OS-1: each side rolls d6 every round, highest first."""

    sides: list[Side]
    ties: OsTies = "reroll"
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


class MoraleRequest(Spec):
    """OS-4: 2d6 against Morale (+ modifier); a success count of 2 means to the death."""

    morale: int
    modifier: int = 0
    successes: int = 0
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


class Saver(Spec):
    """One creature making an old-school saving throw (docs/rules/old-school.md, OS-5): a
    d20 + `modifier` (+ the request's) against its target number, `save`, or the entry of
    its `saves` table for the request's `category`."""

    id: str
    #: Its saving throw target number, whatever the category, or
    save: Optional[int] = None
    #: its table of target numbers by category (e.g. {"spells": 15, "breath": 16}).
    saves: Optional[dict[str, int]] = None
    #: Its own modifier to this save (a magic ring, a Wisdom bonus against magic).
    modifier: int = 0


class SaveRequest(Spec):
    """Old-school saving throws against one effect (OS-5): each target rolls a d20 + its
    modifier + the effect's `modifier` and saves at or above its target number; a natural
    20 always saves, a natural 1 always fails."""

    targets: list[Saver]
    #: The category of saving throw (e.g. "spells"): picks the entry of each `saves` table.
    category: Optional[str] = None
    #: The effect's modifier to every target's roll.
    modifier: int = 0
    #: What the effect is, for the record ("hold person").
    effect: str = ""
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None
