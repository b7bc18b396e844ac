"""Build the known-answer vectors of Enchanted Realms beyond the single strike:
`python tests/vectors/generate_specials.py`.

ER-17 stray shots, ER-19 competitions (with savage form's incidental damage, "ER Grappling:
Uncommon Conditions"), ER-20 flee attacks, ER-21 grapple releases,
ER-22 defense rolls and ER-23 impalement. Each vector is a request (`kind`: attack,
compete or impale) with a seed, and the engine's result (`to_dict()` without
`backend`) or its error (`type`, `path`, `reason`). The Python suite checks every
backend still produces them; the Roll20 Mod script's JavaScript resolver must produce
them too. Regenerate only on purpose (a rule or draw-order change), and say why in
the commit.
"""

from __future__ import annotations

import random
from pathlib import Path

from fracas.spec import kindvectors

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "er_specials_vectors.json"
SIZES = ["small", "medium", "medium", "large", "huge"]
TYPES = ["piercing", "edged", "fire", "blunt"]
BYSTANDER_CONDITIONS = ["paralyzed", "petrified", "restrained", "prone", "invisible"]


def _creature(rng: random.Random) -> dict:
    creature: dict = {"ac": rng.randint(6, 18)}
    if rng.random() < 0.2:
        creature["resistant"] = [rng.choice(TYPES)]
    if rng.random() < 0.1:
        creature["vulnerable"] = [rng.choice(TYPES)]
    if rng.random() < 0.15:
        creature["conditions"] = [rng.choice(BYSTANDER_CONDITIONS)]
    if rng.random() < 0.1:
        creature["cover"] = rng.choice(["half", "full"])
    if rng.random() < 0.1:
        creature["crit_proof"] = True
    if rng.random() < 0.25:
        creature["grappling"] = rng.choice([{"strength": rng.randint(0, 8)}, {"strength_mod": rng.randint(-1, 4),
                                                                              "bonus": rng.randint(0, 3)}, {}])
    return creature


def stray_attack(rng: random.Random) -> dict:
    """A shot into a crowd (ER-17), sometimes with a grappler among the crowd (ER-21)."""
    n = rng.choice([0, 1, 2, 3, 8, 8, 9]) if rng.random() < 0.1 else rng.randint(1, 8)
    ids = [f"b{i}" for i in range(n)]
    targets: dict = {"mark": {"ac": rng.randint(14, 26), "nearby": ids,
                              "cover": rng.choice(["three-quarters", "three-quarters", "half", "none"])}}
    if rng.random() < 0.2:
        targets["mark"]["conditions"] = ["invisible"]
    for i in ids:
        targets[i] = _creature(rng)
    attacker: dict = {"agility": rng.randint(0, 8), "strength": rng.randint(0, 8)}
    if rng.random() < 0.15:
        attacker["conditions"] = ["blind"]
    strikes = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        strike: dict = {"target": "mark", "method": "range", "style": rng.choice(["archery", "crossbow", "thrown"]),
                        "dice": rng.randint(1, 5), "damage_type": rng.choice(TYPES)}
        if rng.random() < 0.4:
            strike["crit"] = True
            if rng.random() < 0.4:
                strike["crit_range"] = rng.choice([18, 19])
        if rng.random() < 0.15:
            strike["friendly_fire"] = rng.random() < 0.7
        if rng.random() < 0.1:
            strike["disadvantage"] = True
        if rng.random() < 0.1:
            strike["advantage"] = True
        if rng.random() < 0.05:  # a melee strike marked for friendly fire: refused
            strike.update(method="melee", style="slashing", friendly_fire=True)
        strikes.append(strike)
    return {"attacker": attacker, "strikes": strikes, "targets": targets}


