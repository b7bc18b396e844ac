"""Exact probabilities vs many seeded rolls (the bulk kernel, summary histograms).

Each configuration's exact damage distribution comes from tests/engine/exact.py
(an independent model of RULES.md). 200,000 seeded attacks are compared with it
by a chi-square test on the damage histogram and a z-test on the mean, each at a
false-alarm rate of 1e-6; the seed is fixed, so the outcome is too.
"""

from fractions import Fraction
from math import sqrt

import pytest
from scipy import stats

import fracas

from .exact import Pool, attack_distribution, exact_mean_single, pool_outcomes

N = 200_000
ALPHA = 1e-6
Z_LIMIT = 5.33  # two-sided P(|Z| > 5.33) ≈ 1e-7


def profile_strike(**kw):
    base = {"method": "melee", "style": "slashing", "dice": 1, "damage_type": "edged"}
    base.update(kw)
    return base


# name → (attacker, strikes, targets, strike targets, the exact model's pools)
CONFIGS = {
    "1 die, typical": (
        {"strength": 4}, [profile_strike(dice=1, weight=1)], {"a": {"ac": 14}}, "a",
        [Pool(1, 4, 14, weight=1, mod=1)]),
    "3 dice, +2 vs AC 14 (DESIGN typical)": (
        {"strength": 0, "strength_mod": 1}, [profile_strike(dice=3, bonus=2, weight=1)], {"a": {"ac": 14}}, "a",
        [Pool(3, 2, 14, weight=1, mod=1)]),
    "5 dice + advantage + sneak = 7, crit 19-20, resistant": (
        {"strength": 4}, [profile_strike(dice=5, sneak=True, sneak_ok=True, crit_range=19, weight=2)],
        {"a": {"ac": 16, "resistant": ["edged"]}}, "a",
        [Pool(7, 4, 16, crit=19, weight=2, mod=1, resist="resistant")]),
    "2 dice, advantage": (
        {"strength": 3}, [profile_strike(dice=2, advantage=True, weight=1)], {"a": {"ac": 15}}, "a",
        [Pool(3, 3, 15, weight=1, mod=0)]),
    "2 dice, disadvantage": (
        {"strength": 6}, [profile_strike(dice=2, disadvantage=True, weight=1)], {"a": {"ac": 13}}, "a",
        [Pool(2, 6, 13, disadvantage=True, weight=1, mod=2)]),
    "3 dice, invisible target (disadvantage, -3)": (
        {"strength": 6}, [profile_strike(dice=3)], {"a": {"ac": 12, "conditions": ["invisible"]}}, "a",
        [Pool(3, 3, 12, disadvantage=True, mod=2)]),
    "4 dice, crit 19-20, vulnerable": (
        {"strength": 2}, [profile_strike(dice=4, crit_range=19)], {"a": {"ac": 17, "vulnerable": ["edged"]}}, "a",
        [Pool(4, 2, 17, crit=19, resist="vulnerable")]),
    "ranged 2 dice, no crits": (
        {"strength": 2, "agility": 5}, [profile_strike(method="range", style="archery", dice=2, damage_type="piercing")],
        {"a": {"ac": 14}}, "a",
        [Pool(2, 5, 14, crit=0, mod=1)]),
    "two strikes on one target": (
        {"strength": 6}, [profile_strike(dice=2, weight=1), profile_strike(dice=1, style="bludgeoning", damage_type="blunt")],
        {"a": {"ac": 15}}, "a",
        [Pool(2, 6, 15, weight=1, mod=2), Pool(1, 6, 15, mod=2)]),
    "strikes on two targets": (
        {"strength": 4}, [profile_strike(dice=2, weight=1), profile_strike(dice=2, weight=1)],
        {"a": {"ac": 14}, "b": {"ac": 18, "resistant": ["edged"]}}, ["a", "b"],
        [Pool(2, 4, 14, weight=1, mod=1, target=0), Pool(2, 4, 18, weight=1, mod=1, target=1, resist="resistant")]),
    "5 dice, heavy weapon, crit 18-20": (
        {"strength": 5}, [profile_strike(dice=5, weight=2, crit_range=18, style="cleaving")], {"a": {"ac": 19}}, "a",
        [Pool(5, 5, 19, crit=18, weight=2, mod=1)]),
    "6 dice: 5 skill + advantage, crit 15-20": (
        {"strength": 2}, [profile_strike(dice=5, advantage=True, crit_range=15)], {"a": {"ac": 20}}, "a",
        [Pool(6, 2, 20, crit=15)]),
}


