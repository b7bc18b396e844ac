"""The websocket shell: listens, checks who connects, moves bytes to the dispatcher.

Everything a browser could abuse is checked at the HTTP handshake, before a
websocket exists: the ``Host`` header (DNS rebinding) and the ``Origin`` header
(other web pages). Then the first message must authenticate, within
``auth_timeout`` and ``max_auth_message_bytes``. Each later message is answered
on a worker thread, so engine work never blocks the event loop, its pings or
other clients: single attacks on one pool, bulk work and batches on another, so
one client's mob never queues in front of another's single attack.

Nothing a local process can do locks the GM out:

- sockets still in the HTTP handshake (``max_handshakes``) and connections
  waiting to authenticate (``max_unauthenticated``) are capped by dropping the
  *oldest* waiting one, so a flood of idle sockets only ever delays a real client
  by its own round trip;
- failed authentications are counted across all of loopback (one count, whatever
  127.x.y.z address a guesser picks) and only make the log warn: a correct token
  is always accepted;
- authenticated connections have their own cap (``max_connections``).

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
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from .auth import Throttle
from .dispatcher import Dispatcher, Reply, Session
from .journal import Journal, Retention
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

CLOSE_TRY_AGAIN_LATER = 1013
CLOSE_POLICY_VIOLATION = 1008
CLOSE_GOING_AWAY = 1001


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
    """Log refusals without letting a flood of them flood the log.

    At most ``burst`` lines per kind in ``window`` seconds; the rest are counted
    and summed up in one line when the kind may speak again.
    """

    def __init__(self, burst: int = 10, window: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.burst, self.window, self._clock = burst, window, clock
        self._kinds: dict[str, list[float]] = {}  # kind -> [window start, lines, suppressed]

    def warning(self, kind: str, message: str, *args: Any) -> None:
        now = self._clock()
        state = self._kinds.get(kind)
        if state is None or now - state[0] >= self.window:
            if state is not None and state[2]:
                logger.warning("(%d more like it in the last %.0f s were not logged: %s)",
                               int(state[2]), self.window, kind)
            state = self._kinds[kind] = [now, 0, 0]
        if state[1] < self.burst:
            state[1] += 1
            logger.warning(message, *args)
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


def _is_heavy(message: str | bytes) -> bool:
    """Whether a message goes to the bulk pool: batches, bulk, odds and replays.

    A substring test (in C) on the raw text, before any parse: a wrong guess costs
    only which pool answers, never the answer.
    """
    if isinstance(message, bytes):
        return False
    head = message.lstrip()[:1]
    return head == "[" or any(name in message for name in ('"attack.bulk"', '"attack.odds"', '"journal.replay"'))


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
        self._tasks: set[asyncio.Task[None]] = set()
        self._task_sockets: dict[asyncio.Task[None], ServerConnection] = {}
        self._journal: Journal | None = None
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._fast_pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._server: Server | None = None
        self.dispatcher: Dispatcher | None = None
        self.port = 0

    # ── lifecycle ───────────────────────────────────────────────────────────

    async def start(self) -> None:
        """Open the journal and start listening."""
        config = self.config
        if wire_logger.getEffectiveLevel() < logging.INFO:
            wire_logger.setLevel(logging.INFO)
        self._handshake_noise = _HandshakeNoise(self._quiet)
        wire_logger.addFilter(self._handshake_noise)
        self._journal = Journal(config.journal, sync=config.journal_sync, retention=config.retention)
        self.dispatcher = Dispatcher(
            token=config.token,
            journal=self._journal,
            limits=self.limits,
            engine=self._engine,
            is_draining=lambda: self._draining,
            bulk_threads=config.engine_threads(),
        )
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=config.workers, thread_name_prefix="fracas-bridge"
        )
        self._fast_pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=config.fast_workers, thread_name_prefix="fracas-bridge-fast"
        )
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
            )
        except BaseException:
            self._pool.shutdown()
            self._fast_pool.shutdown()
            self._journal.close()
            wire_logger.removeFilter(self._handshake_noise)
            raise
        ports = {sock.getsockname()[1] for sock in self._server.sockets}
        self.port = self._server.sockets[0].getsockname()[1]
        names = set(LOOPBACK_NAMES)
        if not is_loopback(config.host) and config.host not in ("0.0.0.0", "::", ""):
            names.add(_url_host(config.host).lower())
        self._hosts = frozenset(f"{name}:{port}" for name in names for port in ports)
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
        grace = self.limits.shutdown_grace
        if self._tasks:  # no task starts once draining (see _read)
            logger.info("shutting down: finishing %d request(s) (at most %.0f s)", len(self._tasks), grace)
            _, late = await asyncio.wait(list(self._tasks), timeout=grace)
            if late:
                logger.warning("shutting down: cancelling %d request(s) still running after %.0f s"
                               " (their clients get -32010; nothing of them is journaled)", len(late), grace)
                self.dispatcher.cancel_all.set()
                # Bulk work stops at its next chunk (up to seconds on the pure-Python core of
                # a loaded machine) and its -32010 goes out; a reply that a client does not
                # take by then is not waited for.
                _, stuck = await asyncio.wait(late, timeout=max(grace, CANCEL_WAIT))
                for task in stuck:
                    websocket = self._task_sockets.get(task)
                    if websocket is not None:
                        websocket.transport.abort()
                    task.cancel()
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
        self._fast_pool.shutdown(wait=False, cancel_futures=True)
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
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                super().connection_made(transport)
                bridge._admit(bridge._handshaking, self, bridge.limits.max_handshakes,
                              "sockets in the HTTP handshake (max_handshakes)")

            def connection_lost(self, exc: Exception | None) -> None:
                bridge._handshaking.pop(self, None)
                bridge._unauthenticated.pop(self, None)
                super().connection_lost(exc)

        return Connection(*args, **kwargs)

    def _admit(self, waiting: collections.OrderedDict[ServerConnection, None],
               connection: ServerConnection, cap: int, what: str) -> None:
        """Add a waiting connection; past the cap, drop the oldest waiting one."""
        waiting[connection] = None
        while len(waiting) > cap:
            oldest, _ = waiting.popitem(last=False)
            self._quiet.warning("evicted", "dropped the oldest of %d %s to make room for a new one",
                                cap, what)
            oldest.transport.abort()

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
                    "connections waiting to authenticate (max_unauthenticated)")
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
            try:
                # Authenticated: now the full message size applies.
                protocol = websocket.protocol
                # websockets ≥ 15 names it max_message_size, earlier max_size.
                setattr(protocol, "max_message_size" if hasattr(protocol, "max_message_size") else "max_size",
                        self.limits.max_message_bytes)
                logger.info("%s connected", session.peer)
                await self._read(websocket, session)
            finally:
                self._open -= 1
                logger.info("%s disconnected", session.peer)
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
        assert self.dispatcher is not None
        loop = asyncio.get_running_loop()
        heavy = _is_heavy(message)
        pool = self._pool if heavy else self._fast_pool
        reply: Reply | None = None
        if not heavy:  # bulk work pauses at its next chunk boundary until this is answered
            self._singles += 1
            self.dispatcher.quiet.clear()
        try:
            reply = await loop.run_in_executor(
                pool, lambda: self.dispatcher.handle(session, message, hold=True))  # type: ignore[union-attr]
            if reply.data is not None and not session.cancel.is_set():
                await self._send(websocket, session, reply)
        except ConnectionClosed:
            logger.info("%s left before its reply was sent (rolls are journaled)", session.peer)
        finally:
            if not heavy:
                self._singles -= 1
                if not self._singles:
                    self.dispatcher.quiet.set()
            if reply is not None:
                reply.release()
            in_flight.release()

    async def _send(self, websocket: ServerConnection, session: Session, reply: Reply) -> None:
        """Send a reply; a client that does not take it within send_timeout is dropped."""
        assert reply.data is not None
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


def _on_signals(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(signum, callback)
        except (NotImplementedError, RuntimeError):  # Windows: no loop signal handlers
            signal.signal(signum, lambda *_: loop.call_soon_threadsafe(callback))
