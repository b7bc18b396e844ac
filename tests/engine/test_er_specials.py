"""Enchanted Realms beyond the single strike (ER-17, ER-19 … ER-23), with injected dice.

Every backend runs these (the suite runs once per kernel backend); the JavaScript
resolver is held to the same answers by tests/vectors/er_specials_vectors.json.
Exact probabilities are checked against a brute-force count over every face, and
seeded rolls against the exact values with a fixed-seed statistical test.
"""

from fractions import Fraction
from itertools import product
import math

import pytest

import fracas

from .helpers import attack, roll, strike

BOW = {"method": "range", "style": "archery", "damage_type": "piercing"}
CROWD = {"orc": {"ac": 25, "cover": "three-quarters", "nearby": ["ally", "ogre"]},
         "ally": {"ac": 12}, "ogre": {"ac": 14, "resistant": ["piercing"]}}


def shot(dice=2, targets=None, **extra):
    """A bow shot (Agility 4, +4 to hit) at the orc behind three-quarters cover (AC 30)."""
    return attack([strike("orc", dice=dice, **BOW, **extra)], targets=targets or CROWD, attacker={"agility": 4})


def within(observed, n, p, sigmas=4.5):
    """A fixed-seed statistical test: `observed` successes of `n` against the exact `p`."""
    return abs(observed - n * p) <= sigmas * math.sqrt(n * p * (1 - p)) + 1


# -- ER-17 friendly fire -------------------------------------------------------------------

def test_er17_a_missed_shot_strays_and_18_becomes_a_natural_20_that_crits():
    """ER-17: 18 + 2 is a natural 20 against the new target, with the crit consequences (ER-8)."""
    r = roll(shot(crit=True), rolls=[18, 2, 1, 20, 2, 12, 3])
    stray = r["strikes"][0]["stray"]
    assert r["strikes"][0]["hits"] == 0 and stray["roll"] == 1 and stray["creature"] == "ally"
    assert [(d["face"], d["shifted"], d["hit"]) for d in stray["dice"]] == [(18, 20, True), (2, 4, False)]
    # the crit die 20 hits (d3 2) and grants another: 12 + 4 hits AC 12 (d3 3)
    assert stray["crit"] and [c["face"] for c in stray["crit_chain"]] == [20, 12]
    assert stray["base"] == 1 + 2 + 3 and stray["modifier"] == 1 and stray["damage"] == 7
    # ER-11: the shifted natural 20 and its chain cannot be dodged
    assert stray["undodgeable"] == 6
    assert r["targets"]["ally"]["damage"] == 7 and r["total_damage"] == 7
    assert r["targets"]["ally"]["by_type"] == {"piercing": 7}


def test_er17_19_becomes_a_natural_20_too_and_20_stays_one():
    """ER-17: 18 and 19 become natural 20s; the shift never goes past 20."""
    stray = roll(shot(dice=1), rolls=[19, 2])["strikes"][0]["stray"]
    assert stray["creature"] == "ogre" and stray["dice"][0]["shifted"] == 20 and stray["dice"][0]["hit"]
    assert stray["resistance"] == "resistant" and stray["damage"] == (1 + 1) // 2  # ER-10 halves 1 + mod 1


def test_er17_a_natural_1_is_a_raw_3_against_the_new_target():
    """ER-17: a natural 1 misses the target (ER-6) but is a raw 3 against the bystander, no fumble."""
    targets = {"orc": {"ac": 8, "cover": "three-quarters", "nearby": ["ally"]}, "ally": {"ac": 12}}
    r = roll(attack([strike("orc", dice=1, **BOW)], targets=targets, attacker={"agility": 10}), rolls=[1, 1])
    die = r["strikes"][0]["stray"]["dice"][0]
    assert (die["face"], die["shifted"], die["total"], die["hit"]) == (1, 3, 13, True)


