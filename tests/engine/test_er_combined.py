"""Enchanted Realms situations that combine two rules (RULES.md, "Decisions added after
the third audit"), with injected dice, exact odds by enumeration and seeded rolls.

Seed 000's restriction table, quoted where a test relies on it:
- Poisoned: "At disadvantage for all attacks and saves/feats attempted"
- Bound: "All Body saves/feats and competitions are made at disadvantage"
- Restrained: "Body preservation saves/feats are at disadvantage"
- Shaken: "Suffers -2 penalty on all to hit, saves/feats"
- Unconscious, paralyzed, ...: "Automatically fails all saves/feats involving Body attributes"
- Defending: "any saves made during a defensive duration are at advantage"

The JavaScript resolver is held to the same answers by the shared vectors
(tests/vectors/er_specials_vectors.json, odds_vectors.json).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from itertools import product

import pytest

import fracas

from .helpers import attack, roll, strike

BOW = {"method": "range", "style": "archery", "damage_type": "piercing"}


# -- ER-12 / ER-14 on the ER-21 grapple release ---------------------------------------------

def bear(conditions=(), hold=None, strikes=None):
    """Strength 2 (+2 to hit, +0 damage) at a bear (AC 12) holding someone with Strength 6 (+2)."""
    return attack(strikes or [strike("bear", dice=2, weight=1)],
                  targets={"bear": {"ac": 12, "grappling": {"strength": 6} if hold is None else hold,
                                    "conditions": list(conditions)}},
                  attacker={"strength": 2})


def test_er21_a_poisoned_grappler_rolls_its_strength_feat_at_disadvantage():
    """ER-14 poisoned: "At disadvantage for all attacks and saves/feats attempted"; ER-12: a
    single-die feat at disadvantage is two dice, the worse kept (the first drawn first)."""
    # 15, 16 hit for 2 + weight 1 = 3: DC 13. The feat: 18 and 9, 9 kept, + 2 = 11 < 13.
    release = roll(bear(["poisoned"]), rolls=[15, 16, 18, 9])["targets"]["bear"]["grapple_release"]
    assert release["feats"][0]["dice"] == [18, 9] and release["roll"] == 9
    assert release["total"] == 11 and release["held"] is False
    assert release["situation"]["disadvantage"] and release["situation"]["disadvantage_from"] == ["poisoned"]
    # Healthy, the same first die holds: 18 + 2 = 20 >= 13 (and only one d20 is drawn).
    assert roll(bear(), rolls=[15, 16, 18])["targets"]["bear"]["grapple_release"]["held"] is True


def test_er21_a_shaken_grappler_takes_minus_2():
    """ER-14 shaken: "-2 penalty on all to hit, saves/feats": 12 + 2 - 2 = 12 < DC 13."""
    release = roll(bear(["shaken"]), rolls=[15, 16, 12])["targets"]["bear"]["grapple_release"]
    assert release["modifier"] == 0 and release["total"] == 12 and release["held"] is False
    assert release["situation"]["penalty"] == {"condition": "shaken", "value": -2}
    assert roll(bear(), rolls=[15, 16, 12])["targets"]["bear"]["grapple_release"]["held"] is True


def test_er21_penalties_do_not_stack():
    """"If multiple restrictions exist, then adjustments are not cumulative but the strongest
    would be in effect": shaken and drowsy together are -2, not -4."""
    release = roll(bear(["shaken", "drowsy"]), rolls=[15, 16, 13])["targets"]["bear"]["grapple_release"]
    assert release["total"] == 13 and release["held"] is True


