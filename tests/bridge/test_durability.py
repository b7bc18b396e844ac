"""Nothing lost: kill -9 the bridge mid-stream, again and again; every acknowledged roll stays.

The server runs as a subprocess (``python -m fracas.bridge``) so SIGKILL hits a
real process with a real SQLite file. "Acknowledged" means the client received
the reply; the journal must then hold that exact result.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3

import orjson
from websockets.exceptions import ConnectionClosed

from .helpers import (
    INITIATIVE, TOKEN, ask, attack, big_bulk_count, bulk, client, request, run, start_server,
)

ROUNDS = 4


def messages(round_number: int):
    """A stream of rolling requests: single attacks, initiative, bulk, and batches."""
    for i in range(400):
        name = f"r{round_number}-{i}"
        kind = i % 4
        if kind == 0:
            yield request(name, "attack.resolve", attack())
        elif kind == 1:
            yield request(name, "initiative.roll", INITIATIVE)
        elif kind == 2:
            yield request(name, "attack.bulk", bulk(300, seed=None))
        else:
            yield [request(f"{name}.{j}", "attack.resolve", attack()) for j in range(5)]


async def stream_until_killed(server, round_number, acknowledged, resend):
    """Pipeline requests; after some acknowledgements, SIGKILL the server."""
    kill_after = 25 + 10 * round_number
    sent = 0
    async with client(server.url) as ws:
        # Resends of earlier acknowledged ids must answer the journaled result.
        for message, result in resend:
            assert (await ask(ws, message))["result"] == result

        async def send_all():
            nonlocal sent
            for message in messages(round_number):
                await ws.send(orjson.dumps(message).decode())
                sent += 1

        sender = asyncio.create_task(send_all())
        received = 0
        try:
            while True:
                reply = orjson.loads(await ws.recv())
                for response in reply if isinstance(reply, list) else [reply]:
                    assert "result" in response, response
                    acknowledged[response["id"]] = response["result"]
                received += 1
                if received == kill_after:
                    server.kill()
        except ConnectionClosed:
            pass
        sender.cancel()
    assert received >= kill_after
    assert sent > received, "the kill should land mid-stream, with requests in flight"


def test_sigkill_mid_stream_loses_no_acknowledged_roll(tmp_path):
    journal = tmp_path / "journal.sqlite3"
    acknowledged: dict[str, dict] = {}
    params_of = {}
    for round_number in range(ROUNDS):
        for message in messages(round_number):
            for item in message if isinstance(message, list) else [message]:
                params_of[item["id"]] = item
    resend = []
    for round_number in range(ROUNDS):
        server = start_server(journal)
        assert server.banner[0].startswith("fracas bridge ")
        assert server.journal == str(journal)
        run(stream_until_killed(server, round_number, acknowledged, resend))
        resend = [(params_of[name], acknowledged[name]) for name in list(acknowledged)[-3:]]

    server = start_server(journal)

    async def check_journal():
        async with client(server.url) as ws:
            for name, result in acknowledged.items():
                entry = await ask(ws, request("check", "journal.get", {"id": name}))
                assert entry["result"]["result"] == result, name
            # And a resend after all those kills still rolls nothing new.
            for name in list(acknowledged)[:10]:
                assert (await ask(ws, params_of[name]))["result"] == acknowledged[name]

    run(check_journal())
    returncode, stderr = server.terminate()
    assert returncode == 0, stderr
    assert TOKEN not in stderr
    assert len(acknowledged) > ROUNDS * 25
    with sqlite3.connect(journal) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("SELECT count(*) FROM entries").fetchone()[0] >= len(acknowledged)


def test_sigterm_answers_and_journals_the_request_in_flight(tmp_path):
    journal = tmp_path / "journal.sqlite3"
    server = start_server(journal)
    count = big_bulk_count()

    async def scenario():
        async with client(server.url) as ws:
            await ws.send(orjson.dumps(request("last", "attack.bulk", bulk(count))).decode())
            await (await ws.ping())  # the bridge has read the request
            server.process.send_signal(signal.SIGTERM)
            reply = orjson.loads(await ws.recv())
            try:
                await ws.recv()
            except ConnectionClosed as closed:
                return reply, closed.rcvd.code
            raise AssertionError("the bridge kept the connection open after SIGTERM")

    reply, close_code = run(scenario())
    assert reply["id"] == "last" and reply["result"]["attacks_total"] == count
    assert close_code == 1001
    assert server.process.wait(timeout=60) == 0
    with sqlite3.connect(journal) as db:
        stored = db.execute("SELECT result FROM entries WHERE id_key = ?", ('"last"',)).fetchone()
    assert orjson.loads(stored[0]) == reply["result"]
