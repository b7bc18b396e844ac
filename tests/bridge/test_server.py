"""A real bridge on 127.0.0.1 port 0, and a real websockets client."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading

import orjson
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, ConnectionClosedError, InvalidStatus

import fracas

from .helpers import ATTACK, INITIATIVE, TOKEN, ask, attack, bulk, client, request, run, serving


def journal_count(path) -> int:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM entries").fetchone()[0]


def refusal(excinfo) -> tuple[int, str]:
    response = excinfo.value.response
    return response.status_code, bytes(response.body).decode()


def test_each_method_over_the_wire(tmp_path):
    async def scenario():
        async with serving(tmp_path) as bridge, client(bridge.url) as ws:
            info = await ask(ws, request(1, "server.info"))
            assert info["result"]["backend"] == fracas.backend
            assert info["result"]["limits"] == bridge.limits.to_dict()

            resolved = await ask(ws, request(2, "attack.resolve", attack(seed=42)))
            assert resolved["result"] == fracas.resolve(attack(seed=42)).to_dict()

            mob = await ask(ws, request(3, "attack.bulk", bulk(1000)))
            assert mob["result"] == fracas.resolve_bulk(bulk(1000)).to_dict()

            order = await ask(ws, request(4, "initiative.roll", INITIATIVE))
            seed = order["result"]["seed"]
            assert order["result"] == fracas.roll_initiative(INITIATIVE, seed=seed).to_dict()

            entry = await ask(ws, request(5, "journal.get", {"id": 3}))
            assert entry["result"]["result"] == mob["result"]

            replay = await ask(ws, request(6, "journal.replay", {"id": 4}))
            assert replay["result"]["matches"] is True

            batch = await ask(ws, [request(7, "server.info"), request(8, "attack.resolve", ATTACK), 0])
            assert [reply["id"] for reply in batch] == [7, 8, None]
            assert "result" in batch[1] and batch[2]["error"]["code"] == -32600

            await ws.send(b'{"jsonrpc": "2.0", "id": 9, "method": "server.info"}')
            binary = orjson.loads(await ws.recv())
            assert binary["error"]["message"].startswith("binary frames are not accepted")
            assert "result" in await ask(ws, request(10, "server.info"))  # still connected

    run(scenario())


@pytest.mark.parametrize(("options", "status", "reason"), [
    ({"origin": "https://evil.example"}, 403,
     "Origin 'https://evil.example' is not allowed (allowed: chrome-extension://gkdobbfmdgnlmmlkeoifkomnimlgpnaa,"
     " http://127.0.0.1:30000, http://localhost:30000, https://app.roll20.net; add one with --allow-origin)"),
    ({"origin": "chrome-extension://someotherextensionid"}, 403, "is not allowed"),
    ({"origin": "null"}, 403, "Origin 'null' is not allowed"),
    ({"origin": "https://app.roll20.net.evil.example"}, 403, "is not allowed"),
    ({"origin": "http://localhost:30001"}, 403, "is not allowed"),
    ({}, 403, "missing Origin header: browsers always send one; to accept other programs,"
              " start the bridge with --allow-no-origin"),
], ids=["other-site", "other-extension", "null", "suffix", "other-port", "missing"])
def test_origin_refusals(tmp_path, options, status, reason):
    async def scenario():
        async with serving(tmp_path, allow_no_origin=False) as bridge:
            with pytest.raises(InvalidStatus) as excinfo:
                async with connect(bridge.url, **options):
                    pass
            code, body = refusal(excinfo)
            assert code == status and reason in body

    run(scenario())


@pytest.mark.parametrize("host", ["evil.example:{port}", "localhost:1", "127.0.0.2:{port}",
                                  "localhost", "attacker.example"])
def test_host_refusals_against_dns_rebinding(tmp_path, host):
    async def scenario():
        async with serving(tmp_path) as bridge:
            header = host.format(port=bridge.port)
            with pytest.raises(InvalidStatus) as excinfo:
                async with connect(f"ws://{header}/", host="127.0.0.1", port=bridge.port):
                    pass
            code, body = refusal(excinfo)
            assert code == 403
            assert body.startswith(f"Host header '{header}' is not allowed (allowed: 127.0.0.1:{bridge.port},")
            assert body.rstrip().endswith("add one with --allow-host)")

    run(scenario())


@pytest.mark.parametrize(("host", "origin"), [
    ("localhost", "https://app.roll20.net"),
    ("127.0.0.1", "http://localhost:30000"),
    ("[::1]", "http://127.0.0.1:30000"),
    ("LOCALHOST", "HTTPS://App.Roll20.net"),
    ("127.0.0.1", "https://foundry.example.com:8443"),
])
def test_allowed_hosts_and_origins(tmp_path, host, origin):
    async def scenario():
        async with serving(tmp_path, allow_no_origin=False,
                           origins=("https://foundry.example.com:8443/",)) as bridge:
            url = f"ws://{host}:{bridge.port}/"
            async with client(url, origin=origin, host="127.0.0.1", port=bridge.port) as ws:
                assert "result" in await ask(ws, request(1, "server.info"))

    run(scenario())


def test_extra_allowed_host(tmp_path):
    async def scenario():
        async with serving(tmp_path, hosts=("gm-laptop.lan:9999",)) as bridge:
            async with client("ws://gm-laptop.lan:9999/", host="127.0.0.1", port=bridge.port) as ws:
                assert "result" in await ask(ws, request(1, "server.info"))

    run(scenario())


def test_no_default_origins(tmp_path):
    async def scenario():
        async with serving(tmp_path, default_origins=False, origins=("http://localhost:30000",)) as bridge:
            with pytest.raises(InvalidStatus):
                async with connect(bridge.url, origin="https://app.roll20.net"):
                    pass
            async with client(bridge.url, origin="http://localhost:30000"):
                pass

    run(scenario())


def test_wrong_token_is_answered_then_closed(tmp_path):
    async def scenario():
        async with serving(tmp_path) as bridge, connect(bridge.url) as ws:
            reply = await ask(ws, request(1, "auth", {"token": "guess"}))
            assert reply["error"] == {"code": -32004, "message": "authentication failed: wrong token"}
            with pytest.raises(ConnectionClosedError) as excinfo:
                await ws.recv()
            assert (excinfo.value.rcvd.code, excinfo.value.rcvd.reason) == (1008, "authentication failed")

    run(scenario())


def test_request_before_auth_is_answered_then_closed(tmp_path):
    async def scenario():
        async with serving(tmp_path) as bridge, connect(bridge.url) as ws:
            reply = await ask(ws, request(1, "attack.resolve", ATTACK))
            assert reply["error"]["code"] == -32004
            with pytest.raises(ConnectionClosedError) as excinfo:
                await ws.recv()
            assert excinfo.value.rcvd.code == 1008
            assert journal_count(bridge.journal_path) == 0

    run(scenario())


def test_failed_authentications_never_refuse_the_right_token(tmp_path, caplog):
    """Finding 4: wrong tokens from any 127.x.y.z address only make the log warn (counted
    across all of loopback); the GM's correct token is accepted at once, every time."""
    caplog.set_level(logging.WARNING, logger="fracas.bridge")

    async def scenario():
        async with serving(tmp_path, limits={"auth_failures": 2}) as bridge:
            for n in range(12):
                source = (f"127.0.{n}.{n + 2}", 0)
                async with connect(bridge.url, local_addr=source) as ws:
                    reply = await ask(ws, request(1, "auth", {"token": "guess"}))
                    assert reply["error"]["code"] == -32004
            async with client(bridge.url) as ws:  # no 429, no Retry-After: straight in
                assert "result" in await ask(ws, request(2, "server.info"))

    run(scenario())
    guessing = [r.getMessage() for r in caplog.records if "guessing the token" in r.getMessage()]
    assert guessing and all("from loopback" in line for line in guessing)


