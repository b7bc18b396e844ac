"""Enchanted Realms saves and area effects (the `save` kind), and the asleep and charmed
conditions (ER-12, ER-14, ER-15, ER-16; docs/rules/enchanted-realms.md).

The save kind is Python on both backends (no compiled save kernel); its draw order is
pinned by tests/vectors/er_save_vectors.json, replayed here on every backend.
"""

import importlib.util
import itertools
import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

import fracas
from fracas import _kernels

ROOT = Path(__file__).resolve().parents[2]
VECTORS = json.loads((ROOT / "tests" / "vectors" / "er_save_vectors.json").read_text())

SMOKE = {"save": "agility", "dc": 13, "area": True, "effect": "sleep smoke", "on_fail": ["asleep"],
         "targets": [{"id": "goblin", "score": 4, "cover": "half"},
                     {"id": "ogre", "modifier": -1, "conditions": ["poisoned"]}]}
SWORD = {"target": "aria", "method": "melee", "style": "slashing", "dice": 2, "damage_type": "edged"}


def _error(call, *args, **kwargs):
    with pytest.raises(fracas.RequestError) as info:
        call(*args, **kwargs)
    return info.value


# -- the save kind: the API ------------------------------------------------------------

def test_er16_cover_adds_2_5_5_to_an_agility_save_against_an_area():
    """ER-16: half cover +2, three-quarters +5, full +5 to Agility saves against area effects."""
    for cover, bonus in (("none", 0), ("half", 2), ("three-quarters", 5), ("full", 5)):
        result = fracas.save({"save": "agility", "dc": 15, "area": True,
                              "targets": [{"id": "aria", "modifier": 1, "cover": cover}], "rolls": [9]}).to_dict()
        entry = result["targets"][0]
        assert entry["cover_bonus"] == bonus and entry["total"] == 9 + 1 + bonus
        assert entry["saved"] is (9 + 1 + bonus >= 15)


def test_er16_cover_adds_nothing_to_other_saves_or_to_an_effect_that_is_not_an_area():
    """ER-16: "other sub-attribute saves gain no bonus"; the bonus is against area effects."""
    for save, area in (("resilience", True), ("strength", True), ("agility", False)):
        result = fracas.save({"save": save, "dc": 12, "area": area,
                              "targets": [{"id": "aria", "modifier": 0, "cover": "half"}], "rolls": [11]}).to_dict()
        assert result["targets"][0]["cover_bonus"] == 0 and result["targets"][0]["saved"] is False


def test_er16_full_cover_keeps_out_an_effect_that_is_not_an_area():
    """ER-16: line-of-sight effects "have no viable target" behind full cover; areas reach it."""
    exc = _error(fracas.save, {"save": "resilience", "dc": 12,
                               "targets": [{"id": "a", "score": 3}, {"id": "b", "score": 3, "cover": "full"}]})
    assert isinstance(exc, fracas.RulesError) and exc.path == "$.targets[1].cover" and "(ER-16)" in exc.reason


def test_er14_a_failed_save_applies_the_conditions_and_a_saved_one_does_not():
    result = fracas.save({**SMOKE, "rolls": [16, 3, 15]}).to_dict()
    goblin, ogre = result["targets"]
    assert goblin["saved"] and goblin["conditions_after"] == []
    assert not ogre["saved"] and ogre["conditions_after"] == ["poisoned", "asleep"]
    assert result["saved"] == ["goblin"] and result["failed"] == ["ogre"]
    twice = fracas.save({**SMOKE, "on_fail": ["asleep", "prone", "asleep"], "rolls": [16, 3, 15]}).to_dict()
    assert twice["targets"][1]["conditions_after"] == ["poisoned", "asleep", "prone"]


