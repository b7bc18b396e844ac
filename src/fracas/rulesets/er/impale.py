"""ER-23 impalement: a pikeman's reaction against a charger, resolved before the charge.

A melee attacker that closed 25 ft or more this turn and attacks the owner of a
pole-arm (with the pole-arms skill, dealing piercing damage) provokes it. The
reaction is one strike of 3d20 (4d20 with weapon forte) at the charger, rolled as
any ER strike (its to-hit, crits, weight, modifier and the charger's resistances).
If its damage brings the charger to 0 Body or below (its current `body` given), the
charger is incapacitated and the charge is void; otherwise the charge, when the
request gives it (`charge`: an ER attack request without seed or rolls), is
resolved next from the same stream.

Draw order: the impalement strike (and its crit chain and follow-ups), then the
charge's dice, as for any attack (docs/ENGINE.md §2).

The named pole-arms (`weapon.pole`): "if this pole is a glaive, then the heavy property
will cause disadvantage on a natural 18 to 20". When any of a glaive's skill dice (the
3 or 4 d20 drawn first) shows 18, 19 or 20, the impalement is a strike at disadvantage
(ER-12): one more d20 is drawn after the pool's own dice (where any disadvantage die is
drawn, docs/ENGINE.md §2), the highest raw die is discarded, and no crit occurs. It
does not stack with another disadvantage, and cancels an advantage (that strike then
draws neither extra die). Nothing new is drawn to decide it: the skill dice are the
strike's first dice either way. The ula "is an exception to the piercing-damage rule":
an ula impales whatever damage type the request gives it; the text names no other
rule of its own here, so it strikes as any pole-arm.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Any, Optional

import msgspec

from ...dice import Dice, KernelError
from ...errors import RequestError, RulesError, SchemaError
from ...requests import check_range, choice, decode, key_path, say
from ..._facts import DAMAGE_TYPES, ER_IMPALE_CLOSED, ER_IMPALE_DICE, ER_IMPALE_HEAVY_FACE, STYLES
from ..rows import Rolled
from .attack import AttackPlan, compile_attack, roll_attack
from .schema import NAME, ImpaleRequest


@dataclass(slots=True)
class ImpalePlan:
    request: ImpaleRequest
    impalement: AttackPlan
    charge: Optional[AttackPlan]
    #: a glaive's impalement at disadvantage (its heavy property), rolled instead of
    #: `impalement` when the skill dice show a natural 18-20; None for other pole-arms.
    heavy: Optional[AttackPlan] = None


def _moved(error: RequestError, moves: list[tuple[str, str]]) -> RequestError:
    """`error` with its path moved from the inner request's field to the impalement's."""
    path, reason = error.path, error.reason
    for old, new in moves:
        if path == old or path.startswith((old + ".", old + "[")):
            path = new + path[len(old):]
            break
    for old, new in moves:
        if old != "$":
            reason = reason.replace(old, new)
    return type(error)(path, reason)


def compile_impale(request: Any) -> ImpalePlan:
    """Check an ER-23 request and compile the impalement strike and the charge."""
    req: ImpaleRequest = decode(request, ImpaleRequest)
    charger, weapon = req.charger, req.weapon
    check_range(charger.closed, 0, 10_000, "$.charger.closed", "distance closed")
    if charger.closed < ER_IMPALE_CLOSED:
        raise RulesError("$.charger.closed", say("impale_closed", closed=charger.closed))
    check_range(charger.body, 1, 1_000_000, "$.charger.body", "current Body")
    if not charger.id:
        raise SchemaError("$.charger.id", say("empty_target_id"))
    if req.pikeman.charmed_by is not None and req.pikeman.charmed_by == charger.id:  # ER-14
        raise RulesError("$.pikeman.charmed_by", say("charmed_attack", target=repr(charger.id),
                                                     path="$.pikeman.charmed_by"))
    if "defending" in req.pikeman.conditions:  # ER-15: defending "removes all reactions for both rounds"
        raise RulesError("$.pikeman.conditions", say("impale_defending"))
    choice(weapon.style, STYLES, "$.weapon.style", "style")
    if weapon.style != "pole-arm":
        raise RulesError("$.weapon.style", say("impale_style", style=weapon.style))
    choice(weapon.damage_type, DAMAGE_TYPES, "$.weapon.damage_type", "damage type")
    if weapon.damage_type != "piercing" and weapon.pole != "ula":  # the ula is the exception
        raise RulesError("$.weapon.damage_type", say("impale_damage", damage_type=weapon.damage_type))
    target = msgspec.to_builtins(charger)
    for key in ("id", "body", "closed"):
        target.pop(key)
    strike: dict[str, Any] = {
        "target": charger.id, "method": "melee", "style": weapon.style,
        "dice": ER_IMPALE_DICE[1 if weapon.forte else 0], "damage_type": weapon.damage_type,
        "weight": weapon.weight, "bonus": weapon.bonus, "crit": weapon.crit, "crit_range": weapon.crit_range,
    }
    inner = {"attacker": msgspec.to_builtins(req.pikeman), "strikes": [strike], "targets": {charger.id: target}}
    moves = [("$.attacker", "$.pikeman"), ("$.strikes[0]", "$.weapon"), ("$.strikes", "$.weapon"),
             (key_path("$.targets", charger.id), "$.charger"), ("$.targets", "$.charger")]
    try:
        impalement = compile_attack(inner)
        heavy = None
        if weapon.pole == "glaive":  # the same strike at disadvantage (ER-12), for a natural 18-20
            heavy = compile_attack({**inner, "strikes": [{**strike, "disadvantage": True}]})
    except RequestError as exc:
        raise _moved(exc, moves) from None
    charge = None
    if req.charge is not None:
        if req.charge.get("ruleset", NAME) != NAME:
            raise SchemaError("$.charge.ruleset", say("impale_charge_ruleset"))
        for key in ("seed", "rolls"):
            if req.charge.get(key) is not None:
                raise SchemaError(f"$.charge.{key}", say("impale_charge_dice", path=f"$.charge.{key}"))
        try:
            charge = compile_attack(req.charge)
        except RequestError as exc:
            raise _moved(exc, [("$", "$.charge")]) from None
        for i, meta in enumerate(charge.metas):
            if meta.method == "range":
                raise RulesError(f"$.charge.strikes[{i}].method", say("impale_charge_melee", method=meta.method))
    return ImpalePlan(req, impalement, charge, heavy)


def _inner(result: Any) -> dict[str, Any]:
    """An attack result inside this one: the same dict, less what the outer one says (backend)."""
    data: dict[str, Any] = result.to_dict()
    data.pop("backend")
    return data


def skill_faces(dice: Dice, count: int) -> Optional[list[int]]:
    """The next `count` d20 faces of `dice`, read from a copy (the stream does not move);
    None when injected faces run short or do not fit (the strike itself then says so)."""
    state = dice.state
    copy = Dice(array(state.typecode, state) if isinstance(state, array) else list(state), dice.rolls, dice.pos)
    try:
        return [copy.die(20) for _ in range(count)]
    except KernelError:
        return None


def roll_impale(plan: ImpalePlan, dice: Dice, seed: int) -> Rolled:
    """The impalement, then the charge unless the charger is incapacitated."""
    req = plan.request
    charger = req.charger
    strike_plan = plan.impalement
    heavy: Optional[dict[str, Any]] = None
    if plan.heavy is not None:  # a glaive: its skill dice decide the heavy property's disadvantage
        faces = skill_faces(dice, ER_IMPALE_DICE[1 if req.weapon.forte else 0])
        triggered = faces is not None and max(faces) >= ER_IMPALE_HEAVY_FACE
        heavy = {"faces": faces or [], "disadvantage": triggered}
        if triggered:
            strike_plan = plan.heavy
    try:
        impalement = roll_attack(strike_plan, dice, seed)
    except RequestError as exc:
        if exc.path == "$.rolls" or exc.path.startswith("$.rolls["):
            raise type(exc)(exc.path, exc.reason.replace("$.strikes[0]", "the impalement ($.weapon)")) from None
        raise _moved(exc, [("$.strikes[0]", "$.weapon"), (key_path("$.targets", charger.id), "$.charger")]) from None
    damage = impalement.target_damage[charger.id]
    after = charger.body - damage
    incapacitated = after <= 0
    charge = None
    if plan.charge is not None and not incapacitated:
        try:
            charge = _inner(roll_attack(plan.charge, dice, seed))
        except RequestError as exc:
            if exc.path == "$.rolls" or exc.path.startswith("$.rolls["):
                raise type(exc)(exc.path, exc.reason.replace("$.strikes", "$.charge.strikes")) from None
            raise _moved(exc, [("$", "$.charge")]) from None
    data = {
        "ruleset": req.ruleset, "seed": seed, "injected": dice.injected, "closed": charger.closed,
        "dice": ER_IMPALE_DICE[1 if req.weapon.forte else 0], "impalement": _inner(impalement),
        "charger": {"id": charger.id, "body": charger.body, "damage": damage, "body_after": after,
                    "incapacitated": incapacitated},
        "charge_void": incapacitated, "charge": charge, "pole": req.weapon.pole, "heavy": heavy,
    }
    return Rolled(seed, req.ruleset, data)
