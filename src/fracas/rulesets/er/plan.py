"""Compile a typed ER request into the kernels' flat strike rows.

Everything the rules decide before a die is rolled happens here: which dice a pool
has (ER-3, ER-12, ER-13), the to-hit modifier (ER-4, ER-5, ER-14, ER-15, ER-16),
the AC (ER-6, ER-16), whether and from what face a strike crits (ER-8, ER-15), the
resistance state (ER-10). Impossible attacks are refused here with a path.
"""

from __future__ import annotations

import msgspec

from dataclasses import dataclass, field
from typing import Optional

from ... import _layout as L
from ...errors import LimitError, RulesError, SchemaError
from ...requests import check_names, check_range, choice, key_path, say
from .schema import (
    CONDITIONS, COVERS, CRIT_STYLES, DAMAGE_TYPES, MECHANICAL_STYLES, SIZES, STYLE_METHOD, STYLES,
    Attacker, Grapple, ProfileStrike, Target,
)
from ..._facts import (  # noqa: F401 - the limits and condition tables, from the shared spec
    AC_RANGE, ATTACKER_DISADVANTAGE, BONUS_RANGE, CANNOT_ATTACK, COVER_AC, DEFENDING_UNSEEING, DEFENDING_UNSEEN,
    MAX_NEARBY, MAX_SKILL_DICE, MAX_STRIKES, MAX_TARGETS, SCORE_RANGE, SIZE_BONUS, TARGET_ADVANTAGE,
)

TYPE_INDEX = {name: i for i, name in enumerate(DAMAGE_TYPES)}
RESISTANCE_NAMES = {L.R_NORMAL: "normal", L.R_HALF: "resistant", L.R_DOUBLE: "vulnerable",
                    L.R_IMMUNE: "immune"}


@dataclass(slots=True)
class StrikeMeta:
    """What the result needs to know about a compiled strike."""

    target: str
    method: str
    style: str
    damage_type: str
    advantage: bool
    disadvantage: bool
    sneak: object
    to_hit: int
    ac: int
    crit_range: Optional[int]
    resistance: str
    sources: tuple[str, ...]
    advantage_from: list[str] = field(default_factory=list)
    disadvantage_from: list[str] = field(default_factory=list)
    friendly_fire: bool = False
    #: ER-16/ER-17: a shot at a creature behind full cover, asked for under friendly fire:
    #: it cannot hit its target and is resolved as a miss that strays.
    full_cover: bool = False


@dataclass(slots=True)
class TargetInfo:
    """A checked target and its index in the kernel arrays."""

    id: str
    index: int
    spec: Target
    path: str
    #: Its fields as JSON when it has no bystanders (targets with the same are alike and
    #: compile alike), else None.
    alike: Optional[bytes] = None


def check_attacker(attacker: Attacker, path: str) -> frozenset[str]:
    """Check the attacker; returns its conditions. A condition that forbids attacking is refused."""
    for name in ("strength", "agility"):
        value = getattr(attacker, name)
        if value is not None:
            check_range(value, *SCORE_RANGE, f"{path}.{name}", "score")
    for name in ("strength_mod", "agility_mod"):
        value = getattr(attacker, name)
        if value is not None:
            check_range(value, -20, 20, f"{path}.{name}", "modifier")
    choice(attacker.size, SIZES, f"{path}.size", "size")
    check_range(attacker.swim_speed, 0, 1000, f"{path}.swim_speed", "swim speed")
    check_range(attacker.obscurement, 0, 20, f"{path}.obscurement", "obscurement penalty")
    conditions = check_names(attacker.conditions, CONDITIONS, f"{path}.conditions", "condition")
    for name in CANNOT_ATTACK:
        if name in conditions:
            raise RulesError(f"{path}.conditions", say("cannot_attack", condition=name))
    if attacker.charmed_by is not None and not attacker.charmed_by:
        raise SchemaError(f"{path}.charmed_by", say("charmed_by_empty"))
    return conditions


