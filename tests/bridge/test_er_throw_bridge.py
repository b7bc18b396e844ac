"""Enchanted Realms throwing items and throwing magic through the bridge (`throw.roll`):
journaled, replayed, the published result schema, and refusals naming their path ("ER
Throwing Items", ER-14, ER-16)."""

import json
from pathlib import Path

import pytest

import fracas
from fracas.bridge import errors

from .helpers import request

HOLY = {"item": "holy water", "skill": "hurling", "target": {"id": "ghoul", "ac": 14, "vulnerable": ["smite"]},
        "seed": 11}
SPELL = {"item": "magic", "skill": "ranged", "thrower": {"agility": 8},
         "damage": {"dice": 2, "faces": 6, "damage_type": "fire"}, "target": {"id": "ghoul", "ac": 14}}


def test_a_throw_is_journaled_and_replays(ask):
    rolled = ask(request("t1", "throw.roll", HOLY))["result"]
    direct = fracas.throw(HOLY).to_dict()
    assert {k: v for k, v in rolled.items() if k != "backend"} == {k: v for k, v in direct.items() if k != "backend"}
    assert rolled["item"] == "holy water" and len(rolled["thrown"]["dice"]) == 3
    assert ask(request("t1", "throw.roll", HOLY))["result"] == rolled
    replay = ask(request("r1", "journal.replay", {"id": "t1"}))["result"]
    assert replay["matches"] is True and replay["method"] == "throw.roll"


def test_injected_faces_decide_the_outcome(ask):
    """ER Throwing Items (throwing magic): ranged fighting adds the Agility modifier (+3)."""
    reply = ask(request(2, "throw.roll", {**SPELL, "rolls": [11, 4, 5]}))
    assert "result" in reply, reply
    result = reply["result"]
    assert result["thrown"]["to_hit"] == 3 and result["hit"] is True and result["damage"]["damage"] == 9
    assert result["injected"] is True


@pytest.mark.parametrize("params", [
    HOLY,
    {**HOLY, "rolls": [1, 2, 3]},
    SPELL,
    {**HOLY, "item": "bonfire blend", "thrower": {"conditions": ["poisoned"]}, "target": {"id": "t", "ac": 3}},
])
def test_the_answer_is_the_published_result_schema(ask, params):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parents[2] / "bridge" / "schema.json").read_text())
    root = {"$schema": schema["$schema"], "$ref": "#/$defs/result.throw.roll", "$defs": schema["$defs"]}
    validator = jsonschema.validators.validator_for(root)(root)
    result = ask(request(1, "throw.roll", params))["result"]
    assert [e.message for e in validator.iter_errors(result)] == []
    assert list(validator.iter_errors(dict(result, surplus=True)))
    check = {"$schema": schema["$schema"], "$ref": "#/$defs/params.throw.roll", "$defs": schema["$defs"]}
    checker = jsonschema.validators.validator_for(check)(check)
    assert [e.message for e in checker.iter_errors(params)] == []
    assert list(checker.iter_errors({**params, "skill": "juggling"}))


@pytest.mark.parametrize(("params", "code", "path"), [
    ({**HOLY, "item": "thick smoke"}, errors.RULES_ERROR, "$.params.item"),
    ({**HOLY, "target": {"id": "ghoul", "ac": 14, "cover": "full"}}, errors.RULES_ERROR, "$.params.target.id"),
    ({**SPELL, "skill": "hurling", "thrower": {"agility_mod": 3}}, errors.INVALID_PARAMS, "$.params.thrower.agility"),
    ({**SPELL, "damage": {"dice": 40}}, errors.INVALID_PARAMS, "$.params.damage.dice"),
    ({**HOLY, "thrower": {"conditions": ["asleep"]}}, errors.RULES_ERROR, "$.params.thrower.conditions"),
    ({**HOLY, "ruleset": "worldwalker"}, errors.RULES_ERROR, "$.params.ruleset"),
])
def test_bad_throws_name_their_path(ask, params, code, path):
    reply = ask(request(7, "throw.roll", params))
    assert reply["error"]["code"] == code and reply["error"]["data"]["path"] == path, reply
