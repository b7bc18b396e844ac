"""Typed requests: parse and type-check, with path-bearing errors.

This module checks shape and types (msgspec does the walking); the rules checks
that need the whole request (an unknown target, a sneak attack at disadvantage)
are in `plan.py`. Both raise `SchemaError`/`RulesError` whose path points at the
field, e.g. `$.strikes[1].dice`.
"""

from __future__ import annotations

import re
from typing import Any, Literal, Optional, Union

import msgspec
import orjson

from .errors import SchemaError

RULESETS = ("enchanted-realms",)

METHODS = ("melee", "range", "savage")
STYLES = ("slashing", "bludgeoning", "cleaving", "pole-arm", "piercing", "ranged",
          "archery", "thrown", "savage", "shield")
CRIT_STYLES = frozenset(("bludgeoning", "cleaving", "pole-arm", "slashing"))
DAMAGE_TYPES = ("alchemical", "blunt", "cold", "edged", "fire", "lightning",
                "necrotic", "piercing", "poison", "smite")
SIZES = ("tiny", "small", "medium", "large", "huge", "giant", "colossal")
COVERS = ("none", "half", "three-quarters", "full")
CONDITIONS = (
    "asphyxiating", "blind", "bound", "charmed", "deaf", "defending", "drowsy",
    "frightened", "grappled", "held-breath", "incapacitated", "invisible", "maimed",
    "nauseated", "paralyzed", "petrified", "poisoned", "prone", "restrained",
    "shaken", "stunned", "unconscious", "underwater",
)

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


class AttackRequest(_Spec):
    """One attack action: strikes at targets (ER-1)."""

    attacker: Attacker
    strikes: list[Strike]
    targets: dict[str, Any]
    ruleset: str = "enchanted-realms"
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
    ruleset: str = "enchanted-realms"
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
    ruleset: str = "enchanted-realms"
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_MSGSPEC_PATH = re.compile(r"^(.*) - at `(\$[^`]*)`$", re.S)


def key_path(parent: str, key: str) -> str:
    """The JSONPath of `key` inside the object at `parent`."""
    if _IDENT.match(key):
        return f"{parent}.{key}"
    escaped = key.replace("\\", "\\\\").replace("'", "\\'")
    return f"{parent}['{escaped}']"


def _reason(message: str) -> str:
    message = message.replace("`", "")
    return message[:1].lower() + message[1:]


def convert(obj: Any, spec: type, path: str = "$") -> Any:
    """Type-check `obj` (decoded JSON) into `spec`; errors carry the field path."""
    try:
        return msgspec.convert(obj, spec)
    except msgspec.ValidationError as exc:
        text = str(exc)
        match = _MSGSPEC_PATH.match(text)
        if match:
            reason, sub = match.group(1), match.group(2)
            raise SchemaError(path + sub[1:], _reason(reason)) from None
        raise SchemaError(path, _reason(text)) from None


def convert_mapping(obj: Any, spec: type, path: str) -> dict[str, Any]:
    """Type-check each value of an id → object mapping, with the key in the path."""
    if not isinstance(obj, dict):
        raise SchemaError(path, f"expected an object of id → {spec.__name__.lower()}")
    return {key: convert(value, spec, key_path(path, key)) for key, value in obj.items()}


def parse_json(request: Any) -> Any:
    """Decoded JSON if `request` is JSON text or bytes; anything else as it is."""
    if isinstance(request, (str, bytes, bytearray, memoryview)):
        try:
            return orjson.loads(request)
        except ValueError as exc:
            raise SchemaError("$", f"invalid JSON ({exc})") from None
    return request


def decode(request: Any, spec: type) -> Any:
    """A typed request from a mapping, a JSON str/bytes, or an already typed object."""
    if isinstance(request, spec):
        return request
    request = parse_json(request)
    if not isinstance(request, dict):
        raise SchemaError("$", f"expected a JSON object, got {type(request).__name__}")
    return convert(request, spec)


def choice(value: str, allowed: tuple[str, ...], path: str, what: str) -> str:
    """Check a name against its list; the error lists what is allowed."""
    if value not in allowed:
        raise SchemaError(path, f"unknown {what} {value!r} (one of: {', '.join(allowed)})")
    return value
