"""Enchanted Realms weapon lock and weapon disarm ("ER Weapon Negation"; ER-10, ER-12,
ER-14, ER-19): the `lock` kind, one request kind with a `mode`.

One kind, three modes, because the three share one attacker, one victim and one result:

- `lock`: the attacker pins the victim's weapon. The feat is a **single d20** + the
  attacker's `to_hit` against the victim's AC, "no matter how many skills complement"
  it (ER-12: two d20 at advantage or disadvantage, the better or worse kept). As for any
  die against an AC (ER-6) a raw 20 always succeeds and a raw 1 always fails (a
  decision: the text names no other target for the roll). A rebuff cannot be used
  against it: the result says so (`rebuff_allowed: false`). If the feat succeeds and
  the victim `reacts` (it must have `reaction_left`), the victim pulls free by a
  **Strength competition** (ER-19: d12 + Strength modifier each side), the attacker at
  advantage on its d12; ties roll again. Outcomes: `locked` or `pulled free`.
- `disarm`: the same feat; the victim that reacts first pays 2/3/4 Body by the
  attacker's weapon size (light/medium/heavy), of the weapon's damage type (ER-10: its
  resistances count), then an **Agility competition**, the attacker at advantage.
  Outcomes: `disarmed` or `kept`.
- `blitz`: a locker holding a lock that has shield-blitz deals a d20 of **blunt** damage
  to the pinned victim (ER-10 applies); no roll to hit, no reaction (a decision: the
  text gives neither).

A failed feat is `missed`. The attacker's and the victim's own conditions count as the
restriction table says for feats and competitions (ER-12/ER-14, `feats.py`); an attacker
that cannot act (ER-14) is refused, and so is a reaction by a victim that cannot act.
A prone competitor is at -5 (ER-19). A locked weapon's wielder frees it by giving up
2 attack dice (`free_cost_dice`; docs/rules/enchanted-realms.md says how).

Draw order: the attacker's feat d20 (two at advantage or disadvantage, the first drawn
first); then, only if the feat succeeds and the victim reacts, the competition rounds:
each round the victim's d12 (two at advantage or disadvantage) then the attacker's two
d12 (advantage; one when its own disadvantage cancels it), again on a tie. A `blitz`
draws one d20. The feat and the competition are `negation.negation_roll`, the rule file the
fight loops read too; both backends run it on the same streams, so their answers are the
same.

The result carries the exact chance of the feat, of the victim's reaction and of the
effect (locked, disarmed), so "what are the odds?" is answered with the roll.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from ... import _layout as L
from ...dice import Dice, KernelError
from ...errors import LimitError, RulesError, SchemaError
from ...requests import check_names, check_range, choice, decode, say
from ..._facts import (
    AC_RANGE, CANNOT_ATTACK, CONDITIONS, DAMAGE_TYPES, ER_COMPETITION_DIE, ER_DISARM_COST, ER_LOCK_FREE_DICE,
    ER_PRONE, SCORE_RANGE,
)
from ..rows import MAX_ROLL_OFFS, Rolled
from .feats import Situation, keep_code, kept_weights, situation
from .followups import dice_error, resist
from .negation import NEG_FREED, NEG_MISSED, NEG_TIES, negation_roll
from .shock import KEEP_ONE
from .plan import modifier, resistance_state
from .schema import LockRequest

#: What the victim's reaction is, by mode: the competition's attribute.
ATTRIBUTE = {"lock": "strength", "disarm": "agility"}
#: The outcome when the feat holds, and when the victim wins its reaction.
OUTCOMES = {"lock": ("locked", "pulled free"), "disarm": ("disarmed", "kept")}
RESISTANCE_NAMES = {L.R_NORMAL: "normal", L.R_HALF: "resistant", L.R_DOUBLE: "vulnerable", L.R_IMMUNE: "immune"}
#: Why the attacker's d12 is at advantage in the victim's reaction.
EDGE = "weapon negation"
NO_REBUFF = "a rebuff cannot be used as a defense against a weapon lock or disarm"


@dataclass(slots=True)
class LockPlan:
    request: LockRequest
    #: the feat's situation (ER-12/ER-14) and everything added to its kept d20
    feat: Situation
    feat_total: int
    #: the reaction's sides, victim first: (attribute modifier, [(why, value)], situation), and totals
    sides: Optional[list[tuple[int, list[tuple[str, int]], Situation]]]
    totals: list[int]
    #: ER-10 on the disarm's cost or the blitz's blunt d20
    resistance: int


def _frac(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def _attribute_mod(who: Any, attribute: str, path: str, mode: str) -> int:
    score = getattr(who, attribute)
    explicit = getattr(who, f"{attribute}_mod")
    if score is None and explicit is None:
        raise SchemaError(f"{path}.{attribute}", say("lock_needs", mode=mode, attribute=attribute, who=repr(who.id)))
    if score is not None:
        check_range(score, *SCORE_RANGE, f"{path}.{attribute}", "score")
    if explicit is not None:
        check_range(explicit, -20, 20, f"{path}.{attribute}_mod", "modifier")
    return modifier(score, explicit)


def compile_lock(request: Any) -> LockPlan:
    """Check a lock request (limits and shape first); each roll's modifiers (see the module doc)."""
    req: LockRequest = decode(request, LockRequest)
    a, v = req.attacker, req.victim
    for who, path in ((a, "$.attacker"), (v, "$.victim")):
        if not who.id:
            raise SchemaError(f"{path}.id", say("competitor_empty_id"))
        check_range(who.bonus, -50, 50, f"{path}.bonus", "bonus")
        check_names(who.conditions, CONDITIONS, f"{path}.conditions", "condition")
    if a.id == v.id:
        raise SchemaError("$.victim.id", say("lock_same", id=repr(a.id)))
    check_range(a.to_hit, -100, 100, "$.attacker.to_hit", "to-hit")
    choice(a.damage_type, DAMAGE_TYPES, "$.attacker.damage_type", "damage type")
    check_range(v.ac, *AC_RANGE, "$.victim.ac", "AC")
    for name in ("resistant", "vulnerable", "immune"):
        check_names(getattr(v, name), DAMAGE_TYPES, f"$.victim.{name}", "damage type")
    for name in CANNOT_ATTACK:
        if name in a.conditions:
            raise RulesError("$.attacker.conditions", say("lock_cannot_act", condition=name,
                                                          mode="lock" if req.mode == "blitz" else req.mode))
    if req.mode == "blitz":
        if v.reacts:
            raise RulesError("$.victim.reacts", say("lock_blitz_react"))
        return LockPlan(req, Situation(), 0, None, [], resistance_state(v, "blunt"))  # type: ignore[arg-type]  # duck-typed
    feat = situation(a.conditions, "feat", a.advantage, a.disadvantage)
    feat_total = a.to_hit + (feat.penalty[1] if feat.penalty else 0)
    sides = None
    totals: list[int] = []
    if v.reacts:
        if not v.reaction_left:
            raise RulesError("$.victim.reacts", say("lock_no_reaction", id=repr(v.id), mode=req.mode))
        for name in CANNOT_ATTACK:
            if name in v.conditions:
                raise RulesError("$.victim.reacts", say("lock_cannot_react", id=repr(v.id), condition=name,
                                                        mode=req.mode))
        attribute = ATTRIBUTE[req.mode]
        mods = [_attribute_mod(v, attribute, "$.victim", req.mode),
                _attribute_mod(a, attribute, "$.attacker", req.mode)]
        sides = []
        for who, mod, edge in ((v, mods[0], False), (a, mods[1], True)):
            sit = situation(who.conditions, "competition", edge)
            if edge:
                sit.advantage_from = [EDGE if w == "request" else w for w in sit.advantage_from]
            extra: list[tuple[str, int]] = []
            if "prone" in who.conditions:
                extra.append(("prone", ER_PRONE))
            if sit.penalty is not None:
                extra.append(sit.penalty)
            sides.append((mod, extra, sit))
            totals.append(mod + who.bonus + sum(x for _, x in extra))
    return LockPlan(req, feat, feat_total, sides, totals, resistance_state(v, a.damage_type))  # type: ignore[arg-type]


