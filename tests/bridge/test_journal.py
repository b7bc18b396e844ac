"""The SQLite journal: WAL on disk, persistence, first writer wins, clear errors."""

from __future__ import annotations

import sqlite3

import pytest

from fracas.bridge.journal import (
    WAL_LIMIT, Entry, Journal, JournalError, Retention, canonical, digest, id_key, now_utc,
)


def entry(key="1", result=b'{"seed": 1}', params=b"{}", method="attack.resolve"):
    return Entry(key, method, digest(method, params), params, result, "compiled", "0.1.0",
                 "2026-01-01T00:00:00.000+00:00")


def test_keys_and_digests():
    assert id_key(7) == "7" and id_key("7") == '"7"'
    assert canonical({"b": 1, "a": [2]}) == canonical({"a": [2], "b": 1}) == b'{"a":[2],"b":1}'
    assert digest("attack.resolve", b"{}") != digest("initiative.roll", b"{}")


def test_entries_survive_reopening_in_wal_mode(tmp_path):
    path = tmp_path / "deep" / "dir" / "journal.sqlite3"  # parents are created
    journal = Journal(path)
    assert journal.record([entry("1"), entry('"a"', b'{"seed": 2}')]) == [entry("1"), entry('"a"', b'{"seed": 2}')]
    journal.close()
    journal = Journal(path, sync="normal")
    assert journal.lookup("1") == entry("1")
    assert journal.lookup('"a"').request_id == "a"
    assert journal.lookup("2") is None and journal.count() == 2
    journal.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert db.execute("PRAGMA user_version").fetchone() == (1,)


def test_the_first_writer_wins(tmp_path):
    one, two = Journal(tmp_path / "j.sqlite3"), Journal(tmp_path / "j.sqlite3")
    one.record([entry("1", b'{"seed": 1}')])
    stored = two.record([entry("1", b'{"seed": 2}'), entry("2")])
    assert stored == [entry("1", b'{"seed": 1}'), entry("2")]
    assert one.lookup("1").result == b'{"seed": 1}'
    one.close()
    two.close()


def test_not_a_database(tmp_path):
    path = tmp_path / "notes.sqlite3"
    path.write_text("my campaign notes " * 200)
    with pytest.raises(JournalError, match=f"cannot use journal {path}: file is not a database"):
        Journal(path)


def test_a_newer_schema_is_refused(tmp_path):
    path = tmp_path / "j.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 9")
    with pytest.raises(JournalError, match="journal schema version 9; this fracas reads version 1"):
        Journal(path)


def test_unwritable_place(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(JournalError, match="cannot open journal"):
        Journal(blocker / "journal.sqlite3")


def test_sync_mode_is_checked():
    with pytest.raises(ValueError, match="journal sync must be one of"):
        Journal(":memory:", sync="off")


# ── retention (bridge hardening, finding 7: the journal once grew without bound) ─────────


def dated(key: str, when: str, size: int = 0) -> Entry:
    result = b'{"seed": 1, "pad": "' + b"x" * size + b'"}'
    return Entry(key, "attack.resolve", digest("attack.resolve", b"{}"), b"{}", result, "compiled", "0.1.0", when)


def test_retention_by_size_keeps_the_newest(tmp_path):
    retention = Retention(max_bytes=1 << 20, max_age_days=None, check_every=1)
    journal = Journal(tmp_path / "j.sqlite3", retention=retention)
    for n in range(200):  # 200 × 50 KB = 10 MB through a 1 MB journal
        journal.record([dated(f'"e{n}"', f"2026-11-23T10:{n // 60:02d}:{n % 60:02d}.000+00:00", 50_000)])
    assert journal.used_bytes() <= 1 << 20
    assert journal.lookup('"e199"') is not None and journal.lookup('"e0"') is None
    kept = journal.count()
    assert 5 < kept < 21
    # The newest ones are those kept.
    assert all(journal.lookup(f'"e{n}"') is not None for n in range(200 - kept, 200))
    journal.close()
    wal = tmp_path / "j.sqlite3-wal"
    assert not wal.exists() or wal.stat().st_size <= WAL_LIMIT


def test_retention_by_age_when_the_journal_opens(tmp_path):
    path = tmp_path / "j.sqlite3"
    journal = Journal(path)
    journal.record([dated('"old"', "2020-01-01T00:00:00.000+00:00"), dated('"new"', now_utc())])
    journal.close()
    journal = Journal(path, retention=Retention(max_age_days=30))
    assert journal.lookup('"old"') is None and journal.lookup('"new"') is not None
    journal.close()


def test_retention_is_checked():
    with pytest.raises(ValueError, match="journal retention must be positive"):
        Retention(max_bytes=0)
