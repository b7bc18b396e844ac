"""Cartyrion requests as typed structs (docs/rules/cartyrion.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Optional

from ..._facts import CT_AMBUSH, CT_METHODS, CT_PARRY, CT_SNEAK
from ..rows import AttackGroup, Spec


if TYPE_CHECKING:  # for mypy: the choices come from facts.toml when the module loads
    CtAmbush = str
    CtMethods = str
    CtParry = str
    CtSneak = str
else:
    CtAmbush = Literal[CT_AMBUSH]
    CtMethods = Literal[CT_METHODS]
    CtParry = Literal[CT_PARRY]
    CtSneak = Literal[CT_SNEAK]

NAME = "cartyrion"


class Attacker(Spec):
    """level sets the damage dice (CT-3); bonus is the STR or DEX bonus melee strikes add
    (CT-2); awa is the AWA bonus: ranged strikes add it to their damage (CT-2; `bonus`
    serves them when awa is not given) and a sneak check rolls with it (CT-7); magic is
    the weapon's plus, per original die."""

    level: int = 1
    bonus: int = 0
    magic: int = 0
    awa: Optional[int] = None


class ProfileStrike(Spec):
    method: CtMethods
    die: str
    dice: Optional[int] = None
    power: bool = False
    sneak: Optional[CtSneak] = None
    parry: Optional[CtParry] = None
    specialized: bool = False


class Strike(ProfileStrike, kw_only=True):
    target: str


class Target(Spec):
    """dex and armor reduce damage (CT-2); weapon_magic and shield describe its parry (CT-6)."""

    dex: int = 0
    armor: int = 0
    weapon_magic: int = 0
    shield: Optional[int] = None


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


class InitiativeRequest(Spec):
    """CT-1: one d6 for the round; the first round may bring surprise or an ambush."""

    round: int = 1
    ambush: CtAmbush = "none"
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None
