"""A lane of threads for the single-request path: one queue put there, one loop callback back.

``loop.run_in_executor`` costs about 100 µs of CPU a call on this path (a
``concurrent.futures.Future``, the executor's lock and idle-thread bookkeeping, a second
future chained to it on the loop); a lane hands its threads ``(future, call)`` on a
``queue.SimpleQueue`` and sets the loop's future with one ``call_soon_threadsafe``: about
half of that (``fracas bench --bridge`` measures the whole request).
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_STOP = None


class Lane:
    """``threads`` threads that run calls submitted from one event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop, threads: int, name: str) -> None:
        self._loop = loop
        self._queue: queue.SimpleQueue[tuple[asyncio.Future[Any], Callable[[], Any]] | None] = queue.SimpleQueue()
        self._closed = False
        # Daemon threads: a call stuck in the engine past every deadline does not hold the
        # process at exit (close() does not wait for it, as the bridge's pools do not).
        self._threads = [threading.Thread(target=self._work, name=f"{name}_{i}", daemon=True)
                         for i in range(threads)]
        for thread in self._threads:
            thread.start()

    def submit(self, call: Callable[[], T]) -> asyncio.Future[T]:
        """Run ``call`` on a lane thread; a future of its result on the loop."""
        if self._closed:
            raise RuntimeError("the lane is closed")
        future: asyncio.Future[T] = self._loop.create_future()
        self._queue.put((future, call))
        return future

    def _work(self) -> None:
        get, call_soon = self._queue.get, self._loop.call_soon_threadsafe
        while True:
            item = get()
            if item is _STOP:
                return
            future, call = item
            if future.cancelled():  # its task was cancelled while it waited
                continue
            try:
                result = call()
            except BaseException as error:  # noqa: BLE001 - handed to the awaiting task
                outcome: tuple[Callable[..., None], Any] = (_fail, error)
            else:
                outcome = (_succeed, result)
            try:
                call_soon(outcome[0], future, outcome[1])
            except RuntimeError:  # the loop is closed: nobody waits for it any more
                return

    def close(self) -> None:
        """Stop the threads once the calls queued before this are run; cancel those queued after
        none (they are refused). Does not wait for a call running now."""
        if self._closed:
            return
        self._closed = True
        for _ in self._threads:
            self._queue.put(_STOP)


def _succeed(future: asyncio.Future[Any], result: Any) -> None:
    if not future.done():
        future.set_result(result)


def _fail(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)
