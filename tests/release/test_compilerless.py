"""A fresh venv on a machine without a C compiler: the sdist still installs (pure-Python
kernels), and every command that would be slow says so, loudly, with what to do."""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path

import pytest

from .conftest import venv_beside

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compilerless(tmp_path_factory, sdist):
    """The shipped sdist installed into a new venv, with `cc` failing."""
    if importlib.util.find_spec("setuptools") is None:
        pytest.skip("setuptools is not installed (the test extra installs it)")
    tmp = tmp_path_factory.mktemp("compilerless")
    # The dependencies (and pip, setuptools, Cython) come from this environment: no network needed.
    python = venv_beside(tmp / "venv", fracas_too=False)
    # PIP_NO_CACHE_DIR: pip caches a wheel built from a local sdist by its path; this one,
    # built without a compiler, must not stand in for the next install of the same sdist.
    env = {**os.environ, "CC": "false", "CXX": "false", "LDSHARED": "false", "PIP_NO_INDEX": "1",
           "PIP_NO_CACHE_DIR": "1"}
    for name in ("FRACAS_REQUIRE_COMPILED", "FRACAS_PUREPYTHON", "CIBUILDWHEEL"):  # the fallback is allowed here
        env.pop(name, None)
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps",
                              str(sdist)], capture_output=True, text=True, env=env, cwd=tmp)
    assert install.returncode == 0, install.stdout + install.stderr
    return python, env, tmp


def run(python, env, cwd, *args):
    return subprocess.run([str(python), "-m", "fracas", *args], capture_output=True, text=True, env=env, cwd=cwd)


def test_the_install_falls_back_to_pure_python(compilerless):
    python, env, cwd = compilerless
    probe = subprocess.run([str(python), "-c", "import fracas; print(fracas.backend, fracas.__file__)"],
                           capture_output=True, text=True, env=env, cwd=cwd)
    backend, where = probe.stdout.split()
    assert backend == "python"
    assert str(cwd) in where  # the venv's fracas, not this environment's


def test_attack_warns_loudly_and_still_answers(compilerless):
    python, env, cwd = compilerless
    result = run(python, env, cwd, "attack", "--dice", "3", "--ac", "14", "--str", "4", "--seed", "1")
    assert result.returncode == 0, result.stderr
    assert "Total damage" in result.stdout
    assert result.stderr.startswith("warning: the compiled core is not installed")
    assert "Install a C compiler (build-essential) and reinstall" in result.stderr


def test_doctor_says_which_backend_and_why(compilerless):
    python, env, cwd = compilerless
    result = run(python, env, cwd, "doctor")
    assert "python" in result.stdout
    assert "the compiled core is not installed" in result.stdout + result.stderr


def test_the_installed_package_finds_every_ruleset_by_its_manifest(compilerless):
    """The packages are discovered (setup.py) and each ruleset folder's manifest.toml and
    the example scenarios ship as package data: the installed fracas registers them all."""
    python, env, cwd = compilerless
    probe = subprocess.run([str(python), "-c", "import fracas; print(*(m.source for m in fracas.rulesets.manifests()));"
                            " print(*fracas.rulesets()); import fracas.drive.scenario as s; print(*s.examples())"],
                           capture_output=True, text=True, env=env, cwd=cwd)
    assert probe.returncode == 0, probe.stderr
    sources, names, examples = probe.stdout.splitlines()
    assert names.split() == ["enchanted-realms", "worldwalker", "cartyrion", "old-school"]
    assert sources.split() == [f"fracas/rulesets/{folder}/manifest.toml" for folder in ("er", "ww", "ct", "oldschool")]
    assert {"er-skeleton-horde", "ww-duel", "ct-hill-giant", "os-goblin-ambush"} <= set(examples.split())


def test_the_installed_package_carries_the_public_pxd_surface(compilerless):
    """Issue 45 item 2: an installed fracas (setup.py's build_py, the same for the wheel) carries
    the generator's public .pxd files in fracas/include, byte for byte cython_core's, and
    `fracas.dice.get_include()` names that folder; a stream in C needs the compiled core and
    says so."""
    python, env, cwd = compilerless
    probe = subprocess.run([str(python), "-c", "import os, fracas.dice as d\n"
                            "print(d.get_include()); print(*sorted(os.listdir(d.get_include())))\n"
                            "try:\n    d.stream(1)\nexcept RuntimeError as e:\n    print(e)"],
                           capture_output=True, text=True, env=env, cwd=cwd)
    assert probe.returncode == 0, probe.stderr
    folder, names, refused = probe.stdout.splitlines()
    assert folder.startswith(str(cwd)) and folder.endswith(os.path.join("fracas", "include"))
    assert names.split() == ["_generator.pxd", "_layout.pxd", "fracas_dice.pxd", "fracas_rows.pxd"]
    for name in names.split():
        assert Path(folder, name).read_bytes() == (ROOT / "cython_core" / name).read_bytes(), name
    assert refused.startswith("fracas.dice.stream needs the compiled core: the compiled core is not installed")