def test_silent_client_is_closed_after_the_auth_timeout(tmp_path):
    async def scenario():
        async with serving(tmp_path, limits={"auth_timeout": 0.2}) as bridge, connect(bridge.url) as ws:
            with pytest.raises(ConnectionClosed) as excinfo:
                await ws.recv()
            assert excinfo.value.rcvd.code == 1008
            assert excinfo.value.rcvd.reason == "authentication timeout: send auth first"

    run(scenario())


def test_oversized_message_closes_with_1009(tmp_path):
    async def scenario():
        async with serving(tmp_path, limits={"max_message_bytes": 4096}) as bridge:
            async with client(bridge.url) as ws:
                big = request(1, "attack.resolve", attack(strikes=ATTACK["strikes"] * 60))
                assert len(orjson.dumps(big)) > 4096
                await ws.send(orjson.dumps(big).decode())
                with pytest.raises(ConnectionClosedError) as excinfo:
                    await ws.recv()
                assert excinfo.value.rcvd.code == 1009
            # Other clients are unaffected.
            async with client(bridge.url) as ws:
                assert "result" in await ask(ws, request(2, "server.info"))

    run(scenario())


def test_compression_is_off(tmp_path):
    async def scenario():
        async with serving(tmp_path) as bridge, client(bridge.url, compression="deflate") as ws:
            assert ws.protocol.extensions == []

    run(scenario())


def test_too_many_connections(tmp_path):
    async def scenario():
        async with serving(tmp_path, limits={"max_connections": 2}) as bridge:
            async with client(bridge.url), client(bridge.url):
                async with connect(bridge.url) as ws:
                    reply = await ask(ws, request("a", "auth", {"token": TOKEN}))
                    assert reply["error"]["code"] == -32003
                    assert reply["error"]["data"] == {"limit": 2, "limit_name": "max_connections"}
                    with pytest.raises(ConnectionClosed) as excinfo:
                        await ws.recv()
                    assert (excinfo.value.rcvd.code, excinfo.value.rcvd.reason) == (
                        1013, "too many connections (limit 2)")
            # Closing one frees its place.
            async with client(bridge.url), client(bridge.url) as ws:
                assert "result" in await ask(ws, request(2, "server.info"))

    run(scenario())


