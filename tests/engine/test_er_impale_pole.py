"""ER-23's named pole-arms (docs/rules/enchanted-realms.md, "Impalement"): "if this pole is
a glaive, then the heavy property will cause disadvantage on a natural 18 to 20", and "the
ula is an exception to the piercing-damage rule". Golden answers with injected dice on
every backend; the Roll20 resolver is held to the same answers by
tests/vectors/er_specials_vectors.json (vectors.test.js).
"""

from collections import Counter

import pytest

import fracas
from fracas import _kernels

OGRE = {"id": "ogre", "ac": 12, "body": 9, "closed": 30}


def _impale(weapon, rolls, pikeman=None, charger=None):
    return fracas.impale({"pikeman": pikeman or {"strength": 4}, "weapon": weapon,
                          "charger": {**OGRE, **(charger or {})}, "rolls": rolls}).to_dict()


@pytest.mark.parametrize("backend", _kernels.available())
def test_er23_a_glaive_natural_20_is_discarded_under_disadvantage(backend):
    """ER-23 + ER-12: a glaive skill die of 20 puts the impalement at disadvantage: one more
    d20 after the skill dice, the highest raw die (the 20) discarded, no crit."""
    with _kernels.using(backend):
        result = _impale({"pole": "glaive", "weight": 2}, [20, 15, 3, 13])
    strike = result["impalement"]["strikes"][0]
    assert result["pole"] == "glaive" and result["heavy"] == {"faces": [20, 15, 3], "disadvantage": True}
    assert strike["disadvantage"] is True and strike["discarded"] == 20
    assert [(d["face"], d["source"]) for d in strike["dice"]] == [(15, "skill"), (3, "skill"), (13, "disadvantage")]
    # to-hit +4 (Strength 4) against AC 12: 15 and 13 hit, 3 misses; 2 dice + weight 2 + Strength mod 1.
    assert result["charger"]["damage"] == 5 and result["charger"]["body_after"] == 4


@pytest.mark.parametrize("backend", _kernels.available())
def test_er23_a_glaive_without_18_to_20_strikes_as_any_pole_arm(backend):
    """ER-23: a 17 is not a natural 18-20: no disadvantage, nothing more drawn."""
    with _kernels.using(backend):
        glaive = _impale({"pole": "glaive", "weight": 2}, [17, 15, 3])
        plain = _impale({"weight": 2}, [17, 15, 3])
    assert glaive["heavy"] == {"faces": [17, 15, 3], "disadvantage": False}
    assert glaive["impalement"]["strikes"] == plain["impalement"]["strikes"]
    assert glaive["charger"] == plain["charger"] and plain["heavy"] is None and plain["pole"] is None


@pytest.mark.parametrize("backend", _kernels.available())
def test_er23_a_glaive_with_forte_reads_four_skill_dice(backend):
    """ER-23: with weapon forte the 4 skill dice decide; an 18 among them adds the fifth die."""
    with _kernels.using(backend):
        result = _impale({"pole": "glaive", "forte": True}, [4, 12, 16, 18, 19])
    strike = result["impalement"]["strikes"][0]
    assert result["heavy"] == {"faces": [4, 12, 16, 18], "disadvantage": True}
    assert strike["discarded"] == 19 and len(strike["dice"]) == 4


@pytest.mark.parametrize("backend", _kernels.available())
def test_er23_heavy_disadvantage_cancels_advantage_and_does_not_stack(backend):
    """ER-12 on ER-23: against a restrained charger (advantage) the glaive's disadvantage
    cancels it (3 dice, no extra die); a poisoned pikeman's disadvantage does not double."""
    with _kernels.using(backend):
        cancelled = _impale({"pole": "glaive"}, [19, 12, 3], charger={"conditions": ["restrained"]})
        poisoned = _impale({"pole": "glaive"}, [18, 12, 3, 11], pikeman={"strength": 4, "conditions": ["poisoned"]})
    strike = cancelled["impalement"]["strikes"][0]
    assert strike["advantage"] is False and strike["disadvantage"] is False and len(strike["dice"]) == 3
    strike = poisoned["impalement"]["strikes"][0]
    assert strike["disadvantage"] is True and strike["discarded"] == 18 and len(strike["dice"]) == 3


@pytest.mark.parametrize("backend", _kernels.available())
def test_er23_an_ula_need_not_pierce_and_is_not_heavy(backend):
    """ER-23: "the ula is an exception to the piercing-damage rule"; the heavy rule names the
    glaive only, so an ula's natural 20 crits (d20 crit die 12 hits, its d3 is 3)."""
    with _kernels.using(backend):
        blunt = _impale({"pole": "ula", "damage_type": "blunt"}, [15, 16, 2])
        crit = _impale({"pole": "ula"}, [20, 16, 2, 12, 3])
    assert blunt["impalement"]["strikes"][0]["damage_type"] == "blunt" and blunt["heavy"] is None
    assert crit["heavy"] is None and crit["charger"]["damage"] == 2 + 3 + 1
    exc = pytest.raises(fracas.RulesError, fracas.impale,
                        {"pikeman": {"strength": 4}, "weapon": {"damage_type": "blunt"}, "charger": OGRE})
    assert exc.value.path == "$.weapon.damage_type" and "ER-23" in exc.value.reason


def test_er23_pole_names_only_the_glaive_or_the_ula():
    """Bad input names its field: $.weapon.pole."""
    exc = pytest.raises(fracas.SchemaError, fracas.impale,
                        {"pikeman": {"strength": 4}, "weapon": {"pole": "halberd"}, "charger": OGRE})
    assert exc.value.path == "$.weapon.pole"


@pytest.mark.parametrize("backend", _kernels.available())
def test_er23_a_glaive_short_of_faces_says_what_it_needs(backend):
    """Injected faces that run out during the skill dice: the strike's own error, $.rolls."""
    with _kernels.using(backend):
        exc = pytest.raises(fracas.DiceError, fracas.impale, {"pikeman": {"strength": 4}, "weapon": {"pole": "glaive"},
                                                              "charger": OGRE, "rolls": [18, 12]})
    assert exc.value.path == "$.rolls" and "impalement" in exc.value.reason


@pytest.mark.parametrize("backend", _kernels.available())
def test_er23_a_seeded_glaive_reads_the_same_faces_it_then_rolls(backend):
    """From a seed the peeked skill dice are the strike's first dice: same stream, no extra draw."""
    with _kernels.using(backend):
        for seed in range(40):
            result = fracas.impale({"pikeman": {"strength": 4}, "weapon": {"pole": "glaive"}, "charger": OGRE},
                                   seed=seed).to_dict()
            strike = result["impalement"]["strikes"][0]
            faces = result["heavy"]["faces"]
            kept = [d["face"] for d in strike["dice"] if d["source"] == "skill"]
            if result["heavy"]["disadvantage"]:
                drawn = Counter([d["face"] for d in strike["dice"]] + [strike["discarded"]])
                assert strike["disadvantage"] and len(drawn) and sum((drawn - Counter(faces)).values()) == 1
                assert not Counter(faces) - drawn
            else:
                assert kept == faces and max(faces) < 18
