"""Enchanted Realms single-request rules an audit found wrong (issue 42), with injected dice.

ER-15 defending needs a defender that sees the attacks; bulk results say what they leave
out (ER-13 shock saves, ER-17 stray shots); ER-19's speed bonus needs both speeds. Every
backend runs these (the suite runs once per kernel backend); the JavaScript resolver is
held to the same answers by the shared vectors and vtt_scripts/roll20/test/rules42.test.js.
"""

from fractions import Fraction

import pytest

import fracas

from .helpers import attack, roll, strike

SWORD = {"dice": 1, "weight": 1}
BOW = {"method": "range", "style": "archery", "damage_type": "piercing"}


# -- ER-15: defending, "provided it is possible for the character [to] see the incoming attacks"

def test_er15_a_blind_defender_cannot_see_the_attacks_the_attacker_keeps_its_advantage():
    """ER-15: blind gives advantage; defending would give disadvantage, but a blind
    defender cannot see the attacks, so the advantage die counts (12 and 9: one hit)."""
    request = attack([strike(**SWORD)], targets={"goblin": {"ac": 12, "conditions": ["blind", "defending"]}})
    s = roll(request, rolls=[12, 9])["strikes"][0]
    assert (s["advantage"], s["disadvantage"]) == (True, False)
    assert [d["source"] for d in s["dice"]] == ["skill", "advantage"]
    assert s["damage"] == 2


@pytest.mark.parametrize("unseeing", ["unconscious", "petrified"])
def test_er15_a_defender_that_perceives_nothing_gives_no_disadvantage(unseeing):
    """ER-15 decision: an unconscious or petrified ("unaware of surroundings") defender sees
    no attack either: a melee strike keeps the advantage either condition gives."""
    request = attack([strike(**SWORD)], targets={"goblin": {"ac": 12, "conditions": [unseeing, "defending"]}})
    s = roll(request, rolls=[12, 9])["strikes"][0]
    assert (s["advantage"], s["disadvantage"]) == (True, False)


def test_er15_a_defender_cannot_see_an_invisible_attacker():
    """ER-15: an invisible attacker's shot at a defending target rolls its one die, no disadvantage."""
    request = attack([strike(**BOW)], attacker={"agility": 2, "conditions": ["invisible"]},
                     targets={"goblin": {"ac": 12, "conditions": ["defending"]}})
    s = roll(request, rolls=[12])["strikes"][0]
    assert (s["advantage"], s["disadvantage"], s["discarded"]) == (False, False, None)
    assert s["hits"] == 1


def test_er15_a_defender_that_sees_the_attack_still_puts_it_at_disadvantage():
    """ER-15: the highest of the two dice (15) is discarded."""
    request = attack([strike(**SWORD)], targets={"goblin": {"ac": 12, "conditions": ["defending"]}})
    s = roll(request, rolls=[12, 15])["strikes"][0]
    assert s["disadvantage"] and s["discarded"] == 15


def test_er13_er15_a_sneak_attack_on_a_defender_that_cannot_see_it_is_allowed():
    """ER-13 refuses a sneak attack at disadvantage; an unseen defender gives none."""
    seen = attack([strike(**BOW, sneak=True)], targets={"goblin": {"ac": 12, "conditions": ["defending"]}})
    with pytest.raises(fracas.RulesError, match=r"disadvantage from: target defending"):
        fracas.resolve(seen, seed=1)
    unseen = dict(seen, attacker={"agility": 2, "conditions": ["invisible"]})
    assert roll(unseen, rolls=[12, 3, 4])["strikes"][0]["sneak"] is True


def test_er15_odds_follow_the_defender_s_sight():
    """ER-15 in `odds`: a blind defending target's odds are a blind target's; exact P(hit)
    of one die with advantage (+2 vs AC 12: 11 faces of 20 hit, two dice) = 1 - (9/20)^2."""
    blind = attack([strike(**SWORD)], targets={"goblin": {"ac": 12, "conditions": ["blind", "defending"]}})
    only_blind = attack([strike(**SWORD)], targets={"goblin": {"ac": 12, "conditions": ["blind"]}})
    got = fracas.odds(blind).to_dict()["targets"]["goblin"]
    assert got == fracas.odds(only_blind).to_dict()["targets"]["goblin"]
    assert Fraction(got["p_hit_exact"]) == 1 - Fraction(9, 20) ** 2


