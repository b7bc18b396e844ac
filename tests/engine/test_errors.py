"""Bad input: every invalid or impossible request names its field path and reason."""

import copy
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fracas

BASE = {
    "attacker": {"strength": 4, "agility": 3},
    "strikes": [
        {"target": "goblin", "method": "melee", "style": "slashing", "dice": 2, "damage_type": "edged"},
        {"target": "orc", "method": "range", "style": "archery", "dice": 1, "damage_type": "piercing"},
    ],
    "targets": {"goblin": {"ac": 14}, "orc": {"ac": 12}},
}


def edit(path, value, delete=False):
    """A copy of BASE with the value at `path` (a tuple of keys) replaced or deleted."""
    request = copy.deepcopy(BASE)
    node = request
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return request


CASES = [
    # (request, error class, path, text in the reason)
    (edit(("strikes", 0, "dice"), 6), fracas.SchemaError, "$.strikes[0].dice", "6 skill dice, the most is 5 (ER-3)"),
    (edit(("strikes", 1, "dice"), 0), fracas.SchemaError, "$.strikes[1].dice", "at least 1"),
    (edit(("strikes", 0, "dice"), "2"), fracas.SchemaError, "$.strikes[0].dice", "expected int, got str"),
    (edit(("strikes", 0, "dice"), True), fracas.SchemaError, "$.strikes[0].dice", "expected int, got bool"),
    (edit(("strikes", 0, "method"), "magic"), fracas.SchemaError, "$.strikes[0].method", "invalid enum value 'magic'"),
    (edit(("strikes", 0, "style"), "kung-fu"), fracas.SchemaError, "$.strikes[0].style", "unknown style 'kung-fu'"),
    (edit(("strikes", 0, "damage_type"), "sonic"), fracas.SchemaError, "$.strikes[0].damage_type", "unknown damage type 'sonic'"),
    (edit(("strikes", 0, "weight"), 3), fracas.SchemaError, "$.strikes[0].weight", "weight 3 is out of range (0 to 2)"),
    (edit(("strikes", 1, "weight"), 1), fracas.SchemaError, "$.strikes[1].weight", "ranged weapons have no weight"),
    (edit(("strikes", 0, "crit_range"), 1), fracas.SchemaError, "$.strikes[0].crit_range", "crit range 1 is out of range"),
    (edit(("strikes", 1, "crit_range"), 19), fracas.SchemaError, "$.strikes[1].crit_range", "cannot crit unless `crit` is true (ER-8)"),
    (edit(("strikes", 0, "target"), "gobin"), fracas.SchemaError, "$.strikes[0].target", "unknown target 'gobin'"),
    (edit(("strikes", 0, "sneak"), "yes"), fracas.SchemaError, "$.strikes[0].sneak", "invalid enum value 'yes'"),
    (edit(("strikes", 0, "dmg"), 1), fracas.SchemaError, "$.strikes[0]", "unknown field dmg"),
    (edit(("strikes", 0, "target"), None, delete=True), fracas.SchemaError, "$.strikes[0]", "missing required field target"),
    (edit(("strikes",), []), fracas.SchemaError, "$.strikes", "no strikes"),
    (edit(("strikes",), {"a": 1}), fracas.SchemaError, "$.strikes", "expected array, got object"),
    (edit(("attacker", "strenght"), 4), fracas.SchemaError, "$.attacker", "unknown field strenght"),
    (edit(("attacker", "strength"), None, delete=True), fracas.SchemaError, "$.attacker.strength",
     "the melee strike at $.strikes[0] needs the attacker's strength score (ER-4)"),
    (edit(("attacker", "size"), "enormous"), fracas.SchemaError, "$.attacker.size", "unknown size 'enormous'"),
    (edit(("attacker", "conditions"), ["prone", "sleepy"]), fracas.SchemaError, "$.attacker.conditions[1]", "unknown condition 'sleepy'"),
    (edit(("attacker", "conditions"), ["stunned"]), fracas.RulesError, "$.attacker.conditions", "a stunned attacker cannot attack (ER-14)"),
    (edit(("attacker", "obscurement"), -2), fracas.SchemaError, "$.attacker.obscurement", "out of range (0 to 20)"),
    (edit(("targets",), {}), fracas.SchemaError, "$.targets", "no targets"),
    (edit(("targets", "goblin", "ac"), None, delete=True), fracas.SchemaError, "$.targets.goblin", "missing required field ac"),
    (edit(("targets", "orc", "resistant"), ["edged", "wet"]), fracas.SchemaError, "$.targets.orc.resistant[1]", "unknown damage type 'wet'"),
    (edit(("targets", "orc", "cover"), "full"), fracas.RulesError, "$.strikes[1].target", "full cover: no ranged attack is possible (ER-16)"),
    (edit(("targets", "orc", "ac_by_type"), {"laser": 3}), fracas.SchemaError, "$.targets.orc.ac_by_type", "unknown damage type 'laser'"),
    (edit(("targets", "pc-1"), {"ac": "high"}), fracas.SchemaError, "$.targets['pc-1'].ac", "expected int, got str"),
    (edit(("targets", "goblin", "conditions"), ["invisible"]) | {"strikes": [dict(BASE["strikes"][0], sneak=True)]},
     fracas.RulesError, "$.strikes[0].sneak", "a sneak attack cannot be made at disadvantage (disadvantage from: target invisible) (ER-13)"),
    (edit(("seed",), -1), fracas.SchemaError, "$.seed", "seed -1 is out of range"),
    (edit(("seed",), 2**64), fracas.SchemaError, "$.seed", "out of range"),
    (edit(("ruleset",), "chess"), fracas.SchemaError, "$.ruleset", f"unknown ruleset 'chess' (one of: {', '.join(fracas.rulesets())})"),
    (edit(("ruleset",), "d&d"), fracas.SchemaError, "$.ruleset", "unknown ruleset 'd&d'"),
    (edit(("rolls",), []), fracas.SchemaError, "$.rolls", "an empty list"),
    (edit(("rolls",), [12, 21]), fracas.DiceError, "$.rolls[1]", "face 21 is out of range (1 to 20)"),
    (edit(("rolls",), [12, 12]), fracas.DiceError, "$.rolls", "2 faces given, but $.strikes[1] needs another die (position 2"),
    (edit(("rolls",), [12, 12, 12, 12]), fracas.DiceError, "$.rolls", "used only 3: remove the extra faces"),
    (edit(("rolls",), [20, 12, 15, 5, 12]), fracas.DiceError, "$.rolls[3]", "face 5 is out of range for the d3"),
    ([1, 2], fracas.SchemaError, "$", "expected a JSON object, got list"),
    ('{"attacker": ', fracas.SchemaError, "$", "invalid JSON"),
]


