"""Group commit (issue 40): callers that arrive while a commit is being written share the next one,
and each still returns only once its own entries are durable."""

from __future__ import annotations

import contextlib
import sqlite3
import threading

from fracas.bridge.journal import Entry, Journal, JournalBusy, JournalError, digest


def entry(key: str) -> Entry:
    return Entry(key, "attack.resolve", digest("attack.resolve", b"{}"), b"{}", b'{"seed": 1}', "compiled",
                 "0.1.0", "2026-01-01T00:00:00.000+00:00")


def _wait_until(condition, what: str) -> None:
    event = threading.Event()
    for _ in range(2000):
        if condition():
            return
        event.wait(0.005)
    raise AssertionError(f"never happened: {what}")


def _callers(journal: Journal, keys: list[str]) -> tuple[list[threading.Thread], dict[str, object]]:
    outcomes: dict[str, object] = {}

    def call(key: str) -> None:
        try:
            outcomes[key] = journal.record([entry(key)])
        except JournalError as error:
            outcomes[key] = error

    threads = [threading.Thread(target=call, args=(key,)) for key in keys]
    return threads, outcomes


@contextlib.contextmanager
def _queued_behind_a_commit(journal: Journal, threads: list[threading.Thread]):
    """A commit (or retention) in progress holds the write lock: the first caller leads and
    waits for it, the others queue behind it; the body runs then, and the lock is let go after
    it (every caller is joined)."""
    journal._lock.acquire()
    try:
        threads[0].start()
        _wait_until(lambda: journal._leading, "the first caller leads")
        for thread in threads[1:]:
            thread.start()
        _wait_until(lambda: len(journal._queued) == len(threads) - 1, "the others queue behind it")
        yield
    finally:
        journal._lock.release()
        for thread in threads:
            thread.join(10)


def test_callers_queued_behind_a_commit_share_the_next_one(tmp_path):
    journal = Journal(tmp_path / "j.sqlite3")
    keys = [f'"k{i}"' for i in range(8)]
    threads, outcomes = _callers(journal, keys)
    with _queued_behind_a_commit(journal, threads):
        assert not outcomes  # nobody answered before its entry is on disk
    assert journal.groups == 2  # the first caller's commit, then one for the seven queued
    assert outcomes == {key: [entry(key)] for key in keys}
    with sqlite3.connect(tmp_path / "j.sqlite3") as db:  # durable: another connection reads them all
        assert sorted(row[0] for row in db.execute("SELECT id_key FROM entries")) == sorted(keys)
    journal.close()


def test_a_failed_group_fails_every_caller_in_it_and_writes_none(tmp_path):
    journal = Journal(tmp_path / "j.sqlite3", busy_wait=0.2)
    keys = [f'"k{i}"' for i in range(5)]
    threads, outcomes = _callers(journal, keys)
    other = sqlite3.connect(tmp_path / "j.sqlite3")
    other.execute("BEGIN IMMEDIATE")  # another process holds SQLite's write lock past the bounded wait
    with _queued_behind_a_commit(journal, threads):
        pass
    other.rollback()
    other.close()
    assert set(outcomes) == set(keys)
    for key in keys:
        error = outcomes[key]
        assert isinstance(error, JournalBusy), (key, error)
        assert "another process holds its write lock" in str(error)
    assert journal.count() == 0  # nothing of the failed groups was written: each caller may resend
    assert journal.record([entry('"k0"')]) == [entry('"k0"')]  # and the lock given back, writes work again
    journal.close()


def test_one_caller_alone_commits_at_once(tmp_path):
    journal = Journal(tmp_path / "j.sqlite3")
    for i in range(3):
        assert journal.record([entry(str(i))]) == [entry(str(i))]
    assert journal.groups == 3
    journal.close()
