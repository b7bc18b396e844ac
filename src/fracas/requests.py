"""What every ruleset's requests share: JSON in, typed structs out, path-bearing errors.

A ruleset declares its request types as msgspec Structs; these helpers decode a
mapping or JSON text into them and turn msgspec's complaints into `SchemaError`s
whose path points at the field (`$.strikes[1].dice`). They also check the fields
every request may carry whatever its ruleset: `seed` and injected `rolls`.
"""

from __future__ import annotations

import re
from array import array
from typing import Any, Optional, TypeVar

import msgspec
import orjson

from ._facts import MAX_ROLLS, MESSAGES
from .errors import DiceError, LimitError, SchemaError

SEED_LIMIT = 1 << 64

_MSGSPEC_PATH = re.compile(r"^(.*) - at `(\$[^`]*)`$", re.S)

S = TypeVar("S")


def say(key: str, **values: Any) -> str:
    """The message template `key` of the shared spec, filled in (the JS resolver words it alike)."""
    return MESSAGES[key].format(**values)


def type_name(value: Any) -> str:
    """A JSON value's type in msgspec's words (`null`, `bool`, `int`, `str`, `array`,
    `object`), as its decode errors say them, never Python's (`NoneType`, `list`, `dict`)."""
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def shown(value: Any, limit: int = 80) -> str:
    """A value as JSON text for a message (``null``, ``true``, ``"x"``), not Python's repr."""
    try:
        text = orjson.dumps(value).decode()
    except TypeError:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def key_path(parent: str, key: str) -> str:
    """The JSONPath of `key` inside the object at `parent`."""
    if key.isascii() and key.isidentifier():  # the same test as _IDENT, a few times faster
        return f"{parent}.{key}"
    escaped = key.replace("\\", "\\\\").replace("'", "\\'")
    return f"{parent}['{escaped}']"


def _reason(message: str) -> str:
    message = message.replace("`", "")
    return message[:1].lower() + message[1:]


def convert(obj: Any, spec: type[S], path: str = "$") -> S:
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


def convert_mapping(obj: Any, spec: type[S], path: str) -> dict[str, S]:
    """Type-check each value of an id → object mapping, with the key in the path."""
    if not isinstance(obj, dict):
        raise SchemaError(path, say("id_mapping", what=spec.__name__.lower()))
    return {key: convert(value, spec, key_path(path, key)) for key, value in obj.items()}


def parse_json(request: Any) -> Any:
    """Decoded JSON if `request` is JSON text or bytes; anything else as it is."""
    if isinstance(request, (str, bytes, bytearray, memoryview)):
        try:
            return orjson.loads(request)
        except ValueError as exc:
            raise SchemaError("$", say("invalid_json", detail=exc)) from None
    return request


def decode(request: Any, spec: type[S]) -> S:
    """A typed request from a mapping, a JSON str/bytes, or an already typed object."""
    if isinstance(request, spec):
        return request
    request = parse_json(request)
    if not isinstance(request, dict):
        raise SchemaError("$", say("json_object", got=type(request).__name__))
    try:
        return convert(request, spec)
    except SchemaError as exc:
        raise _keyed(exc, request, spec) from None


_KEYED = re.compile(r"^\$\.(\w+)\[\.\.\.\]")


def _keyed(exc: SchemaError, request: dict[str, Any], spec: type) -> SchemaError:
    """msgspec names an entry of a mapping `[...]` (`$.targets[...].guard`): for a field of
    the request typed `dict[str, Struct]` (a plug-in's `targets: dict[str, Target]`), the
    same error at the entry's id (`$.targets.orc.guard`), found by checking the entries one
    by one in request order (only on the error path)."""
    match = _KEYED.match(exc.path)
    entries = request.get(match.group(1)) if match else None
    if match is None or not isinstance(entries, dict):
        return exc
    hint = next((f.type for f in msgspec.structs.fields(spec) if f.encode_name == match.group(1)), None)
    args: tuple[Any, ...] = getattr(hint, "__args__", ())
    if getattr(hint, "__origin__", None) is not dict or len(args) != 2:
        return exc
    for key, value in entries.items():
        if isinstance(key, str):
            try:
                convert(value, args[1], key_path(f"$.{match.group(1)}", key))
            except SchemaError as inner:
                return inner
    return exc


def choice(value: str, allowed: tuple[str, ...], path: str, what: str) -> str:
    """Check a name against its list; the error lists what is allowed."""
    if value not in allowed:
        raise SchemaError(path, say("unknown_name", what=what, value=repr(value), allowed=", ".join(allowed)))
    return value


def check_names(names: list[str], allowed: tuple[str, ...], path: str, what: str) -> frozenset[str]:
    """Every name of a list checked against `allowed`; returns them as a set."""
    for i, name in enumerate(names):
        choice(name, allowed, f"{path}[{i}]", what)
    return frozenset(names)


def check_range(value: int, low: int, high: int, path: str, what: str) -> int:
    """A number within [low, high], or a SchemaError naming the bounds."""
    if not low <= value <= high:
        raise SchemaError(path, say("out_of_range", what=what, value=value, low=low, high=high))
    return value


def check_seed(seed: Optional[int], path: str = "$.seed") -> Optional[int]:
    """A seed in 0 … 2**64 - 1 (or None: draw one)."""
    if seed is not None and not 0 <= seed < SEED_LIMIT:
        raise SchemaError(path, say("seed_range", seed=seed))
    return seed


def faces(n: int) -> str:
    """'1 face', '3 faces': how many injected faces, for messages."""
    return f"{n} face" if n == 1 else f"{n} faces"


def check_rolls(rolls: Optional[list[int]], largest: int = 20) -> Optional["array[int]"]:
    """Injected faces as an int32 buffer; each must fit the largest die of the ruleset."""
    if rolls is None:
        return None
    if not rolls:
        raise SchemaError("$.rolls", say("rolls_empty"))
    if len(rolls) > MAX_ROLLS:
        raise LimitError("$.rolls", say("rolls_too_many", count=len(rolls), most=MAX_ROLLS))
    for i, face in enumerate(rolls):
        if not 1 <= face <= largest:
            raise DiceError(f"$.rolls[{i}]", say("face_range", face=face, largest=largest))
    return array("i", rolls)
