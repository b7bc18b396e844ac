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

Savage form ("ER Grappling: Uncommon Conditions"), in a grapple or an escape only: when
the grapple's victim (the defender of a grapple, the challenger of an escape) lists a
usable savage-form strike (`savage_form`: claws chosen over a bite, either over any other)
and the grappler lists none, the victim's kept d12 of the deciding round (the round that
was not a tie) of 8 or more deals the grappler 1 point of the strike's damage type (ER-10:
the grappler's resistances), and a 12 also delivers the strike's poison or special (its
save triggered, named in the result). In an escape the victim still lost, a grappler that
took damage makes the ER-21 Strength feat, DC 10 + the damage (11 for the 1 point): d20 +
its Strength modifier (its own conditions as on any feat); failing, it lets go. The initial
grapple's incidental damage needs no feat. That feat's d20 (two at advantage or
disadvantage) is drawn after the competition's rounds. The exact chances of the damage, of
the delivery and (an escape) of the release come with the result.
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
    CANNOT_ATTACK, CONDITIONS, DAMAGE_TYPES, ER_COMPETITION_DIE, ER_RELEASE_DC, ER_SAVAGE_DAMAGE, ER_SAVAGE_RAW,
    ER_SAVAGE_SPECIAL, MAX_SAVAGE_STRIKES, ER_GRAPPLE_SIZE, ER_GRAPPLE_SLICK, ER_GRAPPLE_SPEED, ER_PRONE, ER_PUSH_SIZE,
    ER_PUSH_SLICK, SCORE_RANGE, SIZES,
)
from ..rows import MAX_ROLL_OFFS, Rolled
from .feats import Situation, kept_weights, roll_kept, situation
from .followups import dice_error, resist
from .plan import RESISTANCE_NAMES, modifier, resistance_state
from .schema import CompeteRequest, Competitor, SavageStrike

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
    #: savage form: (the victim's side index, its strike, ER-10 on the grappler) or None
    savage: Optional[tuple[int, SavageStrike, int]] = None


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
    if len(c.savage_form) > MAX_SAVAGE_STRIKES:
        raise LimitError(f"{path}.savage_form", say("too_many", count=len(c.savage_form), what="savage-form strikes",
                                                    most=MAX_SAVAGE_STRIKES))
    if c.savage_form and contest not in ("grapple", "escape"):
        raise RulesError(f"{path}.savage_form", say("savage_contest", contest=contest))
    for i, strike in enumerate(c.savage_form):
        if not strike.strike.strip():
            raise SchemaError(f"{path}.savage_form[{i}].strike", say("savage_strike_name"))
        choice(strike.type, DAMAGE_TYPES, f"{path}.savage_form[{i}].type", "damage type")
    for name in ("resistant", "vulnerable", "immune"):
        check_names(getattr(c, name), DAMAGE_TYPES, f"{path}.{name}", "damage type")
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
    savage = None
    if contest in ("grapple", "escape"):
        v = 1 if contest == "grapple" else 0  # the victim: held, or about to be
        victim, grappler = (dfd, chal) if v == 1 else (chal, dfd)
        if victim.savage_form and not grappler.savage_form:
            strike = savage_strike(victim.savage_form)
            savage = (v, strike, resistance_state(grappler, strike.type))  # type: ignore[arg-type]  # duck-typed
    return CompetePlan(req, sides, totals, savage)


def savage_strike(strikes: list[SavageStrike]) -> SavageStrike:
    """"claw damage over biting if both apply": a claw first, then a bite, then the first listed."""
    for names in (("claw", "claws"), ("bite",)):
        for strike in strikes:
            if strike.strike.strip().lower() in names:
                return strike
    return strikes[0]


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


