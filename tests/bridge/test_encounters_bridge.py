"""encounter.* over the bridge: kept in the journal's file, once per id, errors at params paths."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import orjson
import pytest

from fracas.bridge.dispatcher import Dispatcher, Session
from fracas.bridge.journal import Journal
from fracas.drive.encounter import Encounter
from fracas.store import EncounterStore

from .helpers import TOKEN, ask as ws_ask, client, request, serving

SCENARIOS = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
OS = json.loads((SCENARIOS / "os-goblin-ambush.json").read_text())


def test_new_round_undo_show_list_delete(ask):
    made = ask(request("n1", "encounter.new", {"name": "gob", "scenario": OS}))["result"]
    assert made["round"] == 0 and made["standing"] == {"party": 4, "goblins": 14}
    shown = ask(request("s1", "encounter.show", {"name": "gob"}))["result"]
    assert shown == made
    log = ask(request("r1", "encounter.round", {"name": "gob", "seed": 5, "expect_round": 0}))["result"]
    assert log["round"] == 1 and log["seed"] == 5 and log["encounter"] == "gob"
    assert set(log["members"]) == {m["id"] for ms in shown["sides"].values() for m in ms}
    # the same id again: the same round, not a second one
    assert ask(request("r1", "encounter.round", {"name": "gob", "seed": 5, "expect_round": 0}))["result"] == log
    assert ask(request("s2", "encounter.show", {"name": "gob"}))["result"]["round"] == 1
    undone = ask(request("u1", "encounter.undo", {"name": "gob", "expect_round": 1}))["result"]
    assert undone == shown
    assert ask(request("u1", "encounter.undo", {"name": "gob", "expect_round": 1}))["result"] == undone  # no 2nd undo
    listed = ask(request("l1", "encounter.list", {}))["result"]
    assert [(e["name"], e["round"]) for e in listed] == [("gob", 0)]
    assert ask(request("d1", "encounter.delete", {"name": "gob"}))["result"] == {"deleted": "gob"}
    assert ask(request("l2", "encounter.list", {}))["result"] == []


def _error(reply):
    assert "error" in reply, reply
    return reply["error"]


def test_errors_name_the_params_path_and_keep_nothing(ask):
    bad = json.loads(json.dumps(OS))
    bad["sides"]["goblins"][0]["attacks"] = []
    err = _error(ask(request(1, "encounter.new", {"name": "gob", "scenario": bad})))
    assert err["code"] == -32602 and err["data"]["path"] == "$.params.scenario.sides.goblins[0].attacks"
    assert ask(request(2, "encounter.list", {}))["result"] == []
    err = _error(ask(request(3, "encounter.new", {"name": "gob", "scenario": OS, "extra": 1})))
    assert err["data"]["path"] == "$.params.extra"
    err = _error(ask(request(4, "encounter.round", {"name": "nobody"})))
    assert err["data"]["path"] == "$.params.name" and "no encounter named 'nobody'" in err["message"]
    ask(request(5, "encounter.new", {"name": "gob", "scenario": OS}))
    err = _error(ask(request(6, "encounter.round", {"name": "gob", "expect_round": 2})))
    assert err["data"]["path"] == "$.params.expect_round" and "at round 0, not 2" in err["message"]
    err = _error(ask(request(7, "encounter.round", {"name": "gob", "seed": "7"})))
    assert err["data"]["path"] == "$.params.seed"
    err = _error(ask(request(8, "encounter.round", {"name": "gob", "hp": {"Elf": -1}})))
    assert err["data"]["path"] == "$.params.hp.Elf"
    err = _error(ask(request(9, "encounter.new", {"name": "gob", "scenario": OS})))
    assert "exists already" in err["message"]
    ask(request(10, "encounter.round", {"name": "gob", "seed": 1}))
    err = _error(ask(request(11, "journal.replay", {"id": 10})))
    assert "not replayed from the journal" in err["message"]
    assert ask(request(12, "encounter.show", {"name": "gob"}))["result"]["round"] == 1  # nothing else moved


def test_the_bridge_keeps_encounters_in_its_journal_file(tmp_path):
    path = str(tmp_path / "journal.sqlite3")
    journal = Journal(path)
    dispatcher = Dispatcher(token=TOKEN, journal=journal)
    session = Session(peer="t")
    dispatcher.handle(session, orjson.dumps(request(0, "auth", {"token": TOKEN})).decode())
    reply = dispatcher.handle(session, orjson.dumps(request(1, "encounter.new", {"name": "gob", "scenario": OS})).decode())
    assert "result" in orjson.loads(reply.data)
    reply = dispatcher.handle(session, orjson.dumps(request(2, "encounter.round", {"name": "gob", "seed": 3})).decode())
    log = orjson.loads(reply.data)["result"]
    journal.close()
    # the CLI (another process, the same file) sees the round the bridge played
    enc = Encounter.open("gob", store=EncounterStore(path))
    assert enc.show()["round"] == 1 and enc.last_round() == log


def test_a_round_over_a_real_socket(tmp_path):
    async def main():
        async with serving(tmp_path) as bridge, client(bridge.url) as ws:
            made = await ws_ask(ws, request("a", "encounter.new", {"name": "gob", "scenario": OS}))
            assert made["result"]["round"] == 0
            log = await ws_ask(ws, request("b", "encounter.round", {"name": "gob", "seed": 2}))
            assert log["result"]["round"] == 1
            shown = await ws_ask(ws, request("c", "encounter.show", {"name": "gob"}))
            assert shown["result"]["rounds"] == [{"round": 1, "seed": 2,
                                                  "recorded_at": shown["result"]["rounds"][0]["recorded_at"]}]

    asyncio.run(main())


@pytest.mark.parametrize("method", ["encounter.new", "encounter.show", "encounter.round", "encounter.undo",
                                    "encounter.delete"])
def test_name_is_required(ask, method):
    err = _error(ask(request(1, method, {})))
    assert err["code"] == -32602 and err["data"]["path"] == "$.params.name"


def test_new_without_a_scenario_names_the_missing_field(ask, caplog):
    """encounter.new without scenario is -32602 at $.params.scenario, not an internal error."""
    err = _error(ask(request(1, "encounter.new", {"name": "gob"})))
    assert err == {"code": -32602, "message": "$.params.scenario: missing",
                   "data": {"path": "$.params.scenario", "reason": "missing"}}
    assert "Traceback" not in caplog.text and "KeyError" not in caplog.text


@pytest.mark.parametrize("scenario", ["@os-goblin-ambush", json.dumps(OS), str(SCENARIOS / "os-goblin-ambush.json"),
                                      "/etc/passwd"])
def test_a_scenario_is_an_object_never_text_a_path_or_an_example_name(ask, scenario):
    """The Python API reads a scenario from a file path or `@NAME` too; a client of the bridge
    must not make the GM's machine open a file it names (nor learn whether one exists): the
    bridge takes the scenario as a JSON object only, as its schema says."""
    err = _error(ask(request(1, "encounter.new", {"name": "gob", "scenario": scenario})))
    assert err == {"code": -32602, "message": "$.params.scenario: a scenario is a JSON object, got str",
                   "data": {"path": "$.params.scenario", "reason": "a scenario is a JSON object, got str"}}


@pytest.mark.parametrize("method", ["encounter.show", "encounter.round", "encounter.delete"])
def test_a_null_name_is_reported_in_json_words(ask, method):
    """`name: null` is "got null" (JSON), never Python's "None"."""
    err = _error(ask(request(1, method, {"name": None})))
    assert err["code"] == -32602 and err["data"]["path"] == "$.params.name"
    assert err["message"].endswith("got null") and "None" not in err["message"]