def test_er21_a_bound_or_restrained_grappler_is_at_disadvantage_a_defending_one_at_advantage():
    # Attacks against a bound or restrained bear have advantage (ER-15): 15, 16 and 2 (a miss).
    for cond in ("bound", "restrained"):
        release = roll(bear([cond]), rolls=[15, 16, 2, 20, 10])["targets"]["bear"]["grapple_release"]
        assert release["roll"] == 10 and release["held"] is False
    # Attacks against a defending bear are at disadvantage (ER-15): 16 dropped, 15 hits: 2 damage, DC 12.
    release = roll(bear(["defending"]), rolls=[15, 16, 2, 4, 11])["targets"]["bear"]["grapple_release"]
    assert release["dc"] == 12 and release["feats"][0]["dice"] == [4, 11]
    assert release["roll"] == 11 and release["held"] is True
    assert release["situation"]["advantage_from"] == ["defending"]
    # Advantage and disadvantage cancel (ER-12): one die.
    release = roll(bear(["defending", "poisoned"]), rolls=[15, 16, 2, 11])["targets"]["bear"]["grapple_release"]
    assert release["feats"][0]["dice"] == [11] and release["held"] is True


def test_er21_an_unconscious_grappler_fails_without_a_die():
    """"Automatically fails all saves/feats involving Body attributes": no d20 is drawn.
    (An unconscious target is struck at advantage in melee: 15, 16 and the advantage die 2.)"""
    release = roll(bear(["unconscious"]), rolls=[15, 16, 2])["targets"]["bear"]["grapple_release"]
    assert release["held"] is False and release["roll"] is None
    assert release["situation"]["automatic_failure"] == "unconscious"


# -- ER-21 per strike ----------------------------------------------------------------------

TWO = [strike("bear", dice=2, weight=1), strike("bear", style="piercing", dice=2, damage_type="piercing")]


def test_er21_one_feat_per_strike_in_strike_order():
    """"if there are two weapons on a single target -- or more than one target, then those
    conditions are considered an individual attack": a feat for each strike that dealt body
    damage, DC 10 + that strike's damage, in strike order."""
    # strike 0: 15, 16 hit (3 damage, DC 13); strike 1: 9 misses, 14 hits (1 damage, DC 11).
    # feats: 11 + 2 = 13 holds against 13; 8 + 2 = 10 fails against 11.
    release = roll(bear(strikes=TWO), rolls=[15, 16, 9, 14, 11, 8])["targets"]["bear"]["grapple_release"]
    assert [(f["strike"], f["damage"], f["dc"], f["roll"], f["held"]) for f in release["feats"]] == [
        (0, 3, 13, 11, True), (1, 1, 11, 8, False)]
    assert release["held"] is False and release["damage_taken"] == 4
    assert (release["damage"], release["dc"], release["roll"]) == (1, 11, 8)  # the feat that decided


def test_er21_the_first_failure_releases_and_no_further_feat_is_rolled():
    r = roll(bear(strikes=TWO), rolls=[15, 16, 9, 14, 3])
    release = r["targets"]["bear"]["grapple_release"]
    assert [f["strike"] for f in release["feats"]] == [0] and release["held"] is False


def test_er21_a_strike_that_deals_no_damage_calls_for_no_feat():
    release = roll(bear(strikes=TWO), rolls=[2, 3, 9, 14, 4])["targets"]["bear"]["grapple_release"]
    assert [(f["strike"], f["dc"]) for f in release["feats"]] == [(1, 11)]


def test_er21_without_strength_every_dc_is_reported_in_order():
    release = roll(bear(hold={}, strikes=TWO), rolls=[15, 16, 9, 14])["targets"]["bear"]["grapple_release"]
    assert [(f["dc"], f["held"]) for f in release["feats"]] == [(13, None), (11, None)]
    assert release["held"] is None and release["dc"] == 13


def test_er21_a_stray_that_wounds_a_grappler_calls_for_its_own_feat():
    """ER-17 + ER-21: a stray's body damage is that strike's damage at the grappler."""
    request = attack([strike("orc", dice=1, friendly_fire=True, **BOW)],
                     targets={"orc": {"ac": 25, "nearby": ["ogre"]},
                              "ogre": {"ac": 10, "grappling": {"strength_mod": 0}}},
                     attacker={"agility": 4})
    # 12 misses the orc; d10 1: the ogre; 14 + 4 = 18 hits: 1 + Agility mod 1 = 2, DC 12; feat 11 fails.
    r = roll(request, rolls=[12, 1, 11])
    release = r["targets"]["ogre"]["grapple_release"]
    assert release["feats"] == [{"strike": 0, "stray": True, "damage": 2, "dc": 12, "dice": [11], "roll": 11,
                                 "modifier": 0, "total": 11, "held": False}]


