"""Enchanted Realms touch attacks: the touch that delivers a touch-based invocation or
axiom (seed 000, "Touch-based Effects"; ER-4, ER-6, ER-12, ER-14, ER-15).

Two of the text's three ways to touch an unwilling victim are rolled here (the third, a
grappling attack, is an ER-19 competition: the `compete` kind with `contest: "grapple"`,
whose win is "merely a successful touch"):

- `touch: "hit"`: "a successful hit against the victim's armor class, which does not
  inflict any damage". It is rolled as an ER melee strike of the caster's `dice` skill
  d20s (ER-3) with the caster's to-hit (its Strength score, size, `bonus`; ER-4, ER-5)
  against the victim's `ac`; any die that hits (ER-6: a natural 20 always, a natural 1
  never) makes the touch. Advantage and disadvantage are an attack's (ER-12: one more
  counted die; one more and the highest dropped), from the caster's and the victim's
  conditions as for any strike (ER-14, ER-15). A touch deals no damage, so it cannot crit:
  no crit die is drawn.
- `touch: "sleight"` (the caster has the sleight-of-hand skill): an Agility feat, "not a
  preservation save", d20 + the caster's Agility modifier (ER-4) + `bonus` against
  DC 10 + the victim's Agility modifier + the victim's "Other" component of its AC
  (`other_ac`); "the only variables that adjust the DC" are those two, so the victim's
  conditions change nothing here. A total at least 4 over the DC ("if the score is 4
  points above the DC"; the text's DC 13 example needs 17) is **clandestine**: the touch
  goes unnoticed (the GM ignores that when the effect is painful or plain to see). The
  caster's own conditions count as on every Body feat (ER-12/ER-14, `feats.py`); a feat
  has no natural-20 or natural-1 rule.

Either way a caster that cannot act (ER-14: incapacitated, paralyzed, asleep, …) is
refused, and so is a touch at the creature that charmed it (ER-14, `caster.charmed_by`).

Draw order: a hit draws what an ER attack of that one strike draws in step 1 (its skill
dice, then its advantage die or its disadvantage die, docs/ENGINE.md §2) and nothing
more (no crit, stray or follow-up); a sleight draws one d20, or two at advantage or
disadvantage, the first first. Both backends run this (a hit through the active ER
kernel, a sleight in Python from the same stream): their answers are the same.

The result carries the exact chance of the touch (and of a clandestine one).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from ... import _layout as L
from ...dice import Dice, KernelError
from ...errors import RequestError, RulesError, SchemaError
from ...requests import check_names, check_range, choice, decode, key_path, say
from ..._facts import CANNOT_ATTACK, CONDITIONS, SCORE_RANGE, SIZES
from ..rows import Rolled
from .attack import AttackPlan, compile_attack, roll_attack
from .feats import Situation, kept_weights, roll_kept, situation
from .followups import dice_error
from .plan import modifier
from .schema import TouchRequest

#: ER Touch-based Effects: the sleight of hand's base DC, and how far over it is clandestine.
SLEIGHT_DC = 10
CLANDESTINE = 4


@dataclass(slots=True)
class TouchPlan:
    request: TouchRequest
    #: a touch hit: the one-strike attack it is rolled as
    attack: Optional[AttackPlan] = None
    #: a sleight: the caster's feat situation, what is added to its d20, and the DC
    sit: Optional[Situation] = None
    total: int = 0
    caster_mod: int = 0
    dc: int = 0
    target_mod: int = 0


def _frac(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def _moved(error: RequestError, moves: list[tuple[str, str]]) -> RequestError:
    """`error` with its path (and the paths it names) moved from the inner attack's fields."""
    path, reason = error.path, error.reason
    for old, new in moves:
        if path == old or path.startswith((old + ".", old + "[")):
            path = new + path[len(old):]
            break
    for old, new in moves:
        reason = reason.replace(old, new)
    return type(error)(path, reason)


