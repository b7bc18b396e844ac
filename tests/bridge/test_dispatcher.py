"""The sans-I/O dispatcher: messages in, exact replies out, no socket."""

from __future__ import annotations

import concurrent.futures

import orjson
import pytest

import fracas
from fracas.bridge import errors
from fracas.bridge.dispatcher import METHODS, Dispatcher, Session
from fracas.bridge.journal import Entry, JournalError
from fracas.bridge.limits import Limits

from .helpers import ATTACK, INITIATIVE, TOKEN, attack, bulk, request, without_backend


def error(request_id, code, message, **data):
    body = {"code": code, "message": message}
    if data:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": body}


def at(request_id, code, path, reason, **data):
    """An error about one place, as the bridge words it."""
    return error(request_id, code, f"{path}: {reason}", path=path, reason=reason, **data)


METHOD_LIST = ", ".join(METHODS)

# (message sent after authentication, exact reply)
TABLE = [
    pytest.param(
        5, at(None, -32600, "$", "expected a JSON-RPC request object, got a number"), id="not-object"),
    pytest.param(
        '"just text"', at(None, -32600, "$", "expected a JSON-RPC request object, got a string"),
        id="string"),
    pytest.param(
        [], at(None, -32600, "$", "empty batch"), id="empty-batch"),
    pytest.param(
        {"jsonrpc": "2.0", "method": "server.info"},
        at(None, -32600, "$.id", "missing: every request needs an id (it is the idempotency key)"),
        id="no-id"),
    pytest.param(
        request(None, "server.info"),
        at(None, -32600, "$.id", "must be a string or an integer, got null"), id="null-id"),
    pytest.param(
        request(True, "server.info"),
        at(None, -32600, "$.id", "must be a string or an integer, got a boolean"), id="bool-id"),
    pytest.param(
        request(1.5, "server.info"),
        at(None, -32600, "$.id", "must be a string or an integer, got a number with a fraction or an exponent"),
        id="float-id"),
    pytest.param(
        '{"jsonrpc": "2.0", "id": 18446744073709551616, "method": "server.info"}',
        at(None, -32600, "$.id", "must be a string or an integer, got an integer outside -2^63 … 2^64 - 1"
                                 " (integer ids must be -2^63 … 2^64 - 1 to be echoed exactly; use a string id)"),
        id="id-past-64-bits"),
    pytest.param(
        request("x" * 129, "server.info"),
        at(None, -32600, "$.id", "129 characters is longer than the limit of 128"), id="long-id"),
    pytest.param(
        {"jsonrpc": "2.0", "id": 1, "method": "server.info", "extra": 1},
        at(1, -32600, "$.extra", "unknown member"), id="unknown-member"),
    pytest.param(
        {"jsonrpc": "2.0", "id": 1, "method": "server.info", "odd key": 1},
        at(1, -32600, "$['odd key']", "unknown member"), id="unknown-odd-member"),
    pytest.param(
        {"jsonrpc": "1.0", "id": 1, "method": "server.info"},
        at(1, -32600, "$.jsonrpc", 'must be "2.0"'), id="jsonrpc-1"),
    pytest.param(
        {"id": 1, "method": "server.info"},
        at(1, -32600, "$.jsonrpc", 'must be "2.0"'), id="no-jsonrpc"),
    pytest.param(
        {"jsonrpc": "2.0", "id": 1}, at(1, -32600, "$.method", "missing"), id="no-method"),
    pytest.param(
        {"jsonrpc": "2.0", "id": 1, "method": 7},
        at(1, -32600, "$.method", "must be a string, got a number"), id="method-number"),
    pytest.param(
        request(1, "attack.roll"),
        error(1, -32601, f"method not found: 'attack.roll' (methods: {METHOD_LIST})",
              method="attack.roll"),
        id="unknown-method"),
    pytest.param(
        request(1, "server.info", [1, 2]),
        at(1, -32602, "$.params", "must be an object (by-name params), got an array"),
        id="params-array"),
    pytest.param(
        request(1, "server.info", {"verbose": True}),
        at(1, -32602, "$.params.verbose", "unknown parameter"), id="info-unknown-param"),
    pytest.param(
        request(1, "auth", {"token": TOKEN}),
        at(1, -32600, "$.method", "already authenticated: auth is only the first message"),
        id="second-auth"),
    pytest.param(
        request(1, "attack.resolve", {**ATTACK, "attacks": []}),
        at(1, -32602, "$.params.attacks", "a bulk request (with attacks) goes to attack.bulk"),
        id="bulk-to-resolve"),
    pytest.param(
        request(2, "attack.resolve", attack(attacker={"strength": "six"})),
        at(2, -32602, "$.params.attacker.strength", "expected int | null, got str"),
        id="engine-schema-error"),
    pytest.param(
        request(3, "attack.resolve", attack(attacker={"strength": 6, "conditions": ["stunned"]})),
        at(3, -32001, "$.params.attacker.conditions", "a stunned attacker cannot attack (ER-14)"),
        id="engine-rules-error"),
    pytest.param(
        request(4, "attack.resolve", attack(rolls=[12, 1])),
        at(4, -32002, "$.params.rolls",
           "2 faces given, but $.strikes[0] needs another die (position 2 in draw order)"),
        id="engine-dice-error"),
    pytest.param(
        request(5, "attack.resolve", attack(strikes=ATTACK["strikes"] * 257)),
        at(5, -32003, "$.params.strikes", "257 strikes, the most is 256"), id="engine-limit-error"),
    pytest.param(
        request(6, "attack.bulk", bulk(100_000_001)),
        at(6, -32003, "$.params.attacks",
           "100,000,001 attacks is more than the bridge's limit of 100,000,000"
           " (max_bulk_attacks; fracas serve --max-bulk-attacks)", limit=100_000_000,
           limit_name="max_bulk_attacks"),
        id="bulk-too-many"),
    pytest.param(
        request(7, "attack.bulk", bulk(10_001, detail="dice")),
        at(7, -32003, "$.params.detail",
           "detail 'dice' for 10,001 attacks is more than the bridge's limit of 10,000"
           " (max_bulk_detail_attacks); use detail 'summary'", limit=10_000,
           limit_name="max_bulk_detail_attacks"),
        id="bulk-detail-too-big"),
    pytest.param(
        request(8, "attack.bulk", {**bulk(10), "attacks": [{"profile": "skeleton", "target": "pc-9"}]}),
        at(8, -32602, "$.params.attacks[0].target", "unknown target 'pc-9' (targets: pc-1)"),
        id="bulk-engine-error"),
    pytest.param(
        request(9, "initiative.roll", {"combatants": [{"id": "a"}]}),
        at(9, -32602, "$.params.combatants[0].agility", "give the agility score or agility_mod (ER-18)"),
        id="initiative-error"),
    pytest.param(
        request(10, "journal.get", {}), at(10, -32602, "$.params.id", "missing"), id="get-no-id"),
    pytest.param(
        request(11, "journal.get", {"id": [1]}),
        at(11, -32602, "$.params.id", "must be a string or an integer, got an array"),
        id="get-bad-id"),
    pytest.param(
        request(12, "journal.get", {"id": "never"}),
        at(12, -32006, "$.params.id", 'no journaled request has id "never"'), id="get-unknown"),
    pytest.param(
        request(13, "journal.replay", {"id": 404}),
        at(13, -32006, "$.params.id", "no journaled request has id 404"), id="replay-unknown"),
    pytest.param(
        [request(14, "journal.get", {"id": 404}), 5],
        [at(14, -32006, "$.params.id", "no journaled request has id 404"),
         at(None, -32600, "$", "expected a JSON-RPC request object, got a number")],
        id="batch-of-errors"),
]