@pytest.mark.parametrize("slot", [9, 10, 3, 8])
def test_er17_slots_9_10_and_unfilled_ones_are_empty(slot):
    """ER-17: slots 9 and 10 are always empty, and so is any number past the creatures listed."""
    stray = roll(shot(), rolls=[5, 5, slot])["strikes"][0]["stray"]
    assert stray["creature"] is None and stray["damage"] == 0 and f"slot {slot}" in stray["why"]


def test_er17_every_slot_empty_when_no_one_is_near():
    """ER-17: a shot asked under the rule with no creature listed strays into nothing."""
    r = roll(shot(friendly_fire=True, targets={"orc": {"ac": 25}}), rolls=[5, 5, 1])
    assert r["strikes"][0]["stray"]["creature"] is None
    assert "slot 1 is empty (0 creatures near orc)" == r["strikes"][0]["stray"]["why"]


def test_er17_a_hit_on_the_target_rolls_no_stray():
    r = roll(shot(targets=dict(CROWD, orc=dict(CROWD["orc"], ac=10))), rolls=[15, 2])
    assert r["strikes"][0]["hits"] == 1 and r["strikes"][0]["stray"] is None


@pytest.mark.parametrize("attacker_conditions, target_conditions, cover, expected", [
    ([], [], "three-quarters", True), (["blind"], [], "none", True), ([], ["invisible"], "none", True),
    ([], [], "half", False), ([], [], "none", False)])
def test_er17_when_a_shot_is_under_the_rule_by_default(attacker_conditions, target_conditions, cover, expected):
    """ER-16, ER-17: three-quarters cover, a blind shot, an invisible target (with creatures listed near)."""
    targets = {"orc": {"ac": 10, "cover": cover, "conditions": target_conditions, "nearby": ["ally"]},
               "ally": {"ac": 12}}
    request = attack([strike("orc", dice=1, **BOW)], targets=targets,
                     attacker={"agility": 4, "conditions": attacker_conditions})
    assert fracas.resolve(request, seed=3).to_dict()["strikes"][0]["friendly_fire"] is expected
    request["strikes"][0]["friendly_fire"] = not expected  # the request may ask either way
    assert fracas.resolve(request, seed=3).to_dict()["strikes"][0]["friendly_fire"] is (not expected)


def test_er17_split_dice_each_stray_separately_in_request_order():
    """ER-17: two strikes from one pool each roll their own d10, after every strike (docs/ENGINE.md §2)."""
    r = roll(attack([strike("orc", dice=1, **BOW), strike("orc", dice=1, **BOW)], targets=CROWD,
                    attacker={"agility": 4}), rolls=[10, 11, 1, 2])
    first, second = (s["stray"] for s in r["strikes"])
    assert (first["roll"], first["creature"], second["roll"], second["creature"]) == (1, "ally", 2, "ogre")
    assert first["hits"] == second["hits"] == 1
    # ER-9: each creature takes the modifier once; these are different creatures
    assert first["modifier"] == 1 and second["modifier"] == 1


def test_er17_a_stray_is_no_sneak_attack_on_the_bystander():
    """ER-13, ER-17: a sneak shot that strays calls for no shock save from the creature it hits."""
    targets = dict(CROWD, ally={"ac": 12, "body_max": 2, "save_bonus": 0})
    request = shot(dice=1, targets=targets, sneak=True)
    r = roll(request, rolls=[10, 3, 2, 1])  # skill, advantage, sneak dice miss; d10 1 → ally: 12 + 4 hits
    assert r["strikes"][0]["stray"]["damage"] == 2 and r["targets"]["ally"]["shock_save_dc"] is None


def test_er17_nine_creatures_near_the_target_is_refused():
    """ER-17: eight slots for creatures; a ninth is an error naming the path and the rule."""
    targets = {"orc": {"ac": 15, "nearby": [f"b{i}" for i in range(9)]}, **{f"b{i}": {"ac": 10} for i in range(9)}}
    with pytest.raises(fracas.LimitError) as err:
        fracas.resolve(attack([strike("orc", dice=1, **BOW)], targets=targets, attacker={"agility": 2}))
    assert err.value.path == "$.targets.orc.nearby" and "(ER-17)" in err.value.reason


