"""Scenario 1 the way a Python user writes it first: a loop over `random.randint`.

3d20 +2 vs AC 14; a natural 20 always hits and a natural 1 always misses; damage
on a hit is the hitting dice + weight 1 + modifier +1; a hitting natural 20 starts
the crit chain (a crit die that hits adds d3, a 20 on it grants the next).
"""

from __future__ import annotations

import random

from .tally import Tally

NAME = "randint"
LABEL = "random.randint loop"

TO_HIT = 2
AC = 14
WEIGHT = 1
MODIFIER = 1


def hits(face: int) -> bool:
    return face == 20 or (face != 1 and face + TO_HIT >= AC)


def attack(randint) -> int:
    """Damage of one typical strike."""
    hit_dice = 0
    crit = False
    for _ in range(3):
        face = randint(1, 20)
        if hits(face):
            hit_dice += 1
            if face == 20:
                crit = True
    if hit_dice == 0:
        return 0
    chain = 0
    if crit:
        while True:
            face = randint(1, 20)
            if hits(face):
                chain += randint(1, 3)
            if face != 20:
                break
    return hit_dice + chain + WEIGHT + MODIFIER


def run(n: int, seed: int) -> Tally:
    """Roll `n` attacks with a `random.Random` seeded with `seed`."""
    randint = random.Random(seed).randint
    damage = attacks_hit = 0
    for _ in range(n):
        d = attack(randint)
        damage += d
        if d:
            attacks_hit += 1
    return Tally(n, damage, attacks_hit)


def single():
    """One typical attack per call, as a plain function a Python user writes: the yardstick of
    one `fracas.resolve` call (its damage only, nothing else built)."""
    randint = random.Random(1).randint

    def call() -> int:
        return attack(randint)

    return call
