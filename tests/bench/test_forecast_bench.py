"""The bridge benchmark's issue-43 section (fight.forecast) runs and prints its targets beside
its figures (no timing asserted)."""

from __future__ import annotations

from fracas.benchmarks import bench_bridge
from fracas.benchmarks.suite import evaluate_targets

from .test_targets import document


def test_the_skirmish_is_four_against_twelve():
    sides = list(bench_bridge.skirmish()["sides"].values())
    assert [sum(group.get("count", 1) for group in side) for side in sides] == [4, 12]


def test_the_forecast_section_runs_through_a_real_bridge_and_prints_its_targets():
    found = bench_bridge.forecast(quick=True, fights=400, example_fights=40)
    assert found["rounds"] == 3 and found["bridge_s"] > 0 and found["in_process_s"] > 0
    assert set(found["examples"]) >= {"er-skeleton-horde", "os-goblin-ambush", "ct-hill-giant", "ww-duel"}
    text = "\n".join(bench_bridge.format_forecast(found))
    assert f"{found['ratio']:.2f}× (target ≤ 1.5×" in text
    assert "(target under a second on two cores)" in text
    for name in found["examples"]:
        assert f"    {name} " in text


def test_the_targets_are_read_from_a_full_size_compiled_run_only():
    row = {"title": "x", "combatants": 2, "median_s": 0.02, "max_s": 0.03}
    full = {"backend": "compiled", "cpus": 2, "fights": 10_000, "combatants": 16, "first_forecast_s": 0.9,
            "rounds": 9, "bridge_s": 0.13, "in_process_s": 0.1, "ratio": 1.3, "example_fights": 1_000,
            "examples": {"ww-duel": row, "er-skeleton-horde": {**row, "max_s": 1.2}}}

    def targets(forecast):
        found = {t["key"]: t for t in evaluate_targets(document(bridge={"overhead_ratio": 1.1,
                                                                        "forecast": forecast}))}
        return found["forecast_overhead"], found["forecast_examples_s"]

    overhead, examples = targets(full)
    assert overhead["measured"] == 1.3 and overhead["met"] is True
    assert examples["measured"] == 1.2 and examples["met"] is False  # the slowest example, over a second
    for smaller in ({**full, "fights": 400}, {**full, "backend": "python"}):
        assert targets(smaller)[0]["measured"] is None
    assert targets({**full, "example_fights": 40})[1]["measured"] is None
    text = "\n".join(bench_bridge.format_forecast(full))
    assert "through fracas serve 130 ms, in-process fracas.simulate of the same fights 100 ms: 1.30× (target ≤ 1.5×" \
        in text
    assert "slowest 1,200 ms (target under a second on two cores)" in text
