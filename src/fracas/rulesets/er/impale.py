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

Left alone, named here so a GM knows: the glaive's heavy property (disadvantage on
a natural 18-20) and the ula's exception to the piercing rule; give
`disadvantage`-free requests and a piercing damage type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import msgspec

from ...dice import Dice
from ...errors import RequestError, RulesError, SchemaError
from ...requests import check_range, choice, decode, key_path, say
from ..._facts import DAMAGE_TYPES, ER_IMPALE_CLOSED, ER_IMPALE_DICE, STYLES
from ..rows import Rolled
from .attack import AttackPlan, compile_attack, roll_attack
from .schema import NAME, ImpaleRequest


@dataclass(slots=True)
class ImpalePlan:
    request: ImpaleRequest
    impalement: AttackPlan
    charge: Optional[AttackPlan]


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
    if weapon.damage_type != "piercing":
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
    return ImpalePlan(req, impalement, charge)


def _inner(result: Any) -> dict[str, Any]:
    """An attack result inside this one: the same dict, less what the outer one says (backend)."""
    data: dict[str, Any] = result.to_dict()
    data.pop("backend")
    return data


def roll_impale(plan: ImpalePlan, dice: Dice, seed: int) -> Rolled:
    """The impalement, then the charge unless the charger is incapacitated."""
    req = plan.request
    charger = req.charger
    try:
        impalement = roll_attack(plan.impalement, dice, seed)
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
        "charge_void": incapacitated, "charge": charge,
    }
    return Rolled(seed, req.ruleset, data)