@pytest.mark.parametrize(("message", "expected"), TABLE)
def test_exact_replies(ask, message, expected):
    assert ask(message) == expected


def test_parse_error(ask):
    reply = ask("{not json")
    assert reply["id"] is None and reply["error"]["code"] == -32700
    assert reply["error"]["message"].startswith("parse error: ")


def test_binary_frame_is_refused_but_connection_stays(ask):
    assert ask(b'{"jsonrpc": "2.0"}') == error(
        None, -32600, "binary frames are not accepted: send JSON-RPC 2.0 as UTF-8 text frames")
    assert "result" in ask(request(1, "server.info"))


def test_batch_too_long(journal):
    dispatcher = Dispatcher(token=TOKEN, journal=journal, limits=Limits(max_batch=2))
    session = Session(authenticated=True)
    reply = dispatcher.handle(session, orjson.dumps([request(i, "server.info") for i in range(3)]).decode())
    assert orjson.loads(reply.data) == at(
        None, -32003, "$", "batch of 3 requests is longer than the limit of 2", limit=2)


def test_server_info(ask):
    assert ask(request("i", "server.info")) == {"jsonrpc": "2.0", "id": "i", "result": {
        "name": "fracas", "version": fracas.__version__, "backend": fracas.backend,
        "rulesets": list(fracas.rulesets()), "rulesets_failed": {}, "methods": list(METHODS),
        "limits": Limits().to_dict(),
        "bulk_threads": None, "in_flight": {"attacks": 0, "reply_bytes": 0},
    }}


