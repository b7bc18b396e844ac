"""`fracas encounter …` and `fracas simulate`, as a GM and a designer type them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import run

ROOT = Path(__file__).resolve().parents[2]
ER = str(ROOT / "examples" / "scenarios" / "er-skeleton-horde.json")
OS = str(ROOT / "examples" / "scenarios" / "os-goblin-ambush.json")


@pytest.fixture(autouse=True)
def home(monkeypatch, tmp_path):
    monkeypatch.setenv("FRACAS_HOME", str(tmp_path))
    return tmp_path


def test_a_gm_plays_rounds_and_undoes_one(home):
    out = run(["encounter", "new", "crypt", "--scenario", ER])
    assert out.exit_code == 0, out.output
    assert "skeleton captain: 24/24 standing" in out.output
    before = run(["encounter", "show", "crypt", "--json"]).output
    out = run(["encounter", "round", "crypt", "--seed", "7"])
    assert out.exit_code == 0 and out.output.startswith("Round 1 (seed 7)"), out.output
    assert "standing: party" in out.output
    undone = run(["encounter", "undo", "crypt", "--json"])
    assert undone.exit_code == 0 and undone.output == before
    again = run(["encounter", "round", "crypt", "--seed", "7", "--json"])
    log = json.loads(again.output)
    assert log["round"] == 1 and log["seed"] == 7
    assert json.loads(run(["encounter", "log", "crypt", "--json"]).output) == log
    listed = json.loads(run(["encounter", "list", "--json"]).output)
    assert [(e["name"], e["round"]) for e in listed] == [("crypt", 1)]
    assert (home / "journal.sqlite3").exists()  # the bridge's journal file: one store
    assert run(["encounter", "delete", "crypt"]).exit_code == 0
    assert "no encounters yet" in run(["encounter", "list"]).output


def test_encounters_persist_across_processes(home):
    env = dict(os.environ, FRACAS_HOME=str(home))
    made = subprocess.run([sys.executable, "-m", "fracas", "encounter", "new", "gob", "--scenario", OS],
                          env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert made.returncode == 0, made.stderr
    played = subprocess.run([sys.executable, "-m", "fracas", "encounter", "round", "gob", "--seed", "3", "--json"],
                            env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert played.returncode == 0, played.stderr
    out = run(["encounter", "show", "gob", "--json"])
    shown = json.loads(out.output)
    assert shown["round"] == 1 and shown["rounds"][0]["seed"] == 3
    assert json.loads(played.stdout)["members"] == {
        m["id"]: {"status": m["status"], "hp": m["hp"]} for ms in shown["sides"].values() for m in ms}


def test_encounter_errors_are_clear_and_keep_nothing(home, tmp_path):
    bad = json.loads(Path(OS).read_text())
    bad["sides"]["goblins"][0]["attacks"] = []
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    out = run(["encounter", "new", "gob", "--scenario", str(path)])
    assert out.exit_code == 2 and "$.sides.goblins[0].attacks: a combatant needs at least one attack" in out.output
    assert "no encounters yet" in run(["encounter", "list"]).output
    path.write_text("{not json")
    out = run(["encounter", "new", "gob", "--scenario", str(path)])
    assert out.exit_code == 2 and "not valid JSON" in out.output
    out = run(["encounter", "round", "nobody"])
    # The encounter is the command's NAME argument here (the API and the bridge say $.name).
    assert out.exit_code == 2 and "NAME: no encounter named 'nobody'" in out.output
    run(["encounter", "new", "gob", "--scenario", OS])
    out = run(["encounter", "undo", "gob"])
    assert out.exit_code == 2 and "no round to undo" in out.output
    out = run(["encounter", "new", "gob", "--scenario", OS])
    assert out.exit_code == 2 and "NAME: an encounter named 'gob' exists already" in out.output


def test_simulate_reports_and_is_the_same_for_any_worker_count(tmp_path):
    one = run(["simulate", OS, "--runs", "250", "--seed", "5", "--workers", "1", "--json", "-"])
    assert one.exit_code == 0, one.output
    two = run(["simulate", OS, "--runs", "250", "--seed", "5", "--workers", "2", "--json", str(tmp_path / "o.json")])
    assert two.exit_code == 0, two.output
    a, b = json.loads(one.output), json.loads((tmp_path / "o.json").read_text())
    assert a.pop("timing")["workers"] == 1 and b.pop("timing")["workers"] == 2
    assert a == b
    assert "wins" in two.output and "95 %" in two.output and "fights/s" in two.output
    assert "fights  [" not in two.output  # no progress bar when not on a terminal
    assert set(a["sides"]) == {"party", "goblins"} and a["completed"] == 250


def test_simulate_plot_and_errors(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "sim.png"
    out = run(["simulate", ER, "--runs", "40", "--seed", "1", "--workers", "1", "--plot", str(png)])
    assert out.exit_code == 0, out.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = run(["simulate", ER, "--runs", "0"])
    assert out.exit_code == 2 and "--runs" in out.output
    out = run(["simulate", ER, "--dask", "nowhere"])
    assert out.exit_code == 2 and "--dask" in out.output
    bad = json.loads(Path(ER).read_text())
    bad["sides"]["party"][0]["attacks"][0]["dice"] = 0
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    out = run(["simulate", str(path), "--runs", "10"])
    assert out.exit_code == 2 and "$.sides.party[0].attacks[0].dice" in out.output


def test_simulate_without_dask_installed_says_how(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name.startswith("dask"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    out = run(["simulate", ER, "--runs", "10", "--dask", "local"])
    assert out.exit_code == 2 and "pip install 'fracas[dask]'" in out.output


def test_ctrl_c_stops_a_multiprocess_simulation_with_the_partial_result(home):
    """SIGINT to `fracas simulate` on 2 processes: a clean stop, the fights so far as JSON, exit 130."""
    import signal
    import time

    # On the Python round loop (minutes for a million fights): the compiled loop can finish them
    # in the 3 s before the signal.
    process = subprocess.Popen([sys.executable, "-m", "fracas", "simulate", "@er-skeleton-horde", "--runs", "1000000",
                                "--seed", "1", "--workers", "2", "--json", "-", "--loop", "python"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                               env=dict(os.environ, FRACAS_HOME=str(home)))
    time.sleep(3)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    result = json.loads(out)
    assert result["interrupted"] is True and result["completed"] < result["runs"] == 1_000_000
    assert "Traceback" not in err


def test_simulate_plot_says_where_with_whole_round_ticks(tmp_path):
    pytest.importorskip("matplotlib")
    from fracas.drive.simulate import figure

    png = tmp_path / "sim.png"
    out = run(["simulate", ER, "--runs", "40", "--seed", "1", "--workers", "1", "--plot", str(png)])
    assert f"wrote {png}" in out.output
    result = json.loads(run(["simulate", ER, "--runs", "40", "--seed", "1", "--workers", "1", "--json", "-"]).output)
    assert len(result["rounds"]["histogram"]) < 6  # few distinct lengths: matplotlib would pick 0.5 steps
    rounds = figure(result).axes[1]
    low, high = rounds.get_xlim()
    ticks = [t for t in rounds.get_xticks() if low <= t <= high]
    assert ticks and all(t == int(t) for t in ticks)
