"""Enchanted Realms results, declared once (`fracas.rulesets.results`): the spec writes
the bridge's exact result schemas and the Roll20 contract's result layouts from these; the
compiled core, the pure-Python kernel and the Roll20 engine build these keys, in this
order (the field order: the conformance suite and the Roll20 layout test hold all three
to it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, Optional, Union

import msgspec

from ..._facts import CONDITIONS, DAMAGE_TYPES, RESISTANCES, STYLES
from .. import results as R
from ..results import Count, Shape
from .schema import Method, Sneak

if TYPE_CHECKING:  # for mypy: the names come from facts.toml when the module loads
    DamageType = str
    Style = str
    Resistance = str
    Condition = str
else:
    DamageType = Literal[DAMAGE_TYPES]
    Style = Literal[STYLES]
    Resistance = Literal[RESISTANCES]
    Condition = Literal[CONDITIONS]

#: ER-12: where a die of the pool came from.
Source = Literal["skill", "advantage", "sneak", "disadvantage"]
D20 = Annotated[int, msgspec.Meta(ge=1, le=20)]
Probability = R.Probability


class Die(Shape):
    """One counted d20 of a strike's pool (ER-5): its face, face + to-hit, and whether it hit;
    `avoided` only in a defense roll (ER-22: the player rolls against DC 21 + to-hit)."""

    face: D20
    total: int
    hit: bool
    source: Source
    avoided: Union[bool, R.UnsetType] = R.UNSET


class ChainLink(Shape):
    """One roll of a crit chain (ER-7): a hit adds d3 damage, a 20 rolls again."""

    face: D20
    total: int
    hit: bool
    damage: Annotated[int, msgspec.Meta(ge=0, le=3)]


class StrayDie(Shape):
    """A missed die of a friendly-fire shot, shifted toward a nearby creature (ER-17)."""

    face: D20
    shifted: D20
    total: int
    hit: bool


class Stray(Shape):
    """Where a missed shot under friendly fire went (ER-17): the d8 slot, the creature there
    (None: empty), why, and the shot's dice and damage against it."""

    roll: Annotated[int, msgspec.Meta(ge=1)]
    creature: Optional[str]
    why: str
    ac: Optional[int]
    dice: list[StrayDie]
    crit_chain: list[ChainLink]
    hits: Count
    crit: bool
    base: Count
    modifier: Optional[int]
    resistance: Optional[Resistance]
    damage: Count
    undodgeable: Count


class Strike(Shape):
    """One strike of an attack (docs/ENGINE.md §7)."""

    target: str
    method: Method
    style: Style
    damage_type: DamageType
    advantage: bool
    disadvantage: bool
    sneak: Sneak
    to_hit: int
    ac: int
    crit_range: Optional[int]
    dice: list[Die]
    discarded: Optional[D20]
    crit_chain: list[ChainLink]
    hits: Count
    crit: bool
    base: Count
    modifier: Optional[int]
    resistance: Resistance
    damage: Count
    undodgeable: Count
    friendly_fire: bool
    stray: Optional[Stray]
    defense_dc: Optional[int]


class Penalty(Shape):
    """ER-14: the strongest condition penalty on a roll, as a negative number."""

    condition: Condition
    value: int


class Situation(Shape):
    """What a roller's conditions make of a single-die roll (ER-12, ER-14)."""

    advantage: bool
    disadvantage: bool
    advantage_from: list[str]
    disadvantage_from: list[str]
    penalty: Optional[Penalty]
    automatic_failure: Optional[Condition]


class ShockSave(Shape):
    """ER-13: a Resilience save called for by a heavy sneak attack."""

    dc: int
    roll: Optional[int]
    total: Optional[int]
    passed: Optional[bool]
    incapacitated_actions: Optional[Count]
    dice: list[D20]
    situation: Optional[Situation]