def check_targets(targets: dict[str, Target], path: str = "$.targets") -> dict[str, TargetInfo]:
    """Check every target; returns them indexed in request order."""
    if not targets:
        raise SchemaError(path, say("no_targets"))
    if len(targets) > MAX_TARGETS:
        raise LimitError(path, say("too_many", count=len(targets), what="targets", most=MAX_TARGETS))
    infos = {}
    checked: set[bytes] = set()  # alike targets without bystanders are checked once
    for index, (tid, spec) in enumerate(targets.items()):
        tpath = key_path(path, tid)
        if not tid:
            raise SchemaError(path, say("empty_target_id"))
        alike = None if spec.nearby else msgspec.json.encode(spec)
        if alike is not None and alike in checked:
            infos[tid] = TargetInfo(tid, index, spec, tpath, alike)
            continue
        check_range(spec.ac, *AC_RANGE, f"{tpath}.ac", "AC")
        for dtype, ac in spec.ac_by_type.items():
            choice(dtype, DAMAGE_TYPES, f"{tpath}.ac_by_type", "damage type")
            check_range(ac, *AC_RANGE, key_path(f"{tpath}.ac_by_type", dtype), "AC")
        choice(spec.size, SIZES, f"{tpath}.size", "size")
        choice(spec.cover, COVERS, f"{tpath}.cover", "cover")
        for name in ("resistant", "vulnerable", "immune"):
            check_names(getattr(spec, name), DAMAGE_TYPES, f"{tpath}.{name}", "damage type")
        check_names(spec.conditions, CONDITIONS, f"{tpath}.conditions", "condition")
        if spec.body_max is not None:
            check_range(spec.body_max, 1, 1_000_000, f"{tpath}.body_max", "maximum Body")
        if spec.save_bonus is not None:
            check_range(spec.save_bonus, -50, 50, f"{tpath}.save_bonus", "save bonus")
        if len(spec.nearby) > MAX_NEARBY:
            raise LimitError(f"{tpath}.nearby", say("nearby_max", count=len(spec.nearby), target=repr(tid),
                                                    most=MAX_NEARBY))
        if spec.grappling is not None:
            check_grapple(spec.grappling, f"{tpath}.grappling")
        for i, other in enumerate(spec.nearby):
            if other == tid:
                raise SchemaError(f"{tpath}.nearby[{i}]", say("nearby_self"))
            if other not in targets:
                raise SchemaError(f"{tpath}.nearby[{i}]", say("nearby_unknown", creature=repr(other),
                                                               target=repr(tid), targets=", ".join(targets)))
        infos[tid] = TargetInfo(tid, index, spec, tpath, alike)
        if alike is not None:
            checked.add(alike)
    return infos


def check_grapple(hold: Grapple, path: str) -> None:
    """ER-21: the grappler's Strength (score or modifier) and other feat bonus, when given."""
    if hold.strength is not None:
        check_range(hold.strength, *SCORE_RANGE, f"{path}.strength", "score")
    if hold.strength_mod is not None:
        check_range(hold.strength_mod, -20, 20, f"{path}.strength_mod", "modifier")
    check_range(hold.bonus, -50, 50, f"{path}.bonus", "bonus")


def modifier(score: Optional[int], explicit: Optional[int]) -> int:
    """ER-4: the explicit modifier wins; else floor((score - 2) / 2)."""
    if explicit is not None:
        return explicit
    if score is None:
        raise ValueError("a modifier needs the score or the explicit modifier")
    return (score - 2) // 2


def defender_sees(target_conditions: "list[str] | frozenset[str]", attacker_conditions: frozenset[str]) -> bool:
    """ER-15: whether a defending target can see the incoming attacks ("provided it is
    possible for the character [to] see the incoming attacks"): not when it is blind,
    unconscious or petrified, nor when the attacker is invisible. Only then does its
    defending put the attack at disadvantage."""
    return not (any(name in target_conditions for name in DEFENDING_UNSEEING)
                or any(name in attacker_conditions for name in DEFENDING_UNSEEN))


def resistance_state(target: Target, damage_type: str) -> int:
    """ER-10: immune → 0; resistant and vulnerable together → normal.

    An underwater target resists fire (ER-15), on top of its own resistances; several
    sources of the same resistance count once.
    """
    if damage_type in target.immune:
        return L.R_IMMUNE
    resistant = damage_type in target.resistant or (
        damage_type == "fire" and "underwater" in target.conditions)
    vulnerable = damage_type in target.vulnerable
    if resistant and not vulnerable:
        return L.R_HALF
    if vulnerable and not resistant:
        return L.R_DOUBLE
    return L.R_NORMAL


