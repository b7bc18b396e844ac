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
