"""The GM's everyday CLI: more strikes and the attacker's conditions as flags, kept
profiles (`--as`), and a config file of defaults (issue: a newcomer's first hour)."""

from __future__ import annotations

import json

import pytest

import fracas

from .helpers import run

BASE = ["attack", "--dice", "3", "--ac", "14", "--str", "4", "--seed", "9", "--json"]

SKELETON = {"attacker": {"strength": 4},
            "strikes": [{"method": "melee", "style": "slashing", "dice": 2, "weight": 1, "damage_type": "edged"}]}


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A config directory of our own: XDG_CONFIG_HOME/fracas."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("FRACAS_CONFIG", raising=False)
    folder = tmp_path / "fracas"
    folder.mkdir()
    return folder


def result_of(out):
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


# ── --strike and --attacker-condition (ER-9, ER-14) ─────────────────────────────────


def test_more_strikes_take_their_fields_and_the_rest_from_the_flags_er_9():
    out = result_of(run(BASE + ["--weight", "1", "--strike", "dice=2,style=piercing", "--strike", "dice=1,advantage"]))
    request = {"ruleset": "enchanted-realms", "attacker": {"size": "medium", "strength": 4},
               "strikes": [
                   {"target": "target", "method": "melee", "style": "slashing", "dice": 3, "bonus": 0, "weight": 1,
                    "damage_type": "edged", "advantage": False, "disadvantage": False, "sneak": False,
                    "reach": False, "sneak_ok": False},
                   {"target": "target", "method": "melee", "style": "piercing", "dice": 2, "bonus": 0, "weight": 1,
                    "damage_type": "piercing", "advantage": False, "disadvantage": False, "sneak": False,
                    "reach": False, "sneak_ok": False},
                   {"target": "target", "method": "melee", "style": "slashing", "dice": 1, "bonus": 0, "weight": 1,
                    "damage_type": "edged", "advantage": True, "disadvantage": False, "sneak": False,
                    "reach": False, "sneak_ok": False}],
               "targets": {"target": {"ac": 14, "size": "medium", "cover": "none", "resistant": [],
                                      "vulnerable": [], "immune": [], "conditions": []}}}
    assert out == fracas.resolve(request, seed=9).to_dict()
    assert len(out["strikes"]) == 3


def test_the_attackers_conditions_er_14():
    poisoned = result_of(run(BASE + ["--attacker-condition", "poisoned"]))
    assert poisoned["strikes"][0]["disadvantage"] is True  # ER-14: poisoned attacks at disadvantage
    out = run(BASE + ["--attacker-condition", "stunned"])
    assert out.exit_code == 2
    assert "a stunned attacker cannot attack (ER-14) (set it with --attacker-condition)" in out.output


@pytest.mark.parametrize(("strike", "message"), [
    ("dcie=2", "Invalid value for --strike (the 2nd): unknown key 'dcie' in 'dcie=2'; keys: dice, bonus"),
    ("dice=two", "--strike (the 2nd): dice='two' is not a whole number"),
    ("dice=1,style=laser", "--strike (the 2nd): style='laser' is not one of slashing"),
    ("dice=1,advantage=maybe", "--strike (the 2nd): advantage='maybe': give advantage alone, or advantage=true"),
])
def test_bad_strikes_name_the_strike_and_the_key(strike, message):
    out = run(BASE + ["--strike", strike])
    assert out.exit_code == 2 and message in out.output, out.output


def test_an_impossible_extra_strike_names_its_flag():
    out = run(BASE + ["--strike", "dice=2", "--strike", "dice=9"])
    assert out.exit_code == 2
    assert "$.strikes[2].dice: 9 skill dice, the most is 5 (ER-3) (set it with --strike (the 3rd))" in out.output


# ── --as PROFILE ─────────────────────────────────────────────────────────────────────


