"""ER-19 competitions: opposed d12 + the chosen attribute's modifier, ties rolled again.

A competition has a challenger (who starts it: the grappler, the one escaping a hold,
the one shoving or tripping) and a defender. Each side adds the modifier of the
attribute it chose (Strength or Agility; ER-4: floor((score - 2) / 2) unless given),
its own `bonus`, and the situation's modifiers:

- grapple: the grappler +2 per size category it is larger; a faster victim +1 per
  10 ft of difference; slick ground +3 to the victim;
- escape (the victim is the challenger): the same, but the larger side, whichever
  it is, takes the size bonus;
- shove, trip (Strength only; the victim at most one size larger): the larger side +2;
  slick ground -3 to the victim;
- every contest: a prone competitor -5.

Advantage or disadvantage on a side: two d12, the better or worse kept (ER-12, a
single-die feat). Draw order: the challenger's die (or two), then the defender's;
on a tie both roll again, until the totals differ.

The result carries the exact chance each side had to win (ties re-rolled), so a
player asking "what are my odds?" gets the answer with the roll.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ... import _layout as L
from ...dice import Dice, KernelError
from ...errors import DiceError, LimitError, RulesError, SchemaError
from ...requests import check_range, choice, decode, faces, say
from ..._facts import (
    ER_COMPETITION_DIE, ER_GRAPPLE_SIZE, ER_GRAPPLE_SLICK, ER_GRAPPLE_SPEED, ER_PRONE, ER_PUSH_SIZE,
    ER_PUSH_SLICK, SCORE_RANGE, SIZES,
)
from ..rows import MAX_ROLL_OFFS, Rolled
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
    #: per side: (attribute modifier, [(why, value)], advantage, disadvantage)
    sides: list[tuple[int, list[tuple[str, int]], bool, bool]]
    #: per side: everything added to its kept d12
    totals: list[int]


def _size(name: str) -> int:
    return SIZES.index(name)


def _check(c: Competitor, path: str, contest: str) -> int:
    if not c.id:
        raise SchemaError(f"{path}.id", "a competitor id is empty")
    choice(c.size, SIZES, f"{path}.size", "size")
    check_range(c.speed, 0, 1000, f"{path}.speed", "speed")
    check_range(c.bonus, -50, 50, f"{path}.bonus", "bonus")
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
        if dfd.speed > chal.speed and (dfd.speed - chal.speed) // 10:
            extra[1].append((f"faster by {dfd.speed - chal.speed} ft",
                             ER_GRAPPLE_SPEED * ((dfd.speed - chal.speed) // 10)))
        if req.slick:
            extra[1].append(("slick ground", ER_GRAPPLE_SLICK))
    elif contest == "escape":
        if diff:
            larger = 0 if diff > 0 else 1
            n = abs(diff)
            extra[larger].append((f"size: {n} categor{'y' if n == 1 else 'ies'} larger", ER_GRAPPLE_SIZE * n))
        if chal.speed > dfd.speed and (chal.speed - dfd.speed) // 10:
            extra[0].append((f"faster by {chal.speed - dfd.speed} ft",
                             ER_GRAPPLE_SPEED * ((chal.speed - dfd.speed) // 10)))
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
    for i, c in enumerate((chal, dfd)):
        if c.prone:
            extra[i].append(("prone", ER_PRONE))
    sides = [(mods[i], extra[i], c.advantage and not c.disadvantage, c.disadvantage and not c.advantage)
             for i, c in enumerate((chal, dfd))]
    totals = [mods[i] + c.bonus + sum(v for _, v in extra[i]) for i, c in enumerate((chal, dfd))]
    return CompetePlan(req, sides, totals)


def _kept_dist(advantage: bool, disadvantage: bool) -> dict[int, Fraction]:
    """Exact distribution of the kept d12 (one die, or the better/worse of two)."""
    n = ER_COMPETITION_DIE
    if not advantage and not disadvantage:
        return {f: Fraction(1, n) for f in range(1, n + 1)}
    dist: dict[int, Fraction] = {}
    for a in range(1, n + 1):
        for b in range(1, n + 1):
            k = max(a, b) if advantage else min(a, b)
            dist[k] = dist.get(k, Fraction(0)) + Fraction(1, n * n)
    return dist


def win_chances(plan: CompetePlan) -> tuple[Fraction, Fraction]:
    """Exact chance the challenger and the defender win, ties rolled again (ER-19)."""
    a, b = ({k + shift: p for k, p in _kept_dist(adv, dis).items()}
            for (_, _, adv, dis), shift in zip(plan.sides, plan.totals))
    win = sum((pa * pb for ta, pa in a.items() for tb, pb in b.items() if ta > tb), Fraction(0))
    tie = sum((pa * pb for ta, pa in a.items() for tb, pb in b.items() if ta == tb), Fraction(0))
    return win / (1 - tie), (1 - tie - win) / (1 - tie)


def _roll_side(dice: Dice, adv: bool, dis: bool) -> tuple[list[int], int]:
    if adv or dis:
        pair = [dice.die(ER_COMPETITION_DIE), dice.die(ER_COMPETITION_DIE)]
        return pair, max(pair) if adv else min(pair)
    face = dice.die(ER_COMPETITION_DIE)
    return [face], face


def roll_compete(plan: CompetePlan, dice: Dice, seed: int) -> Rolled:
    """Roll a checked competition: both sides, again on a tie."""
    req = plan.request
    people = (req.challenger, req.defender)
    totals = plan.totals
    rounds: list[dict[str, dict[str, Any]]] = []
    try:
        while True:
            if len(rounds) >= MAX_ROLL_OFFS:
                raise LimitError("$.challenger", say("tie_limit", limit=MAX_ROLL_OFFS))
            entry: dict[str, dict[str, Any]] = {}
            for name, (mod, extra, adv, dis), total in zip(SIDES, plan.sides, totals):
                rolled, kept = _roll_side(dice, adv, dis)
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
    last = rounds[-1]
    challenger_wins = last["challenger"]["total"] > last["defender"]["total"]
    c, d = req.challenger.id, req.defender.id
    text = OUTCOMES[req.contest][0 if challenger_wins else 1].format(c=c, d=d)
    chance = win_chances(plan)
    sides = {}
    for name, person, (mod, extra, adv, dis), total, p in zip(SIDES, people, plan.sides, totals, chance):
        sides[name] = {
            "id": person.id, "attribute": person.attribute, "modifier": mod, "bonus": person.bonus,
            "situation": [{"why": why, "value": value} for why, value in extra], "total_modifier": total,
            "advantage": adv, "disadvantage": dis, "win_chance": float(p),
        }
    data = {
        "ruleset": req.ruleset, "seed": seed, "injected": dice.injected, "contest": req.contest,
        "slick": req.slick, **sides, "rounds": rounds, "ties": len(rounds) - 1,
        "winner": c if challenger_wins else d, "loser": d if challenger_wins else c, "outcome": text,
    }
    return Rolled(seed, req.ruleset, data)
