"""Outside readers of a running bridge's journal lose nothing (issue 46).

A running bridge holds SQLite's locks on ``journal.sqlite3``; on POSIX a ``close()`` of
*any* descriptor of that file by the same process releases every lock the process holds
on it (SQLite's "How To Corrupt An SQLite Database File", §2.2.1). A bridge that opened
and closed the file beside its connections once looked, to the next outside connection
that closed, like a journal nobody used: that connection checkpointed and deleted the
live ``-wal`` and ``-shm``, and every roll acknowledged afterwards lived only in an
unlinked file until the bridge exited cleanly (``kill -9`` lost them).

Each test runs the sequence the issue found, with a real ``python -m fracas.bridge`` and
a real outside reader in another process: an encounter request first (it opens the
encounter store in the journal's file), rolls, the outside reader, more rolls (which the
outside reader must see), ``kill -9``, a restart; every acknowledged id is then found.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from .helpers import INITIATIVE, ask, assert_journaled, attack, client, request, run, start_server

SCENARIO = orjson.loads((Path(__file__).resolve().parents[2] / "examples" / "scenarios"
                         / "os-goblin-ambush.json").read_bytes())


def _count_entries(journal: Path) -> int:
    """What an outside program (the README's sqlite3 one-liner) sees: open, count, close."""
    db = sqlite3.connect(journal)
    try:
        return db.execute("SELECT count(*) FROM entries").fetchone()[0]
    finally:
        db.close()


def _fracas(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fracas", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "FRACAS_HOME": str(home)})


def read_with_sqlite3(journal: Path) -> None:
    # In a separate process, as the README's `sqlite3 journal.sqlite3 "select …"` is.
    script = ("import sqlite3, sys; db = sqlite3.connect(sys.argv[1]);"
              " print(db.execute('select count(*) from entries').fetchone()[0]); db.close()")
    done = subprocess.run([sys.executable, "-c", script, str(journal)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def read_with_journal_list(journal: Path) -> None:
    done = _fracas("journal", "list", "--journal", str(journal), home=journal.parent)
    assert done.returncode == 0, done.stderr
    assert "journaled roll(s)" in done.stdout, done.stdout


def read_with_encounter_show(journal: Path) -> None:
    done = _fracas("encounter", "--store", str(journal), "show", "gob", home=journal.parent)
    assert done.returncode == 0, done.stderr
    assert "gob" in done.stdout, done.stdout


def read_with_a_second_bridge(journal: Path) -> None:
    second = start_server(journal)
    returncode, stderr = second.terminate()
    assert returncode == 0, stderr


READERS = {"sqlite3": read_with_sqlite3, "fracas journal list": read_with_journal_list,
           "fracas encounter show": read_with_encounter_show, "a second bridge": read_with_a_second_bridge}


async def _rolls(ws, prefix: str, n: int, acknowledged: dict) -> None:
    for i in range(n):
        message = request(f"{prefix}{i}", "attack.resolve" if i % 2 else "initiative.roll",
                          attack() if i % 2 else INITIATIVE)
        reply = await ask(ws, message)
        assert "result" in reply, reply
        acknowledged[reply["id"]] = reply["result"]


@pytest.mark.parametrize("reader", list(READERS))
def test_an_outside_reader_of_a_running_bridge_loses_no_acknowledged_roll(tmp_path, reader):
    journal = tmp_path / "journal.sqlite3"
    server = start_server(journal)
    acknowledged: dict[str, dict] = {}

    async def before():
        async with client(server.url) as ws:
            made = await ask(ws, request("enc", "encounter.new", {"name": "gob", "scenario": SCENARIO}))
            assert "result" in made, made
            acknowledged["enc"] = made["result"]
            await _rolls(ws, "a", 4, acknowledged)

    run(before())
    assert os.path.exists(f"{journal}-wal") and os.path.exists(f"{journal}-shm")
    seen_before = _count_entries(journal)

    READERS[reader](journal)

    # The bridge's write-ahead log is still the one on disk: the reader did not take it away.
    assert os.path.exists(f"{journal}-wal"), f"{reader} deleted the running bridge's -wal"
    assert os.path.exists(f"{journal}-shm"), f"{reader} deleted the running bridge's -shm"

    async def after():
        async with client(server.url) as ws:
            await _rolls(ws, "b", 4, acknowledged)

    run(after())
    # Other processes see what the bridge acknowledged since (it writes the file on disk).
    assert _count_entries(journal) == seen_before + 4
    server.kill()

    restarted = start_server(journal)

    async def check():
        async with client(restarted.url) as ws:
            await assert_journaled(ws, acknowledged)

    run(check())
    returncode, stderr = restarted.terminate()
    assert returncode == 0, stderr