def test_er17_a_melee_strike_is_never_under_friendly_fire():
    with pytest.raises(fracas.RulesError) as err:
        fracas.resolve(attack([strike(friendly_fire=True)]))
    assert err.value.path == "$.strikes[0].friendly_fire" and "(ER-17)" in err.value.reason


def _stray_exact(to_hit, ac, dice, bystander_ac, slot, nearby):
    """Brute force over every face: P(the stray lands on the creature of `slot` and hits it)."""
    hits = 0
    for faces in product(range(1, 21), repeat=dice):
        if any(f == 20 or (f != 1 and f + to_hit >= ac) for f in faces):
            continue
        shifted = [min(f + 2, 20) for f in faces]
        if any(s == 20 or s + to_hit >= bystander_ac for s in shifted) and slot <= nearby:
            hits += 1
    return Fraction(hits, 20 ** dice) * Fraction(1, 10)


def test_er17_friendly_fire_odds_per_bystander_are_exact():
    """fracas.odds: the chance the stray lands on each creature and hits, exact by brute force."""
    targets = {"orc": {"ac": 15, "cover": "three-quarters", "nearby": ["ally", "ogre"]},
               "ally": {"ac": 12}, "ogre": {"ac": 17}}
    request = attack([strike("orc", dice=2, **BOW)], targets=targets, attacker={"agility": 4})
    odds = fracas.odds(request).to_dict()["friendly_fire"][0]
    assert odds["strike"] == 0 and odds["target"] == "orc"
    assert Fraction(odds["p_miss_exact"]) == Fraction(15 * 15, 400)  # faces 1-15 miss AC 20 at +4
    for slot, creature, ac in ((1, "ally", 12), (2, "ogre", 17)):
        expected = _stray_exact(4, 20, 2, ac, slot, 2)
        assert Fraction(odds["bystanders"][creature]["p_hit_exact"]) == expected
    # ...and seeded rolls agree (a fixed-seed statistical test)
    n = 4000
    landed = {"ally": 0, "ogre": 0}
    for seed in range(n):
        stray = fracas.resolve(request, seed=seed).to_dict()["strikes"][0]["stray"]
        if stray and stray["hits"]:
            landed[stray["creature"]] += 1
    for creature, ac in (("ally", 12), ("ogre", 17)):
        assert within(landed[creature], n, float(_stray_exact(4, 20, 2, ac, 1, 2)))


# -- ER-19 competitions --------------------------------------------------------------------

def compete(contest="plain", challenger=None, defender=None, **extra):
    return {"contest": contest, "challenger": {"id": "ogre", "strength": 4, **(challenger or {})},
            "defender": {"id": "aria", "strength": 4, **(defender or {})}, **extra}


def test_er19_grapple_modifiers():
    """ER-19: grappler +2 per size category; a faster victim +1 per 10 ft; slick +3 victim; prone -5."""
    r = fracas.compete(compete("grapple", {"size": "huge", "speed": 30, "prone": True},
                               {"speed": 55}, slick=True), seed=1).to_dict()
    assert [(s["why"], s["value"]) for s in r["challenger"]["situation"]] == [
        ("size: 2 categories larger", 4), ("prone", -5)]
    assert [(s["why"], s["value"]) for s in r["defender"]["situation"]] == [
        ("faster by 25 ft", 2), ("slick ground", 3)]
    assert r["challenger"]["total_modifier"] == 1 + 4 - 5 and r["defender"]["total_modifier"] == 1 + 2 + 3


