"""The sweep section of `fracas bench`: a 20-point sweep timed one process, every local
core and Dask, the same table each way; its target is read only from a full-size run."""

from fracas.benchmarks import sweep_bench
from fracas.benchmarks.suite import evaluate_targets
from tests.bench.test_targets import document


def test_the_sweep_section_times_three_ways_and_finds_the_same_table():
    section = sweep_bench.run(10, 2)
    assert section["points"] == 20 and section["runs_per_point"] == 10 and section["fights"] == 200
    assert section["identical"] is True
    # the bandit rout's flee attacks (ER-20) and strays (ER-17) play on the compiled loop
    assert section["scenario"] == "er-bandit-rout" and section["compiled_fights"] == section["fights"]
    ways = ["one_process", "local_cores"] + (["dask"] if section["dask_workers"] else [])
    assert all(section["seconds"][w] > 0 and section["fights_per_s"][w] > 0 for w in ways)
    text = "\n".join(sweep_bench.table(section))
    assert "Sweep · 20 points × 10 fights of er-bandit-rout" in text and "same table each way: yes" in text
    assert "200 of 200 fights on the compiled loop" in text and "bandits" in text


def _sweep_target(sweep):
    return {t["key"]: t for t in evaluate_targets(document(sweep=sweep))}["sweep_cores_s"]


def test_the_sweep_target_needs_10000_fights_per_point_and_is_at_most_10_s():
    quick = {"runs_per_point": 40, "seconds": {"local_cores": 1.0}}
    assert _sweep_target(quick)["measured"] is None and _sweep_target(quick)["met"] is None
    assert _sweep_target(None)["met"] is None
    fast = {"runs_per_point": 10_000, "seconds": {"local_cores": 8.5}}
    slow = {"runs_per_point": 10_000, "seconds": {"local_cores": 95.0}}
    assert _sweep_target(fast)["met"] is True and _sweep_target(slow)["met"] is False
    assert _sweep_target(slow)["at_most"] is True and _sweep_target(slow)["unit"] == "s"
