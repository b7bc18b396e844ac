"""One or more tests per Enchanted Realms rule (ER-1 … ER-16), dice injected."""

import pytest

import fracas

from .helpers import attack, roll, strike

ORC = {"orc": {"ac": 14}}


def test_er1_multi_strike_and_multiple_targets():
    """ER-1: one action, several strikes, different targets; results per strike and per target."""
    request = attack([strike("goblin", dice=1), strike("orc", dice=1)],
                     targets={"goblin": {"ac": 14}, "orc": {"ac": 10}})
    result = roll(request, rolls=[15, 9])
    assert [s["target"] for s in result["strikes"]] == ["goblin", "orc"]
    assert result["targets"]["goblin"]["damage"] == 1
    assert result["targets"]["orc"]["damage"] == 1
    assert result["total_damage"] == 2


def test_er2_style_is_validated_and_names_pool_dice_directly():
    """ER-2: the request names the strike's dice; an unknown style is refused."""
    with pytest.raises(fracas.SchemaError) as err:
        fracas.resolve(attack([strike(style="kung-fu")]))
    assert err.value.path == "$.strikes[0].style"


def test_er3_five_skill_dice_allowed_six_refused():
    """ER-3: at most 5 skill dice; advantage and sneak dice push a pool to 7."""
    result = roll(attack([strike(dice=5, sneak=True)]), rolls=[2] * 7)
    assert len(result["strikes"][0]["dice"]) == 7
    with pytest.raises(fracas.SchemaError, match=r"6 skill dice, the most is 5 \(ER-3\)"):
        fracas.resolve(attack([strike(dice=6)]))


def test_er4_melee_adds_strength_score_to_hit_and_modifier_to_damage():
    """ER-4: to-hit adds the score (6), damage adds the modifier (+2)."""
    request = attack([strike(dice=1, weight=2)], attacker={"strength": 6})
    result = roll(request, rolls=[8])  # 8 + 6 = 14 ≥ AC 14
    s = result["strikes"][0]
    assert (s["to_hit"], s["dice"][0]["total"], s["dice"][0]["hit"]) == (6, 14, True)
    assert s["damage"] == 1 + 2 + 2


@pytest.mark.parametrize("score, expected", [(2, 0), (3, 0), (4, 1), (6, 2), (1, -1), (0, -1)])
def test_er4_modifier_from_score(score, expected):
    """ER-4 decision: modifier = floor((score - 2) / 2); the text's examples 2→0, 4→+1, 6→+2."""
    result = roll(attack([strike(dice=1)], attacker={"strength": score}, targets={"goblin": {"ac": 2}}),
                  rolls=[19])
    assert result["strikes"][0]["modifier"] == expected


def test_er4_explicit_modifier_wins_and_range_uses_agility_without_weight():
    """ER-4: explicit modifier wins; a range strike adds Agility and has no weight."""
    request = attack([strike(method="range", style="archery", damage_type="piercing")],
                     attacker={"strength": 9, "agility": 5, "agility_mod": 3})
    s = roll(request, rolls=[9])["strikes"][0]
    assert (s["to_hit"], s["hits"], s["modifier"], s["damage"]) == (5, 1, 3, 4)
    with pytest.raises(fracas.SchemaError) as err:
        fracas.resolve(attack([strike(method="range", style="archery", weight=1)]))
    assert err.value.path == "$.strikes[0].weight"


def test_er5_attacker_size_adds_to_every_die():
    """ER-5: a huge attacker has +2 on every die."""
    s = roll(attack([strike(dice=2)], attacker={"strength": 2, "size": "huge"}), rolls=[10, 9])["strikes"][0]
    assert s["to_hit"] == 4 and [d["hit"] for d in s["dice"]] == [True, False]


def test_er5_target_size_helps_ranged_not_melee():
    """ER-5: ranged attacks against a giant target get +3; melee does not."""
    targets = {"goblin": {"ac": 14, "size": "giant"}}
    ranged = roll(attack([strike(method="range", style="archery")], targets=targets), rolls=[9])
    melee = roll(attack([strike()], targets=targets), rolls=[9])
    assert ranged["strikes"][0]["to_hit"] == 5 and ranged["strikes"][0]["hits"] == 1
    assert melee["strikes"][0]["to_hit"] == 2 and melee["strikes"][0]["hits"] == 0


