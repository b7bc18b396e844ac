"""The bridge's protocol, sans I/O: a decoded websocket message in, a reply and journal actions out.

In the sense of h11 and wsproto (https://h11.readthedocs.io, "h11 does no I/O"; wsproto's
"network glue" and "application glue" around a connection object that never touches a
socket; websockets' ``protocol.py`` is the same shape): this module holds the bridge's
logic and reads or writes nothing. The caller (``dispatcher.py``) moves the bytes in and
out and performs the journal actions this module returns as values, so every rule here is
testable with a dict standing in for the journal and no socket at all.

One message::

    Protocol.read(session, text) ──▶ Read: parsed, weighed (heavy?), or already answered
                                      (not JSON, too deep, authentication)
    Protocol.start(session, read) ─▶ Turn: its reply at once (batch refused, shutting down),
                                      or the journal keys to claim and to read
    Turn.run(entries read)  ───────▶ Commit: the journal entries to write, in one transaction
    Turn.finish(entries stored) ───▶ Reply: the JSON text to send (and a close, if any)

The layers it puts together: ``rpc.py`` (the JSON-RPC 2.0 envelope and batch rules),
``methods.py`` (the handlers, in one table), ``policy.py`` (what is journaled, the id as
idempotency key, replay of journaled answers) and ``budget.py`` (what a message may spend).
The engine and its encounter store are given to it: they are the work, not the transport.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import orjson
from fracas._facts import BRIDGE_METHODS
from fracas.requests import shown

from . import errors, policy, rpc, workers
from .auth import token_matches
from .budget import Ledger, Meter, Spending
from .errors import BridgeError
from .journal import Entry
from .limits import Limits
from .methods import Either, Handler, Message, Methods, cancelled, method_table
from .policy import KIND_METHODS, Commit, Journaling, Pending
from .rpc import Call, Refused, failure, success

logger = logging.getLogger("fracas.bridge")

#: Every method (from the shared spec, so schema.json and the clients list the same).
METHODS = BRIDGE_METHODS + KIND_METHODS

#: Methods the bulk pool answers whatever their size (with batches; see Protocol.heavy).
HEAVY_METHODS = frozenset({"attack.bulk", "attack.odds", "journal.replay", "fight.forecast"})
#: An encounter round rolling more strikes than this is answered by the bulk pool.
HEAVY_ROUND = 256
#: An encounter of more members than this is heavy to show or undo (its state and reply
#: grow with them: 940 groups a side took ~2 s to show).
HEAVY_MEMBERS = 128
#: Methods weighed from the stored encounter they name before they are answered.
ENCOUNTER_WEIGHED = frozenset({"encounter.round", "encounter.show", "encounter.undo"})
#: Methods answered on the event loop itself: they need no journal, store or engine.
NOW_METHODS = frozenset({"server.info", "auth"})

# Close codes sent with a reply that ends the connection (RFC 6455, section 7.4.1).
CLOSE_POLICY_VIOLATION = 1008
CLOSE_TRY_AGAIN_LATER = 1013


@dataclasses.dataclass
class Session:
    """What the bridge remembers about one connection.

    ``cancel`` is set when the connection is gone: its bulk work stops at the next
    chunk. The meters (made on first use) bound what the connection has in flight.
    """

    peer: str = "-"
    authenticated: bool = False
    #: The token generation this session authenticated with (see Protocol.token).
    generation: int = 0
    cancel: threading.Event = dataclasses.field(default_factory=threading.Event)
    attacks: Meter | None = None
    reply_bytes: Meter | None = None
    #: (attacks, reply bytes) meters of the connection's remote source address, shared by
    #: its connections (None on loopback, where each connection is its own source).
    source: tuple[Meter, Meter] | None = None
    #: The server's turn-taking for this connection's heavy messages (opaque here).
    lane: Any = None


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
    #: Where it is answered when read without weighing (:meth:`Protocol.read` with
    #: ``weigh=False``): "now" (needs no I/O: on the event loop), "fast" (a single request),
    #: "weigh" (named encounter to weigh first) or "heavy".
    lane: str = "fast"


class Protocol:
    """The bridge's logic for every connection; thread-safe, and does no I/O.

    ``engine`` is the :mod:`fracas` module unless a test passes another object with the
    same functions (raising fracas.errors' exceptions); ``encounters()`` gives the
    engine's encounter store (read, too, to weigh an encounter round before it is played).
    """

    def __init__(self, *, token: str, limits: Limits | None = None, engine: Any = None,
                 encounters: Callable[[], Any], bulk_threads: int | None = None) -> None:
        if not token:
            raise ValueError("the access token must not be empty")
        if engine is None:
            import fracas

            engine = fracas
        self._token = token
        #: Bumped by each token change: sessions of an older generation were authenticated
        #: with a token that no longer opens the bridge.
        self.generation = 0
        self.limits = limits or Limits()
        #: Set on shutdown once the grace period is over: every bulk request stops.
        self.cancel_all = threading.Event()
        #: Clear while single requests are being answered: bulk work pauses between chunks.
        self.quiet = threading.Event()
        self.quiet.set()
        #: What every connection together has in flight: attacks, and reply bytes.
        self.server_attacks = Meter("max_server_attacks", self.limits.max_server_attacks, "the bridge")
        self.server_reply_bytes = Meter("max_server_reply_bytes", self.limits.max_server_reply_bytes, "the bridge")
        self.methods = Methods(engine=engine, limits=self.limits, encounters=encounters, quiet=self.quiet,
                               server=(self.server_attacks, self.server_reply_bytes), bulk_threads=bulk_threads,
                               names=METHODS)
        self.handlers: dict[str, Handler] = method_table(self.methods)
        missing = (set(METHODS) - {"auth"}) ^ set(self.handlers)
        if missing:
            raise ValueError(f"the method table and the spec's BRIDGE_METHODS differ: {sorted(missing)}")

    @property
    def token(self) -> str:
        return self._token

    @token.setter
    def token(self, token: str) -> None:
        """A new token opens the bridge from now on; the old one opens nothing (sessions
        authenticated with it keep their ``generation``, now older than the protocol's)."""
        if not token:
            raise ValueError("the access token must not be empty")
        self._token = token
        self.generation += 1

    # ── reading: parse, authenticate, weigh ─────────────────────────────────

    def read(self, session: Session, message: str | bytes, late: bool, *, weigh: bool = True) -> Read:
        """Parse one message and weigh it (which pool answers it), rolling nothing.

        Before authentication this also answers it (the auth request, or a refusal).
        ``late``: whether it came once the bridge was shutting down. Without ``weigh`` no
        stored encounter is read: ``lane`` says where the message goes (its method, or
        "weigh" when :meth:`heavy` must still look at the encounter it names)."""
        try:
            document = rpc.parse(message, self.limits.max_depth)
        except Refused as refused:
            return Read(reply=self._refuse(session, refused.request_id, refused.error), lane="now")
        if not session.authenticated:
            return Read(reply=self._authenticate(session, document), lane="now")
        if late:
            return Read(document=document, late=True, lane="now")
        if weigh:
            return Read(document=document, heavy=self.heavy(document))
        lane = self.lane(document)
        return Read(document=document, heavy=lane == "heavy", lane=lane)

    def lane(self, document: Any) -> str:
        """Where a parsed message is answered, from its shape and method alone (no I/O)."""
        if isinstance(document, list):
            return "heavy"
        method = document.get("method") if isinstance(document, dict) else None
        if not isinstance(method, str) or method in NOW_METHODS or method not in self.handlers:
            return "now"  # answered with an error, or server.info: no journal, no engine
        if method in HEAVY_METHODS:
            return "heavy"
        if method in ENCOUNTER_WEIGHED:
            return "weigh"
        return "fast"

    def heavy(self, document: Any) -> bool:
        """Whether the bulk pool answers this parsed message: batches, bulk, odds, replays, and
        encounter rounds past HEAVY_ROUND strikes (weighed from the encounter's scenario).

        The method is the parsed one (``"attack\\u002ebulk"`` is attack.bulk); a message that
        is not a well-formed request is light: it is answered with an error at once."""
        if isinstance(document, list):
            return True
        method = document.get("method") if isinstance(document, dict) else None
        if not isinstance(method, str):  # an array or object is not hashable: no set lookup
            return False
        if method in HEAVY_METHODS:
            return True
        if method in ENCOUNTER_WEIGHED:
            params = document.get("params")
            name = params.get("name") if isinstance(params, dict) else None
            if not isinstance(name, str):
                return False
            members, strikes = self.methods.round_work(name)
            if method == "encounter.round":  # its strikes are its work (and its attack budget)
                return strikes > HEAVY_ROUND
            return members > HEAVY_MEMBERS
        return False

    def _refuse(self, session: Session, request_id: Any, error: BridgeError) -> Reply:
        """An error reply; before authentication it also ends the connection."""
        data = orjson.dumps(failure(request_id, error))
        if session.authenticated:
            return Reply(data)
        return Reply(data, (CLOSE_POLICY_VIOLATION, "authentication required"))

    def _authenticate(self, session: Session, document: Any) -> Reply:
        error: BridgeError
        if isinstance(document, list):
            error = errors.AuthenticationFailed(
                "not authenticated: the first message must be a single auth request, not a batch")
            return self._refuse(session, None, error)
        try:
            call = rpc.envelope(document, METHODS, self.limits.max_id_length)
        except Refused as refused:
            error = refused.error
            if isinstance(error, errors.MethodNotFound):  # which methods exist is not said before auth
                error = errors.AuthenticationFailed.at(
                    "$.method", f"not authenticated: the first message must be auth, not {shown(document['method'])}")
            return self._refuse(session, refused.request_id, error)
        if call.method != "auth":
            error = errors.AuthenticationFailed.at(
                "$.method", f"not authenticated: the first message must be auth, not {call.method}")
            return self._refuse(session, call.id, error)
        try:
            rpc.only(call.params, {"token"}, required={"token"})
            token = call.params["token"]
            if not isinstance(token, str):
                raise errors.InvalidParams.at("$.params.token", f"must be a string, got {rpc.type_name(token)}")
        except BridgeError as refusal:
            return self._refuse(session, call.id, refusal)
        if not token_matches(token, self._token):
            error = errors.AuthenticationFailed("authentication failed: wrong token")
            return Reply(orjson.dumps(failure(call.id, error)), (CLOSE_POLICY_VIOLATION, "authentication failed"))
        session.authenticated = True
        session.generation = self.generation
        return Reply(orjson.dumps(success(call.id, {"authenticated": True})))

    @staticmethod
    def too_many_connections(reply: Reply, limit: int) -> Reply:
        """The answer to a correct ``auth`` when the bridge already has ``limit`` connections."""
        request_id = orjson.loads(reply.data)["id"] if reply.data else None
        error = errors.LimitExceeded(
            f"too many connections: the bridge already has {limit} (max_connections); close one"
            " and connect again", limit=limit, limit_name="max_connections")
        return Reply(orjson.dumps(failure(request_id, error)),
                     (CLOSE_TRY_AGAIN_LATER, f"too many connections (limit {limit})"))

    @staticmethod
    def bug(session: Session) -> Reply:
        """The reply when answering a message failed on a bug (logged with its traceback)."""
        logger.exception("unexpected error while handling a message from %s", session.peer)
        error = errors.InternalError("internal error in the bridge (see its log)")
        return Reply(orjson.dumps(failure(None, error)))

    # ── answering ───────────────────────────────────────────────────────────

    def start(self, session: Session, read: Read, ledger: Ledger) -> Turn:
        """Begin answering a message :meth:`read` has parsed; ``ledger`` keeps what it takes
        of the connection's and the bridge's budgets."""
        if read.reply is not None:
            return Turn(self, [], reply=read.reply)
        document = read.document
        if session.attacks is None:
            limits = self.limits
            session.attacks = Meter("max_connection_attacks", limits.max_connection_attacks, "this connection")
            session.reply_bytes = Meter("max_connection_reply_bytes", limits.max_connection_reply_bytes,
                                        "this connection")
        assert session.reply_bytes is not None
        batch = isinstance(document, list)
        documents = document if batch else [document]
        if batch:
            refused = rpc.check_batch(documents, self.limits.max_batch)
            if refused is not None:
                return Turn(self, [], reply=Reply(orjson.dumps(failure(None, refused))))
        if read.late:  # no claims, no engine, no journal: cheap enough for the event loop
            answers = [self._shutting_down(item) for item in documents]
            return Turn(self, [], reply=Reply(orjson.dumps(answers if batch else answers[0])))
        spending = Spending(self.limits, ledger, (session.attacks, session.reply_bytes),
                            (self.server_attacks, self.server_reply_bytes), session.source)
        return Turn(self, documents, batch=batch, spending=spending, cancel=Either(session.cancel, self.cancel_all))

    def _shutting_down(self, document: Any) -> dict[str, Any]:
        try:
            call = rpc.envelope(document, METHODS, self.limits.max_id_length)
        except Refused as refused:
            return failure(refused.request_id, refused.error)
        return failure(call.id, errors.ShuttingDown(
            "the bridge is shutting down; nothing was done, send the request again once it is back"))


class Turn:
    """One message being answered. If ``reply`` is set it is answered already; else the
    caller claims ``claims`` (only one message at a time may roll under a journal key),
    reads ``reads`` from the journal, calls :meth:`run` with them, writes the Commit it
    returns in one transaction, and calls :meth:`finish` with what the journal then holds
    (or None if the write failed)."""

    def __init__(self, protocol: Protocol, documents: list[Any], *, reply: Reply | None = None,
                 batch: bool = False, spending: Spending | None = None, cancel: Either | None = None) -> None:
        self.reply = reply
        self._protocol, self._documents, self._batch = protocol, documents, batch
        #: What the message may spend, and when it stops (None when it is answered already).
        self._work = None if spending is None or cancel is None else (spending, cancel)
        self._keys = policy.rolling_keys(documents)
        #: The journal keys this message may roll under, each once.
        self.claims: list[str] = policy.claims(self._keys)
        #: Every journal key it may look up (its rolling keys, and journal.get's and journal.replay's ids).
        self.reads: list[str] = policy.reads(documents, self._keys)
        self._answers: list[dict[str, Any]] = []
        self._rolled: list[int] = []  # indexes of answers whose result awaits the commit

    def run(self, read: Mapping[str, Entry | None | Exception]) -> Commit:
        """Answer every request of the message from ``read`` (the journal entry under each key
        of :attr:`reads`, None if there is none, or the exception reading it raised, which
        fails the requests that need it); return what must be journaled before replying."""
        assert self.reply is None and self._work is not None
        spending, cancel = self._work
        message = Message(spending, Journaling(read), cancel)
        workers.current.message = message  # for work handed to a worker process
        try:
            return self._run(message)
        finally:
            workers.current.message = None

    def _run(self, message: Message) -> Commit:
        protocol = self._protocol
        answers, rolled = self._answers, self._rolled
        for document, key in zip(self._documents, self._keys):
            try:
                call = rpc.envelope(document, METHODS, protocol.limits.max_id_length, key)
            except Refused as refused:
                answers.append(failure(refused.request_id, refused.error))
                continue
            if message.cancel.is_set():
                answers.append(failure(call.id, cancelled()))
                continue
            try:
                result = self._call(call, message)
            except BridgeError as error:
                answers.append(failure(call.id, error))
                continue
            except Exception:  # a bug: this request fails, the others stand
                logger.exception("unexpected error in %s id=%s", call.method, call.key)
                answers.append(failure(call.id, errors.InternalError(
                    f"internal error in {call.method} (see the bridge log)")))
                continue
            if isinstance(result, Pending):
                rolled.append(len(answers))
            answers.append(success(call.id, result))
        return message.journal.commit()

    def _call(self, call: Call, message: Message) -> Any:
        if call.method == "auth":
            raise errors.InvalidRequest.at("$.method", "already authenticated: auth is only the first message")
        started = time.perf_counter()
        try:
            return self._protocol.handlers[call.method](call, message)
        finally:
            logger.debug("%s id=%s answered in %.1f ms", call.method, call.key, (time.perf_counter() - started) * 1e3)

    def finish(self, stored: list[Entry] | None) -> Reply:
        """The reply, once the Commit is written: ``stored`` is what the journal holds for its
        entries (None: the write failed, and no rolled result is sent)."""
        policy.settle(self._answers, self._rolled, stored)
        return Reply(orjson.dumps(self._answers if self._batch else self._answers[0]))
