"""Worldwalker, Cartyrion and old-school: the texts' worked examples with injected dice,
and each rule (and each decision recorded for it) as a small case. Rule IDs in names."""

import pytest

import fracas
from fracas import _kernels

CT = "cartyrion"
WW = "worldwalker"
OS = "old-school"


def ct_attack(attacker, strike, target, rolls=None, seed=1):
    req = {"ruleset": CT, "attacker": attacker, "strikes": [{"target": "t", "method": "melee", **strike}],
           "targets": {"t": target}}
    if rolls is not None:
        req["rolls"] = rolls
    return fracas.resolve(req, seed=seed).to_dict()


# -- Cartyrion goldens (CT-2, CT-3, CT-7) ------------------------------------------------------

def test_ct2_ct3_tombril_hits_the_hill_giant_for_31():
    r = ct_attack({"level": 9, "bonus": 8, "magic": 2}, {"die": "d6"}, {"dex": 3, "armor": 1}, [5, 3, 4, 3, 2])
    s = r["strikes"][0]
    assert (s["dice"], s["faces"], s["dice_total"], s["raw"], s["damage"]) == (5, [5, 3, 4, 3, 2], 17, 35, 31)
    assert r["targets"]["t"] == {"damage": 31, "stamina": 31, "injury": 0}


def test_ct3_the_giant_hits_tombril_for_43_with_four_explosions_breadth_first():
    rolls = [6, 5, 3, 6, 2, 6, 5, 1, 6, 2]
    r = ct_attack({"level": 12, "bonus": 9}, {"die": "d6"}, {"dex": 5, "armor": 3}, rolls)
    s = r["strikes"][0]
    assert s["faces"] == rolls and s["exploded"] == 4 and s["dice_total"] == 42 and s["damage"] == 43


@pytest.mark.parametrize("sneak, damage", [("passed", 12), ("failed", 9)])
def test_ct7_cedryk_sneak_attack_is_direct_damage(sneak, damage):
    r = ct_attack({"level": 3, "bonus": 4}, {"die": "d4", "sneak": sneak}, {"dex": 2, "armor": 3}, [4, 2, 2])
    assert r["total_damage"] == damage
    assert r["targets"]["t"] == {"damage": damage, "stamina": 0, "injury": damage}
    assert r["strikes"][0]["dex"] == 0  # the target's DEX is never subtracted


@pytest.mark.parametrize("check, damage", [(9, 12), (8, 9)])
def test_ct7_sneak_check_rolled_against_dc_10_plus_armor(check, damage):
    r = ct_attack({"level": 3, "bonus": 4, "awa": 4}, {"die": "d4", "sneak": "roll"}, {"dex": 2, "armor": 3},
                  [check, 4, 2, 2])
    c = r["strikes"][0]["sneak_check"]
    assert (c["total"], c["dc"], c["passed"]) == (check + 4, 13, check == 9)
    assert r["total_damage"] == damage


def test_ct2_a_sword_adds_the_strength_bonus_a_bow_the_awa_bonus():
    """CT-2: "Damage = die roll + your STR (or DEX) bonus ..." in melee, "Damage = die roll +
    your AWA bonus ..." at range: one attacker, STR +8 and AWA +2, 3 + 2 on each: 13 and 7."""
    req = {"ruleset": CT, "attacker": {"level": 3, "bonus": 8, "awa": 2},
           "strikes": [{"target": "t", "method": "melee", "die": "d6"},
                       {"target": "t", "method": "ranged", "die": "d6"}],
           "targets": {"t": {}}, "rolls": [3, 2, 3, 2, 1]}
    r = fracas.resolve(req).to_dict()
    assert [(s["bonus"], s["damage"]) for s in r["strikes"]] == [(8, 13), (2, 7)]
    assert r["targets"]["t"] == {"damage": 20, "stamina": 13, "injury": 7}