def plain_attack(rng: random.Random) -> dict:
    targets = {"pc": _creature(rng)}
    if rng.random() < 0.3:
        targets["pc"]["body_max"] = rng.randint(2, 8)
        targets["pc"]["save_bonus"] = rng.randint(-1, 4)
    strike: dict = {"target": "pc", "method": rng.choice(["melee", "melee", "savage", "range"]),
                    "dice": rng.randint(1, 5), "damage_type": rng.choice(TYPES)}
    strike["style"] = {"melee": rng.choice(["slashing", "bludgeoning", "piercing"]), "savage": "savage",
                       "range": "archery"}[strike["method"]]
    if strike["method"] != "range" and rng.random() < 0.5:
        strike["weight"] = rng.randint(0, 2)
    for key, p in (("advantage", 0.15), ("disadvantage", 0.15)):
        if rng.random() < p:
            strike[key] = True
    if rng.random() < 0.1:
        strike["sneak"] = True
        strike["weight"] = 0
    strikes = [strike]
    if rng.random() < 0.2:
        strikes.append(dict(strike, dice=rng.randint(1, 3)))
    return {"attacker": {"strength": rng.randint(0, 8), "agility": rng.randint(0, 8)}, "strikes": strikes,
            "targets": targets}


def flee_attack(rng: random.Random) -> dict:
    request = plain_attack(rng)
    request["flee"] = {"moved": rng.choice([-5, 0, 10, 15, 20, 35, 70, 74, 75, 120])}
    return request


def defense_attack(rng: random.Random) -> dict:
    request = plain_attack(rng) if rng.random() < 0.85 else stray_attack(rng)
    request["defense_rolls"] = True
    return request


def competitor(rng: random.Random, name: str) -> dict:
    c: dict = {"id": name}
    if rng.random() < 0.3:
        c["attribute"] = "agility"
    if rng.random() < 0.9:
        c[rng.choice(["strength", "agility"])] = rng.randint(0, 9)
        c.setdefault("strength", rng.randint(0, 9))
        c.setdefault("agility", rng.randint(0, 9))
    if rng.random() < 0.3:
        c["size"] = rng.choice(["small", "medium", "large", "huge", "giant"])
    if rng.random() < 0.3:
        c["speed"] = rng.choice([20, 25, 30, 40, 60])
    for key, p in (("prone", 0.1), ("advantage", 0.15), ("disadvantage", 0.15)):
        if rng.random() < p:
            c[key] = True
    if rng.random() < 0.2:
        c["bonus"] = rng.randint(-2, 3)
    return c


def compete(rng: random.Random) -> dict:
    request: dict = {"contest": rng.choice(["plain", "grapple", "escape", "shove", "trip"]),
                     "challenger": competitor(rng, "ogre"), "defender": competitor(rng, "aria")}
    if rng.random() < 0.3:
        request["slick"] = True
    if rng.random() < 0.03:
        request["defender"]["id"] = "ogre"
    return request


def impale(rng: random.Random) -> dict:
    charger = {"id": "ogre", "ac": rng.randint(8, 16), "body": rng.randint(1, 12),
               "closed": rng.choice([20, 25, 30, 45, 60])}
    if rng.random() < 0.2:
        charger["resistant"] = ["piercing"]
    request: dict = {"pikeman": {"strength": rng.randint(0, 8)}, "charger": charger}
    weapon: dict = {}
    if rng.random() < 0.4:
        weapon["forte"] = True
    if rng.random() < 0.5:
        weapon["weight"] = rng.randint(0, 2)
    if rng.random() < 0.05:
        weapon["style"] = "slashing"
    if rng.random() < 0.05:
        weapon["damage_type"] = "edged"
    if weapon:
        request["weapon"] = weapon
    if rng.random() < 0.7:
        request["charge"] = {"attacker": {"strength": rng.randint(2, 9)}, "strikes": [
            {"target": "pike", "method": "melee", "style": "bludgeoning", "dice": rng.randint(1, 4),
             "damage_type": "blunt", "weight": 2}], "targets": {"pike": {"ac": rng.randint(10, 16)}}}
    return request


# Conditions a roller may carry on its feats, saves and competitions (ER-12/ER-14).
ROLLER_CONDITIONS = ["poisoned", "bound", "restrained", "shaken", "drowsy", "defending", "frightened",
                     "held-breath", "unconscious", "paralyzed", "prone", "incapacitated", "blind"]


def _conditions(rng: random.Random, p: float = 0.6) -> list:
    return rng.sample(ROLLER_CONDITIONS, rng.choice([1, 1, 2])) if rng.random() < p else []


