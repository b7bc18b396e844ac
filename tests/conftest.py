"""Shared fixtures. The suite runs twice in CI: once on the compiled core, once with
FRACAS_PUREPYTHON=1 on the pure-Python kernels (scripts/test.sh)."""

import pytest

import fracas
from fracas import _kernels


def pytest_report_header(config):
    return f"fracas backend: {fracas.backend} (available: {', '.join(_kernels.available())})"


@pytest.fixture
def both_backends():
    """Skip unless both backends are installed (parity tests)."""
    if _kernels.compiled is None:
        pytest.skip("the compiled core is not built in this install")
    return ("compiled", "python")


@pytest.fixture(autouse=True)
def _sys_path_left_as_found(request):
    """A test that leaves a folder of this checkout on sys.path poisons every later
    multi-process test: spawned workers get the parent's sys.path and may import another
    fracas (the checkout's src/, without the compiled core) than the one under test. Taken
    off again, and the test fails. (What a library adds itself, such as setuptools' vendored
    packages, is its business.)"""
    import sys
    from pathlib import Path

    checkout = Path(__file__).resolve().parents[1]
    before = set(sys.path)
    yield
    ours = [p for p in sys.path if p not in before and p and Path(p).resolve().is_relative_to(checkout)
            and "site-packages" not in Path(p).parts]
    if ours:
        for path in ours:
            sys.path.remove(path)
        pytest.fail(f"{request.node.nodeid} left sys.path changed: {ours}")
