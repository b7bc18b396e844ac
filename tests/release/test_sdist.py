"""What is shipped: the sdist carries everything its build needs (the Cython sources, the
lane kernels' headers), the licence, the tests and the docs site's sources, and its
metadata is what pip and PyPI read (dependencies per Python, addresses, classifiers).
scripts/test.sh installs this same sdist into a fresh venv and runs the suite on it."""

from __future__ import annotations

import email.parser
import re
import tarfile
from pathlib import Path

import pytest

from .conftest import ROOT, tracked_files


@pytest.fixture(scope="module")
def shipped(sdist):
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
        top = names[0].split("/")[0]
        members = {name[len(top) + 1:] for name in names if name.startswith(top + "/")}
        pkg_info = archive.extractfile(f"{top}/PKG-INFO").read().decode()
        license_text = archive.extractfile(f"{top}/LICENSE").read().decode()
    return members, email.parser.Parser().parsestr(pkg_info), license_text


def test_the_sdist_carries_the_sources_its_build_compiles(shipped):
    members, _, _ = shipped
    # setup.py cythonizes one .pyx per kernel module (the package fracas._core), each including
    # the generated layout table and cimporting the shared inline code of the .pxd files, and
    # the ER strike builder's .py with its .pxd (Cython's pure Python mode); the fight loop also
    # includes the rule files it shares with the Python rounds (`include "fracas/…"`, from src/).
    sources = [name for name in tracked_files() if name.startswith("cython_core/")]
    modules = sorted((ROOT / "cython_core").glob("*.pyx"))
    assert {"generator", "er", "lanes", "rows", "single", "fights"} <= {path.stem for path in modules}
    assert {"cython_core/_layout.pxi", "cython_core/_er.pxd", "cython_core/_rows.pxd", "cython_core/lanes.h"} <= set(sources)
    missing = [name for name in sources if name not in members]
    assert not missing, f"the sdist lacks {missing}"
    cimported = set()
    for path in modules:
        text = path.read_text()
        includes = re.findall(r'^\s*(?:include|cdef extern from)\s+"([^"]+)"', text, re.M)
        where = [f"src/{name}" if name.startswith("fracas/") else f"cython_core/{name}" for name in includes]
        assert includes and all(name in members for name in where), (path.name, includes)
        cimported |= set(re.findall(r"^from\s+(\w+)\s+cimport", text, re.M))
    ours = [name for name in cimported if (ROOT / "cython_core" / f"{name}.pxd").exists()]
    assert {"_layout", "_generator", "_er", "_rows"} <= set(ours)
    assert all(f"cython_core/{name}.pxd" in members for name in ours)
    assert {"src/fracas/rulesets/er/strikes.py", "src/fracas/rulesets/er/strikes.pxd"} <= members
    shared = re.findall(r'^include "(fracas/[^"]+)"', (ROOT / "cython_core/fights.pyx").read_text(), re.M)
    assert shared and {f"src/{name}" for name in shared} | {"src/fracas/_pure/rules.py"} <= members


def test_the_sdist_carries_the_licence_the_tests_and_the_docs(shipped):
    members, _, license_text = shipped
    assert {"LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml", "setup.py", "MANIFEST.in",
            "mkdocs.yml", "scripts/docs_hooks.py"} <= members
    for prefix in ("tests/", "docs/", "examples/"):
        missing = [name for name in tracked_files() if name.startswith(prefix) and name not in members]
        assert not missing, f"the sdist lacks {missing}"
    assert not [name for name in members if name.endswith((".so", ".pyd", ".pyc"))]
    assert license_text.startswith("MIT License") and "Copyright (c) 2026 fracas contributors" in license_text


def test_the_metadata_names_what_pip_and_pypi_read(shipped):
    _, metadata, _ = shipped
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    requires = metadata.get_all("Requires-Dist")
    # config.toml is read with tomllib (Python 3.11+); 3.10 needs tomli at run time.
    assert any(re.fullmatch(r'tomli>=[\d.]+; python_version < "3\.11"', line) for line in requires), requires
    urls = dict(line.split(", ", 1) for line in metadata.get_all("Project-URL"))
    assert {"Documentation", "Source", "Issues", "Changelog"} <= set(urls), urls
    assert all(url.startswith("https://") for url in urls.values())
    classifiers = metadata.get_all("Classifier")
    versions = [c.rsplit(" :: ", 1)[1] for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    assert versions == [f"3.{minor}" for minor in range(10, 10 + len(versions))] and "3.14" in versions
    assert metadata["Requires-Python"] == f">={versions[0]}"
    assert "Topic :: Games/Entertainment :: Role-Playing" in classifiers
    assert "docs" in metadata.get_all("Provides-Extra")
