"""The ruleset seam: a ruleset defined only here runs through every driver untouched.

`tests/seam/coins.py` registers a coin-toss ruleset at run time. Nothing in
src/, bridge/ or the CLI names it; if any of these tests needs a change there,
the seam is wrong.
"""

from __future__ import annotations

import json

import orjson
import pytest

import fracas

#: The rulesets this install declares (their manifests), before the test registers its own.
BUILT_IN = tuple(m.name for m in fracas.rulesets.manifests())
from fracas.bridge.dispatcher import Dispatcher, Session
from fracas.bridge.journal import Journal

from click.testing import CliRunner

from fracas.cli import main

from .coins import NAME

TOKEN = "seam-test-token"


def run(args):
    result = CliRunner().invoke(main, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result

ATTACK = {"ruleset": NAME, "coins": 4, "target": "dummy", "targets": {"dummy": {"guard": 1}}}
BULK = {"ruleset": NAME, "coins": 3, "target": "dummy", "targets": {"dummy": {"guard": 0}}, "attacks": 200_000}


def test_registered_rulesets_are_listed(coins):
    assert fracas.rulesets() == (*BUILT_IN, NAME)
    with pytest.raises(fracas.SchemaError) as err:
        fracas.resolve(dict(ATTACK, ruleset="chess"))
    assert err.value.path == "$.ruleset"
    assert err.value.reason == f"unknown ruleset 'chess' (one of: {', '.join(BUILT_IN)}, {NAME})"


def test_unregistered_ruleset_is_unknown():
    assert NAME not in fracas.rulesets()
    with pytest.raises(fracas.SchemaError, match=r"unknown ruleset 'coin-toss' \(one of: " + ", ".join(BUILT_IN) + r"\)"):
        fracas.resolve(ATTACK)


def test_resolve_rolls_it_reproducibly(coins):
    first = fracas.resolve(ATTACK, seed=11).to_dict()
    assert first == fracas.resolve(orjson.dumps(ATTACK), seed=11).to_dict()
    assert first["ruleset"] == NAME and len(first["faces"]) == 4
    assert first["total_damage"] == max(0, first["faces"].count(2) - 1)


def test_injected_faces_go_through_the_driver(coins):
    result = fracas.resolve(dict(ATTACK, rolls=[2, 2, 1, 2]), seed=1).to_dict()
    assert result["faces"] == [2, 2, 1, 2] and result["total_damage"] == 2 and result["injected"]
    # The driver checks faces against the ruleset's largest die, and leftovers.
    with pytest.raises(fracas.DiceError) as err:
        fracas.resolve(dict(ATTACK, rolls=[2, 3, 1, 2]))
    assert err.value.path == "$.rolls[1]" and err.value.reason == "face 3 is out of range (1 to 2)"
    with pytest.raises(fracas.DiceError, match="5 faces given, but the attack used only 4"):
        fracas.resolve(dict(ATTACK, rolls=[2, 2, 1, 2, 1]))


def test_its_own_errors_keep_their_paths(coins):
    with pytest.raises(fracas.SchemaError) as err:
        fracas.resolve(dict(ATTACK, coins=11))
    assert err.value.path == "$.coins"
    with pytest.raises(fracas.SchemaError) as err:
        fracas.resolve(dict(ATTACK, colour="red"))
    assert err.value.path == "$" and "colour" in err.value.reason


def test_initiative_it_does_not_have_is_a_clear_error(coins):
    with pytest.raises(fracas.RulesError) as err:
        fracas.roll_initiative({"ruleset": NAME, "combatants": []})
    assert err.value.path == "$.ruleset" and "does not resolve initiative" in err.value.reason


def test_resolve_bulk_chunks_streams_and_threads(coins):
    one = fracas.resolve_bulk(BULK, seed=5, threads=1).to_dict()
    assert one == fracas.resolve_bulk(BULK, seed=5, threads=2).to_dict()
    assert one["attacks_total"] == 200_000
    # Three fair coins: 1.5 heads an attack on average.
    assert 0.99 < one["total_damage"] / (1.5 * 200_000) < 1.01
    # resolve() takes one attack: one result type per call.
    with pytest.raises(fracas.SchemaError, match=r"^\$\.attacks: a bulk request \(with attacks\) goes to"
                                                 r" fracas.resolve_bulk"):
        fracas.resolve(BULK, seed=5)


def test_bulk_detail_lists_the_same_attacks_the_summary_counts(coins):
    small = dict(BULK, attacks=70_000, detail="attacks")  # two chunks
    result = fracas.resolve_bulk(small, seed=9).to_dict()
    assert len(result["attacks"]) == 70_000
    assert sum(a["damage"] for a in result["attacks"]) == result["total_damage"]
    summary = fracas.resolve_bulk(dict(small, detail="summary"), seed=9).to_dict()
    assert summary["total_damage"] == result["total_damage"]


@pytest.fixture
def bridge():
    journal = Journal(":memory:")
    dispatcher = Dispatcher(token=TOKEN, journal=journal)
    session = Session(peer="seam")
    dispatcher.handle(session, orjson.dumps({"jsonrpc": "2.0", "id": 0, "method": "auth",
                                             "params": {"token": TOKEN}}).decode())

    def ask(request_id, method, params=None):
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        return orjson.loads(dispatcher.handle(session, orjson.dumps(message).decode()).data)

    yield ask
    journal.close()


def test_the_bridge_serves_it(coins, bridge):
    info = bridge(1, "server.info")["result"]
    assert NAME in info["rulesets"]
    rolled = bridge(2, "attack.resolve", dict(ATTACK, seed=3))["result"]
    assert rolled == fracas.resolve(ATTACK, seed=3).to_dict()
    # Journaled: the same id answers the same result without rolling again.
    assert bridge(2, "attack.resolve", dict(ATTACK, seed=3))["result"] == rolled
    replay = bridge(3, "journal.replay", {"id": 2})["result"]
    assert replay["matches"] and replay["differences"] == []
    bulk = bridge(4, "attack.bulk", dict(BULK, attacks=1000, seed=4))["result"]
    assert bulk["attacks_total"] == 1000
    error = bridge(5, "attack.resolve", dict(ATTACK, coins=0))["error"]
    assert error["code"] == -32602 and error["data"]["path"] == "$.params.coins"


def test_the_bridge_limits_its_bulk_requests_too(coins):
    from fracas.bridge.limits import Limits

    journal = Journal(":memory:")
    dispatcher = Dispatcher(token=TOKEN, journal=journal, limits=Limits(max_bulk_attacks=1000,
                                                                         max_bulk_detail_attacks=10))
    session = Session(peer="seam")
    dispatcher.handle(session, orjson.dumps({"jsonrpc": "2.0", "id": 0, "method": "auth",
                                             "params": {"token": TOKEN}}).decode())

    def ask(params):
        message = {"jsonrpc": "2.0", "id": 1, "method": "attack.bulk", "params": params}
        return orjson.loads(dispatcher.handle(session, orjson.dumps(message).decode()).data)

    over = ask(dict(BULK, attacks=1001))["error"]
    assert over["code"] == -32003 and over["data"]["path"] == "$.params.attacks"
    listed = ask(dict(BULK, attacks=11, detail="attacks"))["error"]
    assert listed["code"] == -32003 and listed["data"]["path"] == "$.params.detail"
    journal.close()


def test_the_cli_resolves_and_renders_it(coins, tmp_path):
    path = tmp_path / "coins.json"
    path.write_text(json.dumps(ATTACK))
    result = run(["attack", str(path), "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("coin toss ") and "(seed 3)" in result.output
    as_json = json.loads(run(["attack", str(path), "--seed", "3", "--json"]).output)
    assert as_json == fracas.resolve(ATTACK, seed=3).to_dict()
    flags = run(["attack", "--ruleset", NAME, "--coins", "2", "--seed", "3", "--json"])
    assert flags.exit_code == 0, flags.output
    assert len(json.loads(flags.output)["faces"]) == 2
    bad = run(["attack", "--ruleset", NAME, "--coins", "12"])
    assert bad.exit_code == 2 and "$.coins: 12 coins, flip 1 to 10 (set it with --coins)" in bad.output
    record = tmp_path / "record.json"
    record.write_text(json.dumps({"request": ATTACK, "result": as_json}))
    replay = run(["replay", str(record)])
    assert replay.exit_code == 0 and "Replay matches" in replay.output


def test_the_cli_refuses_an_unknown_ruleset_for_flags():
    result = run(["attack", "--ruleset", "chess", "--dice", "2", "--ac", "10"])
    assert result.exit_code == 2 and "--ruleset" in result.output and "unknown ruleset 'chess'" in result.output
