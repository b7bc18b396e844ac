"""The registry of rulesets: name → `Ruleset` (see `fracas.rulesets.base`).

The built-in rulesets register themselves when this package is imported; a project
may register its own with `register()` (tests do, to prove the seam).
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

from ..errors import SchemaError
from .base import KINDS, BulkJob, Result, Ruleset

__all__ = ["Ruleset", "BulkJob", "Result", "KINDS", "register", "unregister", "get", "names",
           "for_request", "DEFAULT"]

#: The ruleset of a request that names none.
DEFAULT = "enchanted-realms"

_REGISTRY: dict[str, Ruleset] = {}


def register(ruleset: Ruleset) -> Ruleset:
    """Add a ruleset under its `name` (replacing one of the same name); returns it."""
    if not ruleset.name:
        raise ValueError("a ruleset needs a name")
    _REGISTRY[ruleset.name] = ruleset
    return ruleset


def unregister(name: str) -> None:
    """Remove a ruleset (tests that registered one clean up with this)."""
    _REGISTRY.pop(name, None)


def names() -> tuple[str, ...]:
    """The registered ruleset names, built-in first."""
    return tuple(_REGISTRY)


def get(name: str, path: str = "$.ruleset") -> Ruleset:
    """The ruleset called `name`, or a SchemaError at `path` listing the known ones."""
    if not isinstance(name, str):
        raise SchemaError(path, f"expected str, got {_json_type(name)}")
    ruleset = _REGISTRY.get(name)
    if ruleset is None:
        raise SchemaError(path, f"unknown ruleset {name!r} (one of: {', '.join(_REGISTRY)})")
    return ruleset


def _json_type(value: Any) -> str:
    """The JSON kind of a decoded value, named as msgspec names it in "expected X, got Y"."""
    for kind, name in ((bool, "bool"), (int, "int"), (float, "float"), (str, "str"), (list, "array"),
                       (dict, "object")):
        if isinstance(value, kind):
            return name
    return "null" if value is None else type(value).__name__


def for_request(request: Any) -> Ruleset:
    """The ruleset a decoded request names in `"ruleset"` (the default when absent)."""
    name = request.get("ruleset", DEFAULT) if isinstance(request, dict) else getattr(request, "ruleset", DEFAULT)
    return get(name)


class _Registry(ModuleType):
    """This package is also callable: `fracas.rulesets()` lists the registered names."""

    def __call__(self) -> tuple[str, ...]:
        return names()


sys.modules[__name__].__class__ = _Registry

from .er import ENCHANTED_REALMS  # noqa: E402  (registers the built-in rulesets)
from .ww import WORLDWALKER  # noqa: E402
from .ct import CARTYRION  # noqa: E402
from .oldschool import OLD_SCHOOL  # noqa: E402

for _builtin in (ENCHANTED_REALMS, WORLDWALKER, CARTYRION, OLD_SCHOOL):
    register(_builtin)
