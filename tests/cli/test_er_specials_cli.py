"""`fracas compete`, `fracas impale` and the attack flags of ER-17, ER-20 … ER-22."""

import json

import pytest

import fracas

from .helpers import run

SIDES = ["--challenger", "id=ogre,strength=6,size=large,speed=30",
         "--defender", "id=aria,agility=5,attribute=agility,speed=40"]


def test_compete_prints_both_sides_odds_and_the_outcome():
    """ER-19: the card names the modifiers, each side's exact chance and every roll."""
    out = run(["compete", "--contest", "grapple", *SIDES, "--slick", "--seed", "4"])
    assert out.exit_code == 0, out.output
    expected = fracas.compete({"contest": "grapple", "slick": True,
                               "challenger": {"id": "ogre", "strength": 6, "size": "large", "speed": 30},
                               "defender": {"id": "aria", "agility": 5, "attribute": "agility", "speed": 40}},
                              seed=4).to_dict()
    assert f"{expected['challenger']['win_chance']:.1%} to win" in out.output
    assert "faster by 10 ft +1" in out.output and "slick ground +3" in out.output
    assert expected["outcome"] in out.output
    data = json.loads(run(["compete", "--contest", "grapple", *SIDES, "--slick", "--seed", "4", "--json"]).output)
    assert data == expected


@pytest.mark.parametrize("args, message", [
    (["--challenger", "id=ogre,might=6", "--defender", "id=a,strength=1"], "unknown key 'might'"),
    (["--challenger", "id=ogre,strength=six", "--defender", "id=a,strength=1"], "strength='six' is not a whole number"),
    (["--challenger", "id=ogre,strength=6"], "give both sides"),
    (["--contest", "trip", "--challenger", "id=o,agility=3,attribute=agility", "--defender", "id=a,strength=1"],
     "$.challenger.attribute: a trip is a Strength competition"),
])
def test_compete_mistakes_name_the_option_or_field(args, message):
    out = run(["compete", *args])
    assert out.exit_code == 2 and message in out.output, out.output


def test_compete_savage_form_and_the_grapplers_resistance_from_the_flags():
    """ER Grappling: Uncommon Conditions: savage=claw:edged (claws over a bite) on an escaping
    victim; the grappler's ER-10 resistant=...; the escape lost calls for the DC 11 feat."""
    args = ["compete", "--contest", "escape", "--challenger",
            "id=wolf,strength=4,savage=bite:piercing:poison,savage=claw:edged",
            "--defender", "id=ogre,strength=8,vulnerable=edged", "--rolls", "9,11,5"]
    out = run(args)
    assert out.exit_code == 0, out.output
    assert "savage form: wolf's claw (edged) · raw 9 · 2 damage to ogre" in out.output
    assert "ogre's Strength feat DC 12: 5→8 · lets go" in out.output
    data = json.loads(run([*args, "--json"]).output)
    assert data["incidental"]["release"]["held"] is False
    assert data == fracas.compete({"contest": "escape", "rolls": [9, 11, 5], "challenger": {
        "id": "wolf", "strength": 4, "savage_form": [{"strike": "bite", "type": "piercing", "poison": True},
                                                     {"strike": "claw", "type": "edged"}]},
        "defender": {"id": "ogre", "strength": 8, "vulnerable": ["edged"]}}).to_dict() | {"seed": data["seed"]}


@pytest.mark.parametrize("args, message", [
    (["--contest", "grapple", "--challenger", "id=o,strength=3", "--defender", "id=w,strength=1,savage=claw"],
     "savage='claw' is not STRIKE:TYPE"),
    (["--contest", "trip", "--challenger", "id=o,strength=3", "--defender", "id=w,strength=1,savage=claw:edged"],
     "$.defender.savage_form: savage form counts only in a grapple or an escape"),
    (["--contest", "grapple", "--challenger", "id=o,strength=3", "--defender", "id=w,strength=1,savage=claw:wood"],
     "$.defender.savage_form[0].type"),
])
def test_compete_savage_form_mistakes_name_the_option_or_field(args, message):
    out = run(["compete", *args])
    assert out.exit_code == 2 and message in out.output, out.output


def test_impale_with_flags_and_a_charge_file(tmp_path):
    """ER-23: the charge file is resolved unless the impalement drops the charger."""
    charge = tmp_path / "charge.json"
    charge.write_text(json.dumps({"attacker": {"strength": 6}, "strikes": [
        {"target": "pike", "method": "melee", "style": "bludgeoning", "dice": 2, "damage_type": "blunt"}],
        "targets": {"pike": {"ac": 13}}}))
    for seed in range(40):
        out = run(["impale", "--str", "4", "--forte", "--charger", "id=ogre,ac=12,body=6", "--closed", "30",
                   "--charge", str(charge), "--seed", str(seed), "--json"])
        assert out.exit_code == 0, out.output
        data = json.loads(out.output)
        assert data["dice"] == 4 and (data["charge"] is None) == data["charge_void"]
    text = run(["impale", "--str", "4", "--charger", "id=ogre,ac=12,body=6", "--closed", "30", "--seed", "1"]).output
    assert "Impalement · seed 1 · 3d20 · ogre closed 30 ft" in text


@pytest.mark.parametrize("args, message", [
    (["--closed", "20"], "$.charger.closed: impalement needs a charger that closed 25 ft or more"),
    (["--closed", "30", "--charger", "id=ogre,ac=12"], "$.charger: object missing required field body"),
    (["--charger", "id=ogre,ac=12,body=5"], "give --str, --charger"),
])
def test_impale_mistakes(args, message):
    base = ["impale", "--str", "4"]
    if "--charger" not in args:
        base += ["--charger", "id=ogre,ac=12,body=5"]
    out = run(base + args)
    assert out.exit_code == 2 and message in out.output, out.output


def test_attack_flags_for_the_table_situations():
    """ER-17 --nearby, ER-20 --flee, ER-21 --grappling-str, ER-22 --defense-rolls build the request."""
    out = run(["attack", "--dice", "2", "--agi", "4", "--style", "archery", "--ac", "30", "--friendly-fire",
               "--nearby", "id=bob,ac=12,resistant=piercing", "--seed", "2", "--json"])
    data = json.loads(out.output)
    assert data["strikes"][0]["friendly_fire"] is True and "bob" in data["targets"]
    out = run(["attack", "--dice", "3", "--str", "4", "--ac", "12", "--flee", "80", "--seed", "2", "--json"])
    assert json.loads(out.output)["flee"] == {"moved": 80, "speed": "rapid", "dice": 1}
    out = run(["attack", "--dice", "3", "--str", "4", "--ac", "5", "--grappling-str", "6", "--seed", "2", "--json"])
    assert json.loads(out.output)["targets"]["target"]["grapple_release"]["dc"] >= 11
    out = run(["attack", "--dice", "3", "--str", "4", "--ac", "14", "--defense-rolls", "--seed", "2", "--json"])
    assert json.loads(out.output)["strikes"][0]["defense_dc"] == 25


@pytest.mark.parametrize("args, message", [
    (["--flee", "10"], "$.flee.moved: no flee attack: 10 ft is a cautious move"),
    (["--nearby", "ac=12"], "has no id="),
    (["--nearby", "id=bob,ac=x"], "ac='x' is not a whole number"),
    (["--friendly-fire"], "friendly fire is a rule for shots at range"),
])
def test_attack_flag_mistakes(args, message):
    out = run(["attack", "--dice", "2", "--str", "4", "--ac", "12", *args])
    assert out.exit_code == 2 and message in out.output, out.output