def test_ct2_a_ranged_strike_without_awa_keeps_the_one_bonus():
    """CT-2 decision: an attacker that gives no `awa` is one whose `bonus` serves every strike
    (a request written for an archer alone, as before `awa` counted at range)."""
    req = {"ruleset": CT, "attacker": {"level": 1, "bonus": 4},
           "strikes": [{"target": "t", "method": "ranged", "die": "d6"}], "targets": {"t": {}}, "rolls": [3, 1]}
    assert fracas.resolve(req).to_dict()["strikes"][0]["bonus"] == 4


def test_ct2_ct7_a_ranged_sneak_attack_adds_the_awa_bonus():
    """CT-7: "the attacker's appropriate bonus (... AWA for range attacks) is added"."""
    r = ct_attack({"level": 3, "bonus": 6, "awa": 4}, {"method": "ranged", "die": "d4", "sneak": "roll"},
                  {"dex": 2, "armor": 3}, [9, 4, 2, 2, 1])
    s = r["strikes"][0]
    assert s["sneak_check"]["passed"] and s["bonus"] == 4 and s["damage"] == 4 + 2 + 2 + 4


def test_ct2_odds_add_the_awa_bonus_at_range():
    """CT-2 in `odds`: a level-1 bow (one d6, explosions cut) with AWA +2 against DEX 1 and
    armor 1 deals the die's face at least; it never deals less than 1 + 2 - 2 = 1."""
    req = {"ruleset": CT, "attacker": {"level": 1, "bonus": 8, "awa": 2},
           "strikes": [{"target": "t", "method": "ranged", "die": "d6"}],
           "targets": {"t": {"dex": 1, "armor": 1}}}
    got = fracas.odds(req).to_dict()["targets"]["t"]
    assert got["distribution"][0][0] == 1  # STR +8 would start at 7
    assert abs(got["mean"] - (3.5 * 6 / 5)) < 1e-9  # an exploding d6 averages 4.2; + 2 - 2


def test_ct5_power_attack_doubles_original_dice_and_magic_per_die():
    r = ct_attack({"level": 3, "bonus": 0, "magic": 1}, {"die": "d6", "power": True}, {}, [1, 1, 1, 1])
    assert r["strikes"][0]["dice"] == 4 and r["strikes"][0]["magic_bonus"] == 4 and r["total_damage"] == 8


def test_ct2_magic_bonus_not_on_exploded_dice_and_floor_at_zero():
    r = ct_attack({"level": 1, "magic": 2}, {"die": "d4"}, {}, [4, 4, 1])
    assert r["strikes"][0]["raw"] == 4 + 4 + 1 + 2
    r = ct_attack({"level": 1}, {"die": "d4"}, {"dex": 5, "armor": 5}, [3])
    assert r["total_damage"] == 0


def test_ct4_ranged_is_direct_damage_and_costs_d4_stamina_halved_rounding_up():
    req = {"ruleset": CT, "attacker": {"level": 1, "bonus": 2},
           "strikes": [{"target": "t", "method": "ranged", "die": "d6"},
                       {"target": "t", "method": "ranged", "die": "d6", "specialized": True}],
           "targets": {"t": {"dex": 1}}, "rolls": [3, 3, 3, 3]}
    r = fracas.resolve(req).to_dict()
    assert [s["stamina_cost"] for s in r["strikes"]] == [{"roll": 3, "cost": 3}, {"roll": 3, "cost": 2}]
    assert r["attacker"] == {"stamina_cost": 5}
    assert r["targets"]["t"] == {"damage": 8, "stamina": 0, "injury": 8}


# CT-3: "each maximum face adds another die of that type, without end". Decision: a strike
# explodes at most CT_EXPLODE_LIMIT times (the kernel's bound, as ER-8's chain stops at
# CHAIN_LIMIT); a maximum face past it adds no die and the result says `explosions_cut`.
LIMIT = fracas._facts.CT_EXPLODE_LIMIT


