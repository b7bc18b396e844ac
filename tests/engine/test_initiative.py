"""ER-18 initiative: d10 + Agility modifier + other, highest first, d20 roll-offs for ties."""

import pytest

import fracas


def test_order_by_total_with_injected_dice():
    """ER-18: d10 + Agility modifier (score 6 → +2) + other modifiers, highest first."""
    result = fracas.roll_initiative({"combatants": [
        {"id": "rogue", "agility": 6}, {"id": "ogre", "agility": 2, "bonus": -1}, {"id": "cleric", "agility_mod": 1}],
        "rolls": [3, 10, 7]}).to_dict()
    assert [(e["id"], e["roll"], e["modifier"], e["total"]) for e in result["order"]] == [
        ("ogre", 10, -1, 9), ("cleric", 7, 1, 8), ("rogue", 3, 2, 5)]
    assert result["injected"] is True


def test_ties_are_broken_by_repeated_d20_roll_offs():
    """ER-18: tied ogre and cleric roll d20s (tie 7-7 again, then 4 vs 15)."""
    result = fracas.roll_initiative({"combatants": [
        {"id": "ogre", "agility": 2, "bonus": -1}, {"id": "cleric", "agility_mod": 1}, {"id": "rogue", "agility": 6}],
        "rolls": [10, 8, 3, 7, 7, 4, 15]}).to_dict()
    order = result["order"]
    assert [e["id"] for e in order] == ["cleric", "ogre", "rogue"]
    assert order[0]["tiebreaks"] == [7, 15] and order[1]["tiebreaks"] == [7, 4]
    assert order[2]["tiebreaks"] == []


def test_seeded_initiative_reproduces():
    request = {"combatants": [{"id": str(i), "agility": i % 7} for i in range(30)]}
    a = fracas.roll_initiative(request, seed=99).to_dict()
    assert a == fracas.roll_initiative(request, seed=99).to_dict()
    totals = [e["total"] for e in a["order"]]
    assert totals == sorted(totals, reverse=True)


@pytest.mark.parametrize("request_, path", [
    ({"combatants": []}, "$.combatants"),
    ({"combatants": [{"id": "a"}]}, "$.combatants[0].agility"),
    ({"combatants": [{"id": "a", "agility": 2}, {"id": "a", "agility": 3}]}, "$.combatants[1].id"),
    ({"combatants": [{"id": "a", "agility": 2}], "rolls": [11]}, "$.rolls[0]"),
    ({"combatants": [{"id": "a", "agility": 2}], "rolls": [5, 5]}, "$.rolls"),
    ({"combatants": [{"id": "a", "agility": 2, "speed": 3}]}, "$.combatants[0]"),
])
def test_initiative_errors(request_, path):
    with pytest.raises(fracas.RequestError) as caught:
        fracas.roll_initiative(request_)
    assert caught.value.path == path


@pytest.mark.parametrize("rolls, at, message", [
    ([11, 5], "$.rolls[0]", "face 11 is out of range for the d10 drawn there (1 to 10)"),
    ([5, 5, 7, 21], "$.rolls[3]", "face 21 is out of range (1 to 20)"),
])
def test_er18_a_face_out_of_range_names_the_die_it_was_drawn_for(rolls, at, message):
    # ER-18: the initiative dice are d10s, the roll-offs d20s (the second request ties 5-5,
    # then 7 against a face no die has)
    with pytest.raises(fracas.DiceError) as caught:
        fracas.roll_initiative({"combatants": [{"id": "a", "agility_mod": 0}, {"id": "b", "agility_mod": 0}],
                                "rolls": rolls})
    assert (caught.value.path, caught.value.reason) == (at, message)
