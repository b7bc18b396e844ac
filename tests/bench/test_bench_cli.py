"""`fracas bench`: the documented shape of its JSON, its tables, plot and bridge wiring.

The real `fracas bench --quick` runs in CI after the tests; here `--scale` shrinks
every size and sample time so the whole suite runs in a few seconds. Nothing here
asserts a speed: only that every figure is there and is a positive number.
"""

import json
import sys
import types

import pytest
from click.testing import CliRunner

from fracas import _kernels
from fracas.cli import main

pytestmark = pytest.mark.skipif(_kernels.compiled is None, reason="fracas bench needs the compiled core")

SMALL = ["--scale", "0.002", "--rounds", "1", "--no-progress"]


def positive(value):
    return isinstance(value, (int, float)) and value > 0


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    json_path, png_path = out / "bench.json", out / "scaling.png"
    result = CliRunner().invoke(main, ["bench", "--quick", *SMALL, "--json", str(json_path),
                                       "--plot", str(png_path)])
    assert result.exit_code == 0, result.output
    return result, json.loads(json_path.read_text()), png_path


def test_json_has_the_documented_shape(quick_run):
    _, doc, _ = quick_run
    # issue 3: {"scenarios": {"typical": {"attacks_per_s": {...}}, "heavy", "multi", "bulk"},
    #           "generator": {...}, "api": {"single_resolve_us": ...}}
    assert set(doc["scenarios"]) == {"typical", "heavy", "multi", "bulk", "cartyrion", "worldwalker", "pool"}
    typical = doc["scenarios"]["typical"]["attacks_per_s"]
    for key in ("compiled", "kernel", "python", "randint", "numpy", "numpy_simple", "numpy_table"):
        assert positive(typical[key]), key
    d20_installed = "d20" in doc["scenarios"]["typical"]["labels"]
    assert positive(typical["d20"]) if d20_installed else typical["d20"] is None
    for name in ("heavy", "multi", "bulk"):
        rates = doc["scenarios"][name]["attacks_per_s"]
        assert {"compiled", "python", "randint", "numpy", "d20"} <= set(rates)
        assert positive(rates["compiled"])
    for name in ("heavy", "multi"):
        assert positive(doc["scenarios"][name]["attacks_per_s"]["python"])
    assert positive(doc["generator"]["words_per_s"])
    assert positive(doc["generator"]["attacks_per_s_limit"])
    assert positive(doc["api"]["single_resolve_us"])
    assert positive(doc["api"]["single_resolve_first_us"])
    assert positive(doc["api"]["single_plain_python_us"]) and positive(doc["api"]["resolve_vs_plain"])
    groups = doc["bulk"]["groups"]
    assert [g["groups"] for g in groups] == [10, 100, 1600]
    assert all(positive(g["resolve_us_per_attack"]) and positive(g["to_dict_us_per_group"]) for g in groups)
    ratios = doc["scenarios"]["typical"]["ratios"]
    for key in ("compiled_vs_randint", "compiled_vs_numpy", "compiled_vs_python", "compiled_vs_generator"):
        assert positive(ratios[key]), key
    # Exact odds: fracas cold and warm, icepool (when installed) with the same fractions, Monte Carlo.
    odds = doc["odds"]
    assert positive(odds["seconds"]["fracas_cold"]) and positive(odds["seconds"]["fracas_warm"])
    assert odds["icepool_matches"] in (True, None) and odds["monte_carlo_max_gap"] < 0.01
    # The Cartyrion, Worldwalker and d6-pool scenarios: fracas beside a randint loop and NumPy, same rule.
    for name in ("cartyrion", "worldwalker", "pool"):
        sc = doc["scenarios"][name]
        assert all(positive(sc["attacks_per_s"][k]) for k in ("compiled", "python", "randint", "numpy"))
        assert all(positive(sc["ratios"][f"compiled_vs_{k}"]) for k in ("python", "randint", "numpy"))