def test_er6_natural_20_always_hits_natural_1_always_misses():
    """ER-6: raw 20 hits any AC; raw 1 misses whatever the bonus."""
    s = roll(attack([strike(dice=2, bonus=60, style="piercing")], targets={"goblin": {"ac": 90}}),
             rolls=[20, 1])["strikes"][0]
    assert [d["hit"] for d in s["dice"]] == [True, False]


def test_er6_ac_by_damage_type():
    """ER-6: a higher AC against the damage type used."""
    targets = {"goblin": {"ac": 10, "ac_by_type": {"edged": 16}}}
    edged = roll(attack([strike(damage_type="edged")], targets=targets), rolls=[12])["strikes"][0]
    blunt = roll(attack([strike(damage_type="blunt")], targets=targets), rolls=[12])["strikes"][0]
    assert (edged["ac"], edged["hits"]) == (16, 0)
    assert (blunt["ac"], blunt["hits"]) == (10, 1)


def test_er7_no_hit_no_bonus():
    """ER-7: weight and modifier apply only when a die hits."""
    s = roll(attack([strike(dice=2, weight=2)], attacker={"strength": 8}), rolls=[2, 3])["strikes"][0]
    assert (s["hits"], s["damage"], s["modifier"]) == (0, 0, None)


def test_er8_one_crit_die_for_several_crit_faces_and_d3_damage():
    """ER-8: two natural 20s grant one crit die; a hitting crit die adds d3 (not 1)."""
    s = roll(attack([strike(dice=2)]), rolls=[20, 20, 15, 3])["strikes"][0]
    assert s["crit"] and s["crit_chain"] == [{"face": 15, "total": 17, "hit": True, "damage": 3}]
    assert s["damage"] == 2 + 3


def test_er8_chain_continues_on_raw_20_only():
    """ER-8: a crit die showing 20 grants another, also with crit range 19-20; a 19 does not."""
    s = roll(attack([strike(dice=1, crit_range=19)]), rolls=[19, 20, 2, 19, 1])["strikes"][0]
    assert [(c["face"], c["damage"]) for c in s["crit_chain"]] == [(20, 2), (19, 1)]
    assert s["damage"] == 1 + 2 + 1


def test_er8_missing_crit_die_adds_nothing_and_ranged_never_crits_by_default():
    """ER-8: a crit die that misses adds 0; a ranged strike does not crit unless marked."""
    s = roll(attack([strike(dice=1)]), rolls=[20, 2])["strikes"][0]
    assert s["crit_chain"] == [{"face": 2, "total": 4, "hit": False, "damage": 0}] and s["damage"] == 1
    ranged = roll(attack([strike(method="range", style="archery")]), rolls=[20])["strikes"][0]
    assert not ranged["crit"] and ranged["crit_range"] is None
    marked = roll(attack([strike(method="range", style="archery", crit=True)]), rolls=[20, 20, 1, 5])
    assert marked["strikes"][0]["crit"] and len(marked["strikes"][0]["crit_chain"]) == 2


def test_er8_crit_face_must_hit():
    """ER-8: a 19 in crit range 19-20 that misses the AC grants no crit die."""
    s = roll(attack([strike(dice=1, crit_range=19)], targets={"goblin": {"ac": 25}}), rolls=[19])["strikes"][0]
    assert not s["crit"] and s["crit_chain"] == []


def test_er8_unbounded_chain_until_the_safety_cap():
    """ER-8: a long chain is resolved whole; the safety cap is far beyond any real chain and reported."""
    rolls = [20] + [20, 1] * 40 + [5]
    s = roll(attack([strike(dice=1)], targets={"goblin": {"ac": 30}}), rolls=rolls)["strikes"][0]
    assert len(s["crit_chain"]) == 41 and s["damage"] == 1 + 40
    rolls = [20] + [20, 1] * 10_000
    with pytest.raises(fracas.LimitError) as err:
        fracas.resolve(dict(attack([strike()]), rolls=rolls))
    assert err.value.path == "$.strikes[0]" and "10000" in err.value.reason


def test_er9_modifier_once_per_target_on_first_hitting_strike():
    """ER-9: two strikes at one target: the modifier goes to the first that hits, once."""
    request = attack([strike(dice=1), strike(dice=1), strike(dice=1)], attacker={"strength": 6})
    result = roll(request, rolls=[2, 12, 13])
    assert [s["modifier"] for s in result["strikes"]] == [None, 2, None]
    assert result["total_damage"] == 0 + 3 + 1