def test_as_a_kept_profile_from_the_config_directory(home):
    (home / "profiles.json").write_text(json.dumps({"skeleton": SKELETON}))
    out = result_of(run(["attack", "--as", "skeleton", "--ac", "12", "--target", "pc", "--seed", "3", "--json"]))
    expected = {"attacker": SKELETON["attacker"], "strikes": [{**SKELETON["strikes"][0], "target": "pc"}],
                "targets": {"pc": {"ac": 12, "size": "medium", "cover": "none", "resistant": [], "vulnerable": [],
                                   "immune": [], "conditions": []}}}
    assert out == fracas.resolve(expected, seed=3).to_dict()


def test_as_reads_a_bulk_request_file_too(tmp_path):
    path = tmp_path / "charge.json"
    path.write_text(json.dumps({"profiles": {"skeleton": SKELETON}, "targets": {}, "attacks": []}))
    assert result_of(run(["attack", "--as", "skeleton", "--profiles", str(path), "--ac", "12", "--json"]))


@pytest.mark.parametrize(("args", "message"), [
    (["--as", "zombie", "--ac", "12"], "no profile 'zombie' in"),
    (["--as", "skeleton"], "give the target's --ac (with --as, the flags describe the target)"),
    (["--as", "skeleton", "--defense", "12", "--ruleset", "worldwalker"],
     "profile 'skeleton' is a enchanted-realms profile, not worldwalker"),
])
def test_profile_errors(home, args, message):
    (home / "profiles.json").write_text(json.dumps({"skeleton": SKELETON}))
    out = run(["attack", *args])
    assert out.exit_code == 2 and message in out.output, out.output


def test_no_profiles_file_says_where(home):
    out = run(["attack", "--as", "skeleton", "--ac", "12"])
    assert out.exit_code == 2
    assert f"no profiles file at {home / 'profiles.json'}" in out.output


def test_as_with_a_request_file_is_refused(home, tmp_path):
    (home / "profiles.json").write_text(json.dumps({"skeleton": SKELETON}))
    path = tmp_path / "r.json"
    path.write_text("{}")
    out = run(["attack", str(path), "--as", "skeleton"])
    assert out.exit_code == 2 and "give one of" in out.output


def test_a_ruleset_without_profiles_says_so(home):
    (home / "profiles.json").write_text(json.dumps({"orc": {"ruleset": "worldwalker", **SKELETON}}))
    out = run(["attack", "--as", "orc", "--ac", "12"])
    assert out.exit_code == 2, out.output
    assert "the Worldwalker ruleset does not resolve profile (--as) requests" in out.output


# ── the config file ──────────────────────────────────────────────────────────────────


def test_config_defaults_apply_and_the_command_line_wins(home):
    (home / "profiles.json").write_text(json.dumps({"skeleton": SKELETON}))
    (home / "config.toml").write_text('[attack]\ntarget = "goblin"\nac = 11\n')
    out = result_of(run(["attack", "--as", "skeleton", "--seed", "1", "--json"]))
    assert list(out["targets"]) == ["goblin"] and out["strikes"][0]["ac"] == 11
    out = result_of(run(["attack", "--as", "skeleton", "--ac", "15", "--target", "ogre", "--seed", "1", "--json"]))
    assert list(out["targets"]) == ["ogre"] and out["strikes"][0]["ac"] == 15


def test_config_chooses_the_ruleset_and_its_flags(home):
    (home / "config.toml").write_text('[attack]\nruleset = "worldwalker"\n')
    out = result_of(run(["attack", "--skill", "4", "--damage", "1d8", "--defense", "12", "--seed", "2", "--json"]))
    assert out["ruleset"] == "worldwalker"


def test_config_from_the_environment_and_the_option(tmp_path, monkeypatch):
    path = tmp_path / "c.toml"
    path.write_text("[journal.list]\nlimit = 0\n")  # out of range: proves the file was read
    monkeypatch.setenv("FRACAS_CONFIG", str(path))
    assert run(["journal", "list"]).exit_code == 2
    other = tmp_path / "ok.toml"
    other.write_text("[journal.list]\nlimit = 5\n")
    assert "Invalid value" not in run(["--config", str(other), "journal", "list"]).output