@pytest.mark.parametrize(("method", "params", "engine_call"), [
    ("attack.resolve", attack(seed=42), fracas.resolve),
    ("attack.bulk", bulk(500), fracas.resolve_bulk),
    ("attack.bulk", bulk(20, detail="dice"), fracas.resolve_bulk),
    ("initiative.roll", {**INITIATIVE, "seed": 9}, fracas.roll_initiative),
])
def test_rolling_methods_answer_the_engine_result(ask, method, params, engine_call):
    assert ask(request("r-1", method, params)) == {
        "jsonrpc": "2.0", "id": "r-1", "result": engine_call(params).to_dict()}


def test_unseeded_result_carries_a_seed_that_reproduces_it(ask):
    result = ask(request(1, "attack.resolve", ATTACK))["result"]
    assert without_backend(fracas.resolve(ATTACK, seed=result["seed"]).to_dict()) == without_backend(result)


# ── the journal: nothing doubled ──────────────────────────────────────────


def test_same_id_returns_the_journaled_result_not_a_new_roll(dispatcher, session):
    message = orjson.dumps(request("roll-1", "attack.resolve", ATTACK)).decode()
    first = dispatcher.handle(session, message).data
    again = dispatcher.handle(session, message).data
    assert again == first  # byte for byte, though no seed was given


def test_same_id_with_key_order_changed_is_the_same_request(ask):
    first = ask(request(1, "attack.resolve", ATTACK))
    reordered = dict(reversed(list(ATTACK.items())))
    assert ask(request(1, "attack.resolve", reordered)) == first


def test_same_id_with_different_params_is_an_error(ask):
    ask(request(1, "attack.resolve", ATTACK))
    reply = ask(request(1, "attack.resolve", attack(seed=1)))
    assert reply["error"]["code"] == errors.ID_REUSED
    assert reply["error"]["data"]["path"] == "$.id"
    assert reply["error"]["message"].startswith(
        "$.id: id 1 was already used for a different request (attack.resolve, journaled ")


def test_same_id_with_another_method_is_an_error(ask):
    ask(request(1, "initiative.roll", INITIATIVE))
    assert ask(request(1, "attack.resolve", ATTACK))["error"]["code"] == errors.ID_REUSED


def test_integer_and_string_ids_are_different_keys(ask):
    ask(request(7, "attack.resolve", ATTACK))
    assert "result" in ask(request("7", "attack.resolve", attack(seed=3)))


def test_errors_are_not_journaled(ask):
    bad = attack(attacker={"strength": 6, "conditions": ["stunned"]})
    assert ask(request(1, "attack.resolve", bad))["error"]["code"] == errors.RULES_ERROR
    # The id is still free for a good request.
    assert "result" in ask(request(1, "attack.resolve", ATTACK))


def test_a_batch_repeating_an_id_rolls_once(ask, journal):
    replies = ask([request("a", "attack.resolve", ATTACK), request("a", "attack.resolve", ATTACK),
                   request("b", "attack.resolve", attack(seed=1))])
    assert [reply["id"] for reply in replies] == ["a", "a", "b"]
    assert replies[0] == replies[1]
    assert journal.count() == 2


def test_a_batch_repeating_an_id_with_other_params_fails_that_entry(ask):
    replies = ask([request("a", "attack.resolve", ATTACK), request("a", "attack.resolve", attack(seed=2))])
    assert "result" in replies[0]
    assert replies[1]["error"]["code"] == errors.ID_REUSED


def test_journal_get(ask):
    rolled = ask(request(5, "initiative.roll", INITIATIVE))["result"]
    entry = ask(request(6, "journal.get", {"id": 5}))["result"]
    assert entry["id"] == 5 and entry["method"] == "initiative.roll"
    assert entry["params"] == INITIATIVE and entry["result"] == rolled
    assert entry["backend"] == fracas.backend and entry["version"] == fracas.__version__
    assert entry["recorded_at"].endswith("+00:00")


@pytest.mark.parametrize(("method", "params"), [
    ("attack.resolve", ATTACK),
    ("attack.resolve", attack(rolls=[20, 3, 9, 20, 2, 14, 1])),
    ("attack.bulk", bulk(2000, seed=None)),
    ("initiative.roll", INITIATIVE),
])
def test_journal_replay_matches(ask, method, params):
    rolled = ask(request("x", method, params))["result"]
    replay = ask(request("y", "journal.replay", {"id": "x"}))["result"]
    assert replay == {
        "id": "x", "method": method, "seed": rolled["seed"], "matches": True, "differences": [],
        "recorded_backend": fracas.backend, "replayed_backend": fracas.backend, "result": rolled,
    }


