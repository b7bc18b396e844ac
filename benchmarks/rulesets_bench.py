"""The Cartyrion and Worldwalker scenarios: fracas against the same rule written by hand.

- Cartyrion (CT-2, CT-3): Tombril's blow, level 9 (5d6 exploding without a cap),
  STR +8, a +2 weapon (per original die), against DEX 3 + 1 Armor Point.
- Worldwalker (WW-2 … WW-5): skill 3 + STR 2, a critical attack of 2 (multiplier 2),
  1d8 + STR, against TN 14, armor 2, a block at +6 (ties to the defender).
- A d6 pool (the row kernel's success-counting mode, X_HIT_COUNT): 10d6, each 5-6 one
  success, a 6 exploding; the successes are the damage. No shipped ruleset rolls it yet,
  so fracas's side is the row kernel itself (`xroll_summary`, compiled and pure Python):
  the speed a dice-pool ruleset gets on it.

Each is timed as the public bulk API (compiled and pure Python), a `random.randint`
loop and a tuned NumPy batch of the same rule, side by side (benchmarks/harness.py).
"""

from __future__ import annotations

import random

import fracas
from fracas import _kernels

from .tally import Tally

BLOCK = 1 << 20

CT_PROFILE = {"attacker": {"level": 9, "bonus": 8, "magic": 2},
              "strikes": [{"method": "melee", "die": "d6"}]}
CT_TARGET = {"dex": 3, "armor": 1}
CT_DICE, CT_FACES, CT_FLAT = 5, 6, 8 + 2 * 5 - 4

WW_PROFILE = {"attacker": {"skill": 3, "str_mod": 2, "dex_mod": 1},
              "strikes": [{"method": "melee", "damage": "1d8", "critical": 2, "crit_multiplier": 2}]}
WW_TARGET = {"defense": 14, "armor": 2, "reaction": {"kind": "block", "bonus": 6}}
WW_BONUS, WW_TN, WW_BLOCK, WW_FLAT, WW_ARMOR = 3 + 2 - 2, 14, 6, 2 + 4, 2

POOL_DICE, POOL_FACES, POOL_TN = 10, 6, 5

SCENARIOS = {
    "cartyrion": ("Cartyrion 5d6 exploding", "level 9, STR +8, +2 weapon vs DEX 3 + 1 armor (CT-2, CT-3)",
                  CT_PROFILE, CT_TARGET),
    "worldwalker": ("Worldwalker d20 vs TN with a block", "skill 3 + STR 2, critical 2×2, 1d8 vs TN 14, "
                    "armor 2, block +6 (WW-2..WW-5)", WW_PROFILE, WW_TARGET),
    "pool": ("d6 pool, success counting", "10d6, each 5-6 a success, 6s explode: the row kernel's X_HIT_COUNT"
             " (the bare kernel, no ruleset ships it yet)", None, None),
}


def bulk_request(key: str, n: int) -> dict:
    _title, _desc, profile, target = SCENARIOS[key]
    return {"ruleset": key, "profiles": {"p": profile}, "targets": {"t": target},
            "attacks": [{"profile": "p", "target": "t", "count": n}]}


def pool_kernel(backend: str):
    """`n` attacks of the d6 pool through the row kernel of `backend`, one stream."""
    from array import array

    from fracas import _layout as L
    from fracas.dice import kernel_info
    from fracas.rng import seed_state
    from fracas.rulesets.rows import row

    plan = array("i", row(HIT=L.X_HIT_COUNT, DICE=POOL_DICE, FACES=POOL_FACES, TN=POOL_TN, EXPLODE=1))

    def run(n: int, seed: int) -> Tally:
        targets = array("q", bytes(8 * L.U_WIDTH))
        group_acc = array("q", bytes(8 * (L.K_WIDTH + L.HIST_BINS)))
        with _kernels.using(backend):
            err = _kernels.active().xroll_summary(plan, array("q", (0, 1, n)), 1, array("q", (0, 0)), 0, n,
                                                  array("I", seed_state(seed)), targets, group_acc, kernel_info())
        if err:
            raise RuntimeError(f"kernel error {err} in the pool benchmark")
        return Tally(n, targets[L.U_DAMAGE], targets[L.U_ATTACKS_HIT])
    return run


def api(key: str, backend: str):
    if key == "pool":
        return pool_kernel(backend)

    def run(n: int, seed: int) -> Tally:
        with _kernels.using(backend):
            summary = fracas.resolve_bulk(bulk_request(key, n), seed=seed, threads=1).to_dict()
        return Tally(n, summary["total_damage"], summary["groups"][0]["attacks_hit"])
    return run


# -- random.randint loops -------------------------------------------------------------------

