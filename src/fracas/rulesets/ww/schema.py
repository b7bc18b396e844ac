"""Worldwalker d20 requests as typed structs (docs/rules/worldwalker.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Optional

from ..._facts import WW_HANDS, WW_METHODS, WW_REACTIONS
from ..rows import AttackGroup, Spec


if TYPE_CHECKING:  # for mypy: the choices come from facts.toml when the module loads
    WwHands = str
    WwMethods = str
    WwReactions = str
else:
    WwHands = Literal[WW_HANDS]
    WwMethods = Literal[WW_METHODS]
    WwReactions = Literal[WW_REACTIONS]

NAME = "worldwalker"


class TwoWeapon(Spec):
    """Fighting with two weapons (WW-6): is the off-hand weapon light, which talent applies."""

    light: bool = False
    talent: str = "none"


class Attacker(Spec):
    """Weapon skill and ability modifiers (WW-2, WW-3)."""

    skill: int = 0
    str_mod: int = 0
    dex_mod: int = 0
    two_weapon: Optional[TwoWeapon] = None


class Feint(Spec):
    """A feint before the attack (WW-7): skill + INT mod against defense skill + WIS mod."""

    bonus: int = 0
    defense: int = 0


class ProfileStrike(Spec):
    method: WwMethods
    damage: str
    critical: int = 0
    crit_multiplier: int = 1
    engaged: bool = False
    hand: Optional[WwHands] = None
    modifier: int = 0
    feint: Optional[Feint] = None


class Strike(ProfileStrike, kw_only=True):
    target: str


class Reaction(Spec):
    """The target's reserved block or dodge (WW-5): bonus = skill + STR mod (block) or
    Defense skill + DEX mod (dodge); `hand` blocks with the primary (default) or off hand
    of a target fighting with two weapons (WW-6)."""

    kind: WwReactions
    bonus: int = 0
    hand: Optional[WwHands] = None


class Target(Spec):
    """defense (or dex_mod) and armor (WW-2, WW-3); reaction: its block or dodge (WW-5);
    two_weapon: it fights with two weapons, so its blocks take the WW-6 penalties."""

    defense: Optional[int] = None
    dex_mod: Optional[int] = None
    armor: int = 0
    reaction: Optional[Reaction] = None
    two_weapon: Optional[TwoWeapon] = None


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


class Combatant(Spec):
    id: str
    dex_mod: int = 0
    bonus: int = 0


class InitiativeRequest(Spec):
    """WW-1: 1d20 + Dexterity modifier each, once per encounter."""

    combatants: list[Combatant]
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None
