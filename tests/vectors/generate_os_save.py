"""Build the known-answer vectors of old-school saving throws (the `save` kind of the
old-school ruleset, OS-5): `python tests/vectors/generate_os_save.py`.

Each vector is a saving throw request with a seed, and the engine's result (`to_dict()`)
or its error (`type`, `path`, `reason`). The kind is Python on both backends (the compiled
core has no save kernel, and its dice stream is the pure-Python one's): the Python suite
checks every backend still produces them (tests/engine/test_os_save.py). The Roll20
resolver has no port; its Mod would send saves to the bridge. Regenerate only on purpose
(a rule or draw-order change), and say why in the commit.

Draw order pinned here: one d20 per target, in request order.
"""

from __future__ import annotations

import random
from pathlib import Path

from fracas.spec import kindvectors

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "os_save_vectors.json"
CATEGORIES = ["death", "wands", "paralysis", "breath", "spells"]
OS = "old-school"


CURATED = [
    ("OS-5 saving throws: d20 + modifiers meeting the target number saves", {
        "ruleset": OS, "targets": [{"id": "fighter", "save": 14, "modifier": 1}], "rolls": [13]}, 1),
    ("OS-5 saving throws: one short of the target number fails", {
        "ruleset": OS, "targets": [{"id": "fighter", "save": 14, "modifier": 1}], "rolls": [12]}, 1),
    ("OS-5 saving throws: a natural 20 always saves", {
        "ruleset": OS, "modifier": -4, "targets": [{"id": "thief", "save": 25}], "rolls": [20]}, 1),
    ("OS-5 saving throws: a natural 1 always fails", {
        "ruleset": OS, "modifier": 4, "targets": [{"id": "dwarf", "save": 2, "modifier": 3}], "rolls": [1]}, 1),
    ("OS-5 saving throws: the category picks each table's entry; the effect's modifier counts for all", {
        "ruleset": OS, "category": "spells", "modifier": -2, "effect": "hold person",
        "targets": [{"id": "cleric", "saves": {"spells": 15, "breath": 16}},
                    {"id": "elf", "saves": {"spells": 12}, "modifier": 1}, {"id": "ogre", "save": 13}],
        "rolls": [17, 12, 15]}, 1),
    ("OS-5 saving throws: a table without the request's category is refused", {
        "ruleset": OS, "category": "breath", "targets": [{"id": "elf", "saves": {"spells": 12}}]}, 1),
    ("OS-5 saving throws: a table needs the request's category", {
        "ruleset": OS, "targets": [{"id": "elf", "saves": {"spells": 12}}]}, 1),
    ("OS-5 saving throws: a creature needs its target number", {"ruleset": OS, "targets": [{"id": "elf"}]}, 1),
    ("OS-5 saving throws: both a number and a table is refused", {
        "ruleset": OS, "targets": [{"id": "elf", "save": 12, "saves": {"spells": 12}}]}, 1),
    ("OS-5 saving throws: the same creature saving twice is refused", {
        "ruleset": OS, "targets": [{"id": "g1", "save": 14}, {"id": "g1", "save": 13}]}, 1),
    ("OS-5 saving throws: a target number past the range is refused", {
        "ruleset": OS, "targets": [{"id": "g1", "save": 31}]}, 1),
    ("OS-5 saving throws: too few faces", {
        "ruleset": OS, "targets": [{"id": "g1", "save": 14}, {"id": "g2", "save": 14}], "rolls": [3]}, 1),
]


def saver(rng: random.Random, i: int, category: str | None) -> dict:
    t: dict = {"id": f"c{i}"}
    if category is not None and rng.random() < 0.6:
        table = {name: rng.randint(4, 18) for name in rng.sample(CATEGORIES, rng.randint(1, 5))}
        table[category] = rng.randint(4, 18)
        t["saves"] = table
    else:
        t["save"] = rng.randint(2, 20)
    if rng.random() < 0.4:
        t["modifier"] = rng.randint(-3, 4)
    return t


def random_save(rng: random.Random) -> dict:
    category = rng.choice([None, *CATEGORIES])
    request: dict = {"ruleset": OS, "targets": [saver(rng, i, category) for i in range(rng.choice([1, 1, 2, 3, 5, 8]))]}
    if category is not None:
        request["category"] = category
    if rng.random() < 0.4:
        request["modifier"] = rng.randint(-4, 4)
    if rng.random() < 0.3:
        request["effect"] = rng.choice(["hold person", "dragon breath", "petrifying gaze", "poison"])
    if rng.random() < 0.15:
        request["rolls"] = [rng.randint(1, 20) for _ in range(rng.randint(1, 6))]
    return request


def build(count: int = 100) -> list[dict]:
    return kindvectors.build("save", CURATED, random_save, seed=20261128_5, count=count, prefix="os-save")


dumps = kindvectors.dumps


def outputs() -> dict[Path, str]:
    """What this generator writes, {path: text} (`python -m fracas.spec` writes and checks it)."""
    return {VECTORS: dumps(build())}


if __name__ == "__main__":
    kindvectors.main(outputs)
