"""The journal policy: what is journaled, the request id as idempotency key, and replay.

Pure: no SQLite here. For one message the policy says which ids it may roll under
(:func:`claims`: the edge holds them until its journal write commits) and which journal
entries it may need (:func:`reads`); the edge reads those and hands them over in a
:class:`Journaling`, which answers from them during the message and collects what it
rolled. The edge writes :meth:`Journaling.commit` in one transaction and gives back what
the journal then holds; :func:`settle` puts that in the answers. So a roll's result is
sent only once it is on disk, and an id seen before is answered from the journal::

    claims(documents), reads(documents) ──▶ edge: claim, read ──▶ Journaling(read)
        handlers: recall(call) ─▶ the journaled answer, or roll ─▶ add(entry) ─▶ Pending
    commit() ──▶ edge: Journal.record(entries) ──▶ settle(answers, rolled, stored)

The rules: the rolling methods (``ROLLING_METHODS`` of the shared spec) are journaled
under ``id_key(id)``; the same id with the same method and canonical params is the
journaled result, byte for byte; with anything else it is -32005 (:func:`id_reused`).
Errors are not journaled (the id stays free). ``journal.get`` and ``journal.replay``
read the journal as it was when the message began.

An encounter change (``encounter.new``, ``round``, ``undo``, ``delete``) is journaled in
the encounter store's own transaction, with the change: the handler hands the committed
entry over with :meth:`Journaling.done`, and its answer is sent whatever becomes of the
message's other writes (it was applied, and a resend gets it from the journal).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import orjson
from fracas._facts import BRIDGE_METHODS, ROLLING_METHODS
from fracas.drive import ENGINE_CALLS

from . import errors
from .journal import Entry, JournalError, id_key
from .rpc import failure, valid_id

#: The bridge's own methods that read a journaled entry named by ``params.id``.
READING_METHODS = frozenset({"journal.get", "journal.replay"})
#: The method of each kind an installed ruleset brings that the generated spec does not
#: list (a third-party ruleset's own kind: ``fracas.rulesets.kinds()``, ``Kind.method``).
KIND_METHODS = tuple(method for method in ENGINE_CALLS if method not in BRIDGE_METHODS)
#: What is journaled: one rule, the spec's (fracas.spec.generate.bridge_methods): the
#: bridge's own rolling methods (facts.toml ``[bridge.own]`` with ``rolls``) and every
#: request kind's method, the built-in ones' in ROLLING_METHODS, an installed ruleset's here.
ROLLING = frozenset(ROLLING_METHODS) | frozenset(KIND_METHODS)


@dataclasses.dataclass(frozen=True)
class Pending:
    """A result rolled in this message, answered once its journal entry commits."""

    key: str
    digest: str


@dataclasses.dataclass(frozen=True)
class Commit:
    """What the edge must write to the journal, in one transaction, before replying."""

    entries: tuple[Entry, ...]


def rolling_keys(documents: list[Any]) -> list[str | None]:
    """Per document, the journal key it may roll under, or None for one that does not roll
    (its request object is checked later; this reads only what it needs)."""
    keys: list[str | None] = []
    for document in documents:
        key = None
        if isinstance(document, dict) and isinstance(document.get("method"), str) \
                and document["method"] in ROLLING:
            request_id = document.get("id")
            if valid_id(request_id):
                key = id_key(request_id)
        keys.append(key)
    return keys


def claims(keys: list[str | None]) -> list[str]:
    """The keys a message claims before it starts (each once)."""
    return list(dict.fromkeys(key for key in keys if key is not None))


def reads(documents: list[Any], keys: list[str | None]) -> list[str]:
    """Every journal key the message may look up: its rolling keys (``keys``, from
    :func:`rolling_keys`), and the ids named by its journal.get and journal.replay."""
    wanted = dict.fromkeys(key for key in keys if key is not None)
    for document in documents:
        if isinstance(document, dict) and isinstance(document.get("method"), str) \
                and document["method"] in READING_METHODS:
            params = document.get("params")
            named = params.get("id") if isinstance(params, dict) else None
            if valid_id(named):
                wanted[id_key(named)] = None
    return list(wanted)


class Journaling:
    """One message's view of the journal: the entries read for it (``read``: key → entry,
    None when the journal has none, or the exception reading it raised), and the entries it
    rolled, not yet written."""

    def __init__(self, read: Mapping[str, Entry | None | Exception]) -> None:
        self._read = read
        self.pending: dict[str, Entry] = {}
        #: Entries committed during the message (with an encounter change).
        self.committed: dict[str, Entry] = {}

    def journaled(self, key: str) -> Entry | None:
        """The entry the journal held under ``key`` when the message began (a failed read
        raises again here: it fails the request that needs it, not the whole message)."""
        try:
            entry = self._read[key]
        except KeyError:
            raise LookupError(f"journal key {key} was not read for this message: a method that reads"
                              " or rolls must be in READING_METHODS or ROLLING_METHODS") from None
        if isinstance(entry, JournalError):
            raise errors.InternalError(f"{entry}; nothing was done for this request", reason=str(entry)) from None
        if isinstance(entry, Exception):
            raise entry
        return entry

    def recall(self, request_id: int | str, key: str, digest: str) -> Entry | Pending | None:
        """What answers a request whose id was seen before: its journaled entry, or its Pending
        when it was rolled earlier in this message; None when the id is new. Raise IdReused when
        the id was used for another request (another method, other params)."""
        entry = self.pending.get(key) or self.committed.get(key) or self.journaled(key)
        if entry is None:
            return None
        if entry.digest != digest:
            raise id_reused(request_id, entry)
        return Pending(key, digest) if key in self.pending else entry

    def add(self, entry: Entry) -> Pending:
        """Keep a new roll until the commit; its answer waits for it."""
        self.pending[entry.id_key] = entry
        return Pending(entry.id_key, entry.digest)

    def done(self, entry: Entry) -> None:
        """An entry already committed (with an encounter change): a repeat of its id in this
        message is answered from it."""
        self.committed[entry.id_key] = entry

    def commit(self) -> Commit:
        """The entries to write before any answer of this message is sent."""
        return Commit(tuple(self.pending.values()))


def settle(answers: list[dict[str, Any]], rolled: list[int], stored: list[Entry] | Exception | None) -> None:
    """Put the journaled results in the answers at ``rolled`` (those holding a Pending).

    ``stored`` is what the journal holds for the committed entries (another bridge on
    the same file may have journaled an id first: its entry wins, and a different request
    under that id is -32005), or None (or the JournalError) when the write failed: then no
    rolled result is sent, and the error says why.
    """
    if stored is None or isinstance(stored, Exception):
        why = f" ({stored})" if stored is not None else ""
        error = errors.InternalError(
            f"the result could not be journaled{why}, so it is not sent; nothing was applied,"
            " send the request again", **({"reason": str(stored)} if stored is not None else {})
        )
        for index in rolled:
            answers[index] = failure(answers[index]["id"], error)
        return
    by_key = {entry.id_key: entry for entry in stored}
    for index in rolled:
        pending: Pending = answers[index]["result"]
        entry = by_key[pending.key]
        if entry.digest != pending.digest:  # another bridge journaled this id first
            answers[index] = failure(answers[index]["id"], id_reused(answers[index]["id"], entry))
        else:
            answers[index]["result"] = orjson.Fragment(entry.result)


def id_reused(request_id: int | str, entry: Entry) -> errors.BridgeError:
    """The id was journaled for a different request (another method or other params)."""
    return errors.IdReused.at(
        "$.id",
        f"id {id_key(request_id)} was already used for a different request"
        f" ({entry.method}, journaled {entry.recorded_at}); use a new id",
    )
