"""One source for shared facts: every generated file is what the spec makes now."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fracas import _facts, _layout
from fracas.spec import generate

REPO = Path(__file__).resolve().parents[2]


def test_no_generated_file_is_stale():
    """`python -m fracas.spec --check` in-process: regenerate in memory and compare."""
    assert generate.stale(REPO) == []


def test_the_check_command_fails_on_a_stale_file(tmp_path):
    """The check can fail: a copy of the tree with one generated file edited is caught."""
    for path in [*generate.OUTPUTS, generate.BIGJSON_SOURCE]:
        target = tmp_path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((REPO / path).read_text())
    (tmp_path / "cython_core" / "_layout.pxi").write_text("# edited by hand\n")
    assert generate.stale(tmp_path) == ["cython_core/_layout.pxi"]


def test_the_check_command_runs_from_a_checkout():
    """The whole check (spec, Roll20 bundles, vectors, fixtures: tests/release/test_regen.py)."""
    done = subprocess.run([sys.executable, "-m", "fracas.spec", "--check"], cwd=REPO / "src",
                          capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO / "src"), "PATH": os.environ.get("PATH", "")})
    assert done.returncode == 0, done.stderr
    assert "generated and fixture files are up to date" in done.stdout
    if shutil.which("node"):
        assert "node" not in done.stderr


def test_layout_widths_match_their_columns():
    facts = generate.load()
    assert _layout.PLAN_WIDTH == len(facts["layout"]["plan"]["columns"])
    assert _layout.OUT_WIDTH == len(facts["layout"]["out"]["columns"])
    assert _layout.N_TYPES == len(_facts.DAMAGE_TYPES)


def test_the_kernel_call_info_is_named_by_the_spec_everywhere():
    """The ER and row kernels' call info was an unnamed 5-slot array indexed by number in
    five places; its slots are the spec's [layout.info] now (I_POS … I_ERROR_FACES), in
    Python and Cython (the generated _layout.pxd the kernels cimport), and no kernel or caller indexes it by a bare number. The JavaScript
    resolvers throw their errors and have no info array: the block is not in facts.js."""
    facts = generate.load()
    names = [name for name, _doc in facts["layout"]["info"]["columns"]]
    assert [getattr(_layout, "I_" + name) for name in names] == list(range(len(names))) == \
        list(range(_layout.INFO_WIDTH))
    pxd = (REPO / "cython_core" / "_layout.pxd").read_text()
    assert all(f"I_{name} = {i}" in pxd for i, name in enumerate(names))
    assert "INFO_WIDTH" not in (REPO / "vtt_scripts" / "roll20" / "src" / "facts.js").read_text()
    sources = [*(REPO / "cython_core").glob("*.py*"), *(REPO / "src" / "fracas").rglob("*.py"),
               *(REPO / "benchmarks").glob("*.py")]
    bare = [f"{p.relative_to(REPO)}:{n}" for p in sources for n, line in enumerate(p.read_text().splitlines(), 1)
            if re.search(r"\binfo\[\d\]", line) and "group_info" not in line]  # a group's (name, …) tuple
    assert bare == []


@pytest.mark.parametrize("key, template", sorted(_facts.MESSAGES.items()))
def test_every_message_template_is_used_by_python_and_javascript(key, template):
    """A template that no code says is dead; one only Python says would drift from the JS resolver."""
    python = "\n".join(p.read_text() for p in (REPO / "src" / "fracas").rglob("*.py")
                       if p.name not in ("_facts.py",))
    js = "\n".join(p.read_text() for p in (REPO / "vtt_scripts" / "roll20" / "src").rglob("*.js")
                   if p.name != "facts.js")
    assert f'"{key}"' in python or f"'{key}'" in python, f"{key} is not used in Python"
    assert f"'{key}'" in js, f"{key} is not used by the JavaScript resolver"


def test_bridge_error_codes_come_from_the_spec():
    from fracas.bridge import errors

    for name, value in generate.load()["error_codes"].items():
        assert getattr(errors, name) == value[0]
