"""`fracas.odds`: exact distributions against independent enumerations written from the
rules (tests/engine/exact.py for ER; the WW/CT/OS models of tests/rulesets), against
seeded rolls, and with the same errors as `resolve`."""

import math
from fractions import Fraction

import pytest

import fracas

from .exact import Pool, attack_distribution
from .test_exact import CONFIGS

TYPICAL = {"attacker": {"strength": 0, "strength_mod": 1},
           "strikes": [{"target": "g", "method": "melee", "style": "slashing", "dice": 3, "bonus": 2, "weight": 1,
                        "damage_type": "edged"}],
           "targets": {"g": {"ac": 14}}}


def request_of(config):
    attacker, strikes, targets, strike_targets, _pools = config
    names = [strike_targets] * len(strikes) if isinstance(strike_targets, str) else strike_targets
    return {"attacker": attacker, "strikes": [dict(s, target=t) for s, t in zip(strikes, names)], "targets": targets}


def as_dict(pairs):
    return {v: Fraction(p) for v, p in pairs}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_er_odds_match_the_independent_enumeration(name):
    """ER-1 … ER-12: the whole attack's distribution, value by value (both cut below 1e-15)."""
    config = CONFIGS[name]
    got = as_dict(_total(fracas.odds(request_of(config))))
    want = attack_distribution(config[4])
    for value in set(got) | set(want):
        assert abs(got.get(value, 0) - want.get(value, 0)) < Fraction(1, 10**14), (name, value)


def _total(result):
    total = None
    for tid in result.targets:
        d = result.targets[tid][0]
        total = d if total is None else total.convolve(d)
    return list(total.items())


def test_the_reference_answer_3d20_plus_2_vs_ac_14():
    """DESIGN reference: mean 11979/3800 and P(at least one hit) 6669/8000, exactly."""
    t = fracas.odds(TYPICAL).to_dict()["targets"]["g"]
    assert t["p_hit_exact"] == "6669/8000"
    mean = Fraction(t["mean_exact"])
    assert abs(mean - Fraction(11979, 3800)) < Fraction(1, 10**15)
    assert sum(Fraction(p) for _, p in t["exact"]) == 1
    assert math.isclose(sum(p for _, p in t["distribution"]), 1.0)


