"""Budgets: how much work and reply the bridge holds at once, per connection and in all.

A message asks, request by request and before each one starts, for the attacks it
will roll and the reply bytes it will send. The amount is taken from its
connection's meters and from the server's; if either would go past its limit the
request is refused with -32003 naming the limit, and nothing is rolled. What a
message took is given back once its reply has been sent (or its connection is
gone), so a client that does not read its replies keeps its budget used up, not
the bridge's memory growing. Attacks are given back as soon as the work is done.
"""

from __future__ import annotations

import threading


class Meter:
    """One bounded quantity in flight (attacks being rolled, reply bytes not yet sent).

    ``name`` is the limit's name (as in :class:`~fracas.bridge.limits.Limits`) and
    ``scope`` says whose it is ("this connection", "the bridge"), for messages.
    """

    def __init__(self, name: str, limit: int, scope: str) -> None:
        self.name = name
        self.limit = limit
        self.scope = scope
        self.used = 0
        self._lock = threading.Lock()

    def take(self, amount: int) -> bool:
        """Take ``amount`` if it fits under the limit; say whether it was taken."""
        with self._lock:
            if amount > 0 and self.used + amount > self.limit:
                return False
            self.used += amount
            return True

    def force(self, amount: int) -> None:
        """Take ``amount`` even past the limit (work already done: its reply must be kept)."""
        with self._lock:
            self.used += amount

    def give(self, amount: int) -> None:
        with self._lock:
            self.used -= amount


class Ledger:
    """What one message has taken from which meters; :meth:`release` gives it all back."""

    def __init__(self) -> None:
        self._taken: dict[Meter, int] = {}
        self._lock = threading.Lock()

    def take(self, meters: list[tuple[Meter, int]]) -> Meter | None:
        """Take every amount, or none: return the meter that refused, or None."""
        done: list[tuple[Meter, int]] = []
        for meter, amount in meters:
            if not meter.take(amount):
                for taken, back in done:
                    taken.give(back)
                return meter
            done.append((meter, amount))
        self._note(done)
        return None

    def force(self, meters: list[tuple[Meter, int]]) -> None:
        """Adjust by amounts that may be negative (an estimate settled to the real size)."""
        for meter, amount in meters:
            meter.force(amount)
        self._note(meters)

    def _note(self, meters: list[tuple[Meter, int]]) -> None:
        with self._lock:
            for meter, amount in meters:
                self._taken[meter] = self._taken.get(meter, 0) + amount

    def release(self, unit: str | None = None) -> None:
        """Give back everything (idempotent), or only the meters whose name ends with ``unit``."""
        with self._lock:
            if unit is None:
                taken, self._taken = self._taken, {}
            else:
                taken = {meter: amount for meter, amount in self._taken.items() if meter.name.endswith(unit)}
                for meter in taken:
                    del self._taken[meter]
        for meter, amount in taken.items():
            meter.give(amount)
