"""The sans-I/O protocol on its own: no socket, no SQLite. The journal is a dict the test
hands over (``Turn.run``) and the entries to write come back as values (``Commit``), so
each step of a message is seen: what it claims, what it reads, what it writes, what it
answers (exact JSON)."""

from __future__ import annotations

import orjson
import pytest

import fracas
from fracas.bridge.budget import Ledger
from fracas.bridge.journal import Entry, digest, id_key
from fracas.bridge.protocol import HEAVY_ROUND, METHODS, Protocol, Session
from fracas.drive import canonical

from .helpers import ATTACK, INITIATIVE, TOKEN, attack, bulk, request

#: An attack the rules forbid: "a stunned attacker cannot attack (ER-14)".
STUNNED = attack(attacker={"strength": 6, "conditions": ["stunned"]})


class NoEncounters:
    """The encounter store of a test that plays no encounter: touching it is a failure."""

    def scenario(self, name):
        pytest.fail(f"the encounter store was asked for {name!r}")


class Scenarios:
    """An encounter store holding only scenarios (what the protocol weighs a round by)."""

    def __init__(self, **scenarios):
        self._scenarios = {name: orjson.dumps(value) for name, value in scenarios.items()}

    def scenario(self, name):
        return self._scenarios.get(name)


def protocol(store=None, **options):
    store = store or NoEncounters()
    return Protocol(token=TOKEN, encounters=lambda: store, **options)


def at(request_id, code, path, reason, **data):
    return {"jsonrpc": "2.0", "id": request_id,
            "error": {"code": code, "message": f"{path}: {reason}", "data": {"path": path, "reason": reason, **data}}}


def start(core, message):
    """Read and start one message of an authenticated session (as the edge does)."""
    session = Session(peer="test", authenticated=True)
    read = core.read(session, orjson.dumps(message).decode(), late=False)
    assert read.reply is None
    return read, core.start(session, read, Ledger())


def test_a_batch_of_valid_and_invalid_members_is_answered_in_order_and_journals_its_rolls():
    core = protocol()
    rolled = attack(seed=42)
    batch = [
        request("a", "attack.resolve", rolled),
        5,
        {"jsonrpc": "2.0", "id": 2, "method": "attack.roll"},
        request(3, "attack.resolve", STUNNED),
        request(4, "journal.get", {"id": "never"}),
        request("a", "attack.resolve", rolled),  # the same id again: rolled once
        request(6, "initiative.roll", {**INITIATIVE, "seed": 9}),
        {"jsonrpc": "2.0", "id": 7, "method": "server.info", "params": [1]},
    ]
    read, turn = start(core, batch)
    assert read.heavy  # every batch goes to the bulk pool
    # What the edge must do before running it: claim the rolling ids, read those and the id journal.get names.
    assert turn.reply is None
    assert turn.claims == ['"a"', "3", "6"]
    assert turn.reads == ['"a"', "3", "6", '"never"']
    commit = turn.run({'"a"': None, "3": None, "6": None, '"never"': None})
    # The rules error (id 3) is not journaled: the id stays free.
    assert [(entry.id_key, entry.method) for entry in commit.entries] == [
        ('"a"', "attack.resolve"), ("6", "initiative.roll")]
    first, initiative = commit.entries
    assert first.params == canonical(rolled) and first.digest == digest("attack.resolve", canonical(rolled))
    assert orjson.loads(first.result) == fracas.resolve(rolled).to_dict()
    reply = turn.finish(list(commit.entries))
    assert reply.close is None
    resolved = fracas.resolve(rolled).to_dict()
    assert orjson.loads(reply.data) == [
        {"jsonrpc": "2.0", "id": "a", "result": resolved},
        at(None, -32600, "$", "expected a JSON-RPC request object, got a number"),
        {"jsonrpc": "2.0", "id": 2, "error": {
            "code": -32601, "message": f"method not found: 'attack.roll' (methods: {', '.join(METHODS)})",
            "data": {"method": "attack.roll"}}},
        at(3, -32001, "$.params.attacker.conditions", "a stunned attacker cannot attack (ER-14)"),
        at(4, -32006, "$.params.id", 'no journaled request has id "never"'),
        {"jsonrpc": "2.0", "id": "a", "result": resolved},
        {"jsonrpc": "2.0", "id": 6, "result": fracas.roll_initiative({**INITIATIVE, "seed": 9}).to_dict()},
        at(7, -32602, "$.params", "must be an object (by-name params), got an array"),
    ]
    assert orjson.loads(initiative.result) == orjson.loads(reply.data)[6]["result"]


