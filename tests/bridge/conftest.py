"""Fixtures for the sans-I/O dispatcher tests (no socket needed)."""

from __future__ import annotations

import orjson
import pytest

from fracas.bridge.dispatcher import Dispatcher, Session
from fracas.bridge.journal import Journal

from .helpers import TOKEN, request


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
