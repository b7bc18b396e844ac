"""Enchanted Realms touch attacks (the `touch` kind; seed 000 "Touch-based Effects", ER-6,
ER-12, ER-14, ER-15; docs/rules/enchanted-realms.md, "Touch attacks").

A touch hit is rolled by the active ER kernel, a sleight of hand in Python from the same
stream; the draw order is pinned by tests/vectors/er_touch_vectors.json, replayed here on
every backend.
"""

import importlib.util
import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest

import fracas
from fracas import _kernels

ROOT = Path(__file__).resolve().parents[2]
VECTORS = json.loads((ROOT / "tests" / "vectors" / "er_touch_vectors.json").read_text())

# The text's example: a caster of Agility 4 (+1) against a target of Agility 6 (+2) wearing
# a ring of protection (+1 Other AC): DC 13, "if scoring 17 or higher, the touch would be
# unnoticed".
EXAMPLE = {"touch": "sleight", "caster": {"agility": 4}, "target": {"id": "guard", "agility": 6, "other_ac": 1}}
HIT = {"touch": "hit", "caster": {"strength": 4}, "target": {"id": "guard", "ac": 13}, "dice": 2}


def _touch(request, **kwargs):
    return fracas.roll("touch", request, **kwargs).to_dict()


def _error(request):
    with pytest.raises(fracas.RequestError) as info:
        fracas.roll("touch", request)
    return info.value


@pytest.mark.parametrize("face, touched, clandestine", [(11, False, False), (12, True, False), (15, True, False),
                                                        (16, True, True), (20, True, True)])
def test_the_texts_sleight_example_dc_13_unnoticed_from_17(face, touched, clandestine):
    """ER Touch-based Effects: DC 10 + 2 (Agility 6) + 1 (ring) = 13; d20 + 1; 17 is 4 over."""
    result = _touch({**EXAMPLE, "rolls": [face]})
    sleight = result["sleight"]
    assert sleight["dc"] == 13 and sleight["clandestine_dc"] == 17 and sleight["agility_mod"] == 1
    assert sleight["total"] == face + 1
    assert (result["touched"], result["clandestine"]) == (touched, clandestine)
    assert result["p_touch_exact"] == "9/20" and result["p_clandestine_exact"] == "1/4"


def test_a_sleight_has_no_natural_20_or_natural_1_rule():
    """A feat, not an attack: a 20 that falls short fails, a 1 that reaches the DC touches."""
    assert _touch({**EXAMPLE, "target": {"id": "g", "agility_mod": 8, "other_ac": 5}, "rolls": [20]})["touched"] is False
    assert _touch({**EXAMPLE, "caster": {"agility_mod": 12}, "rolls": [1]})["touched"] is True


def test_er12_er14_the_casters_conditions_count_on_its_sleight():
    """Poisoned: two d20, the worse kept (the first drawn first); shaken: -2; defending: the better."""
    poisoned = _touch({**EXAMPLE, "caster": {"agility": 4, "conditions": ["poisoned"]}, "rolls": [18, 9]})
    assert poisoned["sleight"]["dice"] == [18, 9] and poisoned["sleight"]["kept"] == 9 and not poisoned["touched"]
    shaken = _touch({**EXAMPLE, "caster": {"agility": 4, "conditions": ["shaken"]}, "rolls": [13]})
    assert shaken["sleight"]["total"] == 12 and not shaken["touched"]
    both = _touch({**EXAMPLE, "caster": {"agility": 4, "conditions": ["poisoned"]}, "advantage": True, "rolls": [5]})
    assert both["sleight"]["dice"] == [5]  # advantage and disadvantage cancel (ER-12)


def test_the_victims_conditions_do_not_move_the_sleights_dc():
    """"The only variables that adjust the DC are the victim's Agility modifier and ... Other"."""
    for conditions in ([], ["prone"], ["restrained", "blind"]):
        result = _touch({**EXAMPLE, "target": {**EXAMPLE["target"], "conditions": conditions}, "rolls": [12]})
        assert result["sleight"]["dc"] == 13 and result["sleight"]["situation"]["advantage"] is False


def test_er6_a_touch_hit_is_a_strike_that_deals_no_damage():
    """One die reaching the AC touches (to-hit = the Strength score, ER-4); no damage is reported."""
    result = _touch({**HIT, "rolls": [9, 3]})
    assert result["touched"] is True and result["hit"]["hits"] == 1 and result["hit"]["to_hit"] == 4
    assert "damage" not in json.dumps(result)
    assert _touch({**HIT, "rolls": [8, 3]})["touched"] is False


def test_er8_a_touch_hits_natural_20_touches_and_draws_no_crit_die():
    """ER-6 natural 20 always hits; a touch deals no damage, so no crit chain is drawn."""
    result = _touch({**HIT, "dice": 1, "target": {"id": "g", "ac": 40}, "rolls": [20]})
    assert result["touched"] is True
    never = _touch({**HIT, "dice": 1, "caster": {"strength": 30}, "target": {"id": "g", "ac": 2}, "rolls": [1]})
    assert never["touched"] is False


def test_er12_er15_a_touch_hit_takes_an_attacks_advantage_and_disadvantage():
    """A restrained victim: one more counted die; a poisoned caster: one more, the highest dropped."""
    adv = _touch({**HIT, "dice": 1, "target": {"id": "g", "ac": 15, "conditions": ["restrained"]}, "rolls": [3, 11]})
    assert adv["hit"]["advantage"] and [d["source"] for d in adv["hit"]["dice"]] == ["skill", "advantage"]
    assert adv["touched"] is True
    dis = _touch({**HIT, "dice": 1, "caster": {"strength": 4, "conditions": ["poisoned"]},
                  "target": {"id": "g", "ac": 15}, "rolls": [19, 4]})
    assert dis["hit"]["disadvantage"] and dis["hit"]["discarded"] == 19 and dis["touched"] is False


