"""Enchanted Realms weapon lock, weapon disarm and the locker's shield-blitz (the `lock` kind;
"ER Weapon Lock" / "ER Weapon Disarm", seed 000's Weapon Negation; ER-6, ER-10, ER-12,
ER-14, ER-19; docs/rules/enchanted-realms.md).

The lock kind is Python on both backends (no compiled kernel); its draw order is pinned by
tests/vectors/er_lock_vectors.json, replayed here on every backend.
"""

import importlib.util
import json
import random
from fractions import Fraction
from pathlib import Path

import pytest

import fracas
from fracas import _kernels

ROOT = Path(__file__).resolve().parents[2]
VECTORS = json.loads((ROOT / "tests" / "vectors" / "er_lock_vectors.json").read_text())

ARIA = {"id": "aria", "to_hit": 6, "strength": 6, "agility": 8}  # Strength mod +2, Agility mod +3
OGRE = {"id": "ogre", "ac": 12, "strength": 8, "agility": 2}  # Strength mod +3, Agility mod 0


def _lock(mode="lock", attacker=None, victim=None, **extra):
    return fracas.lock({"mode": mode, "attacker": attacker or ARIA, "victim": victim or OGRE, **extra}).to_dict()


def _error(request):
    with pytest.raises(fracas.RequestError) as info:
        fracas.lock(request)
    return info.value


# -- the feat -----------------------------------------------------------------------------

def test_er_weapon_lock_the_feat_is_one_d20_against_the_ac_and_no_rebuff():
    """ER Weapon Lock: "a single chance", "the success roll is a single d20"; "a rebuff cannot
    be used as a defense". d20 + to_hit meets the victim's AC (ER-6)."""
    hit = _lock(rolls=[6])
    assert hit["feat"]["dice"] == [6] and hit["feat"]["total"] == 12 and hit["feat"]["success"] is True
    assert hit["outcome"] == "locked" and hit["rebuff_allowed"] is False and "rebuff" in hit["rebuff"]
    assert hit["free_cost_dice"] == 2 and hit["reaction"] is None
    miss = _lock(rolls=[5])
    assert miss["outcome"] == "missed" and miss["free_cost_dice"] is None
    assert hit["feat"]["p_success_exact"] == "3/4"  # faces 6..20


def test_er6_a_raw_20_always_succeeds_and_a_raw_1_always_fails():
    assert _lock(attacker={**ARIA, "to_hit": -30}, rolls=[20])["outcome"] == "locked"
    assert _lock("disarm", attacker={**ARIA, "to_hit": 40}, rolls=[1])["outcome"] == "missed"
    assert _lock(attacker={**ARIA, "to_hit": -30}, rolls=[20])["feat"]["p_success_exact"] == "1/20"
    assert _lock(attacker={**ARIA, "to_hit": 40}, rolls=[1])["feat"]["p_success_exact"] == "19/20"


def test_er12_advantage_and_disadvantage_are_two_d20_best_or_worst_first_drawn_first():
    """ER-12: "if there is advantage or disadvantage, then two dice are thrown using the better
    or worse of the two"; ER-14: a poisoned attacker's feat is at disadvantage."""
    adv = _lock(attacker={**ARIA, "advantage": True}, rolls=[4, 15])["feat"]
    assert adv["dice"] == [4, 15] and adv["kept"] == 15 and adv["success"] is True
    dis = _lock(attacker={**ARIA, "conditions": ["poisoned"]}, rolls=[15, 4])["feat"]
    assert dis["dice"] == [15, 4] and dis["kept"] == 4 and dis["disadvantage_from"] == ["poisoned"]
    assert Fraction(adv["p_success_exact"]) == 1 - Fraction(5, 20) ** 2
    assert Fraction(dis["p_success_exact"]) == Fraction(15, 20) ** 2


