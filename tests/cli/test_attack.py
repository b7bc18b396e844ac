"""`fracas attack`: flags, files, stdin, bulk; readable output and JSON; exit codes."""

import json

import click
import pytest

import fracas
from .helpers import run
from fracas._facts import STYLE_DAMAGE
from fracas.cli import attack, main
from fracas.rulesets.er.cli import request_from_flags

TYPICAL = {
    "attacker": {"strength": 2, "strength_mod": 1},
    "strikes": [{"target": "foe", "method": "melee", "style": "slashing", "dice": 3,
                 "weight": 1, "damage_type": "edged"}],
    "targets": {"foe": {"ac": 14}},
}

BULK = {
    "ruleset": "enchanted-realms", "seed": 7,
    "profiles": {"skeleton": {"attacker": {"strength": 3},
                              "strikes": [{"method": "melee", "style": "slashing", "dice": 1,
                                           "weight": 1, "damage_type": "edged"}]}},
    "targets": {"pc-1": {"ac": 15}, "pc-2": {"ac": 13, "resistant": ["edged"]}},
    "attacks": [{"profile": "skeleton", "target": "pc-1", "count": 120},
                {"profile": "skeleton", "target": "pc-2", "count": 80}],
    "detail": "summary",
}




# -- bad input: exit 2 with the field path ----------------------------------------------
BAD_FLAGS = [
    (["--dice", "9", "--ac", "14", "--str", "2"], "$.strikes[0].dice", "--dice"),
    (["--dice", "0", "--ac", "14", "--str", "2"], "$.strikes[0].dice", "--dice"),
    (["--dice", "2", "--ac", "14"], "$.attacker.strength", "--str"),
    (["--dice", "2", "--ac", "14", "--style", "archery"], "$.attacker.agility", "--agi"),
    (["--dice", "2", "--ac", "14", "--str", "2", "--crit-range", "0"], "$.strikes[0].crit_range",
     "--crit-range"),
    (["--dice", "2", "--ac", "14", "--str", "2", "--sneak", "--disadvantage"], "$.strikes[0]", ""),
    (["--dice", "2", "--ac", "14", "--str", "2", "--condition", "flying"],
     "$.targets.target.conditions[0]", "--condition"),
    (["--dice", "2", "--ac", "14", "--str", "2", "--seed", "-1"], "Invalid value for '--seed': -1", ""),
    (["--dice", "2", "--ac", "14", "--agi", "3", "--style", "archery", "--cover", "full"],
     "$.strikes[0].target: target 'target' has full cover", "--cover"),
]


@pytest.mark.parametrize("args, path, flag", BAD_FLAGS)
def test_bad_flags_exit_2_with_the_field_path(args, path, flag):
    result = run(["attack", *args])
    assert result.exit_code == 2
    assert f"Error: {path}" in result.output
    if flag:
        assert f"(set it with {flag})" in result.output


BAD_FILES = [
    ({**TYPICAL, "targets": {"goblin": {"ac": 14}}}, "$.strikes[0].target: unknown target 'foe'"),
    ({**TYPICAL, "bogus": 1}, "$"),
    ({**TYPICAL, "strikes": []}, "$.strikes: no strikes"),
    ({**TYPICAL, "rolls": [20]}, "$.rolls"),
    ({**TYPICAL, "seed": -5}, "$.seed"),
    ("{not json", "$: the request is not valid JSON"),
    ("[1, 2]", "$: expected a JSON object"),
]


@pytest.mark.parametrize("document, message", BAD_FILES)
def test_bad_request_files_exit_2_with_the_field_path(files, document, message):
    result = run(["attack", files("request.json", document)])
    assert result.exit_code == 2
    assert f"Error: {message}" in result.output


@pytest.mark.parametrize("document, message", [
    ({**BULK, "attacks": [{"profile": "skeleton", "target": "pc-1", "count": -1}]}, "$.attacks[0].count"),
    ({**BULK, "attacks": [{"profile": "zombie", "target": "pc-1"}]}, "$.attacks[0].profile"),
    ({**BULK, "attacks": [{"profile": "skeleton", "target": "pc-9"}]}, "$.attacks[0].target"),
    ({**BULK, "detail": "everything"}, "$.detail"),
    ("", "$: the bulk request is not valid JSON"),
])
def test_bad_bulk_files_exit_2_with_the_field_path(files, document, message):
    result = run(["attack", "--bulk", files("bulk.json", document)])
    assert result.exit_code == 2
    assert f"Error: {message}" in result.output


