"""The adding-a-ruleset guide's code runs: each ```python and ```cython block of
docs/ADDING_A_RULESET.md is quoted as it is (up to its indentation) from a file of the example
plug-ins under docs/examples (a .py, or the compiled example's .pyx), which are installed and
put through the conformance suite (tests/release/test_examples.py) and type-checked
(tests/release/test_typing.py). A block edited in the guide alone, or code changed in a
package alone, fails here naming the block."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Optional

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the backport fracas reads its manifests with
    import tomli as tomllib

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "ADDING_A_RULESET.md"
EXAMPLES = ROOT / "docs" / "examples"

pytestmark = pytest.mark.skipif(not GUIDE.exists(), reason="not run from a source checkout")


PACKAGES = ["d6pool", "wilddie", "burstpool"]


def _blocks(language: str = "python|cython") -> list[str]:
    return re.findall(rf"^```(?:{language})\n(.*?)^```$", GUIDE.read_text(encoding="utf-8"), re.S | re.M)


def _sources() -> dict[str, list[str]]:
    return {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8").splitlines()
            for path in sorted([*EXAMPLES.rglob("*.py"), *EXAMPLES.rglob("*.pyx")])
            if "build" not in path.relative_to(EXAMPLES).parts}


def quoted_from(block: str, sources: dict[str, list[str]]) -> Optional[str]:
    """The file whose consecutive lines are `block`, both dedented; None if no file has them."""
    wanted = textwrap.dedent(block).rstrip("\n").splitlines()
    for name, lines in sources.items():
        for start in range(len(lines) - len(wanted) + 1):
            if lines[start].strip() != wanted[0].strip():
                continue
            if textwrap.dedent("\n".join(lines[start:start + len(wanted)])).splitlines() == wanted:
                return name
    return None


def test_every_python_block_of_the_guide_is_quoted_from_an_example_package():
    blocks, sources = _blocks(), _sources()
    assert len(blocks) >= 8 and sources
    missing = [block.splitlines()[0] for block in blocks if quoted_from(block, sources) is None]
    assert not missing, f"guide blocks found in no file of docs/examples (first lines): {missing}"
    # every package is quoted: the row kernel's, the generic path's and the compiled one's,
    # its kernel (.pyx) and its build (setup.py) too
    found = {quoted_from(block, sources) for block in blocks}
    assert set(PACKAGES) <= {name.split("/")[2] for name in found}, found
    assert {"docs/examples/burstpool/burstpool/_kernel.pyx", "docs/examples/burstpool/setup.py"} <= found, found
    assert len(_blocks("cython")) >= 3


def test_the_check_fails_on_a_block_that_drifted():
    sources = _sources()
    block = next(b for b in _blocks() if "def roll_strike" in b)
    assert quoted_from(block, sources) == "docs/examples/wilddie/wilddie/__init__.py"
    assert quoted_from(block.replace("total >= plan.parry", "total > plan.parry"), sources) is None
    kernel = next(b for b in _blocks("cython") if "cdef inline int pool_faces" in b)
    assert quoted_from(kernel, sources) == "docs/examples/burstpool/burstpool/_kernel.pyx"
    assert quoted_from(kernel.replace("face == 6 and", "face >= 6 and"), sources) is None


@pytest.mark.parametrize("package", PACKAGES)
def test_each_example_is_a_package_pip_installs_with_its_entry_point(package):
    """Its own pyproject.toml, the entry point group `fracas.rulesets` naming the package, and
    the manifest, rules and example scenarios in its package data."""
    project = tomllib.loads((EXAMPLES / package / "pyproject.toml").read_text(encoding="utf-8"))
    manifest = tomllib.loads((EXAMPLES / package / package / "manifest.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"]["fracas.rulesets"] == {manifest["name"]: package}
    assert project["tool"]["setuptools"]["packages"] == [package]
    data = project["tool"]["setuptools"]["package-data"][package]
    assert {"manifest.toml", "rules.md", "examples/*.json"} <= set(data)
    for example in manifest["examples"]:
        assert (EXAMPLES / package / package / "examples" / f"{example}.json").is_file(), example
    kernels = sorted(path.name for path in (EXAMPLES / package / package).glob("*.pyx"))
    if kernels:  # the compiled one: built with Cython against the fracas it runs on, typed by its stub
        assert {"setuptools>=64", "Cython>=3.0", "fracas"} <= set(project["build-system"]["requires"])
        assert "get_include()" in (EXAMPLES / package / "setup.py").read_text(encoding="utf-8")
        assert {name.replace(".pyx", ".pyi") for name in kernels} <= set(data)
