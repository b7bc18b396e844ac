"""Build the known-answer vectors of Enchanted Realms "Getting the Drop" (the `drop` kind):
`python tests/vectors/generate_drop.py`.

Each vector is a drop request with a seed, and the engine's result (`to_dict()` without
`backend`) or its error (`type`, `path`, `reason`). Getting the drop rolls its sneak attack
through the active ER kernel (compiled or pure Python); inflicting the held damage rolls
the victim's feat in Python from the same stream: the Python suite checks every backend
still produces them (tests/engine/test_er_drop.py). The Roll20 resolver has no drop port;
its Mod sends drops to the bridge. Regenerate only on purpose (a rule or draw-order
change), and say why in the commit.

Draw order pinned here: getting the drop draws its attack's dice (docs/ENGINE.md §2; no
follow-up unless the victim cannot surrender); inflicting draws one d20, or two at
advantage or disadvantage, the first drawn first.
"""

from __future__ import annotations

import random
from pathlib import Path

from fracas.spec import kindvectors

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "er_drop_vectors.json"
CONDITIONS = ["poisoned", "bound", "restrained", "shaken", "drowsy", "defending", "paralyzed", "prone", "frightened"]

BOW = {"target": "captain", "method": "range", "style": "archery", "dice": 2, "damage_type": "piercing", "sneak": True}
KNIFE = {"target": "captain", "method": "melee", "style": "piercing", "dice": 2, "damage_type": "piercing",
         "weight": 0, "sneak": True}
CAPTAIN = {"ac": 12, "save_bonus": 2, "body_max": 6}

CURATED = [
    ("ER-13 Getting the Drop: the sneak attack rolled, its damage held, nothing follows", {
        "attack": {"attacker": {"agility": 5}, "strikes": [BOW], "targets": {"captain": CAPTAIN}},
        "rolls": [15, 9, 3, 12]}, 1),
    ("ER-13 Getting the Drop: a knife at the throat, the sneak die lost to a noticed approach", {
        "attack": {"attacker": {"strength": 4}, "strikes": [{**KNIFE, "sneak": "advantage-only"}],
                   "targets": {"captain": {"ac": 11}}}, "rolls": [20, 4, 11]}, 1),
    ("ER-13 Getting the Drop: a zombie cannot surrender, a plain sneak attack with its shock save", {
        "attack": {"attacker": {"agility": 5}, "strikes": [BOW], "targets": {"captain": CAPTAIN}},
        "surrenders": False, "rolls": [15, 9, 3, 12, 14]}, 1),
    ("ER-13 Getting the Drop: not a sneak attack", {
        "attack": {"attacker": {"agility": 5}, "strikes": [{**BOW, "sneak": False}], "targets": {"captain": CAPTAIN}}},
     1),
    ("ER-13 Getting the Drop: one victim only", {
        "attack": {"attacker": {"agility": 5}, "strikes": [BOW, {**BOW, "target": "guard"}],
                   "targets": {"captain": CAPTAIN, "guard": {"ac": 10}}}}, 1),
    ("ER-13 ER-17 Getting the Drop: a held shot does not stray", {
        "attack": {"attacker": {"agility": 5}, "strikes": [{**BOW, "friendly_fire": True}],
                   "targets": {"captain": CAPTAIN}}}, 1),
    ("ER-13 ER-12 Getting the Drop: a sneak attack at disadvantage is refused", {
        "attack": {"attacker": {"agility": 5, "conditions": ["poisoned"]}, "strikes": [BOW],
                   "targets": {"captain": CAPTAIN}}}, 1),
    ("Getting the Drop inflicted: DC 20 at once, the feat fails, full damage", {
        "inflict": {"held": 7, "victim": {"id": "captain", "score": 6}}, "rolls": [17]}, 1),
    ("Getting the Drop inflicted: DC 20 met, half damage rounded down", {
        "inflict": {"held": 7, "victim": {"id": "captain", "score": 6}}, "rolls": [18]}, 1),
    ("Getting the Drop inflicted: two rounds later DC 18, foul play at advantage", {
        "inflict": {"held": 7, "rounds": 2, "victim": {"id": "captain", "score": 6, "foul_play": True}},
        "rolls": [3, 17]}, 1),
    ("Getting the Drop inflicted: the DC falls no lower than 14", {
        "inflict": {"held": 9, "rounds": 30, "victim": {"id": "captain", "attribute": "strength", "modifier": 0}},
        "rolls": [14]}, 1),
    ("ER-14 Getting the Drop inflicted: a paralyzed victim fails without a die", {
        "inflict": {"held": 6, "victim": {"id": "captain", "modifier": 3, "conditions": ["paralyzed"],
                                           "body_max": 10}}}, 1),
    ("ER-13 Getting the Drop inflicted: half the victim's Body or more calls for the shock save", {
        "inflict": {"held": 6, "victim": {"id": "captain", "modifier": 0, "body_max": 12}}, "rolls": [2]}, 1),
    ("Getting the Drop: both the attack and the inflicting", {
        "attack": {"attacker": {"agility": 5}, "strikes": [BOW], "targets": {"captain": CAPTAIN}},
        "inflict": {"held": 3, "victim": {"id": "captain", "modifier": 0}}}, 1),
    ("Getting the Drop inflicted: the victim's attribute is needed", {
        "inflict": {"held": 3, "victim": {"id": "captain"}}}, 1),
]


