"""Enchanted Realms throwing items and throwing magic (the `throw` kind; seed 000's "ER
Throwing Items"; ER-6, ER-8, ER-10, ER-12, ER-14, ER-16; docs/rules/enchanted-realms.md).

The throw kind is Python on both backends (no compiled kernel); its draw order is pinned by
tests/vectors/er_throw_vectors.json, replayed here on every backend.
"""

import importlib.util
import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest

import fracas
from fracas import _kernels
from fracas.dice import Dice
from fracas.rulesets.er.throw import ITEMS, face_hits, pool_chance, roll_pool

ROOT = Path(__file__).resolve().parents[2]
VECTORS = json.loads((ROOT / "tests" / "vectors" / "er_throw_vectors.json").read_text())

GHOUL = {"id": "ghoul", "ac": 14}


def _throw(item="acid splash", target=None, **extra):
    return fracas.throw({"item": item, "target": target or GHOUL, **extra}).to_dict()


def _error(request):
    with pytest.raises(fracas.RequestError) as info:
        fracas.throw(request)
    return info.value


# -- the pool ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("skill", "n"), [("none", 1), ("ranged", 2), ("hurling", 3)])
def test_er_throwing_items_the_pool_is_one_two_or_three_d20_by_skill(skill, n):
    """ER Throwing Items: a d20 for nearly anyone; ranged fighting adds an extra d20; hurling
    rolls 3d20. The raw face is compared: Agility adds nothing to an item (to_hit 0)."""
    r = _throw(skill=skill, thrower={"agility": 12}, rolls=[5] * n)
    assert len(r["thrown"]["dice"]) == n and r["thrown"]["counted"] == n
    assert r["thrown"]["to_hit"] == 0 and r["thrown"]["agility_added"] == 0
    assert r["hit"] is False and r["damage"] is None


def test_er_throwing_items_any_hitting_die_is_enough_and_the_effect_happens_once():
    """"should either die score a hit, the effect happens": two hits still deal one d4."""
    r = _throw("holy water", skill="hurling", rolls=[15, 18, 3, 2])
    assert r["thrown"]["hits"] == [True, True, False] and r["hit"] is True
    assert r["damage"] == {"dice": [2], "faces": 4, "bonus": 0, "base": 2, "damage": 2}
    one = _throw("holy water", skill="ranged", rolls=[2, 14, 4])
    assert one["thrown"]["hits"] == [False, True] and one["damage"]["damage"] == 4


def test_er_throwing_items_the_raw_face_meets_the_ac():
    """"If the raw score of the d20 strikes the opponent's AC": 14 meets AC 14, 13 does not."""
    assert _throw(rolls=[14, 1])["hit"] is True
    assert _throw(rolls=[13])["hit"] is False


def test_er6_a_raw_20_always_hits_and_a_raw_1_never():
    assert _throw(target={"id": "golem", "ac": 40}, rolls=[20, 4])["hit"] is True
    assert _throw(target={"id": "rat", "ac": -5}, rolls=[1])["hit"] is False


@pytest.mark.parametrize(("item", "faces", "flat", "dtype"), [
    ("acid splash", 4, 0, "alchemical"), ("bonfire blend", None, 1, "fire"), ("explosive oil", 4, 0, "fire"),
    ("firebreather's oil", 4, 0, "fire"), ("holy water", 4, 0, "smite"),
])
def test_er_throwing_items_the_item_table(item, faces, flat, dtype):
    """The table: acid splash d4 alchemical, bonfire blend 1 fire, explosive oil d4 fire,
    firebreather's oil d4 fire, holy water d4 smiting; the note is carried along."""
    r = _throw(item, rolls=[15, 3] if faces else [15])
    assert r["damage_type"] == dtype and r["damage"]["faces"] == faces and r["damage"]["bonus"] == flat
    assert r["damage"]["base"] == (3 if faces else 1) and r["note"] == ITEMS[item][4]
    assert r["crit"] is False


@pytest.mark.parametrize("item", ["sleep smoke", "smoke of restraint", "thick smoke"])
def test_er_throwing_items_area_smokes_are_not_thrown_at_an_ac(item):
    """The area items use "close-enough" and a save: refused, pointing at the save kind."""
    error = _error({"item": item, "target": GHOUL})
    assert isinstance(error, fracas.RulesError) and error.path == "$.item" and "save kind" in error.reason


