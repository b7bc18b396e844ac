"""Exact damage distributions for ER attacks, by enumeration: an independent model.

Written from RULES.md, not from the engine: dice are enumerated (pools with
disadvantage face by face, pools without it by a hits/crit dynamic program), crit
chains by recursion, the once-per-target modifier by carrying the set of targets
that already took it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

D20 = range(1, 21)
CHAIN_DEPTH = 14  # a chain longer than this has probability below 20**-14


@dataclass(frozen=True)
class Pool:
    dice: int            # counting dice (skill + advantage + sneak)
    to_hit: int
    ac: int
    crit: int = 20       # lowest crit face; 0 = cannot crit
    disadvantage: bool = False
    weight: int = 0
    mod: int = 0
    resist: str = "normal"   # normal / resistant / vulnerable / immune
    target: int = 0


def hits_die(face: int, pool: Pool) -> bool:
    return face == 20 or (face != 1 and face + pool.to_hit >= pool.ac)


def pool_outcomes(pool: Pool) -> dict[tuple[int, bool], Fraction]:
    """P(hits, crit) for the pool's counting dice."""
    if pool.disadvantage:
        counts: dict[tuple[int, bool], int] = {}
        for faces in itertools.product(D20, repeat=pool.dice + 1):
            drop = faces.index(max(faces))
            kept = faces[:drop] + faces[drop + 1:]
            key = (sum(hits_die(f, pool) for f in kept), False)  # no crits at disadvantage
            counts[key] = counts.get(key, 0) + 1
        total = 20 ** (pool.dice + 1)
        return {k: Fraction(v, total) for k, v in counts.items()}
    dist = {(0, False): Fraction(1)}
    for _ in range(pool.dice):
        nxt: dict[tuple[int, bool], Fraction] = {}
        for (hits, crit), p in dist.items():
            for face in D20:
                hit = hits_die(face, pool)
                key = (hits + hit, crit or (hit and pool.crit and face >= pool.crit))
                nxt[key] = nxt.get(key, 0) + p / 20
        dist = nxt
    return dist


def chain(pool: Pool, depth: int = 0) -> dict[int, Fraction]:
    """Damage of a crit chain: each crit die hits for d3; a raw 20 grants the next."""
    if depth >= CHAIN_DEPTH:
        return {0: Fraction(1)}
    dist: dict[int, Fraction] = {}
    rest = chain(pool, depth + 1)
    for face in D20:
        if not hits_die(face, pool):
            dist[0] = dist.get(0, 0) + Fraction(1, 20)
            continue
        for d3 in (1, 2, 3):
            if face == 20:
                for more, p in rest.items():
                    dist[d3 + more] = dist.get(d3 + more, 0) + Fraction(1, 60) * p
            else:
                dist[d3] = dist.get(d3, 0) + Fraction(1, 60)
    return dist


def strike_outcomes(pool: Pool) -> dict[tuple[bool, int], Fraction]:
    """P(hit, damage before modifier and resistance)."""
    out: dict[tuple[bool, int], Fraction] = {}
    chain_dist = chain(pool)
    for (hits, crit), p in pool_outcomes(pool).items():
        if hits == 0:
            out[(False, 0)] = out.get((False, 0), 0) + p
            continue
        for extra, q in (chain_dist.items() if crit else [(0, Fraction(1))]):
            key = (True, hits + pool.weight + extra)
            out[key] = out.get(key, 0) + p * q
    return out


def resist(amount: int, state: str) -> int:
    return {"normal": amount, "resistant": amount // 2, "vulnerable": amount * 2, "immune": 0}[state]


def attack_distribution(pools: list[Pool]) -> dict[int, Fraction]:
    """P(total damage of the attack), the modifier once per target on its first hitting strike."""
    states: dict[tuple[frozenset, int], Fraction] = {(frozenset(), 0): Fraction(1)}
    for pool in pools:
        outcomes = strike_outcomes(pool)
        nxt: dict[tuple[frozenset, int], Fraction] = {}
        for (used, total), p in states.items():
            for (hit, base), q in outcomes.items():
                took = used
                if hit and pool.target not in used:
                    base = max(0, base + pool.mod)
                    took = used | {pool.target}
                key = (took, total + resist(base, pool.resist))
                nxt[key] = nxt.get(key, 0) + p * q
        states = nxt
    dist: dict[int, Fraction] = {}
    for (_, total), p in states.items():
        dist[total] = dist.get(total, 0) + p
    return dist


def exact_mean_single(pool: Pool) -> Fraction:
    """The exact mean of one strike (no resistance, modifier ≥ 0): the chain in closed form."""
    p_crit_hit = Fraction(sum(hits_die(f, pool) for f in D20), 20)
    chain_mean = p_crit_hit * 2 / (1 - Fraction(1, 20))  # d3 mean 2; a raw 20 continues
    mean = Fraction(0)
    for (hits, crit), p in pool_outcomes(pool).items():
        if hits:
            mean += p * (hits + pool.weight + pool.mod + (chain_mean if crit else 0))
    return mean