def test_design_md_exact_answer_for_the_typical_strike():
    """DESIGN.md: 3d20 +2 vs AC 14, weight 1, modifier +1: mean 11979/3800, P(≥1 hit) 6669/8000."""
    pool = Pool(3, 2, 14, weight=1, mod=1)
    assert exact_mean_single(pool) == Fraction(11979, 3800)
    p_hit = sum(p for (hits, _), p in pool_outcomes(pool).items() if hits)
    assert p_hit == Fraction(6669, 8000)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_seeded_rolls_match_the_exact_distribution(name):
    attacker, strikes, targets, strike_targets, pools = CONFIGS[name]
    request = {"profiles": {"p": {"attacker": attacker, "strikes": strikes}}, "targets": targets,
               "attacks": [{"profile": "p", "target": strike_targets, "count": N}]}
    result = fracas.resolve_bulk(request, seed=20261122).to_dict()
    histogram = result["groups"][0]["histogram"]
    exact = attack_distribution(pools)
    assert abs(sum(exact.values()) - 1) < Fraction(1, 10**12)

    # The mean, from the exact distribution (chains truncated below 20**-14).
    mean = sum(k * p for k, p in exact.items())
    var = sum(k * k * p for k, p in exact.items()) - mean * mean
    observed_mean = result["groups"][0]["damage"] / N
    z = (observed_mean - float(mean)) / sqrt(float(var) / N)
    assert abs(z) < Z_LIMIT, f"mean {observed_mean} vs exact {float(mean)} (z = {z:.2f})"

    # Chi-square on the histogram; the last kernel bin holds "63 or more"; bins merged to ≥ 5 expected.
    top = len(histogram) - 1 if len(histogram) == 64 else max(exact)
    observed, expected = [], []
    for k in range(0, 64):
        p = exact.get(k, 0) if k < 63 else sum(v for d, v in exact.items() if d >= 63)
        o = histogram[k] if k < len(histogram) else 0
        if p == 0:
            assert o == 0, f"damage {k} is impossible but was rolled {o} times"
            continue
        observed.append(o)
        expected.append(float(p) * N)
    merged_o, merged_e, acc_o, acc_e = [], [], 0, 0.0
    for o, e in zip(observed, expected):
        acc_o, acc_e = acc_o + o, acc_e + e
        if acc_e >= 5:
            merged_o.append(acc_o)
            merged_e.append(acc_e)
            acc_o, acc_e = 0, 0.0
    if acc_e and merged_e:
        merged_o[-1] += acc_o
        merged_e[-1] += acc_e
    scale = sum(merged_o) / sum(merged_e)
    _, p_value = stats.chisquare(merged_o, [e * scale for e in merged_e])
    assert p_value > ALPHA, f"chi-square p = {p_value:g} over {len(merged_o)} bins (top {top})"


def test_at_least_ten_configurations_with_pool_sizes_1_to_7():
    assert len(CONFIGS) >= 10
    sizes = {pool.dice for *_, pools in CONFIGS.values() for pool in pools}
    assert set(range(1, 8)) <= sizes


def test_big_integer_convolution_gives_the_same_weights_as_pairing_outcomes():
    """Issue 44 item 4: a mob's total is one big-integer power (Kronecker substitution), not
    outcome pairs one by one; the weights are exactly those of pairing, with or without mass
    left out by a cut chain, negative outcomes included."""
    import random

    from fracas.exact import Dist, kronecker_power, kronecker_product

    def paired(a: Dist, b: Dist) -> Dist:
        w: dict = {}
        for x, p in a.w.items():
            for y, q in b.w.items():
                w[x + y] = w.get(x + y, 0) + p * q
        return Dist(w, a.den * b.den)

    rng = random.Random(44)
    for _ in range(40):
        values = rng.sample(range(-3, 40), rng.randint(1, 12))
        weights = [rng.randint(1, 10**rng.randint(1, 20)) for _ in values]
        one = Dist(dict(zip(values, weights)), sum(weights) + rng.choice([0, 0, 7]))
        n = rng.randint(2, 12)
        expected = one
        for _ in range(n - 1):
            expected = paired(expected, one)
        got = kronecker_power(one, n)
        assert (got.w, got.den) == (expected.w, expected.den)
        assert (one.power(n).w, one.power(n).den) == (expected.w, expected.den)
        other = Dist({v * 2: w for v, w in one.w.items()}, one.den)
        product = kronecker_product(one, other)
        assert (product.w, product.den) == (paired(one, other).w, paired(one, other).den)