def feat_chance(sit: Situation, total: int, ac: int) -> Fraction:
    """The exact chance the feat's kept d20 + `total` meets `ac` (a raw 20 always does, a raw 1 never)."""
    weights = kept_weights(20, sit)
    good = sum(w for face, w in weights.items() if face == 20 or (face != 1 and face + total >= ac))
    return Fraction(good, sum(weights.values()))


def victim_wins(plan: LockPlan) -> Fraction:
    """The exact chance the victim wins its reaction competition, ties rolled again (ER-19)."""
    assert plan.sides is not None
    (wv, nv), (wa, na) = ((({k + shift: x for k, x in kept_weights(ER_COMPETITION_DIE, sit).items()}),
                           sum(kept_weights(ER_COMPETITION_DIE, sit).values()))
                          for (_, _, sit), shift in zip(plan.sides, plan.totals))
    win = sum(x * y for tv, x in wv.items() for ta, y in wa.items() if tv > ta)
    tie = sum(x * y for tv, x in wv.items() for ta, y in wa.items() if tv == ta)
    return Fraction(win, nv * na - tie)


def _side(who: Any, attribute: str, side: tuple[int, list[tuple[str, int]], Situation], total: int,
          p: Fraction) -> dict[str, Any]:
    mod, extra, sit = side
    return {"id": who.id, "attribute": attribute, "modifier": mod, "bonus": who.bonus,
            "situation": [{"why": why, "value": value} for why, value in extra], "total_modifier": total,
            "advantage": sit.advantage, "disadvantage": sit.disadvantage, "win_chance": float(p),
            "conditions": list(who.conditions), "advantage_from": list(sit.advantage_from),
            "disadvantage_from": list(sit.disadvantage_from), "automatic_failure": None}


