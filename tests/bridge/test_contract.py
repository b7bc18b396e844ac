"""server.contract (issue 39 item 12): the bridge serves the clients' contract, made at run
time from the rulesets registered then, so a plug-in ruleset reaches the VTT clients."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest

import fracas.bridge
from fracas.bridge import methods
import fracas.rulesets
from fracas.spec import generate

from .helpers import REPO, request

SCHEMA = json.loads((Path(fracas.bridge.__file__).parent / "schema.json").read_text())
D6POOL = REPO / "docs" / "examples" / "d6pool"
FIXTURE = json.loads((REPO / "vtt_scripts" / "roll20" / "test" / "fixtures" / "d6pool_contract.json").read_text())


def result_schema():
    return {"$defs": SCHEMA["$defs"], "$ref": "#/$defs/result.server.contract"}


@pytest.fixture
def d6pool():
    sys.path.insert(0, str(D6POOL))
    ruleset = fracas.rulesets.register_package("d6pool")
    try:
        yield ruleset
    finally:
        fracas.rulesets.unregister(ruleset.name)
        sys.path.remove(str(D6POOL))


def test_the_contract_is_what_contract_js_carries(ask):
    reply = ask(request(1, "server.contract"))
    contract = reply["result"]
    jsonschema.validate(contract, result_schema())
    made = generate.contract_facts()
    assert contract["rulesets"] == made["RULESETS"]
    assert contract["structs"] == json.loads(json.dumps(made["STRUCTS"]))
    assert contract["limits"] == made["LIMITS"]
    assert contract["default_ruleset"] == made["DEFAULT_RULESET"] and contract["version"] == made["VERSION"]
    for name, layouts in made["RESULTS"].items():  # the offline rulesets' layouts, as contract.js has them
        assert contract["results"][name] == json.loads(json.dumps(layouts))
    assert set(contract["results"]) == set(fracas.rulesets.names())
    # Issue 45 item 6: each ruleset's checked [client] hints, as contract.js's CLIENT carries them.
    assert contract["client"] == json.loads(json.dumps(made["CLIENT"]))
    assert contract["client"]["enchanted-realms"] and set(contract["client"]) == set(fracas.rulesets.names())


def test_a_plug_in_ruleset_is_served_with_its_fields_and_layouts(ask, d6pool):
    contract = ask(request(1, "server.contract"))["result"]
    jsonschema.validate(contract, result_schema())
    entry = next(r for r in contract["rulesets"] if r["name"] == "d6-pool")
    assert entry == FIXTURE["entry"]  # what the Roll20 tests' fixture says contract.js would carry
    assert contract["structs"]["d6-pool"] == FIXTURE["structs"]
    layout = contract["results"]["d6-pool"]
    assert layout["kinds"]["attack"] == "AttackResult"
    assert ["targets", {"dict": "Damage"}] in layout["shapes"]["AttackResult"]
    assert layout["shapes"]["Damage"] == ["damage"]


def test_the_contract_follows_the_registry(ask, d6pool):
    assert "d6-pool" in ask(request(1, "server.contract"))["result"]["structs"]
    fracas.rulesets.unregister("d6-pool")
    try:
        assert "d6-pool" not in ask(request(2, "server.contract"))["result"]["structs"]
    finally:
        fracas.rulesets.register(d6pool)


def test_params_are_refused_where_they_are(ask):
    reply = ask(request(1, "server.contract", {"ruleset": "d6-pool"}))
    assert reply["error"]["code"] == -32602
    assert reply["error"]["data"]["path"] == "$.params.ruleset"


def test_the_rulesets_filter_serves_only_those_named(ask, d6pool):
    whole = ask(request(1, "server.contract"))["result"]
    reply = ask(request(2, "server.contract", {"rulesets": ["d6-pool", "no-such-ruleset"]}))
    contract = reply["result"]
    jsonschema.validate(contract, result_schema())
    assert [r["name"] for r in contract["rulesets"]] == ["d6-pool"]  # a name not resolved here is left out
    assert set(contract["structs"]) == set(contract["results"]) == {"d6-pool"}
    assert contract["structs"]["d6-pool"] == whole["structs"]["d6-pool"]
    assert contract["results"]["d6-pool"] == whole["results"]["d6-pool"]
    assert contract["limits"] == whole["limits"] and contract["version"] == whole["version"]
    # What the Roll20 Mod asks through the relay: a few frames, not the whole contract's.
    assert len(json.dumps(contract)) * 3 < len(json.dumps(whole))
    params_schema = {"$defs": SCHEMA["$defs"], "$ref": "#/$defs/params.server.contract"}
    jsonschema.validate({"rulesets": ["d6-pool"]}, params_schema)


@pytest.mark.parametrize(("rulesets", "path"), [
    ([], "$.params.rulesets"),
    ("d6-pool", "$.params.rulesets"),
    (["d6-pool", 3], "$.params.rulesets[1]"),
    (["d6-pool", ""], "$.params.rulesets[1]"),
    (["d6-pool", "d6-pool"], "$.params.rulesets"),
])
def test_a_bad_rulesets_filter_is_refused_where_it_is(ask, rulesets, path):
    reply = ask(request(1, "server.contract", {"rulesets": rulesets}))
    assert reply["error"]["code"] == -32602
    assert reply["error"]["data"]["path"] == path


def test_a_plug_in_rulesets_client_hints_are_served_checked(ask, d6pool, monkeypatch):
    # Issue 45 item 6: a plug-in installed only beside the bridge (in no contract.js) reaches
    # the clients with its manifest's [client] hints; one naming a field its results lack is
    # refused naming the ruleset and key, as `python -m fracas.spec` refuses it.
    import dataclasses

    contract = ask(request(1, "server.contract", {"rulesets": ["d6-pool"]}))["result"]
    jsonschema.validate(contract, result_schema())
    # DP-2: its manifest's own table (per-combatant initiative from each combatant's bonus, a d6).
    assert contract["client"] == {"d6-pool": {"initiative": "combatant", "initiative_flags": ["bonus"],
                                              "initiative_die": 6, "initiative_rule": "DP-2"}}
    monkeypatch.setattr(d6pool, "manifest", dataclasses.replace(d6pool.manifest, client={"split": ["damage"]}))
    monkeypatch.setattr(methods, "_contract_cache", {})
    contract = ask(request(2, "server.contract", {"rulesets": ["d6-pool"]}))["result"]
    jsonschema.validate(contract, result_schema())
    assert contract["client"] == {"d6-pool": {"split": ["damage"]}}
    monkeypatch.setattr(d6pool, "manifest", dataclasses.replace(d6pool.manifest, client={"split": ["stamina"]}))
    monkeypatch.setattr(methods, "_contract_cache", {})
    with pytest.raises(ValueError, match=r"d6-pool's manifest \[client\] split: 'stamina' is not a field"):
        generate.served_contract(["d6-pool"])