# -- ER-12 / ER-14 on the ER-13 shock save --------------------------------------------------

def sneak(conditions=(), save_bonus=0):
    return attack([strike("guard", dice=2, sneak=True)],
                  targets={"guard": {"ac": 12, "body_max": 2, "save_bonus": save_bonus,
                                     "conditions": list(conditions)}},
                  attacker={"strength": 2})


def test_er13_a_poisoned_victim_saves_at_disadvantage():
    # 15, 16 hit, the advantage and sneak dice (3, 2) miss: 2 damage, DC 7. The save: 9 and 5, 5 kept: fails.
    save = roll(sneak(["poisoned"]), rolls=[15, 16, 3, 2, 9, 5, 2])["targets"]["guard"]["shock_save"]
    assert save["dice"] == [9, 5] and save["roll"] == 5 and save["passed"] is False
    assert save["incapacitated_actions"] == 2
    assert roll(sneak(), rolls=[15, 16, 3, 2, 9])["targets"]["guard"]["shock_save"]["passed"] is True


def test_er13_a_shaken_victim_saves_at_minus_2():
    save = roll(sneak(["shaken"]), rolls=[15, 16, 3, 2, 8, 1])["targets"]["guard"]["shock_save"]
    assert save["total"] == 6 and save["passed"] is False


def test_er13_an_unconscious_victim_fails_the_save_without_a_die():
    """Unconscious: "Automatically fails all saves/feats involving Body attributes"; the d3 of
    actions lost is still rolled."""
    save = roll(sneak(["unconscious"]), rolls=[15, 16, 3, 2, 3])["targets"]["guard"]["shock_save"]
    assert save["roll"] is None and save["passed"] is False and save["incapacitated_actions"] == 3


# -- ER-12 / ER-14 on ER-19 competitions ---------------------------------------------------

def contest(challenger=None, defender=None, **extra):
    return {"contest": "grapple", "challenger": {"id": "ogre", "strength": 4, **(challenger or {})},
            "defender": {"id": "aria", "strength": 4, **(defender or {})}, **extra}


def test_er19_a_bound_competitor_rolls_two_d12_and_keeps_the_worse():
    """Bound: "All Body saves/feats and competitions are made at disadvantage"."""
    r = fracas.compete(contest({"conditions": ["bound"]}, rolls=[11, 3, 5])).to_dict()
    assert r["rounds"][0]["challenger"] == {"dice": [11, 3], "kept": 3, "total": 4}
    assert r["winner"] == "aria" and r["challenger"]["disadvantage_from"] == ["bound"]


def test_er19_restrained_is_not_a_competition_penalty():
    """Restrained is at disadvantage on "Body preservation saves/feats", not competitions."""
    r = fracas.compete(contest({"conditions": ["restrained"]}, rolls=[11, 5])).to_dict()
    assert r["rounds"][0]["challenger"]["dice"] == [11] and r["winner"] == "ogre"


def test_er19_shaken_prone_and_defending_competitors():
    r = fracas.compete(contest({"conditions": ["shaken", "prone"], "prone": True},
                               {"conditions": ["defending"]}, rolls=[12, 4, 9])).to_dict()
    assert r["challenger"]["situation"] == [{"why": "prone", "value": -5}, {"why": "shaken", "value": -2}]
    assert r["challenger"]["total_modifier"] == 1 - 5 - 2  # prone once, flag and condition together
    assert r["defender"]["advantage"] and r["rounds"][0]["defender"] == {"dice": [4, 9], "kept": 9, "total": 10}


