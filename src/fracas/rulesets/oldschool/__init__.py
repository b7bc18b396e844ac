"""Old-school sides (OS-1 … OS-6): side initiative, attack modifiers, morale, saving throws.

The rules in the project's words: docs/rules/old-school.md. A strike compiles into
one row of the shared strike-row kernel (`fracas.rulesets.rows`).
"""

from __future__ import annotations

from typing import Any, Optional

from ... import _facts as F
from ... import _layout as L
from ...dice import KernelError
from ...errors import LimitError, RulesError, SchemaError
from ...requests import check_range, decode, say
from .. import rolloffs, rows
from ..base import SAVE, Kind
from . import morale, save
from .results import RESULT_TYPES
from .schema import (NAME, AttackRequest, Attacker, BulkRequest, InitiativeRequest, MoraleRequest, Profile,
                     SaveRequest, Strike, Target)

TITLE = "Old-school"
DICE = tuple(F.STANDARD_DICE)
_B = F.BONUS_RANGE  # a bonus or modifier, as for Enchanted Realms (facts.toml bonus_range)


#: Types the requests hold as `Any` (checked by the engine), and what the schema says beyond types.
SCHEMA_TYPES = [Target, Profile]
_DAMAGE = {"type": "string", "pattern": "^\\s*\\d*\\s*[dD]\\s*\\d+\\s*([+-]\\s*\\d+)?\\s*$",
           "description": "weapon damage, NdF or NdF+M (OS-6)"}
SCHEMA_HINTS = {"Strike.damage": _DAMAGE, "ProfileStrike.damage": _DAMAGE,
                "Target.cover": {"oneOf": [{"type": "integer", "minimum": 0, "maximum": 4}, {"const": "full"}],
                                 "default": 0, "description": "missile cover penalty; full: cannot be hit (OS-3)"}}

def check_attacker(attacker: Attacker, path: str) -> Attacker:
    for name in ("attack_bonus", "str_mod", "dex_mod"):
        check_range(getattr(attacker, name), *_B, f"{path}.{name}", name)
    return attacker


def check_target(target: Target, path: str) -> Target:
    check_range(target.ac, -100, 200, f"{path}.ac", "AC")
    check_range(target.shield, 0, 100, f"{path}.shield", "shield")
    if target.cover != "full" and not 0 <= target.cover <= F.OS_MAX_COVER:
        raise RulesError(f"{path}.cover", say("os_cover", value=target.cover))
    return target


def compile_strike(strike: Strike, path: str, attacker: Attacker, apath: str, target: Target, tpath: str) -> Any:
    dice, faces, modifier = rows.parse_damage(strike.damage, f"{path}.damage", DICE, TITLE, "OS-6")
    check_range(strike.modifier, *_B, f"{path}.modifier", "modifier")
    melee = strike.method == "melee"
    range_ = strike.range
    if melee:
        if range_ is not None:
            raise RulesError(f"{path}.range", say("os_range_melee"))
        bonus = attacker.str_mod
        cover = 0
    else:
        range_ = range_ or "medium"
        if range_ == "beyond":
            raise RulesError(f"{path}.range", say("os_range_beyond"))
        if target.cover == "full":
            raise RulesError(f"{tpath}.cover", say("os_full_cover"))
        bonus = attacker.dex_mod + F.OS_RANGE_MOD[range_]
        cover = target.cover
    # OS-3: "Opponents in melee with a retreating combatant gain a +2 Attack bonus against
    # them this Round and ignore any AC bonus from their shield": melee attacks only.
    fled_from = melee and target.fleeing
    bonus += attacker.attack_bonus + strike.modifier + (F.OS_FLEEING_BONUS if fled_from else 0) - cover
    no_shield = strike.rear or fled_from
    ac = target.ac - (target.shield if no_shield else 0)
    flat = modifier + (attacker.str_mod if melee else 0)
    cols = rows.row(HIT=L.X_HIT_OS, BONUS=bonus, TN=ac, DICE=dice, FACES=faces, FLAT=flat, MIN=1)
    facts = {"method": strike.method, "range": range_, "rear": strike.rear, "fleeing": fled_from,
             "cover": cover, "attack_bonus": bonus, "ac": ac, "shield_ignored": no_shield and target.shield > 0,
             "damage_bonus": flat}
    return cols, rows.Meta("", path, facts, faces)


def strike_result(meta: rows.Meta, out: rows.Out, faces: list[int]) -> dict[str, Any]:
    f = meta.facts
    roll = out.roll
    return {
        "target": meta.target, "method": f["method"], "range": f["range"], "rear": f["rear"],
        "attack_roll": roll, "natural": roll if roll in (1, 20) else None, "attack_bonus": f["attack_bonus"],
        "attack_total": out.attack, "ac": f["ac"], "shield_ignored": f["shield_ignored"], "hit": bool(out.hit),
        "damage_dice": faces, "damage_bonus": f["damage_bonus"], "damage": out.damage,
    }


def target_result(entry: dict[str, Any], target: Target, strikes: list[Any]) -> None:
    entry["hits"] = sum(1 for _m, out in strikes if out.hit)