# -- Bulk says what it leaves out: ER-13 shock saves, ER-17 stray shots -------------------------

ARROWS = {"seed": 11, "profiles": {"archer": {"attacker": {"agility": 2},
                                              "strikes": [{**BOW, "dice": 1}]}},
          "targets": {"orc": {"ac": 14, "cover": "three-quarters", "nearby": ["bystander"]},
                      "bystander": {"ac": 10}},
          "attacks": [{"profile": "archer", "target": "orc", "count": 1000}]}


def test_er17_bulk_counts_the_strays_it_does_not_roll():
    """ER-17 in bulk (issue 42): 1,000 arrows at an orc in three-quarters cover with a
    bystander: every shot that missed entirely would have strayed; the group says how many."""
    result = fracas.resolve_bulk(ARROWS).to_dict()
    group = result["groups"][0]
    assert group["strays_omitted"] == 1000 - group["attacks_hit"] > 0
    assert result["targets"]["bystander"]["damage"] == 0  # not rolled in bulk, and said so


def test_er17_a_shot_that_cannot_stray_into_anyone_is_not_counted():
    """A shot under friendly fire with nobody nearby strays into an empty slot: nothing omitted."""
    lone = dict(ARROWS, targets={"orc": {"ac": 14}},
                profiles={"archer": {"attacker": {"agility": 2},
                                     "strikes": [{**BOW, "dice": 1, "friendly_fire": True}]}})
    assert fracas.resolve_bulk(lone).to_dict()["groups"][0]["strays_omitted"] == 0


def test_er13_bulk_counts_the_shock_saves_it_does_not_roll():
    """ER-13 in bulk (issue 42): a sneak attack dealing 5 against Body 4 calls for a shock
    save (5 >= 4 / 2); the group counts each attack that called for one."""
    request = {"seed": 3, "profiles": {"rogue": {"attacker": {"strength": 4},
                                                 "strikes": [{"method": "melee", "style": "pole-arm", "dice": 5,
                                                              "weight": 2, "damage_type": "piercing",
                                                              "sneak": True, "reach": True}]}},
               "targets": {"pc": {"ac": 1, "body_max": 4}},
               "attacks": [{"profile": "rogue", "target": "pc", "count": 50}]}
    group = fracas.resolve_bulk(request).to_dict()["groups"][0]
    assert group["shock_checks"] == 50 and group["strays_omitted"] == 0  # every die hits: 5 + 2 + 1 ≥ 2
    request["targets"]["pc"]["body_max"] = 100  # 8 to 16 damage never reaches 50
    assert fracas.resolve_bulk(request).to_dict()["groups"][0]["shock_checks"] == 0


def _single_of(bulk, profile, targets):
    """The single attack a bulk group of one attack rolls: the profile's strikes at `targets`."""
    p = bulk["profiles"][profile]
    return {"attacker": p["attacker"], "targets": bulk["targets"],
            "strikes": [dict(s, target=t) for s, t in zip(p["strikes"], targets)]}


MIXED = {"profiles": {"band": {"attacker": {"strength": 3, "agility": 3},
                               "strikes": [{**BOW, "dice": 2, "sneak": True},
                                           {**BOW, "dice": 1},
                                           {"method": "melee", "style": "piercing", "dice": 2, "weight": 0,
                                            "damage_type": "piercing", "sneak": True},
                                           {**BOW, "dice": 1, "sneak": "advantage-only"}]}},
         "targets": {"orc": {"ac": 15, "cover": "three-quarters", "nearby": ["ally", "pc"], "body_max": 6},
                     "ally": {"ac": 12, "body_max": 3},
                     "pc": {"ac": 14, "body_max": 9, "resistant": ["piercing"]}}}


@pytest.mark.parametrize("aim", [["orc", "orc", "ally", "pc"], ["orc", "pc", "orc", "ally"],
                                 ["pc", "orc", "orc", "pc"]])
