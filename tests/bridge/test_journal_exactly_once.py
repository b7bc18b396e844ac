"""Exactly-once for every encounter change, and undone rounds under the journal's cap (issue 40,
items 4 and 5): an encounter change and its journal entry commit together or not at all, the
reply says truly what was applied, and a resend never applies twice."""

from __future__ import annotations

import copy
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from fracas.bridge.dispatcher import Dispatcher, Session
from fracas.bridge.journal import Journal, Retention

from .helpers import INITIATIVE, TOKEN, request

SCENARIOS = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
OS = json.loads((SCENARIOS / "os-goblin-ambush.json").read_text())


class Bridge:
    """A sans-I/O dispatcher on a journal file."""

    def __init__(self, path: Path, **journal_options) -> None:
        self.journal = Journal(path, **journal_options)
        self.dispatcher = Dispatcher(token=TOKEN, journal=self.journal)
        self.session = Session(peer="test", authenticated=True)

    def ask(self, message):
        return orjson.loads(self.dispatcher.handle(self.session, orjson.dumps(message).decode()).data)

    def round_of(self, name: str) -> int:
        reply = self.ask(request("show", "encounter.show", {"name": name}))
        return reply["result"]["round"]

    def close(self) -> None:
        self.journal.close()


@pytest.fixture
def bridge(tmp_path):
    bridge = Bridge(tmp_path / "journal.sqlite3")
    yield bridge
    bridge.close()


def _fail_writes_of(path: Path, method: str) -> None:
    """An injected write failure: the journal refuses entries of ``method`` (a trigger in the file)."""
    with sqlite3.connect(path) as db:
        db.execute(f"CREATE TRIGGER injected BEFORE INSERT ON entries WHEN NEW.method = '{method}'"
                   " BEGIN SELECT RAISE(ABORT, 'injected write failure'); END")