def _backend(backend):
    """Run on `backend` (the compiled core only where it is built)."""
    if backend == "compiled" and backend not in _kernels.available():
        pytest.skip("the compiled core is not built here")
    return _kernels.using(backend)


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_ct3_explosions_stop_at_the_bound_and_the_result_says_so(backend):
    with _backend(backend):
        s = ct_attack({"level": 1}, {"die": "d4"}, {}, [4] * (LIMIT + 1))["strikes"][0]
    assert (s["exploded"], s["dice_total"], s["explosions_cut"]) == (LIMIT, 4 * (LIMIT + 1), True)
    assert ct_attack({"level": 1}, {"die": "d4"}, {}, [3])["strikes"][0]["explosions_cut"] is False


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_ct3_a_face_past_the_bound_adds_no_die(backend):
    with _backend(backend), pytest.raises(fracas.DiceError) as caught:
        ct_attack({"level": 1}, {"die": "d4"}, {}, [4] * (LIMIT + 1) + [2])
    assert caught.value.path == "$.rolls"  # the extra face is left over: the cut 4 drew no die


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_ct3_the_cut_is_seen_even_when_the_last_die_is_not_a_maximum(backend):
    """Two original dice: after LIMIT explosions one pending die still shows a 4 (cut) and
    the other a 1; reaching the bound exactly with no maximum past it is no cut."""
    with _backend(backend):
        s = ct_attack({"level": 1}, {"die": "d4", "dice": 2}, {}, [4] * (LIMIT + 1) + [1])["strikes"][0]
        assert (s["exploded"], len(s["faces"]), s["explosions_cut"]) == (LIMIT, LIMIT + 2, True)
        s = ct_attack({"level": 1}, {"die": "d4"}, {}, [4] * LIMIT + [3])["strikes"][0]
        assert (s["exploded"], s["explosions_cut"]) == (LIMIT, False)


def test_ct6_weapon_parry_stops_everything_until_enough_explosions_shatter_it():
    req = {"ruleset": CT, "attacker": {"level": 1},
           "strikes": [{"target": "t", "method": "melee", "die": "d4", "parry": "weapon"}] * 4,
           "targets": {"t": {"weapon_magic": 1}}, "rolls": [3, 4, 2, 4, 1, 2]}
    r = fracas.resolve(req).to_dict()
    # +1 weapon: the first explosion does not shatter it, the second does; both blows are stopped.
    assert [s["damage"] for s in r["strikes"]] == [0, 0, 0, 2]
    assert [s["parry"]["left"] for s in r["strikes"]] == [2, 1, 0, 0]
    assert r["strikes"][1]["parry"]["absorbed"] == 6


def test_ct6_shield_takes_double_damage_and_the_excess_goes_through():
    req = {"ruleset": CT, "attacker": {"level": 1},
           "strikes": [{"target": "t", "method": "melee", "die": "d10", "parry": "shield"}] * 2,
           "targets": {"t": {"shield": 5}}, "rolls": [2, 7]}
    r = fracas.resolve(req).to_dict()
    assert [(s["parry"]["absorbed"], s["damage"], s["parry"]["left"]) for s in r["strikes"]] == [(2, 0, 1), (1, 6, 0)]


@pytest.mark.parametrize("roll, first, surprised", [(1, "opponents", "party"), (3, "opponents", None),
                                                     (4, "party", None), (6, "party", "opponents")])
def test_ct1_first_round_surprise(roll, first, surprised):
    r = fracas.roll_initiative({"ruleset": CT, "rolls": [roll]}).to_dict()
    assert (r["first"], r["surprised"]) == (first, surprised)


@pytest.mark.parametrize("ambush, table", [
    ("opponents", {1: ("opponents", "party"), 2: ("opponents", "party"), 3: ("opponents", None),
                   4: ("party", None), 5: ("party", None), 6: ("party", None)}),
    ("party", {1: ("opponents", None), 2: ("opponents", None), 3: ("opponents", None), 4: ("party", None),
               5: ("party", "opponents"), 6: ("party", "opponents")}),
])
def test_ct1_ambush_tables(ambush, table):
    for roll, expected in table.items():
        r = fracas.roll_initiative({"ruleset": CT, "ambush": ambush, "rolls": [roll]}).to_dict()
        assert (r["first"], r["surprised"]) == expected


