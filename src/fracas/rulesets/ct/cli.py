"""The `fracas attack --ruleset cartyrion` flags: one Cartyrion strike."""

from __future__ import annotations

from typing import Any, Optional

import click

from ..rows_cli import flag_hint as _hint
from .schema import NAME


def options() -> list[click.Option]:
    return [
        click.Option(["--level"], type=int, default=1, show_default=True,
                     help="Attacker level: (level + 1) // 2 damage dice (CT-3)."),
        click.Option(["--bonus"], type=int, default=0, show_default=True,
                     help="STR or DEX bonus, added to melee damage (and to ranged damage without --awa) (CT-2)."),
        click.Option(["--magic"], type=int, default=0, show_default=True,
                     help="The weapon's magic bonus, added per original die (CT-2)."),
        click.Option(["--awa"], type=int, default=None,
                     help="AWA bonus: added to ranged damage (CT-2) and to the --sneak roll check (CT-7)."),
        click.Option(["--method"], type=click.Choice(["melee", "ranged"]), default="melee", show_default=True,
                     help="Ranged damage is Direct Damage and costs d4 stamina (CT-4)."),
        click.Option(["--die"], default=None, metavar="dF", help="The weapon's damage die: d4, d6, d8 or d10 (CT-3)."),
        click.Option(["--dice"], type=int, default=None, help="Damage dice, when not the level's (CT-3)."),
        click.Option(["--power"], is_flag=True, help="Power attack: double dice, the weapon breaks (CT-5)."),
        click.Option(["--sneak"], type=click.Choice(["passed", "failed", "roll"]), default=None,
                     help="Sneak attack, with its AWA check passed, failed, or rolled here (CT-7)."),
        click.Option(["--specialized"], is_flag=True, help="Ranged weapon specialization: half the stamina cost."),
        click.Option(["--target"], default="target", show_default=True, help="The target's name."),
        click.Option(["--dex"], type=int, default=0, show_default=True, help="The target's DEX bonus (CT-2)."),
        click.Option(["--armor"], type=int, default=0, show_default=True, help="The target's Armor Points (CT-2)."),
        click.Option(["--parry"], type=click.Choice(["weapon", "shield"]), default=None,
                     help="The target parries (CT-6)."),
        click.Option(["--weapon-magic"], type=int, default=0, show_default=True,
                     help="Magic bonus of the target's parrying weapon (CT-6)."),
        click.Option(["--shield"], type=int, default=None, help="Points of the target's parrying shield (CT-6)."),
    ]


def request_from_flags(p: dict[str, Any]) -> dict[str, Any]:
    if p.get("die") is None:
        raise click.UsageError("give --die (d4, d6, d8 or d10)")
    attacker: dict[str, Any] = {"level": p["level"], "bonus": p["bonus"], "magic": p["magic"]}
    if p["awa"] is not None:
        attacker["awa"] = p["awa"]
    strike: dict[str, Any] = {"target": p["target"], "method": p["method"], "die": p["die"], "power": p["power"],
                              "specialized": p["specialized"]}
    for key in ("dice", "sneak", "parry"):
        if p[key] is not None:
            strike[key] = p[key]
    target: dict[str, Any] = {"dex": p["dex"], "armor": p["armor"], "weapon_magic": p["weapon_magic"]}
    if p["shield"] is not None:
        target["shield"] = p["shield"]
    return {"ruleset": NAME, "attacker": attacker, "strikes": [strike], "targets": {p["target"]: target}}


_FIELDS = {"attacker.level": "--level", "attacker.bonus": "--bonus", "attacker.magic": "--magic",
           "attacker.awa": "--awa", "strike.die": "--die", "strike.dice": "--dice", "strike.sneak": "--sneak",
           "strike.parry": "--parry", "strike.power": "--power", "targets.dex": "--dex", "targets.armor": "--armor",
           "targets.weapon_magic": "--weapon-magic", "targets.shield": "--shield"}


def flag_hint(path: str, flags: dict[str, Any]) -> Optional[str]:
    return _hint(path, flags, _FIELDS)


def _initiative_options() -> list[click.Option]:
    """`fracas initiative --ruleset cartyrion`: CT-1 side initiative, the party's d6."""
    return [
        click.Option(["--round", "round_"], type=click.IntRange(1), default=1, show_default=True,
                     help="The round (surprise and ambush only in the first, CT-1)."),
        click.Option(["--ambush"], type=click.Choice(["none", "opponents", "party"]), default="none",
                     show_default=True, help="Who is ambushing (CT-1)."),
    ]


def _initiative_from_flags(flags: dict[str, Any]) -> dict[str, Any]:
    return {"ruleset": NAME, "round": flags["round_"], "ambush": flags["ambush"]}


def kind_options(kind: str) -> list[click.Option]:
    """The flags of `fracas KIND --ruleset …` for the shared kinds it has (initiative)."""
    return _initiative_options() if kind == "initiative" else []


def kind_from_flags(kind: str, flags: dict[str, Any]) -> dict[str, Any]:
    assert kind == "initiative", kind  # the command offers only the kinds kind_options gives flags for
    return _initiative_from_flags(flags)