def random_drop(rng: random.Random) -> dict:
    if rng.random() < 0.5:
        strike = dict(rng.choice([BOW, KNIFE]))
        strike["dice"] = rng.randint(1, 5)
        if rng.random() < 0.3:
            strike["sneak"] = "advantage-only"
        if rng.random() < 0.3:
            strike["crit"] = True
        target: dict = {"ac": rng.randint(8, 18)}
        if rng.random() < 0.3:
            target["body_max"] = rng.randint(3, 12)
            target["save_bonus"] = rng.randint(-1, 3)
        if rng.random() < 0.2:
            target["resistant"] = ["piercing"]
        if rng.random() < 0.2:
            target["conditions"] = [rng.choice(["prone", "restrained", "asleep", "invisible"])]
        request: dict = {"attack": {"attacker": {"agility": rng.randint(0, 8), "strength": rng.randint(0, 8)},
                                    "strikes": [strike], "targets": {"captain": target}}}
        if rng.random() < 0.25:
            request["surrenders"] = False
    else:
        victim: dict = {"id": "captain", "attribute": rng.choice(["strength", "agility"])}
        if rng.random() < 0.5:
            victim["score"] = rng.randint(0, 12)
        else:
            victim["modifier"] = rng.randint(-1, 6)
        if rng.random() < 0.3:
            victim["foul_play"] = True
        if rng.random() < 0.3:
            victim["conditions"] = rng.sample(CONDITIONS, rng.choice([1, 2]))
        if rng.random() < 0.3:
            victim["body_max"] = rng.randint(4, 20)
        if rng.random() < 0.1:
            victim["disadvantage"] = True
        request = {"inflict": {"held": rng.randint(0, 15), "rounds": rng.choice([0, 0, 1, 2, 5, 6, 7, 12]),
                               "victim": victim}}
    if rng.random() < 0.15:
        request["rolls"] = [rng.randint(1, 20) for _ in range(rng.randint(1, 6))]
    return request



def build(count: int = 120) -> list[dict]:
    return kindvectors.build("drop", CURATED, random_drop, seed=20261130, count=count)


dumps = kindvectors.dumps


def outputs() -> dict[Path, str]:
    """What this generator writes, {path: text} (`python -m fracas.spec` writes and checks it)."""
    return {VECTORS: dumps(build())}


if __name__ == "__main__":
    kindvectors.main(outputs)
