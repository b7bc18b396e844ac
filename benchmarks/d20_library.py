"""Scenario 1 written with the `d20` library (Avrae's dice engine), an optional extra.

Each roll goes through d20's parser and expression tree, as in a Discord bot: the
pool is one `3d20` roll whose dice are read back, each crit die a `1d20`, each
crit d3 a `1d3`. d20 draws from the global `random` module.
"""

from __future__ import annotations

import random

from .tally import Tally

NAME = "d20"
LABEL = "d20 library"

TO_HIT = 2
AC = 14
WEIGHT = 1
MODIFIER = 1


def available() -> bool:
    try:
        import d20  # noqa: F401
    except ImportError:
        return False
    return True


def _hits(face: int) -> bool:
    return face == 20 or (face != 1 and face + TO_HIT >= AC)


def attack(roll) -> int:
    """Damage of one typical strike, every die rolled by `d20.roll`."""
    faces = [die.number for die in roll("3d20").expr.roll.values]
    hit_dice = sum(1 for face in faces if _hits(face))
    if hit_dice == 0:
        return 0
    chain = 0
    if 20 in faces:
        while True:
            face = roll("1d20").total
            if _hits(face):
                chain += roll("1d3").total
            if face != 20:
                break
    return hit_dice + chain + WEIGHT + MODIFIER


def run(n: int, seed: int) -> Tally:
    """Roll `n` attacks; seeds the global `random` (d20 has no generator of its own)."""
    import d20

    random.seed(seed)
    damage = attacks_hit = 0
    for _ in range(n):
        d = attack(d20.roll)
        damage += d
        if d:
            attacks_hit += 1
    return Tally(n, damage, attacks_hit)