def combined_attack(rng: random.Random) -> dict:
    """ER situations that combine rules: strays and direct strikes at the same creatures (ER-9),
    full cover under friendly fire (ER-16), grapplers and sneak victims with conditions
    (ER-12/ER-14 on the ER-21 feats and the ER-13 save), a feat per strike (ER-21)."""
    targets: dict = {"mark": {"ac": rng.randint(12, 24), "nearby": ["b0", "b1", "b2"][:rng.randint(1, 3)],
                              "cover": rng.choice(["full", "full", "three-quarters", "none"])}}
    for i in range(3):
        b = _creature(rng)
        b.pop("cover", None)
        if rng.random() < 0.5:
            b["grappling"] = rng.choice([{"strength": rng.randint(0, 8)}, {"strength_mod": 1}, {}])
        b["conditions"] = _conditions(rng, 0.5)
        if rng.random() < 0.4:
            b.update(body_max=rng.randint(2, 6), save_bonus=rng.randint(-1, 3))
        targets[f"b{i}"] = b
    attacker: dict = {"agility": rng.randint(0, 8), "strength": rng.randint(0, 8)}
    strikes = []
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.5:
            strike: dict = {"target": "mark", "method": "range", "style": rng.choice(["archery", "thrown"]),
                            "dice": rng.randint(1, 3), "damage_type": rng.choice(TYPES), "friendly_fire": True}
            if rng.random() < 0.3:
                strike["crit"] = True
        else:
            strike = {"target": rng.choice(["b0", "b1", "b2"]), "method": "melee",
                      "style": rng.choice(["slashing", "piercing"]), "dice": rng.randint(1, 3),
                      "damage_type": rng.choice(TYPES), "weight": rng.randint(0, 2)}
            if rng.random() < 0.3:
                strike.update(sneak=True, weight=0)
        strikes.append(strike)
    return {"attacker": attacker, "strikes": strikes, "targets": targets}


def combined_flee(rng: random.Random) -> dict:
    """ER-20 under ER-12 and defending (ER-15): conditions on the attacker and the mover."""
    request = plain_attack(rng)
    request["strikes"] = request["strikes"][:1]
    request["strikes"][0].pop("sneak", None)
    if request["strikes"][0]["method"] == "range":
        request["strikes"][0].update(method="melee", style="slashing")
    request["flee"] = {"moved": rng.choice([20, 40, 75, 90])}
    request["attacker"]["conditions"] = rng.choice([[], ["prone"], ["poisoned"], ["defending"], ["shaken"]])
    request["targets"]["pc"]["conditions"] = rng.choice([[], ["prone"], ["defending"], ["bound"]])
    return request


def combined_compete(rng: random.Random) -> dict:
    request = compete(rng)
    for side in ("challenger", "defender"):
        request[side]["conditions"] = _conditions(rng)
    return request


def combined_impale(rng: random.Random) -> dict:
    request = impale(rng)
    if rng.random() < 0.3:
        request["pikeman"]["conditions"] = ["defending"]
    return request


