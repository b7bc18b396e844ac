"""The websocket shell: listens, checks who connects, moves bytes to the dispatcher.

Everything a browser could abuse is checked at the HTTP handshake, before a
websocket exists: the ``Host`` header (DNS rebinding) and the ``Origin`` header
(other web pages). Then the first message must authenticate, within
``auth_timeout`` and ``max_auth_message_bytes`` (a request pipelined right behind
it is read under the authenticated limits). Each later message is parsed and
weighed on a worker thread, so engine work never blocks the event loop, its pings
or other clients: single requests are answered on one pool, bulk work, batches and
large encounter rounds on another (decided from the parsed request), so one
client's mob never queues in front of another's single attack.

Nothing a local process can do without the token locks the GM out for long:

- sockets still in the HTTP handshake and connections waiting to authenticate are
  capped per source address (``max_handshakes_per_source``,
  ``max_unauthenticated_per_source``) and in all (``max_handshakes``,
  ``max_unauthenticated``); past a cap the socket of the busiest source that has
  been silent the longest is dropped, so a flood pushes out only its own sockets;
- the listen backlog (``accept_backlog``) bounds how many new sockets the loop
  takes per turn, and websockets' line per connection opened or closed is logged
  only at DEBUG (the bridge's own refusals are rate-limited);
- failed authentications are counted across all of loopback (one count, whatever
  127.x.y.z address a guesser picks) and only make the log warn: a correct token
  is always accepted;
- authenticated connections have their own cap (``max_connections``).

The kept token's file is watched (``BridgeConfig.token_file``): a new token written
there is taken within TOKEN_WATCH seconds, and sessions authenticated with the old
one are closed unless ``keep_sessions``.

A client that does not read its replies is dropped after ``send_timeout``; a
connection that closes has its bulk work cancelled; shutdown lets requests in
progress finish for ``shutdown_grace`` seconds, cancels the rest (-32010) and exits.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import concurrent.futures
import dataclasses
import http
import ipaddress
import re
import logging
import os
import signal
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import MultipleValuesError
from websockets.exceptions import ConnectionClosed, ProtocolError
from websockets.http11 import Request, Response

from .auth import Throttle
from .tokenfile import announce as _announce, file_state as _file_state, read_token as _read_token, \
    withdraw as _withdraw
from .budget import Meter
from .dispatcher import Dispatcher, Read, Reply, Session
from .methods import _REPLY_ODDS
from .protocol import CLOSE_POLICY_VIOLATION, CLOSE_TRY_AGAIN_LATER
from .workers import Offloaded, Workers, current as _current
from .journal import Journal, Retention
from .lane import Lane
from .limits import Limits

logger = logging.getLogger("fracas.bridge")
#: The websockets library logs through this child; it is kept at INFO or above
#: because at DEBUG websockets logs frame contents, which would include the token.
wire_logger = logging.getLogger("fracas.bridge.websockets")

#: The Chromium extension id of the fracas relay (fixed by the ``key`` in its manifest).
RELAY_EXTENSION_ID = "gkdobbfmdgnlmmlkeoifkomnimlgpnaa"
#: Origins allowed without ``--allow-origin``: Roll20, a local Foundry VTT, and the fracas
#: relay extension in Chromium-based browsers (Firefox gives each install its own
#: ``moz-extension://`` origin: the extension's popup shows the ``--allow-origin`` to add).
DEFAULT_ORIGINS = ("https://app.roll20.net", "http://localhost:30000", "http://127.0.0.1:30000",
                   f"chrome-extension://{RELAY_EXTENSION_ID}")
#: Browser-extension origin schemes: ``scheme://<extension id>``, no port or path.
EXTENSION_SCHEMES = ("chrome-extension", "moz-extension")
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")

#: Seconds a cancelled request may take to reach its next chunk and answer -32010 at shutdown.
CANCEL_WAIT = 10.0

CLOSE_GOING_AWAY = 1001
#: Seconds between two looks at the token file (a stat: its inode, size and mtime).
TOKEN_WATCH = 0.5
#: The close reason of a session whose token was rotated away.
TOKEN_ROTATED = "the access token was rotated: connect again with the new one"


def normalize_origin(origin: str) -> str:
    """``scheme://host[:port]`` in lower case (or an extension's ``chrome-extension://id``);
    raise ValueError for anything else."""
    parts = urlsplit(origin.strip())
    if parts.scheme in EXTENSION_SCHEMES:
        if not parts.hostname or parts.port is not None or parts.path not in ("", "/") or parts.query \
                or parts.fragment or parts.username or not re.fullmatch(r"[a-z0-9-]{1,64}", parts.hostname):
            raise ValueError(f"origin {origin!r} must be {parts.scheme}://<extension id>")
        return f"{parts.scheme}://{parts.hostname}"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"origin {origin!r} must look like https://host or http://host:port")
    if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
        raise ValueError(f"origin {origin!r} must be scheme://host[:port], without a path")
    try:
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"origin {origin!r} has an invalid port") from exc
    host = parts.hostname
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the bridge reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


@dataclasses.dataclass(frozen=True)
class BridgeConfig:
    """Everything ``fracas serve`` can set."""

    token: str
    journal: str
    host: str = "127.0.0.1"
    port: int = 8765
    journal_sync: str = "full"
    #: Allowed ``Origin`` values (besides DEFAULT_ORIGINS when ``default_origins``).
    origins: tuple[str, ...] = ()
    default_origins: bool = True
    #: Accept handshakes without ``Origin`` (programs, not browsers).
    allow_no_origin: bool = False
    #: Extra allowed ``Host`` header values (``name:port``), e.g. a LAN name.
    hosts: tuple[str, ...] = ()
    #: Required to listen on anything but loopback.
    allow_remote: bool = False
    #: How long and how large the journal may grow (oldest entries go first).
    retention: Retention = dataclasses.field(default_factory=Retention)
    limits: Limits = dataclasses.field(default_factory=Limits)
    #: Worker threads answering bulk work and batches (None: Python's default for
    #: the CPU count); single requests have a pool of their own.
    workers: int | None = None
    #: Worker threads answering single requests (attacks, initiative, morale, journal).
    fast_workers: int = 4
    #: Engine threads one bulk request rolls on (None: all CPUs but one, at least 1:
    #: the spare core keeps the GM's single attacks quick while a mob is rolled).
    bulk_threads: int | None = None
    #: The kept token's file when the token came from it: the bridge watches it and takes
    #: a new token written there (``fracas token --rotate``) within TOKEN_WATCH seconds.
    token_file: str | None = None
    #: On a new token, keep the sessions authenticated with the old one (default: close them).
    keep_sessions: bool = False

    def engine_threads(self) -> int:
        """The thread count bulk requests get (see ``bulk_threads``)."""
        if self.bulk_threads is not None:
            return self.bulk_threads
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        return max(1, cpus - 1)

    def allowed_origins(self) -> frozenset[str]:
        given = (*DEFAULT_ORIGINS, *self.origins) if self.default_origins else self.origins
        return frozenset(normalize_origin(origin) for origin in given)


class _Quiet:
    """Log refusals and connection churn without letting a flood of them flood the log.

    At most ``burst`` lines per kind in ``window`` seconds; the rest are counted
    and summed up in one line, at the kind's level, when the kind may speak again.
    """

    def __init__(self, burst: int = 10, window: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.burst, self.window, self._clock = burst, window, clock
        self._kinds: dict[str, list[float]] = {}  # kind -> [window start, lines, suppressed]

    def warning(self, kind: str, message: str, *args: Any) -> None:
        self.log(logging.WARNING, kind, message, *args)

    def log(self, level: int, kind: str, message: str, *args: Any) -> None:
        now = self._clock()
        state = self._kinds.get(kind)
        if state is None or now - state[0] >= self.window:
            if state is not None and state[2]:
                logger.log(level, "(%d more like it in the last %.0f s were not logged: %s)",
                           int(state[2]), self.window, kind)
            state = self._kinds[kind] = [now, 0, 0]
        if state[1] < self.burst:
            state[1] += 1
            logger.log(level, message, *args)
        else:
            state[2] += 1


class _HandshakeNoise(logging.Filter):
    """websockets before 17 (the newest on Python 3.10 is 16) logs every opening handshake
    that ends early at ERROR with a traceback: each half-open socket the bridge drops to
    make room (``max_handshakes``), each client that leaves mid-request. A flood of them
    then floods stderr, and where stderr is a pipe nobody reads, blocks the event loop in
    the write, so the bridge stops accepting anyone. Such records become the rate-limited
    warning that later versions' silence amounts to; any other handshake error still logs.
    """

    _EARLY = (EOFError, ConnectionError, TimeoutError)

    def __init__(self, quiet: _Quiet) -> None:
        super().__init__()
        self.quiet = quiet

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg != "opening handshake failed" or not record.exc_info:
            return True
        exc: BaseException | None = record.exc_info[1]
        while exc is not None and not isinstance(exc, self._EARLY):
            exc = exc.__cause__ or exc.__context__
        if exc is None:
            return True
        self.quiet.warning("handshake ended early", "a connection ended during its opening handshake (%s)",
                           type(exc).__name__)
        return False


def _address_key(address: str) -> str:
    """Whose failed authentications count together: all of loopback is one client."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.is_loopback:
        return "loopback"
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def _source_key(address: str) -> str:
    """Whose waiting sockets count together: one address (an IPv6 /64 as one), and all of
    loopback as one (127.0.1.x aliases are the same machine: counted apart, they got
    around the per-source caps)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.is_loopback or (isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None
                          and ip.ipv4_mapped.is_loopback):
        return "loopback"
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


#: A message with more arrays and objects than this is weighed off the event loop (its
#: depth check walks every one of them).
LIGHT_CONTAINERS = 256


class Bridge:
    """The running bridge: ``async with Bridge(config) as bridge: ...``.

    ``engine`` defaults to the :mod:`fracas` module (see :class:`Dispatcher`).

    Leaving the block (or :meth:`close`) shuts down gracefully: new requests
    are answered "shutting down", requests already being worked on have
    ``shutdown_grace`` seconds to finish (journaled and answered); the rest are
    cancelled (-32010, nothing journaled), then connections close with 1001.
    """

    def __init__(self, config: BridgeConfig, *, engine: Any = None) -> None:
        if not is_loopback(config.host) and not config.allow_remote:
            raise ValueError(
                f"host {config.host} is not loopback: other machines could reach the bridge;"
                " pass --allow-remote if that is what you want"
            )
        self.config = config
        self._engine = engine  # None: the fracas module (tests pass a wrapper)
        self.limits = config.limits
        self._origins = config.allowed_origins()
        self._extra_hosts = frozenset(host.lower() for host in config.hosts)
        self._hosts: frozenset[str] = frozenset()
        self._failures = Throttle(self.limits.auth_failures, self.limits.auth_window)
        self._quiet = _Quiet()
        self._draining = False
        self._open = 0  # authenticated connections
        self._singles = 0  # single requests being answered
        #: Sockets still in the HTTP handshake, and connections not yet authenticated,
        #: oldest first (the one dropped when a new one would pass the cap).
        self._handshaking: collections.OrderedDict[ServerConnection, None] = collections.OrderedDict()
        self._unauthenticated: collections.OrderedDict[ServerConnection, None] = collections.OrderedDict()
        #: Where each waiting socket comes from (for the per-source caps).
        #: (source, address): the source is what the caps count (all of loopback is one);
        #: within a source the busiest address loses a socket first.
        self._arrived: dict[ServerConnection, tuple[str, str]] = {}
        #: Authenticated connections and their sessions (closed when their token is rotated away).
        self._sessions: dict[ServerConnection, Session] = {}
        self._watcher: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Task[None]] = set()
        self._token_seen: tuple[int, int, int] | None = None
        self.rotations = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._task_sockets: dict[asyncio.Task[None], ServerConnection] = {}
        self._journal: Journal | None = None
        #: Odds (and other pure-Python engine work) in worker processes (see workers.py).
        self.workers: Workers | None = None
        #: Budgets shared by the connections of one remote source address: key -> [meters, connections].
        self._sources: dict[str, list[Any]] = {}
        #: Set by close() when a worker thread was still busy past every deadline: run() then
        #: exits the process rather than wait for it (a thread cannot be stopped).
        self.abandoned = False
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._fast_pool: Lane | None = None
        self._server: Server | None = None
        self.dispatcher: Dispatcher | None = None
        self.port = 0

    # ── lifecycle ───────────────────────────────────────────────────────────

    async def start(self) -> None:
        """Open the journal and start listening."""
        config = self.config
        # websockets logs every connection opened, refused or closed at INFO: churn a flood
        # would fill the log with, so it shows only when the bridge logs at DEBUG. Never
        # below INFO: at DEBUG websockets logs frame contents (the token).
        wire_logger.setLevel(logging.INFO if logger.getEffectiveLevel() <= logging.DEBUG else logging.WARNING)
        # websockets 16 logs a half-open handshake dropped by the client as a traceback at
        # ERROR: that goes through the bridge's rate-limited warning instead.
        self._handshake_noise = _HandshakeNoise(self._quiet)
        wire_logger.addFilter(self._handshake_noise)
        self._journal = Journal(config.journal, sync=config.journal_sync, retention=config.retention)
        engine = self._engine
        self.workers = Workers(config.engine_threads())
        if engine is None:
            import fracas

            # Odds enumerate in pure Python for up to tens of seconds: in a worker process,
            # out of the GIL the GM's requests need, and killed when cancelled.
            engine = Offloaded(fracas, self.workers, self._reply_room)
        self.dispatcher = Dispatcher(
            token=config.token,
            journal=self._journal,
            limits=self.limits,
            engine=engine,
            is_draining=lambda: self._draining,
            bulk_threads=config.engine_threads(),
        )
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=config.workers, thread_name_prefix="fracas-bridge"
        )
        self._fast_pool = Lane(asyncio.get_running_loop(), config.fast_workers, "fracas-bridge-fast")
        try:
            self._server = await serve(
                self._serve_connection,
                config.host,
                config.port,
                process_request=self._check_handshake,
                compression=None,
                max_size=self.limits.max_auth_message_bytes,
                open_timeout=self.limits.handshake_timeout,
                close_timeout=2,
                server_header=None,
                logger=wire_logger,
                create_connection=self._new_connection,  # type: ignore[arg-type]
                backlog=self.limits.accept_backlog,
            )
        except BaseException:
            self._pool.shutdown()
            self._fast_pool.close()
            self.workers.close()
            self._journal.close()
            wire_logger.removeFilter(self._handshake_noise)
            raise
        ports = {sock.getsockname()[1] for sock in self._server.sockets}
        self.port = self._server.sockets[0].getsockname()[1]
        names = set(LOOPBACK_NAMES)
        if not is_loopback(config.host) and config.host not in ("0.0.0.0", "::", ""):
            names.add(_url_host(config.host).lower())
        self._hosts = frozenset(f"{name}:{port}" for name in names for port in ports)
        if config.token_file is not None:
            self._token_seen = _file_state(config.token_file)
            _announce(config.token_file, self.url, config.token, 0)
            self._watcher = asyncio.create_task(self._watch_token(config.token_file))
        logger.info("listening on %s", self.url)

    @property
    def url(self) -> str:
        return f"ws://{_url_host(self.config.host)}:{self.port}"

    @property
    def journal_path(self) -> str:
        return self.config.journal

    async def close(self) -> None:
        """Shut down gracefully (see the class docstring)."""
        if self._server is None:
            return
        self._draining = True
        assert self.dispatcher is not None
        if self._watcher is not None:
            self._watcher.cancel()
            _withdraw(self.config.token_file)  # type: ignore[arg-type]
        grace = self.limits.shutdown_grace
        if self._tasks:  # no task starts once draining (see _read)
            logger.info("shutting down: finishing %d request(s) (at most %.0f s)", len(self._tasks), grace)
            _, late = await asyncio.wait(list(self._tasks), timeout=grace)
            if late:
                # A task whose client has not read what it was already sent (bytes still in its
                # socket's write buffer: the task waits to send its reply, journaled already) is
                # not waited for: that connection is dropped now, as the grace has run out.
                unread = {task for task in late if (websocket := self._task_sockets.get(task)) is not None
                          and websocket.transport.get_write_buffer_size() > 0}
                if unread:
                    logger.warning("shutting down: dropping the connections of %d request(s) whose clients"
                                   " have not read what they were sent (what was rolled is journaled)",
                                   len(unread))
                    for task in unread:
                        self._task_sockets[task].transport.abort()
                if len(late) > len(unread):
                    logger.warning("shutting down: cancelling %d request(s) still running after %.0f s (their"
                                   " clients get -32010; nothing of them is journaled)", len(late) - len(unread),
                                   grace)
                self.dispatcher.cancel_all.set()
                # Bulk work stops at its next chunk (up to seconds on the pure-Python core of
                # a loaded machine) and its -32010 goes out; a reply that a client does not
                # take by then is not waited for.
                _, stuck = await asyncio.wait(late, timeout=max(grace, CANCEL_WAIT))
                if self.workers is not None:
                    self.workers.close()  # anything still in a worker: killed, its request -32010
                    _, stuck = await asyncio.wait(stuck, timeout=1) if stuck else (set(), set())
                for task in stuck:
                    websocket = self._task_sockets.get(task)
                    if websocket is not None:
                        websocket.transport.abort()
                    task.cancel()
                if stuck:
                    # A thread still in the engine cannot be stopped: run() exits without it.
                    self.abandoned = True
        self._server.close(code=CLOSE_GOING_AWAY, reason="server shutting down")
        try:
            await asyncio.wait_for(self._server.wait_closed(), 5)
        except asyncio.TimeoutError:
            for connection in list(self._server.connections):
                connection.transport.abort()
        self._server = None
        assert self._pool is not None and self._fast_pool is not None and self._journal is not None
        # A worker stuck in the engine past every deadline is not waited for.
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._fast_pool.close()
        if self.workers is not None:
            self.workers.close()
        self._journal.close()
        wire_logger.removeFilter(self._handshake_noise)
        logger.info("stopped")

    async def __aenter__(self) -> Bridge:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    # ── sockets before the websocket ──────────────────────────────────────────

    def _new_connection(self, *args: Any, **kwargs: Any) -> ServerConnection:
        bridge = self

        class Connection(ServerConnection):
            authenticated = False

            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                self._messages = 0
                self._fragments = 0  # frames of the message being received
                self._unanswered = 0  # pings not answered because the client does not read
                self._recv_frame = self.protocol.recv_frame
                self.protocol.recv_frame = self._frame  # type: ignore[method-assign]

            def _frame(self, frame: Any) -> None:
                """Every frame: pings of a client that does not read its pongs go unanswered
                (then it is closed), and a message's fragments are counted (websockets before
                17 counts none). Until authenticated: the first message (the auth request)
                may be max_auth_message_bytes, and the one right behind it (sent before the
                auth reply, maybe in the same TCP segment) max_message_bytes: it is read once
                the auth has succeeded, or never. Any later one must wait for the reply."""
                limits = bridge.limits
                opcode = frame.opcode
                transport = self.transport
                if transport.is_closing():
                    return  # closed here (below) with frames still to parse: nothing more to do
                if opcode == _PING:
                    if transport.get_write_buffer_size() > limits.max_unread_pong_bytes:
                        self._unanswered += 1
                        if self._unanswered > limits.max_unanswered_pings:
                            bridge._quiet.warning(
                                "ping flood", "closed a connection from %s: %d pings sent while it read none of"
                                " the replies (max_unanswered_pings)", self._peer(), self._unanswered - 1)
                            transport.abort()
                        return  # no pong: the client has not read what it was sent
                    self._unanswered = 0
                elif opcode in _DATA_OPCODES:
                    self._fragments = self._fragments + 1 if opcode == _CONTINUATION else 1
                    if self._fragments > limits.max_fragments:
                        bridge._quiet.warning("fragments", "closed a connection from %s: a message of more than"
                                              " %d frames (max_fragments)", self._peer(), limits.max_fragments)
                        # The parser closes the connection with 1002 and this reason.
                        raise ProtocolError(f"a message of more than {limits.max_fragments} frames (max_fragments)")
                    if frame.fin:
                        self._fragments = 0
                self._recv_frame(frame)
                if not self.authenticated and frame.fin and opcode in _DATA_OPCODES:
                    self._messages += 1
                    _set_max_size(self.protocol, bridge.limits.max_message_bytes if self._messages == 1
                                  else bridge.limits.max_auth_message_bytes)

            def _peer(self) -> str:
                peer = self.transport.get_extra_info("peername") if self.transport else None
                return f"{peer[0]}:{peer[1]}" if peer else "-"

            def data_received(self, data: bytes) -> None:
                # A waiting socket that sends something goes to the back of the line: the
                # first dropped are those that have been silent longest (a hanging socket),
                # not a client whose handshake or auth just arrived.
                for waiting in (bridge._handshaking, bridge._unauthenticated):
                    if self in waiting:
                        waiting.move_to_end(self)
                super().data_received(data)

            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                super().connection_made(transport)
                peer = transport.get_extra_info("peername")
                bridge._arrived[self] = (_source_key(str(peer[0])), str(peer[0])) if peer else ("-", "-")
                bridge._admit(bridge._handshaking, self, bridge.limits.max_handshakes,
                              bridge.limits.max_handshakes_per_source, "sockets in the HTTP handshake")

            def connection_lost(self, exc: Exception | None) -> None:
                bridge._handshaking.pop(self, None)
                bridge._unauthenticated.pop(self, None)
                bridge._arrived.pop(self, None)
                super().connection_lost(exc)

        return Connection(*args, **kwargs)

    def _admit(self, waiting: collections.OrderedDict[ServerConnection, None],
               connection: ServerConnection, cap: int, per_source: int, what: str) -> None:
        """Add a waiting connection. Past its source's cap, that source's socket silent the
        longest goes; past the cap of all, that of the source with the most waiting. Within
        a source (all of loopback is one: 127.0.1.x aliases do not get around the caps), the
        socket goes from the address with the most waiting. So a flood only ever pushes out
        its own sockets, and idle ones never crowd out a new client."""
        waiting[connection] = None
        unknown = ("-", "-")
        source = self._arrived.get(connection, unknown)[0]
        while True:
            counts = collections.Counter(self._arrived.get(c, unknown)[0] for c in waiting)
            if counts[source] > per_source:
                busiest, scope = source, f"{per_source} {what} from {source} (the cap per source)"
            elif len(waiting) > cap:
                busiest, scope = counts.most_common(1)[0][0], f"{cap} {what} (the cap of all)"
            else:
                return
            members = [c for c in waiting if self._arrived.get(c, unknown)[0] == busiest]
            addresses = collections.Counter(self._arrived.get(c, unknown)[1] for c in members)
            most = max(addresses.values())
            victim = next(c for c in members if addresses[self._arrived.get(c, unknown)[1]] == most)
            del waiting[victim]
            self._quiet.warning("evicted", "dropped a socket from %s: past %s",
                                self._arrived.get(victim, unknown)[1], scope)
            victim.transport.abort()
            if victim is connection:
                return

    # ── the handshake ───────────────────────────────────────────────────────

    def _check_handshake(self, connection: ServerConnection, request: Request) -> Response | None:
        """Refuse, with a reason, a handshake from anyone who should not connect."""
        self._handshaking.pop(connection, None)
        address = str(connection.remote_address[0]) if connection.remote_address else "-"
        if self._draining:
            return self._refuse(connection, address, http.HTTPStatus.SERVICE_UNAVAILABLE,
                                "the bridge is shutting down")
        try:
            host = request.headers.get("Host")
            origin = request.headers.get("Origin")
        except MultipleValuesError as exc:
            return self._refuse(connection, address, http.HTTPStatus.FORBIDDEN,
                                f"more than one {exc} header")
        if host is None or host.lower() not in (self._hosts | self._extra_hosts):
            return self._refuse(
                connection, address, http.HTTPStatus.FORBIDDEN,
                f"Host header {host!r} is not allowed (allowed: {', '.join(sorted(self._hosts))};"
                " add one with --allow-host)",
            )
        if origin is None:
            if not self.config.allow_no_origin:
                return self._refuse(
                    connection, address, http.HTTPStatus.FORBIDDEN,
                    "missing Origin header: browsers always send one; to accept other programs,"
                    " start the bridge with --allow-no-origin",
                )
        elif _origin_key(origin) not in self._origins:
            return self._refuse(
                connection, address, http.HTTPStatus.FORBIDDEN,
                f"Origin {origin!r} is not allowed (allowed: {', '.join(sorted(self._origins))};"
                " add one with --allow-origin)",
            )
        # Waiting to authenticate from now on (the cap drops the oldest waiting one).
        self._admit(self._unauthenticated, connection, self.limits.max_unauthenticated,
                    self.limits.max_unauthenticated_per_source, "connections waiting to authenticate")
        return None

    def _refuse(self, connection: ServerConnection, address: str, status: http.HTTPStatus,
                reason: str) -> Response:
        self._quiet.warning(f"refused {int(status)}", "refused a connection from %s: %d %s",
                            address, status, reason)
        return connection.respond(status, reason + "\n")

    # ── one connection ──────────────────────────────────────────────────────

    async def _serve_connection(self, websocket: ServerConnection) -> None:
        remote = websocket.remote_address
        address = str(remote[0]) if remote else "-"
        session = Session(peer=f"{address}:{remote[1]}" if remote else "-")
        try:
            if not await self._authenticate(websocket, session, address):
                return
            self._open += 1
            self._sessions[websocket] = session
            source = self._join_source(session, address)
            try:
                if session.generation != self.dispatcher.generation and not self.config.keep_sessions:
                    # The token was rotated while the auth reply was being sent.
                    await websocket.close(CLOSE_POLICY_VIOLATION, TOKEN_ROTATED)
                    return
                # Authenticated: now the full message size applies.
                websocket.authenticated = True  # type: ignore[attr-defined]
                _set_max_size(websocket.protocol, self.limits.max_message_bytes)
                # Churn from a client that reconnects in a loop is rate-limited (issue 31, item 4).
                self._quiet.log(logging.INFO, "connected", "%s connected", session.peer)
                await self._read(websocket, session)
            finally:
                self._open -= 1
                self._sessions.pop(websocket, None)
                self._leave_source(source)
                self._quiet.log(logging.INFO, "disconnected", "%s disconnected", session.peer)
        finally:
            self._unauthenticated.pop(websocket, None)
            # Work still running for this connection stops at its next chunk.
            session.cancel.set()

    async def _authenticate(self, websocket: ServerConnection, session: Session,
                            address: str) -> bool:
        assert self.dispatcher is not None
        try:
            first = await asyncio.wait_for(websocket.recv(), self.limits.auth_timeout)
        except asyncio.TimeoutError:
            await websocket.close(CLOSE_POLICY_VIOLATION, "authentication timeout: send auth first")
            return False
        except ConnectionClosed:
            return False
        # Authentication is cheap (a parse of at most max_auth_message_bytes and a compare):
        # answered on the loop, at once, whatever the failures before it.
        reply = self.dispatcher.handle(session, first)
        self._unauthenticated.pop(websocket, None)
        if session.authenticated and self._open >= self.limits.max_connections:
            # Past the cap of authenticated connections: say so before closing.
            session.authenticated = False
            reply = self.dispatcher.too_many_connections(reply, self.limits.max_connections)
        try:
            if reply.data is not None:
                await websocket.send(reply.data, text=True)
            if reply.close is not None:
                if not session.authenticated:
                    self._failed(address, session)
                await websocket.close(*reply.close)
                return False
        except ConnectionClosed:
            return False
        return session.authenticated

    def _failed(self, address: str, session: Session) -> None:
        """Count a failed authentication; warn (not refuse) once someone seems to be guessing."""
        key = _address_key(address)
        self._failures.record_failure(key)
        if self._failures.retry_after(key) is not None:
            self._quiet.warning(
                "guessing", "%d or more failed authentications from %s within %.0f s: a program may be"
                " guessing the token (a kept token is 256 random bits; fracas token --rotate makes a new"
                " one). Correct tokens are still accepted.", self.limits.auth_failures, key,
                self.limits.auth_window)
        else:
            self._quiet.warning("auth failed", "%s failed to authenticate", session.peer)

    def _join_source(self, session: Session, address: str) -> str | None:
        """Give a remote connection its source address's shared budgets (loopback: none, each
        local connection is its own source; the GM is local)."""
        key = _source_key(address)
        if key == "loopback":
            return None
        shared = self._sources.get(key)
        if shared is None:
            limits = self.limits
            shared = self._sources[key] = [
                (Meter("max_source_attacks", limits.max_source_attacks, f"the source address {key}"),
                 Meter("max_source_reply_bytes", limits.max_source_reply_bytes, f"the source address {key}")), 0]
        shared[1] += 1
        session.source = shared[0]
        return key

    def _leave_source(self, key: str | None) -> None:
        if key is None:
            return
        shared = self._sources[key]
        shared[1] -= 1
        if not shared[1] and not any(meter.used for meter in shared[0]):
            del self._sources[key]

    def _reply_room(self) -> tuple[int, str]:
        """The reply bytes the odds request being answered on this thread may still take."""
        message = getattr(_current, "message", None)
        if message is None:
            return self.limits.max_reply_bytes, "max_reply_bytes"
        return message.spending.room(_REPLY_ODDS)

    async def _read(self, websocket: ServerConnection, session: Session) -> None:
        in_flight = asyncio.Semaphore(self.limits.max_in_flight)
        try:
            async for message in websocket:
                await in_flight.acquire()
                if self._draining:
                    # The dispatcher only says "shutting down" now: cheap, so answered
                    # here, and close() waits for no task started after it began.
                    in_flight.release()
                    reply = self.dispatcher.handle(session, message)
                    if reply.data is not None:
                        await self._send(websocket, session, reply)
                    continue
                task = asyncio.create_task(self._answer(websocket, session, message, in_flight))
                self._tasks.add(task)
                self._task_sockets[task] = websocket
                task.add_done_callback(self._forget)
        except ConnectionClosed:
            pass

    def _forget(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._task_sockets.pop(task, None)

    async def _answer(self, websocket: ServerConnection, session: Session, message: str | bytes,
                      in_flight: asyncio.Semaphore) -> None:
        """Answer one message where its cost says (the fairness rule, bridge/README.md):

        - a small message (at most ``max_light_message_bytes`` and LIGHT_CONTAINERS arrays
          and objects) is parsed here, on the loop (microseconds); if it needs no journal,
          store or engine (server.info, an error) it is answered here too, with no thread hop;
        - a single request goes to the single-request pool, one hop; an encounter method is
          weighed there first from the encounter it names (members, strikes);
        - anything heavy (a large message, a batch, bulk, odds, replays, large encounters)
          waits for its connection's turn (``max_heavy_per_connection`` at once) and goes
          to the bulk pool: one client's heavy work queues behind its own, never in front
          of another client's small request.
        """
        dispatcher = self.dispatcher
        assert dispatcher is not None
        reply: Reply | None = None
        single = False
        try:
            read: Read | None = None
            if isinstance(message, bytes) or (len(message) <= self.limits.max_light_message_bytes
                                              and message.count("{") + message.count("[") <= LIGHT_CONTAINERS):
                try:
                    read = dispatcher.protocol.read(session, message, False, weigh=False)
                except Exception:  # a bug: answer, log, keep serving
                    read = Read(reply=dispatcher.protocol.bug(session), lane="now")
                if read.lane == "now":
                    reply = dispatcher.answer(session, read, hold=True)
            if reply is None and read is not None and read.lane != "heavy":
                single = True
                self._singles += 1
                dispatcher.quiet.clear()
                parsed = read

                def weigh_and_answer_if_light() -> tuple[Read, Reply | None]:
                    weighed = parsed
                    if weighed.lane == "weigh":  # reads the stored encounter it names
                        weighed = Read(document=parsed.document, heavy=dispatcher.protocol.heavy(parsed.document))
                    return weighed, None if weighed.heavy else dispatcher.answer(session, weighed, hold=True)

                assert self._fast_pool is not None
                read, reply = await self._fast_pool.submit(weigh_and_answer_if_light)
                single = False
                self._single_done()
            if reply is None:
                reply = await self._heavy(session, message, read)
            if reply.data is not None and not session.cancel.is_set():
                await self._send(websocket, session, reply)
        except ConnectionClosed:
            # A client that sends and leaves in a loop could flood the log: rate-limited like churn.
            self._quiet.log(logging.INFO, "left early", "%s left before its reply was sent (rolls are journaled)",
                            session.peer)
        finally:
            if single:
                self._single_done()
            if reply is not None:
                reply.release()
            in_flight.release()

    async def _heavy(self, session: Session, message: str | bytes, read: Read | None) -> Reply:
        """Answer a heavy message on the bulk pool, in its connection's turn."""
        dispatcher = self.dispatcher
        assert dispatcher is not None
        if session.lane is None:
            session.lane = asyncio.Semaphore(self.limits.max_heavy_per_connection)
        async with session.lane:
            if read is None:  # a large message: parsed (and its depth checked) off the loop too
                return await asyncio.get_running_loop().run_in_executor(
                    self._pool, lambda: dispatcher.answer(session, dispatcher.read(session, message, late=False),
                                                          hold=True))
            return await asyncio.get_running_loop().run_in_executor(
                self._pool, lambda: dispatcher.answer(session, read, hold=True))

    def _single_done(self) -> None:
        self._singles -= 1
        if not self._singles:
            self.dispatcher.quiet.set()  # type: ignore[union-attr]

    # ── the token, when it is the kept one ───────────────────────────────────

    async def _watch_token(self, path: str) -> None:
        """Look at the token file every TOKEN_WATCH seconds (a stat); take a new token
        written there. A stat of one file is cheap and needs no signal, so it works the same
        for ``fracas token --rotate``, an editor, or a restore from a backup."""
        while True:
            await asyncio.sleep(TOKEN_WATCH)
            state = _file_state(path)
            if state == self._token_seen:
                continue
            self._token_seen = state
            try:
                self.take_token(_read_token(path))
            except ValueError as exc:
                self._quiet.warning("token file", "%s; the bridge keeps its token", exc)

    def take_token(self, token: str) -> int:
        """Use ``token`` from now on: a new connection with the old one is refused at once, and
        (unless ``keep_sessions``) sessions authenticated with it are closed (1008, TOKEN_ROTATED).
        Returns how many were closed."""
        dispatcher = self.dispatcher
        assert dispatcher is not None
        if token == dispatcher.token:
            return 0
        dispatcher.token = token
        self.rotations += 1
        closed = 0
        if not self.config.keep_sessions:
            for websocket, session in list(self._sessions.items()):
                if session.generation != dispatcher.generation:
                    session.authenticated = False
                    closed += 1
                    task = asyncio.create_task(websocket.close(CLOSE_POLICY_VIOLATION, TOKEN_ROTATED))
                    self._closing.add(task)
                    task.add_done_callback(self._closing.discard)
        logger.warning("a new access token: new connections need it from now on; %s",
                       f"{len(self._sessions)} session(s) authenticated before are kept (--keep-sessions)"
                       if self.config.keep_sessions else
                       f"closed {closed} session(s) authenticated with the old one")
        if self.config.token_file is not None:
            _announce(self.config.token_file, self.url, token, closed)
        return closed

    async def _send(self, websocket: ServerConnection, session: Session, reply: Reply) -> None:
        """Send a reply; a client that does not take it within send_timeout is dropped."""
        assert reply.data is not None
        transport = websocket.transport
        if transport is not None and transport.get_write_buffer_size() == 0 and not transport.is_closing():
            # Nothing is waiting to be written, so this send writes to the socket at once, and
            # waits only if what the socket does not take fills the buffer past its high-water
            # mark (websockets drains then): a reply that small needs no timer of its own.
            limits = transport.get_write_buffer_limits()
            if len(reply.data) < limits[1]:
                await websocket.send(reply.data, text=True)
                return
        try:
            # Not asyncio.wait_for: that wraps the send in a task of its own (a loop turn per reply).
            async with _timeout(self.limits.send_timeout):
                await websocket.send(reply.data, text=True)
        except asyncio.TimeoutError:
            self._quiet.warning("slow reader", "dropped %s: it did not read its replies for %.0f s"
                                " (send_timeout); what it held is freed", session.peer,
                                self.limits.send_timeout)
            session.cancel.set()
            websocket.transport.abort()
            raise ConnectionClosed(None, None) from None


