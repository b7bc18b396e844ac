"""Enchanted Realms throwing items and throwing magic (seed 000, "Throwing Items"; ER-6,
ER-8, ER-10, ER-12, ER-14, ER-15, ER-16): the `throw` kind.

- **An item** (acid splash, holy water, …) does its harm by what it is, not by the force of
  the throw, so anyone with the physiology to throw may: the thrower rolls a pool of d20s by
  its skill (`skill`: `none` 1, `ranged` fighting 2, `hurling` 3) and "if the raw score of
  the d20 strikes the opponent's AC" the item's effect happens. The skills only help it land:
  any die that hits is enough, and the effect happens once whatever the number of hits. The
  raw face is compared: no Agility, size or skill bonus; what the request adds is `bonus`
  (a GM's situational modifier) and what the attacker's conditions take off (ER-14: bound
  -5, shaken -2, an invisible target -3, obscurement), as on any strike (`plan.compile_strike`).
  The item's damage is the table's (`ITEMS`); an unlisted item (`other`) gives its `damage`.
  The area items (sleep smoke, smoke of restraint, thick smoke) are not rolled against an
  AC at all ("close-enough", then a save): they are refused, pointing at the `save` kind.
- **Throwing magic** (an incantation or axiom hurled at an AC whose description says
  nothing of its modifiers): the spell provides one d20; with ranged fighting the caster's
  Agility modifier is added when positive, with hurling its whole Agility score instead.
  The damage is the spell's (`damage`).

Either way, ER-6 holds (a raw 20 always hits, a raw 1 never), advantage and disadvantage are
an attack's (ER-12: one more counted die; one more die and the highest dropped) from the
thrower's and the target's conditions (ER-14, ER-15), cover raises the AC and full cover
refuses the throw (ER-16), a charmed thrower cannot throw at its charmer, and underwater a
throw is impossible (ER-14: only archery works). Nothing thrown crits (ER-8: ranged weapons
cannot crit by default; a spell that says otherwise is the GM's to add) and nothing strays
(ER-17 is a missile's rule: a missed flask shatters where it lands). The damage is of the
item's type, so the target's resistances apply (ER-10).

Draw order: the pool's d20s (the counted dice, then the disadvantage die), then, only on a
hit, the damage dice. Both backends run this code (no compiled kernel): their streams are
the same, so are their answers. `roll_pool` (a pool of d20s against an AC) and
`pool_chance` are meant for any later "hurling attack against an AC".

The result carries the exact chance of a hit and the exact mean damage.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from ... import _layout as L
from ...dice import Dice, KernelError
from ...errors import RequestError, RulesError, SchemaError
from ...exact import Dist
from ...requests import check_names, check_range, choice, decode, say
from ..._facts import AC_RANGE, CONDITIONS, COVERS, DAMAGE_TYPES, STANDARD_DICE
from ..rows import Rolled
from .followups import dice_error, resist
from .hurling import face_hits, hurl, thrown_damage
from .plan import RESISTANCE_NAMES, TargetInfo, check_attacker, compile_strike, modifier
from .schema import Attacker, ProfileStrike, Target, ThrowRequest

#: "ER Throwing Items": the d20s of a thrown item's pool, by the thrower's skill.
POOL = {"none": 1, "ranged": 2, "hurling": 3}
#: The item table: (damage dice, faces, flat damage, damage type, the table's note).
#: A flat damage (bonfire blend's 1) has no dice.
ITEMS: dict[str, tuple[int, int, int, str, str]] = {
    "acid splash": (1, 4, 0, "alchemical", "alchemical damage"),
    "bonfire blend": (0, 0, 1, "fire", "fire damage; very ineffective"),
    "explosive oil": (1, 4, 0, "fire", "fire damage; combustion"),
    "firebreather's oil": (1, 4, 0, "fire", "fire damage; special attack delivery"),
    "holy water": (1, 4, 0, "smite", "smiting damage; limited victims"),
}
#: The table's area items: "close-enough" and a save, no roll against an AC.
AREA_ITEMS = {"sleep smoke": "sleep", "smoke of restraint": "grappled", "thick smoke": "obscurement"}
#: What the request names besides the table's items.
OTHER = ("other", "magic")
KINDS = tuple(ITEMS) + tuple(AREA_ITEMS) + OTHER
#: Limits of a request's own damage: dice count and flat bonus.
MAX_DAMAGE_DICE = 10
DAMAGE_BONUS = (-50, 50)
#: The request's situational bonus to each d20: with the largest Agility score a hurled
#: spell adds, it stays inside an attack's to-hit range.
THROW_BONUS = (-50, 50)


@dataclass(frozen=True, slots=True)
class Pool:
    """A pool of d20s rolled against an AC: every face in draw order, which of them hit
    (ER-6: a raw 20 always, a raw 1 never; a dropped die never counts), and the index of the
    die dropped under disadvantage (the highest, the first of equals), if any."""

    faces: list[int]
    hits: list[bool]
    dropped: Optional[int]

    @property
    def hit(self) -> bool:
        """Any counted die hit: enough for a thrown item's effect ("should either die score a hit")."""
        return any(self.hits)


