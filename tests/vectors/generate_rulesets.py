"""Build the Worldwalker, Cartyrion and old-school known-answer vectors:
`python tests/vectors/generate_rulesets.py`.

Each vector is a request (`kind`: attack, initiative, morale or counterspell) with a seed, and the
engine's result (`to_dict()` without `backend`) or its error (`type`, `path`,
`reason`). The Python suite checks every backend still produces them; the Roll20
Mod script's JavaScript resolver must produce them too. Regenerate only on purpose
(a rule or draw-order change), and say why in the commit.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
VECTORS = HERE / "rulesets_vectors.json"
WW_DICE = ["1d4", "1d6", "1d8", "2d6", "1d10+1", "1d12-1", "d8", "3d4", "1d7", "x"]
OS_DICE = ["1d4", "1d6", "1d8", "2d4", "1d6+1", "1d3", "1d7"]


def ww(rng: random.Random) -> dict:
    targets = {}
    for t in range(rng.choice([1, 1, 2])):
        target: dict = {"armor": rng.randint(0, 4)}
        if rng.random() < 0.7:
            target["defense"] = rng.randint(8, 20)
        elif rng.random() < 0.95:
            target["dex_mod"] = rng.randint(-1, 5)
        if rng.random() < 0.5:
            target["reaction"] = {"kind": rng.choice(["block", "dodge"]), "bonus": rng.randint(0, 10)}
        targets[f"t{t}"] = target
    attacker: dict = {"skill": rng.randint(0, 6), "str_mod": rng.randint(-1, 4), "dex_mod": rng.randint(-1, 4)}
    if rng.random() < 0.2:
        attacker["two_weapon"] = {"light": rng.random() < 0.5,
                                  "talent": rng.choice(["none", "dual-weapon-training", "shield-specialist"])}
    strikes = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        strike: dict = {"target": rng.choice(list(targets)), "method": rng.choice(["melee", "ranged"]),
                        "damage": rng.choice(WW_DICE)}
        if rng.random() < 0.3:
            strike["critical"] = rng.randint(0, 6)
            strike["crit_multiplier"] = rng.randint(1, 3)
        if rng.random() < 0.15:
            strike["engaged"] = True
        if rng.random() < 0.15:
            strike["feint"] = {"bonus": rng.randint(0, 6), "defense": rng.randint(0, 6)}
        if rng.random() < 0.15:
            strike["hand"] = rng.choice(["primary", "off"])
        strikes.append(strike)
    return {"ruleset": "worldwalker", "attacker": attacker, "strikes": strikes, "targets": targets}


def ct(rng: random.Random) -> dict:
    targets = {}
    for t in range(rng.choice([1, 1, 2])):
        target: dict = {"dex": rng.randint(0, 4), "armor": rng.randint(0, 4)}
        if rng.random() < 0.3:
            target["weapon_magic"] = rng.randint(0, 2)
        if rng.random() < 0.3:
            target["shield"] = rng.randint(0, 12)
        targets[f"t{t}"] = target
    attacker: dict = {"level": rng.randint(1, 12), "bonus": rng.randint(0, 9), "magic": rng.choice([0, 0, 1, 2])}
    if rng.random() < 0.4:
        attacker["awa"] = rng.randint(0, 6)
    strikes = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        strike: dict = {"target": rng.choice(list(targets)), "method": rng.choice(["melee", "ranged"]),
                        "die": rng.choice(["d4", "d6", "d8", "d10", "d6", "d7"])}
        if rng.random() < 0.15:
            strike["power"] = True
        if rng.random() < 0.25:
            strike["sneak"] = rng.choice(["passed", "failed", "roll"])
        if rng.random() < 0.25:
            strike["parry"] = rng.choice(["weapon", "shield"])
        if rng.random() < 0.1:
            strike["dice"] = rng.randint(1, 4)
        if rng.random() < 0.2:
            strike["specialized"] = True
        strikes.append(strike)
    return {"ruleset": "cartyrion", "attacker": attacker, "strikes": strikes, "targets": targets}


def os_(rng: random.Random) -> dict:
    targets = {}
    for t in range(rng.choice([1, 1, 2])):
        target: dict = {"ac": rng.randint(9, 19)}
        if rng.random() < 0.4:
            target["shield"] = 1
        if rng.random() < 0.2:
            target["fleeing"] = True
        if rng.random() < 0.3:
            target["cover"] = rng.choice([0, 1, 2, 4, "full", 5])
        targets[f"t{t}"] = target
    attacker = {"attack_bonus": rng.randint(0, 5), "str_mod": rng.randint(-1, 3), "dex_mod": rng.randint(-1, 3)}
    strikes = []
    for _ in range(rng.choice([1, 1, 2])):
        strike: dict = {"target": rng.choice(list(targets)), "method": rng.choice(["melee", "missile"]),
                        "damage": rng.choice(OS_DICE)}
        if strike["method"] == "missile" and rng.random() < 0.7:
            strike["range"] = rng.choice(["short", "medium", "long", "long", "beyond"])
        if rng.random() < 0.2:
            strike["rear"] = True
        strikes.append(strike)
    return {"ruleset": "old-school", "attacker": attacker, "strikes": strikes, "targets": targets}


def ww_two_weapon_block(rng: random.Random) -> dict:
    """WW-6 on blocks (issue 42): a target fighting with two weapons blocks with either hand."""
    request = ww(rng)
    for target in request["targets"].values():
        if rng.random() < 0.8:
            target["two_weapon"] = {"light": rng.random() < 0.5,
                                    "talent": rng.choice(["none", "dual-weapon-training", "dual-weapon-mastery",
                                                          "shield-specialist"])}
        target["reaction"] = {"kind": rng.choice(["block", "block", "dodge"]), "bonus": rng.randint(0, 10)}
        if rng.random() < 0.7:
            target["reaction"]["hand"] = rng.choice(["primary", "off"])
    return request


def ct_by_strike_kind(rng: random.Random) -> dict:
    """CT-2 (issue 42): melee adds `bonus` (STR or DEX), ranged the AWA bonus when `awa` is given."""
    request = ct(rng)
    if rng.random() < 0.8:
        request["attacker"]["awa"] = rng.randint(0, 6)
    for strike in request["strikes"]:
        strike["method"] = rng.choice(["melee", "ranged"])
    return request


#: Named cases of the rules an audit found wrong (issue 42), with injected dice.
CURATED = [
    ("WW-6 an off-hand block at -10", {
        "ruleset": "worldwalker", "attacker": {"skill": 3, "str_mod": 2},
        "strikes": [{"target": "duelist", "method": "melee", "damage": "1d8"}],
        "targets": {"duelist": {"defense": 10, "reaction": {"kind": "block", "bonus": 7, "hand": "off"},
                                "two_weapon": {"light": False, "talent": "none"}}},
        "rolls": [10, 17, 5]}),
    ("WW-6 a primary-hand block at -6, light off-hand weapon -4", {
        "ruleset": "worldwalker", "attacker": {"skill": 3, "str_mod": 2},
        "strikes": [{"target": "duelist", "method": "melee", "damage": "1d8"}],
        "targets": {"duelist": {"defense": 10, "reaction": {"kind": "block", "bonus": 7},
                                "two_weapon": {"light": True, "talent": "none"}}},
        "rolls": [10, 11]}),
    ("WW-6 an off-hand block without two weapons", {
        "ruleset": "worldwalker", "attacker": {"skill": 3},
        "strikes": [{"target": "t", "method": "melee", "damage": "1d8"}],
        "targets": {"t": {"defense": 10, "reaction": {"kind": "block", "bonus": 7, "hand": "off"}}}}),
    ("WW-6 a dodge names no hand", {
        "ruleset": "worldwalker", "attacker": {"skill": 3},
        "strikes": [{"target": "t", "method": "melee", "damage": "1d8"}],
        "targets": {"t": {"defense": 10, "reaction": {"kind": "dodge", "bonus": 7, "hand": "primary"},
                          "two_weapon": {"light": False, "talent": "none"}}}}),
    ("CT-2 a sword adds STR, a bow the AWA bonus", {
        "ruleset": "cartyrion", "attacker": {"level": 3, "bonus": 8, "awa": 2},
        "strikes": [{"target": "orc", "method": "melee", "die": "d6"},
                    {"target": "orc", "method": "ranged", "die": "d6"}],
        "targets": {"orc": {"dex": 0, "armor": 0}}, "rolls": [3, 2, 3, 2, 1]}),
    ("CT-2 CT-7 a ranged sneak attack adds the AWA bonus", {
        "ruleset": "cartyrion", "attacker": {"level": 3, "bonus": 6, "awa": 4},
        "strikes": [{"target": "orc", "method": "ranged", "die": "d6", "sneak": "roll"}],
        "targets": {"orc": {"dex": 2, "armor": 3}}, "rolls": [9, 4, 2, 3]}),
]


#: Issue 42's WW-6 on both sides at once: the attacker's hand and the target's blocking hand.
CURATED_TWO_HANDS = [
    ("WW-6 an off-hand strike at -10 against an off-hand block at -8 (light)", {
        "ruleset": "worldwalker", "attacker": {"skill": 5, "str_mod": 2, "two_weapon": {"light": False, "talent": "none"}},
        "strikes": [{"target": "duelist", "method": "melee", "damage": "1d6", "hand": "off"}],
        "targets": {"duelist": {"defense": 5, "reaction": {"kind": "block", "bonus": 9, "hand": "off"},
                                "two_weapon": {"light": True, "talent": "none"}}},
        "rolls": [14, 12, 4]}),
    ("WW-6 a primary strike with Dual Weapon Training at -4, a shield specialist's primary block at -2", {
        "ruleset": "worldwalker",
        "attacker": {"skill": 4, "str_mod": 1, "two_weapon": {"light": False, "talent": "dual-weapon-training"}},
        "strikes": [{"target": "knight", "method": "melee", "damage": "1d8", "hand": "primary"}],
        "targets": {"knight": {"defense": 8, "reaction": {"kind": "block", "bonus": 6, "hand": "primary"},
                               "two_weapon": {"light": False, "talent": "shield-specialist"}}},
        "rolls": [11, 7, 6]}),
]


def counterspell_request(rng: random.Random) -> dict:
    """WW-8: a counterspell, now and then one the rules refuse (untrained, too far, a 0 rating)."""
    school = rng.choice(["sorcery", "illusion", "necromancy"])
    schools = {name: rng.randint(1, 8) for name in rng.sample(["sorcery", "illusion", "necromancy", "abjuration"],
                                                               rng.randint(1, 3))}
    if rng.random() < 0.8:
        schools[school] = rng.randint(1, 8)
    if rng.random() < 0.05:
        schools[rng.choice(list(schools))] = 0
    request: dict = {"ruleset": "worldwalker", "school": school,
                     "caster": {"id": "caster", "skill": rng.randint(0, 9), "modifier": rng.randint(-2, 4)},
                     "counterspeller": {"id": "counter", "schools": schools, "modifier": rng.randint(-2, 4),
                                        "distance": rng.choice([0, 5, 30, 60, 60, 65, 40, 20])}}
    if rng.random() < 0.2:
        request["rolls"] = [rng.randint(1, 20), rng.randint(1, 20)]
    return request


#: WW-8 known answers with injected dice: the tie (the caster's), natural 20 and 1 counting as they
#: show, the 60 ft limit and training.
CURATED_COUNTERSPELL = [
    ("WW-8 a tie leaves the spell cast", {
        "ruleset": "worldwalker", "school": "sorcery", "caster": {"id": "hexer", "skill": 5, "modifier": 1},
        "counterspeller": {"id": "ayla", "schools": {"sorcery": 4}, "modifier": 2, "distance": 30},
        "rolls": [10, 10]}),
    ("WW-8 one more than the caster counters", {
        "ruleset": "worldwalker", "school": "sorcery", "caster": {"id": "hexer", "skill": 5, "modifier": 1},
        "counterspeller": {"id": "ayla", "schools": {"sorcery": 4}, "modifier": 2, "distance": 60},
        "rolls": [11, 10]}),
    ("WW-8 a natural 20 is 20, not 30", {
        "ruleset": "worldwalker", "school": "illusion", "caster": {"id": "hexer", "skill": 9, "modifier": 3},
        "counterspeller": {"id": "ayla", "schools": {"illusion": 1}, "distance": 5},
        "rolls": [20, 9]}),
    ("WW-8 61 ft is too far", {
        "ruleset": "worldwalker", "school": "sorcery", "caster": {"id": "hexer", "skill": 5},
        "counterspeller": {"id": "ayla", "schools": {"sorcery": 4}, "distance": 61}, "rolls": [11, 10]}),
    ("WW-8 a sorcerer cannot counter an illusion", {
        "ruleset": "worldwalker", "school": "illusion", "caster": {"id": "hexer", "skill": 5},
        "counterspeller": {"id": "ayla", "schools": {"sorcery": 4}, "distance": 10}, "rolls": [11, 10]}),
]


def initiative(rng: random.Random) -> dict:
    pick = rng.randrange(3)
    if pick == 0:
        return {"ruleset": "worldwalker",
                "combatants": [{"id": f"c{i}", "dex_mod": rng.randint(-1, 3)} for i in range(rng.randint(1, 6))]}
    if pick == 1:
        return {"ruleset": "cartyrion", "round": rng.choice([1, 1, 2]),
                "ambush": rng.choice(["none", "opponents", "party", "none"])}
    return {"ruleset": "old-school", "ties": rng.choice(["reroll", "simultaneous"]),
            "sides": [{"id": f"s{i}", "wait": rng.random() < 0.15} for i in range(rng.randint(2, 4))]}


def build() -> list[dict]:
    import fracas
    from fracas import _kernels

    rng = random.Random(20261123)
    vectors = []
    with _kernels.using("python"):
        for i in range(300):
            kind, request = "attack", rng.choice([ww, ct, os_])(rng)
            if i % 10 == 7:
                kind, request = "initiative", initiative(rng)
            elif i % 10 == 9:
                kind = "morale"
                request = {"ruleset": "old-school", "morale": rng.randint(2, 13), "modifier": rng.randint(-2, 2),
                           "successes": rng.randint(0, 2)}
            seed = rng.getrandbits(64)
            call = {"attack": fracas.resolve, "initiative": fracas.roll_initiative,
                    "morale": fracas.check_morale}[kind]
            vector: dict = {"name": f"{request['ruleset']}-{kind}-{i}", "kind": kind, "request": request,
                            "seed": seed}
            try:
                result = call(request, seed=seed).to_dict()
                result.pop("backend", None)
                vector["result"] = result
            except fracas.RequestError as exc:
                vector["error"] = {"type": type(exc).__name__, "path": exc.path, "reason": exc.reason}
            vectors.append(vector)
        # Issue 42's rules, from a stream of their own so the vectors above stay as they were.
        extra = random.Random(20261142)
        for i in range(40):
            request = ww_two_weapon_block(extra)
            vectors.append(_attack_vector(f"{request['ruleset']}-issue42-{i}", request, extra.getrandbits(64)))
        extra = random.Random(20261143)
        for i in range(30):
            request = ct_by_strike_kind(extra)
            vectors.append(_attack_vector(f"cartyrion-issue42-{i}", request, extra.getrandbits(64)))
        for name, request in CURATED:
            vectors.append(_attack_vector(name, request, 1))
        # Issue 42: WW-6 on both hands, and WW-8 counterspells, from a stream of their own.
        for name, request in CURATED_TWO_HANDS:
            vectors.append(_attack_vector(name, request, 1))
        extra = random.Random(20261148)
        for i in range(40):
            request = counterspell_request(extra)
            vectors.append(_attack_vector(f"worldwalker-counterspell-{i}", request, extra.getrandbits(64),
                                          kind="counterspell"))
        for name, request in CURATED_COUNTERSPELL:
            vectors.append(_attack_vector(name, request, 1, kind="counterspell"))
    return vectors


def _attack_vector(name: str, request: dict, seed: int, kind: str = "attack") -> dict:
    import fracas

    vector: dict = {"name": name, "kind": kind, "request": request, "seed": seed}
    try:
        result = fracas.roll(kind, request, seed=seed).to_dict()
        result.pop("backend", None)
        vector["result"] = result
    except fracas.RequestError as exc:
        vector["error"] = {"type": type(exc).__name__, "path": exc.path, "reason": exc.reason}
    return vector


def dumps(vectors: list[dict]) -> str:
    return json.dumps(vectors, indent=1, sort_keys=True) + "\n"


def outputs() -> dict[Path, str]:
    """What this generator writes, {path: text} (`python -m fracas.spec` writes and checks it)."""
    return {VECTORS: dumps(build())}


if __name__ == "__main__":
    from fracas.spec import regen

    regen.write(outputs())
