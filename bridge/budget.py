"""Budgets: how much work and reply the bridge holds at once, per connection and in all.

A message asks, request by request and before each one starts, for the attacks it
will roll and the reply bytes it will send. The amount is taken from its
connection's meters and from the server's; if either would go past its limit the
request is refused with -32003 naming the limit, and nothing is rolled. What a
message took is given back once its reply has been sent (or its connection is
gone), so a client that does not read its replies keeps its budget used up, not
the bridge's memory growing. Attacks are given back as soon as the work is done.

**Fair shares.** The bridge-wide meters (and a remote source address's) are a wall only
for large work: a small request (at most ``max_light_attacks`` attacks and
LIGHT_REPLY_BYTES of reply) is counted there but never refused by them, only by its own
connection's meters. So clients filling the bridge with bulk work lock out nobody but
themselves: everyone else's single attacks, initiative and small rounds are answered.
"""

from __future__ import annotations

import threading
from typing import Any

from . import errors

#: The largest reply a small request may be budgeted (an encounter's show or undo is
#: estimated at 1 MiB before it is measured): past it a request is large.
LIGHT_REPLY_BYTES = 2 << 20


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


class Spending:
    """What one message spends, request by request: its own counts (bounded per message by
    ``limits``) and what it takes of its connection's meters and the server's (in ``ledger``).

    A request asks before it starts (:meth:`spend`), settles its estimate to the real size
    of its reply once done (:meth:`settle`), and is refused after the fact if that real size
    took the message past ``max_reply_bytes`` (:meth:`check_reply`).
    """

    def __init__(self, limits: Any, ledger: Ledger, connection: tuple[Meter, Meter],
                 server: tuple[Meter, Meter], source: tuple[Meter, Meter] | None = None) -> None:
        self.limits = limits
        self.ledger = ledger
        #: (attacks, reply bytes) meters of the connection and of the whole bridge, and of the
        #: connection's source address (None on loopback: each local connection is its own).
        self.connection, self.server, self.source = connection, server, source
        self.attacks = 0
        self.rows = 0
        self.reply_bytes = 0

    def spend(self, path: str, *, attacks: int = 0, reply_bytes: int = 0, rows: int = 0,
              shared: bool = True) -> None:
        """Take a request's work and reply from the message's, connection's and server's
        budgets before it starts; raise LimitExceeded (nothing taken) if one would overflow.
        Without ``shared``, from the message's budget only."""
        limits = self.limits
        for spent, more, limit, name, what, advice in (
            (self.attacks, attacks, limits.max_message_attacks, "max_message_attacks", "attacks",
             "send them in several messages"),
            (self.rows, rows, limits.max_detail_rows, "max_detail_rows", "strike rows listed one by one",
             "ask for fewer attacks in detail, or detail 'summary'"),
            (self.reply_bytes, reply_bytes, limits.max_reply_bytes, "max_reply_bytes", "bytes of reply",
             "ask for less detail, or send the requests in several messages"),
        ):
            if more and spent + more > limit:
                raise errors.LimitExceeded.at(
                    path, f"this message would need {spent + more:,} {what}, more than the bridge's limit of"
                          f" {limit:,} per message ({name}); {advice}", limit=limit, limit_name=name)
        if shared:
            (connection_attacks, connection_bytes), (server_attacks, server_bytes) = self.connection, self.server
            wide = [(server_attacks, attacks), (server_bytes, reply_bytes)]
            if self.source is not None:
                wide += [(self.source[0], attacks), (self.source[1], reply_bytes)]
            light = attacks <= limits.max_light_attacks and reply_bytes <= LIGHT_REPLY_BYTES
            own = [(connection_attacks, attacks), (connection_bytes, reply_bytes)]
            # A small request is refused only by its own connection's budget (see the module).
            refused = self.ledger.take(own if light else own + wide)
            if refused is None and light:
                self.ledger.force(wide)
            if refused is not None:
                more, what = (attacks, "attacks") if refused.name.endswith("attacks") else (reply_bytes, "bytes of reply")
                raise errors.LimitExceeded.at(
                    path, f"{refused.scope} already has {refused.used:,} {what} in flight; {more:,} more would pass"
                          f" its limit of {refused.limit:,} ({refused.name}); nothing was done, try again once"
                          " earlier requests are answered", limit=refused.limit, limit_name=refused.name)
        self.attacks += attacks
        self.rows += rows
        self.reply_bytes += reply_bytes

    def room(self, taken: int) -> tuple[int, str]:
        """The reply bytes the request being answered may still grow to (it has ``taken``
        already, its estimate), and the limit that says so: the message's, its connection's
        or its source's, whichever is least."""
        rooms = [(self.limits.max_reply_bytes - self.reply_bytes + taken, "max_reply_bytes")]
        for meters in (self.connection, self.source):
            if meters is not None:
                rooms.append((meters[1].limit - meters[1].used + taken, meters[1].name))
        return min(rooms)

    def settle(self, before: int, actual: int) -> None:
        """The work is done: hold the reply's real size instead of what was estimated for it
        (everything the message's reply grew by since ``before``, its size when the request began)."""
        change = actual - (self.reply_bytes - before)
        self.reply_bytes += change
        self.ledger.force([(self.connection[1], change), (self.server[1], change)])

    def check_reply(self, key: str, size: int, *, journaled: bool) -> None:
        """Past ``max_reply_bytes`` once measured (an estimate fell short): refuse this answer
        (``key``: the request id's journal key, named when the result is journaled)."""
        limit = self.limits.max_reply_bytes
        if self.reply_bytes <= limit:
            return
        where = (f"it was rolled and is journaled under id {key}: fetch it alone with journal.get"
                 f" (if it fits) or with `fracas journal show {key}`") if journaled \
            else "ask for less"
        raise errors.LimitExceeded.at(
            "$.params", f"the answer is {size:,} bytes, which takes this message's reply past the bridge's"
                        f" limit of {limit:,} (max_reply_bytes); {where}", limit=limit, limit_name="max_reply_bytes")
