"""The bridge resolves every ruleset: attacks, bulk, initiative, morale, journal and replay."""

import pytest

from fracas.bridge import errors

from .helpers import request

CT_ATTACK = {"ruleset": "cartyrion", "attacker": {"level": 9, "bonus": 8, "magic": 2},
             "strikes": [{"target": "giant", "method": "melee", "die": "d6"}],
             "targets": {"giant": {"dex": 3, "armor": 1}}, "rolls": [5, 3, 4, 3, 2]}
WW_ATTACK = {"ruleset": "worldwalker", "attacker": {"skill": 3, "str_mod": 2},
             "strikes": [{"target": "orc", "method": "melee", "damage": "1d8"}],
             "targets": {"orc": {"defense": 14, "armor": 2, "reaction": {"kind": "dodge", "bonus": 4}}}, "seed": 9}
OS_BULK = {"ruleset": "old-school", "profiles": {"g": {"attacker": {"attack_bonus": 1},
                                                       "strikes": [{"method": "melee", "damage": "1d6"}]}},
           "targets": {"pc": {"ac": 14}}, "attacks": [{"profile": "g", "target": "pc", "count": 5000}], "seed": 4}
OS_SIDES = {"ruleset": "old-school", "sides": [{"id": "party"}, {"id": "goblins"}], "seed": 2}
CT_SIDES = {"ruleset": "cartyrion", "ambush": "opponents", "seed": 2}
MORALE = {"ruleset": "old-school", "morale": 7, "modifier": 1, "seed": 3}
GRAPPLE = {"contest": "grapple", "challenger": {"id": "ogre", "strength": 6, "size": "large"},
           "defender": {"id": "aria", "attribute": "agility", "agility": 5, "speed": 40}, "seed": 3}
IMPALE = {"pikeman": {"strength": 4}, "weapon": {"forte": True},
          "charger": {"id": "ogre", "ac": 12, "body": 5, "closed": 30},
          "charge": {"attacker": {"strength": 6}, "strikes": [
              {"target": "pike", "method": "melee", "style": "bludgeoning", "dice": 2, "damage_type": "blunt"}],
              "targets": {"pike": {"ac": 13}}}, "seed": 8}
STRAY = {"attacker": {"agility": 4},
         "strikes": [{"target": "orc", "method": "range", "style": "archery", "dice": 2, "damage_type": "piercing"}],
         "targets": {"orc": {"ac": 15, "cover": "three-quarters", "nearby": ["bob"]}, "bob": {"ac": 12}},
         "rolls": [3, 5, 1]}


def test_a_cartyrion_attack_through_the_bridge(ask):
    result = ask(request(1, "attack.resolve", CT_ATTACK))["result"]
    assert result["ruleset"] == "cartyrion" and result["total_damage"] == 31


@pytest.mark.parametrize(("method", "params"), [
    ("attack.resolve", CT_ATTACK), ("attack.resolve", WW_ATTACK), ("attack.bulk", OS_BULK),
    ("initiative.roll", OS_SIDES), ("initiative.roll", CT_SIDES), ("morale.check", MORALE),
    ("compete.roll", GRAPPLE), ("impale.resolve", IMPALE), ("attack.resolve", STRAY),
])
def test_every_kind_is_journaled_and_replays(ask, method, params):
    rolled = ask(request("x", method, params))["result"]
    assert rolled["ruleset"] == params.get("ruleset", "enchanted-realms")
    assert ask(request("x", method, params))["result"] == rolled  # the same id: the journaled result
    replay = ask(request("y", "journal.replay", {"id": "x"}))["result"]
    assert replay["matches"] is True and replay["method"] == method


@pytest.mark.parametrize(("method", "params", "code", "path"), [
    ("attack.resolve", {**CT_ATTACK, "strikes": [{"target": "giant", "method": "melee", "die": "d7"}]},
     errors.RULES_ERROR, "$.params.strikes[0].die"),
    ("attack.resolve", {**WW_ATTACK, "strikes": [{"target": "orc", "method": "melee", "damage": "1d8",
                                                 "critical": 6}]}, errors.RULES_ERROR, "$.params.strikes[0].critical"),
    ("morale.check", {"morale": 7}, errors.RULES_ERROR, "$.params.ruleset"),
    ("morale.check", {**MORALE, "morale": 13}, errors.INVALID_PARAMS, "$.params.morale"),
    ("attack.resolve", {**CT_ATTACK, "rolls": [5, 3]}, errors.DICE_ERROR, "$.params.rolls"),
    # Enchanted Realms beyond the strike: each refusal names the field and the rule.
    ("compete.roll", {**GRAPPLE, "contest": "shove", "defender": {"id": "aria", "strength": 2, "size": "giant"}},
     errors.RULES_ERROR, "$.params.defender.size"),
    ("impale.resolve", {**IMPALE, "charger": {**IMPALE["charger"], "closed": 20}}, errors.RULES_ERROR,
     "$.params.charger.closed"),
    ("attack.resolve", {**STRAY, "flee": {"moved": -5}, "rolls": None}, errors.INVALID_PARAMS, "$.params.flee.moved"),
    ("compete.roll", {**GRAPPLE, "ruleset": "cartyrion"}, errors.RULES_ERROR, "$.params.ruleset"),
    ("compete.roll", {**GRAPPLE, "challenger": {"id": "a"}}, errors.INVALID_PARAMS, "$.params.challenger.strength"),
    # ER-14: a challenger that takes no actions cannot start a grapple; defending removes reactions (ER-15).
    ("compete.roll", {**GRAPPLE, "challenger": {**GRAPPLE["challenger"], "conditions": ["stunned"]}},
     errors.RULES_ERROR, "$.params.challenger.conditions"),
    ("impale.resolve", {**IMPALE, "pikeman": {"strength": 4, "conditions": ["defending"]}}, errors.RULES_ERROR,
     "$.params.pikeman.conditions"),
])


