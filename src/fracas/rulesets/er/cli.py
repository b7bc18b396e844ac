"""The `fracas attack` flags that describe one Enchanted Realms strike.

The CLI adds these options to `fracas attack` and, when any is given, asks
`request_from_flags` for the request they describe (docs/ENGINE.md §6).
"""

from __future__ import annotations

from typing import Any, Optional

import click

from ...requests import key_path
from .schema import COVERS, DAMAGE_TYPES, METHODS, NAME, SIZES, STYLE_DAMAGE, STYLE_METHOD, STYLES


def options() -> list[click.Option]:
    """The flags of one strike, one click option each."""
    return [
        click.Option(["--dice"], type=int, default=None, help="Skill dice in the pool (1-5, ER-3)."),
        click.Option(["--bonus"], type=int, default=0, show_default=True, help="Other bonuses on every die."),
        click.Option(["--ac"], type=int, default=None, help="The target's armor class."),
        click.Option(["--weight"], type=int, default=0, show_default=True,
                     help="Weapon weight: light 0, medium 1, heavy 2 (melee only)."),
        click.Option(["--str", "strength"], type=int, default=None,
                     help="Attacker Strength score: added to hit in melee; its modifier to damage."),
        click.Option(["--str-mod", "strength_mod"], type=int, default=None,
                     help="Strength modifier, when it is not floor((score - 2) / 2)."),
        click.Option(["--agi", "agility"], type=int, default=None, help="Attacker Agility score (ranged attacks)."),
        click.Option(["--agi-mod", "agility_mod"], type=int, default=None,
                     help="Agility modifier, when it is not floor((score - 2) / 2)."),
        click.Option(["--method"], type=click.Choice(METHODS), default=None,
                     help="melee, range or savage [default: the style's method (ER-2)]."),
        click.Option(["--style"], type=click.Choice(STYLES), default="slashing", show_default=True,
                     help="Weapon style: decides the method, crits and the default damage type (ER-2, ER-8)."),
        click.Option(["--damage-type"], type=click.Choice(DAMAGE_TYPES), default=None,
                     help="Damage type [default: from the style, e.g. edged for slashing, blunt for "
                          "bludgeoning, piercing for archery]."),
        click.Option(["--crit-range"], type=int, default=None, help="Lowest crit face, e.g. 19 for crits on 19-20."),
        click.Option(["--advantage"], is_flag=True, help="One extra d20 in the pool (ER-12)."),
        click.Option(["--disadvantage"], is_flag=True, help="One extra d20, the highest discarded; no crits (ER-12)."),
        click.Option(["--sneak"], is_flag=True,
                     help="Sneak attack: advantage die plus sneak die (ER-13); needs a ranged, light "
                          "(--weight 0), --reach or --sneak-ok weapon."),
        click.Option(["--reach"], is_flag=True, help="The weapon has the reach property (sneak attacks, ER-13)."),
        click.Option(["--sneak-ok"], is_flag=True, help="The weapon is usable for sneak attacks (ER-13)."),
        click.Option(["--target"], default="target", show_default=True, help="The target's name."),
        click.Option(["--resistant"], multiple=True, type=click.Choice(DAMAGE_TYPES),
                     help="Target resists this damage type (halved); repeatable."),
        click.Option(["--vulnerable"], multiple=True, type=click.Choice(DAMAGE_TYPES),
                     help="Target is vulnerable to this damage type (doubled); repeatable."),
        click.Option(["--immune"], multiple=True, type=click.Choice(DAMAGE_TYPES),
                     help="Target is immune to this damage type; repeatable."),
        click.Option(["--condition"], multiple=True, metavar="CONDITION",
                     help="A condition of the target (prone, stunned, invisible …, ER-15); repeatable."),
        click.Option(["--cover"], type=click.Choice(COVERS), default="none", show_default=True,
                     help="The target's cover (ER-16, ranged strikes only)."),
        click.Option(["--size"], type=click.Choice(SIZES), default="medium", show_default=True,
                     help="The attacker's size (ER-5)."),
        click.Option(["--target-size"], type=click.Choice(SIZES), default="medium", show_default=True,
                     help="The target's size (ER-5, ranged attacks)."),
    ]


def request_from_flags(p: dict[str, Any]) -> dict[str, Any]:
    """The single-attack request the flags describe."""
    if p.get("dice") is None or p.get("ac") is None:
        raise click.UsageError("give --dice and --ac (or a request file, or '-' for stdin)")
    style = p["style"]
    method = p["method"] or STYLE_METHOD[style]
    attacker: dict[str, Any] = {"size": p["size"]}
    for key in ("strength", "strength_mod", "agility", "agility_mod"):
        if p[key] is not None:
            attacker[key] = p[key]
    strike: dict[str, Any] = {
        "target": p["target"], "method": method, "style": style, "dice": p["dice"],
        "bonus": p["bonus"], "weight": p["weight"],
        "damage_type": p["damage_type"] or STYLE_DAMAGE[style],
        "advantage": p["advantage"], "disadvantage": p["disadvantage"], "sneak": p["sneak"],
        "reach": p["reach"], "sneak_ok": p["sneak_ok"],
    }
    if p["crit_range"] is not None:
        strike["crit_range"] = p["crit_range"]
    target: dict[str, Any] = {"ac": p["ac"], "size": p["target_size"], "cover": p["cover"],
                              "resistant": list(p["resistant"]), "vulnerable": list(p["vulnerable"]),
                              "immune": list(p["immune"]), "conditions": list(p["condition"])}
    return {"ruleset": NAME, "attacker": attacker, "strikes": [strike], "targets": {p["target"]: target}}


#: Which flag sets a field of the request the flags build (for error hints).
_FLAG_OF_FIELD = {
    "attacker.strength_mod": "--str-mod", "attacker.strength": "--str",
    "attacker.agility_mod": "--agi-mod", "attacker.agility": "--agi", "attacker.size": "--size",
    "attacker.conditions": None, "targets.size": "--target-size", "targets.ac": "--ac",
    "targets.cover": "--cover", "targets.resistant": "--resistant",
    "targets.vulnerable": "--vulnerable", "targets.immune": "--immune",
    "targets.conditions": "--condition",
}


def flag_hint(path: str, flags: dict[str, Any]) -> Optional[str]:
    """The flag behind a field path of a request built from flags, e.g. `--str`."""
    plain = path.replace(key_path("$.targets", flags["target"]), "$.targets").replace("$.strikes[0]", "$.strike")
    plain = plain[2:] if plain.startswith("$.") else plain
    plain = plain.split("[")[0]
    for field, flag in _FLAG_OF_FIELD.items():
        if plain == field or plain.startswith(field + "."):
            return flag
    if plain == "strike.target":
        return "--cover"  # the flags name one target, so an error there is about its cover (ER-16)
    if plain.startswith("strike."):
        return "--" + plain.split(".")[1].replace("_", "-")
    return None
