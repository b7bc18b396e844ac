"""Enchanted Realms "Getting the Drop" (the `drop` kind; seed 000's "Getting The Drop",
after ER-13; docs/rules/enchanted-realms.md, "Getting the drop").

Getting the drop rolls its sneak attack through the active ER kernel, inflicting the held
damage rolls the victim's feat in Python from the same stream; the draw order is pinned by
tests/vectors/er_drop_vectors.json, replayed here on every backend.
"""

import importlib.util
import json
from fractions import Fraction
from pathlib import Path

import pytest

import fracas
from fracas import _kernels

ROOT = Path(__file__).resolve().parents[2]
VECTORS = json.loads((ROOT / "tests" / "vectors" / "er_drop_vectors.json").read_text())

BOW = {"target": "captain", "method": "range", "style": "archery", "dice": 2, "damage_type": "piercing", "sneak": True}
ATTACK = {"attacker": {"agility": 5}, "strikes": [BOW], "targets": {"captain": {"ac": 12, "save_bonus": 2,
                                                                                "body_max": 6}}}


def _drop(request, **kwargs):
    return fracas.roll("drop", request, **kwargs).to_dict()


def _error(request):
    with pytest.raises(fracas.RequestError) as info:
        fracas.roll("drop", request)
    return info.value


@pytest.mark.parametrize("backend", _kernels.available())
def test_er13_getting_the_drop_rolls_the_attack_and_holds_its_damage(backend):
    """"Rolls the dice as an attack but announces that damage will not be inflicted": the
    result holds the damage (3 hits + Agility modifier 1); no shock save is called for."""
    with _kernels.using(backend):
        result = _drop({"attack": ATTACK, "rolls": [15, 9, 3, 12]})
        plain = fracas.resolve({**ATTACK, "rolls": [15, 9, 3, 12, 14]}).to_dict()
    assert result["phase"] == "drop" and result["held"] == 4 and result["inflicted"] == 0
    assert result["attack"]["strikes"] == plain["strikes"]  # the same dice as the plain sneak attack
    target = result["attack"]["targets"]["captain"]
    assert target["damage"] == 4 and target["shock_save"] is None and target["shock_save_dc"] is None
    assert plain["targets"]["captain"]["shock_save"] is not None  # a landed blow would call for it


@pytest.mark.parametrize("backend", _kernels.available())
def test_er13_a_victim_that_cannot_surrender_takes_the_plain_sneak_attack(backend):
    """"Getting the drop on a wild animal or zombie is pointless ... inflict the damage for
    the sneak attack": resolved as the sneak attack, its shock save rolled (ER-13)."""
    with _kernels.using(backend):
        result = _drop({"attack": ATTACK, "surrenders": False, "rolls": [15, 9, 3, 12, 14]})
        plain = fracas.resolve({**ATTACK, "rolls": [15, 9, 3, 12, 14]}).to_dict()
    for attack in (plain, result["attack"]):
        attack.pop("backend", None)
        attack.pop("seed")
    assert result["held"] is None and result["inflicted"] == 4 and result["attack"] == plain
    assert plain["targets"]["captain"]["shock_save"]["dice"] == [14]


@pytest.mark.parametrize("rounds, dc", [(0, 20), (1, 19), (5, 15), (6, 14), (7, 14), (100, 14)])
def test_the_victims_feat_dc_falls_one_a_round_to_14(rounds, dc):
    """"DC:20 ... the DC drops by one point to a minimum of a DC:14"."""
    result = _drop({"inflict": {"held": 7, "rounds": rounds, "victim": {"id": "c", "modifier": 0}}, "rolls": [14]})
    assert result["release"]["dc"] == dc
    assert result["inflicted"] == (3 if 14 >= dc else 7)


def test_a_met_feat_halves_the_held_damage_rounded_down():
    result = _drop({"inflict": {"held": 7, "victim": {"id": "c", "score": 6}}, "rolls": [18]})
    assert result["release"]["total"] == 20 and result["release"]["halved"] and result["inflicted"] == 3
    assert _drop({"inflict": {"held": 7, "victim": {"id": "c", "score": 6}}, "rolls": [17]})["inflicted"] == 7


def test_foul_play_puts_the_feat_at_advantage_with_exact_odds():
    """"If the victim has foul-play, then that save is rolled at advantage": two d20, the
    better kept; P(better + 2 >= 18) = 1 - (15/20)^2 = 7/16; mean = 7/16 * 3 + 9/16 * 7."""
    result = _drop({"inflict": {"held": 7, "rounds": 2, "victim": {"id": "c", "score": 6, "foul_play": True}},
                    "rolls": [3, 17]})
    rel = result["release"]
    assert rel["dice"] == [3, 17] and rel["kept"] == 17 and rel["situation"]["advantage_from"] == ["foul play"]
    assert rel["p_half_exact"] == "7/16" and rel["mean_inflicted_exact"] == str(Fraction(21, 4))


