"""Build the known-answer vectors of the Enchanted Realms grappler's slam (the `slam` kind,
"ER Grappling", "ER Grappling: Uncommon Conditions"): `python tests/vectors/generate_slam.py`.

Each vector is a slam request with a seed, and the engine's result (`to_dict()`) or its
error (`type`, `path`, `reason`). The kind is Python on both backends (no compiled kernel;
the dice stream is the pure-Python one's): tests/engine/test_er_slam.py replays them on every
backend. The Roll20 resolver has no slam port; its Mod and Foundry send slam requests to the
bridge's slam.roll. Regenerate only on purpose (a rule or draw-order change), and say why in
the commit.

Draw order pinned here: nothing for a slam with no second target; with one (`into`), the
hurling attack's d20s in order: 3, or 4 at advantage or disadvantage (ER-12).
"""

from __future__ import annotations

import random
from pathlib import Path

from fracas.spec import kindvectors

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "er_slam_vectors.json"
SIZES = ["tiny", "small", "medium", "large", "huge", "giant", "colossal"]
DAMAGE = ["blunt", "blunt", "edged", "fire", "piercing"]
CONDITIONS = ["poisoned", "prone", "bound", "shaken", "blind", "defending", "stunned", "charmed"]

GIANT = {"id": "giant", "size": "huge", "strength": 10}  # Strength bonus +4
ARIA = {"id": "aria"}
BOB = {"id": "bob", "ac": 12, "distance": 10}

CURATED = [
    ("ER Grappling: two sizes larger slams the victim for its Strength bonus in blunt damage", {
        "grappler": {"id": "ogre", "size": "large", "strength": 10}, "victim": {"id": "aria", "size": "small"}}, 1),
    ("ER Grappling: one size larger cannot slam", {
        "grappler": {"id": "ogre", "size": "large", "strength": 10}, "victim": ARIA}, 1),
    ("ER-10 the victim resists blunt: the bonus halved", {
        "grappler": GIANT, "victim": {**ARIA, "resistant": ["blunt"]}}, 1),
    ("ER Grappling: the terrain's damage type (a fire pit)", {
        "grappler": GIANT, "victim": {**ARIA, "vulnerable": ["fire"]}, "damage_type": "fire"}, 1),
    ("ER Grappling: Uncommon Conditions a huge grappler slams the victim into another: a hit", {
        "grappler": GIANT, "victim": ARIA, "into": BOB, "rolls": [3, 11, 15]}, 1),
    ("ER Grappling: Uncommon Conditions the hurl misses: the victim is hurt regardless", {
        "grappler": GIANT, "victim": ARIA, "into": BOB, "rolls": [3, 11, 1]}, 1),
    ("ER-6 a raw 20 hits whatever the AC", {
        "grappler": GIANT, "victim": ARIA, "into": {**BOB, "ac": 40}, "rolls": [20, 2, 2]}, 1),
    ("ER-12 a poisoned grappler's hurl: one more d20, the highest dropped", {
        "grappler": {**GIANT, "conditions": ["poisoned"]}, "victim": ARIA, "into": BOB, "rolls": [15, 3, 11, 2]}, 1),
    ("ER-5 a hurl at a large target: +1 on every die; ER-10 blunt resisted", {
        "grappler": {**GIANT, "to_hit": 2}, "victim": ARIA,
        "into": {**BOB, "size": "large", "resistant": ["blunt"]}, "rolls": [9, 2, 2]}, 1),
    ("ER Grappling: Uncommon Conditions a large grappler of ten feet (height) reaches another", {
        "grappler": {"id": "ogre", "size": "large", "strength": 8, "height": 10},
        "victim": {"id": "aria", "size": "small"}, "into": BOB, "rolls": [12, 12, 12]}, 1),
    ("ER Grappling: Uncommon Conditions a large grappler is under ten feet by default", {
        "grappler": {"id": "ogre", "size": "large", "strength": 8}, "victim": {"id": "aria", "size": "small"},
        "into": BOB}, 1),
    ("ER Grappling: Uncommon Conditions the second target beyond two hexes", {
        "grappler": GIANT, "victim": ARIA, "into": {**BOB, "distance": 15}}, 1),
    ("ER-14 a stunned grappler cannot slam", {
        "grappler": {**GIANT, "conditions": ["stunned"]}, "victim": ARIA}, 1),
    ("ER-4 a slam needs the Strength", {"grappler": {"id": "giant", "size": "huge"}, "victim": ARIA}, 1),
    ("the victim slammed into itself", {"grappler": GIANT, "victim": ARIA, "into": {**BOB, "id": "aria"}}, 1),
    ("too few faces for the hurl", {"grappler": GIANT, "victim": ARIA, "into": BOB, "rolls": [3, 11]}, 1),
    ("faces given to a slam with nothing to roll", {"grappler": GIANT, "victim": ARIA, "rolls": [3]}, 1),
]


def random_slam(rng: random.Random) -> dict:
    gsize = rng.choice(SIZES[2:])
    grappler: dict = {"id": "g", "size": gsize}
    if rng.random() < 0.3:
        grappler["strength_mod"] = rng.randint(-2, 6)
    else:
        grappler["strength"] = rng.randint(0, 14)
    if rng.random() < 0.3:
        grappler["height"] = rng.choice([6, 8, 10, 12, 20])
    if rng.random() < 0.5:
        grappler["to_hit"] = rng.randint(-2, 8)
    for key in ("advantage", "disadvantage"):
        if rng.random() < 0.15:
            grappler[key] = True
    if rng.random() < 0.3:
        grappler["conditions"] = rng.sample(CONDITIONS, rng.randint(1, 2))
    victim: dict = {"id": "v", "size": rng.choice(SIZES[:max(1, SIZES.index(gsize) - 1)] + SIZES[:1])}
    if rng.random() < 0.2:
        victim[rng.choice(["resistant", "vulnerable", "immune"])] = [rng.choice(DAMAGE)]
    request: dict = {"grappler": grappler, "victim": victim}
    if rng.random() < 0.2:
        request["damage_type"] = rng.choice(DAMAGE)
    if rng.random() < 0.7:
        into: dict = {"id": "t", "ac": rng.randint(6, 22), "distance": rng.choice([0, 5, 10, 10, 15])}
        if rng.random() < 0.3:
            into["size"] = rng.choice(SIZES)
        if rng.random() < 0.2:
            into[rng.choice(["resistant", "vulnerable", "immune"])] = ["blunt"]
        request["into"] = into
    if rng.random() < 0.15:
        request["rolls"] = [rng.randint(1, 20) for _ in range(rng.randint(1, 5))]
    return request


def vector(name: str, request: dict, seed: int) -> dict:
    return kindvectors.vector("slam", name, request, seed)


def build(count: int = 120) -> list[dict]:
    return kindvectors.build("slam", CURATED, random_slam, seed=20261143, count=count)


dumps = kindvectors.dumps


def outputs() -> dict[Path, str]:
    """What this generator writes, {path: text} (`python -m fracas.spec` writes and checks it)."""
    return {VECTORS: dumps(build())}


if __name__ == "__main__":
    kindvectors.main(outputs)
