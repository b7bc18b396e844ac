"""The release machinery: the wheels workflow passes actionlint, cibuildwheel builds the
platforms the README promises, and the changelog names this version."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import fracas

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "wheels.yml"


def _tool(name: str) -> str:
    local = Path(sys.executable).parent / name
    found = str(local) if local.exists() else shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (the test extra installs it)")
    return found


@pytest.mark.parametrize("name", ["wheels.yml", "ci.yml"])
def test_the_workflows_pass_actionlint(name):
    workflow = WORKFLOW.parent / name
    if not workflow.exists():
        pytest.skip("not run from a source checkout")
    result = subprocess.run([_tool("actionlint"), str(workflow)], capture_output=True, text=True, cwd=str(ROOT))
    assert result.returncode == 0, result.stdout + result.stderr


def test_ci_keeps_the_quick_benchmark_json():
    """The benchmark's figures of every CI run are kept (for `fracas bench --compare`)."""
    workflow = WORKFLOW.parent / "ci.yml"
    if not workflow.exists():
        pytest.skip("not run from a source checkout")
    text = workflow.read_text()
    assert "bash .ci/run" in text and "path: bench-results/quick.json" in text
    script = (ROOT / "scripts" / "test.sh").read_text()
    assert "fracas\" bench --quick --json bench-results/quick.json" in script


@pytest.mark.parametrize("platform, must, never", [
    ("linux", ["cp310-manylinux_x86_64", "cp313-manylinux_aarch64", "cp311-musllinux_x86_64",
               "cp312-musllinux_aarch64"], ["i686"]),
    ("macos", ["cp310-macosx_x86_64", "cp313-macosx_arm64"], []),
    ("windows", ["cp310-win_amd64", "cp313-win_amd64"], ["win32"]),
])
def test_cibuildwheel_builds_every_promised_platform(platform, must, never):
    if not (ROOT / "pyproject.toml").exists():
        pytest.skip("not run from a source checkout")
    _tool("cibuildwheel")
    result = subprocess.run([sys.executable, "-m", "cibuildwheel", "--print-build-identifiers", "--platform", platform],
                            capture_output=True, text=True, cwd=str(ROOT))
    assert result.returncode == 0, result.stderr
    identifiers = result.stdout.split()
    for wanted in must:
        assert wanted in identifiers, (wanted, identifiers)
    assert not [i for i in identifiers for bad in never if bad in i]
    assert all(re.match(r"cp31[0-3]-", i) for i in identifiers), identifiers


def test_the_changelog_names_this_version():
    changelog = ROOT / "CHANGELOG.md"
    if not changelog.exists():
        pytest.skip("not run from a source checkout")
    top = re.search(r"^## (\S+)", changelog.read_text(), re.M)
    assert top and top.group(1) == fracas.__version__
