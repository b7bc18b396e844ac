"""The journal: every answered roll, in SQLite, written before its reply is sent.

One journal file is one idempotency namespace: the JSON-RPC ``id`` of a rolling
request (``attack.resolve``, ``attack.bulk``, ``initiative.roll``, ``morale.check``, ``compete.roll``, ``impale.resolve``) is its key, and
the same id again gets the recorded result instead of a new roll. The file is in
WAL mode; with ``sync="full"`` (the default) a commit survives a power cut, with
``"normal"`` it survives the bridge being killed but maybe not the machine.

The journal does not grow for ever (:class:`Retention`). Its size is measured after
every commit (the pages in use: two PRAGMAs, about 10 µs, less the pages of the file's
other tables, the encounter store, as last measured); the commit that takes the entries
past ``max_bytes`` deletes the oldest entries (never those it just wrote) until they fit.
Encounters are never deleted by retention and do not count toward the cap. Entries
older than ``max_age_days`` are deleted when it opens and every ``check_every`` commits.
The space of deleted entries goes back to the filesystem: the file uses
``auto_vacuum = INCREMENTAL`` (set before its tables exist; an older file is converted by
one ``VACUUM`` when the bridge opens it) and each deletion runs ``incremental_vacuum``,
then checkpoints and truncates the WAL, which is never kept larger than the cap (at most
``WAL_LIMIT``) once checkpointed. So the file stays within about one entry of the cap,
plus the encounters it keeps.
The file, its ``-wal`` and ``-shm`` are readable by their owner only (0600), in a 0700
directory when fracas makes it. A deleted entry's id may be used again (a resend that
old would roll anew).
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import errno
import logging
import os
import shutil
import sqlite3
import threading
from collections.abc import Iterable
from typing import Any

import orjson
from fracas.drive import canonical  # noqa: F401 - params as JSON with sorted keys: the engine's one encoding

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    id_key      TEXT PRIMARY KEY,  -- the JSON-RPC id as canonical JSON: 7 and "7" differ
    method      TEXT NOT NULL,
    digest      TEXT NOT NULL,     -- sha256 of method and canonical params
    params      BLOB NOT NULL,     -- canonical JSON (sorted keys)
    result      BLOB NOT NULL,     -- the result exactly as it was sent
    backend     TEXT NOT NULL,
    version     TEXT NOT NULL,     -- fracas version that rolled it
    recorded_at TEXT NOT NULL      -- UTC, ISO 8601
)
"""

_INDEX = "CREATE INDEX IF NOT EXISTS entries_recorded_at ON entries (recorded_at)"

#: The bytes of entries: their columns (id_key and recorded_at twice: the table and its
#: indexes) and, per row, ENTRY_OVERHEAD for rowids, record headers and cell pointers.
#: length() reads a blob's size from its record header, not its pages.
_ENTRY_BYTES = ("SELECT count(*), coalesce(sum(2 * length(id_key) + length(method) + length(digest)"
                " + length(params) + length(result) + length(backend) + length(version)"
                " + 2 * length(recorded_at)), 0) FROM entries")
ENTRY_OVERHEAD = 48

SYNC_MODES = ("full", "normal")

#: Bytes the WAL file is truncated to after a checkpoint (SQLite's journal_size_limit).
WAL_LIMIT = 64 << 20

logger = logging.getLogger("fracas.bridge")


@dataclasses.dataclass(frozen=True)
class Retention:
    """How long and how large the journal may grow; the oldest entries go first."""

    #: Bytes of entries past which the oldest are deleted (other tables of the file, the
    #: encounter store, are not counted).
    max_bytes: int = 512 << 20
    #: Entries older than this many days are deleted (None: kept whatever their age).
    max_age_days: float | None = 365
    #: Commits between two checks (and one when the journal opens).
    check_every: int = 256

    def __post_init__(self) -> None:
        if self.max_bytes <= 0 or self.check_every <= 0 or (self.max_age_days is not None
                                                             and self.max_age_days <= 0):
            raise ValueError(f"journal retention must be positive: {self}")


