"""Enchanted Realms touch attacks through the bridge (`touch.roll`): journaled, replayed,
the published result schema, and refusals naming their path (ER Touch-based Effects, ER-14)."""

import json
from pathlib import Path

import pytest

import fracas
from fracas.bridge import errors

from .helpers import request

SLEIGHT = {"touch": "sleight", "caster": {"agility": 4}, "target": {"id": "guard", "agility": 6, "other_ac": 1},
           "seed": 11}
HIT = {"touch": "hit", "caster": {"strength": 4}, "target": {"id": "guard", "ac": 13}, "dice": 2, "seed": 12}


def test_a_touch_is_journaled_and_replays(ask):
    rolled = ask(request("t1", "touch.roll", SLEIGHT))["result"]
    direct = fracas.roll("touch", SLEIGHT).to_dict()
    assert {k: v for k, v in rolled.items() if k != "backend"} == {k: v for k, v in direct.items() if k != "backend"}
    assert rolled["sleight"]["dc"] == 13
    assert ask(request("t1", "touch.roll", SLEIGHT))["result"] == rolled
    replay = ask(request("r1", "journal.replay", {"id": "t1"}))["result"]
    assert replay["matches"] is True and replay["method"] == "touch.roll"


def test_the_answer_is_the_published_result_schema(ask):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parents[2] / "bridge" / "schema.json").read_text())
    root = {"$schema": schema["$schema"], "$ref": "#/$defs/result.touch.roll", "$defs": schema["$defs"]}
    validator = jsonschema.validators.validator_for(root)(root)
    for n, params in enumerate((SLEIGHT, HIT, {**HIT, "caster": {"strength": 4, "conditions": ["poisoned"]}})):
        result = ask(request(n, "touch.roll", params))["result"]
        assert [e.message for e in validator.iter_errors(result)] == []
    assert list(validator.iter_errors(dict(result, surplus=True)))
    params = {"$schema": schema["$schema"], "$ref": "#/$defs/params.touch.roll", "$defs": schema["$defs"]}
    check = jsonschema.validators.validator_for(params)(params)
    assert [e.message for e in check.iter_errors(SLEIGHT)] == []
    assert list(check.iter_errors({**SLEIGHT, "touch": "grapple"}))


@pytest.mark.parametrize(("params", "code", "path"), [
    ({**HIT, "target": {"id": "g"}}, errors.INVALID_PARAMS, "$.params.target.ac"),
    ({**SLEIGHT, "caster": {"agility": 4, "conditions": ["asleep"]}}, errors.RULES_ERROR,
     "$.params.caster.conditions"),
    ({**HIT, "dice": 9}, errors.INVALID_PARAMS, "$.params.dice"),
    ({**HIT, "ruleset": "worldwalker"}, errors.RULES_ERROR, "$.params.ruleset"),
])
def test_bad_touches_name_their_path(ask, params, code, path):
    reply = ask(request(7, "touch.roll", params))
    assert reply["error"]["code"] == code and reply["error"]["data"]["path"] == path, reply