def _blitz(plan: LockPlan, dice: Dice, seed: int) -> Rolled:
    req = plan.request
    try:
        face = dice.die(20)
    except KernelError as exc:
        raise dice_error(exc, dice.rolls, "the shield-blitz") from None
    mean = Fraction(sum(resist(f, plan.resistance) for f in range(1, 21)), 20)
    hurt = Fraction(sum(1 for f in range(1, 21) if resist(f, plan.resistance) > 0), 20)
    damage = resist(face, plan.resistance)
    return Rolled(seed, req.ruleset, _data(req, seed, dice, None, None, {
        "die": face, "damage_type": "blunt", "resistance": RESISTANCE_NAMES[plan.resistance], "damage": damage,
        "mean": float(mean), "mean_exact": _frac(mean)}, "blitzed", hurt,
        f"{req.attacker.id} shield-blitzes {req.victim.id} for {damage} blunt damage"))


def _data(req: LockRequest, seed: int, dice: Dice, feat: Optional[dict[str, Any]],
          reaction: Optional[dict[str, Any]], blitz: Optional[dict[str, Any]], outcome: str, p: Fraction,
          text: str) -> dict[str, Any]:
    return {
        "ruleset": req.ruleset, "seed": seed, "injected": dice.injected, "mode": req.mode,
        "attacker": req.attacker.id, "victim": req.victim.id, "rebuff_allowed": False, "rebuff": NO_REBUFF,
        "feat": feat, "reaction": reaction, "blitz": blitz, "outcome": outcome,
        "p_effect": float(p), "p_effect_exact": _frac(p),
        "free_cost_dice": ER_LOCK_FREE_DICE if outcome == "locked" else None, "text": text,
    }


def _dice(pair: list[int], keep: int) -> list[int]:
    """The dice a kept roll drew: one, or the two."""
    return pair[:1] if keep == KEEP_ONE else list(pair)


