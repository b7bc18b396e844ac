"""Enchanted Realms grappler's slam ("ER Grappling", "ER Grappling: Uncommon Conditions";
ER-4, ER-5, ER-6, ER-10, ER-12, ER-14): the `slam` kind.

"If the aggressor is two sizes larger, that grappler may opt to hurl and slam the victim for
its Strength bonus in blunt damage (or appropriate damage for the terrain) ... this maneuver
frees the victim from the hold."

- The grappler must be **two or more size categories larger** than the victim (refused at
  `$.grappler.size` otherwise). The damage is its **Strength bonus** (the ER-4 modifier of
  its `strength`, or its `strength_mod`; a negative bonus deals 0), blunt unless the request
  gives the terrain's `damage_type`, with the victim's ER-10 resistances. The victim is freed
  and placed in an open space within 5 ft (10 ft for a tall grappler).
- A grappler **ten feet or taller** may slam the victim `into` another target within two
  hexes (10 ft; refused farther). *Decision:* a grappler's `height` in feet decides when given;
  otherwise its size does: huge, giant and colossal are ten feet or taller, large and smaller
  are not (a large ogre of ten feet gives `height: 10`). The victim takes its damage
  regardless; the slam is a **hurling attack** against the target's AC: 3d20 (ER Throwing
  Items), each raw face + the grappler's `to_hit` + the ER-5 size bonus of the target (a
  ranged attack at a larger target) against its AC, a raw 20 always hitting and a raw 1
  never (ER-6); any die hitting is a hit, which deals the Strength bonus in **blunt** damage
  to the target (its ER-10 resistances apply). ER-12: advantage adds one counted d20,
  disadvantage one more with the highest dropped; the grappler's own conditions (ER-14:
  poisoned, prone, bound, ...) put the hurl at disadvantage; one who cannot act is refused.

Draw order: nothing for a plain slam; with a second target, the hurling pool's d20s in
order (3, or 4 with advantage or disadvantage). Both backends run this code (no compiled
kernel): the same stream, the same answers. The result carries the exact chance the hurl
hits (`p_hit`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from types import SimpleNamespace
from typing import Any, Optional

from ... import _layout as L
from ...dice import Dice, KernelError
from ...errors import RulesError, SchemaError
from ...requests import check_names, check_range, choice, decode, say
from ..._facts import (
    AC_RANGE, ATTACKER_DISADVANTAGE, CANNOT_ATTACK, CONDITIONS, DAMAGE_TYPES, ER_HURL_DICE, ER_SLAM_REACH_FT,
    ER_SLAM_SIZES, ER_SLAM_TALL_FT, SCORE_RANGE, SIZE_BONUS, SIZES,
)
from ..rows import Rolled
from .followups import dice_error, resist
from .hurling import face_hits
from .plan import RESISTANCE_NAMES, modifier, resistance_state
from .schema import SlamRequest
from .throw import pool_chance, roll_pool

#: *Decision:* sizes that stand ten feet or taller when no `height` is given.
TALL_SIZES = SIZES[SIZES.index("huge"):]


@dataclass(slots=True)
class SlamPlan:
    request: SlamRequest
    bonus: int
    tall: bool
    victim_state: int
    #: the hurl at the second target: its dice count, whether the highest is dropped,
    #: the to-hit added to each die, the target's ER-10 state
    dice: int = 0
    drop_highest: bool = False
    to_hit: int = 0
    target_state: int = L.R_NORMAL
    advantage_from: tuple[str, ...] = ()
    disadvantage_from: tuple[str, ...] = ()


def _frac(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def _resistances(who: Any, path: str) -> None:
    for name in ("resistant", "vulnerable", "immune"):
        check_names(getattr(who, name), DAMAGE_TYPES, f"{path}.{name}", "damage type")


def compile_slam(request: Any) -> SlamPlan:
    """Check a slam request (shape and limits first); the damage and the hurl's pool."""
    req: SlamRequest = decode(request, SlamRequest)
    g, v, t = req.grappler, req.victim, req.into
    for who, path in ((g, "$.grappler"), (v, "$.victim")):
        if not who.id:
            raise SchemaError(f"{path}.id", say("competitor_empty_id"))
        choice(who.size, SIZES, f"{path}.size", "size")
    if g.id == v.id:
        raise SchemaError("$.victim.id", say("slam_same", id=repr(g.id)))
    check_names(g.conditions, CONDITIONS, "$.grappler.conditions", "condition")
    if g.height is not None:
        check_range(g.height, 0, 1000, "$.grappler.height", "height")
    check_range(g.to_hit, -100, 100, "$.grappler.to_hit", "to-hit")
    choice(req.damage_type, DAMAGE_TYPES, "$.damage_type", "damage type")
    check_names(v.conditions, CONDITIONS, "$.victim.conditions", "condition")
    _resistances(v, "$.victim")
    if SIZES.index(g.size) - SIZES.index(v.size) < ER_SLAM_SIZES:
        raise RulesError("$.grappler.size", say("slam_size", grappler=repr(g.id), grappler_size=g.size,
                                                victim=repr(v.id), victim_size=v.size))
    if g.strength is None and g.strength_mod is None:
        raise SchemaError("$.grappler.strength", say("slam_needs", who=repr(g.id)))
    if g.strength is not None:
        check_range(g.strength, *SCORE_RANGE, "$.grappler.strength", "score")
    if g.strength_mod is not None:
        check_range(g.strength_mod, -20, 20, "$.grappler.strength_mod", "modifier")
    for name in CANNOT_ATTACK:
        if name in g.conditions:
            raise RulesError("$.grappler.conditions", say("slam_cannot_act", condition=name))
    tall = g.height >= ER_SLAM_TALL_FT if g.height is not None else g.size in TALL_SIZES
    plan = SlamPlan(req, max(modifier(g.strength, g.strength_mod), 0), tall, resistance_state(v, req.damage_type))  # type: ignore[arg-type]  # duck-typed
    if t is None:
        return plan
    if not t.id:
        raise SchemaError("$.into.id", say("empty_target_id"))
    if t.id in (g.id, v.id):
        raise SchemaError("$.into.id", say("slam_into_same", id=repr(t.id)))
    check_range(t.ac, *AC_RANGE, "$.into.ac", "AC")
    choice(t.size, SIZES, "$.into.size", "size")
    check_range(t.distance, 0, 1000, "$.into.distance", "distance")
    _resistances(t, "$.into")
    if not tall:
        height = f", {g.height} ft tall" if g.height is not None else ""
        raise RulesError("$.into", say("slam_not_tall", who=repr(g.id), size=g.size, height=height))
    if t.distance > ER_SLAM_REACH_FT:
        raise RulesError("$.into.distance", say("slam_reach", target=repr(t.id), distance=t.distance))
    adv = ("request",) if g.advantage else ()
    dis = (("request",) if g.disadvantage else ()) + tuple(n for n in ATTACKER_DISADVANTAGE if n in g.conditions)
    extra = 1 if bool(adv) != bool(dis) else 0  # ER-12: together they cancel
    plan.dice = ER_HURL_DICE + extra
    plan.drop_highest = bool(dis) and not adv
    plan.to_hit = g.to_hit + SIZE_BONUS[t.size]
    # ER-10 by the target's own lists (blunt is never the fire an underwater target resists)
    plan.target_state = resistance_state(SimpleNamespace(immune=t.immune, resistant=t.resistant,  # type: ignore[arg-type]
                                                         vulnerable=t.vulnerable, conditions=()), "blunt")
    plan.advantage_from, plan.disadvantage_from = adv, dis
    return plan


