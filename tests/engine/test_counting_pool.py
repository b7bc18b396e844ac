"""The row kernel's success-counting hit mode (X_HIT_COUNT): a dice pool where each die
showing the target number or more is one success, at compiled speed.

A d6 pool where each 5-6 hits for 1 is the shape (issue 33): no d20, the X_DICE damage
dice of X_FACES faces are the pool, a face of X_TN or more is a success, a maximum face
explodes when X_EXPLODE is set (bounded as every explosion of the row kernel is), one
success or more hits and the successes are the dice's total (plus X_FLAT and
X_PER_DIE per die, less X_REDUCE, at least X_MIN); no success is a miss. Checked three
ways: golden rows with injected faces, the compiled core against its pure-Python twin on
generated rows, and the exact odds against a die-by-die derivation and seeded rolls.
"""

from __future__ import annotations

import math
from array import array
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas import _kernels, _layout as L, _native
from fracas.dice import kernel_info
from fracas.exact import TAIL
from fracas.rng import seed_state
from fracas.rulesets import rows_odds
from fracas.rulesets.rows import row

compiled = _kernels.compiled
needs_core = pytest.mark.skipif(compiled is None, reason="the compiled core is not built")
KERNELS = [_native] + ([compiled] if compiled is not None else [])


def pool(dice: int = 5, faces: int = 6, tn: int = 5, **more: int) -> list[int]:
    """The d6 pool of the issue: `dice`d6, each 5-6 a success."""
    return row(HIT=L.X_HIT_COUNT, DICE=dice, FACES=faces, TN=tn, **more)


def detail(kernel, rows: list[list[int]], rolls=None, seed: int = 1, tinit=None):
    plan = array("i", [c for r in rows for c in r])
    n = len(rows)
    state = array("I", seed_state(seed))
    out = array("q", bytes(8 * n * L.XOUT_WIDTH))
    log = array("i", bytes(4 * 4096))
    info = kernel_info()
    tinit = array("q", tinit or [0, 0])
    err = kernel.xroll_detail(plan, array("q", (0, n, 1)), 1, tinit, 0, 1, state,
                              None if rolls is None else array("i", rolls), out, log, info)
    return err, [list(out[s * L.XOUT_WIDTH:(s + 1) * L.XOUT_WIDTH]) for s in range(n)], list(state), info


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.BACKEND)
@pytest.mark.parametrize("explode, rolls, successes, exploded", [
    (0, [6, 5, 1, 2, 3], 2, 0),           # 6 and 5 succeed; the 6 adds no die
    (1, [6, 5, 1, 2, 3, 4], 2, 1),        # the 6 explodes into a 4: still two successes
    (1, [6, 5, 1, 2, 3, 6, 5], 4, 2),     # the explosion shows 6 again, then a 5
    (0, [1, 2, 3, 4, 4], 0, 0),           # no 5 or 6: a miss
])
def test_golden_pools_from_injected_faces(kernel, explode, rolls, successes, exploded):
    err, (o,), _state, info = detail(kernel, [pool(EXPLODE=explode, FLAT=1, MIN=1)], rolls)
    assert err == 0 and info[L.I_POS] == len(rolls)
    assert (o[L.Y_HIT], o[L.Y_DICE_SUM], o[L.Y_EXPLODED], o[L.Y_ROLL]) == (int(successes > 0), successes, exploded, 0)
    # a hit deals its successes + FLAT (at least MIN); a miss deals nothing, MIN or not
    assert o[L.Y_DAMAGE] == (successes + 1 if successes else 0)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.BACKEND)
def test_a_pool_with_too_few_injected_faces_says_where(kernel):
    err, _out, _state, info = detail(kernel, [pool(), pool(dice=2)], [6, 6, 6, 6, 6, 5])
    assert err == L.E_ROLLS_SHORT and info[L.I_STRIKE] == 1 and info[L.I_ERROR_POS] == 6


rows_strategy = st.lists(st.builds(
    lambda dice, faces, tn_at, explode, flat, reduce, least, parry, cost, normal: (
        row(HIT=L.X_HIT_OS, BONUS=flat, TN=12, DICE=dice, FACES=faces, FLAT=flat, MIN=least) if normal else
        pool(dice, faces, 1 + tn_at % faces, EXPLODE=explode, FLAT=flat, REDUCE=reduce, MIN=least, PARRY=parry,
             COST=cost)),
    st.integers(0, 12), st.integers(2, 10), st.integers(0, 50), st.integers(0, 1), st.integers(-2, 3),
    st.integers(0, 3), st.integers(0, 1), st.sampled_from([L.X_PARRY_NONE, L.X_PARRY_WEAPON, L.X_PARRY_SHIELD]),
    st.sampled_from([0, 4]), st.booleans()), min_size=1, max_size=4)