def test_er13_er17_a_bulk_attack_counts_what_the_same_single_attack_would_roll(aim):
    """A bulk request of one attack rolls the single attack's dice (docs/ENGINE.md §5): its
    counts are that attack's shock saves due and strays, seed after seed."""
    seen = {"shock": 0, "strays": 0}
    for seed in range(60):
        bulk = dict(MIXED, seed=seed, attacks=[{"profile": "band", "target": aim, "count": 1}])
        group = fracas.resolve_bulk(bulk).to_dict()["groups"][0]
        single = fracas.resolve(_single_of(bulk, "band", aim), seed=seed).to_dict()
        shock = sum(1 for t in single["targets"].values() if t["shock_save_dc"] is not None)
        strays = sum(1 for s in single["strikes"] if s["stray"] is not None)
        assert (group["shock_checks"], group["strays_omitted"]) == (shock, strays), seed
        seen["shock"] += shock
        seen["strays"] += strays
    assert seen["shock"] and seen["strays"]  # the cases were met


def test_er13_er17_bulk_counts_are_the_same_for_any_thread_count_and_on_the_lanes_path():
    """Counted on every path: a one-strike mob with friendly fire or shock is not a lane
    plan (the lane kernel counts neither), and chunks sum alike for any thread count."""
    from fracas import _kernels
    from fracas.rulesets.er.bulk import compile_bulk

    big = dict(ARROWS, attacks=[{"profile": "archer", "target": "orc", "count": 200_000}])
    plan = compile_bulk(big)
    assert not _kernels.active().lanes_fit(plan.plan, plan.groups)
    if _kernels.active().BACKEND == "python":
        big["attacks"][0]["count"] = 70_000  # two chunks, in Python's time
    one = fracas.resolve_bulk(big, threads=1).to_dict()["groups"][0]
    two = fracas.resolve_bulk(big, threads=2).to_dict()["groups"][0]
    assert one == two and one["strays_omitted"] == one["count"] - one["attacks_hit"]


# -- ER-19: the speed modifier needs both speeds ------------------------------------------------

def _grapple(challenger_speed=None, defender_speed=None, rolls=(6, 3)):
    sides = [{"id": "ogre", "strength": 4}, {"id": "aria", "strength": 4}]
    for side, speed in zip(sides, (challenger_speed, defender_speed)):
        if speed is not None:
            side["speed"] = speed
    return fracas.compete({"contest": "grapple", "challenger": sides[0], "defender": sides[1],
                           "rolls": list(rolls)}).to_dict()


def test_er19_a_faster_victim_gets_its_bonus_only_against_a_known_speed():
    """ER-19 (issue 42): "+1 per 10 ft difference" needs both speeds. The victim's 40 ft
    against a challenger of unknown speed grants nothing (it did grant +4, as if the
    grappler stood still): d12 6 + 1 beats 3 + 1, the hold is made."""
    unknown = _grapple(defender_speed=40)
    assert unknown["defender"]["situation"] == [] and unknown["winner"] == "ogre"
    known = _grapple(challenger_speed=20, defender_speed=40)
    assert known["defender"]["situation"] == [{"why": "faster by 20 ft", "value": 2}]
    still = _grapple(challenger_speed=0, defender_speed=40, rolls=(6, 3))  # a speed of 0 is a speed
    assert still["defender"]["situation"] == [{"why": "faster by 40 ft", "value": 4}]
    assert still["winner"] == "aria"


def test_er19_escape_speed_needs_both_sides_too():
    """ER-19 escape: the one held is the challenger; its speed counts only against a known one."""
    req = {"contest": "escape", "challenger": {"id": "aria", "strength": 4, "speed": 40},
           "defender": {"id": "ogre", "strength": 4}, "rolls": [3, 6]}
    assert fracas.compete(req).to_dict()["challenger"]["situation"] == []
    req["defender"]["speed"] = 30
    assert fracas.compete(req).to_dict()["challenger"]["situation"] == [{"why": "faster by 10 ft", "value": 1}]


def test_er19_win_chances_follow_the_known_speeds():
    """The exact chance to win (ER-19's odds in the result) has no speed bonus from an unknown speed."""
    unknown = _grapple(defender_speed=40)
    equal = _grapple()
    assert unknown["challenger"]["win_chance"] == equal["challenger"]["win_chance"] == 0.5
