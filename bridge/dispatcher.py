"""The sans-I/O dispatcher: one decoded websocket message in, one reply out.

It knows JSON-RPC 2.0, authentication, the methods and the journal; it knows
nothing of sockets. The server calls :meth:`Dispatcher.handle` from a worker
thread (it may run the engine for a while) and sends what it returns.

Flow of one message::

    text ── parse ──▶ envelope (jsonrpc, id, method, params) ──▶ method
                                                                  │
          rolling methods: claim the id ─▶ journal? ─▶ engine ─▶ journal ─▶ reply
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import orjson
from fracas._facts import BRIDGE_METHODS, ROLLING_METHODS
from fracas.diff import differences
from fracas.drive import ENGINE_CALLS, Encoded
from fracas.requests import key_path, shown

from . import errors
from .auth import token_matches
from .budget import Ledger, Meter
from .errors import BridgeError, params_path
from .journal import Entry, Journal, JournalError, canonical, digest, id_key, now_utc
from .limits import Limits

logger = logging.getLogger("fracas.bridge")

#: Every method, and those that roll dice (their results are journaled under the
#: request id): from the shared spec, so schema.json and the clients list the same; and
#: the rolled method of each kind an installed ruleset brings that the spec does not list
#: (a third-party ruleset's own kind: fracas.rulesets kinds, `Kind.method`).
KIND_METHODS = tuple(method for method in ENGINE_CALLS if method not in BRIDGE_METHODS)
METHODS = BRIDGE_METHODS + KIND_METHODS

#: Methods the bulk pool answers whatever their size (with batches; see Dispatcher._heavy).
HEAVY_METHODS = frozenset({"attack.bulk", "attack.odds", "journal.replay"})
#: An encounter round rolling more strikes than this is answered by the bulk pool.
HEAVY_ROUND = 256

_ENVELOPE_MEMBERS = frozenset({"jsonrpc", "id", "method", "params"})
_MAX_DIFFERENCES = 20

# Close codes sent with a reply that ends the connection.
CLOSE_POLICY_VIOLATION = 1008
CLOSE_TRY_AGAIN_LATER = 1013


@dataclasses.dataclass
class Session:
    """What the dispatcher remembers about one connection.

    ``cancel`` is set when the connection is gone: its bulk work stops at the next
    chunk. The meters (made by the dispatcher on first use) bound what the
    connection has in flight.
    """

    peer: str = "-"
    authenticated: bool = False
    #: The token generation this session authenticated with (see Dispatcher.token).
    generation: int = 0
    cancel: threading.Event = dataclasses.field(default_factory=threading.Event)
    attacks: Meter | None = None
    reply_bytes: Meter | None = None


@dataclasses.dataclass(frozen=True)
class Reply:
    """What to do with one message: send ``data`` (JSON text), then maybe close.

    ``data`` is None only when there is nothing to say; ``close`` is a
    ``(code, reason)`` pair when the connection must end after ``data``.
    """

    data: bytes | None
    close: tuple[int, str] | None = None
    #: What the message holds of the budgets; release it once ``data`` is sent.
    ledger: Ledger | None = None

    def release(self) -> None:
        if self.ledger is not None:
            self.ledger.release()


@dataclasses.dataclass(frozen=True)
class Read:
    """One websocket message as read: its parsed JSON and how heavy answering it is, or,
    when reading it already decided (not JSON, too deep, the auth message), its reply."""

    document: Any = None
    reply: Reply | None = None
    #: Answered by the bulk pool (batches, bulk, odds, replays, large encounter rounds).
    heavy: bool = False
    #: Read once the bridge was shutting down: answered -32010, nothing done. (A message
    #: read before is answered in full: shutdown waits for it.)
    late: bool = False


@dataclasses.dataclass(frozen=True)
class Call:
    """A well-formed request: its id, method and params, and the id's journal key."""

    id: int | str
    method: str
    params: dict[str, Any]
    #: ``id_key(id)``, made once per request: the claims, the journal, the log and errors use it.
    key: str


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "a number"
    if isinstance(value, float):  # what the parser gives for 1.5, 1e3 and integers past 64 bits
        return "a number with a fraction or an exponent" if not value.is_integer() or abs(value) < 2**63 \
            else "an integer outside -2^63 … 2^64 - 1"

    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _success(request_id: int | str, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _failure(request_id: int | str | None, error: BridgeError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_error()}


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


class _Batch:
    """One message being answered: its journal entries (committed together before
    replying), what it has spent of its own budgets, and what it holds of the
    connection's and the server's."""

    def __init__(self, session: Session, ledger: Ledger, cancel: _Either) -> None:
        self.pending: dict[str, Entry] = {}
        self.session = session
        self.ledger = ledger
        self.cancel = cancel
        self.attacks = 0
        self.rows = 0
        self.reply_bytes = 0


class _Either:
    """Set when either event is (the connection's, or the whole bridge's on shutdown)."""

    def __init__(self, first: threading.Event, second: threading.Event) -> None:
        self._first, self._second = first, second

    def is_set(self) -> bool:
        return self._first.is_set() or self._second.is_set()


class _Checkpoint:
    """What the engine checks between chunks of bulk work (its ``cancel``): the
    message's cancel events; but first it waits, briefly, while single requests
    are being answered (``quiet`` clear), so they get the cores first."""

    #: Longest pause at one chunk boundary, in seconds.
    YIELD = 0.02

    def __init__(self, cancel: _Either, quiet: threading.Event) -> None:
        self._cancel, self._quiet = cancel, quiet

    def is_set(self) -> bool:
        if not self._quiet.is_set():
            self._quiet.wait(self.YIELD)
        return self._cancel.is_set()


#: Reply bytes assumed before the work, per kind of answer (settled to the real size after).
_REPLY_BASE = 2048
_REPLY_PER_PARAM_BYTE = 8
_REPLY_ODDS = 64 << 10
_REPLY_PER_GROUP = 2048
_REPLY_PER_TARGET = 1024
_REPLY_PER_ROW = {"attacks": 24, "dice": 768}
_REPLY_PER_LISTED_ATTACK = 48
#: An encounter round's log, per member (its status, health and the strikes it made).
_REPLY_PER_MEMBER = 1536


class Dispatcher:
    """Turns JSON-RPC messages into replies; thread-safe.

    ``engine`` is the :mod:`fracas` module unless a test passes another object
    with the same functions and exception classes.
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
        if not token:
            raise ValueError("the access token must not be empty")
        if engine is None:
            import fracas as engine
        self._token = token
        #: Bumped by each token change: sessions of an older generation were authenticated
        #: with a token that no longer opens the bridge.
        self.generation = 0
        self._journal = journal
        self.limits = limits or Limits()
        self._engine = engine
        self._is_draining = is_draining
        #: Engine threads per bulk request (None: the engine's default, every CPU).
        self.bulk_threads = bulk_threads
        self._claims = _Claims()
        #: Set on shutdown once the grace period is over: every bulk request stops.
        self.cancel_all = threading.Event()
        #: Clear while single requests are being answered: bulk work pauses between chunks.
        self.quiet = threading.Event()
        self.quiet.set()
        self._server_attacks = Meter("max_server_attacks", self.limits.max_server_attacks, "the bridge")
        self._server_bytes = Meter("max_server_reply_bytes", self.limits.max_server_reply_bytes,
                                   "the bridge")
        self._methods: dict[str, Callable[[Call, _Batch], Any]] = {
            "server.info": self._server_info,
            "attack.resolve": self._attack_resolve,
            "attack.bulk": self._attack_bulk,
            "initiative.roll": self._initiative_roll,
            "attack.odds": self._attack_odds,
            "journal.get": self._journal_get,
            "journal.replay": self._journal_replay,
            "encounter.new": self._encounter_new,
            "encounter.show": self._encounter_show,
            "encounter.round": self._encounter_round,
            "encounter.undo": self._encounter_undo,
            "encounter.list": self._encounter_list,
            "encounter.delete": self._encounter_delete,
        }
        # The rulesets' own kinds (old-school's morale.check, ER's compete.roll and
        # impale.resolve, ...): each rolled by its engine call (fracas.rulesets kinds).
        for method, call in ENGINE_CALLS.items():
            self._methods.setdefault(method, lambda c, b, call=call: self._roll(c, b, getattr(self._engine, call)))
        self._store: Any = encounters
        self._store_lock = threading.Lock()
        from fracas.errors import Cancelled

        self._cancelled_class = getattr(engine, "Cancelled", Cancelled)
        # Engine exception class → bridge error class, most specific first.
        self._error_map = [
            (engine.SchemaError, errors.InvalidParams),
            (engine.RulesError, errors.RulesError),
            (engine.DiceError, errors.DiceError),
            (engine.LimitError, errors.LimitExceeded),
            (engine.RequestError, errors.InvalidParams),
        ]

    # ── the entry points ────────────────────────────────────────────────────

    @property
    def token(self) -> str:
        return self._token

    @token.setter
    def token(self, token: str) -> None:
        """A new token opens the bridge from now on; the old one opens nothing (sessions
        authenticated with it keep their ``generation``, now older than the dispatcher's)."""
        if not token:
            raise ValueError("the access token must not be empty")
        self._token = token
        self.generation += 1

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
            return self._read(session, message, self._is_draining() if late is None else late)
        except Exception:  # a bug: answer, log, keep serving
            return Read(reply=self._bug(session))

    def answer(self, session: Session, read: Read, *, hold: bool = False) -> Reply:
        """The reply to a message :meth:`read` has parsed (see :meth:`handle` for ``hold``)."""
        ledger = Ledger()
        if read.reply is not None:
            reply = read.reply
        else:
            try:
                reply = self._answer_document(session, read.document, ledger, read.late)
            except Exception:  # a bug: answer, log, keep serving
                reply = self._bug(session)
        reply = dataclasses.replace(reply, ledger=ledger)
        if hold:
            ledger.release("attacks")  # the rolling is over; the reply bytes wait to be sent
        else:
            reply.release()
        return reply

    @staticmethod
    def _bug(session: Session) -> Reply:
        logger.exception("unexpected error while handling a message from %s", session.peer)
        error = errors.InternalError("internal error in the bridge (see its log)")
        return Reply(orjson.dumps(_failure(None, error)))

    def _read(self, session: Session, message: str | bytes, late: bool) -> Read:
        if not isinstance(message, str):
            error = errors.InvalidRequest(
                "binary frames are not accepted: send JSON-RPC 2.0 as UTF-8 text frames"
            )
            return Read(reply=self._refuse(session, None, error))
        try:
            document = orjson.loads(message)
        except orjson.JSONDecodeError as exc:
            return Read(reply=self._refuse(session, None, errors.ParseError(f"parse error: {exc}")))
        deep = _too_deep(document, self.limits.max_depth) if isinstance(document, (dict, list)) else None
        if deep is not None:
            request_id = document.get("id") if isinstance(document, dict) else None
            if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
                request_id = None
            error_class = errors.InvalidParams if deep.startswith("$.params") else errors.InvalidRequest
            error = error_class.at(deep, f"nested deeper than {self.limits.max_depth} levels"
                                         " of arrays and objects (max_depth)", limit=self.limits.max_depth)
            return Read(reply=self._refuse(session, request_id, error))
        if not session.authenticated:
            return Read(reply=self._authenticate(session, document))
        if late:
            return Read(document=document, late=True)
        return Read(document=document, heavy=self._heavy(document))

    def _heavy(self, document: Any) -> bool:
        """Whether the bulk pool answers this parsed message: batches, bulk, odds, replays, and
        encounter rounds past HEAVY_ROUND strikes (weighed from the encounter's scenario).

        The method is the parsed one (``"attack\\u002ebulk"`` is attack.bulk); a message that
        is not a well-formed request is light: it is answered with an error at once."""
        if isinstance(document, list):
            return True
        method = document.get("method") if isinstance(document, dict) else None
        if method in HEAVY_METHODS:
            return True
        if method == "encounter.round":
            params = document.get("params")
            name = params.get("name") if isinstance(params, dict) else None
            return isinstance(name, str) and self._round_work(name)[1] > HEAVY_ROUND
        return False

    def _round_work(self, name: str) -> tuple[int, int]:
        """(members, strikes) a round of the encounter ``name`` may roll; (0, 0) if there is none."""
        from fracas.drive.scenario import round_work

        try:
            scenario = self._encounters().scenario(name)
            return round_work(orjson.loads(scenario)) if scenario is not None else (0, 0)
        except (orjson.JSONDecodeError, AttributeError, OSError, sqlite3.Error):
            return (0, 0)  # the round itself says what is wrong

    def _answer_document(self, session: Session, document: Any, ledger: Ledger, late: bool) -> Reply:
        if session.attacks is None:
            limits = self.limits
            session.attacks = Meter("max_connection_attacks", limits.max_connection_attacks,
                                    "this connection")
            session.reply_bytes = Meter("max_connection_reply_bytes", limits.max_connection_reply_bytes,
                                        "this connection")
        batch = _Batch(session, ledger, _Either(session.cancel, self.cancel_all))
        if isinstance(document, list):
            return self._handle_batch(document, batch, late)
        return Reply(orjson.dumps(self._answer_all([document], batch, late)[0]))

    def _refuse(self, session: Session, request_id: Any, error: BridgeError) -> Reply:
        """An error reply; before authentication it also ends the connection."""
        data = orjson.dumps(_failure(request_id, error))
        if session.authenticated:
            return Reply(data)
        return Reply(data, (CLOSE_POLICY_VIOLATION, "authentication required"))

    # ── authentication ──────────────────────────────────────────────────────

    def _authenticate(self, session: Session, document: Any) -> Reply:
        if isinstance(document, list):
            error = errors.AuthenticationFailed(
                "not authenticated: the first message must be a single auth request, not a batch"
            )
            return self._refuse(session, None, error)
        try:
            call = self._envelope(document)
        except _Refused as refused:
            error = refused.error
            if isinstance(error, errors.MethodNotFound):  # which methods exist is not said before auth
                error = errors.AuthenticationFailed.at(
                    "$.method", f"not authenticated: the first message must be auth, not {shown(document['method'])}")
            return self._refuse(session, refused.request_id, error)
        if call.method != "auth":
            error = errors.AuthenticationFailed.at(
                "$.method", f"not authenticated: the first message must be auth, not {call.method}"
            )
            return self._refuse(session, call.id, error)
        try:
            _only(call.params, {"token"}, required={"token"})
            token = call.params["token"]
            if not isinstance(token, str):
                raise errors.InvalidParams.at(
                    "$.params.token", f"must be a string, got {_type_name(token)}"
                )
        except BridgeError as error:
            return self._refuse(session, call.id, error)
        if not token_matches(token, self._token):
            error = errors.AuthenticationFailed("authentication failed: wrong token")
            data = orjson.dumps(_failure(call.id, error))
            return Reply(data, (CLOSE_POLICY_VIOLATION, "authentication failed"))
        session.authenticated = True
        session.generation = self.generation
        return Reply(orjson.dumps(_success(call.id, {"authenticated": True})))

    @staticmethod
    def too_many_connections(reply: Reply, limit: int) -> Reply:
        """The answer to a correct ``auth`` when the bridge already has ``limit`` connections."""
        request_id = orjson.loads(reply.data)["id"] if reply.data else None
        error = errors.LimitExceeded(
            f"too many connections: the bridge already has {limit} (max_connections); close one"
            " and connect again", limit=limit, limit_name="max_connections")
        return Reply(orjson.dumps(_failure(request_id, error)),
                     (CLOSE_TRY_AGAIN_LATER, f"too many connections (limit {limit})"))

    # ── envelopes and batches ───────────────────────────────────────────────

    def _envelope(self, document: Any, key: str | None = None) -> Call:
        """Check the JSON-RPC 2.0 request object; raise _Refused if it is not one.
        ``key`` is its id's journal key when the caller has made it already."""
        if not isinstance(document, dict):
            reason = f"expected a JSON-RPC request object, got {_type_name(document)}"
            raise _Refused(None, errors.InvalidRequest.at("$", reason))
        request_id = self._request_id(document)
        try:
            return Call(request_id, self._method(document), self._params(document),
                        id_key(request_id) if key is None else key)
        except BridgeError as error:
            raise _Refused(request_id, error) from None

    def _request_id(self, document: dict[str, Any]) -> int | str:
        if "id" not in document:
            reason = "missing: every request needs an id (it is the idempotency key)"
            raise _Refused(None, errors.InvalidRequest.at("$.id", reason))
        request_id = document["id"]
        if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
            reason = f"must be a string or an integer, got {_type_name(request_id)}"
            if isinstance(request_id, float) and request_id.is_integer() and abs(request_id) >= 2**63:
                # The parser keeps integers of -2^63 … 2^64 - 1 exactly; a larger one would be
                # echoed rounded (another id), so it is refused rather than answered under a wrong id.
                reason += " (integer ids must be -2^63 … 2^64 - 1 to be echoed exactly; use a string id)"
            raise _Refused(None, errors.InvalidRequest.at("$.id", reason))
        if isinstance(request_id, str) and len(request_id) > self.limits.max_id_length:
            reason = (
                f"{len(request_id)} characters is longer than the limit of"
                f" {self.limits.max_id_length}"
            )
            raise _Refused(None, errors.InvalidRequest.at("$.id", reason))
        return request_id

    @staticmethod
    def _method(document: dict[str, Any]) -> str:
        for member in document:
            if member not in _ENVELOPE_MEMBERS:
                raise errors.InvalidRequest.at(key_path("$", member), "unknown member")
        if document.get("jsonrpc") != "2.0":
            raise errors.InvalidRequest.at("$.jsonrpc", 'must be "2.0"')
        if "method" not in document:
            raise errors.InvalidRequest.at("$.method", "missing")
        method = document["method"]
        if not isinstance(method, str):
            raise errors.InvalidRequest.at("$.method", f"must be a string, got {_type_name(method)}")
        if method not in METHODS:
            raise errors.MethodNotFound(
                f"method not found: {method!r} (methods: {', '.join(METHODS)})", method=method
            )
        return method

    @staticmethod
    def _params(document: dict[str, Any]) -> dict[str, Any]:
        params = document.get("params", {})
        if not isinstance(params, dict):
            reason = f"must be an object (by-name params), got {_type_name(params)}"
            raise errors.InvalidParams.at("$.params", reason)
        return params

    def _handle_batch(self, documents: list[Any], batch: _Batch, late: bool) -> Reply:
        if not documents:
            error = errors.InvalidRequest.at("$", "empty batch")
            return Reply(orjson.dumps(_failure(None, error)))
        if len(documents) > self.limits.max_batch:
            error = errors.LimitExceeded.at(
                "$",
                f"batch of {len(documents)} requests is longer than the limit of {self.limits.max_batch}",
                limit=self.limits.max_batch,
            )
            return Reply(orjson.dumps(_failure(None, error)))
        return Reply(orjson.dumps(self._answer_all(documents, batch, late)))

    def _answer_all(self, documents: list[Any], batch: _Batch, late: bool) -> list[dict[str, Any]]:
        """Answer the requests of one message; journal their rolls in one commit."""
        if late:
            return [self._shutting_down(document) for document in documents]
        answers: list[dict[str, Any]] = []
        rolled: list[int] = []  # indexes of answers whose result awaits the commit
        by_document = _rolling_keys(documents)
        keys = list({key for key in by_document if key is not None})
        self._claims.acquire(keys)
        try:
            for document, key in zip(documents, by_document):
                try:
                    call = self._envelope(document, key)
                except _Refused as refused:
                    answers.append(_failure(refused.request_id, refused.error))
                    continue
                if batch.cancel.is_set():
                    answers.append(_failure(call.id, _cancelled()))
                    continue
                try:
                    result = self._call(call, batch)
                except BridgeError as error:
                    answers.append(_failure(call.id, error))
                    continue
                except Exception:  # a bug: this request fails, the others stand
                    logger.exception("unexpected error in %s id=%s", call.method, call.key)
                    error = errors.InternalError(f"internal error in {call.method} (see the bridge log)")
                    answers.append(_failure(call.id, error))
                    continue
                if isinstance(result, _Pending):
                    rolled.append(len(answers))
                answers.append(_success(call.id, result))
            self._commit(batch, answers, rolled)
        finally:
            self._claims.release(keys)
        return answers

    def _shutting_down(self, document: Any) -> dict[str, Any]:
        """While draining: no claims, no engine, no journal; cheap enough for the event loop."""
        try:
            call = self._envelope(document)
        except _Refused as refused:
            return _failure(refused.request_id, refused.error)
        error = errors.ShuttingDown(
            "the bridge is shutting down; nothing was done, send the request again once it is back"
        )
        return _failure(call.id, error)

    def _commit(self, batch: _Batch, answers: list[dict[str, Any]], rolled: list[int]) -> None:
        """Journal the batch's new rolls, then put the journaled results in the answers."""
        try:
            stored = {entry.id_key: entry for entry in self._journal.record(batch.pending.values())}
        except JournalError as exc:
            logger.error("%s", exc)
            error = errors.InternalError(
                "the result could not be journaled, so it is not sent; nothing was applied,"
                " send the request again"
            )
            for index in rolled:
                answers[index] = _failure(answers[index]["id"], error)
            return
        for index in rolled:
            pending: _Pending = answers[index]["result"]
            entry = stored[pending.key]
            if entry.digest != pending.digest:  # another bridge journaled this id first
                error = _id_reused(answers[index]["id"], entry)
                answers[index] = _failure(answers[index]["id"], error)
            else:
                answers[index]["result"] = orjson.Fragment(entry.result)

    # ── methods ─────────────────────────────────────────────────────────────

    def _call(self, call: Call, batch: _Batch) -> Any:
        if call.method == "auth":
            raise errors.InvalidRequest.at("$.method", "already authenticated: auth is only the first message")
        started = time.perf_counter()
        try:
            return self._methods[call.method](call, batch)
        finally:
            logger.debug(
                "%s id=%s answered in %.1f ms",
                call.method,
                call.key,
                (time.perf_counter() - started) * 1e3,
            )

    def _server_info(self, call: Call, batch: _Batch) -> dict[str, Any]:
        _only(call.params, set())
        in_flight = {"attacks": self._server_attacks.used, "reply_bytes": self._server_bytes.used}
        # Small and fixed: from the message's budget only, so it answers even when the
        # bridge is saturated (it is how a client sees that it is).
        self._spend(batch, "$.params", reply_bytes=_REPLY_BASE, shared=False)
        engine = self._engine
        return {
            "name": "fracas",
            "version": engine.__version__,
            "backend": engine.backend,
            "rulesets": list(engine.rulesets()),
            "methods": list(METHODS),
            "limits": self.limits.to_dict(),
            "bulk_threads": self.bulk_threads,
            "in_flight": in_flight,
        }

    def _attack_resolve(self, call: Call, batch: _Batch) -> Any:
        if "attacks" in call.params:
            raise errors.InvalidParams.at(
                "$.params.attacks", "a bulk request (with attacks) goes to attack.bulk"
            )
        return self._roll(call, batch, self._engine.resolve)

    def _attack_bulk(self, call: Call, batch: _Batch) -> Any:
        total = self._check_bulk_size(call.params)
        return self._roll(call, batch, self._bulk_call(batch), attacks=total,
                          estimate=_bulk_reply_estimate(call.params))

    def _bulk_call(self, batch: _Batch) -> Callable[..., Any]:
        """``resolve_bulk`` under the bridge's limits, the message's budgets and its cancel event."""
        limits = self.limits

        def admit(attacks: int, rows: int, detail: str) -> None:
            # Once compiled (any ruleset), before a die is rolled: the listed rows' reply.
            if rows:
                listed = rows * _REPLY_PER_ROW.get(detail, _REPLY_PER_ROW["dice"])
                self._spend(batch, "$.params.detail", reply_bytes=listed + attacks * _REPLY_PER_LISTED_ATTACK,
                            rows=rows)

        def resolve_bulk(request: Any, **options: Any) -> Any:
            if self.bulk_threads is not None:
                options.setdefault("threads", self.bulk_threads)
            return self._engine.resolve_bulk(request, max_attacks=limits.max_bulk_attacks,
                                             max_listed=limits.max_bulk_detail_attacks,
                                             cancel=_Checkpoint(batch.cancel, self.quiet), admit=admit,
                                             **options)

        return resolve_bulk

    def _initiative_roll(self, call: Call, batch: _Batch) -> Any:
        return self._roll(call, batch, self._engine.roll_initiative)

    def _attack_odds(self, call: Call, batch: _Batch) -> Any:
        # Exact odds roll nothing: no seed, no journal; the engine refuses (LimitError)
        # what it cannot enumerate quickly, before it starts.
        before = batch.reply_bytes
        self._spend(batch, "$.params", attacks=1, reply_bytes=_REPLY_ODDS)
        result = orjson.dumps(self._engine_call(self._engine.odds, call.params).to_dict())
        self._settle(batch, before, len(result))
        self._check_reply(batch, call, len(result), journaled=False)
        return orjson.Fragment(result)

    # ── encounters: kept in the journal's file; the changing methods are journaled ──

    def _encounters(self) -> Any:
        """The encounter store: the one given, or one in the journal's file (made on first use)."""
        with self._store_lock:
            if self._store is None:
                from fracas.store import EncounterStore

                self._store = EncounterStore(getattr(self._journal, "path", None) or ":memory:")
            return self._store

    def _encounter(self, params: dict[str, Any]) -> Any:
        return self._engine.Encounter.open(params["name"], store=self._encounters())

    def _encounter_call(self, call: Call, batch: _Batch, allowed: set[str], run: Callable[[dict[str, Any]], Any],
                        *, attacks: int = 1, estimate: int | None = None, journaled: bool = True,
                        required: frozenset[str] = frozenset({"name"})) -> Any:
        _only(call.params, allowed, required=required & allowed)

        def engine_call(params: dict[str, Any], **_options: Any) -> Any:
            return _Answer(run(params))

        if journaled:
            return self._roll(call, batch, engine_call, attacks=attacks, estimate=estimate)
        before = batch.reply_bytes
        self._spend(batch, "$.params", attacks=attacks, reply_bytes=estimate or _REPLY_BASE)
        result = orjson.dumps(self._engine_call(engine_call, call.params).to_dict())
        self._settle(batch, before, len(result))
        self._check_reply(batch, call, len(result), journaled=False)
        return orjson.Fragment(result)

    def _encounter_new(self, call: Call, batch: _Batch) -> Any:
        def run(params: dict[str, Any]) -> Any:
            from fracas.drive.encounter import EncounterError
            from fracas.rulesets.base import moved

            if not isinstance(params.get("replace", False), bool):
                raise self._engine.SchemaError("$.replace", "expected a boolean")
            try:
                enc = self._engine.Encounter.new(params["name"], params["scenario"], store=self._encounters(),
                                                 replace=params.get("replace", False))
            except self._engine.RequestError as exc:
                if isinstance(exc, EncounterError) or exc.path.startswith("$.name"):
                    raise
                raise moved(exc, "$", "$.scenario") from None
            return enc.show()

        size = len(canonical(call.params))
        return self._encounter_call(call, batch, {"name", "scenario", "replace"}, run,
                                    estimate=_REPLY_BASE + 16 * size, required=frozenset({"name", "scenario"}))

    def _encounter_show(self, call: Call, batch: _Batch) -> Any:
        return self._encounter_call(call, batch, {"name"}, lambda params: self._encounter(params).show(),
                                    estimate=_REPLY_BASE + (1 << 20), journaled=False)

    def _encounter_round(self, call: Call, batch: _Batch) -> Any:
        key = call.key

        def run(params: dict[str, Any]) -> Any:
            seed = params.get("seed")
            if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
                raise self._engine.SchemaError("$.seed", "expected an integer 0 to 2**64 - 1")
            expect = params.get("expect_round")
            if expect is not None and (isinstance(expect, bool) or not isinstance(expect, int)):
                raise self._engine.SchemaError("$.expect_round", "expected an integer")
            return self._encounter(params).round(seed, request_key=key, expect_round=expect,
                                                 hp=params.get("hp"))

        # Weighed before it is played, from the encounter's scenario: every member striking
        # with every strike (its routing in the server uses the same count, HEAVY_ROUND).
        name = call.params.get("name")
        members, strikes = self._round_work(name) if isinstance(name, str) else (0, 0)
        return self._encounter_call(call, batch, {"name", "seed", "expect_round", "hp"}, run,
                                    attacks=max(1, strikes), estimate=_REPLY_BASE + _REPLY_PER_MEMBER * members)

    def _encounter_undo(self, call: Call, batch: _Batch) -> Any:
        def run(params: dict[str, Any]) -> Any:
            expect = params.get("expect_round")
            if expect is not None and (isinstance(expect, bool) or not isinstance(expect, int)):
                raise self._engine.SchemaError("$.expect_round", "expected an integer")
            return self._encounter(params).undo(expect_round=expect)

        return self._encounter_call(call, batch, {"name", "expect_round"}, run, estimate=1 << 20)

    def _encounter_list(self, call: Call, batch: _Batch) -> Any:
        return self._encounter_call(call, batch, set(), lambda _p: self._engine.Encounter.list(store=self._encounters()),
                                    estimate=256 << 10, journaled=False)

    def _encounter_delete(self, call: Call, batch: _Batch) -> Any:
        def run(params: dict[str, Any]) -> Any:
            self._engine.Encounter.delete(params["name"], store=self._encounters())
            return {"deleted": params["name"]}

        return self._encounter_call(call, batch, {"name"}, run)

    def _check_bulk_size(self, params: dict[str, Any]) -> int:
        """Refuse a bulk request past the bridge's limits before the engine sees it; its attacks.

        Only well-typed counts are summed; anything malformed is left for the
        engine's validation, which names the path.
        """
        groups = params.get("attacks")
        if not isinstance(groups, list):
            return 0
        total = 0
        for group in groups:
            count = group.get("count", 1) if isinstance(group, dict) else 1
            if isinstance(count, int) and not isinstance(count, bool) and count > 0:
                total += count
        limits = self.limits
        if total > limits.max_bulk_attacks:
            raise errors.LimitExceeded.at(
                "$.params.attacks",
                f"{total:,} attacks is more than the bridge's limit of {limits.max_bulk_attacks:,}"
                " (max_bulk_attacks; fracas serve --max-bulk-attacks)",
                limit=limits.max_bulk_attacks, limit_name="max_bulk_attacks",
            )
        detail = params.get("detail")
        if detail in ("attacks", "dice") and total > limits.max_bulk_detail_attacks:
            raise errors.LimitExceeded.at(
                "$.params.detail",
                f"detail {detail!r} for {total:,} attacks is more than the bridge's limit of"
                f" {limits.max_bulk_detail_attacks:,} (max_bulk_detail_attacks); use detail 'summary'",
                limit=limits.max_bulk_detail_attacks, limit_name="max_bulk_detail_attacks",
            )
        return total

    # ── budgets ─────────────────────────────────────────────────────────────

    def _spend(self, batch: _Batch, path: str, *, attacks: int = 0, reply_bytes: int = 0,
               rows: int = 0, shared: bool = True) -> None:
        """Take a request's work and reply from its message's, connection's and server's
        budgets before it starts; raise LimitExceeded (nothing taken) if one would overflow."""
        limits = self.limits
        for spent, more, limit, name, what, advice in (
            (batch.attacks, attacks, limits.max_message_attacks, "max_message_attacks", "attacks",
             "send them in several messages"),
            (batch.rows, rows, limits.max_detail_rows, "max_detail_rows", "strike rows listed one by one",
             "ask for fewer attacks in detail, or detail 'summary'"),
            (batch.reply_bytes, reply_bytes, limits.max_reply_bytes, "max_reply_bytes", "bytes of reply",
             "ask for less detail, or send the requests in several messages"),
        ):
            if more and spent + more > limit:
                raise errors.LimitExceeded.at(
                    path, f"this message would need {spent + more:,} {what}, more than the bridge's limit of"
                          f" {limit:,} per message ({name}); {advice}", limit=limit, limit_name=name)
        session = batch.session
        assert session.attacks is not None and session.reply_bytes is not None
        refused = None if not shared else batch.ledger.take([(session.attacks, attacks), (self._server_attacks, attacks),
                                     (session.reply_bytes, reply_bytes), (self._server_bytes, reply_bytes)])
        if refused is not None:
            more, what = (attacks, "attacks") if refused.name.endswith("attacks") else (reply_bytes, "bytes of reply")
            raise errors.LimitExceeded.at(
                path, f"{refused.scope} already has {refused.used:,} {what} in flight; {more:,} more would pass"
                      f" its limit of {refused.limit:,} ({refused.name}); nothing was done, try again once"
                      " earlier requests are answered", limit=refused.limit, limit_name=refused.name)
        batch.attacks += attacks
        batch.rows += rows
        batch.reply_bytes += reply_bytes

    def _settle(self, batch: _Batch, before: int, actual: int) -> None:
        """The work is done: hold the reply's real size instead of what was estimated for it
        (everything the message's reply grew by since ``before``, its size when the request began)."""
        session = batch.session
        assert session.reply_bytes is not None
        change = actual - (batch.reply_bytes - before)
        batch.reply_bytes += change
        batch.ledger.force([(session.reply_bytes, change), (self._server_bytes, change)])

    def _check_reply(self, batch: _Batch, call: Call, size: int, *, journaled: bool) -> None:
        """Past ``max_reply_bytes`` once measured (an estimate fell short): refuse this answer."""
        limit = self.limits.max_reply_bytes
        if batch.reply_bytes <= limit:
            return
        where = (f"it was rolled and is journaled under id {call.key}: fetch it alone with journal.get"
                 f" (if it fits) or with `fracas journal show {call.key}`") if journaled \
            else "ask for less"
        raise errors.LimitExceeded.at(
            "$.params", f"the answer is {size:,} bytes, which takes this message's reply past the bridge's"
                        f" limit of {limit:,} (max_reply_bytes); {where}", limit=limit, limit_name="max_reply_bytes")

    # ── rolling ─────────────────────────────────────────────────────────────

    def _roll(self, call: Call, batch: _Batch, engine_call: Callable[..., Any], *, attacks: int = 1,
              estimate: int | None = None) -> Any:
        """Answer a rolling request once per id: from the journal, or by rolling."""
        key = call.key
        params = canonical(call.params)  # the one encoding: the journal's and the plan cache's
        request_digest = digest(call.method, params)
        entry = batch.pending.get(key) or self._journal.lookup(key)
        if entry is not None:
            if entry.digest != request_digest:
                raise _id_reused(call.id, entry)
            if key in batch.pending:
                return _Pending(key, request_digest)
            self._spend(batch, "$.params", reply_bytes=len(entry.result))
            return orjson.Fragment(entry.result)
        if estimate is None:
            estimate = _REPLY_BASE + _REPLY_PER_PARAM_BYTE * len(params)
        before = batch.reply_bytes
        self._spend(batch, "$.params.attacks" if call.method == "attack.bulk" else "$.params",
                    attacks=attacks, reply_bytes=estimate)
        try:
            request = Encoded(call.params, params) if call.method in _PLAN_CACHED else call.params
            outcome = self._engine_call(engine_call, request)
        except BridgeError:
            self._settle(batch, before, _REPLY_BASE)  # an error reply holds little
            raise
        engine = self._engine
        result = orjson.dumps(outcome.to_dict())
        batch.pending[key] = Entry(
            id_key=key,
            method=call.method,
            digest=request_digest,
            params=params,
            result=result,
            backend=engine.backend,
            version=engine.__version__,
            recorded_at=now_utc(),
        )
        self._settle(batch, before, len(result))
        self._check_reply(batch, call, len(result), journaled=True)
        return _Pending(key, request_digest)

    def _engine_call(self, engine_call: Callable[..., Any], request: Any, **options: Any) -> Any:
        """Run the engine; turn its request errors into JSON-RPC errors."""
        try:
            return engine_call(request, **options)
        except self._cancelled_class:
            raise _cancelled() from None
        except self._engine.RequestError as exc:
            for engine_class, bridge_class in self._error_map:
                if isinstance(exc, engine_class):
                    break
            raise bridge_class.at(params_path(exc.path), exc.reason) from exc

    def _journal_get(self, call: Call, batch: _Batch) -> Any:
        entry = self._journaled(call)
        # The entry is one row in memory; its reply is counted before it is built.
        size = len(entry.params) + len(entry.result) + 256
        before = batch.reply_bytes
        self._spend(batch, "$.params.id", reply_bytes=size)
        result = orjson.dumps(entry.to_dict())
        self._settle(batch, before, len(result))
        return orjson.Fragment(result)

    def _journal_replay(self, call: Call, batch: _Batch) -> Any:
        entry = self._journaled(call)
        if entry.method not in ENGINE_CALLS:
            raise errors.InvalidParams.at(
                "$.params.id", f"{entry.method} is not replayed from the journal: a round depends on its"
                               " encounter's state; undo it (encounter.undo) and play it again with the seed"
                               " of its log (encounter.round)")
        recorded = orjson.loads(entry.result)
        params = orjson.loads(entry.params)
        attacks = 1
        if entry.method == "attack.bulk" and isinstance(params, dict):
            attacks = self._check_bulk_size(params)
        estimate = 2 * len(entry.result) + _REPLY_BASE
        before = batch.reply_bytes
        self._spend(batch, "$.params.id", attacks=attacks, reply_bytes=estimate)
        engine_call = (self._bulk_call(batch) if entry.method == "attack.bulk"
                       else getattr(self._engine, ENGINE_CALLS[entry.method]))
        replayed = self._engine_call(engine_call, params, seed=recorded["seed"]).to_dict()
        # The backend that rolled is not part of the roll.
        differences = _differences(
            {k: v for k, v in recorded.items() if k != "backend"},
            {k: v for k, v in replayed.items() if k != "backend"},
        )
        result = orjson.dumps({
            "id": entry.request_id,
            "method": entry.method,
            "seed": recorded["seed"],
            "matches": not differences,
            "differences": differences[:_MAX_DIFFERENCES],
            "recorded_backend": entry.backend,
            "replayed_backend": self._engine.backend,
            "result": replayed,
        })
        self._settle(batch, before, len(result))
        self._check_reply(batch, call, len(result), journaled=False)
        return orjson.Fragment(result)

    def _journaled(self, call: Call) -> Entry:
        _only(call.params, {"id"}, required={"id"})
        wanted = call.params["id"]
        if isinstance(wanted, bool) or not isinstance(wanted, (int, str)):
            raise errors.InvalidParams.at(
                "$.params.id", f"must be a string or an integer, got {_type_name(wanted)}"
            )
        entry = self._journal.lookup(id_key(wanted))
        if entry is None:
            raise errors.NotInJournal.at(
                "$.params.id", f"no journaled request has id {id_key(wanted)}"
            )
        return entry


class _Answer:
    """A plain result (an encounter's) with the `to_dict()` the rolling path reads."""

    __slots__ = ("data",)

    def __init__(self, data: Any) -> None:
        self.data = data

    def to_dict(self) -> Any:
        return self.data


@dataclasses.dataclass(frozen=True)
class _Pending:
    """A result rolled in this message, answered once its journal entry commits."""

    key: str
    digest: str


class _Refused(Exception):
    """Not a usable request: answer ``error`` with ``request_id`` (None if unknown)."""

    def __init__(self, request_id: int | str | None, error: BridgeError) -> None:
        super().__init__(error.message)
        self.request_id = request_id
        self.error = error


def _cancelled() -> errors.ShuttingDown:
    return errors.ShuttingDown(
        "cancelled: the bridge is shutting down (or this connection closed) before this request"
        " finished; nothing was rolled or journaled for it, send it again once the bridge is back"
    )


def _bulk_reply_estimate(params: dict[str, Any]) -> int:
    """Bytes of a bulk summary before the work: it grows with the groups and the targets."""
    groups = params.get("attacks")
    targets = params.get("targets")
    return (_REPLY_BASE + _REPLY_PER_GROUP * (len(groups) if isinstance(groups, list) else 0)
            + _REPLY_PER_TARGET * (len(targets) if isinstance(targets, (list, dict)) else 0))


def _too_deep(document: Any, limit: int) -> str | None:
    """The path of the first array or object nested past ``limit`` levels, or None.

    Iterative (no recursion to overflow), stops at the first one found, and builds
    a path only for that one (each container keeps a link to its parent).
    """
    stack: list[tuple[Any, int, Any]] = [(document, 1, None)]
    containers = (dict, list)
    while stack:
        value, depth, trail = stack.pop()
        if depth > limit:
            keys = []
            while trail is not None:
                trail, key = trail
                keys.append(key)
            path = "$"
            for key in reversed(keys):
                path = f"{path}[{key}]" if isinstance(key, int) else key_path(path, key)
            return path
        children = value.items() if isinstance(value, dict) else enumerate(value)
        for key, child in children:
            if isinstance(child, containers):
                stack.append((child, depth + 1, (trail, key)))
    return None


#: The methods whose engine call keeps compiled plans by the request's canonical encoding:
#: they are given the encoding the journal made (fracas.drive.Encoded), not a second one.
_PLAN_CACHED = frozenset({"attack.resolve", "attack.bulk"})


def _rolling_keys(documents: list[Any]) -> list[str | None]:
    """Per document, the journal key it may roll under (claimed before the message starts),
    or None for one that does not roll; its Call takes the key along."""
    keys: list[str | None] = []
    for document in documents:
        key = None
        if isinstance(document, dict) and (document.get("method") in ROLLING_METHODS
                                           or document.get("method") in KIND_METHODS):
            request_id = document.get("id")
            if isinstance(request_id, (int, str)) and not isinstance(request_id, bool):
                key = id_key(request_id)
        keys.append(key)
    return keys


def _id_reused(request_id: int | str, entry: Entry) -> errors.IdReused:
    return errors.IdReused.at(
        "$.id",
        f"id {id_key(request_id)} was already used for a different request"
        f" ({entry.method}, journaled {entry.recorded_at}); use a new id",
    )


def _only(params: dict[str, Any], allowed: set[str], *, required: set[str] = frozenset()) -> None:
    """Params of the bridge's own methods: no unknown names, none missing."""
    for name in params:
        if name not in allowed:
            raise errors.InvalidParams.at(key_path("$.params", name), "unknown parameter")
    for name in sorted(required):
        if name not in params:
            raise errors.InvalidParams.at(f"$.params.{name}", "missing")


def _differences(recorded: Any, replayed: Any) -> list[str]:
    """Paths where two JSON values differ (for journal.replay)."""
    return [path for path, _, _ in differences(recorded, replayed)]
