"""Build the exact-odds vectors shared by Python and JavaScript:
`python tests/vectors/generate_odds.py`.

Each vector is an odds request (random attacks of every ruleset, from the attack
vector generators, sometimes with `count`, `remaining` and `at_least`) and
`fracas.odds(request).to_dict()`, or the error it raises. The Roll20 Mod script's
JavaScript must give the same exact answers. Regenerate only on purpose.
"""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "odds_vectors.json"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def odds_vector(name: str, request: dict) -> dict:
    """{name, request} and `fracas.odds(request).to_dict()` or the error it raises."""
    import fracas

    vector: dict = {"name": name, "request": request}
    try:
        vector["result"] = fracas.odds(request).to_dict()
    except fracas.RequestError as exc:
        vector["error"] = {"type": type(exc).__name__, "path": exc.path, "reason": exc.reason}
    return vector


def build() -> list[dict]:
    er, others = _load("generate"), _load("generate_rulesets")
    rng = random.Random(1123)
    vectors = []
    for i in range(120):
        kind = i % 4
        if kind == 0:
            request = er.random_request(rng)
        else:
            request = [others.ww, others.ct, others.os_][kind - 1](rng)
        request.pop("seed", None)
        request.pop("rolls", None)
        targets = list(request.get("targets", {})) if isinstance(request.get("targets"), dict) else []
        if rng.random() < 0.25:
            request["count"] = rng.choice([2, 3])
        if targets and rng.random() < 0.4:
            request["remaining"] = {targets[0]: rng.randint(1, 20)}
        if rng.random() < 0.3:
            request["at_least"] = sorted(rng.sample(range(1, 15), 2))
        vectors.append(odds_vector(f"{request.get('ruleset', 'enchanted-realms')}-odds-{i}", request))
    # ER-17 stray odds per bystander, ER-20 flee attacks and ER-22 defense rolls (their own stream,
    # so the vectors above stay as they were).
    specials = _load("generate_specials")
    rng = random.Random(1124)
    makers = [specials.stray_attack, specials.stray_attack, specials.defense_attack, specials.flee_attack]
    for i in range(40):
        request = makers[i % len(makers)](rng)
        for strike in request["strikes"]:
            strike["dice"] = min(strike["dice"], 3)  # keep the exact enumeration small
        vectors.append(odds_vector(f"er-special-odds-{i}", request))
    # ER-17 strays in the bystanders' own entries and the total, full cover under friendly fire
    # (ER-16), strays and direct strikes at one creature (ER-9): their own stream again.
    rng = random.Random(1125)
    for i in range(30):
        request = specials.combined_attack(rng)
        for strike in request["strikes"]:
            strike["dice"] = min(strike["dice"], 2)
        if rng.random() < 0.4:
            request["remaining"] = {rng.choice(list(request["targets"])): rng.randint(1, 6)}
        vectors.append(odds_vector(f"er-combined-odds-{i}", request))
    # Rules an audit found wrong (issue 42), named by rule: appended, so the vectors above stay.
    for name, request in CURATED:
        vectors.append(odds_vector(name, request))
    return vectors


_SWORD = {"target": "t", "method": "melee", "style": "slashing", "dice": 2, "weight": 1, "damage_type": "edged"}
_BOW = {"target": "t", "method": "range", "style": "archery", "dice": 2, "damage_type": "piercing"}
CURATED = [
    ("ER-15 odds: a blind defender cannot see the attacks",
     {"attacker": {"strength": 3}, "strikes": [_SWORD],
      "targets": {"t": {"ac": 13, "conditions": ["blind", "defending"]}}}),
    ("ER-15 odds: a defender cannot see an invisible attacker",
     {"attacker": {"agility": 3, "conditions": ["invisible"]}, "strikes": [_BOW],
      "targets": {"t": {"ac": 13, "conditions": ["defending"]}}}),
    ("ER-15 odds: a defender that sees the attack",
     {"attacker": {"agility": 3}, "strikes": [_BOW], "targets": {"t": {"ac": 13, "conditions": ["defending"]}}}),
    ("WW-6 odds: an off-hand block at -10",
     {"ruleset": "worldwalker", "attacker": {"skill": 3, "str_mod": 2},
      "strikes": [{"target": "t", "method": "melee", "damage": "1d8"}],
      "targets": {"t": {"defense": 12, "reaction": {"kind": "block", "bonus": 7, "hand": "off"},
                        "two_weapon": {"light": False, "talent": "none"}}}}),
    ("WW-6 odds: a primary-hand block, light off-hand weapon and Dual Weapon Training",
     {"ruleset": "worldwalker", "attacker": {"skill": 3, "str_mod": 2},
      "strikes": [{"target": "t", "method": "melee", "damage": "1d8"}],
      "targets": {"t": {"defense": 12, "reaction": {"kind": "block", "bonus": 7},
                        "two_weapon": {"light": True, "talent": "dual-weapon-training"}}}}),
    ("CT-2 odds: a sword adds STR, a bow the AWA bonus",
     {"ruleset": "cartyrion", "attacker": {"level": 3, "bonus": 8, "awa": 2},
      "strikes": [{"target": "t", "method": "melee", "die": "d6"}, {"target": "u", "method": "ranged", "die": "d6"}],
      "targets": {"t": {"dex": 1, "armor": 1}, "u": {"dex": 1, "armor": 1}}}),
]


def dumps(vectors: list[dict]) -> str:
    return json.dumps(vectors, indent=1, sort_keys=True) + "\n"


def outputs() -> dict[Path, str]:
    """What this generator writes, {path: text} (`python -m fracas.spec` writes and checks it)."""
    return {VECTORS: dumps(build())}


if __name__ == "__main__":
    from fracas.spec import regen

    regen.write(outputs())