def test_er9_each_target_gets_the_modifier():
    """ER-9: strikes at different targets each add it."""
    request = attack([strike("goblin"), strike("orc")], attacker={"strength": 6},
                     targets={"goblin": {"ac": 10}, "orc": {"ac": 10}})
    result = roll(request, rolls=[12, 12])
    assert [s["modifier"] for s in result["strikes"]] == [2, 2]


def test_er9_negative_modifier_floors_at_zero():
    """ER-9: a negative modifier lowers a strike to 0, never below."""
    request = attack([strike(dice=1)], attacker={"strength": 2, "strength_mod": -3},
                     targets={"goblin": {"ac": 5}})
    assert roll(request, rolls=[10])["strikes"][0]["damage"] == 0


@pytest.mark.parametrize("target, damage, state", [
    ({"resistant": ["edged"]}, 1, "resistant"),          # 3 // 2
    ({"vulnerable": ["edged"]}, 6, "vulnerable"),
    ({"resistant": ["edged"], "vulnerable": ["edged"]}, 3, "normal"),
    ({"immune": ["edged"], "vulnerable": ["edged"]}, 0, "immune"),
    ({"resistant": ["fire"]}, 3, "normal"),
])
def test_er10_resistance(target, damage, state):
    """ER-10: halve (down), double, cancel, immune; by the strike's damage type."""
    request = attack([strike(dice=2, weight=1)], targets={"goblin": {"ac": 10, **target}})
    s = roll(request, rolls=[12, 12])["strikes"][0]
    assert (s["damage"], s["resistance"]) == (damage, state)


def test_er10_resistant_one_point_strike_does_nothing():
    """ER-10: a 1-point strike against resistance deals 0."""
    request = attack([strike()], targets={"goblin": {"ac": 10, "resistant": ["edged"]}})
    assert roll(request, rolls=[12])["strikes"][0]["damage"] == 0


def test_er11_undodgeable_part_from_natural_20_and_its_chain():
    """ER-11: the natural 20's point and the chain it started cannot be dodged."""
    request = attack([strike(dice=2, weight=1)])
    result = roll(request, rolls=[20, 15, 20, 2, 18, 3])
    s = result["strikes"][0]
    # hits 2 + chain (2 + 3) + weight 1 = 8; undodgeable = nat20 1 + chain 5 = 6
    assert (s["damage"], s["undodgeable"]) == (8, 6)
    assert result["targets"]["goblin"]["undodgeable"] == 6


def test_er11_crit_proof_makes_the_chain_dodgeable_and_removes_nothing():
    """ER-11: crit_proof removes no damage; only the natural 20's own point stays undodgeable."""
    request = attack([strike(dice=1)], targets={"goblin": {"ac": 14, "crit_proof": True}})
    s = roll(request, rolls=[20, 16, 3])["strikes"][0]
    assert s["crit_chain"][0]["damage"] == 3
    assert (s["damage"], s["undodgeable"]) == (4, 1)
    plain = roll(attack([strike(dice=1)], targets={"goblin": {"ac": 14}}), rolls=[20, 16, 3])["strikes"][0]
    assert (plain["damage"], plain["undodgeable"]) == (4, 4)


def test_er12_advantage_adds_a_die_that_counts():
    """ER-12: advantage adds one d20; every die counts; several sources are one die."""
    request = attack([strike(dice=1, advantage=True)], advantage=True)
    s = roll(request, rolls=[15, 16])["strikes"][0]
    assert [d["source"] for d in s["dice"]] == ["skill", "advantage"] and s["hits"] == 2


def test_er12_disadvantage_discards_first_highest_and_forbids_crits():
    """ER-12: one extra die, the first highest raw die discarded; no crits at disadvantage."""
    request = attack([strike(dice=2, disadvantage=True)])
    s = roll(request, rolls=[20, 13, 20])["strikes"][0]
    assert s["discarded"] == 20
    assert [d["face"] for d in s["dice"]] == [13, 20]
    assert [d["source"] for d in s["dice"]] == ["skill", "disadvantage"]
    assert not s["crit"] and s["crit_chain"] == [] and s["crit_range"] is None
    assert s["hits"] == 2  # 13 + 2 ≥ 14 and the kept natural 20, which grants no crit


def test_er12_advantage_and_disadvantage_cancel():
    """ER-12: both → neither die is rolled."""
    request = attack([strike(dice=1, advantage=True, disadvantage=True)])
    s = roll(request, rolls=[15])["strikes"][0]
    assert (s["advantage"], s["disadvantage"], len(s["dice"])) == (False, False, 1)


