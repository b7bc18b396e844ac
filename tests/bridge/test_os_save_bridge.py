"""Old-school saving throws through the bridge (`save.roll`, the generic kind machinery):
journaled, replayed, the published result and params schemas, and refusals naming their
path (OS-5, and the decision "Saving throws" on docs/rules/old-school.md)."""

import json
from pathlib import Path

import pytest

import fracas
from fracas.bridge import errors

from .helpers import request

HOLD = {"ruleset": "old-school", "category": "spells", "modifier": -2, "effect": "hold person",
        "targets": [{"id": "cleric", "saves": {"spells": 15, "breath": 16}},
                    {"id": "fighter", "save": 14, "modifier": 1}], "seed": 11}


def test_an_old_school_save_is_journaled_and_replays(ask):
    rolled = ask(request("o1", "save.roll", HOLD))["result"]
    direct = fracas.save(HOLD).to_dict()
    assert {k: v for k, v in rolled.items() if k != "backend"} == {k: v for k, v in direct.items() if k != "backend"}
    assert rolled["ruleset"] == "old-school" and rolled["targets"][0]["save"] == 15
    assert ask(request("o1", "save.roll", HOLD))["result"] == rolled
    replay = ask(request("r1", "journal.replay", {"id": "o1"}))["result"]
    assert replay["matches"] is True and replay["method"] == "save.roll"


def test_the_answer_is_the_published_result_schema(ask):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parents[2] / "bridge" / "schema.json").read_text())
    root = {"$schema": schema["$schema"], "$ref": "#/$defs/result.save.roll", "$defs": schema["$defs"]}
    validator = jsonschema.validators.validator_for(root)(root)
    result = ask(request(1, "save.roll", {**HOLD, "rolls": [20, 1]}))["result"]
    assert [e.message for e in validator.iter_errors(result)] == []
    assert list(validator.iter_errors(dict(result, surplus=True)))
    params = {"$schema": schema["$schema"], "$ref": "#/$defs/params.save.roll", "$defs": schema["$defs"]}
    check = jsonschema.validators.validator_for(params)(params)
    assert [e.message for e in check.iter_errors(HOLD)] == []
    assert list(check.iter_errors({**HOLD, "targets": [{"id": "a", "save": "high"}]}))


@pytest.mark.parametrize(("params", "code", "path"), [
    ({**HOLD, "targets": [{"id": "a"}]}, errors.INVALID_PARAMS, "$.params.targets[0].save"),
    ({**HOLD, "category": "breath", "targets": [{"id": "a", "saves": {"spells": 12}}]}, errors.INVALID_PARAMS,
     "$.params.targets[0].saves"),
    ({**HOLD, "modifier": 30}, errors.INVALID_PARAMS, "$.params.modifier"),
    ({**HOLD, "targets": [{"id": f"c{i}", "save": 12} for i in range(1001)]}, errors.LIMIT_EXCEEDED,
     "$.params.targets"),
])
def test_bad_old_school_saves_name_their_path(ask, params, code, path):
    reply = ask(request(7, "save.roll", params))
    assert reply["error"]["code"] == code and reply["error"]["data"]["path"] == path, reply
