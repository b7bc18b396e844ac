"""A large request never starves pings or other clients: asserted by order, not time."""

from __future__ import annotations

import asyncio

import orjson

from .helpers import ATTACK, big_bulk_count, bulk, client, heavy_attack, request, run, serving
from .test_server import GatedEngine


async def answered_in_order(busy, big_message, other, small_message):
    """Send the big message, then the small one; return who was answered when."""
    order = []

    async def big():
        await busy.send(orjson.dumps(big_message).decode())
        reply = orjson.loads(await busy.recv())
        order.append("big")
        return reply

    big_task = asyncio.create_task(big())
    # The pong proves the server has read the big message (frames arrive in order).
    await asyncio.sleep(0)
    await (await busy.ping())
    await other.send(orjson.dumps(small_message).decode())
    small = orjson.loads(await other.recv())
    order.append("small")
    await (await other.ping())
    order.append("pong")
    return order, await big_task, small


def test_a_huge_bulk_request_does_not_starve_another_client(tmp_path):
    count = big_bulk_count()

    async def scenario():
        async with serving(tmp_path) as bridge:
            async with client(bridge.url) as busy, client(bridge.url) as other:
                order, big, small = await answered_in_order(
                    busy, request("mob", "attack.bulk", bulk(count)),
                    other, request("one", "attack.resolve", ATTACK))
        assert order == ["small", "pong", "big"]
        assert big["result"]["attacks_total"] == count
        assert small["result"]["total_damage"] >= 0

    run(scenario())


def test_a_long_batch_does_not_starve_another_client(tmp_path):
    # 900 answers of 32 strikes each stay under max_reply_bytes (16 MiB) for the message.
    batch = [request(f"b{i}", "attack.resolve", heavy_attack(32)) for i in range(900)]

    async def scenario():
        async with serving(tmp_path, limits={"max_message_bytes": 8 << 20}) as bridge:
            async with client(bridge.url, max_size=None) as busy, client(bridge.url) as other:
                order, big, small = await answered_in_order(
                    busy, batch, other, request("one", "attack.resolve", ATTACK))
        assert order == ["small", "pong", "big"]
        assert [reply["id"] for reply in big] == [f"b{i}" for i in range(900)]
        assert all("result" in reply for reply in big), next(r for r in big if "result" not in r)

    run(scenario())


def test_while_the_engine_is_stuck_everything_else_is_answered(tmp_path):
    """Deterministic: the bulk request waits at a gate until the others are answered."""
    engine = GatedEngine()

    async def scenario():
        async with serving(tmp_path, engine=engine) as bridge:
            async with client(bridge.url) as busy, client(bridge.url) as other:
                await busy.send(orjson.dumps(request("mob", "attack.bulk", bulk(1000))).decode())
                await asyncio.to_thread(engine.entered.wait)
                # The same connection keeps answering too (up to max_in_flight at once).
                await busy.send(orjson.dumps(request("info", "server.info")).decode())
                assert orjson.loads(await busy.recv())["id"] == "info"
                await (await busy.ping())
                for i in range(20):
                    await other.send(orjson.dumps(request(i, "attack.resolve", ATTACK)).decode())
                    assert "result" in orjson.loads(await other.recv())
                engine.release.set()
                assert orjson.loads(await busy.recv())["id"] == "mob"

    run(scenario())
