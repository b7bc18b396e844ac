"""One regenerate command: `python -m fracas.spec` remakes every generated and fixture
file in order, and `--check` (run here, so CI runs it) fails on any stale one, naming
the file and the command that regenerates it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fracas.spec import regen

ROOT = Path(__file__).resolve().parents[2]
TOOLS = "vtt_scripts/roll20/test/tools"
FIXTURES = "vtt_scripts/roll20/test/fixtures"

pytestmark = pytest.mark.skipif(not (ROOT / "cython_core").is_dir(), reason="not run from a source checkout")


@pytest.fixture(scope="module")
def report() -> regen.Report:
    return regen.check(ROOT)


def test_every_generated_and_fixture_file_is_current(report):
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the Roll20 bundles cannot be checked")
    assert report.skipped == []
    assert report.stale == [], "run `python -m fracas.spec` and commit: " + repr(report.stale)


def test_the_check_covers_every_vector_generator_and_fixture(report):
    """A new generator or a fixture nobody makes would escape the check."""
    commands = " ".join(step.command for step in regen.STEPS)
    for script in sorted((ROOT / "tests" / "vectors").glob("generate*.py")):
        assert f"python tests/vectors/{script.name}" in commands
    committed = {p.relative_to(ROOT).as_posix()
                 for folder in ("tests/vectors", FIXTURES) for p in (ROOT / folder).glob("*.json")}
    assert committed and committed <= set(report.files), committed - set(report.files)
    for path in ("bridge/schema.json", "src/fracas/_facts.py", "vtt_scripts/roll20/fracas.js"):
        if path.endswith(".js") and shutil.which("node") is None:
            continue
        assert path in report.files


def test_the_steps_run_in_order():
    """The spec first (the bundles include its facts.js), the bundles, then the vectors."""
    commands = [step.command for step in regen.STEPS]
    assert commands[0] == "python -m fracas.spec"
    assert commands[1] == "node vtt_scripts/roll20/build.js"
    assert all(command.startswith("python ") for command in commands[2:])


def _fixture_copy(tmp_path: Path) -> tuple[Path, list[regen.Step]]:
    """A checkout holding only the Roll20 fixture tools, their fixtures and the d6-pool
    package one of them reads (docs/examples/d6pool)."""
    for folder in (TOOLS, FIXTURES, "docs/examples/d6pool"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    (tmp_path / "cython_core").mkdir()
    steps = [step for step in regen.STEPS if step.command.startswith(f"python {TOOLS}/")]
    assert len(steps) == 3
    return tmp_path, steps


def test_an_edited_fixture_is_stale_and_named_with_its_command(tmp_path, monkeypatch, capsys):
    root, steps = _fixture_copy(tmp_path)
    assert regen.check(root, steps).stale == []
    fixture = root / FIXTURES / "rng_known_answers.json"
    fixture.write_text(fixture.read_text().replace('"dice":{"2":[2,', '"dice":{"2":[1,', 1))
    assert regen.check(root, steps).stale == [
        (f"{FIXTURES}/rng_known_answers.json", f"python {TOOLS}/rng_answers.py")]

    monkeypatch.setattr(regen, "STEPS", steps)
    assert regen.main(["--check"], root=root) == 1
    err = capsys.readouterr().err
    assert f"{FIXTURES}/rng_known_answers.json  python {TOOLS}/rng_answers.py" in err
    assert fixture.read_text() != (ROOT / FIXTURES / "rng_known_answers.json").read_text()  # check wrote nothing

    assert regen.main([], root=root) == 0  # regenerate: byte for byte the committed file again
    assert fixture.read_bytes() == (ROOT / FIXTURES / "rng_known_answers.json").read_bytes()
    capsys.readouterr()
    assert regen.main(["--check"], root=root) == 0
    assert "4 generated and fixture files are up to date" in capsys.readouterr().out


def test_a_missing_fixture_is_stale(tmp_path):
    root, steps = _fixture_copy(tmp_path)
    (root / FIXTURES / "initiative_cross_check.json").unlink()
    assert regen.check(root, steps).stale == [
        (f"{FIXTURES}/initiative_cross_check.json", f"python {TOOLS}/er_fuzz.py write")]


def test_the_d6_pool_contract_follows_the_package(tmp_path):
    """The JavaScript tests' copy of the d6 pool's contract entry is made from the package
    (docs/examples/d6pool): a field added to its Attacker makes the fixture stale."""
    root, steps = _fixture_copy(tmp_path)
    package = root / "docs" / "examples" / "d6pool" / "d6pool" / "__init__.py"
    package.write_text(package.read_text().replace("    extra: int = 0\n", "    extra: int = 0\n    luck: int = 0\n", 1))
    import sys

    held = sys.modules.pop("d6pool", None)  # the package as edited, not one imported before
    try:
        stale = regen.check(root, steps).stale
    finally:
        sys.modules.pop("d6pool", None)
        if held is not None:
            sys.modules["d6pool"] = held
    assert stale == [(f"{FIXTURES}/d6pool_contract.json", f"python {TOOLS}/d6pool_contract.py")]


def test_without_node_the_bundles_are_skipped_with_a_message(monkeypatch, capsys, tmp_path):
    (tmp_path / "cython_core").mkdir()
    monkeypatch.setattr(regen.shutil, "which", lambda name: None)
    bundles = [step for step in regen.STEPS if step.command.startswith("node ")]
    report = regen.check(tmp_path, bundles)
    assert report.stale == [] and report.files == []
    assert len(report.skipped) == 1 and "node vtt_scripts/roll20/build.js" in report.skipped[0]
    monkeypatch.setattr(regen, "STEPS", bundles)
    assert regen.main([], root=tmp_path) == 0
    assert "node is not on PATH: the Roll20 bundles were not rebuilt" in capsys.readouterr().err


def test_a_wrong_argument_is_refused(capsys):
    assert regen.main(["--chek"]) == 2
    assert "usage: python -m fracas.spec [--check]" in capsys.readouterr().err


def test_an_install_that_is_not_a_checkout_says_what_it_needs(capsys, tmp_path):
    # What `pip install .` gives: the package in site-packages, whose top level has no cython_core/.
    assert regen.main(["--check"], root=tmp_path) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path} is not a source checkout" in err
    assert "source checkout with an editable install" in err and "`pip install -e .`" in err
    assert str(Path(regen.generate.__file__).resolve().parents[1]) in err  # where this fracas runs from