def test_er19_an_unconscious_defender_loses_without_a_roll():
    r = fracas.compete(contest(defender={"conditions": ["unconscious"]}, seed=3)).to_dict()
    assert r["rounds"] == [] and r["winner"] == "ogre" and r["challenger"]["win_chance"] == 1.0
    assert r["defender"]["automatic_failure"] == "unconscious"
    assert r["ties"] == 0  # no round rolled, so none tied (it said -1 before)


def test_er19_a_challenger_that_cannot_act_cannot_start_a_grapple():
    with pytest.raises(fracas.RulesError) as err:
        fracas.compete(contest({"conditions": ["incapacitated"]}, seed=1))
    assert err.value.path == "$.challenger.conditions" and "(ER-14, ER-19)" in err.value.reason
    with pytest.raises(fracas.SchemaError) as err:
        fracas.compete(contest({"conditions": ["sleepy"]}, seed=1))
    assert err.value.path.startswith("$.challenger.conditions")


@pytest.mark.parametrize("chal, dfd", [(["bound"], ["shaken"]), (["poisoned"], ["defending"]),
                                       (["defending", "drowsy"], [])])
def test_er19_win_chances_are_exact_against_every_face(chal, dfd):
    """The reported chance equals the count over every pair of faces (ties rolled again)."""
    plan = contest({"conditions": chal}, {"conditions": dfd, "strength": 6})
    r = fracas.compete(plan, seed=1).to_dict()
    n = [2 if r[side]["advantage"] or r[side]["disadvantage"] else 1 for side in ("challenger", "defender")]
    wins = decided = 0
    for faces in product(range(1, 13), repeat=sum(n)):
        a = faces[:n[0]]
        b = faces[n[0]:]
        ka = (max if r["challenger"]["advantage"] else min)(a)
        kb = (max if r["defender"]["advantage"] else min)(b)
        ta, tb = ka + r["challenger"]["total_modifier"], kb + r["defender"]["total_modifier"]
        if ta != tb:
            decided += 1
            wins += ta > tb
            if faces[0] == 1 and len(faces) == sum(n):  # one injected round agrees with the count
                got = fracas.compete(dict(plan, rolls=list(faces))).to_dict()
                assert got["winner"] == ("ogre" if ta > tb else "aria")
    assert r["challenger"]["win_chance"] == float(Fraction(wins, decided))


# -- Defending (ER-15, ER-20, ER-23) -------------------------------------------------------

def flee(moved=30, attacker=None, target=None, strikes=None):
    return attack(strikes or [strike("rat", dice=2)], targets={"rat": target or {"ac": 10}},
                  attacker=attacker or {"strength": 4}, flee={"moved": moved})


def test_er20_a_defending_creature_makes_no_flee_attack():
    """Defending: "It further removes all reactions for both rounds"."""
    with pytest.raises(fracas.RulesError) as err:
        fracas.resolve(flee(attacker={"strength": 4, "conditions": ["defending"]}), seed=1)
    assert err.value.path == "$.attacker.conditions" and "(ER-15, ER-20)" in err.value.reason


def test_er20_a_defensive_only_creature_leaves_without_drawing_flee_attacks():
    """"if the combatant uses its action to be defensive-only, then movement in that round
    would allow leaving the fray while also preventing the adjacent opponents from attacking"."""
    with pytest.raises(fracas.RulesError) as err:
        fracas.resolve(flee(target={"ac": 10, "conditions": ["defending"]}), seed=1)
    assert err.value.path == "$.targets.rat.conditions" and "(ER-20)" in err.value.reason


def test_er23_a_defending_pikeman_makes_no_impalement():
    request = {"pikeman": {"strength": 4, "conditions": ["defending"]},
               "charger": {"id": "ogre", "ac": 12, "body": 4, "closed": 30}}
    with pytest.raises(fracas.RulesError) as err:
        fracas.impale(request, seed=1)
    assert err.value.path == "$.pikeman.conditions" and "(ER-15, ER-23)" in err.value.reason


# -- ER-20 rapid flee under ER-12 ----------------------------------------------------------

