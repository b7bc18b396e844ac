"""An Enchanted Realms grappler's slam through the bridge (`slam.roll`): journaled, replayed,
the published result schema, and refusals naming their path ("ER Grappling", "ER Grappling:
Uncommon Conditions", ER-14)."""

import json
from pathlib import Path

import pytest

import fracas
from fracas.bridge import errors

from .helpers import request

SLAM = {"grappler": {"id": "giant", "size": "huge", "strength": 10, "to_hit": 2}, "victim": {"id": "aria"},
        "into": {"id": "bob", "ac": 12, "distance": 10}, "seed": 11}


def test_a_slam_is_journaled_and_replays(ask):
    rolled = ask(request("s1", "slam.roll", SLAM))["result"]
    direct = fracas.roll("slam", SLAM).to_dict()
    assert {k: v for k, v in rolled.items() if k != "backend"} == {k: v for k, v in direct.items() if k != "backend"}
    assert rolled["freed"] is True and rolled["into"]["id"] == "bob"
    assert ask(request("s1", "slam.roll", SLAM))["result"] == rolled
    replay = ask(request("r1", "journal.replay", {"id": "s1"}))["result"]
    assert replay["matches"] is True and replay["method"] == "slam.roll"


@pytest.mark.parametrize("params", [
    SLAM,
    {**SLAM, "into": None},
    {**SLAM, "grappler": {**SLAM["grappler"], "conditions": ["poisoned"]}, "victim": {"id": "aria", "immune": ["blunt"]}},
])
def test_the_answer_is_the_published_result_schema(ask, params):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parents[2] / "bridge" / "schema.json").read_text())
    root = {"$schema": schema["$schema"], "$ref": "#/$defs/result.slam.roll", "$defs": schema["$defs"]}
    validator = jsonschema.validators.validator_for(root)(root)
    result = ask(request(1, "slam.roll", params))["result"]
    assert [e.message for e in validator.iter_errors(result)] == []
    assert list(validator.iter_errors(dict(result, surplus=True)))
    check = {"$schema": schema["$schema"], "$ref": "#/$defs/params.slam.roll", "$defs": schema["$defs"]}
    checker = jsonschema.validators.validator_for(check)(check)
    assert [e.message for e in checker.iter_errors(params)] == []
    assert list(checker.iter_errors({**params, "grappler": 3}))


@pytest.mark.parametrize(("params", "code", "path"), [
    ({**SLAM, "grappler": {**SLAM["grappler"], "size": "large"}}, errors.RULES_ERROR, "$.params.grappler.size"),
    ({**SLAM, "into": {**SLAM["into"], "distance": 20}}, errors.RULES_ERROR, "$.params.into.distance"),
    ({**SLAM, "grappler": {**SLAM["grappler"], "height": 8}}, errors.RULES_ERROR, "$.params.into"),
    ({**SLAM, "grappler": {**SLAM["grappler"], "conditions": ["stunned"]}}, errors.RULES_ERROR,
     "$.params.grappler.conditions"),
    ({**SLAM, "grappler": {"id": "giant", "size": "huge"}}, errors.INVALID_PARAMS, "$.params.grappler.strength"),
])
def test_bad_slams_name_their_path(ask, params, code, path):
    reply = ask(request(7, "slam.roll", params))
    assert reply["error"]["code"] == code and reply["error"]["data"]["path"] == path, reply
