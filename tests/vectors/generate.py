"""Build the shared known-answer vectors: `python tests/vectors/generate.py`.

The vectors are ER requests with a seed and the engine's result (`to_dict()`
without `backend`) or the error it raises (`type`, `path`, `reason`). The Python
test suite checks that every backend still produces them; the JavaScript resolver
of the Roll20 Mod script must produce them too. Regenerate only on purpose (a rule
or draw-order change), and say why in the commit.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "er_vectors.json"

SIZES = ["tiny", "small", "medium", "medium", "medium", "large", "huge", "giant", "colossal"]
MELEE_STYLES = ["slashing", "bludgeoning", "cleaving", "pole-arm", "piercing", "shield"]
RANGED_STYLES = ["archery", "crossbow", "sling", "thrown", "ranged"]
STYLES = MELEE_STYLES + RANGED_STYLES + ["savage"]
TYPES = ["alchemical", "blunt", "cold", "edged", "fire", "lightning", "necrotic", "piercing",
         "poison", "smite"]
ATTACKER_CONDITIONS = ["blind", "bound", "prone", "poisoned", "shaken", "frightened", "underwater",
                       "held-breath", "charmed", "deaf", "drowsy"]
TARGET_CONDITIONS = ["prone", "invisible", "defending", "paralyzed", "petrified", "unconscious",
                     "blind", "stunned", "restrained", "maimed", "underwater"]


def random_request(rng: random.Random) -> dict:
    """A random ER request: mostly valid, sometimes impossible by the rules."""
    n_targets = rng.choice([1, 1, 1, 2, 3])
    targets = {}
    for t in range(n_targets):
        target: dict = {"ac": rng.randint(6, 22)}
        if rng.random() < 0.2:
            target["ac_by_type"] = {rng.choice(TYPES): rng.randint(8, 24)}
        if rng.random() < 0.2:
            target["size"] = rng.choice(SIZES)
        for key in ("resistant", "vulnerable", "immune"):
            if rng.random() < {"immune": 0.05}.get(key, 0.2):
                target[key] = rng.sample(TYPES, rng.randint(1, 2))
        if rng.random() < 0.25:
            target["conditions"] = rng.sample(TARGET_CONDITIONS, rng.randint(1, 2))
        if rng.random() < 0.15:
            target["cover"] = rng.choice(["half", "three-quarters", "full"])
        if rng.random() < 0.3:
            target["body_max"] = rng.randint(2, 12)
            if rng.random() < 0.6:
                target["save_bonus"] = rng.randint(-2, 5)
        if rng.random() < 0.1:
            target["crit_proof"] = True
        targets[["goblin", "orc", "pc-1"][t]] = target
    ids = list(targets)
    for tid, target in targets.items():
        others = [other for other in ids if other != tid]
        if others and rng.random() < 0.3:
            target["nearby"] = rng.sample(others, rng.randint(1, len(others)))
    attacker: dict = {"strength": rng.randint(0, 8), "agility": rng.randint(0, 8)}
    if rng.random() < 0.2:
        attacker["strength_mod"] = rng.randint(-2, 4)
    if rng.random() < 0.1:
        attacker["agility_mod"] = rng.randint(-2, 4)
    if rng.random() < 0.2:
        attacker["size"] = rng.choice(SIZES)
    if rng.random() < 0.2:
        attacker["conditions"] = rng.sample(ATTACKER_CONDITIONS, rng.randint(1, 2))
    if rng.random() < 0.05:
        attacker["swim_speed"] = rng.choice([10, 20, 30])
    if rng.random() < 0.1:
        attacker["obscurement"] = rng.randint(1, 4)
    strikes = []
    for _ in range(rng.choice([1, 1, 2, 2, 3, 4])):
        method = rng.choice(["melee", "melee", "range", "savage"])
        if rng.random() < 0.05:  # a style of another method (ER-2)
            style = rng.choice(STYLES)
        else:
            style = {"melee": MELEE_STYLES, "range": RANGED_STYLES, "savage": ["savage"]}[method]
            style = rng.choice(style)
        strike: dict = {"target": rng.choice(list(targets)), "method": method, "style": style,
                        "dice": rng.randint(1, 5), "damage_type": rng.choice(TYPES)}
        if rng.random() < 0.5:
            strike["bonus"] = rng.randint(-3, 6)
        if method != "range" and rng.random() < 0.6:
            strike["weight"] = rng.randint(0, 2)
        if rng.random() < 0.15:
            strike["crit"] = rng.random() < 0.7
        crit_capable = strike.get("crit", style in ("slashing", "bludgeoning", "cleaving", "pole-arm"))
        if crit_capable and rng.random() < 0.3:
            strike["crit_range"] = rng.choice([15, 17, 18, 19])
        if rng.random() < 0.15:
            strike["advantage"] = True
        if rng.random() < 0.15:
            strike["disadvantage"] = True
        if rng.random() < 0.15:
            strike["sneak"] = rng.choice([True, "advantage-only"])
            if rng.random() < 0.5:
                strike[rng.choice(["reach", "sneak_ok"])] = True
        strikes.append(strike)
    request = {"attacker": attacker, "strikes": strikes, "targets": targets}
    if rng.random() < 0.1:
        request["advantage"] = True
    if rng.random() < 0.1:
        request["disadvantage"] = True
    return request


CURATED = [
    ("issue example", {
        "attacker": {"strength": 4, "agility": 2},
        "strikes": [{"target": "goblin", "method": "melee", "style": "slashing", "dice": 2,
                     "weight": 1, "damage_type": "edged"}],
        "targets": {"goblin": {"ac": 14, "resistant": ["fire"]}}}, 42),
    ("typical strike (DESIGN.md)", {
        "attacker": {"strength": 4, "strength_mod": 1},
        "strikes": [{"target": "t", "method": "melee", "style": "slashing", "dice": 3, "bonus": -2,
                     "weight": 1, "damage_type": "edged"}],
        "targets": {"t": {"ac": 14}}}, 7),
    ("long crit chain, injected", {
        "rolls": [20, 20, 3, 20, 1, 20, 2, 5, 3],
        "attacker": {"strength": 4},
        "strikes": [{"target": "t", "method": "melee", "style": "slashing", "dice": 1,
                     "damage_type": "edged"}],
        "targets": {"t": {"ac": 14}}}, 1),
    ("injected d3 out of range", {
        "rolls": [20, 20, 7],
        "attacker": {"strength": 4},
        "strikes": [{"target": "t", "method": "melee", "style": "slashing", "dice": 1,
                     "damage_type": "edged"}],
        "targets": {"t": {"ac": 14}}}, 1),
    ("injected too few", {
        "rolls": [20],
        "attacker": {"strength": 4},
        "strikes": [{"target": "t", "method": "melee", "style": "slashing", "dice": 2,
                     "damage_type": "edged"}],
        "targets": {"t": {"ac": 14}}}, 1),
    ("unknown field", {
        "attacker": {"strength": 4, "strenght": 5},
        "strikes": [{"target": "t", "method": "melee", "style": "slashing", "dice": 2,
                     "damage_type": "edged"}],
        "targets": {"t": {"ac": 14}}}, 1),
    ("six skill dice", {
        "attacker": {"strength": 4},
        "strikes": [{"target": "t", "method": "melee", "style": "slashing", "dice": 6,
                     "damage_type": "edged"}],
        "targets": {"t": {"ac": 14}}}, 1),
    # The rules audit (docs/rules/enchanted-realms.md), with injected dice.
    ("ER-2 style of another method", {
        "attacker": {"strength": 4},
        "strikes": [{"target": "t", "method": "melee", "style": "archery", "dice": 2, "damage_type": "piercing"}],
        "targets": {"t": {"ac": 14}}}, 1),
    ("ER-8 ranged natural 20 does not crit", {
        "rolls": [20], "attacker": {"agility": 4},
        "strikes": [{"target": "t", "method": "range", "style": "archery", "dice": 1, "damage_type": "piercing"}],
        "targets": {"t": {"ac": 14}}}, 1),
    ("ER-11 crit_proof keeps the chain, dodgeable", {
        "rolls": [20, 15, 20, 2, 11, 3], "attacker": {"strength": 4},
        "strikes": [{"target": "t", "method": "melee", "style": "slashing", "dice": 2, "weight": 1,
                     "damage_type": "edged"}],
        "targets": {"t": {"ac": 10, "crit_proof": True}}}, 1),
    ("ER-11 ER-15 restrained target: all undodgeable", {
        "rolls": [12, 13, 4], "attacker": {"strength": 2},
        "strikes": [{"target": "t", "method": "melee", "style": "slashing", "dice": 2, "weight": 1,
                     "damage_type": "edged"}],
        "targets": {"t": {"ac": 10, "conditions": ["restrained"]}}}, 1),
    ("ER-15 underwater target resists fire", {
        "rolls": [12, 13, 14], "attacker": {"strength": 2},
        "strikes": [{"target": "t", "method": "melee", "style": "slashing", "dice": 3, "weight": 1,
                     "damage_type": "fire"}],
        "targets": {"t": {"ac": 10, "conditions": ["underwater"]}}}, 1),
    ("ER-14 bound attacker with a crossbow", {
        "attacker": {"agility": 4, "conditions": ["bound"]},
        "strikes": [{"target": "t", "method": "range", "style": "crossbow", "dice": 1, "damage_type": "piercing"}],
        "targets": {"t": {"ac": 10}}}, 1),
    ("ER-16 cover against melee and ranged, friendly fire", {
        "rolls": [11, 11], "attacker": {"strength": 2, "agility": 2},
        "strikes": [{"target": "t", "method": "melee", "style": "slashing", "dice": 1, "damage_type": "edged"},
                    {"target": "t", "method": "range", "style": "archery", "dice": 1, "damage_type": "piercing"}],
        "targets": {"t": {"ac": 12, "cover": "three-quarters", "nearby": ["ally"]}, "ally": {"ac": 14}}}, 1),
    ("ER-13 sneak attack with a heavy plain weapon", {
        "attacker": {"strength": 4},
        "strikes": [{"target": "t", "method": "melee", "style": "cleaving", "dice": 1, "weight": 2,
                     "damage_type": "edged", "sneak": True}],
        "targets": {"t": {"ac": 10}}}, 1),
    ("ER-13 sneak attack with reach", {
        "rolls": [12, 3, 15], "attacker": {"strength": 4},
        "strikes": [{"target": "t", "method": "melee", "style": "pole-arm", "dice": 1, "weight": 2,
                     "damage_type": "piercing", "sneak": True, "reach": True}],
        "targets": {"t": {"ac": 10}}}, 1),
    # ER-15: defending is disadvantage only "provided it is possible for the character [to]
    # see the incoming attacks": a blind defender gives the attacker advantage alone, and an
    # invisible attacker meets no disadvantage.
    ("ER-15 a blind defender cannot see the attacks", {
        "rolls": [12, 9], "attacker": {"strength": 2},
        "strikes": [{"target": "t", "method": "melee", "style": "slashing", "dice": 1, "weight": 1,
                     "damage_type": "edged"}],
        "targets": {"t": {"ac": 12, "conditions": ["blind", "defending"]}}}, 1),
    ("ER-15 a defender cannot see an invisible attacker", {
        "rolls": [12], "attacker": {"agility": 2, "conditions": ["invisible"]},
        "strikes": [{"target": "t", "method": "range", "style": "archery", "dice": 1, "damage_type": "piercing"}],
        "targets": {"t": {"ac": 12, "conditions": ["defending"]}}}, 1),
    ("ER-15 a defender that sees the attack", {
        "rolls": [12, 15], "attacker": {"strength": 2},
        "strikes": [{"target": "t", "method": "melee", "style": "slashing", "dice": 1, "weight": 1,
                     "damage_type": "edged"}],
        "targets": {"t": {"ac": 12, "conditions": ["defending"]}}}, 1),
    ("stunned attacker", {
        "attacker": {"strength": 4, "conditions": ["stunned"]},
        "strikes": [{"target": "t", "method": "melee", "style": "slashing", "dice": 2,
                     "damage_type": "edged"}],
        "targets": {"t": {"ac": 14}}}, 1),
]


def vector(name: str, request: dict, seed: int) -> dict:
    import fracas

    entry = {"name": name, "request": request, "seed": seed}
    try:
        result = fracas.resolve(request, seed=seed).to_dict()
    except fracas.RequestError as exc:
        entry["error"] = {"type": type(exc).__name__, "path": exc.path, "reason": exc.reason}
    else:
        result.pop("backend")
        entry["result"] = result
    return entry


def build(count: int = 300) -> list[dict]:
    rng = random.Random(20261122)
    vectors = [vector(name, request, seed) for name, request, seed in CURATED]
    for i in range(count):
        vectors.append(vector(f"random {i}", random_request(rng), rng.getrandbits(64)))
    return vectors


def dumps(vectors: list[dict]) -> str:
    return json.dumps(vectors, indent=1, sort_keys=False, ensure_ascii=False) + "\n"


def outputs() -> dict[Path, str]:
    """What this generator writes, {path: text} (`python -m fracas.spec` writes and checks it)."""
    return {VECTORS: dumps(build())}


if __name__ == "__main__":
    from fracas.spec import regen

    regen.write(outputs())