def test_ct1_later_rounds_have_no_surprise_and_no_ambush():
    r = fracas.roll_initiative({"ruleset": CT, "round": 2, "rolls": [1]}).to_dict()
    assert (r["first"], r["surprised"]) == ("opponents", None)
    with pytest.raises(fracas.RulesError, match=r"CT-1"):
        fracas.roll_initiative({"ruleset": CT, "round": 2, "ambush": "party"})


# -- Worldwalker ----------------------------------------------------------------------------

def ww_attack(strike=None, target=None, attacker=None, rolls=None, seed=1):
    req = {"ruleset": WW, "attacker": attacker or {"skill": 3, "str_mod": 2, "dex_mod": 1},
           "strikes": [{"target": "orc", "method": "melee", "damage": "1d8", **(strike or {})}],
           "targets": {"orc": target or {"defense": 14, "armor": 2}}}
    if rolls is not None:
        req["rolls"] = rolls
    return fracas.resolve(req, seed=seed).to_dict()


@pytest.mark.parametrize("face, counts, hit", [(20, 30, True), (1, -10, False), (9, 9, True), (8, 8, False)])
def test_ww2_natural_20_counts_30_and_natural_1_counts_minus_10(face, counts, hit):
    r = ww_attack(rolls=[face, 5] if hit else [face])
    s = r["strikes"][0]
    assert s["attack_total"] == counts + 5 and s["hit"] is hit and s["natural"] == (face if face in (1, 20) else None)


def test_ww2_natural_20_does_not_hit_automatically():
    r = ww_attack(target={"defense": 40}, rolls=[20])
    assert r["strikes"][0]["attack_total"] == 35 and not r["strikes"][0]["hit"]


def test_ww2_tn_from_dex_mod():
    r = ww_attack(target={"dex_mod": 3}, rolls=[8, 3])
    assert r["strikes"][0]["tn"] == 13 and r["strikes"][0]["hit"]


def test_ww3_ww4_critical_bonus_joins_before_armor_and_the_floor_applies_to_the_whole():
    r = ww_attack({"critical": 3, "crit_multiplier": 2}, {"defense": 10, "armor": 20}, rolls=[15, 4])
    s = r["strikes"][0]
    assert s["attack_total"] == 15 + 5 - 3 and s["damage_bonus"] == 2 + 6 and s["damage"] == 0
    r = ww_attack({"critical": 3, "crit_multiplier": 2}, {"defense": 10, "armor": 2}, rolls=[15, 4])
    assert r["strikes"][0]["damage"] == 4 + 2 + 6 - 2


def test_ww4_critical_of_6_is_refused():
    with pytest.raises(fracas.RulesError) as err:
        ww_attack({"critical": 6})
    assert err.value.path == "$.strikes[0].critical" and "WW-4" in err.value.reason


def test_ww5_block_negates_on_a_tie_and_has_no_natural_substitution():
    target = {"defense": 10, "armor": 0, "reaction": {"kind": "block", "bonus": 6}}
    r = ww_attack(target=target, rolls=[10, 9])  # attack 15, block 15: the defender wins ties
    assert r["strikes"][0]["negated"] and r["total_damage"] == 0
    r = ww_attack(target=target, rolls=[10, 20])  # a natural 20 block is 26, not 36
    assert r["strikes"][0]["reaction"]["total"] == 26 and r["strikes"][0]["negated"]
    r = ww_attack(target=target, rolls=[10, 8, 3])
    assert not r["strikes"][0]["negated"] and r["total_damage"] == 5


def test_ww5_engaged_ranged_defender_blocks_at_minus_6():
    target = {"defense": 10, "reaction": {"kind": "dodge", "bonus": 6}}
    r = ww_attack({"engaged": True}, target, rolls=[10, 15])
    assert r["strikes"][0]["reaction"]["total"] == 15 and r["strikes"][0]["negated"]