class JournalError(Exception):
    """The journal file cannot be opened or written (message names the file)."""


#: Free bytes below which a failed write is put down to a full disk.
FULL_DISK_BYTES = 1 << 20


def _why(path: str, error: BaseException) -> str:
    """The reason an SQLite or OS error gives, or that the disk is full when it is (SQLite
    says "database or disk is full" only sometimes: a full disk during recovery or a WAL
    write often comes out as "disk I/O error")."""
    directory = os.path.dirname(os.path.abspath(path))
    full = isinstance(error, OSError) and error.errno == errno.ENOSPC \
        or "disk is full" in str(error)
    if not full and isinstance(error, (sqlite3.Error, OSError)):
        try:
            full = shutil.disk_usage(directory).free < FULL_DISK_BYTES
        except OSError:
            pass
    if full:
        try:
            free = f"{shutil.disk_usage(directory).free:,} bytes free"
        except OSError:
            free = "no space left"
        return (f"the disk holding {directory} is full ({free}): free some space (fracas journal prune"
                f" --max-mb MB shrinks the journal) and try again [{error}]")
    return str(error)


def id_key(request_id: int | str) -> str:
    """The journal key of a JSON-RPC id."""
    return orjson.dumps(request_id).decode()


def digest(method: str, canonical_params: bytes) -> str:
    """What "the same request" means: same method, same canonical params."""
    return hashlib.sha256(method.encode() + b"\0" + canonical_params).hexdigest()


