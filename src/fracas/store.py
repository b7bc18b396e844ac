"""Where fracas keeps things between runs: the data directory and the encounter store.

The data directory is ``$FRACAS_HOME`` when set, else the per-user data directory
(``~/.local/share/fracas`` on Linux). In it, ``journal.sqlite3`` holds the bridge's
journal and the encounters: one embedded SQLite file, in WAL mode, so the bridge and
the ``fracas encounter`` commands can use it at the same time.

An encounter is its scenario, a stack of states (state 0 when it was made, state n
after its n-th round) and the journal of its rounds (seed and log, kept also when a
round is undone). A round writes its state and its log in one transaction, so a
crash or a bad scenario never leaves half an encounter behind. Each write takes an
``also`` callback run inside its transaction, before the commit: the bridge writes the
request's journal entry there, so that an encounter change and its entry commit
together or not at all (a resend never applies twice).

The logs of undone rounds are kept only while they are among the last ``UNDONE_KEPT``
undone rounds of their encounter: an older one is deleted when a round is undone, so
round/undo cycles never grow the file without bound.
"""

from __future__ import annotations

import datetime
import os
import sqlite3
import threading
from typing import Any, Callable, Optional

import orjson

HOME_ENV = "FRACAS_HOME"
#: Logs of undone rounds kept per encounter (the newest ones; older ones are deleted at the next undo).
UNDONE_KEPT = 3
#: Seconds a write waits for another process's write lock before it fails (StoreError, nothing written).
BUSY_WAIT = 30.0

