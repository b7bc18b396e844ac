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
