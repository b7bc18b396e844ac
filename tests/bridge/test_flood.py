"""A local flood of connections cannot keep the GM out, nor fill the log (issue 31, item 4).

Floods are bounded in count (and so in time) and stay on loopback; nothing here asserts
a duration: the GM's connection must simply succeed while the flood runs.
"""

from __future__ import annotations

import logging
import socket
import threading

import orjson
import pytest
from websockets.exceptions import InvalidHandshake

from fracas.bridge.limits import Limits

from . import rawws
from .helpers import ATTACK, TOKEN, ask, client, request, run, serving, start_server
from .test_hardening import call, port_of, sync_client

#: Connections one flood opens and closes (bounded: the flood ends by itself).
CHURN = 300
#: Handshakes the GM's client tries before giving up.
RETRIES = 3


def _churn(port: int, count: int, started: threading.Event, stop: threading.Event) -> None:
    """Open and close ``count`` connections as fast as one thread can (or until ``stop``):
    half of them close at once, half after sending the first line of an HTTP request."""
    for i in range(count):
        if stop.is_set():
            break
        try:
            # A connect the bridge's full backlog leaves unanswered waits out one SYN
            # retransmit (1 s), not several: the flood is connects, not waits.
            sock = socket.create_connection(("127.0.0.1", port), timeout=2)
            if i % 2:
                sock.sendall(b"GET / HTTP/1.1\r\n")
            sock.close()
        except OSError:
            pass  # the bridge dropped it first: still churn
        if i == count // 4:
            started.set()
    started.set()


def test_a_connection_flood_from_loopback_does_not_keep_the_gm_out_or_fill_the_log(tmp_path):
    """~27k connects/s from one local process once made every GM handshake fail and
    wrote 35,272 "connection closed" lines in 18 s."""
    server = start_server(tmp_path / "j.sqlite3")
    port = port_of(server.url)
    started, stop = threading.Event(), threading.Event()
    floods = [threading.Thread(target=_churn, args=(port, CHURN, started, stop)) for _ in range(3)]
    for flood in floods:
        flood.start()
    try:
        started.wait()
        # The GM connects while the flood runs, from the same 127.0.0.1 (the bridge cannot
        # tell the two apart), and, as the Foundry module and the relay do, tries again if a
        # handshake fails: it gets in within a few tries (it got in on none of them before).
        for attempt in range(RETRIES):
            try:
                with sync_client(server.url) as ws:
                    assert "result" in call(ws, request(1, "attack.resolve", ATTACK))
                break
            except (InvalidHandshake, EOFError, OSError):
                if attempt == RETRIES - 1:
                    raise
    finally:
        stop.set()  # the GM got in (or gave up) while the flood ran: no need to wait out the rest
        for flood in floods:
            flood.join()
    code, stderr = server.terminate()
    assert code == 0
    lines = stderr.splitlines()
    # The churn is not logged line by line: at most the bounded refusal lines
    # (10 a kind a minute, then one summary), the GM's connect and disconnect,
    # and the bridge's own start and stop.
    churn = [line for line in lines if "connection closed" in line or "connection open" in line
             or "connection rejected" in line or "opening handshake failed" in line]
    assert churn == []
    assert len(lines) <= 40, "\n".join(lines)