def test_er19_escape_gives_the_size_bonus_to_the_bigger_escaper():
    """ER-19: escaping, a bigger victim takes the size bonus instead of the grappler."""
    r = fracas.compete(compete("escape", {"size": "large"}), seed=1).to_dict()
    assert r["challenger"]["situation"] == [{"why": "size: 1 category larger", "value": 2}]
    r = fracas.compete(compete("escape", defender={"size": "giant"}), seed=1).to_dict()
    assert r["defender"]["situation"] == [{"why": "size: 3 categories larger", "value": 6}]


def test_er19_shove_and_trip_modifiers_and_limits():
    """ER-19: larger +2 (flat), slick -3 to the victim; the victim at most one size larger."""
    r = fracas.compete(compete("trip", defender={"size": "large"}, slick=True), seed=1).to_dict()
    assert r["defender"]["situation"] == [{"why": "larger", "value": 2}, {"why": "slick ground", "value": -3}]
    with pytest.raises(fracas.RulesError) as err:
        fracas.compete(compete("shove", defender={"size": "huge"}), seed=1)
    assert err.value.path == "$.defender.size" and "(ER-19)" in err.value.reason
    with pytest.raises(fracas.RulesError) as err:
        fracas.compete(compete("shove", {"attribute": "agility", "agility": 5}), seed=1)
    assert err.value.path == "$.challenger.attribute" and "Strength competition" in err.value.reason


def test_er19_a_tie_is_rolled_again_twice():
    """ER-19 (decision): ties re-roll until resolved; every round is reported."""
    r = fracas.compete(compete("grapple", rolls=[4, 4, 7, 7, 9, 2])).to_dict()
    assert [(x["challenger"]["total"], x["defender"]["total"]) for x in r["rounds"]] == [(5, 5), (8, 8), (10, 3)]
    assert r["ties"] == 2 and r["winner"] == "ogre" and r["outcome"] == "ogre grapples aria: aria is held"


def test_er19_advantage_keeps_the_better_d12():
    """ER-12 for a single-die feat: two d12, the better kept (the worse at disadvantage)."""
    r = fracas.compete(compete(challenger={"advantage": True}, defender={"disadvantage": True},
                               rolls=[3, 11, 12, 5])).to_dict()
    first = r["rounds"][0]
    assert first["challenger"] == {"dice": [3, 11], "kept": 11, "total": 12}
    assert first["defender"] == {"dice": [12, 5], "kept": 5, "total": 6}


def _win_exact(a_mod, b_mod, a_edge=0, b_edge=0):
    def kept(edge):
        if edge == 0:
            return {f: Fraction(1, 12) for f in range(1, 13)}
        out = {}
        for x, y in product(range(1, 13), repeat=2):
            k = max(x, y) if edge > 0 else min(x, y)
            out[k] = out.get(k, 0) + Fraction(1, 144)
        return out
    a, b = kept(a_edge), kept(b_edge)
    win = sum(pa * pb for fa, pa in a.items() for fb, pb in b.items() if fa + a_mod > fb + b_mod)
    tie = sum(pa * pb for fa, pa in a.items() for fb, pb in b.items() if fa + a_mod == fb + b_mod)
    return win / (1 - tie)


@pytest.mark.parametrize("a, b", [({}, {}), ({"strength": 8}, {}), ({"advantage": True}, {"strength": 6}),
                                  ({"disadvantage": True}, {"bonus": -2})])
def test_er19_win_chances_are_exact_and_the_dice_agree(a, b):
    """ER-19: the reported win chance is exact (ties re-rolled), and seeded rolls agree."""
    request = compete(challenger=a, defender=b)
    first = fracas.compete(request, seed=0).to_dict()
    a_mod, b_mod = first["challenger"]["total_modifier"], first["defender"]["total_modifier"]
    edge = {"advantage": 1, "disadvantage": -1}
    expected = _win_exact(a_mod, b_mod, next((v for k, v in edge.items() if a.get(k)), 0),
                          next((v for k, v in edge.items() if b.get(k)), 0))
    assert first["challenger"]["win_chance"] == float(expected)
    assert first["defender"]["win_chance"] == float(1 - expected)
    n = 3000
    wins = sum(fracas.compete(request, seed=seed).to_dict()["winner"] == "ogre" for seed in range(n))
    assert within(wins, n, float(expected))


