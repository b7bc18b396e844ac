"""`fracas drop`: Enchanted Realms "Getting the Drop" from the command line (ER-13)."""

import json

import pytest

import fracas

from .helpers import run

ATTACK = {"attacker": {"agility": 5}, "strikes": [{"target": "captain", "method": "range", "style": "archery",
                                                   "dice": 2, "damage_type": "piercing", "sneak": True}],
          "targets": {"captain": {"ac": 12}}}


def test_drop_from_a_file_holds_the_damage(tmp_path):
    path = tmp_path / "drop.json"
    path.write_text(json.dumps({"attack": ATTACK}))
    out = run(["drop", str(path), "--rolls", "15,9,3,12"])
    assert out.exit_code == 0 and "4 damage held over captain" in out.output, out.output
    data = json.loads(run(["drop", str(path), "--rolls", "15,9,3,12", "--json"]).output)
    assert data["held"] == 4 and data["inflicted"] == 0


def test_drop_inflicted_from_flags():
    """DC 20 two rounds on is 18; foul play at advantage; 7 held, halved to 3."""
    args = ["drop", "--held", "7", "--rounds", "2", "--victim", "id=captain,score=6,foul_play=true", "--rolls", "3,17"]
    out = run(args)
    assert out.exit_code == 0, out.output
    assert "vs DC 18" in out.output and "7 held → 3 dealt (halved)" in out.output and "43.8% for half" in out.output
    data = json.loads(run([*args, "--json"]).output)
    expected = fracas.roll("drop", {"inflict": {"held": 7, "rounds": 2, "victim": {"id": "captain", "score": 6,
                                                                                  "foul_play": True}},
                                    "rolls": [3, 17]}).to_dict()
    for d in (data, expected):
        d.pop("backend", None)
        d.pop("seed", None)
    assert data == expected


@pytest.mark.parametrize("args, message", [
    (["--held", "7"], "give --held and --victim"),
    (["--held", "7", "--victim", "id=c,luck=2"], "unknown key 'luck'"),
    (["--held", "7", "--victim", "id=c"], "$.inflict.victim.score"),
])
def test_drop_mistakes_name_the_option_or_field(args, message):
    out = run(["drop", *args])
    assert out.exit_code == 2 and message in out.output, out.output


def test_replay_knows_a_drops_record(tmp_path):
    request = {"attack": ATTACK, "seed": 9}
    path = tmp_path / "card.json"
    path.write_text(json.dumps({"request": request, "result": fracas.roll("drop", request).to_dict()}))
    out = run(["replay", str(path)])
    assert out.exit_code == 0 and "matches" in out.output, out.output
