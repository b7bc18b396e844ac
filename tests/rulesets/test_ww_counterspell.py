"""WW-8 counterspells (issue 42): a contested skill check in the school of the spell being
cast, within 60 ft, only by a character trained in that school. Known answers with
injected dice, the refusals with their field paths, the exact chance, and the CLI (the bridge:
tests/bridge/test_ww_counterspell_bridge.py)."""

from fractions import Fraction

import pytest
from click.testing import CliRunner

import fracas

BASE = {"ruleset": "worldwalker", "school": "sorcery", "caster": {"id": "hexer", "skill": 5, "modifier": 1},
        "counterspeller": {"id": "ayla", "schools": {"sorcery": 4, "illusion": 2}, "modifier": 2, "distance": 30}}


def counter(rolls=None, seed=1, **changes):
    request = {**BASE, **changes}
    if rolls is not None:
        request["rolls"] = rolls
    return fracas.roll("counterspell", request, seed=seed).to_dict()


def with_counter(**fields):
    return {"counterspeller": {**BASE["counterspeller"], **fields}}


def test_ww8_the_counterspeller_must_beat_the_caster_a_tie_leaves_the_spell_cast():
    # both add 6: 10 + 6 against 10 + 6 is a tie; 11 + 6 beats it
    tie = counter([10, 10])
    assert (tie["counterspeller"]["total"], tie["caster"]["total"], tie["countered"]) == (16, 16, False)
    assert tie["outcome"] == "hexer's sorcery spell is cast: ayla fails to counter it"
    won = counter([11, 10])
    assert won["countered"] is True and won["outcome"] == "ayla counters hexer's sorcery spell: it fizzles"
    assert won["counterspeller"] == {"id": "ayla", "skill": 4, "modifier": 2, "distance": 30, "roll": 11, "total": 17}
    assert won["caster"] == {"id": "hexer", "skill": 5, "modifier": 1, "roll": 10, "total": 16}


def test_ww8_uses_the_skill_of_the_spells_school():
    """Against an illusion the counterspeller's Illusion rating counts, not its Sorcery."""
    result = counter([10, 10], school="illusion")
    assert result["counterspeller"]["skill"] == 2 and result["counterspeller"]["total"] == 14


def test_ww8_a_natural_20_is_a_20_not_the_attack_rolls_30():
    """WW-2's substitution belongs to attack rolls: a skill check's natural 20 is 20."""
    result = counter([20, 14], caster={"id": "hexer", "skill": 9, "modifier": 3})
    assert result["counterspeller"]["total"] == 26 and result["caster"]["total"] == 26 and not result["countered"]


def test_ww8_the_exact_chance_is_the_count_of_winning_pairs():
    # equal bonuses: the counterspeller wins 190 of the 400 pairs (the 20 ties are the caster's)
    result = counter([3, 4])
    assert result["p_countered_exact"] == "19/40" and result["p_countered"] == 0.475
    pairs = Fraction(sum(1 for a in range(1, 21) for b in range(1, 21) if a + 6 > b + 6), 400)
    assert pairs == Fraction(19, 40)
    sure = counter([1, 1], caster={"id": "hexer", "skill": -20})
    assert sure["p_countered_exact"] == "1/1" and sure["countered"] is True


def test_ww8_draw_order_counterspeller_then_caster_from_a_seed():
    rolled = counter(seed=77)
    replay = counter([rolled["counterspeller"]["roll"], rolled["caster"]["roll"]])
    assert replay["countered"] == rolled["countered"] and replay["injected"] is True


def test_ww8_within_60_ft_and_no_farther():
    assert counter([5, 5], **with_counter(distance=60))["counterspeller"]["distance"] == 60
    with pytest.raises(fracas.RulesError) as err:
        counter([5, 5], **with_counter(distance=61))
    assert err.value.path == "$.counterspeller.distance" and "within 60 ft (WW-8)" in err.value.reason
    with pytest.raises(fracas.SchemaError) as err:
        counter([5, 5], **with_counter(distance=-5))
    assert err.value.path == "$.counterspeller.distance"


def test_ww8_only_a_character_trained_in_the_school_can_counter_it():
    with pytest.raises(fracas.RulesError) as err:
        counter([5, 5], school="necromancy")
    assert err.value.path == "$.counterspeller.schools"
    assert err.value.reason == ("'ayla' has no training in 'necromancy' (its schools: illusion, sorcery): only a"
                                " character trained in a school can counter its spells (WW-8)")
    with pytest.raises(fracas.RulesError) as err:
        counter([5, 5], **with_counter(schools={"sorcery": 0}))
    assert err.value.path == "$.counterspeller.schools.sorcery" and "is no training" in err.value.reason


