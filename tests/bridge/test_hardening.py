"""The outside probe's findings (issue: bridge hardening), each reproduced from a real
client and now holding. Memory bounds come from the server process's peak RSS, with
generous margins (the probe saw 2.3 GB, 5-9 GB and 1.1 GB); nothing here is timed."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import signal
import threading
import time
from urllib.parse import urlsplit

import orjson
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as connect_sync

import fracas
from fracas.bridge.dispatcher import Dispatcher, Session
from fracas.bridge.limits import Limits, parse_limits
from fracas.bridge.server import _Quiet

from . import rawws
from .helpers import ATTACK, TOKEN, ask, bulk, client, request, run, serving, start_server


def port_of(url: str) -> int:
    return urlsplit(url).port


@contextlib.contextmanager
def sync_client(url: str):
    with connect_sync(url, max_size=None, compression=None, open_timeout=30) as ws:
        ws.send(orjson.dumps(request("auth", "auth", {"token": TOKEN})).decode())
        assert "result" in orjson.loads(ws.recv())
        yield ws


def call(ws, message):
    ws.send(orjson.dumps(message).decode())
    return orjson.loads(ws.recv(timeout=120))


def wait_until(condition, what: str, timeout: float = 60.0) -> None:
    """Poll (not a speed assertion: the deadline only keeps a broken test from hanging)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"never happened: {what}")
        time.sleep(0.05)


def in_flight(url: str) -> dict:
    with sync_client(url) as ws:
        reply = call(ws, request("info", "server.info"))
        assert "result" in reply, reply
        return reply["result"]["in_flight"]


def error_of(reply) -> dict:
    assert "error" in reply, reply
    return reply["error"]


# ── 1. reply amplification ─────────────────────────────────────────────────


def test_a_small_batch_cannot_ask_for_a_huge_reply(tmp_path):
    """35 KB of attack.bulk with detail "dice" once made a 564 MB reply and 2.3 GB of memory."""
    server = start_server(tmp_path / "j.sqlite3")
    batch = [request(f"mob-{i}", "attack.bulk", bulk(10_000, detail="dice")) for i in range(100)]
    assert len(orjson.dumps(batch)) < 40_000
    with sync_client(server.url) as ws:
        ws.send(orjson.dumps(batch).decode())
        raw = ws.recv(timeout=300)
        replies = orjson.loads(raw)
        answered = [reply for reply in replies if "result" in reply]
        refused = [error_of(reply) for reply in replies if "error" in reply]
        # At most 20,000 strike rows and 16 MiB per message; refused before any die is rolled.
        assert 1 <= len(answered) <= 2 and len(answered) + len(refused) == 100
        assert {error["code"] for error in refused} == {-32003}
        assert {error["data"]["limit_name"] for error in refused} <= {"max_detail_rows", "max_reply_bytes"}
        assert refused[-1]["message"].startswith("$.params.detail: this message would need")
        assert len(raw) <= Limits().max_reply_bytes
        # Refused requests rolled nothing: not in the journal.
        assert error_of(call(ws, request("g", "journal.get", {"id": "mob-2"})))["code"] == -32006
    assert rawws.peak_rss_mb(server.process.pid) < 600
    assert server.terminate()[0] == 0


def test_a_batch_of_journal_gets_is_bounded(tmp_path):
    """A batch of journal.get of one big entry once took the bridge to 5-9 GB."""
    server = start_server(tmp_path / "j.sqlite3")
    with sync_client(server.url) as ws:
        big = call(ws, request("big", "attack.bulk", bulk(10_000, detail="dice")))
        size = len(orjson.dumps(big["result"]))
        assert size > 3_000_000
        ws.send(orjson.dumps([request(i, "journal.get", {"id": "big"}) for i in range(1000)]).decode())
        raw = ws.recv(timeout=300)
        replies = orjson.loads(raw)
        answered = sum("result" in reply for reply in replies)
        assert 1 <= answered <= Limits().max_reply_bytes // size
        limits = {error_of(reply)["data"]["limit_name"] for reply in replies if "error" in reply}
        assert limits == {"max_reply_bytes"}
        assert len(raw) <= Limits().max_reply_bytes + 1000 * 300
    assert rawws.peak_rss_mb(server.process.pid) < 600
    assert server.terminate()[0] == 0