class Feat(Shape):
    """ER-21: one Strength feat of a grappler, for one strike that dealt it body damage."""

    strike: Count
    stray: bool
    damage: Count
    dc: int
    dice: list[D20]
    roll: Optional[int]
    modifier: Optional[int]
    total: Optional[int]
    held: Optional[bool]


class Release(Shape):
    """ER-21: whether a grappler keeps its hold: the feat that decided, and every feat."""

    damage: Count
    dc: int
    roll: Optional[int]
    modifier: Optional[int]
    total: Optional[int]
    held: Optional[bool]
    damage_taken: Count
    feats: list[Feat]
    situation: Situation


class Target(Shape):
    """One target of an attack."""

    damage: Count
    by_type: dict[DamageType, Count]
    undodgeable: Count
    shock_save_dc: Optional[int]
    shock_save: Optional[ShockSave]
    grapple_release: Optional[Release]


class Flee(Shape):
    """ER-20: a flee attack: how far the mover moved, at which speed, with how many dice."""

    moved: Count
    speed: Literal["normal", "rapid"]
    dice: Count


class Impalement(R.Rolled):
    """An attack inside another result (ER-23's impalement and charge): an attack result
    less `backend`, which the outer result gives."""

    strikes: list[Strike]
    targets: dict[str, Target]
    total_damage: Count
    flee: Optional[Flee]
    defense_rolls: bool


# Impalement's fields with `backend` after `seed`, where results hold it: written out, not
# subclassed, since a field's place is the key order the Roll20 contract's layouts check.
class AttackResult(Shape):
    """An attack (`attack.resolve`)."""

    ruleset: str
    seed: R.Seed
    backend: R.Backend
    injected: bool
    strikes: list[Strike]
    targets: dict[str, Target]
    total_damage: Count
    flee: Optional[Flee]
    defense_rolls: bool


# The shared BulkTotals' keys with by_type after damage, where results hold it (a subclass
# would append it): the field order is the key order the Roll20 contract's layouts check.
class BulkTarget(Shape):
    """One target's totals over a bulk request: damage by type, crits, the longest chain."""

    damage: Count
    by_type: dict[DamageType, Count]
    attacks: Count
    attacks_hit: Count
    strikes: Count
    strikes_hit: Count
    crits: Count
    longest_chain: Count
    undodgeable: Count


class BulkGroup(R.BulkGroup):
    """One `attacks` entry of a bulk request, with its crits and what it did not roll:
    `shock_checks`, the times one attack's sneak damage to a target called for an ER-13
    shock save (DC 5 + that damage; not rolled), and `strays_omitted`, the shots under
    the friendly-fire rule that missed entirely, whose ER-17 strays were not rolled."""

    crits: Count
    shock_checks: Count
    strays_omitted: Count


class Listed(Shape):
    __doc__ = R.LISTED

    group: Count
    damage: Count
    strikes: list[Union[Count, Strike]]


class BulkResult(R.Bulk):
    """A bulk request (`attack.bulk`)."""

    targets: dict[str, BulkTarget]
    groups: list[BulkGroup]
    total_damage: Count
    attacks: Union[list[Listed], R.UnsetType] = R.UNSET


class Ranked(R.Ranked):
    """ER-18: one combatant's d10 + Agility modifier, highest first."""


class InitiativeResult(R.Rolled):
    """ER-18 initiative (`initiative.roll`)."""

    order: list[Ranked]


class Bonus(Shape):
    """A situational modifier of a competition, and why (ER-19)."""

    why: str
    value: int


class Side(Shape):
    """One side of a competition (ER-19): its attribute, modifiers and conditions, its
    chance to win, and what gave it advantage or disadvantage."""

    id: str
    attribute: Literal["strength", "agility"]
    modifier: int
    bonus: int
    situation: list[Bonus]
    total_modifier: int
    advantage: bool
    disadvantage: bool
    win_chance: Probability
    conditions: list[Condition]
    advantage_from: list[str]
    disadvantage_from: list[str]
    automatic_failure: Optional[Condition]


