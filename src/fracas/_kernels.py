"""Choose the kernel backend: the compiled core when it is there, pure Python otherwise.

`FRACAS_PUREPYTHON=1` forces the pure-Python kernels. Tests and benchmarks switch
with `use()` / `using()`; the public API always asks `active()`.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
from types import ModuleType

from . import _native as python

import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

from . import _layout
from ._pure import rules


def stale_reason(module: ModuleType) -> Optional[str]:
    """Why a compiled core does not fit this fracas (built from an older checkout: a
    stale build/ reused), or None when it fits: it (and each extension module it lists
    in `MODULES`) must have the same array layout, and it every kernel the pure-Python
    twin has."""
    for part in [module, *getattr(module, "MODULES", ())]:  # the package, then each extension module
        layout = getattr(part, "LAYOUT", None)
        where = "" if part is module else f" in {part.__name__}"
        if not isinstance(layout, dict):
            return f"it has no layout table{where}"
        names = set(layout) | {name for name in vars(_layout) if name.isupper()}
        differ = sorted(name for name in names if layout.get(name) != getattr(_layout, name, None))
        if differ:
            return f"its array layout differs{where} ({', '.join(differ[:5])}{' …' if len(differ) > 5 else ''})"
        shared = getattr(part, "SHARED_RULES", None)  # the rule files a fight loop includes
        if shared is not None:
            why = rules_stale(shared, getattr(part, "RULES_DIGEST", ""))
            if why:
                return why + where
    kernels = [name for name, value in vars(python).items()
               if not name.startswith("_") and inspect.isfunction(value) and value.__module__ == python.__name__]
    missing = sorted(name for name in kernels if not hasattr(module, name))
    if missing:
        return f"it lacks the kernel(s) {', '.join(missing)}"
    return None


def rules_stale(paths: Any, built: str) -> Optional[str]:
    """Why a fight loop built from the rule files `paths` (fracas._pure.rules) with the
    digest `built` would not play this install's rules (None: it would)."""
    if not paths:
        return "its fight loop names no rule files"
    try:
        now = rules.digest(Path(__file__).resolve().parent.parent, paths)
    except OSError as exc:
        return f"a rule file its fight loop was built from is not installed ({exc.filename})"
    if now != built:
        return f"its fight loop was built from other rule files than these ({', '.join(paths)})"
    return None


#: Why the compiled core that is installed is not used (None when it is, or is absent).
stale: Optional[str] = None
#: The compiled core, the package `fracas._core` gathering its extension modules (None when
#: it is not built, or stale).
compiled: Optional[ModuleType]
try:
    from . import _core as _built
except ImportError:  # a source install without a C compiler: its extension modules are absent
    compiled = None
else:
    stale = stale_reason(_built)
    # never run kernels that disagree with the Python side
    compiled = _built if stale is None else None

_FORCE_PURE = os.environ.get("FRACAS_PUREPYTHON", "") not in ("", "0")

_active: ModuleType = python if (_FORCE_PURE or compiled is None) else compiled


def active() -> ModuleType:
    """The kernel backend in use: `fracas._core` (a package gathering the compiled
    modules' kernels) or `fracas._native`."""
    return _active


def name() -> str:
    """"compiled" or "python"."""
    backend: str = _active.BACKEND
    return backend


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
def using(backend: str) -> Iterator[None]:
    """Run a block on one backend, then restore the previous one."""
    previous = _active.BACKEND
    use(backend)
    try:
        yield
    finally:
        use(previous)


def why() -> str:
    """Why this backend runs, in words (for `fracas doctor` and the fallback warning)."""
    if stale is not None:
        return (f"the compiled core in this install is stale ({stale}): it was built from an older fracas,"
                " perhaps from a build/ directory left over; rebuild it (delete build/, then `pip install .`"
                " or `pip install -e .` again). Meanwhile the pure-Python kernels run, a few hundred times"
                " slower")
    if compiled is None:
        return ("the compiled core is not installed: fracas was built without a C compiler (or the build "
                "failed), so the pure-Python kernels run, a few hundred times slower")
    if _FORCE_PURE:
        return "FRACAS_PUREPYTHON is set: the pure-Python kernels run although the compiled core is installed"
    return "the compiled core is installed and in use"


def pure_python(module: ModuleType) -> ModuleType:
    """The plain-Python source of `module`, a .py file setup.py may also have compiled with
    Cython ("pure Python mode", e.g. `fracas.rulesets.er.strikes`): `module` itself when it
    runs as Python, else its .py file loaded once more under the name `<name>_py`. The
    pure-Python backend runs this one, so the test suite checks the source and its
    compiled build against each other (a build older than its .py shows as a difference)."""
    source = str(getattr(module, "__file__", "") or "")
    if source.endswith(".py"):
        return module
    name = f"{module.__name__}_py"
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    path = os.path.join(os.path.dirname(source), module.__name__.rpartition(".")[2] + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None or not os.path.exists(path):  # a wheel stripped of its .py
        return module
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded
    spec.loader.exec_module(loaded)
    return loaded


def missing_compiled() -> bool:
    """True when the compiled core is not installed (not when it is switched off on purpose)."""
    return compiled is None