def ct_randint(n: int, seed: int) -> Tally:
    randint = random.Random(seed).randint
    damage = 0
    for _ in range(n):
        total, pending = 0, CT_DICE
        while pending:
            face = randint(1, CT_FACES)
            total += face
            pending -= 1
            if face == CT_FACES:
                pending += 1
        damage += max(0, total + CT_FLAT)
    return Tally(n, damage, n)


def ww_randint(n: int, seed: int) -> Tally:
    randint = random.Random(seed).randint
    damage = landed = 0
    for _ in range(n):
        roll = randint(1, 20)
        attack = (30 if roll == 20 else -10 if roll == 1 else roll) + WW_BONUS
        if attack < WW_TN or randint(1, 20) + WW_BLOCK >= attack:
            continue
        landed += 1
        damage += max(0, randint(1, 8) + WW_FLAT - WW_ARMOR)
    return Tally(n, damage, landed)


def pool_randint(n: int, seed: int) -> Tally:
    randint = random.Random(seed).randint
    damage = landed = 0
    for _ in range(n):
        successes, pending = 0, POOL_DICE
        while pending:
            face = randint(1, POOL_FACES)
            successes += face >= POOL_TN
            pending -= 1
            if face == POOL_FACES:
                pending += 1
        damage += successes
        landed += successes > 0
    return Tally(n, damage, landed)


# -- tuned NumPy batches -----------------------------------------------------------------------

def available() -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True


def ct_numpy(n: int, seed: int) -> Tally:
    """All original dice at once, then the explosions level by level over the attacks still exploding."""
    import numpy as np

    rng = np.random.default_rng(seed)
    damage = 0
    for start in range(0, n, BLOCK):
        m = min(BLOCK, n - start)
        faces = rng.integers(1, CT_FACES + 1, size=(CT_DICE, m), dtype=np.int8)
        total = faces.sum(axis=0, dtype=np.int64)
        pending = (faces == CT_FACES).sum(axis=0, dtype=np.int64)
        active = np.flatnonzero(pending)
        pending = pending[active]
        while active.size:
            # One die per pending explosion, then the attacks whose dice exploded again.
            counts = pending
            rolls = rng.integers(1, CT_FACES + 1, size=int(counts.sum()), dtype=np.int8)
            owner = np.repeat(np.arange(active.size), counts)
            np.add.at(total, active[owner], rolls.astype(np.int64))
            again = np.bincount(owner, weights=(rolls == CT_FACES), minlength=active.size).astype(np.int64)
            keep = again > 0
            active, pending = active[keep], again[keep]
        damage += int(np.maximum(total + CT_FLAT, 0).sum())
    return Tally(n, damage, n)


def ww_numpy(n: int, seed: int) -> Tally:
    import numpy as np

    rng = np.random.default_rng(seed)
    damage = landed = 0
    for start in range(0, n, BLOCK):
        m = min(BLOCK, n - start)
        roll = rng.integers(1, 21, size=m, dtype=np.int16)
        attack = np.where(roll == 20, 30, np.where(roll == 1, -10, roll)) + WW_BONUS
        block = rng.integers(1, 21, size=m, dtype=np.int16) + WW_BLOCK
        lands = (attack >= WW_TN) & (block < attack)
        dmg = rng.integers(1, 9, size=m, dtype=np.int16) + (WW_FLAT - WW_ARMOR)
        damage += int(np.maximum(dmg, 0)[lands].sum())
        landed += int(np.count_nonzero(lands))
    return Tally(n, damage, landed)


def pool_numpy(n: int, seed: int) -> Tally:
    """All pool dice at once, then the explosions level by level, as `ct_numpy`."""
    import numpy as np

    rng = np.random.default_rng(seed)
    damage = landed = 0
    for start in range(0, n, BLOCK):
        m = min(BLOCK, n - start)
        faces = rng.integers(1, POOL_FACES + 1, size=(POOL_DICE, m), dtype=np.int8)
        successes = (faces >= POOL_TN).sum(axis=0, dtype=np.int64)
        pending = (faces == POOL_FACES).sum(axis=0, dtype=np.int64)
        active = np.flatnonzero(pending)
        pending = pending[active]
        while active.size:
            rolls = rng.integers(1, POOL_FACES + 1, size=int(pending.sum()), dtype=np.int8)
            owner = np.repeat(np.arange(active.size), pending)
            np.add.at(successes, active[owner], (rolls >= POOL_TN).astype(np.int64))
            again = np.bincount(owner, weights=(rolls == POOL_FACES), minlength=active.size).astype(np.int64)
            keep = again > 0
            active, pending = active[keep], again[keep]
        damage += int(successes.sum())
        landed += int(np.count_nonzero(successes))
    return Tally(n, damage, landed)


CONTESTANTS = {
    "cartyrion": {"randint": ct_randint, "numpy": ct_numpy},
    "worldwalker": {"randint": ww_randint, "numpy": ww_numpy},
    "pool": {"randint": pool_randint, "numpy": pool_numpy},
}
