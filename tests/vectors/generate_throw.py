"""Build the known-answer vectors of Enchanted Realms throwing items and throwing magic (the
`throw` kind, "ER Throwing Items"): `python tests/vectors/generate_throw.py`.

Each vector is a throw request with a seed, and the engine's result (`to_dict()`) or its
error (`type`, `path`, `reason`). The kind is Python on both backends (the compiled core has
no throw kernel, and its dice stream is the pure-Python one's): the Python suite checks every
backend still produces them (tests/engine/test_er_throw.py). The Roll20 resolver has no throw
port; its Mod sends throw requests to the bridge. Regenerate only on purpose (a rule or
draw-order change), and say why in the commit.

Draw order pinned here: the throw's d20s (1, 2 or 3 counted by skill for an item, one for
magic, one more counted at advantage; one more at disadvantage, the highest dropped), in
draw order; then, only on a hit, the damage dice.
"""

from __future__ import annotations

import random
from pathlib import Path

from fracas.spec import kindvectors

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "er_throw_vectors.json"
ITEMS = ["acid splash", "bonfire blend", "explosive oil", "firebreather's oil", "holy water", "other", "magic"]
CONDITIONS = ["poisoned", "bound", "shaken", "prone", "frightened", "blind", "restrained"]
TARGET_CONDITIONS = ["prone", "restrained", "invisible", "defending", "stunned", "underwater", "bound"]
DAMAGE = ["fire", "alchemical", "smite", "cold", "lightning"]

GHOUL = {"id": "ghoul", "ac": 14}

CURATED = [
    ("ER Throwing Items: an untrained thrower's one d20, raw face against the AC", {
        "item": "acid splash", "target": GHOUL, "rolls": [14, 3]}, 1),
    ("ER Throwing Items: ranged fighting's two d20, either hitting is enough", {
        "item": "explosive oil", "skill": "ranged", "target": GHOUL, "rolls": [2, 16, 4]}, 1),
    ("ER Throwing Items: hurling's three d20, two hit, the effect once", {
        "item": "holy water", "skill": "hurling", "target": GHOUL, "rolls": [15, 18, 3, 2]}, 1),
    ("ER Throwing Items: all three miss, no damage drawn", {
        "item": "holy water", "skill": "hurling", "target": GHOUL, "rolls": [13, 1, 9]}, 1),
    ("ER Throwing Items: bonfire blend's flat 1 fire, no damage die", {
        "item": "bonfire blend", "target": GHOUL, "rolls": [17]}, 1),
    ("ER-6 a raw 20 hits any AC", {"item": "acid splash", "target": {"id": "golem", "ac": 40}, "rolls": [20, 4]}, 1),
    ("ER-10 holy water doubled on a smite-vulnerable target", {
        "item": "holy water", "target": {**GHOUL, "vulnerable": ["smite"]}, "rolls": [14, 3]}, 1),
    ("ER-10 fire halved against a resistant target", {
        "item": "firebreather's oil", "target": {**GHOUL, "resistant": ["fire"]}, "rolls": [19, 3]}, 1),
    ("ER-12 a poisoned thrower: one more d20, the highest dropped", {
        "item": "acid splash", "skill": "ranged", "thrower": {"conditions": ["poisoned"]}, "target": GHOUL,
        "rolls": [18, 15, 3, 4]}, 1),
    ("ER-16 half cover raises the AC by 2", {
        "item": "acid splash", "target": {**GHOUL, "cover": "half"}, "rolls": [15]}, 1),
    ("ER Throwing Items: throwing magic with ranged fighting adds the Agility modifier", {
        "item": "magic", "skill": "ranged", "thrower": {"agility": 8},
        "damage": {"dice": 2, "faces": 6, "damage_type": "fire"}, "target": GHOUL, "rolls": [11, 4, 5]}, 1),
    ("ER Throwing Items: throwing magic with hurling adds the Agility score", {
        "item": "magic", "skill": "hurling", "thrower": {"agility": 8},
        "damage": {"dice": 1, "faces": 10, "damage_type": "lightning"}, "target": GHOUL, "rolls": [6, 7]}, 1),
    ("ER Throwing Items: an area smoke is not thrown at an AC", {"item": "sleep smoke", "target": GHOUL}, 1),
    ("ER-16 full cover refuses the throw", {"item": "acid splash", "target": {**GHOUL, "cover": "full"}}, 1),
    ("ER-14 a charmed thrower cannot throw at its charmer", {
        "item": "acid splash", "thrower": {"charmed_by": "ghoul"}, "target": GHOUL}, 1),
    ("too few faces for the damage", {"item": "acid splash", "target": GHOUL, "rolls": [15]}, 1),
]


def random_throw(rng: random.Random) -> dict:
    item = rng.choice(ITEMS)
    request: dict = {"item": item, "skill": rng.choice(["none", "ranged", "hurling"])}
    thrower: dict = {}
    if item == "magic" or rng.random() < 0.2:
        if rng.random() < 0.3 and request["skill"] != "hurling":
            thrower["agility_mod"] = rng.randint(-2, 5)
        else:
            thrower["agility"] = rng.randint(0, 12)
    if rng.random() < 0.3:
        thrower["conditions"] = rng.sample(CONDITIONS, rng.randint(1, 2))
    if rng.random() < 0.1:
        thrower["obscurement"] = rng.randint(1, 4)
    if thrower:
        request["thrower"] = thrower
    if item in ("other", "magic"):
        request["damage"] = {"dice": rng.randint(0, 3), "faces": rng.choice([4, 6, 8, 10]),
                             "bonus": rng.randint(-1, 3), "damage_type": rng.choice(DAMAGE)}
    target: dict = {"id": "t", "ac": rng.randint(8, 20)}
    if rng.random() < 0.25:
        target["conditions"] = rng.sample(TARGET_CONDITIONS, 1)
    if rng.random() < 0.2:
        target["cover"] = rng.choice(["half", "three-quarters"])
    if rng.random() < 0.25:
        target[rng.choice(["resistant", "vulnerable", "immune"])] = [rng.choice(DAMAGE)]
    request["target"] = target
    if rng.random() < 0.1:
        request["bonus"] = rng.randint(-2, 3)
    if rng.random() < 0.1:
        request["advantage"] = True
    if rng.random() < 0.1:
        request["disadvantage"] = True
    if rng.random() < 0.15:
        request["rolls"] = [rng.randint(1, 20) for _ in range(rng.randint(1, 5))]
    return request


def build(count: int = 120) -> list[dict]:
    return kindvectors.build("throw", CURATED, random_throw, seed=20261142 + 2, count=count)


dumps = kindvectors.dumps


def outputs() -> dict[Path, str]:
    """What this generator writes, {path: text} (`python -m fracas.spec` writes and checks it)."""
    return {VECTORS: dumps(build())}


if __name__ == "__main__":
    kindvectors.main(outputs)