# -- throwing magic ------------------------------------------------------------------------------

SPELL = {"dice": 2, "faces": 6, "damage_type": "fire"}


@pytest.mark.parametrize(("skill", "thrower", "added"), [
    ("none", {"agility": 8}, 0),               # the spell's d20 alone
    ("ranged", {"agility": 8}, 3),             # the Agility bonus: (8 - 2) // 2
    ("ranged", {"agility": 1}, 0),             # a negative modifier is no bonus
    ("ranged", {"agility_mod": 4}, 4),
    ("hurling", {"agility": 8}, 8),            # the total Agility score in lieu of the bonus
])
def test_er_throwing_magic_agility_by_skill(skill, thrower, added):
    """ER Throwing Items (throwing magic): the spell provides one d20; ranged fighting adds any
    Agility bonus; hurling adds the total Agility score instead."""
    hit = 10 + added >= 14
    r = _throw("magic", skill=skill, thrower=thrower, damage=SPELL, rolls=[10, 1, 1] if hit else [10])
    assert r["magic"] is True and len(r["thrown"]["dice"]) == 1
    assert r["thrown"]["agility_added"] == added and r["thrown"]["to_hit"] == added
    assert r["hit"] is hit
    assert r["damage"] is None or r["damage"]["base"] == 2


def test_er_throwing_magic_needs_the_agility_it_adds_and_its_damage():
    error = _error({"item": "magic", "skill": "hurling", "thrower": {"agility_mod": 3}, "damage": SPELL,
                    "target": GHOUL})
    assert error.path == "$.thrower.agility"
    assert _error({"item": "magic", "skill": "ranged", "damage": SPELL, "target": GHOUL}).path == "$.thrower.agility"
    assert _error({"item": "magic", "target": GHOUL}).path == "$.damage"
    assert _error({"item": "other", "target": GHOUL}).path == "$.damage"
    assert _error({"item": "holy water", "damage": SPELL, "target": GHOUL}).path == "$.damage"


# -- conditions, cover, resistances --------------------------------------------------------------

def test_er12_disadvantage_adds_a_die_and_drops_the_highest():
    """ER-12/ER-14: a poisoned thrower's throw is at disadvantage: one more d20, the highest dropped."""
    r = _throw(skill="ranged", thrower={"conditions": ["poisoned"]}, rolls=[18, 15, 3, 4])
    assert r["thrown"]["dice"] == [18, 15, 3] and r["thrown"]["dropped"] == 0
    assert r["thrown"]["hits"] == [False, True, False] and r["hit"] is True
    assert r["thrown"]["disadvantage_from"] == ["attacker poisoned"]
    miss = _throw(thrower={"conditions": ["poisoned"]}, rolls=[18, 9])
    assert miss["hit"] is False


def test_er12_advantage_adds_a_counted_die():
    """ER-12/ER-14: a restrained target gives advantage: one more counted d20."""
    r = _throw(target={**GHOUL, "conditions": ["restrained"]}, rolls=[2, 16, 1])
    assert r["thrown"]["counted"] == 2 and r["thrown"]["advantage"] is True and r["hit"] is True
    assert r["thrown"]["advantage_from"] == ["target restrained"]
    assert _throw(advantage=True, rolls=[2, 3])["thrown"]["advantage_from"] == ["request"]


def test_er14_penalties_and_er16_cover():
    """ER-14: bound -5 (a thrown item is no mechanical weapon: a bound thrower may throw);
    ER-16: half cover +2 AC, full cover refuses the throw."""
    bound = _throw(thrower={"conditions": ["bound"]}, rolls=[19, 1])
    assert bound["thrown"]["to_hit"] == -5 and bound["thrown"]["disadvantage"] is True
    assert _throw(target={**GHOUL, "cover": "half"}, rolls=[15])["thrown"]["ac"] == 16
    error = _error({"item": "acid splash", "target": {**GHOUL, "cover": "full"}})
    assert isinstance(error, fracas.RulesError) and error.path == "$.target.id"


