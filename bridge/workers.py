"""Python-heavy engine work in worker processes: out of the serving process's GIL, and killable.

``attack.odds`` enumerates in pure Python for up to tens of seconds: on a thread of the
bridge it held the GIL the GM's requests need, and could not be stopped when its client
left or the bridge shut down (a thread cannot be killed). Here it runs in a worker process
(started with ``spawn`` on first use, kept warm, at most ``size`` of them); the thread
that asked waits, looking every WAIT seconds whether its request was cancelled (its
connection closed, or the shutdown grace is over): then the worker is killed and the
request fails with :class:`fracas.errors.Cancelled` (-32010). The result comes back as
its JSON bytes, measured in the worker against the reply budget the request may still
take (``max_bytes``): a larger one is refused there and never reaches the bridge.

:class:`Offloaded` is the engine as the handlers see it: the real one, except the functions
in OFFLOADED, which go to the workers. The handler's message (its budgets and its cancel
events) reaches it through :data:`current`, set by the protocol around each message.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
from collections.abc import Callable
from typing import Any

logger = logging.getLogger("fracas.bridge")

#: Engine functions answered by a worker process: exact odds, and forecasts (fight.forecast,
#: whose fights the compiled loop plays: in a worker they never hold the bridge's GIL).
OFFLOADED = ("odds", "forecast")
#: Seconds between two looks at a waiting request's cancel events.
WAIT = 0.05

#: The message being answered on this thread (``current.message``: spending, cancel), set by
#: protocol.Turn.run around its handlers.
current = threading.local()


class TooLarge(Exception):
    """The worker's result is larger than the reply budget it was given."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


def _serve(connection: Any) -> None:  # pragma: no cover - runs in the worker process
    """A worker's loop: (function, request, options, max_bytes) in; ("ok", JSON bytes),
    ("too large", size), ("raise", class path, path, reason), ("cancelled", why) or
    ("bug", text) out.

    SIGINT is ignored: a terminal's Ctrl-C reaches the whole process group, and the bridge,
    not the signal, decides when a worker's request stops (it kills the worker)."""
    import signal

    import orjson

    import fracas
    from fracas.errors import Cancelled, RequestError

    signal.signal(signal.SIGINT, signal.SIG_IGN)

    while True:
        try:
            function, request, options, max_bytes = connection.recv()
        except (EOFError, OSError):
            return
        try:
            data = orjson.dumps(getattr(fracas, function)(request, **options).to_dict())
            answer: tuple[Any, ...] = ("ok", data) if len(data) <= max_bytes else ("too large", len(data))
        except RequestError as exc:
            answer = ("raise", type(exc).__module__, type(exc).__qualname__, exc.path, exc.reason)
        except Cancelled as exc:
            answer = ("cancelled", str(exc))
        except Exception as exc:  # noqa: BLE001 - a bug: said to the bridge, which logs it
            answer = ("bug", f"{type(exc).__name__}: {exc}")
        connection.send(answer)


class _Worker:
    def __init__(self, context: Any) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child,), daemon=True, name="fracas-bridge-worker")
        self.process.start()
        child.close()

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.connection.close()


