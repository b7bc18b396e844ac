"""Enchanted Realms requests as typed structs: the shape a GM's tools send.

This module checks shape and types (msgspec does the walking); the rules checks
that need the whole request (an unknown target, a sneak attack at disadvantage)
are in `plan.py`. Both raise `SchemaError`/`RulesError` whose path points at the
field, e.g. `$.strikes[1].dice`. The names (methods, styles, damage types, sizes,
covers, conditions) come from the shared spec (`fracas._facts`).
"""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

import msgspec

from ..._facts import CONDITIONS as CONDITIONS  # re-exported: the ER names
from ..._facts import COVERS as COVERS
from ..._facts import CRIT_STYLES as CRIT_STYLES
from ..._facts import DAMAGE_TYPES as DAMAGE_TYPES
from ..._facts import MECHANICAL_STYLES as MECHANICAL_STYLES
from ..._facts import METHODS as METHODS
from ..._facts import SIZES as SIZES
from ..._facts import STYLE_DAMAGE as STYLE_DAMAGE
from ..._facts import STYLE_METHOD as STYLE_METHOD
from ..._facts import STYLES as STYLES

NAME = "enchanted-realms"

Method = Literal["melee", "range", "savage"]
Sneak = Union[bool, Literal["advantage-only"]]


class _Spec(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass


class Attacker(_Spec):
    """The one making the attack (ER-4, ER-5, ER-14, ER-16)."""

    strength: Optional[int] = None
    agility: Optional[int] = None
    strength_mod: Optional[int] = None
    agility_mod: Optional[int] = None
    size: str = "medium"
    conditions: list[str] = []
    swim_speed: int = 0
    obscurement: int = 0
    #: ER-14: who charmed this attacker ("cannot attack the charmer"): a strike at that
    #: target is refused. Naming a charmer makes the attacker charmed.
    charmed_by: Optional[str] = None


class ProfileStrike(_Spec):
    """A strike without its target: what a bulk profile lists (ER-1)."""

    method: Method
    style: str
    dice: int
    damage_type: str
    bonus: int = 0
    weight: int = 0
    crit: Optional[bool] = None
    crit_range: Optional[int] = None
    advantage: bool = False
    disadvantage: bool = False
    sneak: Sneak = False
    reach: bool = False
    sneak_ok: bool = False
    #: ER-17: true puts a shot under the friendly-fire rule, false keeps it out; absent
    #: (null): automatic for a ranged shot at a target with creatures `nearby` under
    #: three-quarters cover, or by a blind attacker, or at an invisible target.
    friendly_fire: Optional[bool] = None


class Strike(ProfileStrike, kw_only=True):
    """One die pool aimed at one target (ER-1)."""

    target: str


class Grapple(_Spec):
    """A target that holds someone (ER-21): its Strength feat when body damage lands."""

    strength: Optional[int] = None
    strength_mod: Optional[int] = None
    bonus: int = 0


class Target(_Spec):
    """One creature struck (ER-6, ER-10, ER-11, ER-15, ER-16)."""

    ac: int
    ac_by_type: dict[str, int] = {}
    size: str = "medium"
    resistant: list[str] = []
    vulnerable: list[str] = []
    immune: list[str] = []
    conditions: list[str] = []
    cover: str = "none"
    body_max: Optional[int] = None
    crit_proof: bool = False
    save_bonus: Optional[int] = None
    nearby: list[str] = []
    grappling: Optional[Grapple] = None


class Flee(_Spec):
    """ER-20: a flee attack against a creature that moved `moved` feet this round."""

    moved: int


class AttackRequest(_Spec):
    """One attack action: strikes at targets (ER-1)."""

    attacker: Attacker
    strikes: list[Strike]
    targets: dict[str, Any]
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None
    advantage: bool = False
    disadvantage: bool = False
    #: ER-20: this attack is a flee attack (a reaction) against a creature that moved.
    flee: Optional[Flee] = None
    #: ER-22: the defense-roll variant: the target's player rolls the dice instead.
    defense_rolls: bool = False


class Profile(_Spec):
    """An attacker and its strikes, used by many attacks in a bulk request."""

    attacker: Attacker
    strikes: list[ProfileStrike]
    advantage: bool = False
    disadvantage: bool = False


class AttackGroup(_Spec):
    """`count` attacks of one profile at the given target(s)."""

    profile: str
    target: Union[str, list[str]]
    count: int = 1


class BulkRequest(_Spec):
    """Many attacks in one request (the bulk issue)."""

    profiles: dict[str, Any]
    targets: dict[str, Any]
    attacks: list[AttackGroup]
    ruleset: str = NAME
    seed: Optional[int] = None
    detail: Literal["summary", "attacks", "dice"] = "summary"


class Combatant(_Spec):
    """One combatant rolling ER-18 initiative."""

    id: str
    agility: Optional[int] = None
    agility_mod: Optional[int] = None
    bonus: int = 0


class InitiativeRequest(_Spec):
    """ER-18 initiative for a list of combatants."""

    combatants: list[Combatant]
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None




class SavageStrike(_Spec):
    """A savage-form strike of a competitor ("ER Grappling: Uncommon Conditions"): a grapple
    victim's claws or bite may deal the grappler incidental damage."""

    #: Its name: "claw" (or "claws") is chosen over "bite", and either over any other.
    strike: str
    #: Its damage type (ER-10): the incidental point is of this type.
    type: str
    #: The strike carries poison: delivered (its save triggered) on a raw 12.
    poison: bool = False
    #: Other special weaponry, or the poison's name, delivered on a raw 12 and named in the result.
    special: Optional[str] = None


class Competitor(_Spec):
    """One side of an ER-19 competition: d12 + the chosen attribute's modifier."""

    id: str
    attribute: Literal["strength", "agility"] = "strength"
    strength: Optional[int] = None
    agility: Optional[int] = None
    strength_mod: Optional[int] = None
    agility_mod: Optional[int] = None
    size: str = "medium"
    #: Feet a round; None (not given) is unknown: no speed modifier against it (ER-19).
    speed: Optional[int] = None
    prone: bool = False
    bonus: int = 0
    advantage: bool = False
    disadvantage: bool = False
    #: ER-12/ER-14: the competitor's own conditions (bound, poisoned, shaken, prone, ...).
    conditions: list[str] = []
    #: Its usable savage-form strikes ("ER Grappling: Uncommon Conditions"; a grapple or an
    #: escape only): none given, no savage form.
    savage_form: list[SavageStrike] = []
    #: ER-10 against a grappler's incidental damage from its victim's savage form.
    resistant: list[str] = []
    vulnerable: list[str] = []
    immune: list[str] = []


class CompeteRequest(_Spec):
    """ER-19: a competition between a challenger and a defender (grapple, escape, shove, trip)."""

    challenger: Competitor
    defender: Competitor
    contest: Literal["plain", "grapple", "escape", "shove", "trip"] = "plain"
    slick: bool = False
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


class ImpaleWeapon(_Spec):
    """The pole-arm that impales (ER-23): piercing, 3d20 (4d20 with weapon forte)."""

    style: str = "pole-arm"
    damage_type: str = "piercing"
    weight: int = 0
    bonus: int = 0
    forte: bool = False
    crit: Optional[bool] = None
    crit_range: Optional[int] = None
    #: ER-23's named pole-arms: a glaive's heavy property puts the impalement at
    #: disadvantage when its skill dice show a natural 18-20; an ula need not pierce.
    pole: Optional[Literal["glaive", "ula"]] = None


class Charger(Target, kw_only=True):
    """The charging attacker (ER-23): a target with its current Body and the ground it closed."""

    id: str = "charger"
    body: int
    closed: int


class ImpaleRequest(_Spec):
    """ER-23: impalement of a charger before its charge, then the charge unless it is void."""

    pikeman: Attacker
    charger: Charger
    weapon: ImpaleWeapon = msgspec.field(default_factory=ImpaleWeapon)
    charge: Optional[dict[str, Any]] = None
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


class Saver(_Spec):
    """One creature making an ER save (ER-4, ER-12, ER-14, ER-16): d20 + the saving
    attribute's modifier + its bonus (+ cover against an area, Agility saves only)."""

    id: str
    #: The saving attribute's score (ER-4: modifier floor((score - 2) / 2)), or
    score: Optional[int] = None
    #: its modifier, when it is not that.
    modifier: Optional[int] = None
    bonus: int = 0
    #: ER-16: none, half, three-quarters or full; +2/+5/+5 to an Agility save against an area.
    cover: str = "none"
    #: ER-12/ER-14: the saver's own conditions (defending: advantage; poisoned: disadvantage; ...).
    conditions: list[str] = []
    advantage: bool = False
    disadvantage: bool = False


class SaveRequest(_Spec):
    """A save against one effect, or an area effect against several creatures (ER-12,
    ER-13, ER-14, ER-16): each target rolls against the same DC; a failed save applies
    the `on_fail` conditions."""

    save: Literal["agility", "resilience", "strength"]
    dc: int
    targets: list[Saver]
    #: An area effect (a fireblast, sleep smoke): cover adds to Agility saves, and full
    #: cover does not keep the effect out.
    area: bool = False
    #: What the effect is, for the record ("sleep smoke").
    effect: str = ""
    #: Conditions a failed save applies (sleep smoke: asleep).
    on_fail: list[str] = []
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


class TouchTarget(_Spec):
    """The creature touched (ER Touch-based Effects): its AC against a touch hit, or its
    Agility and the "Other" part of its AC against a sleight-of-hand touch."""

    id: str = "target"
    #: A touch hit (ER-6): its AC.
    ac: Optional[int] = None
    size: str = "medium"
    #: ER-15 against a touch hit (advantage, disadvantage); a sleight's DC ignores them.
    conditions: list[str] = []
    #: A sleight of hand: its Agility score (ER-4 modifier) or its modifier,
    agility: Optional[int] = None
    agility_mod: Optional[int] = None
    #: and the "Other" component of its AC (a ring of protection's +1).
    other_ac: int = 0


class TouchRequest(_Spec):
    """A touch to deliver a touch-based effect (ER Touch-based Effects): a hit against the
    victim's AC that deals no damage, or a sleight-of-hand Agility feat against DC 10 + the
    victim's Agility modifier + its "Other" AC, clandestine at 4 over the DC."""

    #: hit: against the victim's AC, no damage; sleight: a sleight-of-hand Agility feat.
    touch: Literal["hit", "sleight"]
    caster: Attacker
    target: TouchTarget
    #: A touch hit: the caster's skill dice (ER-3, 1-5).
    dice: int = 1
    #: Added to each touch-hit die, or to the sleight-of-hand feat.
    bonus: int = 0
    advantage: bool = False
    disadvantage: bool = False
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


class DropVictim(_Spec):
    """The victim of a drop when the held damage is inflicted (ER-13, Getting the Drop): its
    Strength or Agility feat (DC 20, one less a round after, at least 14) for half damage."""

    id: str = "victim"
    attribute: Literal["strength", "agility"] = "agility"
    #: The attribute's score (ER-4 modifier), or its modifier.
    score: Optional[int] = None
    modifier: Optional[int] = None
    bonus: int = 0
    #: The foul-play skill: the feat at advantage.
    foul_play: bool = False
    conditions: list[str] = []
    advantage: bool = False
    disadvantage: bool = False
    #: Its maximum Body: when given, the ER-13 shock save the inflicted damage calls for is named.
    body_max: Optional[int] = None


class DropInflict(_Spec):
    """Inflicting the damage held by a drop: how much, and how many combat rounds (or minutes
    of parley) have passed since the drop was got."""

    held: int
    victim: DropVictim
    rounds: int = 0


class DropRequest(_Spec):
    """ER-13 Getting the Drop: either `attack`, the sneak attack rolled with its damage held,
    or `inflict`, that held damage dealt later against the victim's feat for half."""

    #: An ER sneak attack request (without seed or rolls) at one victim.
    attack: Optional[dict[str, Any]] = None
    #: False for a victim that cannot surrender (a wild animal, a zombie): the text makes
    #: it a plain sneak attack, its damage inflicted.
    surrenders: bool = True
    inflict: Optional[DropInflict] = None
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


class Locker(_Spec):
    """The creature attempting a weapon lock or disarm ("ER Weapon Negation"): one d20 + its
    `to_hit` against the victim's AC; in the victim's reaction, d12 + the competition's
    attribute modifier (Strength for a lock, Agility for a disarm) at advantage (ER-19)."""

    id: str
    #: Everything the attacker adds to the feat's single d20 (its to-hit with the weapon,
    #: ER-4: the attribute score and bonuses); the feat is one die however many skills help.
    to_hit: int = 0
    strength: Optional[int] = None
    agility: Optional[int] = None
    strength_mod: Optional[int] = None
    agility_mod: Optional[int] = None
    #: Added to the attacker's d12 in the victim's reaction competition.
    bonus: int = 0
    #: ER-12 on the feat: two d20, the better (or worse) kept.
    advantage: bool = False
    disadvantage: bool = False
    #: ER-12/ER-14: the attacker's own conditions (poisoned: the feat at disadvantage; ...).
    conditions: list[str] = []
    #: The attacker's weapon size: a disarm resisted costs the victim 2/3/4 Body.
    weapon: Literal["light", "medium", "heavy"] = "medium"
    #: The type of damage the weapon deals in melee: the type of that cost.
    damage_type: str = "edged"


class LockVictim(_Spec):
    """The creature whose weapon is locked or disarmed, and its optional reaction."""

    id: str
    ac: int
    strength: Optional[int] = None
    agility: Optional[int] = None
    strength_mod: Optional[int] = None
    agility_mod: Optional[int] = None
    #: Added to the victim's d12 in its reaction competition.
    bonus: int = 0
    #: ER-12/ER-14: the victim's own conditions (bound: its competition at disadvantage; ...).
    conditions: list[str] = []
    #: The victim uses its reaction: a lock is pulled free by a Strength competition, a disarm
    #: resisted by paying Body and an Agility competition.
    reacts: bool = False
    #: Whether the victim still has its reaction this round (one is needed to react).
    reaction_left: bool = True
    #: ER-10 against the disarm's cost and the shield-blitz's blunt d20.
    resistant: list[str] = []
    vulnerable: list[str] = []
    immune: list[str] = []


class LockRequest(_Spec):
    """A weapon lock or a weapon disarm ("ER Weapon Negation", ER-12, ER-19): the feat, then the
    victim's reaction if it reacts; or (`blitz`) the shield-blitz of a locker holding a lock."""

    mode: Literal["lock", "disarm", "blitz"]
    attacker: Locker
    victim: LockVictim
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


class ThrowDamage(_Spec):
    """The damage of a spell or an unlisted item thrown ("ER Throwing Items"): `dice` d`faces`
    + `bonus` of `damage_type` (a flat amount: `dice` 0)."""

    dice: int = 1
    faces: int = 4
    bonus: int = 0
    damage_type: str = "fire"


class ThrowTarget(_Spec):
    """The creature a thrown item or spell is aimed at: its AC (by damage type, ER-6), cover
    (ER-16), resistances (ER-10) and conditions (ER-14, ER-15)."""

    ac: int
    id: str = "target"
    ac_by_type: dict[str, int] = {}
    cover: str = "none"
    resistant: list[str] = []
    vulnerable: list[str] = []
    immune: list[str] = []
    conditions: list[str] = []


class ThrowRequest(_Spec):
    """A thrown item or a hurled spell ("ER Throwing Items"): a pool of 1/2/3 d20 by the
    thrower's skill (none, ranged fighting, hurling), the raw face against the AC, any hit
    enough; throwing magic is one d20 plus the Agility modifier (ranged fighting) or score
    (hurling). The item's table damage, or `damage` for magic and unlisted items."""

    #: A table item ("acid splash", "bonfire blend", "explosive oil", "firebreather's oil",
    #: "holy water"), "other" (an unlisted item: give `damage`) or "magic" (throwing magic).
    item: str
    target: ThrowTarget
    #: The thrower's conditions (ER-14), obscurement, charm, swim speed; its Agility for magic.
    thrower: Attacker = msgspec.field(default_factory=Attacker)
    #: The thrower's combat skill: none (1 d20), ranged fighting (2), hurling (3).
    skill: Literal["none", "ranged", "hurling"] = "none"
    damage: Optional[ThrowDamage] = None
    #: A situational modifier added to every d20 of the throw.
    bonus: int = 0
    #: ER-12 on the throw: one more counted d20, or one more d20 and the highest dropped.
    advantage: bool = False
    disadvantage: bool = False
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


class SlamGrappler(_Spec):
    """A grappler slamming the victim it holds ("ER Grappling"): two or more size categories
    larger than it; its Strength bonus (ER-4 modifier) is the damage."""

    id: str
    size: str
    strength: Optional[int] = None
    strength_mod: Optional[int] = None
    #: Its height in feet: ten or more slams the victim into another target. Not given, its
    #: size decides: huge, giant and colossal are ten feet or taller (docs/rules/enchanted-realms.md).
    height: Optional[int] = None
    #: Added to every d20 of the hurling attack at a second target (ER Throwing Items).
    to_hit: int = 0
    #: ER-12 on the hurling pool: one more counted d20, or one more and the highest dropped.
    advantage: bool = False
    disadvantage: bool = False
    #: ER-14: its own conditions (poisoned, prone, ...: the hurl at disadvantage; stunned: no slam).
    conditions: list[str] = []


class SlamVictim(_Spec):
    """The held creature hurled and slammed: it takes the Strength bonus (ER-10 applies)."""

    id: str
    size: str = "medium"
    #: Its conditions: an underwater victim resists fire (ER-15, ER-10).
    conditions: list[str] = []
    resistant: list[str] = []
    vulnerable: list[str] = []
    immune: list[str] = []


class SlamTarget(_Spec):
    """Another creature the victim is slammed into (a grappler ten feet or taller; within two
    hexes): a hurling attack against its AC, the Strength bonus in blunt damage on a hit."""

    id: str
    ac: int
    #: ER-5: a ranged attack against a larger target gains +1 … +4 on every die.
    size: str = "medium"
    #: Feet from the grappler: at most 10 ("up to two hexes away").
    distance: int = 5
    resistant: list[str] = []
    vulnerable: list[str] = []
    immune: list[str] = []


class SlamRequest(_Spec):
    """A grappler hurls and slams the victim it holds ("ER Grappling", "ER Grappling: Uncommon
    Conditions"): the Strength bonus in blunt damage (or the terrain's `damage_type`), the
    victim freed; a grappler ten feet or taller may slam it `into` another target."""

    grappler: SlamGrappler
    victim: SlamVictim
    into: Optional[SlamTarget] = None
    #: The victim's damage type: blunt, "or appropriate damage for the terrain" (ER-10).
    damage_type: str = "blunt"
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None