CURATED = [
    ("ER-17 18 shifted to a natural 20 crits the bystander", "attack", {
        "rolls": [18, 2, 1, 20, 2, 12, 3],
        "attacker": {"agility": 4},
        "strikes": [{"target": "orc", "method": "range", "style": "archery", "dice": 2, "damage_type": "piercing",
                     "crit": True}],
        "targets": {"orc": {"ac": 25, "cover": "three-quarters", "nearby": ["ally", "ogre"]}, "ally": {"ac": 12},
                    "ogre": {"ac": 14}}}, 1),
    ("ER-17 a natural 1 shifted to a raw 3", "attack", {
        "rolls": [1, 2],
        "attacker": {"agility": 10},
        "strikes": [{"target": "orc", "method": "range", "style": "archery", "dice": 1, "damage_type": "piercing"}],
        "targets": {"orc": {"ac": 8, "cover": "three-quarters", "nearby": ["ally", "ogre"]}, "ally": {"ac": 12},
                    "ogre": {"ac": 13}}}, 1),
    ("ER-17 slot 9 is always empty", "attack", {
        "rolls": [5, 9],
        "attacker": {"agility": 2},
        "strikes": [{"target": "orc", "method": "range", "style": "archery", "dice": 1, "damage_type": "piercing"}],
        "targets": {"orc": {"ac": 15, "cover": "three-quarters", "nearby": ["ally"]}, "ally": {"ac": 5}}}, 1),
    ("ER-17 nine creatures near the target", "attack", {
        "attacker": {"agility": 2},
        "strikes": [{"target": "orc", "method": "range", "style": "archery", "dice": 1, "damage_type": "piercing"}],
        "targets": {"orc": {"ac": 15, "nearby": [f"b{i}" for i in range(9)]},
                    **{f"b{i}": {"ac": 10} for i in range(9)}}}, 1),
    ("ER-21 a grappler struck for 3 makes a DC 13 Strength feat", "attack", {
        "rolls": [15, 16, 9],
        "attacker": {"strength": 2},
        "strikes": [{"target": "bear", "method": "melee", "style": "slashing", "dice": 2, "weight": 1,
                     "damage_type": "edged"}],
        "targets": {"bear": {"ac": 12, "grappling": {"strength": 6}}}}, 1),
    ("ER-22 defense rolls, a natural 20 and a raw 1", "attack", {
        "rolls": [20, 1, 12],
        "defense_rolls": True,
        "attacker": {"strength": 4},
        "strikes": [{"target": "pc", "method": "melee", "style": "slashing", "dice": 3, "weight": 2,
                     "damage_type": "edged"}],
        "targets": {"pc": {"ac": 14}}}, 1),
    ("ER-20 rapid mover: one d20 only", "attack", {
        "rolls": [14],
        "flee": {"moved": 80},
        "attacker": {"strength": 4},
        "strikes": [{"target": "rat", "method": "melee", "style": "slashing", "dice": 4, "advantage": True,
                     "damage_type": "edged"}],
        "targets": {"rat": {"ac": 10}}}, 1),
    ("ER-20 negative movement", "attack", {
        "flee": {"moved": -5},
        "attacker": {"strength": 4},
        "strikes": [{"target": "rat", "method": "melee", "style": "slashing", "dice": 2, "damage_type": "edged"}],
        "targets": {"rat": {"ac": 10}}}, 1),
    ("ER-21 a poisoned grappler: two d20, the worse kept, one feat per strike", "attack", {
        "rolls": [15, 16, 9, 14, 13, 12, 5, 18],
        "attacker": {"strength": 2},
        "strikes": [{"target": "bear", "method": "melee", "style": "slashing", "dice": 2, "weight": 1,
                     "damage_type": "edged"},
                    {"target": "bear", "method": "melee", "style": "piercing", "dice": 2, "damage_type": "piercing"}],
        "targets": {"bear": {"ac": 12, "grappling": {"strength": 6}, "conditions": ["poisoned"]}}}, 1),
    ("ER-13 a shaken victim's shock save at -2", "attack", {
        "rolls": [15, 16, 3, 2, 8, 1],
        "attacker": {"strength": 2},
        "strikes": [{"target": "guard", "method": "melee", "style": "slashing", "dice": 2, "sneak": True,
                     "damage_type": "edged"}],
        "targets": {"guard": {"ac": 12, "body_max": 2, "save_bonus": 0, "conditions": ["shaken"]}}}, 1),
    ("ER-16 full cover under friendly fire: a miss that strays", "attack", {
        "rolls": [17, 2, 1],
        "attacker": {"agility": 4},
        "strikes": [{"target": "orc", "method": "range", "style": "archery", "dice": 2, "damage_type": "piercing",
                     "friendly_fire": True}],
        "targets": {"orc": {"ac": 5, "cover": "full", "nearby": ["ally", "ogre"]}, "ally": {"ac": 10},
                    "ogre": {"ac": 13}}}, 1),
    ("ER-9 an earlier stray takes the modifier", "attack", {
        "rolls": [15, 12, 1],
        "attacker": {"agility": 4},
        "strikes": [{"target": "orc", "method": "range", "style": "archery", "dice": 1, "damage_type": "piercing",
                     "friendly_fire": True},
                    {"target": "ally", "method": "range", "style": "archery", "dice": 1, "damage_type": "piercing"}],
        "targets": {"orc": {"ac": 20, "nearby": ["ally"]}, "ally": {"ac": 10}}}, 1),
    ("ER-20 a prone attacker's rapid flee attack drops its highest die", "attack", {
        "rolls": [20, 7],
        "flee": {"moved": 80},
        "attacker": {"strength": 4, "conditions": ["prone"]},
        "strikes": [{"target": "rat", "method": "melee", "style": "slashing", "dice": 2, "damage_type": "edged"}],
        "targets": {"rat": {"ac": 10}}}, 1),
    ("ER-20 a defensive-only mover draws no flee attack", "attack", {
        "flee": {"moved": 30},
        "attacker": {"strength": 4},
        "strikes": [{"target": "rat", "method": "melee", "style": "slashing", "dice": 2, "damage_type": "edged"}],
        "targets": {"rat": {"ac": 10, "conditions": ["defending"]}}}, 1),
    ("ER-19 a bound challenger keeps the worse d12", "compete", {
        "rolls": [11, 3, 5],
        "contest": "grapple",
        "challenger": {"id": "ogre", "strength": 4, "conditions": ["bound"]},
        "defender": {"id": "aria", "strength": 4}}, 1),
    ("ER-19 a tie rolled again twice", "compete", {
        "rolls": [4, 4, 7, 7, 9, 2],
        "contest": "grapple",
        "challenger": {"id": "ogre", "strength": 4}, "defender": {"id": "aria", "strength": 4}}, 1),
    ("ER-23 the charger incapacitated exactly at 0", "impale", {
        "rolls": [15, 16, 2],
        "pikeman": {"strength": 4}, "weapon": {"weight": 1},
        "charger": {"id": "ogre", "ac": 12, "body": 4, "closed": 30},
        "charge": {"attacker": {"strength": 6}, "strikes": [
            {"target": "pike", "method": "melee", "style": "bludgeoning", "dice": 2, "damage_type": "blunt"}],
            "targets": {"pike": {"ac": 13}}}}, 1),
    # ER-19 (issue 42): "+1 per 10 ft difference" only when both speeds are known.
    ("ER-19 a faster victim against a grappler of unknown speed", "compete", {
        "rolls": [6, 3], "contest": "grapple",
        "challenger": {"id": "ogre", "strength": 4}, "defender": {"id": "aria", "strength": 4, "speed": 40}}, 1),
    ("ER-19 a faster victim against a grappler of known speed", "compete", {
        "rolls": [6, 3], "contest": "grapple",
        "challenger": {"id": "ogre", "strength": 4, "speed": 20},
        "defender": {"id": "aria", "strength": 4, "speed": 40}}, 1),
    ("ER-19 an escape from a holder of unknown speed", "compete", {
        "rolls": [3, 6], "contest": "escape",
        "challenger": {"id": "aria", "strength": 4, "speed": 40}, "defender": {"id": "ogre", "strength": 4}}, 1),
    # ER-14: charmed "cannot attack the charmer"; asleep attacks nobody and is a target like another.
    ("ER-14 a charmed attacker cannot strike its charmer", "attack", {
        "attacker": {"strength": 4, "conditions": ["charmed"], "charmed_by": "aria"},
        "strikes": [{"target": "bob", "method": "melee", "style": "slashing", "dice": 2, "damage_type": "edged"},
                    {"target": "aria", "method": "melee", "style": "slashing", "dice": 2, "damage_type": "edged"}],
        "targets": {"aria": {"ac": 12}, "bob": {"ac": 12}}}, 1),
    ("ER-14 a charmed attacker strikes anyone but its charmer", "attack", {
        "attacker": {"strength": 4, "charmed_by": "aria"},
        "strikes": [{"target": "bob", "method": "melee", "style": "slashing", "dice": 2, "damage_type": "edged"}],
        "targets": {"aria": {"ac": 12}, "bob": {"ac": 12}}, "rolls": [15, 3]}, 1),
    ("ER-14 a charmer named empty", "attack", {
        "attacker": {"strength": 4, "charmed_by": ""},
        "strikes": [{"target": "bob", "method": "melee", "style": "slashing", "dice": 2, "damage_type": "edged"}],
        "targets": {"bob": {"ac": 12}}}, 1),
    ("ER-14 a pikeman charmed by the charger makes no impalement", "impale", {
        "pikeman": {"strength": 4, "charmed_by": "ogre"}, "charger": {"id": "ogre", "ac": 12, "body": 8,
                                                                      "closed": 30}}, 1),
    ("ER-14 an asleep attacker cannot attack", "attack", {
        "attacker": {"strength": 4, "conditions": ["asleep"]},
        "strikes": [{"target": "bob", "method": "melee", "style": "slashing", "dice": 2, "damage_type": "edged"}],
        "targets": {"bob": {"ac": 12}}}, 1),
    ("ER-15 an asleep defender neither defends nor is attacked with advantage", "attack", {
        "attacker": {"strength": 4},
        "strikes": [{"target": "bob", "method": "melee", "style": "slashing", "dice": 2, "damage_type": "edged"}],
        "targets": {"bob": {"ac": 12, "conditions": ["asleep", "defending"]}}, "rolls": [15, 3]}, 1),
]


