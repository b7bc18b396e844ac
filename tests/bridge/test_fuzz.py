"""Fuzz the dispatcher: whatever arrives, the reply is valid JSON-RPC or a documented close.

"Documented close": before authentication, any failure closes with 1008. An
internal error (-32603) would mean a crash was caught: the fuzz treats it as a bug.
"""

from __future__ import annotations

import orjson
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fracas.bridge.dispatcher import METHODS, Dispatcher, Session
from fracas.bridge.journal import Journal

from .helpers import ATTACK, INITIATIVE, TOKEN, bulk, check_response

FUZZ = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

scalars = (st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20))
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=30,
)
ids = st.integers(-(2**63), 2**63 - 1) | st.text(max_size=10) | json_values


def mutate(base):
    """A known-good request with one field replaced by arbitrary JSON."""
    return st.sampled_from(sorted(base)).flatmap(
        lambda key: json_values.map(lambda value: {**base, key: value}))


params = (json_values | mutate(ATTACK) | mutate(bulk(50)) | mutate(INITIATIVE)
          | st.just(ATTACK) | st.just(INITIATIVE) | st.fixed_dictionaries({"id": ids}))
requests = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0"), "id": ids, "method": st.sampled_from(METHODS) | st.text(max_size=12)},
    optional={"params": params},
)
messages = requests | st.lists(requests, min_size=1, max_size=4) | json_values


def make_dispatcher():
    return Dispatcher(token=TOKEN, journal=Journal(":memory:"))


DISPATCHER = make_dispatcher()


def check_reply(reply, *, authenticated):
    assert reply.data is not None
    document = orjson.loads(reply.data)
    responses = document if isinstance(document, list) else [document]
    assert responses, document
    for response in responses:
        check_response(response)
        if "error" in response:
            assert response["error"]["code"] != -32603, response  # a caught crash is a bug
    if authenticated:
        assert reply.close is None
    else:
        assert reply.close is None or reply.close[0] == 1008


def encode(message):
    return orjson.dumps(message).decode()


@FUZZ
@given(messages)
def test_any_json_after_authentication(message):
    session = Session(authenticated=True)
    check_reply(DISPATCHER.handle(session, encode(message)), authenticated=True)


@FUZZ
@given(st.text(max_size=200) | st.binary(max_size=200))
@example("\ud800")  # a lone surrogate: not UTF-8
@example("[" * 5000 + "]" * 5000)  # deeper than the parser goes
@example("1" * 400)  # a number no double holds
@example('{"jsonrpc": "2.0", "id": 18446744073709551616, "method": "server.info"}')
def test_any_text_or_bytes_after_authentication(message):
    session = Session(authenticated=True)
    check_reply(DISPATCHER.handle(session, message), authenticated=True)


@FUZZ
@given(messages | st.text(max_size=200) | st.binary(max_size=200))
def test_anything_before_authentication_is_answered_and_closed(message):
    if not isinstance(message, (str, bytes)):
        message = encode(message)
    session = Session()
    reply = DISPATCHER.handle(session, message)
    check_reply(reply, authenticated=False)
    # Only the right token authenticates; a fuzzer does not find it.
    assert not session.authenticated
    assert reply.close == (1008, "authentication required") or reply.close == (1008, "authentication failed")