#: The functions the Roll20 resolver runs too: `python -m fracas.spec` translates them into
#: vtt_scripts/roll20/src/strikes.js (fracas.spec.pyjs), so this is their only source.
CLIENT_STRIKE = (check_attacker, check_target, compile_strike)

RULES = rows.Rules(NAME, "OS-6", compile_strike, check_attacker, check_target, Target, Profile,
                   strike_result, target_result)


# -- OS-1 side initiative ---------------------------------------------------------------------

MAX_SIDES = 64


def compile_initiative(request: Any) -> InitiativeRequest:
    req: InitiativeRequest = decode(request, InitiativeRequest)
    if len(req.sides) < 2:
        raise SchemaError("$.sides", say("side_initiative_sides"))
    if len(req.sides) > MAX_SIDES:
        raise LimitError("$.sides", say("too_many", count=len(req.sides), what="sides", most=MAX_SIDES))
    seen = set()
    for i, side in enumerate(req.sides):
        if side.id in seen:
            raise SchemaError(f"$.sides[{i}].id", say("duplicate_combatant", id=repr(side.id)))
        seen.add(side.id)
    return req


def roll_initiative(req: InitiativeRequest, dice: Any, seed: int) -> rows.Rolled:
    """OS-1. Draw order: one d6 per side that does not wait, in request order; with ties
    "reroll", each tied group (highest first) re-rolls a d6 per side in request order
    until it is broken. Waiting sides roll nothing and act last, in request order."""
    n = len(req.sides)
    waits = [int(s.wait) for s in req.sides]
    faces, slot_of, together = [0] * n, [0] * n, [0] * n
    marks: list[list[int]] = [[] for _ in range(n)]
    try:
        slots = rolloffs.side_order(dice, n, waits, req.ties == "simultaneous", faces, [0] * n, [0] * n, slot_of,
                                    together, marks)
    except KernelError as exc:  # a d6 per side that does not wait, then the re-rolls
        raise rows.dice_error(dice, exc, 6, "side initiative" if exc.position < n - sum(waits)
                              else "a side initiative re-roll") from None
    if slots < 0:
        raise LimitError("$.sides", say("tie_limit", limit=rows.MAX_ROLL_OFFS))
    sides: list[dict[str, Any]] = [{"id": s.id, "roll": faces[i] or None, "tiebreaks": marks[i], "wait": s.wait}
                                   for i, s in enumerate(req.sides)]
    order: list[list[str]] = [[] for _ in range(slots)]
    for i, s in enumerate(req.sides):
        order[slot_of[i]].append(s.id)
    return rows.Rolled(seed, NAME, {"ruleset": NAME, "seed": seed, "injected": dice.injected, "ties": req.ties,
                                    "sides": sides, "order": order})


# -- OS-4 morale --------------------------------------------------------------------------------

def compile_morale(request: Any) -> MoraleRequest:
    req: MoraleRequest = decode(request, MoraleRequest)
    check_range(req.morale, 2, 12, "$.morale", "morale")
    check_range(req.modifier, -2, 2, "$.modifier", "modifier")
    check_range(req.successes, 0, 2, "$.successes", "successes")
    return req


def roll_morale(req: MoraleRequest, dice: Any, seed: int) -> rows.Rolled:
    """OS-4: 2d6 > Morale + modifier breaks. Morale 12, or two checks passed, never checks."""
    out: dict[str, Any] = {"ruleset": NAME, "seed": seed, "injected": dice.injected, "morale": req.morale,
                           "modifier": req.modifier, "checked": False, "dice": [], "total": None,
                           "breaks": False, "successes": req.successes,
                           "fights_to_death": morale.fights_to_death(req.morale, req.successes)}
    if out["fights_to_death"]:
        return rows.Rolled(seed, NAME, out)
    faces = [rows.roll_or_say(dice, 6, "the morale check"), rows.roll_or_say(dice, 6, "the morale check")]
    total = sum(faces)
    breaks = morale.breaks(total, req.morale, req.modifier)
    successes = req.successes + (0 if breaks else 1)
    out.update(checked=True, dice=faces, total=total, breaks=breaks, successes=successes,
               fights_to_death=morale.fights_to_death(req.morale, successes))
    return rows.Rolled(seed, NAME, out)


