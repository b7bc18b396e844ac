"""Build the known-answer vectors of Enchanted Realms saves and area effects (the `save`
kind): `python tests/vectors/generate_save.py`.

Each vector is a save request with a seed, and the engine's result (`to_dict()`) or its
error (`type`, `path`, `reason`). The kind is Python on both backends (the compiled core
has no save kernel, and its dice stream is the pure-Python one's): the Python suite checks
every backend still produces them (tests/engine/test_er_save.py). The Roll20 resolver has
no save port; its Mod sends saves to the bridge. Regenerate only on purpose (a rule or
draw-order change), and say why in the commit.

Draw order pinned here: the targets in request order, each its d20 (two at advantage or
disadvantage, the first drawn first); a target that fails automatically draws nothing.
"""

from __future__ import annotations

import random
from pathlib import Path

from fracas.spec import kindvectors

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "er_save_vectors.json"
COVERS = ["none", "none", "half", "three-quarters", "full"]
CONDITIONS = ["poisoned", "bound", "restrained", "defending", "shaken", "drowsy", "paralyzed", "unconscious",
              "asleep", "charmed", "prone", "frightened", "blind"]
ON_FAIL = [["asleep"], ["grappled"], ["prone"], ["asleep", "prone"], [], ["charmed"]]

CURATED = [
    ("ER-16 half cover adds +2 to an Agility save against an area", {
        "save": "agility", "dc": 13, "area": True, "effect": "fireblast",
        "targets": [{"id": "aria", "score": 4, "cover": "half"}], "rolls": [10]}, 1),
    ("ER-16 three-quarters cover adds +5 to an Agility save against an area", {
        "save": "agility", "dc": 15, "area": True,
        "targets": [{"id": "aria", "modifier": 0, "cover": "three-quarters"}], "rolls": [10]}, 1),
    ("ER-16 full cover adds +5 to an Agility save against an area", {
        "save": "agility", "dc": 15, "area": True,
        "targets": [{"id": "aria", "modifier": 0, "cover": "full"}], "rolls": [10]}, 1),
    ("ER-16 cover adds nothing to a Resilience save, area or not", {
        "save": "resilience", "dc": 12, "area": True,
        "targets": [{"id": "aria", "modifier": 0, "cover": "three-quarters"}], "rolls": [10]}, 1),
    ("ER-16 cover adds nothing to an Agility save against an effect that is not an area", {
        "save": "agility", "dc": 12, "area": False,
        "targets": [{"id": "aria", "modifier": 0, "cover": "half"}], "rolls": [11]}, 1),
    ("ER-16 full cover keeps out an effect that is not an area effect", {
        "save": "agility", "dc": 12, "targets": [{"id": "aria", "modifier": 0, "cover": "full"}], "rolls": [11]}, 1),
    ("ER-12 ER-14 a poisoned saver keeps the worse of two d20s, the first drawn first", {
        "save": "resilience", "dc": 10, "on_fail": ["asleep"],
        "targets": [{"id": "ogre", "score": 6, "conditions": ["poisoned"]}], "rolls": [15, 4]}, 1),
    ("ER-15 a defending saver keeps the better of two d20s", {
        "save": "agility", "dc": 14, "targets": [{"id": "aria", "score": 2, "conditions": ["defending"]}],
        "rolls": [4, 15]}, 1),
    ("ER-14 a paralyzed saver fails without a die; the next target draws the first face", {
        "save": "agility", "dc": 5, "area": True, "effect": "sleep smoke", "on_fail": ["asleep"],
        "targets": [{"id": "statue", "modifier": 9, "conditions": ["paralyzed"]}, {"id": "aria", "score": 4}],
        "rolls": [7]}, 1),
    ("ER-14 shaken and drowsy do not stack: -2 once", {
        "save": "strength", "dc": 10, "targets": [{"id": "aria", "modifier": 0, "conditions": ["shaken", "drowsy"]}],
        "rolls": [11]}, 1),
    ("sleep smoke on three goblins: those failing are asleep", {
        "save": "agility", "dc": 12, "area": True, "effect": "sleep smoke", "on_fail": ["asleep"],
        "targets": [{"id": "g1", "score": 4}, {"id": "g2", "score": 4, "cover": "half"},
                    {"id": "g3", "score": 4, "conditions": ["prone"]}], "rolls": [9, 9, 9]}, 1),
    ("the same creature saving twice is refused", {
        "save": "agility", "dc": 12, "targets": [{"id": "g1", "score": 4}, {"id": "g1", "score": 2}]}, 1),
    ("a save without the saver's score or modifier is refused", {
        "save": "resilience", "dc": 12, "targets": [{"id": "g1"}]}, 1),
    ("an unknown condition applied on a failed save is refused", {
        "save": "resilience", "dc": 12, "on_fail": ["sleepy"], "targets": [{"id": "g1", "score": 3}]}, 1),
    ("too few faces for the saves", {
        "save": "agility", "dc": 12, "targets": [{"id": "g1", "score": 3, "advantage": True}], "rolls": [3]}, 1),
]


def saver(rng: random.Random, i: int) -> dict:
    t: dict = {"id": f"c{i}"}
    if rng.random() < 0.5:
        t["score"] = rng.randint(0, 10)
    else:
        t["modifier"] = rng.randint(-2, 5)
    if rng.random() < 0.2:
        t["bonus"] = rng.randint(-2, 3)
    if rng.random() < 0.4:
        t["cover"] = rng.choice(COVERS)
    if rng.random() < 0.4:
        t["conditions"] = rng.sample(CONDITIONS, rng.randint(1, 2))
    if rng.random() < 0.1:
        t["advantage"] = True
    if rng.random() < 0.1:
        t["disadvantage"] = True
    return t


def random_save(rng: random.Random) -> dict:
    request: dict = {"save": rng.choice(["agility", "agility", "resilience", "strength"]),
                     "dc": rng.randint(5, 20), "area": rng.random() < 0.7,
                     "targets": [saver(rng, i) for i in range(rng.choice([1, 1, 2, 3, 5, 8]))]}
    if rng.random() < 0.7:
        request["on_fail"] = rng.choice(ON_FAIL)
    if rng.random() < 0.3:
        request["effect"] = rng.choice(["sleep smoke", "fireblast", "smoke of restraint"])
    if rng.random() < 0.15:
        request["rolls"] = [rng.randint(1, 20) for _ in range(rng.randint(1, 6))]
    return request



def build(count: int = 120) -> list[dict]:
    return kindvectors.build("save", CURATED, random_save, seed=20261128, count=count)


dumps = kindvectors.dumps


def outputs() -> dict[Path, str]:
    """What this generator writes, {path: text} (`python -m fracas.spec` writes and checks it)."""
    return {VECTORS: dumps(build())}


if __name__ == "__main__":
    kindvectors.main(outputs)
