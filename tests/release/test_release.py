"""The release machinery: the workflows pass actionlint, cibuildwheel builds the platforms
and Pythons the README and the classifiers promise, CI tests every supported Python, and the
changelog names this version."""

import importlib.metadata
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import fracas

try:
    import tomllib
except ImportError:  # Python 3.10: tomli is a dependency there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "wheels.yml"


def _tool(name: str) -> str:
    local = Path(sys.executable).parent / name
    found = str(local) if local.exists() else shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (the test extra installs it)")
    return found


def _pyproject() -> dict:
    if not (ROOT / "pyproject.toml").exists():
        pytest.skip("not run from a source checkout")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _supported() -> list[str]:
    """The Python versions the classifiers promise, oldest first."""
    return [c.rsplit(" :: ", 1)[1] for c in _pyproject()["project"]["classifiers"]
            if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]


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
    promised = {"cp" + version.replace(".", "") for version in _supported()}
    assert {i.split("-")[0] for i in identifiers} <= promised, identifiers
    # Every promised CPython has wheels where this cibuildwheel builds it by default (3.14
    # from cibuildwheel 3.1 on; the one pip installs on Python 3.10 is older).
    major, minor = (int(part) for part in importlib.metadata.version("cibuildwheel").split(".")[:2])
    if (major, minor) >= (3, 1):
        assert {i.split("-")[0] for i in identifiers} == promised, identifiers


def test_the_build_list_names_every_supported_python():
    build = _pyproject()["tool"]["cibuildwheel"]["build"].split()
    assert build == [f"cp{version.replace('.', '')}-*" for version in _supported()]


def test_the_wheels_are_tested_with_the_whole_suite():
    """Every ruleset's parity runs on aarch64, macOS and Windows too, not tests/engine alone."""
    config = _pyproject()["tool"]["cibuildwheel"]
    assert re.search(r"python -m pytest tests( |$)", config["test-command"]), config["test-command"]
    assert "{project}" in config["test-command"]


def test_ci_tests_every_supported_python_on_the_shipped_packages():
    workflow = WORKFLOW.parent / "ci.yml"
    if not workflow.exists():
        pytest.skip("not run from a source checkout")
    text = workflow.read_text()
    matrix = re.search(r"^\s+python: \[(.*)\]$", text, re.M)
    assert matrix, "ci.yml has no python matrix"
    assert [v.strip().strip('"') for v in matrix.group(1).split(",")] == _supported()
    assert "FRACAS_TEST_PYTHONS: python${{ matrix.python }}" in text and "bash .ci/run" in text
    assert "mkdocs build --strict" in text
    script = (ROOT / "scripts" / "test.sh").read_text()
    # the sdist and a wheel built from it, each installed into a fresh venv, the suite against each
    assert "-m build --sdist --outdir" in script and "-m build --wheel --outdir" in script and 'fresh_venv "$OLDEST"' in script and 'fresh_venv "$NEWEST"' in script
    assert "fracas: {passed} passed, {failed} failed" in script


def test_the_changelog_names_this_version():
    changelog = ROOT / "CHANGELOG.md"
    if not changelog.exists():
        pytest.skip("not run from a source checkout")
    top = re.search(r"^## (\S+)", changelog.read_text(), re.M)
    assert top and top.group(1) == fracas.__version__
