"""Scenario 1 the way a performance-minded user writes it: a NumPy batch.

Same rules as `randint_loop`: every die of every attack is drawn at once, the crit
chains are run as a shrinking vector of the attacks still chaining. Work is cut
into blocks of 2^20 attacks so memory stays flat for any `n`.

`run` is the tuned batch (int8 dice, one row per pool position: NumPy reduces a
short axis slowly); `run_simple` is the first vectorization people write (an
(n, 3) array of default integers, reduced along axis 1), shown beside it because
the reference figure in the design notes (~1.5e7 attacks/s) is of that kind;
`run_table` is the fastest NumPy way we know (issue 44: the tuned batch flattered
fracas): one `integers(0, 8000)` per pool (its three dice at once), a histogram of
those codes, and a table of each code's damage; only the crit chains are drawn
die by die.
"""

from __future__ import annotations

from .tally import Tally

NAME = "numpy"
LABEL = "NumPy batch (tuned)"
LABEL_SIMPLE = "NumPy batch (first version)"
LABEL_TABLE = "NumPy batch (table lookup)"

TO_HIT = 2
AC = 14
WEIGHT = 1
MODIFIER = 1
BLOCK = 1 << 20


def available() -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True


def _block(rng, np, m: int) -> tuple[int, int]:
    # Dice laid out one row per pool position: summing three rows is far faster in
    # NumPy than reducing a (m, 3) array along its short axis.
    faces = rng.integers(1, 21, size=(3, m), dtype=np.int8)
    hit = ((faces == 20) | ((faces != 1) & (faces >= AC - TO_HIT))).view(np.int8)
    hit_dice = hit[0] + hit[1] + hit[2]
    damage = np.where(hit_dice > 0, hit_dice.astype(np.int64) + (WEIGHT + MODIFIER), 0)
    # A natural 20 always hits, so any 20 in the pool starts the chain.
    twenty = faces == 20
    chaining = np.flatnonzero(twenty[0] | twenty[1] | twenty[2])
    while chaining.size:
        crit_die = rng.integers(1, 21, size=chaining.size, dtype=np.int8)
        crit_hit = (crit_die == 20) | ((crit_die != 1) & (crit_die >= AC - TO_HIT))
        d3 = rng.integers(1, 4, size=chaining.size, dtype=np.int64)
        damage[chaining] += np.where(crit_hit, d3, 0)
        chaining = chaining[crit_die == 20]
    return int(damage.sum()), int(np.count_nonzero(hit_dice))


def run(n: int, seed: int) -> Tally:
    """Roll `n` attacks with `numpy.random.default_rng(seed)`."""
    import numpy as np

    rng = np.random.default_rng(seed)
    damage = attacks_hit = 0
    for start in range(0, n, BLOCK):
        d, h = _block(rng, np, min(BLOCK, n - start))
        damage += d
        attacks_hit += h
    return Tally(n, damage, attacks_hit)


def run_simple(n: int, seed: int) -> Tally:
    """The straightforward vectorization: (n, 3) default-int dice, axis-1 reductions."""
    import numpy as np

    rng = np.random.default_rng(seed)
    damage = attacks_hit = 0
    for start in range(0, n, BLOCK):
        m = min(BLOCK, n - start)
        faces = rng.integers(1, 21, size=(m, 3))
        hit = (faces == 20) | ((faces != 1) & (faces + TO_HIT >= AC))
        hit_dice = hit.sum(axis=1)
        per_attack = np.where(hit_dice > 0, hit_dice + WEIGHT + MODIFIER, 0)
        chaining = np.flatnonzero((faces == 20).any(axis=1))
        while chaining.size:
            crit_die = rng.integers(1, 21, size=chaining.size)
            crit_hit = (crit_die == 20) | ((crit_die != 1) & (crit_die + TO_HIT >= AC))
            per_attack[chaining] += np.where(crit_hit, rng.integers(1, 4, size=chaining.size), 0)
            chaining = chaining[crit_die == 20]
        damage += int(per_attack.sum())
        attacks_hit += int(np.count_nonzero(hit_dice))
    return Tally(n, damage, attacks_hit)


def _tables(np):
    """Per pool code (the three dice as one number 0..7999): its damage, and whether it crits."""
    codes = np.arange(8000)
    faces = np.stack([codes // 400 + 1, (codes // 20) % 20 + 1, codes % 20 + 1])
    hit = (faces == 20) | ((faces != 1) & (faces >= AC - TO_HIT))
    hit_dice = hit.sum(axis=0)
    damage = np.where(hit_dice > 0, hit_dice + (WEIGHT + MODIFIER), 0).astype(np.int64)
    return damage, (faces == 20).any(axis=0)  # a natural 20 always hits: any 20 starts the chain


def run_table(n: int, seed: int) -> Tally:
    """Roll `n` attacks: one draw per pool, a histogram of the pools, a damage table."""
    import numpy as np

    rng = np.random.default_rng(seed)
    table, crits = _tables(np)
    hits = table > 0
    damage = attacks_hit = 0
    for start in range(0, n, BLOCK):
        counts = np.bincount(rng.integers(0, 8000, size=min(BLOCK, n - start), dtype=np.int16), minlength=8000)
        damage += int(counts @ table)
        attacks_hit += int(counts[hits].sum())
        chaining = int(counts[crits].sum())
        while chaining:
            crit_die = rng.integers(1, 21, size=chaining, dtype=np.int8)
            crit_hit = (crit_die == 20) | ((crit_die != 1) & (crit_die >= AC - TO_HIT))
            damage += int(rng.integers(1, 4, size=chaining, dtype=np.int64)[crit_hit].sum())
            chaining = int(np.count_nonzero(crit_die == 20))
    return Tally(n, damage, attacks_hit)
