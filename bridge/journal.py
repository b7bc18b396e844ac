"""The journal: every answered roll, in SQLite, written before its reply is sent.

One journal file is one idempotency namespace: the JSON-RPC ``id`` of a rolling
request (``attack.resolve``, ``attack.bulk``, ``initiative.roll``, ``morale.check``, ``compete.roll``, ``impale.resolve``) is its key, and
the same id again gets the recorded result instead of a new roll. The file is in
WAL mode; with ``sync="full"`` (the default) a commit survives a power cut, with
``"normal"`` it survives the bridge being killed but maybe not the machine.

The journal does not grow for ever (:class:`Retention`). Its size is measured (the pages
in use: three PRAGMAs, less the pages of the file's other tables, the encounter store, as
last measured) after any commit that could have taken the entries past ``max_bytes``: the
bytes written since the last measure are counted generously (twice each entry's bytes, and a
page a commit), and once they could fill the room then left, the pages are measured again;
the commit that takes the entries past ``max_bytes`` deletes the oldest entries (never those
it just wrote) until they fit. (Another process writing the same file is counted at the
next measure, at the latest ``check_every`` commits later; its own retention counts its
writes.)
Encounters are never deleted by retention and do not count toward the cap. Entries
older than ``max_age_days`` are deleted when it opens and every ``check_every`` commits.
The space of deleted entries goes back to the filesystem: the file uses
``auto_vacuum = INCREMENTAL`` (set before its tables exist; an older file is converted by
one ``VACUUM`` when the bridge opens it) and each deletion runs ``incremental_vacuum``,
then checkpoints and truncates the WAL, which is never kept larger than the cap (at most
``WAL_LIMIT``) once checkpointed. So the file stays within about one entry of the cap,
plus the encounters it keeps.
The logs of undone encounter rounds (kept in the same file by the encounter store) count
toward ``max_bytes`` with the entries, and go with them oldest first (by the time they
were recorded; the store also keeps only the newest ``UNDONE_KEPT`` undone rounds per
encounter).

The file, its ``-wal`` and ``-shm`` are readable by their owner only (0600), in a 0700
directory when fracas makes it. A deleted entry's id may be used again (a resend that
old would roll anew).

Locks: lookups read through a connection of their own (WAL readers never wait for a
writer), so another process holding the write lock stalls only writes; a write waits at
most ``busy_wait`` seconds (BUSY_WAIT) for it, then fails with :class:`JournalBusy`,
nothing written.

Damage is never papered over: the journal is checked (``PRAGMA quick_check``) when it
opens, and a damaged one is refused (:class:`JournalDamaged`, saying how to recover); a
journal that was made before (its ``.made`` marker says so) but is now missing or empty
is refused too, never recreated empty (``fracas.store.check_kept``); a file deleted or
replaced while the bridge runs stops every write (nothing more is acknowledged).
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
import time
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

#: Seconds a write waits for another process's write lock before it fails (JournalBusy).
BUSY_WAIT = 2.0

#: The bytes of undone rounds' logs (the encounter store's), counted with the entries.
_UNDONE_BYTES = ("SELECT count(*), coalesce(sum(length(log) + 2 * length(name) + length(seed)"
                 " + 2 * length(recorded_at) + coalesce(length(request_key), 0)), 0)"
                 " FROM encounter_rounds WHERE undone = 1")

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


class JournalBusy(JournalError):
    """Another process held the journal's write lock for longer than the bounded wait."""


class JournalDamaged(JournalError):
    """The journal file is damaged, missing or replaced (the message says how to recover)."""


def recovery(path: str) -> str:
    """How to recover from a damaged journal (the same words at start, in replies and in doctor)."""
    return (f"stop every fracas serve using it, move it aside (mv {path} {path}.damaged, and its -wal"
            f" and -shm beside it), then restore a backup copy to {path}, or salvage what is readable"
            f" (sqlite3 {path}.damaged .recover | sqlite3 {path}), or start a new empty journal by"
            f" deleting {path}.made too (every roll and encounter in it is then gone from the bridge);"
            " fracas doctor checks the journal")


