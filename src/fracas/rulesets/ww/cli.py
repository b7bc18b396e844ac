"""The `fracas attack --ruleset worldwalker` flags: one Worldwalker strike."""

from __future__ import annotations

from typing import Any, Optional

import click

from ..rows_cli import flag_hint as _hint
from .schema import NAME


def options() -> list[click.Option]:
    return [
        click.Option(["--skill"], type=int, default=0, show_default=True, help="Weapon skill rating (WW-2)."),
        click.Option(["--str-mod"], type=int, default=0, show_default=True,
                     help="Strength modifier: to hit in melee, to damage always (WW-2, WW-3)."),
        click.Option(["--dex-mod"], type=int, default=0, show_default=True, help="Dexterity modifier: to hit at range."),
        click.Option(["--method"], type=click.Choice(["melee", "ranged"]), default="melee", show_default=True),
        click.Option(["--damage"], default=None, metavar="NdF[+M]", help="Weapon damage, e.g. 1d8 (WW-3)."),
        click.Option(["--critical"], type=int, default=0, show_default=True,
                     help="Critical attack: a penalty of 1-5 to hit for penalty × multiplier damage (WW-4)."),
        click.Option(["--crit-multiplier"], type=int, default=1, show_default=True, help="The weapon's critical multiplier."),
        click.Option(["--modifier"], type=int, default=0, show_default=True, help="Other modifiers to the attack roll."),
        click.Option(["--target"], default="target", show_default=True, help="The target's name."),
        click.Option(["--defense"], type=int, default=None, help="The target's Passive Defense TN (WW-2)."),
        click.Option(["--target-dex-mod"], type=int, default=None,
                     help="The target's Dexterity modifier, when --defense is not given (TN 10 + mod)."),
        click.Option(["--armor"], type=int, default=0, show_default=True, help="The target's armor rating (WW-3)."),
        click.Option(["--block"], type=int, default=None, metavar="BONUS",
                     help="The target blocks with this bonus: skill + STR mod (WW-5)."),
        click.Option(["--dodge"], type=int, default=None, metavar="BONUS",
                     help="The target dodges with this bonus: Defense skill + DEX mod (WW-5)."),
        click.Option(["--engaged"], is_flag=True,
                     help="The target holds a ranged weapon while engaged in melee: -6 to its block/dodge (WW-5)."),
    ]


def request_from_flags(p: dict[str, Any]) -> dict[str, Any]:
    if p.get("damage") is None or (p.get("defense") is None and p.get("target_dex_mod") is None):
        raise click.UsageError("give --damage and --defense (or --target-dex-mod)")
    if p.get("block") is not None and p.get("dodge") is not None:
        raise click.UsageError("give --block or --dodge, not both")
    target: dict[str, Any] = {"armor": p["armor"]}
    if p["defense"] is not None:
        target["defense"] = p["defense"]
    else:
        target["dex_mod"] = p["target_dex_mod"]
    for kind in ("block", "dodge"):
        if p.get(kind) is not None:
            target["reaction"] = {"kind": kind, "bonus": p[kind]}
    strike = {"target": p["target"], "method": p["method"], "damage": p["damage"], "critical": p["critical"],
              "crit_multiplier": p["crit_multiplier"], "engaged": p["engaged"], "modifier": p["modifier"]}
    return {"ruleset": NAME, "attacker": {"skill": p["skill"], "str_mod": p["str_mod"], "dex_mod": p["dex_mod"]},
            "strikes": [strike], "targets": {p["target"]: target}}


_FIELDS = {"attacker.skill": "--skill", "attacker.str_mod": "--str-mod", "attacker.dex_mod": "--dex-mod",
           "strike.damage": "--damage", "strike.critical": "--critical", "strike.crit_multiplier": "--crit-multiplier",
           "strike.modifier": "--modifier", "strike.method": "--method", "targets.defense": "--defense",
           "targets.dex_mod": "--target-dex-mod", "targets.armor": "--armor", "targets.reaction": "--block/--dodge"}


def flag_hint(path: str, flags: dict[str, Any]) -> Optional[str]:
    return _hint(path, flags, _FIELDS)