def test_ww6_two_weapon_penalties_from_the_table():
    attacker = {"skill": 3, "str_mod": 2, "two_weapon": {"light": True, "talent": "none"}}
    r = ww_attack({"hand": "off"}, attacker=attacker, rolls=[5])
    assert r["strikes"][0]["attack_bonus"] == 5 - 8
    with pytest.raises(fracas.RulesError, match="WW-6"):
        ww_attack({"hand": "off"})


# WW-6 on blocks: "a -6 penalty with your regular attack and block rolls with your primary
# hand and a -10 penalty to the attack and block rolls with your off hand" (issue 42).
@pytest.mark.parametrize("two_weapon, hand, bonus", [
    ({"light": False, "talent": "none"}, "off", 7 - 10),  # the duelist of issue 42: +7 blocks at -3
    ({"light": False, "talent": "none"}, "primary", 7 - 6),
    ({"light": False, "talent": "none"}, None, 7 - 6),  # the primary hand by default
    ({"light": True, "talent": "none"}, "off", 7 - 8),  # a light off-hand weapon: 2 less each
    ({"light": True, "talent": "none"}, "primary", 7 - 4),
    ({"light": False, "talent": "dual-weapon-training"}, "off", 7 - 4),
    ({"light": True, "talent": "dual-weapon-mastery"}, "off", 7),
    ({"light": True, "talent": "shield-specialist"}, "off", 7 - 4),
    (None, "primary", 7),  # one weapon: no penalty
])
def test_ww6_two_weapon_penalties_reach_the_target_s_block(two_weapon, hand, bonus):
    reaction = {"kind": "block", "bonus": 7}
    if hand is not None:
        reaction["hand"] = hand
    target = {"defense": 10, "reaction": reaction}
    if two_weapon is not None:
        target["two_weapon"] = two_weapon
    negated = 8 + bonus >= 15  # attack 10 + 5 = 15; the block reaches it or the damage die is rolled
    r = ww_attack(target=target, rolls=[10, 8] if negated else [10, 8, 3])
    block = r["strikes"][0]["reaction"]
    assert (block["bonus"], block["total"], block["negated"]) == (bonus, 8 + bonus, 8 + bonus >= 15)


def test_ww6_a_dodge_takes_no_two_weapon_penalty_and_names_no_hand():
    target = {"defense": 10, "reaction": {"kind": "dodge", "bonus": 7}, "two_weapon": {"light": False, "talent": "none"}}
    r = ww_attack(target=target, rolls=[10, 8])  # attack 15, dodge 8 + 7 = 15: negated
    assert r["strikes"][0]["reaction"]["bonus"] == 7 and r["strikes"][0]["negated"]
    target["reaction"]["hand"] = "off"
    with pytest.raises(fracas.RulesError) as err:
        ww_attack(target=target)
    assert err.value.path == "$.targets.orc.reaction.hand" and "WW-5, WW-6" in err.value.reason


def test_ww6_an_off_hand_block_needs_the_target_s_two_weapons():
    with pytest.raises(fracas.RulesError) as err:
        ww_attack(target={"defense": 10, "reaction": {"kind": "block", "bonus": 7, "hand": "off"}})
    assert err.value.path == "$.targets.orc.reaction.hand" and "WW-6" in err.value.reason
    with pytest.raises(fracas.SchemaError) as err:
        ww_attack(target={"defense": 10, "two_weapon": {"talent": "juggler"}})
    assert err.value.path == "$.targets.orc.two_weapon.talent"


def test_ww6_block_penalty_in_exact_odds():
    """WW-6 in `odds`: a block at -3 (d20 - 3 >= 15: faces 18-20) negates 3 hits in 20."""
    from fractions import Fraction
    req = {"ruleset": WW, "attacker": {"skill": 3, "str_mod": 2},
           "strikes": [{"target": "orc", "method": "melee", "damage": "1d8"}],
           "targets": {"orc": {"defense": 35, "reaction": {"kind": "block", "bonus": 7, "hand": "off"},
                               "two_weapon": {"light": False, "talent": "none"}}}}
    got = fracas.odds(req).to_dict()["targets"]["orc"]
    # Only a natural 20 (30 + 5 = 35) hits TN 35; the block then needs 35 - (-3) = 38: never.
    assert Fraction(got["p_hit_exact"]) == Fraction(1, 20)
    req["targets"]["orc"]["defense"] = 15  # 10-20 hit (attack 15-35); block d20 - 3 >= attack
    got = fracas.odds(req).to_dict()["targets"]["orc"]
    blocked = sum(sum(1 for b in range(1, 21) if b - 3 >= (30 if a == 20 else a) + 5) for a in range(10, 21))
    assert Fraction(got["p_hit_exact"]) == Fraction(11 * 20 - blocked, 400)


