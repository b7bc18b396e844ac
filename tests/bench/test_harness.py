"""The timing harness: rotation, medians and paired ratios (no timing asserted)."""

import pytest

from fracas.benchmarks.harness import Contestant, calibrate, interleave, latencies, paired_ratio


def test_interleave_rotates_who_goes_first_and_fills_one_sample_per_round():
    order = []
    contestants = [Contestant(key, key, (lambda k: lambda n, seed: order.append((k, n, seed)))(key), batch=b)
                   for key, b in (("a", 1), ("b", 2), ("c", 3))]
    ticks = []
    interleave(contestants, rounds=3, tick=lambda: ticks.append(1), seed=10)
    assert [k for k, _, _ in order] == ["a", "b", "c", "b", "c", "a", "c", "a", "b"]
    assert {(k, n) for k, n, _ in order} == {("a", 1), ("b", 2), ("c", 3)}
    assert [s for k, _, s in order if k == "a"] == [10, 11, 12]
    assert len(ticks) == 9
    assert all(len(c.samples) == 3 and all(x > 0 for x in c.samples) for c in contestants)


def test_paired_ratio_is_the_median_of_same_round_ratios():
    a = Contestant("a", "a", None, samples=[10.0, 100.0, 30.0])
    b = Contestant("b", "b", None, samples=[5.0, 10.0, 30.0])
    assert paired_ratio(a, b) == 2.0           # ratios 2, 10, 1
    assert a.median == 30.0
    assert paired_ratio(a, Contestant("c", "c", None)) is None


def test_calibrate_stays_within_the_batch_cap():
    contestant = Contestant("noop", "noop", lambda n, seed: None, max_batch=5000)
    assert calibrate(contestant, target_s=30.0) == 5000
    assert contestant.batch == 5000


def test_latencies_times_each_call():
    calls = []
    times = latencies(lambda: calls.append(1), 25)
    assert len(times) == len(calls) == 25
    assert all(t >= 0 for t in times)