@pytest.mark.parametrize(("text", "message"), [
    ('[atack]\n', "[atack]: no such command (commands: attack, bench"),
    ('[attack]\ntraget = "x"\n', "[attack] traget: no such option of fracas attack (options: ac, advantage"),
    ('[journal.lst]\n', "[journal.lst]: no such command (commands: list, prune, replay, show)"),
    ('[attack\n', "config file"),
    ('attack = 3\n', "[attack] must be a table of options"),
])
def test_config_mistakes_are_named(home, text, message):
    (home / "config.toml").write_text(text)
    out = run(["doctor"])
    assert out.exit_code == 1 and message in out.output, out.output
    assert str(home / "config.toml") in out.output


def test_doctor_shows_the_config_and_profiles(home):
    out = run(["doctor"])
    assert f"config    {home / 'config.toml'} (none: defaults)" in out.output
    assert f"profiles  {home / 'profiles.json'} (none yet)" in out.output


def test_a_named_config_file_that_is_missing_is_an_error(tmp_path, monkeypatch):
    monkeypatch.delenv("FRACAS_CONFIG", raising=False)
    missing = tmp_path / "nothere.toml"
    out = run(["--config", str(missing), "attack", "--dice", "2", "--ac", "12"])
    assert out.exit_code == 2 and f"config file {missing}: no such file" in out.output
    monkeypatch.setenv("FRACAS_CONFIG", str(missing))
    out = run(["attack", "--dice", "2", "--ac", "12"])
    assert out.exit_code == 2 and f"config file {missing}: no such file" in out.output


def test_the_default_config_file_may_be_absent(home):
    assert run(["attack", "--dice", "2", "--ac", "12", "--str", "3", "--seed", "1"]).exit_code == 0


def test_a_relative_profiles_path_is_read_from_the_config_files_folder(tmp_path, monkeypatch):
    folder = tmp_path / "table"
    folder.mkdir()
    (folder / "monsters.json").write_text(json.dumps({"skeleton": SKELETON}))
    (folder / "config.toml").write_text('[attack]\nprofiles = "monsters.json"\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # not the config's folder
    out = result_of(run(["--config", str(folder / "config.toml"), "attack", "--as", "skeleton", "--ac", "12",
                         "--seed", "1", "--json"]))
    assert out["strikes"][0]["ac"] == 12


@pytest.mark.parametrize(("text", "message"), [
    ('[serve]\nport = "eighty"\n', "[serve] port: 'eighty' is not a valid integer"),
    ('[journal.list]\nlimit = 0\n', "[journal.list] limit: 0 is not in the range"),
    ('[attack]\nruleset = "chess"\n', "[attack] ruleset: unknown ruleset 'chess'"),
])
def test_a_bad_config_value_names_the_file_and_the_key(home, text, message):
    (home / "config.toml").write_text(text)
    out = run(["attack", "--dice", "2", "--ac", "12"])
    assert out.exit_code == 2 and f"config file {home / 'config.toml'}: {message}" in out.output, out.output


def test_python_3_10_reads_the_config_with_tomli_and_only_when_there_is_one(home, monkeypatch):
    """On Python 3.10 (no tomllib) the reader is the tomli backport, imported only to read a
    file: without a config file no command needs it, and without tomli the error says so."""
    import sys

    try:
        import tomllib as reader
    except ModuleNotFoundError:  # really on Python 3.10: the backport itself stands in
        import tomli as reader
    monkeypatch.setattr(sys, "version_info", (3, 10, 13, "final", 0))
    monkeypatch.setitem(sys.modules, "tomli", None)  # not installed
    attack = ["attack", "--dice", "2", "--ac", "12", "--str", "3", "--seed", "1", "--json"]
    assert run(attack).exit_code == 0  # no config file: nothing to import
    (home / "config.toml").write_text('[attack]\ntarget = "goblin"\n')
    out = run(attack)
    assert out.exit_code == 2 and "reading it on Python 3.10 needs tomli (pip install tomli)" in out.output
    monkeypatch.setitem(sys.modules, "tomli", reader)  # tomli is tomllib's origin: the same API
    assert list(result_of(run(attack))["targets"]) == ["goblin"]