def _heal(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("DROP TRIGGER injected")


def _played(bridge: Bridge, rounds: int) -> None:
    assert "result" in bridge.ask(request("new", "encounter.new", {"name": "gob", "scenario": OS}))
    for i in range(rounds):
        assert "result" in bridge.ask(request(f"r{i}", "encounter.round", {"name": "gob", "seed": i}))


def test_an_undo_whose_entry_cannot_be_written_is_not_applied_and_its_resend_applies_once(bridge, tmp_path):
    """The undo was stored, the journal write failed, the reply said 'nothing was applied, send
    again', and the resend undid a second round."""
    path = tmp_path / "journal.sqlite3"
    _played(bridge, 2)
    _fail_writes_of(path, "encounter.undo")
    failed = bridge.ask(request("u", "encounter.undo", {"name": "gob"}))
    assert failed["error"]["code"] == -32603 and "nothing was applied" in failed["error"]["message"]
    assert bridge.round_of("gob") == 2  # what the reply says is true
    assert "injected write failure" in failed["error"]["message"]
    _heal(path)
    undone = bridge.ask(request("u", "encounter.undo", {"name": "gob"}))
    assert undone["result"]["round"] == 1
    assert bridge.ask(request("u", "encounter.undo", {"name": "gob"})) == undone  # a resend: the same answer
    assert bridge.round_of("gob") == 1  # one round undone, not two


@pytest.mark.parametrize("method", ["encounter.new", "encounter.round", "encounter.delete"])
def test_every_change_and_its_entry_commit_together(bridge, tmp_path, method):
    path = tmp_path / "journal.sqlite3"
    _played(bridge, 1)
    params = {"encounter.new": {"name": "gob", "scenario": OS, "replace": True},
              "encounter.round": {"name": "gob", "seed": 9},
              "encounter.delete": {"name": "gob"}}[method]
    _fail_writes_of(path, method)
    failed = bridge.ask(request("x", method, params))
    assert "nothing was applied" in failed["error"]["message"], failed
    assert bridge.round_of("gob") == 1  # not replaced at round 0, no round 2, not deleted
    _heal(path)
    first = bridge.ask(request("x", method, params))
    assert "result" in first, first
    assert bridge.ask(request("x", method, params)) == first
    listed = bridge.ask(request("l", "encounter.list", {}))["result"]
    expected = {"encounter.new": [0], "encounter.round": [2], "encounter.delete": []}[method]
    assert [e["round"] for e in listed] == expected


HOLDER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("held", flush=True)
time.sleep(float(sys.argv[2]))
db.execute("ROLLBACK")
"""


def hold_write_lock(path: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process holding the journal's write lock (BEGIN IMMEDIATE) for ``seconds``."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), str(seconds)],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_an_undo_with_the_journal_locked_by_another_process_fails_clearly_and_applies_once(bridge, tmp_path):
    """Another process held the lock for 12 s: the undo was stored, its entry was not, and the
    resend undid a second round. Now: a clear error after the bounded wait, nothing applied."""
    path = tmp_path / "journal.sqlite3"
    _played(bridge, 2)
    holder = hold_write_lock(path, 30)
    try:
        failed = bridge.ask(request("u", "encounter.undo", {"name": "gob"}))
        # Answered while the other process still holds the lock: the bounded wait (2 s), not
        # the other process's 30 s (an order, not a time: no threshold to flake on a busy machine).
        assert holder.poll() is None, "the undo waited until the other process let go"
    finally:
        holder.kill()
        holder.wait()
    error = failed["error"]
    assert error["code"] == -32603, failed
    assert "another process holds its write lock" in error["message"] and "nothing was applied" in error["message"]
    assert bridge.round_of("gob") == 2
    undone = bridge.ask(request("u", "encounter.undo", {"name": "gob"}))  # the lock is free again
    assert undone["result"]["round"] == 1
    assert bridge.ask(request("u", "encounter.undo", {"name": "gob"})) == undone
    assert bridge.round_of("gob") == 1


def test_a_batch_answers_an_applied_change_even_when_its_other_rolls_cannot_be_journaled(bridge, tmp_path):
    path = tmp_path / "journal.sqlite3"
    _played(bridge, 1)
    _fail_writes_of(path, "initiative.roll")
    answers = bridge.ask([request("u", "encounter.undo", {"name": "gob"}),
                          request("i", "initiative.roll", INITIATIVE)])
    assert "injected write failure" in answers[1]["error"]["message"]
    assert answers[0]["result"]["round"] == 0  # applied, and said so
    assert bridge.round_of("gob") == 0
    assert bridge.ask(request("u", "encounter.undo", {"name": "gob"})) == answers[0]


# ── undone rounds under the cap ─────────────────────────────────────────────


def _big_scenario(goblins: int) -> dict:
    scenario = copy.deepcopy(OS)
    scenario["sides"]["goblins"][0]["count"] = goblins
    return scenario


def _size(path: Path) -> int:
    return sum(os.path.getsize(f"{path}{suffix}") for suffix in ("", "-wal") if os.path.exists(f"{path}{suffix}"))


def test_round_undo_cycles_stay_within_the_cap(tmp_path):
    """With the cap at 8 MB, 20 round/undo cycles made a 99 MB file: undone rounds' logs were
    kept for ever and not counted."""
    path = tmp_path / "journal.sqlite3"
    cap = 192 << 10
    bridge = Bridge(path, retention=Retention(max_bytes=cap))
    try:
        made = bridge.ask(request("new", "encounter.new", {"name": "horde", "scenario": _big_scenario(400)}))
        assert "result" in made
        logs = 0
        for i in range(20):
            played = bridge.ask(request(f"r{i}", "encounter.round", {"name": "horde", "seed": i}))
            logs += len(orjson.dumps(played["result"]))
            assert bridge.ask(request(f"u{i}", "encounter.undo", {"name": "horde"}))["result"]["round"] == 0
        assert logs > 4 * cap  # the cycles wrote far more than the cap
        # Within the cap, plus the encounter itself (its scenario and state 0) and a round's log of slack.
        assert _size(path) <= cap + 3 * logs // 20 + len(orjson.dumps(made)) + (256 << 10), (_size(path), logs)
        kept = sqlite3.connect(path).execute(
            "SELECT count(*) FROM encounter_rounds WHERE undone = 1").fetchone()[0]
        assert kept <= 3
    finally:
        bridge.close()
