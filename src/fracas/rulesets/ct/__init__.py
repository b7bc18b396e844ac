"""Cartyrion (CT-1 … CT-7): no attack roll, exploding damage dice, stamina and injuries.

The rules in the project's words: docs/rules/cartyrion.md. A strike compiles into
one row of the shared strike-row kernel (`fracas.rulesets.rows`); its explosions stop
at `CT_EXPLODE_LIMIT` (a maximum face past it adds no die, and the strike result says
`explosions_cut`), as ER's crit chains stop at `CHAIN_LIMIT`.
"""

from __future__ import annotations

from typing import Any, Optional

from ... import _facts as F
from ... import _layout as L
from ...errors import RulesError, SchemaError
from ...requests import check_range, decode, say
from .. import rows
from .results import RESULT_TYPES
from .sides import side_initiative as side_initiative  # CT-1 (re-exported)
from .schema import NAME, AttackRequest, Attacker, BulkRequest, InitiativeRequest, Profile, Strike, Target

TITLE = "Cartyrion"
DICE = tuple(F.CT_DICE)
_B = F.BONUS_RANGE  # a bonus or modifier, as for Enchanted Realms (facts.toml bonus_range)


#: Types the requests hold as `Any` (checked by the engine), and what the schema says beyond types.
SCHEMA_TYPES = [Target, Profile]
_DIE_HINT = {"enum": [f"d{n}" for n in DICE], "description": "the weapon's damage die (CT-3)"}
SCHEMA_HINTS = {"Strike.die": _DIE_HINT, "ProfileStrike.die": _DIE_HINT,
                "Attacker.level": {"type": "integer", "minimum": 1, "maximum": 40, "default": 1}}

def dice_for_level(level: int) -> int:
    """CT-3: 1 die at level 1, 2 at level 3, one more at every odd level."""
    return (level + 1) // 2


def check_attacker(attacker: Attacker, path: str) -> Attacker:
    check_range(attacker.level, 1, 40, f"{path}.level", "level")
    check_range(attacker.bonus, *_B, f"{path}.bonus", "bonus")
    check_range(attacker.magic, 0, 10, f"{path}.magic", "magic")
    if attacker.awa is not None:
        check_range(attacker.awa, *_B, f"{path}.awa", "awa")
    return attacker


def check_target(target: Target, path: str) -> Target:
    check_range(target.dex, *_B, f"{path}.dex", "dex")
    check_range(target.armor, 0, 100, f"{path}.armor", "armor")
    check_range(target.weapon_magic, 0, 10, f"{path}.weapon_magic", "weapon_magic")
    if target.shield is not None:
        check_range(target.shield, 0, 10_000, f"{path}.shield", "shield")
    return target


def parse_die(text: str, path: str) -> int:
    return rows.parse_die(text, path, DICE, TITLE, "CT-3", "ct_die")


def damage_bonus(attacker: Attacker, method: str) -> int:
    """CT-2: the attacker's bonus a strike of this kind adds to its damage. Melee: `bonus`
    (STR, or DEX for a finesse weapon: "Damage = die roll + your STR (or DEX) bonus");
    ranged: the AWA bonus ("Damage = die roll + your AWA bonus"), the attacker's `awa`
    when given, else `bonus` (a request that gives one bonus for an attacker who only
    shoots, as before `awa` counted here)."""
    if method == "ranged" and attacker.awa is not None:
        return attacker.awa
    return attacker.bonus


