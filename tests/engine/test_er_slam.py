"""Enchanted Realms grappler's slam (the `slam` kind; "ER Grappling", "ER Grappling: Uncommon
Conditions", "ER Throwing Items"; ER-4, ER-5, ER-6, ER-10, ER-12, ER-14;
docs/rules/enchanted-realms.md).

The slam kind is Python on both backends (no compiled kernel); its draw order is pinned by
tests/vectors/er_slam_vectors.json, replayed here on every backend. The hurl's exact chance is
checked against a brute-force count over every face written here."""

import importlib.util
import json
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

import fracas
from fracas import _kernels

ROOT = Path(__file__).resolve().parents[2]
VECTORS = json.loads((ROOT / "tests" / "vectors" / "er_slam_vectors.json").read_text())

GIANT = {"id": "giant", "size": "huge", "strength": 10}  # Strength bonus +4 (ER-4)
ARIA = {"id": "aria"}
BOB = {"id": "bob", "ac": 12, "distance": 10}


def _slam(**request):
    return fracas.roll("slam", request).to_dict()


def _error(**request):
    with pytest.raises(fracas.RequestError) as info:
        fracas.roll("slam", request)
    return info.value


def test_er_grappling_two_sizes_larger_slams_for_its_strength_bonus_and_frees_the_victim():
    """"if the aggressor is two sizes larger, that grappler may opt to hurl and slam the victim
    for its Strength bonus in blunt damage ... this maneuver frees the victim from the hold"."""
    r = _slam(grappler={"id": "ogre", "size": "large", "strength": 10}, victim={"id": "aria", "size": "small"})
    assert r["strength_bonus"] == 4 and r["victim_damage"] == {"damage_type": "blunt", "base": 4,
                                                                "resistance": "normal", "damage": 4}
    assert r["freed"] is True and r["into"] is None and r["placed_within_ft"] == 5 and r["injected"] is False
    weak = _slam(grappler={"id": "ogre", "size": "large", "strength_mod": -1}, victim={"id": "aria", "size": "small"})
    assert weak["victim_damage"]["damage"] == 0  # a negative bonus deals nothing, never less


def test_er_grappling_a_grappler_not_two_sizes_larger_is_refused_naming_the_field():
    exc = _error(grappler={"id": "ogre", "size": "large", "strength": 10}, victim=ARIA)
    assert isinstance(exc, fracas.RulesError) and exc.path == "$.grappler.size"
    assert "'ogre' is large, 'aria' is medium" in exc.reason


def test_er10_the_victims_resistances_and_the_terrains_damage_type():
    assert _slam(grappler=GIANT, victim={**ARIA, "resistant": ["blunt"]})["victim_damage"]["damage"] == 2
    fire = _slam(grappler=GIANT, victim={**ARIA, "vulnerable": ["fire"]}, damage_type="fire")["victim_damage"]
    assert fire == {"damage_type": "fire", "base": 4, "resistance": "vulnerable", "damage": 8}
    underwater = _slam(grappler=GIANT, victim={**ARIA, "conditions": ["underwater"]}, damage_type="fire")
    assert underwater["victim_damage"]["damage"] == 2  # ER-15: an underwater creature resists fire


def test_uncommon_conditions_a_tall_grapplers_hurl_into_another_target():
    """"it is possible to slam the victim into another target in range. This will deliver the
    damage to the victim regardless, but also acts as a hurling attack against the AC of the
    target, which if it strikes also inflicts the Strength bonus damage ... always blunt"."""
    hit = _slam(grappler=GIANT, victim=ARIA, into=BOB, rolls=[3, 11, 15])
    t = hit["into"]
    assert [d["face"] for d in t["dice"]] == [3, 11, 15] and [d["hit"] for d in t["dice"]] == [False, False, True]
    assert t["hit"] is True and t["damage"] == 4 and t["damage_type"] == "blunt"
    assert hit["victim_damage"]["damage"] == 4 and hit["placed_within_ft"] == 10
    miss = _slam(grappler=GIANT, victim=ARIA, into=BOB, rolls=[3, 11, 1])
    assert miss["into"]["hit"] is False and miss["into"]["damage"] == 0 and miss["victim_damage"]["damage"] == 4


def test_er6_er5_and_er10_on_the_hurl():
    assert _slam(grappler=GIANT, victim=ARIA, into={**BOB, "ac": 40}, rolls=[20, 2, 2])["into"]["hit"] is True
    assert _slam(grappler={**GIANT, "to_hit": 40}, victim=ARIA, into=BOB, rolls=[1, 1, 1])["into"]["hit"] is False
    large = _slam(grappler={**GIANT, "to_hit": 2}, victim=ARIA, into={**BOB, "size": "large", "resistant": ["blunt"]},
                  rolls=[9, 2, 2])["into"]
    assert large["size_bonus"] == 1 and large["dice"][0]["total"] == 12 and large["hit"] and large["damage"] == 2


def test_er12_er14_a_poisoned_grapplers_hurl_drops_its_highest_die():
    t = _slam(grappler={**GIANT, "conditions": ["poisoned"]}, victim=ARIA, into=BOB, rolls=[15, 3, 11, 2])["into"]
    assert [d["dropped"] for d in t["dice"]] == [True, False, False, False] and t["hit"] is False
    assert t["disadvantage"] is True and t["disadvantage_from"] == ["poisoned"]
    both = _slam(grappler={**GIANT, "advantage": True, "disadvantage": True}, victim=ARIA, into=BOB, seed=3)["into"]
    assert len(both["dice"]) == 3 and not both["advantage"] and not both["disadvantage"]
    exc = _error(grappler={**GIANT, "conditions": ["stunned"]}, victim=ARIA)
    assert isinstance(exc, fracas.RulesError) and exc.path == "$.grappler.conditions"


