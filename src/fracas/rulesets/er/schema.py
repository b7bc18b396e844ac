"""Enchanted Realms requests as typed structs: the shape a GM's tools send.

This module checks shape and types (msgspec does the walking); the rules checks
that need the whole request (an unknown target, a sneak attack at disadvantage)
are in `plan.py`. Both raise `SchemaError`/`RulesError` whose path points at the
field, e.g. `$.strikes[1].dice`. The names (methods, styles, damage types, sizes,
covers, conditions) come from the shared spec (`fracas._facts`).
"""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

import msgspec

from ..._facts import CONDITIONS as CONDITIONS  # re-exported: the ER names
from ..._facts import COVERS as COVERS
from ..._facts import CRIT_STYLES as CRIT_STYLES
from ..._facts import DAMAGE_TYPES as DAMAGE_TYPES
from ..._facts import MECHANICAL_STYLES as MECHANICAL_STYLES
from ..._facts import METHODS as METHODS
from ..._facts import SIZES as SIZES
from ..._facts import STYLE_DAMAGE as STYLE_DAMAGE
from ..._facts import STYLE_METHOD as STYLE_METHOD
from ..._facts import STYLES as STYLES

NAME = "enchanted-realms"

Method = Literal["melee", "range", "savage"]
Sneak = Union[bool, Literal["advantage-only"]]


class _Spec(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class Attacker(_Spec):
    """The one making the attack (ER-4, ER-5, ER-14, ER-16)."""

    strength: Optional[int] = None
    agility: Optional[int] = None
    strength_mod: Optional[int] = None
    agility_mod: Optional[int] = None
    size: str = "medium"
    conditions: list[str] = []
    swim_speed: int = 0
    obscurement: int = 0


class ProfileStrike(_Spec):
    """A strike without its target: what a bulk profile lists (ER-1)."""

    method: Method
    style: str
    dice: int
    damage_type: str
    bonus: int = 0
    weight: int = 0
    crit: Optional[bool] = None
    crit_range: Optional[int] = None
    advantage: bool = False
    disadvantage: bool = False
    sneak: Sneak = False
    reach: bool = False
    sneak_ok: bool = False


class Strike(ProfileStrike, kw_only=True):
    """One die pool aimed at one target (ER-1)."""

    target: str


class Target(_Spec):
    """One creature struck (ER-6, ER-10, ER-11, ER-15, ER-16)."""

    ac: int
    ac_by_type: dict[str, int] = {}
    size: str = "medium"
    resistant: list[str] = []
    vulnerable: list[str] = []
    immune: list[str] = []
    conditions: list[str] = []
    cover: str = "none"
    body_max: Optional[int] = None
    crit_proof: bool = False
    save_bonus: Optional[int] = None
    nearby: list[str] = []


class AttackRequest(_Spec):
    """One attack action: strikes at targets (ER-1)."""

    attacker: Attacker
    strikes: list[Strike]
    targets: dict[str, Any]
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None
    advantage: bool = False
    disadvantage: bool = False


class Profile(_Spec):
    """An attacker and its strikes, used by many attacks in a bulk request."""

    attacker: Attacker
    strikes: list[ProfileStrike]
    advantage: bool = False
    disadvantage: bool = False


class AttackGroup(_Spec):
    """`count` attacks of one profile at the given target(s)."""

    profile: str
    target: Union[str, list[str]]
    count: int = 1


class BulkRequest(_Spec):
    """Many attacks in one request (the bulk issue)."""

    profiles: dict[str, Any]
    targets: dict[str, Any]
    attacks: list[AttackGroup]
    ruleset: str = NAME
    seed: Optional[int] = None
    detail: Literal["summary", "attacks", "dice"] = "summary"


class Combatant(_Spec):
    """One combatant rolling ER-18 initiative."""

    id: str
    agility: Optional[int] = None
    agility_mod: Optional[int] = None
    bonus: int = 0


class InitiativeRequest(_Spec):
    """ER-18 initiative for a list of combatants."""

    combatants: list[Combatant]
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