def test_er19_errors_name_the_field():
    with pytest.raises(fracas.SchemaError) as err:
        fracas.compete(compete(defender={"id": "ogre"}), seed=1)
    assert err.value.path == "$.defender.id" and "(ER-19)" in err.value.reason
    with pytest.raises(fracas.SchemaError) as err:
        fracas.compete({"challenger": {"id": "a"}, "defender": {"id": "b", "strength": 2}}, seed=1)
    assert err.value.path == "$.challenger.strength" and "(ER-19)" in err.value.reason
    with pytest.raises(fracas.SchemaError) as err:
        fracas.compete(compete(contest="wrestle"), seed=1)
    assert err.value.path == "$.contest"


# -- ER-20 flee attacks --------------------------------------------------------------------

def flee(moved, strikes=None):
    return attack(strikes or [strike(dice=3, advantage=True)], flee={"moved": moved})


@pytest.mark.parametrize("moved, speed, dice", [(20, "normal", 4), (70, "normal", 4), (74, "normal", 4),
                                                (75, "rapid", 2), (200, "rapid", 2)])
def test_er20_what_the_movement_provokes(moved, speed, dice):
    """ER-20: 20-70 ft a normal primary-hand strike; 75 ft or more "only 1d20 is permitted": a
    pool of one d20, to which ER-12's advantage die still joins (3 skill dice + advantage -> 1 + 1)."""
    r = fracas.resolve(flee(moved), seed=5).to_dict()
    assert r["flee"] == {"moved": moved, "speed": speed, "dice": dice}
    assert len(r["strikes"][0]["dice"]) == dice


@pytest.mark.parametrize("moved", [0, 5, 15, 19])
def test_er20_a_cautious_move_provokes_none(moved):
    with pytest.raises(fracas.RulesError) as err:
        fracas.resolve(flee(moved), seed=1)
    assert err.value.path == "$.flee.moved" and "(ER-20)" in err.value.reason


def test_er20_impossible_flee_attacks_are_refused():
    with pytest.raises(fracas.SchemaError) as err:
        fracas.resolve(flee(-10), seed=1)
    assert err.value.path == "$.flee.moved" and "-10" in err.value.reason and "(ER-20)" in err.value.reason
    with pytest.raises(fracas.RulesError) as err:
        fracas.resolve(flee(30, [strike(), strike()]), seed=1)
    assert err.value.path == "$.strikes"
    with pytest.raises(fracas.RulesError) as err:
        fracas.resolve(attack([strike(**BOW)], flee={"moved": 30}), seed=1)
    assert err.value.path == "$.strikes[0].method"
    with pytest.raises(fracas.RulesError) as err:
        fracas.resolve(flee(30, [strike(sneak=True)]), seed=1)
    assert err.value.path == "$.strikes[0].sneak"


# -- ER-21 grapple release -----------------------------------------------------------------

FEAT = ("damage", "dc", "roll", "modifier", "total", "held")
SAVE = ("dc", "roll", "total", "passed", "incapacitated_actions")


def pick(d, keys):
    return {k: d[k] for k in keys}


def grappler(hold, rolls):
    request = attack([strike("bear", dice=2, weight=1)], targets={"bear": {"ac": 12, "grappling": hold}},
                     attacker={"strength": 2})
    return roll(request, rolls=rolls)["targets"]["bear"]


