"""ER-19 competitions: opposed d12 + the chosen attribute's modifier, ties rolled again.

A competition has a challenger (who starts it: the grappler, the one escaping a hold,
the one shoving or tripping) and a defender. Each side adds the modifier of the
attribute it chose (Strength or Agility; ER-4: floor((score - 2) / 2) unless given),
its own `bonus`, and the situation's modifiers:

- grapple: the grappler +2 per size category it is larger; a faster victim +1 per
  10 ft of difference (only when both speeds are given: an unknown speed is not 0);
  slick ground +3 to the victim;
- escape (the victim is the challenger): the same, but the larger side, whichever
  it is, takes the size bonus;
- shove, trip (Strength only; the victim at most one size larger): the larger side +2;
  slick ground -3 to the victim;
- every contest: a prone competitor -5.

Each side's own `conditions` count as the restriction table says (ER-12/ER-14, see
`feats.py`): bound, poisoned, held breath, asphyxiating and frightened roll at
disadvantage, defending at advantage, shaken or drowsy at -2, a prone condition is
the -5 above (once, with or without the `prone` flag); a paralyzed, petrified,
stunned or unconscious side "automatically fails" and rolls nothing: the other side
wins (both failing: the challenger's attempt fails). A challenger that cannot act
(incapacitated, paralyzed, petrified, stunned, unconscious, nauseated) cannot start a
grapple, an escape, a shove or a trip.

Advantage or disadvantage on a side: two d12, the better or worse kept (ER-12, a
single-die feat), the first drawn first. Draw order: the challenger's die (or two),
then the defender's; on a tie both roll again, until the totals differ.

The result carries the exact chance each side had to win (ties re-rolled), so a
player asking "what are my odds?" gets the answer with the roll.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from ... import _layout as L
from ...dice import Dice, KernelError
from ...errors import DiceError, LimitError, RulesError, SchemaError
from ...requests import check_names, check_range, choice, decode, faces, say
from ..._facts import (
    CANNOT_ATTACK, CONDITIONS, ER_COMPETITION_DIE, ER_GRAPPLE_SIZE, ER_GRAPPLE_SLICK, ER_GRAPPLE_SPEED, ER_PRONE, ER_PUSH_SIZE,
    ER_PUSH_SLICK, SCORE_RANGE, SIZES,
)
from ..rows import MAX_ROLL_OFFS, Rolled
from .feats import Situation, kept_weights, roll_kept, situation
from .plan import modifier
from .schema import CompeteRequest, Competitor

SIDES = ("challenger", "defender")
OUTCOMES = {
    "grapple": ("{c} grapples {d}: {d} is held", "{d} slips free: {c} could not keep the hold"),
    "escape": ("{c} escapes {d}'s hold", "{c} stays in {d}'s hold"),
    "shove": ("{c} shoves {d} 5 ft away", "{d} stands firm"),
    "trip": ("{c} trips {d}: {d} is prone", "{d} keeps their feet"),
    "plain": ("{c} wins", "{d} wins"),
}


@dataclass(slots=True)
class CompetePlan:
    request: CompeteRequest
    #: per side: (attribute modifier, [(why, value)], its situation: ER-12/ER-14)
    sides: list[tuple[int, list[tuple[str, int]], Situation]]
    #: per side: everything added to its kept d12
    totals: list[int]


def _size(name: str) -> int:
    return SIZES.index(name)


def _faster(victim: Optional[int], other: Optional[int]) -> int:
    """ER-19: full 10 ft the victim is faster by ("+1 per 10 ft difference"), 0 when it is not
    faster. *Decision:* a speed not given is unknown, not 0: with either side's speed
    unknown there is no difference to count, so no modifier."""
    if victim is None or other is None or victim <= other:
        return 0
    return (victim - other) // 10


def _check(c: Competitor, path: str, contest: str) -> int:
    if not c.id:
        raise SchemaError(f"{path}.id", say("competitor_empty_id"))
    choice(c.size, SIZES, f"{path}.size", "size")
    if c.speed is not None:
        check_range(c.speed, 0, 1000, f"{path}.speed", "speed")
    check_range(c.bonus, -50, 50, f"{path}.bonus", "bonus")
    check_names(c.conditions, CONDITIONS, f"{path}.conditions", "condition")
    if contest in ("shove", "trip") and c.attribute != "strength":
        raise RulesError(f"{path}.attribute", say("compete_strength", contest=contest))
    score = c.strength if c.attribute == "strength" else c.agility
    explicit = c.strength_mod if c.attribute == "strength" else c.agility_mod
    if score is None and explicit is None:
        raise SchemaError(f"{path}.{c.attribute}", say("compete_needs", attribute=c.attribute))
    if score is not None:
        check_range(score, *SCORE_RANGE, f"{path}.{c.attribute}", "score")
    if explicit is not None:
        check_range(explicit, -20, 20, f"{path}.{c.attribute}_mod", "modifier")
    return modifier(score, explicit)


def compile_compete(request: Any) -> CompetePlan:
    """Check an ER-19 request; the situation's modifiers per side (see the module doc)."""
    req: CompeteRequest = decode(request, CompeteRequest)
    contest = req.contest
    chal, dfd = req.challenger, req.defender
    mods = [_check(chal, "$.challenger", contest), _check(dfd, "$.defender", contest)]
    if chal.id == dfd.id:
        raise SchemaError("$.defender.id", say("compete_same", id=repr(chal.id)))
    extra: list[list[tuple[str, int]]] = [[], []]
    diff = _size(chal.size) - _size(dfd.size)  # > 0: the challenger is larger
    if contest == "grapple":
        if diff > 0:
            extra[0].append((f"size: {diff} categor{'y' if diff == 1 else 'ies'} larger", ER_GRAPPLE_SIZE * diff))
        faster = _faster(dfd.speed, chal.speed)
        if faster and dfd.speed is not None and chal.speed is not None:  # both known (ER-19)
            extra[1].append((f"faster by {dfd.speed - chal.speed} ft", ER_GRAPPLE_SPEED * faster))
        if req.slick:
            extra[1].append(("slick ground", ER_GRAPPLE_SLICK))
    elif contest == "escape":
        if diff:
            larger = 0 if diff > 0 else 1
            n = abs(diff)
            extra[larger].append((f"size: {n} categor{'y' if n == 1 else 'ies'} larger", ER_GRAPPLE_SIZE * n))
        faster = _faster(chal.speed, dfd.speed)
        if faster and chal.speed is not None and dfd.speed is not None:  # both known (ER-19)
            extra[0].append((f"faster by {chal.speed - dfd.speed} ft", ER_GRAPPLE_SPEED * faster))
        if req.slick:
            extra[0].append(("slick ground", ER_GRAPPLE_SLICK))
    elif contest in ("shove", "trip"):
        if -diff > 1:
            raise RulesError("$.defender.size", say("compete_size", contest=contest, victim=repr(dfd.id),
                                                    victim_size=dfd.size, pusher=repr(chal.id),
                                                    pusher_size=chal.size))
        if diff:
            extra[0 if diff > 0 else 1].append(("larger", ER_PUSH_SIZE))
        if req.slick:
            extra[1].append(("slick ground", ER_PUSH_SLICK))
    if contest != "plain":
        for name in CANNOT_ATTACK:
            if name in chal.conditions:
                raise RulesError("$.challenger.conditions", say("compete_cannot_act", condition=name,
                                                                contest=contest))
    sits = [situation(c.conditions, "competition", c.advantage, c.disadvantage) for c in (chal, dfd)]
    for i, c in enumerate((chal, dfd)):
        if c.prone or "prone" in c.conditions:
            extra[i].append(("prone", ER_PRONE))
        penalty = sits[i].penalty
        if penalty is not None:
            extra[i].append(penalty)
    sides = [(mods[i], extra[i], sits[i]) for i in range(2)]
    totals = [mods[i] + c.bonus + sum(v for _, v in extra[i]) for i, c in enumerate((chal, dfd))]
    return CompetePlan(req, sides, totals)