class SideRoll(Shape):
    """One side's roll of a competition round: the d20s, the one kept, the total."""

    dice: list[D20]
    kept: D20
    total: int


class Round(Shape):
    """One round of a competition (ties roll again)."""

    challenger: SideRoll
    defender: SideRoll


class SavageRelease(Shape):
    """An escape the victim lost after its savage form hurt the grappler: the grappler's ER-21
    Strength feat, DC 10 + the damage. Without the grappler's Strength the table rolls it
    (`roll`, `total`, `held` null)."""

    dc: int
    dice: list[D20]
    roll: Optional[D20]
    modifier: Optional[int]
    total: Optional[int]
    held: Optional[bool]
    situation: Situation


class Incidental(Shape):
    """Savage form in a grapple or an escape ("ER Grappling: Uncommon Conditions"): the
    victim's kept d12 of the deciding round (`raw`), 8 or more dealing the grappler 1 point of
    the strike's type (ER-10 applied), 12 delivering its poison or special (its save
    triggered); the exact chances over the deciding round (ties rolled again). `p_release`:
    an escape's chance the grappler lets go this way (null when its Strength is unknown;
    null in a grapple, which needs no feat)."""

    by: str
    to: str
    strike: str
    damage_type: DamageType
    poison: bool
    special: Optional[str]
    raw: Optional[Annotated[int, msgspec.Meta(ge=1, le=12)]]
    threshold: int
    dealt: bool
    resistance: Resistance
    damage: Count
    delivered: bool
    release: Optional[SavageRelease]
    p_dealt: Probability
    p_dealt_exact: R.Fraction
    p_delivered: Probability
    p_delivered_exact: R.Fraction
    p_release: Optional[Probability]
    p_release_exact: Optional[R.Fraction]


class CompeteResult(R.Rolled):
    """ER-19 competition (`compete.roll`)."""

    contest: Literal["plain", "grapple", "escape", "shove", "trip"]
    slick: bool
    challenger: Side
    defender: Side
    rounds: list[Round]
    #: Rounds tied: one less than `rounds`; 0 when an automatic failure (ER-14) decided
    #: without a roll (no round, so none tied).
    ties: Annotated[int, msgspec.Meta(ge=0)]
    winner: str
    loser: str
    outcome: str
    #: Savage form's incidental damage on the grappler; null without it (not a grapple or an
    #: escape, no savage form on the victim, or a grappler with savage form of its own).
    incidental: Optional[Incidental]


class Charger(Shape):
    """ER-23: the charger's Body before and after the impalement."""

    id: str
    body: int
    damage: Count
    body_after: int
    incapacitated: bool


class Heavy(Shape):
    """ER-23, a glaive: its skill dice, and whether one showed a natural 18-20 and put the
    impalement at disadvantage (its heavy property)."""

    faces: list[D20]
    disadvantage: bool


class ImpaleResult(R.Rolled):
    """ER-23 impalement (`impale.resolve`): the impalement (an attack result), the charger,
    and the charge's attack result (None when void or not given)."""

    closed: int
    dice: Count
    impalement: Impalement
    charger: Charger
    charge_void: bool
    charge: Optional[Impalement]
    #: the named pole-arm (`weapon.pole`), if any
    pole: Optional[Literal["glaive", "ula"]]
    #: a glaive's heavy property (None for other pole-arms)
    heavy: Optional[Heavy]


class SaveTarget(Shape):
    """One creature's save: its modifiers, the d20 (two at advantage or disadvantage), the
    total, whether it saved, its exact chance to, and its conditions after the effect."""

    id: str
    modifier: int
    bonus: int
    cover: Literal["none", "half", "three-quarters", "full"]
    #: ER-16: +2/+5/+5 on an Agility save against an area effect, else 0.
    cover_bonus: Count
    penalty: Optional[Penalty]
    total_modifier: int
    advantage: bool
    disadvantage: bool
    advantage_from: list[str]
    disadvantage_from: list[str]
    #: The condition that fails the save without a die (ER-14), or None.
    automatic_failure: Optional[Condition]
    dice: list[D20]
    kept: Optional[D20]
    total: Optional[int]
    saved: bool
    p_save: Probability
    p_save_exact: R.Fraction
    conditions: list[Condition]
    conditions_after: list[Condition]