def _moves(target_id: str) -> list[tuple[str, str]]:
    return [("$.attacker", "$.caster"), ("$.strikes[0].dice", "$.dice"), ("$.strikes[0].bonus", "$.bonus"),
            ("$.strikes[0].advantage", "$.advantage"), ("$.strikes[0].disadvantage", "$.disadvantage"),
            ("$.strikes[0].target", "$.target.id"), ("$.strikes[0]", "$"), ("$.strikes", "$"),
            (key_path("$.targets", target_id), "$.target"), ("$.targets", "$.target")]


def compile_touch(request: Any) -> TouchPlan:
    """Check a touch request and compile its hit or its sleight (see the module doc)."""
    req: TouchRequest = decode(request, TouchRequest)
    target, caster = req.target, req.caster
    if not target.id:
        raise SchemaError("$.target.id", say("empty_target_id"))
    check_range(req.bonus, -50, 50, "$.bonus", "bonus")
    if req.touch == "hit":
        if target.ac is None:
            raise SchemaError("$.target.ac", say("touch_needs_ac"))
        spec = {"ac": target.ac, "size": target.size, "conditions": list(target.conditions)}
        strike = {"target": target.id, "method": "melee", "style": "bludgeoning", "dice": req.dice,
                  "damage_type": "blunt", "bonus": req.bonus, "crit": False, "friendly_fire": False,
                  "advantage": req.advantage, "disadvantage": req.disadvantage}
        inner = {"attacker": _builtins(caster), "strikes": [strike], "targets": {target.id: spec}}
        try:
            attack = compile_attack(inner)
        except RequestError as exc:
            raise _moved(exc, _moves(target.id)) from None
        return TouchPlan(req, attack=attack)
    # A sleight of hand: the caster's Agility feat against the victim's DC.
    for name in ("agility", "strength"):
        value = getattr(caster, name)
        if value is not None:
            check_range(value, *SCORE_RANGE, f"$.caster.{name}", "score")
    if caster.agility_mod is not None:
        check_range(caster.agility_mod, -20, 20, "$.caster.agility_mod", "modifier")
    choice(caster.size, SIZES, "$.caster.size", "size")
    conditions = check_names(caster.conditions, CONDITIONS, "$.caster.conditions", "condition")
    for name in CANNOT_ATTACK:
        if name in conditions:
            raise RulesError("$.caster.conditions", say("cannot_attack", condition=name))
    if caster.charmed_by is not None:
        if not caster.charmed_by:
            raise SchemaError("$.caster.charmed_by", say("charmed_by_empty"))
        if caster.charmed_by == target.id:
            raise RulesError("$.target.id", say("charmed_attack", target=repr(target.id), path="$.caster.charmed_by"))
    if caster.agility is None and caster.agility_mod is None:
        raise SchemaError("$.caster.agility", say("touch_needs_agility", who="caster"))
    choice(target.size, SIZES, "$.target.size", "size")
    check_names(target.conditions, CONDITIONS, "$.target.conditions", "condition")
    if target.agility is None and target.agility_mod is None:
        raise SchemaError("$.target.agility", say("touch_needs_agility", who="victim"))
    if target.agility is not None:
        check_range(target.agility, *SCORE_RANGE, "$.target.agility", "score")
    if target.agility_mod is not None:
        check_range(target.agility_mod, -20, 20, "$.target.agility_mod", "modifier")
    check_range(target.other_ac, -50, 50, "$.target.other_ac", "Other AC")
    if target.ac is not None:
        check_range(target.ac, -100, 200, "$.target.ac", "AC")
    sit = situation(conditions, "feat", req.advantage, req.disadvantage)
    caster_mod = modifier(caster.agility, caster.agility_mod)
    target_mod = modifier(target.agility, target.agility_mod)
    total = caster_mod + req.bonus + (sit.penalty[1] if sit.penalty else 0)
    return TouchPlan(req, sit=sit, total=total, caster_mod=caster_mod, dc=SLEIGHT_DC + target_mod + target.other_ac,
                     target_mod=target_mod)