def test_reconnect_and_resend_gets_the_journaled_result(tmp_path):
    """A client loses its connection before the reply: resending rolls nothing new."""
    message = request("turn-3/goblin", "attack.resolve", ATTACK)  # no seed: a fresh roll

    async def scenario():
        async with serving(tmp_path) as bridge:
            async with client(bridge.url) as ws:
                await ws.send(orjson.dumps(message).decode())
            # Connection gone; the reply may or may not have been produced yet.
            async with client(bridge.url) as ws:
                first = await ask(ws, message)
            async with client(bridge.url) as ws:
                again = await ask(ws, message)
                entry = await ask(ws, request("look", "journal.get", {"id": "turn-3/goblin"}))
            assert again == first
            assert entry["result"]["result"] == first["result"]
            assert journal_count(bridge.journal_path) == 1

    run(scenario())


def test_simultaneous_resends_roll_once(tmp_path):
    message = request(99, "attack.bulk", bulk(20_000, seed=None))

    async def scenario():
        async with serving(tmp_path) as bridge:
            async with client(bridge.url) as one, client(bridge.url) as two, client(bridge.url) as three:
                replies = await asyncio.gather(ask(one, message), ask(two, message), ask(three, message))
            assert replies[0] == replies[1] == replies[2]
            assert journal_count(bridge.journal_path) == 1

    run(scenario())


def test_the_token_never_appears_in_logs(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)

    async def scenario():
        async with serving(tmp_path) as bridge:
            async with client(bridge.url) as ws:
                await ask(ws, request(1, "attack.resolve", ATTACK))
            async with connect(bridge.url) as ws:
                await ask(ws, request(1, "auth", {"token": "a-wrong-guess-token"}))
            async with serving(tmp_path / "2", limits={"auth_failures": 1}) as other:
                async with connect(other.url) as ws:
                    await ask(ws, request(1, "auth", {"token": TOKEN + "x"}))

    run(scenario())
    bridge_records = [record for record in caplog.records if record.name.startswith("fracas")]
    text = "\n".join(record.getMessage() for record in bridge_records)
    assert "failed to authenticate" in text  # the log does speak of auth...
    assert TOKEN not in text and "a-wrong-guess-token" not in text  # ...never of tokens


class GatedEngine:
    """The real engine, except attack.bulk waits at a gate the test opens."""

    def __init__(self):
        self.entered = threading.Event()
        self.release = threading.Event()

    def __getattr__(self, name):
        return getattr(fracas, name)

    def resolve_bulk(self, request, **options):
        self.entered.set()
        if not self.release.wait(timeout=60):
            raise AssertionError("the test never opened the gate")
        return fracas.resolve_bulk(request, **options)


def test_graceful_shutdown_finishes_and_journals_in_flight_requests(tmp_path):
    engine = GatedEngine()

    async def scenario():
        async with serving(tmp_path, engine=engine) as bridge:
            async with client(bridge.url) as busy, client(bridge.url) as late:
                await busy.send(orjson.dumps(request("in-flight", "attack.bulk", bulk(5000))).decode())
                await asyncio.to_thread(engine.entered.wait)
                closing = asyncio.create_task(bridge.close())
                while not bridge._draining:
                    await asyncio.sleep(0)
                # New work is refused, with nothing done; new connections too.
                refused = await ask(late, request("late", "attack.resolve", ATTACK))
                assert refused["error"]["code"] == -32010
                with pytest.raises(InvalidStatus) as excinfo:
                    async with connect(bridge.url):
                        pass
                assert refusal(excinfo) == (503, "the bridge is shutting down\n")
                # The request being worked on finishes, is journaled and answered...
                engine.release.set()
                reply = orjson.loads(await busy.recv())
                assert reply["id"] == "in-flight"
                assert reply["result"] == fracas.resolve_bulk(bulk(5000)).to_dict()
                # ...then the connection closes with "going away".
                with pytest.raises(ConnectionClosed) as excinfo:
                    await busy.recv()
                assert excinfo.value.rcvd.code == 1001
                await closing
        assert journal_count(tmp_path / "journal.sqlite3") == 1

    run(scenario())


def test_a_journal_entry_replays_with_the_cli(tmp_path):
    """`journal.get` gives what `fracas replay` reads: the roll is checkable offline."""
    from click.testing import CliRunner

    from fracas.cli import main

    async def scenario():
        async with serving(tmp_path) as bridge, client(bridge.url) as ws:
            await ask(ws, request("mob", "attack.bulk", bulk(3000, seed=None)))
            return (await ask(ws, request("get", "journal.get", {"id": "mob"})))["result"]

    entry = run(scenario())
    record = tmp_path / "entry.json"
    record.write_bytes(orjson.dumps(entry))
    result = CliRunner().invoke(main, ["replay", str(record), "--json"])
    assert result.exit_code == 0, result.output
    assert f"Replay matches the recorded result (seed {entry['result']['seed']})." in result.output
