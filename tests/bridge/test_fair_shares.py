"""Fair shares (issue 40): no client can lock out, starve or bloat the GM's bridge.

Each test is the shape of a probe that broke the bridge: two clients filling the attack
budget, a huge ``encounter.show``, the depth check of a huge message, a ping flood from a
client that never reads, empty continuation frames, SIGTERM during odds work, loopback
aliases around the handshake caps, the token in the banner. Nothing here asserts a
duration: the answers, refusals and their order are asserted, and any wait has a bound
generous enough to catch only a hang.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import struct
import subprocess
import sys
import threading

import orjson
import pytest

import fracas
from fracas.bridge import rpc

from . import rawws
from .helpers import ATTACK, INITIATIVE, REPO, TOKEN, ask, bulk, client, request, run, serving, start_server
from .test_hardening import call, in_flight, port_of, sync_client, wait_until
from .test_server import GatedEngine

#: Bound on a wait that only catches a hang (a starved request waits for ever).
HANG = 30


async def until(condition, what: str, timeout: float = HANG) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


# ── 1. one client cannot lock everyone out of rolling ──────────────────────────


def test_two_clients_filling_the_attack_budget_leave_a_third_its_small_requests(tmp_path):
    """Two connections with 100M-attack bulks once filled the server-wide attack budget and
    every single attack, initiative or round from anyone else was refused (143 of 143)."""
    engine = GatedEngine()
    limits = {"max_bulk_attacks": 1000, "max_message_attacks": 1000, "max_connection_attacks": 1000,
              "max_server_attacks": 2000}

    async def scenario():
        async with serving(tmp_path, engine=engine, limits=limits) as bridge:
            server = bridge.dispatcher.protocol.server_attacks
            async with client(bridge.url) as one, client(bridge.url) as two, client(bridge.url) as gm:
                await one.send(orjson.dumps(request("b1", "attack.bulk", bulk(1000))).decode())
                await two.send(orjson.dumps(request("b2", "attack.bulk", bulk(1000))).decode())
                await until(lambda: server.used >= 2000, "the bridge-wide attack budget to be full")
                try:
                    # The GM's small requests are answered, not refused for what others hold.
                    for i in range(5):
                        reply = await asyncio.wait_for(ask(gm, request(f"a{i}", "attack.resolve", ATTACK)), HANG)
                        assert "result" in reply, reply
                    reply = await asyncio.wait_for(ask(gm, request("i", "initiative.roll", INITIATIVE)), HANG)
                    assert "result" in reply, reply
                    # A client's own excess is refused for that client only.
                    mine = await asyncio.wait_for(ask(one, request("a-one", "attack.resolve", ATTACK)), HANG)
                    assert mine["error"]["code"] == -32003, mine
                    assert mine["error"]["data"]["limit_name"] == "max_connection_attacks", mine
                finally:
                    engine.release.set()
                assert "result" in orjson.loads(await one.recv())
                assert "result" in orjson.loads(await two.recv())

    run(scenario())


# ── 2. "light" requests that are heavy ──────────────────────────────────────────


def _scenario(groups: int) -> dict:
    def side(name: str) -> list[dict]:
        return [{"name": f"{name} {i}", "hp": 8, "attacker": {"attack_bonus": 1, "str_mod": 1},
                 "target": {"ac": 14}, "attacks": [{"method": "melee", "damage": "1d6"}]} for i in range(groups)]

    return {"ruleset": "old-school", "name": "huge", "sides": {"left": side("l"), "right": side("r")}}


class _GatedShows:
    """The real engine, except showing the encounter "huge" waits at a gate."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        gate = self

        class Encounter:
            def __getattr__(self, name):
                return getattr(fracas.Encounter, name)

            @staticmethod
            def open(name, **options):
                opened = fracas.Encounter.open(name, **options)
                if name != "huge":
                    return opened

                class Gated:
                    def __getattr__(self, attribute):
                        return getattr(opened, attribute)

                    def show(self):
                        gate.entered.set()
                        if not gate.release.wait(timeout=60):
                            raise AssertionError("the test never opened the gate")
                        return opened.show()

                return Gated()

        self.Encounter = Encounter()

    def __getattr__(self, name):
        return getattr(fracas, name)


