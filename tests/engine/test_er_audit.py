"""The Enchanted Realms rules an audit found wrong, each with injected dice (docs/rules/enchanted-realms.md).

Every backend runs these (the suite runs once per kernel backend); the JavaScript
resolver is held to the same answers by the shared vectors, which include requests
of each kind below.
"""

import pytest

import fracas
from fracas._facts import STYLE_METHOD

from .helpers import attack, roll, strike

BOW = {"method": "range", "style": "archery", "damage_type": "piercing"}


@pytest.mark.parametrize("method, style", [("melee", "archery"), ("range", "slashing"),
                                           ("savage", "thrown"), ("melee", "savage"), ("range", "ranged")])
def test_er2_a_style_belongs_to_one_method(method, style):
    """ER-2: a strike whose style is not of its method is refused, naming both fields."""
    request = attack([strike(method=method, style=style)])
    if STYLE_METHOD[style] == method:
        fracas.resolve(request, seed=1)
        return
    with pytest.raises(fracas.SchemaError) as err:
        fracas.resolve(request, seed=1)
    assert err.value.path == "$.strikes[0].style"
    assert f"style {style} belongs to the {STYLE_METHOD[style]} method, not to method {method} (ER-2)" \
        == err.value.reason


def test_er2_every_style_has_exactly_one_method():
    """ER-2: the spec files each style under one method, and every method has a style."""
    assert set(STYLE_METHOD.values()) == set(fracas.rulesets.er.schema.METHODS)


def test_er8_a_ranged_strike_never_crits_unless_marked():
    """ER-8: a natural 20 with a bow starts no chain; a bow marked crit-capable does."""
    plain = roll(attack([strike(**BOW)]), rolls=[20])["strikes"][0]
    assert not plain["crit"] and plain["crit_range"] is None and plain["crit_chain"] == []
    magic = roll(attack([strike(**BOW, crit=True)]), rolls=[20, 12, 2])["strikes"][0]
    assert magic["crit"] and magic["crit_chain"] == [{"face": 12, "total": 14, "hit": True, "damage": 2}]
    with pytest.raises(fracas.SchemaError, match=r"cannot crit unless `crit` is true \(ER-8\)"):
        fracas.resolve(attack([strike(**BOW, crit_range=19)]))


def test_er11_crit_proof_chain_is_counted_and_dodgeable():
    """ER-11: crit_proof keeps every point; the chain's d3s become dodgeable, the 20's point does not."""
    request = attack([strike(dice=2, weight=1)], attacker={"strength": 4},
                     targets={"goblin": {"ac": 10, "crit_proof": True}})
    # 20 and 15 hit (2) + chain: 20 hits (d3 2), 11 hits (d3 3) → 2 + 5 + weight 1 + mod 1 = 9.
    s = roll(request, rolls=[20, 15, 20, 2, 11, 3])["strikes"][0]
    assert s["damage"] == 9 and s["undodgeable"] == 1


@pytest.mark.parametrize("conditions", [["restrained"], ["restrained", "prone"]])
def test_er11_er15_a_restrained_target_cannot_dodge_any_of_it(conditions):
    """ER-11, ER-15: every point against a restrained target is undodgeable, natural 20 or not."""
    request = attack([strike(dice=2, weight=1)], targets={"goblin": {"ac": 10, "conditions": conditions}})
    s = roll(request, rolls=[12, 13, 4])["strikes"][0]  # advantage die 4 misses
    assert s["damage"] == 3 and s["undodgeable"] == 3
    assert roll(request, rolls=[2, 3, 4])["targets"]["goblin"]["undodgeable"] == 0


def test_er10_er15_an_underwater_target_resists_fire_once():
    """ER-10, ER-15: underwater adds fire resistance; a listed fire resistance does not stack with it."""
    fire = strike(dice=3, weight=1, damage_type="fire")
    wet = roll(attack([fire], targets={"goblin": {"ac": 10, "conditions": ["underwater"]}}),
               rolls=[12, 13, 14])["strikes"][0]
    assert wet["resistance"] == "resistant" and wet["damage"] == 2  # (3 + 1) // 2
    both = roll(attack([fire], targets={"goblin": {"ac": 10, "conditions": ["underwater"],
                                                   "resistant": ["fire"]}}), rolls=[12, 13, 14])["strikes"][0]
    assert both["damage"] == 2
    cancels = roll(attack([fire], targets={"goblin": {"ac": 10, "conditions": ["underwater"],
                                                      "vulnerable": ["fire"]}}), rolls=[12, 13, 14])
    assert cancels["strikes"][0]["resistance"] == "normal"
    edged = roll(attack([strike(dice=1)], targets={"goblin": {"ac": 10, "conditions": ["underwater"]}}),
                 rolls=[12])["strikes"][0]
    assert edged["resistance"] == "normal"


