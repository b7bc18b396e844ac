"""Work is weighed from the parsed request, before it runs, and routed and budgeted by that
(issue 31, items 2 and 5): an escaped method name is the method it spells, an encounter
round is weighed from its combatants and their attacks, and a request pipelined behind
the auth request is read under the limits of an authenticated connection."""

from __future__ import annotations

import copy
import json
import threading
from pathlib import Path

import orjson
import pytest

import fracas
from fracas.bridge.dispatcher import HEAVY_ROUND, Dispatcher, Session
from fracas.bridge.journal import Journal
from fracas.bridge.limits import Limits
from fracas.drive.encounter import Encounter
from fracas.drive.scenario import round_work

from . import rawws
from .helpers import ATTACK, TOKEN, bulk, client, heavy_attack, request, run, serving

SCENARIOS = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
SMALL = json.loads((SCENARIOS / "os-goblin-ambush.json").read_text())


def horde(skeletons: int) -> dict:
    """The crypt-stair scenario with ``skeletons`` skeletons (one strike each)."""
    scenario = copy.deepcopy(json.loads((SCENARIOS / "er-skeleton-horde.json").read_text()))
    scenario["sides"]["skeletons"][0]["count"] = skeletons
    return scenario


def escaped(method: str) -> str:
    """The method name with its dot written as a JSON escape: the same string once parsed."""
    return method.replace(".", "\\u002e")


def raw(request_id, method_text: str, params) -> str:
    return '{"jsonrpc": "2.0", "id": %s, "method": "%s", "params": %s}' % (
        orjson.dumps(request_id).decode(), method_text, orjson.dumps(params).decode())


def test_round_work_counts_members_and_strikes():
    assert round_work(horde(400)) == (405, 406)  # 4 adventurers and a spell, 400 skeletons and their captain
    assert round_work({"sides": {"a": [{"count": True}, "x"]}}) == (2, 2)  # malformed: one each, no error


@pytest.fixture
def weigher():
    journal = Journal(":memory:")
    dispatcher = Dispatcher(token=TOKEN, journal=journal, limits=Limits(max_message_attacks=300))
    session = Session()
    dispatcher.handle(session, orjson.dumps(request(0, "auth", {"token": TOKEN})).decode())
    assert session.authenticated
    yield dispatcher, session
    journal.close()


def test_methods_are_weighed_from_the_parsed_envelope(weigher):
    """`_is_heavy` was a substring test on the raw text: "attack\\u002ebulk" ran as light work."""
    dispatcher, session = weigher
    for method in ("attack.bulk", "attack.odds", "journal.replay"):
        for text in (method, escaped(method)):
            assert dispatcher.read(session, raw(1, text, {})).heavy, text
    # The names written inside params do not make a single attack heavy.
    target = dict(ATTACK, targets={"attack.bulk": {"ac": 14}})
    target["strikes"] = [dict(ATTACK["strikes"][0], target="attack.bulk")]
    assert not dispatcher.read(session, raw(2, "attack.resolve", target)).heavy
    assert dispatcher.read(session, "[" + raw(3, "server.info", {}) + "]").heavy  # a batch


def test_an_encounter_round_is_weighed_and_budgeted_by_its_combatants(weigher):
    dispatcher, session = weigher
    Encounter.new("crowd", horde(400), store=dispatcher._encounters())
    Encounter.new("few", SMALL, store=dispatcher._encounters())
    assert round_work(SMALL)[1] <= HEAVY_ROUND < round_work(horde(400))[1]
    assert dispatcher.read(session, raw(1, escaped("encounter.round"), {"name": "crowd"})).heavy
    assert not dispatcher.read(session, raw(2, "encounter.round", {"name": "few"})).heavy
    # Budgeted by the same count: 406 strikes are more than this bridge's 300 per message.
    reply = orjson.loads(dispatcher.handle(session, raw(3, "encounter.round", {"name": "crowd"})).data)
    assert reply["error"]["code"] == -32003 and reply["error"]["data"]["limit_name"] == "max_message_attacks"
    assert "406 attacks" in reply["error"]["message"]
    assert "result" in orjson.loads(dispatcher.handle(session, raw(4, "encounter.round", {"name": "few"})).data)


