import pytest

import fracas

from .coins import COIN_TOSS


@pytest.fixture
def coins():
    """The test-only coin-toss ruleset, registered for one test."""
    fracas.rulesets.register(COIN_TOSS)
    yield COIN_TOSS
    fracas.rulesets.unregister(COIN_TOSS.name)
