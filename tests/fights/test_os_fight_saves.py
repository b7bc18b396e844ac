"""OS-5 in whole fights: "If a character casting a spell ... is successfully attacked or
fails a Saving Throw before their side's initiative, the spell ... is disrupted and fails."
A combatant's `save_or` forces a saving throw (rolled as the old-school save kind: the
decision "Saving throws" on docs/rules/old-school.md) on the target of its attacks; a
declared caster that fails it before its side acts loses its spell. Both fight loops roll
the saves, from one statement of the rule (`fracas.rulesets.oldschool.saving`).
"""

from __future__ import annotations

import copy
from array import array

import orjson
import pytest

import fracas
from fracas import _kernels
from fracas.dice import Dice
from fracas.drive import fastfight
from fracas.drive.fight import Fight
from fracas.drive.scenario import compile_scenario
from fracas.drive.simulate import play_batch, simulate

from .test_fast_fights import _same_fights
from .test_fights import load

compiled = pytest.mark.skipif(not hasattr(_kernels.active(), "play_fights"),
                              reason="the compiled core is not in use (FRACAS_PUREPYTHON or no compiler)")

# The party waits (OS-1: a waiting side rolls nothing and acts last), so the medusa acts
# first: round 1's random events are the medusa side's d6, its attack, the saving throw,
# then the magic-user's spell (or nothing, when it is lost).
GAZE = {"ruleset": "old-school", "name": "gaze", "max_rounds": 1, "initiative": {"wait": ["party"]},
        "sides": {
            "party": [{"name": "Magic-user", "hp": 50, "save": {"spells": 15, "paralysis": 13},
                       "attacker": {"attack_bonus": 0}, "target": {"ac": 11},
                       "attacks": [{"method": "melee", "damage": "1d4"}],
                       "spell": {"name": "magic missile", "strikes": [{"method": "missile", "damage": "1d6+1"}]}}],
            "medusa": [{"name": "medusa", "hp": 50, "save": 12, "attacker": {"attack_bonus": 0},
                        "target": {"ac": 30}, "attacks": [{"method": "melee", "damage": "1d6"}],
                        "save_or": {"category": "paralysis", "effect": "petrifying gaze", "modifier": -1}}]}}


def scripted(fight: Fight, faces: dict[int, list[int]]) -> Fight:
    """Inject the faces of the round's k-th random events (the others roll from their seeds)."""
    real = fight.stream

    def stream():
        dice, seed = real()
        k = fight._k - 1
        return (Dice.from_seed(seed, array("i", faces[k])), seed) if k in faces else (dice, seed)

    fight.stream = stream
    return fight


def events(log, kind):
    return [e for e in log["events"] if e["type"] == kind]


def test_os5_a_caster_that_fails_a_saving_throw_before_its_side_acts_loses_the_spell():
    # The gaze misses (d20 2 vs AC 11) but forces the save: d20 5 - 1 = 4 against paralysis 13 fails.
    fight = scripted(Fight(compile_scenario(GAZE)), {0: [4], 1: [2], 2: [5]})
    log = fight.play_round(7)
    (attack,) = events(log, "attack")
    assert attack["who"] == "medusa" and attack["damage"] == 0
    (save,) = events(log, "save")
    assert {k: save[k] for k in ("who", "by", "effect", "category", "roll", "modifier", "total", "save", "saved",
                                 "rule")} == {"who": "Magic-user", "by": "medusa", "effect": "petrifying gaze",
                                              "category": "paralysis", "roll": 5, "modifier": -1, "total": 4,
                                              "save": 13, "saved": False, "rule": "OS-5"}
    assert save["p_save"] == 0.35  # faces 14..20: 7 in 20
    (lost,) = events(log, "spell lost")
    assert lost == {"type": "spell lost", "who": "Magic-user", "spell": "magic missile", "rule": "OS-5",
                    "why": "failed a saving throw this round before its side acted"}
    assert events(log, "spell") == [] and fight.by_id["Magic-user"].spell_uses == 0


def test_os5_a_caster_that_saves_casts_its_spell():
    # d20 18 - 1 = 17 against 13 saves: the magic-user casts in the magic phase.
    fight = scripted(Fight(compile_scenario(GAZE)), {0: [4], 1: [2], 2: [18]})
    log = fight.play_round(7)
    (save,) = events(log, "save")
    assert save["saved"] is True and save["total"] == 17
    assert events(log, "spell lost") == []
    (spell,) = events(log, "spell")
    assert spell["who"] == "Magic-user" and spell["phase"] == "magic" and spell["spell"] == "magic missile"
    assert fight.by_id["Magic-user"].spell_uses == 0