USAGE_ERRORS = [
    (["attack", "--dice", "3"], "give --dice and --ac"),
    (["attack", "--ac", "3"], "give --dice and --ac"),
    (["attack", "--dice", "3", "--ac", "14", "--threads", "2"], "--threads goes with --bulk"),
    (["attack", "--dice", "3", "--ac", "14", "--style", "sword"], "Invalid value for '--style'"),
    (["attack", "--dice", "three"], "Invalid value for '--dice'"),
    (["attack", "/no/such/file.json"], "No such file"),
    (["attack", "--bulk", "/no/such/file.json"], "No such file"),
    (["attack", "--resistant", "acid", "--dice", "1", "--ac", "1"], "Invalid value for '--resistant'"),
    (["nonsense"], "No such command"),
]


@pytest.mark.parametrize("args, message", USAGE_ERRORS)
def test_usage_errors_exit_2(args, message):
    result = run(args)
    assert result.exit_code == 2
    assert message in result.output


def test_a_file_and_flags_together_is_a_usage_error(files):
    result = run(["attack", files("r.json", TYPICAL), "--dice", "3"])
    assert result.exit_code == 2
    assert "give one of" in result.output and "REQUEST, --dice" in result.output


def test_a_file_and_bulk_together_is_a_usage_error(files):
    result = run(["attack", files("r.json", TYPICAL), "--bulk", files("b.json", BULK)])
    assert result.exit_code == 2
    assert "REQUEST, --bulk" in result.output


# -- good input -----------------------------------------------------------------------
def test_json_output_is_the_engine_result(files):
    result = run(["attack", files("r.json", TYPICAL), "--seed", "42", "--json"])
    assert result.exit_code == 0
    assert json.loads(result.output) == fracas.resolve(TYPICAL, seed=42).to_dict()


def test_stdin_with_dash_and_without_argument():
    expected = fracas.resolve(TYPICAL, seed=9).to_dict()
    for args in (["attack", "-", "--seed", "9", "--json"], ["attack", "--seed", "9", "--json"]):
        result = run(args, stdin=json.dumps(TYPICAL))
        assert result.exit_code == 0
        assert json.loads(result.output) == expected


def test_the_request_seed_replays_and_the_flag_wins(files):
    seeded = files("r.json", {**TYPICAL, "seed": 5})
    first = json.loads(run(["attack", seeded, "--json"]).output)
    again = json.loads(run(["attack", seeded, "--json"]).output)
    other = json.loads(run(["attack", seeded, "--json", "--seed", "6"]).output)
    assert first == again and first["seed"] == 5
    assert other["seed"] == 6


FLAG_REQUESTS = [
    (["--dice", "3", "--bonus", "2", "--ac", "14", "--weight", "1", "--str", "4", "--style", "slashing"],
     {"attacker": {"size": "medium", "strength": 4},
      "strike": {"method": "melee", "style": "slashing", "dice": 3, "bonus": 2, "weight": 1,
                 "damage_type": "edged"},
      "target": {"ac": 14}}),
    (["--dice", "2", "--ac", "12", "--agi", "5", "--style", "archery"],
     {"attacker": {"size": "medium", "agility": 5},
      "strike": {"method": "range", "style": "archery", "damage_type": "piercing"}, "target": {"ac": 12}}),
    (["--dice", "1", "--ac", "12", "--str", "3", "--style", "bludgeoning", "--damage-type", "fire",
      "--crit-range", "19", "--advantage"],
     {"strike": {"method": "melee", "damage_type": "fire", "crit_range": 19, "advantage": True},
      "target": {"ac": 12}}),
    (["--dice", "1", "--ac", "12", "--str", "3", "--str-mod", "4", "--resistant", "edged",
      "--vulnerable", "fire", "--immune", "cold", "--condition", "prone", "--cover", "half",
      "--target", "ogre", "--target-size", "large", "--size", "huge", "--sneak"],
     {"attacker": {"strength": 3, "strength_mod": 4, "size": "huge"},
      "strike": {"target": "ogre", "sneak": True},
      "target": {"resistant": ["edged"], "vulnerable": ["fire"], "immune": ["cold"],
                 "conditions": ["prone"], "cover": "half", "size": "large"}}),
]