def test_er20_a_prone_attackers_rapid_flee_attack_drops_its_highest_die_and_cannot_crit():
    """The single d20 is a pool of one: disadvantage adds a die and drops the highest (ER-12)."""
    r = roll(flee(80, attacker={"strength": 4, "conditions": ["prone"]}), rolls=[20, 7])
    s = r["strikes"][0]
    assert r["flee"] == {"moved": 80, "speed": "rapid", "dice": 2}
    assert s["discarded"] == 20 and [d["face"] for d in s["dice"]] == [7] and s["crit"] is False
    assert s["damage"] == 1 + 1  # 7 + 4 hits AC 10: 1 point + Strength modifier 1


def test_er20_a_rapid_flee_attack_at_a_prone_target_counts_its_advantage_die():
    r = roll(flee(80, target={"ac": 10, "conditions": ["prone"]}), rolls=[3, 9])
    s = r["strikes"][0]
    assert [d["source"] for d in s["dice"]] == ["skill", "advantage"] and s["hits"] == 1


# -- ER-16 full cover under friendly fire ---------------------------------------------------

CROWD = {"orc": {"ac": 5, "cover": "full", "nearby": ["ally", "ogre"]}, "ally": {"ac": 10}, "ogre": {"ac": 13}}


def test_er16_full_cover_with_friendly_fire_asked_for_is_a_miss_that_strays():
    """"while a target in full cover can't be struck, if firing upon that target anyway, the
    friendly fire rule would be used": 17 would hit AC 5, but the orc cannot be struck."""
    request = attack([strike("orc", dice=2, friendly_fire=True, **BOW)], targets=CROWD, attacker={"agility": 4})
    r = roll(request, rolls=[17, 2, 1])
    s = r["strikes"][0]
    assert [d["hit"] for d in s["dice"]] == [False, False] and s["hits"] == 0 and s["damage"] == 0
    stray = s["stray"]
    assert stray["creature"] == "ally" and stray["why"].startswith("orc is behind full cover")
    # 17 + 2 = 19, + 4 = 23 hits AC 10; 2 + 2 = 4, + 4 = 8 misses: 1 point + Agility modifier 1.
    assert stray["hits"] == 1 and stray["damage"] == 2 and r["targets"]["ally"]["damage"] == 2
    assert r["total_damage"] == 2


def test_er16_full_cover_still_refuses_a_shot_not_under_friendly_fire():
    request = attack([strike("orc", dice=2, **BOW)], targets=CROWD, attacker={"agility": 4})
    with pytest.raises(fracas.RulesError) as err:
        fracas.resolve(request, seed=1)
    assert err.value.path == "$.strikes[0].target" and "(ER-16)" in err.value.reason


def test_er16_a_bulk_request_refuses_full_cover_even_under_friendly_fire():
    """A bulk request resolves no stray shots, so it cannot resolve this one."""
    bulk = {"profiles": {"p": {"attacker": {"agility": 4},
                               "strikes": [{"dice": 2, "friendly_fire": True, **BOW}]}},
            "targets": CROWD, "attacks": [{"profile": "p", "target": "orc", "count": 3}]}
    with pytest.raises(fracas.RulesError) as err:
        fracas.resolve_bulk(bulk, seed=1)
    assert "(ER-16, ER-17)" in err.value.reason


# -- ER-9 with strays ----------------------------------------------------------------------

ER9 = {"orc": {"ac": 20, "nearby": ["ally"]}, "ally": {"ac": 10}}


def test_er9_an_earlier_stray_takes_the_modifier_from_a_later_direct_strike():
    """The modifier goes to "the first strike, in request order, that hits a creature, whether
    it hit directly or as a stray"."""
    request = attack([strike("orc", dice=1, friendly_fire=True, **BOW), strike("ally", dice=1, **BOW)],
                     targets=ER9, attacker={"agility": 4})
    # strike 0: 15 + 4 misses AC 20; strike 1: 12 + 4 hits the ally; the stray: d10 1, 17 + 4 hits.
    r = roll(request, rolls=[15, 12, 1])
    s0, s1 = r["strikes"]
    assert s0["stray"]["modifier"] == 1 and s0["stray"]["damage"] == 2
    assert s1["modifier"] is None and s1["damage"] == 1
    assert r["targets"]["ally"]["damage"] == 3


