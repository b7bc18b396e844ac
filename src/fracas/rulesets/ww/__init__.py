"""Worldwalker d20 (WW-1 … WW-7): d20 + bonus against a target number, block and dodge.

The rules in the project's words: docs/rules/worldwalker.md. A strike compiles into
one row of the shared strike-row kernel (`fracas.rulesets.rows`).
"""

from __future__ import annotations

from typing import Any, Optional

from ... import _facts as F
from ... import _layout as L
from ...dice import KernelError
from ...errors import LimitError, RulesError, SchemaError
from ...requests import check_range, choice, decode, say
from .. import rows
from ..base import Kind
from . import counterspell
from .results import RESULT_TYPES
from .schema import (NAME, AttackRequest, Attacker, BulkRequest, CounterspellRequest, InitiativeRequest, Profile,
                     Strike, Target, TwoWeapon)

TITLE = "Worldwalker"
TALENTS = tuple(F.WW_TWO_WEAPON)
DICE = tuple(F.STANDARD_DICE)
_B = F.BONUS_RANGE  # a bonus or modifier, as for Enchanted Realms (facts.toml bonus_range)


#: Types the requests hold as `Any` (checked by the engine), and what the schema says beyond types.
SCHEMA_TYPES = [Target, Profile]
_DAMAGE = {"type": "string", "pattern": "^\\s*\\d*\\s*[dD]\\s*\\d+\\s*([+-]\\s*\\d+)?\\s*$",
           "description": "weapon damage, NdF or NdF+M (WW-3)"}
_CRITICAL = {"type": "integer", "minimum": 0, "maximum": 5, "default": 0,
             "description": "critical attack penalty, 1-5 (WW-4)"}
SCHEMA_HINTS = {"Strike.damage": _DAMAGE, "ProfileStrike.damage": _DAMAGE,
                "Strike.critical": _CRITICAL, "ProfileStrike.critical": _CRITICAL,
                "TwoWeapon.talent": {"enum": list(TALENTS), "default": "none"}}

def check_attacker(attacker: Attacker, path: str) -> Attacker:
    for name in ("skill", "str_mod", "dex_mod"):
        check_range(getattr(attacker, name), *_B, f"{path}.{name}", name)
    if attacker.two_weapon is not None:
        choice(attacker.two_weapon.talent, TALENTS, f"{path}.two_weapon.talent", "talent")
    return attacker


def check_target(target: Target, path: str) -> Target:
    if target.defense is None and target.dex_mod is None:
        raise SchemaError(f"{path}.defense", say("ww_defense"))
    for name in ("defense", "dex_mod", "armor"):
        if getattr(target, name) is not None:
            check_range(getattr(target, name), *_B, f"{path}.{name}", name)
    if target.two_weapon is not None:
        choice(target.two_weapon.talent, TALENTS, f"{path}.two_weapon.talent", "talent")
    reaction = target.reaction
    if reaction is not None:
        check_range(reaction.bonus, *_B, f"{path}.reaction.bonus", "bonus")
        if reaction.hand is not None and reaction.kind != "block":
            raise RulesError(f"{path}.reaction.hand", say("ww_dodge_hand"))
        if reaction.hand == "off" and target.two_weapon is None:
            raise RulesError(f"{path}.reaction.hand", say("ww_off_hand_block"))
    return target


def tn(target: Target) -> int:
    """Passive Defense TN: given, or 10 + Dexterity modifier (WW-2)."""
    if target.defense is not None:
        return target.defense
    assert target.dex_mod is not None  # check_target asks for one of the two
    return 10 + target.dex_mod


def hand_penalty(two_weapon: Optional[TwoWeapon], hand: Optional[str]) -> int:
    """WW-6: the table's penalty for a hand (None: the primary one) of a fighter with two
    weapons, 0 when not fighting with two weapons."""
    if two_weapon is None:
        return 0
    table = F.WW_TWO_WEAPON[two_weapon.talent][1 if two_weapon.light else 0]
    return table[1 if hand == "off" else 0]


