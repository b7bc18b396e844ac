"""Enchanted Realms "Getting the Drop" through the bridge (`drop.roll`): journaled, replayed,
the published result schema, and refusals naming their path (ER-13)."""

import json
from pathlib import Path

import pytest

import fracas
from fracas.bridge import errors

from .helpers import request

ATTACK = {"attacker": {"agility": 5}, "strikes": [{"target": "captain", "method": "range", "style": "archery",
                                                   "dice": 2, "damage_type": "piercing", "sneak": True}],
          "targets": {"captain": {"ac": 12}}}
DROP = {"attack": ATTACK, "seed": 21}
INFLICT = {"inflict": {"held": 7, "rounds": 2, "victim": {"id": "captain", "score": 6, "foul_play": True,
                                                          "body_max": 10}}, "seed": 22}


def test_a_drop_is_journaled_and_replays(ask):
    rolled = ask(request("d1", "drop.roll", DROP))["result"]
    direct = fracas.roll("drop", DROP).to_dict()
    assert {k: v for k, v in rolled.items() if k != "backend"} == {k: v for k, v in direct.items() if k != "backend"}
    assert rolled["held"] == rolled["attack"]["targets"]["captain"]["damage"]
    replay = ask(request("r1", "journal.replay", {"id": "d1"}))["result"]
    assert replay["matches"] is True and replay["method"] == "drop.roll"


def test_the_answers_are_the_published_result_schema(ask):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parents[2] / "bridge" / "schema.json").read_text())
    root = {"$schema": schema["$schema"], "$ref": "#/$defs/result.drop.roll", "$defs": schema["$defs"]}
    validator = jsonschema.validators.validator_for(root)(root)
    for n, params in enumerate((DROP, INFLICT, {**DROP, "surrenders": False})):
        result = ask(request(n, "drop.roll", params))["result"]
        assert [e.message for e in validator.iter_errors(result)] == []
    assert list(validator.iter_errors(dict(result, surplus=True)))


@pytest.mark.parametrize(("params", "code", "path"), [
    ({"attack": {**ATTACK, "strikes": [{**ATTACK["strikes"][0], "sneak": False}]}}, errors.RULES_ERROR,
     "$.params.attack.strikes[0].sneak"),
    ({"inflict": {"held": 3, "victim": {}}}, errors.INVALID_PARAMS, "$.params.inflict.victim.score"),
    ({}, errors.INVALID_PARAMS, "$.params"),
])
def test_bad_drops_name_their_path(ask, params, code, path):
    reply = ask(request(7, "drop.roll", params))
    assert reply["error"]["code"] == code and reply["error"]["data"]["path"] == path, reply