def test_er21_a_3_point_strike_calls_for_a_dc_13_strength_feat():
    """ER-21: the text's example: a 3-point strike, DC 13; Strength 6 (+2) rolling 9 fails."""
    release = grappler({"strength": 6}, [15, 16, 9])["grapple_release"]
    assert pick(release, FEAT) == {"damage": 3, "dc": 13, "roll": 9, "modifier": 2, "total": 11, "held": False}
    assert release["feats"] == [{"strike": 0, "stray": False, "damage": 3, "dc": 13, "dice": [9], "roll": 9,
                                 "modifier": 2, "total": 11, "held": False}]
    assert grappler({"strength": 6}, [15, 16, 11])["grapple_release"]["held"] is True


def test_er21_without_the_grapplers_strength_the_dc_is_reported():
    assert pick(grappler({}, [15, 16])["grapple_release"], FEAT) == {
        "damage": 3, "dc": 13, "roll": None, "modifier": None, "total": None, "held": None}


def test_er21_no_body_damage_no_feat():
    assert grappler({"strength": 6}, [2, 3])["grapple_release"] is None


def test_er21_the_feat_comes_after_the_shock_save():
    """docs/ENGINE.md §2: per target, the shock save (and its d3), then the grapple release."""
    target = {"ac": 12, "body_max": 2, "save_bonus": 0, "grappling": {"strength_mod": 1, "bonus": 2}}
    request = attack([strike("bear", dice=2, sneak=True)], targets={"bear": target}, attacker={"strength": 2})
    # 15, 16 hit; the advantage and sneak dice (3, 2) miss: 2 damage → shock DC 7; 5 fails, d3 2;
    # then the grapple release: DC 12, 14 + 3 = 17 holds
    bear = roll(request, rolls=[15, 16, 3, 2, 5, 2, 14])["targets"]["bear"]
    assert pick(bear["shock_save"], SAVE) == {"dc": 7, "roll": 5, "total": 5, "passed": False,
                                              "incapacitated_actions": 2}
    assert pick(bear["grapple_release"], FEAT) == {"damage": 2, "dc": 12, "roll": 14, "modifier": 3, "total": 17,
                                                   "held": True}


# -- ER-22 defense rolls -------------------------------------------------------------------

def defended(rolls, **extra):
    request = attack([strike("pc", dice=3, weight=2, **extra)], targets={"pc": {"ac": 14}},
                     attacker={"strength": 4}, defense_rolls=True)
    return roll(request, rolls=rolls)["strikes"][0]


def test_er22_a_point_per_die_not_avoided():
    """ER-22: d20 + AC 14 against DC 21 + 4: 12 + 14 = 26 avoids, 10 + 14 = 24 fails."""
    s = defended([12, 10, 11])
    assert s["defense_dc"] == 25 and [d["total"] for d in s["dice"]] == [26, 24, 25]
    assert [d["avoided"] for d in s["dice"]] == [True, False, True]
    assert s["damage"] == 1 and s["crit_chain"] == [] and s["modifier"] is None  # no weight, no modifier


def test_er22_a_natural_20_always_avoids_and_a_raw_1_always_hits():
    s = roll(attack([strike("pc", dice=2)], targets={"pc": {"ac": 40}}, attacker={"strength": 40},
                    defense_rolls=True), rolls=[20, 1])["strikes"][0]
    assert [d["avoided"] for d in s["dice"]] == [True, False]
    s = roll(attack([strike("pc", dice=1)], targets={"pc": {"ac": 40}}, attacker={"strength": 2},
                    defense_rolls=True), rolls=[1])["strikes"][0]
    assert s["damage"] == 1 and s["undodgeable"] == 1  # a raw 1 is this variant's natural 20 (ER-11)


def test_er22_the_monsters_disadvantage_drops_the_players_lowest_die():
    s = defended([12, 3, 11, 9], disadvantage=True)
    assert s["discarded"] == 3 and len(s["dice"]) == 3