def _builtins(caster: Any) -> dict[str, Any]:
    import msgspec

    data: dict[str, Any] = msgspec.to_builtins(caster)
    return data


def _chance(sit: Situation, total: int, dc: int) -> Fraction:
    """The exact chance a d20 (two, the better or worse kept) + `total` meets `dc`."""
    if sit.fails is not None:
        return Fraction(0)
    weights = kept_weights(20, sit)
    return Fraction(sum(w for face, w in weights.items() if face + total >= dc), sum(weights.values()))


def hit_chance(attack: AttackPlan) -> Fraction:
    """The exact chance at least one counted die of the touch hits (ER-6, ER-12)."""
    from .odds import pool

    row = attack.plan[0:L.PLAN_WIDTH]
    n = row[L.P_SKILL] + row[L.P_ADV] + row[L.P_SNEAK]
    dist = pool(n, bool(row[L.P_DISADV]), row[L.P_TO_HIT], row[L.P_AC], 0)
    return 1 - dist.prob(lambda o: o[0] == 0)


def roll_touch(plan: TouchPlan, dice: Dice, seed: int) -> Rolled:
    """Roll a checked touch (see the module doc for the draw order)."""
    req = plan.request
    data: dict[str, Any] = {"ruleset": req.ruleset, "seed": seed, "injected": dice.injected, "touch": req.touch,
                            "target": req.target.id}
    if plan.attack is not None:
        try:
            result = roll_attack(plan.attack, dice, seed).to_dict()
        except RequestError as exc:
            if exc.path == "$.rolls" or exc.path.startswith("$.rolls["):
                raise type(exc)(exc.path, exc.reason.replace("$.strikes[0]", "the touch")) from None
            raise _moved(exc, _moves(req.target.id)) from None
        strike = result["strikes"][0]
        p = hit_chance(plan.attack)
        touched = strike["hits"] > 0
        data.update({
            "touched": touched, "clandestine": None, "p_touch": float(p), "p_touch_exact": _frac(p),
            "p_clandestine": None, "p_clandestine_exact": None,
            "hit": {"to_hit": strike["to_hit"], "ac": strike["ac"], "advantage": strike["advantage"],
                    "disadvantage": strike["disadvantage"], "dice": strike["dice"], "discarded": strike["discarded"],
                    "hits": strike["hits"]},
            "sleight": None,
        })
        return Rolled(seed, req.ruleset, data)
    sit = plan.sit
    assert sit is not None
    rolled: list[int] = []
    kept: Optional[int] = None
    if sit.fails is None:
        try:
            rolled, kept = roll_kept(dice, 20, sit)
        except KernelError as exc:
            raise dice_error(exc, dice.rolls, "the sleight of hand") from None
    total = None if kept is None else kept + plan.total
    touched = total is not None and total >= plan.dc
    clandestine = total is not None and total >= plan.dc + CLANDESTINE
    p = _chance(sit, plan.total, plan.dc)
    q = _chance(sit, plan.total, plan.dc + CLANDESTINE)
    data.update({
        "touched": touched, "clandestine": clandestine, "p_touch": float(p), "p_touch_exact": _frac(p),
        "p_clandestine": float(q), "p_clandestine_exact": _frac(q), "hit": None,
        "sleight": {"dc": plan.dc, "base_dc": SLEIGHT_DC, "target_agility_mod": plan.target_mod,
                    "target_other_ac": req.target.other_ac, "clandestine_dc": plan.dc + CLANDESTINE,
                    "agility_mod": plan.caster_mod, "bonus": req.bonus, "total_modifier": plan.total,
                    "situation": sit.to_dict(), "dice": rolled, "kept": kept, "total": total},
    })
    return Rolled(seed, req.ruleset, data)
