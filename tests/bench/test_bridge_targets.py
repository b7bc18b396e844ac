"""The bridge benchmark's issue-40 targets keep their documented shape (no timing asserted)."""

from __future__ import annotations

from fracas.benchmarks import bench_bridge


def _probe(kind: str, **changes):
    probe = {"probe": kind, "gm_requests": 40, "gm_p50_us": 12_000.0, "gm_p99_us": 90_000.0,
             "gm_max_us": 95_000.0, "gm_refused": 0, "server_rss_mb_before": 36.0, "server_rss_mb_after": 37.0}
    probe.update(changes)
    return probe


def test_every_target_is_printed_beside_its_figure():
    found = {
        "server_cpu": {"requests": 500, "server_cpu_us": 900.0, "in_process_cpu_us": 30.0, "ratio": 30.0},
        "throughput": {"seconds": 3.0, "one_client_per_s": 400.0, "eight_clients_per_s": 600.0, "ratio": 1.5},
        "probes": [_probe(kind) for kind in bench_bridge.PROBES[:-1]] + [_probe("ping", gm_failed=True)],
    }
    lines = bench_bridge.format_targets(found, 1.4)
    text = "\n".join(lines)
    assert "30.0× (target ≤ 10×)" in text and "1.50× (target ≥ 1.5×)" in text and "1.40× (target ≤ 1.2×)" in text
    for kind in bench_bridge.PROBES[:-1]:
        assert any(line.strip().startswith(bench_bridge._PROBE_WORDS[kind]) and "0 of 40 refused" in line
                   for line in lines), kind
    assert "a ping flood from a client that never reads: the GM could not connect or failed" in text


def test_the_floor_is_printed_beside_the_server_cpu():
    found = {
        "server_cpu": {"requests": 500, "server_cpu_us": 900.0, "in_process_cpu_us": 30.0, "ratio": 30.0},
        "throughput": {"seconds": 3.0, "one_client_per_s": 400.0, "eight_clients_per_s": 600.0, "ratio": 1.5},
        "floors": {"echo_cpu_us": 180.0, "commit_cpu_us": 120.0},
        "probes": [],
    }
    text = "\n".join(bench_bridge.format_targets(found, 1.4))
    assert ("a bare websockets echo server 180 µs per message + one durable journal commit 120 µs = 300 µs,"
            " 10.0× in-process; the bridge is 3.0× its floor") in text


def test_the_floors_are_measured():
    floors = bench_bridge._floors(20)
    assert floors["commit_cpu_us"] > 0
    assert floors["echo_cpu_us"] is None or floors["echo_cpu_us"] >= 0
    assert floors["commit_wall_p50_us"] > 0


def test_the_bulk_floor_is_printed_beside_the_bulk_ratio():
    found = {
        "server_cpu": {"requests": 500, "server_cpu_us": 900.0, "in_process_cpu_us": 30.0, "ratio": 30.0},
        "throughput": {"seconds": 3.0, "one_client_per_s": 400.0, "eight_clients_per_s": 600.0, "ratio": 1.5},
        "floors": {"echo_cpu_us": 180.0, "commit_cpu_us": 120.0, "commit_wall_p50_us": 2500.0},
        "bulk_floor_ratio": 1.5,
        "probes": [],
    }
    text = "\n".join(bench_bridge.format_targets(found, 1.6))
    assert "1.60× (target ≤ 1.2×)" in text
    assert "the in-process time + one durable journal commit (2.50 ms wall, p50) = 1.50× in-process" in text
