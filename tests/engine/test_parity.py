"""Backend parity: the compiled core and the pure-Python twin agree exactly."""

import random
from array import array

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fracas
from fracas import _kernels
from fracas import _layout as L

from .helpers import load_vector_generator

GENERATE = load_vector_generator()


def outcome(request, seed):
    try:
        result = fracas.resolve(request, seed=seed).to_dict()
    except fracas.RequestError as exc:
        return ("error", type(exc).__name__, exc.path, exc.reason)
    result.pop("backend")
    return ("result", result)


@settings(max_examples=1000, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**32 - 1))
def test_random_requests_agree(both_backends, seed, shape_seed):
    request = GENERATE.random_request(random.Random(shape_seed))
    with _kernels.using("compiled"):
        compiled = outcome(request, seed)
    with _kernels.using("python"):
        python = outcome(request, seed)
    assert compiled == python


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**32 - 1), st.integers(1, 3000),
       st.sampled_from(["summary", "attacks", "dice"]))
def test_bulk_results_agree(both_backends, seed, shape_seed, count, detail):
    rng = random.Random(shape_seed)
    single = GENERATE.random_request(rng)
    for s in single["strikes"]:
        s["target"] = single["strikes"][0]["target"]
    profile_strikes = [{k: v for k, v in s.items() if k != "target"} for s in single["strikes"]]
    request = {"profiles": {"p": {"attacker": single["attacker"], "strikes": profile_strikes}},
               "targets": single["targets"],
               "attacks": [{"profile": "p", "target": single["strikes"][0]["target"], "count": count}],
               "detail": detail}
    results = []
    for backend in both_backends:
        with _kernels.using(backend):
            try:
                r = fracas.resolve_bulk(request, seed=seed).to_dict()
                r.pop("backend")
            except fracas.RequestError as exc:
                r = str(exc)
        results.append(r)
    assert results[0] == results[1]


def test_layout_constants_agree(both_backends):
    assert _kernels.compiled.LAYOUT == {k: getattr(L, k) for k in _kernels.compiled.LAYOUT}


def test_generator_words_agree(both_backends):
    from fracas.rng import seed_state

    a, b = array("I", seed_state(3)), array("I", seed_state(3))
    assert _kernels.compiled.generator_words(a, 10_000) == _kernels.python.generator_words(b, 10_000)
    assert list(a) == list(b)
