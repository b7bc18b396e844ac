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

    #: Largest incoming message, in bytes (text frames; compression is off).
    max_message_bytes: int = 1 << 20
    #: Most requests in one JSON-RPC batch.
    max_batch: int = 1000
    #: Most open connections at once.
    max_connections: int = 32
    #: Most requests of one connection being worked on at once; more are
    #: read only as earlier ones finish (backpressure, not an error).
    max_in_flight: int = 8
    #: Most attacks (sum of ``count``) in one ``attack.bulk`` request.
    max_bulk_attacks: int = 100_000_000
    #: Most attacks in a bulk request whose ``detail`` is ``attacks`` or ``dice``
    #: (those answers grow with every attack).
    max_bulk_detail_attacks: int = 10_000
    #: Longest string id, in characters (ids are stored in the journal).
    max_id_length: int = 128
    #: Seconds a new connection has to send its ``auth`` message.
    auth_timeout: float = 10.0
    #: Failed authentications allowed per client address within
    #: ``auth_window`` seconds; past that, handshakes get HTTP 429.
    auth_failures: int = 5
    auth_window: float = 60.0

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value <= 0:
                raise ValueError(f"limit {field.name} must be positive, got {value}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view of the limits (for ``server.info``)."""
        return dataclasses.asdict(self)
