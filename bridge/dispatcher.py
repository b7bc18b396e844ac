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
import threading
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import orjson
from fracas._facts import BRIDGE_METHODS, ROLLING_METHODS
from fracas.diff import differences
from fracas.requests import key_path

from . import errors
from .auth import token_matches
from .errors import BridgeError, params_path
from .journal import Entry, Journal, JournalError, canonical, digest, id_key, now_utc
from .limits import Limits

logger = logging.getLogger("fracas.bridge")

#: Every method, and those that roll dice (their results are journaled under the
#: request id): from the shared spec, so schema.json and the clients list the same.
METHODS = BRIDGE_METHODS

_ENVELOPE_MEMBERS = frozenset({"jsonrpc", "id", "method", "params"})
_MAX_DIFFERENCES = 20

# Close codes sent with a reply that ends the connection.
CLOSE_POLICY_VIOLATION = 1008


@dataclasses.dataclass
class Session:
    """What the dispatcher remembers about one connection."""

    peer: str = "-"
    authenticated: bool = False


@dataclasses.dataclass(frozen=True)
class Reply:
    """What to do with one message: send ``data`` (JSON text), then maybe close.

    ``data`` is None only when there is nothing to say; ``close`` is a
    ``(code, reason)`` pair when the connection must end after ``data``.
    """

    data: bytes | None
    close: tuple[int, str] | None = None