def test_er22_odds_are_exact():
    """fracas.odds under the variant: failures are binomial over P(fail) per die."""
    request = attack([strike("pc", dice=3)], targets={"pc": {"ac": 14}}, attacker={"strength": 4},
                     defense_rolls=True)
    p_fail = Fraction(sum(1 for f in range(1, 21) if f == 1 or (f != 20 and f + 14 < 25)), 20)
    dist = dict(fracas.odds(request).distribution("pc"))
    for k in range(4):
        assert dist.get(k, 0) == math.comb(3, k) * p_fail ** k * (1 - p_fail) ** (3 - k)


def test_er22_a_shot_under_friendly_fire_is_not_a_defense_roll():
    with pytest.raises(fracas.RulesError) as err:
        fracas.resolve(dict(shot(), defense_rolls=True), seed=1)
    assert err.value.path == "$.strikes[0].friendly_fire" and "(ER-22)" in err.value.reason


# -- ER-23 impalement ----------------------------------------------------------------------

def impale(body, rolls=None, forte=False, closed=30, charge=True, **weapon):
    request = {"pikeman": {"strength": 4}, "weapon": {"weight": 1, "forte": forte, **weapon},
               "charger": {"id": "ogre", "ac": 12, "body": body, "closed": closed}}
    if charge:
        request["charge"] = {"attacker": {"strength": 6}, "strikes": [
            {"target": "pike", "method": "melee", "style": "bludgeoning", "dice": 2, "damage_type": "blunt"}],
            "targets": {"pike": {"ac": 13}}}
    if rolls is not None:
        request["rolls"] = rolls
    return request


def test_er23_the_charger_incapacitated_exactly_at_0_voids_the_charge():
    """ER-23: 3d20 (15, 16 hit; 2 misses): 2 + weight 1 + Strength mod 1 = 4 = its Body: void."""
    r = fracas.impale(impale(4, [15, 16, 2])).to_dict()
    assert r["dice"] == 3 and len(r["impalement"]["strikes"][0]["dice"]) == 3
    assert r["charger"] == {"id": "ogre", "body": 4, "damage": 4, "body_after": 0, "incapacitated": True}
    assert r["charge_void"] is True and r["charge"] is None  # and no die was drawn for it


def test_er23_a_charger_left_standing_makes_its_charge():
    r = fracas.impale(impale(5, [15, 16, 2, 12, 3])).to_dict()
    assert r["charger"]["body_after"] == 1 and r["charge_void"] is False
    assert [d["face"] for d in r["charge"]["strikes"][0]["dice"]] == [12, 3]


def test_er23_weapon_forte_rolls_4d20():
    r = fracas.impale(impale(30, [2, 2, 2, 2], forte=True, charge=False)).to_dict()
    assert r["dice"] == 4 and len(r["impalement"]["strikes"][0]["dice"]) == 4


@pytest.mark.parametrize("change, path", [({"closed": 20}, "$.charger.closed"),
                                          ({"style": "slashing"}, "$.weapon.style"),
                                          ({"damage_type": "edged"}, "$.weapon.damage_type")])
def test_er23_impossible_impalements_are_refused(change, path):
    closed = change.pop("closed", 30)
    with pytest.raises(fracas.RulesError) as err:
        fracas.impale(impale(5, closed=closed, **change), seed=1)
    assert err.value.path == path and "(ER-23)" in err.value.reason


def test_er23_errors_inside_name_the_impalements_fields():
    request = impale(5)
    request["charge"]["seed"] = 3
    with pytest.raises(fracas.SchemaError) as err:
        fracas.impale(request, seed=1)
    assert err.value.path == "$.charge.seed"
    request = impale(5)
    request["charge"]["strikes"][0]["dice"] = 9
    with pytest.raises(fracas.SchemaError) as err:
        fracas.impale(request, seed=1)
    assert err.value.path == "$.charge.strikes[0].dice"
    with pytest.raises(fracas.SchemaError) as err:
        fracas.impale({"pikeman": {}, "charger": {"ac": 12, "body": 6, "closed": 30}}, seed=1)
    assert err.value.path == "$.pikeman.strength"