def roll_pool(dice: Dice, n: int, to_hit: int, ac: int, disadvantage: bool = False) -> Pool:
    """Roll `n` counted d20s (plus one dropped at disadvantage, ER-12) against `ac`.

    Raises KernelError when injected faces run out (the caller names what they were for)."""
    k = n + int(disadvantage)
    faces = [0] * (k + 1)
    hurl(dice, n, to_hit, ac, disadvantage, faces)
    dropped = faces[k] if faces[k] >= 0 else None
    return Pool(faces[:k], [i != dropped and face_hits(f, to_hit, ac) for i, f in enumerate(faces[:k])], dropped)


def pool_chance(n: int, to_hit: int, ac: int, disadvantage: bool = False) -> Fraction:
    """The exact chance at least one counted die of `roll_pool` hits: 1 - (1 - p)^n, or with
    the highest of n + 1 dropped, that at least one die hits besides the highest."""
    from .odds import pool

    dist = pool(n, disadvantage, to_hit, ac, 0)
    return 1 - dist.prob(lambda o: o[0] == 0)


@dataclass(slots=True)
class ThrowPlan:
    request: ThrowRequest
    #: counted dice, added to each face, the AC it must meet, and whether one more is dropped
    n: int
    to_hit: int
    ac: int
    advantage: bool
    disadvantage: bool
    advantage_from: list[str]
    disadvantage_from: list[str]
    #: what the thrower's Agility adds (throwing magic only)
    agility_added: int
    #: the damage on a hit: dice count, faces, flat bonus, type, the table's note
    damage: tuple[int, int, int, str, Optional[str]]
    resistance: int