@pytest.mark.parametrize("style", ["archery", "crossbow", "sling", "ranged"])
def test_er14_a_bound_attacker_cannot_use_mechanical_or_ammunition_weapons(style):
    """ER-14: bound → no archery, crossbows or slings (nor an unnamed ranged weapon)."""
    bound = {"strength": 2, "agility": 4, "conditions": ["bound"]}
    with pytest.raises(fracas.RulesError) as err:
        fracas.resolve(attack([strike(method="range", style=style, damage_type="piercing")], attacker=bound))
    assert err.value.path == "$.strikes[0].style" and "(ER-14)" in err.value.reason


def test_er14_a_bound_attacker_may_throw():
    """ER-14: thrown weapons stay allowed, at disadvantage and −5."""
    bound = {"strength": 2, "agility": 4, "conditions": ["bound"]}
    s = roll(attack([strike(method="range", style="thrown", damage_type="piercing")], attacker=bound),
             rolls=[15, 3])["strikes"][0]
    assert s["disadvantage"] and s["to_hit"] == -1


def test_er16_cover_is_ignored_by_melee_and_raises_ranged_ac():
    """ER-16: cover protects against ranged strikes only."""
    targets = {"goblin": {"ac": 12, "cover": "three-quarters"}}
    melee = roll(attack([strike(dice=1)], targets=targets), rolls=[11])["strikes"][0]
    assert melee["ac"] == 12 and melee["hits"] == 1
    bow = roll(attack([strike(**BOW)], targets=targets), rolls=[11])["strikes"][0]
    assert bow["ac"] == 17 and bow["hits"] == 0


def test_er16_three_quarters_cover_marks_a_shot_for_friendly_fire_when_others_are_near():
    """ER-16 (→ ER-17): three-quarters cover + creatures listed near the target = friendly fire."""
    targets = {"goblin": {"ac": 12, "cover": "three-quarters", "nearby": ["ally"]}, "ally": {"ac": 14}}
    # The shot misses (11 + 2 < 12 + 5): its stray d10 (9, an empty slot) follows the strikes (ER-17).
    result = roll(attack([strike(**BOW), strike(dice=1)], targets=targets), rolls=[11, 11, 9])
    assert [s["friendly_fire"] for s in result["strikes"]] == [True, False]
    assert result["strikes"][0]["stray"]["creature"] is None
    alone = roll(attack([strike(**BOW)], targets={"goblin": {"ac": 12, "cover": "three-quarters"}}), rolls=[11])
    assert alone["strikes"][0]["friendly_fire"] is False
    half = dict(targets, goblin=dict(targets["goblin"], cover="half"))
    assert roll(attack([strike(**BOW)], targets=half), rolls=[11])["strikes"][0]["friendly_fire"] is False


def test_er16_nearby_creatures_must_be_other_listed_targets():
    """ER-16: `nearby` names other targets of the request (their AC and resistances are known)."""
    with pytest.raises(fracas.SchemaError) as err:
        fracas.resolve(attack(targets={"goblin": {"ac": 12, "nearby": ["ghost"]}}))
    assert err.value.path == "$.targets.goblin.nearby[0]" and "unknown creature 'ghost'" in err.value.reason
    with pytest.raises(fracas.SchemaError, match="not near itself"):
        fracas.resolve(attack(targets={"goblin": {"ac": 12, "nearby": ["goblin"]}}))


@pytest.mark.parametrize("extra", [{"weight": 0}, {"weight": 2, "reach": True}, {"weight": 1, "sneak_ok": True}])
def test_er13_sneak_attack_weapons_that_qualify(extra):
    """ER-13: light (weight 0), reach, or marked sneak_ok melee weapons may sneak attack."""
    s = roll(attack([strike(dice=1, sneak=True, **extra)]), rolls=[2, 3, 4])["strikes"][0]
    assert s["sneak"] is True


def test_er13_sneak_attack_with_a_ranged_weapon():
    """ER-13: any ranged weapon qualifies."""
    s = roll(attack([strike(**BOW, sneak=True)]), rolls=[2, 3, 4])["strikes"][0]
    assert [d["source"] for d in s["dice"]] == ["skill", "advantage", "sneak"]


def test_er13_a_heavy_plain_weapon_cannot_sneak_attack():
    """ER-13: a medium or heavy melee weapon without reach or sneak_ok is refused, naming ER-13."""
    with pytest.raises(fracas.RulesError) as err:
        fracas.resolve(attack([strike(dice=1, weight=2, sneak=True)]))
    assert err.value.path == "$.strikes[0].sneak" and err.value.reason.endswith("(ER-13)")


def test_er7_base_is_the_damage_before_the_modifier():
    """ER-7, ER-9: `base` reports the strike's damage before the modifier, even when a negative
    modifier floors it at 0."""
    s = roll(attack([strike(dice=1)], attacker={"strength": 2, "strength_mod": -3}), rolls=[15])["strikes"][0]
    assert (s["base"], s["modifier"], s["damage"]) == (1, -3, 0)
