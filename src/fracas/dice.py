"""Dice in Python: the generator (or injected faces) behind one `die(n)` call.

ER follow-ups, initiative and any ruleset that rolls outside the compiled core draw
through `Dice`. It shares its state buffer with the compiled kernels, so a ruleset may
roll part of an attack in the core and the rest here, in one draw order
(docs/ENGINE.md §2). The pure-Python kernels draw through its base, `_draw.Draw`.
"""

from __future__ import annotations

from array import array
from typing import Optional

from . import _kernels
from ._draw import Draw, KernelError
from ._layout import I_POS, INFO_WIDTH
from .rng import SEED_LIMIT, Xoshiro128

__all__ = ["Dice", "KernelError", "kernel_info"]

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