def test_er14_a_shaken_attacker_is_at_minus_2_and_one_who_cannot_act_is_refused():
    feat = _lock(attacker={**ARIA, "conditions": ["shaken"]}, rolls=[7])["feat"]
    assert feat["total_modifier"] == 4 and feat["total"] == 11 and feat["success"] is False
    exc = _error({"mode": "disarm", "attacker": {**ARIA, "conditions": ["stunned"]}, "victim": OGRE})
    assert isinstance(exc, fracas.RulesError) and exc.path == "$.attacker.conditions" and "(ER-14)" in exc.reason


# -- the victim's reaction ----------------------------------------------------------------

def test_er19_a_lock_is_pulled_free_by_a_strength_competition_the_attacker_at_advantage():
    """ER Weapon Lock: "a Strength save competition ... the attacker is at advantage on the d12"."""
    r = _lock(victim={**OGRE, "reacts": True}, rolls=[14, 11, 3, 5])
    reaction = r["reaction"]
    assert reaction["attribute"] == "strength" and reaction["body_cost"] is None
    assert reaction["rounds"] == [{"victim": {"dice": [11], "kept": 11, "total": 14},
                                   "attacker": {"dice": [3, 5], "kept": 5, "total": 7}}]
    assert reaction["attacker_side"]["advantage"] and reaction["attacker_side"]["advantage_from"] == ["weapon negation"]
    assert r["outcome"] == "pulled free" and r["free_cost_dice"] is None
    held = _lock(victim={**OGRE, "reacts": True}, rolls=[14, 4, 3, 9])
    assert held["outcome"] == "locked" and held["reaction"]["victim_wins"] is False


def test_er19_a_tie_rolls_again():
    r = _lock(victim={**OGRE, "reacts": True}, rolls=[14, 5, 6, 3, 9, 2, 2])
    assert r["reaction"]["ties"] == 1 and len(r["reaction"]["rounds"]) == 2 and r["outcome"] == "pulled free"


def test_er_weapon_disarm_costs_2_3_4_body_by_weapon_size_then_agility():
    """ER Weapon Disarm: "2 points against light weapons, 3 points for medium and 4 points for
    heavy", of the weapon's damage type, then an Agility save competition, attacker at advantage."""
    for weapon, points in (("light", 2), ("medium", 3), ("heavy", 4)):
        r = _lock("disarm", attacker={**ARIA, "weapon": weapon}, victim={**OGRE, "reacts": True},
                  rolls=[12, 12, 2, 4])
        cost = r["reaction"]["body_cost"]
        assert cost == {"base": points, "weapon": weapon, "damage_type": "edged", "resistance": "normal",
                        "points": points}
        assert r["reaction"]["attribute"] == "agility" and r["reaction"]["victim_side"]["modifier"] == 0
        assert r["reaction"]["rounds"][0]["attacker"]["total"] == 4 + 3
        assert r["outcome"] == "kept"
    lost = _lock("disarm", victim={**OGRE, "reacts": True}, rolls=[12, 2, 12, 4])
    assert lost["outcome"] == "disarmed" and "thrown" in lost["text"]


def test_er10_the_disarm_cost_is_of_the_weapons_damage_type():
    r = _lock("disarm", attacker={**ARIA, "weapon": "heavy", "damage_type": "blunt"},
              victim={**OGRE, "reacts": True, "resistant": ["blunt"]}, rolls=[12, 5, 5, 4])
    assert r["reaction"]["body_cost"]["points"] == 2 and r["reaction"]["body_cost"]["resistance"] == "resistant"


def test_no_cost_and_no_dice_when_the_feat_fails():
    r = _lock("disarm", victim={**OGRE, "reacts": True}, rolls=[2])
    assert r["reaction"]["rolled"] is False and r["reaction"]["body_cost"] is None and r["reaction"]["rounds"] == []


def test_a_reaction_needs_one_left_and_a_victim_able_to_act():
    exc = _error({"mode": "lock", "attacker": ARIA, "victim": {**OGRE, "reacts": True, "reaction_left": False}})
    assert isinstance(exc, fracas.RulesError) and exc.path == "$.victim.reacts" and "no reaction left" in exc.reason
    exc = _error({"mode": "lock", "attacker": ARIA, "victim": {**OGRE, "reacts": True, "conditions": ["asleep"]}})
    assert exc.path == "$.victim.reacts" and "asleep" in exc.reason
    # without reacting the victim needs no scores at all
    assert _lock(victim={"id": "ogre", "ac": 12}, rolls=[9])["outcome"] == "locked"


