"""The benchmark's scenarios: the bare-kernel plans are the engine's plans."""

from fractions import Fraction

import pytest

import fracas
from fracas import _kernels
from fracas import _layout as L
from fracas.benchmarks import engine_runs
from fracas.benchmarks.scenarios import (
    MEAN_DAMAGE, P_ANY_HIT, SCENARIOS, TYPICAL, WORDS_PER_ATTACK,
)


def test_exact_answers_of_scenario_1():
    assert MEAN_DAMAGE == Fraction(11979, 3800)
    assert P_ANY_HIT == Fraction(6669, 8000)
    # 3 d20, and per chain (1141/8000 of attacks) 20/19 crit dice, each a d20 and
    # (9/20 of the time) a d3.
    assert WORDS_PER_ATTACK == 3 + Fraction(1141, 8000) * Fraction(20, 19) * Fraction(29, 20)


KERNELS = [("python", _kernels.python)] + ([("compiled", _kernels.compiled)] if _kernels.compiled else [])


@pytest.mark.parametrize("key", sorted(SCENARIOS))
@pytest.mark.parametrize("backend, module", KERNELS, ids=[k[0] for k in KERNELS])
def test_bare_kernel_plan_rolls_what_the_public_api_rolls(key, backend, module):
    """Within one chunk the public API rolls from the request seed: the same totals
    from the hand-written plan rows mean the rows are the ones the engine compiles."""
    scenario = SCENARIOS[key]
    n = 4000
    assert n <= L.CHUNK_SIZE
    for seed in (1, 99):
        with _kernels.using(backend):
            through_api = engine_runs.api(scenario, None)(n, seed)
        assert engine_runs.kernel(scenario, module)(n, seed) == through_api


@pytest.mark.parametrize("key", sorted(SCENARIOS))
def test_single_and_bulk_requests_are_valid(key):
    scenario = SCENARIOS[key]
    single = fracas.resolve(scenario.single_request(seed=3)).to_dict()
    assert [s["target"] for s in single["strikes"]] == scenario.strike_targets
    bulk = fracas.resolve_bulk(scenario.bulk_request(10, seed=3)).to_dict()
    assert bulk["attacks_total"] == 10
    assert set(bulk["targets"]) == set(scenario.targets)


def test_scenario_1_single_request_matches_its_description():
    strike = fracas.resolve(TYPICAL.single_request(seed=1)).to_dict()["strikes"][0]
    assert (len(strike["dice"]), strike["to_hit"], strike["ac"], strike["crit_range"]) == (3, 2, 14, 20)


def test_generator_contestant_draws_words_per_attack():
    if _kernels.compiled is None:
        pytest.skip("no compiled core")
    from array import array

    from fracas.rng import Xoshiro128, seed_state

    run = engine_runs.generator(2.0)
    expected = 0
    gen = Xoshiro128(seed_state(5))
    for _ in range(20):
        expected ^= gen.next32()
    assert run(10, 5) == expected
    state = array("I", seed_state(5))
    assert _kernels.python.generator_words(state, 20) == expected
