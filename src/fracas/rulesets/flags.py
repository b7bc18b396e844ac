"""Command-line flags that more than one ruleset's commands share. A ruleset's flags are
its own (its `cli.py`); this module is in the rulesets' layer, so a ruleset reaches it
without importing `fracas.cli` (the layers run one way: cli → rulesets)."""

from __future__ import annotations

from typing import Any

import click


def id_numbers(items: tuple[str, ...], option: str) -> list[tuple[str, int]]:
    """`("rogue=6", "ogre=2")` → `[("rogue", 6), ("ogre", 2)]`; a malformed item is a usage
    error naming the option."""
    out = []
    for item in items:
        name, sep, value = item.rpartition("=")
        if not sep or not name:
            raise click.BadParameter(f"{item!r}: write ID=N, e.g. rogue=6", param_hint=option)
        try:
            out.append((name, int(value)))
        except ValueError:
            raise click.BadParameter(f"{item!r}: N must be a whole number", param_hint=option) from None
    return out


def combatants_option(meaning: str) -> click.Option:
    """`--combatant ID=N`, repeatable: N is `meaning` (its Agility score, ER-18; ...)."""
    return click.Option(["--combatant", "combatants"], multiple=True, metavar="ID=N",
                        help=f"A combatant and {meaning}; repeatable.")


def combatants_request(ruleset: str, flags: dict[str, Any], field: str) -> dict[str, Any]:
    """The initiative request of `--combatant ID=N` flags, N as each combatant's `field`."""
    pairs = id_numbers(tuple(flags.get("combatants") or ()), "--combatant")
    if not pairs:
        raise click.UsageError("give the combatants: --combatant rogue=6 --combatant ogre=2 (or a file)")
    return {"ruleset": ruleset, "combatants": [{"id": i, field: n} for i, n in pairs]}


#: The words a bare boolean key may be given as (`key=yes`).
_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def key_values(text: str, keys: dict[str, Any], hint: str) -> dict[str, Any]:
    """`KEY=VALUE,...` as fields, each read as its key says: int, str, bool (a bare KEY is
    true), list (repeatable; `condition` fills `conditions`), or a tuple of the allowed
    words. A mistake is a click error naming the option (`hint`) and the key."""
    fields: dict[str, Any] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        key, sep, value = item.partition("=")
        key, value = key.strip().replace("-", "_"), value.strip()
        kind = keys.get(key)
        if kind is None:
            raise click.BadParameter(f"unknown key {key!r} in {text!r}; keys: {', '.join(keys)}", param_hint=hint)
        if kind is bool:
            if sep and value.lower() not in _TRUE + _FALSE:
                raise click.BadParameter(f"{key}={value!r}: give {key} alone, or {key}=true / {key}=false",
                                         param_hint=hint)
            fields[key] = not sep or value.lower() in _TRUE
        elif not sep:
            raise click.BadParameter(f"{key!r} needs a value: {key}=...", param_hint=hint)
        elif kind is int:
            try:
                fields[key] = int(value)
            except ValueError:
                raise click.BadParameter(f"{key}={value!r} is not a whole number", param_hint=hint) from None
        elif kind is list:
            fields.setdefault("conditions" if key == "condition" else key, []).append(value)
        elif isinstance(kind, tuple) and value not in kind:
            raise click.BadParameter(f"{key}={value!r} is not one of {', '.join(kind)}", param_hint=hint)
        else:
            fields[key] = value
    return fields
