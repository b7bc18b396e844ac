"""`fracas save --ruleset old-school`: old-school saving throws from the command line (OS-5,
and the decision "Saving throws" on docs/rules/old-school.md)."""

import json

import pytest

import fracas

from .helpers import run

REQUEST = {"ruleset": "old-school", "category": "spells", "modifier": -2, "effect": "hold person",
           "targets": [{"id": "cleric", "saves": {"spells": 15, "breath": 16}},
                       {"id": "fighter", "save": 14, "modifier": 1}]}
FLAGS = ["save", "--ruleset", "old-school", "--modifier", "-2", "--effect", "hold person",
         "--target", "id=fighter,save=14,modifier=1", "--target", "id=thief,save=13"]


def test_save_old_school_prints_each_roll_its_odds_and_who_failed():
    out = run([*FLAGS, "--seed", "5"])
    assert out.exit_code == 0, out.output
    expected = fracas.save({"ruleset": "old-school", "modifier": -2, "effect": "hold person",
                            "targets": [{"id": "fighter", "save": 14, "modifier": 1},
                                        {"id": "thief", "save": 13}]}, seed=5).to_dict()
    assert "Old-school saving throws against hold person, -2 to every roll" in out.output
    assert out.output.count("(30% to save)") == 2  # fighter: faces 15+ at -1 against 14; thief: 15+ at -2 against 13
    assert f"{len(expected['saved'])} saved, {len(expected['failed'])} failed" in out.output
    data = json.loads(run([*FLAGS, "--seed", "5", "--json"]).output)
    data.pop("backend", None)
    expected.pop("backend", None)
    assert data == expected


def test_save_old_school_injected_faces_natural_20_and_1():
    data = json.loads(run([*FLAGS, "--rolls", "20,1", "--json"]).output)
    assert data["saved"] == ["fighter"] and data["failed"] == ["thief"]
    assert [t["natural"] for t in data["targets"]] == [20, 1]


def test_save_reads_an_old_school_request_file_with_a_table_by_category(tmp_path):
    path = tmp_path / "hold.json"
    path.write_text(json.dumps(REQUEST))
    data = json.loads(run(["save", str(path), "--rolls", "17,14", "--json"]).output)
    assert data["saved"] == ["cleric"] and data["failed"] == ["fighter"] and data["targets"][0]["save"] == 15


@pytest.mark.parametrize("args, message", [
    (["--ruleset", "old-school"], "give at least one --target id=fighter,save=14"),
    (["--ruleset", "old-school", "--target", "id=a,score=3"], "unknown key 'score'"),
    (["--ruleset", "old-school", "--target", "id=a"], "$.targets[0].save: give the creature's saving throw"),
    (["--ruleset", "old-school", "--target", "id=a,save=12", "--modifier", "30"], "$.modifier"),
    (["--ruleset", "worldwalker", "--save", "agility", "--dc", "12", "--target", "id=a,score=3"],
     "the Worldwalker ruleset has no save requests (rulesets with them: enchanted-realms, old-school)"),
])
def test_save_old_school_mistakes_name_the_option_or_field(args, message):
    out = run(["save", *args])
    assert out.exit_code == 2 and message in out.output, out.output


def test_replay_knows_an_old_school_saves_record(tmp_path):
    rolled = fracas.save({**REQUEST, "seed": 9}).to_dict()
    path = tmp_path / "card.json"
    path.write_text(json.dumps({"request": {**REQUEST, "seed": 9}, "result": rolled}))
    out = run(["replay", str(path)])
    assert out.exit_code == 0 and "matches" in out.output, out.output