def test_ww7_successful_feint_denies_the_block():
    target = {"defense": 10, "reaction": {"kind": "block", "bonus": 20}}
    r = ww_attack({"feint": {"bonus": 3, "defense": 0}}, target, rolls=[10, 5, 12, 4])
    s = r["strikes"][0]
    assert s["feint"] == {"roll": 10, "defense_roll": 5, "succeeded": True} and s["reaction"] is None
    assert s["damage"] == 4 + 2 - 0


def test_ww1_initiative_d20_plus_dex_descending_ties_to_higher_dex():
    r = fracas.roll_initiative({"ruleset": WW, "combatants": [{"id": "a", "dex_mod": 0}, {"id": "b", "dex_mod": 2}],
                                "rolls": [12, 10]}).to_dict()
    assert [e["id"] for e in r["order"]] == ["b", "a"] and [e["total"] for e in r["order"]] == [12, 12]


# -- Old-school -------------------------------------------------------------------------------

def os_attack(strike=None, target=None, attacker=None, rolls=None, seed=1):
    req = {"ruleset": OS, "attacker": attacker or {"attack_bonus": 1, "str_mod": 1, "dex_mod": 2},
           "strikes": [{"target": "x", "method": "melee", "damage": "1d8", **(strike or {})}],
           "targets": {"x": target or {"ac": 14, "shield": 1}}}
    if rolls is not None:
        req["rolls"] = rolls
    return fracas.resolve(req, seed=seed).to_dict()


def test_os6_natural_20_always_hits_natural_1_always_misses():
    assert os_attack(target={"ac": 40}, rolls=[20, 3])["strikes"][0]["hit"]
    assert not os_attack(target={"ac": -10}, rolls=[1])["strikes"][0]["hit"]


def test_os6_damage_at_least_1_on_a_hit():
    r = os_attack({"damage": "1d4-3"}, rolls=[15, 1])
    assert r["total_damage"] == 1


def test_os3_missile_dex_to_hit_not_damage_and_range_modifiers():
    r = os_attack({"method": "missile", "range": "short"}, rolls=[10, 5])
    s = r["strikes"][0]
    assert s["attack_bonus"] == 1 + 2 + 1 and s["damage_bonus"] == 0 and s["damage"] == 5
    assert os_attack({"method": "missile", "range": "long"}, rolls=[1])["strikes"][0]["attack_bonus"] == 2


def test_os3_rear_and_fleeing_ignore_the_shield_fleeing_adds_2():
    assert os_attack({"rear": True}, rolls=[1])["strikes"][0]["ac"] == 13
    s = os_attack(target={"ac": 14, "shield": 1, "fleeing": True}, rolls=[1])["strikes"][0]
    assert s["ac"] == 13 and s["attack_bonus"] == 1 + 1 + 2


def test_os3_fleeing_bonus_is_for_melee_only():
    # OS-3 (seed 004): "Opponents in melee with a retreating combatant gain a +2 Attack bonus
    # against them this Round and ignore any AC bonus from their shield."  A missile at a
    # fleeing target gets neither (RULES.md: "OS-3 fleeing bonus is for melee attacks only").
    fleeing = {"ac": 14, "shield": 1, "fleeing": True}
    missile = os_attack({"method": "missile", "range": "medium"}, target=fleeing, rolls=[12, 3])["strikes"][0]
    assert missile["ac"] == 14 and not missile["shield_ignored"] and missile["attack_bonus"] == 1 + 2
    assert missile["attack_total"] == 15 and missile["hit"]
    melee = os_attack(target=fleeing, rolls=[10, 3])["strikes"][0]
    assert melee["ac"] == 13 and melee["shield_ignored"] and melee["attack_total"] == 10 + 1 + 1 + 2


