"""Build the known-answer vectors of Enchanted Realms touch attacks (the `touch` kind):
`python tests/vectors/generate_touch.py`.

Each vector is a touch request with a seed, and the engine's result (`to_dict()` without
`backend`) or its error (`type`, `path`, `reason`). A touch hit is rolled by the active ER
kernel (compiled or pure Python), a sleight of hand in Python from the same stream: the
Python suite checks every backend still produces them (tests/engine/test_er_touch.py). The
Roll20 resolver has no touch port; its Mod sends touches to the bridge. Regenerate only on
purpose (a rule or draw-order change), and say why in the commit.

Draw order pinned here: a hit draws its skill d20s, then its advantage die or its
disadvantage die (no crit die: a touch deals no damage); a sleight draws one d20, or two at
advantage or disadvantage, the first drawn first.
"""

from __future__ import annotations

import random
from pathlib import Path

from fracas.spec import kindvectors

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "er_touch_vectors.json"
CASTER_CONDITIONS = ["poisoned", "bound", "restrained", "shaken", "drowsy", "defending", "frightened", "prone",
                     "blind", "invisible", "held-breath", "asleep", "stunned"]
TARGET_CONDITIONS = ["restrained", "prone", "invisible", "defending", "paralyzed", "blind", "unconscious"]

CURATED = [
    ("ER Touch-based Effects: the text's sleight example, 17 is unnoticed", {
        "touch": "sleight", "caster": {"agility": 4}, "target": {"id": "guard", "agility": 6, "other_ac": 1},
        "rolls": [16]}, 1),
    ("ER Touch-based Effects: the text's sleight example, 16 touches but is noticed", {
        "touch": "sleight", "caster": {"agility": 4}, "target": {"id": "guard", "agility": 6, "other_ac": 1},
        "rolls": [15]}, 1),
    ("ER Touch-based Effects: the text's sleight example, 12 misses the DC of 13", {
        "touch": "sleight", "caster": {"agility": 4}, "target": {"id": "guard", "agility": 6, "other_ac": 1},
        "rolls": [11]}, 1),
    ("ER-12 ER-14 a poisoned caster's sleight keeps the worse of two d20s", {
        "touch": "sleight", "caster": {"agility_mod": 2, "conditions": ["poisoned"]},
        "target": {"id": "guard", "agility_mod": 0}, "rolls": [18, 9]}, 1),
    ("ER-14 a shaken caster's sleight at -2", {
        "touch": "sleight", "caster": {"agility": 6, "conditions": ["shaken"]},
        "target": {"id": "guard", "agility": 2}, "rolls": [10]}, 1),
    ("ER Touch-based Effects: the victim's conditions do not move the DC", {
        "touch": "sleight", "caster": {"agility": 4}, "target": {"id": "guard", "agility": 4, "conditions": ["prone"]},
        "rolls": [10]}, 1),
    ("ER-6 a touch hit: one die hitting the AC touches, no damage", {
        "touch": "hit", "caster": {"strength": 4}, "target": {"id": "guard", "ac": 13}, "dice": 2,
        "rolls": [9, 3]}, 1),
    ("ER-6 a touch hit: a natural 1 never touches", {
        "touch": "hit", "caster": {"strength": 20}, "target": {"id": "guard", "ac": 5}, "rolls": [1]}, 1),
    ("ER-8 a touch hit's natural 20 touches and draws no crit die", {
        "touch": "hit", "caster": {"strength": 2}, "target": {"id": "guard", "ac": 30}, "rolls": [20]}, 1),
    ("ER-12 ER-15 a touch hit at a restrained victim: the advantage die counts", {
        "touch": "hit", "caster": {"strength": 4}, "target": {"id": "guard", "ac": 15, "conditions": ["restrained"]},
        "rolls": [3, 11]}, 1),
    ("ER-12 ER-14 a poisoned caster's touch hit drops its highest die", {
        "touch": "hit", "caster": {"strength": 4, "conditions": ["poisoned"]}, "target": {"id": "guard", "ac": 15},
        "rolls": [19, 4]}, 1),
    ("ER-14 an asleep caster touches nobody", {
        "touch": "sleight", "caster": {"agility": 4, "conditions": ["asleep"]},
        "target": {"id": "guard", "agility": 4}}, 1),
    ("ER-14 a charmed caster cannot touch its charmer", {
        "touch": "hit", "caster": {"strength": 4, "charmed_by": "guard"}, "target": {"id": "guard", "ac": 12}}, 1),
    ("a touch hit needs the victim's AC", {
        "touch": "hit", "caster": {"strength": 4}, "target": {"id": "guard", "agility": 4}}, 1),
    ("a sleight needs the victim's Agility", {
        "touch": "sleight", "caster": {"agility": 4}, "target": {"id": "guard", "ac": 12}}, 1),
    ("a touch hit with six dice is refused at $.dice", {
        "touch": "hit", "caster": {"strength": 4}, "target": {"id": "guard", "ac": 12}, "dice": 6}, 1),
    ("too few faces for the touch", {
        "touch": "hit", "caster": {"strength": 4}, "target": {"id": "guard", "ac": 12}, "dice": 3, "rolls": [4]}, 1),
]


def random_touch(rng: random.Random) -> dict:
    method = rng.choice(["hit", "sleight"])
    caster: dict = {}
    target: dict = {"id": rng.choice(["guard", "ogre", "target"])}
    if method == "hit":
        caster["strength"] = rng.randint(0, 10)
        target["ac"] = rng.randint(6, 22)
    else:
        if rng.random() < 0.5:
            caster["agility"] = rng.randint(0, 10)
        else:
            caster["agility_mod"] = rng.randint(-1, 5)
        if rng.random() < 0.5:
            target["agility"] = rng.randint(0, 10)
        else:
            target["agility_mod"] = rng.randint(-1, 4)
        if rng.random() < 0.4:
            target["other_ac"] = rng.randint(0, 3)
    if rng.random() < 0.2:
        caster["size"] = rng.choice(["small", "large", "huge"])
    if rng.random() < 0.35:
        caster["conditions"] = rng.sample(CASTER_CONDITIONS, rng.choice([1, 1, 2]))
    if rng.random() < 0.3:
        target["conditions"] = [rng.choice(TARGET_CONDITIONS)]
    request: dict = {"touch": method, "caster": caster, "target": target}
    if method == "hit" and rng.random() < 0.7:
        request["dice"] = rng.randint(1, 5)
    if rng.random() < 0.2:
        request["bonus"] = rng.randint(-2, 3)
    if rng.random() < 0.1:
        request["advantage"] = True
    if rng.random() < 0.1:
        request["disadvantage"] = True
    if rng.random() < 0.15:
        request["rolls"] = [rng.randint(1, 20) for _ in range(rng.randint(1, 6))]
    return request



def build(count: int = 160) -> list[dict]:
    return kindvectors.build("touch", CURATED, random_touch, seed=20261129, count=count)


dumps = kindvectors.dumps


def outputs() -> dict[Path, str]:
    """What this generator writes, {path: text} (`python -m fracas.spec` writes and checks it)."""
    return {VECTORS: dumps(build())}


if __name__ == "__main__":
    kindvectors.main(outputs)
