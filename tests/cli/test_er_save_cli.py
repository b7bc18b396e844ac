"""`fracas save`: Enchanted Realms saves and area effects from the command line (ER-14, ER-16)."""

import json

import pytest

import fracas

from .helpers import run

TARGETS = ["--target", "id=goblin,score=4,cover=half", "--target", "id=ogre,modifier=-1,condition=poisoned"]
REQUEST = {"save": "agility", "dc": 13, "area": True, "effect": "sleep smoke", "on_fail": ["asleep"],
           "targets": [{"id": "goblin", "score": 4, "cover": "half"},
                       {"id": "ogre", "modifier": -1, "conditions": ["poisoned"]}]}


def test_save_prints_each_roll_its_odds_and_what_the_failures_gained():
    """ER-16: the half-covered goblin's +2 is named; the poisoned ogre's two dice (ER-14)."""
    args = ["save", "--save", "agility", "--dc", "13", "--area", "--effect", "sleep smoke", "--on-fail", "asleep",
            *TARGETS, "--seed", "5"]
    out = run(args)
    assert out.exit_code == 0, out.output
    expected = fracas.save(REQUEST, seed=5).to_dict()
    assert "half cover +2" in out.output and "disadvantage: poisoned" in out.output
    for t in expected["targets"]:
        assert f"{t['p_save']:.1%} to save" in out.output
    assert f"{len(expected['saved'])} saved, {len(expected['failed'])} failed" in out.output
    data = json.loads(run([*args, "--json"]).output)
    data.pop("backend", None)
    expected.pop("backend", None)
    assert data == expected


def test_save_reads_a_request_file_and_injected_faces(tmp_path):
    path = tmp_path / "smoke.json"
    path.write_text(json.dumps(REQUEST))
    data = json.loads(run(["save", str(path), "--rolls", "16,3,15", "--json"]).output)
    assert data["saved"] == ["goblin"] and data["targets"][1]["conditions_after"] == ["poisoned", "asleep"]


@pytest.mark.parametrize("args, message", [
    (["--save", "agility", "--dc", "13"], "give --save, --dc and at least one --target"),
    (["--save", "agility", "--dc", "13", "--target", "id=a,luck=3"], "unknown key 'luck'"),
    (["--save", "agility", "--dc", "13", "--target", "id=a,score=3,cover=full"],
     "$.targets[0].cover: target 'a' has full cover"),
    (["--save", "agility", "--dc", "13", "--on-fail", "sleepy", "--target", "id=a,score=3"],
     "$.on_fail[0]: unknown condition 'sleepy'"),
])
def test_save_mistakes_name_the_option_or_field(args, message):
    out = run(["save", *args])
    assert out.exit_code == 2 and message in out.output, out.output


def test_replay_knows_a_saves_record(tmp_path):
    """A chat card's export of a save ({"request", "result"}) replays as a save, not an attack."""
    rolled = fracas.save({**REQUEST, "seed": 9}).to_dict()
    path = tmp_path / "card.json"
    path.write_text(json.dumps({"request": {**REQUEST, "seed": 9}, "result": rolled}))
    out = run(["replay", str(path)])
    assert out.exit_code == 0 and "matches" in out.output, out.output
    rolled["targets"][0]["saved"] = not rolled["targets"][0]["saved"]
    path.write_text(json.dumps({"request": {**REQUEST, "seed": 9}, "result": rolled}))
    assert run(["replay", str(path)]).exit_code == 1


def test_er14_charmed_by_on_the_attack_command():
    """ER-14: `--charmed-by NAME` refuses an attack on NAME, naming the flag; others are struck."""
    out = run(["attack", "--dice", "2", "--str", "4", "--ac", "12", "--target", "aria", "--charmed-by", "aria"])
    assert out.exit_code == 2 and "cannot attack its charmer" in out.output and "--charmed-by" in out.output
    out = run(["attack", "--dice", "2", "--str", "4", "--ac", "12", "--target", "bob", "--charmed-by", "aria",
               "--seed", "1", "--json"])
    assert out.exit_code == 0 and list(json.loads(out.output)["targets"]) == ["bob"], out.output
    out = run(["attack", "--dice", "2", "--str", "4", "--ac", "12", "--attacker-condition", "asleep"])
    assert out.exit_code == 2 and "asleep" in out.output and "(ER-14)" in out.output