def test_a_huge_encounter_show_does_not_starve_a_small_request(tmp_path):
    """encounter.show of 940 groups a side cost ~2 s on the single-request pool; 8 in flight
    gave the GM 2 answers in 20 s."""
    engine = _GatedShows()

    async def scenario():
        async with serving(tmp_path, engine=engine, fast_workers=2,
                           limits={"max_message_bytes": 8 << 20}) as bridge:
            async with client(bridge.url, max_size=None) as busy, client(bridge.url) as gm:
                made = await ask(busy, request("new", "encounter.new", {"name": "huge", "scenario": _scenario(300)}))
                assert "result" in made, made
                for i in range(8):  # max_in_flight of them
                    await busy.send(orjson.dumps(request(f"s{i}", "encounter.show", {"name": "huge"})).decode())
                await asyncio.to_thread(engine.entered.wait, HANG)
                try:
                    for i in range(3):
                        reply = await asyncio.wait_for(ask(gm, request(f"a{i}", "attack.resolve", ATTACK)), HANG)
                        assert "result" in reply, reply
                finally:
                    engine.release.set()
                shown = [orjson.loads(await busy.recv()) for _ in range(8)]
                assert sorted(reply["id"] for reply in shown) == [f"s{i}" for i in range(8)]
                assert all(reply["result"]["name"] == "huge" for reply in shown)

    run(scenario())


def test_the_depth_check_of_a_huge_message_does_not_starve_a_small_request(tmp_path, monkeypatch):
    """The depth check of a 1 MB message of {} cost ~0.5 s on the single-request pool, for
    every such message (GM p50 2.0 s with one such connection). A message that large is
    parsed and depth-checked off the loop, in its connection's heavy lane: here the first
    one's parse is held until the GM's requests are answered (the gate must close, or the
    test proves nothing)."""
    release = threading.Event()
    entered = threading.Event()
    parse = rpc.parse

    def gated(message, max_depth):
        if len(message) > 100_000:  # one of the huge batches (the GM's requests are small)
            entered.set()
            release.wait(timeout=60)
        return parse(message, max_depth)

    monkeypatch.setattr(rpc, "parse", gated)
    huge = "[" + ",".join(["{}"] * 100_000) + "]"  # 300 kB: past the 64 KiB of a large message

    async def scenario():
        async with serving(tmp_path, fast_workers=2) as bridge:
            async with client(bridge.url) as busy, client(bridge.url) as gm:
                for _ in range(8):
                    await busy.send(huge)
                assert await asyncio.to_thread(entered.wait, HANG), "no huge message's parse was held"
                try:
                    for i in range(3):
                        reply = await asyncio.wait_for(ask(gm, request(f"a{i}", "attack.resolve", ATTACK)), HANG)
                        assert "result" in reply, reply
                finally:
                    release.set()
                for _ in range(8):  # each is a batch past max_batch
                    assert orjson.loads(await busy.recv())["error"]["code"] == -32003

    run(scenario())


# ── 3. pings and fragments ──────────────────────────────────────────────────────


