"""Enchanted Realms saves: one creature's save against an effect, or an area effect
against several, each rolling its own (ER-4, ER-12, ER-13, ER-14, ER-16).

Each target rolls d20 + the saving attribute's modifier (ER-4: floor((score - 2) / 2)
unless `modifier` is given) + its `bonus` (+ its cover's bonus, below) and saves when the
total meets or beats the DC; there is no natural 20 or natural 1 rule for saves. The
saves are Body saves (Strength, Agility, Resilience), so the saver's own `conditions`
count as the restriction table says (ER-12/ER-14, `feats.py`): poisoned, bound, held
breath, asphyxiating, frightened and restrained at disadvantage; defending ("any saves
made during a defensive duration") at advantage; shaken or drowsy at -2 (not both);
paralyzed, petrified, stunned and unconscious "automatically fail" and roll nothing.

ER-16 cover adds to **Agility saves against area effects** only (`area: true`): half
+2, three-quarters +5, full +5 ("a +5 bonus to Agility preservation saves"); "other
sub-attribute saves gain no bonus". An effect that is not an area effect has no line to
a target in full cover ("magical range spells which rely on line of sight have no viable
target"): the request is refused, naming that target's `cover`.

A failed save applies the request's `on_fail` conditions (sleep smoke: asleep); each
target's `conditions_after` is its conditions with them added (once each).

Draw order: the targets in request order; each draws its d20, or two at advantage or
disadvantage (the first drawn first, the better or worse kept); a target that fails
automatically draws nothing. Both backends run this code (the compiled core has no save
kernel): their streams are the same, so are their answers.

The result carries each target's exact chance to save and the exact distribution of how
many of them fail, so "what are the odds?" is answered with the roll.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from ...dice import Dice, KernelError
from ...errors import LimitError, RulesError, SchemaError
from ...requests import check_names, check_range, choice, decode, say
from ..._facts import CONDITIONS, COVER_SAVE, COVERS, MAX_SAVERS, SCORE_RANGE
from ..rows import Rolled, failures
from .feats import Situation, kept_weights, roll_kept, situation
from .followups import dice_error
from .plan import modifier
from .schema import SaveRequest, Saver

#: The most a DC or a total can be: a save is a d20 roll, so anything past this is a typo.
DC_RANGE = (-50, 100)


@dataclass(slots=True)
class SavePlan:
    request: SaveRequest
    #: per target: (attribute modifier, cover bonus, its situation: ER-12/ER-14)
    sides: list[tuple[int, int, Situation]]
    #: per target: everything added to its kept d20
    totals: list[int]


def _frac(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def _check(t: Saver, path: str, req: SaveRequest) -> tuple[int, int]:
    """(the attribute modifier, the cover bonus) of one saver, or an error at its path."""
    if not t.id:
        raise SchemaError(f"{path}.id", say("save_empty_id"))
    if t.score is None and t.modifier is None:
        raise SchemaError(f"{path}.score", say("save_needs", save=req.save))
    if t.score is not None:
        check_range(t.score, *SCORE_RANGE, f"{path}.score", "score")
    if t.modifier is not None:
        check_range(t.modifier, -20, 20, f"{path}.modifier", "modifier")
    check_range(t.bonus, -50, 50, f"{path}.bonus", "bonus")
    choice(t.cover, COVERS, f"{path}.cover", "cover")
    check_names(t.conditions, CONDITIONS, f"{path}.conditions", "condition")
    if t.cover == "full" and not req.area:
        raise RulesError(f"{path}.cover", say("save_full_cover", target=repr(t.id)))
    cover = COVER_SAVE[t.cover] if req.area and req.save == "agility" else 0
    return modifier(t.score, t.modifier), cover


def compile_save(request: Any) -> SavePlan:
    """Check a save request (limits first); each target's modifiers (see the module doc)."""
    req: SaveRequest = decode(request, SaveRequest)
    if not req.targets:
        raise SchemaError("$.targets", say("save_no_targets"))
    if len(req.targets) > MAX_SAVERS:
        raise LimitError("$.targets", say("too_many", count=len(req.targets), what="creatures saving",
                                          most=MAX_SAVERS))
    check_range(req.dc, *DC_RANGE, "$.dc", "DC")
    check_names(req.on_fail, CONDITIONS, "$.on_fail", "condition")
    seen: set[str] = set()
    sides: list[tuple[int, int, Situation]] = []
    totals: list[int] = []
    for i, t in enumerate(req.targets):
        path = f"$.targets[{i}]"
        mod, cover = _check(t, path, req)
        if t.id in seen:
            raise SchemaError(f"{path}.id", say("save_same_id", id=repr(t.id)))
        seen.add(t.id)
        sit = situation(t.conditions, "save", t.advantage, t.disadvantage)
        sides.append((mod, cover, sit))
        totals.append(mod + t.bonus + cover + (sit.penalty[1] if sit.penalty else 0))
    return SavePlan(req, sides, totals)


def save_chance(sit: Situation, total: int, dc: int) -> Fraction:
    """The exact chance a d20 (two, the better or worse kept) + `total` meets `dc`."""
    if sit.fails is not None:
        return Fraction(0)
    weights = kept_weights(20, sit)
    return Fraction(sum(w for face, w in weights.items() if face + total >= dc), sum(weights.values()))


def roll_save(plan: SavePlan, dice: Dice, seed: int) -> Rolled:
    """Roll a checked save: each target in request order (see the module doc)."""
    req = plan.request
    entries: list[dict[str, Any]] = []
    chances: list[Fraction] = []
    for i, (t, (mod, cover, sit), total) in enumerate(zip(req.targets, plan.sides, plan.totals)):
        rolled: list[int] = []
        kept: Optional[int] = None
        if sit.fails is None:
            try:
                rolled, kept = roll_kept(dice, 20, sit)
            except KernelError as exc:
                raise dice_error(exc, dice.rolls, f"the save of $.targets[{i}]") from None
        saved = kept is not None and kept + total >= req.dc
        p = save_chance(sit, total, req.dc)
        chances.append(p)
        after = list(t.conditions)
        if not saved:
            for name in req.on_fail:  # once each, even when on_fail names one twice
                if name not in after:
                    after.append(name)
        entries.append({
            "id": t.id, "modifier": mod, "bonus": t.bonus, "cover": t.cover, "cover_bonus": cover,
            "penalty": None if sit.penalty is None else {"condition": sit.penalty[0], "value": sit.penalty[1]},
            "total_modifier": total, "advantage": sit.advantage, "disadvantage": sit.disadvantage,
            "advantage_from": list(sit.advantage_from), "disadvantage_from": list(sit.disadvantage_from),
            "automatic_failure": sit.fails, "dice": rolled, "kept": kept,
            "total": None if kept is None else kept + total, "saved": saved,
            "p_save": float(p), "p_save_exact": _frac(p),
            "conditions": list(t.conditions), "conditions_after": after,
        })
    dist = failures(chances)
    data = {
        "ruleset": req.ruleset, "seed": seed, "injected": dice.injected, "save": req.save, "dc": req.dc,
        "area": req.area, "effect": req.effect, "on_fail": list(req.on_fail), "targets": entries,
        "saved": [e["id"] for e in entries if e["saved"]], "failed": [e["id"] for e in entries if not e["saved"]],
        "p_failures": [{"failed": k, "p": float(x), "p_exact": _frac(x)} for k, x in enumerate(dist)],
    }
    return Rolled(seed, req.ruleset, data)