def test_er14_conditions_and_prone_in_the_competition():
    """ER-12/ER-14 on competitions: bound at disadvantage; ER-19: prone -5; the victim's
    disadvantage and the attacker's own poisoned cancel nothing on the other side."""
    r = _lock(victim={**OGRE, "reacts": True, "conditions": ["bound", "prone"]},
              attacker={**ARIA, "conditions": ["poisoned"]}, rolls=[20, 20, 9, 4, 7])
    v, a = r["reaction"]["victim_side"], r["reaction"]["attacker_side"]
    assert v["disadvantage"] and v["situation"] == [{"why": "prone", "value": -5}] and v["total_modifier"] == -2
    # poisoned (disadvantage) and the weapon negation's advantage cancel: one d12
    assert not a["advantage"] and not a["disadvantage"]
    assert r["reaction"]["rounds"][0] == {"victim": {"dice": [9, 4], "kept": 4, "total": 2},
                                         "attacker": {"dice": [7], "kept": 7, "total": 9}}


# -- shield-blitz ---------------------------------------------------------------------------

def test_er_weapon_lock_shield_blitz_is_a_d20_of_blunt_damage():
    """ER Weapon Lock: "if the locker has shield-blitz, then a d20 of blunt damage can be
    inflicted - but only against the victim of the pinned weapon"."""
    r = _lock("blitz", rolls=[13])
    assert r["blitz"] == {"die": 13, "damage_type": "blunt", "resistance": "normal", "damage": 13, "mean": 10.5,
                          "mean_exact": "21/2"}
    assert r["feat"] is None and r["outcome"] == "blitzed" and r["p_effect_exact"] == "1/1"
    half = _lock("blitz", victim={**OGRE, "resistant": ["blunt"]}, rolls=[13])["blitz"]
    assert half["damage"] == 6 and half["mean_exact"] == "5/1"
    exc = _error({"mode": "blitz", "attacker": ARIA, "victim": {**OGRE, "reacts": True}})
    assert exc.path == "$.victim.reacts"


# -- errors name their field ------------------------------------------------------------------

@pytest.mark.parametrize(("request_", "path"), [
    ({"mode": "twist", "attacker": ARIA, "victim": OGRE}, "$.mode"),
    ({"mode": "lock", "attacker": ARIA, "victim": {"id": "ogre"}}, "$.victim"),
    ({"mode": "lock", "attacker": {**ARIA, "id": ""}, "victim": OGRE}, "$.attacker.id"),
    ({"mode": "lock", "attacker": ARIA, "victim": {**OGRE, "id": "aria"}}, "$.victim.id"),
    ({"mode": "lock", "attacker": {**ARIA, "to_hit": 1000}, "victim": OGRE}, "$.attacker.to_hit"),
    ({"mode": "lock", "attacker": {**ARIA, "weapon": "huge"}, "victim": OGRE}, "$.attacker.weapon"),
    ({"mode": "lock", "attacker": {**ARIA, "damage_type": "acid"}, "victim": OGRE}, "$.attacker.damage_type"),
    ({"mode": "lock", "attacker": {**ARIA, "conditions": ["sleepy"]}, "victim": OGRE}, "$.attacker.conditions[0]"),
    ({"mode": "lock", "attacker": ARIA, "victim": {**OGRE, "ac": 999}}, "$.victim.ac"),
    ({"mode": "lock", "attacker": ARIA, "victim": {**OGRE, "immune": ["acid"]}}, "$.victim.immune[0]"),
    ({"mode": "lock", "attacker": {"id": "aria", "to_hit": 3}, "victim": {**OGRE, "reacts": True}},
     "$.attacker.strength"),
    ({"mode": "disarm", "attacker": ARIA, "victim": {"id": "ogre", "ac": 12, "reacts": True}}, "$.victim.agility"),
    ({"mode": "disarm", "attacker": ARIA, "victim": {**OGRE, "reacts": True, "agility": 99}}, "$.victim.agility"),
    ({"mode": "lock", "attacker": ARIA, "victim": OGRE, "rolls": [21]}, "$.rolls[0]"),
    ({"mode": "lock", "attacker": ARIA, "victim": {**OGRE, "reacts": True}, "rolls": [15, 13]}, "$.rolls[1]"),
    ({"mode": "lock", "attacker": ARIA, "victim": {**OGRE, "reacts": True}, "rolls": [15, 3]}, "$.rolls"),
    ({"mode": "lock", "attacker": ARIA, "victim": OGRE, "ruleset": "worldwalker"}, "$.ruleset"),
])
def test_bad_requests_name_the_field(request_, path):
    assert _error(request_).path == path


