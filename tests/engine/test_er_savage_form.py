"""Savage form's incidental damage in a grapple or an escape ("ER Grappling: Uncommon
Conditions"; ER-19 competitions, ER-10 resistances, ER-21 the grappler's Strength feat;
docs/rules/enchanted-realms.md). The exact chances are checked against a brute-force count
written here independently of compete.py. Both backends run the same Python code; the
shared vectors (tests/vectors/er_specials_vectors.json) pin the draw order for the
JavaScript twin too."""

from fractions import Fraction
from itertools import product

import pytest

import fracas
from fracas import _kernels

WOLF = {"id": "wolf", "strength": 4, "savage_form": [  # Strength mod +1
    {"strike": "bite", "type": "piercing", "poison": True, "special": "wolfsbane venom"},
    {"strike": "claw", "type": "edged"}]}
OGRE = {"id": "ogre", "strength": 8}  # Strength mod +3


def _compete(contest, challenger, defender, **extra):
    return fracas.compete({"contest": contest, "challenger": challenger, "defender": defender, **extra}).to_dict()


def _error(request):
    with pytest.raises(fracas.RequestError) as info:
        fracas.compete(request)
    return info.value


def test_uncommon_conditions_a_grapple_victims_raw_8_deals_one_point_claws_over_bite():
    """"if such a defender rolls a raw 8 or higher on competition, then the attacker suffers 1
    point of the appropriate damage, claw damage over biting if both apply"."""
    r = _compete("grapple", OGRE, WOLF, rolls=[3, 8])
    inc = r["incidental"]
    assert (inc["by"], inc["to"], inc["strike"], inc["damage_type"]) == ("wolf", "ogre", "claw", "edged")
    assert inc["raw"] == 8 and inc["dealt"] is True and inc["damage"] == 1 and inc["delivered"] is False
    assert inc["release"] is None and inc["p_release"] is None  # the initial grapple needs no feat
    assert "wolf's claw deals ogre 1 edged damage" in r["outcome"]
    seven = _compete("grapple", OGRE, WOLF, rolls=[3, 7])["incidental"]
    assert seven["dealt"] is False and seven["damage"] == 0


def test_uncommon_conditions_a_raw_12_delivers_the_poison_and_names_it():
    bite_only = {**WOLF, "savage_form": WOLF["savage_form"][:1]}
    inc = _compete("grapple", OGRE, bite_only, rolls=[3, 12])["incidental"]
    assert inc["strike"] == "bite" and inc["poison"] is True and inc["delivered"] is True
    assert inc["special"] == "wolfsbane venom"
    # The claw chosen over the bite carries no poison: a raw 12 delivers nothing more.
    assert _compete("grapple", OGRE, WOLF, rolls=[3, 12])["incidental"]["delivered"] is False


def test_uncommon_conditions_a_grappler_with_savage_form_takes_nothing_and_none_without_it():
    """"This does not apply if the attacker has savage form"; fields left out: no savage form."""
    fanged = {**OGRE, "savage_form": [{"strike": "bite", "type": "piercing"}]}
    assert _compete("grapple", fanged, WOLF, rolls=[3, 12])["incidental"] is None
    assert _compete("grapple", OGRE, {"id": "wolf", "strength": 4}, rolls=[3, 12])["incidental"] is None


def test_uncommon_conditions_an_escape_lost_calls_for_the_grapplers_dc_11_strength_feat():
    """"if the defender is attempting to escape, but still loses the competition, then the
    grappler will require the feat save (DC:11)" (ER-21: d20 + Strength modifier)."""
    fails = _compete("escape", WOLF, OGRE, rolls=[9, 11, 5])
    rel = fails["incidental"]["release"]
    assert fails["winner"] == "ogre" and rel["dc"] == 11 and rel["dice"] == [5] and rel["total"] == 8
    assert rel["held"] is False and "ogre lets go: wolf is free" in fails["outcome"]
    holds = _compete("escape", WOLF, OGRE, rolls=[9, 11, 15])["incidental"]["release"]
    assert holds["total"] == 18 and holds["held"] is True
    won = _compete("escape", WOLF, OGRE, rolls=[10, 2])  # 11 against 5: no feat for a won escape
    assert won["winner"] == "wolf" and won["incidental"]["dealt"] and won["incidental"]["release"] is None


def test_er10_the_grapplers_resistances_apply_and_set_the_feats_dc():
    resisted = _compete("escape", WOLF, {**OGRE, "resistant": ["edged"]}, rolls=[9, 11])["incidental"]
    assert resisted["damage"] == 0 and resisted["resistance"] == "resistant" and resisted["release"] is None
    assert resisted["p_release_exact"] == "0/1"
    doubled = _compete("escape", WOLF, {**OGRE, "vulnerable": ["edged"]}, rolls=[9, 11, 5])["incidental"]
    assert doubled["damage"] == 2 and doubled["release"]["dc"] == 12