def test_er13_sneak_attack_adds_advantage_and_sneak_dice():
    """ER-13: a sneak attack adds 2d20; with advantage already, only the sneak die is added."""
    s = roll(attack([strike(dice=1, sneak=True)]), rolls=[2, 3, 15])["strikes"][0]
    assert [d["source"] for d in s["dice"]] == ["skill", "advantage", "sneak"]
    s = roll(attack([strike(dice=1, sneak=True, advantage=True)]), rolls=[2, 3, 15])["strikes"][0]
    assert len(s["dice"]) == 3
    s = roll(attack([strike(dice=1, sneak="advantage-only")]), rolls=[2, 15])["strikes"][0]
    assert [d["source"] for d in s["dice"]] == ["skill", "advantage"]


def test_er13_no_sneak_attack_at_disadvantage():
    """ER-13: a sneak attack cannot be made at disadvantage."""
    with pytest.raises(fracas.RulesError) as err:
        fracas.resolve(attack([strike(sneak=True)], attacker={"strength": 2, "conditions": ["prone"]}))
    assert err.value.path == "$.strikes[0].sneak" and "attacker prone" in err.value.reason


def test_er13_shock_save_dc_and_roll():
    """ER-13: sneak damage ≥ half max Body calls for a save at DC 5 + damage; a failure costs d3 actions."""
    targets = {"goblin": {"ac": 10, "body_max": 6, "save_bonus": 1}}
    request = attack([strike(dice=2, weight=1, sneak=True, reach=True)], targets=targets)
    result = roll(request, rolls=[12, 2, 3, 15, 4, 2])  # hits 2 + weight 1 = 3 ≥ 6 / 2
    target = result["targets"]["goblin"]
    assert target["shock_save_dc"] == 8
    assert {k: target["shock_save"][k] for k in ("dc", "roll", "total", "passed", "incapacitated_actions")} == {
        "dc": 8, "roll": 4, "total": 5, "passed": False, "incapacitated_actions": 2}
    assert target["shock_save"]["dice"] == [4]  # a healthy goblin: one d20 (ER-12/ER-14: none apply)
    below = roll(attack([strike(dice=1, sneak=True)], targets={"goblin": {"ac": 10, "body_max": 10}}),
                 rolls=[12, 2, 3])
    assert below["targets"]["goblin"]["shock_save_dc"] is None


@pytest.mark.parametrize("condition", ["blind", "held-breath", "asphyxiating", "poisoned", "prone",
                                       "restrained", "frightened", "bound"])
def test_er14_attacker_conditions_give_disadvantage(condition):
    """ER-14: these attacker conditions put every strike at disadvantage."""
    s = roll(attack(attacker={"strength": 2, "conditions": [condition]}), rolls=[5, 6])["strikes"][0]
    assert s["disadvantage"] and s["discarded"] == 6


def test_er14_penalties_do_not_stack():
    """ER-14: bound −5 and shaken −2 together: the largest single penalty, −5."""
    shaken = roll(attack(attacker={"strength": 2, "conditions": ["shaken"]}), rolls=[5])["strikes"][0]
    both = roll(attack(attacker={"strength": 2, "conditions": ["shaken", "bound"]}), rolls=[5, 6])["strikes"][0]
    assert shaken["to_hit"] == 0 and both["to_hit"] == -3


@pytest.mark.parametrize("condition", ["incapacitated", "paralyzed", "petrified", "stunned",
                                       "unconscious", "nauseated"])
def test_er14_attacker_that_cannot_attack_is_refused(condition):
    """ER-14: these conditions make an attack impossible, with the condition named."""
    with pytest.raises(fracas.RulesError) as err:
        fracas.resolve(attack(attacker={"strength": 2, "conditions": [condition]}))
    assert err.value.path == "$.attacker.conditions"
    assert err.value.reason == f"a {condition} attacker cannot attack (ER-14)"


def test_er14_underwater():
    """ER-14: melee at disadvantage unless swimming ≥ 20; archery at disadvantage; other ranged refused."""
    under = {"strength": 2, "agility": 2, "conditions": ["underwater"]}
    assert roll(attack(attacker=under), rolls=[5, 6])["strikes"][0]["disadvantage"]
    assert not roll(attack(attacker=dict(under, swim_speed=20)), rolls=[5])["strikes"][0]["disadvantage"]
    bow = strike(method="range", style="archery", damage_type="piercing")
    assert roll(attack([bow], attacker=under), rolls=[5, 6])["strikes"][0]["disadvantage"]
    with pytest.raises(fracas.RulesError) as err:
        fracas.resolve(attack([strike(method="range", style="thrown")], attacker=under))
    assert err.value.path == "$.strikes[0].style"


