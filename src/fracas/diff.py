"""Where two JSON values differ: the one comparison `fracas replay` and the bridge's
`journal.replay` share."""

from __future__ import annotations

import json
from typing import Any

from .requests import key_path


class _Missing:
    def __repr__(self) -> str:
        return "(missing)"


MISSING = _Missing()


def differences(expected: Any, actual: Any, path: str = "$") -> list[tuple[str, Any, Any]]:
    """Every (path, expected, actual) where two JSON values differ, in document order.

    A member or item present on one side only is reported with `MISSING` on the
    other. `True` and `1` differ (they do in JSON); `1` and `1.0` are the same number.
    """
    if isinstance(expected, dict) and isinstance(actual, dict):
        found = []
        for key in list(expected) + [k for k in actual if k not in expected]:
            sub = key_path(path, key)
            if key not in actual:
                found.append((sub, expected[key], MISSING))
            elif key not in expected:
                found.append((sub, MISSING, actual[key]))
            else:
                found.extend(differences(expected[key], actual[key], sub))
        return found
    if isinstance(expected, list) and isinstance(actual, list):
        found = []
        for index in range(max(len(expected), len(actual))):
            sub = f"{path}[{index}]"
            if index >= len(actual):
                found.append((sub, expected[index], MISSING))
            elif index >= len(expected):
                found.append((sub, MISSING, actual[index]))
            else:
                found.extend(differences(expected[index], actual[index], sub))
        return found
    if expected != actual or isinstance(expected, bool) != isinstance(actual, bool):
        return [(path, expected, actual)]
    return []


def render_differences(found: list[tuple[str, Any, Any]], limit: int = 40) -> str:
    """A diff a person can read: one line per differing field."""

    def show(value: Any) -> str:
        return repr(value) if value is MISSING else json.dumps(value, ensure_ascii=False)

    lines = [f"  {path}: expected {show(want)}, got {show(got)}" for path, want, got in found[:limit]]
    if len(found) > limit:
        lines.append(f"  … and {len(found) - limit} more")
    return "\n".join(lines)