def test_os3_cover_and_impossible_missiles():
    assert os_attack({"method": "missile"}, {"ac": 12, "cover": 3}, rolls=[1])["strikes"][0]["attack_bonus"] == 0
    with pytest.raises(fracas.RulesError) as err:
        os_attack({"method": "missile", "range": "beyond"})
    assert err.value.path == "$.strikes[0].range" and "OS-3" in err.value.reason
    with pytest.raises(fracas.RulesError) as err:
        os_attack({"method": "missile"}, {"ac": 12, "cover": "full"})
    assert err.value.path == "$.targets.x.cover" and "full cover" in err.value.reason


def test_os1_side_initiative_ties_reroll_or_simultaneous_and_waiting_sides_last():
    sides = [{"id": "party"}, {"id": "orcs"}, {"id": "wolves", "wait": True}]
    r = fracas.roll_initiative({"ruleset": OS, "sides": sides, "rolls": [4, 4, 2, 5]}).to_dict()
    assert r["order"] == [["orcs"], ["party"], ["wolves"]]
    r = fracas.roll_initiative({"ruleset": OS, "sides": sides, "ties": "simultaneous", "rolls": [4, 4]}).to_dict()
    assert r["order"] == [["party", "orcs"], ["wolves"]]


@pytest.mark.parametrize("morale, modifier, dice, breaks", [(7, 0, [3, 5], True), (7, 1, [3, 5], False),
                                                            (8, -2, [4, 3], True)])
def test_os4_morale_breaks_when_2d6_exceeds_morale_plus_modifier(morale, modifier, dice, breaks):
    r = fracas.check_morale({"ruleset": OS, "morale": morale, "modifier": modifier, "rolls": dice}).to_dict()
    assert r["checked"] and r["breaks"] is breaks


def test_os4_morale_12_and_two_successes_never_check():
    assert not fracas.check_morale({"ruleset": OS, "morale": 12, "modifier": -2}).to_dict()["checked"]
    r = fracas.check_morale({"ruleset": OS, "morale": 7, "successes": 1, "rolls": [1, 1]}).to_dict()
    assert r["successes"] == 2 and r["fights_to_death"]
    assert not fracas.check_morale({"ruleset": OS, "morale": 7, "successes": 2}).to_dict()["checked"]


# -- bad input names its path and rule ------------------------------------------------------

@pytest.mark.parametrize("call, path, rule", [
    (lambda: ct_attack({"level": 1}, {"die": "d7"}, {}), "$.strikes[0].die", "CT-3"),
    (lambda: ww_attack({"damage": "1d7"}), "$.strikes[0].damage", "WW-3"),
    (lambda: os_attack({"damage": "2d7"}), "$.strikes[0].damage", "OS-6"),
    (lambda: ct_attack({"level": 1}, {"die": "d6", "sneak": "passed", "power": True}, {}), "$.strikes[0].sneak", "CT-7"),
    (lambda: ct_attack({"level": 1}, {"die": "d6", "parry": "shield"}, {}), "$.strikes[0].parry", "CT-6"),
])
def test_bad_input_names_path_and_rule(call, path, rule):
    with pytest.raises(fracas.RequestError) as err:
        call()
    assert err.value.path == path and rule in err.value.reason


def test_injected_faces_that_do_not_fit_name_the_die():
    with pytest.raises(fracas.DiceError) as err:
        ct_attack({"level": 1}, {"die": "d6"}, {}, [7])
    assert err.value.path == "$.rolls[0]" and "d6" in err.value.reason
    with pytest.raises(fracas.DiceError, match="needs another die"):
        ct_attack({"level": 1}, {"die": "d6"}, {}, [6])
    with pytest.raises(fracas.DiceError, match="remove the extra faces"):
        ct_attack({"level": 1}, {"die": "d6"}, {}, [5, 5])
