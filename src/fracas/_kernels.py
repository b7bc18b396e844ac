"""Choose the kernel backend: the compiled core when it is there, pure Python otherwise.

`FRACAS_PUREPYTHON=1` forces the pure-Python kernels. Tests and benchmarks switch
with `use()` / `using()`; the public API always asks `active()`.
"""

from __future__ import annotations

import contextlib
import os
from types import ModuleType

from . import _native as python

try:
    from . import _core as compiled
except ImportError:  # a source install without a C compiler
    compiled = None

_FORCE_PURE = os.environ.get("FRACAS_PUREPYTHON", "") not in ("", "0")

_active: ModuleType = python if (_FORCE_PURE or compiled is None) else compiled


def active() -> ModuleType:
    """The kernel module in use (`fracas._core` or `fracas._native`)."""
    return _active


def name() -> str:
    """"compiled" or "python"."""
    return _active.BACKEND


def available() -> list[str]:
    """The backends this install has."""
    return ["compiled", "python"] if compiled is not None else ["python"]


def use(backend: str) -> None:
    """Switch the backend for this process ("compiled" or "python")."""
    global _active
    if backend == "python":
        _active = python
    elif backend == "compiled":
        if compiled is None:
            raise RuntimeError("the compiled core is not built in this install")
        _active = compiled
    else:
        raise ValueError(f"unknown backend {backend!r}: use 'compiled' or 'python'")


@contextlib.contextmanager
def using(backend: str):
    """Run a block on one backend, then restore the previous one."""
    previous = _active.BACKEND
    use(backend)
    try:
        yield
    finally:
        use(previous)


def why() -> str:
    """Why this backend runs, in words (for `fracas doctor` and the fallback warning)."""
    if compiled is None:
        return ("the compiled core is not installed: fracas was built without a C compiler (or the build "
                "failed), so the pure-Python kernels run, a few hundred times slower")
    if _FORCE_PURE:
        return "FRACAS_PUREPYTHON is set: the pure-Python kernels run although the compiled core is installed"
    return "the compiled core is installed and in use"


def missing_compiled() -> bool:
    """True when the compiled core is not installed (not when it is switched off on purpose)."""
    return compiled is None
