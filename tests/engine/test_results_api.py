"""Results read well and stay put: a repr that says what they are, and `to_dict()` a fresh
dict each call (changing one changes nothing else)."""

import pytest

import fracas

ER = {"attacker": {"strength": 3}, "strikes": [{"target": "g", "method": "melee", "style": "slashing", "dice": 2,
                                                "weight": 1, "damage_type": "edged"}], "targets": {"g": {"ac": 12}}}
CT = {"ruleset": "cartyrion", "attacker": {"level": 3}, "strikes": [{"target": "g", "method": "melee", "die": "d6"}],
      "targets": {"g": {}}}


@pytest.mark.parametrize("make, words", [
    (lambda: fracas.resolve(ER, seed=1), "enchanted-realms attack seed=1"),
    (lambda: fracas.resolve(CT, seed=1), "cartyrion attack seed=1"),
    (lambda: fracas.resolve_bulk({"profiles": {"p": {"attacker": ER["attacker"], "strikes": [
        {k: v for k, v in ER["strikes"][0].items() if k != "target"}]}}, "targets": ER["targets"],
        "attacks": [{"profile": "p", "target": "g", "count": 10}]}, seed=2), "enchanted-realms bulk seed=2 attacks=10"),
    (lambda: fracas.roll_initiative({"combatants": [{"id": "a", "agility": 3}]}, seed=3),
     "enchanted-realms initiative seed=3"),
    (lambda: fracas.roll_initiative({"ruleset": "cartyrion"}, seed=4), "cartyrion roll seed=4"),
    (lambda: fracas.odds(ER), "enchanted-realms odds count=1"),
])
def test_every_result_has_a_repr_and_a_fresh_dict(make, words):
    result = make()
    assert words in repr(result)
    first = result.to_dict()
    first["mutated"] = True
    for value in first.values():
        if isinstance(value, dict):
            value["mutated"] = True
        if isinstance(value, list) and value and isinstance(value[0], dict):
            value[0]["mutated"] = True
    second = result.to_dict()
    assert "mutated" not in second
    assert all("mutated" not in v for v in second.values() if isinstance(v, dict))
    assert all("mutated" not in v[0] for v in second.values() if isinstance(v, list) and v and isinstance(v[0], dict))


@pytest.mark.parametrize("request_", [ER, CT])
def test_target_damage_is_a_property_of_every_attack_result(request_):
    result = fracas.resolve(request_, seed=5)
    assert result.target_damage == {tid: t["damage"] for tid, t in result.to_dict()["targets"].items()}
    assert result.total_damage == sum(result.target_damage.values())