def test_a_result_past_the_reply_limit_is_journaled_and_refused(journal):
    """An estimate that falls short (here an engine whose answer is padded): the answer is
    measured, refused with -32003, and kept in the journal (nothing lost)."""

    class Padded:
        def __init__(self, result):
            self.result = result

        def to_dict(self):
            return {**self.result.to_dict(), "padding": "x" * 400_000}

    class PaddingEngine:
        def __getattr__(self, name):
            return getattr(fracas, name)

        def resolve(self, request, **options):
            return Padded(fracas.resolve(request, **options))

    dispatcher = Dispatcher(token=TOKEN, journal=journal, limits=Limits(max_reply_bytes=300_000),
                            engine=PaddingEngine())
    session = Session(peer="t")
    dispatcher.handle(session, orjson.dumps(request(0, "auth", {"token": TOKEN})).decode())
    reply = orjson.loads(dispatcher.handle(session, orjson.dumps(request("m", "attack.resolve", ATTACK)).decode()).data)
    error = error_of(reply)
    assert error["data"]["limit_name"] == "max_reply_bytes"
    assert 'it was rolled and is journaled under id "m"' in error["message"]
    assert "fracas journal show" in error["message"]
    assert journal.lookup('"m"') is not None
    assert dispatcher.protocol.server_reply_bytes.used == 0 and session.reply_bytes.used == 0


# ── 2. work per message, per connection, per server ─────────────────────────


class HeldEngine:
    """The real engine, except attack.bulk waits at a gate: work stays "in flight"."""

    def __init__(self):
        self.entered = threading.Semaphore(0)
        self.gate = threading.Event()

    def __getattr__(self, name):
        return getattr(fracas, name)

    def resolve_bulk(self, request, **options):
        self.entered.release()
        self.gate.wait(timeout=60)
        return fracas.resolve_bulk(request, **options)


def test_a_batch_of_bulk_requests_gets_only_its_budget_from_outside(tmp_path):
    """A 1 MiB batch of bulk requests was hours of CPU: now the message's budget is
    checked request by request before each starts, and the rest are refused at once."""
    server = start_server(tmp_path / "j.sqlite3", "--limit", "max_message_attacks=200000")
    batch = [request(i, "attack.bulk", bulk(100_000)) for i in range(1000)]
    with sync_client(server.url) as ws:
        replies = call(ws, batch)
        assert [("result" in reply) for reply in replies[:3]] == [True, True, False]
        refused = [error_of(reply) for reply in replies[2:]]
        assert {(error["code"], error["data"]["limit_name"]) for error in refused} == {
            (-32003, "max_message_attacks")}
        assert in_flight(server.url)["attacks"] == 0
    assert server.terminate()[0] == 0


@pytest.fixture
def small(journal):
    # Bulk requests of 900 attacks are large here (past max_light_attacks): the bridge-wide
    # budget refuses them; a small request is refused only by its own connection's.
    limits = Limits(max_message_attacks=1000, max_connection_attacks=1500, max_server_attacks=2500,
                    max_light_attacks=100)
    engine = HeldEngine()
    dispatcher = Dispatcher(token=TOKEN, journal=journal, limits=limits, engine=engine)
    dispatcher.engine = engine
    engine.gate.set()

    def session():
        new = Session(peer="t")
        dispatcher.handle(new, orjson.dumps(request(0, "auth", {"token": TOKEN})).decode())
        return new

    def send(who, message, hold=False):
        reply = dispatcher.handle(who, orjson.dumps(message).decode(), hold=hold)
        return orjson.loads(reply.data), reply

    return dispatcher, session, send


def test_one_message_cannot_ask_for_more_work_than_its_budget(small):
    """A 1 MiB batch of bulk requests was hours of CPU; now each message has a budget."""
    _, session, send = small
    replies, _ = send(session(), [request(i, "attack.bulk", bulk(600)) for i in range(5)])
    assert "result" in replies[0]
    for reply in replies[1:]:
        error = error_of(reply)
        assert error["data"] == {"path": "$.params.attacks", "limit": 1000, "limit_name": "max_message_attacks",
                                 "reason": error["data"]["reason"]}
        assert "this message would need 1,200 attacks" in error["message"]