class Failures(Shape):
    """The exact chance that exactly `failed` of the creatures fail their saves."""

    failed: Count
    p: Probability
    p_exact: R.Fraction


class SaveResult(R.Rolled):
    """A save, or an area effect's saves (`save.roll`; ER-12, ER-14, ER-16)."""

    save: Literal["agility", "resilience", "strength"]
    dc: int
    area: bool
    effect: str
    on_fail: list[Condition]
    targets: list[SaveTarget]
    saved: list[str]
    failed: list[str]
    p_failures: list[Failures]


class LockFeat(Shape):
    """The single d20 of a weapon lock or disarm ("ER Weapon Negation", ER-12): two at
    advantage or disadvantage, one kept; a raw 20 always succeeds, a raw 1 never."""

    dice: list[D20]
    kept: D20
    to_hit: int
    penalty: Optional[Penalty]
    total_modifier: int
    total: int
    ac: int
    natural: Optional[Literal[1, 20]]
    advantage: bool
    disadvantage: bool
    advantage_from: list[str]
    disadvantage_from: list[str]
    success: bool
    p_success: Probability
    p_success_exact: R.Fraction


class DisarmCost(Shape):
    """What resisting a disarm costs the victim: 2/3/4 Body by the attacker's weapon size,
    of the weapon's damage type (ER-10 applied)."""

    base: Count
    weapon: Literal["light", "medium", "heavy"]
    damage_type: DamageType
    resistance: Resistance
    points: Count


class LockRound(Shape):
    """One round of the victim's reaction competition (ties roll again)."""

    victim: SideRoll
    attacker: SideRoll


class LockReaction(Shape):
    """The victim's reaction (ER-19): a Strength competition against a lock, Body then an
    Agility competition against a disarm; the attacker at advantage on its d12. `rolled`
    is false when the feat failed (nothing to react to): no cost, no rounds."""

    attribute: Literal["strength", "agility"]
    rolled: bool
    body_cost: Optional[DisarmCost]
    victim_side: Side
    attacker_side: Side
    rounds: list[LockRound]
    ties: Count
    victim_wins: bool
    p_victim_wins: Probability
    p_victim_wins_exact: R.Fraction


class Blitz(Shape):
    """A locker's shield-blitz on the pinned victim: a d20 of blunt damage (ER-10 applied)."""

    die: D20
    damage_type: Literal["blunt"]
    resistance: Resistance
    damage: Count
    mean: float
    mean_exact: R.Fraction


class LockResult(R.Rolled):
    """A weapon lock, a weapon disarm or a shield-blitz (`lock.roll`; "ER Weapon Negation").
    `p_effect`: the exact chance the weapon ends locked or disarmed (a blitz: that it hurts)."""

    mode: Literal["lock", "disarm", "blitz"]
    attacker: str
    victim: str
    rebuff_allowed: Literal[False]
    rebuff: str
    feat: Optional[LockFeat]
    reaction: Optional[LockReaction]
    blitz: Optional[Blitz]
    outcome: Literal["locked", "pulled free", "disarmed", "kept", "missed", "blitzed"]
    p_effect: Probability
    p_effect_exact: R.Fraction
    #: Attack dice the wielder gives up to free a locked weapon; None unless locked.
    free_cost_dice: Optional[Count]
    text: str


class HurlDie(Shape):
    """One d20 of a slam's hurling attack (ER Throwing Items): face + to-hit against the AC
    (ER-6: a raw 20 always hits, a raw 1 never); `dropped`: the highest at disadvantage."""

    face: D20
    total: int
    hit: bool
    dropped: bool


