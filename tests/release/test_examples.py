"""The guide's example plug-ins install and conform (issue 45, docs that run): docs/examples/d6pool
(the row kernel) and docs/examples/wilddie (the generic path) are installed with pip, as an
outside developer would, into a fresh venv beside the fracas under test (the wheel or sdist
scripts/test.sh installed: not built again), and the conformance suite (tests/conformance)
runs on both on the compiled core and on the pure-Python kernels (FRACAS_PUREPYTHON=1)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess

import pytest

import fracas

from .conftest import ROOT, venv_beside

EXAMPLES = ROOT / "docs" / "examples"
PLUGINS = {"d6pool": "d6-pool", "wilddie": "wild-die"}


@pytest.fixture(scope="module")
def examples_venv(tmp_path_factory):
    """A venv with both examples pip-installed (their pyproject.toml, their entry points)."""
    if not EXAMPLES.is_dir():
        pytest.skip("not run from a source checkout")
    if importlib.util.find_spec("setuptools") is None or importlib.util.find_spec("pip") is None:
        pytest.skip("pip and setuptools are not installed (the test extra installs them)")
    tmp = tmp_path_factory.mktemp("examples")
    python = venv_beside(tmp / "venv", fracas_too=True)
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_NO_CACHE_DIR": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("FRACAS_PUREPYTHON", None)
    # Built from copies: setuptools leaves build/ and *.egg-info beside the sources it builds.
    sources = [shutil.copytree(EXAMPLES / name, tmp / "src" / name) for name in PLUGINS]
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                              *map(str, sources)],
                             capture_output=True, text=True, env=env, cwd=tmp, timeout=600)
    assert install.returncode == 0, install.stdout + install.stderr
    return python, env, tmp


def test_both_install_with_pip_and_register_from_their_entry_points(examples_venv):
    python, env, cwd = examples_venv
    probe = subprocess.run([str(python), "-c", "import json, sys, fracas, d6pool, wilddie\n"
                            "print(json.dumps({'rulesets': list(fracas.rulesets()), 'failed': fracas.rulesets.failed(),"
                            " 'prefix': sys.prefix, 'where': [d6pool.__file__, wilddie.__file__],"
                            " 'fracas': fracas.__file__}))"],
                           capture_output=True, text=True, env=env, cwd=cwd, timeout=300)
    assert probe.returncode == 0, probe.stderr
    found = json.loads(probe.stdout)
    assert set(PLUGINS.values()) <= set(found["rulesets"]) and found["failed"] == {}
    assert all(path.startswith(found["prefix"]) for path in found["where"]), found  # pip's copies
    assert os.path.dirname(found["fracas"]) == os.path.dirname(fracas.__file__)  # the fracas under test


@pytest.mark.parametrize("backend", ["compiled", "python"])
def test_the_conformance_suite_passes_on_both_examples(examples_venv, backend):
    python, env, _cwd = examples_venv
    if backend == "compiled" and fracas.backend != "compiled":
        pytest.skip("the compiled core is not built")
    run_env = dict(env, FRACAS_PUREPYTHON="1") if backend == "python" else env
    done = subprocess.run([str(python), "-m", "pytest", "-v", "-p", "no:cacheprovider", "-k",
                           " or ".join(PLUGINS.values()), "tests/conformance"],
                          cwd=ROOT, env=run_env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " failed" not in done.stdout.splitlines()[-1], done.stdout[-2000:]
    # each ruleset's own: manifest, docs row, examples, its kinds, odds, errors, kinds it
    # lacks, injected faces, schema, result shapes, on this backend
    passed = {name: len(re.findall(rf"^tests/conformance/\S*\[[^\]]*{name}[^\]]*\] PASSED", done.stdout, re.M))
              for name in PLUGINS.values()}
    assert all(count >= 15 for count in passed.values()), (passed, done.stdout[-3000:])
