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
    INITIATIVE, REPO, TOKEN, ask, assert_journaled, attack, big_bulk_count, bulk, client, request, run, start_server,
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
        closed_by = "open"
        try:
            while True:
                reply = orjson.loads(await ws.recv())
                for response in reply if isinstance(reply, list) else [reply]:
                    assert "result" in response, response
                    acknowledged[response["id"]] = response["result"]
                received += 1
                if received == kill_after:
                    server.kill()
        except ConnectionClosed as closed:
            closed_by = f"received {closed.rcvd}, sent {closed.sent}"
        sender.cancel()
    if received < kill_after:  # the connection closed before the kill: say why (close frames, the server's log)
        ended = server.process.poll()  # None: still running; a negative number: the signal that ended it
        server.kill()
        raise AssertionError(f"{received} replies before the connection closed ({closed_by}); the bridge had"
                             f" {'not ended' if ended is None else f'ended with {ended}'}; its log (with"
                             f" faulthandler on): {server.process.stderr.read()[-3000:]}")
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


# ── kill -9 at random points, with encounters and outside readers (issue 46) ──

SCENARIO = orjson.loads((REPO / "examples" / "scenarios" / "os-goblin-ambush.json").read_bytes())

#: An outside reader in its own process, as the README's `sqlite3 journal.sqlite3 "select …"`
#: is: it opens the journal, reads, closes. One at a time, with the bridge otherwise busy
#: only with the GM's traffic: two outside connections open at once would each keep the
#: other's close from taking the file for unused, and so hide what a lone reader does.
ONE_READ = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=10)
db.execute("SELECT count(*) FROM entries").fetchone()
db.close()
"""


async def mixed_traffic_until_killed(server, cycle, chooser, acknowledged):
    """Rolls on one connection, encounters played round by round on another, an outside
    reader after some rounds (chosen by ``chooser``); SIGKILL the bridge after a number of
    acknowledgements ``chooser`` picks."""
    import sys

    kill_after = chooser.randint(15, 120)
    received = 0
    killed = asyncio.Event()

    def acknowledge(response):
        nonlocal received
        acknowledged[response["id"]] = response["result"]
        received += 1
        if received == kill_after:
            server.kill()
            killed.set()

    async def rolls():
        # One request at a time, as a table sends them: a flood checkpoints the journal's WAL
        # into its file so often that an unlinked WAL would lose little (the test above floods).
        async with client(server.url) as ws:
            try:
                for message in messages(100 + cycle):
                    reply = await ask(ws, message)
                    for response in reply if isinstance(reply, list) else [reply]:
                        assert "result" in response, response
                        acknowledge(response)
            except ConnectionClosed:
                pass

    async def encounters():
        async with client(server.url) as ws:
            try:
                for game in range(1000):
                    name = f"e{cycle}-{game}"
                    made = await ask(ws, request(name, "encounter.new", {"name": name, "scenario": SCENARIO}))
                    assert "result" in made, made
                    acknowledge(made)
                    for step in range(20):
                        reply = await ask(ws, request(f"{name}-r{step}", "encounter.round", {"name": name}))
                        if "error" in reply:
                            assert "is over" in reply["error"]["message"], reply
                            break
                        acknowledge(reply)
                        if chooser.random() < 0.5:
                            read = await asyncio.create_subprocess_exec(sys.executable, "-c", ONE_READ,
                                                                        server.journal)
                            assert await read.wait() in (0, 1)  # 1: the bridge was killed under it
            except ConnectionClosed:
                pass

    await asyncio.gather(rolls(), encounters())
    assert killed.is_set(), "the bridge should be killed mid-traffic"


def test_sigkill_at_random_points_under_mixed_traffic_with_outside_readers(tmp_path):
    """Rolls, bulk, batches and encounter rounds, outside readers opening and closing the
    journal now and then, kill -9 at a random point (seeded): after a restart every
    acknowledged id answers its journaled result, and every acknowledged round is still
    played in its encounter."""
    import random

    journal = tmp_path / "journal.sqlite3"
    chooser = random.Random(46)
    acknowledged: dict[str, dict] = {}
    for cycle in range(4):
        server = start_server(journal)
        run(mixed_traffic_until_killed(server, cycle, chooser, acknowledged))

    server = start_server(journal)

    async def check():
        async with client(server.url) as ws:
            await assert_journaled(ws, acknowledged)
            rounds: dict[str, int] = {}
            for name, result in acknowledged.items():
                if name.startswith("e") and "-r" in name:
                    encounter = name.rsplit("-r", 1)[0]
                    rounds[encounter] = max(rounds.get(encounter, 0), result["round"])
            assert rounds, "no encounter round was acknowledged"
            for encounter, played in rounds.items():
                shown = await ask(ws, request("show", "encounter.show", {"name": encounter}))
                assert shown["result"]["round"] >= played, (encounter, shown)

    run(check())
    returncode, stderr = server.terminate()
    assert returncode == 0, stderr
    with sqlite3.connect(journal) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