def test_json_has_the_bulk_scaling_and_memory_figures(quick_run):
    _, doc, _ = quick_run
    bulk = doc["bulk"]
    assert bulk["sizes"] and all(positive(s["attacks_per_s"]["compiled"]) and
                                 positive(s["attacks_per_s"]["compiled_cores"]) and
                                 positive(s["cores_vs_single"]) for s in bulk["sizes"])
    memory = bulk["memory"]
    assert memory["small_attacks"] == 1000 and memory["large_attacks"] > 1000
    assert positive(memory["small_peak_mb"]) and positive(memory["large_peak_mb"])
    assert "10^8 attacks skipped in --quick" in memory["note"]
    batches = [row["batch"] for row in doc["scaling"]]
    assert batches == [10 ** k for k in range(1, len(batches) + 1)] and len(batches) >= 3
    assert all(positive(row["api_attacks_per_s"]) and positive(row["kernel_attacks_per_s"])
               for row in doc["scaling"])
    assert doc["bridge"] is None
    assert doc["quick"] is True and doc["scale"] == 0.002
    assert {"cpu", "cores", "platform", "python"} <= set(doc["machine"])


def test_targets_are_reported_not_enforced(quick_run):
    _, doc, _ = quick_run
    keys = {t["key"] for t in doc["targets"]}
    assert {"vs_randint", "vs_numpy", "vs_numpy_table", "vs_d20", "of_limit", "single_resolve_us", "resolve_vs_plain",
            "bulk_single_thread", "bulk_cores_ratio", "bulk_memory_mb"} <= keys
    for target in doc["targets"]:
        assert target["met"] in (True, False, None)
    # Whole fights: every example scenario one process, local cores and Dask, identical results.
    fights = doc["fights"]
    assert set(fights["scenarios"]) == {"er-skeleton-horde", "er-bandit-rout", "ct-hill-giant", "ww-duel",
                                        "os-goblin-ambush"}
    for row in fights["scenarios"].values():
        assert positive(row["fights_per_s"]["one_process"]) and positive(row["fights_per_s"]["local_cores"])
        assert row["identical"] is True
        if fights["dask_workers"]:
            assert positive(row["fights_per_s"]["dask"]) and positive(row["dask_vs_local"])
    assert fights["er_big"] is None  # the 10,000-fight run belongs to the full benchmark
    # Start-up (issue 44 item 5): fresh processes, `import fracas` beside `import json, msgspec`.
    startup = doc["startup"]
    assert all(positive(startup["ms"][key]) for key in ("python", "json_msgspec", "import_fracas", "help"))
    assert positive(startup["import_vs_json_msgspec"]) and startup["help_command"].endswith("--help")
    by = {t["key"]: t for t in doc["targets"]}
    assert by["import_vs_json_msgspec"]["measured"] == startup["import_vs_json_msgspec"]
    assert by["help_ms"]["measured"] == startup["ms"]["help"]
    # A 20-point sweep, three ways, the same table each way; its 10 s target needs 10,000 fights a point.
    sweep = doc["sweep"]
    assert sweep["points"] == 20 and sweep["identical"] is True and positive(sweep["seconds"]["local_cores"])
    assert {t["key"]: t for t in doc["targets"]}["sweep_cores_s"]["measured"] is None
    memory = next(t for t in doc["targets"] if t["key"] == "bulk_memory_mb")
    assert memory["met"] is None        # 10^8 is not measured in a quick run


def test_tables_show_the_groups_row_and_the_first_call(quick_run):
    text = quick_run[0].output
    assert "Bulk over many groups" in text and "per attack" in text
    assert "the first call of a request shape" in text


def test_tables_print_attacks_per_second_and_ratios(quick_run):
    result, _, _ = quick_run
    out = result.stdout
    for heading in ("Scenario 1 · typical strike", "Scenario 2 · heavy strike", "Scenario 3 · multi-strike",
                    "Scenario 4 · bulk", "Scenario 5 · Cartyrion", "Scenario 6 · Worldwalker", "Exact odds", "Fights ·",
                    "Single fracas.resolve", "Start-up · a fresh process each", "Scaling", "Targets"):
        assert heading in out
    assert "attacks/s" in out and "API ÷ this" in out and "×" in out
    for label in ("random.randint loop", "NumPy batch (tuned)", "NumPy batch (first version)",
                  "fracas pure Python", "xoshiro128** alone"):
        assert label in out