# -- odds against seeded rolls ------------------------------------------------------------------

def test_the_exact_odds_match_seeded_rolls():
    """p_effect (locked / disarmed) is the exact chance: 4000 seeded rolls land near it."""
    for mode in ("lock", "disarm"):
        request = {"mode": mode, "attacker": ARIA, "victim": {**OGRE, "reacts": True}}
        p = Fraction(fracas.lock(request, seed=0).to_dict()["p_effect_exact"])
        rng = random.Random(42)
        n = 4000
        held = sum(fracas.lock(request, seed=rng.getrandbits(64)).to_dict()["outcome"] in ("locked", "disarmed")
                   for _ in range(n))
        sd = (float(p) * (1 - float(p)) / n) ** 0.5
        assert abs(held / n - float(p)) < 5 * sd, (mode, held / n, float(p))


def test_the_odds_by_enumeration():
    """P(effect) = P(feat) x (1 - P(victim wins)), the competition enumerated over all d12 faces
    (the victim's one, the attacker's best of two), ties rolled again (ER-19)."""
    r = _lock(victim={**OGRE, "reacts": True}, rolls=[15, 12, 1, 1])
    win = tie = 0
    for v in range(1, 13):
        for a1 in range(1, 13):
            for a2 in range(1, 13):
                x, y = v + 3, max(a1, a2) + 2
                win += x > y
                tie += x == y
    p_victim = Fraction(win, 12 ** 3 - tie)
    assert Fraction(r["reaction"]["p_victim_wins_exact"]) == p_victim
    assert Fraction(r["p_effect_exact"]) == Fraction(3, 4) * (1 - p_victim)


# -- the known-answer vectors: the draw order on every backend -----------------------------------

def test_the_lock_vectors_cover_the_rules():
    results = [v["result"] for v in VECTORS if "result" in v]
    assert len(results) >= 80
    assert {r["outcome"] for r in results} == {"locked", "pulled free", "disarmed", "kept", "missed", "blitzed"}
    assert any(r["reaction"] and r["reaction"]["ties"] for r in results)
    assert any(r["feat"] and len(r["feat"]["dice"]) == 2 for r in results)
    assert {v["error"]["type"] for v in VECTORS if "error" in v} >= {"SchemaError", "RulesError", "DiceError"}


def _answer(vector):
    try:
        got = fracas.roll("lock", vector["request"], seed=vector["seed"]).to_dict()
    except fracas.RequestError as exc:
        return {"error": {"type": type(exc).__name__, "path": exc.path, "reason": exc.reason}}
    got.pop("backend", None)
    return {"result": got}


@pytest.mark.parametrize("backend", _kernels.available())
def test_every_lock_vector_reproduces(backend):
    with _kernels.using(backend):
        differ = [v["name"] for v in VECTORS if _answer(v) != {k: v[k] for k in ("result", "error") if k in v}]
    assert differ == []


def test_the_lock_generator_is_in_sync_with_the_committed_file():
    path = ROOT / "tests" / "vectors" / "generate_lock.py"
    spec = importlib.util.spec_from_file_location("generate_lock", path)
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    assert generate.dumps(generate.build()) == generate.VECTORS.read_text()
