"""`fracas compete`, `fracas impale`, `fracas touch`, `fracas drop`, `fracas lock`, `fracas
throw` and `fracas slam`: the Enchanted Realms table situations, competitions (ER-19),
impalement (ER-23), touch attacks (Touch-based Effects), getting the drop (ER-13), weapon
lock and disarm, throwing items and magic, and a grappler's slam. `fracas save`, which
old-school saving throws share, is `fracas.cli.saves`."""

from __future__ import annotations

from typing import Any, Optional

import click

from ..cmdkit import emit, engine_call, load_json, parse_rolls, roll, with_rolls


# Their KEY=VALUE,... options are read by the one reader of `--strike` (rulesets.er.cli.key_values).
#: What `--challenger` / `--defender KEY=VALUE,...` may set, and how each value is read.
_SIDE_KEYS: dict[str, Any] = {"id": str, "attribute": ("strength", "agility"), "strength": int, "agility": int,
                              "strength_mod": int, "agility_mod": int, "size": str, "speed": int, "prone": bool,
                              "bonus": int, "advantage": bool, "disadvantage": bool, "condition": list,
                              "savage": list, "resistant": list, "vulnerable": list, "immune": list}
_TARGET_KEYS: dict[str, Any] = {"id": str, "ac": int, "body": int, "size": str, "resistant": list,
                                "vulnerable": list, "immune": list, "condition": list}


def _side(text: str, hint: str) -> dict[str, Any]:
    """One `--challenger`/`--defender` value; `savage=claw:edged` (repeatable, `bite:piercing:poison`)
    fills `savage_form` ("ER Grappling: Uncommon Conditions")."""
    from .cli import key_values

    side = key_values(text, _SIDE_KEYS, hint)
    strikes = side.pop("savage", None)
    if strikes is not None:
        side["savage_form"] = []
        for item in strikes:
            strike, _, rest = item.partition(":")
            kind, _, extra = rest.partition(":")
            if not strike or not kind or extra not in ("", "poison"):
                raise click.BadParameter(f"savage={item!r} is not STRIKE:TYPE or STRIKE:TYPE:poison "
                                         "(e.g. savage=bite:piercing:poison)", param_hint=hint)
            side["savage_form"].append({"strike": strike, "type": kind, **({"poison": True} if extra else {})})
    return side


@click.command(short_help="An Enchanted Realms competition (ER-19): grapple, escape, shove, trip.")
@click.argument("request", type=click.File("rb"), required=False)
@click.option("--contest", type=click.Choice(["plain", "grapple", "escape", "shove", "trip"]), default="plain",
              show_default=True, help="What is contested: a grapple, an escape from one, a shove or a trip (ER-19).")
@click.option("--challenger", metavar="KEY=VALUE,...",
              help="Who starts it (the grappler, the one escaping, the one shoving), e.g. "
                   "id=ogre,strength=6,size=large,speed=30; keys: " + ", ".join(_SIDE_KEYS) + " (a speed"
                   " counts only when both sides give one; savage=claw:edged or savage=bite:piercing:poison,"
                   " repeatable, is a grapple or escape victim's savage form, resistant=edged the grappler's ER-10).")
@click.option("--defender", metavar="KEY=VALUE,...", help="The other side, the same keys, e.g. "
              "id=aria,agility=5,attribute=agility,speed=40.")
