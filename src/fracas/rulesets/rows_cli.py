"""Helpers for the `fracas attack` flags of Worldwalker, Cartyrion and old-school."""

from __future__ import annotations

from typing import Any, Optional

from ..requests import key_path


def flag_hint(path: str, flags: dict[str, Any], fields: dict[str, str]) -> Optional[str]:
    """The flag behind a field path of a request built from flags (`fields`: field → flag)."""
    plain = path.replace(key_path("$.targets", flags.get("target") or "target"), "$.targets")
    plain = plain.replace("$.strikes[0]", "$.strike")
    plain = plain[2:] if plain.startswith("$.") else plain
    plain = plain.split("[")[0]
    for field, flag in sorted(fields.items(), key=lambda kv: -len(kv[0])):
        if plain == field or plain.startswith(field + "."):
            return flag
    return None