def test_work_in_flight_is_bounded_per_connection_and_per_server(small):
    """Attacks being rolled at once: per connection and for the whole bridge."""
    dispatcher, session, send = small
    engine = dispatcher.engine
    engine.gate.clear()
    gm, other = session(), session()
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        first = pool.submit(send, gm, request(1, "attack.bulk", bulk(900)))
        engine.entered.acquire()
        refused, _ = send(gm, request(2, "attack.bulk", bulk(900)))
        assert error_of(refused)["data"]["limit_name"] == "max_connection_attacks"
        assert "this connection already has 900 attacks in flight" in error_of(refused)["message"]
        second = pool.submit(send, other, request(3, "attack.bulk", bulk(900)))
        engine.entered.acquire()
        third, _ = send(session(), request(4, "attack.bulk", bulk(900)))
        assert error_of(third)["data"]["limit_name"] == "max_server_attacks"
        assert dispatcher.protocol.server_attacks.used == 1800
        engine.gate.set()
        assert "result" in first.result()[0] and "result" in second.result()[0]
    # Once rolled, the attacks are free again.
    assert dispatcher.protocol.server_attacks.used == 0 and gm.attacks.used == 0
    assert "result" in send(gm, request(5, "attack.bulk", bulk(900)))[0]


def test_work_stops_when_its_client_leaves(tmp_path):
    huge = 2 * 10**9 if fracas.backend == "compiled" else 2 * 10**7
    limits = {"max_bulk_attacks": huge, "max_message_attacks": huge, "max_connection_attacks": huge,
              "max_server_attacks": huge}

    async def scenario():
        async with serving(tmp_path, limits=limits) as bridge:
            async with client(bridge.url) as watcher:
                async with client(bridge.url) as leaver:
                    await leaver.send(orjson.dumps(request("gone", "attack.bulk", bulk(huge))).decode())
                    while (await ask(watcher, request("i", "server.info")))["result"]["in_flight"]["attacks"] < huge:
                        await asyncio.sleep(0.02)
                # The leaver closed: its work is cancelled at the next chunk, nothing journaled.
                while (await ask(watcher, request("i", "server.info")))["result"]["in_flight"]["attacks"]:
                    await asyncio.sleep(0.02)
                reply = await ask(watcher, request("g", "journal.get", {"id": "gone"}))
                assert reply["error"]["code"] == -32006

    run(scenario(), timeout=120)


def test_sigterm_answers_what_finished_cancels_the_rest_and_exits(tmp_path):
    """The bridge once kept rolling past SIGTERM for more than 20 s."""
    huge = 2 * 10**9 if fracas.backend == "compiled" else 2 * 10**7
    server = start_server(tmp_path / "j.sqlite3", "--limit", "shutdown_grace=0.5",
                          *[f"--limit={name}={huge}" for name in
                            ("max_bulk_attacks", "max_message_attacks", "max_connection_attacks",
                             "max_server_attacks")])
    with sync_client(server.url) as ws:
        assert "result" in call(ws, request("done", "attack.resolve", ATTACK))
        ws.send(orjson.dumps(request("long", "attack.bulk", bulk(huge))).decode())
        wait_until(lambda: in_flight(server.url)["attacks"] == huge, "the long request started")
        server.process.send_signal(signal.SIGTERM)
        reply = orjson.loads(ws.recv(timeout=60))
    assert reply["id"] == "long" and reply["error"]["code"] == -32010
    assert reply["error"]["message"].startswith("cancelled: the bridge is shutting down")
    server.process.communicate(timeout=60)
    assert server.process.returncode == 0
    from fracas.bridge.journal import Journal

    journal = Journal(server.journal)
    try:
        assert journal.lookup('"done"') is not None and journal.lookup('"long"') is None
    finally:
        journal.close()


# ── 3. clients that never read ──────────────────────────────────────────────