def test_er12_er14_the_savers_own_conditions_count():
    """ER-12/ER-14 on saves: poisoned keeps the worse of two d20 (the first drawn first),
    defending the better; paralyzed fails without a die; shaken and drowsy are -2 once."""
    result = fracas.save({"save": "agility", "dc": 10, "targets": [
        {"id": "p", "modifier": 0, "conditions": ["poisoned"]},
        {"id": "d", "modifier": 0, "conditions": ["defending"]},
        {"id": "x", "modifier": 9, "conditions": ["paralyzed"]},
        {"id": "s", "modifier": 0, "conditions": ["shaken", "drowsy"]}], "rolls": [15, 4, 4, 15, 11]}).to_dict()
    p, d, x, s = result["targets"]
    assert (p["dice"], p["kept"], p["disadvantage_from"]) == ([15, 4], 4, ["poisoned"])
    assert (d["dice"], d["kept"], d["advantage_from"]) == ([4, 15], 15, ["defending"])
    assert (x["dice"], x["kept"], x["automatic_failure"], x["saved"]) == ([], None, "paralyzed", False)
    assert s["penalty"] == {"condition": "shaken", "value": -2} and s["total"] == 9


def test_each_targets_exact_chance_and_the_distribution_of_failures():
    """The chance to save is exact (two d20 at advantage or disadvantage); the number that
    fail is the exact sum over every way the independent saves can go."""
    request = {"save": "agility", "dc": 13, "area": True, "targets": [
        {"id": "a", "score": 4, "cover": "half"}, {"id": "b", "modifier": -1, "conditions": ["poisoned"]},
        {"id": "c", "modifier": 2, "advantage": True}, {"id": "z", "modifier": 0, "conditions": ["stunned"]}]}
    result = fracas.save(request, seed=1).to_dict()
    by_hand = [Fraction(11, 20), Fraction(7 * 7, 400), Fraction(400 - 10 * 10, 400), Fraction(0)]
    assert [Fraction(t["p_save_exact"]) for t in result["targets"]] == by_hand
    dist = [Fraction(0)] * 5
    for outcome in itertools.product([True, False], repeat=4):
        p = Fraction(1)
        for saved, q in zip(outcome, by_hand):
            p *= q if saved else 1 - q
        dist[outcome.count(False)] += p
    assert [Fraction(f["p_exact"]) for f in result["p_failures"]] == dist
    assert [f["failed"] for f in result["p_failures"]] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("request_, path, kind", [
    ({**SMOKE, "targets": []}, "$.targets", fracas.SchemaError),
    ({**SMOKE, "targets": [{"id": f"c{i}", "score": 3} for i in range(1001)]}, "$.targets", fracas.LimitError),
    ({**SMOKE, "dc": 1000}, "$.dc", fracas.SchemaError),
    ({**SMOKE, "save": "charisma"}, "$.save", fracas.SchemaError),
    ({**SMOKE, "on_fail": ["sleepy"]}, "$.on_fail[0]", fracas.SchemaError),
    ({**SMOKE, "targets": [{"id": "a", "score": 3, "cover": "behind"}]}, "$.targets[0].cover", fracas.SchemaError),
    ({**SMOKE, "targets": [{"id": "a"}]}, "$.targets[0].score", fracas.SchemaError),
    ({**SMOKE, "targets": [{"id": "", "score": 3}]}, "$.targets[0].id", fracas.SchemaError),
    ({**SMOKE, "targets": [{"id": "a", "score": 3}, {"id": "a", "score": 3}]}, "$.targets[1].id",
     fracas.SchemaError),
    ({**SMOKE, "targets": [{"id": "a", "score": 3, "conditions": ["napping"]}]}, "$.targets[0].conditions[0]",
     fracas.SchemaError),
    ({**SMOKE, "rolls": [3]}, "$.rolls", fracas.DiceError),
    ({**SMOKE, "rolls": [3, 4, 5, 6]}, "$.rolls", fracas.DiceError),
])
def test_bad_save_requests_name_their_field(request_, path, kind):
    exc = _error(fracas.save, request_)
    assert isinstance(exc, kind) and exc.path == path, (exc.path, exc.reason)


