"""The `fracas attack` flags that describe one Enchanted Realms strike.

The CLI adds these options to `fracas attack` and, when any is given, asks
`request_from_flags` for the request they describe (docs/ENGINE.md §6).
"""

from __future__ import annotations

import re
from typing import Any, Optional

import click

from ...requests import key_path
from ..flags import key_values as key_values  # shared by the rulesets' commands
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
        click.Option(["--attacker-condition"], multiple=True, metavar="CONDITION",
                     help="A condition of the attacker (poisoned, prone, blind …, ER-14); repeatable."),
        click.Option(["--charmed-by"], default=None, metavar="NAME",
                     help="The attacker is charmed by NAME: it cannot attack NAME (ER-14)."),
        click.Option(["--nearby"], multiple=True, metavar="ID=NAME,ac=N,...",
                     help="A creature near the target a missed shot may hit (ER-17), in slot order 1-8:"
                          " keys id, ac, size, cover, resistant, vulnerable, immune, condition (the last four"
                          " repeatable); repeatable."),
        click.Option(["--friendly-fire/--no-friendly-fire", "friendly_fire"], default=None,
                     help="Put the shots under the friendly-fire rule, or keep them out [default: by ER-17:"
                          " three-quarters cover, a blind attacker or an invisible target, with --nearby]."),
        click.Option(["--flee", "flee_moved"], type=int, default=None, metavar="FEET",
                     help="A flee attack against a creature that moved FEET this round (ER-20: 20-70 a normal"
                          " strike, 75+ one d20)."),
        click.Option(["--defense-rolls"], is_flag=True,
                     help="The defense-roll variant: the target's player rolls d20 + AC vs DC 21 + to-hit (ER-22)."),
        click.Option(["--grappling"], is_flag=True,
                     help="The target holds someone: body damage calls for its Strength feat (ER-21)."),
        click.Option(["--grappling-str"], type=int, default=None, metavar="SCORE",
                     help="The grappling target's Strength score: the feat is rolled (ER-21)."),
        click.Option(["--strike", "more_strikes"], multiple=True, metavar="KEY=VALUE,...",
                     help="Another strike at the same target, e.g. --strike dice=2,style=piercing: the keys"
                          f" given ({', '.join(STRIKE_KEYS)}), the rest from the strike flags above;"
                          " repeatable, in order."),
    ]


#: What `--strike KEY=VALUE,...` may set, and how its text is read.
STRIKE_KEYS: dict[str, Any] = {
    "dice": int, "bonus": int, "weight": int, "crit_range": int, "style": STYLES, "method": METHODS,
    "damage_type": DAMAGE_TYPES, "advantage": bool, "disadvantage": bool, "sneak": bool, "reach": bool,
    "sneak_ok": bool,
}
_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def parse_strike(text: str, number: int) -> dict[str, Any]:
    """One `--strike` value as strike fields; a click error naming the strike and the key."""
    return key_values(text, STRIKE_KEYS, f"--strike (the {_ordinal(number)})")


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def request_from_flags(p: dict[str, Any]) -> dict[str, Any]:
    """The single-attack request the flags describe."""
    if p.get("dice") is None or p.get("ac") is None:
        raise click.UsageError("give --dice and --ac (or a request file, or '-' for stdin)")
    attacker: dict[str, Any] = {"size": p["size"]}
    for key in ("strength", "strength_mod", "agility", "agility_mod"):
        if p[key] is not None:
            attacker[key] = p[key]
    if p.get("attacker_condition"):
        attacker["conditions"] = list(p["attacker_condition"])
    if p.get("charmed_by") is not None:
        attacker["charmed_by"] = p["charmed_by"]
    first = {key: p[key] for key in STRIKE_KEYS if p.get(key) is not None}
    strikes = [_strike(first, p["target"])]
    for number, text in enumerate(p.get("more_strikes") or (), start=2):
        fields = parse_strike(text, number)
        if "style" in fields and "method" not in fields:
            first_fields = {k: v for k, v in first.items() if k not in ("method", "damage_type")}
        else:
            first_fields = first
        strikes.append(_strike({**first_fields, **fields}, p["target"]))
    request = {"ruleset": NAME, "attacker": attacker, "strikes": strikes, "targets": {p["target"]: _target(p)}}
    return _situation(request, p)


