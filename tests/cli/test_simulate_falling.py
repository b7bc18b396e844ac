"""`fracas simulate`'s "likely to fall" (issue 43 item 3): the per-combatant numbers a forecast
card shows, at the desk: who is most often down or fled at the end, and the damage it takes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import fracas
from fracas.drive.simulate import FALLING, likely_to_fall

from .helpers import run

AMBUSH = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "os-goblin-ambush.json"
ROW = re.compile(r"^    (.+?)\s+(party|goblins)\s+(\d+\.\d) %  taken\s+(\d+\.\d\d)(?:  \(fled (\d+\.\d) %\))?$")


def falling_lines(output: str) -> list[str]:
    lines = output.splitlines()
    start = lines.index("  likely to fall (down or fled at the end; damage taken per fight):")
    rows = []
    for line in lines[start + 1:]:
        if not line.startswith("    "):
            break
        rows.append(line)
    return rows


def test_the_report_lists_who_is_likely_to_fall_from_the_json_numbers():
    """OS-4: goblins that fail morale flee; fled counts as fallen, and the report says how much of it is flight."""
    args = ["simulate", str(AMBUSH), "--runs", "300", "--seed", "5", "--workers", "1"]
    out = run(args)
    assert out.exit_code == 0, out.output
    # The lines the README and other tests rely on are still there.
    assert "party          wins" in out.output and "rounds: mean" in out.output and "per group of 18" in out.output
    data = json.loads(run([*args, "--json", "-"]).output)
    rows = [ROW.match(line) for line in falling_lines(out.output)]
    assert all(rows) and len(rows) == FALLING
    ranked = sorted(data["combatants"].items(), key=lambda kv: -(kv[1]["down_rate"] + kv[1]["fled_rate"]))
    expected = likely_to_fall(data)
    assert [r.group(1) for r in rows] == [c["id"] for c in expected]
    assert expected[0]["fall_rate"] == round(ranked[0][1]["down_rate"] + ranked[0][1]["fled_rate"], 6)
    for row, c in zip(rows, expected):
        assert float(row.group(3)) == round(100 * (c["down_rate"] + c["fled_rate"]), 1)
        assert float(row.group(4)) == round(c["taken_mean"], 2)
        assert (row.group(5) is not None) == (c["fled_rate"] > 0)
    falls = [c["fall_rate"] for c in expected]
    assert falls == sorted(falls, reverse=True)
    assert any(c["fled_rate"] > 0 for c in expected)  # goblins break and run (OS-4)


def test_nobody_falls_in_a_fight_that_ends_before_anyone_can():
    duel = json.loads((AMBUSH.parent / "ww-duel.json").read_text())
    duel["max_rounds"] = 1
    for member in duel["sides"].values():
        member[0]["hp"] = 500
    out = run(["simulate", "-", "--runs", "20", "--seed", "1", "--workers", "1"], stdin=json.dumps(duel))
    assert out.exit_code == 0, out.output
    assert "  likely to fall: nobody (no combatant was down or fled at the end of any fight)" in out.output


def test_the_python_api_ranks_the_same_and_a_forecast_carries_the_same_numbers():
    result = fracas.simulate(str(AMBUSH), runs=200, seed=3)
    falling = result.likely_to_fall(3)
    assert [c["id"] for c in falling] == [c["id"] for c in likely_to_fall(result.to_dict(), 3)]
    assert set(falling[0]) >= {"id", "side", "group", "fall_rate", "down_rate", "fled_rate", "taken_mean"}
    forecast = fracas.forecast({"scenario": json.loads(AMBUSH.read_text()), "runs": 200, "seed": 3})
    assert forecast.likely_to_fall(3) == falling
    assert forecast.combatants == result.combatants


def test_fracas_replay_of_a_recorded_forecast_prints_the_report(tmp_path):
    params = {"scenario": json.loads(AMBUSH.read_text()), "runs": 60, "seed": 8}
    record = {"jsonrpc": "2.0", "id": 1, "method": "fight.forecast", "params": params,
              "result": fracas.forecast(params).to_dict()}
    path = tmp_path / "forecast.json"
    path.write_text(json.dumps(record))
    out = run(["replay", str(path)])
    assert out.exit_code == 0, out.output
    assert "60 of 60 fights, seed 8" in out.output and "likely to fall" in out.output
    assert "Replay matches the recorded result (seed 8)." in out.output
    record["result"]["rounds"]["mean"] += 1
    path.write_text(json.dumps(record))
    assert run(["replay", str(path)]).exit_code == 1
