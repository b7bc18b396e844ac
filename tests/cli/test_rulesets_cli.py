"""`fracas attack --ruleset NAME`: each ruleset's own flags, as the README shows them."""

import json
import re

import pytest

import fracas

from .helpers import run


def test_cartyrion_flags_resolve_tombrils_blow_with_injected_dice():
    out = run(["attack", "--ruleset", "cartyrion", "--level", "9", "--bonus", "8", "--magic", "2", "--die", "d6",
               "--dex", "3", "--armor", "1", "--rolls", "5 3 4 3 2", "--json"])
    assert out.exit_code == 0, out.output
    result = json.loads(out.output)
    assert result["ruleset"] == "cartyrion" and result["total_damage"] == 31


def test_the_breakdown_names_the_ruleset_and_every_die():
    out = run(["attack", "--ruleset", "cartyrion", "--level", "12", "--bonus", "9", "--die", "d6", "--dex", "5",
               "--armor", "3", "--rolls", "6,5,3,6,2,6,5,1,6,2"])
    assert out.exit_code == 0, out.output
    assert "Cartyrion attack" in out.output and "4 exploded" in out.output and "43" in out.output


@pytest.mark.parametrize("ruleset, flags", [
    ("worldwalker", ["--skill", "3", "--str-mod", "2", "--damage", "1d8", "--critical", "2", "--defense", "14",
                     "--armor", "2", "--block", "6"]),
    ("old-school", ["--attack-bonus", "1", "--method", "missile", "--range", "short", "--damage", "1d6", "--ac", "14"]),
])
def test_worldwalker_and_old_school_flags(ruleset, flags):
    out = run(["attack", "--ruleset", ruleset, *flags, "--seed", "5", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["ruleset"] == ruleset


def test_help_of_a_ruleset_lists_its_own_flags():
    out = run(["attack", "--ruleset", "worldwalker", "--help"])
    assert "--critical" in out.output and "  --style " not in out.output
    assert "  --style " in run(["attack", "--help"]).output


@pytest.mark.parametrize("args, message", [
    (["attack", "--ruleset", "chess", "--dice", "2"], "unknown ruleset 'chess'"),
    (["attack", "--ruleset", "cartyrion", "--die", "d7"], "$.strikes[0].die: d7 is not a die of the Cartyrion rules"),
    (["attack", "--ruleset", "worldwalker", "--damage", "1d8", "--defense", "12", "--critical", "6"],
     "(set it with --critical)"),
    (["attack", "--ruleset", "old-school", "--method", "missile", "--range", "beyond", "--damage", "1d6", "--ac", "12"],
     "OS-3"),
    (["attack", "--ruleset", "cartyrion", "--style", "slashing", "--die", "d6"], "No such option"),
])
def test_bad_flags_exit_2_naming_the_field_or_flag(args, message):
    out = run(args)
    assert out.exit_code == 2 and message in out.output, out.output


def test_a_bulk_request_file_of_another_ruleset(tmp_path):
    path = tmp_path / "bulk.json"
    path.write_text(json.dumps({"ruleset": "cartyrion", "profiles": {"g": {"attacker": {"level": 12, "bonus": 9},
                                "strikes": [{"method": "melee", "die": "d6"}]}},
                                "targets": {"t": {"dex": 5, "armor": 3}},
                                "attacks": [{"profile": "g", "target": "t", "count": 500}]}))
    out = run(["attack", "--bulk", str(path), "--seed", "3"])
    assert out.exit_code == 0, out.output
    assert "Cartyrion bulk" in out.output and "500 attacks" in out.output


def test_worldwalker_two_weapon_and_feint_flags():
    # WW-6 (seed 002): "Dual Weapon Training talent –4 –4"; WW-7: "A successful feint leaves
    # the target unable to actively defend against the character's next attack."
    out = run(["attack", "--ruleset", "worldwalker", "--skill", "3", "--damage", "1d8", "--defense", "12",
               "--two-weapon", "--talent", "dual-weapon-training", "--hand", "off", "--feint", "4",
               "--feint-defense", "2", "--block", "5", "--rolls", "10 3 15 5", "--json"])
    assert out.exit_code == 0, out.output
    result = json.loads(out.output)
    strike = result["strikes"][0]
    assert strike["attack_bonus"] == 3 - 4 and strike["attack_total"] == 14
    assert strike["feint"] == {"roll": 10, "defense_roll": 3, "succeeded": True}
    assert strike["reaction"] is None and result["total_damage"] == 5
    light = run(["attack", "--ruleset", "worldwalker", "--damage", "1d8", "--defense", "12", "--two-weapon",
                 "--light-off-hand", "--rolls", "10", "--json"])
    assert json.loads(light.output)["strikes"][0]["attack_bonus"] == -4  # light off hand: primary -4


def test_worldwalker_target_two_weapon_block_flags():
    # WW-6 (seed 002): "a –10 penalty to the attack and block rolls with your off hand".
    out = run(["attack", "--ruleset", "worldwalker", "--skill", "3", "--str-mod", "2", "--damage", "1d8",
               "--defense", "10", "--block", "7", "--block-hand", "off", "--target-two-weapon",
               "--rolls", "10 17 5", "--json"])
    assert out.exit_code == 0, out.output
    block = json.loads(out.output)["strikes"][0]["reaction"]
    assert (block["bonus"], block["total"], block["negated"]) == (-3, 14, False)
    light = run(["attack", "--ruleset", "worldwalker", "--damage", "1d8", "--defense", "10", "--block", "7",
                 "--target-two-weapon", "--target-light-off-hand", "--target-talent", "dual-weapon-training",
                 "--rolls", "15 19", "--json"])
    assert json.loads(light.output)["strikes"][0]["reaction"]["bonus"] == 7 - 2, light.output


@pytest.mark.parametrize("flags, message", [
    (["--block", "7", "--block-hand", "off"], "(set it with --block-hand)"),
    (["--dodge", "7", "--block-hand", "primary", "--target-two-weapon"], "a dodge is made with no hand"),
    (["--block-hand", "off"], "give --block too (WW-6)"),
    (["--target-talent", "dual-weapon-mastery"], "give --target-two-weapon too (WW-6)"),
    (["--hand", "off"], "(set it with --hand)"),
    (["--talent", "dual-weapon-mastery"], "give --two-weapon too (WW-6)"),
    (["--light-off-hand"], "give --two-weapon too (WW-6)"),
    (["--feint-defense", "2"], "give --feint too (WW-7)"),
    (["--feint", "300"], "$.strikes[0].feint.bonus"),
    (["--two-weapon", "--talent", "ambidextrous"], "Invalid value for '--talent'"),
])
def test_worldwalker_two_weapon_and_feint_errors_name_the_option(flags, message):
    out = run(["attack", "--ruleset", "worldwalker", "--damage", "1d8", "--defense", "12", *flags])
    assert out.exit_code == 2 and message in out.output, out.output

@pytest.mark.parametrize("spelling", ["ct", "CT", "Cartyrion", "cartyrion", "CARTYRION"])
def test_ruleset_takes_the_short_id_the_docs_use_and_any_case(spelling):
    out = run(["attack", "--ruleset", spelling, "--level", "9", "--bonus", "8", "--magic", "2", "--die", "d6",
               "--dex", "3", "--armor", "1", "--rolls", "5 3 4 3 2", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["ruleset"] == "cartyrion"


@pytest.mark.parametrize(("spelling", "name"), [("er", "enchanted-realms"), ("Enchanted Realms", "enchanted-realms"),
                                                ("WW", "worldwalker"), ("os", "old-school"), ("Old-School", "old-school")])
def test_every_short_id_and_title(spelling, name):
    flags = (["--side", "party", "--side", "goblins"] if name == "old-school"
             else ["--combatant", "a=1", "--combatant", "b=2"])
    out = run(["initiative", "--ruleset", spelling, *flags, "--seed", "1", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["ruleset"] == name
    assert run(["odds", "--ruleset", spelling, "--help"]).exit_code == 0


@pytest.mark.parametrize(("ruleset", "flags", "check"), [
    ("enchanted-realms", ["--combatant", "a=1", "--combatant", "b=2"],
     lambda r: {e["id"]: e["modifier"] for e in r["order"]} == {"a": -1, "b": 0}),  # ER-18: Agility 1 → −1
    ("worldwalker", ["--combatant", "a=1", "--combatant", "b=2"],
     lambda r: {e["id"]: e["dex_mod"] for e in r["order"]} == {"a": 1, "b": 2}),
    ("cartyrion", ["--ambush", "party"], lambda r: r["ambush"] == "party" and r["round"] == 1),
    ("old-school", ["--side", "party", "--wait", "goblins"], lambda r: r["order"][-1] == ["goblins"]),
])
def test_initiative_flags_are_each_rulesets_own(ruleset, flags, check):
    """ER-18, WW-1, CT-1, OS-1: `fracas initiative` takes the flags the ruleset gives
    (Ruleset.initiative_cli_options), and refuses another ruleset's by name."""
    out = run(["initiative", "--ruleset", ruleset, *flags, "--seed", "1", "--json"])
    assert out.exit_code == 0, out.output
    assert check(json.loads(out.output)), out.output
    other = ["--side", "x"] if ruleset != "old-school" else ["--combatant", "x=1"]
    out = run(["initiative", "--ruleset", ruleset, *other])
    assert out.exit_code == 2 and f"No such option '{other[0]}'" in out.output, out.output
    helped = run(["initiative", "--ruleset", ruleset, "--help"]).output
    listed = re.findall(r"^  (--[a-z-]+)", helped, re.M)  # the options table
    assert flags[0] in listed and other[0] not in listed


def test_an_unknown_ruleset_lists_the_names_and_short_ids():
    out = run(["attack", "--ruleset", "chess", "--dice", "2"])
    assert out.exit_code == 2
    # every registered ruleset with its short ID, from the manifests
    listed = ", ".join(f"{m.name} ({m.id.upper()})" for m in fracas.rulesets.manifests())
    assert listed.startswith("enchanted-realms (ER), worldwalker (WW), cartyrion (CT), old-school (OS)")
    assert f"unknown ruleset 'chess' (one of: {listed}; any case)" in out.output


def test_the_main_help_describes_every_installed_ruleset():
    out = " ".join(run(["--help"]).output.split())
    manifests = fracas.rulesets.manifests()
    assert f"Resolves attacks of {len(manifests)} rulesets:" in out
    for title, short in (("Enchanted Realms", "ER"), ("Worldwalker", "WW"), ("Cartyrion", "CT"),
                         ("Old-school", "OS")):
        assert f"{title} ({short})" in out, title
    assert all(f"{m.title} ({m.id.upper()})" in out for m in manifests)


# The breakdown of every ruleset reads as Enchanted Realms' does: the dice, the total,
# against what, what it did; no raw field names (`tn 14, hits 1, negated 0`, `stamina_cost`).
RAW_NAMES = ("stamina_cost", "negated 0", "hits 1,", "tn 14", "damage_bonus", "attack_total", "_")


@pytest.mark.parametrize("args, lines", [
    (["--ruleset", "worldwalker", "--skill", "3", "--str-mod", "2", "--damage", "1d8", "--critical", "2",
      "--crit-multiplier", "2", "--defense", "14", "--armor", "2", "--block", "6", "--rolls", "16,3,6"],
     ["Worldwalker attack · seed", "Strike 1 → target: melee · d20 +3 vs TN 14 · critical attack: −2 to hit",
      "  attack      d20 16 +3 = 19 vs TN 14: hit",
      "  block       d20 3 +6 = 9 vs the attack's 19: falls short (WW-5)",
      "  damage      dice 6 +6 − armor 2 = 10",
      "  target: 10 damage (TN 14; 1 hit landed)", "Total damage: 10"]),
    (["--ruleset", "worldwalker", "--skill", "3", "--damage", "1d8", "--defense", "14", "--dodge", "9",
      "--rolls", "20,18,4"],
     ["  attack      d20 20 (natural 20, counts as 30) +3 = 33 vs TN 14: hit",
      "  dodge       d20 18 +9 = 27 vs the attack's 33: falls short (WW-5)"]),
    (["--ruleset", "worldwalker", "--skill", "3", "--damage", "1d8", "--defense", "14", "--dodge", "9",
      "--rolls", "12,10"],
     ["  dodge       d20 10 +9 = 19 vs the attack's 15: reaches it, the hit is negated (WW-5)",
      "  damage      0: the dodge negated the hit", "(TN 14; 0 hits landed, 1 negated by its block or dodge)"]),
    (["--ruleset", "cartyrion", "--level", "12", "--bonus", "9", "--die", "d6", "--dex", "5", "--armor", "3",
      "--rolls", "6,5,3,6,2,6,5,1,6,2"],
     ["Cartyrion attack · seed", "Strike 1 → target: melee · 6d6, a 6 explodes",
      "  dice        6 · 5 · 3 · 6 · 2 · 6 · 5 · 1 · 6 · 2 (4 exploded) = 42",
      "  total       42 +9 bonus = 51", "  stopped     − DEX 5 − armor 3 = 43",
      "  damage      43 to stamina", "  target: 43 damage (43 to stamina, 0 to injury)", "Total damage: 43"]),
    (["--ruleset", "cartyrion", "--level", "3", "--bonus", "4", "--die", "d4", "--dex", "2", "--armor", "3",
      "--method", "ranged", "--sneak", "roll", "--awa", "2", "--rolls", "4,2,2,1"],
     ["  total       4 +2 bonus = 6",  # a ranged strike adds the AWA bonus, not --bonus (CT-2)
      "  sneak       d20 4 +2 = 6 vs DC 13: failed, armor counts (CT-7)",
      "  stopped     no DEX on a sneak attack, − armor 3 = 3 (CT-7)",
      "  damage      3 to injury (direct damage, CT-4)",
      "  cost        d4 1: the attacker spends 1 stamina (CT-4)",
      "Attacker: spent 1 stamina on ranged strikes (CT-4)"]),
    (["--ruleset", "old-school", "--attack-bonus", "1", "--dex-mod", "2", "--method", "missile", "--range", "short",
      "--damage", "1d6", "--ac", "14", "--rolls", "16,1"],
     ["Old-school attack · seed", "Strike 1 → target: missile, short range · d20 +4 vs AC 14",
      "  attack      d20 16 +4 = 20 vs AC 14: hit", "  damage      dice 1 +0 = 1",
      "  target: 1 damage (1 hit)", "Total damage: 1"]),
    (["--ruleset", "old-school", "--attack-bonus", "1", "--str-mod", "1", "--damage", "1d6", "--ac", "14",
      "--shield", "1", "--rear", "--rolls", "1"],
     ["Strike 1 → target: melee, from behind · d20 +2 vs AC 13",
      "  attack      d20 1 (natural 1: always misses) +2 = 3 vs AC 13: miss",
      "  shield      its AC bonus does not count: an attack from behind (OS-3)",
      "  damage      0: a miss", "  target: 0 damage (0 hits)"]),
])
def test_every_rulesets_breakdown_reads_as_er_does(args, lines):
    out = run(["attack", *args])
    assert out.exit_code == 0, out.output
    for line in lines:
        assert line in out.output, (line, out.output)
    for raw in RAW_NAMES:
        assert raw not in out.output, (raw, out.output)
