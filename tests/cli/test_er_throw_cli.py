"""`fracas throw`: Enchanted Realms throwing items and throwing magic from the command line
("ER Throwing Items", ER-6, ER-10, ER-12)."""

import json

import fracas

from .helpers import run

REQUEST = {"item": "holy water", "skill": "hurling", "target": {"id": "ghoul", "ac": 14, "vulnerable": ["smite"]}}
FLAGS = ["throw", "--item", "holy water", "--skill", "hurling", "--target", "id=ghoul,ac=14,vulnerable=smite"]


def test_throw_prints_the_dice_the_damage_and_the_odds():
    """ER Throwing Items: hurling's 3 d20, two hit, one d4 of smiting doubled (ER-10)."""
    out = run([*FLAGS, "--rolls", "15,3,18,2"])
    assert out.exit_code == 0, out.output
    expected = fracas.throw({**REQUEST, "rolls": [15, 3, 18, 2]}).to_dict()
    assert expected["damage"]["damage"] == 4
    assert "Thrown holy water · ghoul · skill hurling" in out.output
    assert "3d20 +0 vs AC 14: 15✓ 3✗ 18✓" in out.output
    assert "damage: d4 2 = 2 → 4 smite (vulnerable: doubled)" in out.output
    assert "holy water: smiting damage; limited victims" in out.output
    assert f"hit: {expected['text']}" in out.output and f"P(hit) {expected['p_hit']:.1%}" in out.output


def test_throw_json_is_the_api_result():
    data = json.loads(run([*FLAGS, "--seed", "5", "--json"]).output)
    expected = fracas.throw(REQUEST, seed=5).to_dict()
    data.pop("backend", None)
    expected.pop("backend", None)
    assert data == expected


def test_throwing_magic_from_flags_shows_the_agility_and_the_dropped_die():
    """ER Throwing Items (throwing magic): hurling adds the Agility score; ER-12: poisoned, the
    highest of two dropped."""
    out = run(["throw", "--item", "magic", "--skill", "hurling", "--thrower", "agility=7,condition=poisoned",
               "--damage", "dice=2,faces=6,damage_type=fire", "--target", "id=ghoul,ac=14", "--rolls", "17,8,3,4"])
    assert out.exit_code == 0, out.output
    assert "Throwing magic" in out.output and "2d20 +7 (Agility +7) vs AC 14 · disadvantage: 17- 8✓" in out.output
    assert "damage: d6 3/4 = 7 → 7 fire" in out.output


def test_throw_reads_a_request_file(tmp_path):
    path = tmp_path / "throw.json"
    path.write_text(json.dumps({"item": "bonfire blend", "target": {"id": "rat", "ac": 9}}))
    out = run(["throw", str(path), "--rolls", "9"])
    assert out.exit_code == 0, out.output
    assert "damage: +1 = 1 → 1 fire" in out.output and "very ineffective" in out.output


def test_bad_input_names_the_field_or_the_option():
    """ER Throwing Items: an area smoke goes to the save kind; a hurling spell needs the Agility score."""
    out = run(["throw", "--item", "sleep smoke", "--target", "id=ghoul,ac=14"])
    assert out.exit_code != 0 and "$.item" in out.output and "save kind" in out.output
    out = run(["throw", "--item", "magic", "--skill", "hurling", "--damage", "dice=1", "--target", "id=g,ac=14"])
    assert out.exit_code != 0 and "$.thrower.agility" in out.output
    out = run(["throw", "--item", "acid splash", "--target", "id=g,ac=14,colour=red"])
    assert out.exit_code != 0 and "--target" in out.output and "colour" in out.output
    out = run(["throw", "--item", "acid splash"])
    assert out.exit_code != 0 and "--target" in out.output


def test_replay_knows_a_throw_record(tmp_path):
    """A chat card's export of a throw ({"request", "result"}) replays as a throw, not an attack."""
    rolled = fracas.throw({**REQUEST, "seed": 9}).to_dict()
    path = tmp_path / "card.json"
    path.write_text(json.dumps({"request": {**REQUEST, "seed": 9}, "result": rolled}))
    out = run(["replay", str(path)])
    assert out.exit_code == 0 and "matches" in out.output, out.output
