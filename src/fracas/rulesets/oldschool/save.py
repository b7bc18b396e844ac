"""Old-school saving throws (OS-5 and the decision on saving throws' numbers).

The text names saving throws (a caster that "fails a Saving Throw before their side's
initiative" loses its spell, OS-5) but not how one is rolled; the decision, the usual
convention of this family of games (docs/rules/old-school.md, "Saving throws"): a
creature rolls a d20 + its own `modifier` + the effect's `modifier` and saves when the
total meets or beats its saving throw target number; a natural 20 always saves and a
natural 1 always fails, as with attack rolls (OS-6). The target number is the creature's
`save`, whatever the category, or the entry of its `saves` table for the request's
`category` (the GM's table: e.g. spells 15, breath 16).

Draw order: one d20 per target, in request order. Both backends run this code (the
compiled core has no save kernel): their streams are the same, so are their answers. The
rule itself (`saving.saves`) is the one the compiled fight loop reads.

The result carries each target's exact chance to save and the exact distribution of how
many of them fail, so "what are the odds?" is answered with the roll.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Optional

from ... import _facts as F
from ...dice import Dice
from ...errors import LimitError, SchemaError
from ...requests import check_range, decode, say
from ..rows import Rolled, failures, roll_or_say
from .saving import saves
from .schema import SaveRequest, Saver

#: A saving throw target number: a d20 roll, so anything past these is a typo.
TARGET_RANGE = (1, 30)
#: A modifier to a saving throw (the creature's or the effect's).
MODIFIER_RANGE = (-20, 20)


@dataclass(slots=True)
class SavePlan:
    request: SaveRequest
    #: per target: its target number and everything added to its d20
    numbers: list[tuple[int, int]]


def _frac(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def target_number(t: Saver, category: Optional[str], path: str) -> int:
    """The saving throw target number of one creature, or an error at its path."""
    if (t.save is None) == (t.saves is None):
        raise SchemaError(f"{path}.save", say("os_save_needs"))
    if t.save is not None:
        check_range(t.save, *TARGET_RANGE, f"{path}.save", "save")
        return t.save
    assert t.saves is not None
    if not t.saves:
        raise SchemaError(f"{path}.saves", say("os_save_table_empty"))
    for name, value in t.saves.items():
        check_range(value, *TARGET_RANGE, f"{path}.saves.{name}", "save")
    if category is None:
        raise SchemaError("$.category", say("os_save_category", path=f"{path}.saves"))
    if category not in t.saves:
        raise SchemaError(f"{path}.saves", say("os_save_no_category", category=repr(category),
                                               known=", ".join(map(repr, t.saves))))
    return t.saves[category]


def compile_save(request: Any) -> SavePlan:
    """Check a saving throw request (limits first); each target's number and modifiers."""
    req: SaveRequest = decode(request, SaveRequest)
    if not req.targets:
        raise SchemaError("$.targets", say("os_save_no_targets"))
    if len(req.targets) > F.OS_MAX_SAVERS:
        raise LimitError("$.targets", say("too_many", count=len(req.targets), what="creatures saving",
                                          most=F.OS_MAX_SAVERS))
    check_range(req.modifier, *MODIFIER_RANGE, "$.modifier", "modifier")
    if req.category is not None and not req.category:
        raise SchemaError("$.category", say("os_save_category_empty"))
    seen: set[str] = set()
    numbers: list[tuple[int, int]] = []
    for i, t in enumerate(req.targets):
        path = f"$.targets[{i}]"
        if not t.id:
            raise SchemaError(f"{path}.id", say("os_save_empty_id"))
        if t.id in seen:
            raise SchemaError(f"{path}.id", say("os_save_same_id", id=repr(t.id)))
        seen.add(t.id)
        number = target_number(t, req.category, path)
        check_range(t.modifier, *MODIFIER_RANGE, f"{path}.modifier", "modifier")
        numbers.append((number, t.modifier + req.modifier))
    return SavePlan(req, numbers)


def save_chance(total: int, number: int) -> Fraction:
    """The exact chance a d20 + `total` saves against `number`."""
    return Fraction(sum(1 for face in range(1, 21) if saves(face, total, number)), 20)


def roll_save(plan: SavePlan, dice: Dice, seed: int) -> Rolled:
    """Roll a checked saving throw request: one d20 per target, in request order."""
    req = plan.request
    entries: list[dict[str, Any]] = []
    chances: list[Fraction] = []
    for i, (t, (number, total)) in enumerate(zip(req.targets, plan.numbers)):
        face = roll_or_say(dice, 20, f"the saving throw of $.targets[{i}]")
        saved = saves(face, total, number)
        p = save_chance(total, number)
        chances.append(p)
        entries.append({
            "id": t.id, "save": number, "modifier": t.modifier, "total_modifier": total, "roll": face,
            "natural": face if face in (1, 20) else None, "total": face + total, "saved": saved,
            "p_save": float(p), "p_save_exact": _frac(p),
        })
    dist = failures(chances)
    data = {
        "ruleset": req.ruleset, "seed": seed, "injected": dice.injected, "category": req.category,
        "modifier": req.modifier, "effect": req.effect, "targets": entries,
        "saved": [e["id"] for e in entries if e["saved"]], "failed": [e["id"] for e in entries if not e["saved"]],
        "p_failures": [{"failed": k, "p": float(x), "p_exact": _frac(x)} for k, x in enumerate(dist)],
    }
    return Rolled(seed, req.ruleset, data)


def render(result: dict[str, Any], bold: Callable[[str], str]) -> str:
    """A saving throw request in words: each creature's roll against its number, its chance."""
    what = result["effect"] or "an effect"
    category = f" ({result['category']})" if result["category"] else ""
    modifier = f", {result['modifier']:+d} to every roll" if result["modifier"] else ""
    lines = [bold("Old-school saving throws") + f"{category} against {what}{modifier} · seed {result['seed']}"]
    for t in result["targets"]:
        natural = {20: " (natural 20: always saves)", 1: " (natural 1: always fails)"}.get(t["natural"] or 0, "")
        verdict = "saves" if t["saved"] else "fails"
        lines.append(f"  {t['id']}: d20 {t['roll']}{natural} {t['total_modifier']:+d} = {t['total']} vs {t['save']}"
                     f" · {verdict} ({t['p_save']:.0%} to save)")
    summary = (f"{len(result['saved'])} saved, {len(result['failed'])} failed"
               + (f": {', '.join(result['failed'])}" if result["failed"] else ""))
    lines.append(bold(summary))
    return "\n".join(lines)