def test_os5_natural_20_saves_and_natural_1_fails_in_a_fight():
    hard = copy.deepcopy(GAZE)
    hard["sides"]["party"][0]["save"] = 30
    log = scripted(Fight(compile_scenario(hard)), {0: [4], 1: [2], 2: [20]}).play_round(7)
    assert events(log, "save")[0]["saved"] is True and events(log, "spell")
    easy = copy.deepcopy(GAZE)
    easy["sides"]["party"][0]["save"] = 1
    log = scripted(Fight(compile_scenario(easy)), {0: [4], 1: [2], 2: [1]}).play_round(7)
    assert events(log, "save")[0]["saved"] is False and events(log, "spell lost")


def test_os5_harmed_and_failed_both_named():
    # The gaze hits (d20 19 vs AC 11, 1d6 3) and the save fails: one spell lost, both reasons.
    log = scripted(Fight(compile_scenario(GAZE)), {0: [4], 1: [19, 3], 2: [5]}).play_round(7)
    (lost,) = events(log, "spell lost")
    assert lost["why"] == "harmed and failed a saving throw this round before its side acted"


def test_os5_a_failed_save_after_the_casters_side_acted_costs_nothing():
    # The party acts first (the medusa side waits): the spell is cast before any save.
    first = copy.deepcopy(GAZE)
    first["initiative"] = {"wait": ["medusa"]}
    fight = scripted(Fight(compile_scenario(first)), {0: [4], 1: [2], 2: [2], 3: [5]})
    log = fight.play_round(7)
    kinds = [e["type"] for e in log["events"]]
    assert kinds.index("spell") < kinds.index("save") and "spell lost" not in kinds
    assert events(log, "save")[0]["saved"] is False


def test_os5_by_says_which_attacks_force_the_save():
    # A caster enemy whose save_or is by its attacks: its spell (cast in round 1) forces none.
    scenario = copy.deepcopy(GAZE)
    medusa = scenario["sides"]["medusa"][0]
    medusa["spell"] = {"name": "sleep", "strikes": [{"method": "missile", "damage": "1d4"}]}
    medusa["save_or"]["by"] = "attacks"
    log = Fight(compile_scenario(scenario)).play_round(7)
    assert any(e["who"] == "medusa" for e in events(log, "spell")) and events(log, "save") == []
    medusa["save_or"]["by"] = "spell"
    log = Fight(compile_scenario(scenario)).play_round(7)
    (save,) = events(log, "save")
    assert save["by"] == "medusa"


def test_os5_every_save_follows_the_rule_and_its_odds_are_the_save_kinds():
    # Over many seeds: each save event is the d20 + modifier against the number (natural 20
    # saves, natural 1 fails), its p_save the save kind's exact chance; a standing caster
    # whose side had not acted loses its spell exactly when harmed or failed.
    sc = compile_scenario(GAZE)
    exact = fracas.save({"ruleset": "old-school", "category": "paralysis", "modifier": -1,
                         "targets": [{"id": "m", "saves": {"spells": 15, "paralysis": 13}}], "rolls": [1]}).to_dict()
    failed = lost = 0
    for seed in range(300):
        log = Fight(sc).play_round(seed)
        (save,) = events(log, "save")
        roll = save["roll"]
        assert save["saved"] == (roll == 20 or (roll != 1 and roll - 1 >= 13))
        assert save["p_save"] == exact["targets"][0]["p_save"]
        order = [e["type"] for e in log["events"]]
        hurt = events(log, "attack")[0]["damage"] > 0 if events(log, "attack") else False
        before = order.index("save") < order.index("spell") if "spell" in order else True
        if before and (hurt or not save["saved"]):
            assert "spell lost" in order
        failed += not save["saved"]
        lost += "spell lost" in order
    assert 150 < failed < 240 and lost >= failed // 2  # P(fail) = 13/20


@pytest.mark.parametrize(("change", "path"), [
    (lambda s: s["sides"]["party"][0].pop("save"), "$.sides.party[0].save"),
    (lambda s: s["sides"]["party"][0].update(save={"spells": 15}), "$.sides.party[0].save"),
    (lambda s: s["sides"]["party"][0].update(save={}), "$.sides.party[0].save"),
    (lambda s: s["sides"]["party"][0].update(save=31), "$.sides.party[0].save"),
    (lambda s: s["sides"]["party"][0].update(save={"spells": 0}), "$.sides.party[0].save.spells"),
    (lambda s: s["sides"]["medusa"][0]["save_or"].update(luck=1), "$.sides.medusa[0].save_or.luck"),
    (lambda s: s["sides"]["medusa"][0]["save_or"].update(modifier=21), "$.sides.medusa[0].save_or.modifier"),
    (lambda s: s["sides"]["medusa"][0]["save_or"].update(by="gaze"), "$.sides.medusa[0].save_or.by"),
    (lambda s: s["sides"]["medusa"][0]["save_or"].update(by="spell"), "$.sides.medusa[0].save_or.by"),
    (lambda s: s["sides"]["medusa"][0]["save_or"].update(category=""), "$.sides.medusa[0].save_or.category"),
])
def test_os5_scenario_mistakes_name_their_field(change, path):
    scenario = copy.deepcopy(GAZE)
    change(scenario)
    with pytest.raises(fracas.RequestError) as info:
        compile_scenario(scenario)
    assert info.value.path == path, (info.value.path, info.value.reason)


