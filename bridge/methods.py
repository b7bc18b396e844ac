"""The bridge's methods: one handler per JSON-RPC method, named in one table.

A handler takes a checked request (:class:`~.rpc.Call`) and the :class:`Message` it is
part of (the message's budgets, its view of the journal, its cancel events) and returns
the request's result, or raises a :class:`~.errors.BridgeError`. A rolling method asks
the message's journal view for an answer already journaled under its id
(:meth:`~.policy.Journaling.recall`) and hands what it rolled back to it
(:meth:`~.policy.Journaling.add`), to be written by the edge before any reply is sent.
An encounter change is the exception: its entry is written (:func:`~.journal.insert`)
inside the encounter store's transaction that makes the change, so the two commit
together or not at all, and a failed write says truly that nothing was applied. The engine is given (``fracas`` unless a test passes a stand-in with
the same functions), and so is the engine's encounter store.

:func:`method_table` is the one place that says which handler answers which method.
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
import threading
from collections.abc import Callable
from typing import Any

import orjson
from fracas.diff import differences
from fracas._facts import BRIDGE_METHODS
from fracas.drive import ENGINE_CALLS, Encoded, canonical
from fracas.errors import Cancelled, RequestError, SchemaError
from fracas.store import StoreError
from fracas.requests import type_name as json_type  # the engine's words: "got null", "got str"

from . import errors, forecast
from .budget import Meter, Spending
from .errors import BridgeError
from .journal import Entry, JournalError, digest, id_key, insert, now_utc
from .limits import Limits
from .policy import KIND_METHODS, Journaling
from .rpc import Call, only, type_name

logger = logging.getLogger("fracas.bridge")

#: A method's handler: a checked request and its message in, the result out.
Handler = Callable[[Call, "Message"], Any]

#: Reply bytes assumed before the work, per kind of answer (settled to the real size after).
REPLY_BASE = 2048
_REPLY_PER_PARAM_BYTE = 8
_REPLY_ODDS = 64 << 10
_REPLY_PER_GROUP = 2048
_REPLY_PER_TARGET = 1024
_REPLY_PER_ROW = {"attacks": 24, "dice": 768}
_REPLY_PER_LISTED_ATTACK = 48
#: An encounter round's log, per member (its status, health and the strikes it made).
_REPLY_PER_MEMBER = 1536
#: Differences listed by journal.replay at most.
_MAX_DIFFERENCES = 20

#: The methods whose engine call keeps compiled plans by the request's canonical encoding:
#: they are given the encoding the journal made (fracas.drive.Encoded), not a second one.
_PLAN_CACHED = frozenset({"attack.resolve", "attack.bulk"})


_contract_lock = threading.Lock()
#: The served contract's JSON by the rulesets registered when it was made (names and objects)
#: and the `rulesets` filter it was asked with (None: every ruleset).
_contract_cache: dict[tuple[tuple[tuple[str, int], ...], tuple[str, ...] | None], bytes] = {}
_CONTRACT_CACHE_MAX = 64


def served_contract(only: tuple[str, ...] | None = None) -> bytes:
    """``server.contract``'s result as JSON: :func:`fracas.spec.generate.served_contract`
    (the code that writes the clients' contract.js) run on the rulesets registered now,
    plug-ins included (of those named in `only`, when given); made once per set of
    registered rulesets and filter."""
    from fracas import rulesets
    from fracas.spec.generate import served_contract as make

    registered = tuple((name, id(rulesets.get(name))) for name in rulesets.names())
    key = (registered, only)
    with _contract_lock:
        made = _contract_cache.get(key)
        if made is None:
            # Entries of another registry are stale; a few filters of this one are kept.
            if any(k[0] != registered for k in _contract_cache) or len(_contract_cache) >= _CONTRACT_CACHE_MAX:
                _contract_cache.clear()
            made = _contract_cache[key] = orjson.dumps(make(only))
        return made


def _backend_of(result: Any, otherwise: str) -> str:
    backend = result.get("backend") if isinstance(result, dict) else None
    return backend if isinstance(backend, str) else otherwise


def _failed_rulesets(engine: Any) -> dict[str, str]:
    failed = getattr(getattr(engine, "rulesets", None), "failed", None)
    return failed() if callable(failed) else {}


def _ruleset_filter(params: dict[str, Any]) -> tuple[str, ...] | None:
    """server.contract's optional ``rulesets``: 1 to 64 distinct names (sorted), else None."""
    if "rulesets" not in params:
        return None
    names = params["rulesets"]
    path = "$.params.rulesets"
    if not isinstance(names, list) or not 1 <= len(names) <= 64:
        raise errors.InvalidParams.at(path, "not a list of 1 to 64 ruleset names")
    for i, name in enumerate(names):
        if not isinstance(name, str) or not 1 <= len(name) <= 64:
            raise errors.InvalidParams.at(f"{path}[{i}]", "not a ruleset name (a string of 1 to 64 characters)")
    if len(set(names)) != len(names):
        raise errors.InvalidParams.at(path, "a name is given twice")
    return tuple(sorted(names))


class Either:
    """Set when either event is (the connection's, or the whole bridge's on shutdown)."""

    def __init__(self, first: threading.Event, second: threading.Event) -> None:
        self._first, self._second = first, second

    def is_set(self) -> bool:
        return self._first.is_set() or self._second.is_set()


@dataclasses.dataclass
class Message:
    """One message being answered: what it spends, its view of the journal, and when to stop."""

    spending: Spending
    journal: Journaling
    cancel: Either


class _Checkpoint:
    """What the engine checks between chunks of bulk work (its ``cancel``): the
    message's cancel events; but first it waits, briefly, while single requests
    are being answered (``quiet`` clear), so they get the cores first."""

    #: Longest pause at one chunk boundary, in seconds.
    YIELD = 0.02

    def __init__(self, cancel: Either, quiet: threading.Event) -> None:
        self._cancel, self._quiet = cancel, quiet

    def is_set(self) -> bool:
        if not self._quiet.is_set():
            self._quiet.wait(self.YIELD)
        return self._cancel.is_set()



def method_table(methods: Methods) -> dict[str, Handler]:
    """Every method the bridge answers once a connection is authenticated, and its handler,
    in the order of the generated spec (its BRIDGE_METHODS but ``auth``, then KIND_METHODS).

    The bridge's own methods have their own handlers; every request kind's method (the
    shared kinds', old-school's ``morale.check``, ER's ``compete.roll`` and
    ``impale.resolve``, a third-party ruleset's kind) rolls with its engine call
    (``Kind.method`` → ``ENGINE_CALLS``), journaled."""
    own: dict[str, Handler] = {
        "server.info": methods.server_info,
        "server.contract": methods.server_contract,
        "attack.resolve": methods.attack_resolve,
        "attack.bulk": methods.attack_bulk,
        "attack.odds": methods.attack_odds,
        "journal.get": methods.journal_get,
        "journal.replay": methods.journal_replay,
        "encounter.new": methods.encounter_new,
        "encounter.show": methods.encounter_show,
        "encounter.round": methods.encounter_round,
        "encounter.undo": methods.encounter_undo,
        "encounter.list": methods.encounter_list,
        "encounter.delete": methods.encounter_delete,
        "fight.forecast": forecast.handler(methods),
    }
    table: dict[str, Handler] = {}
    for method in (*BRIDGE_METHODS, *KIND_METHODS):
        if method in own:
            table[method] = own[method]
        elif method in ENGINE_CALLS:
            table[method] = methods.rolling(ENGINE_CALLS[method])
    return table


@dataclasses.dataclass
class Methods:
    """The handlers, and what they share: the engine, the limits, the encounter store
    (``encounters()`` gives it), the bridge's ``quiet`` event (clear while single requests
    are answered: bulk work pauses between chunks), the bridge's (attacks, reply bytes)
    meters for ``server.info``, and the engine threads of a bulk request."""

    engine: Any
    limits: Limits
    encounters: Callable[[], Any]
    quiet: threading.Event
    server: tuple[Meter, Meter]
    bulk_threads: int | None = None
    #: Every method, in the spec's order, as ``server.info`` lists them.
    names: tuple[str, ...] = ()

    # ── rolling: once per id ────────────────────────────────────────────────

    def rolling(self, engine_function: str) -> Handler:
        """The handler of a method that rolls with the engine function of that name."""

        def handler(call: Call, message: Message) -> Any:
            return self.roll(call, message, getattr(self.engine, engine_function))

        handler.__name__ = engine_function
        return handler

    def roll(self, call: Call, message: Message, engine_call: Callable[..., Any], *, attacks: int = 1,
             estimate: int | None = None, together: bool = False,
             encode: Callable[[Any], bytes] = canonical) -> Any:
        """Answer a rolling request once per id: from the journal, or by rolling.

        ``together``: an encounter change; ``engine_call`` takes ``within``, called inside the
        store's transaction with the change's result, where the entry is written. ``encode``:
        the params' journaled encoding (a forecast keeps its scenario's order of sides)."""
        params = encode(call.params)  # the one encoding: the journal's and the plan cache's
        request_digest = digest(call.method, params)
        seen = message.journal.recall(call.id, call.key, request_digest)
        spending = message.spending
        if isinstance(seen, Entry):  # answered before: its journaled result, not a new roll
            spending.spend("$.params", reply_bytes=len(seen.result))
            return orjson.Fragment(seen.result)
        if seen is not None:  # rolled earlier in this message: answered with it once committed
            return seen
        if estimate is None:
            estimate = REPLY_BASE + _REPLY_PER_PARAM_BYTE * len(params)
        before = spending.reply_bytes
        spending.spend("$.params.attacks" if call.method == "attack.bulk" else "$.params",
                       attacks=attacks, reply_bytes=estimate)
        def entry(result: bytes, backend: str | None = None) -> Entry:
            # The backend that rolled it: the result's own (a ruleset or a fight the compiled
            # core does not cover rolls in Python on a compiled install), else the engine's.
            return Entry(id_key=call.key, method=call.method, digest=request_digest, params=params, result=result,
                         backend=backend or self.engine.backend, version=self.engine.__version__,
                         recorded_at=now_utc())

        together_with = _Together(entry, getattr(self.encounters(), "journal", None)) if together else None
        try:
            request = Encoded(call.params, params) if call.method in _PLAN_CACHED else call.params
            if together_with is None:
                outcome = self.engine_call(engine_call, request)
            else:
                outcome = self.engine_call(engine_call, request, within=together_with)
        except _AlreadyJournaled as first:  # another bridge on the file journaled this id first
            spending.settle(before, len(first.entry.result))
            if first.entry.digest != request_digest:
                from .policy import id_reused

                raise id_reused(call.id, first.entry) from None
            return orjson.Fragment(first.entry.result)
        except BridgeError:
            spending.settle(before, REPLY_BASE)  # an error reply holds little
            raise
        if together_with is not None and together_with.entry is not None:  # committed with the change
            done = together_with.entry
            message.journal.done(done)
            if together_with.journal is not None:
                together_with.journal.committed()
            spending.settle(before, len(done.result))
            spending.check_reply(call.key, len(done.result), journaled=True)
            return orjson.Fragment(done.result)
        answer = outcome.to_dict()
        result = orjson.dumps(answer)
        pending = message.journal.add(entry(result, _backend_of(answer, self.engine.backend)))
        spending.settle(before, len(result))
        spending.check_reply(call.key, len(result), journaled=True)
        return pending

    @staticmethod
    def engine_call(engine_call: Callable[..., Any], request: Any, **options: Any) -> Any:
        """Run the engine; turn its request errors into JSON-RPC errors."""
        try:
            return engine_call(request, **options)
        except Cancelled:
            raise cancelled() from None
        except RequestError as exc:
            raise errors.from_engine(exc) from exc
        except (StoreError, JournalError, sqlite3.Error) as exc:
            # The journal file (the encounter store's too): busy past the bounded wait, damaged,
            # full. A write's transaction was rolled back: nothing of this request was applied.
            why = str(exc) if not isinstance(exc, sqlite3.Error) else _why_file(exc)
            raise errors.InternalError(f"{why}; nothing was applied (the journal and any encounter are"
                                       " as they were), send the request again", reason=why) from None

    def _answered(self, call: Call, message: Message, run: Callable[[], Any], *, attacks: int = 1,
                  estimate: int = REPLY_BASE) -> orjson.Fragment:
        """Answer a request that is not journaled: budgeted, run, measured."""
        spending = message.spending
        before = spending.reply_bytes
        spending.spend("$.params", attacks=attacks, reply_bytes=estimate)
        result = orjson.dumps(run())
        spending.settle(before, len(result))
        spending.check_reply(call.key, len(result), journaled=False)
        return orjson.Fragment(result)

    # ── the methods ─────────────────────────────────────────────────────────

    def server_info(self, call: Call, message: Message) -> dict[str, Any]:
        only(call.params, ())
        attacks, reply_bytes = self.server
        in_flight = {"attacks": attacks.used, "reply_bytes": reply_bytes.used}
        # Small and fixed: from the message's budget only, so it answers even when the
        # bridge is saturated (it is how a client sees that it is).
        message.spending.spend("$.params", reply_bytes=REPLY_BASE, shared=False)
        engine = self.engine
        return {
            "name": "fracas",
            "version": engine.__version__,
            "backend": engine.backend,
            "rulesets": list(engine.rulesets()),
            # Installed rulesets left out because they failed to import or register (name → why).
            "rulesets_failed": _failed_rulesets(engine),
            "methods": list(self.names),
            "limits": self.limits.to_dict(),
            "bulk_threads": self.bulk_threads,
            "in_flight": in_flight,
        }

    def server_contract(self, call: Call, message: Message) -> Any:
        only(call.params, ("rulesets",))
        contract = served_contract(_ruleset_filter(call.params))
        # Not journaled, no attack: its bytes (known before it is sent) are its cost.
        return self._answered(call, message, lambda: orjson.Fragment(contract), attacks=0, estimate=len(contract))

    def attack_resolve(self, call: Call, message: Message) -> Any:
        if "attacks" in call.params:
            raise errors.InvalidParams.at("$.params.attacks", "a bulk request (with attacks) goes to attack.bulk")
        return self.roll(call, message, self.engine.resolve)

    def attack_bulk(self, call: Call, message: Message) -> Any:
        total = self.bulk_size(call.params)
        return self.roll(call, message, self._bulk_call(message), attacks=total,
                         estimate=_bulk_reply_estimate(call.params))

    def attack_odds(self, call: Call, message: Message) -> Any:
        # Exact odds roll nothing: no seed, no journal; the engine refuses (LimitError)
        # what it cannot enumerate quickly, before it starts.
        return self._answered(call, message, lambda: self.engine_call(
            self.engine.odds, call.params, max_mob_cost=self.limits.max_odds_mob_cost).to_dict(),
                              estimate=_REPLY_ODDS)

    def journal_get(self, call: Call, message: Message) -> Any:
        entry = self._journaled(call, message)
        # The entry is one row in memory; its reply is counted before it is built.
        spending = message.spending
        before = spending.reply_bytes
        spending.spend("$.params.id", reply_bytes=len(entry.params) + len(entry.result) + 256)
        result = orjson.dumps(entry.to_dict())
        spending.settle(before, len(result))
        return orjson.Fragment(result)

    def journal_replay(self, call: Call, message: Message) -> Any:
        entry = self._journaled(call, message)
        if entry.method not in ENGINE_CALLS:
            raise errors.InvalidParams.at(
                "$.params.id", f"{entry.method} is not replayed from the journal: a round depends on its"
                               " encounter's state; undo it (encounter.undo) and play it again with the seed"
                               " of its log (encounter.round)")
        recorded = orjson.loads(entry.result)
        params = orjson.loads(entry.params)
        attacks = 1
        if entry.method == "attack.bulk" and isinstance(params, dict):
            attacks = self.bulk_size(params)
        spending = message.spending
        before = spending.reply_bytes
        spending.spend("$.params.id", attacks=attacks, reply_bytes=2 * len(entry.result) + REPLY_BASE)
        engine_call = (self._bulk_call(message) if entry.method == "attack.bulk"
                       else getattr(self.engine, ENGINE_CALLS[entry.method]))
        replayed = self.engine_call(engine_call, params, seed=recorded["seed"]).to_dict()
        if isinstance(replayed, orjson.Fragment):  # JSON made by a worker process (a forecast's)
            replayed = orjson.loads(orjson.dumps(replayed))
        # The backend that rolled is not part of the roll.
        different = [path for path, _, _ in differences(
            {k: v for k, v in recorded.items() if k != "backend"},
            {k: v for k, v in replayed.items() if k != "backend"},
        )]
        result = orjson.dumps({
            "id": entry.request_id,
            "method": entry.method,
            "seed": recorded["seed"],
            "matches": not different,
            "differences": different[:_MAX_DIFFERENCES],
            # Each result says which backend rolled it; an entry whose result does not, the journal's column.
            "recorded_backend": _backend_of(recorded, entry.backend),
            "replayed_backend": _backend_of(replayed, self.engine.backend),
            "result": replayed,
        })
        spending.settle(before, len(result))
        spending.check_reply(call.key, len(result), journaled=False)
        return orjson.Fragment(result)

    # ── encounters: in the engine's store; the changing methods are journaled ──

    def encounter_new(self, call: Call, message: Message) -> Any:
        def run(params: dict[str, Any], within: Any = None) -> Any:
            from fracas.drive.encounter import EncounterError
            from fracas.rulesets.base import moved

            if not isinstance(params.get("replace", False), bool):
                raise SchemaError("$.replace", "expected a boolean")
            scenario = params["scenario"]
            if not isinstance(scenario, dict):
                # The Python API also reads a scenario from a path or @NAME: a client must not
                # make the GM's machine open a file it names, so the bridge takes objects only.
                raise SchemaError("$.scenario", f"a scenario is a JSON object, got {json_type(scenario)}")
            try:
                enc = self.engine.Encounter.new(params["name"], scenario, store=self.encounters(),
                                                replace=params.get("replace", False), within=within)
            except RequestError as exc:
                if isinstance(exc, EncounterError) or exc.path.startswith("$.name"):
                    raise
                raise moved(exc, "$", "$.scenario") from None
            return enc.show()

        only(call.params, {"name", "scenario", "replace"}, required={"name", "scenario"})
        return self.roll(call, message, _answer(run), estimate=REPLY_BASE + 16 * len(canonical(call.params)),
                         together=True)

    def encounter_show(self, call: Call, message: Message) -> Any:
        only(call.params, {"name"}, required={"name"})
        return self._answered(call, message, lambda: self.engine_call(
            _answer(lambda params: self._encounter(params).show()), call.params).to_dict(),
            estimate=REPLY_BASE + (1 << 20))

    def encounter_round(self, call: Call, message: Message) -> Any:
        key = call.key

        def run(params: dict[str, Any], within: Any = None) -> Any:
            seed = params.get("seed")
            if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
                raise SchemaError("$.seed", "expected an integer 0 to 2**64 - 1")
            return self._encounter(params).round(seed, request_key=key, expect_round=_expect_round(params),
                                                 hp=params.get("hp"), within=within)

        only(call.params, {"name", "seed", "expect_round", "hp"}, required={"name"})
        # Weighed before it is played, from the encounter's scenario: every member striking
        # with every strike (its routing uses the same count, protocol.HEAVY_ROUND).
        members, strikes = self.round_work(call.params["name"]) if isinstance(call.params["name"], str) else (0, 0)
        return self.roll(call, message, _answer(run), attacks=max(1, strikes),
                         estimate=REPLY_BASE + _REPLY_PER_MEMBER * members, together=True)

    def encounter_undo(self, call: Call, message: Message) -> Any:
        only(call.params, {"name", "expect_round"}, required={"name"})
        return self.roll(call, message, _answer(
            lambda params, within=None: self._encounter(params).undo(expect_round=_expect_round(params),
                                                                     within=within)),
            estimate=1 << 20, together=True)

    def encounter_list(self, call: Call, message: Message) -> Any:
        only(call.params, ())
        return self._answered(call, message, lambda: self.engine_call(
            _answer(lambda _params: self.engine.Encounter.list(store=self.encounters())), call.params).to_dict(),
            estimate=256 << 10)

    def encounter_delete(self, call: Call, message: Message) -> Any:
        def run(params: dict[str, Any], within: Any = None) -> Any:
            deleted = {"deleted": params["name"]}
            self.engine.Encounter.delete(params["name"], store=self.encounters(),
                                         within=None if within is None else (lambda db, _: within(db, deleted)))
            return deleted

        only(call.params, {"name"}, required={"name"})
        return self.roll(call, message, _answer(run), together=True)

    def round_work(self, name: str) -> tuple[int, int]:
        """(members, strikes) a round of the encounter ``name`` may roll; (0, 0) if there is none."""
        from fracas.drive.scenario import round_work

        try:
            scenario = self.encounters().scenario(name)
            return round_work(orjson.loads(scenario)) if scenario is not None else (0, 0)
        except (orjson.JSONDecodeError, AttributeError, OSError, sqlite3.Error):
            return (0, 0)  # the round itself says what is wrong

    def _encounter(self, params: dict[str, Any]) -> Any:
        return self.engine.Encounter.open(params["name"], store=self.encounters())

    # ── helpers ─────────────────────────────────────────────────────────────

    def _journaled(self, call: Call, message: Message) -> Entry:
        """The entry named by ``params.id`` (journal.get, journal.replay)."""
        only(call.params, {"id"}, required={"id"})
        wanted = call.params["id"]
        if isinstance(wanted, bool) or not isinstance(wanted, (int, str)):
            raise errors.InvalidParams.at("$.params.id", f"must be a string or an integer, got {type_name(wanted)}")
        entry = message.journal.journaled(id_key(wanted))
        if entry is None:
            raise errors.NotInJournal.at("$.params.id", f"no journaled request has id {id_key(wanted)}")
        return entry

    def _bulk_call(self, message: Message) -> Callable[..., Any]:
        """``resolve_bulk`` under the bridge's limits, the message's budgets and its cancel event."""
        limits = self.limits

        def admit(attacks: int, rows: int, detail: str) -> None:
            # Once compiled (any ruleset), before a die is rolled: the listed rows' reply.
            if rows:
                listed = rows * _REPLY_PER_ROW.get(detail, _REPLY_PER_ROW["dice"])
                message.spending.spend("$.params.detail", reply_bytes=listed + attacks * _REPLY_PER_LISTED_ATTACK,
                                       rows=rows)

        def resolve_bulk(request: Any, **options: Any) -> Any:
            if self.bulk_threads is not None:
                options.setdefault("threads", self.bulk_threads)
            return self.engine.resolve_bulk(request, max_attacks=limits.max_bulk_attacks,
                                            max_listed=limits.max_bulk_detail_attacks,
                                            cancel=_Checkpoint(message.cancel, self.quiet), admit=admit, **options)

        return resolve_bulk

    def bulk_size(self, params: dict[str, Any]) -> int:
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


class _AlreadyJournaled(Exception):
    """Raised inside an encounter change's transaction (rolling it back): its id is journaled
    already (another bridge on the same file wrote it first)."""

    def __init__(self, entry: Entry) -> None:
        super().__init__(entry.id_key)
        self.entry = entry


class _Together:
    """The ``within`` of an encounter change: writes its journal entry in the store's
    transaction (``entry`` makes it from the result's JSON); ``entry`` is then the one written."""

    def __init__(self, make: Callable[[bytes, str | None], Entry], journal: Any) -> None:
        self._make, self.journal = make, journal
        self.entry: Entry | None = None

    def __call__(self, db: sqlite3.Connection, result: Any) -> None:
        if self.journal is not None:
            self.journal.check_file()  # a deleted or replaced file: nothing is written
        entry = self._make(orjson.dumps(result), _backend_of(result, "") or None)  # the result's own, if it says
        stored = insert(db, entry)
        if stored is not entry:
            raise _AlreadyJournaled(stored)
        self.entry = entry


def _why_file(error: sqlite3.Error) -> str:
    from .journal import _why

    return f"the journal file: {error}" if "locked" in str(error) else f"the journal file: {_why('the journal', error)}"


class _Answer:
    """A plain result (an encounter's) with the `to_dict()` the rolling path reads."""

    __slots__ = ("data",)

    def __init__(self, data: Any) -> None:
        self.data = data

    def to_dict(self) -> Any:
        return self.data


def _answer(run: Callable[[dict[str, Any]], Any]) -> Callable[..., _Answer]:
    """An engine call made of ``run`` (params in, a JSON value out)."""

    def engine_call(params: dict[str, Any], **options: Any) -> _Answer:
        within = options.get("within")
        return _Answer(run(params) if within is None else run(params, within))

    return engine_call


def _expect_round(params: dict[str, Any]) -> int | None:
    expect = params.get("expect_round")
    if expect is not None and (isinstance(expect, bool) or not isinstance(expect, int)):
        raise SchemaError("$.expect_round", "expected an integer")
    return expect


def cancelled() -> errors.ShuttingDown:
    """The error of a request stopped by a closed connection or the end of the shutdown grace."""
    return errors.ShuttingDown(
        "cancelled: the bridge is shutting down (or this connection closed) before this request"
        " finished; nothing was rolled or journaled for it, send it again once the bridge is back"
    )


def _bulk_reply_estimate(params: dict[str, Any]) -> int:
    """Bytes of a bulk summary before the work: it grows with the groups and the targets."""
    groups = params.get("attacks")
    targets = params.get("targets")
    return (REPLY_BASE + _REPLY_PER_GROUP * (len(groups) if isinstance(groups, list) else 0)
            + _REPLY_PER_TARGET * (len(targets) if isinstance(targets, (list, dict)) else 0))
