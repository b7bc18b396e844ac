"""Every contestant of scenario 1 implements the same rules as the engine.

Scenario 1 (3d20 +2 vs AC 14, weight 1, modifier +1, crit chain) has an exact
answer: mean damage 11979/3800 and P(at least one hit) 6669/8000
(../shared/DESIGN.md). Each contestant rolls a fixed-seed sample and must land
within Z standard errors of both, and of the engine's own sample. Z = 5.5 makes a
false alarm about 4e-8 per check for a correct implementation; a wrong rule (no
modifier: -1 per hit attack; no crit chain: -0.135 per attack; no natural-20
rule) moves the mean by many standard errors at these sample sizes.
"""

import math

import pytest

from fracas import _kernels
from fracas.benchmarks import d20_library, engine_runs, numpy_batch, randint_loop
from fracas.benchmarks.scenarios import MEAN_DAMAGE, P_ANY_HIT, TYPICAL, typical_damage_distribution

Z = 5.5
SEED = 20261122


def _variance() -> float:
    dist = typical_damage_distribution()
    mean = sum(k * p for k, p in dist.items())
    return float(sum(k * k * p for k, p in dist.items()) - mean * mean)


VARIANCE = _variance()
P = float(P_ANY_HIT)


def _engine_size():
    return 1_000_000 if _kernels.name() == "compiled" else 50_000


CONTESTANTS = [
    ("randint loop", randint_loop.run, 100_000, None),
    ("NumPy batch, tuned", numpy_batch.run, 1_000_000, numpy_batch.available),
    ("NumPy batch, first version", numpy_batch.run_simple, 1_000_000, numpy_batch.available),
    ("NumPy batch, table lookup", numpy_batch.run_table, 1_000_000, numpy_batch.available),
    ("d20 library", d20_library.run, 20_000, d20_library.available),
    ("engine, public API, active backend", engine_runs.api(TYPICAL, None), None, None),
    ("engine, public API, pure Python", engine_runs.api(TYPICAL, "python"), 30_000, None),
    ("bare kernel, pure Python", engine_runs.kernel(TYPICAL, _kernels.python), 30_000, None),
    ("bare kernel, compiled", engine_runs.kernel(TYPICAL, _kernels.compiled) if _kernels.compiled else None,
     1_000_000, lambda: _kernels.compiled is not None),
]


@pytest.fixture(scope="module")
def engine_sample():
    n = _engine_size()
    return engine_runs.api(TYPICAL, None)(n, SEED + 1)


@pytest.mark.parametrize("name, run, n, available", CONTESTANTS, ids=[c[0] for c in CONTESTANTS])
def test_contestant_agrees_with_the_exact_answer_and_the_engine(name, run, n, available, engine_sample):
    if available is not None and not available():
        pytest.skip(f"{name} is not installed")
    n = n or _engine_size()
    tally = run(n, SEED)
    assert tally.attacks == n
    # Mean damage against the exact mean.
    z_mean = (tally.mean_damage - float(MEAN_DAMAGE)) / math.sqrt(VARIANCE / n)
    assert abs(z_mean) < Z, f"{name}: mean damage {tally.mean_damage:.4f}, z = {z_mean:.1f}"
    # P(at least one hit) against the exact probability.
    z_hit = (tally.hit_rate - P) / math.sqrt(P * (1 - P) / n)
    assert abs(z_hit) < Z, f"{name}: hit rate {tally.hit_rate:.4f}, z = {z_hit:.1f}"
    # And against the engine's own sample (two-sample z).
    m = engine_sample.attacks
    z_two = (tally.mean_damage - engine_sample.mean_damage) / math.sqrt(VARIANCE / n + VARIANCE / m)
    assert abs(z_two) < Z, f"{name} vs engine: z = {z_two:.1f}"


def test_the_check_catches_a_wrong_rule():
    """The same test rejects a loop that forgets the crit chain (a 4% error)."""

    def no_chain(n, seed):
        import random

        from fracas.benchmarks.tally import Tally

        randint = random.Random(seed).randint
        damage = hit = 0
        for _ in range(n):
            faces = [randint(1, 20) for _ in range(3)]
            hits = sum(1 for f in faces if f == 20 or (f != 1 and f + 2 >= 14))
            if hits:
                damage += hits + 2
                hit += 1
        return Tally(n, damage, hit)

    n = 100_000
    tally = no_chain(n, SEED)
    z_mean = (tally.mean_damage - float(MEAN_DAMAGE)) / math.sqrt(VARIANCE / n)
    assert abs(z_mean) > Z


def test_exact_variance_is_that_of_the_distribution():
    dist = typical_damage_distribution()
    assert abs(float(sum(dist.values())) - 1) < 1e-15
    assert abs(float(sum(k * p for k, p in dist.items()) - MEAN_DAMAGE)) < 1e-15
    assert float(1 - dist[0]) == pytest.approx(P, abs=1e-15)
    assert 2.5 < VARIANCE < 3.0


@pytest.mark.parametrize("key, exact_mean", [("cartyrion", 5 * 3.5 * 6 / 5 + 8 + 10 - 4), ("worldwalker", None),
                                             ("pool", 10 * (1 / 6 * 6 / 5 + 1 / 5))])
def test_ruleset_scenario_contestants_roll_the_same_rule_as_fracas(key, exact_mean):
    """The randint loop and the NumPy batch of the CT, WW and d6-pool scenarios agree with
    fracas (and with the exact mean: for Cartyrion 5 × E[exploding d6] + 14; for the pool,
    10 dice × E[successes of one exploding d6] = 10 × (1/5 + 1/6 × 6/5): its explosions
    number 1/5 on average, each a success, and its final face (1-5) is a 5 one time in 5)."""
    from fracas.benchmarks import rulesets_bench as rb

    n = 100_000
    runs = [rb.api(key, "compiled")(n, 11), rb.CONTESTANTS[key]["randint"](n, 12)]
    if rb.available():
        runs.append(rb.CONTESTANTS[key]["numpy"](n, 13))
    means = [t.mean_damage for t in runs]
    reference = exact_mean if exact_mean is not None else means[0]
    for mean in means:
        assert abs(mean - reference) < 0.2, (key, means)
    rates = [t.hit_rate for t in runs]
    assert max(rates) - min(rates) < 0.01, rates


def test_icepool_computes_the_same_exact_distribution_as_fracas_odds():
    """The odds benchmark's icepool contestant answers the same question, fraction for fraction."""
    from fracas.benchmarks import odds_bench

    if not odds_bench.available_icepool():
        pytest.skip("icepool is not installed (the bench extra)")
    assert odds_bench.icepool_exact() == odds_bench.fracas_exact(cold=True)
