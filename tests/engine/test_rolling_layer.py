"""The rulesets' layer rolls a kind as the drive does (issue 45 item 5: one-way layers).

A ruleset's own commands (`fracas morale`, `fracas compete`, `fracas counterspell`, …) roll
with `fracas.rulesets.cmdkit.roll` (`fracas.rulesets.rolling`), below the drive and the
`fracas` facade: the same request and seed must give the same result, the same dice and
the same errors as `fracas.roll`, for every kind every built-in ruleset rolls."""

from __future__ import annotations

import copy

import pytest

import fracas
from fracas import rulesets
from fracas.rulesets import cmdkit, rolling


def samples():
    """(ruleset, kind, request): each built-in manifest's sample request of every kind
    rolled one at a time (bulk aside: `fracas.resolve_bulk` rolls it)."""
    found = []
    for manifest in rulesets.manifests():
        for kind, request in sorted(manifest.requests.items()):
            if kind != "bulk":
                found.append(pytest.param(kind, request, id=f"{manifest.name}-{kind}"))
    return found


SAMPLES = samples()


def outcome(call, kind, request, seed):
    try:
        return call(kind, copy.deepcopy(request), seed=seed).to_dict()
    except fracas.RequestError as exc:
        return ("error", type(exc).__name__, exc.path, str(exc))


def test_the_samples_cover_each_rulesets_own_kinds():
    # OS-4 morale, ER-19 compete, ER-23 impale, WW-8 counterspell: the kinds the rulesets'
    # own commands roll are among the samples, or this test proves nothing about them.
    kinds = {param.values[0] for param in SAMPLES}
    assert {"morale", "compete", "impale", "counterspell", "initiative", "attack"} <= kinds


@pytest.mark.parametrize("kind,request_", SAMPLES)
@pytest.mark.parametrize("seed", [1, 2**63 + 5])
def test_the_rulesets_layer_rolls_what_fracas_roll_rolls(kind, request_, seed):
    # Each ruleset's rules as its manifest's sample exercises them (ER, WW, CT, OS).
    expected = outcome(fracas.roll, kind, request_, seed)
    assert outcome(rolling.roll, kind, request_, seed) == expected
    assert outcome(cmdkit.roll, kind, request_, seed) == expected
    assert outcome(rolling.roll, kind, orjson_text(request_), seed) == expected  # JSON text too


def orjson_text(request):
    import orjson

    return orjson.dumps(request).decode()


def test_injected_dice_and_their_errors_are_the_drives():
    # OS-4: a morale check rolls 2d6; injected faces are used in draw order, and a face
    # left over is a DiceError at $.rolls, in both layers alike.
    request = {"ruleset": "old-school", "morale": 8, "modifier": 0, "rolls": [6, 5]}
    ours_dict, theirs_dict = rolling.roll("morale", request).to_dict(), fracas.roll("morale", request).to_dict()
    assert ours_dict.pop("seed") != theirs_dict.pop("seed")  # no seed given: each drew its own
    assert ours_dict == theirs_dict and ours_dict["injected"]
    too_many = {**request, "rolls": [6, 5, 4]}
    with pytest.raises(fracas.DiceError) as ours:
        rolling.roll("morale", too_many)
    with pytest.raises(fracas.DiceError) as theirs:
        fracas.roll("morale", too_many)
    assert (ours.value.path, str(ours.value)) == (theirs.value.path, str(theirs.value)) == (
        "$.rolls", str(theirs.value))


def test_bad_input_is_refused_naming_the_field():
    # OS-4 Morale is 2-12; a seed must be a 64-bit whole number; a ruleset without the kind
    # is refused at $.ruleset (Worldwalker has no morale check); a bulk kind goes elsewhere.
    with pytest.raises(fracas.SchemaError) as err:
        rolling.roll("morale", {"ruleset": "old-school", "morale": "eight"})
    assert err.value.path == "$.morale"
    with pytest.raises(fracas.SchemaError) as err:
        rolling.roll("morale", {"ruleset": "old-school", "morale": 8}, seed=-1)
    assert err.value.path == "seed"
    with pytest.raises(fracas.RequestError) as err:
        rolling.roll("morale", {"ruleset": "worldwalker", "morale": 8})
    assert err.value.path == "$.ruleset"
    with pytest.raises(fracas.SchemaError) as err:
        rolling.roll("bulk", {"ruleset": "old-school"})
    assert err.value.path == "$"
