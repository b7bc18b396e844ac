"""The compiled plug-in section of `fracas bench` (issue 45 item 2, benchmarks/plugin_bench.py):
docs/examples/burstpool's kernel beside the row kernel on the same pool. Its figures are
reported, never enforced; what is tested is what it measures and how it says so."""

from __future__ import annotations

import fracas
from fracas.benchmarks import plugin_bench, rulesets_bench


def test_it_times_the_same_pool_the_row_kernel_scenario_rolls():
    """BP-1 against the row kernel's pool scenario: 10 d6, each 5-6 a success, 6s bursting."""
    request = plugin_bench.request(1000)
    assert request["profiles"]["p"]["strikes"] == [{"dice": rulesets_bench.POOL_DICE}]
    assert (rulesets_bench.POOL_FACES, rulesets_bench.POOL_TN) == (6, 5)
    assert request["targets"]["t"] == {"soak": 0} and request["attacks"][0]["count"] == 1000


def test_it_says_why_it_was_not_measured():
    if plugin_bench.NAME in fracas.rulesets():
        assert plugin_bench.missing() is None or "compiled" in plugin_bench.missing()
    else:
        assert "pip install --no-build-isolation docs/examples/burstpool" in plugin_bench.missing()
    lines = plugin_bench.table({"missing": "the example plug-in is not installed"})
    assert lines[1] == "  not measured: the example plug-in is not installed"
    assert plugin_bench.table(None) == []


def test_its_table_shows_each_rate_and_the_share_of_the_row_kernel():
    section = {"attacks_per_s": {"row": 8e6, "plugin": 7.2e6, "twin": 1.2e4},
               "labels": {"row": "row kernel", "plugin": "kernel", "twin": "twin"}, "of_row": 0.9}
    text = "\n".join(plugin_bench.table(section))
    assert "8,000,000 attacks/s" in text and "7,200,000 attacks/s" in text and "12,000 attacks/s" in text
    assert "plug-in ÷ row kernel: 0.90 (target: 0.30 or more)" in text


def test_its_table_shows_the_plug_in_on_the_row_kernel():
    """burstpool's row_pools (fracas_rows.pxd, the row kernel's success-counting row with the
    plug-in's twist) beside the row kernel: its rate and its share."""
    section = {"attacks_per_s": {"row": 8e6, "plugin": 7.2e6, "twin": 1.2e4, "rowapi": 4e6},
               "labels": {"row": "row kernel", "plugin": "kernel", "twin": "twin", "rowapi": "row_pools"},
               "of_row": 0.9, "row_api_of_row": 0.5}
    lines = plugin_bench.table(section)
    assert any(line.startswith("  row_pools") and line.endswith("4,000,000 attacks/s") for line in lines)
    assert lines[-1] == "  plug-in on the row kernel (fracas_rows.pxd) ÷ row kernel: 0.50"
