"""The `fracas attack --ruleset worldwalker` flags: one Worldwalker strike."""

from __future__ import annotations

from typing import Any, Optional

import click

from ..._facts import WW_HANDS as HANDS
from ..._facts import WW_TWO_WEAPON
from ..rows_cli import flag_hint as _hint
from .schema import NAME

TALENTS = tuple(WW_TWO_WEAPON)


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
        click.Option(["--block-hand"], type=click.Choice(list(HANDS)), default=None,
                     help="With --block and --target-two-weapon: the hand that blocks [default: primary] (WW-6)."),
        click.Option(["--target-two-weapon"], is_flag=True,
                     help="The target fights with two weapons, or weapon and shield: its block takes the table's"
                          " penalties (WW-6)."),
        click.Option(["--target-light-off-hand"], is_flag=True,
                     help="With --target-two-weapon: the target's off-hand weapon is light (WW-6)."),
        click.Option(["--target-talent"], type=click.Choice(list(TALENTS)), default=None,
                     help="With --target-two-weapon: the target's talent that eases the penalties (WW-6)"
                          " [default: none]."),
        click.Option(["--engaged"], is_flag=True,
                     help="The target holds a ranged weapon while engaged in melee: -6 to its block/dodge (WW-5)."),
        click.Option(["--two-weapon"], is_flag=True,
                     help="The attacker fights with two weapons, or weapon and shield: the table's penalties (WW-6)."),
        click.Option(["--light-off-hand"], is_flag=True, help="With --two-weapon: the off-hand weapon is light (WW-6)."),
        click.Option(["--talent"], type=click.Choice(list(TALENTS)), default=None,
                     help="With --two-weapon: the talent that eases the penalties (WW-6) [default: none]."),
        click.Option(["--hand"], type=click.Choice(list(HANDS)), default=None,
                     help="With --two-weapon: the hand that strikes [default: primary] (WW-6)."),
        click.Option(["--feint"], type=int, default=None, metavar="BONUS",
                     help="Feint first: weapon skill + INT mod; success denies the block or dodge (WW-7)."),
        click.Option(["--feint-defense"], type=int, default=None, metavar="BONUS",
                     help="With --feint: the target's defense skill + WIS mod [default: 0] (WW-7)."),
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
    if p.get("block_hand") is not None:
        if "reaction" not in target:
            raise click.UsageError("--block-hand says which hand blocks: give --block too (WW-6)")
        target["reaction"]["hand"] = p["block_hand"]  # a dodge with a hand: the engine names --block-hand
    if p.get("target_two_weapon"):
        target["two_weapon"] = {"light": bool(p.get("target_light_off_hand")),
                                "talent": p.get("target_talent") or "none"}
    else:
        for flag in ("target_light_off_hand", "target_talent"):
            if p.get(flag):
                raise click.UsageError(f"--{flag.replace('_', '-')} describes the target's two-weapon fighting: give"
                                       " --target-two-weapon too (WW-6)")
    strike = {"target": p["target"], "method": p["method"], "damage": p["damage"], "critical": p["critical"],
              "crit_multiplier": p["crit_multiplier"], "engaged": p["engaged"], "modifier": p["modifier"]}
    attacker: dict[str, Any] = {"skill": p["skill"], "str_mod": p["str_mod"], "dex_mod": p["dex_mod"]}
    if p.get("two_weapon"):
        attacker["two_weapon"] = {"light": bool(p.get("light_off_hand")), "talent": p.get("talent") or "none"}
    else:
        for flag in ("light_off_hand", "talent"):
            if p.get(flag):
                raise click.UsageError(f"--{flag.replace('_', '-')} describes two-weapon fighting: give --two-weapon"
                                       " too (WW-6)")
    if p.get("hand") is not None:
        strike["hand"] = p["hand"]  # an off hand without --two-weapon: the engine names --hand (WW-6)
    if p.get("feint") is not None:
        strike["feint"] = {"bonus": p["feint"], "defense": p.get("feint_defense") or 0}
    elif p.get("feint_defense") is not None:
        raise click.UsageError("--feint-defense is the target's side of a feint: give --feint too (WW-7)")
    return {"ruleset": NAME, "attacker": attacker, "strikes": [strike], "targets": {p["target"]: target}}


_FIELDS = {"attacker.skill": "--skill", "attacker.str_mod": "--str-mod", "attacker.dex_mod": "--dex-mod",
           "strike.damage": "--damage", "strike.critical": "--critical", "strike.crit_multiplier": "--crit-multiplier",
           "strike.modifier": "--modifier", "strike.method": "--method", "targets.defense": "--defense",
           "targets.dex_mod": "--target-dex-mod", "targets.armor": "--armor", "targets.reaction": "--block/--dodge",
           "attacker.two_weapon": "--two-weapon", "attacker.two_weapon.talent": "--talent",
           "attacker.two_weapon.light": "--light-off-hand", "strike.hand": "--hand", "strike.feint": "--feint",
           "strike.feint.defense": "--feint-defense", "strike.engaged": "--engaged",
           "targets.reaction.hand": "--block-hand", "targets.two_weapon": "--target-two-weapon",
           "targets.two_weapon.talent": "--target-talent", "targets.two_weapon.light": "--target-light-off-hand"}


def flag_hint(path: str, flags: dict[str, Any]) -> Optional[str]:
    return _hint(path, flags, _FIELDS)


def _initiative_options() -> list[click.Option]:
    """`fracas initiative --ruleset worldwalker`: WW-1, d20 + Dexterity modifier each."""
    from ..flags import combatants_option

    return [combatants_option("its Dexterity modifier (WW-1: d20 + Dexterity modifier)")]


def _initiative_from_flags(flags: dict[str, Any]) -> dict[str, Any]:
    from ..flags import combatants_request

    return combatants_request(NAME, flags, "dex_mod")


def kind_options(kind: str) -> list[click.Option]:
    """The flags of `fracas KIND --ruleset …` for the shared kinds it has (initiative)."""
    return _initiative_options() if kind == "initiative" else []


def kind_from_flags(kind: str, flags: dict[str, Any]) -> dict[str, Any]:
    assert kind == "initiative", kind  # the command offers only the kinds kind_options gives flags for
    return _initiative_from_flags(flags)
