"""A damaged, emptied or deleted journal is never silently replaced, nor answered with a
traceback per request; fracas doctor checks its integrity, read only (issue 40, item 8)."""

from __future__ import annotations

import logging
import os
import sqlite3
import subprocess
import sys

import orjson
import pytest
from click.testing import CliRunner

from fracas.bridge.dispatcher import Dispatcher, Session
from fracas.bridge.journal import Entry, Journal, JournalDamaged, JournalError, Retention, now_utc

from .helpers import ATTACK, TOKEN, request


def _entries(count: int, size: int = 2_000) -> list[Entry]:
    return [Entry(id_key=f'"e{i}"', method="attack.resolve", digest=f"{i:064x}", params=b"{}",
                  result=orjson.dumps({"blob": os.urandom(size // 2).hex()}), backend="compiled",
                  version="0", recorded_at=now_utc()) for i in range(count)]


@pytest.fixture
def kept(tmp_path):
    """A journal with 100 rolls, closed (checkpointed: everything in the main file)."""
    path = tmp_path / "journal.sqlite3"
    journal = Journal(path)
    for entry in _entries(100):
        journal.record([entry])
    journal.close()
    assert not os.path.exists(f"{path}-wal") or os.path.getsize(f"{path}-wal") == 0
    return path


def _truncate(path, size) -> None:
    os.truncate(path, size)


def test_a_journal_truncated_after_a_checkpoint_is_refused_at_start_with_how_to_recover(kept):
    _truncate(kept, os.path.getsize(kept) // 2)
    with pytest.raises(JournalDamaged) as refused:
        Journal(kept, retention=Retention())
    message = str(refused.value)
    assert str(kept) in message and "damaged" in message
    assert f"mv {kept} {kept}.damaged" in message and ".recover" in message and "fracas doctor" in message


def test_fracas_serve_on_a_truncated_journal_says_so_and_stops(kept):
    _truncate(kept, os.path.getsize(kept) // 2)
    done = subprocess.run([sys.executable, "-m", "fracas.bridge", "--port", "0", "--journal", str(kept),
                           "--token", TOKEN, "--allow-no-origin"], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "damaged" in done.stderr and "to recover" in done.stderr and "Traceback" not in done.stderr


def test_one_corrupt_page_is_refused_as_damage_not_as_a_retention_failure(kept):
    """It stopped the start with a misleading 'cannot apply retention … malformed'."""
    page = sqlite3.connect(kept).execute("PRAGMA page_size").fetchone()[0]
    with open(kept, "r+b") as file:  # the bridge is not running: no SQLite lock to lose
        file.seek(page * 5)
        file.write(b"\xff" * page)
    with pytest.raises(JournalDamaged) as refused:
        Journal(kept, retention=Retention())
    message = str(refused.value)
    assert "retention" not in message and "damaged" in message and "to recover" in message


@pytest.mark.parametrize("how", ["deleted", "emptied"])
def test_a_journal_deleted_or_emptied_is_never_recreated_empty(kept, how):
    """A 0-byte or deleted journal was silently recreated: 100 rolls and an encounter gone,
    every old id rolled anew."""
    if how == "deleted":
        os.remove(kept)
    else:
        _truncate(kept, 0)
    with pytest.raises(JournalDamaged) as refused:
        Journal(kept)
    message = str(refused.value)
    assert ("missing" if how == "deleted" else "empty (0 bytes)") in message
    assert f"{kept}.made" in message and "Restore it from a backup" in message
    assert how == "emptied" or not os.path.exists(kept)  # nothing made in its place
    # Starting afresh on purpose: delete the marker.
    os.remove(f"{kept}.made")
    Journal(kept).close()


def test_a_first_start_makes_a_journal_and_its_marker(tmp_path):
    path = tmp_path / "new" / "journal.sqlite3"
    Journal(path).close()
    assert os.path.exists(path) and os.path.exists(f"{path}.made")
    assert os.stat(f"{path}.made").st_mode & 0o777 == 0o600


def _dispatcher(path):
    journal = Journal(path)
    dispatcher = Dispatcher(token=TOKEN, journal=journal)
    session = Session(peer="t", authenticated=True)

    def ask(message):
        return orjson.loads(dispatcher.handle(session, orjson.dumps(message).decode()).data)

    return journal, ask


def test_a_journal_truncated_while_the_bridge_runs_answers_a_clear_error_logged_once(kept, caplog):
    """Every request answered 'internal error', with a traceback per request in the log."""
    caplog.set_level(logging.ERROR, logger="fracas.bridge")
    journal, ask = _dispatcher(kept)
    try:
        _truncate(kept, os.path.getsize(kept) // 3)
        for i in range(95, 100):
            reply = ask(request(f"e{i}", "attack.resolve", ATTACK))  # journaled in the pages cut off
            assert "error" in reply, reply
            assert "damaged" in reply["error"]["message"] and "nothing was" in reply["error"]["message"]
        assert "result" in ask(request("info", "server.info"))  # what needs no journal answers
    finally:
        try:
            journal.close()
        except sqlite3.Error:
            pass
    text = caplog.text
    assert "Traceback" not in text and "unexpected error" not in text
    assert sum("damaged" in record.getMessage() for record in caplog.records) <= 1


def test_a_journal_deleted_while_the_bridge_runs_acknowledges_nothing_more(kept):
    journal, ask = _dispatcher(kept)
    try:
        assert "result" in ask(request("before", "attack.resolve", ATTACK))
        os.remove(kept)
        reply = ask(request("after", "attack.resolve", ATTACK))
        assert "deleted while the bridge ran" in reply["error"]["message"]
    finally:
        journal.close()
    with pytest.raises(JournalError, match="missing"):
        Journal(kept)


# ── fracas doctor ───────────────────────────────────────────────────────────


def _doctor(tmp_path, monkeypatch):
    from fracas.cli import main

    monkeypatch.setenv("FRACAS_HOME", str(tmp_path))
    return CliRunner().invoke(main, ["doctor", "--port", "1"])


def _files(path):
    return {suffix: (os.stat(f"{path}{suffix}").st_size, os.stat(f"{path}{suffix}").st_mtime_ns)
            for suffix in ("", "-wal", "-shm", ".made") if os.path.exists(f"{path}{suffix}")}


def test_doctor_checks_the_journal_read_only(kept, monkeypatch):
    before = _files(kept)
    result = _doctor(kept.parent, monkeypatch)
    line = next(line for line in result.output.splitlines() if line.strip().startswith("journal"))
    assert "intact" in line and "100 journaled entries" in line and "[ok]" in line, result.output
    assert _files(kept) == before  # nothing written, not even a -wal or -shm


def test_doctor_reports_a_damaged_journal_and_how_to_recover(kept, monkeypatch):
    _truncate(kept, os.path.getsize(kept) // 2)
    result = _doctor(kept.parent, monkeypatch)
    assert result.exit_code == 1
    line = next(line for line in result.output.splitlines() if line.strip().startswith("journal"))
    assert "damaged" in line and "to recover" in line and "[problem]" in line


def test_doctor_reports_a_deleted_journal(kept, monkeypatch):
    os.remove(kept)
    result = _doctor(kept.parent, monkeypatch)
    assert result.exit_code == 1 and "missing" in result.output and "[problem]" in result.output