def _ping(payload: bytes = b"p" * 125) -> bytes:
    mask = os.urandom(4)
    return struct.pack("!BB", 0x89, 0x80 | len(payload)) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def test_a_ping_flood_from_a_client_that_never_reads_is_bounded(tmp_path, caplog):
    """Pongs piled up in the write buffer of a client that never read: 34 MB → 1,326 MB in
    90 s on one socket. Now the pongs it has not read are bounded, and such a client is closed."""
    async def scenario():
        async with serving(tmp_path) as bridge:
            port = port_of(bridge.url)
            sock = await asyncio.to_thread(rawws.authenticated, port, receive_buffer=4096)
            await until(lambda: len(bridge._sessions) == 1, "the raw client's session")
            (websocket,) = bridge._sessions
            flood = _ping() * 1000
            peak = 0

            def send_all() -> None:
                try:
                    for _ in range(120):  # 120,000 pings: ~16 MB of pongs if all were kept
                        sock.sendall(flood)
                except OSError:
                    pass  # closed by the bridge

            sender = asyncio.create_task(asyncio.to_thread(send_all))
            while not sender.done():
                if websocket.transport.is_closing():
                    break
                peak = max(peak, websocket.transport.get_write_buffer_size())
                await asyncio.sleep(0.005)
            await sender
            await until(lambda: websocket.transport.is_closing() or not websocket.protocol.data_to_send(),
                        "the bridge to read the flood")
            peak = max(peak, 0 if websocket.transport.is_closing() else websocket.transport.get_write_buffer_size())
            sock.close()
            assert peak <= 1 << 20, f"{peak:,} bytes of unread pongs held"
            # Closed once, and quietly: no pong written after (asyncio logs each such write,
            # and a log on a pipe nobody reads once blocked the bridge's loop).
            assert not [r for r in caplog.records if "socket.send() raised" in r.getMessage()]
            # The bridge serves the next client as usual.
            async with client(bridge.url) as gm:
                assert "result" in await ask(gm, request("a", "attack.resolve", ATTACK))

    run(scenario())


def test_empty_continuation_frames_cannot_grow_memory(tmp_path):
    """websockets before 17 capped no fragment count: empty continuation frames grew the
    bridge 20 MB/s. The bridge caps them itself (fragments of one message)."""
    async def scenario():
        async with serving(tmp_path) as bridge:
            port = port_of(bridge.url)
            sock = await asyncio.to_thread(rawws.authenticated, port)
            mask = b"\0\0\0\0"
            first = struct.pack("!BB", 0x01, 0x80 | 1) + mask + b"["  # text, not fin
            empty = struct.pack("!BB", 0x00, 0x80) + mask  # continuation, not fin, empty

            def send_all() -> tuple[int, bytes] | None:
                try:
                    sock.sendall(first)
                    for _ in range(200):
                        sock.sendall(empty * 1000)
                except OSError:
                    pass  # closed by the bridge
                try:  # the bridge's close frame (not keepalive's 1011, which would come ~40 s on)
                    while True:
                        opcode, payload = rawws.recv_frame(sock)
                        if opcode == 8:
                            return struct.unpack("!H", payload[:2])[0], payload[2:]
                except (OSError, ConnectionError):
                    return None

            closed = await asyncio.wait_for(asyncio.to_thread(send_all), 2 * HANG)
            sock.close()
            assert closed is not None and closed[0] in (1002, 1009), closed

    run(scenario())


# ── 6. heavy work, off the GM's path and cancelled ──────────────────────────────


ODDS = {**{k: v for k, v in ATTACK.items()}, "count": 79}
#: Long odds work for these tests: a 79-attack mob takes seconds, past the default
#: max_odds_mob_cost (which refuses it before any work): the tests allow it.
LONG_ODDS = {"max_odds_mob_cost": 10**13}


def test_sigterm_during_odds_work_answers_minus_32010_and_exits(tmp_path):
    """SIGTERM during odds work logged "stopped" while the process lived on for 90 s and
    its clients never got their -32010."""
    server = start_server(tmp_path / "j.sqlite3", "--limit", "shutdown_grace=0.5",
                          "--limit", f"max_odds_mob_cost={LONG_ODDS['max_odds_mob_cost']}")
    with sync_client(server.url) as ws:
        ws.send(orjson.dumps(request("odds", "attack.odds", ODDS)).decode())
        wait_until(lambda: in_flight(server.url)["reply_bytes"] > 0, "the odds work started")
        server.process.send_signal(signal.SIGTERM)
        reply = orjson.loads(ws.recv(timeout=HANG))
    assert reply["id"] == "odds" and reply["error"]["code"] == -32010, reply
    server.process.communicate(timeout=HANG)
    assert server.process.returncode == 0