@pytest.mark.parametrize("request_", [
    HIT, {**HIT, "dice": 1}, {**HIT, "advantage": True}, {**HIT, "caster": {"strength": 4, "conditions": ["prone"]}},
    {**HIT, "target": {"id": "g", "ac": 30}}])
def test_a_touch_hits_exact_chance_is_the_count_over_every_face(request_):
    """p_touch of a hit: every equally likely face sequence of the pool, counted."""
    plan = fracas.roll("touch", {**request_, "seed": 1}).to_dict()["hit"]
    n = len(plan["dice"]) + (plan["discarded"] is not None)
    to_hit, ac = plan["to_hit"], plan["ac"]

    def hit(face):
        return face == 20 or (face != 1 and face + to_hit >= ac)

    touches = 0
    for faces in itertools.product(range(1, 21), repeat=n):
        kept = sorted(faces)[:-1] if plan["disadvantage"] else faces
        touches += any(hit(f) for f in kept)
    expected = Fraction(touches, 20 ** n)
    assert _touch({**request_, "seed": 1})["p_touch_exact"] == f"{expected.numerator}/{expected.denominator}"


def test_a_sleights_exact_chances_at_disadvantage():
    """Two d20, the worse kept: P(min + 1 >= 13) = (9/20)^2; P(min + 1 >= 17) = (5/20)^2."""
    result = _touch({**EXAMPLE, "disadvantage": True, "seed": 2})
    assert result["p_touch_exact"] == "81/400" and result["p_clandestine_exact"] == "1/16"


@pytest.mark.parametrize("request_, path, kind", [
    ({**HIT, "target": {"id": "g"}}, "$.target.ac", fracas.SchemaError),
    ({**EXAMPLE, "target": {"id": "g"}}, "$.target.agility", fracas.SchemaError),
    ({**EXAMPLE, "caster": {"strength": 4}}, "$.caster.agility", fracas.SchemaError),
    ({**HIT, "dice": 6}, "$.dice", fracas.SchemaError),
    ({**HIT, "caster": {"strength": 4, "conditions": ["stunned"]}}, "$.caster.conditions", fracas.RulesError),
    ({**EXAMPLE, "caster": {"agility": 4, "conditions": ["asleep"]}}, "$.caster.conditions", fracas.RulesError),
    ({**EXAMPLE, "caster": {"agility": 4, "charmed_by": "guard"}}, "$.target.id", fracas.RulesError),
    ({**HIT, "caster": {"strength": 4, "charmed_by": "guard"}}, "$.target.id", fracas.RulesError),
    ({**EXAMPLE, "target": {"id": "g", "agility": 4, "conditions": ["sleepy"]}}, "$.target.conditions[0]",
     fracas.SchemaError),
    ({**HIT, "touch": "grapple"}, "$.touch", fracas.SchemaError),
    ({**EXAMPLE, "target": {"id": "g", "agility": 4, "other_ac": 99}}, "$.target.other_ac", fracas.SchemaError),
    ({**HIT, "rolls": [4]}, "$.rolls", fracas.DiceError),
    ({**EXAMPLE, "rolls": [4, 5]}, "$.rolls", fracas.DiceError),
])
def test_bad_touch_requests_name_their_field(request_, path, kind):
    exc = _error(request_)
    assert isinstance(exc, kind) and exc.path == path, (exc.path, exc.reason)


def test_the_touch_kind_is_a_kind_of_enchanted_realms_only():
    assert "touch" in fracas.rulesets.kinds()
    with pytest.raises(fracas.RequestError) as info:
        fracas.roll("touch", {**HIT, "ruleset": "worldwalker"})
    assert info.value.path == "$.ruleset"


# -- the known-answer vectors: the draw order on every backend --------------------------

def test_the_touch_vectors_cover_the_rules():
    results = [v["result"] for v in VECTORS if "result" in v]
    assert len(results) >= 100 and {r["touch"] for r in results} == {"hit", "sleight"}
    assert any(r["clandestine"] for r in results) and any(r["touched"] and r["clandestine"] is False for r in results)
    assert any(r["hit"] and r["hit"]["discarded"] is not None for r in results)
    assert any(r["hit"] and r["hit"]["advantage"] for r in results)
    assert any(r["sleight"] and len(r["sleight"]["dice"]) == 2 for r in results)
    assert {v["error"]["type"] for v in VECTORS if "error" in v} >= {"SchemaError", "RulesError", "DiceError"}


def _answer(vector):
    try:
        got = fracas.roll("touch", vector["request"], seed=vector["seed"]).to_dict()
    except fracas.RequestError as exc:
        return {"error": {"type": type(exc).__name__, "path": exc.path, "reason": exc.reason}}
    got.pop("backend", None)
    return {"result": got}


@pytest.mark.parametrize("backend", _kernels.available())
def test_every_touch_vector_reproduces(backend):
    with _kernels.using(backend):
        differ = [v["name"] for v in VECTORS if _answer(v) != {k: v[k] for k in ("result", "error") if k in v}]
    assert differ == []


def test_the_touch_generator_is_in_sync_with_the_committed_file():
    path = ROOT / "tests" / "vectors" / "generate_touch.py"
    spec = importlib.util.spec_from_file_location("generate_touch", path)
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    assert generate.dumps(generate.build()) == generate.VECTORS.read_text()