class Workers:
    """At most ``size`` worker processes, started on first use and kept warm."""

    def __init__(self, size: int) -> None:
        self.size = max(1, size)
        self._context = multiprocessing.get_context("spawn")
        self._idle: list[_Worker] = []
        self._running: set[_Worker] = set()
        self._room = threading.Semaphore(self.size)
        self._lock = threading.Lock()
        self._closed = False

    @property
    def busy(self) -> int:
        """Requests being worked on in a worker now."""
        return len(self._running)

    def run(self, function: str, request: Any, options: dict[str, Any], *, cancelled: Callable[[], bool],
            max_bytes: int) -> bytes:
        """``fracas.<function>(request, **options).to_dict()`` as JSON bytes, from a worker.

        Raise fracas.errors.Cancelled when ``cancelled()`` turns true (the worker is killed),
        TooLarge past ``max_bytes``, and the engine's RequestError as the engine raised it."""
        from fracas.errors import Cancelled

        while not self._room.acquire(timeout=WAIT):
            if cancelled() or self._closed:
                raise Cancelled("cancelled before a worker was free")
        try:
            with self._lock:
                if self._closed:
                    raise Cancelled("the bridge is shutting down")
                worker = self._idle.pop() if self._idle else None
            if worker is None:
                worker = _Worker(self._context)
            with self._lock:
                self._running.add(worker)
            keep = False
            try:
                worker.connection.send((function, request, options, max_bytes))
                while not worker.connection.poll(WAIT):
                    if cancelled() or self._closed:
                        raise Cancelled("cancelled while a worker was answering")
                    if not worker.process.is_alive():
                        raise RuntimeError(f"the worker process for {function} died"
                                           f" (exit code {worker.process.exitcode})")
                answer = worker.connection.recv()
                keep = True
            except (EOFError, OSError) as exc:
                if cancelled() or self._closed:
                    raise Cancelled("cancelled while a worker was answering") from None
                raise RuntimeError(f"the worker process for {function} failed: {exc}") from None
            finally:
                with self._lock:
                    self._running.discard(worker)
                    if keep and not self._closed:
                        self._idle.append(worker)
                    else:
                        keep = False
                if not keep:
                    worker.kill()
        finally:
            self._room.release()
        return _result(answer)

    def close(self) -> None:
        """Kill every worker (their requests fail with Cancelled)."""
        with self._lock:
            self._closed = True
            workers = [*self._idle, *self._running]
            self._idle.clear()
        for worker in workers:
            try:
                worker.kill()
            except Exception:  # noqa: BLE001 - shutting down: nothing left to tell
                pass


def _result(answer: tuple[Any, ...]) -> bytes:
    kind = answer[0]
    if kind == "ok":
        return answer[1]
    if kind == "too large":
        raise TooLarge(answer[1])
    if kind == "cancelled":
        from fracas.errors import Cancelled

        raise Cancelled(answer[1])
    if kind == "raise":
        import importlib

        _, module, name, path, reason = answer
        error_class: Any = importlib.import_module(module)
        for part in name.split("."):
            error_class = getattr(error_class, part)
        raise error_class(path, reason)
    raise RuntimeError(f"the worker failed: {answer[1]}")


class _Json:
    """A result already made JSON by a worker (the ``to_dict()`` the handlers read)."""

    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def to_dict(self) -> Any:
        import orjson

        return orjson.Fragment(self.data)


#: What a client asks for instead of an answer too large, per offloaded function.
_SMALLER = {"odds": "ask for fewer attacks (count) or fewer targets",
            "forecast": "forecast a scenario of fewer combatants, or sweep fewer values"}


class Offloaded:
    """The engine module, with OFFLOADED functions answered by ``workers``.

    ``reply_room()`` gives the reply bytes the current request may still take (from its
    message's and its connection's budgets): a larger result is refused in the worker."""

    def __init__(self, engine: Any, workers: Workers, reply_room: Callable[[], tuple[int, str]]) -> None:
        self._engine = engine
        self._workers = workers
        self._reply_room = reply_room

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._engine, name)
        if name not in OFFLOADED:
            setattr(self, name, value)  # later lookups skip __getattr__
            return value

        def offloaded(request: Any, **options: Any) -> _Json:
            from . import errors

            message = getattr(current, "message", None)
            cancel = message.cancel if message is not None else None
            room, limit_name = self._reply_room()
            try:
                return _Json(self._workers.run(name, request, options, max_bytes=room,
                                               cancelled=(cancel.is_set if cancel is not None else lambda: False)))
            except TooLarge as big:
                raise errors.LimitExceeded.at(
                    "$.params", f"the answer would be {big.size:,} bytes, more than the {room:,} this request may"
                                f" still take ({limit_name}); nothing was sent: {_SMALLER.get(name, 'ask for less')}",
                    limit=room, limit_name=limit_name) from None

        return offloaded