@pytest.mark.parametrize("args, expected", FLAG_REQUESTS)
def test_flags_build_the_request(args, expected):
    ctx = attack.make_context("attack", list(args))
    params = {k: v for k, v in ctx.params.items()
              if k not in ("request", "bulk", "seed", "as_json", "threads", "ruleset_name")}
    request = request_from_flags(params)
    strike = request["strikes"][0]
    (target_id, target), = request["targets"].items()
    assert strike["target"] == target_id
    for key, value in expected.get("attacker", {}).items():
        assert request["attacker"][key] == value
    for key, value in expected["strike"].items():
        assert strike[key] == value
    for key, value in expected["target"].items():
        assert target[key] == value
    # And the engine accepts what the flags built.
    fracas.resolve(request, seed=1)


@pytest.mark.parametrize("style", sorted(STYLE_DAMAGE))
def test_every_style_has_a_default_damage_type_the_engine_accepts(style):
    args = ["attack", "--dice", "2", "--ac", "10", "--str", "3", "--agi", "3", "--style", style,
            "--json", "--seed", "1"]
    result = run(args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["strikes"][0]["damage_type"] == STYLE_DAMAGE[style]


def test_flags_json_equals_the_same_request_resolved_directly():
    args = ["--dice", "3", "--bonus", "2", "--ac", "14", "--weight", "1", "--str", "4"]
    result = run(["attack", *args, "--seed", "42", "--json"])
    request = {"attacker": {"strength": 4},
               "strikes": [{"target": "target", "method": "melee", "style": "slashing", "dice": 3,
                            "bonus": 2, "weight": 1, "damage_type": "edged"}],
               "targets": {"target": {"ac": 14}}}
    assert json.loads(result.output) == fracas.resolve(request, seed=42).to_dict()


def test_breakdown_shows_each_die_the_crit_chain_and_the_damage(files):
    # 3d20 +2 vs AC 14 with injected faces: 20 and 12 hit, 1 misses; the natural 20
    # starts the chain: a crit die of 20 hits (d3 = 2) and grants another, 5 misses.
    request = {**TYPICAL, "rolls": [20, 12, 1, 20, 2, 5]}
    result = run(["attack", files("r.json", request)])
    assert result.exit_code == 0
    out = result.output
    assert "Attack · seed" in out and "injected dice" in out
    assert "Strike 1 → foe: melee, slashing, edged · 3d20 +2 vs AC 14 · crits on 20" in out
    assert "dice        20→22 hit (natural 20) · 12→14 hit · 1→3 miss (natural 1)" in out
    assert "crit chain  20→22 hit, d3 2 (20: another crit die) · 5→7 miss" in out
    # 2 hits + chain 2 + weight 1, then the modifier +1.
    assert "2 hits · crit (2 crit dice) · base 5 · modifier +1 · damage 6" in out
    assert "foe: 6 damage (edged 6)" in out
    assert out.rstrip().endswith("Total damage: 6")


def test_breakdown_shows_discarded_die_resistance_and_shock(files):
    request = {
        "attacker": {"strength": 4},
        "strikes": [
            {"target": "ogre", "method": "melee", "style": "slashing", "dice": 2,
             "damage_type": "edged", "disadvantage": True},
            {"target": "imp", "method": "melee", "style": "piercing", "dice": 2,
             "damage_type": "piercing", "sneak": True},
        ],
        "targets": {"ogre": {"ac": 10, "resistant": ["edged"]},
                    "imp": {"ac": 10, "body_max": 4, "save_bonus": 0}},
        # ogre: 15, 18, extra 9 → 18 discarded; imp: 11, 12, adv 13, sneak 14;
        # imp's shock save d20 = 3 (fails DC 5 + damage), d3 = 2 actions.
        "rolls": [15, 18, 9, 11, 12, 13, 14, 3, 2],
    }
    out = run(["attack", files("r.json", request)]).output
    assert "discarded   18 (highest die, disadvantage)" in out
    assert "no crits" in out and "disadvantage" in out
    assert "resistant: halved" in out
    assert "adv 13→17 hit · sneak 14→18 hit" in out
    assert "shock save DC" in out and "failed: incapacitated for 2 actions" in out


def test_bulk_summary_per_target(files):
    result = run(["attack", "--bulk", files("b.json", BULK)])
    assert result.exit_code == 0
    expected = fracas.resolve_bulk(BULK).to_dict()
    out = result.output
    assert out.startswith("Bulk · 200 attacks · enchanted-realms") and "\n  seed 7 · " in out
    assert max(len(line) for line in out.splitlines()) <= 80, "the summary fits 80 columns"
    for tid, target in expected["targets"].items():
        line = next(line for line in out.splitlines() if line.strip().startswith(tid + " "))
        assert f" {target['damage']:,} " in line
        assert f" {target['attacks']:,} " in line
    assert "skeleton" in out and "damage histogram" in out
    assert f"Total damage: {expected['total_damage']:,}" in out


def test_bulk_json_is_the_same_for_any_thread_count(files):
    path = files("b.json", BULK)
    one = json.loads(run(["attack", "--bulk", path, "--json", "--threads", "1"]).output)
    two = json.loads(run(["attack", "--bulk", path, "--json", "--threads", "2"]).output)
    assert one == two == fracas.resolve_bulk(BULK).to_dict()


def test_a_bulk_request_given_as_request_file_is_resolved_as_bulk(files):
    result = run(["attack", files("b.json", BULK), "--json"])
    assert json.loads(result.output) == fracas.resolve_bulk(BULK).to_dict()


def test_version_and_help():
    version = run(["--version"])
    assert version.exit_code == 0
    assert version.output.startswith(f"fracas {fracas.__version__} ({fracas.backend} backend")
    helped = run(["--help"])
    assert helped.exit_code == 0
    for command in ("attack", "bench", "replay"):
        assert command in helped.output


def _commands():
    return sorted(main.commands.items())


@pytest.mark.parametrize("name, command", _commands())
def test_every_command_and_option_has_help(name, command):
    assert command.help, f"{name} has no help text"
    for param in command.params:
        if isinstance(param, click.Option):
            assert param.help, f"{name} {param.opts} has no help="
    assert run([name, "--help"]).exit_code == 0


def test_serve_is_registered_when_the_bridge_is_installed():
    try:
        from fracas.bridge.cli import serve
    except ImportError:
        pytest.skip("the bridge is not in this install")
    assert main.commands.get("serve") is serve


def test_rolls_flag_injects_physical_dice():
    """--rolls: the table's own dice, in draw order (docs/ENGINE.md §2)."""
    result = run(["attack", "--dice", "2", "--ac", "14", "--str", "4", "--weight", "1",
                  "--rolls", "15, 3", "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["injected"] is True
    assert [d["face"] for d in document["strikes"][0]["dice"]] == [15, 3]
    assert document["total_damage"] == 3


@pytest.mark.parametrize("text", ["1 9", "1,9", " 1 , 9 ", "1, 9"])
def test_rolls_flag_reads_spaces_as_separators(text):
    """--rolls "1 9" is the faces 1 and 9, never the single face 19."""
    result = run(["attack", "--dice", "2", "--ac", "14", "--str", "4", "--rolls", text, "--json"])
    assert result.exit_code == 0, result.output
    assert [d["face"] for d in json.loads(result.output)["strikes"][0]["dice"]] == [1, 9]


@pytest.mark.parametrize("rolls, message", [
    ("15,x", "Invalid value for --rolls: item 2 ('x') is not a whole number"),
    ("15", "$.rolls: 1 face given, but $.strikes[0] needs another die"),
    ("15,3,4", "$.rolls: 3 faces given, but the attack used only 2"),
    ("15,25", "$.rolls[1]: face 25 is out of range (1 to 20)"),
])
def test_rolls_flag_errors_exit_2(rolls, message):
    result = run(["attack", "--dice", "2", "--ac", "14", "--str", "4", "--rolls", rolls])
    assert result.exit_code == 2
    assert message in result.output
