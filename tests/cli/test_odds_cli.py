"""`fracas odds`: the attack flags (any ruleset) or --request FILE → exact odds."""

import json

import pytest

from .helpers import run

TYPICAL_FLAGS = ["--dice", "3", "--bonus", "2", "--ac", "14", "--weight", "1", "--str", "0", "--str-mod", "1"]


def test_odds_from_flags_print_a_table_and_histogram():
    out = run(["odds", *TYPICAL_FLAGS, "--remaining", "6", "--at-least", "5"])
    assert out.exit_code == 0, out.output
    assert "mean 3.152" in out.output and "P(hit) 83.36%" in out.output and "P(drops at 6)" in out.output
    assert "█" in out.output


def test_odds_json_is_exact():
    out = run(["odds", *TYPICAL_FLAGS, "--json"])
    data = json.loads(out.output)
    assert data["targets"]["target"]["p_hit_exact"] == "6669/8000"


def test_odds_of_a_request_file_and_another_ruleset(tmp_path):
    path = tmp_path / "ct.json"
    path.write_text(json.dumps({"ruleset": "cartyrion", "attacker": {"level": 9, "bonus": 8, "magic": 2},
                                "strikes": [{"target": "giant", "method": "melee", "die": "d6"}],
                                "targets": {"giant": {"dex": 3, "armor": 1}}}))
    out = run(["odds", "--request", str(path), "--remaining", "giant=40", "--count", "2", "--json"])
    assert out.exit_code == 0, out.output
    giant = json.loads(out.output)["targets"]["giant"]
    assert abs(giant["mean"] - 70) < 1e-9 and 0 < giant["p_drop"] < 1
    out = run(["odds", "--ruleset", "worldwalker", "--damage", "1d8", "--defense", "12"])
    assert out.exit_code == 0 and "Worldwalker odds" in out.output


def test_odds_plot(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "odds.png"
    out = run(["odds", *TYPICAL_FLAGS, "--plot", str(png)])
    assert out.exit_code == 0 and png.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("args, message", [
    (["odds", "--dice", "9", "--ac", "12", "--str", "3"], "9 skill dice, the most is 5 (ER-3) (set it with --dice)"),
    (["odds"], "no attack"),
    (["odds", *TYPICAL_FLAGS, "--count", "0"], "--count"),
    (["odds", "--ruleset", "cartyrion", "--die", "d6", "--dice", "60"], "exact odds enumerate at most"),
])
def test_bad_odds_input_exits_2(args, message):
    out = run(args)
    assert out.exit_code == 2 and message in out.output, out.output


@pytest.mark.parametrize("count", ["10000", "100000"])
def test_a_mob_too_large_to_enumerate_points_at_simulate(count):
    out = run(["odds", *TYPICAL_FLAGS, "--count", count])
    assert out.exit_code == 2 and "$.count:" in out.output
    assert "fracas simulate SCENARIO --runs N" in out.output and "fracas attack --bulk FILE" in out.output


def test_odds_plot_says_where_and_its_axis_ends_near_the_last_mass(tmp_path):
    pytest.importorskip("matplotlib")
    from fracas.cli import SHOWN, odds_figure

    png = tmp_path / "odds.png"
    out = run(["odds", *TYPICAL_FLAGS, "--plot", str(png)])
    assert f"wrote {png}" in out.output
    data = json.loads(run(["odds", *TYPICAL_FLAGS, "--json"]).output)
    distribution = data["targets"]["target"]["distribution"]
    last = max(v for v, p in distribution if p >= SHOWN)
    assert max(v for v, _ in distribution) > last + 5  # a crit chain's long tail, cut from the axis
    ax = odds_figure(data).axes[0]
    assert last < ax.get_xlim()[1] < last + 1
    ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
    assert ticks and all(t == int(t) for t in ticks)