def test_er14_charmed_stunned_and_underwater_throwers():
    """ER-14: a charmed creature cannot attack its charmer; a stunned one cannot attack;
    underwater only archery works at range."""
    assert _error({"item": "acid splash", "thrower": {"charmed_by": "ghoul"}, "target": GHOUL}).path == "$.target.id"
    assert _error({"item": "acid splash", "thrower": {"conditions": ["stunned"]},
                   "target": GHOUL}).path == "$.thrower.conditions"
    assert _error({"item": "acid splash", "thrower": {"conditions": ["underwater"]},
                   "target": GHOUL}).path == "$.thrower.conditions"


def test_er10_resistances_apply_to_the_items_damage_type():
    """ER-10: holy water's smiting damage doubled on a vulnerable target; fire halved (rounded
    down) on a resistant one, and by water around an underwater target (ER-15); immune: 0."""
    assert _throw("holy water", target={**GHOUL, "vulnerable": ["smite"]}, rolls=[14, 3])["damage"]["damage"] == 6
    assert _throw("explosive oil", target={**GHOUL, "resistant": ["fire"]}, rolls=[14, 3])["damage"]["damage"] == 1
    assert _throw("explosive oil", target={**GHOUL, "conditions": ["underwater"]},
                  rolls=[14, 4])["damage"]["damage"] == 2
    immune = _throw("acid splash", target={**GHOUL, "immune": ["alchemical"]}, rolls=[14, 4])
    assert immune["damage"]["damage"] == 0 and immune["resistance"] == "immune"


def test_er_ac_by_type_uses_the_items_damage_type():
    assert _throw("holy water", target={**GHOUL, "ac_by_type": {"smite": 10}}, rolls=[10, 1])["thrown"]["ac"] == 10


@pytest.mark.parametrize(("request_", "path"), [
    ({"item": "grenade", "target": GHOUL}, "$.item"),
    ({"item": "acid splash", "target": {"id": "", "ac": 14}}, "$.target.id"),
    ({"item": "acid splash", "target": {"id": "g", "ac": 999}}, "$.target.ac"),
    ({"item": "acid splash", "target": {**GHOUL, "cover": "total"}}, "$.target.cover"),
    ({"item": "acid splash", "target": {**GHOUL, "resistant": ["wind"]}}, "$.target.resistant[0]"),
    ({"item": "acid splash", "target": {**GHOUL, "conditions": ["sad"]}}, "$.target.conditions[0]"),
    ({"item": "acid splash", "target": {**GHOUL, "ac_by_type": {"smite": 500}}}, "$.target.ac_by_type.smite"),
    ({"item": "acid splash", "bonus": 51, "target": GHOUL}, "$.bonus"),
    ({"item": "acid splash", "skill": "juggling", "target": GHOUL}, "$.skill"),
    ({"item": "acid splash", "thrower": {"agility": 99}, "target": GHOUL}, "$.thrower.agility"),
    ({"item": "acid splash", "thrower": {"obscurement": 50}, "target": GHOUL}, "$.thrower.obscurement"),
    ({"item": "other", "damage": {"dice": 11}, "target": GHOUL}, "$.damage.dice"),
    ({"item": "other", "damage": {"dice": -1}, "target": GHOUL}, "$.damage.dice"),
    ({"item": "other", "damage": {"faces": 7}, "target": GHOUL}, "$.damage.faces"),
    ({"item": "other", "damage": {"bonus": 51}, "target": GHOUL}, "$.damage.bonus"),
    ({"item": "other", "damage": {"damage_type": "wind"}, "target": GHOUL}, "$.damage.damage_type"),
    ({"item": "acid splash", "target": GHOUL, "ruleset": "worldwalker"}, "$.ruleset"),
    ({"item": "acid splash"}, "$"),
])
def test_bad_requests_name_the_field(request_, path):
    error = _error(request_)
    assert error.path == path or (path == "$" and "target" in error.reason), (error.path, error.reason)


def test_too_few_injected_faces_name_the_roll():
    error = _error({"item": "acid splash", "target": GHOUL, "rolls": [15]})
    assert error.path == "$.rolls" and "damage" in error.reason


# -- the reusable pool and the exact odds --------------------------------------------------------

