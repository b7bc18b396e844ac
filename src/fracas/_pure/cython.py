"""What the shared rule files need of Cython's `cython` module when Cython is not installed.

The rule files written once for both fight loops (`rulesets/ct/turn.py`,
`rulesets/oldschool/morale.py`: see `cython_core/fights.pyx`) are plain Python in Cython's
"pure Python mode": compiled into the fight loop, they read their C types from the `cython`
module's decorators and names. Run as Python they only need those to exist and do nothing,
which Cython's own `cython` module gives when it is installed (it is a build dependency,
not a run-time one); on an install without it, this module stands in: the same names, the
C integer types as `int`, decorators that return the function unchanged, `declare` that
returns the value. It is also what the type checker reads for those files.
"""

from __future__ import annotations

from typing import Annotated, Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

compiled = False
# The C types the rule files' annotations name (a Python int holds each).
int = int  # Cython's name for a C int
longlong = int
Py_ssize_t = int
bint = bool
# Pointers (`rulesets/rolloffs.py`): as plain Python, what is passed for them: a list of ints,
# any object (`p_void`), the pointed-to type itself (`pointer[Dice]`: the Dice).
p_int = list[int]
p_longlong = list[int]
p_void = Any
pointer = Annotated[T, "a C pointer"]


def _same(func: F) -> F:
    return func


class _Const:
    """`cython.const[T]`: a C constant of type T; as plain Python, T."""

    def __getitem__(self, kind: T) -> T:
        return kind


const = _Const()


cfunc = ccall = inline = nogil = _same


def declare(_type: Callable[..., T], value: T) -> T:
    """A C variable of `_type` with `value`: as plain Python, the value."""
    return value


def exceptval(*_args: Any, **_kwargs: Any) -> Callable[[F], F]:
    """How a C function reports an exception: nothing to do in plain Python."""
    return _same