def test_os5_saves_belong_to_the_old_school_round():
    scenario = load("er-skeleton-horde.json")
    first = next(iter(scenario["sides"]))
    scenario["sides"][first][0]["save_or"] = {"effect": "fear"}
    with pytest.raises(fracas.RulesError) as info:
        compile_scenario(scenario)
    assert info.value.path == f"$.sides.{first}[0].save_or" and "old-school (OS-5)" in info.value.reason


# -- the compiled loop ------------------------------------------------------------------------

def _with_saves() -> dict:
    """The goblin ambush with saving throws: every combatant has a save (a number, or a
    table by category); the chief's blows force a death save, the archers' arrows a
    paralysis save (by attacks), a goblin shaman's spell a spells save (by spell), and the
    elf's arrows a save of no category (the goblins have one number for all)."""
    scenario = load("os-goblin-ambush.json")
    for side, entries in scenario["sides"].items():
        for i, entry in enumerate(entries):
            entry["save"] = 12 + i if side == "goblins" or i == 0 else {"spells": 14 - i, "paralysis": 12 + i,
                                                                          "death": 10 + i}
    goblins = {e["name"]: e for e in scenario["sides"]["goblins"]}
    goblins["goblin chief"]["save_or"] = {"category": "death", "effect": "fear", "modifier": -2, "by": "any"}
    scenario["sides"]["party"][1]["save_or"] = {"effect": "elf-shot", "by": "attacks"}
    goblins["goblin archer"]["save_or"] = {"category": "paralysis", "effect": "venom", "by": "attacks"}
    scenario["sides"]["goblins"].append({
        "name": "goblin shaman", "hp": 6, "morale": 8, "save": 13, "attacker": {"attack_bonus": 0},
        "target": {"ac": 12}, "attacks": [{"method": "melee", "damage": "1d4"}],
        "spell": {"name": "hex", "uses": 2, "strikes": [{"method": "missile", "damage": "1d4", "range": "short"}]},
        "save_or": {"category": "spells", "effect": "hex", "modifier": 1, "by": "spell"}})
    return scenario


@compiled
@pytest.mark.parametrize("scenario", [GAZE, _with_saves()], ids=["gaze", "goblin-ambush-with-saves"])
def test_os5_the_compiled_loop_rolls_the_same_saving_throws(scenario):
    # OS-5 on both loops: each save_or's saving throw is the next random event after its
    # attack (hit or miss, while the target stands), and a declared caster that failed one
    # before its side acted loses its spell: the same fights, fight by fight.
    assert not isinstance(fastfight.plan_for(compile_scenario(scenario)), str)
    assert _same_fights(scenario, 5, 40) == 40
    loop = simulate(scenario, runs=20, seed=3)["fight_loop"]
    assert (loop["compiled_fights"], loop["python_why"]) == (20, None)


@compiled
def test_os5_saving_throws_change_the_fights_the_compiled_loop_plays():
    # The same fights without any save_or: the saves above are not idle (spells are lost
    # to them, so the magic-user's and the shaman's damage differs).
    scenario = _with_saves()
    plain = copy.deepcopy(scenario)
    for entries in plain["sides"].values():
        for entry in entries:
            entry.pop("save_or", None)
    with_saves = play_batch(orjson.dumps(scenario), 5, 0, 300, "auto")
    without = play_batch(orjson.dumps(plain), 5, 0, 300, "auto")
    assert with_saves["compiled_fights"] == without["compiled_fights"] == 300
    assert with_saves != without


@compiled
def test_os5_saves_without_an_effect_play_the_same_fights_on_both_loops():
    # Combatants with saving throws but no save_or: nothing forces a save, the compiled
    # loop plays the goblin ambush (OS-5 spells lost to harm) fight for fight as the Python loop.
    scenario = load("os-goblin-ambush.json")
    for entries in scenario["sides"].values():
        for entry in entries:
            entry["save"] = {"spells": 15, "breath": 16}
    assert not isinstance(fastfight.plan_for(compile_scenario(scenario)), str)
    blob = orjson.dumps(scenario)
    fast, slow = play_batch(blob, 9, 0, 100, "auto"), play_batch(blob, 9, 0, 100, "python")
    assert (fast.pop("compiled_fights"), fast.pop("python_fights")) == (100, 0)
    assert (slow.pop("compiled_fights"), slow.pop("python_fights")) == (0, 100)
    assert fast == slow
