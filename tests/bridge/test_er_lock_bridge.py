"""Enchanted Realms weapon lock and disarm through the bridge (`lock.roll`): journaled,
replayed, the published result schema, and refusals naming their path ("ER Weapon Lock",
"ER Weapon Disarm", ER-14, ER-19)."""

import json
from pathlib import Path

import pytest

import fracas
from fracas.bridge import errors

from .helpers import request

DISARM = {"mode": "disarm", "attacker": {"id": "aria", "to_hit": 6, "agility": 8, "weapon": "heavy"},
          "victim": {"id": "ogre", "ac": 12, "agility": 2, "reacts": True}, "seed": 11}


def test_a_disarm_is_journaled_and_replays(ask):
    rolled = ask(request("l1", "lock.roll", DISARM))["result"]
    direct = fracas.lock(DISARM).to_dict()
    assert {k: v for k, v in rolled.items() if k != "backend"} == {k: v for k, v in direct.items() if k != "backend"}
    assert rolled["rebuff_allowed"] is False and rolled["mode"] == "disarm"
    assert ask(request("l1", "lock.roll", DISARM))["result"] == rolled
    replay = ask(request("r1", "journal.replay", {"id": "l1"}))["result"]
    assert replay["matches"] is True and replay["method"] == "lock.roll"


def test_injected_faces_decide_the_outcome(ask):
    """ER Weapon Disarm: a heavy weapon costs 4 Body; the attacker's best d12 of two (ER-19)."""
    params = {k: v for k, v in DISARM.items() if k != "seed"}
    reply = ask(request(2, "lock.roll", {**params, "rolls": [15, 9, 2, 3]}))
    assert "result" in reply, reply
    result = reply["result"]
    assert result["reaction"]["body_cost"]["points"] == 4
    assert result["outcome"] == "kept" and result["injected"] is True


@pytest.mark.parametrize("params", [
    DISARM,
    {**DISARM, "mode": "lock", "attacker": {**DISARM["attacker"], "strength": 5},
     "victim": {**DISARM["victim"], "strength": 9, "conditions": ["bound", "prone"]}},
    {**DISARM, "mode": "blitz", "victim": {"id": "ogre", "ac": 12, "immune": ["blunt"]}},
    {**DISARM, "victim": {"id": "ogre", "ac": 30}},
])
def test_the_answer_is_the_published_result_schema(ask, params):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parents[2] / "bridge" / "schema.json").read_text())
    root = {"$schema": schema["$schema"], "$ref": "#/$defs/result.lock.roll", "$defs": schema["$defs"]}
    validator = jsonschema.validators.validator_for(root)(root)
    result = ask(request(1, "lock.roll", params))["result"]
    assert [e.message for e in validator.iter_errors(result)] == []
    assert list(validator.iter_errors(dict(result, surplus=True)))
    check = {"$schema": schema["$schema"], "$ref": "#/$defs/params.lock.roll", "$defs": schema["$defs"]}
    checker = jsonschema.validators.validator_for(check)(check)
    assert [e.message for e in checker.iter_errors(params)] == []
    assert list(checker.iter_errors({**params, "mode": "twist"}))


@pytest.mark.parametrize(("params", "code", "path"), [
    ({**DISARM, "victim": {**DISARM["victim"], "reaction_left": False}}, errors.RULES_ERROR, "$.params.victim.reacts"),
    ({**DISARM, "victim": {"id": "ogre", "ac": 12, "reacts": True}}, errors.INVALID_PARAMS,
     "$.params.victim.agility"),
    ({**DISARM, "attacker": {**DISARM["attacker"], "conditions": ["stunned"]}}, errors.RULES_ERROR,
     "$.params.attacker.conditions"),
    ({**DISARM, "attacker": {**DISARM["attacker"], "weapon": "huge"}}, errors.INVALID_PARAMS,
     "$.params.attacker.weapon"),
    ({**DISARM, "ruleset": "worldwalker"}, errors.RULES_ERROR, "$.params.ruleset"),
])
def test_bad_locks_name_their_path(ask, params, code, path):
    reply = ask(request(7, "lock.roll", params))
    assert reply["error"]["code"] == code and reply["error"]["data"]["path"] == path, reply