def test_plot_is_a_png(quick_run):
    _, _, png = quick_run
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def bridged_compared_run(quick_run, tmp_path_factory):
    """A second run, with `--bridge` (its benchmark faked: a real bridge is timed in CI's
    bench) and `--compare` against the first run's JSON: one run for both checks."""
    import fracas.benchmarks as package

    _, earlier, _ = quick_run
    out = tmp_path_factory.mktemp("bench2")
    before, path = out / "before.json", out / "b.json"
    before.write_text(json.dumps(earlier))
    fake = types.ModuleType("fracas.benchmarks.bench_bridge")
    calls = []

    def run(quick):
        calls.append(quick)
        return {"round_trip_us": {"p50": 210.0, "p99": 900.0}, "overhead_ratio": 1.4}

    fake.run = run
    fake.format = lambda result: f"round trip p50 {result['round_trip_us']['p50']} µs"
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, "fracas.benchmarks.bench_bridge", fake)
        patch.setattr(package, "bench_bridge", fake, raising=False)
        result = CliRunner().invoke(main, ["bench", "--quick", "--bridge", *SMALL, "--json", str(path),
                                           "--compare", str(before)])
    assert result.exit_code == 0, result.output
    return result, json.loads(path.read_text()), calls, before, earlier


def test_bridge_results_are_wired_into_the_output(bridged_compared_run):
    result, doc, calls, _, _ = bridged_compared_run
    assert calls == [True]
    assert doc["bridge"] == {"round_trip_us": {"p50": 210.0, "p99": 900.0}, "overhead_ratio": 1.4}
    assert "round trip p50 210.0 µs" in result.stdout
    overhead = next(t for t in doc["targets"] if t["key"] == "bridge_overhead")
    assert overhead["measured"] == 1.4 and overhead["met"] is False  # 1.4 > 1.2: at most


def test_bridge_missing_is_a_usage_error(monkeypatch):
    import fracas.benchmarks as package

    monkeypatch.setitem(sys.modules, "fracas.benchmarks.bench_bridge", None)
    monkeypatch.delattr(package, "bench_bridge", raising=False)
    result = CliRunner().invoke(main, ["bench", "--bridge", *SMALL])
    assert result.exit_code == 2
    assert "--bridge: the bridge benchmark is not available" in result.output


@pytest.mark.parametrize("args, message", [
    (["--rounds", "0"], "Invalid value for '--rounds'"),
    (["--scale", "0"], "Invalid value for '--scale'"),
    (["--threads", "0"], "Invalid value for '--threads'"),
])
def test_bad_options_exit_2(args, message):
    result = CliRunner().invoke(main, ["bench", *args])
    assert result.exit_code == 2
    assert message in result.output


def test_compare_shows_each_target_against_an_earlier_run(bridged_compared_run):
    result, _, _, path, earlier = bridged_compared_run
    text = result.output.split("Compared with ", 1)[1]
    assert text.startswith(str(path))
    for target in earlier["targets"]:
        assert target["what"] in text
    assert "now ÷ before" in text and ("better" in text or "worse" in text or "same" in text)


def test_compare_refuses_what_is_not_a_bench_output(tmp_path):
    path = tmp_path / "other.json"
    path.write_text('{"ruleset": "x"}')
    result = CliRunner().invoke(main, ["bench", "--quick", *SMALL, "--compare", str(path)])
    assert result.exit_code == 2 and "is not the --json output of fracas bench" in result.output