#: ER-23: "if this pole is a glaive, then the heavy property will cause disadvantage on a
#: natural 18 to 20"; "the ula is an exception to the piercing-damage rule".
POLES = [
    ("ER-23 a glaive whose skill dice show no 18-20 strikes as any pole-arm", "impale", {
        "rolls": [17, 15, 3], "pikeman": {"strength": 4}, "weapon": {"pole": "glaive", "weight": 2},
        "charger": {"id": "ogre", "ac": 12, "body": 9, "closed": 30}}, 1),
    ("ER-23 a glaive's natural 20 puts the impalement at disadvantage: no crit, the 20 discarded", "impale", {
        "rolls": [20, 15, 3, 13], "pikeman": {"strength": 4}, "weapon": {"pole": "glaive", "weight": 2},
        "charger": {"id": "ogre", "ac": 12, "body": 9, "closed": 30}}, 1),
    ("ER-23 a glaive's natural 18 with forte: four skill dice, then the disadvantage die", "impale", {
        "rolls": [18, 4, 12, 16, 19], "pikeman": {"strength": 4}, "weapon": {"pole": "glaive", "forte": True},
        "charger": {"id": "ogre", "ac": 12, "body": 9, "closed": 30}}, 1),
    ("ER-23 a glaive's heavy disadvantage cancels the advantage against a restrained charger", "impale", {
        "rolls": [19, 12, 3], "pikeman": {"strength": 4}, "weapon": {"pole": "glaive"},
        "charger": {"id": "ogre", "ac": 12, "body": 9, "closed": 30, "conditions": ["restrained"]}}, 1),
    ("ER-23 a poisoned pikeman's glaive: the disadvantage does not stack", "impale", {
        "rolls": [18, 12, 3, 11], "pikeman": {"strength": 4, "conditions": ["poisoned"]},
        "weapon": {"pole": "glaive"}, "charger": {"id": "ogre", "ac": 12, "body": 9, "closed": 30}}, 1),
    ("ER-23 a glaive with too few faces: the strike says so", "impale", {
        "rolls": [18, 12], "pikeman": {"strength": 4}, "weapon": {"pole": "glaive"},
        "charger": {"id": "ogre", "ac": 12, "body": 9, "closed": 30}}, 1),
    ("ER-23 an ula impales with a blunt head", "impale", {
        "rolls": [15, 16, 2], "pikeman": {"strength": 4},
        "weapon": {"pole": "ula", "damage_type": "blunt", "weight": 1},
        "charger": {"id": "ogre", "ac": 12, "body": 9, "closed": 30}}, 1),
    ("ER-23 an ula's natural 20 is not heavy: it crits", "impale", {
        "rolls": [20, 16, 2, 12, 3], "pikeman": {"strength": 4}, "weapon": {"pole": "ula"},
        "charger": {"id": "ogre", "ac": 12, "body": 9, "closed": 30}}, 1),
    ("ER-23 another pole-arm still pierces", "impale", {
        "pikeman": {"strength": 4}, "weapon": {"damage_type": "blunt"},
        "charger": {"id": "ogre", "ac": 12, "body": 9, "closed": 30}}, 1),
    ("ER-23 a pole that is neither glaive nor ula", "impale", {
        "pikeman": {"strength": 4}, "weapon": {"pole": "halberd"},
        "charger": {"id": "ogre", "ac": 12, "body": 9, "closed": 30}}, 1),
]


