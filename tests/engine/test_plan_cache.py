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


def test_there_are_vectors_of_every_ruleset_a_javascript_client_resolves():
    # The shared vectors are the JavaScript resolver's parity contract: a ruleset whose
    # manifest lists no "roll20" client (Python only) is checked by tests/conformance instead.
    rulesets = {request.get("ruleset", "enchanted-realms") for _, request, _ in ALL}
    assert rulesets == {m.name for m in fracas.rulesets.manifests() if "roll20" in m.clients}


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


# -- bulk requests ------------------------------------------------------------------------

BULK = {"profiles": {"p": {"attacker": {"strength": 4}, "strikes": [
    {"method": "melee", "style": "slashing", "dice": 3, "weight": 1, "damage_type": "edged"}]}},
    "targets": {f"t{i}": {"ac": 12 + i % 3} for i in range(40)},
    "attacks": [{"profile": "p", "target": f"t{i}", "count": 50} for i in range(40)]}


def test_a_repeated_bulk_request_reuses_its_plan_with_the_same_results():
    clear_plan_cache()
    fresh = {seed: fracas.resolve_bulk(BULK, seed=seed).to_dict() for seed in (1, 2)}
    assert len(drive._BULK_PLANS) == 1
    for seed in (1, 2):
        clear_plan_cache()
        assert fracas.resolve_bulk(BULK, seed=seed).to_dict() == fresh[seed]
    fracas.resolve_bulk(BULK, seed=1)
    assert fracas.resolve_bulk(dict(BULK, seed=2)).to_dict() == fresh[2]  # the request's own seed
    assert len(drive._BULK_PLANS) == 1


def test_a_cached_bulk_request_still_checks_its_seed():
    fracas.resolve_bulk(BULK, seed=1)
    with pytest.raises(fracas.SchemaError) as caught:
        fracas.resolve_bulk(dict(BULK, seed="7"))
    assert caught.value.path == "$.seed"
    with pytest.raises(fracas.SchemaError) as caught:
        fracas.resolve_bulk(dict(BULK, seed=2**64))
    assert caught.value.path == "$.seed"


def test_alike_targets_compile_once_and_keep_their_own_index_and_id():
    """Alike targets share a compiled row (issue: bulk without quadratic corners), yet each
    group's damage goes to its own target."""
    clear_plan_cache()
    result = fracas.resolve_bulk(BULK, seed=5).to_dict()
    assert set(result["targets"]) == {f"t{i}" for i in range(40)}
    assert all(t["attacks"] == 50 for t in result["targets"].values())
    from fracas.rulesets.er.bulk import compile_bulk

    job = compile_bulk(BULK)
    assert [m.target for m in job.metas] == [f"t{i}" for i in range(40)]
    from fracas import _layout as L

    assert [job.plan[s * L.PLAN_WIDTH + L.P_TARGET] for s in range(40)] == list(range(40))
    assert len({job.plan[s * L.PLAN_WIDTH + L.P_AC] for s in range(40)}) == 3


def test_an_encoded_request_is_keyed_by_its_given_encoding_and_rolls_the_same():
    """The bridge encodes a request once (its journal's bytes) and hands the encoding on
    (`drive.Encoded`): the plan cache keys on those very bytes, which are the key it would
    make itself; with seed or rolls it still keys on the content without them."""
    request = {"attacker": {"strength": 4}, "targets": {"g": {"ac": 14}},
               "strikes": [{"target": "g", "method": "melee", "style": "slashing", "dice": 2, "weight": 1,
                            "damage_type": "edged"}]}
    encoded = drive.canonical(request)
    given = drive.Encoded(request, encoded)
    assert drive._plan_key(given) is encoded and encoded == drive._plan_key(request)
    seeded = {**request, "seed": 5, "rolls": [20, 3]}
    assert drive._plan_key(drive.Encoded(seeded, drive.canonical(seeded))) == drive._plan_key(request)
    for seed in (1, 2):
        clear_plan_cache()
        fresh = fracas.resolve(copy.deepcopy(request), seed=seed).to_dict()
        assert fracas.resolve(drive.Encoded(request, encoded), seed=seed).to_dict() == fresh  # compiles
        assert fracas.resolve(drive.Encoded(request, encoded), seed=seed).to_dict() == fresh  # from the cache
