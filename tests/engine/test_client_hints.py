"""A ruleset's `[client]` hints (its manifest; fracas.rulesets.manifest.CLIENT_KEYS): what the
Roll20 Mod draws a ruleset's card, bars, fight and options from instead of naming it (issue 45,
item 6). The manifest checks their keys and types; the spec checks every field they name is
one the ruleset's requests or results have (fracas.spec.generate.client_hints), so the Mod
never reads a field that is not there."""

from __future__ import annotations

import copy

import pytest

from fracas.spec import generate



def test_the_built_in_hints_are_what_contract_js_carries():
    # CT-4's split, WW-2's TN and the old-school AC (OS-6), CT-1's two sides and party.
    client = generate.contract_facts()["CLIENT"]
    assert client["cartyrion"]["split"] == ["stamina", "injury"]
    assert (client["cartyrion"]["fight_sides"], client["cartyrion"]["fight_party"]) == (2, "party")
    assert client["worldwalker"]["against"] == "tn" and client["old-school"]["against"] == "ac"
    assert set(client["worldwalker"]["switches"]) == {"two_weapon"}  # WW-6
    assert set(client["worldwalker"]["choices"]) == {"reaction"}  # WW-5
    assert set(client["enchanted-realms"]) == {"initiative", "initiative_rule"}  # ER-18, its own card


def _ruleset(name):
    facts = generate.contract_facts()
    return facts["CLIENT"][name], facts["STRUCTS"][name], facts["RESULTS"][name]


def _check(name, hints, structs, layouts):
    # The generator's check of a ruleset whose manifest carries `hints` (as contract_facts calls it).
    from types import SimpleNamespace

    from fracas import rulesets

    ruleset = SimpleNamespace(name=name, manifest=SimpleNamespace(client=hints),
                              request_types=rulesets.get(name).request_types)
    generate.client_hints(ruleset, structs, layouts)


@pytest.mark.parametrize("name, change, message", [
    ("old-school", lambda h: h.update(against="tn"), r"old-school's manifest \[client\] against: 'tn' is not a field"),
    ("cartyrion", lambda h: h.update(split=["stamina", "wounds"]), r"split: 'wounds' is not a field of its attack"),
    ("cartyrion", lambda h: h.update(fight_sides=-1), r"fight_sides: a count of sides"),
    ("worldwalker", lambda h: h["switches"]["two_weapon"]["members"].update(off=["offhand", False]),
     r"switches.two_weapon.members.off: two_weapon has no field 'offhand'"),
    ("worldwalker", lambda h: h["switches"].update(three_weapon=h["switches"]["two_weapon"]),
     r"switches.three_weapon: attacker has no nested field 'three_weapon'"),
    ("worldwalker", lambda h: h["choices"]["reaction"].update(value="total"),
     r"choices.reaction.value: reaction has no field 'total'"),
])
def test_a_hint_naming_a_field_the_ruleset_lacks_is_refused_naming_it(name, change, message):
    hints, structs, layouts = _ruleset(name)
    hints = copy.deepcopy(hints)
    _check(name, hints, structs, layouts)  # as shipped: fine
    change(hints)
    with pytest.raises(ValueError, match=message):
        _check(name, hints, structs, layouts)