def test_journal_replay_shows_where_a_tampered_entry_differs(ask, journal):
    ask(request("x", "attack.resolve", attack(seed=5)))
    entry = journal.lookup('"x"')
    tampered = orjson.loads(entry.result)
    tampered["total_damage"] += 1
    tampered["strikes"][0]["hits"] += 1
    journal._db.execute("UPDATE entries SET result = ? WHERE id_key = ?",
                        (orjson.dumps(tampered), entry.id_key))
    replay = ask(request("y", "journal.replay", {"id": "x"}))["result"]
    assert replay["matches"] is False
    assert replay["differences"] == ["$.strikes[0].hits", "$.total_damage"]


def test_a_journal_that_cannot_be_written_sends_no_result(dispatcher, journal, monkeypatch):
    def full_disk(entries):
        raise JournalError("cannot write journal x: database or disk is full")

    monkeypatch.setattr(journal, "record", full_disk)
    session = Session(authenticated=True)
    reply = orjson.loads(dispatcher.handle(
        session, orjson.dumps([request(1, "attack.resolve", ATTACK), request(2, "server.info")]).decode()).data)
    why = "cannot write journal x: database or disk is full"
    assert reply[0] == error(1, -32603, f"the result could not be journaled ({why}), so it is not sent;"
                                        " nothing was applied, send the request again", reason=why)
    assert "result" in reply[1]
    assert journal.lookup("1") is None


def test_an_id_journaled_first_by_another_writer_wins(ask, journal):
    """Two bridges on one journal: the entry on disk is the answer."""
    other = Entry("1", "attack.resolve", "0" * 64, b"{}", b'{"seed": 1}', "python", "0", "then")

    real_record = journal.record

    def record_after_other(entries):
        real_record([other])
        return real_record(entries)

    journal.record = record_after_other
    reply = ask(request(1, "attack.resolve", ATTACK))
    assert reply["error"]["code"] == errors.ID_REUSED


def test_draining_refuses_new_work(journal):
    dispatcher = Dispatcher(token=TOKEN, journal=journal, is_draining=lambda: True)
    reply = dispatcher.handle(Session(authenticated=True), orjson.dumps(request(1, "attack.resolve", ATTACK)).decode())
    assert orjson.loads(reply.data) == error(
        1, -32010, "the bridge is shutting down; nothing was done, send the request again once it is back")
    assert journal.count() == 0


def test_an_engine_bug_fails_one_request_not_the_batch(journal, caplog):
    class BrokenEngine:
        def __getattr__(self, name):
            return getattr(fracas, name)

        @staticmethod
        def roll_initiative(request, *, seed=None):
            raise ZeroDivisionError("a bug")

    dispatcher = Dispatcher(token=TOKEN, journal=journal, engine=BrokenEngine())
    reply = orjson.loads(dispatcher.handle(Session(authenticated=True), orjson.dumps(
        [request(1, "initiative.roll", INITIATIVE), request(2, "attack.resolve", ATTACK)]).decode()).data)
    assert reply[0] == error(1, -32603, "internal error in initiative.roll (see the bridge log)")
    assert "result" in reply[1]
    assert "ZeroDivisionError: a bug" in caplog.text


# ── authentication ────────────────────────────────────────────────────────

AUTH_FAILURES = [
    pytest.param(request(1, "auth", {"token": "wrong"}),
                 error(1, -32004, "authentication failed: wrong token"), "authentication failed",
                 id="wrong-token"),
    pytest.param(request(1, "auth", {"token": TOKEN[:-1]}),
                 error(1, -32004, "authentication failed: wrong token"), "authentication failed",
                 id="token-prefix"),
    pytest.param(request(1, "auth", {}), at(1, -32602, "$.params.token", "missing"),
                 "authentication required", id="no-token"),
    pytest.param(request(1, "auth", {"token": 123}),
                 at(1, -32602, "$.params.token", "must be a string, got a number"),
                 "authentication required", id="token-number"),
    pytest.param(request(1, "auth", {"token": TOKEN, "user": "gm"}),
                 at(1, -32602, "$.params.user", "unknown parameter"),
                 "authentication required", id="extra-param"),
    pytest.param(request(1, "server.info"),
                 at(1, -32004, "$.method", "not authenticated: the first message must be auth, not server.info"),
                 "authentication required", id="not-auth-first"),
    pytest.param([request(1, "auth", {"token": TOKEN})],
                 error(None, -32004, "not authenticated: the first message must be a single auth request,"
                                     " not a batch"),
                 "authentication required", id="auth-in-batch"),
    pytest.param({"id": 1, "method": "auth", "params": {"token": TOKEN}},
                 at(1, -32600, "$.jsonrpc", 'must be "2.0"'), "authentication required", id="not-jsonrpc"),
    # An unknown method before auth is -32004, as any other first message (the README's
    # table), and the list of methods is not given to a client that has not authenticated.
    pytest.param(request(1, "no.such"),
                 at(1, -32004, "$.method", 'not authenticated: the first message must be auth, not "no.such"'),
                 "authentication required", id="unknown-method-first"),
]