def test_bad_requests_name_their_path(ask, method, params, code, path):
    reply = ask(request(7, method, params))
    assert reply["error"]["code"] == code and reply["error"]["data"]["path"] == path, reply


def test_a_competitors_conditions_through_the_bridge(ask):
    """ER-12/ER-14: "All Body saves/feats and competitions are made at disadvantage" (bound)."""
    params = {**GRAPPLE, "seed": None, "rolls": [11, 3, 5],
              "challenger": {**GRAPPLE["challenger"], "conditions": ["bound"]}}
    result = ask(request("c1", "compete.roll", params))["result"]
    assert result["challenger"]["disadvantage_from"] == ["bound"]
    assert result["rounds"][0]["challenger"]["dice"] == [11, 3] and result["rounds"][0]["challenger"]["kept"] == 3


def test_a_stray_counts_in_the_bystanders_odds_through_the_bridge(ask):
    """ER-17 in odds: the bystander's own entry has the stray's P(hit) and P(drop)."""
    params = {**STRAY, "rolls": None, "remaining": {"bob": 1}}
    bob = ask(request("o2", "attack.odds", params))["result"]["targets"]["bob"]
    assert bob["p_hit"] > 0 and bob["p_drop"] == bob["p_hit"]


def test_attack_odds_through_the_bridge_rolls_nothing(ask, journal):
    typical = {"attacker": {"strength": 0, "strength_mod": 1},
               "strikes": [{"target": "g", "method": "melee", "style": "slashing", "dice": 3, "bonus": 2,
                            "weight": 1, "damage_type": "edged"}],
               "targets": {"g": {"ac": 14}}, "remaining": {"g": 6}}
    result = ask(request("o1", "attack.odds", typical))["result"]
    assert result["targets"]["g"]["p_hit_exact"] == "6669/8000" and "p_drop" in result["targets"]["g"]
    assert journal.lookup('"o1"') is None
    ct = ask(request("o2", "attack.odds", {**CT_ATTACK, "count": 2}))["result"]
    assert ct["count"] == 2 and abs(ct["targets"]["giant"]["mean"] - 70) < 1e-9
    reply = ask(request("o3", "attack.odds", {**CT_ATTACK, "count": 0}))
    assert reply["error"]["code"] == errors.INVALID_PARAMS and reply["error"]["data"]["path"] == "$.params.count"


@pytest.mark.parametrize(("method", "params"), [
    ("attack.resolve", CT_ATTACK), ("attack.resolve", WW_ATTACK), ("attack.bulk", OS_BULK),
    ("attack.bulk", dict(OS_BULK, detail="dice", attacks=[{"profile": "g", "target": "pc", "count": 3}])),
    ("initiative.roll", OS_SIDES), ("initiative.roll", CT_SIDES), ("morale.check", MORALE),
    ("compete.roll", GRAPPLE), ("impale.resolve", IMPALE), ("attack.resolve", STRAY),
    ("attack.odds", {k: v for k, v in WW_ATTACK.items() if k != "seed"}),
    ("attack.odds", {k: v for k, v in STRAY.items() if k != "rolls"})])
def test_each_answer_is_the_result_the_published_schema_gives_its_ruleset(ask, method, params):
    """bridge/schema.json's `result.<method>` is the exact result shape of the ruleset the
    result names (generated from each ruleset's result_types): what the bridge answers
    validates, and the same answer with a key more does not."""
    import json
    from pathlib import Path

    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parents[2] / "bridge" / "schema.json").read_text())
    root = {"$schema": schema["$schema"], "$ref": f"#/$defs/result.{method}", "$defs": schema["$defs"]}
    validator = jsonschema.validators.validator_for(root)(root)
    result = ask(request(1, method, params))["result"]
    assert [e.message for e in validator.iter_errors(result)] == []
    assert list(validator.iter_errors(dict(result, surplus=True)))
