"""The bridge's limits: every bound on what one client can make it do."""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True)
class Limits:
    """Bounds on messages, connections and work; ``server.info`` reports them.

    A message over ``max_message_bytes`` closes the connection with code 1009
    (the websocket layer refuses to buffer it); every other limit is a JSON-RPC
    error reply (-32003) or, for connections, an HTTP 503 at the handshake.
    """

    # ── messages ────────────────────────────────────────────────────────────
    #: Largest incoming message once authenticated, in bytes (text frames;
    #: compression is off). Bigger ones close the connection with 1009.
    max_message_bytes: int = 1 << 20
    #: Largest message before authentication (the auth request is tiny); bigger
    #: ones close with 1009 before anything parses them.
    max_auth_message_bytes: int = 4096
    #: Deepest nesting of arrays and objects in a message (-32600 past it).
    max_depth: int = 64
    #: Most requests in one JSON-RPC batch.
    max_batch: int = 1000
    #: Longest string id, in characters (ids are stored in the journal).
    max_id_length: int = 128

    # ── work and replies, checked before each request starts (-32003) ─────────
    #: Most attacks (sum of ``count``) in one ``attack.bulk`` request.
    max_bulk_attacks: int = 100_000_000
    #: Most attacks in a bulk request whose ``detail`` is ``attacks`` or ``dice``
    #: (those answers grow with every attack).
    max_bulk_detail_attacks: int = 10_000
    #: Most attacks rolled for one message (all the requests of a batch).
    max_message_attacks: int = 100_000_000
    #: Most strike rows listed one by one (detail ``attacks``/``dice``) in one message.
    max_detail_rows: int = 20_000
    #: Largest reply to one message, in bytes (estimated before the work, then
    #: measured: a result past it is journaled and answered with -32003).
    max_reply_bytes: int = 16 << 20
    #: Most attacks being rolled at once for one connection.
    max_connection_attacks: int = 200_000_000
    #: Most reply bytes one connection may have in flight (being made or unsent).
    max_connection_reply_bytes: int = 32 << 20
    #: Most attacks being rolled at once for all clients together.
    max_server_attacks: int = 400_000_000
    #: Most reply bytes in flight for all clients together.
    max_server_reply_bytes: int = 128 << 20
    #: Most attacks and reply bytes in flight for one remote source address (an IPv6 /64
    #: as one; each loopback connection counts as its own source).
    max_source_attacks: int = 200_000_000
    max_source_reply_bytes: int = 64 << 20
    #: A request of at most this many attacks (and at most 2 MiB of reply) is small: the
    #: bridge-wide and per-source budgets never refuse it, only its own connection's.
    max_light_attacks: int = 10_000
    #: Messages larger than this (or with more than 256 arrays and objects) are parsed and
    #: answered off the fast path, one at a time per connection, like bulk work.
    max_light_message_bytes: int = 64 << 10
    #: Heavy messages (bulk, odds, forecasts, replays, batches, large rounds and encounters,
    #: large messages) of one connection worked on at once; its others wait their turn.
    max_heavy_per_connection: int = 1
    #: Most fights one ``fight.forecast`` plays (its ``runs``; at each sweep point too).
    max_forecast_runs: int = 100_000
    #: Most values of a forecast's one-field sweep (``vary.values``).
    max_forecast_points: int = 64
    #: A forecast's work budget, checked before any fight: fights × combatants, summed over
    #: the scenario and every sweep point, a fight on the Python round loop counting 300
    #: times (fracas.drive.simulate.fight_cost). About ten seconds of one core's compiled
    #: fight loop; it is also what the forecast takes of the attack budgets while it runs.
    max_forecast_work: int = 30_000_000
    #: The most work a mob's exact odds (``attack.odds`` with ``count``) may take, in the
    #: engine's units (fracas.drive.odds.mob_cost; the engine's own default, about half a
    #: second of CPython): a larger mob is refused before any work with the largest count
    #: that fits.
    max_odds_mob_cost: int = 50_000_000

    # ── connections ─────────────────────────────────────────────────────────
    #: Most authenticated connections at once (unauthenticated ones do not count).
    max_connections: int = 32
    #: Most connections waiting to authenticate; a new one past it closes the
    #: oldest waiting one (1013), so a flood of idle sockets cannot lock the GM out.
    max_unauthenticated: int = 16
    #: Most sockets still in the HTTP handshake; past it the oldest is dropped.
    max_handshakes: int = 64
    #: Most sockets from one source address (an IPv6 /64 counts as one) in the HTTP
    #: handshake, and waiting to authenticate: past it that source loses one of its own.
    max_handshakes_per_source: int = 48
    max_unauthenticated_per_source: int = 8
    #: Connections the system queues before the bridge accepts them (listen backlog);
    #: the bridge accepts at most this many per turn of its loop, then serves the others.
    accept_backlog: int = 16
    #: Seconds a socket has to finish the HTTP handshake.
    handshake_timeout: float = 5.0
    #: Seconds a new connection has to send its ``auth`` message.
    auth_timeout: float = 2.0
    #: Most requests of one connection being worked on at once; more are
    #: read only as earlier ones finish (backpressure, not an error).
    max_in_flight: int = 8
    #: Seconds a reply may wait for a client to read it; past that the client is
    #: dropped and what it held is freed.
    send_timeout: float = 10.0
    #: Unread bytes a connection may hold before its pings go unanswered (a client that does
    #: not read gets no more pongs), and pings left unanswered so before it is closed.
    max_unread_pong_bytes: int = 64 << 10
    max_unanswered_pings: int = 1000
    #: Frames (a first one and its continuations) in one message: more closes the connection
    #: (1009). websockets before 17 counts none: empty continuation frames grew it unbounded.
    max_fragments: int = 1024
    #: Failed authentications (counted across all of loopback, per address
    #: otherwise) within ``auth_window`` seconds before the log says someone is
    #: guessing. They never refuse a correct token.
    auth_failures: int = 5
    auth_window: float = 60.0

    # ── shutdown ────────────────────────────────────────────────────────────
    #: Seconds the bridge lets requests in progress finish when asked to stop;
    #: then the rest are cancelled (-32010) and it exits.
    shutdown_grace: float = 3.0

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value <= 0:
                raise ValueError(f"limit {field.name} must be positive, got {value}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view of the limits (for ``server.info``)."""
        return dataclasses.asdict(self)


def parse_limits(pairs: tuple[str, ...] | list[str]) -> dict[str, int | float]:
    """``NAME=VALUE`` strings (``fracas serve --limit``) as Limits overrides; ValueError says which is wrong."""
    fields = {field.name: field for field in dataclasses.fields(Limits)}
    overrides: dict[str, int | float] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        name = name.strip()
        if not sep or name not in fields:
            raise ValueError(f"{pair!r}: expected NAME=VALUE with NAME one of {', '.join(fields)}")
        kind = float if isinstance(getattr(Limits, name), float) else int
        try:
            value = kind(text.strip().replace("_", ""))
        except ValueError:
            raise ValueError(f"{pair!r}: {name} takes {'a number' if kind is float else 'a whole number'}") from None
        if value <= 0:
            raise ValueError(f"{pair!r}: {name} must be positive")
        overrides[name] = value
    return overrides