def test_clients_that_never_read_are_dropped_and_freed(tmp_path):
    """Sixteen never-reading clients once held 1.1 GB and blocked shutdown."""
    server = start_server(tmp_path / "j.sqlite3", "--limit", "send_timeout=1")
    port = port_of(server.url)
    readers_not = []
    for n in range(16):
        sock = rawws.authenticated(port, receive_buffer=4096)
        for i in range(4):
            rawws.send_text(sock, orjson.dumps(request(f"{n}-{i}", "attack.bulk", bulk(10_000, detail="dice"))))
        readers_not.append(sock)
    # Each is dropped after send_timeout; what it held (replies of ~5 MB) is freed.
    wait_until(lambda: in_flight(server.url) == {"attacks": 0, "reply_bytes": 0}, "every reply freed",
               timeout=240)
    for sock in readers_not:
        sock.settimeout(10)
        with pytest.raises(OSError):  # reset by the bridge: sending (or reading on) fails
            for _ in range(200):
                sock.sendall(b"\x81\x80abcd")
                time.sleep(0.01)
        sock.close()
    assert rawws.peak_rss_mb(server.process.pid) < 700
    with sync_client(server.url) as ws:
        assert "result" in call(ws, request("ok", "attack.resolve", ATTACK))
    code, _ = server.terminate()
    assert code == 0


# ── 4 and 5. lockout and handshakes ─────────────────────────────────────────


def test_idle_unauthenticated_connections_cannot_lock_the_gm_out(tmp_path):
    """32 idle unauthenticated connections once gave everyone HTTP 503."""

    async def scenario():
        async with serving(tmp_path, limits={"auth_timeout": 30.0}) as bridge:
            idle = [await connect(bridge.url).__aenter__() for _ in range(60)]
            try:
                async with client(bridge.url) as gm:  # the GM's token, straight in
                    assert "result" in await ask(gm, request(1, "attack.resolve", ATTACK))
                assert len(bridge._unauthenticated) <= Limits().max_unauthenticated
                # The oldest idle ones made room: they were dropped.
                with pytest.raises(ConnectionClosed):
                    await asyncio.wait_for(idle[0].recv(), 10)
            finally:
                for ws in idle:
                    ws.transport.abort()

    run(scenario())


def test_sockets_stuck_in_the_handshake_cannot_exhaust_the_bridge(tmp_path):
    """Sockets that never finish the HTTP handshake once ran the bridge out of descriptors."""
    server = start_server(tmp_path / "j.sqlite3")
    port = port_of(server.url)
    before = rawws.open_files(server.process.pid)
    stuck = []
    for _ in range(300):
        sock = rawws.open_socket(port)
        sock.sendall(b"GET / HTTP/1.1\r\n")  # and never the rest
        stuck.append(sock)
    try:
        with sync_client(server.url) as ws:
            assert "result" in call(ws, request(1, "attack.resolve", ATTACK))
        assert rawws.open_files(server.process.pid) <= before + Limits().max_handshakes + 8
    finally:
        for sock in stuck:
            sock.close()
    assert server.terminate()[0] == 0


def test_an_unauthenticated_client_cannot_send_a_large_message(tmp_path):
    """1 MiB messages from unauthenticated clients were parsed on the event loop."""

    async def scenario():
        async with serving(tmp_path) as bridge:
            async with connect(bridge.url, max_size=None) as ws:
                with pytest.raises(ConnectionClosed) as excinfo:  # while sending, or after
                    await ws.send(orjson.dumps(request("auth", "auth", {"token": "x" * (1 << 20)})).decode())
                    await ws.recv()
                assert excinfo.value.rcvd.code == 1009
            # Once authenticated, the full size applies.
            async with client(bridge.url, max_size=None) as ws:
                big = request(2, "attack.resolve", {**ATTACK, "strikes": ATTACK["strikes"] * 200})
                assert len(orjson.dumps(big)) > Limits().max_auth_message_bytes
                assert "result" in await ask(ws, big)

    run(scenario())


# ── 6. nesting ──────────────────────────────────────────────────────────────