def test_uncommon_conditions_ten_feet_or_taller_by_height_or_by_size():
    """Decision: `height` decides when given; otherwise huge, giant and colossal are ten feet or taller."""
    ogre = {"id": "ogre", "size": "large", "strength": 8}
    small = {"id": "aria", "size": "small"}
    exc = _error(grappler=ogre, victim=small, into=BOB)
    assert isinstance(exc, fracas.RulesError) and exc.path == "$.into" and "ten feet" in exc.reason
    tall = _slam(grappler={**ogre, "height": 10}, victim=small, into=BOB, rolls=[12, 12, 12])
    assert tall["tall"] is True and tall["tall_from"] == "height" and tall["into"]["hit"] is True
    exc = _error(grappler={**GIANT, "height": 9}, victim=ARIA, into=BOB)
    assert exc.path == "$.into" and "9 ft tall" in exc.reason
    exc = _error(grappler=GIANT, victim=ARIA, into={**BOB, "distance": 15})
    assert exc.path == "$.into.distance" and "two hexes" in exc.reason


def _brute(to_hit, ac, n, drop):
    hits = total = 0
    for faces in product(range(1, 21), repeat=n):
        counted = sorted(faces)[:-1] if drop else faces
        total += 1
        hits += any(f == 20 or (f != 1 and f + to_hit >= ac) for f in counted)
    return Fraction(hits, total)


@pytest.mark.parametrize(("grappler", "ac", "n", "drop"), [
    ({}, 12, 3, False), ({"to_hit": 5}, 25, 3, False), ({"advantage": True}, 15, 4, False),
    ({"conditions": ["prone"]}, 14, 4, True), ({"to_hit": -30}, 10, 3, False),
])
def test_er_throwing_items_the_exact_chance_of_the_hurl_matches_a_brute_force_count(grappler, ac, n, drop):
    t = _slam(grappler={**GIANT, **grappler}, victim=ARIA, into={**BOB, "ac": ac}, seed=1)["into"]
    expected = _brute(grappler.get("to_hit", 0), ac, n, drop)
    assert Fraction(t["p_hit_exact"]) == expected and t["p_hit"] == float(expected)


def test_the_hurl_hits_about_as_often_as_its_exact_chance_says():
    """Seeded rolls (not a timing test): the share of hits is near p_hit."""
    n = 2000
    results = [_slam(grappler={**GIANT, "conditions": ["poisoned"]}, victim=ARIA, into={**BOB, "ac": 14}, seed=s)
               for s in range(n)]
    p = results[0]["into"]["p_hit"]
    share = sum(r["into"]["hit"] for r in results) / n
    assert abs(share - p) < 4 * (p * (1 - p) / n) ** 0.5


def test_bad_slams_name_their_path():
    assert _error(grappler={"id": "giant", "size": "huge"}, victim=ARIA).path == "$.grappler.strength"
    assert _error(grappler=GIANT, victim={"id": "giant"}).path == "$.victim.id"
    assert _error(grappler=GIANT, victim=ARIA, into={**BOB, "id": "aria"}).path == "$.into.id"
    assert _error(grappler={**GIANT, "size": "enormous"}, victim=ARIA).path == "$.grappler.size"
    assert _error(grappler=GIANT, victim=ARIA, damage_type="wood").path == "$.damage_type"
    exc = _error(grappler=GIANT, victim=ARIA, into=BOB, rolls=[3, 11])
    assert isinstance(exc, fracas.DiceError) and exc.path == "$.rolls"
    exc = _error(grappler=GIANT, victim=ARIA, rolls=[3])
    assert isinstance(exc, fracas.DiceError) and "used only 0" in exc.reason


def test_slam_vectors_cover_the_rule():
    results = [v["result"] for v in VECTORS if "result" in v]
    assert sum(1 for r in results if r["into"] and r["into"]["hit"]) >= 10
    assert sum(1 for r in results if r["into"] and not r["into"]["hit"]) >= 5
    assert sum(1 for r in results if r["into"] is None) >= 10
    assert {v["error"]["type"] for v in VECTORS if "error" in v} >= {"SchemaError", "RulesError", "DiceError"}


def _generator():
    path = ROOT / "tests" / "vectors" / "generate_slam.py"
    spec = importlib.util.spec_from_file_location("generate_slam", path)
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    return generate


@pytest.mark.parametrize("backend", _kernels.available())
def test_every_slam_vector_reproduces(backend):
    """Each committed vector (its result or its error) comes out again on every backend."""
    generate = _generator()
    with _kernels.using(backend):
        differ = [v["name"] for v in VECTORS if generate.vector(v["name"], v["request"], v["seed"]) != v]
    assert differ == []


def test_slam_generator_is_in_sync_with_the_committed_file():
    generate = _generator()
    assert generate.dumps(generate.build()) == generate.VECTORS.read_text()


def test_the_rules_pages_slam_example_says_what_it_rolls():
    """docs/rules/enchanted-realms.md's slam request gives the numbers its text states."""
    import re

    page = (ROOT / "docs" / "rules" / "enchanted-realms.md").read_text()
    section = page[page.index("## The grappler's slam"):page.index("## Weapon lock and disarm")]
    request = json.loads(re.findall(r"```json\n(.*?)```", section, re.S)[0])
    r = fracas.roll("slam", request).to_dict()
    assert r["victim_damage"]["damage"] == 4 and r["into"]["hit"] and r["into"]["damage"] == 4
    assert r["into"]["p_hit_exact"] == "6669/8000" and "`p_hit` 6669/8000" in section
