"""Faces in pure Python: the generator or injected faces, and the kernels' error.

The lowest layer of the dice: the pure-Python kernels (`_native`) draw through `Draw`,
and `fracas.dice.Dice` extends it with the compiled core's faster draw. Neither this
module nor `_native` imports the backend switch (`_kernels`), which imports them.
"""

from __future__ import annotations

from array import array
from typing import Any, Optional

from ._layout import E_ROLL_RANGE, E_ROLLS_SHORT
from .rng import Xoshiro128


class KernelError(Exception):
    """A kernel stopped: `code` is a `_layout.E_*` code, `where` the strike, `position` the roll."""

    def __init__(self, code: int, where: int = -1, position: int = -1, faces: int = 0):
        super().__init__(code, where, position)
        self.code, self.where, self.position, self.faces = code, where, position, faces


class Draw(Xoshiro128):
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
            return Xoshiro128.die(self, n)
        pos = self.pos
        if pos >= len(rolls):
            raise KernelError(E_ROLLS_SHORT, self.strike, pos)
        face = rolls[pos]
        if face < 1 or face > n:
            raise KernelError(E_ROLL_RANGE, self.strike, pos, n)
        self.pos = pos + 1
        return face