def test_roll_pool_returns_faces_and_which_hit():
    """The pool a later hurling attack (a slam into another target) reuses: faces in draw
    order, hits per die, the dropped die never hits."""
    dice = Dice.from_seed(0, rolls=_array([20, 5, 13]))
    pool = roll_pool(dice, 2, 0, 13, disadvantage=True)
    assert pool.faces == [20, 5, 13] and pool.dropped == 0 and pool.hits == [False, False, True] and pool.hit


def _array(faces):
    from array import array

    return array("q", faces)


@pytest.mark.parametrize(("n", "to_hit", "ac", "disadvantage"), [
    (1, 0, 14, False), (2, 0, 14, False), (3, 0, 14, False), (3, -5, 30, False), (1, 8, 14, False),
    (2, 0, 14, True), (3, 2, 11, True), (1, 0, 25, True),
])
def test_pool_chance_is_exact_by_enumeration(n, to_hit, ac, disadvantage):
    """P(hit) = 1 - (1 - p)^n; at disadvantage, a hit among the n + 1 dice other than the
    highest, enumerated over every face."""
    good = total = 0
    for faces in itertools.product(range(1, 21), repeat=n + int(disadvantage)):
        drop = faces.index(max(faces)) if disadvantage else None
        good += any(face_hits(f, to_hit, ac) for i, f in enumerate(faces) if i != drop)
        total += 1
    assert pool_chance(n, to_hit, ac, disadvantage) == Fraction(good, total)
    if not disadvantage:
        p = Fraction(sum(face_hits(f, to_hit, ac) for f in range(1, 21)), 20)
        assert pool_chance(n, to_hit, ac) == 1 - (1 - p) ** n


def test_mean_damage_is_exact():
    """Mean = P(hit) x the mean of the resisted damage: hurled holy water at AC 14, vulnerable."""
    r = _throw("holy water", skill="hurling", target={**GHOUL, "vulnerable": ["smite"]}, rolls=[1, 1, 1])
    assert r["p_hit_exact"] == "5803/8000"  # 1 - (13/20)^3
    assert Fraction(r["mean_damage_exact"]) == Fraction(5803, 8000) * 5  # doubled d4: mean 5
    spell = _throw("magic", damage={"dice": 1, "faces": 4, "bonus": -2, "damage_type": "cold"}, rolls=[20, 1])
    assert Fraction(spell["mean_damage_exact"]) == Fraction(7, 20) * Fraction(0 + 0 + 1 + 2, 4)  # never below 0
    assert spell["damage"]["base"] == 0


# -- the known-answer vectors: the draw order on every backend -----------------------------------

def test_the_throw_vectors_cover_the_rules():
    results = [v["result"] for v in VECTORS if "result" in v]
    assert len(results) >= 80
    assert {r["item"] for r in results} == {"acid splash", "bonfire blend", "explosive oil", "firebreather's oil",
                                            "holy water", "other", "magic"}
    assert {r["skill"] for r in results} == {"none", "ranged", "hurling"}
    assert any(r["thrown"]["dropped"] is not None for r in results)
    assert any(r["hit"] for r in results) and any(not r["hit"] for r in results)
    assert {r["resistance"] for r in results} == {"normal", "resistant", "vulnerable", "immune"}
    assert {v["error"]["type"] for v in VECTORS if "error" in v} >= {"RulesError", "DiceError"}


def _answer(vector):
    try:
        got = fracas.roll("throw", vector["request"], seed=vector["seed"]).to_dict()
    except fracas.RequestError as exc:
        return {"error": {"type": type(exc).__name__, "path": exc.path, "reason": exc.reason}}
    got.pop("backend", None)
    return {"result": got}


@pytest.mark.parametrize("backend", _kernels.available())
def test_every_throw_vector_reproduces(backend):
    with _kernels.using(backend):
        differ = [v["name"] for v in VECTORS if _answer(v) != {k: v[k] for k in ("result", "error") if k in v}]
    assert differ == []


def test_the_throw_generator_is_in_sync_with_the_committed_file():
    path = ROOT / "tests" / "vectors" / "generate_throw.py"
    spec = importlib.util.spec_from_file_location("generate_throw", path)
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    assert generate.dumps(generate.build()) == generate.VECTORS.read_text()