def pole_impale(rng: random.Random) -> dict:
    """An impalement with a glaive or an ula (ER-23), sometimes with what changes its dice."""
    request = impale(rng)
    request["charger"]["closed"] = rng.choice([25, 30, 45])
    weapon = request.setdefault("weapon", {})
    weapon.pop("style", None)
    weapon["pole"] = rng.choice(["glaive", "glaive", "glaive", "ula"])
    if weapon["pole"] == "ula" and rng.random() < 0.5:
        weapon["damage_type"] = rng.choice(["blunt", "edged"])
    elif weapon["pole"] == "glaive":
        weapon.pop("damage_type", None)
    if rng.random() < 0.2:
        request["pikeman"]["conditions"] = [rng.choice(["poisoned", "prone", "shaken"])]
    if rng.random() < 0.2:
        request["charger"]["conditions"] = [rng.choice(["restrained", "prone", "invisible"])]
    return request


#: "ER Grappling: Uncommon Conditions": a grapple victim's savage form (claws over a bite) hurts
#: a grappler without one on a raw 8+, delivers poison or special weaponry on a raw 12; an
#: escape the victim loses then calls for the grappler's Strength feat (DC 10 + the damage).
WOLF = {"id": "wolf", "strength": 4, "savage_form": [
    {"strike": "bite", "type": "piercing", "poison": True, "special": "wolfsbane venom"},
    {"strike": "claw", "type": "edged"}]}
