"""Enchanted Realms "Getting the Drop" (seed 000, after ER-13's sneak attack): a sneak attack
whose damage is held as a threat, then inflicted, the victim's feat halving it.

Two requests of one kind, as the two moments at the table:

- `attack` (getting the drop): "the player rolls the dice as an attack but announces that
  damage will not be inflicted". The attack is an ER attack request (without seed or
  rolls) whose every strike is a sneak attack (ER-13: "this action can only be taken as a
  sneak attack") at one victim. It is rolled as any attack; the damage the victim would
  take (its resistances counted) is **held**, not dealt: the result's `held`. Nothing has
  landed, so nothing follows a blow yet: no shock save (ER-13), no grapple release
  (ER-21), and a held shot is not loosed, so no stray (ER-17: friendly fire is refused).
  A victim that cannot surrender (`surrenders: false`: "a wild animal or zombie") is not
  a valid target: "the GM will inform the player to inflict the damage for the sneak
  attack", so the attack is resolved as the plain sneak attack it is, its damage dealt
  (`inflicted`) and its follow-ups rolled as usual.
- `inflict` (the assailant deals the held damage, on a later action or reaction): the
  victim "is permitted either Strength or Agility to perform a feat save (DC:20) to
  suffer only half damage", at advantage with the foul-play skill; "for each combat round
  after (or one minute if during non-combat negotiations), the DC drops by one point to a
  minimum of a DC:14": DC = max(20 - rounds, 14). The victim's own conditions count as on
  every Body feat (ER-12/ER-14, `feats.py`). Half is rounded down, as every halving of
  damage in these rules (ER-10). When the victim's `body_max` is given and the damage
  dealt is at least half of it, the ER-13 shock save it calls for is named (DC 5 + the
  damage; roll it with the `save` kind).

Draw order: getting the drop draws the attack's dice (docs/ENGINE.md §2, steps 1 and 3 for
a victim that cannot surrender; step 1 alone otherwise); inflicting draws one d20, or two
at advantage or disadvantage, the first first (none when the victim fails automatically).

The inflicting result carries the exact chance of the half and the exact mean damage.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

from ...dice import Dice, KernelError
from ...errors import RequestError, RulesError, SchemaError
from ...requests import check_names, check_range, decode, say
from ..._facts import CONDITIONS, SCORE_RANGE
from ..rows import Rolled
from .attack import AttackPlan, compile_attack, roll_attack
from .feats import Situation, kept_weights, roll_kept, situation
from .followups import dice_error
from .plan import modifier
from .schema import NAME, DropRequest
from .shock import calls_for_save, save_dc

#: Getting the Drop: the feat's DC at first, the lowest it falls to, one point a round.
DROP_DC = 20
DROP_DC_FLOOR = 14


@dataclass(slots=True)
class DropPlan:
    request: DropRequest
    attack: Optional[AttackPlan] = None
    victim: str = ""
    sit: Optional[Situation] = None
    mod: int = 0
    total: int = 0
    dc: int = DROP_DC


def _frac(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def _moved(error: RequestError) -> RequestError:
    path = error.path
    if path == "$" or path.startswith(("$.", "$[")):
        path = "$.attack" + path[1:]
    return type(error)(path, error.reason)


def _compile_attack(req: DropRequest) -> DropPlan:
    attack = dict(req.attack or {})
    if attack.get("ruleset", NAME) != NAME:
        raise SchemaError("$.attack.ruleset", say("drop_attack_ruleset"))
    for key in ("seed", "rolls"):
        if attack.get(key) is not None:
            raise SchemaError(f"$.attack.{key}", say("drop_attack_dice", path=f"$.attack.{key}"))
    strikes = attack.get("strikes")
    victim = ""
    if isinstance(strikes, list) and strikes and all(isinstance(s, dict) for s in strikes):
        victim = strikes[0].get("target", "")
        inner = []
        for i, strike in enumerate(strikes):
            path = f"$.attack.strikes[{i}]"
            if strike.get("sneak", False) is False:
                raise RulesError(f"{path}.sneak", say("drop_not_sneak", path=path))
            if strike.get("target") != victim:
                raise RulesError(f"{path}.target", say("drop_one_victim", target=repr(strike.get("target")),
                                                       victim=repr(victim)))
            if req.surrenders:  # a held shot is not loosed: it cannot stray (ER-17)
                if strike.get("friendly_fire") is True:
                    raise RulesError(f"{path}.friendly_fire", say("drop_friendly_fire"))
                strike = {**strike, "friendly_fire": False}
            inner.append(strike)
        attack["strikes"] = inner
        targets = attack.get("targets")
        if req.surrenders and isinstance(targets, dict) and isinstance(targets.get(victim), dict):
            # Nothing lands at a drop: no shock save (nor its body_max test), no grapple release.
            held = {k: v for k, v in targets[victim].items() if k not in ("save_bonus", "grappling", "body_max")}
            attack["targets"] = {**targets, victim: held}
    try:
        plan = compile_attack(attack)
    except RequestError as exc:
        raise _moved(exc) from None
    return DropPlan(req, attack=plan, victim=victim)


def compile_drop(request: Any) -> DropPlan:
    """Check a drop request (the drop itself, or the damage inflicted) and compile it."""
    req: DropRequest = decode(request, DropRequest)
    if (req.attack is None) == (req.inflict is None):
        raise SchemaError("$", say("drop_one_way", given="both" if req.attack is not None else "neither"))
    if req.attack is not None:
        return _compile_attack(req)
    inflict = req.inflict
    assert inflict is not None
    victim = inflict.victim
    check_range(inflict.held, 0, 1_000_000, "$.inflict.held", "held damage")
    check_range(inflict.rounds, 0, 100_000, "$.inflict.rounds", "rounds")
    if not victim.id:
        raise SchemaError("$.inflict.victim.id", say("empty_target_id"))
    if victim.score is None and victim.modifier is None:
        raise SchemaError("$.inflict.victim.score", say("drop_needs", attribute=victim.attribute))
    if victim.score is not None:
        check_range(victim.score, *SCORE_RANGE, "$.inflict.victim.score", "score")
    if victim.modifier is not None:
        check_range(victim.modifier, -20, 20, "$.inflict.victim.modifier", "modifier")
    check_range(victim.bonus, -50, 50, "$.inflict.victim.bonus", "bonus")
    if victim.body_max is not None:
        check_range(victim.body_max, 1, 1_000_000, "$.inflict.victim.body_max", "maximum Body")
    conditions = check_names(victim.conditions, CONDITIONS, "$.inflict.victim.conditions", "condition")
    sit = situation(conditions, "feat", victim.advantage or victim.foul_play, victim.disadvantage)
    if victim.foul_play:  # named for what it is, not as the request's own flag
        sit.advantage_from = [("foul play" if s == "request" and not victim.advantage else s)
                              for s in sit.advantage_from]
    mod = modifier(victim.score, victim.modifier)
    total = mod + victim.bonus + (sit.penalty[1] if sit.penalty else 0)
    return DropPlan(req, victim=victim.id, sit=sit, mod=mod, total=total,
                    dc=max(DROP_DC - inflict.rounds, DROP_DC_FLOOR))


def _chance(sit: Situation, total: int, dc: int) -> Fraction:
    if sit.fails is not None:
        return Fraction(0)
    weights = kept_weights(20, sit)
    return Fraction(sum(w for face, w in weights.items() if face + total >= dc), sum(weights.values()))


def _shock(damage: int, body_max: Optional[int]) -> Optional[dict[str, int]]:
    """ER-13: damage of one sneak attack at least half the victim's maximum Body calls for a
    Resilience save, DC 5 + the damage (named here, rolled with the `save` kind)."""
    if body_max is None or not calls_for_save(damage, body_max):
        return None
    return {"dc": save_dc(damage)}


def roll_drop(plan: DropPlan, dice: Dice, seed: int) -> Rolled:
    """Roll a checked drop request (see the module doc for the draw order)."""
    req = plan.request
    data: dict[str, Any] = {"ruleset": req.ruleset, "seed": seed, "injected": dice.injected,
                            "phase": "drop" if plan.attack is not None else "inflict", "victim": plan.victim}
    if plan.attack is not None:
        try:
            result = roll_attack(plan.attack, dice, seed)
        except RequestError as exc:
            if exc.path == "$.rolls" or exc.path.startswith("$.rolls["):
                raise type(exc)(exc.path, exc.reason.replace("$.strikes", "$.attack.strikes")) from None
            raise _moved(exc) from None
        damage = result.target_damage[plan.victim]
        attack = result.to_dict()
        attack.pop("backend")
        data.update({"surrenders": req.surrenders, "attack": attack,
                     "held": damage if req.surrenders else None,
                     "inflicted": 0 if req.surrenders else damage, "release": None})
        return Rolled(seed, req.ruleset, data)
    inflict = req.inflict
    assert inflict is not None and plan.sit is not None
    sit = plan.sit
    rolled: list[int] = []
    kept: Optional[int] = None
    if sit.fails is None:
        try:
            rolled, kept = roll_kept(dice, 20, sit)
        except KernelError as exc:
            raise dice_error(exc, dice.rolls, "the victim's feat") from None
    total = None if kept is None else kept + plan.total
    halved = total is not None and total >= plan.dc
    damage = inflict.held // 2 if halved else inflict.held
    p = _chance(sit, plan.total, plan.dc)
    mean = p * (inflict.held // 2) + (1 - p) * inflict.held
    data.update({
        "surrenders": True, "attack": None, "held": inflict.held, "inflicted": damage,
        "release": {"rounds": inflict.rounds, "dc": plan.dc, "attribute": inflict.victim.attribute,
                    "modifier": plan.mod, "bonus": inflict.victim.bonus, "total_modifier": plan.total,
                    "foul_play": inflict.victim.foul_play, "situation": sit.to_dict(), "dice": rolled, "kept": kept,
                    "total": total, "halved": halved, "p_half": float(p), "p_half_exact": _frac(p),
                    "mean_inflicted": float(mean), "mean_inflicted_exact": _frac(mean),
                    "shock_save": _shock(damage, inflict.victim.body_max)},
    })
    return Rolled(seed, req.ruleset, data)