@pytest.mark.parametrize("condition", ["asphyxiating", "blind", "bound", "paralyzed", "petrified",
                                       "restrained", "stunned"])
def test_er15_target_conditions_give_advantage(condition):
    """ER-15: attacks against these targets have advantage."""
    targets = {"goblin": {"ac": 14, "conditions": [condition]}}
    s = roll(attack(targets=targets), rolls=[2, 3])["strikes"][0]
    assert s["advantage"] and len(s["dice"]) == 2


def test_er15_prone_target_melee_advantage_range_disadvantage():
    """ER-15: prone/unconscious: advantage for melee, disadvantage for range."""
    targets = {"goblin": {"ac": 14, "conditions": ["prone"]}}
    assert roll(attack(targets=targets), rolls=[2, 3])["strikes"][0]["advantage"]
    bow = strike(method="range", style="archery")
    assert roll(attack([bow], targets=targets), rolls=[2, 3])["strikes"][0]["disadvantage"]


def test_er15_invisible_target_disadvantage_and_minus_3():
    """ER-15: invisible: disadvantage and −3 on every remaining die."""
    targets = {"goblin": {"ac": 14, "conditions": ["invisible"]}}
    s = roll(attack(attacker={"strength": 4}, targets=targets), rolls=[16, 13])["strikes"][0]
    assert s["disadvantage"] and s["to_hit"] == 1 and s["dice"] == [
        {"face": 13, "total": 14, "hit": True, "source": "disadvantage"}]


def test_er15_defending_target_disadvantage():
    """ER-15: a defending target imposes disadvantage."""
    targets = {"goblin": {"ac": 14, "conditions": ["defending"]}}
    assert roll(attack(targets=targets), rolls=[2, 3])["strikes"][0]["disadvantage"]


def test_er15_paralyzed_hit_counts_as_crit():
    """ER-15: a hit on a paralyzed target grants a crit die without a crit face (ranged too, D-2)."""
    targets = {"goblin": {"ac": 10, "conditions": ["paralyzed"]}}
    bow = strike(method="range", style="archery", damage_type="piercing")
    s = roll(attack([bow], targets=targets), rolls=[12, 3, 11, 2])["strikes"][0]
    assert s["crit"] and s["crit_chain"] == [{"face": 11, "total": 13, "hit": True, "damage": 2}]
    assert s["damage"] == 1 + 2  # one hitting die (12; the advantage 3 misses) + d3


def test_er15_petrified_only_crit_chain_damage():
    """ER-15: against a petrified target only strikes with a crit deal damage, only the chain's."""
    targets = {"goblin": {"ac": 10, "conditions": ["petrified"]}}
    crit = roll(attack([strike(dice=1, weight=2)], attacker={"strength": 6}, targets=targets),
                rolls=[20, 2, 12, 3])["strikes"][0]
    assert (crit["damage"], crit["modifier"]) == (3, None)
    plain = roll(attack([strike(dice=1, weight=2)], targets=targets), rolls=[12, 13])["strikes"][0]
    assert plain["hits"] == 2 and plain["damage"] == 0


@pytest.mark.parametrize("cover, ac", [("none", 14), ("half", 16), ("three-quarters", 19)])
def test_er16_cover_raises_ac_against_ranged_strikes(cover, ac):
    """ER-16: half cover +2 AC, three-quarters +5, against a ranged strike; a melee strike ignores it."""
    bow = strike(method="range", style="archery", damage_type="piercing")
    s = roll(attack([bow], targets={"goblin": {"ac": 14, "cover": cover}}), rolls=[5])["strikes"][0]
    assert s["ac"] == ac
    melee = roll(attack(targets={"goblin": {"ac": 14, "cover": cover}}), rolls=[5])["strikes"][0]
    assert melee["ac"] == 14


def test_er16_full_cover_refuses_ranged_and_obscurement_penalizes():
    """ER-16: no ranged attack through full cover; obscurement is a flat to-hit penalty."""
    with pytest.raises(fracas.RulesError) as err:
        fracas.resolve(attack([strike(method="range", style="archery")],
                              targets={"goblin": {"ac": 14, "cover": "full"}}))
    assert err.value.path == "$.strikes[0].target"
    s = roll(attack(attacker={"strength": 4, "obscurement": 3}), rolls=[5])["strikes"][0]
    assert s["to_hit"] == 1
