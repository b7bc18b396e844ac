"""`fracas simulate` and `fracas sweep` pick one process when the work is small: starting
worker processes costs more than such a run takes (measured: benchmarks/README.md). The rule
is checked by the counts it picks for given sizes, never by timing."""

import json

import pytest

from fracas.cli import fights as fights_cli
from fracas.drive import fastfight
from fracas.drive.scenario import compile_scenario
from fracas.drive.simulate import PROCESS_WORK, PYTHON_LOOP_COST, default_workers, fight_cost, read_scenario

from .helpers import run

HORDE = "@er-skeleton-horde"


def _horde():
    return compile_scenario(read_scenario(HORDE))


def test_a_fight_costs_its_combatants_more_on_the_python_loop():
    sc = _horde()
    members = len(sc.member_ids)
    assert fight_cost(sc, "python") == members * PYTHON_LOOP_COST
    # the fight loop covers it: compiled, or with the pure-Python kernels run as Python (Python's speed)
    assert isinstance(fastfight.plan_for(sc), fastfight.FastPlan)
    assert fight_cost(sc, "auto") == (members if fastfight.compiled() else members * PYTHON_LOOP_COST)


@pytest.mark.parametrize("fights, cost, cores, workers", [
    (1_000, 12, 2, 1),                               # the 1,000-fight run: one process
    (16 * 1_000, 12, 8, 1),                          # a 16-point sweep of 1,000 fights
    (PROCESS_WORK // 12 - 1, 12, 2, 1),              # just under the line
    (PROCESS_WORK // 12 + 1, 12, 2, 2),              # just over: one per core
    (1_000_000, 12, 4, 4),
    (1_000, 12 * PYTHON_LOOP_COST, 2, 2),            # the same fights on the Python loop pay for processes
    (100, 12 * PYTHON_LOOP_COST, 2, 1),
    (10_000_000, 12, 1, 1),                          # one core: one process
])
def test_the_process_count_for_a_size(fights, cost, cores, workers):
    assert default_workers(fights, cost, cores) == workers


@pytest.fixture
def four_cores(monkeypatch):
    monkeypatch.setattr(fights_cli, "_cores", lambda: 4)


def test_a_small_simulation_plays_in_one_process(four_cores):
    # The 1,000-fight run on the compiled loop; on the pure-Python kernels the same
    # fights are dearer (PYTHON_LOOP_COST), so the run is cut to stay as small.
    runs = min(1_000, PROCESS_WORK // (2 * fight_cost(_horde(), "auto")))
    out = run(["simulate", HORDE, "--runs", str(runs), "--seed", "3", "--json", "-"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["timing"]["workers"] == 1


def test_a_small_sweep_plays_in_one_process(four_cores):
    out = run(["sweep", HORDE, "--vary", "$.sides.skeletons[0].count=4..10:2", "--runs", "200", "--seed", "3",
               "--json", "-"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["timing"]["workers"] == 1


def test_a_large_run_on_the_python_loop_takes_every_core(monkeypatch, four_cores):
    chosen = {}

    def simulate(scenario, **kwargs):
        chosen.update(kwargs)
        raise SystemExit(0)  # the count is what this test is about: play nothing

    monkeypatch.setattr("fracas.drive.simulate.simulate", simulate)
    run(["simulate", HORDE, "--runs", "5000", "--loop", "python", "--seed", "1"])
    assert chosen["workers"] == 4


def test_a_wrong_vary_is_still_named_before_anything_runs():
    out = run(["sweep", HORDE, "--vary", "$.sides.skeletons[0].count=4..", "--runs", "5"])
    assert out.exit_code == 2 and "--vary" in out.output, out.output


def test_the_help_says_the_rule():
    text = " ".join(run(["simulate", "--help"]).output.split())
    assert f"under {PROCESS_WORK:,}" in text and f"under {PROCESS_WORK // PYTHON_LOOP_COST:,} when" in text
    assert "The result is the same for any count" in text
    sweep_help = " ".join(run(["sweep", "--help"]).output.split())
    assert f"under {PROCESS_WORK:,}" in sweep_help
