"""Fights of many creatures read well, and the Python API of simulations is as good as the CLI.

Issue 28: a 300-creature simulation report printed 300 lines and an encounter's
`order:` line ran to 3,000 characters; `fracas.simulate("@NAME")`, a path and a Path
were refused, and the result was a bare dict.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import warnings

import pytest

import fracas
from fracas import _kernels
from fracas.drive.simulate import SimulationResult
from fracas.errors import SchemaError
from fracas.cli.fights import ORDER_SHOWN, ROLL_UP
from tests.cli.helpers import run

ROOT = pathlib.Path(__file__).resolve().parents[2]
HORDE = ROOT / "examples" / "scenarios" / "er-skeleton-horde.json"


@pytest.fixture(autouse=True)
def home(monkeypatch, tmp_path):
    monkeypatch.setenv("FRACAS_HOME", str(tmp_path))
    return tmp_path


@pytest.fixture
def big(tmp_path):
    """The skeleton horde with 295 skeletons: 300 combatants."""
    scenario = json.loads(HORDE.read_text())
    scenario["sides"]["skeletons"][0]["count"] = 295
    path = tmp_path / "big.json"
    path.write_text(json.dumps(scenario))
    return str(path)


def test_a_300_creature_simulation_report_rolls_up_per_group(big):
    out = run(["simulate", big, "--runs", "4", "--seed", "1", "--workers", "1"])
    assert out.exit_code == 0, out.output
    assert "per group of 300 combatants" in out.output
    assert "skeleton x295" in out.output and "skeleton 17 " not in out.output
    assert len(out.output.splitlines()) < 20
    full = json.loads(run(["simulate", big, "--runs", "4", "--seed", "1", "--workers", "1", "--json", "-"]).output)
    assert len(full["combatants"]) == 300  # the JSON keeps every one


def test_a_small_report_lists_each_combatant():
    out = run(["simulate", str(HORDE), "--runs", "4", "--seed", "1", "--workers", "1"])
    assert len(json.loads(HORDE.read_text())["sides"]["party"]) + 8 <= ROLL_UP
    assert "per combatant" in out.output and "skeleton 7 " in out.output


def test_the_order_line_of_a_300_creature_round_is_bounded(big):
    assert run(["encounter", "new", "big", "--scenario", big]).exit_code == 0
    out = run(["encounter", "round", "big", "--seed", "1"])
    order = next(line for line in out.output.splitlines() if line.startswith("  order: "))
    names = order[len("  order: "):].split(" … and ")[0].replace(";", ",").split(", ")
    assert len(names) == ORDER_SHOWN
    assert order.endswith(f"… and {300 - ORDER_SHOWN} more (--json lists them)")
    log = json.loads(run(["encounter", "log", "big", "--json"]).output)
    assert sum(len(slot) for slot in log["order"]) == 300
    assert names == [n for slot in log["order"] for n in slot][:ORDER_SHOWN]


def test_encounter_new_on_a_taken_name_names_replace():
    assert run(["encounter", "new", "crypt", "--scenario", "@ww-duel"]).exit_code == 0
    out = run(["encounter", "new", "crypt", "--scenario", "@ww-duel"])
    assert out.exit_code == 2
    assert "NAME: an encounter named 'crypt' exists already: add --replace to replace it" in out.output
    assert run(["encounter", "new", "crypt", "--scenario", "@ww-duel", "--replace"]).exit_code == 0


# -- the Python API ---------------------------------------------------------------------------

def _same(a, b):
    return {k: v for k, v in a.items() if k != "timing"} == {k: v for k, v in b.items() if k != "timing"}


def test_simulate_takes_a_dict_json_text_a_path_a_pathlib_path_and_an_example_name():
    text = HORDE.read_text()
    by_name = fracas.simulate("@er-skeleton-horde", runs=50, seed=1)
    for scenario in (json.loads(text), text, text.encode(), str(HORDE), HORDE):
        assert _same(fracas.simulate(scenario, runs=50, seed=1), by_name), type(scenario)


def test_simulate_returns_a_typed_result_that_is_also_a_mapping():
    result = fracas.simulate("@ww-duel", runs=40, seed=3)
    assert isinstance(result, SimulationResult)
    data = result.to_dict()
    assert result.completed == data["completed"] == result["completed"] == 40
    assert result.interrupted is False and result.stopped_by is None
    assert result.sides == data["sides"] and result.ruleset == "worldwalker" and result.seed == 3
    assert set(result) == set(data) and len(result) == len(data) and dict(result) == data
    data["sides"].clear()  # to_dict() is a copy
    assert result.sides
    assert json.loads(json.dumps(result.to_dict())) == result.to_dict()
    assert "SimulationResult" in repr(result) and "40/40" in repr(result)


def test_encounter_new_takes_a_scenario_as_simulate_does():
    """`fracas encounter new NAME --scenario @ww-duel` works, and so must the Python API: a
    dict, JSON text or bytes, a path, a `Path` or `@NAME` (issue 28: "a Python API as good
    as the CLI"; `fracas.Encounter.new("x", "@ww-duel")` was "$: invalid JSON")."""
    duel = ROOT / "examples" / "scenarios" / "ww-duel.json"
    text = duel.read_text()
    expected = fracas.Encounter.new("by-name", "@ww-duel").show()
    for n, scenario in enumerate((json.loads(text), text, text.encode(), str(duel), duel)):
        shown = fracas.Encounter.new(f"form {n}", scenario).show()
        assert {**shown, "name": "by-name"} == expected, type(scenario)
    with pytest.raises(SchemaError, match="cannot read the scenario file 'no/such.json'"):
        fracas.Encounter.new("missing", "no/such.json")
    assert [e["name"] for e in fracas.Encounter.list()] == ["by-name"] + [f"form {n}" for n in range(5)]


@pytest.mark.parametrize(("scenario", "message"), [
    ("@nothere", "no example scenario 'nothere'"),
    ("no/such/file.json", "cannot read the scenario file 'no/such/file.json'"),
    (pathlib.Path("no/such/file.json"), "cannot read the scenario file"),
    ("{not json", "invalid JSON"),
])
def test_simulate_says_what_is_wrong_with_a_scenario_argument(scenario, message):
    with pytest.raises(SchemaError, match=message.replace("(", r"\(").replace(".", r"\.")):
        fracas.simulate(scenario, runs=5, seed=1)


NO_GUARD = """
import fracas
fracas.simulate("@ww-duel", runs=400, seed=1, workers=2)
"""


def test_a_script_without_the_main_guard_gets_one_clear_error(tmp_path):
    script = tmp_path / "noguard.py"
    script.write_text(NO_GUARD)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert done.returncode != 0
    assert "fracas.drive.simulate.WorkersFailed" in done.stderr and '`if __name__ == "__main__":`' in done.stderr
    assert "spawn" in done.stderr
    # the workers say it in one line each, not a traceback each
    assert done.stderr.count("Traceback") == 1, done.stderr


def test_the_api_warns_once_when_it_falls_back_to_pure_python(monkeypatch):
    monkeypatch.setattr(_kernels, "compiled", None)  # as when the core was never built
    monkeypatch.setattr(_kernels, "_FORCE_PURE", False)  # and nobody asked for pure Python
    monkeypatch.setattr(fracas, "_WARNED", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fracas.resolve({"attacker": {"strength": 4}, "strikes": [{"target": "g", "method": "melee", "style":
                        "slashing", "dice": 2, "weight": 1, "damage_type": "edged"}], "targets": {"g": {"ac": 14}}},
                       seed=1)
        fracas.simulate("@ww-duel", runs=2, seed=1)
    slow = [w for w in caught if issubclass(w.category, RuntimeWarning) and "compiled core" in str(w.message)]
    assert len(slow) == 1


def test_no_warning_when_pure_python_was_asked_for(tmp_path):
    code = ("import warnings, fracas; warnings.simplefilter('error');"
            " print(fracas.simulate('@ww-duel', runs=2, seed=1).completed)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "FRACAS_PUREPYTHON": "1"})
    assert done.returncode == 0 and done.stdout.strip() == "2", done.stderr


def test_every_public_function_has_a_full_docstring():
    """Google style, as the documentation's API reference renders it; the examples run
    (tests/engine/test_docs.py doctests the package). No pointer at files an installed
    package does not carry."""
    import inspect

    functions = [name for name in fracas.__all__ if inspect.isfunction(getattr(fracas, name, None))]
    assert {"resolve", "resolve_bulk", "roll_initiative", "check_morale", "compete", "impale", "odds",
            "simulate"} <= set(functions)
    for name in functions:
        doc = inspect.getdoc(getattr(fracas, name))
        for section in ("Args:", "Returns:", "Raises:", "Example:", ">>> "):
            assert section in doc, (name, section)
        assert "docs/" not in doc and "see `fracas.drive" not in doc, name
        for parameter in inspect.signature(getattr(fracas, name)).parameters:
            assert f"    {parameter}: " in doc, (name, parameter)
    assert "docs/ENGINE.md" not in fracas.__doc__


def test_every_public_method_of_encounter_has_a_full_docstring_whose_examples_run():
    """`fracas.Encounter` is public API (`fracas.__all__`, a page of the documentation site):
    its methods are documented like the functions (issue 28: "Every public function has a
    real docstring (arguments, return, errors, an example)"), and the examples run."""
    import doctest
    import inspect

    encounter = fracas.Encounter
    methods = [name for name, value in vars(encounter).items()
               if not name.startswith("_") and callable(getattr(encounter, name))]
    assert {"new", "open", "list", "delete", "show", "round", "undo", "last_round"} <= set(methods)
    for name in methods:
        function = getattr(encounter, name)
        doc = inspect.getdoc(function) or ""
        for section in ("Returns:", "Example:", ">>> "):
            assert section in doc, (name, section)
        for parameter in inspect.signature(function).parameters:
            if parameter not in ("self", "cls"):
                assert f"    {parameter}: " in doc, (name, parameter)
        assert "docs/" not in doc, name
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = finder.find(encounter, "Encounter", globs={"fracas": fracas})
    assert len([test for test in tests if test.examples]) >= len(methods) + 1
    for test in tests:
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_workers_that_die_are_one_line_on_the_command_line(monkeypatch):
    from fracas.drive import simulate as simulations

    def dying(*_args, **_kwargs):
        raise simulations.WorkersFailed("the simulation's worker processes died. (…)")

    monkeypatch.setattr(simulations, "simulate", dying)
    out = run(["simulate", "@ww-duel", "--runs", "400", "--workers", "2"])
    assert out.exit_code == 1 and out.output == "Error: the simulation's worker processes died. (…)\n"


def test_simulate_puts_the_signal_handlers_back():
    import signal

    def mine(_signum, _frame):
        pass

    before = signal.signal(signal.SIGTERM, mine)
    try:
        interrupt = signal.getsignal(signal.SIGINT)
        fracas.simulate("@ww-duel", runs=5, seed=1)
        assert signal.getsignal(signal.SIGTERM) is mine and signal.getsignal(signal.SIGINT) is interrupt
    finally:
        signal.signal(signal.SIGTERM, before)