def compile_strike(strike: Strike, path: str, attacker: Attacker, apath: str, target: Target, tpath: str) -> Any:
    faces = parse_die(strike.die, f"{path}.die")
    if strike.dice is not None:
        check_range(strike.dice, 1, rows.MAX_DICE, f"{path}.dice", "dice")
    dice = strike.dice if strike.dice is not None else dice_for_level(attacker.level)
    if strike.power:
        dice *= 2  # CT-5: all original dice, each with the magic bonus
    bonus = damage_bonus(attacker, strike.method)
    cols = rows.row(HIT=L.X_HIT_NONE, DICE=dice, FACES=faces, EXPLODE=1, PER_DIE=attacker.magic, FLAT=bonus)
    sneak = strike.sneak
    if sneak is not None and strike.power:
        raise RulesError(f"{path}.sneak", say("ct_sneak_power"))
    dex, armor = target.dex, target.armor
    if sneak is None:
        cols[L.X_REDUCE] = dex + armor
    elif sneak == "passed":
        cols[L.X_REDUCE] = 0
        dex = armor = 0
    elif sneak == "failed":
        cols[L.X_REDUCE] = armor
        dex = 0
    else:
        if attacker.awa is None:
            raise RulesError(f"{path}.sneak", say("ct_sneak_roll"))
        cols[L.X_CHECK], cols[L.X_CHECK_BONUS], cols[L.X_CHECK_DC] = 1, attacker.awa, 10 + armor
        cols[L.X_REDUCE], cols[L.X_REDUCE_PASS] = armor, 0
        dex = 0
    injury = strike.method == "ranged" or sneak is not None
    cols[L.X_POOL] = 1 if injury else 0
    if strike.method == "ranged":
        cols[L.X_COST] = 4
        cols[L.X_COST_HALF] = 1 if strike.specialized else 0
    if strike.parry == "weapon":
        cols[L.X_PARRY] = L.X_PARRY_WEAPON
    elif strike.parry == "shield":
        if target.shield is None:
            raise RulesError(f"{path}.parry", say("ct_shield"))
        cols[L.X_PARRY] = L.X_PARRY_SHIELD
    facts = {"method": strike.method, "die": f"d{faces}", "dice": dice, "power": strike.power,
             "bonus": bonus, "magic_bonus": attacker.magic * dice, "dex": dex, "armor": armor,
             "target_armor": target.armor, "sneak": sneak, "parry": strike.parry,
             "pool": "injury" if injury else "stamina", "dc": 10 + target.armor, "awa": attacker.awa}
    return cols, rows.Meta("", path, facts, faces)


def explosions_cut(meta: rows.Meta, out: rows.Out, faces: list[int]) -> bool:
    """Whether a maximum face added no die because the strike had exploded
    CT_EXPLODE_LIMIT times (every other maximum face explodes: CT-3)."""
    exploded = out.exploded
    return exploded >= F.CT_EXPLODE_LIMIT and faces.count(meta.faces) > exploded


def strike_result(meta: rows.Meta, out: rows.Out, faces: list[int]) -> dict[str, Any]:
    f = meta.facts
    dex, armor = f["dex"], f["armor"]
    check = None
    if out.check:
        passed = out.check == 1
        check = {"roll": out.check_roll, "bonus": f["awa"], "total": out.check_roll + f["awa"], "dc": f["dc"],
                 "passed": passed}
        armor = 0 if passed else f["target_armor"]
    parry = None
    if f["parry"]:
        parry = {"kind": f["parry"], "absorbed": out.absorbed, "left": out.parry_left,
                 "broken": out.parry_left == 0}
    cost = None
    if out.cost_roll:
        cost = {"roll": out.cost_roll, "cost": out.cost}
    return {
        "target": meta.target, "method": f["method"], "die": f["die"], "dice": f["dice"], "power": f["power"],
        "faces": faces, "exploded": out.exploded, "explosions_cut": explosions_cut(meta, out, faces),
        "dice_total": out.dice_sum, "bonus": f["bonus"],
        "magic_bonus": f["magic_bonus"], "raw": out.raw, "dex": dex, "armor": armor,
        "sneak": f["sneak"], "sneak_check": check, "parry": parry, "pool": f["pool"],
        "damage": out.damage, "stamina_cost": cost,
    }


def target_result(entry: dict[str, Any], target: Target, strikes: list[Any]) -> None:
    entry["stamina"] = sum(out.damage for meta, out in strikes if meta.facts["pool"] == "stamina")
    entry["injury"] = sum(out.damage for meta, out in strikes if meta.facts["pool"] == "injury")