def _line(strike: dict[str, Any]) -> list[str]:
    """One strike in words: d20 + bonus against the AC (OS-6, with OS-3's modifiers), the
    damage dice + bonus."""
    from ..render_rows import faces, row, signed

    head = strike["method"] + (f", {strike['range']} range" if strike["range"] else "")
    if strike["rear"]:
        head += ", from behind"
    head += f" · d20 {signed(strike['attack_bonus'])} vs AC {strike['ac']}"
    rows = [head]
    natural = {20: " (natural 20: always hits)", 1: " (natural 1: always misses)"}.get(strike["natural"] or 0, "")
    rows.append(row("attack", f"d20 {strike['attack_roll']}{natural} {signed(strike['attack_bonus'])} = "
                              f"{strike['attack_total']} vs AC {strike['ac']}: {'hit' if strike['hit'] else 'miss'}"))
    if strike["shield_ignored"]:
        why = "an attack from behind" if strike["rear"] else "a melee attack at a fleeing target"
        rows.append(row("shield", f"its AC bonus does not count: {why} (OS-3)"))
    if not strike["hit"]:
        rows.append(row("damage", "0: a miss"))
    else:
        dice = strike["damage_dice"]
        low = sum(dice) + strike["damage_bonus"] < 1
        rows.append(row("damage", f"dice {faces(dice)} {signed(strike['damage_bonus'])} = {strike['damage']}"
                                  + (" (at least 1 on a hit, OS-6)" if low else "")))
    return rows


def _target(target: dict[str, Any]) -> str:
    return f"{target['hits']} hit{'s' if target['hits'] != 1 else ''}"


#: OS-4: a morale check, a kind of request only the old-school rules have.
MORALE = Kind("morale", "morale.check", "check_morale", "the morale check", "morale", "compile_morale",
              "roll_morale", result="result.morale.check", command="fracas.rulesets.oldschool.commands:morale")


class OldSchool(rows.RowRuleset):
    name = NAME
    title = TITLE  # the manifest's title: registration checks they agree
    largest_die = max(DICE)
    #: OS-4 morale, and saving throws (OS-5: the kind Enchanted Realms' saves share).
    own_kinds = (MORALE, SAVE)
    request_types = {"attack": AttackRequest, "bulk": BulkRequest, "initiative": InitiativeRequest,
                     "morale": MoraleRequest, "save": SaveRequest}
    result_types = RESULT_TYPES
    rules = RULES
    cli_module = __name__ + ".cli"
    strike_line = staticmethod(_line)
    target_line = staticmethod(_target)

    compile_initiative = staticmethod(compile_initiative)
    roll_initiative = staticmethod(roll_initiative)
    compile_morale = staticmethod(compile_morale)
    roll_morale = staticmethod(roll_morale)
    compile_save = staticmethod(save.compile_save)
    roll_save = staticmethod(save.roll_save)

    def render(self, result: dict[str, Any], style: Optional[Any] = None) -> str:
        """Saving throws in their own words; the other kinds as the row rulesets say them."""
        if "p_failures" not in result:
            return super().render(result, style)
        return save.render(result, (lambda text: style(text, bold=True)) if style else (lambda text: text))

    def fight_procedure(self) -> type[Any]:
        """OS-2 phases and one action, OS-3/OS-4 declared flight and morale, OS-5 (`fight.OsRound`)."""
        from .fight import OsRound

        return OsRound

    def fight_setup(self, options: dict[str, Any], sides: list[str], path: str) -> dict[str, Any]:
        """OS-1 options: `ties` (reroll or simultaneous), `wait` (sides that wait), and
        `surprised` (sides that lose the first round)."""
        unknown = sorted(set(options) - {"ties", "wait", "surprised"})
        if unknown:
            raise SchemaError(f"{path}.{unknown[0]}", "unknown field (old-school initiative takes ties, wait"
                                                      " and surprised)")
        ties = options.get("ties", "reroll")
        if ties not in F.OS_TIES:
            raise SchemaError(f"{path}.ties", say("unknown_name", what="ties", value=repr(ties),
                                                  allowed=", ".join(F.OS_TIES)))
        setup: dict[str, Any] = {"ties": ties}
        for key in ("wait", "surprised"):
            names = options.get(key, [])
            if not isinstance(names, list):
                raise SchemaError(f"{path}.{key}", "must be a list of side names")
            for i, name in enumerate(names):
                if name not in sides:
                    raise SchemaError(f"{path}.{key}[{i}]", say("unknown_name", what="side", value=repr(name),
                                                                allowed=", ".join(sides)))
            setup[key] = list(names)
        return setup

    def fight_initiative(self, setup: dict[str, Any], actors: list[Any], sides: list[str], round_: int,
                         dice: Any, seed: int) -> tuple[list[list[str]], dict[str, Any]]:
        """OS-1: each side d6 every round, highest first; surprised sides lose round 1."""
        present = [s for s in sides if any(a.side == s for a in actors)
                   and not (round_ == 1 and s in setup["surprised"])]
        if len(present) < 2:  # one side left to act (the rest surprised): nothing to roll
            return [[a.id for a in actors if a.side == s] for s in present], {
                "ruleset": NAME, "seed": seed, "ties": setup["ties"], "sides": [], "order": [[s] for s in present],
                "surprised": [s for s in setup["surprised"] if round_ == 1]}
        req = compile_initiative({"sides": [{"id": s, "wait": s in setup["wait"]} for s in present],
                                  "ties": setup["ties"]})
        result = roll_initiative(req, dice, seed).data  # made for this call: no copy needed
        result["surprised"] = list(setup["surprised"]) if round_ == 1 else []
        slots = [[a.id for a in actors if a.side in group] for group in result["order"]]
        return slots, result


OLD_SCHOOL = OldSchool()