#: Opcodes of data frames (text, binary, continuation) and of a ping: RFC 6455 section 5.2.
_DATA_OPCODES = frozenset({0x0, 0x1, 0x2})
_CONTINUATION = 0x0
_PING = 0x9


def _set_max_size(protocol: Any, size: int) -> None:
    """The largest message the websocket layer buffers (websockets ≥ 15 names it
    max_message_size, earlier max_size); it applies from the next frame parsed."""
    setattr(protocol, "max_message_size" if hasattr(protocol, "max_message_size") else "max_size", size)


@contextlib.asynccontextmanager
async def _timeout_fallback(seconds: float) -> Any:
    """asyncio.timeout for Pythons before 3.11: cancel the block after ``seconds``."""
    task = asyncio.current_task()
    assert task is not None
    handle = asyncio.get_running_loop().call_later(seconds, task.cancel)
    try:
        yield
    except asyncio.CancelledError:
        if handle.when() <= asyncio.get_running_loop().time():
            raise asyncio.TimeoutError from None
        raise
    finally:
        handle.cancel()


_timeout = getattr(asyncio, "timeout", _timeout_fallback)


def _origin_key(origin: str) -> str:
    try:
        return normalize_origin(origin)
    except ValueError:
        return origin


async def run(config: BridgeConfig, *, on_ready: Callable[[Bridge], None] | None = None) -> None:
    """Serve until SIGINT or SIGTERM, then shut down gracefully.

    A second signal during the shutdown exits at once (the journal stays
    consistent: each entry is its own committed transaction).
    """
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()

    def first_signal() -> None:
        stop.set()
        _on_signals(loop, lambda: os._exit(130))

    _on_signals(loop, first_signal)
    async with Bridge(config) as bridge:
        if on_ready is not None:
            on_ready(bridge)
        await stop.wait()
        logger.info("signal received: shutting down (again to force)")
    if bridge.abandoned:
        # A worker thread is still in the engine (it cannot be stopped): the interpreter would
        # wait for it at exit. Everything is answered or cancelled and the journal is closed.
        logger.warning("exiting without waiting for engine work still running on a thread")
        logging.shutdown()
        import sys

        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def _on_signals(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(signum, callback)
        except (NotImplementedError, RuntimeError):  # Windows: no loop signal handlers
            signal.signal(signum, lambda *_: loop.call_soon_threadsafe(callback))
