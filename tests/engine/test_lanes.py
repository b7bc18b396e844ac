"""The lane kernel rolls several chunk streams side by side: every chunk's totals and final
state must be exactly what the scalar kernel gives for it (docs/ENGINE.md §5)."""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given, settings, strategies as st

import fracas
from fracas import _kernels
from fracas import _layout as L
from fracas.dice import kernel_info
from fracas.rng import chunk_seed, seed_state
from fracas.rulesets.er.bulk import compile_bulk

compiled = pytest.importorskip("fracas._core") if _kernels.compiled is not None else None
pytestmark = pytest.mark.skipif(_kernels.compiled is None, reason="the lane kernel is in the compiled core")


def request(count, **strike):
    base = {"method": "melee", "style": "slashing", "dice": 3, "weight": 1, "damage_type": "edged"}
    base.update(strike)
    target = {"ac": 14}
    for key in ("resistant", "vulnerable", "immune"):
        if key in strike:
            target[key] = strike.pop(key)
            base.pop(key, None)
    return {"profiles": {"p": {"attacker": {"strength": 6, "strength_mod": 1}, "strikes": [base]}},
            "targets": {"t": target}, "attacks": [{"profile": "p", "target": "t", "count": count}]}


def scalar_and_lanes(job, items):
    """(totals, states) rolled chunk by chunk with roll_summary, and at once with the lanes."""
    kernel = _kernels.compiled
    one = job.new_totals()
    states_one = []
    for state, first, count in items:
        st_ = array("I", state)
        info = kernel_info()
        assert kernel.roll_summary(job.plan, job.groups, len(job.targets), first, count, st_, *one, info) == 0
        states_one.append(list(st_))
    lanes = job.new_totals()
    states = array("I")
    for state, _f, _c in items:
        states.extend(state)
    info = kernel_info()
    err = kernel.roll_summary_lanes(job.plan, job.groups, len(job.targets), array("q", [f for _s, f, _c in items]),
                                    array("q", [c for _s, _f, c in items]), states, *lanes, info)
    assert err == 0
    return (one, states_one), (lanes, [list(states[4 * k:4 * k + 4]) for k in range(len(items))])


def chunk_items(seed, counts):
    first = 0
    items = []
    for k, count in enumerate(counts):
        items.append((array("I", seed_state(chunk_seed(seed, k))), first, count))
        first += count
    return items


@pytest.mark.parametrize("lanes", [1, 2, 5, 8])
def test_lanes_equal_scalar_chunks_typical_strike(lanes):
    counts = [3000 - 97 * k for k in range(lanes)]  # unequal: the longer lanes finish alone
    job = compile_bulk(request(sum(counts)))
    assert _kernels.compiled.lanes_fit(job.plan, job.groups)
    (one, s1), (many, s2) = scalar_and_lanes(job, chunk_items(11, counts))
    assert [list(x) for x in one] == [list(x) for x in many]
    assert s1 == s2


STRIKES = st.fixed_dictionaries({
    "dice": st.integers(1, 5),
    "bonus": st.integers(-6, 8),
    "weight": st.integers(0, 3),
    "style": st.sampled_from(["slashing", "bludgeoning", "piercing", "cleaving", "pole-arm"]),
    "advantage": st.booleans(),
    "crit_range": st.one_of(st.none(), st.integers(15, 20)),
}, optional={"resistant": st.just(["edged"]), "vulnerable": st.just(["edged"]), "immune": st.just(["edged"])})


@settings(max_examples=40, deadline=None)
@given(strike=STRIKES, seed=st.integers(0, 2**64 - 1), lanes=st.integers(2, 8))
def test_lanes_equal_scalar_chunks_any_strike(strike, seed, lanes):
    strike = dict(strike)
    if strike.get("crit_range") is None:
        strike.pop("crit_range")
    if strike["style"] == "piercing":
        strike["damage_type"] = "piercing"
    counts = [400 + 13 * k for k in range(lanes)]
    try:
        job = compile_bulk(request(sum(counts), **strike))
    except fracas.RequestError:
        return
    (one, s1), (many, s2) = scalar_and_lanes(job, chunk_items(seed, counts))
    assert [list(x) for x in one] == [list(x) for x in many]
    assert s1 == s2


def test_lemire_rejection_is_redone_lane_by_lane():
    """A state whose next word is 0 (s1 = 0) makes the first d20 draw reject (low 0 < 16)."""
    job = compile_bulk(request(8 * 50))
    items = []
    for k in range(8):
        state = array("I", seed_state(chunk_seed(3, k)))
        if k % 2 == 0:
            state[1] = 0
        items.append((state, 50 * k, 50))
    (one, s1), (many, s2) = scalar_and_lanes(job, items)
    assert [list(x) for x in one] == [list(x) for x in many]
    assert s1 == s2


def test_plans_the_lanes_do_not_take():
    kernel = _kernels.compiled
    assert not kernel.lanes_fit(compile_bulk(request(10, disadvantage=True)).plan,
                                compile_bulk(request(10, disadvantage=True)).groups)
    two = request(10)
    two["profiles"]["p"]["strikes"].append(dict(two["profiles"]["p"]["strikes"][0]))
    job = compile_bulk(two)
    assert not kernel.lanes_fit(job.plan, job.groups)
    with pytest.raises(ValueError):
        kernel.roll_summary_lanes(job.plan, job.groups, 1, array("q", [0]), array("q", [10]), array("I", [1, 2, 3, 4]),
                                  *job.new_totals(), kernel_info())


def test_bulk_results_do_not_depend_on_threads_or_lanes():
    """10 chunks: lanes on one thread, lanes on two, and chunk by chunk give one result."""
    req = request(10 * L.CHUNK_SIZE + 123)
    one = fracas.resolve_bulk(req, seed=99, threads=1).to_dict()
    two = fracas.resolve_bulk(req, seed=99, threads=2).to_dict()
    job = compile_bulk(req)
    totals = job.new_totals()
    for k in range(11):
        first = k * L.CHUNK_SIZE
        count = min(L.CHUNK_SIZE, job.total - first)
        job.roll_chunk(totals, array("I", seed_state(chunk_seed(99, k))), first, count)
    by_chunk = job.result(totals, 99, 1, None).to_dict()
    for result in (two, by_chunk):
        assert {k: v for k, v in result.items() if k != "threads"} == {k: v for k, v in one.items() if k != "threads"}


def test_the_pure_python_twin_takes_the_same_call():
    from fracas import _native

    counts = [70, 50, 60]
    job = compile_bulk(request(sum(counts)))
    items = chunk_items(5, counts)
    (one, s1), (many, s2) = scalar_and_lanes(job, items)
    totals = job.new_totals()
    states = array("I")
    for state, _f, _c in items:
        states.extend(state)
    assert _native.roll_summary_lanes(job.plan, job.groups, 1, array("q", [0, 70, 120]), array("q", counts), states,
                                      *totals, kernel_info()) == 0
    assert [list(x) for x in totals] == [list(x) for x in one]
    assert [list(states[4 * k:4 * k + 4]) for k in range(3)] == s1