def hit_chance(plan: SlamPlan, ac: int) -> Fraction:
    """The exact chance the hurl hits: any counted die hitting (the highest dropped at
    disadvantage), as a thrown item's pool (ER Throwing Items: `throw.pool_chance`)."""
    return pool_chance(plan.dice - int(plan.drop_highest), plan.to_hit, ac, plan.drop_highest)


def roll_slam(plan: SlamPlan, dice: Dice, seed: int) -> Rolled:
    """Roll a checked slam (see the module doc for the draw order)."""
    req = plan.request
    g, v, t = req.grappler, req.victim, req.into
    victim_damage = resist(plan.bonus, plan.victim_state)
    into = None
    text = f"{g.id} slams {v.id} for {victim_damage} {req.damage_type} damage: {v.id} is free"
    if t is not None:
        try:  # a hurling attack: a thrown item's pool of d20s (ER Throwing Items)
            pool = roll_pool(dice, plan.dice - int(plan.drop_highest), plan.to_hit, t.ac, plan.drop_highest)
        except KernelError as exc:
            raise dice_error(exc, dice.rolls, "the hurling attack at $.into") from None
        rolled = [{"face": f, "total": f + plan.to_hit, "hit": face_hits(f, plan.to_hit, t.ac),
                   "dropped": i == pool.dropped} for i, f in enumerate(pool.faces)]
        hit = any(d["hit"] and not d["dropped"] for d in rolled)
        damage = resist(plan.bonus, plan.target_state) if hit else 0
        p = hit_chance(plan, t.ac)
        into = {"id": t.id, "ac": t.ac, "distance": t.distance, "to_hit": g.to_hit, "size_bonus": SIZE_BONUS[t.size],
                "dice": rolled, "advantage": bool(plan.advantage_from) and not plan.disadvantage_from,
                "disadvantage": plan.drop_highest, "advantage_from": list(plan.advantage_from),
                "disadvantage_from": list(plan.disadvantage_from), "hit": hit, "damage_type": "blunt",
                "resistance": RESISTANCE_NAMES[plan.target_state], "damage": damage,
                "p_hit": float(p), "p_hit_exact": _frac(p)}
        text += (f", hurled into {t.id}: a hit for {damage} blunt damage" if hit
                 else f", hurled at {t.id}, who is missed")
    data = {
        "ruleset": req.ruleset, "seed": seed, "injected": dice.injected, "grappler": g.id, "victim": v.id,
        "size_difference": SIZES.index(g.size) - SIZES.index(v.size), "tall": plan.tall,
        "tall_from": "height" if g.height is not None else "size", "strength_bonus": plan.bonus,
        "victim_damage": {"damage_type": req.damage_type, "base": plan.bonus,
                          "resistance": RESISTANCE_NAMES[plan.victim_state], "damage": victim_damage},
        "placed_within_ft": ER_SLAM_REACH_FT if plan.tall else 5, "freed": True, "into": into, "text": text,
    }
    return Rolled(seed, req.ruleset, data)
