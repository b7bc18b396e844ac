"""The dice a shared rule file draws, as Python (`fracas._pure.rules` says how they draw).

Compiled into the fight loop, a shared rule file draws with the generator's inline C
(`draw_gen(d, faces)` of `_generator.pxd`, `d` the loop's stream); run as the Python module
it is, the same call lands here, `d` being a `fracas.dice.Dice`: one draw, the same face,
from the same generator.
"""

from __future__ import annotations

from ..dice import Dice

__all__ = ["Dice", "draw_gen"]


def draw_gen(d: Dice, faces: int) -> int:
    """One die of `faces` from the stream `d` (a kind's or a Python round's)."""
    return d.die(faces)
