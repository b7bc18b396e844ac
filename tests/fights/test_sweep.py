"""Balance sweeps (`fracas sweep`, `fracas.sweep`): one or two scenario fields varied,
N fights per point, the same table on every executor, errors naming the path, a clean
Ctrl-C that keeps the finished points, and the target's crossing read off by linear
interpolation."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time

import pytest

import fracas
from fracas.drive.scenario import example
from fracas.drive.simulate import simulate
from fracas.drive.sweep import crossings, parse_values, parse_vary, sweep
from fracas.errors import LimitError, RequestError, SchemaError
from fracas.rng import chunk_seed

from . import on_fight_loop, on_python_loop
from tests.cli.helpers import run

COUNT = "$.sides.skeletons[0].count"
AC = "$.sides.party[1].target.ac"


def _without_timing(result):
    return {k: v for k, v in result.to_dict().items() if k != "timing"}


# -- values and paths ---------------------------------------------------------------------

@pytest.mark.parametrize("text, values", [
    ("4..8", (4, 5, 6, 7, 8)),
    ("4..40:12", (4, 16, 28, 40)),
    ("4..41:12", (4, 16, 28, 40)),          # the end is included only when a step reaches it
    ("10..4:-3", (10, 7, 4)),
    ("8..6", (8, 7, 6)),                    # a falling range steps down by default
    ("0.5..1.5:0.25", (0.5, 0.75, 1.0, 1.25, 1.5)),
    ("14,16,18", (14, 16, 18)),
    ("nearest,weakest,random", ("nearest", "weakest", "random")),
    ("1.5,x,true,null", (1.5, "x", True, None)),
    ("7", (7,)),
])
def test_values_are_ranges_or_lists(text, values):
    assert parse_values(text, "$.x") == values


@pytest.mark.parametrize("text, words", [
    ("a..b", "a range is a..b"),
    ("4..8:0", "never reaches"),
    ("4..8:-1", "never reaches"),
    ("1,,2", "an empty value"),
])
def test_bad_values_say_what_is_wrong(text, words):
    with pytest.raises(SchemaError) as caught:
        parse_values(text, COUNT)
    assert caught.value.path == COUNT and words in caught.value.reason


def test_too_many_points_is_a_limit():
    with pytest.raises(LimitError):
        parse_values("1..20000", COUNT)


def test_paths_read_keys_indexes_and_quoted_keys():
    assert parse_vary("$.sides['the party'][0].hp=1,2").steps == ("sides", "the party", 0, "hp")
    assert parse_vary("$.sides['the party'][0].hp=1,2").path == "$.sides['the party'][0].hp"
    assert parse_vary((AC, range(14, 19, 2))).values == (14, 16, 18)
    with pytest.raises(SchemaError, match="starts at the scenario's root"):
        parse_vary("sides.party[0].hp=1,2")
    with pytest.raises(SchemaError, match="cannot read the path"):
        parse_vary("$.sides.party[x].hp=1,2")
    with pytest.raises(SchemaError, match="write PATH=VALUES"):
        parse_vary(COUNT)
    with pytest.raises(SchemaError, match="repeated"):
        parse_vary(f"{COUNT}=4,5,4")


# -- errors name the path, before any fight ------------------------------------------------------

@pytest.mark.parametrize("vary, path, words", [
    ([f"$.sides.skeleton[0].count=4..8"], "$.sides.skeleton[0].count",
     "$.sides.skeleton does not exist in the scenario ($.sides has: party, skeletons)"),
    ([f"$.sides.skeletons[5].count=4..8"], "$.sides.skeletons[5].count", "has 2 entries in the scenario"),
    ([f"$.sides.skeletons[0].count.max=4..8"], "$.sides.skeletons[0].count.max", "is not an object"),
    # The value each point sets is checked as the scenario is: the point and the field are named.
    ([f"{COUNT}=3..0"], f"{COUNT}=0", f"{COUNT}: count 0 is out of range"),
    ([f"{COUNT}=4,5", f"{AC}=14,x"], f"{COUNT}=4, {AC}=x", AC),
    ([f"$.sides.skeletons[0].cuont=4,5"], "$.sides.skeletons[0].cuont=4", "unknown field cuont"),
    ([f"{COUNT}=4", f"{COUNT}=5"], "vary[1]", "varied twice"),
    ([f"{COUNT}=4", f"{AC}=14", "$.max_rounds=3"], "vary", "1 or 2 fields"),
])
def test_errors_name_the_path_and_no_fight_starts(vary, path, words):
    played = []
    with pytest.raises(RequestError) as caught:
        sweep("@er-skeleton-horde", vary, runs=10, seed=1, progress=played.append)
    assert caught.value.path == path and words in caught.value.reason, caught.value
    assert played == []  # the bad point is the last one: still nothing was played


def test_an_absent_field_of_an_existing_object_takes_the_values():
    """The captain has no `count` (1 by default): a sweep may set it."""
    result = sweep("@er-skeleton-horde", ["$.sides.skeletons[1].count=1,2"], runs=4, seed=1)
    assert [p["sides"]["skeletons"]["combatants"] for p in result.points] == [8, 9]


def test_arguments_are_checked():
    for kwargs, path in [({"runs": 0}, "runs"), ({"runs": 5, "target": 1.5}, "target"),
                         ({"runs": 5, "target": 0.5, "side": "nobody"}, "side"), ({"runs": 5, "workers": 0}, "workers")]:
        with pytest.raises(RequestError) as caught:
            sweep("@er-skeleton-horde", [f"{COUNT}=4,5"], seed=1, **kwargs)
        assert caught.value.path == path


# -- results -----------------------------------------------------------------------------

def test_each_point_is_the_simulation_of_its_scenario_from_its_own_seed():
    """Point p is `simulate` of the scenario with the fields set, seed chunk_seed(seed, p)."""
    result = sweep("@er-skeleton-horde", [f"{COUNT}=3,6", f"{AC}=12,20"], runs=40, seed=11)
    assert [p["values"] for p in result.points] == [{COUNT: 3, AC: 12}, {COUNT: 6, AC: 12}, {COUNT: 3, AC: 20},
                                                     {COUNT: 6, AC: 20}]
    for p, point in enumerate(result.points):
        scenario = json.loads(example("er-skeleton-horde"))
        scenario["sides"]["skeletons"][0]["count"] = point["values"][COUNT]
        scenario["sides"]["party"][1]["target"]["ac"] = point["values"][AC]
        alone = simulate(scenario, runs=40, seed=chunk_seed(11, p), batch=7)
        assert point["seed"] == alone.seed and point["completed"] == 40
        assert point["sides"] == alone.sides and point["draws"] == alone.draws
        assert point["rounds"] == {k: alone.rounds[k] for k in ("mean", "median", "min", "max")}


def test_the_table_is_identical_on_one_and_two_processes_and_on_dask():
    pytest.importorskip("dask.distributed")
    vary = [f"{COUNT}=4..8:2"]
    one = sweep("@er-skeleton-horde", vary, runs=90, seed=5, target=0.5, batch=40)
    two = sweep("@er-skeleton-horde", vary, runs=90, seed=5, target=0.5, workers=2)
    on_dask = sweep("@er-skeleton-horde", vary, runs=90, seed=5, target=0.5, workers=2, dask="local", batch=25)
    assert _without_timing(one) == _without_timing(two) == _without_timing(on_dask)
    assert (one.timing["executor"], two.timing["executor"], on_dask.timing["executor"]) == \
        ("in-process", "processes", "dask local")


def test_ctrl_c_keeps_the_finished_points():
    calls = []

    def progress(fights):
        calls.append(fights)
        if len(calls) == 5:  # 2 tasks of 30 per point: points 0 and 1 done, point 2 half done
            raise KeyboardInterrupt

    result = sweep("@er-skeleton-horde", [f"{COUNT}=2..6"], runs=60, seed=3, batch=30, progress=progress)
    assert result.interrupted and result.completed_points == 2
    assert [p["values"][COUNT] for p in result.points] == [2, 3]
    full = sweep("@er-skeleton-horde", [f"{COUNT}=2..3"], runs=60, seed=3)
    assert result.points == full.points  # the finished points are exactly those of a whole sweep


@pytest.mark.skipif(sys.platform != "linux", reason="signals to itself and the process table")
def test_sigint_with_worker_processes_keeps_the_finished_points_and_leaves_no_worker():
    done = []

    def progress(fights):
        done.append(fights)
        if len(done) == 1:  # a point is in (one task per point): the signal a terminal's Ctrl-C sends
            os.kill(os.getpid(), signal.SIGINT)

    result = sweep("@er-skeleton-horde", [f"{COUNT}=2..200:20"], runs=40, seed=3, workers=2, batch=40,
                   progress=progress)
    assert result.interrupted and result.stopped_by == "SIGINT"
    assert 1 <= result.completed_points < 10 and all(p["completed"] == 40 for p in result.points)
    whole = sweep("@er-skeleton-horde", [f"{COUNT}=2..200:20"], runs=40, seed=3, batch=40,
                  progress=lambda _n: None)
    kept = {p["index"] for p in result.points}
    assert result.points == [p for p in whole.points if p["index"] in kept]
    assert multiprocessing.active_children() == []


def test_the_target_crossing_is_interpolated_between_the_points_around_it():
    # Constructed: 0.2 at 4, 0.4 at 6, 0.8 at 8: 0.5 is a quarter of the way from 6 to 8.
    assert crossings([4, 6, 8], [0.2, 0.4, 0.8], 0.5) == [{"at": 6.5, "between": [6, 8]}]
    assert crossings([4, 6, 8], [0.9, 0.6, 0.1], 0.5) == [{"at": 6.4, "between": [6, 8]}]
    assert crossings([4, 6, 8], [0.6, 0.7, 0.9], 0.5) == []                       # never crosses
    assert crossings([4, 6, 8], [0.2, 0.5, 0.8], 0.5) == [{"at": 6, "between": [6, 6]}]  # on a point
    assert crossings([4, 6, 8], [0.2, None, 0.8], 0.5) == [{"at": 6.0, "between": [4, 8]}]  # a missing point
    assert crossings(["a", "b"], [0.2, 0.8], 0.5) == [{"at": None, "between": ["a", "b"]}]
    assert crossings([1, 2, 3, 4], [0.4, 0.6, 0.4, 0.6], 0.5) == [
        {"at": 1.5, "between": [1, 2]}, {"at": 2.5, "between": [2, 3]}, {"at": 3.5, "between": [3, 4]}]


def test_a_sweep_reports_the_crossing_its_own_table_shows():
    result = sweep("@er-skeleton-horde", [f"{COUNT}=4..10:2"], runs=60, seed=2, target=0.5, side="skeletons")
    rates = [p["sides"]["skeletons"]["win_rate"] for p in result.points]
    (row,) = result.target["rows"]
    assert result.target["side"] == "skeletons" and row["at"] == {}
    assert row["crossings"] == crossings([4, 6, 8, 10], rates, 0.5) and len(row["crossings"]) >= 1
    lo, hi = row["crossings"][0]["between"]
    assert lo < row["crossings"][0]["at"] < hi
    never = sweep("@er-skeleton-horde", [f"{COUNT}=1,2"], runs=20, seed=2, target=0.5)
    assert never.target["rows"][0]["crossings"] == []  # four adventurers always beat one or two skeletons


def _breaking_giant() -> dict:
    """The hill giant with Tombril striking with seven weapons; its tactic's `power` is
    swept: never, its weapons never break and the fights play on the compiled loop; hurt,
    they may break (CT-5), more breakable strikes than the compiled loop lays out, so the
    fights play on the Python loop."""
    scenario = json.loads(example("ct-hill-giant"))
    tombril = scenario["sides"]["heroes"][0]
    tombril["attacks"] = [dict(tombril["attacks"][0]) for _ in range(7)]
    tombril["tactic"] = {"power": "never"}
    return scenario


POWER = "$.sides.heroes[0].tactic.power"
GIANT_HP = "$.sides.giant[0].hp"


def test_each_point_reports_how_many_fights_each_loop_played():
    """A point's `fight_loop` is what `simulate` reports for its scenario: a point the
    compiled loop covers plays there, one it does not cover on the Python loop, with why."""
    result = sweep(_breaking_giant(), [f"{POWER}=never,hurt", f"{GIANT_HP}=68,90"], runs=30, seed=3)
    assert [p["values"][POWER] for p in result.points] == ["never", "hurt", "never", "hurt"]
    for p, point in enumerate(result.points):
        scenario = _breaking_giant()
        scenario["sides"]["heroes"][0]["tactic"]["power"] = point["values"][POWER]
        scenario["sides"]["giant"][0]["hp"] = point["values"][GIANT_HP]
        alone = simulate(scenario, runs=30, seed=chunk_seed(3, p))
        assert point["fight_loop"] == alone.fight_loop
        assert point["sides"] == alone.sides
    breaking = [p["fight_loop"] for p in result.points if p["values"][POWER] == "hurt"]
    assert breaking == [on_python_loop(30, "$.sides.heroes[0]: more than 6 strikes that can break (CT-5, CT-6)")] * 2
    plain = [p["fight_loop"] for p in result.points if p["values"][POWER] == "never"]
    # compiled, or with the pure-Python kernels the same loop run as Python
    assert plain == [on_fight_loop(30)] * 2


def test_a_forced_python_loop_plays_the_same_table_and_says_so():
    vary = [f"{COUNT}=4..8:2"]
    auto = sweep("@er-skeleton-horde", vary, runs=40, seed=9, target=0.5)
    python = sweep("@er-skeleton-horde", vary, runs=40, seed=9, target=0.5, loop="python")
    assert [p["fight_loop"] for p in python.points] == [on_python_loop(40, "loop 'python' was asked for")] * 3

    def table(result):
        out = _without_timing(result)
        for point in out["points"]:
            del point["fight_loop"]
        return out

    assert table(auto) == table(python)
    with pytest.raises(SchemaError) as caught:
        sweep("@er-skeleton-horde", vary, runs=4, seed=1, loop="fast")
    assert caught.value.path == "loop"


def test_the_public_api_and_its_typed_result():
    result = fracas.sweep("@ww-duel", [("$.sides.knight[0].hp", [5, 10])], runs=10, seed=1)
    assert isinstance(result, fracas.SweepResult) and result.completed_points == 2 and not result.interrupted
    data = result.to_dict()
    data["points"].clear()
    assert len(result.points) == 2 and result["vary"] == [{"path": "$.sides.knight[0].hp", "values": [5, 10]}]
    assert "SweepResult" in repr(result) and result.target is None


# -- the command line ------------------------------------------------------------------------

def test_cli_prints_the_table_and_the_crossing_and_writes_json(tmp_path):
    out = run(["sweep", "@er-skeleton-horde", "--vary", f"{COUNT}=4..10:2", "--runs", "40", "--seed", "2",
               "--workers", "1", "--target", "0.5", "--json", str(tmp_path / "sweep.json")])
    assert out.exit_code == 0, out.output
    assert "party win % (95 %)" in out.output and "party wins 50 % of fights along " + COUNT in out.output
    written = json.loads((tmp_path / "sweep.json").read_text())
    assert written["completed_points"] == 4 and written["target"]["rows"][0]["crossings"]
    again = run(["sweep", "@er-skeleton-horde", "--vary", f"{COUNT}=4..10:2", "--runs", "40", "--seed", "2",
                 "--workers", "2", "--target", "0.5", "--json", "-"])
    same = json.loads(again.output)
    assert {k: v for k, v in same.items() if k != "timing"} == {k: v for k, v in written.items() if k != "timing"}


def test_cli_shows_the_fights_each_point_played_on_the_python_loop(tmp_path):
    path = tmp_path / "breaking.json"
    path.write_text(json.dumps(_breaking_giant()))
    out = run(["sweep", str(path), "--vary", f"{POWER}=never,hurt", "--runs", "20", "--seed", "4", "--workers", "1",
               "--json", str(tmp_path / "sweep.json")])
    assert out.exit_code == 0, out.output
    head, first, second = out.output.splitlines()[1:4]
    assert head.endswith("python loop") and first.split()[-1] == "0"
    assert second.split()[-1] == "20"
    assert "python loop: " in out.output and "played on the Python round loop: " in out.output
    written = json.loads((tmp_path / "sweep.json").read_text())
    assert written["points"][1]["fight_loop"]["python_fights"] == 20
    forced = run(["sweep", "@ww-duel", "--vary", "$.sides.knight[0].hp=5,10", "--runs", "10", "--seed", "1",
                  "--workers", "1", "--loop", "python", "--json", "-"])
    assert forced.exit_code == 0, forced.output
    assert [p["fight_loop"]["python_why"] for p in json.loads(forced.output)["points"]] == \
        ["loop 'python' was asked for"] * 2
    if fracas.backend == "compiled":  # every fight compiled: no column, no note
        plain = run(["sweep", "@ww-duel", "--vary", "$.sides.knight[0].hp=5,10", "--runs", "10", "--seed", "1",
                     "--workers", "1"])
        assert plain.exit_code == 0 and "python loop" not in plain.output
    bad = run(["sweep", "@ww-duel", "--vary", "$.sides.knight[0].hp=5,10", "--runs", "10", "--loop", "fast"])
    assert bad.exit_code == 2 and "--loop" in bad.output


def test_cli_says_never_crosses():
    out = run(["sweep", "@er-skeleton-horde", "--vary", f"{COUNT}=1,2", "--runs", "10", "--seed", "2",
               "--workers", "1", "--target", "0.5"])
    assert out.exit_code == 0 and "never crosses" in out.output


@pytest.mark.parametrize("args, message", [
    (["--vary", f"{COUNT}=0..3"], f"Error: --vary {COUNT}=0: {COUNT}: count 0 is out of range"),
    (["--vary", "$.sides.skeleton[0].count=4..8"], "Error: --vary $.sides.skeleton[0].count: $.sides.skeleton"
                                                   " does not exist in the scenario"),
    (["--vary", "count=4..8"], "Error: --vary: a path starts at the scenario's root"),
    (["--vary", f"{COUNT}=4", "--target", "0.5", "--side", "nobody"], "Error: --side: the scenario has no side"),
    (["--vary", f"{COUNT}=4", "--vary", f"{AC}=1", "--vary", "$.max_rounds=3"], "1 or 2 fields"),
])
def test_cli_errors_exit_2_naming_the_option_and_path(args, message):
    out = run(["sweep", "@er-skeleton-horde", "--runs", "5", "--workers", "1", *args])
    assert out.exit_code == 2 and message in out.output, out.output


@pytest.mark.parametrize("vary", [[f"{COUNT}=4..8:2"], [f"{COUNT}=4..8:2", f"{AC}=12,20"],
                                  ["$.sides.party[0].tactic.target=nearest,weakest"]])
def test_cli_plots_a_curve_or_a_heatmap(tmp_path, vary):
    pytest.importorskip("matplotlib")
    png = tmp_path / "sweep.png"
    args = [a for v in vary for a in ("--vary", v)]
    out = run(["sweep", "@er-skeleton-horde", *args, "--runs", "20", "--seed", "2", "--workers", "1",
               "--target", "0.5", "--plot", str(png)])
    assert out.exit_code == 0, out.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.skipif(sys.platform != "linux", reason="signals")
def test_cli_sigint_exits_130_with_the_points_finished(tmp_path):
    out = tmp_path / "sweep.json"
    proc = subprocess.Popen([sys.executable, "-m", "fracas", "sweep", "@er-skeleton-horde", "--vary",
                             f"{COUNT}=1..1000:50", "--runs", "100000", "--seed", "1", "--workers", "2", "--json",
                             str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        time.sleep(4)  # a few points may finish (the compiled fight loop is fast: hence many fights a point)
        os.kill(proc.pid, signal.SIGINT)
        code = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    from tests.fights.test_clean_stop import _session_members

    deadline = time.monotonic() + 10  # the kernel reaps the workers and the resource tracker
    while _session_members(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _session_members(proc.pid) == []  # no orphan
    stderr = proc.stderr.read().decode()
    assert code == 130 and "Traceback" not in stderr, stderr
    result = json.loads(out.read_text())
    assert result["interrupted"] and result["stopped_by"] == "SIGINT" and result["completed_points"] < 20
    assert all(p["completed"] == 100000 for p in result["points"])


def test_cli_a_bad_scenario_is_named_as_the_scenario_not_as_vary(tmp_path):
    scenario = json.loads(example("ww-duel"))
    scenario["sides"]["knight"][0]["attacks"] = [{"method": "thrown", "damage": "1d4"}]
    (tmp_path / "bad.json").write_text(json.dumps(scenario))
    out = run(["sweep", str(tmp_path / "bad.json"), "--vary", "$.sides.knight[0].hp=5,10", "--runs", "5"])
    assert out.exit_code == 2 and "Error: $.sides.knight[0].attacks[0].method" in out.output, out.output