OGRE = {"id": "ogre", "strength": 8}
SAVAGE = [
    ("ER Grappling: Uncommon Conditions a victim's raw 8 deals the grappler 1 point, claws over bite", "compete", {
        "rolls": [3, 8], "contest": "grapple", "challenger": OGRE, "defender": WOLF}, 1),
    ("ER Grappling: Uncommon Conditions a raw 12 delivers the poison too", "compete", {
        "rolls": [3, 12], "contest": "grapple", "challenger": OGRE,
        "defender": {**WOLF, "savage_form": WOLF["savage_form"][:1]}}, 1),
    ("ER Grappling: Uncommon Conditions a raw 7 deals nothing", "compete", {
        "rolls": [3, 7], "contest": "grapple", "challenger": OGRE, "defender": WOLF}, 1),
    ("ER Grappling: Uncommon Conditions a grappler with savage form of its own takes nothing", "compete", {
        "rolls": [3, 12], "contest": "grapple", "challenger": {**OGRE, "savage_form": [{"strike": "bite",
                                                                                       "type": "piercing"}]},
        "defender": WOLF}, 1),
    ("ER Grappling: Uncommon Conditions an escape lost after a raw 9: the grappler's DC 11 feat fails", "compete", {
        "rolls": [9, 11, 5], "contest": "escape", "challenger": WOLF, "defender": OGRE}, 1),
    ("ER Grappling: Uncommon Conditions an escape lost after a raw 9: the grappler's DC 11 feat holds", "compete", {
        "rolls": [9, 11, 15], "contest": "escape", "challenger": WOLF, "defender": OGRE}, 1),
    ("ER Grappling: Uncommon Conditions an escape won needs no feat", "compete", {
        "rolls": [10, 2], "contest": "escape", "challenger": WOLF, "defender": OGRE}, 1),
    ("ER-10 a grappler resistant to edged takes 0 and makes no feat", "compete", {
        "rolls": [9, 11], "contest": "escape", "challenger": WOLF, "defender": {**OGRE, "resistant": ["edged"]}}, 1),
    ("ER-10 a grappler vulnerable to edged takes 2: DC 12", "compete", {
        "rolls": [9, 11, 5], "contest": "escape", "challenger": WOLF, "defender": {**OGRE, "vulnerable": ["edged"]}}, 1),
    ("ER-21 a poisoned grappler's feat: two d20, the worse kept", "compete", {
        "rolls": [9, 11, 10, 15, 4], "contest": "escape", "challenger": WOLF,
        "defender": {**OGRE, "conditions": ["poisoned"]}}, 1),
    ("ER Grappling: Uncommon Conditions a grappler of unknown Strength: the table rolls the feat", "compete", {
        "rolls": [9, 11], "contest": "escape", "challenger": WOLF,
        "defender": {"id": "ogre", "attribute": "agility", "agility": 8}}, 1),
    ("ER Grappling: Uncommon Conditions savage form in a shove is refused", "compete", {
        "contest": "shove", "challenger": OGRE, "defender": WOLF}, 1),
    ("ER Grappling: Uncommon Conditions a savage strike of no known damage type", "compete", {
        "contest": "grapple", "challenger": OGRE,
        "defender": {**WOLF, "savage_form": [{"strike": "tail", "type": "sting"}]}}, 1),
    ("ER Grappling: Uncommon Conditions a strike with no name", "compete", {
        "contest": "grapple", "challenger": OGRE, "defender": {**WOLF, "savage_form": [{"strike": " ",
                                                                                        "type": "edged"}]}}, 1),
    ("ER Grappling: Uncommon Conditions too many savage strikes", "compete", {
        "contest": "grapple", "challenger": OGRE,
        "defender": {**WOLF, "savage_form": [{"strike": "claw", "type": "edged"}] * 9}}, 1),
    ("ER Grappling: Uncommon Conditions too few faces for the grappler's feat", "compete", {
        "rolls": [9, 11], "contest": "escape", "challenger": WOLF, "defender": OGRE}, 1),
]