@pytest.mark.parametrize(("message", "expected", "close_reason"), AUTH_FAILURES)
def test_failed_authentication_answers_then_closes(dispatcher, message, expected, close_reason):
    session = Session()
    reply = dispatcher.handle(session, orjson.dumps(message).decode())
    assert orjson.loads(reply.data) == expected
    assert reply.close == (1008, close_reason)
    assert not session.authenticated


@pytest.mark.parametrize("message", ["{", b"\x00binary", '"auth"'])
def test_garbage_before_authentication_closes(dispatcher, message):
    session = Session()
    reply = dispatcher.handle(session, message)
    assert reply.close == (1008, "authentication required")
    assert not session.authenticated


def test_authentication(dispatcher):
    session = Session()
    reply = dispatcher.handle(session, orjson.dumps(request("hello", "auth", {"token": TOKEN})).decode())
    assert orjson.loads(reply.data) == {"jsonrpc": "2.0", "id": "hello", "result": {"authenticated": True}}
    assert reply.close is None and session.authenticated


def test_empty_token_is_refused():
    with pytest.raises(ValueError, match="must not be empty"):
        Dispatcher(token="", journal=None)


def test_batches_naming_the_same_ids_in_opposite_orders_do_not_deadlock(dispatcher):
    forward = [request(f"id-{i}", "attack.resolve", attack(seed=i)) for i in range(30)]
    backward = list(reversed(forward))
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        replies = [pool.submit(dispatcher.handle, Session(authenticated=True), orjson.dumps(batch).decode())
                   for batch in (forward, backward, forward, backward)]
        answers = [orjson.loads(reply.result(timeout=60).data) for reply in replies]
    by_id = {answer["id"]: answer for answer in answers[0]}
    for batch in answers[1:]:
        assert all(answer == by_id[answer["id"]] for answer in batch)


def test_an_id_of_2_to_the_64_minus_1_is_echoed_exactly(dispatcher, session):
    """The largest integer id the parser keeps exactly is accepted and echoed as sent."""
    text = '{"jsonrpc": "2.0", "id": 18446744073709551615, "method": "attack.resolve", "params": %s}' % (
        orjson.dumps(attack(seed=3)).decode())
    reply = dispatcher.handle(session, text)
    assert reply.data.startswith(b'{"jsonrpc":"2.0","id":18446744073709551615,"result":')


class _RollsInPython:
    """The engine of a compiled install (`backend` "compiled") whose attacks roll in Python, as a
    ruleset or fight the compiled core does not cover does."""

    backend = "compiled"

    def __getattr__(self, name):
        return getattr(fracas, name)

    @staticmethod
    def resolve(request, **options):
        from fracas import _kernels

        with _kernels.using("python"):
            return fracas.resolve(request, **options)


def test_the_journal_says_which_backend_rolled_a_result(journal):
    """Issue 45: journal.replay said recorded_backend "compiled" for a result rolled on the Python
    backend (the journal recorded the process's default backend, not the roll's)."""
    dispatcher = Dispatcher(token=TOKEN, journal=journal, engine=_RollsInPython())
    session = Session(peer="test")
    dispatcher.handle(session, orjson.dumps(request(0, "auth", {"token": TOKEN})).decode())

    def ask(message):
        return orjson.loads(dispatcher.handle(session, orjson.dumps(message).decode()).data)

    rolled = ask(request("p-1", "attack.resolve", attack(seed=5)))["result"]
    assert rolled["backend"] == "python"
    assert ask(request("g", "journal.get", {"id": "p-1"}))["result"]["backend"] == "python"
    replay = ask(request("r", "journal.replay", {"id": "p-1"}))["result"]
    assert replay["matches"] and replay["recorded_backend"] == "python" and replay["replayed_backend"] == "python"
