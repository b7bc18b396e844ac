"""Every Python package in the source tree is installed (a forgotten one works in a
checkout and fails on a fresh machine): setup.py discovers them, so a new ruleset
folder ships without a hand-written package list, with its manifest as package data."""

import ast
import importlib.util
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10: tomli is a dependency there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def _setup_module():
    path = ROOT / "setup.py"
    if not path.exists():
        pytest.skip("not run from a source checkout")
    spec = importlib.util.spec_from_file_location("fracas_setup", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # `setup()` runs only under __main__
    return module


def test_every_source_package_is_discovered_and_none_is_listed_by_hand():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "packages" not in config  # discovered: no list to forget a ruleset folder in
    packages = set(_setup_module().packages())
    found = {".".join(("fracas", *init.parent.relative_to(ROOT / "src" / "fracas").parts))
             for init in (ROOT / "src" / "fracas").rglob("__init__.py")}
    assert found - packages == set()
    assert set(config["package-dir"]) - {"fracas"} <= packages


def test_a_ruleset_folder_is_a_package_with_its_manifest_as_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "manifest.toml" in config["package-data"]["*"]
    import fracas

    folders = [p.parent for p in (ROOT / "src" / "fracas" / "rulesets").glob("*/manifest.toml")]
    # every folder with a manifest is a package, and registered (the built-ins among them)
    assert all((f / "__init__.py").is_file() for f in folders)
    packages = {m.package for m in fracas.rulesets.manifests()}
    assert {f"fracas.rulesets.{f.name}" for f in folders} <= packages
    assert {"fracas.rulesets.er", "fracas.rulesets.ww", "fracas.rulesets.ct", "fracas.rulesets.oldschool"} <= packages
    # the setup script calls setup() only as a script: importing it (above) builds nothing
    tree = ast.parse((ROOT / "setup.py").read_text())
    assert not any(isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)
                   and getattr(n.value.func, "id", "") == "setup" for n in tree.body)
