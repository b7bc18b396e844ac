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


class Caster(Spec):
    """The spellcaster (WW-8): its rating in the skill of the school it casts from, and the
    modifier its skill checks add (the attribute modifier the table pairs with that skill,
    and anything else that applies)."""

    id: str
    skill: int = 0
    modifier: int = 0


class Counterspeller(Spec):
    """Who tries to counter the spell (WW-8): the schools of magic it is trained in, each with
    its skill rating; its skill checks' modifier; its distance to the caster in feet."""

    id: str
    schools: dict[str, int]
    #: Required by the rule; None (not given) is refused with its reason (WW-8).
    distance: Optional[int] = None
    modifier: int = 0


class CounterspellRequest(Spec):
    """WW-8: a counterspell, a contested skill check in the school of the spell being cast."""

    school: str
    caster: Caster
    counterspeller: Counterspeller
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None