def two_weapon_penalty(attacker: Attacker, strike: Strike, path: str) -> int:
    """WW-6: the table's penalty for this hand, 0 when not fighting with two weapons."""
    if attacker.two_weapon is None and strike.hand == "off":
        raise RulesError(f"{path}.hand", say("ww_off_hand"))
    return hand_penalty(attacker.two_weapon, strike.hand)


def block_penalty(target: Target) -> int:
    """WW-6 on the target's block: "a -6 penalty with your regular attack and block rolls
    with your primary hand and a -10 penalty to the attack and block rolls with your off
    hand" (less with a light off-hand weapon or a talent, as for attacks). A dodge is no
    block and takes none."""
    reaction = target.reaction
    if reaction is None or reaction.kind != "block":
        return 0
    return hand_penalty(target.two_weapon, reaction.hand)


def compile_strike(strike: Strike, path: str, attacker: Attacker, apath: str, target: Target, tpath: str) -> Any:
    dice, faces, modifier = rows.parse_damage(strike.damage, f"{path}.damage", DICE, TITLE, "WW-3")
    if not 0 <= strike.critical <= F.WW_MAX_CRITICAL:
        raise RulesError(f"{path}.critical", say("ww_critical", value=strike.critical))
    check_range(strike.crit_multiplier, 1, 10, f"{path}.crit_multiplier", "crit_multiplier")
    check_range(strike.modifier, *_B, f"{path}.modifier", "modifier")
    penalty = two_weapon_penalty(attacker, strike, path)
    ability = attacker.str_mod if strike.method == "melee" else attacker.dex_mod
    bonus = attacker.skill + ability + strike.modifier - strike.critical + penalty
    crit_bonus = strike.critical * strike.crit_multiplier
    cols = rows.row(HIT=L.X_HIT_WW, BONUS=bonus, TN=tn(target), DICE=dice, FACES=faces,
                    FLAT=attacker.str_mod + modifier + crit_bonus, REDUCE=target.armor)
    reaction = target.reaction
    if reaction is not None:
        cols[L.X_REACT] = 1
        cols[L.X_REACT_BONUS] = (reaction.bonus + (F.WW_RANGED_ENGAGED if strike.engaged else 0)
                                 + block_penalty(target))
    if strike.feint is not None:
        check_range(strike.feint.bonus, *_B, f"{path}.feint.bonus", "bonus")
        check_range(strike.feint.defense, *_B, f"{path}.feint.defense", "defense")
        cols[L.X_FEINT] = 1
        cols[L.X_FEINT_BONUS] = strike.feint.bonus
        cols[L.X_FEINT_DEFENSE] = strike.feint.defense
    facts = {"method": strike.method, "attack_bonus": bonus, "tn": tn(target), "critical": strike.critical,
             "crit_bonus": crit_bonus, "damage_bonus": attacker.str_mod + modifier + crit_bonus,
             "armor": target.armor, "reaction": None if reaction is None else reaction.kind,
             "reaction_bonus": cols[L.X_REACT_BONUS] if reaction is not None else None,
             "hand": strike.hand, "two_weapon_penalty": penalty, "feint": strike.feint is not None}
    return cols, rows.Meta("", path, facts, faces)


def strike_result(meta: rows.Meta, out: rows.Out, faces: list[int]) -> dict[str, Any]:
    f = meta.facts
    roll = out.roll
    feint = None
    if f["feint"]:
        feint = {"roll": out.feint_roll, "defense_roll": out.feint_def_roll, "succeeded": out.feint == 1}
    reaction = None
    if out.react_roll:
        reaction = {"kind": f["reaction"], "roll": out.react_roll, "bonus": f["reaction_bonus"],
                    "total": out.react, "negated": bool(out.negated)}
    return {
        "target": meta.target, "method": f["method"], "attack_roll": roll,
        "natural": roll if roll in (1, 20) else None, "attack_bonus": f["attack_bonus"],
        "attack_total": out.attack, "tn": f["tn"], "hit": bool(out.hit), "critical": f["critical"],
        "feint": feint, "reaction": reaction, "negated": bool(out.negated),
        "damage_dice": faces, "damage_bonus": f["damage_bonus"], "armor": f["armor"], "damage": out.damage,
    }