@click.option("--slick", is_flag=True, help="Rainy, icy or slick ground (ER-19).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="Roll from this seed.")
@click.option("--rolls", "rolls", default=None, metavar="FACES", help="Physical d12s, in draw order.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def compete(request: Any, contest: str, challenger: Optional[str], defender: Optional[str], slick: bool,
            seed: Any, rolls: Any, as_json: bool) -> None:
    """An Enchanted Realms competition (ER-19): opposed d12 + Strength or Agility modifier,
    with the grapple and shove/trip modifiers; ties are rolled again. Prints each side's
    exact chance to win. A grapple or escape victim with savage form (claws over a bite) hurts
    a grappler without one for 1 point on a raw d12 of 8+, delivers its poison on a 12; an
    escape it still loses calls for the grappler's Strength feat, DC 11 ("ER Grappling:
    Uncommon Conditions"). REQUEST is a JSON competition request ('-' for stdin), or use the
    flags, e.g. `fracas compete --contest grapple --challenger id=ogre,strength=6,size=large,speed=30
    --defender id=aria,agility=5,attribute=agility,speed=40`."""
    faces = parse_rolls(rolls) if rolls is not None else None
    if request is not None:
        payload = load_json(request.read(), "the request")
    else:
        if not challenger or not defender:
            raise click.UsageError("give both sides: --challenger id=ogre,strength=6 --defender id=aria,strength=3"
                                   " (or a request file)")
        payload = {"contest": contest, "slick": slick,
                   "challenger": _side(challenger, "--challenger"), "defender": _side(defender, "--defender")}
    result = engine_call(roll, "compete", with_rolls(payload, faces), seed=seed)
    emit(result.to_dict(), as_json)


@click.command(short_help="An Enchanted Realms impalement (ER-23): a pikeman's strike at a charger.")
@click.argument("request", type=click.File("rb"), required=False)
@click.option("--str", "strength", type=int, default=None, help="The pikeman's Strength score.")
@click.option("--str-mod", "strength_mod", type=int, default=None,
              help="The pikeman's Strength modifier, when it is not floor((score - 2) / 2).")
@click.option("--forte", is_flag=True, help="Weapon forte in this pole-arm: 4d20 instead of 3d20 (ER-23).")
@click.option("--weight", type=int, default=0, show_default=True, help="Pole-arm weight: 0, 1 or 2.")
@click.option("--bonus", type=int, default=0, show_default=True, help="Other bonuses on every die.")
@click.option("--charger", metavar="KEY=VALUE,...",
              help="The charging attacker: id, ac, body (its Body now), size, resistant, vulnerable, immune, "
                   "condition, e.g. id=ogre,ac=13,body=12.")
@click.option("--closed", type=int, default=None, metavar="FEET",
              help="How far the charger closed this turn (25 ft or more, ER-23).")
@click.option("--charge", "charge_file", type=click.File("rb"), default=None, metavar="FILE",
              help="The charge itself (an attack request without seed or rolls): resolved unless it is void.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="Roll from this seed.")
@click.option("--rolls", "rolls", default=None, metavar="FACES", help="Physical dice, in draw order.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def impale(request: Any, strength: Optional[int], strength_mod: Optional[int], forte: bool, weight: int, bonus: int,
           charger: Optional[str], closed: Optional[int], charge_file: Any, seed: Any, rolls: Any,
           as_json: bool) -> None:
    """An Enchanted Realms impalement (ER-23): a pikeman's 3d20 (4d20 with forte) at a charger
    that closed 25 ft or more, before the charge; if it brings the charger to 0 Body the
    charge is void. REQUEST is a JSON impalement request ('-' for stdin), or use the flags,
    e.g. `fracas impale --str 4 --charger id=ogre,ac=12,body=8 --closed 30`."""
    from .cli import key_values

    faces = parse_rolls(rolls) if rolls is not None else None
    if request is not None:
        payload = load_json(request.read(), "the request")
    else:
        if charger is None or closed is None or strength is None:
            raise click.UsageError("give --str, --charger id=ogre,ac=12,body=8 and --closed FEET (or a request file)")
        pikeman: dict[str, Any] = {"strength": strength}
        if strength_mod is not None:
            pikeman["strength_mod"] = strength_mod
        target = key_values(charger, _TARGET_KEYS, "--charger")
        payload = {"pikeman": pikeman, "charger": {**target, "closed": closed},
                   "weapon": {"forte": forte, "weight": weight, "bonus": bonus}}
        if charge_file is not None:
            payload["charge"] = load_json(charge_file.read(), "--charge")
    result = engine_call(roll, "impale", with_rolls(payload, faces), seed=seed)
    emit(result.to_dict(), as_json)


#: What `--caster` / `--target KEY=VALUE,...` of `fracas touch` may set, and how each value is read.
_TOUCH_CASTER_KEYS: dict[str, Any] = {"strength": int, "agility": int, "strength_mod": int, "agility_mod": int,
                                      "size": str, "condition": list, "charmed_by": str}
_TOUCH_TARGET_KEYS: dict[str, Any] = {"id": str, "ac": int, "size": str, "condition": list, "agility": int,
                                      "agility_mod": int, "other_ac": int}


@click.command(short_help="An Enchanted Realms touch attack: a hit for no damage, or sleight of hand.")
@click.argument("request", type=click.File("rb"), required=False)
@click.option("--touch", "how", type=click.Choice(["hit", "sleight"]), default=None,
              help="hit: the caster's dice against the victim's AC, no damage; sleight: an Agility feat against "
                   "DC 10 + the victim's Agility modifier + its Other AC (clandestine at 4 over).")
@click.option("--caster", metavar="KEY=VALUE,...",
              help="The one touching, e.g. strength=4 or agility=4; keys: " + ", ".join(_TOUCH_CASTER_KEYS) + ".")
@click.option("--target", metavar="KEY=VALUE,...",
              help="The victim, e.g. id=guard,ac=13 or id=guard,agility=6,other_ac=1; keys: "
                   + ", ".join(_TOUCH_TARGET_KEYS) + ".")
@click.option("--dice", type=int, default=1, show_default=True, help="A touch hit's skill dice (ER-3).")
@click.option("--bonus", type=int, default=0, show_default=True, help="Added to each hit die, or to the feat.")
@click.option("--advantage", is_flag=True, help="The touch is at advantage (ER-12).")
@click.option("--disadvantage", is_flag=True, help="The touch is at disadvantage (ER-12).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="Roll from this seed.")
@click.option("--rolls", "rolls", default=None, metavar="FACES", help="Physical d20s, in draw order.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def touch(request: Any, how: Optional[str], caster: Optional[str], target: Optional[str], dice: int, bonus: int,
          advantage: bool, disadvantage: bool, seed: Any, rolls: Any, as_json: bool) -> None:
    """An Enchanted Realms touch attack, to deliver a touch-based spell: a hit against the
    victim's AC that deals no damage, or (with the sleight-of-hand skill) an Agility feat
    against DC 10 + the victim's Agility modifier + its Other AC, unnoticed at 4 over the
    DC. Prints the exact chance to touch. REQUEST is a JSON touch request ('-' for stdin), or
    use the flags, e.g. `fracas touch --touch sleight --caster agility=4
    --target id=guard,agility=6,other_ac=1`."""
    from .cli import key_values

    faces = parse_rolls(rolls) if rolls is not None else None
    if request is not None:
        payload = load_json(request.read(), "the request")
    else:
        if how is None or caster is None or target is None:
            raise click.UsageError("give --touch, --caster and --target (or a request file)")
        payload = {"touch": how, "caster": key_values(caster, _TOUCH_CASTER_KEYS, "--caster"),
                   "target": key_values(target, _TOUCH_TARGET_KEYS, "--target"), "dice": dice, "bonus": bonus,
                   "advantage": advantage, "disadvantage": disadvantage}
    result = engine_call(roll, "touch", with_rolls(payload, faces), seed=seed)
    emit(result.to_dict(), as_json)


#: What `--victim KEY=VALUE,...` of `fracas drop` may set, and how each value is read.
_DROP_VICTIM_KEYS: dict[str, Any] = {"id": str, "attribute": ("strength", "agility"), "score": int, "modifier": int,
                                     "bonus": int, "foul_play": bool, "condition": list, "advantage": bool,
                                     "disadvantage": bool, "body_max": int}


@click.command(short_help="Getting the drop (ER-13): a sneak attack's damage held, then inflicted.")
@click.argument("request", type=click.File("rb"), required=False)
@click.option("--held", type=int, default=None, help="Inflict this held damage now (the victim's feat for half).")
@click.option("--rounds", type=int, default=0, show_default=True,
              help="Combat rounds (or minutes of parley) since the drop: the DC 20 falls 1 a round, to 14.")
@click.option("--victim", metavar="KEY=VALUE,...",
              help="The victim's feat, e.g. id=captain,attribute=agility,score=6,foul_play=true; keys: "
                   + ", ".join(_DROP_VICTIM_KEYS) + ".")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="Roll from this seed.")
@click.option("--rolls", "rolls", default=None, metavar="FACES", help="Physical dice, in draw order.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def drop(request: Any, held: Optional[int], rounds: int, victim: Optional[str], seed: Any, rolls: Any,
         as_json: bool) -> None:
    """Getting the drop (ER-13): REQUEST is a JSON drop request ('-' for stdin): its `attack`
    (a sneak attack at one victim) is rolled and its damage held; or, with --held and
    --victim, that damage is inflicted and the victim's Strength or Agility feat against
    DC 20 (1 less a round, at least 14; advantage with foul play) halves it, e.g.
    `fracas drop --held 7 --rounds 2 --victim id=captain,attribute=agility,score=6`."""
    from .cli import key_values

    faces = parse_rolls(rolls) if rolls is not None else None
    if request is not None:
        payload = load_json(request.read(), "the request")
    else:
        if held is None or victim is None:
            raise click.UsageError("give --held and --victim (or a drop request file with its attack)")
        payload = {"inflict": {"held": held, "rounds": rounds,
                               "victim": key_values(victim, _DROP_VICTIM_KEYS, "--victim")}}
    result = engine_call(roll, "drop", with_rolls(payload, faces), seed=seed)
    emit(result.to_dict(), as_json)


#: What `fracas lock --attacker` / `--victim KEY=VALUE,...` may set, and how each value is read.
_LOCKER_KEYS: dict[str, Any] = {"id": str, "to_hit": int, "strength": int, "agility": int, "strength_mod": int,
                                "agility_mod": int, "bonus": int, "advantage": bool, "disadvantage": bool,
                                "condition": list, "weapon": ("light", "medium", "heavy"), "damage_type": str}
_LOCK_VICTIM_KEYS: dict[str, Any] = {"id": str, "ac": int, "strength": int, "agility": int, "strength_mod": int,
                                     "agility_mod": int, "bonus": int, "condition": list, "reacts": bool,
                                     "reaction_left": bool, "resistant": list, "vulnerable": list, "immune": list}


@click.command(short_help="An Enchanted Realms weapon lock or disarm, or a locker's shield-blitz.")
@click.argument("request", type=click.File("rb"), required=False)
@click.option("--mode", type=click.Choice(["lock", "disarm", "blitz"]), default="lock", show_default=True,
              help="Lock the victim's weapon, disarm it, or shield-blitz the victim of a lock held.")
@click.option("--attacker", metavar="KEY=VALUE,...",
              help="Who locks or disarms, e.g. id=aria,to_hit=6,strength=5,weapon=medium; keys: "
                   + ", ".join(_LOCKER_KEYS) + ".")
@click.option("--victim", metavar="KEY=VALUE,...",
              help="Whose weapon it is, e.g. id=ogre,ac=12,strength=6,reacts; keys: " + ", ".join(_LOCK_VICTIM_KEYS)
                   + ".")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="Roll from this seed.")
@click.option("--rolls", "rolls", default=None, metavar="FACES",
              help="Physical dice in draw order: the feat's d20s, then the reaction's d12s.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def lock(request: Any, mode: str, attacker: Optional[str], victim: Optional[str], seed: Any, rolls: Any,
         as_json: bool) -> None:
    """An Enchanted Realms weapon lock or disarm: one d20 + the attacker's to_hit against the
    victim's AC (two at advantage or disadvantage, ER-12), no rebuff allowed; a victim that
    reacts pulls a lock free by a Strength competition, or resists a disarm by paying 2/3/4
    Body and an Agility competition (ER-19), the attacker at advantage on its d12. Prints the
    outcome and its exact odds. REQUEST is a JSON lock request ('-' for stdin), or use the
    flags, e.g. `fracas lock --mode disarm --attacker id=aria,to_hit=6,agility=8
    --victim id=ogre,ac=12,agility=2,reacts`."""
    from .cli import key_values

    faces = parse_rolls(rolls) if rolls is not None else None
    if request is not None:
        payload = load_json(request.read(), "the request")
    else:
        if attacker is None or victim is None:
            raise click.UsageError("give --attacker and --victim (or a request file)")
        payload = {"mode": mode, "attacker": key_values(attacker, _LOCKER_KEYS, "--attacker"),
                   "victim": key_values(victim, _LOCK_VICTIM_KEYS, "--victim")}
    result = engine_call(roll, "lock", with_rolls(payload, faces), seed=seed)
    emit(result.to_dict(), as_json)


#: What `fracas throw --thrower` / `--target` / `--damage KEY=VALUE,...` may set, and how each value is read.
_THROWER_KEYS: dict[str, Any] = {"agility": int, "agility_mod": int, "condition": list, "obscurement": int,
                                 "swim_speed": int, "charmed_by": str}
_THROW_TARGET_KEYS: dict[str, Any] = {"id": str, "ac": int, "cover": str, "condition": list, "resistant": list,
                                      "vulnerable": list, "immune": list}
_THROW_DAMAGE_KEYS: dict[str, Any] = {"dice": int, "faces": int, "bonus": int, "damage_type": str}
_THROW_ITEMS = ("acid splash", "bonfire blend", "explosive oil", "firebreather's oil", "holy water", "sleep smoke",
                "smoke of restraint", "thick smoke", "other", "magic")


@click.command(short_help="An Enchanted Realms thrown item (acid, holy water, ...) or hurled spell.")
@click.argument("request", type=click.File("rb"), required=False)
@click.option("--item", type=click.Choice(_THROW_ITEMS), default=None,
              help="What is thrown: an item of the table, other (give --damage) or magic (throwing magic).")
@click.option("--skill", type=click.Choice(["none", "ranged", "hurling"]), default="none", show_default=True,
              help="The thrower's combat skill: 1, 2 or 3 d20 for an item; Agility added for magic.")
@click.option("--thrower", metavar="KEY=VALUE,...", default=None,
              help="The thrower, e.g. agility=7,condition=shaken; keys: " + ", ".join(_THROWER_KEYS) + ".")
@click.option("--target", metavar="KEY=VALUE,...",
              help="The target, e.g. id=ghoul,ac=14,vulnerable=smite; keys: " + ", ".join(_THROW_TARGET_KEYS) + ".")
@click.option("--damage", metavar="KEY=VALUE,...", default=None,
              help="Damage of magic or an unlisted item, e.g. dice=2,faces=6,damage_type=fire; keys: "
                   + ", ".join(_THROW_DAMAGE_KEYS) + ".")
@click.option("--bonus", type=int, default=0, show_default=True, help="Added to every d20 of the throw.")
@click.option("--advantage", is_flag=True, help="The throw is at advantage (ER-12).")
@click.option("--disadvantage", is_flag=True, help="The throw is at disadvantage (ER-12).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="Roll from this seed.")
@click.option("--rolls", "rolls", default=None, metavar="FACES",
              help="Physical dice in draw order: the throw's d20s, then the damage dice on a hit.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def throw(request: Any, item: Optional[str], skill: str, thrower: Optional[str], target: Optional[str],
          damage: Optional[str], bonus: int, advantage: bool, disadvantage: bool, seed: Any, rolls: Any,
          as_json: bool) -> None:
    """An Enchanted Realms thrown item or hurled spell: 1, 2 or 3 d20 by the thrower's skill
    (none, ranged fighting, hurling), each raw face against the target's AC, any hit enough
    for the item's damage (ER-10 on its type); throwing magic is one d20 plus the Agility
    modifier (ranged fighting) or the Agility score (hurling). No crits. Prints the dice, the
    damage and the exact odds. REQUEST is a JSON throw request ('-' for stdin), or use the
    flags, e.g. `fracas throw --item "holy water" --skill hurling --target id=ghoul,ac=14`."""
    from .cli import key_values

    faces = parse_rolls(rolls) if rolls is not None else None
    if request is not None:
        payload = load_json(request.read(), "the request")
    else:
        if item is None or target is None:
            raise click.UsageError("give --item and --target (or a request file)")
        payload = {"item": item, "skill": skill, "target": key_values(target, _THROW_TARGET_KEYS, "--target"),
                   "bonus": bonus, "advantage": advantage, "disadvantage": disadvantage}
        if thrower is not None:
            payload["thrower"] = key_values(thrower, _THROWER_KEYS, "--thrower")
        if damage is not None:
            payload["damage"] = key_values(damage, _THROW_DAMAGE_KEYS, "--damage")
    result = engine_call(roll, "throw", with_rolls(payload, faces), seed=seed)
    emit(result.to_dict(), as_json)


#: What `fracas slam --grappler` / `--victim` / `--into KEY=VALUE,...` may set.
_SLAMMER_KEYS: dict[str, Any] = {"id": str, "size": str, "strength": int, "strength_mod": int, "height": int,
                                 "to_hit": int, "advantage": bool, "disadvantage": bool, "condition": list}
_SLAMMED_KEYS: dict[str, Any] = {"id": str, "size": str, "resistant": list, "vulnerable": list, "immune": list}
_SLAM_INTO_KEYS: dict[str, Any] = {"id": str, "ac": int, "size": str, "distance": int, "resistant": list,
                                   "vulnerable": list, "immune": list}


@click.command(short_help="An Enchanted Realms grappler's slam: hurl the held victim, maybe into another.")
@click.argument("request", type=click.File("rb"), required=False)
@click.option("--grappler", metavar="KEY=VALUE,...",
              help="Who slams (two sizes larger than its victim), e.g. id=giant,size=huge,strength=10; keys: "
                   + ", ".join(_SLAMMER_KEYS) + ".")
@click.option("--victim", metavar="KEY=VALUE,...",
              help="The held victim, e.g. id=aria,size=medium; keys: " + ", ".join(_SLAMMED_KEYS) + ".")
@click.option("--into", metavar="KEY=VALUE,...",
              help="A second target within 10 ft (a grappler ten feet or taller), e.g. id=bob,ac=12,distance=10; "
                   "keys: " + ", ".join(_SLAM_INTO_KEYS) + ".")
@click.option("--damage-type", default="blunt", show_default=True,
              help="The victim's damage type: blunt, or the terrain's (ER-10).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="Roll from this seed.")
@click.option("--rolls", "rolls", default=None, metavar="FACES",
              help="Physical dice in draw order: the hurling attack's d20s (only with --into).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def slam(request: Any, grappler: Optional[str], victim: Optional[str], into: Optional[str], damage_type: str,
         seed: Any, rolls: Any, as_json: bool) -> None:
    """An Enchanted Realms grappler's slam: a grappler two or more sizes larger than the victim
    it holds hurls it for its Strength bonus in blunt damage (ER-10), freeing it; a grappler
    ten feet or taller may slam it into another target within 10 ft: a hurling attack of 3d20
    against that target's AC, the Strength bonus in blunt damage on a hit, with its exact
    chance. REQUEST is a JSON slam request ('-' for stdin), or use the flags, e.g.
    `fracas slam --grappler id=giant,size=huge,strength=10 --victim id=aria
    --into id=bob,ac=12,distance=10`."""
    from .cli import key_values

    faces = parse_rolls(rolls) if rolls is not None else None
    if request is not None:
        payload = load_json(request.read(), "the request")
    else:
        if grappler is None or victim is None:
            raise click.UsageError("give --grappler and --victim (or a request file)")
        payload = {"grappler": key_values(grappler, _SLAMMER_KEYS, "--grappler"),
                   "victim": key_values(victim, _SLAMMED_KEYS, "--victim"), "damage_type": damage_type}
        if into is not None:
            payload["into"] = key_values(into, _SLAM_INTO_KEYS, "--into")
    result = engine_call(roll, "slam", with_rolls(payload, faces), seed=seed)
    emit(result.to_dict(), as_json)