def test_the_save_kind_is_not_every_rulesets():
    # Enchanted Realms and old-school have it (tests/engine/test_os_save.py); Worldwalker has not.
    assert "save" in fracas.rulesets.kinds()
    exc = _error(fracas.roll, "save", {**SMOKE, "ruleset": "worldwalker"})
    assert exc.path == "$.ruleset"


# -- the known-answer vectors: the draw order on every backend --------------------------

def test_the_save_vectors_cover_the_rules():
    results = [v["result"] for v in VECTORS if "result" in v]
    entries = [t for r in results for t in r["targets"]]
    assert len(results) >= 80 and any(len(r["targets"]) >= 5 for r in results)
    assert {t["cover_bonus"] for t in entries} >= {0, 2, 5}
    assert any(t["automatic_failure"] for t in entries) and any(len(t["dice"]) == 2 for t in entries)
    assert any(t["conditions_after"] != t["conditions"] for t in entries)
    assert {v["error"]["type"] for v in VECTORS if "error" in v} >= {"SchemaError", "RulesError", "DiceError"}


def _answer(vector):
    """What the engine answers a vector's request now: {"result": …} or {"error": …}."""
    try:
        got = fracas.roll("save", vector["request"], seed=vector["seed"]).to_dict()
    except fracas.RequestError as exc:
        return {"error": {"type": type(exc).__name__, "path": exc.path, "reason": exc.reason}}
    got.pop("backend", None)
    return {"result": got}


@pytest.mark.parametrize("backend", _kernels.available())
def test_every_save_vector_reproduces(backend):
    with _kernels.using(backend):
        differ = [v["name"] for v in VECTORS if _answer(v) != {k: v[k] for k in ("result", "error") if k in v}]
    assert differ == []


def test_the_save_generator_is_in_sync_with_the_committed_file():
    path = ROOT / "tests" / "vectors" / "generate_save.py"
    spec = importlib.util.spec_from_file_location("generate_save", path)
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    assert generate.dumps(generate.build()) == generate.VECTORS.read_text()


# -- asleep (ER-14, ER-15) ---------------------------------------------------------------

def test_er14_an_asleep_target_can_be_attacked():
    """Was `unknown condition 'asleep'`: a token marked asleep could not be attacked."""
    result = fracas.resolve({"attacker": {"strength": 4}, "strikes": [SWORD],
                             "targets": {"aria": {"ac": 12, "conditions": ["asleep"]}}, "rolls": [15, 3]}).to_dict()
    strike = result["strikes"][0]
    # The text's asleep row changes no attack roll: the same as an awake, unaware target.
    assert not strike["advantage"] and not strike["disadvantage"] and strike["hits"] == 1


def test_er13_a_sleeping_target_can_be_sneak_attacked():
    """ER-13: a sleeping victim is the text's example of one unaware of its attacker."""
    result = fracas.resolve({"attacker": {"strength": 4}, "strikes": [{**SWORD, "sneak": True}],
                             "targets": {"aria": {"ac": 12, "conditions": ["asleep"]}}}, seed=3).to_dict()
    assert result["strikes"][0]["sneak"] is True and len(result["strikes"][0]["dice"]) == 4


def test_er14_an_asleep_creature_cannot_attack_or_start_a_competition():
    exc = _error(fracas.resolve, {"attacker": {"strength": 4, "conditions": ["asleep"]}, "strikes": [SWORD],
                                  "targets": {"aria": {"ac": 12}}})
    assert isinstance(exc, fracas.RulesError) and exc.path == "$.attacker.conditions" and "asleep" in exc.reason
    exc = _error(fracas.compete, {"contest": "grapple", "challenger": {"id": "o", "strength": 4,
                                                                       "conditions": ["asleep"]},
                                  "defender": {"id": "a", "strength": 2}})
    assert exc.path == "$.challenger.conditions"


