"""Who may talk to the bridge: the access token, and counting of failed authentications."""

from __future__ import annotations

import collections
import hmac
import secrets
import threading
import time
from collections.abc import Callable


def new_token() -> str:
    """A fresh access token (256 random bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def token_matches(given: str, expected: str) -> bool:
    """Compare in constant time, so response timing leaks nothing of the token."""
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


class Throttle:
    """Counts failed authentications per key (the server uses one key for all of
    loopback) in a sliding window.

    After ``failures`` failures within ``window`` seconds, ``retry_after`` says
    how long until the oldest ages out. The server only warns then: refusing
    would let any local process lock the GM out. The clock is injected so tests
    need not sleep.
    """

    def __init__(
        self,
        failures: int,
        window: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.failures = failures
        self.window = window
        self._clock = clock
        self._seen: dict[str, collections.deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, address: str, now: float) -> collections.deque[float]:
        times = self._seen.get(address)
        if times is None:
            return collections.deque()
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self._seen[address]
        return times

    #: Past this many addresses, forget those whose failures have all aged out.
    PRUNE_AT = 1024

    def record_failure(self, address: str) -> None:
        """Note one failed authentication from ``address``."""
        with self._lock:
            now = self._clock()
            times = self._recent(address, now)
            times.append(now)
            self._seen[address] = times
            if len(self._seen) > self.PRUNE_AT:
                for other in list(self._seen):
                    self._recent(other, now)

    def __len__(self) -> int:
        """Addresses with failures still remembered."""
        return len(self._seen)

    def retry_after(self, address: str) -> float | None:
        """Seconds until ``address`` may try again, or None if it may now."""
        with self._lock:
            now = self._clock()
            times = self._recent(address, now)
            if len(times) < self.failures:
                return None
            return times[-self.failures] + self.window - now
