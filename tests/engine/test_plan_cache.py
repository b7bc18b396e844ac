"""The plan cache (a repeated attack reuses its compiled plan): results, errors and
bounds are those of a fresh compile, on every shared vector of every ruleset."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

import fracas
from fracas import drive
from fracas.drive import PLAN_CACHE_SIZE, clear_plan_cache

VECTORS = Path(__file__).resolve().parents[1] / "vectors"


def vectors():
    er = json.loads((VECTORS / "er_vectors.json").read_text())
    others = json.loads((VECTORS / "rulesets_vectors.json").read_text())
    found = [(v["name"], v["request"], v.get("seed")) for v in er if "request" in v and "attacks" not in v["request"]]
    found += [(v["name"], v["request"], v.get("seed")) for v in others if v.get("kind") == "attack"]
    return found


ALL = vectors()


def outcome(request, seed):
    try:
        return fracas.resolve(copy.deepcopy(request), seed=seed).to_dict()
    except fracas.RequestError as exc:
        return ("error", type(exc).__name__, str(exc))


def test_there_are_vectors_of_every_ruleset():
    rulesets = {request.get("ruleset", "enchanted-realms") for _, request, _ in ALL}
    assert rulesets == set(fracas.rulesets())


@pytest.mark.parametrize("seed", [None, 7])
def test_a_cached_plan_rolls_what_a_fresh_compile_rolls(seed):
    for name, request, vector_seed in ALL:
        use = vector_seed if seed is None else seed
        clear_plan_cache()
        fresh = outcome(request, use)
        cached = outcome(request, use)  # compiled once already: from the cache when it compiled
        assert cached == fresh, name


def test_seed_and_rolls_are_still_checked_on_a_cache_hit():
    request = {"attacker": {"strength": 4}, "targets": {"g": {"ac": 14}},
               "strikes": [{"target": "g", "method": "melee", "style": "slashing", "dice": 2, "weight": 1,
                            "damage_type": "edged"}]}
    clear_plan_cache()
    fracas.resolve(request, seed=1)
    with pytest.raises(fracas.SchemaError, match=r"^\$\.seed: expected int"):
        fracas.resolve({**request, "seed": "one"})
    with pytest.raises(fracas.SchemaError, match=r"^\$\.rolls\[1\]: expected int"):
        fracas.resolve({**request, "rolls": [3, "x"]})
    with pytest.raises(fracas.DiceError, match=r"^\$\.rolls: 1 face given"):
        fracas.resolve({**request, "rolls": [3]})
    assert fracas.resolve({**request, "rolls": [12, 3]}).to_dict()["injected"] is True


def test_the_key_is_the_content_so_a_changed_request_compiles_again():
    request = {"attacker": {"strength": 4}, "targets": {"g": {"ac": 14}},
               "strikes": [{"target": "g", "method": "melee", "style": "slashing", "dice": 2, "weight": 1,
                            "damage_type": "edged"}]}
    first = fracas.resolve(request, seed=3).to_dict()
    request["targets"]["g"]["ac"] = 40  # the same dict, changed in place
    assert fracas.resolve(request, seed=3).to_dict()["strikes"][0]["hits"] == 0
    request["targets"]["g"]["ac"] = 14
    assert fracas.resolve(request, seed=3).to_dict() == first


def test_the_cache_is_bounded():
    clear_plan_cache()
    for ac in range(PLAN_CACHE_SIZE + 20):
        fracas.resolve({"attacker": {"strength": 4}, "targets": {"g": {"ac": ac % 200}},
                        "strikes": [{"target": "g", "method": "melee", "style": "slashing", "dice": 1,
                                     "weight": 0, "damage_type": "edged", "bonus": ac // 200}]}, seed=1)
    assert len(drive._PLANS) == PLAN_CACHE_SIZE


def test_errors_are_not_cached():
    clear_plan_cache()
    bad = {"attacker": {"strength": 4, "conditions": ["stunned"]}, "targets": {"g": {"ac": 14}},
           "strikes": [{"target": "g", "method": "melee", "style": "slashing", "dice": 2, "weight": 1,
                        "damage_type": "edged"}]}
    for _ in range(2):
        with pytest.raises(fracas.RulesError, match="a stunned attacker cannot attack"):
            fracas.resolve(bad, seed=1)
    assert not drive._PLANS