class RecordingEngine:
    """The real engine; notes which thread ran bulk work and encounter rounds."""

    def __init__(self):
        self.threads: dict[str, str] = {}
        engine = self

        class RecordingEncounter(Encounter):
            def round(self, *args, **kwargs):
                engine.threads[self.name] = threading.current_thread().name
                return super().round(*args, **kwargs)

        self.Encounter = RecordingEncounter

    def __getattr__(self, name):
        return getattr(fracas, name)

    def resolve_bulk(self, request, **options):
        self.threads["bulk"] = threading.current_thread().name
        return fracas.resolve_bulk(request, **options)


def test_heavy_work_runs_on_the_bulk_pool_however_it_is_spelled(tmp_path):
    """Eight escaped bulk requests ran on the single-request pool and held up the GM's attack 33 s."""
    engine = RecordingEngine()

    async def scenario():
        async with serving(tmp_path, engine=engine) as bridge:
            async with client(bridge.url) as ws:
                for request_id, method, params in (
                        (1, escaped("attack.bulk"), bulk(1000)),
                        (2, "encounter.new", {"name": "crowd", "scenario": horde(400)}),
                        (3, "encounter.new", {"name": "few", "scenario": SMALL}),
                        (4, escaped("encounter.round"), {"name": "crowd", "seed": 1}),
                        (5, "encounter.round", {"name": "few", "seed": 1})):
                    await ws.send(raw(request_id, method, params))
                    assert "result" in orjson.loads(await ws.recv()), request_id

    run(scenario())
    # Pool threads are named fracas-bridge_N (bulk) and fracas-bridge-fast_N (single).
    assert engine.threads["bulk"].startswith("fracas-bridge_")
    assert engine.threads["crowd"].startswith("fracas-bridge_")
    assert engine.threads["few"].startswith("fracas-bridge-fast_")


def test_a_request_pipelined_behind_auth_is_read_under_the_authenticated_limits(tmp_path):
    """An auth frame and a >4 KiB request in one TCP write: the request was parsed under the
    4 KiB pre-auth limit and the connection closed 1009 before the auth reply."""
    big = orjson.dumps(request("big", "attack.resolve", heavy_attack(64)))
    assert len(big) > Limits().max_auth_message_bytes

    async def scenario():
        async with serving(tmp_path) as bridge:
            sock = rawws.open_socket(bridge.port)
            try:
                await _in_thread(rawws.handshake, sock, bridge.port)
                auth = rawws.text_frame(orjson.dumps(request("auth", "auth", {"token": TOKEN})))
                sock.sendall(auth + rawws.text_frame(big))  # one write
                replies = [orjson.loads((await _in_thread(rawws.recv_frame, sock))[1]) for _ in range(2)]
            finally:
                sock.close()
            assert replies[0] == {"jsonrpc": "2.0", "id": "auth", "result": {"authenticated": True}}
            assert replies[1]["id"] == "big" and len(replies[1]["result"]["strikes"]) == 64

    run(scenario())


def test_a_request_pipelined_behind_a_wrong_token_is_never_answered(tmp_path):
    big = orjson.dumps(request("big", "attack.resolve", heavy_attack(64)))

    async def scenario():
        async with serving(tmp_path) as bridge:
            sock = rawws.open_socket(bridge.port)
            try:
                await _in_thread(rawws.handshake, sock, bridge.port)
                wrong = rawws.text_frame(orjson.dumps(request("auth", "auth", {"token": "not-" + TOKEN})))
                sock.sendall(wrong + rawws.text_frame(big))
                opcode, payload = await _in_thread(rawws.recv_frame, sock)
                assert opcode == 1 and orjson.loads(payload)["error"]["code"] == -32004
                opcode, payload = await _in_thread(rawws.recv_frame, sock)
                assert opcode == 8 and int.from_bytes(payload[:2], "big") == 1008  # closed, big unanswered
            finally:
                sock.close()

    run(scenario())


async def _in_thread(function, *args):
    import asyncio

    return await asyncio.to_thread(function, *args)