def test_a_failed_journal_write_sends_no_rolled_result():
    core = protocol()
    _, turn = start(core, [request(1, "attack.resolve", attack(seed=1)), request(2, "journal.get", {"id": 9})])
    commit = turn.run({"1": None, "9": None})
    assert len(commit.entries) == 1
    assert orjson.loads(turn.finish(None).data) == [
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": (
            "the result could not be journaled, so it is not sent; nothing was applied, send the request again")}},
        at(2, -32006, "$.params.id", "no journaled request has id 9"),
    ]


class NoRolling:
    """An engine that must not roll: a journaled id is answered from the journal."""

    def __getattr__(self, name):
        return getattr(fracas, name)

    def resolve(self, request, **options):
        pytest.fail("the engine rolled for an id the journal holds")


def journaled(request_id, method, params, result):
    return Entry(id_key(request_id), method, digest(method, canonical(params)), canonical(params),
                 orjson.dumps(result), "compiled", "0.1.0", "2026-11-24T08:00:00.000+00:00")


def test_a_journaled_id_is_answered_with_its_journaled_result_byte_for_byte():
    core = protocol(engine=NoRolling())
    recorded = {"seed": 5, "total_damage": 12, "recorded": True}
    reordered = dict(reversed(list(ATTACK.items())))  # the same request: params compare canonically
    _, turn = start(core, request("r", "attack.resolve", reordered))
    assert turn.claims == turn.reads == ['"r"']
    commit = turn.run({'"r"': journaled("r", "attack.resolve", ATTACK, recorded)})
    assert commit.entries == ()  # nothing new to write
    reply = turn.finish([])
    assert reply.data == b'{"jsonrpc":"2.0","id":"r","result":' + orjson.dumps(recorded) + b"}"


def test_a_journaled_id_with_another_request_is_refused():
    core = protocol(engine=NoRolling())
    _, turn = start(core, request("r", "attack.resolve", attack(seed=6)))
    commit = turn.run({'"r"': journaled("r", "initiative.roll", INITIATIVE, {"seed": 1})})
    assert commit.entries == ()
    assert orjson.loads(turn.finish([]).data) == at(
        "r", -32005, "$.id", 'id "r" was already used for a different request'
                             " (initiative.roll, journaled 2026-11-24T08:00:00.000+00:00); use a new id")


def test_an_id_another_bridge_journaled_first_wins_at_the_commit():
    core = protocol()
    _, turn = start(core, request(8, "attack.resolve", attack(seed=8)))
    commit = turn.run({"8": None})
    other = journaled(8, "attack.resolve", {"other": True}, {"seed": 0})
    assert orjson.loads(turn.finish([other]).data) == at(
        8, -32005, "$.id", "id 8 was already used for a different request"
                           " (attack.resolve, journaled 2026-11-24T08:00:00.000+00:00); use a new id")
    assert commit.entries[0].id_key == "8"


def test_journal_replay_rolls_the_journaled_request_again_from_its_seed():
    core = protocol()
    params = attack(seed=11)
    recorded = fracas.resolve(params).to_dict()
    _, turn = start(core, request("p", "journal.replay", {"id": "x"}))
    assert turn.claims == [] and turn.reads == ['"x"']
    commit = turn.run({'"x"': journaled("x", "attack.resolve", params, recorded)})
    assert commit.entries == ()  # a replay is not journaled
    assert orjson.loads(turn.finish([]).data) == {"jsonrpc": "2.0", "id": "p", "result": {
        "id": "x", "method": "attack.resolve", "seed": 11, "matches": True, "differences": [],
        "recorded_backend": recorded["backend"], "replayed_backend": fracas.backend, "result": recorded}}


