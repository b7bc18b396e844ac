"""`fracas initiative` (every ruleset) and `fracas morale` from the command line."""

import json

import pytest

import fracas

from .helpers import run


def test_er_initiative_from_flags_matches_the_engine():
    out = run(["initiative", "--combatant", "rogue=6", "--combatant", "ogre=2", "--seed", "3", "--json"])
    assert out.exit_code == 0, out.output
    expected = fracas.roll_initiative({"combatants": [{"id": "rogue", "agility": 6}, {"id": "ogre", "agility": 2}]},
                                      seed=3).to_dict()
    assert json.loads(out.output) == expected


@pytest.mark.parametrize("args, text", [
    (["--ruleset", "worldwalker", "--combatant", "a=2", "--combatant", "b=1"], "Worldwalker initiative"),
    (["--ruleset", "cartyrion", "--ambush", "party", "--rolls", "6"], "party act first; opponents surprised"),
    (["--ruleset", "old-school", "--side", "party", "--side", "goblins", "--wait", "wolves", "--rolls", "2,5"],
     "order: goblins → party → wolves"),
])
def test_other_rulesets_initiative(args, text):
    out = run(["initiative", *args, "--seed", "1"])
    assert out.exit_code == 0 and text in out.output, out.output


def test_initiative_from_a_request_file(tmp_path):
    path = tmp_path / "init.json"
    path.write_text(json.dumps({"ruleset": "old-school", "sides": [{"id": "a"}, {"id": "b"}], "ties": "simultaneous",
                                "rolls": [3, 3]}))
    out = run(["initiative", str(path), "--json"])
    assert json.loads(out.output)["order"] == [["a", "b"]]


def test_morale_check():
    out = run(["morale", "--morale", "7", "--rolls", "3,5"])
    assert out.exit_code == 0 and "= 8: breaks" in out.output
    out = run(["morale", "--morale", "12"])
    assert "fights to the death" in out.output


@pytest.mark.parametrize("args, message", [
    (["initiative"], "give the combatants"),
    (["initiative", "--combatant", "rogue"], "write ID=N"),
    (["initiative", "--ruleset", "old-school", "--side", "a"], "give the sides"),
    (["initiative", "--ruleset", "chess"], "unknown ruleset 'chess'"),
    (["morale", "--morale", "13"], "$.morale: morale 13 is out of range (2 to 12)"),
])
def test_bad_input_exits_2(args, message):
    out = run(args)
    assert out.exit_code == 2 and message in out.output, out.output


def test_a_ruleset_without_flags_for_the_command_asks_for_a_request_file(monkeypatch, tmp_path):
    """Issue 45, item 5: a ruleset that has initiative requests but gives `fracas initiative`
    no flags (a plug-in that declares none: here Worldwalker's, taken away) is a usage error
    naming the ruleset and what to give instead (exit 2), not a traceback; its request file
    still rolls."""
    worldwalker = fracas.rulesets.get("worldwalker")
    monkeypatch.setattr(type(worldwalker), "kind_cli_options", lambda self, kind: [])
    out = run(["initiative", "--ruleset", "worldwalker", "--seed", "1"])
    assert out.exit_code == 2, out.output
    assert "--ruleset worldwalker: Worldwalker" in out.output
    assert "gives `fracas initiative` no flags; give a request file (REQUEST" in out.output
    path = tmp_path / "init.json"
    path.write_text(json.dumps({"ruleset": "worldwalker", "combatants": [{"id": "a", "dex_mod": 1}]}))
    assert run(["initiative", str(path), "--seed", "1"]).exit_code == 0
