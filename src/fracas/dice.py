"""Dice in Python: the generator (or injected faces) behind one `die(n)` call.

ER follow-ups, initiative and any ruleset that rolls outside the compiled core draw
through `Dice`. It shares its state buffer with the compiled kernels, so a ruleset may
roll part of an attack in the core and the rest here, in one draw order
(docs/ENGINE.md §2). The pure-Python kernels draw through its base, `_draw.Draw`.

A compiled plug-in draws from the same streams in C: `get_include()` is the folder of the
generator's public .pxd surface (`from fracas_dice cimport Dice, draw, ...`), and
`stream(seed)` a stream whose `capsule` holds its C state (docs/ADDING_A_RULESET.md
"A compiled kernel").
"""

from __future__ import annotations

from array import array
from pathlib import Path
from typing import Any, Optional, Sequence

from . import _kernels
from ._draw import Draw, KernelError
from ._layout import I_POS, INFO_WIDTH
from .rng import SEED_LIMIT, Xoshiro128

__all__ = ["CAPSULE_NAME", "Dice", "KernelError", "get_include", "kernel_info", "stream"]

#: The name of the PyCapsule `stream(...).capsule` is: it holds a `Dice*` (fracas_dice.pxd).
CAPSULE_NAME = "fracas.Dice"

_FOUR_ZEROS = (0, 0, 0, 0)


def kernel_info(pos: int = 0) -> array[int]:
    """The call info an ER or row kernel reads and fills (the spec's I_ slots): the
    injected faces start at `pos`; the kernel writes where they stopped, the log entries
    it used and where an error happened."""
    info = array("q", bytes(8 * INFO_WIDTH))
    info[I_POS] = pos
    return info

#: The largest die the compiled `die` draws (larger ones take the Python generator).
_C_DIE_LIMIT = 1 << 21


class Dice(Draw):
    """`Draw`, whose generator faces come from the active backend (the compiled core
    draws them in C: the same faces, the same state after)."""

    __slots__ = ()

    @classmethod
    def from_seed(cls, seed: int, rolls: Optional[array[int]] = None) -> "Dice":
        """A stream for one request: the seed's generator, or its injected faces."""
        if not 0 <= seed < SEED_LIMIT:
            raise ValueError(f"seed must be 0 <= seed < 2**64, got {seed}")
        state = array("I", _FOUR_ZEROS)
        _kernels.active().seed_state(seed, state)  # the compiled core does it in C
        return cls(state, rolls, 0)

    def die(self, n: int) -> int:
        """One face 1..n; raises KernelError when injected faces run out or do not fit."""
        if self.rolls is None:
            kernel = _kernels.active()
            # The compiled core draws it in C when the state is its buffer type: the same
            # face and the same state after, as the Python generator's (one draw order).
            if kernel.BACKEND == "compiled" and isinstance(self.s, array) and n <= _C_DIE_LIMIT:
                face: int = kernel.die(self.s, n)
                return face
            return Xoshiro128.die(self, n)
        return Draw.die(self, n)


def get_include() -> str:
    """The folder of the generator's public .pxd surface (`fracas_dice.pxd` and what it
    cimports), for a compiled plug-in's build: `cythonize(..., include_path=[get_include()])`.
    An installed fracas carries it as fracas/include (setup.py: build_py); a source checkout
    (or its editable install) has the same files in cython_core/."""
    package = Path(__file__).resolve().parent
    for folder in (package.parent.parent / "cython_core", package / "include"):
        if (folder / "fracas_dice.pxd").is_file():
            return str(folder)
    raise FileNotFoundError(f"fracas_dice.pxd is in neither {package / 'include'} nor a source checkout's "
                            "cython_core/: this fracas was installed without its .pxd files")


def stream(seed: int, rolls: Optional[Sequence[int]] = None) -> Any:
    """A dice stream in C (`fracas._core.generator.Stream`): the seed's generator, or the
    injected faces `rolls`. Its `die(n)` draws as `Dice.from_seed(seed, rolls).die(n)`
    does, and its `capsule` (named `CAPSULE_NAME`) holds its `Dice*` for a compiled
    plug-in's kernel, which draws on from where Python left it: one stream, one draw order.
    It needs the compiled core installed (a RuntimeError says why it is not), whichever
    backend is active: the stream is C whatever the rulesets run on."""
    if not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"seed must be 0 <= seed < 2**64, got {seed}")
    if _kernels.compiled is None:
        raise RuntimeError(f"fracas.dice.stream needs the compiled core: {_kernels.why()}")
    stream_type: Any = getattr(_kernels.compiled.generator, "Stream", None)
    if stream_type is None:
        raise RuntimeError("fracas.dice.stream needs a compiled core built from this fracas: rebuild it "
                           "(pip install . again)")
    return stream_type(seed, None if rolls is None else array("i", rolls))
