"""Compile a typed ER request into the kernels' flat strike rows.

Everything the rules decide before a die is rolled happens here: which dice a pool
has (ER-3, ER-12, ER-13), the to-hit modifier (ER-4, ER-5, ER-14, ER-15, ER-16),
the AC (ER-6, ER-16), whether and from what face a strike crits (ER-8, ER-15), the
resistance state (ER-10). Impossible attacks are refused here with a path.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Optional

from . import _layout as L
from .errors import DiceError, LimitError, RulesError, SchemaError
from .schema import (
    CONDITIONS, COVERS, CRIT_STYLES, DAMAGE_TYPES, RULESETS, SIZES, STYLES, Attacker,
    ProfileStrike, Target, choice, key_path,
)

MAX_SKILL_DICE = 5
MAX_STRIKES = 256
MAX_TARGETS = 4096
MAX_ROLLS = 200_000
SEED_LIMIT = 1 << 64
SCORE_RANGE = (-10, 40)
BONUS_RANGE = (-100, 100)
AC_RANGE = (-100, 200)

SIZE_BONUS = {"tiny": 0, "small": 0, "medium": 0, "large": 1, "huge": 2, "giant": 3, "colossal": 4}
TYPE_INDEX = {name: i for i, name in enumerate(DAMAGE_TYPES)}
COVER_AC = {"none": 0, "half": 2, "three-quarters": 5, "full": 0}

CANNOT_ATTACK = ("incapacitated", "paralyzed", "petrified", "stunned", "unconscious", "nauseated")
ATTACKER_DISADVANTAGE = ("blind", "held-breath", "asphyxiating", "poisoned", "prone",
                         "restrained", "frightened", "bound")
TARGET_ADVANTAGE = ("asphyxiating", "blind", "bound", "paralyzed", "petrified", "restrained", "stunned")
RESISTANCE_NAMES = {L.R_NORMAL: "normal", L.R_HALF: "resistant", L.R_DOUBLE: "vulnerable",
                    L.R_IMMUNE: "immune"}
OTHER_RULESETS = ("worldwalker", "cartyrion", "old-school")


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


@dataclass(slots=True)
class TargetInfo:
    """A checked target and its index in the kernel arrays."""

    id: str
    index: int
    spec: Target
    path: str


def check_range(value: int, low: int, high: int, path: str, what: str) -> int:
    """A number within [low, high], or a SchemaError naming the bounds."""
    if not low <= value <= high:
        raise SchemaError(path, f"{what} {value} is out of range ({low} to {high})")
    return value


def check_ruleset(ruleset: str) -> None:
    if ruleset in RULESETS:
        return
    if ruleset in OTHER_RULESETS:
        raise SchemaError("$.ruleset", f"ruleset {ruleset!r} is not resolved by the attack engine yet "
                          f"(supported: {', '.join(RULESETS)})")
    choice(ruleset, RULESETS, "$.ruleset", "ruleset")


def check_seed(seed: Optional[int], path: str = "$.seed") -> Optional[int]:
    if seed is not None and not 0 <= seed < SEED_LIMIT:
        raise SchemaError(path, f"seed {seed} is out of range (0 to 2**64 - 1)")
    return seed


def faces(n: int) -> str:
    """'1 face', '3 faces': how many injected faces, for messages."""
    return f"{n} face" if n == 1 else f"{n} faces"


def check_rolls(rolls: Optional[list[int]], largest: int = 20) -> Optional[array]:
    """Injected faces as an int32 buffer; each must fit the largest die of the ruleset."""
    if rolls is None:
        return None
    if not rolls:
        raise SchemaError("$.rolls", "an empty list: give the faces in draw order, or leave rolls out")
    if len(rolls) > MAX_ROLLS:
        raise LimitError("$.rolls", f"{len(rolls)} faces, the most is {MAX_ROLLS}")
    for i, face in enumerate(rolls):
        if not 1 <= face <= largest:
            raise DiceError(f"$.rolls[{i}]", f"face {face} is out of range (1 to {largest})")
    return array("i", rolls)


def check_names(names: list[str], allowed: tuple[str, ...], path: str, what: str) -> frozenset[str]:
    for i, name in enumerate(names):
        choice(name, allowed, f"{path}[{i}]", what)
    return frozenset(names)


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
            raise RulesError(f"{path}.conditions", f"a {name} attacker cannot attack (ER-14)")
    return conditions


def check_targets(targets: dict[str, Target], path: str = "$.targets") -> dict[str, TargetInfo]:
    """Check every target; returns them indexed in request order."""
    if not targets:
        raise SchemaError(path, "no targets: give at least one")
    if len(targets) > MAX_TARGETS:
        raise LimitError(path, f"{len(targets)} targets, the most is {MAX_TARGETS}")
    infos = {}
    for index, (tid, spec) in enumerate(targets.items()):
        tpath = key_path(path, tid)
        if not tid:
            raise SchemaError(path, "a target id is empty")
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
        infos[tid] = TargetInfo(tid, index, spec, tpath)
    return infos


def modifier(score: Optional[int], explicit: Optional[int]) -> int:
    """ER-4: the explicit modifier wins; else floor((score - 2) / 2)."""
    if explicit is not None:
        return explicit
    return (score - 2) // 2


def resistance_state(target: Target, damage_type: str) -> int:
    """ER-10: immune → 0; resistant and vulnerable together → normal."""
    if damage_type in target.immune:
        return L.R_IMMUNE
    resistant = damage_type in target.resistant
    vulnerable = damage_type in target.vulnerable
    if resistant and not vulnerable:
        return L.R_HALF
    if vulnerable and not resistant:
        return L.R_DOUBLE
    return L.R_NORMAL


def compile_strike(strike: ProfileStrike, path: str, attacker: Attacker, attacker_path: str,
                   attacker_conditions: frozenset[str], target: TargetInfo,
                   action_advantage: bool, action_disadvantage: bool,
                   target_path: Optional[str] = None) -> tuple[list[int], StrikeMeta]:
    """One plan row (see `_layout`) and its metadata, or an error with the strike's path.

    `target_path` is where the target was chosen (the strike's own `target` field by
    default; a bulk request's `attacks` entry otherwise).
    """
    target_path = target_path or f"{path}.target"
    choice(strike.style, STYLES, f"{path}.style", "style")
    choice(strike.damage_type, DAMAGE_TYPES, f"{path}.damage_type", "damage type")
    if strike.dice > MAX_SKILL_DICE:
        raise SchemaError(f"{path}.dice", f"{strike.dice} skill dice, the most is {MAX_SKILL_DICE} (ER-3)")
    if strike.dice < 1:
        raise SchemaError(f"{path}.dice", f"{strike.dice} skill dice, a strike needs at least 1 (ER-3)")
    check_range(strike.bonus, *BONUS_RANGE, f"{path}.bonus", "bonus")
    ranged = strike.method == "range"
    if ranged and strike.weight:
        raise SchemaError(f"{path}.weight", "ranged weapons have no weight component (ER-4)")
    check_range(strike.weight, 0, 2, f"{path}.weight", "weight")
    crit_capable = strike.crit if strike.crit is not None else strike.style in CRIT_STYLES
    if strike.crit_range is not None:
        check_range(strike.crit_range, 2, 20, f"{path}.crit_range", "crit range")
        if not crit_capable:
            raise SchemaError(f"{path}.crit_range", f"a {strike.style} strike cannot crit unless "
                              "`crit` is true (ER-8)")
    if ranged:
        score, explicit, attribute = attacker.agility, attacker.agility_mod, "agility"
    else:
        score, explicit, attribute = attacker.strength, attacker.strength_mod, "strength"
    if score is None:
        raise SchemaError(f"{attacker_path}.{attribute}", f"the {strike.method} strike at {path} "
                          f"needs the attacker's {attribute} score (ER-4)")
    spec = target.spec
    tconds = spec.conditions
    if spec.cover == "full" and ranged:
        raise RulesError(target_path, f"target {target.id!r} has full cover: no ranged attack "
                         "is possible (ER-16)")
    if ranged and "underwater" in attacker_conditions and strike.style != "archery":
        raise RulesError(f"{path}.style", f"underwater, a {strike.style} ranged attack is impossible; "
                         "only archery works (ER-14)")

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
    for name in ("invisible", "defending"):
        if name in tconds:
            disadvantage_from.append(f"target {name}")
    sneak = strike.sneak
    if sneak is not False:
        if disadvantage_from:
            where = "" if target_path == f"{path}.target" else f" against {target_path}"
            raise RulesError(f"{path}.sneak", "a sneak attack cannot be made at disadvantage "
                             f"(disadvantage from: {', '.join(disadvantage_from)}){where} (ER-13)")
        advantage_from.append("sneak attack")
    has_adv = bool(advantage_from) and not disadvantage_from
    has_dis = bool(disadvantage_from) and not advantage_from
    sneak_die = sneak is True

    penalty = max(5 if "bound" in attacker_conditions else 0,
                  2 if "shaken" in attacker_conditions else 0,
                  3 if "invisible" in tconds else 0)
    to_hit = (score + SIZE_BONUS[attacker.size] + (SIZE_BONUS[spec.size] if ranged else 0)
              + strike.bonus - penalty - attacker.obscurement)
    ac = spec.ac_by_type.get(strike.damage_type, spec.ac) + COVER_AC[spec.cover]
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
    row[L.P_CRIT] = crit_thr
    row[L.P_AUTO_CRIT] = auto_crit
    row[L.P_WEIGHT] = 0 if ranged else strike.weight
    row[L.P_MOD] = modifier(score, explicit)
    row[L.P_RESIST] = resist
    row[L.P_ONLY_CHAIN] = int("petrified" in tconds)
    row[L.P_CRIT_PROOF] = int(spec.crit_proof)
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
    )
    return row, meta