@dataclasses.dataclass(frozen=True)
class Call:
    """A well-formed request: its id, method and params."""

    id: int | str
    method: str
    params: dict[str, Any]


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
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
    """Journal entries rolled in one message, committed together before replying."""

    def __init__(self) -> None:
        self.pending: dict[str, Entry] = {}


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
    ) -> None:
        if not token:
            raise ValueError("the access token must not be empty")
        if engine is None:
            import fracas as engine
        self._token = token
        self._journal = journal
        self.limits = limits or Limits()
        self._engine = engine
        self._is_draining = is_draining
        self._claims = _Claims()
        self._methods: dict[str, Callable[[Call, _Batch], Any]] = {
            "server.info": self._server_info,
            "attack.resolve": self._attack_resolve,
            "attack.bulk": self._attack_bulk,
            "initiative.roll": self._initiative_roll,
            "morale.check": self._morale_check,
            "attack.odds": self._attack_odds,
            "journal.get": self._journal_get,
            "journal.replay": self._journal_replay,
        }
        # Engine exception class → bridge error class, most specific first.
        self._error_map = [
            (engine.SchemaError, errors.InvalidParams),
            (engine.RulesError, errors.RulesError),
            (engine.DiceError, errors.DiceError),
            (engine.LimitError, errors.LimitExceeded),
            (engine.RequestError, errors.InvalidParams),
        ]

    # ── the one entry point ─────────────────────────────────────────────────

    def handle(self, session: Session, message: str | bytes) -> Reply:
        """Answer one websocket message (a text frame as str, a binary frame as bytes)."""
        try:
            return self._handle(session, message)
        except Exception:  # a bug: answer, log, keep serving
            logger.exception("unexpected error while handling a message from %s", session.peer)
            error = errors.InternalError("internal error in the bridge (see its log)")
            return Reply(orjson.dumps(_failure(None, error)))

    def _handle(self, session: Session, message: str | bytes) -> Reply:
        if not isinstance(message, str):
            error = errors.InvalidRequest(
                "binary frames are not accepted: send JSON-RPC 2.0 as UTF-8 text frames"
            )
            return self._refuse(session, None, error)
        try:
            document = orjson.loads(message)
        except orjson.JSONDecodeError as exc:
            return self._refuse(session, None, errors.ParseError(f"parse error: {exc}"))
        if not session.authenticated:
            return self._authenticate(session, document)
        if isinstance(document, list):
            return self._handle_batch(document)
        return Reply(orjson.dumps(self._answer_all([document])[0]))

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
            return self._refuse(session, refused.request_id, refused.error)
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
        return Reply(orjson.dumps(_success(call.id, {"authenticated": True})))

    # ── envelopes and batches ───────────────────────────────────────────────

    def _envelope(self, document: Any) -> Call:
        """Check the JSON-RPC 2.0 request object; raise _Refused if it is not one."""
        if not isinstance(document, dict):
            reason = f"expected a JSON-RPC request object, got {_type_name(document)}"
            raise _Refused(None, errors.InvalidRequest.at("$", reason))
        request_id = self._request_id(document)
        try:
            return Call(request_id, self._method(document), self._params(document))
        except BridgeError as error:
            raise _Refused(request_id, error) from None

    def _request_id(self, document: dict[str, Any]) -> int | str:
        if "id" not in document:
            reason = "missing: every request needs an id (it is the idempotency key)"
            raise _Refused(None, errors.InvalidRequest.at("$.id", reason))
        request_id = document["id"]
        if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
            reason = f"must be a string or an integer, got {_type_name(request_id)}"
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

    def _handle_batch(self, documents: list[Any]) -> Reply:
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
        return Reply(orjson.dumps(self._answer_all(documents)))

    def _answer_all(self, documents: list[Any]) -> list[dict[str, Any]]:
        """Answer the requests of one message; journal their rolls in one commit."""
        if self._is_draining():
            return [self._shutting_down(document) for document in documents]
        batch = _Batch()
        answers: list[dict[str, Any]] = []
        rolled: list[int] = []  # indexes of answers whose result awaits the commit
        keys = _rolling_keys(documents)
        self._claims.acquire(keys)
        try:
            for document in documents:
                try:
                    call = self._envelope(document)
                except _Refused as refused:
                    answers.append(_failure(refused.request_id, refused.error))
                    continue
                try:
                    result = self._call(call, batch)
                except BridgeError as error:
                    answers.append(_failure(call.id, error))
                    continue
                except Exception:  # a bug: this request fails, the others stand
                    logger.exception("unexpected error in %s id=%s", call.method, id_key(call.id))
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
                id_key(call.id),
                (time.perf_counter() - started) * 1e3,
            )

    def _server_info(self, call: Call, batch: _Batch) -> dict[str, Any]:
        _only(call.params, set())
        engine = self._engine
        return {
            "name": "fracas",
            "version": engine.__version__,
            "backend": engine.backend,
            "rulesets": list(engine.rulesets()),
            "methods": list(METHODS),
            "limits": self.limits.to_dict(),
        }

    def _attack_resolve(self, call: Call, batch: _Batch) -> Any:
        if "attacks" in call.params:
            raise errors.InvalidParams.at(
                "$.params.attacks", "a bulk request (with attacks) goes to attack.bulk"
            )
        return self._roll(call, batch, self._engine.resolve)

    def _attack_bulk(self, call: Call, batch: _Batch) -> Any:
        self._check_bulk_size(call.params)
        limits = self.limits

        def resolve_bulk(request: Any, **options: Any) -> Any:
            # Any ruleset's bulk shape: the engine checks the bridge's limits once the
            # request is compiled, before it rolls (the check above is the fast one
            # for the shape every built-in ruleset shares).
            return self._engine.resolve_bulk(request, max_attacks=limits.max_bulk_attacks,
                                             max_listed=limits.max_bulk_detail_attacks, **options)

        return self._roll(call, batch, resolve_bulk)

    def _initiative_roll(self, call: Call, batch: _Batch) -> Any:
        return self._roll(call, batch, self._engine.roll_initiative)

    def _morale_check(self, call: Call, batch: _Batch) -> Any:
        return self._roll(call, batch, self._engine.check_morale)

    def _attack_odds(self, call: Call, batch: _Batch) -> Any:
        # Exact odds roll nothing: no seed, no journal; the engine refuses (LimitError)
        # what it cannot enumerate quickly, before it starts.
        return self._engine_call(self._engine.odds, call.params).to_dict()

    def _check_bulk_size(self, params: dict[str, Any]) -> None:
        """Refuse a bulk request past the bridge's limits before the engine sees it.

        Only well-typed counts are summed; anything malformed is left for the
        engine's validation, which names the path.
        """
        groups = params.get("attacks")
        if not isinstance(groups, list):
            return
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
                " (fracas serve --max-bulk-attacks)",
                limit=limits.max_bulk_attacks,
            )
        detail = params.get("detail")
        if detail in ("attacks", "dice") and total > limits.max_bulk_detail_attacks:
            raise errors.LimitExceeded.at(
                "$.params.detail",
                f"detail {detail!r} for {total:,} attacks is more than the bridge's limit of"
                f" {limits.max_bulk_detail_attacks:,}; use detail 'summary'",
                limit=limits.max_bulk_detail_attacks,
            )

    def _roll(self, call: Call, batch: _Batch, engine_call: Callable[..., Any]) -> Any:
        """Answer a rolling request once per id: from the journal, or by rolling."""
        key = id_key(call.id)
        params = canonical(call.params)
        request_digest = digest(call.method, params)
        entry = batch.pending.get(key) or self._journal.lookup(key)
        if entry is not None:
            if entry.digest != request_digest:
                raise _id_reused(call.id, entry)
            if key in batch.pending:
                return _Pending(key, request_digest)
            return orjson.Fragment(entry.result)
        outcome = self._engine_call(engine_call, call.params)
        engine = self._engine
        batch.pending[key] = Entry(
            id_key=key,
            method=call.method,
            digest=request_digest,
            params=params,
            result=orjson.dumps(outcome.to_dict()),
            backend=engine.backend,
            version=engine.__version__,
            recorded_at=now_utc(),
        )
        return _Pending(key, request_digest)

    def _engine_call(self, engine_call: Callable[..., Any], request: Any, **options: Any) -> Any:
        """Run the engine; turn its request errors into JSON-RPC errors."""
        try:
            return engine_call(request, **options)
        except self._engine.RequestError as exc:
            for engine_class, bridge_class in self._error_map:
                if isinstance(exc, engine_class):
                    break
            raise bridge_class.at(params_path(exc.path), exc.reason) from exc

    def _journal_get(self, call: Call, batch: _Batch) -> Any:
        return self._journaled(call).to_dict()

    def _journal_replay(self, call: Call, batch: _Batch) -> Any:
        entry = self._journaled(call)
        recorded = orjson.loads(entry.result)
        engine_call = {
            "attack.resolve": self._engine.resolve,
            "attack.bulk": self._engine.resolve_bulk,
            "initiative.roll": self._engine.roll_initiative,
            "morale.check": self._engine.check_morale,
        }[entry.method]
        replayed = self._engine_call(
            engine_call, orjson.loads(entry.params), seed=recorded["seed"]
        ).to_dict()
        # The backend that rolled is not part of the roll.
        differences = _differences(
            {k: v for k, v in recorded.items() if k != "backend"},
            {k: v for k, v in replayed.items() if k != "backend"},
        )
        return {
            "id": entry.request_id,
            "method": entry.method,
            "seed": recorded["seed"],
            "matches": not differences,
            "differences": differences[:_MAX_DIFFERENCES],
            "recorded_backend": entry.backend,
            "replayed_backend": self._engine.backend,
            "result": replayed,
        }

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


def _rolling_keys(documents: list[Any]) -> list[str]:
    """The journal keys a message may roll under (claimed before it starts)."""
    keys = set()
    for document in documents:
        if isinstance(document, dict) and document.get("method") in ROLLING_METHODS:
            request_id = document.get("id")
            if isinstance(request_id, (int, str)) and not isinstance(request_id, bool):
                keys.add(id_key(request_id))
    return list(keys)


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
