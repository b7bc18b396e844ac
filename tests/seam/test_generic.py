"""The generic path (issue 45, fracas.rulesets.generic.StrikeRuleset): a ruleset that gives
how one strike compiles and rolls gets attacks, bulk requests, declared result shapes and
named error paths. Checked with the tests' coin toss (tests/seam/coins.py: "an attack flips
`coins` coins (d2, 2 = heads) at `target`; damage is the heads less the target's `guard`")
and the docs' wild die (docs/examples/wilddie, WD-1 … WD-3)."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import pytest

import fracas
from fracas.exact import Dist
from fracas.rulesets import RulesetInvalid, results

from .coins import NAME, CoinToss

ATTACK = {"ruleset": NAME, "coins": 4, "target": "dummy", "targets": {"dummy": {"guard": 1}}}
BULK = {"ruleset": NAME, "coins": 3, "target": "dummy", "targets": {"dummy": {"guard": 1}}, "attacks": 3000}
WILDDIE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "wilddie"


def test_its_results_are_the_shapes_it_declares(coins):
    """strike_result_types: the attack (strikes, targets, and the coin toss's own `faces` after
    total_damage) and the bulk result at every detail level, keys in order."""
    attack = fracas.resolve(ATTACK, seed=2).to_dict()
    results.check(attack, coins.result_types["attack"])
    results.check_order(attack, coins.result_types["attack"])
    assert list(attack)[-2:] == ["total_damage", "faces"] and attack["faces"] == attack["strikes"][0]["faces"]
    for detail in ("summary", "attacks", "dice"):
        bulk = fracas.resolve_bulk(dict(BULK, detail=detail), seed=2).to_dict()
        results.check(bulk, coins.result_types["bulk"])
        results.check_order(bulk, coins.result_types["bulk"])
        assert bulk["backend"] == "python" and "exploded" not in bulk["groups"][0]


def test_bulk_totals_are_the_listed_attacks(coins):
    """Summary and listing roll the same attacks from the same streams: per target, per entry
    and the histogram (attacks by damage) agree with the attacks listed one by one."""
    listed = fracas.resolve_bulk(dict(BULK, detail="dice"), seed=5).to_dict()
    summary = fracas.resolve_bulk(BULK, seed=5, threads=2).to_dict()
    attacks = listed["attacks"]
    damages = [a["damage"] for a in attacks]
    assert all(a["damage"] == max(0, a["strikes"][0]["faces"].count(2) - 1) for a in attacks)
    hit = sum(1 for d in damages if d > 0)
    assert summary["targets"]["dummy"] == {"damage": sum(damages), "attacks": 3000, "attacks_hit": hit,
                                           "strikes": 3000, "strikes_hit": hit}
    group = summary["groups"][0]
    assert group["histogram"] == [damages.count(d) for d in range(max(damages) + 1)]
    assert (group["attacks_hit"], group["damage"], group["hit_rate"]) == (hit, sum(damages), hit / 3000)
    assert {k: v for k, v in listed.items() if k not in ("attacks", "detail")} == \
        {k: v for k, v in summary.items() if k != "detail"}


def test_the_detail_limits_are_the_row_rulesets(coins):
    """rows.DETAIL_LIMITS, checked before a coin is flipped."""
    with pytest.raises(fracas.LimitError) as err:
        fracas.resolve_bulk(dict(BULK, attacks=10_001, detail="dice"))
    assert err.value.path == "$.detail" and "limited to 10,000 attacks" in err.value.reason
    with pytest.raises(fracas.SchemaError) as err:
        fracas.resolve_bulk(dict(BULK, detail="strikes"))
    assert err.value.path == "$.detail" and "summary, attacks, dice" in err.value.reason


def test_errors_name_the_target_by_its_id(coins):
    """A target's field error names the target (`$.targets.dummy.guard`, `$.targets['b c']`),
    not msgspec's `$.targets[...]`; an unknown target names the strike's field."""
    for targets, path in (({"dummy": {"guard": "x"}}, "$.targets.dummy.guard"),
                          ({"dummy": {}, "b c": {"colour": 1}}, "$.targets['b c']")):
        with pytest.raises(fracas.SchemaError) as err:
            fracas.resolve(dict(ATTACK, targets=targets))
        assert err.value.path == path, err.value
    with pytest.raises(fracas.SchemaError) as err:
        fracas.resolve(dict(ATTACK, target="nobody"))
    assert err.value.path == "$.target" and "nobody" in err.value.reason


def test_injected_faces_that_run_short_name_the_strike(coins):
    with pytest.raises(fracas.DiceError) as err:
        fracas.resolve(dict(ATTACK, rolls=[2, 2]))
    assert err.value.path == "$.rolls" and "$.strikes[0] needs another die (position 2" in err.value.reason


def test_without_strike_odds_odds_are_refused_naming_the_ruleset(coins):
    assert not coins.has_odds
    with pytest.raises(fracas.RulesError) as err:
        fracas.odds(ATTACK)
    assert err.value.path == "$.ruleset" and "does not resolve odds" in err.value.reason


def test_odds_that_leave_mass_out_are_the_rulesets_mistake():
    """The odds contract (fracas.drive.odds): a distribution sums to exactly 1; one that does not
    is refused naming the ruleset and the target, not answered with figures short of 1."""
    class Leaky(CoinToss):
        def strike_odds(self, plan):
            return Dist({(0, False): 1, (1, True): 2}, 4)  # 3/4 in all

    fracas.rulesets.register(Leaky())
    try:
        assert fracas.rulesets.get(NAME).has_odds
        with pytest.raises(RulesetInvalid, match=r"the coin-toss ruleset's odds for target 'dummy' sum to 0\.75, not"
                                                  r" exactly 1"):
            fracas.odds(ATTACK)
    finally:
        fracas.rulesets.unregister(NAME)


@pytest.fixture
def wild_die():
    sys.path.insert(0, str(WILDDIE))
    try:
        ruleset = fracas.rulesets.register_package("wilddie")
        yield ruleset
        fracas.rulesets.unregister(ruleset.name)
    finally:
        sys.path.remove(str(WILDDIE))
        sys.modules.pop("wilddie", None)


def test_the_wild_die_rolls_its_rules_in_draw_order(wild_die):
    """WD-1 … WD-3 with injected faces, in draw order (trait die, wild die, damage dice; strike
    after strike): a d8 aces on 8 (8 + 3 = 11) against parry 5 is one raise, so 2 + 1 d6 less
    armor 1; the wild d6 (4) is the lower. The second strike misses and rolls no damage."""
    request = {"ruleset": "wild-die", "attacker": {},
               "strikes": [{"target": "orc", "die": 8, "damage": 2}, {"target": "orc", "die": 4}],
               "targets": {"orc": {"parry": 5, "armor": 1}}, "rolls": [8, 3, 4, 6, 5, 1, 2, 3]}
    result = fracas.resolve(request).to_dict()
    first, second = result["strikes"]
    assert (first["trait"], first["wild"], first["total"], first["raises"]) == ([8, 3], [4], 11, 1)
    assert first["damage_faces"] == [6, 5, 1] and first["damage"] == 11 and first["hit"]
    assert (second["trait"], second["wild"], second["hit"], second["damage_faces"]) == ([2], [3], False, [])
    assert result["total_damage"] == 11


def test_the_wild_die_odds_are_exact(wild_die):
    """strike_odds: a d4 against parry 4, armor 0, 1 damage die. The d4 acing (WD-1, at most
    3 aces) and the wild d6 acing: the chance both stay below 4 is 3/4 x 1/2 = 3/8."""
    odds = fracas.odds({"ruleset": "wild-die", "attacker": {}, "strikes": [{"target": "t", "die": 4}],
                        "targets": {"t": {"parry": 4}}})
    dist = dict(odds.distribution("t"))
    assert sum(dist.values()) == 1 and dist[0] == Fraction(3, 8)
    assert odds.to_dict()["targets"]["t"]["p_hit_exact"] == "5/8"


def test_the_shared_odds_shape_with_crits_holds_a_crit_chains_odds():
    """results.CritOddsResult (the guide's odds shape for a ruleset whose `odds` says it has
    crits): Enchanted Realms' odds of a plain attack (ER-8 crit chains) are that shape, keys in
    order; the shape without crits refuses them."""
    request = {"attacker": {"strength": 3, "agility": 2},
               "strikes": [{"target": "orc", "method": "melee", "style": "slashing", "dice": 2,
                            "damage_type": "edged"}],
               "targets": {"orc": {"ac": 13}}}
    odds = fracas.odds(request).to_dict()
    results.check(odds, results.CritOddsResult)
    results.check_order(odds, results.CritOddsResult)
    with pytest.raises(results.ShapeError, match="p_crit"):
        results.check(odds, results.OddsResult)


def test_the_same_seed_gives_the_same_result_on_either_backend(wild_die):
    """The generic path draws through `Dice`, which takes its faces from the compiled generator
    or the Python one, the same faces from the same seed (the guide's draw-order promise):
    a WD attack, a bulk summary and its listed dice are equal on every backend."""
    from fracas import _kernels

    manifest = wild_die.manifest
    attack = dict(manifest.requests["attack"], ruleset="wild-die")
    bulk = dict(manifest.requests["bulk"], ruleset="wild-die", detail="dice")
    made = {}
    for backend in _kernels.available():
        with _kernels.using(backend):
            made[backend] = (fracas.resolve(attack, seed=21).to_dict(),
                             fracas.resolve_bulk(bulk, seed=21).to_dict())
    first, *others = made.values()
    assert all(other == first for other in others), list(made)
    assert len(first[1]["attacks"]) == 500
