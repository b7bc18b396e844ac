"""Colours on a terminal; none with --no-color or NO_COLOR (https://no-color.org)."""

from click.testing import CliRunner

from fracas.cli import main

ARGS = ["attack", "--dice", "3", "--ac", "14", "--str", "4", "--seed", "1"]


def test_colour_by_default_and_none_with_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    coloured = CliRunner().invoke(main, ARGS, color=True)
    assert "\x1b[" in coloured.output
    plain = CliRunner().invoke(main, ["--no-color", *ARGS], color=True)
    assert plain.exit_code == 0 and "\x1b[" not in plain.output
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in CliRunner().invoke(main, ARGS, color=True).output
