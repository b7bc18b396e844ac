"""The edge between the sans-I/O protocol and the journal file: one message in, one reply out.

``protocol.py`` decides everything and does no I/O; this module does what it asks, and
nothing else: it holds the claims on journal keys (threads), reads the entries a message
needs from the :class:`~.journal.Journal`, writes the entries it rolled in one
transaction, and turns a bug into an error reply. The server calls :meth:`Dispatcher.read`
and :meth:`Dispatcher.answer` (or :meth:`Dispatcher.handle`, both) from its worker
threads, since answering may run the engine for a while, and sends what they return::

    text ─▶ Protocol.read ─▶ Protocol.start ─▶ claim ids, read the journal ─▶ Turn.run
         ─▶ Journal.record(commit) ─▶ Turn.finish ─▶ reply (sent by the server)
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

from .budget import Ledger
from .journal import Entry, Journal, JournalDamaged, JournalError
from .limits import Limits
from .protocol import HEAVY_METHODS, HEAVY_ROUND, METHODS, Protocol, Read, Reply, Session, Turn

__all__ = ["HEAVY_METHODS", "HEAVY_ROUND", "METHODS", "Dispatcher", "Read", "Reply", "Session"]

logger = logging.getLogger("fracas.bridge")


class _Claims:
    """Only one worker at a time may roll for a given journal key.

    A second request with the same id (a resend racing the original) waits
    here, then finds the first one's result in the journal. A message claims
    all the ids it may roll before it starts, in sorted order, and holds them
    until its journal transaction commits: one global order, so two batches
    naming the same ids in different orders cannot deadlock.
    """

    def __init__(self) -> None:
        self._held: set[str] = set()
        self._changed = threading.Condition()

    def acquire(self, keys: list[str]) -> None:
        with self._changed:
            for key in sorted(keys):
                while key in self._held:
                    self._changed.wait()
                self._held.add(key)

    def release(self, keys: list[str]) -> None:
        with self._changed:
            self._held.difference_update(keys)
            self._changed.notify_all()


class Dispatcher:
    """Answers JSON-RPC messages with the journal at hand; thread-safe.

    ``engine`` is the :mod:`fracas` module unless a test passes another object
    with the same functions (raising fracas.errors' exceptions); ``encounters`` is the
    encounter store (by default one in the journal's file, made on first use).
    """

    def __init__(
        self,
        *,
        token: str,
        journal: Journal,
        limits: Limits | None = None,
        engine: ModuleType | Any = None,
        is_draining: Callable[[], bool] = lambda: False,
        bulk_threads: int | None = None,
        encounters: Any = None,
    ) -> None:
        self._journal = journal
        self._is_draining = is_draining
        self._claims = _Claims()
        self._store: Any = encounters
        self._store_lock = threading.Lock()
        self.protocol = Protocol(token=token, limits=limits, engine=engine, encounters=self._encounters,
                                 bulk_threads=bulk_threads)
        self.limits = self.protocol.limits
        #: Set on shutdown once the grace period is over: every bulk request stops.
        self.cancel_all = self.protocol.cancel_all
        #: Clear while single requests are being answered: bulk work pauses between chunks.
        self.quiet = self.protocol.quiet
        self.too_many_connections = self.protocol.too_many_connections

    @property
    def token(self) -> str:
        return self.protocol.token

    @token.setter
    def token(self, token: str) -> None:
        """A new token opens the bridge from now on (see Protocol.token)."""
        self.protocol.token = token

    @property
    def generation(self) -> int:
        """The token generation: sessions of an older one authenticated with an old token."""
        return self.protocol.generation

    def _encounters(self) -> Any:
        """The encounter store: the one given, or one in the journal's file (made on first use)."""
        with self._store_lock:
            if self._store is None:
                from fracas.store import EncounterStore

                journal = self._journal
                path = getattr(journal, "path", None) or ":memory:"
                if path == ":memory:" and isinstance(journal, Journal):
                    # One in-memory database: the store's tables beside the journal's, one lock.
                    self._store = EncounterStore(path, connection=journal._db, lock=journal._lock)
                else:
                    self._store = EncounterStore(path, busy_wait=getattr(journal, "busy_wait", 30.0))
                # Encounter changes are journaled in the store's transactions (methods.py).
                self._store.journal = journal
            return self._store

    # ── the entry points ────────────────────────────────────────────────────

    def handle(self, session: Session, message: str | bytes, *, hold: bool = False) -> Reply:
        """Answer one websocket message (a text frame as str, a binary frame as bytes):
        :meth:`read`, then :meth:`answer`.

        With ``hold``, the reply bytes the message took of the connection's and the
        server's budgets stay taken until the caller calls ``reply.release()`` (once
        the reply is sent); its attacks, and everything without ``hold``, are given
        back before this returns.
        """
        return self.answer(session, self.read(session, message), hold=hold)

    def read(self, session: Session, message: str | bytes, *, late: bool | None = None) -> Read:
        """Parse one message and weigh it (which pool answers it), rolling nothing.

        Before authentication this also answers it (the auth request, or a refusal).
        ``late``: whether it came once the bridge was shutting down (None: ask now)."""
        try:
            return self.protocol.read(session, message, self._is_draining() if late is None else late)
        except Exception:  # a bug: answer, log, keep serving
            return Read(reply=self.protocol.bug(session))

    def answer(self, session: Session, read: Read, *, hold: bool = False) -> Reply:
        """The reply to a message :meth:`read` has parsed (see :meth:`handle` for ``hold``)."""
        ledger = Ledger()
        try:
            reply = self._answer(self.protocol.start(session, read, ledger))
        except Exception:  # a bug: answer, log, keep serving
            reply = self.protocol.bug(session)
        reply = dataclasses.replace(reply, ledger=ledger)
        if hold:
            ledger.release("attacks")  # the rolling is over; the reply bytes wait to be sent
        else:
            reply.release()
        return reply

    def _answer(self, turn: Turn) -> Reply:
        """Do the journal I/O a message asks for: claim, read, (the protocol answers), write."""
        if turn.reply is not None:
            return turn.reply
        self._claims.acquire(turn.claims)
        try:
            commit = turn.run({key: self._lookup(key) for key in turn.reads})
            stored: list[Entry] | JournalError = []
            if commit.entries:
                try:
                    stored = self._journal.record(commit.entries)
                except JournalError as exc:
                    if not isinstance(exc, JournalDamaged):  # logged once by the journal
                        logger.error("%s", exc)
                    stored = exc
            return turn.finish(stored)  # type: ignore[arg-type] - settle says why it failed
        finally:
            self._claims.release(turn.claims)

    def _lookup(self, key: str) -> Entry | None | Exception:
        """The journal's entry under ``key``; an error reading it fails only the requests
        that need it (the protocol raises it again there)."""
        try:
            return self._journal.lookup(key)
        except Exception as exc:  # noqa: BLE001 - handed to the request that reads it
            return exc
