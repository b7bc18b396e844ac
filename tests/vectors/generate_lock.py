"""Build the known-answer vectors of Enchanted Realms weapon lock, disarm and shield-blitz
(the `lock` kind, "ER Weapon Negation"): `python tests/vectors/generate_lock.py`.

Each vector is a lock request with a seed, and the engine's result (`to_dict()`) or its
error (`type`, `path`, `reason`). The kind is Python on both backends (the compiled core
has no lock kernel, and its dice stream is the pure-Python one's): the Python suite checks
every backend still produces them (tests/engine/test_er_lock.py). The Roll20 resolver has
no lock port; its Mod sends lock requests to the bridge. Regenerate only on purpose (a rule
or draw-order change), and say why in the commit.

Draw order pinned here: the attacker's feat d20 (two at advantage or disadvantage, the
first drawn first); then, only when the feat succeeds and the victim reacts, each round of
the reaction competition: the victim's d12 (two at advantage or disadvantage), then the
attacker's two d12 (advantage; one when its own disadvantage cancels it), again on a tie.
A shield-blitz draws one d20.
"""

from __future__ import annotations

import random
from pathlib import Path

from fracas.spec import kindvectors

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "er_lock_vectors.json"
CONDITIONS = ["poisoned", "bound", "restrained", "defending", "shaken", "drowsy", "prone", "frightened", "blind",
              "charmed", "grappled"]
DAMAGE = ["edged", "edged", "blunt", "piercing", "fire"]

ARIA = {"id": "aria", "to_hit": 6, "strength": 6, "agility": 8}
OGRE = {"id": "ogre", "ac": 12, "strength": 8, "agility": 2}

CURATED = [
    ("ER Weapon Lock: the feat meets the AC; no reaction: locked", {
        "mode": "lock", "attacker": ARIA, "victim": OGRE, "rolls": [6]}, 1),
    ("ER Weapon Lock: the feat misses the AC; the reaction is not rolled", {
        "mode": "lock", "attacker": ARIA, "victim": {**OGRE, "reacts": True}, "rolls": [5]}, 1),
    ("ER-6 a raw 20 always succeeds, a raw 1 never", {
        "mode": "lock", "attacker": {**ARIA, "to_hit": -20}, "victim": OGRE, "rolls": [20]}, 1),
    ("ER-6 a raw 1 fails whatever the to-hit", {
        "mode": "disarm", "attacker": {**ARIA, "to_hit": 40}, "victim": OGRE, "rolls": [1]}, 1),
    ("ER-12 a poisoned attacker keeps the worse of two d20s, the first drawn first", {
        "mode": "lock", "attacker": {**ARIA, "conditions": ["poisoned"]}, "victim": OGRE, "rolls": [15, 4]}, 1),
    ("ER-19 the victim pulls a lock free: Strength d12s, the attacker's two kept best", {
        "mode": "lock", "attacker": ARIA, "victim": {**OGRE, "reacts": True}, "rolls": [14, 11, 3, 5]}, 1),
    ("ER-19 a tie rolls again", {
        "mode": "lock", "attacker": ARIA, "victim": {**OGRE, "reacts": True}, "rolls": [14, 5, 6, 3, 9, 2, 2]}, 1),
    ("ER Weapon Disarm: the victim pays 3 Body against a medium weapon, then Agility", {
        "mode": "disarm", "attacker": ARIA, "victim": {**OGRE, "reacts": True}, "rolls": [12, 12, 2, 4]}, 1),
    ("ER-10 a heavy blunt weapon's 4 Body halved against a victim resistant to blunt", {
        "mode": "disarm", "attacker": {**ARIA, "weapon": "heavy", "damage_type": "blunt"},
        "victim": {**OGRE, "reacts": True, "resistant": ["blunt"]}, "rolls": [12, 5, 5, 4]}, 1),
    ("shield-blitz: a d20 of blunt damage on the pinned victim", {
        "mode": "blitz", "attacker": ARIA, "victim": OGRE, "rolls": [13]}, 1),
    ("a victim with no reaction left cannot react", {
        "mode": "lock", "attacker": ARIA, "victim": {**OGRE, "reacts": True, "reaction_left": False}}, 1),
    ("a victim reacting without the competition's score is refused", {
        "mode": "disarm", "attacker": ARIA, "victim": {"id": "ogre", "ac": 12, "reacts": True}}, 1),
    ("a stunned attacker cannot attempt a lock", {
        "mode": "lock", "attacker": {**ARIA, "conditions": ["stunned"]}, "victim": OGRE}, 1),
    ("too few faces for the reaction", {
        "mode": "lock", "attacker": ARIA, "victim": {**OGRE, "reacts": True}, "rolls": [15, 3]}, 1),
]


def side(rng: random.Random, base: dict) -> dict:
    t = dict(base)
    for name in ("strength", "agility"):
        if rng.random() < 0.3:
            t.pop(name, None)
            t[f"{name}_mod"] = rng.randint(-2, 5)
        else:
            t[name] = rng.randint(0, 12)
    if rng.random() < 0.2:
        t["bonus"] = rng.randint(-2, 3)
    if rng.random() < 0.4:
        t["conditions"] = rng.sample(CONDITIONS, rng.randint(1, 2))
    return t


def random_lock(rng: random.Random) -> dict:
    attacker = side(rng, {"id": "a", "to_hit": rng.randint(-2, 12)})
    if rng.random() < 0.15:
        attacker["advantage"] = True
    if rng.random() < 0.15:
        attacker["disadvantage"] = True
    attacker["weapon"] = rng.choice(["light", "medium", "heavy"])
    attacker["damage_type"] = rng.choice(DAMAGE)
    mode = rng.choice(["lock", "lock", "disarm", "disarm", "blitz"])
    victim = side(rng, {"id": "v", "ac": rng.randint(8, 20)})
    if mode != "blitz" and rng.random() < 0.7:
        victim["reacts"] = True
    if rng.random() < 0.2:
        victim[rng.choice(["resistant", "vulnerable", "immune"])] = [rng.choice(DAMAGE)]
    request: dict = {"mode": mode, "attacker": attacker, "victim": victim}
    if rng.random() < 0.15:
        request["rolls"] = [rng.randint(1, 12) for _ in range(rng.randint(1, 6))]
    return request



def build(count: int = 120) -> list[dict]:
    return kindvectors.build("lock", CURATED, random_lock, seed=20261142, count=count)


dumps = kindvectors.dumps


def outputs() -> dict[Path, str]:
    """What this generator writes, {path: text} (`python -m fracas.spec` writes and checks it)."""
    return {VECTORS: dumps(build())}


if __name__ == "__main__":
    kindvectors.main(outputs)
