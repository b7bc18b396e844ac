"""The sdist under test: the one scripts/test.sh built and installed ($FRACAS_SDIST), or,
run alone, one built here from the checkout's tracked files (what a fresh clone holds)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def tracked_files() -> list[str]:
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not run from a git checkout")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [name for name in listed.decode().split("\0") if name and (ROOT / name).is_file()]


def copy_checkout(target: Path) -> Path:
    """The tracked files only: no build/, no compiled core, no egg-info left in the tree."""
    for name in tracked_files():
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target / name)
    return target


@pytest.fixture(scope="session")
def sdist(tmp_path_factory) -> Path:
    shipped = os.environ.get("FRACAS_SDIST")
    if shipped:
        assert Path(shipped).is_file(), f"FRACAS_SDIST={shipped} does not exist"
        return Path(shipped)
    for module in ("build", "setuptools", "Cython"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed (the test extra installs it)")
    tmp = tmp_path_factory.mktemp("sdist")
    source = copy_checkout(tmp / "source")
    env = {key: value for key, value in os.environ.items() if not key.startswith("FRACAS_")}
    built = subprocess.run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(tmp / "dist"),
                            str(source)], capture_output=True, text=True, env=env)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (found,) = (tmp / "dist").glob("fracas-*.tar.gz")
    return found


def venv_beside(venv: Path, *, fracas_too: bool) -> Path:
    """A new venv without pip of its own, seeing this environment's packages through a .pth
    file, so nothing is downloaded or built twice; returns its python. With `fracas_too`, the
    fracas under test is this environment's (the wheel or sdist scripts/test.sh installed,
    or a checkout's editable install: its .pth files are processed too) and a package
    installed into the venv goes beside it; without, only the dependencies (pip,
    setuptools, Cython, msgspec …) are seen, for a venv that installs a fracas of its own."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    ours = list(dict.fromkeys([sysconfig.get_paths()["purelib"], *site.getsitepackages()]))
    if fracas_too:  # as site directories: their .pth files (an editable install's finder) count
        lines = [f"import site; site.addsitedir({path!r})" for path in ours]
    else:
        lines = ours
    Path(purelib, "outer.pth").write_text("\n".join(lines) + "\n")
    return python
