"""WW-8 counterspells through the bridge: `counterspell.roll` comes from the kind (no bridge
code names it), is journaled and replayed, refuses bad input at its params path, and
answers the shape bridge/schema.json publishes."""

import json
from pathlib import Path

import pytest

import fracas
from fracas.bridge import errors

from .helpers import request

COUNTER = {"ruleset": "worldwalker", "school": "sorcery", "caster": {"id": "hexer", "skill": 5, "modifier": 1},
           "counterspeller": {"id": "ayla", "schools": {"sorcery": 4}, "modifier": 2, "distance": 30}, "seed": 5}


def test_ww8_counterspell_is_journaled_and_replays(ask):
    rolled = ask(request("cs", "counterspell.roll", COUNTER))["result"]
    assert rolled == fracas.roll("counterspell", COUNTER).to_dict()
    assert ask(request("cs", "counterspell.roll", COUNTER))["result"] == rolled  # the journaled result
    replay = ask(request("r", "journal.replay", {"id": "cs"}))["result"]
    assert replay["matches"] is True and replay["method"] == "counterspell.roll"


@pytest.mark.parametrize(("params", "code", "path"), [
    ({**COUNTER, "counterspeller": {**COUNTER["counterspeller"], "distance": 90}}, errors.RULES_ERROR,
     "$.params.counterspeller.distance"),
    ({**COUNTER, "school": "illusion"}, errors.RULES_ERROR, "$.params.counterspeller.schools"),
    ({**COUNTER, "ruleset": "old-school"}, errors.RULES_ERROR, "$.params.ruleset"),
    ({**COUNTER, "caster": {"skill": 3}}, errors.INVALID_PARAMS, "$.params.caster"),  # msgspec: a missing id
    ({**COUNTER, "counterspeller": {"id": "ayla", "schools": {"sorcery": 4}}}, errors.INVALID_PARAMS,
     "$.params.counterspeller.distance"),
])
def test_ww8_bad_counterspells_name_their_path(ask, params, code, path):
    reply = ask(request(7, "counterspell.roll", params))
    assert reply["error"]["code"] == code and reply["error"]["data"]["path"] == path, reply


def test_ww8_the_answer_is_the_published_result_shape(ask):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parents[2] / "bridge" / "schema.json").read_text())
    root = {"$schema": schema["$schema"], "$ref": "#/$defs/result.counterspell.roll", "$defs": schema["$defs"]}
    validator = jsonschema.validators.validator_for(root)(root)
    result = ask(request(1, "counterspell.roll", COUNTER))["result"]
    assert [e.message for e in validator.iter_errors(result)] == []
    assert list(validator.iter_errors(dict(result, surplus=True)))
    # a request's params are checked by its method's own schema
    frame = {"$ref": "#/$defs/request", "$defs": schema["$defs"], "$schema": schema["$schema"]}
    check = jsonschema.validators.validator_for(frame)(frame)
    good = {"jsonrpc": "2.0", "id": 1, "method": "counterspell.roll", "params": COUNTER}
    assert list(check.iter_errors(good)) == []
    assert list(check.iter_errors(dict(good, params={**COUNTER, "school": 3})))