def win_chances(plan: CompetePlan) -> tuple[Fraction, Fraction]:
    """Exact chance the challenger and the defender win, ties rolled again (ER-19)."""
    fails = [sit.fails is not None for _, _, sit in plan.sides]
    if any(fails):
        return (Fraction(0), Fraction(1)) if fails[0] else (Fraction(1), Fraction(0))
    (wa, na), (wb, nb) = ((({k + shift: x for k, x in kept_weights(ER_COMPETITION_DIE, sit).items()}),
                           sum(kept_weights(ER_COMPETITION_DIE, sit).values()))
                          for (_, _, sit), shift in zip(plan.sides, plan.totals))
    win = sum(xa * xb for ta, xa in wa.items() for tb, xb in wb.items() if ta > tb)
    tie = sum(xa * xb for ta, xa in wa.items() for tb, xb in wb.items() if ta == tb)
    total = na * nb
    return Fraction(win, total - tie), Fraction(total - tie - win, total - tie)


def roll_compete(plan: CompetePlan, dice: Dice, seed: int) -> Rolled:
    """Roll a checked competition: both sides, again on a tie."""
    req = plan.request
    people = (req.challenger, req.defender)
    totals = plan.totals
    rounds: list[dict[str, dict[str, Any]]] = []
    fails = [sit.fails for _, _, sit in plan.sides]
    try:
        while fails == [None, None]:  # a side that fails automatically rolls nothing
            if len(rounds) >= MAX_ROLL_OFFS:
                raise LimitError("$.challenger", say("tie_limit", limit=MAX_ROLL_OFFS))
            entry: dict[str, dict[str, Any]] = {}
            for name, (mod, extra, sit), total in zip(SIDES, plan.sides, totals):
                rolled, kept = roll_kept(dice, ER_COMPETITION_DIE, sit)
                entry[name] = {"dice": rolled, "kept": kept, "total": kept + total}
            rounds.append(entry)
            if entry["challenger"]["total"] != entry["defender"]["total"]:
                break
    except KernelError as exc:
        rolls = dice.rolls
        assert rolls is not None
        if exc.code == L.E_ROLLS_SHORT:
            raise DiceError("$.rolls", say("rolls_short", given=faces(len(rolls)), what="the competition",
                                           position=exc.position)) from None
        raise DiceError(f"$.rolls[{exc.position}]", say("face_range_die", face=rolls[exc.position],
                                                         faces=ER_COMPETITION_DIE)) from None
    if rounds:
        last = rounds[-1]
        challenger_wins = last["challenger"]["total"] > last["defender"]["total"]
    else:  # ER-14: an automatic failure decides; both failing, the challenger's attempt fails
        challenger_wins = fails[0] is None
    c, d = req.challenger.id, req.defender.id
    text = OUTCOMES[req.contest][0 if challenger_wins else 1].format(c=c, d=d)
    chance = win_chances(plan)
    sides = {}
    for name, person, (mod, extra, sit), total, p in zip(SIDES, people, plan.sides, totals, chance):
        sides[name] = {
            "id": person.id, "attribute": person.attribute, "modifier": mod, "bonus": person.bonus,
            "situation": [{"why": why, "value": value} for why, value in extra], "total_modifier": total,
            "advantage": sit.advantage, "disadvantage": sit.disadvantage, "win_chance": float(p),
            "conditions": list(person.conditions), "advantage_from": list(sit.advantage_from),
            "disadvantage_from": list(sit.disadvantage_from), "automatic_failure": sit.fails,
        }
    data = {
        "ruleset": req.ruleset, "seed": seed, "injected": dice.injected, "contest": req.contest,
        "slick": req.slick, **sides, "rounds": rounds, "ties": max(len(rounds) - 1, 0),
        "winner": c if challenger_wins else d, "loser": d if challenger_wins else c, "outcome": text,
    }
    return Rolled(seed, req.ruleset, data)