def _frac(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def _agility_added(req: ThrowRequest) -> int:
    """Throwing magic: the Agility modifier if positive with ranged fighting, the whole Agility
    score instead with hurling, nothing without either."""
    t = req.thrower
    if req.skill == "none":
        return 0
    if req.skill == "hurling":
        if t.agility is None:
            raise SchemaError("$.thrower.agility", say("throw_needs_agility", skill="hurling", what="score"))
        return t.agility
    if t.agility is None and t.agility_mod is None:
        raise SchemaError("$.thrower.agility", say("throw_needs_agility", skill="ranged fighting",
                                                     what="score or agility_mod"))
    return max(0, modifier(t.agility, t.agility_mod))


def compile_throw(request: Any) -> ThrowPlan:
    """Check a throw request (limits and shape first) and its pool (see the module doc)."""
    req: ThrowRequest = decode(request, ThrowRequest)
    choice(req.item, KINDS, "$.item", "thrown item")
    if req.item in AREA_ITEMS:
        raise RulesError("$.item", say("throw_area", item=req.item, effect=AREA_ITEMS[req.item]))
    target = req.target
    if not target.id:
        raise SchemaError("$.target.id", say("empty_target_id"))
    check_range(req.bonus, *THROW_BONUS, "$.bonus", "bonus")
    check_range(target.ac, *AC_RANGE, "$.target.ac", "AC")
    for dtype, ac in target.ac_by_type.items():
        choice(dtype, DAMAGE_TYPES, "$.target.ac_by_type", "damage type")
        check_range(ac, *AC_RANGE, f"$.target.ac_by_type.{dtype}", "AC")
    choice(target.cover, COVERS, "$.target.cover", "cover")
    for name in ("resistant", "vulnerable", "immune"):
        check_names(getattr(target, name), DAMAGE_TYPES, f"$.target.{name}", "damage type")
    check_names(target.conditions, CONDITIONS, "$.target.conditions", "condition")
    conditions = check_attacker(req.thrower, "$.thrower")
    # The damage: the table's, or the request's for magic and unlisted items.
    if req.item in ITEMS:
        if req.damage is not None:
            dice_n, faces, flat, dtype, _ = ITEMS[req.item]
            listed = f"{dice_n}d{faces}" if dice_n else str(flat)
            raise SchemaError("$.damage", say("throw_damage_listed", item=req.item,
                                              damage=f"{listed} {dtype}"))
        dice_n, faces, flat, dtype, note = ITEMS[req.item]
        damage: tuple[int, int, int, str, Optional[str]] = (dice_n, faces, flat, dtype, note)
    else:
        if req.damage is None:
            raise SchemaError("$.damage", say("throw_needs_damage", item=req.item))
        d = req.damage
        check_range(d.dice, 0, MAX_DAMAGE_DICE, "$.damage.dice", "damage dice")
        if d.faces not in STANDARD_DICE:
            raise SchemaError("$.damage.faces", say("unknown_name", what="die", value=repr(d.faces),
                                                    allowed=", ".join(map(str, STANDARD_DICE))))
        check_range(d.bonus, *DAMAGE_BONUS, "$.damage.bonus", "damage bonus")
        choice(d.damage_type, DAMAGE_TYPES, "$.damage.damage_type", "damage type")
        damage = (d.dice, d.faces, d.bonus, d.damage_type, None)
    magic = req.item == "magic"
    added = _agility_added(req) if magic else 0
    n = 1 if magic else POOL[req.skill]
    # The thrower's and the target's conditions, cover, charm and underwater as on any
    # ranged strike (ER-14, ER-15, ER-16): a "thrown" strike from a thrower whose only
    # to-hit is the request's (the raw face; the target's size adds nothing to it).
    t = req.thrower
    inner = Attacker(agility=0, size="medium", conditions=list(t.conditions), swim_speed=t.swim_speed,
                     obscurement=t.obscurement, charmed_by=t.charmed_by)
    strike = ProfileStrike(method="range", style="thrown", dice=n, damage_type=damage[3], bonus=req.bonus + added,
                           crit=False, advantage=req.advantage, disadvantage=req.disadvantage, friendly_fire=False)
    spec = Target(ac=target.ac, ac_by_type=dict(target.ac_by_type), resistant=list(target.resistant),
                  vulnerable=list(target.vulnerable), immune=list(target.immune),
                  conditions=list(target.conditions), cover=target.cover)
    try:
        row, meta = compile_strike(strike, "$", inner, "$.thrower", conditions,
                                   TargetInfo(target.id, 0, spec, "$.target"), False, False,
                                   target_path="$.target.id")
    except RequestError as exc:
        # The strike's own fields are the request's: only an underwater thrower is refused
        # for its style (ER-14: only archery works), so the path is its conditions.
        if exc.path == "$.style":
            raise type(exc)("$.thrower.conditions", exc.reason) from None
        raise
    return ThrowPlan(req, n + row[L.P_ADV], meta.to_hit, meta.ac, meta.advantage, meta.disadvantage,
                     ["request" if w == "strike" else w for w in meta.advantage_from],
                     ["request" if w == "strike" else w for w in meta.disadvantage_from],
                     added, damage, row[L.P_RESIST])


def damage_dist(plan: ThrowPlan) -> Dist:
    """The exact damage of a hit, the target's resistance applied (ER-10); never below 0."""
    count, faces, flat, _, _ = plan.damage
    total = Dist.point(flat)
    if count:
        total = total.convolve(Dist.uniform(range(1, faces + 1)).power(count))
    return total.map(lambda x: resist(max(0, x), plan.resistance))


def roll_throw(plan: ThrowPlan, dice: Dice, seed: int) -> Rolled:
    """Roll a checked throw (see the module doc for the draw order)."""
    req = plan.request
    try:
        pool = roll_pool(dice, plan.n, plan.to_hit, plan.ac, plan.disadvantage)
    except KernelError as exc:
        raise dice_error(exc, dice.rolls, "the throw's d20s") from None
    count, faces, flat, dtype, note = plan.damage
    damage = None
    if pool.hit:
        try:
            rolled = [dice.die(faces) for _ in range(count)]
        except KernelError as exc:
            raise dice_error(exc, dice.rolls, "the throw's damage") from None
        base = thrown_damage(sum(rolled), flat)
        damage = {"dice": rolled, "faces": faces if count else None, "bonus": flat, "base": base,
                  "damage": resist(base, plan.resistance)}
    p_hit = pool_chance(plan.n, plan.to_hit, plan.ac, plan.disadvantage)
    dist = damage_dist(plan)
    mean_hit = sum((Fraction(w, dist.den) * v for v, w in dist.w.items()), Fraction(0))
    mean = p_hit * mean_hit
    what = "the spell" if req.item == "magic" else req.item
    if pool.hit:
        text = f"{what} strikes {req.target.id}: {damage['damage'] if damage else 0} {dtype} damage"
    else:
        text = f"{what} misses {req.target.id}"
    data = {
        "ruleset": req.ruleset, "seed": seed, "injected": dice.injected, "item": req.item,
        "magic": req.item == "magic", "skill": req.skill, "target": req.target.id, "note": note,
        "thrown": {"dice": pool.faces, "counted": plan.n, "dropped": pool.dropped, "hits": pool.hits,
                   "to_hit": plan.to_hit, "agility_added": plan.agility_added, "ac": plan.ac,
                   "advantage": plan.advantage, "disadvantage": plan.disadvantage,
                   "advantage_from": plan.advantage_from, "disadvantage_from": plan.disadvantage_from},
        "hit": pool.hit, "crit": False, "damage_type": dtype, "resistance": RESISTANCE_NAMES[plan.resistance],
        "damage": damage, "p_hit": float(p_hit), "p_hit_exact": _frac(p_hit),
        "mean_damage": float(mean), "mean_damage_exact": _frac(mean), "text": text,
    }
    return Rolled(seed, req.ruleset, data)