#: Run inside a write's transaction, on its connection, before the commit (raise to roll it back).
Also = Optional[Callable[[sqlite3.Connection], None]]
STORE_FILE = "journal.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS encounters (
    name        TEXT PRIMARY KEY,
    scenario    BLOB NOT NULL,      -- the scenario as given (JSON)
    ruleset     TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS encounter_states (
    name        TEXT NOT NULL,
    seq         INTEGER NOT NULL,   -- 0 when made, n after round n
    state       BLOB NOT NULL,
    PRIMARY KEY (name, seq)
);
CREATE TABLE IF NOT EXISTS encounter_rounds (
    name        TEXT NOT NULL,
    round       INTEGER NOT NULL,
    seed        TEXT NOT NULL,      -- decimal: a 64-bit seed does not fit SQLite's signed integer
    request_key TEXT,               -- the bridge request id that played it, if any
    log         BLOB NOT NULL,
    recorded_at TEXT NOT NULL,
    undone      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS encounter_rounds_name ON encounter_rounds (name, round);
"""


def data_dir() -> str:
    """``$FRACAS_HOME``, or the per-user data directory of fracas."""
    home = os.environ.get(HOME_ENV)
    if home:
        return home
    import platformdirs

    return platformdirs.user_data_dir("fracas", appauthor=False)


def default_path() -> str:
    """The store file: ``journal.sqlite3`` in `data_dir()` (the bridge journals there too)."""
    return os.path.join(data_dir(), STORE_FILE)


#: The SQLite files of one database: the file, its write-ahead log and its shared memory.
SQLITE_SUFFIXES = ("", "-wal", "-shm")


def private_file(path: str) -> None:
    """Make ``path`` (an SQLite file that holds every request, result and encounter) private:
    its directory is made 0700 when this makes it, and the file, its ``-wal`` and ``-shm``
    are 0600 (a new file is made empty with that mode before SQLite opens it, and SQLite gives
    its ``-wal`` and ``-shm`` the file's mode; existing ones are tightened).

    An existing file is never opened here, only stat'ed and chmod'ed by name: on POSIX,
    closing *any* descriptor of a file releases every lock this process holds on it, SQLite's
    included ("How To Corrupt An SQLite Database File", §2.2.1). The bridge opens its encounter
    store in the journal's file while the journal's connection is open; an ``open``/``close``
    here once dropped that connection's locks, and the next outside reader then took the file
    for unused and deleted the live ``-wal`` under the bridge (issue 46)."""
    if path == ":memory:":
        return
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        os.makedirs(directory, mode=0o700, exist_ok=True)
        os.chmod(directory, 0o700)  # whatever the umask
    try:
        # O_EXCL: made by this call, so no connection of this process can hold a lock on it.
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        os.close(fd)
    for suffix in SQLITE_SUFFIXES:
        try:
            if os.stat(path + suffix).st_mode & 0o077:
                os.chmod(path + suffix, 0o600)
        except FileNotFoundError:
            pass


#: Beside a journal file, the marker that says it was made there (``journal.sqlite3.made``).
MARKER_SUFFIX = ".made"


def check_kept(path: str) -> None:
    """Refuse (StoreError) a journal file that was made before, as its marker says, but is now
    missing or empty: opening it would silently make a new, empty one in its place (every
    roll and encounter gone, every old request id rolling anew). A first use has no marker."""
    if path == ":memory:":
        return
    marker = path + MARKER_SUFFIX
    if not os.path.exists(marker):
        return
    try:
        size: Optional[int] = os.stat(path).st_size
    except FileNotFoundError:
        size = None
    if size:
        return
    try:
        with open(marker, encoding="utf-8") as made:
            when = made.read().strip().splitlines()[0]
    except (OSError, IndexError, UnicodeDecodeError):
        when = "earlier"
    raise StoreError(
        f"the journal {path} is {'missing' if size is None else 'empty (0 bytes)'}, but one was made there"
        f" ({when}; {marker} says so): its rolls and encounters are not in it, so it is not replaced by a new"
        f" empty one. Restore it from a backup (with its -wal, if it had one); or, to start a new empty"
        f" journal on purpose, delete {marker} and start again")


def mark_kept(path: str) -> None:
    """Write the marker of a journal made (or opened) at ``path``, if it has none (see check_kept)."""
    if path == ":memory:":
        return
    try:
        fd = os.open(path + MARKER_SUFFIX, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    except OSError:
        return  # a read-only directory: no marker, as before
    with os.fdopen(fd, "w", encoding="utf-8") as marker:
        marker.write(f"made {now_utc()}\nfracas keeps this file beside its journal: while it exists, a missing or"
                     " empty journal is an error, never replaced by a new one\n")


def now_utc() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


class StoreError(Exception):
    """The store file cannot be opened or written (the message names it)."""


class Conflict(Exception):
    """The encounter changed (another round or undo) between reading and writing it."""


class EncounterStore:
    """Encounters in one SQLite file (thread-safe: one connection behind a lock)."""

    def __init__(self, path: Optional[str] = None, *, busy_wait: float = BUSY_WAIT,
                 connection: Optional[sqlite3.Connection] = None, lock: Any = None) -> None:
        """``busy_wait``: seconds a write waits for another process's write lock. ``connection``
        and ``lock``: an open connection (and the lock that guards it) to share, e.g. an
        in-memory journal's, whose tables then live in the same database."""
        self.path = path or default_path()
        self.busy_wait = busy_wait
        self._lock = lock or threading.Lock()
        #: The bridge's journal in the same file, when the bridge opened this store (its
        #: encounter changes are journaled in the store's transactions).
        self.journal: Any = None
        try:
            if connection is not None:
                self._db = connection
                with self._lock:
                    self._db.executescript(_SCHEMA)
                return
            check_kept(self.path)
            private_file(self.path)
            self._db = sqlite3.connect(self.path, timeout=busy_wait, isolation_level=None,
                                       check_same_thread=False)
            # Space freed by deletions goes back to the filesystem (the bridge's journal
            # retention runs incremental_vacuum); only takes effect in a new, empty file.
            self._db.execute("PRAGMA auto_vacuum=INCREMENTAL")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the encounter store {self.path}: {exc}") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _tx(self) -> "_Transaction":
        return _Transaction(self)

    # -- reading -------------------------------------------------------------------------

    def names(self) -> list[str]:
        with self._lock:
            return [row[0] for row in self._db.execute("SELECT name FROM encounters ORDER BY name")]

    def load(self, name: str) -> Optional[tuple[bytes, str, int, dict[str, Any]]]:
        """(scenario JSON, ruleset, state number, state) of an encounter, or None."""
        with self._lock:
            row = self._db.execute("SELECT scenario, ruleset FROM encounters WHERE name = ?", (name,)).fetchone()
            if row is None:
                return None
            seq, state = self._db.execute(
                "SELECT seq, state FROM encounter_states WHERE name = ? ORDER BY seq DESC LIMIT 1", (name,)).fetchone()
        return bytes(row[0]), row[1], seq, orjson.loads(state)

    def state_at(self, name: str, seq: int) -> Optional[dict[str, Any]]:
        """State ``seq`` of an encounter (0 when made, n after round n), or None."""
        with self._lock:
            row = self._db.execute("SELECT state FROM encounter_states WHERE name = ? AND seq = ?",
                                   (name, seq)).fetchone()
        return None if row is None else orjson.loads(row[0])

    def scenario(self, name: str) -> Optional[bytes]:
        """The scenario JSON an encounter was made from, or None (no state read)."""
        with self._lock:
            row = self._db.execute("SELECT scenario FROM encounters WHERE name = ?", (name,)).fetchone()
        return None if row is None else bytes(row[0])

    def rounds(self, name: str, *, undone: bool = False) -> list[dict[str, Any]]:
        """The journaled rounds (round, seed, recorded_at; undone ones only when asked)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT round, seed, recorded_at, undone FROM encounter_rounds WHERE name = ?"
                + ("" if undone else " AND undone = 0") + " ORDER BY rowid", (name,)).fetchall()
        return [{"round": r, "seed": int(s), "recorded_at": at, **({"undone": bool(u)} if undone else {})}
                for r, s, at, u in rows]

    def round_log(self, name: str, round_: Optional[int] = None) -> Optional[dict[str, Any]]:
        """The log of a round still in effect (the last when `round_` is None)."""
        query = "SELECT log FROM encounter_rounds WHERE name = ? AND undone = 0"
        args: tuple[Any, ...] = (name,)
        if round_ is not None:
            query += " AND round = ?"
            args += (round_,)
        with self._lock:
            row = self._db.execute(query + " ORDER BY rowid DESC LIMIT 1", args).fetchone()
        return orjson.loads(row[0]) if row else None

    def played_by(self, name: str, request_key: str) -> Optional[dict[str, Any]]:
        """The log of the round a bridge request id played (a resend gets it back)."""
        with self._lock:
            row = self._db.execute("SELECT log FROM encounter_rounds WHERE name = ? AND request_key = ?"
                                   " ORDER BY rowid DESC LIMIT 1", (name, request_key)).fetchone()
        return orjson.loads(row[0]) if row else None

    def summaries(self) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT e.name, e.ruleset, e.updated_at, s.state FROM encounters e JOIN encounter_states s"
                " ON s.name = e.name AND s.seq = (SELECT MAX(seq) FROM encounter_states WHERE name = e.name)"
                " ORDER BY e.name").fetchall()
        out = []
        for name, ruleset, updated, state in rows:
            st = orjson.loads(state)
            out.append({"name": name, "ruleset": ruleset, "round": st["round"], "over": st["over"],
                        "winner": st["winner"], "updated_at": updated})
        return out

    # -- writing -------------------------------------------------------------------------

    def create(self, name: str, scenario: bytes, ruleset: str, state: dict[str, Any], *, replace: bool,
               also: Also = None) -> bool:
        """Store a new encounter (False if the name is taken and not `replace`: nothing written,
        ``also`` not run)."""
        at = now_utc()
        with self._tx() as db:
            if db.execute("SELECT 1 FROM encounters WHERE name = ?", (name,)).fetchone():
                if not replace:
                    return False
                self._erase(db, name)
            db.execute("INSERT INTO encounters VALUES (?, ?, ?, ?, ?)", (name, scenario, ruleset, at, at))
            db.execute("INSERT INTO encounter_states VALUES (?, 0, ?)", (name, orjson.dumps(state)))
            if also is not None:
                also(db)
        return True

    def advance(self, name: str, seq: int, state: dict[str, Any], log: dict[str, Any],
                request_key: Optional[str] = None, also: Also = None) -> None:
        """Keep the state after a round played from state `seq`, and the round's log."""
        with self._tx() as db:
            self._check_top(db, name, seq)
            db.execute("INSERT INTO encounter_states VALUES (?, ?, ?)", (name, seq + 1, orjson.dumps(state)))
            db.execute("INSERT INTO encounter_rounds (name, round, seed, request_key, log, recorded_at)"
                       " VALUES (?, ?, ?, ?, ?, ?)",
                       (name, log["round"], str(log["seed"]), request_key, orjson.dumps(log), now_utc()))
            db.execute("UPDATE encounters SET updated_at = ? WHERE name = ?", (now_utc(), name))
            if also is not None:
                also(db)

    def undo(self, name: str, seq: int, *, also: Also = None) -> None:
        """Drop state `seq` (the latest, > 0) and mark its round undone; delete the logs of the
        encounter's undone rounds but the newest UNDONE_KEPT (the pruning rule)."""
        with self._tx() as db:
            self._check_top(db, name, seq)
            db.execute("DELETE FROM encounter_states WHERE name = ? AND seq = ?", (name, seq))
            db.execute("UPDATE encounter_rounds SET undone = 1 WHERE rowid = (SELECT MAX(rowid) FROM"
                       " encounter_rounds WHERE name = ? AND undone = 0)", (name,))
            db.execute("DELETE FROM encounter_rounds WHERE name = ? AND undone = 1 AND rowid NOT IN"
                       " (SELECT rowid FROM encounter_rounds WHERE name = ? AND undone = 1"
                       " ORDER BY rowid DESC LIMIT ?)", (name, name, UNDONE_KEPT))
            db.execute("UPDATE encounters SET updated_at = ? WHERE name = ?", (now_utc(), name))
            if also is not None:
                also(db)

    def delete(self, name: str, *, also: Also = None) -> bool:
        """Delete an encounter and its rounds; False (nothing written, ``also`` not run) if there is none."""
        with self._tx() as db:
            found = db.execute("SELECT 1 FROM encounters WHERE name = ?", (name,)).fetchone() is not None
            if found:
                self._erase(db, name)
                if also is not None:
                    also(db)
        return found

    @staticmethod
    def _erase(db: sqlite3.Connection, name: str) -> None:
        for table in ("encounters", "encounter_states", "encounter_rounds"):
            db.execute(f"DELETE FROM {table} WHERE name = ?", (name,))

    @staticmethod
    def _check_top(db: sqlite3.Connection, name: str, seq: int) -> None:
        row = db.execute("SELECT MAX(seq) FROM encounter_states WHERE name = ?", (name,)).fetchone()
        if row is None or row[0] != seq:
            raise Conflict(name)


class _Transaction:
    """`with store._tx() as db:` one write transaction (BEGIN IMMEDIATE … COMMIT or ROLLBACK)."""

    def __init__(self, store: EncounterStore) -> None:
        self.store = store

    def __enter__(self) -> sqlite3.Connection:
        self.store._lock.acquire()
        try:
            self.store._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            self.store._lock.release()
            why = (f"another process holds its write lock (waited {self.store.busy_wait:g} s for it) [{exc}]"
                   if "locked" in str(exc).lower() else str(exc))
            raise StoreError(f"cannot write the encounter store {self.store.path}: {why}") from None
        return self.store._db

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        try:
            self.store._db.execute("COMMIT" if kind is None else "ROLLBACK")
        except sqlite3.Error as error:
            if kind is None:
                self.store._db.execute("ROLLBACK")
                raise StoreError(f"cannot write the encounter store {self.store.path}: {error}") from None
        finally:
            self.store._lock.release()
