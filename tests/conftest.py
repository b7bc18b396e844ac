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
