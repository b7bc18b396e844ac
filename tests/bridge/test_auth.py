"""Tokens and the throttle on failed authentications (clock injected: no sleeping)."""

from __future__ import annotations

import re

import pytest

from fracas.bridge.auth import Throttle, new_token, token_matches


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_new_tokens_are_long_random_and_url_safe():
    tokens = {new_token() for _ in range(100)}
    assert len(tokens) == 100
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{43}", token) for token in tokens)


@pytest.mark.parametrize(("given", "matches"), [
    ("s3cret-token", True), ("s3cret-toke", False), ("s3cret-token ", False), ("", False),
    ("S3CRET-TOKEN", False), ("s3cret-tokén", False),
])
def test_token_matches(given, matches):
    assert token_matches(given, "s3cret-token") is matches


def test_throttle_refuses_after_the_limit_until_the_window_passes():
    clock = Clock()
    throttle = Throttle(failures=3, window=60, clock=clock)
    for _ in range(2):
        throttle.record_failure("10.0.0.1")
        clock.now += 10
    assert throttle.retry_after("10.0.0.1") is None  # 2 failures: still allowed
    throttle.record_failure("10.0.0.1")               # failures at 1000, 1010, 1020
    assert throttle.retry_after("10.0.0.1") == pytest.approx(40)  # until 1000 + 60
    assert throttle.retry_after("10.0.0.2") is None   # per address
    clock.now += 40                                   # 1060: the first failure ages out
    assert throttle.retry_after("10.0.0.1") is None
    throttle.record_failure("10.0.0.1")               # 1010, 1020, 1060
    assert throttle.retry_after("10.0.0.1") == pytest.approx(10)


def test_throttle_forgets_old_addresses():
    clock = Clock()
    throttle = Throttle(failures=5, window=60, clock=clock)
    for i in range(Throttle.PRUNE_AT):
        throttle.record_failure(f"10.0.{i // 256}.{i % 256}")
    assert len(throttle) == Throttle.PRUNE_AT
    clock.now += 61
    throttle.record_failure("192.0.2.1")
    assert len(throttle) == 1
