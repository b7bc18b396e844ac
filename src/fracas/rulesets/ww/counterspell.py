"""WW-8 counterspells: a contested skill check in the school of the spell being cast.

A character holding a complex action in reserve may spend it to counter a spell another
is casting, from within 60 ft of the caster. Both roll d20 + their rating in the skill of
the spell's school (Sorcery against a sorcery spell, Illusion against an illusion) + the
modifier each side's check adds; the counterspeller must win the contest for the spell to
fizzle. Only a character trained in a school can counter its spells.

Decisions (docs/rules/worldwalker.md): the counterspeller must *beat* the caster's total,
so a tie leaves the spell cast, and nothing is rolled again; a natural 20 or 1 is a plain
20 or 1 (WW-2's substitution is for attack rolls); a school the counterspeller lists with
a rating of 1 or more is one it is trained in. Draw order: the counterspeller's d20, then
the caster's. The result carries the exact chance the counterspell had, so a GM asking
"could that have worked?" has the answer with the roll.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ... import _facts as F
from ...errors import LimitError, RulesError, SchemaError
from ...requests import check_range, decode, say
from .. import rows
from .schema import NAME, CounterspellRequest

_B = F.BONUS_RANGE
#: How far apart two characters may be written, in feet: a distance past it is no table's.
MAX_DISTANCE = 1_000_000
#: Longest name of a school of magic.
MAX_SCHOOL_NAME = 40


def _school_name(name: str, path: str) -> None:
    if not 1 <= len(name) <= MAX_SCHOOL_NAME:
        raise SchemaError(path, say("ww_counter_name", length=len(name)))


def compile_counterspell(request: Any) -> CounterspellRequest:
    """Check a WW-8 request: the school, both sides' numbers, the distance, the training."""
    req: CounterspellRequest = decode(request, CounterspellRequest)
    caster, counter = req.caster, req.counterspeller
    _school_name(req.school, "$.school")
    for path, who in (("$.caster", caster), ("$.counterspeller", counter)):
        if not who.id:
            raise SchemaError(f"{path}.id", say("ww_counter_empty_id"))
        check_range(who.modifier, *_B, f"{path}.modifier", "modifier")
    if caster.id == counter.id:
        raise SchemaError("$.counterspeller.id", say("ww_counter_same", id=repr(caster.id)))
    check_range(caster.skill, *_B, "$.caster.skill", "skill")
    if len(counter.schools) > F.WW_MAX_SCHOOLS:
        raise LimitError("$.counterspeller.schools", say("too_many", count=len(counter.schools), what="schools",
                                                         most=F.WW_MAX_SCHOOLS))
    for name, rating in sorted(counter.schools.items()):  # sorted: the same first error in JavaScript
        path = f"$.counterspeller.schools.{name}"
        _school_name(name, path)
        if rating < 1:
            raise RulesError(path, say("ww_counter_no_rank", rating=rating, school=repr(name)))
        check_range(rating, 1, _B[1], path, "skill")
    if counter.distance is None:
        raise SchemaError("$.counterspeller.distance", say("ww_counter_distance", most=F.WW_COUNTER_RANGE))
    check_range(counter.distance, 0, MAX_DISTANCE, "$.counterspeller.distance", "distance")
    if counter.distance > F.WW_COUNTER_RANGE:
        raise RulesError("$.counterspeller.distance", say("ww_counter_far", distance=counter.distance,
                                                          most=F.WW_COUNTER_RANGE))
    if req.school not in counter.schools:
        schools = ", ".join(sorted(counter.schools)) or "none"
        raise RulesError("$.counterspeller.schools", say("ww_counter_untrained", id=repr(counter.id),
                                                         school=repr(req.school), schools=schools))
    return req


def bonuses(req: CounterspellRequest) -> tuple[int, int]:
    """What each side adds to its d20: (counterspeller, caster)."""
    assert req.counterspeller.distance is not None  # compile_counterspell asks for it
    return (req.counterspeller.schools[req.school] + req.counterspeller.modifier,
            req.caster.skill + req.caster.modifier)


def chance(counter_bonus: int, caster_bonus: int) -> Fraction:
    """The exact chance d20 + `counter_bonus` beats d20 + `caster_bonus` (a tie does not)."""
    wins = sum(1 for a in range(1, 21) for b in range(1, 21) if a + counter_bonus > b + caster_bonus)
    return Fraction(wins, 400)


def roll_counterspell(req: CounterspellRequest, dice: Any, seed: int) -> rows.Rolled:
    """Roll a checked counterspell: the counterspeller's d20, then the caster's (WW-8)."""
    counter_bonus, caster_bonus = bonuses(req)
    counter_roll = rows.roll_or_say(dice, 20, "the counterspell")
    caster_roll = rows.roll_or_say(dice, 20, "the counterspell")
    counter_total, caster_total = counter_roll + counter_bonus, caster_roll + caster_bonus
    countered = counter_total > caster_total
    cs, caster = req.counterspeller, req.caster
    p = chance(counter_bonus, caster_bonus)
    outcome = (f"{cs.id} counters {caster.id}'s {req.school} spell: it fizzles" if countered
               else f"{caster.id}'s {req.school} spell is cast: {cs.id} fails to counter it")
    data = {
        "ruleset": NAME, "seed": seed, "injected": dice.injected, "school": req.school,
        "counterspeller": {"id": cs.id, "skill": cs.schools[req.school], "modifier": cs.modifier,
                           "distance": cs.distance, "roll": counter_roll, "total": counter_total},
        "caster": {"id": caster.id, "skill": caster.skill, "modifier": caster.modifier, "roll": caster_roll,
                   "total": caster_total},
        "countered": countered, "p_countered": float(p), "p_countered_exact": f"{p.numerator}/{p.denominator}",
        "outcome": outcome,
    }
    return rows.Rolled(seed, NAME, data)


def render(result: dict[str, Any], bold: Any) -> str:
    """A counterspell in words: both checks, who won, the chance it had (WW-8)."""
    from ..render_rows import signed

    cs, caster = result["counterspeller"], result["caster"]
    lines = [bold(f"Worldwalker counterspell ({result['school']})") + f" (seed {result['seed']})"]
    for side, label in ((cs, "counters"), (caster, "casts")):
        lines.append(f"  {side['id']} {label}: d20 {side['roll']} {signed(side['skill'])} skill "
                     f"{signed(side['modifier'])} = {side['total']}")
    lines.append("  " + (bold(result["outcome"]) if result["countered"] else result["outcome"])
                 + f" (a tie is the caster's; chance to counter {result['p_countered']:.1%}, WW-8)")
    return "\n".join(lines)
