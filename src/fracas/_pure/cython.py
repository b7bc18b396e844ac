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

from collections.abc import MutableSequence
from typing import TYPE_CHECKING, Annotated, Any, Callable, TypeAlias, TypeVar

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

compiled = False
# The C types the rule files' annotations name (a Python int holds each).
int = int  # Cython's name for a C int
longlong = int
uint = int
ulonglong = int
Py_ssize_t = int
bint = bool
double = float
# The C integer types of the compiled loop's tables (`cython_core/fights.pyx`), which a round
# procedure names as C names (`int32_t`: the plan rows' type) in its annotations.
int32_t = int
int64_t = int
uint32_t = int
void: TypeAlias = None
#: A null pointer, as Python: None (what a rule file tests for: `marks is not None`)
NULL: Any = None
# Pointers (`rulesets/rolloffs.py`): as plain Python, what is passed for them: a list or array of ints,
# any object (`p_void`), the pointed-to type itself (`pointer[Dice]`: the Dice).
p_int = MutableSequence[int]
p_longlong = MutableSequence[int]
p_void = Any
pointer = Annotated[T, "a C pointer"]


def _same(func: F) -> F:
    return func


class _Const:
    """`cython.const[T]`: a C constant of type T; as plain Python, T."""

    def __getitem__(self, kind: T) -> T:
        return kind


if TYPE_CHECKING:  # `const[T]` in an annotation (`pointer[const[FightPlan]]`) is T to the type checker
    const = Annotated[T, "a C constant"]
else:
    const = _Const()


cfunc = ccall = inline = nogil = _same


class _Gil:
    """`with cython.gil:` (a nogil function calling Python) as plain Python: nothing to take."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *_exc: Any) -> None:
        return None


gil = _Gil()


def cast(_type: Any, value: T) -> T:
    """A C cast: as plain Python, the value (the round procedures cast only where C's
    integer types need it, never a pointer: `if cython.compiled:` holds those)."""
    return value


def declare(_type: Callable[..., T], value: T) -> T:
    """A C variable of `_type` with `value`: as plain Python, the value."""
    return value


def exceptval(*_args: Any, **_kwargs: Any) -> Callable[[F], F]:
    """How a C function reports an exception: nothing to do in plain Python."""
    return _same
