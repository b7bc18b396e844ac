"""The `fracas attack --ruleset old-school` flags: one old-school strike."""

from __future__ import annotations

from typing import Any, Optional

import click

from ..rows_cli import flag_hint as _hint
from .schema import NAME


def _cover(value: str) -> Any:
    return "full" if value == "full" else int(value)


def options() -> list[click.Option]:
    return [
        click.Option(["--attack-bonus"], type=int, default=0, show_default=True, help="The attacker's attack bonus."),
        click.Option(["--str-mod"], type=int, default=0, show_default=True,
                     help="Strength modifier: melee to hit and damage (OS-3)."),
        click.Option(["--dex-mod"], type=int, default=0, show_default=True,
                     help="Dexterity modifier: missile to hit only (OS-3)."),
        click.Option(["--method"], type=click.Choice(["melee", "missile"]), default="melee", show_default=True),
        click.Option(["--damage"], default=None, metavar="NdF[+M]", help="Weapon damage, e.g. 1d8 (OS-6)."),
        click.Option(["--range", "range_"], type=click.Choice(["short", "medium", "long", "beyond"]), default=None,
                     help="Missile range: short +1, medium 0, long -1 (OS-3) [default: medium]."),
        click.Option(["--rear"], is_flag=True, help="A rear attack: the shield's AC bonus is ignored (OS-3)."),
        click.Option(["--modifier"], type=int, default=0, show_default=True, help="Other modifiers to hit."),
        click.Option(["--target"], default="target", show_default=True, help="The target's name."),
        click.Option(["--ac"], type=int, default=None, help="The target's (ascending) AC."),
        click.Option(["--shield"], type=int, default=0, show_default=True, help="The shield's part of that AC."),
        click.Option(["--fleeing"], is_flag=True,
                     help="The target flees: a melee attack gets +2 to hit and ignores its shield (OS-3)."),
        click.Option(["--cover"], type=click.Choice(["0", "1", "2", "3", "4", "full"]), default="0",
                     show_default=True, help="The target's cover against missiles: -1..-4, or full (OS-3)."),
    ]


def request_from_flags(p: dict[str, Any]) -> dict[str, Any]:
    if p.get("damage") is None or p.get("ac") is None:
        raise click.UsageError("give --damage and --ac")
    strike: dict[str, Any] = {"target": p["target"], "method": p["method"], "damage": p["damage"],
                              "rear": p["rear"], "modifier": p["modifier"]}
    if p["range_"] is not None:
        strike["range"] = p["range_"]
    target = {"ac": p["ac"], "shield": p["shield"], "fleeing": p["fleeing"], "cover": _cover(p["cover"])}
    attacker = {"attack_bonus": p["attack_bonus"], "str_mod": p["str_mod"], "dex_mod": p["dex_mod"]}
    return {"ruleset": NAME, "attacker": attacker, "strikes": [strike], "targets": {p["target"]: target}}


_FIELDS = {"attacker.attack_bonus": "--attack-bonus", "attacker.str_mod": "--str-mod",
           "attacker.dex_mod": "--dex-mod", "strike.damage": "--damage", "strike.range": "--range",
           "strike.modifier": "--modifier", "targets.ac": "--ac", "targets.shield": "--shield",
           "targets.cover": "--cover"}


def flag_hint(path: str, flags: dict[str, Any]) -> Optional[str]:
    return _hint(path, flags, _FIELDS)


def _initiative_options() -> list[click.Option]:
    """`fracas initiative --ruleset old-school`: OS-1, a d6 per side."""
    return [
        click.Option(["--side", "sides"], multiple=True, metavar="ID", help="A side (OS-1); repeatable."),
        click.Option(["--wait", "waiting"], multiple=True, metavar="ID", help="A side that waits (OS-1)."),
        click.Option(["--ties"], type=click.Choice(["reroll", "simultaneous"]), default="reroll",
                     show_default=True, help="Ties: roll again, or act together (OS-1)."),
    ]


def _initiative_from_flags(flags: dict[str, Any]) -> dict[str, Any]:
    sides, waiting = tuple(flags.get("sides") or ()), tuple(flags.get("waiting") or ())
    ids = list(sides) + [w for w in waiting if w not in sides]
    if len(ids) < 2:
        raise click.UsageError("give the sides: --side party --side goblins (--wait ID for a waiting one)")
    return {"ruleset": NAME, "ties": flags["ties"], "sides": [{"id": i, "wait": i in waiting} for i in ids]}


#: What `fracas save --ruleset old-school --target KEY=VALUE,...` may set, and how each is read.
_SAVER_KEYS: dict[str, Any] = {"id": str, "save": int, "modifier": int}


def _save_options() -> list[click.Option]:
    """`fracas save --ruleset old-school`: saving throws against target numbers (OS-5)."""
    return [
        click.Option(["--target", "targets"], multiple=True, metavar="KEY=VALUE,...",
                     help="A creature making the saving throw (repeat for each), e.g. id=fighter,save=14,modifier=1;"
                          " keys: " + ", ".join(_SAVER_KEYS) + "."),
        click.Option(["--category"], default=None, metavar="NAME",
                     help="The saving throw's category (e.g. spells), for targets with a table."),
        click.Option(["--modifier"], type=int, default=0, show_default=True,
                     help="A modifier every target's roll gets from the effect."),
        click.Option(["--effect"], default="", help="What the effect is, for the record (e.g. 'hold person')."),
    ]


def _save_from_flags(flags: dict[str, Any]) -> dict[str, Any]:
    from ..flags import key_values

    if not flags.get("targets"):
        raise click.UsageError("give at least one --target id=fighter,save=14 (or a request file)")
    payload: dict[str, Any] = {"ruleset": NAME, "modifier": flags["modifier"], "effect": flags["effect"],
                               "targets": [key_values(t, _SAVER_KEYS, "--target") for t in flags["targets"]]}
    if flags.get("category") is not None:
        payload["category"] = flags["category"]
    return payload


def kind_options(kind: str) -> list[click.Option]:
    """The flags of `fracas KIND --ruleset old-school` for the shared kinds (initiative, save)."""
    return {"initiative": _initiative_options, "save": _save_options}.get(kind, list)()


def kind_from_flags(kind: str, flags: dict[str, Any]) -> dict[str, Any]:
    return {"initiative": _initiative_from_flags, "save": _save_from_flags}[kind](flags)