def target_result(entry: dict[str, Any], target: Target, strikes: list[Any]) -> None:
    entry["tn"] = tn(target)
    entry["hits"] = sum(1 for _m, out in strikes if out.hit and not out.negated)
    entry["negated"] = sum(1 for _m, out in strikes if out.negated)


#: The functions the Roll20 resolver runs too: `python -m fracas.spec` translates them into
#: vtt_scripts/roll20/src/strikes.js (fracas.spec.pyjs), so this is their only source.
CLIENT_STRIKE = (check_attacker, check_target, tn, hand_penalty, two_weapon_penalty, block_penalty, compile_strike)

RULES = rows.Rules(NAME, "WW-2", compile_strike, check_attacker, check_target, Target, Profile,
                   strike_result, target_result, bulk_fields=("negated",))


# -- WW-1 initiative --------------------------------------------------------------------------

MAX_COMBATANTS = 10_000


def compile_initiative(request: Any) -> InitiativeRequest:
    req: InitiativeRequest = decode(request, InitiativeRequest)
    if not req.combatants:
        raise SchemaError("$.combatants", say("no_combatants"))
    if len(req.combatants) > MAX_COMBATANTS:
        raise LimitError("$.combatants", say("too_many", count=len(req.combatants), what="combatants",
                                                  most=MAX_COMBATANTS))
    seen = set()
    for i, c in enumerate(req.combatants):
        if c.id in seen:
            raise SchemaError(f"$.combatants[{i}].id", say("duplicate_combatant", id=repr(c.id)))
        seen.add(c.id)
        check_range(c.dex_mod, *_B, f"$.combatants[{i}].dex_mod", "dex_mod")
        check_range(c.bonus, *_B, f"$.combatants[{i}].bonus", "bonus")
    return req


def roll_initiative(req: InitiativeRequest, dice: Any, seed: int) -> rows.Rolled:
    """WW-1. Draw order: one d20 per combatant in request order; equal totals go to the
    higher Dexterity modifier, and what is still tied rolls d20 roll-offs (as ER-18)."""
    mods = [c.dex_mod + c.bonus for c in req.combatants]
    try:
        ranked, rolls, marks = rows.roll_order(mods, [c.dex_mod for c in req.combatants], dice, 20, "$.combatants")
    except KernelError as exc:  # the dice come one per combatant, then the roll-offs
        raise rows.dice_error(dice, exc, 20, "initiative" if exc.position < len(mods)
                              else "an initiative roll-off") from None
    entries = [{"id": c.id, "roll": roll, "modifier": mod, "total": roll + mod, "dex_mod": c.dex_mod,
                "tiebreaks": tiebreaks} for c, mod, roll, tiebreaks in zip(req.combatants, mods, rolls, marks)]
    order = [entries[k] for k in ranked]
    return rows.Rolled(seed, NAME, {"ruleset": NAME, "seed": seed, "injected": dice.injected, "order": order})