def _frac(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def _counts(plan: CompetePlan) -> list[tuple[dict[int, int], int]]:
    out = []
    for _, _, sit in plan.sides:
        w = kept_weights(ER_COMPETITION_DIE, sit)
        out.append((w, sum(w.values())))
    return out


def release_fails(sit: Situation, mod: int, dc: int) -> Fraction:
    """The exact chance a grappler's Strength feat (kept d20 + mod) falls short of `dc` (ER-21)."""
    if sit.fails is not None:
        return Fraction(1)
    w = kept_weights(20, sit)
    return Fraction(sum(x for f, x in w.items() if f + mod < dc), sum(w.values()))


def savage_chances(plan: CompetePlan) -> tuple[Fraction, Fraction, Fraction]:
    """Exact chances, over the deciding round (ties rolled again), that the victim's kept d12
    deals the incidental damage (raw 8+), delivers the special (raw 12), and that the victim
    loses with damage dealt (an escape's release feat is then rolled)."""
    assert plan.savage is not None
    if any(sit.fails is not None for _, _, sit in plan.sides):
        return Fraction(0), Fraction(0), Fraction(0)
    v, _, _ = plan.savage
    (wa, _), (wb, _) = _counts(plan)
    ta, tb = plan.totals
    dealt = special = lost = nontie = 0
    for fa, xa in wa.items():
        for fb, xb in wb.items():
            if fa + ta == fb + tb:
                continue
            n = xa * xb
            nontie += n
            face = fa if v == 0 else fb
            victim_lost = (fa + ta < fb + tb) if v == 0 else (fb + tb < fa + ta)
            if face >= ER_SAVAGE_RAW:
                dealt += n
                if victim_lost:
                    lost += n
            if face >= ER_SAVAGE_SPECIAL:
                special += n
    return Fraction(dealt, nontie), Fraction(special, nontie), Fraction(lost, nontie)


def _incidental(plan: CompetePlan, rounds: list[dict[str, dict[str, Any]]], challenger_wins: bool,
                dice: Dice) -> Optional[dict[str, Any]]:
    """Savage form's incidental damage on the grappler, and an escape's release feat (see the module doc)."""
    if plan.savage is None:
        return None
    req = plan.request
    v, strike, state = plan.savage
    victim, grappler = (req.challenger, req.defender) if v == 0 else (req.defender, req.challenger)
    raw = rounds[-1][SIDES[v]]["kept"] if rounds else None
    dealt = raw is not None and raw >= ER_SAVAGE_RAW
    damage = resist(ER_SAVAGE_DAMAGE, state) if dealt else 0
    carries = strike.poison or strike.special is not None
    delivered = carries and raw is not None and raw >= ER_SAVAGE_SPECIAL
    p_dealt, p_special, p_lost = savage_chances(plan)
    p_delivered = p_special if carries else Fraction(0)
    escape = req.contest == "escape"
    victim_lost = not challenger_wins if v == 0 else challenger_wins
    sit = situation(grappler.conditions, "feat")
    strength_known = grappler.strength is not None or grappler.strength_mod is not None
    feat_dc = ER_RELEASE_DC + resist(ER_SAVAGE_DAMAGE, state)
    release: Optional[dict[str, Any]] = None
    p_release: Optional[Fraction] = None
    if escape:
        hurt = resist(ER_SAVAGE_DAMAGE, state) > 0
        mod = None
        if strength_known:
            mod = modifier(grappler.strength, grappler.strength_mod) + (sit.penalty[1] if sit.penalty else 0)
        if not hurt:
            p_release = Fraction(0)
        elif mod is not None:
            p_release = p_lost * release_fails(sit, mod, feat_dc)
        if victim_lost and damage > 0:
            release = {"dc": feat_dc, "dice": [], "roll": None, "modifier": mod, "total": None, "held": None,
                       "situation": sit.to_dict()}
            if mod is not None:  # (a grappler failing Body feats automatically rolled no round either)
                try:
                    rolled, kept = roll_kept(dice, 20, sit)
                except KernelError as exc:
                    raise dice_error(exc, dice.rolls, say("rolls_for_release", path=f"$.{SIDES[1 - v]}")) from None
                release.update(dice=rolled, roll=kept, total=kept + mod, held=kept + mod >= feat_dc)
    return {
        "by": victim.id, "to": grappler.id, "strike": strike.strike, "damage_type": strike.type,
        "poison": strike.poison, "special": strike.special, "raw": raw, "threshold": ER_SAVAGE_RAW, "dealt": dealt,
        "resistance": RESISTANCE_NAMES[state], "damage": damage, "delivered": delivered,
        "release": release, "p_dealt": float(p_dealt), "p_dealt_exact": _frac(p_dealt),
        "p_delivered": float(p_delivered), "p_delivered_exact": _frac(p_delivered),
        "p_release": None if p_release is None else float(p_release),
        "p_release_exact": None if p_release is None else _frac(p_release),
    }


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
    incidental = _incidental(plan, rounds, challenger_wins, dice)
    c, d = req.challenger.id, req.defender.id
    text = OUTCOMES[req.contest][0 if challenger_wins else 1].format(c=c, d=d)
    if incidental is not None:
        text += _savage_text(incidental)
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
        "incidental": incidental,
    }
    return Rolled(seed, req.ruleset, data)


def _savage_text(inc: dict[str, Any]) -> str:
    if not inc["dealt"]:
        return ""
    if inc["damage"] == 0:
        text = f"; {inc['by']}'s {inc['strike']} strikes {inc['to']}, who is {inc['resistance']}: no damage"
    else:
        text = f"; {inc['by']}'s {inc['strike']} deals {inc['to']} {inc['damage']} {inc['damage_type']} damage"
    if inc["delivered"]:
        text += f" and delivers {inc['special'] or 'its poison'} (its save is triggered)"
    rel = inc["release"]
    if rel is not None:
        if rel["held"] is None:
            text += f"; {inc['to']} makes a Strength feat DC {rel['dc']} to keep the hold"
        elif rel["held"]:
            text += f"; {inc['to']} keeps the hold (Strength feat {rel['total']} vs DC {rel['dc']})"
        else:
            text += f"; {inc['to']} lets go: {inc['by']} is free"
    return text
