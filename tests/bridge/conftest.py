"""Fixtures for the bridge tests: a sans-I/O dispatcher (no socket), and cleanup of real servers."""

from __future__ import annotations

import orjson
import pytest

from fracas.bridge.dispatcher import Dispatcher, Session
from fracas.bridge.journal import Journal

from .helpers import TOKEN, request, stop_leftover_servers


@pytest.fixture
def journal():
    journal = Journal(":memory:")
    yield journal
    journal.close()


@pytest.fixture
def dispatcher(journal):
    return Dispatcher(token=TOKEN, journal=journal)


@pytest.fixture
def session(dispatcher):
    """An authenticated session."""
    session = Session(peer="test")
    reply = dispatcher.handle(session, orjson.dumps(request(0, "auth", {"token": TOKEN})).decode())
    assert reply.close is None and session.authenticated
    return session


@pytest.fixture
def ask(dispatcher, session):
    """Send a message (a JSON value, or raw str/bytes) as the authenticated session."""

    def ask(message):
        if not isinstance(message, (str, bytes)):
            message = orjson.dumps(message).decode()
        reply = dispatcher.handle(session, message)
        assert reply.close is None
        return orjson.loads(reply.data)

    return ask


@pytest.fixture(autouse=True)
def _no_leftover_servers():
    """A test that fails half-way must not leave a bridge process running."""
    yield
    stop_leftover_servers()