def test_a_null_scenario_or_strike_is_reported_as_null(ask):
    """Python's NoneType never reaches a client: a scenario or a strike that is null says null."""
    err = _error(ask(request(1, "encounter.new", {"name": "gob", "scenario": None})))
    assert err["message"] == "$.params.scenario: a scenario is a JSON object, got null"
    scenario = json.loads(json.dumps(OS))
    first_side = next(iter(scenario["sides"]))
    scenario["sides"][first_side][0]["attacks"] = [None]
    err = _error(ask(request(2, "encounter.new", {"name": "gob", "scenario": scenario})))
    assert err["code"] == -32602 and err["message"].endswith("got null") and "NoneType" not in err["message"]


def _validator(method: str):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parents[2] / "bridge" / "schema.json").read_text())
    root = {"$schema": schema["$schema"], "$ref": f"#/$defs/result.{method}", "$defs": schema["$defs"]}
    return jsonschema.validators.validator_for(root)(root)


@pytest.mark.parametrize("scenario", sorted(p.name for p in SCENARIOS.glob("*.json")))
def test_every_answer_of_a_whole_fight_is_what_the_published_schema_says(ask, scenario):
    """Each example scenario (one per ruleset) played round by round over the bridge: every
    answer validates against bridge/schema.json, whose event types are the fight's own
    (fracas.drive.fight.event_types(): Worldwalker's reserves and Cartyrion's broken weapons
    were refused while the schema listed eight types by hand)."""
    body = json.loads((SCENARIOS / scenario).read_text())
    seen = set()
    made = ask(request("n", "encounter.new", {"name": "e", "scenario": body}))["result"]
    assert list(_validator("encounter.new").iter_errors(made)) == []
    for i in range(40):
        log = ask(request(f"r{i}", "encounter.round", {"name": "e", "seed": i, "expect_round": i}))["result"]
        assert [e.message for e in _validator("encounter.round").iter_errors(log)] == [], i
        seen |= {event["type"] for event in log["events"]}
        if log["over"]:
            break
    assert "attack" in seen
    for method, params in (("encounter.show", {"name": "e"}), ("encounter.list", {}),
                           ("encounter.undo", {"name": "e", "expect_round": i + 1})):
        answer = ask(request(method, method, params))["result"]
        assert [e.message for e in _validator(method).iter_errors(answer)] == [], method
    wrong = dict(log, events=[{"type": "teleport"}])
    assert list(_validator("encounter.round").iter_errors(wrong))


def test_the_event_types_are_the_ones_the_fight_logs():
    """EVENT_TYPES names exactly the `"type"` of every event fracas/drive/fight.py writes,
    each built-in ruleset's procedure's `events` those its own fight.py writes (it may
    write the driver's too), and
    event_types() (which the schema lists) is all of them."""
    import re

    from fracas import rulesets
    from fracas.drive import fight

    def logged(module):
        source = Path(module.__file__).read_text(encoding="utf-8")
        found = set(re.findall(r'\{"type": "([a-z ]+)"', source))
        return found | set(re.findall(r'"type": "([a-z ]+)" if', source)) | set(re.findall(r' else "([a-z ]+)", "who"', source))

    assert logged(fight) == set(fight.EVENT_TYPES)
    every = set(fight.EVENT_TYPES)
    for name in rulesets.names():
        procedure = rulesets.get(name).fight_procedure()
        found = logged(sys.modules[procedure.__module__])  # its own, and maybe the driver's ("down", "fled")
        assert set(procedure.events) <= found <= set(procedure.events) | set(fight.EVENT_TYPES), name
        every |= set(procedure.events)
    assert set(fight.event_types()) == every