def test_odds_are_held_to_the_connections_reply_budget(tmp_path):
    """The odds reply budgeted at 64 KiB was 7.3 MB: it is refused past the connection's
    reply budget, not sent."""
    async def scenario():
        async with serving(tmp_path, limits={"max_connection_reply_bytes": 1 << 20, **LONG_ODDS}) as bridge:
            async with client(bridge.url, max_size=None) as ws:
                reply = await asyncio.wait_for(ask(ws, request("o", "attack.odds", {**ATTACK, "count": 40})), 120)
                assert reply["error"]["code"] == -32003, str(reply)[:300]
                assert reply["error"]["data"]["limit_name"] == "max_connection_reply_bytes"
                assert "result" in await ask(ws, request("o2", "attack.odds", ATTACK))

    run(scenario())


def test_odds_work_stops_when_its_client_leaves(tmp_path):
    async def scenario():
        async with serving(tmp_path, limits=LONG_ODDS) as bridge:
            async with client(bridge.url) as ws:
                await ws.send(orjson.dumps(request("odds", "attack.odds", ODDS)).decode())
                await until(lambda: bridge.dispatcher.protocol.server_reply_bytes.used > 0, "the odds work")
                await until(lambda: bridge.workers.busy == 1, "the odds worker")
            await until(lambda: bridge.workers.busy == 0, "the odds worker to be stopped")
            await until(lambda: bridge.dispatcher.protocol.server_reply_bytes.used == 0, "its budget freed")

    run(scenario())


# ── 9. loopback aliases and the banner ──────────────────────────────────────────


def test_loopback_aliases_do_not_get_around_the_handshake_caps(tmp_path):
    """Sockets from many 127.0.1.x addresses once each counted as a source of their own."""
    async def scenario():
        async with serving(tmp_path, limits={"max_handshakes_per_source": 4}) as bridge:
            port = port_of(bridge.url)

            def open_from_aliases() -> list[socket.socket]:
                socks = []
                for i in range(1, 41):
                    sock = socket.socket()
                    sock.bind((f"127.0.1.{i}", 0))
                    sock.connect(("127.0.0.1", port))
                    socks.append(sock)
                return socks

            socks = await asyncio.to_thread(open_from_aliases)
            try:
                # The GM still gets in, and its connection came after the 40 (accepted in order).
                async with client(bridge.url) as gm:
                    assert "result" in await ask(gm, request("a", "attack.resolve", ATTACK))
                    assert len(bridge._handshaking) <= 4
            finally:
                for sock in socks:
                    sock.close()

    run(scenario())


def test_the_banner_does_not_print_a_token_from_the_environment(tmp_path):
    """$FRACAS_BRIDGE_TOKEN is the documented way to keep the token out of ps; the banner
    printed it all the same."""
    command = [sys.executable, "-m", "fracas.bridge", "--port", "0", "--journal", str(tmp_path / "j.sqlite3"),
               "--allow-no-origin"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(REPO),
                               env={**os.environ, "FRACAS_BRIDGE_TOKEN": TOKEN, "PYTHONUNBUFFERED": "1"})
    try:
        banner = [process.stdout.readline() for _ in range(4)]
        assert banner[1].strip().startswith("url:"), banner
        assert TOKEN not in "".join(banner), banner
        assert "FRACAS_BRIDGE_TOKEN" in banner[2], banner
        url = banner[1].split("url:", 1)[1].strip()
        with sync_client(url) as ws:  # the token from the environment opens it
            assert "result" in call(ws, request("a", "attack.resolve", ATTACK))
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=HANG)
    assert TOKEN not in stderr