def test_er9_an_earlier_direct_strike_keeps_the_modifier():
    request = attack([strike("ally", dice=1, **BOW), strike("orc", dice=1, friendly_fire=True, **BOW)],
                     targets=ER9, attacker={"agility": 4})
    r = roll(request, rolls=[12, 15, 1])
    s0, s1 = r["strikes"]
    assert s0["modifier"] == 1 and s0["damage"] == 2
    assert s1["stray"]["modifier"] is None and s1["stray"]["damage"] == 1


# -- ER-17 in odds: enumeration of every face through resolve --------------------------------

def die_size(request, prefix):
    try:
        fracas.resolve({**request, "rolls": prefix + [20]})
    except fracas.DiceError as exc:
        if exc.path == f"$.rolls[{len(prefix)}]":
            return int(re.search(r"\(1 to (\d+)\)", exc.reason).group(1))
    return 20


def every_roll(request):
    """[(result, exact probability)] over every sequence of faces the attack can draw."""
    leaves = []

    def go(prefix, p):
        try:
            result = fracas.resolve({**request, "rolls": prefix}).to_dict()
        except fracas.DiceError as exc:
            if "needs another die" not in exc.reason:
                raise
            n = die_size(request, prefix)
            for face in range(1, n + 1):
                go(prefix + [face], p / n)
            return
        leaves.append((result, p))

    for face in range(1, 21):
        go([face], Fraction(1, 20))
    return leaves


ODDS_CASES = {
    "a stray before a direct strike (ER-9)": attack(
        [strike("orc", dice=1, friendly_fire=True, **BOW), strike("ally", dice=1, **BOW)],
        targets={"orc": {"ac": 15, "nearby": ["ally", "ogre"]}, "ally": {"ac": 10},
                 "ogre": {"ac": 13, "resistant": ["piercing"]}},
        attacker={"agility": 4, "agility_mod": 2}),
    "full cover, disadvantage, a petrified and a listed-twice bystander": attack(
        [strike("orc", dice=1, friendly_fire=True, disadvantage=True, **BOW)],
        targets={"orc": {"ac": 8, "cover": "full", "nearby": ["ally", "stone", "ally"]}, "ally": {"ac": 12},
                 "stone": {"ac": 6, "conditions": ["petrified"]}},
        attacker={"agility": 2, "agility_mod": -1}),
}


@pytest.mark.parametrize("name", list(ODDS_CASES))
def test_er17_odds_count_the_stray_exactly_as_resolve_does(name):
    """RULES.md: "A stray's damage counts in the bystander's own targets entry of odds (P(hit),
    mean, P(damage >= N), P(drop)) exactly as in resolve, and in the total"."""
    request = ODDS_CASES[name]
    leaves = every_roll(request)
    assert sum(p for _, p in leaves) == 1
    odds = fracas.odds({**request, "remaining": {tid: 2 for tid in request["targets"]}, "at_least": [1, 3]})
    out = odds.to_dict()
    for tid in request["targets"]:
        dist: dict[int, Fraction] = {}
        hit = Fraction(0)
        for result, p in leaves:
            damage = result["targets"][tid]["damage"]
            dist[damage] = dist.get(damage, 0) + p
            landed = any(s["target"] == tid and s["hits"] for s in result["strikes"]) or any(
                s["stray"] and s["stray"]["creature"] == tid and s["stray"]["hits"] for s in result["strikes"])
            hit += p if landed else 0
        assert dict(odds.distribution(tid)) == {k: v for k, v in dist.items() if v}, tid
        assert out["targets"][tid]["p_hit_exact"] == f"{hit.numerator}/{hit.denominator}", tid
        drop = sum((p for v, p in dist.items() if v >= 2), Fraction(0))
        assert out["targets"][tid]["p_drop_exact"] == f"{drop.numerator}/{drop.denominator}", tid
    total: dict[int, Fraction] = {}
    for result, p in leaves:
        total[result["total_damage"]] = total.get(result["total_damage"], 0) + p
    mean = sum((v * p for v, p in total.items()), Fraction(0))
    assert out["total"]["mean_exact"] == f"{mean.numerator}/{mean.denominator}"
    assert out["total"]["distribution"] == [[v, float(p)] for v, p in sorted(total.items()) if p]
    assert out["cut"] == 0.0  # archery cannot crit: no chain is cut