def compile_strike(strike: ProfileStrike, path: str, attacker: Attacker, attacker_path: str,
                   attacker_conditions: frozenset[str], target: TargetInfo,
                   action_advantage: bool, action_disadvantage: bool,
                   target_path: Optional[str] = None, strays: bool = True) -> tuple[list[int], StrikeMeta]:
    """One plan row (see `_layout`) and its metadata, or an error with the strike's path.

    `target_path` is where the target was chosen (the strike's own `target` field by
    default; a bulk request's `attacks` entry otherwise). `strays`: whether the caller
    resolves stray shots (ER-17; a bulk request does not).
    """
    target_path = target_path or f"{path}.target"
    choice(strike.style, STYLES, f"{path}.style", "style")
    style_method = STYLE_METHOD[strike.style]
    if style_method != strike.method:
        raise SchemaError(f"{path}.style", say("style_method", style=strike.style, style_method=style_method,
                                               method=strike.method))
    choice(strike.damage_type, DAMAGE_TYPES, f"{path}.damage_type", "damage type")
    if strike.dice > MAX_SKILL_DICE:
        raise SchemaError(f"{path}.dice", say("skill_dice_max", dice=strike.dice, most=MAX_SKILL_DICE))
    if strike.dice < 1:
        raise SchemaError(f"{path}.dice", say("skill_dice_min", dice=strike.dice))
    check_range(strike.bonus, *BONUS_RANGE, f"{path}.bonus", "bonus")
    ranged = strike.method == "range"
    if ranged and strike.weight:
        raise SchemaError(f"{path}.weight", say("ranged_weight"))
    check_range(strike.weight, 0, 2, f"{path}.weight", "weight")
    # ER-8: only melee styles crit by default; a ranged strike crits only when marked.
    crit_capable = strike.crit if strike.crit is not None else strike.style in CRIT_STYLES
    if strike.crit_range is not None:
        check_range(strike.crit_range, 2, 20, f"{path}.crit_range", "crit range")
        if not crit_capable:
            raise SchemaError(f"{path}.crit_range", say("crit_range_not_capable", style=strike.style))
    if ranged:
        score, explicit, attribute = attacker.agility, attacker.agility_mod, "agility"
    else:
        score, explicit, attribute = attacker.strength, attacker.strength_mod, "strength"
    if score is None:
        raise SchemaError(f"{attacker_path}.{attribute}", say("needs_score", method=strike.method, path=path,
                                                               attribute=attribute))
    # ER-14: a charmed creature "cannot attack the charmer".
    if attacker.charmed_by is not None and attacker.charmed_by == target.id:
        raise RulesError(target_path, say("charmed_attack", target=repr(target.id),
                                          path=f"{attacker_path}.charmed_by"))
    spec = target.spec
    tconds = spec.conditions
    # ER-16: full cover refuses a ranged strike, unless the request asks for friendly fire:
    # then it is a miss that strays (ER-17), "if firing upon that target anyway, the
    # friendly fire rule would be used".
    full_cover = spec.cover == "full" and ranged
    if full_cover and not (strays and strike.friendly_fire):
        if strays:
            raise RulesError(target_path, say("full_cover", target=repr(target.id)))
        raise RulesError(target_path, say("bulk_full_cover", target=repr(target.id)))
    if ranged and "bound" in attacker_conditions and strike.style in MECHANICAL_STYLES:
        raise RulesError(f"{path}.style", say("bound_mechanical", style=strike.style))
    if ranged and "underwater" in attacker_conditions and strike.style != "archery":
        raise RulesError(f"{path}.style", say("underwater_ranged", style=strike.style))

    advantage_from, disadvantage_from = [], []
    if strike.advantage:
        advantage_from.append("strike")
    if action_advantage:
        advantage_from.append("action")
    if strike.disadvantage:
        disadvantage_from.append("strike")
    if action_disadvantage:
        disadvantage_from.append("action")
    for name in ATTACKER_DISADVANTAGE:
        if name in attacker_conditions:
            disadvantage_from.append(f"attacker {name}")
    if "underwater" in attacker_conditions and (ranged or attacker.swim_speed < 20):
        disadvantage_from.append("attacker underwater")
    for name in TARGET_ADVANTAGE:
        if name in tconds:
            advantage_from.append(f"target {name}")
    for name in ("prone", "unconscious"):
        if name in tconds:
            (disadvantage_from if ranged else advantage_from).append(f"target {name}")
    if "invisible" in tconds:
        disadvantage_from.append("target invisible")
    if "defending" in tconds and defender_sees(tconds, attacker_conditions):
        disadvantage_from.append("target defending")
    sneak = strike.sneak
    if sneak is not False:
        if disadvantage_from:
            where = "" if target_path == f"{path}.target" else f" against {target_path}"
            raise RulesError(f"{path}.sneak", say("sneak_disadvantage", sources=", ".join(disadvantage_from),
                                                  where=where))
        if not (ranged or strike.weight == 0 or strike.reach or strike.sneak_ok):
            raise RulesError(f"{path}.sneak", say("sneak_weapon", style=strike.style, weight=strike.weight))
        advantage_from.append("sneak attack")
    has_adv = bool(advantage_from) and not disadvantage_from
    has_dis = bool(disadvantage_from) and not advantage_from
    sneak_die = sneak is True
    # ER-17: a shot under the friendly-fire rule; asked for, or by default under
    # three-quarters cover (ER-16), by a blind attacker or at an invisible target, when
    # other creatures are listed near the target.
    if strike.friendly_fire and not ranged:
        raise RulesError(f"{path}.friendly_fire", say("friendly_fire_melee", method=strike.method))
    if strike.friendly_fire is None:
        friendly_fire = ranged and bool(spec.nearby) and (
            spec.cover == "three-quarters" or "blind" in attacker_conditions or "invisible" in tconds)
    else:
        friendly_fire = strike.friendly_fire

    penalty = max(5 if "bound" in attacker_conditions else 0,
                  2 if "shaken" in attacker_conditions else 0,
                  3 if "invisible" in tconds else 0)
    to_hit = (score + SIZE_BONUS[attacker.size] + (SIZE_BONUS[spec.size] if ranged else 0)
              + strike.bonus - penalty - attacker.obscurement)
    # ER-16: cover protects against ranged strikes only.
    ac = spec.ac_by_type.get(strike.damage_type, spec.ac) + (COVER_AC[spec.cover] if ranged else 0)
    crit_thr = (strike.crit_range or 20) if crit_capable and not has_dis else 0
    auto_crit = 1 if ("paralyzed" in tconds and not has_dis) else 0
    resist = resistance_state(spec, strike.damage_type)
    row = [0] * L.PLAN_WIDTH
    row[L.P_SKILL] = strike.dice
    row[L.P_ADV] = int(has_adv)
    row[L.P_SNEAK] = int(sneak_die)
    row[L.P_DISADV] = int(has_dis)
    row[L.P_TO_HIT] = to_hit
    row[L.P_AC] = ac
    # A full-cover shot rolls its pool in strike order but cannot crit or deal damage at
    # its target (followups.full_cover_misses marks its dice as missing).
    row[L.P_CRIT] = 0 if full_cover else crit_thr
    row[L.P_AUTO_CRIT] = 0 if full_cover else auto_crit
    row[L.P_WEIGHT] = 0 if ranged else strike.weight
    row[L.P_MOD] = modifier(score, explicit)
    row[L.P_RESIST] = resist
    row[L.P_ONLY_CHAIN] = int("petrified" in tconds or full_cover)
    row[L.P_CHAIN_DODGEABLE] = int(spec.crit_proof)
    row[L.P_NO_DODGE] = int("restrained" in tconds)
    row[L.P_TARGET] = target.index
    row[L.P_TYPE] = TYPE_INDEX[strike.damage_type]
    sources = (("skill",) * strike.dice + (("advantage",) if has_adv else ())
               + (("sneak",) if sneak_die else ()) + (("disadvantage",) if has_dis else ()))
    meta = StrikeMeta(
        target=target.id, method=strike.method, style=strike.style,
        damage_type=strike.damage_type, advantage=has_adv, disadvantage=has_dis, sneak=sneak,
        to_hit=to_hit, ac=ac, crit_range=crit_thr or None,
        resistance=RESISTANCE_NAMES[resist], sources=sources,
        advantage_from=advantage_from, disadvantage_from=disadvantage_from,
        friendly_fire=friendly_fire, full_cover=full_cover,
    )
    return row, meta