def test_er12_er14_the_victims_conditions_count_on_its_feat():
    """Poisoned: the worse of two; foul play and poisoned cancel (ER-12); paralyzed fails without a die."""
    poisoned = _drop({"inflict": {"held": 6, "victim": {"id": "c", "modifier": 2, "conditions": ["poisoned"]}},
                      "rolls": [19, 5]})
    assert poisoned["release"]["kept"] == 5 and poisoned["inflicted"] == 6
    both = _drop({"inflict": {"held": 6, "victim": {"id": "c", "modifier": 2, "foul_play": True,
                                                     "conditions": ["poisoned"]}}, "rolls": [19]})
    assert both["release"]["dice"] == [19] and both["inflicted"] == 3
    frozen = _drop({"inflict": {"held": 6, "victim": {"id": "c", "modifier": 9, "conditions": ["paralyzed"]}}})
    assert frozen["release"]["dice"] == [] and frozen["inflicted"] == 6 and frozen["release"]["p_half_exact"] == "0/1"


def test_er13_the_inflicted_damage_names_the_shock_save_it_calls_for():
    """≥ 50% of the victim's maximum Body: a Resilience save, DC 5 + the damage."""
    full = _drop({"inflict": {"held": 6, "victim": {"id": "c", "modifier": 0, "body_max": 12}}, "rolls": [2]})
    assert full["release"]["shock_save"] == {"dc": 11}
    half = _drop({"inflict": {"held": 6, "victim": {"id": "c", "modifier": 0, "body_max": 12}}, "rolls": [20]})
    assert half["inflicted"] == 3 and half["release"]["shock_save"] is None


@pytest.mark.parametrize("request_, path, kind", [
    ({"attack": {**ATTACK, "strikes": [{**BOW, "sneak": False}]}}, "$.attack.strikes[0].sneak", fracas.RulesError),
    ({"attack": {**ATTACK, "strikes": [BOW, {**BOW, "target": "guard"}],
                 "targets": {**ATTACK["targets"], "guard": {"ac": 9}}}}, "$.attack.strikes[1].target",
     fracas.RulesError),
    ({"attack": {**ATTACK, "strikes": [{**BOW, "friendly_fire": True}]}}, "$.attack.strikes[0].friendly_fire",
     fracas.RulesError),
    ({"attack": {**ATTACK, "attacker": {"agility": 5, "conditions": ["poisoned"]}}}, "$.attack.strikes[0].sneak",
     fracas.RulesError),
    ({"attack": {**ATTACK, "seed": 3}}, "$.attack.seed", fracas.SchemaError),
    ({"attack": {**ATTACK, "ruleset": "worldwalker"}}, "$.attack.ruleset", fracas.SchemaError),
    ({"attack": {**ATTACK, "targets": {}}}, "$.attack.targets", fracas.SchemaError),
    ({}, "$", fracas.SchemaError),
    ({"attack": ATTACK, "inflict": {"held": 3, "victim": {"modifier": 0}}}, "$", fracas.SchemaError),
    ({"inflict": {"held": 3, "victim": {}}}, "$.inflict.victim.score", fracas.SchemaError),
    ({"inflict": {"held": -1, "victim": {"modifier": 0}}}, "$.inflict.held", fracas.SchemaError),
    ({"inflict": {"held": 3, "rounds": -2, "victim": {"modifier": 0}}}, "$.inflict.rounds", fracas.SchemaError),
    ({"inflict": {"held": 3, "victim": {"modifier": 0, "attribute": "resilience"}}}, "$.inflict.victim.attribute",
     fracas.SchemaError),
    ({"inflict": {"held": 3, "victim": {"modifier": 0}}, "rolls": [4, 4]}, "$.rolls", fracas.DiceError),
])
def test_bad_drop_requests_name_their_field(request_, path, kind):
    exc = _error(request_)
    assert isinstance(exc, kind) and exc.path == path, (exc.path, exc.reason)


# -- the known-answer vectors: the draw order on every backend --------------------------

def test_the_drop_vectors_cover_the_rules():
    results = [v["result"] for v in VECTORS if "result" in v]
    assert len(results) >= 80 and {r["phase"] for r in results} == {"drop", "inflict"}
    assert any(r["held"] for r in results if r["phase"] == "drop")
    assert any(r["held"] is None for r in results)  # a victim that cannot surrender
    assert any(r["release"]["halved"] for r in results if r["release"])
    assert any(r["release"]["dc"] == 14 for r in results if r["release"])
    assert any(len(r["release"]["dice"]) == 2 for r in results if r["release"])
    assert {v["error"]["type"] for v in VECTORS if "error" in v} >= {"SchemaError", "RulesError", "DiceError"}


def _answer(vector):
    try:
        got = fracas.roll("drop", vector["request"], seed=vector["seed"]).to_dict()
    except fracas.RequestError as exc:
        return {"error": {"type": type(exc).__name__, "path": exc.path, "reason": exc.reason}}
    got.pop("backend", None)
    return {"result": got}


@pytest.mark.parametrize("backend", _kernels.available())
def test_every_drop_vector_reproduces(backend):
    with _kernels.using(backend):
        differ = [v["name"] for v in VECTORS if _answer(v) != {k: v[k] for k in ("result", "error") if k in v}]
    assert differ == []


def test_the_drop_generator_is_in_sync_with_the_committed_file():
    path = ROOT / "tests" / "vectors" / "generate_drop.py"
    spec = importlib.util.spec_from_file_location("generate_drop", path)
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    assert generate.dumps(generate.build()) == generate.VECTORS.read_text()
