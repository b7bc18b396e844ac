"""The public API is typed: `mypy --strict` finds nothing in src/fracas (py.typed ships it), nor
in the guide's example plug-ins (docs/examples: no undefined name, no call the API does not
have, in the code docs/ADDING_A_RULESET.md quotes)."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_strict_is_clean(tmp_path):
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (the test extra installs it)")
    if not (ROOT / "src" / "fracas").is_dir():
        pytest.skip("not run from a source checkout")
    examples = sorted(str(path.parent.relative_to(ROOT))
                      for path in (ROOT / "docs" / "examples").glob("*/*/__init__.py"))
    assert len(examples) >= 2, examples
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path),
                             "src/fracas", *examples], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Success: no issues found")


def test_py_typed_ships():
    assert (ROOT / "src" / "fracas" / "py.typed").exists()