def _damage(error: BaseException) -> bool:
    """Whether an SQLite error says the file is damaged (not busy, not full)."""
    text = str(error).lower()
    return isinstance(error, sqlite3.DatabaseError) and any(
        word in text for word in ("malformed", "not a database", "disk image", "corrupt", "file is not"))


#: Free bytes below which a failed write is put down to a full disk.
FULL_DISK_BYTES = 1 << 20


def _why(path: str, error: BaseException, wait: float | None = None) -> str:
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
    if wait is not None and "locked" in str(error).lower():
        return (f"another process holds its write lock (waited {wait:g} s for it: another fracas serve,"
                f" fracas journal prune or a program with the file open in a write transaction)"
                f" [{error}]")
    if _damage(error):
        return f"{error}: the file is damaged (or not a journal), so it is not used; to recover, {recovery(path)}"
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


class _Ticket:
    """One caller's entries waiting in a group commit, and how their commit went."""

    __slots__ = ("entries", "stored", "error")

    def __init__(self, entries: list[Entry]) -> None:
        self.entries = entries
        self.stored: list[Entry] | None = None
        self.error: BaseException | None = None

    def outcome(self) -> list[Entry]:
        error = self.error
        if error is not None:
            if isinstance(error, JournalError):  # each caller raises its own (one traceback each)
                raise type(error)(*error.args) from error
            raise error
        assert self.stored is not None
        return self.stored