def test_er17_seeded_rolls_match_the_stray_odds_with_crits():
    """A fixed-seed test: 20,000 resolved shots (strays that crit on 18-20 after the shift)
    against the exact distribution of the bystander's damage and of the total."""
    request = attack([strike("orc", dice=2, friendly_fire=True, crit=True, crit_range=18, **BOW),
                      strike("ally", dice=1, **BOW)],
                     targets={"orc": {"ac": 22, "nearby": ["ally", "ogre"]}, "ally": {"ac": 14},
                              "ogre": {"ac": 12, "conditions": ["paralyzed"]}},
                     attacker={"agility": 4})
    odds = fracas.odds(request)
    assert odds.to_dict()["cut"] > 0  # these strikes can crit
    n = 20_000
    seen: dict[str, dict[int, int]] = {"ally": {}, "ogre": {}, "total": {}}
    for seed in range(n):
        r = fracas.resolve(request, seed=seed).to_dict()
        for key, value in (("ally", r["targets"]["ally"]["damage"]), ("ogre", r["targets"]["ogre"]["damage"]),
                           ("total", r["total_damage"])):
            seen[key][value] = seen[key].get(value, 0) + 1
    for key, dist in (("ally", dict(odds.distribution("ally"))), ("ogre", dict(odds.distribution("ogre"))),
                      ("total", dict(odds.total.items()))):
        chi2, df, e_acc, o_acc = 0.0, -1, 0.0, 0
        for value in range(max(max(dist), max(seen[key])) + 1):
            e_acc += float(dist.get(value, 0)) * n
            o_acc += seen[key].get(value, 0)
            if e_acc >= 20:
                chi2 += (o_acc - e_acc) ** 2 / e_acc
                df += 1
                e_acc, o_acc = 0.0, 0
        assert o_acc == 0 or e_acc > 0  # no value seen that the exact answer calls impossible
        z = ((chi2 / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
        assert z < 4.75, (key, chi2, df)


def test_odds_report_no_cut_chain_for_strikes_that_cannot_crit():
    """docs/ENGINE.md: only strikes that can start a crit chain can have one cut."""
    bow = attack([strike("goblin", dice=3, **BOW)], attacker={"agility": 4})
    assert fracas.odds(bow).to_dict()["cut"] == 0.0
    sword = attack([strike("goblin", dice=3)], attacker={"strength": 4})
    assert fracas.odds(sword).to_dict()["cut"] > 0


@pytest.mark.parametrize("conditions", [[], ["poisoned"], ["unconscious"], ["defending"]])
def test_odds_are_of_damage_the_feats_and_saves_after_it_do_not_change_them(conditions):
    """docs/ENGINE.md §11: odds are of damage; the ER-21 grapple-release feat and the ER-13
    shock save come after the damage (step 3) and change no die of it, so a grappler's
    conditions change its odds only as ER-15 changes the attack (defending: disadvantage)."""
    held = attack([strike("bear", dice=2, weight=1)], attacker={"strength": 2},
                  targets={"bear": {"ac": 12, "grappling": {"strength": 6}, "conditions": conditions}})
    free = attack([strike("bear", dice=2, weight=1)], attacker={"strength": 2},
                  targets={"bear": {"ac": 12, "conditions": conditions}})
    assert fracas.odds(held).to_dict() == fracas.odds(free).to_dict()
