"""Every Python package in the source tree is installed (a forgotten one works in a
checkout and fails on a fresh machine)."""

from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10: tomli is a dependency there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_every_source_package_is_listed_in_pyproject():
    pyproject = ROOT / "pyproject.toml"
    if not pyproject.exists():
        pytest.skip("not run from a source checkout")
    config = tomllib.loads(pyproject.read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {"fracas." + ".".join(init.parent.relative_to(ROOT / "src" / "fracas").parts)
             for init in (ROOT / "src" / "fracas").rglob("__init__.py")}
    found = {name.rstrip(".") for name in found}
    assert found - listed == set()
