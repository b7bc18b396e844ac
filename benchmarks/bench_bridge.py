"""The bridge's cost: a request through the websocket bridge against the same call in-process.

The bridge runs as a subprocess (``python -m fracas.bridge``, port 0, a scratch
journal with the default ``--journal-sync full``), so client and server do not
share a GIL; the client is a plain ``websockets`` sync client over loopback.

- **latency**: one typical attack (scenario 1) per request, round trip, p50/p99,
  against ``fracas.resolve(request).to_dict()`` in this process; also the p50 with
  ``--journal-sync normal``, to show what the per-roll fsync costs;
- **bulk**: one 10^6-attack bulk request (10^7 too in a full run), send to reply,
  against ``fracas.resolve_bulk`` in-process, in interleaved rounds; the overhead
  ratio (bridge time ÷ in-process time, median of same-round pairs) is the figure
  the project answers to (issue 5: under 2×);
- **batch**: a JSON-RPC batch of single attacks against the same resolves in a loop;
- **contention**: the GM's single-attack round trip p50/p99 alone, then while a
  second client (another process) keeps the bridge busy with 10^6-attack bulk
  requests (10^5 on the pure-Python backend), side by side in one run; once as
  served by default (bulk on all CPUs but one) and once with bulk on every CPU.
  The other measurements run the bridge with ``--bulk-threads`` = every CPU, as
  in-process bulk calls do, so their ratios compare like with like.

Every request has a fresh id, so the journal never answers in the engine's place.
The issue-40 targets, side by side in the same run (:func:`targets`):

- **server CPU per small request**: the bridge process's CPU time (``/proc``) over a run of
  typical ``attack.resolve`` requests from one client, per request, against the in-process
  ``resolve`` + ``to_dict()`` + JSON (target ≤ 10×);
- **throughput**: small requests answered per second by 8 clients together against one
  client alone (target ≥ 1.5×);
- **probes**: a GM (its own process) sends one small attack every 100 ms while another
  client does something hostile (fills the attack budget with 10^8-attack bulks from two
  connections, asks for a huge ``encounter.show`` 8 at a time, sends 1 MB messages of
  ``{}``, asks for long ``attack.odds``, sends batches of 1,000 attacks, floods pings
  without reading); per probe its p50/p99 and how many of its requests were refused
  (target p99 ≤ 250 ms and none refused).

The issue-43 targets, side by side in the same run (:func:`forecast`), through a bridge
served as ``fracas serve`` serves by default (one forecast worker process on 2 CPUs):

- a ``fight.forecast`` of 10,000 fights of a 4-vs-12 skirmish (the Enchanted Realms
  example's party against 11 skeletons and their captain) against in-process
  ``fracas.simulate`` of the same fights (same scenario, runs and seed), in interleaved
  rounds, each forecast a new id (played, never answered from the journal); the ratio of
  same-round pairs, median (target ≤ 1.5×); the first forecast, which starts the bridge's
  worker process, is timed apart;
- each shipped example scenario's forecast of 1,000 fights (the default runs) through the
  bridge, median and slowest of the rounds (target under a second on two cores).

``fracas bench --bridge`` calls :func:`run` and prints :func:`format`.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import orjson

import fracas
from fracas.benchmarks.harness import latencies
from fracas.benchmarks.report import rate, ratio
from fracas.benchmarks.scenarios import TYPICAL

_TOKEN = "bench-bridge-token-not-secret-0123"
_ids = itertools.count()
#: The process id of each bridge subprocess, by URL (for its CPU time and memory).
_PIDS: dict[str, int] = {}


@contextlib.contextmanager
def _bridge(journal: str, *options: str) -> Iterator[str]:
    """A bridge subprocess; yields its URL."""
    command = [sys.executable, "-m", "fracas.bridge", "--port", "0", "--journal", journal,
               "--token", _TOKEN, "--allow-no-origin", "--log-level", "warning",
               "--max-message-bytes", str(64 << 20), *options]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = [process.stdout.readline() for _ in range(4)]  # type: ignore[union-attr]
        if not banner[1].strip().startswith("url:"):
            raise RuntimeError(f"the bridge did not start: {process.stderr.read()}")  # type: ignore[union-attr]
        url = banner[1].split("url:", 1)[1].strip()
        _PIDS[url] = process.pid
        yield url
    finally:
        process.terminate()
        process.communicate(timeout=60)


class _Client:
    """A synchronous JSON-RPC client on one websocket."""

    def __init__(self, websocket: Any) -> None:
        self.websocket = websocket

    def send(self, message: Any) -> Any:
        self.websocket.send(orjson.dumps(message).decode())
        return orjson.loads(self.websocket.recv())

    def call(self, method: str, params: Any) -> Any:
        reply = self.send({"jsonrpc": "2.0", "id": f"bench-{os.getpid()}-{next(_ids)}", "method": method,
                           "params": params})
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']['message']}")
        return reply["result"]


@contextlib.contextmanager
def _connected(url: str) -> Iterator[_Client]:
    """An authenticated client of the bridge at ``url``."""
    from websockets.sync.client import connect

    with connect(url, max_size=None, compression=None) as websocket:
        client = _Client(websocket)
        client.call("auth", {"token": _TOKEN})
        yield client


def _percentiles(seconds: list[float]) -> tuple[float, float]:
    ordered = sorted(seconds)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1e6, p99 * 1e6


def _latency(client: _Client, calls: int) -> dict[str, float]:
    request = TYPICAL.single_request()
    for _ in range(min(calls, 50)):  # warm both sides up
        client.call("attack.resolve", request)
        fracas.resolve(request).to_dict()
    bridge_p50, bridge_p99 = _percentiles(latencies(lambda: client.call("attack.resolve", request), calls))
    local_p50, local_p99 = _percentiles(latencies(lambda: fracas.resolve(request).to_dict(), calls))
    return {"requests": calls, "bridge_p50_us": bridge_p50, "bridge_p99_us": bridge_p99,
            "in_process_p50_us": local_p50, "in_process_p99_us": local_p99,
            "round_trip_vs_in_process": bridge_p50 / local_p50}


def _paired(bridge_call, local_call, rounds: int) -> dict[str, float]:
    """Interleaved rounds (alternating who goes first); medians and the paired ratio."""
    bridge_s, local_s = [], []
    for r in range(rounds):
        pair = [(bridge_s, bridge_call), (local_s, local_call)]
        for samples, call in pair if r % 2 == 0 else reversed(pair):
            start = time.perf_counter()
            call()
            samples.append(time.perf_counter() - start)
    return {"rounds": rounds, "bridge_s": statistics.median(bridge_s),
            "in_process_s": statistics.median(local_s),
            "overhead_ratio": statistics.median(b / l for b, l in zip(bridge_s, local_s))}


def _bulk(client: _Client, attacks: int, rounds: int) -> dict[str, float]:
    request = TYPICAL.bulk_request(attacks)
    client.call("attack.bulk", request)  # warm-up
    timing = _paired(lambda: client.call("attack.bulk", request),
                     lambda: fracas.resolve_bulk(request).to_dict(), rounds)
    return {"attacks": attacks, **timing,
            "bridge_attacks_per_s": attacks / timing["bridge_s"],
            "in_process_attacks_per_s": attacks / timing["in_process_s"]}


def _batch(client: _Client, size: int, rounds: int) -> dict[str, float]:
    request = TYPICAL.single_request()

    def through_bridge() -> None:
        replies = client.send([{"jsonrpc": "2.0", "id": f"bench-{os.getpid()}-{next(_ids)}", "method": "attack.resolve",
                                "params": request} for _ in range(size)])
        assert all("result" in reply for reply in replies)

    def in_process() -> None:
        for _ in range(size):
            fracas.resolve(request).to_dict()

    timing = _paired(through_bridge, in_process, rounds)
    return {"requests": size, **timing,
            "bridge_attacks_per_s": size / timing["bridge_s"],
            "in_process_attacks_per_s": size / timing["in_process_s"]}


def flood(url: str, attacks: int) -> None:
    """Another client, in its own process: bulk requests back to back until stdin closes;
    prints how many it sent. (``_contention`` runs it, so the GM's client shares no GIL with it.)"""
    import threading

    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    request = TYPICAL.bulk_request(attacks)
    sent = 0
    with _connected(url) as other:
        print("ready", flush=True)
        while not stop.is_set():
            other.call("attack.bulk", request)
            sent += 1
    print(sent, flush=True)


def _contention(url: str, calls: int, flood_attacks: int) -> dict[str, Any]:
    """The GM's latency alone, then while another client (another process) floods bulk work."""
    request = TYPICAL.single_request()
    with _connected(url) as gm:
        for _ in range(min(calls, 50)):
            gm.call("attack.resolve", request)
        alone = _percentiles(latencies(lambda: gm.call("attack.resolve", request), calls))
        flooder = subprocess.Popen(
            [sys.executable, "-c", "import sys; from fracas.benchmarks.bench_bridge import flood;"
             " flood(sys.argv[1], int(sys.argv[2]))", url, str(flood_attacks)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            if flooder.stdout.readline().strip() != "ready":  # type: ignore[union-attr]
                raise RuntimeError("the flooding client did not start")
            time.sleep(0.2)  # the flood is under way
            busy = _percentiles(latencies(lambda: gm.call("attack.resolve", request), calls))
        finally:
            out, _ = flooder.communicate(input="", timeout=300)
    return {"requests": calls, "flood_attacks": flood_attacks, "flood_requests": int(out.split()[-1]),
            "alone_p50_us": alone[0], "alone_p99_us": alone[1],
            "flooded_p50_us": busy[0], "flooded_p99_us": busy[1]}


# ── the issue-40 targets ───────────────────────────────────────────────────────


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux /proc), or None where there is none."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _server_cpu(url: str, calls: int) -> dict[str, Any]:
    """The bridge's CPU time per small attack.resolve, against the same work in-process."""
    request = TYPICAL.single_request()
    with _connected(url) as client:
        for _ in range(min(calls, 50)):
            client.call("attack.resolve", request)
        before = _cpu_seconds(_PIDS[url])
        for _ in range(calls):
            client.call("attack.resolve", request)
        after = _cpu_seconds(_PIDS[url])
    for _ in range(min(calls, 50)):
        orjson.dumps(fracas.resolve(request).to_dict())
    start = time.process_time()
    for _ in range(calls):
        orjson.dumps(fracas.resolve(request).to_dict())
    local = (time.process_time() - start) / calls
    server = None if before is None or after is None else (after - before) / calls
    return {"requests": calls, "server_cpu_us": None if server is None else server * 1e6,
            "in_process_cpu_us": local * 1e6, "ratio": None if server is None else server / local}


_ECHO_SERVER = """
import asyncio, sys
from websockets.asyncio.server import serve

async def echo(websocket):
    async for message in websocket:
        await websocket.send(message)

async def main():
    async with serve(echo, "127.0.0.1", 0, compression=None) as server:
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.Future()

asyncio.run(main())
"""


def _floors(calls: int) -> dict[str, Any]:
    """What a small journaled request cannot cost less than, measured beside it: the CPU a bare
    ``websockets`` echo server (another process, the same client and message size) spends per
    message, and the CPU of one durable journal commit (one entry, ``--journal-sync full``)."""
    from websockets.sync.client import connect

    from fracas.bridge.journal import Entry, Journal, digest

    request = TYPICAL.single_request()
    message = orjson.dumps({"jsonrpc": "2.0", "id": "echo-0", "method": "attack.resolve",
                            "params": request}).decode()
    process = subprocess.Popen([sys.executable, "-c", _ECHO_SERVER], stdout=subprocess.PIPE, text=True)
    try:
        port = process.stdout.readline().strip()  # type: ignore[union-attr]
        with connect(f"ws://127.0.0.1:{port}", compression=None, max_size=None) as websocket:
            for _ in range(min(calls, 50)):
                websocket.send(message)
                websocket.recv()
            before = _cpu_seconds(process.pid)
            for _ in range(calls):
                websocket.send(message)
                websocket.recv()
            after = _cpu_seconds(process.pid)
    finally:
        process.kill()
        process.wait()
    echo = None if before is None or after is None else (after - before) / calls
    result = orjson.dumps(fracas.resolve(request).to_dict())
    with tempfile.TemporaryDirectory() as scratch:
        journal = Journal(os.path.join(scratch, "floor.sqlite3"), sync="full")
        try:
            entries = [Entry(f'"floor-{i}"', "attack.resolve", digest("attack.resolve", b"{}"), b"{}", result,
                             "compiled", fracas.__version__, "2026-01-01T00:00:00.000+00:00")
                       for i in range(calls)]
            walls = []
            start = time.process_time()
            for entry in entries:
                began = time.perf_counter()
                journal.record([entry])
                walls.append(time.perf_counter() - began)
            commit = (time.process_time() - start) / calls
        finally:
            journal.close()
    return {"echo_cpu_us": None if echo is None else echo * 1e6, "commit_cpu_us": commit * 1e6,
            "commit_wall_p50_us": statistics.median(walls) * 1e6}


async def _async_rate(url: str, clients: int, seconds: float) -> float:
    """Small requests answered per second by ``clients`` connections, each one at a time."""
    import asyncio

    from websockets.asyncio.client import connect

    request = TYPICAL.single_request()
    sockets = [await connect(url, max_size=None, compression=None) for _ in range(clients)]
    try:
        for websocket in sockets:
            await websocket.send(orjson.dumps({"jsonrpc": "2.0", "id": "auth", "method": "auth",
                                               "params": {"token": _TOKEN}}).decode())
            await websocket.recv()
        answered = 0
        end = time.perf_counter() + seconds

        async def one(websocket: Any) -> None:
            nonlocal answered
            while time.perf_counter() < end:
                await websocket.send(orjson.dumps({"jsonrpc": "2.0", "id": f"rate-{os.getpid()}-{next(_ids)}",
                                                   "method": "attack.resolve", "params": request}).decode())
                reply = orjson.loads(await websocket.recv())
                if "result" in reply:
                    answered += 1

        start = time.perf_counter()
        await asyncio.gather(*(one(websocket) for websocket in sockets))
        return answered / (time.perf_counter() - start)
    finally:
        for websocket in sockets:
            await websocket.close()


def _throughput(url: str, seconds: float) -> dict[str, Any]:
    import asyncio

    one = asyncio.run(_async_rate(url, 1, seconds))
    eight = asyncio.run(_async_rate(url, 8, seconds))
    return {"seconds": seconds, "one_client_per_s": one, "eight_clients_per_s": eight, "ratio": eight / one}


def gm(url: str, seconds: float) -> None:
    """The GM, in its own process: one small attack every 100 ms for ``seconds``; prints
    its latencies (µs) and the error codes it got, as JSON."""
    request = TYPICAL.single_request()
    latencies_us: list[float] = []
    refused: list[int] = []
    with _connected(url) as client:
        print("ready", flush=True)
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            start = time.perf_counter()
            reply = client.send({"jsonrpc": "2.0", "id": f"gm-{os.getpid()}-{next(_ids)}",
                                 "method": "attack.resolve", "params": request})
            latencies_us.append((time.perf_counter() - start) * 1e6)
            if "error" in reply:
                refused.append(reply["error"]["code"])
            time.sleep(max(0.0, 0.1 - (time.perf_counter() - start)))
    print(orjson.dumps({"latencies_us": latencies_us, "refused": refused}).decode(), flush=True)


def _huge_scenario(groups: int) -> dict[str, Any]:
    """An old-school encounter of ``groups`` groups a side (one member each)."""
    def side(name: str) -> list[dict[str, Any]]:
        return [{"name": f"{name} {i}", "hp": 8, "attacker": {"attack_bonus": 1, "str_mod": 1},
                 "target": {"ac": 14}, "attacks": [{"method": "melee", "damage": "1d6"}]} for i in range(groups)]

    return {"ruleset": "old-school", "name": "huge", "sides": {"left": side("l"), "right": side("r")}}


async def _probe(url: str, kind: str, seconds: float, quick: bool) -> dict[str, Any]:
    """Run one hostile client (``kind``) while the GM's process sends its small attacks."""
    import asyncio
    import socket

    from websockets.asyncio.client import connect

    async def authed() -> Any:
        websocket = await connect(url, max_size=None, compression=None, ping_interval=None)
        await websocket.send(orjson.dumps({"jsonrpc": "2.0", "id": "auth", "method": "auth",
                                           "params": {"token": _TOKEN}}).decode())
        await websocket.recv()
        return websocket

    def message(method: str, params: Any) -> str:
        return orjson.dumps({"jsonrpc": "2.0", "id": f"probe-{os.getpid()}-{next(_ids)}", "method": method,
                             "params": params}).decode()

    stop = asyncio.Event()
    opened: list[Any] = []

    async def keep_sending(websocket: Any, make: Any, in_flight: int) -> None:
        """``in_flight`` messages outstanding at once until told to stop."""
        async def reader() -> None:
            try:
                async for _ in websocket:
                    if not stop.is_set():
                        await websocket.send(make())
            except Exception:  # noqa: BLE001 - the probe only loads the bridge
                pass

        for _ in range(in_flight):
            await websocket.send(make())
        task = asyncio.create_task(reader())
        await stop.wait()
        task.cancel()

    jobs: list[Any] = []
    if kind == "budget":  # two connections, two 10^8-attack bulks each: the server-wide attack budget full
        big = TYPICAL.bulk_request(10**8 if fracas.backend == "compiled" else 10**6)
        for _ in range(2):
            websocket = await authed()
            opened.append(websocket)
            jobs.append(keep_sending(websocket, lambda: message("attack.bulk", big), 2))
    elif kind == "show":
        websocket = await authed()
        opened.append(websocket)
        await websocket.send(message("encounter.new", {"name": "huge", "replace": True,
                                                       "scenario": _huge_scenario(100 if quick else 940)}))
        await websocket.recv()
        jobs.append(keep_sending(websocket, lambda: message("encounter.show", {"name": "huge"}), 8))
    elif kind == "deep":
        websocket = await authed()
        opened.append(websocket)
        text = "[" + ",".join(["{}"] * ((1 << 20) // 3 - 1)) + "]"
        jobs.append(keep_sending(websocket, lambda: text, 8))
    elif kind == "odds":
        websocket = await authed()
        opened.append(websocket)
        odds = {**TYPICAL.single_request(), "count": largest_mob(TYPICAL.single_request())}
        odds.pop("seed", None)
        jobs.append(keep_sending(websocket, lambda: message("attack.odds", odds), 2))
    elif kind == "batch":
        websocket = await authed()
        opened.append(websocket)
        single = TYPICAL.single_request()
        jobs.append(keep_sending(websocket, lambda: orjson.dumps([
            {"jsonrpc": "2.0", "id": f"probe-{os.getpid()}-{next(_ids)}", "method": "attack.resolve",
             "params": single} for _ in range(1000)]).decode(), 2))
    elif kind == "ping":  # a raw socket that sends pings and never reads
        import base64
        import struct

        host, port = url.rsplit("/", 1)[-1].rsplit(":", 1)
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect((host.strip("[]"), int(port)))
        sock.sendall((f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n"
                      "Sec-WebSocket-Version: 13\r\n\r\n").encode())

        def frame(opcode: int, payload: bytes) -> bytes:
            mask = os.urandom(4)
            body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            length = len(payload)
            head = struct.pack("!BB", 0x80 | opcode, 0x80 | length) if length < 126 else \
                struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
            return head + mask + body

        sock.sendall(frame(1, orjson.dumps({"jsonrpc": "2.0", "id": "auth", "method": "auth",
                                             "params": {"token": _TOKEN}})))
        ping = frame(9, b"p" * 125) * 64
        sock.setblocking(False)

        async def flood() -> None:
            loop = asyncio.get_running_loop()
            while not stop.is_set():
                try:
                    await asyncio.wait_for(loop.sock_sendall(sock, ping), 0.5)
                except (OSError, asyncio.TimeoutError):
                    await asyncio.sleep(0.05)  # the window is full or the bridge closed it

        jobs.append(flood())
        opened.append(sock)
    rss_before = _rss_mb(_PIDS[url])
    gm_process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from fracas.benchmarks.bench_bridge import gm;"
         " gm(sys.argv[1], float(sys.argv[2]))", url, str(seconds)], stdout=subprocess.PIPE, text=True)
    running = [asyncio.create_task(job) for job in jobs]
    try:
        await asyncio.to_thread(gm_process.stdout.readline)  # type: ignore[union-attr]
        out = await asyncio.to_thread(gm_process.stdout.read)  # type: ignore[union-attr]
        gm_process.wait()
    finally:
        rss_after = _rss_mb(_PIDS[url])
        stop.set()
        await asyncio.gather(*running, return_exceptions=True)
        for thing in opened:
            try:
                if isinstance(thing, socket.socket):
                    thing.close()
                else:
                    await asyncio.wait_for(thing.close(), 5)
            except Exception:  # noqa: BLE001
                pass
    lines = out.strip().splitlines()
    if not lines:  # the GM could not connect or failed: say so rather than stop the bench
        return {"probe": kind, "gm_requests": 0, "gm_p50_us": 0.0, "gm_p99_us": 0.0, "gm_max_us": 0.0,
                "gm_refused": 0, "gm_failed": True, "server_rss_mb_before": rss_before,
                "server_rss_mb_after": rss_after}
    seen = orjson.loads(lines[-1])
    p50, p99 = _percentiles([us / 1e6 for us in seen["latencies_us"]]) if seen["latencies_us"] else (0.0, 0.0)
    return {"probe": kind, "gm_requests": len(seen["latencies_us"]), "gm_p50_us": p50, "gm_p99_us": p99,
            "gm_max_us": max(seen["latencies_us"], default=0.0), "gm_refused": len(seen["refused"]),
            "server_rss_mb_before": rss_before, "server_rss_mb_after": rss_after}


PROBES = ("budget", "show", "deep", "odds", "batch", "ping")


def largest_mob(request: dict[str, Any]) -> int:
    """The largest count of ``request``'s attack whose exact odds the engine accepts (its
    max_mob_cost): the heaviest odds a client can ask for."""
    try:
        fracas.odds({**request, "count": 1000})
    except fracas.LimitError as refused:
        found = re.search(r"at most (\d+) here", str(refused))
        if found:
            return int(found.group(1))
    return 1000


def targets(scratch: str, quick: bool) -> dict[str, Any]:
    """The issue-40 targets: server CPU per small request, 8 clients against 1, the GM under probes."""
    import asyncio

    result: dict[str, Any] = {}
    with _bridge(os.path.join(scratch, "targets.sqlite3")) as url:
        result["server_cpu"] = _server_cpu(url, 500 if quick else 3000)
        result["throughput"] = _throughput(url, 3.0 if quick else 8.0)
    result["floors"] = _floors(500 if quick else 3000)
    probes = []
    for kind in PROBES:
        # A bridge of its own for each probe, so one probe's leftovers do not weigh on the next.
        with _bridge(os.path.join(scratch, f"probe-{kind}.sqlite3")) as url:
            probes.append(asyncio.run(_probe(url, kind, 4.0 if quick else 10.0, quick)))
    result["probes"] = probes
    return result


# ── the issue-43 targets: fight.forecast ─────────────────────────────────────────

#: Fights of the skirmish forecast (the target's 10,000), and of each example's (the default runs).
FORECAST_FIGHTS = 10_000
EXAMPLE_FIGHTS = 1_000


def skirmish() -> dict[str, Any]:
    """A 4-vs-12 skirmish: the Enchanted Realms example's party of 4 against 11 skeletons and
    their captain."""
    from fracas.drive.scenario import example

    scenario = orjson.loads(example("er-skeleton-horde"))
    scenario["sides"]["skeletons"][0]["count"] = 11
    scenario["name"] = "4-vs-12 skirmish (er-skeleton-horde, 11 skeletons and their captain)"
    sides = list(scenario["sides"].values())
    assert [sum(group.get("count", 1) for group in side) for side in sides] == [4, 12]
    return scenario


def forecast(quick: bool, fights: int = FORECAST_FIGHTS, example_fights: int = EXAMPLE_FIGHTS) -> dict[str, Any]:
    """The issue-43 targets: a forecast through ``fracas serve`` against in-process
    ``fracas.simulate``, and each shipped example's forecast time (see the module)."""
    from fracas.drive.scenario import example, examples

    rounds = 3 if quick else 9
    if fracas.backend != "compiled":
        fights, example_fights = max(1, fights // 100), max(1, example_fights // 100)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    scenario = skirmish()
    params = {"scenario": scenario, "runs": fights, "seed": 43}
    with tempfile.TemporaryDirectory(prefix="fracas-bench-forecast-") as scratch, \
            _bridge(os.path.join(scratch, "forecast.sqlite3")) as url, _connected(url) as client:
        started = time.perf_counter()
        first = client.call("fight.forecast", params)  # the bridge's worker process starts here
        cold = time.perf_counter() - started
        local = fracas.simulate(scenario, runs=fights, seed=43).to_dict()
        local.pop("timing")
        if first != local:
            raise RuntimeError("the forecast and fracas.simulate of the same fights differ")
        timing = _paired(lambda: client.call("fight.forecast", params),
                         lambda: fracas.simulate(scenario, runs=fights, seed=43).to_dict(), rounds)
        shipped = {}
        for name in examples():
            source = orjson.loads(example(name))
            request = {"scenario": source, "runs": example_fights, "seed": 7}
            seconds = []
            for _ in range(rounds):
                start = time.perf_counter()
                client.call("fight.forecast", request)
                seconds.append(time.perf_counter() - start)
            members = sum(group.get("count", 1) for side in source["sides"].values() for group in side)
            shipped[name] = {"title": source.get("name", name), "combatants": members,
                             "median_s": statistics.median(seconds), "max_s": max(seconds)}
    return {"backend": fracas.backend, "cpus": cpus, "fights": fights, "combatants": 16,
            "first_forecast_s": cold, "rounds": rounds, "bridge_s": timing["bridge_s"],
            "in_process_s": timing["in_process_s"], "ratio": timing["overhead_ratio"],
            "example_fights": example_fights, "examples": shipped}


def format_forecast(found: dict[str, Any]) -> list[str]:
    """The issue-43 targets, each figure beside its target."""
    slowest = max((row["max_s"] for row in found["examples"].values()), default=0.0)
    lines = [f"targets (issue 43), side by side in this run ({found['cpus']} CPUs, backend {found['backend']}):",
             f"  fight.forecast of {found['fights']:,} fights of a 4-vs-12 skirmish through fracas serve"
             f" {found['bridge_s'] * 1e3:,.0f} ms, in-process fracas.simulate of the same fights"
             f" {found['in_process_s'] * 1e3:,.0f} ms: {found['ratio']:.2f}× (target ≤ 1.5×; median of"
             f" {found['rounds']} interleaved rounds)",
             f"    the first forecast, the bridge's worker process starting: {found['first_forecast_s'] * 1e3:,.0f} ms",
             f"  each shipped example's forecast of {found['example_fights']:,} fights through the bridge:"
             f" slowest {slowest * 1e3:,.0f} ms (target under a second on two cores)"]
    for name, row in found["examples"].items():
        lines.append(f"    {name:<20} {row['combatants']:>3} combatants  median {row['median_s'] * 1e3:7,.1f} ms,"
                     f" slowest {row['max_s'] * 1e3:7,.1f} ms")
    return lines


def run(quick: bool) -> dict[str, Any]:
    """Measure the bridge against in-process calls; a JSON-ready dict.

    ``overhead_ratio`` (top level) is the 10^6-attack bulk request's bridge time
    ÷ in-process time (10^5 attacks on the pure-Python backend; ``overhead_attacks``
    says which).
    """
    sizes = [10**6] if quick else [10**6, 10**7]
    if fracas.backend != "compiled":
        sizes = [size // 10 for size in sizes]
    result = measure(calls=300 if quick else 3000, bulk_sizes=sizes, rounds=5 if quick else 9,
                     batch=200 if quick else 1000, flood_attacks=sizes[0], with_targets=True, quick=quick)
    result["forecast"] = forecast(quick)
    return result


def measure(*, calls: int, bulk_sizes: list[int], rounds: int, batch: int,
            flood_attacks: int = 10**5, with_targets: bool = False, quick: bool = True) -> dict[str, Any]:
    """The measurements of :func:`run`, at the sizes given."""
    result: dict[str, Any] = {"backend": fracas.backend, "journal_sync": "full", "transport": "loopback"}
    with tempfile.TemporaryDirectory(prefix="fracas-bench-bridge-") as scratch:
        with _bridge(os.path.join(scratch, "normal.sqlite3"), "--journal-sync", "normal") as url, \
                _connected(url) as client:
            normal = _latency(client, max(1, calls // 3))
        # Like for like: the bridge's bulk requests on as many threads as in-process ones.
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        with _bridge(os.path.join(scratch, "full.sqlite3"), "--bulk-threads", str(cpus)) as url, \
                _connected(url) as client:
            result["latency"] = _latency(client, calls)
            result["latency"]["bridge_p50_us_sync_normal"] = normal["bridge_p50_us"]
            result["latency"]["requests_sync_normal"] = normal["requests"]
            result["bulk"] = [_bulk(client, size, rounds) for size in bulk_sizes]
            result["batch"] = _batch(client, batch, rounds)
        # As served by default (bulk on all CPUs but one), then on every CPU.
        with _bridge(os.path.join(scratch, "flood.sqlite3")) as url:
            result["contention"] = _contention(url, calls, flood_attacks)
        with _bridge(os.path.join(scratch, "flood-all.sqlite3"), "--bulk-threads", str(cpus)) as url:
            result["contention_all_cpus"] = _contention(url, calls, flood_attacks)
        result["cpus"] = cpus
        if with_targets:
            result["targets"] = targets(scratch, quick)
    if with_targets and result["targets"]["floors"].get("commit_wall_p50_us") is not None:
        # A bulk's reply waits for its durable commit, which starts once its result exists:
        # the ratio cannot be less than (in-process + one commit's wall time) / in-process.
        in_process = result["bulk"][0]["in_process_s"]
        result["targets"]["bulk_floor_ratio"] = (
            in_process + result["targets"]["floors"]["commit_wall_p50_us"] / 1e6) / in_process
    result["overhead_ratio"] = result["bulk"][0]["overhead_ratio"]
    result["overhead_attacks"] = result["bulk"][0]["attacks"]
    return result


def format(result: dict[str, Any]) -> str:
    """The result of :func:`run` as a readable table."""
    latency = result["latency"]
    rows = [
        ["typical attack, round trip p50", f"{latency['bridge_p50_us']:,.0f} µs",
         f"{latency['in_process_p50_us']:,.1f} µs", ratio(latency["round_trip_vs_in_process"])],
        ["typical attack, round trip p99", f"{latency['bridge_p99_us']:,.0f} µs",
         f"{latency['in_process_p99_us']:,.1f} µs",
         ratio(latency["bridge_p99_us"] / latency["in_process_p99_us"])],
    ]
    for bulk in result["bulk"]:
        rows.append([f"bulk request, {bulk['attacks']:,} attacks",
                     f"{rate(bulk['bridge_attacks_per_s'])}/s ({bulk['bridge_s'] * 1e3:,.1f} ms)",
                     f"{rate(bulk['in_process_attacks_per_s'])}/s ({bulk['in_process_s'] * 1e3:,.1f} ms)",
                     ratio(bulk["overhead_ratio"])])
    batch = result["batch"]
    rows.append([f"batch of {batch['requests']:,} single attacks",
                 f"{rate(batch['bridge_attacks_per_s'])}/s", f"{rate(batch['in_process_attacks_per_s'])}/s",
                 ratio(batch["overhead_ratio"])])
    header = ["", "through the bridge", "in-process", "bridge ÷ in-process"]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [f"backend {result['backend']}, {result['transport']}, journal sync {result['journal_sync']}"
             f" (every roll committed before its reply); times are medians of"
             f" {result['bulk'][0]['rounds']} interleaved rounds"]
    for row in [header, *rows]:
        lines.append("  ".join(cell.ljust(width) if i == 0 else cell.rjust(width)
                               for i, (cell, width) in enumerate(zip(row, widths))).rstrip())
    for key, how in (("contention", f"bulk on all CPUs but one (the default; {result['cpus']} CPUs)"),
                     ("contention_all_cpus", "bulk on every CPU (--bulk-threads)")):
        busy = result[key]
        lines.append(f"GM's typical attack while another client floods {busy['flood_attacks']:,}-attack bulk"
                     f" requests, {how}: p50 {busy['alone_p50_us']:,.0f} µs alone,"
                     f" {busy['flooded_p50_us']:,.0f} µs flooded; p99 {busy['alone_p99_us']:,.0f} µs alone,"
                     f" {busy['flooded_p99_us']:,.0f} µs flooded ({busy['flood_requests']:,} bulk requests"
                     f" answered meanwhile)")
    lines.append(f"round trip p50 with --journal-sync normal (no fsync per roll):"
                 f" {latency['bridge_p50_us_sync_normal']:,.0f} µs over {latency['requests_sync_normal']:,} requests")
    if "targets" in result:
        lines.extend(format_targets(result["targets"], result["overhead_ratio"]))
    if result.get("forecast"):
        lines.extend(format_forecast(result["forecast"]))
    return "\n".join(lines)


def format_targets(found: dict[str, Any], bulk_ratio: float) -> list[str]:
    """The issue-40 targets, each figure beside its target."""
    cpu, rate_ = found["server_cpu"], found["throughput"]
    lines = ["targets (issue 40), side by side in this run:"]
    if cpu["ratio"] is not None:
        lines.append(f"  server CPU per small attack.resolve: {cpu['server_cpu_us']:,.0f} µs against"
                     f" {cpu['in_process_cpu_us']:,.1f} µs in-process (resolve + to_dict + JSON):"
                     f" {cpu['ratio']:.1f}× (target ≤ 10×)")
        floors = found.get("floors")
        if floors and floors.get("echo_cpu_us") is not None:
            floor = floors["echo_cpu_us"] + floors["commit_cpu_us"]
            lines.append(f"    its floor, measured beside it: a bare websockets echo server {floors['echo_cpu_us']:,.0f} µs"
                         f" per message + one durable journal commit {floors['commit_cpu_us']:,.0f} µs ="
                         f" {floor:,.0f} µs, {floor / cpu['in_process_cpu_us']:.1f}× in-process; the bridge is"
                         f" {cpu['server_cpu_us'] / floor:.1f}× its floor")
    lines.append(f"  small requests answered per second: {rate_['one_client_per_s']:,.0f} by 1 client,"
                 f" {rate_['eight_clients_per_s']:,.0f} by 8: {rate_['ratio']:.2f}× (target ≥ 1.5×)")
    lines.append(f"  10^6-attack bulk through the bridge ÷ in-process: {bulk_ratio:.2f}× (target ≤ 1.2×)")
    if found.get("bulk_floor_ratio") is not None:
        lines.append(f"    its floor, measured beside it: the in-process time + one durable journal commit"
                     f" ({found['floors']['commit_wall_p50_us'] / 1e3:,.2f} ms wall, p50) ="
                     f" {found['bulk_floor_ratio']:.2f}× in-process")
    lines.append("  GM (one small attack every 100 ms, its own process) during each probe"
                 " (target p99 ≤ 250 ms, none refused):")
    for probe in found["probes"]:
        memory = ""
        if probe["server_rss_mb_before"] is not None and probe["server_rss_mb_after"] is not None:
            memory = f"; bridge RSS {probe['server_rss_mb_before']:,.0f} → {probe['server_rss_mb_after']:,.0f} MB"
        if probe.get("gm_failed"):
            lines.append(f"    {_PROBE_WORDS[probe['probe']]}: the GM could not connect or failed{memory}")
            continue
        lines.append(f"    {_PROBE_WORDS[probe['probe']]}: p50 {probe['gm_p50_us'] / 1e3:,.1f} ms,"
                     f" p99 {probe['gm_p99_us'] / 1e3:,.1f} ms, max {probe['gm_max_us'] / 1e3:,.1f} ms,"
                     f" {probe['gm_refused']} of {probe['gm_requests']} refused{memory}")
    return lines


_PROBE_WORDS = {
    "budget": "two connections fill the attack budget (10^8-attack bulks, 2 each)",
    "show": "a huge encounter.show, 8 in flight",
    "deep": "1 MB messages of {} (the depth check), 8 in flight",
    "odds": "attack.odds of the largest mob max_mob_cost accepts (the typical strike), 2 in flight",
    "batch": "batches of 1,000 attacks, 2 in flight",
    "ping": "a ping flood from a client that never reads",
}