def roll_lock(plan: LockPlan, dice: Dice, seed: int) -> Rolled:
    """Roll a checked lock request (see the module doc for the draw order)."""
    req = plan.request
    if req.mode == "blitz":
        return _blitz(plan, dice, seed)
    a, v = req.attacker, req.victim
    keeps, totals = [keep_code(plan.feat), KEEP_ONE, KEEP_ONE], [0, 0]
    reacts = plan.sides is not None
    if plan.sides is not None:  # the victim's side, then the attacker's
        keeps[1:] = [keep_code(sit) for _, _, sit in plan.sides]
        totals = list(plan.totals)
    faces = [0, 0, 0]
    raw: list[list[int]] = []
    try:
        got = negation_roll(dice, keeps[0], plan.feat_total, v.ac, reacts, keeps[1], totals[0], keeps[2], totals[1],
                            faces, raw)
    except KernelError as exc:  # the feat's until its face is kept, then the reaction's
        raise dice_error(exc, dice.rolls, "the reaction of $.victim" if faces[2] else "the feat of $.attacker") from None
    if got == NEG_TIES:
        raise LimitError("$.victim.reacts", say("tie_limit", limit=MAX_ROLL_OFFS))
    rolled, kept = _dice(faces[0:2], keeps[0]), faces[2]
    total = kept + plan.feat_total
    success = got != NEG_MISSED
    p_feat = feat_chance(plan.feat, plan.feat_total, v.ac)
    sit = plan.feat
    feat = {"dice": rolled, "kept": kept, "to_hit": a.to_hit,
            "penalty": None if sit.penalty is None else {"condition": sit.penalty[0], "value": sit.penalty[1]},
            "total_modifier": plan.feat_total, "total": total, "ac": v.ac,
            "natural": 20 if kept == 20 else 1 if kept == 1 else None, "advantage": sit.advantage,
            "disadvantage": sit.disadvantage, "advantage_from": list(sit.advantage_from),
            "disadvantage_from": list(sit.disadvantage_from), "success": success, "p_success": float(p_feat),
            "p_success_exact": _frac(p_feat)}
    held, freed = OUTCOMES[req.mode]
    reaction = None
    p_effect = p_feat
    outcome = held if success else "missed"
    if plan.sides is not None:
        p_victim = victim_wins(plan)
        p_effect = p_feat * (1 - p_victim)
        attribute = ATTRIBUTE[req.mode]
        cost = None
        if req.mode == "disarm":
            base = ER_DISARM_COST[a.weapon]
            cost = {"base": base, "weapon": a.weapon, "damage_type": a.damage_type,
                    "resistance": RESISTANCE_NAMES[plan.resistance], "points": resist(base, plan.resistance)}
        rounds = [{"victim": {"dice": _dice(r[0:2], keeps[1]), "kept": r[2], "total": r[2] + totals[0]},
                   "attacker": {"dice": _dice(r[3:5], keeps[2]), "kept": r[5], "total": r[5] + totals[1]}}
                  for r in raw]
        won = got == NEG_FREED
        if success and won:
            outcome = freed
        reaction = {
            "attribute": attribute, "rolled": success, "body_cost": cost if success else None,
            "victim_side": _side(v, attribute, plan.sides[0], plan.totals[0], p_victim),
            "attacker_side": _side(a, attribute, plan.sides[1], plan.totals[1], 1 - p_victim),
            "rounds": rounds, "ties": max(len(rounds) - 1, 0), "victim_wins": won,
            "p_victim_wins": float(p_victim), "p_victim_wins_exact": _frac(p_victim),
        }
    verb = {"locked": f"{a.id} locks {v.id}'s weapon", "pulled free": f"{v.id} pulls the weapon free of {a.id}'s lock",
            "disarmed": f"{a.id} disarms {v.id}: the weapon is thrown some distance away",
            "kept": f"{v.id} keeps hold of the weapon against {a.id}'s disarm",
            "missed": f"{a.id}'s weapon {req.mode} fails"}[outcome]
    return Rolled(seed, req.ruleset, _data(req, seed, dice, feat, reaction, None, outcome, p_effect, verb))