class Journal:
    """A SQLite journal shared by the bridge's worker threads.

    ``path`` may be ``":memory:"`` (tests). All access goes through one
    connection under a lock; statements are short (a primary-key lookup, one
    insert transaction per reply or batch), so the lock is never held while
    the engine works.
    """

    def __init__(self, path: str | os.PathLike[str], *, sync: str = "full",
                 retention: Retention | None = None, busy_wait: float = BUSY_WAIT,
                 check: bool = True) -> None:
        if sync not in SYNC_MODES:
            raise ValueError(f"journal sync must be one of {SYNC_MODES}, got {sync!r}")
        self.path = os.fspath(path)
        self.retention = retention
        #: Seconds a write waits for another process's write lock.
        self.busy_wait = busy_wait
        self._commits = 0
        self._busy_ms = int(busy_wait * 1000)
        self._shortened = False
        #: Group commit (record): the tickets waiting for the next commit, whether a thread is
        #: writing one now, and the condition they wait on.
        self._group = threading.Condition(threading.Lock())
        self._queued: list[_Ticket] = []
        self._leading = False
        #: Commits made by record (each holding one or more callers' entries).
        self.groups = 0
        # Bytes of the file's pages in use that are not the journal's entries (the encounter
        # store the bridge keeps in the same file), as last measured.
        self._others = 0
        # Bytes this bridge may still write before the pages are measured again (_over): the
        # room left under the cap at the last measure (negative: measure at the next commit).
        self._headroom = -1
        #: The write connection's lock (writes, retention); reads have their own.
        self._lock = threading.Lock()
        self._read_lock = self._lock
        self._identity: tuple[int, int] | None = None
        self._damage_logged = False
        try:
            from fracas.store import StoreError, check_kept, private_file

            check_kept(self.path)
            private_file(self.path)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except StoreError as error:
            raise JournalDamaged(str(error)) from None
        except (OSError, sqlite3.Error) as error:
            raise JournalError(f"cannot open journal {self.path}: {_why(self.path, error)}") from error
        self._reader = self._db
        try:
            self._setup(sync)
            if check and self.path != ":memory:":
                self._check()
            if self.path != ":memory:":
                self._reader = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
                self._reader.execute("PRAGMA query_only = ON")
                self._read_lock = threading.Lock()
                stat = os.stat(self.path)
                self._identity = (stat.st_dev, stat.st_ino)
        except sqlite3.Error as error:
            self._close_all()
            if _damage(error):
                raise JournalDamaged(f"cannot use journal {self.path}: {_why(self.path, error)}") from error
            raise JournalError(f"cannot use journal {self.path}: {_why(self.path, error)}") from error
        except OSError as error:
            self._close_all()
            raise JournalError(f"cannot use journal {self.path}: {_why(self.path, error)}") from error
        except JournalError:
            self._close_all()
            raise
        if self.path != ":memory:":
            from fracas.store import mark_kept

            mark_kept(self.path)
        if retention is not None:
            self._incremental()
            try:
                self.enforce_retention()
            except JournalError:
                self._close_all()
                raise

    def _close_all(self) -> None:
        if self._reader is not self._db:
            self._reader.close()
        self._db.close()

    def _check(self) -> None:
        """Refuse a damaged file (``PRAGMA quick_check``: every page read once, about a second per GB)."""
        problems = [row[0] for row in self._db.execute("PRAGMA quick_check(5)").fetchall()]
        if problems != ["ok"]:
            raise JournalDamaged(f"cannot use journal {self.path}: it is damaged (PRAGMA quick_check: "
                                 f"{'; '.join(problems)}), so it is not used; to recover, {recovery(self.path)}")

    def check_file(self) -> None:
        """Raise JournalDamaged if the file was deleted or replaced since it was opened: a
        write would then go to a file nobody finds again (its rolls lost at the next start)."""
        if self._identity is None:
            return
        try:
            stat = os.stat(self.path)
            now = (stat.st_dev, stat.st_ino)
        except OSError:
            now = None
        if now != self._identity:
            error = JournalDamaged(
                f"journal {self.path} was {'deleted' if now is None else 'replaced'} while the bridge ran,"
                " so nothing more is journaled or answered with a roll: restore it (or move the new file"
                " aside) and restart the bridge, which will say what it finds")
            self._log_damage(error)
            raise error

    def _log_damage(self, error: BaseException) -> None:
        """Log a damaged journal once (not once per request)."""
        if not self._damage_logged:
            self._damage_logged = True
            logger.error("%s", error)

    def _failed(self, doing: str, error: sqlite3.Error, wait: float | None = None) -> JournalError:
        """The JournalError of a failed statement: busy, damaged (logged once) or else."""
        if wait is not None and "locked" in str(error).lower():
            return JournalBusy(f"cannot {doing} journal {self.path}: {_why(self.path, error, wait)}")
        if _damage(error):
            damaged = JournalDamaged(f"cannot {doing} journal {self.path}: {_why(self.path, error)}")
            self._log_damage(damaged)
            return damaged
        return JournalError(f"cannot {doing} journal {self.path}: {_why(self.path, error)}")

    def _begin(self) -> float:
        """Take the write lock (this process's, then SQLite's) within ``busy_wait`` seconds;
        raise JournalBusy past it. The caller holds ``self._lock`` after this returns."""
        deadline = time.monotonic() + self.busy_wait
        if not self._lock.acquire(timeout=self.busy_wait):
            raise JournalBusy(f"cannot write journal {self.path}: another process holds its write lock (this"
                              f" bridge's writes waited {self.busy_wait:g} s for it)")
        try:
            left = int(max(0.0, deadline - time.monotonic()) * 1000)
            if left < self._busy_ms:  # the in-process wait took part of it (a PRAGMA costs ~2 µs)
                self._db.execute(f"PRAGMA busy_timeout = {left}")
                self._shortened = True
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            self._end()
            self._lock.release()
            raise self._failed("write", error, self.busy_wait) from error
        except BaseException:
            self._end()
            self._lock.release()
            raise
        return deadline

    def _end(self) -> None:
        """Give SQLite's wait its full length back after :meth:`_begin` shortened it."""
        if self._shortened:
            self._shortened = False
            try:
                self._db.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
            except sqlite3.Error:  # a damaged or closed file: its next write says so
                pass

    def _setup(self, sync: str) -> None:
        db = self._db
        db.execute(f"PRAGMA busy_timeout = {int(self.busy_wait * 1000)}")
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
        with self._read_lock:
            try:
                row = self._reader.execute(
                    "SELECT id_key, method, digest, params, result, backend, version, recorded_at"
                    " FROM entries WHERE id_key = ?",
                    (key,),
                ).fetchone()
            except sqlite3.Error as error:
                raise self._failed("read", error) from error
        return None if row is None else Entry(*row)

    def record(self, entries: Iterable[Entry]) -> list[Entry]:
        """Write ``entries`` durably; return what the journal now holds for them.

        Group commit: the threads that call this while a commit is being written queue their
        entries; when it is done, one of them (the next leader) writes every queued entry in one
        transaction (one fsync with ``sync="full"``) and wakes the others. Each caller returns
        only once its own entries are committed (or raises the JournalError that failed the
        group: then none of the group's entries was written, and each caller says so). So
        concurrent clients share commits, and nothing is acknowledged before it is on disk.

        An entry whose key another writer (another bridge on the same file) journaled first is
        not overwritten: the stored entry is returned in its place, so the caller answers with
        what is on disk.
        """
        entries = list(entries)
        if not entries:
            return []
        ticket = _Ticket(entries)
        group = self._group
        with group:
            self._queued.append(ticket)
            while ticket.stored is None and ticket.error is None and self._leading:
                group.wait()
            if ticket.stored is not None or ticket.error is not None:
                return ticket.outcome()
            # This thread leads the next group: every ticket queued so far.
            self._leading = True
            tickets, self._queued = self._queued, []
        try:
            try:
                stored = self._commit([entry for queued in tickets for entry in queued.entries])
            except BaseException as error:  # every ticket of the group failed with it
                for queued in tickets:
                    queued.error = error
            else:
                at = 0
                for queued in tickets:
                    queued.stored = stored[at:at + len(queued.entries)]
                    at += len(queued.entries)
        finally:
            with group:
                self._leading = False
                self.groups += 1
                group.notify_all()
        return ticket.outcome()

    def _commit(self, entries: list[Entry]) -> list[Entry]:
        """Write ``entries`` in one transaction; run retention when it is due."""
        self.check_file()
        self._begin()
        try:
            db = self._db
            try:
                stored = [insert(db, entry) for entry in entries]
                db.execute("COMMIT")
            except sqlite3.Error as error:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise self._failed("write", error) from error
            self._commits += 1
            retention = self.retention
            # Pages are measured only once the bytes written since the last measure could have
            # used up the room then left under the cap (counted generously: each entry's bytes
            # as _ENTRY_BYTES counts them, twice for half-filled pages, and a page a commit).
            self._headroom -= sum(2 * (_row_bytes(entry) + ENTRY_OVERHEAD) for entry in entries) + PAGE_SLACK
            due = retention is not None and (self._commits % retention.check_every == 0
                                             or (self._headroom < 0 and self._over(retention.max_bytes)))
        finally:
            self._end()
            self._lock.release()
        if due:
            try:
                self.enforce_retention(keep=[entry.id_key for entry in entries])
            except JournalError as error:  # the entries are committed; retention tries again later
                logger.error("%s", error)
        return stored

    def committed(self) -> None:
        """Count a commit made elsewhere on the file (an encounter change written with its entry
        by the encounter store): retention runs when it is due, as after :meth:`record`."""
        retention = self.retention
        if retention is None:
            return
        with self._lock:
            self._commits += 1
            try:
                due = self._commits % retention.check_every == 0 or self._over(retention.max_bytes)
            except sqlite3.Error as error:
                logger.error("%s", self._failed("measure", error))
                return
        if due:
            try:
                self.enforce_retention()
            except JournalError as error:
                logger.error("%s", error)

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

    def _undone_bytes(self, where: str = "", args: Iterable[Any] = ()) -> int:
        """Bytes of the undone rounds' logs (0 when the file has no encounter store)."""
        try:
            count, size = self._db.execute(_UNDONE_BYTES + where, tuple(args)).fetchone()
        except sqlite3.OperationalError as error:
            if "no such table" in str(error):
                return 0
            raise
        return int(size) + ENTRY_OVERHEAD * int(count)

    def _over(self, max_bytes: int) -> bool:
        """Whether the entries take more than ``max_bytes``: the pages in use (two PRAGMAs)
        less the other tables' as last measured; measured again (one pass over the entries'
        record headers) only when that looks past the cap, so that encounters growing in
        the same file never count as rolls."""
        used = self._used_bytes()
        if used - self._others <= max_bytes:
            self._headroom = max_bytes - (used - self._others)
            return False
        self._others = max(0, used - self._entry_bytes() - self._undone_bytes())
        self._headroom = max_bytes - (used - self._others)
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
                rounds = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table'"
                                    " AND name = 'encounter_rounds'").fetchone() is not None
                if retention.max_age_days is not None:
                    before = (datetime.datetime.now(datetime.timezone.utc)
                              - datetime.timedelta(days=retention.max_age_days)).isoformat(timespec="milliseconds")
                    removed += db.execute("DELETE FROM entries WHERE recorded_at < ?" + spare,
                                          (before, *kept)).rowcount
                    if rounds:
                        removed += db.execute("DELETE FROM encounter_rounds WHERE undone = 1 AND recorded_at < ?",
                                              (before,)).rowcount
                entries = self._entry_bytes() + (self._undone_bytes() if rounds else 0)
                # Both kinds, oldest first: journal entries (kind 0) and undone rounds' logs (kind 1).
                both = (f"SELECT 0 AS kind, rowid AS r, recorded_at AS at FROM entries WHERE 1{spare}"
                        + (" UNION ALL SELECT 1, rowid, recorded_at FROM encounter_rounds WHERE undone = 1"
                           if rounds else ""))
                while entries > retention.max_bytes:
                    # The oldest tenth (at least one) at a time, until what is left fits.
                    count = db.execute(f"SELECT count(*) FROM ({both})", kept).fetchone()[0]
                    if not count:
                        break
                    picked = db.execute(f"SELECT kind, r FROM ({both}) ORDER BY at, kind, r LIMIT ?",
                                        (*kept, max(1, count // 10))).fetchall()
                    ids = [orjson.dumps([r for kind, r in picked if kind == k]).decode() for k in (0, 1)]
                    chosen = " WHERE rowid IN (SELECT value FROM json_each(?))"
                    entries -= self._entry_bytes(chosen, (ids[0],))
                    removed += db.execute("DELETE FROM entries" + chosen, (ids[0],)).rowcount
                    if rounds:
                        entries -= self._undone_bytes(" AND rowid IN (SELECT value FROM json_each(?))", (ids[1],))
                        removed += db.execute("DELETE FROM encounter_rounds" + chosen, (ids[1],)).rowcount
                    self._vacuum()
                if removed:
                    self._vacuum()
                    if self.path != ":memory:":
                        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                self._others = max(0, self._used_bytes() - entries)
                self._headroom = -1
            except sqlite3.Error as error:
                raise self._failed("apply retention to", error) from error
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
        with self._read_lock:
            rows = self._reader.execute(
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
        with self._read_lock:
            return self._reader.execute("SELECT count(*) FROM entries").fetchone()[0]

    def close(self) -> None:
        """Checkpoint the WAL and close the file."""
        with self._lock:
            try:
                if self.path != ":memory:":
                    self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                self._close_all()


#: Bytes counted for each commit's pages beyond its entries' (see Journal._commit).
PAGE_SLACK = 4096


def _row_bytes(entry: Entry) -> int:
    """An entry's bytes as _ENTRY_BYTES counts them (id_key and recorded_at twice: the table and
    their indexes)."""
    return (2 * len(entry.id_key) + len(entry.method) + len(entry.digest) + len(entry.params)
            + len(entry.result) + len(entry.backend) + len(entry.version) + 2 * len(entry.recorded_at))


def insert(db: sqlite3.Connection, entry: Entry) -> Entry:
    """Write ``entry`` in the transaction open on ``db``; what the journal now holds under its key
    (an entry another writer journaled first is not overwritten: it is returned instead)."""
    if db.execute("INSERT OR IGNORE INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?)", entry.row()).rowcount == 1:
        return entry
    row = db.execute("SELECT id_key, method, digest, params, result, backend, version, recorded_at"
                     " FROM entries WHERE id_key = ?", (entry.id_key,)).fetchone()
    return Entry(*row)
