"""Every `fracas` command of the README's command-line block runs as written (from the
top of the checkout), and every file in examples/ resolves: the README stays true."""

import json
import os
import re
import shlex
from pathlib import Path

import pytest

from .helpers import run

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
EXAMPLES = ROOT / "examples"
SKIP = ("bench", "serve")  # long-running: covered by their own tests


def readme_commands() -> list[str]:
    if not README.exists():
        return []
    block = README.read_text().split("## Command line", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    commands = []
    for line in block.splitlines():
        line = re.sub(r"\s+#\s.*$", "", line).strip()
        if line.startswith("fracas ") and line.split()[1] not in SKIP:
            commands.append(line)
    return commands


@pytest.fixture
def at_top(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # `fracas token` keeps its file here
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))    # and `fracas journal` looks for its journal here


def test_the_readme_block_has_commands():
    if not README.exists():
        pytest.skip("not run from a source checkout")
    assert len(readme_commands()) >= 8


@pytest.mark.parametrize("command", readme_commands())
def test_each_readme_command_runs(command, at_top):
    out = run(shlex.split(command)[1:])
    if command.startswith("fracas doctor") and out.exit_code == 1:
        # doctor exits 1 when it reports a problem of this machine, not of fracas: port 8765
        # taken by another program, or an install without the compiled core.
        assert "[problem]" in out.output and out.output.rstrip().endswith("found"), out.output
        return
    assert out.exit_code == 0, f"{command}\n{out.output}"


# result.json is the expected result of entry.json: the README's replay command checks it.
@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.json")
                                       if p.name not in ("result.json", "profiles.json"))
                         if EXAMPLES.exists() else [])
def test_each_example_file_resolves(name, at_top):
    path = os.path.join("examples", name)
    document = json.loads((EXAMPLES / name).read_text())
    if "attacks" in document:
        args = ["attack", "--bulk", path]
    elif "count" in document or "remaining" in document:
        args = ["odds", "--request", path]
    elif "challenger" in document:
        args = ["compete", path]
    elif "pikeman" in document:
        args = ["impale", path]
    else:
        args = ["attack", path]
    out = run(args + ["--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["ruleset"] == document.get("ruleset", "enchanted-realms")


def test_every_example_profile_attacks(at_top):
    profiles = json.loads((EXAMPLES / "profiles.json").read_text())
    for name in profiles:
        out = run(["attack", "--as", name, "--profiles", "examples/profiles.json", "--ac", "12", "--json"])
        assert out.exit_code == 0, out.output
        assert len(json.loads(out.output)["strikes"]) == len(profiles[name]["strikes"])


def test_the_example_config_is_valid_for_every_table(at_top):
    out = run(["--config", "examples/config.toml", "attack", "--as", "skeleton", "--ac", "12", "--json"])
    assert out.exit_code == 0, out.output
    assert list(json.loads(out.output)["targets"]) == ["goblin"]  # the config's target name