def test_sockets_of_another_source_never_push_out_the_gm(tmp_path):
    """Per-source caps: 300 idle sockets from 127.0.0.2 only ever evict their own; the GM's
    socket from 127.0.0.1, made first and authenticated last, stays. The GM's auth window is
    long here (auth_timeout), so what is tested is the caps, not how fast 300 sockets connect
    on a loaded machine."""
    server = start_server(tmp_path / "j.sqlite3", "--limit", "auth_timeout=120")
    port = port_of(server.url)
    gm = rawws.open_socket(port)
    rawws.handshake(gm, port)  # waiting to authenticate from now on
    idle = []
    try:
        for _ in range(300):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.settimeout(30)
            sock.bind(("127.0.0.2", 0))
            sock.connect(("127.0.0.1", port))
            try:
                rawws.handshake(sock, port)
            except ConnectionError:
                pass  # dropped while in the handshake: its own source's cap
            idle.append(sock)
        rawws.send_text(gm, orjson.dumps(request("auth", "auth", {"token": TOKEN})))
        opcode, payload = rawws.recv_frame(gm)
        assert opcode == 1 and orjson.loads(payload)["result"] == {"authenticated": True}, payload
        rawws.send_text(gm, orjson.dumps(request(1, "attack.resolve", ATTACK)))
        assert "result" in orjson.loads(rawws.recv_frame(gm)[1])
        # ... and the idle ones were held to their source's cap: the oldest were dropped.
        alive = 0
        for sock in idle:
            sock.settimeout(0.0)
            try:
                alive += sock.recv(1, socket.MSG_PEEK) != b""
            except BlockingIOError:
                alive += 1  # still open, nothing to read
            except OSError:
                pass
        assert alive <= Limits().max_unauthenticated_per_source
    finally:
        gm.close()
        for sock in idle:
            sock.close()
    code, stderr = server.terminate()
    assert code == 0
    # Refusals are rate-limited: 10 lines a kind, then one summary.
    assert sum("dropped a socket" in line for line in stderr.splitlines()) <= 10


@pytest.mark.parametrize("limit", ["max_handshakes_per_source", "max_unauthenticated_per_source",
                                   "accept_backlog"])
def test_the_flood_limits_are_limits(limit):
    assert limit in Limits().to_dict() and getattr(Limits(), limit) > 0


def test_a_client_that_reconnects_in_a_loop_does_not_fill_the_log(tmp_path, caplog):
    """Issue 31, item 4: "every log line of connection churn rate-limited or at DEBUG". A
    client holding the token that connects, authenticates and leaves in a loop (a relay or
    module stuck reconnecting) is churn too: its "connected" / "disconnected" lines are
    rate-limited like the refusals (10 a kind a minute, then one summary)."""
    caplog.set_level(logging.INFO, logger="fracas.bridge")

    async def scenario():
        async with serving(tmp_path) as bridge:
            for _ in range(40):
                async with client(bridge.url) as websocket:
                    assert "result" in await ask(websocket, request(1, "attack.resolve", ATTACK))

    run(scenario())
    said = [record.getMessage() for record in caplog.records]
    assert sum(line.endswith(" connected") for line in said) == 10
    assert sum(line.endswith(" disconnected") for line in said) == 10


def test_a_client_that_leaves_before_its_replies_does_not_fill_the_log(tmp_path, caplog, monkeypatch):
    """Issue 31, item 4, for the last churn line: a client that sends and leaves before
    its reply goes out gets "left before its reply was sent" once per reply, which a
    client doing so in a loop would turn into a flood. It is rate-limited like the
    connection lines (10 a minute, then one summary). The departure is made certain by
    a send that raises as a closed connection does, for the replies to "lost" ids."""
    from websockets.exceptions import ConnectionClosedOK

    from fracas.bridge import server

    caplog.set_level(logging.INFO, logger="fracas.bridge")
    real_send = server.Bridge._send
    lost = []

    async def send(self, websocket, session, reply):
        if b'"lost-' in bytes(reply.data):
            lost.append(reply)
            raise ConnectionClosedOK(None, None)
        await real_send(self, websocket, session, reply)

    monkeypatch.setattr(server.Bridge, "_send", send)

    async def scenario():
        import asyncio

        async with serving(tmp_path) as bridge:
            async with client(bridge.url) as websocket:
                for n in range(40):
                    await websocket.send(orjson.dumps(request(f"lost-{n}", "attack.resolve", ATTACK)).decode())
                assert "result" in await ask(websocket, request("kept", "attack.resolve", ATTACK))
                for _ in range(500):  # bounded: the lost replies are answered concurrently
                    if len(lost) == 40:
                        break
                    await asyncio.sleep(0.01)

    run(scenario())
    assert len(lost) == 40
    said = [record.getMessage() for record in caplog.records]
    assert sum("left before its reply was sent" in line for line in said) == 10