SAVAGE_STRIKES = [{"strike": "claw", "type": "edged"}, {"strike": "bite", "type": "piercing"},
                  {"strike": "bite", "type": "piercing", "poison": True},
                  {"strike": "horn", "type": "piercing", "special": "goring"}, {"strike": "talons", "type": "edged"}]


def savage_compete(rng: random.Random) -> dict:
    """A grapple or an escape with savage form on one side or both (ER Grappling: Uncommon Conditions)."""
    request = combined_compete(rng) if rng.random() < 0.4 else compete(rng)
    request["contest"] = rng.choice(["grapple", "escape", "grapple", "escape", "shove"])
    victim, grappler = ("defender", "challenger") if request["contest"] != "escape" else ("challenger", "defender")
    request[victim]["savage_form"] = rng.sample(SAVAGE_STRIKES, rng.randint(1, 3))
    if rng.random() < 0.1:
        request[grappler]["savage_form"] = [rng.choice(SAVAGE_STRIKES)]
    if rng.random() < 0.25:
        request[grappler][rng.choice(["resistant", "vulnerable", "immune"])] = [rng.choice(["edged", "piercing"])]
    if rng.random() < 0.2:
        request[grappler].pop("strength", None)
        request[grappler]["strength_mod"] = rng.randint(-1, 4)
    return request


def vector(name: str, kind: str, request: dict, seed: int) -> dict:
    return kindvectors.vector(kind, name, request, seed)


def build(count: int = 400) -> list[dict]:
    rng = random.Random(20261123)
    vectors = [vector(name, kind, request, seed) for name, kind, request, seed in CURATED]
    makers = [("attack", stray_attack)] * 4 + [("attack", flee_attack), ("attack", defense_attack),
                                               ("attack", defense_attack), ("compete", compete),
                                               ("compete", compete), ("impale", impale)]
    for i in range(count):
        kind, make = makers[i % len(makers)]
        vectors.append(vector(f"{kind}-{make.__name__}-{i}", kind, make(rng), rng.getrandbits(64)))
    # The situations that combine rules, from their own stream (the vectors above keep theirs).
    rng = random.Random(20261124)
    makers = [("attack", combined_attack)] * 3 + [("attack", combined_flee), ("compete", combined_compete),
                                                  ("compete", combined_compete), ("impale", combined_impale)]
    for i in range(140):
        kind, make = makers[i % len(makers)]
        vectors.append(vector(f"{kind}-{make.__name__}-{i}", kind, make(rng), rng.getrandbits(64)))
    # ER-23's named pole-arms (the glaive's heavy property, the ula's damage), from their own stream.
    vectors += [vector(name, kind, request, seed) for name, kind, request, seed in POLES]
    rng = random.Random(20261128)
    for i in range(60):
        vectors.append(vector(f"impale-pole_impale-{i}", "impale", pole_impale(rng), rng.getrandbits(64)))
    # Savage form in a grapple or an escape, from its own stream.
    vectors += [vector(name, kind, request, seed) for name, kind, request, seed in SAVAGE]
    rng = random.Random(20261142)
    for i in range(80):
        vectors.append(vector(f"compete-savage_compete-{i}", "compete", savage_compete(rng), rng.getrandbits(64)))
    return vectors


dumps = kindvectors.dumps


def outputs() -> dict[Path, str]:
    """What this generator writes, {path: text} (`python -m fracas.spec` writes and checks it)."""
    return {VECTORS: dumps(build())}


if __name__ == "__main__":
    kindvectors.main(outputs)
