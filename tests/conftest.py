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
    """A test that leaves sys.path changed poisons every later multi-process test: spawned
    workers get the parent's sys.path and may import another fracas (a checkout's src/
    without the compiled core) than the one under test. Put back, and the test fails."""
    import sys

    before = list(sys.path)
    yield
    if sys.path != before:
        added = [p for p in sys.path if p not in before]
        removed = [p for p in before if p not in sys.path]
        sys.path[:] = before
        pytest.fail(f"{request.node.nodeid} left sys.path changed (added {added}, removed {removed})")