def _situation(request: dict[str, Any], p: dict[str, Any]) -> dict[str, Any]:
    """The flags beyond one strike: bystanders (ER-17), flee (ER-20), grappling (ER-21), defense rolls (ER-22)."""
    target = request["targets"][p["target"]]
    for number, text in enumerate(p.get("nearby") or (), start=1):
        creature = parse_creature(text, number)
        cid = creature.pop("id")
        if cid in request["targets"]:
            raise click.BadParameter(f"two creatures named {cid!r}", param_hint=f"--nearby (the {_ordinal(number)})")
        request["targets"][cid] = creature
        target.setdefault("nearby", []).append(cid)
    if p.get("friendly_fire") is not None:
        for strike in request["strikes"]:
            strike["friendly_fire"] = p["friendly_fire"]
    if p.get("flee_moved") is not None:
        request["flee"] = {"moved": p["flee_moved"]}
    if p.get("defense_rolls"):
        request["defense_rolls"] = True
    if p.get("grappling") or p.get("grappling_str") is not None:
        target["grappling"] = {} if p.get("grappling_str") is None else {"strength": p["grappling_str"]}
    return request


#: What `--nearby KEY=VALUE,...` may set (the lists are repeatable).
CREATURE_KEYS: dict[str, Any] = {"id": str, "ac": int, "size": str, "cover": str, "resistant": list,
                                 "vulnerable": list, "immune": list, "condition": list}


def parse_creature(text: str, number: int) -> dict[str, Any]:
    """One `--nearby` value as a target (ER-17); a click error naming the creature and the key."""
    hint = f"--nearby (the {_ordinal(number)})"
    creature = key_values(text, CREATURE_KEYS, hint)
    for key in ("id", "ac"):
        if key not in creature:
            raise click.BadParameter(f"{text!r} has no {key}= (e.g. id=bob,ac=14)", param_hint=hint)
    return creature


def _strike(fields: dict[str, Any], target: str) -> dict[str, Any]:
    style = fields.get("style", "slashing")
    strike: dict[str, Any] = {
        "target": target, "method": fields.get("method") or STYLE_METHOD[style], "style": style,
        "dice": fields["dice"], "bonus": fields.get("bonus", 0), "weight": fields.get("weight", 0),
        "damage_type": fields.get("damage_type") or STYLE_DAMAGE[style],
    }
    for flag in ("advantage", "disadvantage", "sneak", "reach", "sneak_ok"):
        strike[flag] = bool(fields.get(flag, False))
    if fields.get("crit_range") is not None:
        strike["crit_range"] = fields["crit_range"]
    return strike


def _target(p: dict[str, Any]) -> dict[str, Any]:
    return {"ac": p["ac"], "size": p["target_size"], "cover": p["cover"], "resistant": list(p["resistant"]),
            "vulnerable": list(p["vulnerable"]), "immune": list(p["immune"]), "conditions": list(p["condition"])}


def request_from_profile(profile: dict[str, Any], p: dict[str, Any]) -> dict[str, Any]:
    """`--as NAME`: the profile's attacker and strikes, at the target the flags describe."""
    if p.get("ac") is None:
        raise click.UsageError("give the target's --ac (with --as, the flags describe the target)")
    strikes = profile.get("strikes")
    if not isinstance(strikes, list):
        raise click.UsageError("the profile has no strikes list")
    attacker = dict(profile.get("attacker") or {})
    if p.get("attacker_condition"):
        attacker["conditions"] = [*attacker.get("conditions", []), *p["attacker_condition"]]
    if p.get("charmed_by") is not None:
        attacker["charmed_by"] = p["charmed_by"]
    return _situation({"ruleset": NAME, "attacker": attacker,
                       "strikes": [{**strike, "target": p["target"]} if isinstance(strike, dict) else strike
                                   for strike in strikes],
                       "targets": {p["target"]: _target(p)}}, p)