def _line(strike: dict[str, Any]) -> list[str]:
    """One strike in words: the feint (WW-7), the attack roll against the TN (WW-2), the
    block or dodge (WW-5), the damage less armor (WW-3)."""
    from ..render_rows import faces, row, signed

    head = f"{strike['method']} · d20 {signed(strike['attack_bonus'])} vs TN {strike['tn']}"
    if strike["critical"]:
        head += f" · critical attack: −{strike['critical']} to hit, more damage on a hit (WW-4)"
    rows = [head]
    if strike.get("feint"):
        f = strike["feint"]
        rows.append(row("feint", f"d20 {f['roll']} vs the defender's d20 {f['defense_roll']}: "
                                 + ("succeeds, no block or dodge (WW-7)" if f["succeeded"] else "fails (WW-7)")))
    natural = {20: " (natural 20, counts as 30)", 1: " (natural 1, counts as −10)"}.get(strike["natural"] or 0, "")
    rows.append(row("attack", f"d20 {strike['attack_roll']}{natural} {signed(strike['attack_bonus'])} = "
                              f"{strike['attack_total']} vs TN {strike['tn']}: {'hit' if strike['hit'] else 'miss'}"))
    if strike["reaction"]:
        r = strike["reaction"]
        rows.append(row(r["kind"], f"d20 {r['roll']} {signed(r['bonus'])} = {r['total']} vs the attack's "
                                   f"{strike['attack_total']}: "
                                   + ("reaches it, the hit is negated (WW-5)" if r["negated"] else "falls short (WW-5)")))
    if not strike["hit"]:
        rows.append(row("damage", "0: a miss"))
    elif strike["negated"]:
        rows.append(row("damage", f"0: the {strike['reaction']['kind'] if strike['reaction'] else 'reaction'} "
                                  "negated the hit"))
    else:
        dice = strike["damage_dice"]
        total = sum(dice) + strike["damage_bonus"] - strike["armor"]
        rows.append(row("damage", f"dice {faces(dice)} {signed(strike['damage_bonus'])} − armor {strike['armor']} = "
                                  f"{strike['damage']}" + (" (never below 0)" if total < 0 else "")))
    return rows


def _target(target: dict[str, Any]) -> str:
    hits, negated = target["hits"], target["negated"]
    return (f"TN {target['tn']}; {hits} hit{'s' if hits != 1 else ''} landed"
            + (f", {negated} negated by its block or dodge" if negated else ""))


#: WW-8: a counterspell, a kind of request only Worldwalker has.
COUNTERSPELL = Kind("counterspell", "counterspell.roll", "counterspell", "the counterspell", "counterspell",
                    "compile_counterspell", "roll_counterspell", result="result.counterspell.roll",
                    command="fracas.rulesets.ww.commands:counterspell")


class Worldwalker(rows.RowRuleset):
    name = NAME
    title = TITLE  # the manifest's title: registration checks they agree
    largest_die = max(DICE)
    own_kinds = (COUNTERSPELL,)
    request_types = {"attack": AttackRequest, "bulk": BulkRequest, "initiative": InitiativeRequest,
                     "counterspell": CounterspellRequest}
    result_types = RESULT_TYPES
    rules = RULES
    cli_module = __name__ + ".cli"
    strike_line = staticmethod(_line)
    target_line = staticmethod(_target)

    compile_initiative = staticmethod(compile_initiative)
    roll_initiative = staticmethod(roll_initiative)
    compile_counterspell = staticmethod(counterspell.compile_counterspell)
    roll_counterspell = staticmethod(counterspell.roll_counterspell)

    def render(self, result: dict[str, Any], style: Any = None) -> str:
        """A counterspell (WW-8) in its own words; the other kinds as the row rulesets say them."""
        if "counterspeller" not in result:
            return super().render(result, style)
        return counterspell.render(result, (lambda text: style(text, bold=True)) if style else (lambda text: text))

    def fight_procedure(self) -> type[Any]:
        """WW-1 initiative once, WW-5 reserved actions (`fight.WwRound`)."""
        from .fight import WwRound

        return WwRound

    def fight_initiative(self, setup: Any, actors: list[Any], sides: list[str], round_: int, dice: Any,
                         seed: int) -> tuple[list[list[str]], dict[str, Any]]:
        """WW-1: once for the fight, d20 + Dexterity modifier + the initiative bonus."""
        from ...errors import RequestError
        from ..base import moved_combatant

        request = {"combatants": [{"id": a.id, "dex_mod": a.attacker.get("dex_mod", 0), "bonus": a.initiative}
                                  for a in actors]}
        try:
            req = compile_initiative(request)
        except RequestError as exc:
            raise moved_combatant(exc, actors, {"dex_mod": "attacker.dex_mod", "bonus": "initiative"}) from None
        result = roll_initiative(req, dice, seed).data  # made for this call: no copy needed
        return [[e["id"]] for e in result["order"]], result


WORLDWALKER = Worldwalker()
