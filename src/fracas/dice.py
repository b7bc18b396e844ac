"""Dice in Python: the generator (or injected faces) behind one `die(n)` call.

Kernels written in Python (`_native`), ER follow-ups, initiative and any ruleset
that rolls outside the compiled core draw through `Dice`. It shares its state
buffer with the compiled kernels, so a ruleset may roll part of an attack in the
core and the rest here, in one draw order (docs/ENGINE.md §2).
"""

from __future__ import annotations

from array import array
from typing import Any, Optional

from . import _kernels  # (a cycle: _kernels imports this through _native; used at call time only)
from ._layout import E_ROLL_RANGE, E_ROLLS_SHORT
from .rng import SEED_LIMIT, Xoshiro128

_FOUR_ZEROS = (0, 0, 0, 0)
#: The largest die the compiled `die` draws (larger ones take the Python generator).
_C_DIE_LIMIT = 1 << 21


class KernelError(Exception):
    """A kernel stopped: `code` is a `_layout.E_*` code, `where` the strike, `position` the roll."""

    def __init__(self, code: int, where: int = -1, position: int = -1, faces: int = 0):
        super().__init__(code, where, position)
        self.code, self.where, self.position, self.faces = code, where, position, faces


class Dice(Xoshiro128):
    """Draws faces from the generator state, or from injected rolls.

    `state` is the four-word xoshiro128** state (an `array('I')` or a list), shared
    with the caller; `rolls` the injected faces or None; `pos` the next injected face.
    `strike` is stamped into errors so the caller can say which strike ran out.
    """

    __slots__ = ("rolls", "pos", "strike")

    def __init__(self, state: Any, rolls: Optional[array[int]] = None, pos: int = 0) -> None:
        self.s = state
        self.rolls = rolls
        self.pos = pos
        self.strike = -1

    @classmethod
    def from_seed(cls, seed: int, rolls: Optional[array[int]] = None) -> "Dice":
        """A stream for one request: the seed's generator, or its injected faces."""
        if not 0 <= seed < SEED_LIMIT:
            raise ValueError(f"seed must be 0 <= seed < 2**64, got {seed}")
        state = array("I", _FOUR_ZEROS)
        _kernels.active().seed_state(seed, state)  # the compiled core does it in C
        return cls(state, rolls, 0)

    @property
    def state(self) -> Any:
        """The generator state buffer the compiled kernels read and advance."""
        return self.s

    @property
    def injected(self) -> bool:
        return self.rolls is not None

    def die(self, n: int) -> int:
        """One face 1..n; raises KernelError when injected faces run out or do not fit."""
        rolls = self.rolls
        if rolls is None:
            kernel = _kernels.active()
            # The compiled core draws it in C when the state is its buffer type: the same
            # face and the same state after, as the Python generator's (one draw order).
            if kernel.BACKEND == "compiled" and isinstance(self.s, array) and n <= _C_DIE_LIMIT:
                face: int = kernel.die(self.s, n)
                return face
            return Xoshiro128.die(self, n)
        pos = self.pos
        if pos >= len(rolls):
            raise KernelError(E_ROLLS_SHORT, self.strike, pos)
        face = rolls[pos]
        if face < 1 or face > n:
            raise KernelError(E_ROLL_RANGE, self.strike, pos, n)
        self.pos = pos + 1
        return face