#: Which flag sets a field of the request the flags build (for error hints).
_FLAG_OF_FIELD = {
    "attacker.strength_mod": "--str-mod", "attacker.strength": "--str",
    "attacker.agility_mod": "--agi-mod", "attacker.agility": "--agi", "attacker.size": "--size",
    "attacker.conditions": "--attacker-condition", "attacker.charmed_by": "--charmed-by", "targets.size": "--target-size", "targets.ac": "--ac",
    "targets.cover": "--cover", "targets.resistant": "--resistant",
    "targets.vulnerable": "--vulnerable", "targets.immune": "--immune",
    "targets.conditions": "--condition", "targets.grappling": "--grappling-str", "targets.nearby": "--nearby",
    "flee": "--flee", "strike.friendly_fire": "--friendly-fire",
}


def flag_hint(path: str, flags: dict[str, Any]) -> Optional[str]:
    """The flag behind a field path of a request built from flags, e.g. `--str`."""
    plain = path.replace(key_path("$.targets", flags["target"]), "$.targets").replace("$.strikes[0]", "$.strike")
    extra = re.match(r"\$\.strikes\[(\d+)\]", plain)
    if extra:
        return f"--strike (the {_ordinal(int(extra.group(1)) + 1)})"
    plain = plain[2:] if plain.startswith("$.") else plain
    plain = plain.split("[")[0]
    for field, flag in _FLAG_OF_FIELD.items():
        if plain == field or plain.startswith(field + "."):
            return flag
    if plain == "strike.target" and flags.get("charmed_by") == flags["target"]:
        return "--charmed-by"  # ER-14: the one target is the attacker's charmer
    if plain == "strike.target":
        return "--cover"  # the flags name one target, so an error there is about its cover (ER-16)
    if plain.startswith("strike."):
        return "--" + plain.split(".")[1].replace("_", "-")
    return None


#: What `fracas save --target KEY=VALUE,...` may set, and how each value is read.
_SAVER_KEYS: dict[str, Any] = {"id": str, "score": int, "modifier": int, "bonus": int, "cover": str,
                               "advantage": bool, "disadvantage": bool, "condition": list}


def _save_options() -> list[click.Option]:
    """`fracas save`: saves against an effect or an area (ER-12, ER-14, ER-16)."""
    return [
        click.Option(["--save", "save_"], type=click.Choice(["agility", "resilience", "strength"]), default=None,
                     help="The attribute that saves."),
        click.Option(["--dc"], type=int, default=None, help="The save's DC: a d20 + modifiers must meet it."),
        click.Option(["--target", "targets"], multiple=True, metavar="KEY=VALUE,...",
                     help="A creature making the save (repeat for each), e.g. id=goblin,score=4,cover=half; keys: "
                          + ", ".join(_SAVER_KEYS) + "."),
        click.Option(["--area"], is_flag=True, help="An area effect: cover adds +2/+5/+5 to Agility saves (ER-16)."),
        click.Option(["--effect"], default="", help="What the effect is, for the record (e.g. 'sleep smoke')."),
        click.Option(["--on-fail", "on_fail"], multiple=True, metavar="CONDITION",
                     help="A condition a failed save applies (repeat for several), e.g. asleep."),
    ]


def _save_from_flags(flags: dict[str, Any]) -> dict[str, Any]:
    if flags.get("save_") is None or flags.get("dc") is None or not flags.get("targets"):
        raise click.UsageError("give --save, --dc and at least one --target id=goblin,score=4 (or a request file)")
    return {"ruleset": NAME, "save": flags["save_"], "dc": flags["dc"], "area": flags["area"],
            "effect": flags["effect"], "on_fail": list(flags["on_fail"]),
            "targets": [key_values(t, _SAVER_KEYS, "--target") for t in flags["targets"]]}


def _initiative_options() -> list[click.Option]:
    from ..flags import combatants_option

    return [combatants_option("its Agility score (ER-18: d10 + Agility modifier)")]


def _initiative_from_flags(flags: dict[str, Any]) -> dict[str, Any]:
    from ..flags import combatants_request

    return combatants_request(NAME, flags, "agility")


def kind_options(kind: str) -> list[click.Option]:
    """The flags of `fracas KIND` for the shared kinds (initiative, save)."""
    return {"initiative": _initiative_options, "save": _save_options}.get(kind, list)()


def kind_from_flags(kind: str, flags: dict[str, Any]) -> dict[str, Any]:
    return {"initiative": _initiative_from_flags, "save": _save_from_flags}[kind](flags)