class SlamInto(Shape):
    """The second target a tall grappler slams its victim into: the hurling attack and its
    blunt damage (ER-10 applied); `p_hit` the exact chance the hurl hits."""

    id: str
    ac: int
    distance: Count
    to_hit: int
    size_bonus: Count
    dice: list[HurlDie]
    advantage: bool
    disadvantage: bool
    advantage_from: list[str]
    disadvantage_from: list[str]
    hit: bool
    damage_type: Literal["blunt"]
    resistance: Resistance
    damage: Count
    p_hit: Probability
    p_hit_exact: R.Fraction


class SlamDamage(Shape):
    """The slammed victim's damage: the grappler's Strength bonus, of `damage_type` (ER-10 applied)."""

    damage_type: DamageType
    base: Count
    resistance: Resistance
    damage: Count


class SlamResult(R.Rolled):
    """A grappler's slam (`slam.roll`; "ER Grappling", "ER Grappling: Uncommon Conditions"):
    the victim takes the Strength bonus and is freed; a tall grappler's second target, if any."""

    grappler: str
    victim: str
    size_difference: Annotated[int, msgspec.Meta(ge=2)]
    tall: bool
    tall_from: Literal["height", "size"]
    strength_bonus: Count
    victim_damage: SlamDamage
    placed_within_ft: Literal[5, 10]
    freed: Literal[True]
    into: Optional[SlamInto]
    text: str


class Bystander(Shape):
    """ER-17: the chance a shot's stray lands on one nearby creature and hits (and crits,
    where it can); its exact damage there when no strike of the attack aims at it."""

    slot: Annotated[int, msgspec.Meta(ge=1)]
    p_hit: Probability
    p_hit_exact: R.Fraction
    p_crit: Union[Probability, R.UnsetType] = R.UNSET
    p_crit_exact: Union[R.Fraction, R.UnsetType] = R.UNSET
    mean_damage: Union[float, R.UnsetType] = R.UNSET
    mean_damage_exact: Union[R.Fraction, R.UnsetType] = R.UNSET
    damage: Union[list[tuple[int, float]], R.UnsetType] = R.UNSET


class StrayOdds(Shape):
    """ER-17: one shot under friendly fire: the chance it misses entirely, and each
    bystander's odds."""

    strike: Count
    target: str
    p_miss: Probability
    p_miss_exact: R.Fraction
    bystanders: dict[str, Bystander]


# p_crit and p_crit_exact come after p_hit_exact, where results hold them: the shared
# shape's later fields are keyword-only, which msgspec places after these.
class OddsTarget(R.OddsTarget):
    """One target's exact odds, with its chance of a crit (ER-7)."""

    p_crit: Probability
    p_crit_exact: R.Fraction


class OddsResult(R.OddsResult):
    """Exact odds of an attack (`attack.odds`): crits per target, stray shots (ER-17) per
    bystander when a strike has friendly fire."""

    # Each target's odds with its crits: the shared shape's targets, narrowed (msgspec keeps
    # the field's place; dict is invariant for mypy, not for the wire).
    targets: dict[str, OddsTarget]  # type: ignore[assignment]
    friendly_fire: Union[list[StrayOdds], R.UnsetType] = R.UNSET


class TouchHit(Shape):
    """A touch hit (ER Touch-based Effects): the strike's to-hit, the AC and its counted dice."""

    to_hit: int
    ac: int
    advantage: bool
    disadvantage: bool
    dice: list[Die]
    discarded: Optional[D20]
    hits: Count


class TouchSleight(Shape):
    """A sleight-of-hand touch: DC 10 + the victim's Agility modifier + its "Other" AC; the
    caster's d20 (two at advantage or disadvantage) + its Agility modifier + bonus."""

    dc: int
    base_dc: int
    target_agility_mod: int
    target_other_ac: int
    clandestine_dc: int
    agility_mod: int
    bonus: int
    total_modifier: int
    situation: Situation
    dice: list[D20]
    kept: Optional[D20]
    total: Optional[int]


