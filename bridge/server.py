"""The websocket shell: listens, checks who connects, moves bytes to the dispatcher.

Everything a browser could abuse is checked at the HTTP handshake, before a
websocket exists: the ``Host`` header (DNS rebinding), the ``Origin`` header
(other web pages), throttled addresses, the connection count. Then the first
message must authenticate. Each later message is answered on a worker thread,
so engine work never blocks the event loop, its pings or other clients.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import http
import ipaddress
import logging
import math
import os
import signal
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import MultipleValuesError
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from .auth import Throttle
from .dispatcher import Dispatcher, Session
from .journal import Journal
from .limits import Limits

logger = logging.getLogger("fracas.bridge")
#: The websockets library logs through this child; it is kept at INFO or above
#: because at DEBUG websockets logs frame contents, which would include the token.
wire_logger = logging.getLogger("fracas.bridge.websockets")

#: Origins allowed without ``--allow-origin``: Roll20 and a local Foundry VTT.
DEFAULT_ORIGINS = ("https://app.roll20.net", "http://localhost:30000", "http://127.0.0.1:30000")
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")

CLOSE_TRY_AGAIN_LATER = 1013
CLOSE_POLICY_VIOLATION = 1008
CLOSE_GOING_AWAY = 1001


def normalize_origin(origin: str) -> str:
    """``scheme://host[:port]`` in lower case; raise ValueError for anything else."""
    parts = urlsplit(origin.strip())
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
    limits: Limits = dataclasses.field(default_factory=Limits)
    #: Worker threads answering requests (None: Python's default for the CPU count).
    workers: int | None = None

    def allowed_origins(self) -> frozenset[str]:
        given = (*DEFAULT_ORIGINS, *self.origins) if self.default_origins else self.origins
        return frozenset(normalize_origin(origin) for origin in given)


class Bridge:
    """The running bridge: ``async with Bridge(config) as bridge: ...``.

    ``engine`` defaults to the :mod:`fracas` module (see :class:`Dispatcher`).

    Leaving the block (or :meth:`close`) shuts down gracefully: new requests
    are answered "shutting down", requests already being worked on finish,
    are journaled and answered, then connections close with 1001.
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
        self._throttle = Throttle(self.limits.auth_failures, self.limits.auth_window)
        self._draining = False
        self._open = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._journal: Journal | None = None
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._server: Server | None = None
        self.dispatcher: Dispatcher | None = None
        self.port = 0

    # ── lifecycle ───────────────────────────────────────────────────────────

    async def start(self) -> None:
        """Open the journal and start listening."""
        config = self.config
        if wire_logger.getEffectiveLevel() < logging.INFO:
            wire_logger.setLevel(logging.INFO)
        self._journal = Journal(config.journal, sync=config.journal_sync)
        self.dispatcher = Dispatcher(
            token=config.token,
            journal=self._journal,
            limits=self.limits,
            engine=self._engine,
            is_draining=lambda: self._draining,
        )
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=config.workers, thread_name_prefix="fracas-bridge"
        )
        try:
            self._server = await serve(
                self._serve_connection,
                config.host,
                config.port,
                process_request=self._check_handshake,
                compression=None,
                max_size=self.limits.max_message_bytes,
                server_header=None,
                logger=wire_logger,
            )
        except BaseException:
            self._pool.shutdown()
            self._journal.close()
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
        if self._tasks:  # no task starts once draining (see _read)
            logger.info("shutting down: finishing %d request(s)", len(self._tasks))
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
        self._server.close(code=CLOSE_GOING_AWAY, reason="server shutting down")
        await self._server.wait_closed()
        self._server = None
        assert self._pool is not None and self._journal is not None
        self._pool.shutdown(wait=True)
        self._journal.close()
        logger.info("stopped")

    async def __aenter__(self) -> Bridge:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    # ── the handshake ───────────────────────────────────────────────────────

    def _check_handshake(self, connection: ServerConnection, request: Request) -> Response | None:
        """Refuse, with a reason, a handshake from anyone who should not connect."""
        address = str(connection.remote_address[0]) if connection.remote_address else "-"
        if self._draining:
            return self._refuse(connection, address, http.HTTPStatus.SERVICE_UNAVAILABLE,
                                "the bridge is shutting down")
        retry_after = self._throttle.retry_after(address)
        if retry_after is not None:
            response = self._refuse(
                connection, address, http.HTTPStatus.TOO_MANY_REQUESTS,
                "too many failed authentications from this address; try again later",
            )
            response.headers["Retry-After"] = str(max(1, math.ceil(retry_after)))
            return response
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
        if self._open >= self.limits.max_connections:
            return self._refuse(
                connection, address, http.HTTPStatus.SERVICE_UNAVAILABLE,
                f"too many connections (limit {self.limits.max_connections})",
            )
        return None

    @staticmethod
    def _refuse(connection: ServerConnection, address: str, status: http.HTTPStatus,
                reason: str) -> Response:
        logger.warning("refused a connection from %s: %d %s", address, status, reason)
        return connection.respond(status, reason + "\n")

    # ── one connection ──────────────────────────────────────────────────────

    async def _serve_connection(self, websocket: ServerConnection) -> None:
        # Handshakes can pass the count check concurrently; this is the hard limit.
        if self._open >= self.limits.max_connections:
            await websocket.close(CLOSE_TRY_AGAIN_LATER,
                                  f"too many connections (limit {self.limits.max_connections})")
            return
        self._open += 1
        remote = websocket.remote_address
        address = str(remote[0]) if remote else "-"
        session = Session(peer=f"{address}:{remote[1]}" if remote else "-")
        try:
            if await self._authenticate(websocket, session, address):
                logger.info("%s connected", session.peer)
                await self._read(websocket, session)
        finally:
            self._open -= 1
            logger.info("%s disconnected", session.peer)

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
        # Authentication is cheap (a parse and a compare): answered on the loop.
        reply = self.dispatcher.handle(session, first)
        try:
            if reply.data is not None:
                await websocket.send(reply.data, text=True)
            if reply.close is not None:
                if not session.authenticated:
                    self._throttle.record_failure(address)
                    logger.warning("%s failed to authenticate", session.peer)
                await websocket.close(*reply.close)
                return False
        except ConnectionClosed:
            return False
        return session.authenticated

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
                        await websocket.send(reply.data, text=True)
                    continue
                task = asyncio.create_task(self._answer(websocket, session, message, in_flight))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        except ConnectionClosed:
            pass

    async def _answer(self, websocket: ServerConnection, session: Session, message: str | bytes,
                      in_flight: asyncio.Semaphore) -> None:
        assert self.dispatcher is not None
        loop = asyncio.get_running_loop()
        try:
            reply = await loop.run_in_executor(self._pool, self.dispatcher.handle, session, message)
            if reply.data is not None:
                await websocket.send(reply.data, text=True)
        except ConnectionClosed:
            logger.info("%s left before its reply was sent (rolls are journaled)", session.peer)
        finally:
            in_flight.release()


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