def test_the_fight_loop_section_puts_both_loops_beside_the_bulk_api(quick_run):
    # Issue 34: fights/s and attacks/s inside fights on the compiled loop and the Python loop,
    # and the bulk API's attacks/s for the same strikes, in one run; targets reported, not enforced.
    result, doc, _ = quick_run
    text = result.output
    section = doc["fight_loop"]
    # er-bandit-rout: attacks inside fights beside the bulk API with ER-20 flee attacks and ER-17 strays on
    assert set(section["scenarios"]) == {"er-skeleton-horde", "er-bandit-rout", "ct-hill-giant", "ww-duel",
                                         "os-goblin-ambush", "er-horde-300", "er-horde-300-long"}
    compiled_core = _kernels.name() == "compiled"
    for name, row in section["scenarios"].items():
        assert positive(row["fights_per_s"]["python"]) and positive(row["attacks_per_fight"])
        assert positive(row["attacks_per_s"]["bulk"]) and positive(row["share_of_bulk"])
        if compiled_core:  # every example, old-school included, plays on the compiled loop
            assert row["compiled"] is True
            assert row["python_why"] is None and positive(row["fights_per_s"]["compiled"])
        else:  # on the pure-Python kernels every fight plays on the Python loop, and the row says why
            assert row["compiled"] is False and row["python_why"] and row["fights_per_s"]["compiled"] is None
    targets = {t["key"]: t for t in doc["targets"]}
    if compiled_core:
        assert positive(targets["er_fights_per_s"]["measured"]) and positive(targets["fight_attacks_share"]["measured"])
        assert targets["er_fights_per_s"]["met"] in (True, False)
    else:  # the compiled loop's targets are not measured on the Python loop
        assert targets["er_fights_per_s"]["measured"] is None
    assert "Fight loop · one process" in text and "er-horde-300" in text


def test_the_fight_loop_section_times_each_tactic_among_30_and_2000_creatures(quick_run):
    # Issue 41 item 4: per-attack time at 30 and 2,000 creatures for every tactic on the
    # compiled loop, without and with ER-20 flee attacks (`+flee`), their ratio against 1.5x,
    # and a 2,000-creature compile against 0.1 s
    result, doc, _ = quick_run
    big = doc["fight_loop"]["tactics"]
    targets = {t["key"]: t for t in doc["targets"]}
    if _kernels.name() != "compiled":
        assert big is None and targets["tactic_flat"]["measured"] is None
        return
    tactics = {"nearest", "weakest", "random", "focus"}
    assert set(big["rows"]) == tactics | {f"{t}+flee" for t in tactics} and big["sizes"] == [30, 2000]
    for row in big["rows"].values():
        assert positive(row["us_per_attack"]["30"]) and positive(row["us_per_attack"]["2000"])
        assert positive(row["ratio"])
    for row in big["python"].values():  # the Python round loop beside it, no target
        assert positive(row["30"]) and positive(row["2000"]) and positive(row["ratio"])
    assert targets["tactic_flat"]["measured"] == big["worst_ratio"] == max(r["ratio"] for r in big["rows"].values())
    assert targets["compile_2000_s"]["measured"] == big["compile"]["seconds"] > 0
    assert targets["tactic_flat"]["met"] in (True, False) and targets["compile_2000_s"]["met"] in (True, False)
    assert "Targets among 2,000 creatures" in result.output and "compiling a 2,000-creature scenario" in result.output


def test_the_startup_section_runs_alone(capsys):
    # `python -m fracas.benchmarks.startup_bench`: the section `fracas bench` runs, alone (issue 44 item 5).
    from fracas.benchmarks import startup_bench

    assert startup_bench.main(["--rounds", "1", "--json"]) == 0
    section = json.loads(capsys.readouterr().out)
    assert section["rounds"] == 1 and set(section["ms"]) == {"python", "json_msgspec", "import_fracas", "help"}
    assert all(positive(value) for value in section["ms"].values()) and positive(section["import_vs_json_msgspec"])
    assert startup_bench.main(["--rounds", "1"]) == 0
    assert capsys.readouterr().out.startswith("Start-up · a fresh process each, median of 1 interleaved rounds")
    for rounds in ("0", "1001"):  # refused before a process starts, naming the option
        with pytest.raises(SystemExit) as exit_:
            startup_bench.main(["--rounds", rounds])
        assert exit_.value.code == 2 and "--rounds" in capsys.readouterr().err
