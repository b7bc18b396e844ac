"""`fracas touch`: Enchanted Realms touch attacks from the command line (ER Touch-based
Effects, ER-6, ER-14)."""

import json

import pytest

import fracas

from .helpers import run

EXAMPLE = {"touch": "sleight", "caster": {"agility": 4}, "target": {"id": "guard", "agility": 6, "other_ac": 1}}


def test_touch_prints_the_sleight_its_dc_and_its_odds():
    """The text's example: DC 13 (10 + 2 Agility + 1 Other AC), unnoticed from 17."""
    args = ["touch", "--touch", "sleight", "--caster", "agility=4", "--target", "id=guard,agility=6,other_ac=1",
            "--rolls", "16"]
    out = run(args)
    assert out.exit_code == 0, out.output
    assert "vs DC 13" in out.output and "touched, unnoticed" in out.output and "45.0% to touch" in out.output
    data = json.loads(run([*args, "--json"]).output)
    expected = fracas.roll("touch", {**EXAMPLE, "rolls": [16]}).to_dict()
    for d in (data, expected):
        d.pop("backend", None)
        d.pop("seed", None)
    assert data == expected


def test_touch_hit_from_flags_and_from_a_file(tmp_path):
    """ER-6: one die reaching the AC touches, for no damage."""
    out = run(["touch", "--touch", "hit", "--caster", "strength=4", "--target", "id=guard,ac=13", "--dice", "2",
               "--rolls", "9,3"])
    assert out.exit_code == 0 and "touched (no damage)" in out.output and "84.0% to touch" in out.output, out.output
    path = tmp_path / "touch.json"
    path.write_text(json.dumps({"touch": "hit", "caster": {"strength": 4}, "target": {"id": "guard", "ac": 13}}))
    data = json.loads(run(["touch", str(path), "--rolls", "8", "--json"]).output)
    assert data["touched"] is False and data["hit"]["dice"][0]["face"] == 8


@pytest.mark.parametrize("args, message", [
    (["--touch", "hit", "--caster", "strength=4"], "give --touch, --caster and --target"),
    (["--touch", "hit", "--caster", "strength=4", "--target", "id=g"], "$.target.ac"),
    (["--touch", "sleight", "--caster", "agility=4,luck=2", "--target", "id=g,agility=3"], "unknown key 'luck'"),
    (["--touch", "sleight", "--caster", "agility=4,condition=asleep", "--target", "id=g,agility=3"],
     "$.caster.conditions"),
])
def test_touch_mistakes_name_the_option_or_field(args, message):
    out = run(["touch", *args])
    assert out.exit_code == 2 and message in out.output, out.output


def test_replay_knows_a_touchs_record(tmp_path):
    rolled = fracas.roll("touch", {**EXAMPLE, "seed": 9}).to_dict()
    path = tmp_path / "card.json"
    path.write_text(json.dumps({"request": {**EXAMPLE, "seed": 9}, "result": rolled}))
    out = run(["replay", str(path)])
    assert out.exit_code == 0 and "matches" in out.output, out.output