def attack_result(result: dict[str, Any], strikes: list[Any]) -> None:
    result["attacker"] = {"stamina_cost": sum(out.cost for _m, out in strikes)}


def parry_state(target: Target) -> tuple[int, int]:
    """(explosions the parrying weapon takes before it shatters, shield points) (CT-6)."""
    return target.weapon_magic + 1, target.shield or 0


#: The functions the Roll20 resolver runs too: `python -m fracas.spec` translates them into
#: vtt_scripts/roll20/src/strikes.js (fracas.spec.pyjs), so this is their only source.
CLIENT_STRIKE = (dice_for_level, check_attacker, check_target, parse_die, damage_bonus, compile_strike)

RULES = rows.Rules(NAME, "CT-2", compile_strike, check_attacker, check_target, Target, Profile,
                   strike_result, target_result, parry_state=parry_state,
                   bulk_fields=("stamina", "injury", "exploded", "longest_explosion", "absorbed", "stamina_cost"),
                   attack_result=attack_result)


# -- CT-1 side initiative -------------------------------------------------------------------

def compile_initiative(request: Any) -> InitiativeRequest:
    req: InitiativeRequest = decode(request, InitiativeRequest)
    check_range(req.round, 1, 1_000_000, "$.round", "round")
    if req.round > 1 and req.ambush != "none":
        raise RulesError("$.ambush", say("ct_ambush_round", round=req.round))
    return req


def roll_initiative(req: InitiativeRequest, dice: Any, seed: int) -> rows.Rolled:
    roll = rows.roll_or_say(dice, 6, "initiative")
    first, surprised = side_initiative(roll, req.round, req.ambush)
    return rows.Rolled(seed, NAME, {"ruleset": NAME, "seed": seed, "injected": dice.injected, "round": req.round,
                                    "ambush": req.ambush, "roll": roll, "first": first, "surprised": surprised})


def _line(strike: dict[str, Any]) -> list[str]:
    """One strike in words: the exploding dice (CT-3), the bonuses (CT-2), what DEX and
    armor stop, the sneak check (CT-7), the parry (CT-6), where the damage goes and what a
    ranged strike costs (CT-4)."""
    from ..render_rows import row, signed

    head = f"{strike['method']} · {strike['dice']}{strike['die']}, a {strike['die'][1:]} explodes"
    if strike["power"]:
        head += " · power attack: doubled dice, the weapon breaks (CT-5)"
    if strike["sneak"]:
        head += " · sneak attack (CT-7)"
    rows = [head]
    dice = " · ".join(map(str, strike["faces"])) or "none"
    if strike["exploded"]:
        dice += (f" ({strike['exploded']} exploded"
                 + (", then cut at the bound of 10,000" if strike["explosions_cut"] else "") + ")")
    rows.append(row("dice", f"{dice} = {strike['dice_total']}"))
    raw = f"{strike['dice_total']} {signed(strike['bonus'])} bonus"
    if strike["magic_bonus"]:
        raw += f" {signed(strike['magic_bonus'])} magic (per original die)"
    rows.append(row("total", f"{raw} = {strike['raw']}"))
    if strike["sneak_check"]:
        c = strike["sneak_check"]
        rows.append(row("sneak", f"d20 {c['roll']} {signed(c['bonus'])} = {c['total']} vs DC {c['dc']}: "
                                 + ("passed, armor ignored (CT-7)" if c["passed"] else "failed, armor counts (CT-7)")))
    stopped = strike["dex"] + strike["armor"]
    through = max(0, strike["raw"] - stopped)
    floor = " (never below 0)" if strike["raw"] < stopped else ""
    if strike["sneak"]:
        passed = strike["sneak"] == "passed" or bool(strike["sneak_check"] and strike["sneak_check"]["passed"])
        armor = "armor ignored" if passed else f"− armor {strike['armor']}"
        rows.append(row("stopped", f"no DEX on a sneak attack, {armor} = {through}{floor} (CT-7)"))
    else:
        rows.append(row("stopped", f"− DEX {strike['dex']} − armor {strike['armor']} = {through}{floor}"))
    if strike["parry"]:
        p = strike["parry"]
        rows.append(row("parry", f"the {p['kind']} absorbs {p['absorbed']}"
                                 + (" and breaks" if p["broken"] else f", {p['left']} left") + " (CT-6)"))
    rows.append(row("damage", f"{strike['damage']} to {strike['pool']}"
                              + (" (direct damage, CT-4)" if strike["pool"] == "injury" else "")))
    if strike["stamina_cost"]:
        cost = strike["stamina_cost"]
        rows.append(row("cost", f"d4 {cost['roll']}: the attacker spends {cost['cost']} stamina (CT-4)"))
    return rows


