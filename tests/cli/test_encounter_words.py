"""What `fracas encounter show` and `encounter log` say is what they do (the README and
docs/ENCOUNTERS.md: show lists every round's seed; an undo takes its round back, log and all;
an error names what was wrong, --round only when it was given)."""

import pytest

from .helpers import run


@pytest.fixture
def store(tmp_path):
    path = str(tmp_path / "store.sqlite3")
    assert run(["encounter", "--store", path, "new", "crypt", "--scenario", "@ww-duel"]).exit_code == 0
    return path


def test_show_lists_every_rounds_seed(store):
    for seed in ("7", "9"):
        assert run(["encounter", "--store", store, "round", "crypt", "--seed", seed]).exit_code == 0
    out = run(["encounter", "--store", store, "show", "crypt"])
    assert "rounds: 1 (seed 7), 2 (seed 9)" in out.output, out.output


def test_log_without_rounds_does_not_blame_an_option_never_given(store):
    out = run(["encounter", "--store", store, "log", "crypt"])
    assert out.exit_code == 2
    assert "NAME: 'crypt' has no round kept yet: play one with fracas encounter round crypt" in out.output
    assert "--round" not in out.output


def test_log_of_an_undone_round_says_it_was_taken_back(store):
    for seed in ("7", "9"):
        run(["encounter", "--store", store, "round", "crypt", "--seed", seed])
    assert run(["encounter", "--store", store, "undo", "crypt"]).exit_code == 0
    out = run(["encounter", "--store", store, "log", "crypt", "--round", "2"])
    assert out.exit_code == 2
    assert "--round 2: 'crypt' has no round 2 kept (round kept: 1; an undone round is taken back" in out.output
    assert "Round 1 (seed 7)" in run(["encounter", "--store", store, "log", "crypt"]).output


def test_the_log_help_says_where_each_attacks_seed_is():
    text = " ".join(run(["encounter", "log", "--help"]).output.split())
    assert "--json: every event, each attack with its seed and result" in text
    assert "every attack with its seed)" not in text