def test_er15_an_asleep_defender_does_not_see_the_attack():
    """ER-15: defending puts attacks at disadvantage only if the defender can see them."""
    result = fracas.resolve({"attacker": {"strength": 4}, "strikes": [SWORD], "targets": {
        "aria": {"ac": 12, "conditions": ["defending", "asleep"]}}, "seed": 2}).to_dict()
    assert result["strikes"][0]["disadvantage"] is False
    awake = fracas.resolve({"attacker": {"strength": 4}, "strikes": [SWORD], "targets": {
        "aria": {"ac": 12, "conditions": ["defending"]}}, "seed": 2}).to_dict()
    assert awake["strikes"][0]["disadvantage"] is True


# -- charmed (ER-14) ---------------------------------------------------------------------

CHARMED = {"strength": 4, "conditions": ["charmed"], "charmed_by": "aria"}


def test_er14_a_charmed_attacker_cannot_attack_its_charmer():
    exc = _error(fracas.resolve, {"attacker": CHARMED, "strikes": [{**SWORD, "target": "bob"}, SWORD],
                                  "targets": {"aria": {"ac": 12}, "bob": {"ac": 12}}})
    assert isinstance(exc, fracas.RulesError) and exc.path == "$.strikes[1].target"
    assert "charmer" in exc.reason and "$.attacker.charmed_by" in exc.reason and "(ER-14)" in exc.reason


def test_er14_a_charmed_attacker_attacks_anyone_else():
    result = fracas.resolve({"attacker": CHARMED, "strikes": [{**SWORD, "target": "bob"}],
                             "targets": {"aria": {"ac": 12}, "bob": {"ac": 12}}, "rolls": [15, 3]}).to_dict()
    assert result["targets"]["bob"]["damage"] > 0


def test_er14_naming_the_charmer_is_enough_and_an_empty_name_is_refused():
    exc = _error(fracas.resolve, {"attacker": {"strength": 4, "charmed_by": "aria"}, "strikes": [SWORD],
                                  "targets": {"aria": {"ac": 12}}})
    assert exc.path == "$.strikes[0].target"
    exc = _error(fracas.resolve, {"attacker": {"strength": 4, "charmed_by": ""}, "strikes": [SWORD],
                                  "targets": {"aria": {"ac": 12}}})
    assert isinstance(exc, fracas.SchemaError) and exc.path == "$.attacker.charmed_by"


def test_er14_the_charmer_is_refused_in_bulk_odds_and_impalement():
    bulk = {"profiles": {"thrall": {"attacker": CHARMED, "strikes": [
                {k: v for k, v in SWORD.items() if k != "target"}]}},
            "targets": {"aria": {"ac": 12}, "bob": {"ac": 12}},
            "attacks": [{"profile": "thrall", "target": "bob", "count": 3},
                        {"profile": "thrall", "target": "aria", "count": 3}]}
    assert _error(fracas.resolve_bulk, bulk).path == "$.attacks[1].target"
    odds = {"attacker": CHARMED, "strikes": [SWORD], "targets": {"aria": {"ac": 12}}}
    assert _error(fracas.odds, odds).path == "$.strikes[0].target"
    impale = {"pikeman": {"strength": 4, "charmed_by": "ogre"},
              "charger": {"id": "ogre", "ac": 12, "body": 8, "closed": 30}}
    assert _error(fracas.impale, impale).path == "$.pikeman.charmed_by"


# -- the rules page: its save example runs ------------------------------------------------

def test_the_rules_page_shows_a_save_request_that_runs():
    """docs/rules/enchanted-realms.md shows the save request shape; every such example runs
    and the page's words for it are the result's (its ```json blocks with a "save" key)."""
    page = (ROOT / "docs" / "rules" / "enchanted-realms.md").read_text()
    ran = 0
    for block in re.findall(r"```json\n(.*?)```", page, re.S):
        request = json.loads(block)
        if "save" in request and "dc" in request:
            result = fracas.save(request).to_dict()
            assert len(result["targets"]) == len(request["targets"])
            ran += 1
    assert ran >= 1
    assert "charmed_by" in page and "asleep" in page
