"""The single-request lane (bridge/lane.py): results and errors reach the awaiting task, a
call whose task was cancelled while it waited is not run, and a closed lane refuses work."""

from __future__ import annotations

import asyncio
import threading

import pytest

from fracas.bridge.lane import Lane


def test_results_errors_and_the_thread_they_ran_on():
    async def scenario():
        lane = Lane(asyncio.get_running_loop(), 2, "test-lane")
        try:
            assert await lane.submit(lambda: 6 * 7) == 42
            name = await lane.submit(lambda: threading.current_thread().name)
            assert name.startswith("test-lane_") and name != threading.current_thread().name
            with pytest.raises(ZeroDivisionError):
                await lane.submit(lambda: 1 // 0)
        finally:
            lane.close()

    asyncio.run(scenario())


def test_a_call_cancelled_while_it_waits_is_not_run():
    ran: list[str] = []

    async def scenario():
        lane = Lane(asyncio.get_running_loop(), 1, "test-lane")
        gate = threading.Event()
        try:
            blocker = lane.submit(gate.wait)  # the lane's one thread is busy until the gate opens
            waiting = asyncio.ensure_future(lane.submit(lambda: ran.append("late")))
            await asyncio.sleep(0)
            waiting.cancel()
            gate.set()
            assert await blocker is True
            assert await lane.submit(lambda: "after") == "after"  # the queue moved past it
        finally:
            lane.close()

    asyncio.run(scenario())
    assert ran == []


def test_a_closed_lane_refuses_work():
    async def scenario():
        lane = Lane(asyncio.get_running_loop(), 1, "test-lane")
        lane.close()
        with pytest.raises(RuntimeError, match="closed"):
            lane.submit(lambda: None)

    asyncio.run(scenario())
