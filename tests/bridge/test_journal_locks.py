"""Another process holding the journal's write lock stalls only what needs the journal, with a
clear error after a bounded wait (issue 40, item 7: server.info took 19 s)."""

from __future__ import annotations

import asyncio

import orjson

from .helpers import ATTACK, ask, client, request, run, serving
from .test_journal_exactly_once import hold_write_lock


def test_server_info_answers_promptly_while_another_process_holds_the_write_lock(tmp_path):
    async def main():
        async with serving(tmp_path) as bridge:
            holder = hold_write_lock(tmp_path / "journal.sqlite3", 60)
            try:
                async with client(bridge.url) as roller, client(bridge.url) as gm:
                    for i in range(8):  # rolls that need the journal: they wait for it
                        await roller.send(orjson.dumps(request(f"r{i}", "attack.resolve", ATTACK)).decode())
                    await asyncio.sleep(0.3)
                    info = await ask(gm, request("info", "server.info"))
                    # Answered while the other process still holds the lock (an order, not a time).
                    assert holder.poll() is None, "server.info waited for another process's journal lock"
                    replies = [orjson.loads(await roller.recv()) for _ in range(8)]
                    # The rolls gave up after the bounded wait, while the lock was still held.
                    assert holder.poll() is None, "the rolls waited until the other process let go"
            finally:
                holder.kill()
                await asyncio.to_thread(holder.wait)
            assert "result" in info
            for reply in replies:
                error = reply["error"]
                assert error["code"] == -32603, reply
                assert "another process holds its write lock" in error["message"], reply
                assert "nothing was applied" in error["message"], reply

    run(main())