def test_a_journal_read_that_failed_fails_only_the_request_that_needs_it(caplog):
    core = protocol()
    _, turn = start(core, [request(1, "journal.get", {"id": 5}), request(2, "initiative.roll", INITIATIVE)])
    commit = turn.run({"5": OSError("disk I/O error"), "2": None})
    answers = orjson.loads(turn.finish(list(commit.entries)).data)
    assert answers[0] == {"jsonrpc": "2.0", "id": 1, "error": {
        "code": -32603, "message": "internal error in journal.get (see the bridge log)"}}
    assert "result" in answers[1]
    assert "OSError: disk I/O error" in caplog.text


# ── routing: which pool answers, weighed from the parsed message ───────────────


@pytest.mark.parametrize(("strikes", "heavy"), [(HEAVY_ROUND, False), (HEAVY_ROUND + 1, True)])
def test_an_encounter_round_is_heavy_past_heavy_round_strikes(strikes, heavy):
    core = protocol(Scenarios(crowd={"sides": {"horde": [{"count": strikes}]}}))
    read, _ = start(core, request(1, "encounter.round", {"name": "crowd"}))
    assert read.heavy is heavy


@pytest.mark.parametrize(("message", "heavy"), [
    (request(1, "attack.bulk", bulk(10)), True),
    (request(1, "attack.odds", ATTACK), True),
    (request(1, "journal.replay", {"id": 1}), True),
    ([request(1, "server.info")], True),
    (request(1, "attack.resolve", ATTACK), False),
    (request(1, "encounter.round", {"name": "nowhere"}), False),  # no such encounter: no work
    ({"jsonrpc": "2.0", "id": 1, "method": ["attack.bulk"]}, False),  # not a request: an error at once
])
def test_routing(message, heavy):
    read, _ = start(protocol(Scenarios()), message)
    assert read.heavy is heavy


@pytest.mark.parametrize("method", [["attack.bulk"], {"attack": "bulk"}])
def test_a_method_that_is_not_a_string_is_an_invalid_request(method):
    """It was weighed with a set lookup (unhashable: -32603, "internal error in the bridge")."""
    read, turn = start(protocol(), {"jsonrpc": "2.0", "id": 1, "method": method})
    assert not read.heavy
    assert turn.claims == turn.reads == []
    turn.run({})
    kind = "an array" if isinstance(method, list) else "an object"
    assert orjson.loads(turn.finish([]).data) == at(1, -32600, "$.method", f"must be a string, got {kind}")


def test_a_heavy_bulk_request_is_budgeted_rolled_and_journaled():
    core = protocol()
    params = bulk(1000)
    read, turn = start(core, request("mob", "attack.bulk", params))
    assert read.heavy
    commit = turn.run({'"mob"': None})
    assert [entry.id_key for entry in commit.entries] == ['"mob"']
    reply = turn.finish(list(commit.entries))
    assert orjson.loads(reply.data) == {"jsonrpc": "2.0", "id": "mob", "result": fracas.resolve_bulk(params).to_dict()}
    assert core.server_attacks.used == 1000  # held until the edge releases the message's ledger


def test_before_authentication_the_protocol_answers_and_closes():
    core = protocol()
    session = Session()
    read = core.read(session, orjson.dumps(request(1, "server.info")).decode(), late=False)
    assert orjson.loads(read.reply.data) == at(
        1, -32004, "$.method", "not authenticated: the first message must be auth, not server.info")
    assert read.reply.close == (1008, "authentication required")
    read = core.read(session, orjson.dumps(request(2, "auth", {"token": TOKEN})).decode(), late=False)
    assert orjson.loads(read.reply.data) == {"jsonrpc": "2.0", "id": 2, "result": {"authenticated": True}}
    assert read.reply.close is None and session.authenticated


def test_a_late_message_is_answered_at_once_without_the_journal():
    core = protocol()
    session = Session(authenticated=True)
    read = core.read(session, orjson.dumps([request(1, "attack.resolve", ATTACK), 5]).decode(), late=True)
    turn = core.start(session, read, Ledger())
    assert orjson.loads(turn.reply.data) == [
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32010, "message": (
            "the bridge is shutting down; nothing was done, send the request again once it is back")}},
        at(None, -32600, "$", "expected a JSON-RPC request object, got a number"),
    ]