def nested(depth: int) -> orjson.Fragment:
    """``depth`` nested arrays as raw JSON (orjson itself will not write past 254)."""
    return orjson.Fragment(("[" * depth + "1" + "]" * depth).encode())


@pytest.mark.parametrize("depth", [254, 600, 1020])
def test_deep_params_are_a_clear_error_not_an_internal_one(ask, caplog, depth):
    caplog.set_level(logging.ERROR)
    reply = ask(request(7, "attack.resolve", {**ATTACK, "extra": nested(depth)}))
    assert reply["id"] == 7
    error = reply["error"]
    assert error["code"] == -32602
    assert error["data"]["path"].startswith("$.params.extra[0][0]")
    assert error["data"]["reason"] == "nested deeper than 64 levels of arrays and objects (max_depth)"
    assert not caplog.records  # no traceback in the log


def test_a_deep_batch_is_an_invalid_request(ask):
    # Each entry is checked on its own (issue 40 item 9): the path is the entry's own.
    [reply] = ask(orjson.dumps([nested(100)]).decode())
    assert reply["error"]["code"] == -32600 and reply["id"] is None
    assert reply["error"]["data"]["path"] == "$" + "[0]" * 63


def test_depth_up_to_the_limit_is_accepted(ask):
    # 64 levels in all (the request object, params, 62 lists) pass the depth check and
    # meet the method's own (server.info takes no params); one more is too deep.
    reply = ask(request(8, "server.info", {"x": nested(62)}))
    assert reply["error"]["data"] == {"path": "$.params.x", "reason": "unknown parameter"}
    reply = ask(request(8, "server.info", {"x": nested(63)}))
    assert reply["error"]["data"]["path"] == "$.params.x" + "[0]" * 62


# ── 7. logging of refusals ──────────────────────────────────────────────────


def test_refusals_are_logged_at_a_bounded_rate(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="fracas.bridge")

    async def scenario():
        async with serving(tmp_path, allow_no_origin=False) as bridge:
            for _ in range(50):
                with contextlib.suppress(Exception):
                    async with connect(bridge.url, origin="https://evil.example"):
                        pass

    run(scenario())
    refusals = [r for r in caplog.records if "refused a connection" in r.getMessage()]
    assert len(refusals) == 10


def test_quiet_sums_up_what_it_did_not_log(caplog):
    caplog.set_level(logging.WARNING, logger="fracas.bridge")
    now = [0.0]
    quiet = _Quiet(burst=2, window=60, clock=lambda: now[0])
    for _ in range(5):
        quiet.warning("kind", "refused %s", "x")
    now[0] = 61
    quiet.warning("kind", "refused %s", "y")
    assert [r.getMessage() for r in caplog.records] == [
        "refused x", "refused x", "(3 more like it in the last 60 s were not logged: kind)", "refused y"]


# ── fair pools ──────────────────────────────────────────────────────────────


def test_single_attacks_never_queue_behind_bulk_work(tmp_path):
    """Bulk work fills its own pool; single attacks are answered from theirs."""
    from .test_server import GatedEngine

    engine = GatedEngine()

    async def scenario():
        async with serving(tmp_path, engine=engine, workers=1) as bridge:
            async with client(bridge.url) as mob, client(bridge.url) as gm:
                for i in range(3):  # one holds the only bulk worker, two wait behind it
                    await mob.send(orjson.dumps(request(f"mob-{i}", "attack.bulk", bulk(100))).decode())
                await asyncio.to_thread(engine.entered.wait)
                for i in range(10):
                    assert "result" in await ask(gm, request(i, "attack.resolve", ATTACK))
                engine.release.set()
                ids = [orjson.loads(await mob.recv())["id"] for _ in range(3)]
                assert sorted(ids) == ["mob-0", "mob-1", "mob-2"]

    run(scenario())


def test_parse_limits():
    assert parse_limits(["max_reply_bytes=1_000", "send_timeout=2.5"]) == {"max_reply_bytes": 1000,
                                                                         "send_timeout": 2.5}
    with pytest.raises(ValueError, match="expected NAME=VALUE with NAME one of max_message_bytes"):
        parse_limits(["nope=1"])
    with pytest.raises(ValueError, match="max_batch takes a whole number"):
        parse_limits(["max_batch=1.5"])
    with pytest.raises(ValueError, match="must be positive"):
        parse_limits(["max_batch=0"])