@pytest.mark.parametrize("request_", [
    request_of(CONFIGS["two strikes on one target"]),
    {"ruleset": "cartyrion", "attacker": {"level": 3, "bonus": 1, "awa": 2},
     "strikes": [{"target": "t", "method": "melee", "die": "d4", "parry": "weapon"},
                 {"target": "t", "method": "melee", "die": "d6", "sneak": "roll"},
                 {"target": "t", "method": "melee", "die": "d8", "parry": "shield"}],
     "targets": {"t": {"dex": 1, "armor": 2, "shield": 5}}},
    {"ruleset": "worldwalker", "attacker": {"skill": 2, "str_mod": 1},
     "strikes": [{"target": "t", "method": "melee", "damage": "2d4", "feint": {"bonus": 2, "defense": 1}},
                 {"target": "t", "method": "melee", "damage": "1d6"}],
     "targets": {"t": {"dex_mod": 2, "armor": 1, "reaction": {"kind": "dodge", "bonus": 4}}}},
    {"ruleset": "old-school", "attacker": {"attack_bonus": 1, "str_mod": 1, "dex_mod": 2},
     "strikes": [{"target": "t", "method": "missile", "damage": "1d6", "range": "long"},
                 {"target": "t", "method": "melee", "damage": "1d8-2", "rear": True}],
     "targets": {"t": {"ac": 13, "shield": 1, "cover": 2}}},
], ids=["er-two-strikes", "ct-parries-and-sneak-check", "ww-feint-and-dodge", "os-missile-and-rear"])
def test_seeded_rolls_match_the_odds(request_):
    """A fixed-seed test: 200,000 rolled attacks against the exact distribution."""
    n = 200_000
    odds = fracas.odds(request_)
    tid = next(iter(odds.targets))
    strikes = request_["strikes"]
    profile = {"attacker": request_["attacker"], "strikes": [{k: v for k, v in s.items() if k != "target"}
                                                              for s in strikes]}
    bulk = {"profiles": {"p": profile}, "targets": request_["targets"],
            "attacks": [{"profile": "p", "target": tid, "count": n}]}
    if "ruleset" in request_:
        bulk["ruleset"] = request_["ruleset"]
    hist = fracas.resolve_bulk(bulk, seed=20261123).to_dict()["groups"][0]["histogram"]
    dist = dict(odds.distribution(tid))
    chi2, df, e_acc, o_acc = 0.0, -1, 0.0, 0
    for value in range(max(len(hist), max(dist) + 1)):
        e_acc += float(dist.get(value, 0)) * n if value < 63 else 0
        o_acc += hist[value] if value < min(len(hist), 63) else 0
        if e_acc >= 20:
            chi2 += (o_acc - e_acc) ** 2 / e_acc
            df += 1
            e_acc, o_acc = 0.0, 0
    z = ((chi2 / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    assert z < 4.75, (chi2, df)


def test_a_mob_is_the_convolution_of_identical_attacks():
    one = fracas.odds(TYPICAL)
    three = fracas.odds({**TYPICAL, "count": 3})
    d = one.targets["g"][0]
    assert three.targets["g"][0].reduced().w == d.power(3).reduced().w
    assert three.targets["g"][1] == 1 - (1 - one.targets["g"][1]) ** 3
    assert three.to_dict()["count"] == 3


def test_remaining_and_thresholds():
    out = fracas.odds(TYPICAL, remaining={"g": 6}, at_least=[1, 6]).to_dict()["targets"]["g"]
    exact = {v: Fraction(p) for v, p in out["exact"]}
    assert Fraction(out["p_drop_exact"]) == sum(p for v, p in exact.items() if v >= 6)
    assert out["p_at_least"]["6"] == pytest.approx(out["p_drop"])
    assert out["p_at_least"]["1"] == pytest.approx(out["p_hit"])


@pytest.mark.parametrize("call, error, path", [
    (lambda: fracas.odds({**TYPICAL, "strikes": [{**TYPICAL["strikes"][0], "dice": 6}]}), fracas.SchemaError,
     "$.strikes[0].dice"),
    (lambda: fracas.odds(TYPICAL, remaining={"ogre": 5}), fracas.SchemaError, "$.remaining.ogre"),
    (lambda: fracas.odds({**TYPICAL, "count": 0}), fracas.SchemaError, "$.count"),
    (lambda: fracas.odds({**TYPICAL, "count": 10_000}), fracas.LimitError, "$.count"),
    (lambda: fracas.odds({"ruleset": "cartyrion", "attacker": {"level": 3}, "count": 40,
                          "strikes": [{"target": "t", "method": "melee", "die": "d6"}], "targets": {"t": {}}}),
     fracas.LimitError, "$.count"),
    (lambda: fracas.odds({"ruleset": "cartyrion", "attacker": {"level": 1},
                          "strikes": [{"target": "t", "method": "melee", "die": "d6", "dice": 60}],
                          "targets": {"t": {}}}), fracas.LimitError, "$.strikes"),
    (lambda: fracas.odds({"ruleset": "cartyrion", "attacker": {"level": 1},
                          "strikes": [{"target": "t", "method": "melee", "die": "d7"}], "targets": {"t": {}}}),
     fracas.RulesError, "$.strikes[0].die"),
])
def test_bad_odds_requests_name_the_path(call, error, path):
    with pytest.raises(error) as caught:
        call()
    assert caught.value.path == path


@pytest.mark.parametrize("value, said", [(None, "null"), ([3], "array"), ({"n": 3}, "object"), ("3", "str")])
def test_a_count_of_the_wrong_type_is_named_in_json_words(value, said):
    """The bridge audit's nit: `count: null` said "got NoneType" (Python's word, not JSON's)."""
    with pytest.raises(fracas.SchemaError) as caught:
        fracas.odds({**TYPICAL, "count": value})
    assert caught.value.path == "$.count" and str(caught.value).endswith(f"expected int, got {said}")
    with pytest.raises(fracas.SchemaError) as caught:
        fracas.odds(TYPICAL, remaining={"g": value})
    assert str(caught.value).endswith(f"expected int, got {said}")


def test_the_shared_odds_vectors_reproduce_and_the_generator_is_in_sync():
    """tests/vectors/odds_vectors.json: the JavaScript resolver gives the same answers."""
    import importlib.util
    import json
    from pathlib import Path

    here = Path(__file__).resolve().parents[1] / "vectors"
    spec = importlib.util.spec_from_file_location("generate_odds", here / "generate_odds.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.dumps(module.build()) == (here / "odds_vectors.json").read_text()
    vectors = json.loads((here / "odds_vectors.json").read_text())
    assert sum("result" in v for v in vectors) >= 50
    # every ruleset the Roll20 resolver computes odds for (its manifest's clients)
    assert {v["request"].get("ruleset", "enchanted-realms") for v in vectors if "result" in v} == {
        m.name for m in fracas.rulesets.manifests() if "roll20" in m.clients}


def test_an_attack_too_large_to_enumerate_is_refused_with_the_limit():
    strike = {"method": "melee", "style": "slashing", "dice": 5, "weight": 2, "damage_type": "edged", "target": "g"}
    with pytest.raises(fracas.LimitError) as caught:
        fracas.odds({"attacker": {"strength": 6}, "strikes": [strike] * 200, "targets": {"g": {"ac": 10}}})
    assert caught.value.path == "$.strikes" and "1,000,000 steps" in caught.value.reason