@pytest.mark.parametrize(("changes", "error", "path"), [
    ({"school": ""}, fracas.SchemaError, "$.school"),
    ({"caster": {"id": "ayla", "skill": 3}}, fracas.SchemaError, "$.counterspeller.id"),
    ({"caster": {"id": "", "skill": 3}}, fracas.SchemaError, "$.caster.id"),
    ({"caster": {"id": "hexer", "skill": 500}}, fracas.SchemaError, "$.caster.skill"),
    (with_counter(modifier=101), fracas.SchemaError, "$.counterspeller.modifier"),
    (with_counter(schools={"sorcery": "high"}), fracas.SchemaError, "$.counterspeller.schools[...]"),  # msgspec's path
    ({"counterspeller": {"id": "ayla", "schools": {"sorcery": 2}}}, fracas.SchemaError, "$.counterspeller.distance"),
    ({"caster": {"id": "hexer", "skill": 3, "level": 4}}, fracas.SchemaError, "$.caster"),  # "unknown field level"
    (with_counter(schools={f"school{i}": 1 for i in range(33)}), fracas.LimitError, "$.counterspeller.schools"),
])
def test_ww8_bad_input_names_its_field(changes, error, path):
    with pytest.raises(error) as err:
        counter([5, 5], **changes)
    assert err.value.path == path, err.value


def test_ww8_leftover_or_missing_faces_are_refused_at_rolls():
    with pytest.raises(fracas.DiceError) as err:
        counter([5])
    assert err.value.path == "$.rolls" and "the counterspell" in err.value.reason
    with pytest.raises(fracas.DiceError) as err:
        counter([5, 5, 5])
    assert err.value.path == "$.rolls"
    with pytest.raises(fracas.DiceError) as err:
        counter([21, 5])
    assert err.value.path == "$.rolls[0]"


def test_ww8_is_worldwalkers_own_kind():
    assert fracas.counterspell({**BASE, "rolls": [11, 10]}).to_dict()["countered"] is True
    with pytest.raises(fracas.RulesError) as err:
        fracas.roll("counterspell", {**BASE, "ruleset": "cartyrion"})
    assert err.value.path == "$.ruleset" and "does not resolve counterspell requests" in err.value.reason


def test_ww8_on_the_command_line():
    # imported here: fracas.cli's module __getattr__ loads the rulesets when asked for a dunder
    # (doctest's `__wrapped__` probe), which would change fracas's dict under the docstring test
    from fracas.cli import main

    runner = CliRunner()
    out = runner.invoke(main, ["counterspell", "--school", "sorcery", "--caster", "hexer", "--caster-skill", "5",
                               "--trained", "sorcery=3", "--distance", "40", "--rolls", "12,10"])
    assert out.exit_code == 0, out.output
    assert "hexer casts: d20 10 +5 skill +0 = 15" in out.output
    assert "counterspeller counters: d20 12 +3 skill +0 = 15" in out.output and "spell is cast" in out.output
    far = runner.invoke(main, ["counterspell", "--school", "sorcery", "--trained", "sorcery=3", "--distance", "70"])
    assert far.exit_code == 2 and "$.counterspeller.distance" in far.output and "(set it with --distance)" in far.output
    untrained = runner.invoke(main, ["counterspell", "--school", "illusion", "--trained", "sorcery=3",
                                     "--distance", "10"])
    assert untrained.exit_code == 2 and "(set it with --trained)" in untrained.output
    bad = runner.invoke(main, ["counterspell", "--school", "sorcery", "--trained", "sorcery", "--distance", "10"])
    assert bad.exit_code == 2 and "SCHOOL=RATING" in bad.output



def test_ww8_the_rules_pages_example_gives_what_the_page_says():
    """docs/rules/worldwalker.md: 11 + 4 + 2 = 17 against 10 + 5 + 1 = 16, countered, 19/40."""
    import json
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "rules" / "worldwalker.md").read_text()
    (block,) = [b for b in re.findall(r"```json\n(.*?)```", page, re.S) if '"school"' in b]
    result = fracas.roll("counterspell", json.loads(block)).to_dict()
    assert (result["counterspeller"]["total"], result["caster"]["total"], result["countered"]) == (17, 16, True)
    assert result["p_countered_exact"] == "19/40" and "19/40" in page


def test_ww8_fracas_replay_knows_a_counterspell(tmp_path):
    """A bare counterspell request with its seed, and a chat card's {request, result} export,
    replay as counterspell.roll (not as an attack)."""
    import json

    from fracas.cli import main

    request = {**BASE, "seed": 4}
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(request))
    card = tmp_path / "card.json"
    card.write_text(json.dumps({"request": request, "result": counter(seed=4)}))
    runner = CliRunner()
    out = runner.invoke(main, ["replay", str(bare), "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output[out.output.index("{"):])["countered"] == counter(seed=4)["countered"]
    matched = runner.invoke(main, ["replay", str(card)])
    assert matched.exit_code == 0, matched.output
