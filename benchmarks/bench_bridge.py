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
``fracas bench --bridge`` calls :func:`run` and prints :func:`format`.
"""

from __future__ import annotations

import contextlib
import itertools
import os
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
        yield banner[1].split("url:", 1)[1].strip()
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


def run(quick: bool) -> dict[str, Any]:
    """Measure the bridge against in-process calls; a JSON-ready dict.

    ``overhead_ratio`` (top level) is the 10^6-attack bulk request's bridge time
    ÷ in-process time (10^5 attacks on the pure-Python backend; ``overhead_attacks``
    says which).
    """
    sizes = [10**6] if quick else [10**6, 10**7]
    if fracas.backend != "compiled":
        sizes = [size // 10 for size in sizes]
    return measure(calls=300 if quick else 3000, bulk_sizes=sizes, rounds=5 if quick else 9,
                   batch=200 if quick else 1000, flood_attacks=sizes[0])


def measure(*, calls: int, bulk_sizes: list[int], rounds: int, batch: int,
            flood_attacks: int = 10**5) -> dict[str, Any]:
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
    return "\n".join(lines)