def test_er21_the_grapplers_own_conditions_count_and_an_unknown_strength_leaves_the_roll_to_the_table():
    poisoned = _compete("escape", WOLF, {**OGRE, "conditions": ["poisoned"]}, rolls=[9, 11, 10, 15, 4])
    rel = poisoned["incidental"]["release"]
    assert rel["dice"] == [15, 4] and rel["roll"] == 4 and rel["held"] is False
    table = _compete("escape", WOLF, {"id": "ogre", "attribute": "agility", "agility": 8}, rolls=[9, 11])
    rel = table["incidental"]["release"]
    assert rel["dc"] == 11 and rel["roll"] is None and rel["held"] is None
    assert table["incidental"]["p_release"] is None


def _brute(v_total, g_total, victim_first, feat_mod=None, dc=11):
    """P(raw >= 8), P(raw == 12), P(victim loses with raw >= 8 and the feat fails), ties re-rolled."""
    dealt = special = lost = nontie = 0
    for a, b in product(range(1, 13), repeat=2):
        vf, gf = (a, b) if victim_first else (b, a)
        if vf + v_total == gf + g_total:
            continue
        nontie += 1
        dealt += vf >= 8
        special += vf == 12
        lost += vf >= 8 and vf + v_total < gf + g_total
    fail = Fraction(sum(1 for f in range(1, 21) if f + (feat_mod or 0) < dc), 20)
    return Fraction(dealt, nontie), Fraction(special, nontie), Fraction(lost, nontie) * fail


@pytest.mark.parametrize("backend", _kernels.available())
def test_uncommon_conditions_exact_odds_match_a_brute_force_count(backend):
    bite_only = {**WOLF, "savage_form": WOLF["savage_form"][:1]}
    with _kernels.using(backend):
        grapple = fracas.compete({"contest": "grapple", "challenger": OGRE, "defender": bite_only},
                                 seed=5).to_dict()["incidental"]
        escape = fracas.compete({"contest": "escape", "challenger": bite_only, "defender": OGRE},
                                seed=5).to_dict()["incidental"]
    p_dealt, p_special, _ = _brute(1, 3, victim_first=False)
    assert Fraction(grapple["p_dealt_exact"]) == p_dealt and Fraction(grapple["p_delivered_exact"]) == p_special
    assert grapple["p_dealt"] == float(p_dealt)
    p_dealt, p_special, p_release = _brute(1, 3, victim_first=True, feat_mod=3)
    assert Fraction(escape["p_dealt_exact"]) == p_dealt and Fraction(escape["p_delivered_exact"]) == p_special
    assert Fraction(escape["p_release_exact"]) == p_release


def test_uncommon_conditions_the_frequencies_follow_the_exact_chance():
    """Seeded rolls: the share of grapples that hurt the grappler is near p_dealt (not a timing test)."""
    request = {"contest": "grapple", "challenger": OGRE, "defender": WOLF}
    n = 3000
    hits = sum(fracas.compete(request, seed=s).to_dict()["incidental"]["dealt"] for s in range(n))
    p = fracas.compete(request, seed=0).to_dict()["incidental"]["p_dealt"]
    assert abs(hits / n - p) < 4 * (p * (1 - p) / n) ** 0.5


def test_uncommon_conditions_bad_savage_form_is_refused_with_its_path():
    exc = _error({"contest": "shove", "challenger": OGRE, "defender": WOLF})
    assert isinstance(exc, fracas.RulesError) and exc.path == "$.defender.savage_form"
    exc = _error({"contest": "grapple", "challenger": OGRE,
                  "defender": {**WOLF, "savage_form": [{"strike": "tail", "type": "sting"}]}})
    assert exc.path == "$.defender.savage_form[0].type"
    exc = _error({"contest": "grapple", "challenger": OGRE,
                  "defender": {**WOLF, "savage_form": [{"strike": "claw", "type": "edged"}] * 9}})
    assert isinstance(exc, fracas.LimitError) and exc.path == "$.defender.savage_form"
    exc = _error({"contest": "escape", "challenger": WOLF, "defender": {**OGRE, "resistant": ["wood"]}})
    assert exc.path == "$.defender.resistant[0]"
    exc = _error({"contest": "escape", "challenger": WOLF, "defender": OGRE, "rolls": [9, 11]})
    assert isinstance(exc, fracas.DiceError) and exc.path == "$.rolls" and "grapple release" in exc.reason


def test_the_rules_pages_savage_form_example_says_what_it_rolls():
    """docs/rules/enchanted-realms.md's savage-form request gives the numbers its text states."""
    import json
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "rules" / "enchanted-realms.md").read_text()
    section = page[page.index("**Savage form in a grapple**"):]
    request = json.loads(re.findall(r"```json\n(.*?)```", section, re.S)[0])
    inc = fracas.compete(request).to_dict()["incidental"]
    assert inc["raw"] == 9 and inc["damage"] == 1 and inc["release"]["total"] == 8
    assert inc["release"]["held"] is False
    assert (inc["p_dealt_exact"], inc["p_release_exact"]) == ("55/134", "7/134")
    assert "it lets go. `p_dealt` 55/134, `p_release` 7/134." in section