def _target(target: dict[str, Any]) -> str:
    return f"{target['stamina']} to stamina, {target['injury']} to injury"


def _attacker(attacker: dict[str, Any]) -> Optional[str]:
    cost = attacker["stamina_cost"]
    return f"spent {cost} stamina on ranged strikes (CT-4)" if cost else None


class Cartyrion(rows.RowRuleset):
    name = NAME
    title = TITLE
    largest_die = 20
    request_types = {"attack": AttackRequest, "bulk": BulkRequest, "initiative": InitiativeRequest}
    result_types = RESULT_TYPES
    rules = RULES
    cli_module = __name__ + ".cli"
    strike_line = staticmethod(_line)
    target_line = staticmethod(_target)
    attacker_line = staticmethod(_attacker)

    compile_initiative = staticmethod(compile_initiative)
    roll_initiative = staticmethod(roll_initiative)
    def fight_procedure(self) -> type[Any]:
        """CT-4 pools, CT-5 power attacks, CT-6 parries, CT-7 sneak attacks remembered (`fight.CtRound`)."""
        from .fight import CtRound

        return CtRound

    def fight_setup(self, options: dict[str, Any], sides: list[str], path: str) -> dict[str, Any]:
        """CT-1 needs two sides and which is the party; `ambush` as in an initiative request."""
        if len(sides) != 2:
            raise RulesError("$.sides", f"Cartyrion side initiative is between two sides, the party and its"
                                        f" opponents (CT-1); this scenario has {len(sides)}")
        unknown = sorted(set(options) - {"party", "ambush"})
        if unknown:
            raise SchemaError(f"{path}.{unknown[0]}", "unknown field (Cartyrion initiative takes party and ambush)")
        party = options.get("party", sides[0])
        if party not in sides:
            raise SchemaError(f"{path}.party", say("unknown_name", what="side", value=repr(party),
                                                   allowed=", ".join(sides)))
        ambush = options.get("ambush", "none")
        if ambush not in F.CT_AMBUSH:
            raise SchemaError(f"{path}.ambush", say("unknown_name", what="ambush", value=repr(ambush),
                                                    allowed=", ".join(F.CT_AMBUSH)))
        return {"party": party, "opponents": sides[1 - sides.index(party)], "ambush": ambush}

    def fight_initiative(self, setup: dict[str, Any], actors: list[Any], sides: list[str], round_: int,
                         dice: Any, seed: int) -> tuple[list[list[str]], dict[str, Any]]:
        """CT-1: one d6 a round for the sides; the first round may surprise a side."""
        req = compile_initiative({"round": round_, "ambush": setup["ambush"] if round_ == 1 else "none"})
        result = roll_initiative(req, dice, seed).data  # made for this call: no copy needed
        first = setup[result["first"]]
        surprised = setup[result["surprised"]] if result["surprised"] else None
        slots = [[a.id for a in actors if a.side == side] for side in (first, setup["opponents"] if first == setup["party"] else setup["party"])
                 if side != surprised]
        return slots, result


CARTYRION = Cartyrion()