@dataclasses.dataclass(frozen=True)
class Entry:
    """One journaled answer."""

    id_key: str
    method: str
    digest: str
    params: bytes
    result: bytes
    backend: str
    version: str
    recorded_at: str

    def row(self) -> tuple[str, str, str, bytes, bytes, str, str, str]:
        """The entry as a table row, in column order."""
        return (self.id_key, self.method, self.digest, self.params, self.result, self.backend,
                self.version, self.recorded_at)

    @property
    def request_id(self) -> int | str:
        return orjson.loads(self.id_key)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view (the answer of ``journal.get``)."""
        return {
            "id": self.request_id,
            "method": self.method,
            "params": orjson.Fragment(self.params),
            "result": orjson.Fragment(self.result),
            "backend": self.backend,
            "version": self.version,
            "recorded_at": self.recorded_at,
        }


def now_utc() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


class Journal:
    """A SQLite journal shared by the bridge's worker threads.

    ``path`` may be ``":memory:"`` (tests). All access goes through one
    connection under a lock; statements are short (a primary-key lookup, one
    insert transaction per reply or batch), so the lock is never held while
    the engine works.
    """

    def __init__(self, path: str | os.PathLike[str], *, sync: str = "full",
                 retention: Retention | None = None) -> None:
        if sync not in SYNC_MODES:
            raise ValueError(f"journal sync must be one of {SYNC_MODES}, got {sync!r}")
        self.path = os.fspath(path)
        self.retention = retention
        self._commits = 0
        # Bytes of the file's pages in use that are not the journal's entries (the encounter
        # store the bridge keeps in the same file), as last measured.
        self._others = 0
        self._lock = threading.Lock()
        try:
            from fracas.store import private_file

            private_file(self.path)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as error:
            raise JournalError(f"cannot open journal {self.path}: {_why(self.path, error)}") from error
        try:
            self._setup(sync)
        except sqlite3.Error as error:
            self._db.close()
            raise JournalError(f"cannot use journal {self.path}: {_why(self.path, error)}") from error
        if retention is not None:
            self._incremental()
            self.enforce_retention()

    def _setup(self, sync: str) -> None:
        db = self._db
        db.execute("PRAGMA busy_timeout = 10000")
        # Before any table exists (a new file), so that deleted entries' pages can be given
        # back to the filesystem (incremental_vacuum); an older file is converted in _incremental.
        db.execute("PRAGMA auto_vacuum = INCREMENTAL")
        if self.path != ":memory:":
            mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise sqlite3.OperationalError(f"WAL mode refused (journal_mode is {mode})")
        db.execute(f"PRAGMA synchronous = {sync.upper()}")
        wal_limit = WAL_LIMIT if self.retention is None else min(WAL_LIMIT, self.retention.max_bytes)
        db.execute(f"PRAGMA journal_size_limit = {wal_limit}")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, SCHEMA_VERSION):
            raise sqlite3.DatabaseError(
                f"journal schema version {version}; this fracas reads version {SCHEMA_VERSION}"
            )
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(_SCHEMA)
            db.execute(_INDEX)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _incremental(self) -> None:
        """Convert a journal made before auto_vacuum was set (one VACUUM; it needs free space
        about the size of the file: if that fails, the journal works as before, unshrunk)."""
        if self.path == ":memory:" or self._db.execute("PRAGMA auto_vacuum").fetchone()[0] == 2:
            return
        logger.info("journal %s: converting it once so that deleted rolls give their space back"
                    " (VACUUM)", self.path)
        try:
            self._db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            self._db.execute("VACUUM")
        except sqlite3.Error as error:
            logger.warning("journal %s: not converted (%s); its file will not shrink", self.path,
                           _why(self.path, error))

    def lookup(self, key: str) -> Entry | None:
        """The entry journaled under ``key``, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT id_key, method, digest, params, result, backend, version, recorded_at"
                " FROM entries WHERE id_key = ?",
                (key,),
            ).fetchone()
        return None if row is None else Entry(*row)

    def record(self, entries: Iterable[Entry]) -> list[Entry]:
        """Write ``entries`` in one transaction; return what the journal now holds.

        An entry whose key another writer (another bridge on the same file)
        journaled first is not overwritten: the stored entry is returned in its
        place, so the caller answers with what is on disk.
        """
        entries = list(entries)
        if not entries:
            return []
        stored: list[Entry] = []
        with self._lock:
            db = self._db
            try:
                db.execute("BEGIN IMMEDIATE")
                for entry in entries:
                    cursor = db.execute(
                        "INSERT OR IGNORE INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        entry.row(),
                    )
                    if cursor.rowcount == 1:
                        stored.append(entry)
                    else:
                        row = db.execute(
                            "SELECT id_key, method, digest, params, result, backend, version,"
                            " recorded_at FROM entries WHERE id_key = ?",
                            (entry.id_key,),
                        ).fetchone()
                        stored.append(Entry(*row))
                db.execute("COMMIT")
            except sqlite3.Error as error:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise JournalError(f"cannot write journal {self.path}: {_why(self.path, error)}") from error
            self._commits += 1
            retention = self.retention
            due = retention is not None and (self._commits % retention.check_every == 0
                                             or self._over(retention.max_bytes))
        if due:
            try:
                self.enforce_retention(keep=[entry.id_key for entry in entries])
            except JournalError as error:  # the entries are committed; retention tries again later
                logger.error("%s", error)
        return stored

    def used_bytes(self) -> int:
        """Bytes of the database's pages in use (deleted entries' pages are reused, not counted)."""
        with self._lock:
            return self._used_bytes()

    def _used_bytes(self) -> int:
        db = self._db
        pages = db.execute("PRAGMA page_count").fetchone()[0] - db.execute("PRAGMA freelist_count").fetchone()[0]
        return int(pages * db.execute("PRAGMA page_size").fetchone()[0])

    def _entry_bytes(self, where: str = "", args: Iterable[Any] = ()) -> int:
        count, size = self._db.execute(_ENTRY_BYTES + where, tuple(args)).fetchone()
        return int(size) + ENTRY_OVERHEAD * int(count)

    def _over(self, max_bytes: int) -> bool:
        """Whether the entries take more than ``max_bytes``: the pages in use (two PRAGMAs)
        less the other tables' as last measured; measured again (one pass over the entries'
        record headers) only when that looks past the cap, so that encounters growing in
        the same file never count as rolls."""
        used = self._used_bytes()
        if used - self._others <= max_bytes:
            return False
        self._others = max(0, used - self._entry_bytes())
        return used - self._others > max_bytes

    def enforce_retention(self, retention: Retention | None = None, *, keep: Iterable[str] = ()) -> int:
        """Delete what ``retention`` (default: the journal's own) does not keep, oldest first but
        never the entries keyed in ``keep`` (those just written), and give their space back to
        the filesystem; how many entries."""
        retention = retention or self.retention
        if retention is None:
            return 0
        removed = 0
        kept = list(keep)
        spare = f" AND id_key NOT IN ({', '.join('?' * len(kept))})" if kept else ""
        with self._lock:
            db = self._db
            try:
                if retention.max_age_days is not None:
                    before = (datetime.datetime.now(datetime.timezone.utc)
                              - datetime.timedelta(days=retention.max_age_days)).isoformat(timespec="milliseconds")
                    removed += db.execute("DELETE FROM entries WHERE recorded_at < ?" + spare,
                                          (before, *kept)).rowcount
                entries = self._entry_bytes()
                while entries > retention.max_bytes:
                    # The oldest tenth (at least one) at a time, until what is left fits.
                    count = db.execute("SELECT count(*) FROM entries WHERE 1" + spare, kept).fetchone()[0]
                    if not count:
                        break
                    oldest = (" WHERE rowid IN (SELECT rowid FROM entries WHERE 1" + spare +
                              " ORDER BY recorded_at, rowid LIMIT ?)")
                    batch = (*kept, max(1, count // 10))
                    entries -= self._entry_bytes(oldest, batch)
                    removed += db.execute("DELETE FROM entries" + oldest, batch).rowcount
                    self._vacuum()
                if removed:
                    self._vacuum()
                    if self.path != ":memory:":
                        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                self._others = max(0, self._used_bytes() - entries)
            except sqlite3.Error as error:
                raise JournalError(f"cannot apply retention to journal {self.path}:"
                                   f" {_why(self.path, error)}") from error
        if removed:
            logger.info("journal %s: removed %d old entr%s (retention: %s days, %d MB)", self.path, removed,
                        "y" if removed == 1 else "ies", retention.max_age_days, retention.max_bytes >> 20)
        return removed

    def _vacuum(self) -> None:
        """Give the free pages back to the filesystem (with auto_vacuum INCREMENTAL; else nothing).

        Through executescript (sqlite3_exec, stepped to the end): the sqlite3 module's
        execute() steps this pragma once, which frees one page."""
        self._db.executescript("PRAGMA incremental_vacuum;")

    def recent(self, limit: int = 20) -> list[Entry]:
        """The newest ``limit`` entries, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id_key, method, digest, params, result, backend, version, recorded_at"
                " FROM entries ORDER BY recorded_at DESC, rowid DESC LIMIT ?", (limit,)).fetchall()
        return [Entry(*row) for row in rows]

    def prune(self, before: str) -> int:
        """Delete the entries recorded before the ISO time ``before``; returns how many.
        Their ids can then be used again (a resend of one would roll anew)."""
        with self._lock:
            cursor = self._db.execute("DELETE FROM entries WHERE recorded_at < ?", (before,))
            self._vacuum()
            if self.path != ":memory:":
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return cursor.rowcount

    def count(self) -> int:
        """Number of journaled entries."""
        with self._lock:
            return self._db.execute("SELECT count(*) FROM entries").fetchone()[0]

    def close(self) -> None:
        """Checkpoint the WAL and close the file."""
        with self._lock:
            try:
                if self.path != ":memory:":
                    self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                self._db.close()
