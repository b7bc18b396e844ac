"""Enchanted Realms saves and area effects through the bridge (`save.roll`): journaled,
replayed, the published result schema, and refusals naming their path (ER-14, ER-16)."""

import json
from pathlib import Path

import pytest

import fracas
from fracas.bridge import errors

from .helpers import request

SMOKE = {"save": "agility", "dc": 13, "area": True, "effect": "sleep smoke", "on_fail": ["asleep"],
         "targets": [{"id": "goblin", "score": 4, "cover": "half"},
                     {"id": "ogre", "modifier": -1, "conditions": ["poisoned"]}], "seed": 11}


def test_an_area_save_is_journaled_and_replays(ask):
    """ER-16: the half-covered goblin's +2 comes through; the same id gives the journaled result."""
    rolled = ask(request("s1", "save.roll", SMOKE))["result"]
    direct = fracas.save(SMOKE).to_dict()
    assert {k: v for k, v in rolled.items() if k != "backend"} == {k: v for k, v in direct.items() if k != "backend"}
    assert rolled["targets"][0]["cover_bonus"] == 2
    assert ask(request("s1", "save.roll", SMOKE))["result"] == rolled
    replay = ask(request("r1", "journal.replay", {"id": "s1"}))["result"]
    assert replay["matches"] is True and replay["method"] == "save.roll"


def test_the_answer_is_the_published_result_schema(ask):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parents[2] / "bridge" / "schema.json").read_text())
    root = {"$schema": schema["$schema"], "$ref": "#/$defs/result.save.roll", "$defs": schema["$defs"]}
    validator = jsonschema.validators.validator_for(root)(root)
    result = ask(request(1, "save.roll", {**SMOKE, "targets": [*SMOKE["targets"], {
        "id": "statue", "modifier": 0, "conditions": ["petrified"]}]}))["result"]
    assert [e.message for e in validator.iter_errors(result)] == []
    assert list(validator.iter_errors(dict(result, surplus=True)))
    params = {"$schema": schema["$schema"], "$ref": "#/$defs/params.save.roll", "$defs": schema["$defs"]}
    check = jsonschema.validators.validator_for(params)(params)
    assert [e.message for e in check.iter_errors(SMOKE)] == []
    assert list(check.iter_errors({**SMOKE, "save": "charisma"}))


@pytest.mark.parametrize(("params", "code", "path"), [
    ({**SMOKE, "area": False, "targets": [{"id": "a", "score": 3, "cover": "full"}]}, errors.RULES_ERROR,
     "$.params.targets[0].cover"),
    ({**SMOKE, "targets": [{"id": "a"}]}, errors.INVALID_PARAMS, "$.params.targets[0].score"),
    ({**SMOKE, "on_fail": ["sleepy"]}, errors.INVALID_PARAMS, "$.params.on_fail[0]"),
    ({**SMOKE, "ruleset": "worldwalker"}, errors.RULES_ERROR, "$.params.ruleset"),
    ({**SMOKE, "targets": [{"id": f"c{i}", "score": 3} for i in range(1001)]}, errors.LIMIT_EXCEEDED,
     "$.params.targets"),
])
def test_bad_saves_name_their_path(ask, params, code, path):
    reply = ask(request(7, "save.roll", params))
    assert reply["error"]["code"] == code and reply["error"]["data"]["path"] == path, reply


def test_a_charmed_attacker_is_refused_its_charmer_through_the_bridge(ask):
    """ER-14: "cannot attack the charmer"; an asleep target is a target like any other."""
    attack = {"attacker": {"strength": 4, "charmed_by": "aria"},
              "strikes": [{"target": "aria", "method": "melee", "style": "slashing", "dice": 2,
                           "damage_type": "edged"}],
              "targets": {"aria": {"ac": 12, "conditions": ["asleep"]}}, "seed": 1}
    reply = ask(request(8, "attack.resolve", attack))
    assert reply["error"]["code"] == errors.RULES_ERROR
    assert reply["error"]["data"]["path"] == "$.params.strikes[0].target"
    attack["attacker"] = {"strength": 4}
    assert ask(request(9, "attack.resolve", attack))["result"]["strikes"][0]["target"] == "aria"