def test_clients_that_never_read_do_not_hold_up_shutdown(tmp_path):
    """With replies stuck in their sockets (and a send timeout far away), SIGTERM still
    answers what it can, drops them and exits: once the grace is over, a connection whose
    client has not read what it was sent is dropped at once (its replies are journaled), not
    waited for as work still running is."""
    server = start_server(tmp_path / "j.sqlite3", "--limit", "send_timeout=600", "--limit", "shutdown_grace=0.5")
    port = port_of(server.url)
    stuck = []
    for n in range(4):
        sock = rawws.authenticated(port, receive_buffer=4096)
        for i in range(3):
            rawws.send_text(sock, orjson.dumps(request(f"{n}-{i}", "attack.bulk", bulk(10_000, detail="dice"))))
        stuck.append(sock)
    wait_until(lambda: in_flight(server.url)["attacks"] == 0, "the work is done; the replies wait to be read")
    assert in_flight(server.url)["reply_bytes"] > 0
    server.process.send_signal(signal.SIGTERM)
    _out, err = server.process.communicate(timeout=60)  # it exits; the deadline is only against a hang
    assert server.process.returncode == 0
    for sock in stuck:
        sock.close()
    assert "dropping the connections of 12 request(s) whose clients have not read what they were sent" in err, err
    assert "cancelling" not in err, err  # none of them was still rolling
    from fracas.bridge.journal import Journal

    journal = Journal(server.journal)
    try:
        assert all(journal.lookup(f'"{n}-{i}"') is not None for n in range(4) for i in range(3))
    finally:
        journal.close()


def test_what_a_reply_holds_is_its_real_size_once_made(small):
    """The estimate is replaced by the real size (or a small one for an error)."""
    dispatcher, session, send = small
    gm = session()
    reply, held = send(gm, [request(1, "attack.bulk", bulk(200, detail="dice")),
                            request(2, "attack.bulk", {**bulk(10), "attacks": [{"profile": "nope"}]})], hold=True)
    assert "result" in reply[0] and "error" in reply[1]
    made = len(orjson.dumps(reply[0]["result"]))
    assert made <= gm.reply_bytes.used == dispatcher.protocol.server_reply_bytes.used <= made + 4096
    held.release()
    assert gm.reply_bytes.used == dispatcher.protocol.server_reply_bytes.used == 0


def test_bulk_leaves_a_core_for_single_attacks_by_default(tmp_path):
    import os

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()

    async def scenario():
        async with serving(tmp_path) as bridge, client(bridge.url) as ws:
            return (await ask(ws, request(1, "server.info")))["result"]["bulk_threads"]

    assert run(scenario()) == max(1, cpus - 1)


def test_handshakes_that_end_early_are_a_rate_limited_warning_not_a_traceback():
    """websockets < 17 (the newest on Python 3.10) logs each dropped half-open socket at
    ERROR with a traceback; 300 of them filled an unread stderr pipe and stalled the bridge."""
    import logging
    import sys as _sys

    from fracas.bridge.server import _HandshakeNoise, _Quiet

    warned = []
    quiet = _Quiet(burst=2)
    quiet.warning = lambda kind, message, *args: warned.append(message % args)  # type: ignore[method-assign]
    noise = _HandshakeNoise(quiet)

    def record(exc):
        try:
            raise RuntimeError("did not receive a valid HTTP request") from exc
        except RuntimeError:
            info = _sys.exc_info()
        return logging.LogRecord("fracas.bridge.websockets", logging.ERROR, __file__, 1,
                                 "opening handshake failed", (), info)

    assert noise.filter(record(EOFError("stream ends after 0 bytes"))) is False
    assert warned == ["a connection ended during its opening handshake (EOFError)"]
    assert noise.filter(record(ValueError("a real bug"))) is True  # anything else still logs
    plain = logging.LogRecord("fracas.bridge.websockets", logging.INFO, __file__, 1, "server closing", (), None)
    assert noise.filter(plain) is True
