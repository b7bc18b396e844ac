"""Golden examples from the rules texts, with injected dice (seeds/001, "The Attack")."""

import pytest

from .helpers import attack, roll, strike


def test_long_sword_strength_2_deals_2_edged():
    """ER-4, ER-7: one d20, long sword (weight 1), Strength 2 (modifier 0): 1 + 1 + 0 = 2."""
    request = attack([strike(dice=1, weight=1)], attacker={"strength": 2})
    result = roll(request, rolls=[15])
    s = result["strikes"][0]
    assert s["dice"] == [{"face": 15, "total": 17, "hit": True, "source": "skill"}]
    assert (s["hits"], s["base"], s["modifier"], s["damage"]) == (1, 2, 0, 2)
    assert result["targets"]["goblin"]["by_type"] == {"edged": 2}
    assert result["total_damage"] == 2


@pytest.mark.parametrize("faces, damage", [
    ([15, 3], 3),    # one die hits: 1 + weight 1 + Strength modifier 1
    ([15, 16], 4),   # both hit: 2 + 1 + 1
    ([2, 3], 0),     # both miss: "none of the bonuses would count"
])
def test_slashing_2d20_strength_4_deals_3_to_4(faces, damage):
    """ER-4, ER-7, ER-9: style slashing 2d20, Strength 4 (+1), long sword: 3 to 4, or a complete miss."""
    request = attack([strike(dice=2, weight=1)], attacker={"strength": 4})
    result = roll(request, rolls=faces)
    assert result["strikes"][0]["damage"] == damage
    assert result["total_damage"] == damage


def test_typed_request_json_and_mapping_resolve_alike():
    """fracas.resolve takes a mapping, JSON text or bytes, or a typed request object."""
    import json

    import fracas

    mapping = attack([strike(dice=2, weight=1)], attacker={"strength": 4})
    typed = fracas.AttackRequest(
        attacker=fracas.Attacker(strength=4),
        strikes=[fracas.Strike(target="goblin", method="melee", style="slashing", dice=2, weight=1,
                               damage_type="edged")],
        targets={"goblin": fracas.Target(ac=14)})
    results = [fracas.resolve(r, seed=9).to_dict()
               for r in (mapping, json.dumps(mapping), json.dumps(mapping).encode(), typed)]
    assert all(r == results[0] for r in results)