@needs_core
@settings(max_examples=150, deadline=None)
@given(rows_strategy, st.integers(0, 2**64 - 1), st.integers(0, 3), st.integers(0, 9))
def test_the_compiled_pool_is_its_pure_python_twin(rows, seed, weapon, shield):
    """Same rows and seed: the same strike rows out, the same generator state after, in
    detail (every die) and in bulk (10,000 attacks a chunk), pools mixed with d20 rows."""
    assert detail(compiled, rows, seed=seed, tinit=[weapon, shield]) == \
        detail(_native, rows, seed=seed, tinit=[weapon, shield])
    plan = array("i", [c for r in rows for c in r])
    groups = array("q", (0, len(rows), 2_000))
    results = []
    for kernel in (compiled, _native):
        state = array("I", seed_state(seed))
        targets = array("q", bytes(8 * L.U_WIDTH))
        group_acc = array("q", bytes(8 * (L.K_WIDTH + L.HIST_BINS)))
        err = kernel.xroll_summary(plan, groups, 1, array("q", [weapon, shield]), 0, 2_000, state, targets,
                                   group_acc, kernel_info())
        results.append((err, list(state), list(targets), list(group_acc)))
    assert results[0] == results[1]


def _one_die(faces: int, tn: int, depth: int = 60) -> dict[tuple[int, int], Fraction]:
    """(successes, explosions) of one exploding die, die by die: a face below the maximum
    ends it (a success at tn or more), the maximum is a success and rolls again."""
    out: dict[tuple[int, int], Fraction] = {}
    p = Fraction(1)
    for k in range(depth):
        for face in range(1, faces):
            key = (k + (face >= tn), k)
            out[key] = out.get(key, Fraction(0)) + p / faces
        p /= faces
    return out


def _convolve(a, b):
    out: dict[tuple[int, int], Fraction] = {}
    for (s1, k1), p1 in a.items():
        for (s2, k2), p2 in b.items():
            out[(s1 + s2, k1 + k2)] = out.get((s1 + s2, k1 + k2), Fraction(0)) + p1 * p2
    return out


@pytest.mark.parametrize("dice, faces, tn", [(5, 6, 5), (3, 6, 6), (4, 10, 8), (2, 6, 1)])
def test_the_exact_odds_of_an_exploding_pool_match_a_die_by_die_count(dice, faces, tn):
    exact = rows_odds.successes(dice, faces, tn, True)
    by_die = {(0, 0): Fraction(1)}
    for _ in range(dice):
        by_die = _convolve(by_die, _one_die(faces, tn))
    for key, p in by_die.items():
        if p > Fraction(1, 10**12):
            assert abs(Fraction(exact.w.get(key, 0), exact.den) - p) < Fraction(1, 10**12), key
    assert abs(exact.mass - 1) <= TAIL


@pytest.mark.parametrize("dice, tn, reduce, least", [(5, 5, 0, 0), (3, 4, 1, 1), (6, 6, 2, 0)])
def test_the_exact_odds_of_a_plain_pool_are_its_enumeration(dice, tn, reduce, least):
    exact = rows_odds.strike(pool(dice, 6, tn, FLAT=1, REDUCE=reduce, MIN=least))
    counts: dict[tuple[bool, int, int], int] = {}
    for n in range(6 ** dice):
        faces = [(n // 6 ** i) % 6 + 1 for i in range(dice)]
        hits = sum(f >= tn for f in faces)
        key = (True, max(hits + 1 - reduce, 0, least), 0) if hits else (False, 0, 0)
        counts[key] = counts.get(key, 0) + 1
    assert {k: Fraction(w, exact.den) for k, w in exact.w.items()} == \
        {k: Fraction(c, 6 ** dice) for k, c in counts.items()}


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: k.BACKEND)
def test_seeded_pools_land_on_the_exact_odds(kernel):
    """The 5d6 pool, 5-6 a success, exploding: the mean damage of 200,000 seeded attacks
    (20,000 on the pure-Python twin) lies within 5 standard errors of the exact mean."""
    attacks = 200_000 if kernel is compiled else 20_000
    strike = pool(EXPLODE=1)
    exact = rows_odds.strike(strike)
    mean = sum(w * k[1] for k, w in exact.w.items()) / exact.den
    square = sum(w * k[1] ** 2 for k, w in exact.w.items()) / exact.den
    sigma = math.sqrt(square - mean * mean)
    state = array("I", seed_state(2026))
    targets = array("q", bytes(8 * L.U_WIDTH))
    group_acc = array("q", bytes(8 * (L.K_WIDTH + L.HIST_BINS)))
    assert kernel.xroll_summary(array("i", strike), array("q", (0, 1, attacks)), 1, array("q", [0, 0]), 0, attacks,
                                state, targets, group_acc, kernel_info()) == 0
    assert abs(targets[L.U_DAMAGE] / attacks - mean) < 5 * sigma / math.sqrt(attacks)
    hit = Fraction(sum(w for k, w in exact.w.items() if k[0]), exact.den)
    assert abs(targets[L.U_ATTACKS_HIT] / attacks - hit) < 5 * math.sqrt(hit * (1 - hit) / attacks)


@needs_core
@pytest.mark.parametrize("bad, words", [
    (pool(tn=0), "counts successes"), (pool(tn=7), "counts successes"), (pool(REACT=1), "counts successes"),
    (pool(FEINT=1), "counts successes"), (pool(CHECK=1), "counts successes"),
    (row(HIT=L.X_HIT_COUNT + 1, DICE=1, FACES=6), "no known hit mode"),
])
def test_the_compiled_core_refuses_a_pool_it_cannot_roll(bad, words):
    with pytest.raises(ValueError, match=words):
        detail(compiled, [bad])
