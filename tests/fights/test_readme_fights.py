"""The README's whole-fights block runs as written, in order (it builds on itself)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from tests.cli.helpers import run

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def fight_commands() -> list[str]:
    text = README.read_text()
    block = text.split("## Whole fights: encounters and simulations", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    return [re.sub(r"\s+#\s.*$", "", line).strip() for line in block.splitlines() if line.startswith("fracas ")]


def test_the_readme_fights_block_runs_in_order(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("FRACAS_HOME", str(tmp_path))
    commands = fight_commands()
    assert len(commands) >= 7
    for command in commands:
        args = shlex.split(command)[1:]
        args = [str(tmp_path / "result.json") if a == "result.json" else a for a in args]
        out = run(args)
        assert out.exit_code == 0, f"{command}\n{out.output}"
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["runs"] == 2000 and set(result["sides"]) == {"party", "goblins"}


def test_the_readme_names_only_shipped_examples():
    from fracas.drive.scenario import examples

    named = set(re.findall(r"@([a-z][a-z-]+)", README.read_text().split("## Whole fights", 1)[1].split("## The bridge")[0]))
    assert named and named <= set(examples())


@pytest.mark.parametrize("name", ["er-skeleton-horde", "er-bandit-rout", "ct-hill-giant", "ww-duel",
                                  "os-goblin-ambush"])
def test_docs_list_each_example(name):
    assert f"@{name}" in (ROOT / "docs" / "ENCOUNTERS.md").read_text()