@pytest.mark.parametrize("request_, error, path, reason", CASES, ids=[f"{c[2]}:{c[3][:30]}" for c in CASES])
def test_invalid_request_names_path_and_reason(request_, error, path, reason):
    with pytest.raises(error) as caught:
        fracas.resolve(request_, seed=5)
    assert caught.value.path == path
    assert reason in caught.value.reason
    assert str(caught.value) == f"{path}: {caught.value.reason}"
    assert isinstance(caught.value, fracas.RequestError)


def test_the_table_is_large_enough():
    assert len(CASES) >= 25


def test_keyword_seed_is_checked_and_wins():
    with pytest.raises(fracas.SchemaError) as caught:
        fracas.resolve(BASE, seed=-3)
    assert caught.value.path == "seed"
    request = dict(BASE, seed=11)
    assert fracas.resolve(request, seed=12).seed == 12
    assert fracas.resolve(request).seed == 11


def test_errors_never_mutate_the_request():
    request = edit(("strikes", 0, "dice"), 6)
    before = copy.deepcopy(request)
    with pytest.raises(fracas.SchemaError):
        fracas.resolve(request)
    assert request == before


@given(st.text(max_size=12) | st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True))
@settings(max_examples=400, deadline=None)
def test_key_paths_are_dotted_exactly_for_plain_names(key):
    """A key is written `.key` when it is a plain ASCII name (as the JS resolver's keyPath
    decides with /^[A-Za-z_][A-Za-z0-9_]*$/), else `['key']` with \\ and ' escaped."""
    from fracas.requests import key_path

    plain = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) is not None
    escaped = key.replace("\\", "\\\\").replace("'", "\\'")
    assert key_path("$.targets", key) == (f"$.targets.{key}" if plain else f"$.targets['{escaped}']")


def test_key_paths_of_awkward_names():
    from fracas.requests import key_path

    assert key_path("$.targets", "orc") == "$.targets.orc"
    assert key_path("$.targets", "orc 2") == "$.targets['orc 2']"
    assert key_path("$.targets", "élan") == "$.targets['élan']"  # a Python name, not a plain one
    assert key_path("$.targets", "2orc") == "$.targets['2orc']"
    assert key_path("$.targets", "orc\n") == "$.targets['orc\n']"
    assert key_path("$.targets", "it's") == "$.targets['it\\'s']"
