"""The journal's cap holds on every commit, its space goes back to the filesystem, its files
are private, and a full disk is called a full disk (issue 31, items 3, 6 and 7)."""

from __future__ import annotations

import os
import sqlite3
import stat

import orjson
import pytest

from fracas.bridge import journal as journal_module
from fracas.bridge.journal import Entry, Journal, JournalError, Retention, now_utc

from .helpers import REPO, bulk, client, request, run, start_server

MB = 1 << 20


def _size(path) -> int:
    """The journal on disk: the file and its write-ahead log."""
    return sum(os.path.getsize(f"{path}{suffix}") for suffix in ("", "-wal") if os.path.exists(f"{path}{suffix}"))


def _entry(i: int, size: int) -> Entry:
    return Entry(id_key=f'"e{i}"', method="attack.resolve", digest=f"{i:064x}", params=b"{}",
                 result=orjson.dumps({"blob": os.urandom(size // 2).hex()}), backend="compiled",
                 version="0", recorded_at=now_utc())


def test_the_cap_holds_on_the_commit_that_crosses_it_and_the_file_shrinks(tmp_path):
    """Retention ran every 256 commits: --journal-max-mb 1 grew to 265 MB in 8 s of 6 MB
    results, and the file never shrank (63,025 free pages, no vacuum)."""
    path = tmp_path / "journal.sqlite3"
    journal = Journal(path, retention=Retention(max_bytes=1 * MB))
    try:
        largest = 0
        for i in range(40):  # 40 commits of ~400 KB: 16 MB written, far fewer than 256 commits
            entry = _entry(i, 400_000)
            largest = max(largest, len(entry.result))
            assert journal.record([entry])[0] == entry
            # Within the cap plus the entry just written (never deleted: its reply is not sent yet).
            assert journal.used_bytes() <= 1 * MB + largest + 64 << 10
            assert _size(path) <= 1 * MB + 2 * largest + MB
            assert journal.lookup(entry.id_key) == entry
        assert journal.lookup('"e0"') is None  # the oldest went first
        with sqlite3.connect(path) as db:
            assert db.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # incremental
            assert db.execute("PRAGMA freelist_count").fetchone()[0] == 0  # free pages given back
    finally:
        journal.close()


def test_an_older_journal_is_converted_once_to_give_space_back(tmp_path):
    path = tmp_path / "journal.sqlite3"
    Journal(path).close()
    with sqlite3.connect(path) as db:  # as fracas 0.1 made it: auto_vacuum none
        db.execute("PRAGMA auto_vacuum = NONE")
        db.execute("VACUUM")
        assert db.execute("PRAGMA auto_vacuum").fetchone()[0] == 0
    journal = Journal(path)
    for i in range(20):
        journal.record([_entry(i, 200_000)])
    journal.close()
    before = os.path.getsize(path)
    journal = Journal(path, retention=Retention(max_bytes=1 * MB))  # the bridge opens it
    journal.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA auto_vacuum").fetchone()[0] == 2
        assert db.execute("PRAGMA freelist_count").fetchone()[0] == 0
    assert os.path.getsize(path) <= 1 * MB + 400_000 < before


def test_a_burst_of_large_results_keeps_a_1_mb_journal_within_a_few_mb(tmp_path):
    """The acceptance test, through a real bridge: --journal-max-mb 1 and 24 results of ~1 MB."""
    path = tmp_path / "journal.sqlite3"
    server = start_server(path, "--journal-max-mb", "1", "--journal-sync", "normal")
    sizes = []

    async def burst():
        async with client(server.url, max_size=None) as ws:
            for i in range(24):
                await ws.send(orjson.dumps(request(f"big-{i}", "attack.bulk",
                                                   bulk(2000, detail="dice", seed=i))).decode())
                reply = orjson.loads(await ws.recv())
                assert "result" in reply, reply
                sizes.append(_size(path))

    run(burst())
    assert server.terminate()[0] == 0
    assert max(sizes) <= 4 * MB, sizes  # ~24 MB were written
    assert _size(path) <= 4 * MB


def test_journal_files_are_private(tmp_path):
    """The journal (every request, result and encounter) was made 0644 in a 0755 directory."""
    old = os.umask(0o022)
    try:
        path = tmp_path / "new" / "home" / "journal.sqlite3"
        journal = Journal(path, retention=Retention())
        journal.record([_entry(1, 1000)])
        assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
        for suffix in ("", "-wal", "-shm"):
            assert stat.S_IMODE(os.stat(f"{path}{suffix}").st_mode) == 0o600, suffix
        journal.close()
        # A journal an older fracas made world-readable is tightened when opened.
        os.chmod(path, 0o644)
        Journal(path).close()
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    finally:
        os.umask(old)


def test_the_encounter_store_makes_its_file_private_too(tmp_path):
    from fracas.store import EncounterStore

    old = os.umask(0o022)
    try:
        store = EncounterStore(str(tmp_path / "fresh" / "journal.sqlite3"))
        store.close()
        assert stat.S_IMODE(os.stat(tmp_path / "fresh").st_mode) == 0o700
        assert stat.S_IMODE(os.stat(tmp_path / "fresh" / "journal.sqlite3").st_mode) == 0o600
    finally:
        os.umask(old)


@pytest.mark.parametrize("error", ["disk I/O error", "database or disk is full"])
def test_a_full_disk_is_called_a_full_disk(tmp_path, monkeypatch, error):
    """A restart on a full disk said "disk I/O error" (SQLite's word when the WAL cannot grow)."""
    class Usage:
        free = 0

    def full_setup(self, sync):
        raise sqlite3.OperationalError(error)

    monkeypatch.setattr(journal_module.shutil, "disk_usage", lambda _path: Usage)
    monkeypatch.setattr(Journal, "_setup", full_setup)
    with pytest.raises(JournalError) as raised:
        Journal(tmp_path / "journal.sqlite3")
    message = str(raised.value)
    assert f"the disk holding {tmp_path} is full (0 bytes free)" in message
    assert "fracas journal prune --max-mb" in message and error in message


def test_an_io_error_with_free_space_is_not_called_a_full_disk(tmp_path, monkeypatch):
    def failing_setup(self, sync):
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(Journal, "_setup", failing_setup)
    with pytest.raises(JournalError, match="disk I/O error") as raised:
        Journal(tmp_path / "journal.sqlite3")
    assert "full" not in str(raised.value)


def test_encounters_in_the_same_file_neither_count_toward_the_cap_nor_wipe_the_journal(tmp_path):
    """The bridge keeps its encounters in the journal's file. Their rounds are not the
    journal's rolls and retention never deletes them; measured with them, a file past the cap
    made every commit delete every older roll (a resend of any of them would then roll anew)
    while the file stayed past the cap all the same."""
    from fracas.drive.encounter import Encounter
    from fracas.store import EncounterStore

    path = tmp_path / "journal.sqlite3"
    cap = 128 << 10
    journal = Journal(path, retention=Retention(max_bytes=cap, max_age_days=None))
    store = EncounterStore(str(path))
    try:
        horde = orjson.loads((REPO / "examples" / "scenarios" / "er-skeleton-horde.json").read_bytes())
        horde["sides"]["skeletons"][0]["count"] = 100
        for k in range(4):
            encounter = Encounter.new(f"crypt {k}", horde, store=store)
            for seed in range(3):
                if not encounter.fight.over:
                    encounter.round(seed=seed)
        assert journal.used_bytes() > 2 * cap  # the encounters alone are past the cap
        rounds = {e["name"]: e["round"] for e in Encounter.list(store=store)}
        small = [_entry(i, 2_000) for i in range(30)]  # ~60 KB of rolls: within the cap
        for entry in small:
            journal.record([entry])
        assert all(journal.lookup(entry.id_key) == entry for entry in small)
        # Rolls past the cap still go, oldest first, and the encounters stay as they were.
        large = [_entry(100 + i, 20_000) for i in range(20)]  # ~400 KB more
        for entry in large:
            journal.record([entry])
        assert journal.lookup(small[0].id_key) is None and journal.lookup(large[-1].id_key) == large[-1]
        kept = sum(journal.lookup(entry.id_key) is not None for entry in small + large)
        assert 4 <= kept < len(small) + len(large)
        assert {e["name"]: e["round"] for e in Encounter.list(store=store)} == rounds
    finally:
        store.close()
        journal.close()
