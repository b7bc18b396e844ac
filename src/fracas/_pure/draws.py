"""The dice a shared rule file draws, as Python (`fracas._pure.rules` says how they draw).

Compiled into the fight loop, a shared rule file draws with the generator's inline C
(`draw_gen(d, faces)` of `_generator.pxd`, `d` the loop's stream); run as the Python module
it is, the same call lands here, `d` being a `fracas.dice.Dice`: one draw, the same face,
from the same generator.
"""

from __future__ import annotations

from array import array
from typing import Sequence

from .. import _kernels
from ..dice import Dice
from ..rng import seed_state

__all__ = ["Dice", "draw_gen", "draw_many", "seed_words"]


def draw_gen(d: Dice, faces: int) -> int:
    """One die of `faces` from the stream `d` (a kind's or a Python round's)."""
    return d.die(faces)


def draw_many(d: Dice, faces: int, count: int) -> Sequence[int]:
    """`count` dice of `faces`, as that many `draw_gen` calls draw them: from the generator
    in one compiled call when it can (the same faces, the same state after), else one by
    one (injected faces: their errors name the position). What a loop of draws costs a
    Python caller, once (a horde's initiative)."""
    kernel = _kernels.active()
    if count > 1 and d.rolls is None and kernel.BACKEND == "compiled" and isinstance(d.s, array):
        out = array("i", bytes(4 * count))
        kernel.draw_faces(d.s, faces, out)
        return out
    return [d.die(faces) for _ in range(count)]


def seed_words(d: Dice, seed: int) -> None:
    """The generator words of the stream at `seed`, written into `d` (the fight loop's
    `_stream`: each random event of a round draws from its own stream)."""
    d.s[0:4] = array("I", seed_state(seed))