class TouchResult(R.Rolled):
    """A touch attack (`touch.roll`): whether it touched (and unnoticed, for a sleight), with
    its exact chances."""

    touch: Literal["hit", "sleight"]
    target: str
    touched: bool
    clandestine: Optional[bool]
    p_touch: Probability
    p_touch_exact: R.Fraction
    p_clandestine: Optional[Probability]
    p_clandestine_exact: Optional[R.Fraction]
    hit: Optional[TouchHit]
    sleight: Optional[TouchSleight]


#: What `Ruleset.result_types` holds: the result shape of each kind, and of its odds.
RESULT_TYPES: dict[str, type] = {"attack": AttackResult, "bulk": BulkResult, "initiative": InitiativeResult,
                "compete": CompeteResult, "impale": ImpaleResult, "save": SaveResult, "odds": OddsResult}
RESULT_TYPES["touch"] = TouchResult
RESULT_TYPES["lock"] = LockResult
RESULT_TYPES["slam"] = SlamResult


class ShockNeeded(Shape):
    """ER-13: the Resilience save the inflicted damage calls for (not rolled here)."""

    dc: int


class DropRelease(Shape):
    """Inflicting a drop's held damage: the victim's Strength or Agility feat for half."""

    rounds: Count
    dc: int
    attribute: Literal["strength", "agility"]
    modifier: int
    bonus: int
    total_modifier: int
    foul_play: bool
    situation: Situation
    dice: list[D20]
    kept: Optional[D20]
    total: Optional[int]
    halved: bool
    p_half: Probability
    p_half_exact: R.Fraction
    mean_inflicted: float
    mean_inflicted_exact: R.Fraction
    shock_save: Optional[ShockNeeded]


class DropResult(R.Rolled):
    """Getting the drop (`drop.roll`): the sneak attack with its damage held, or that damage
    inflicted against the victim's feat."""

    phase: Literal["drop", "inflict"]
    victim: str
    surrenders: bool
    attack: Optional[Impalement]
    held: Optional[Count]
    inflicted: Count
    release: Optional[DropRelease]


RESULT_TYPES["drop"] = DropResult


class ThrowPool(Shape):
    """The d20s of a throw ("ER Throwing Items"): `counted` dice (1/2/3 by skill for an item,
    one for magic, one more at advantage), one more at disadvantage with the highest
    `dropped`; each face + `to_hit` against `ac` (ER-6: a raw 20 always hits, a raw 1 never)."""

    dice: list[D20]
    counted: Count
    dropped: Optional[Count]
    hits: list[bool]
    to_hit: int
    agility_added: int
    ac: int
    advantage: bool
    disadvantage: bool
    advantage_from: list[str]
    disadvantage_from: list[str]


class ThrowDamageRoll(Shape):
    """The damage of a throw that hit: its dice (none for a flat amount), the flat part, and
    the total after the target's resistance (ER-10)."""

    dice: list[int]
    faces: Optional[Count]
    bonus: int
    base: Count
    damage: Count


class ThrowResult(R.Rolled):
    """A thrown item or a hurled spell (`throw.roll`; "ER Throwing Items"): `hit` when any
    counted die hits; the effect (its damage) happens once. `p_hit` and `mean_damage` exact."""

    item: Literal["acid splash", "bonfire blend", "explosive oil", "firebreather's oil", "holy water", "other",
                  "magic"]
    magic: bool
    skill: Literal["none", "ranged", "hurling"]
    target: str
    note: Optional[str]
    thrown: ThrowPool
    hit: bool
    crit: Literal[False]
    damage_type: DamageType
    resistance: Resistance
    damage: Optional[ThrowDamageRoll]
    p_hit: Probability
    p_hit_exact: R.Fraction
    mean_damage: float
    mean_damage_exact: R.Fraction
    text: str


RESULT_TYPES["throw"] = ThrowResult
