"""The bridge benchmark runs end to end and keeps its documented shape (no timing asserted)."""

from __future__ import annotations

import orjson

from fracas.benchmarks import bench_bridge


def test_measure_and_format():
    result = bench_bridge.measure(calls=20, bulk_sizes=[2000, 4000], rounds=2, batch=5)
    assert orjson.loads(orjson.dumps(result)) == result  # JSON-ready
    assert set(result) == {"backend", "journal_sync", "transport", "latency", "bulk", "batch",
                           "overhead_ratio", "overhead_attacks", "contention",
                           "contention_all_cpus", "cpus"}
    assert result["latency"]["requests"] == 20 and result["latency"]["requests_sync_normal"] == 6
    assert [bulk["attacks"] for bulk in result["bulk"]] == [2000, 4000]
    assert result["overhead_ratio"] == result["bulk"][0]["overhead_ratio"] > 0
    assert result["overhead_attacks"] == 2000
    assert result["batch"]["requests"] == 5 and result["batch"]["rounds"] == 2
    text = bench_bridge.format(result)
    assert "bulk request, 2,000 attacks" in text and "bulk request, 4,000 attacks" in text
    busy = result["contention"]
    assert busy["requests"] == 20 and busy["flood_attacks"] == 10**5 and busy["flood_requests"] >= 1
    assert busy["flooded_p99_us"] >= busy["flooded_p50_us"] > 0 and busy["alone_p99_us"] >= busy["alone_p50_us"] > 0
    assert "while another client floods 100,000-attack bulk requests, bulk on all CPUs but one" in text
    assert "bulk on every CPU (--bulk-threads)" in text
    assert result["contention_all_cpus"]["flood_requests"] >= 1
    assert "typical attack, round trip p50" in text and "batch of 5 single attacks" in text
