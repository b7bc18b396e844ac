"""Exact mob odds bounded by real work (issue 44 item 4): the cost of a mob's exact sum is
weighed before any convolution, a mob past max_mob_cost is refused with the estimate, the
limit and the largest count that fits, and the largest that fits is answered exactly."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

import fracas
from fracas.drive import odds as odds_module

TYPICAL = {"ruleset": "enchanted-realms", "attacker": {"strength": 2, "strength_mod": 1},
           "strikes": [{"method": "melee", "style": "slashing", "dice": 3, "weight": 1, "damage_type": "edged",
                        "target": "foe"}],
           "targets": {"foe": {"ac": 14}}}


def _refusal(request, **options):
    with pytest.raises(fracas.LimitError) as refused:
        fracas.odds(request, **options)
    assert refused.value.path == "$.count"
    return str(refused.value)


def test_a_mob_past_the_cost_is_refused_with_its_estimate_the_limit_and_what_fits():
    said = _refusal({**TYPICAL, "count": 1000})
    found = re.search(r"would take about ([0-9.e+]+) units of work to sum exactly, past the ([0-9.e+]+) allowed"
                      r" \(max_mob_cost\); at most (\d+) here", said)
    assert found, said
    estimate, limit, most = float(found[1]), float(found[2]), int(found[3])
    assert limit == odds_module.MAX_MOB_COST and estimate > limit
    assert most == 37  # docs/ENGINE.md's figure for this strike
    # The largest that fits is answered, the next is refused: the bound is the one checked.
    assert fracas.odds({**TYPICAL, "count": most}).to_dict()["count"] == most
    assert f"at most {most} here" in _refusal({**TYPICAL, "count": most + 1})


def test_the_refusal_comes_before_any_work(monkeypatch):
    def never(*_args, **_kwargs):
        raise AssertionError("a refused mob must not be convolved")

    monkeypatch.setattr(fracas.exact.Dist, "power", never)
    _refusal({**TYPICAL, "count": 500})


def test_max_mob_cost_moves_the_bound_both_ways():
    default_most = int(re.search(r"at most (\d+)", _refusal({**TYPICAL, "count": 1000}))[1])
    smaller = int(re.search(r"at most (\d+)", _refusal({**TYPICAL, "count": 1000}, max_mob_cost=1e6))[1])
    assert smaller < default_most
    assert fracas.odds({**TYPICAL, "count": default_most + 5}, max_mob_cost=1e9).count == default_most + 5


def test_the_cost_is_the_packed_sum_s_size_to_the_power_log2_3():
    # 40 damage values over a 64-bit denominator, 10 attacks: 10·64 + 1 bits a digit → 648 bits
    # (81 bytes), 391 digits: 648·391/64 words, to the power log2(3).
    assert odds_module.mob_cost(40, 64, 10) == pytest.approx((648 * 391 / 64) ** 1.5849625007211563)


def test_a_mob_is_the_exact_sum_of_its_attacks():
    one = {v: Fraction(p) for v, p in fracas.odds(TYPICAL).to_dict()["targets"]["foe"]["exact"]}
    three = {v: Fraction(p) for v, p in fracas.odds({**TYPICAL, "count": 3}).to_dict()["targets"]["foe"]["exact"]}
    expected: dict[int, Fraction] = {}
    for a, pa in one.items():
        for b, pb in one.items():
            for c, pc in one.items():
                expected[a + b + c] = expected.get(a + b + c, Fraction(0)) + pa * pb * pc
    assert three == {v: p for v, p in expected.items() if p}
