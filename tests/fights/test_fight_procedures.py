"""Each ruleset's round in a whole fight, step by step, with injected dice.

The decisions are RULES.md's "Whole fights: each ruleset's round"; the quotes are from
the seed texts (004: old-school combat, 002: Worldwalker, 003: Cartyrion). A
`Scripted` fight hands its k-th random event (initiative, a random target, an attack,
a morale check) the k-th list of faces, so each test shows one procedure exactly.
Rules cited: OS-2, OS-3, OS-4, OS one action, WW-5, WW-6, CT-5, CT-6, CT-7.
"""

from __future__ import annotations

import copy
from array import array

import pytest

from fracas.dice import Dice
from fracas.drive.fight import Fight
from fracas.drive.scenario import compile_scenario
from fracas.errors import RequestError
from fracas.rng import chunk_seed

from . import loop_counts


class Scripted(Fight):
    """A fight whose k-th random event rolls the k-th list of `script` (injected faces)."""

    def __init__(self, sc, script, state=None):
        super().__init__(sc, state)
        self.script = [list(faces) for faces in script]

    def stream(self):
        seed = chunk_seed(self._seed, self._k)
        self._k += 1
        assert self.script, f"round {self.round}: random event {self._k - 1} has no faces scripted"
        return Dice.from_seed(seed, array("i", self.script.pop(0))), seed


def events(log, *types):
    return [e for e in log["events"] if not types or e["type"] in types]


# -- old-school (seed 004) ------------------------------------------------------------------------

def os_scenario(goblins=2, morale=7, hp=1, **goblin):
    return {"ruleset": "old-school", "name": "procedures", "sides": {
        "hero": [{"name": "hero", "hp": 100, "attacker": {"attack_bonus": 0, "str_mod": 0},
                  "target": {"ac": 10}, "attacks": [{"method": "melee", "damage": "1d4"}]}],
        "goblins": [{"name": "goblin", "count": goblins, "hp": hp, "morale": morale,
                     "attacker": {"attack_bonus": 0}, "target": {"ac": 13, "shield": 1},
                     "attacks": [{"method": "melee", "damage": "1d4"}], **goblin}]}}


def test_os4_morale_is_step_5_after_every_side_has_acted():
    # Seed 004, "Combat Procedure Per Round": "3. Winning side acts … 4. Other sides act …
    # 5. Morale: The Referee makes a Morale Check". The goblin that kills nobody still
    # attacks after its friend's death; the check comes last.
    sc = compile_scenario(os_scenario(goblins=3))
    fight = Scripted(sc, [[6, 1],      # OS-1 initiative: hero 6, goblins 1
                          [15, 2],     # hero hits goblin 1 (15 >= 13) for 2: down
                          [5], [5],    # goblins 2 and 3 miss
                          [3, 2]])     # OS-4 first death: 2d6 = 5 <= 7, holds
    log = fight.play_round(1)
    kinds = [e["type"] for e in events(log)]
    assert kinds == ["attack", "down", "attack", "attack", "morale"]
    morale = events(log, "morale")[0]
    assert morale["trigger"] == "first death" and morale["when"] == "end of round"
    assert morale["dice"] == [3, 2] and morale["against"] == 7 and not morale["breaks"]
    assert morale["rule"] == "OS-4"
    # draw order: the k-th random event of the round draws stream k of the round seed
    assert [e["seed"] for e in events(log, "attack", "morale")] == [chunk_seed(1, k) for k in (1, 2, 3, 4)]


def test_os4_a_broken_side_declares_flight_and_is_attacked_at_plus_2_without_its_shield():
    # Seed 004: "If the result exceeds the combatant's Morale, their morale breaks and they try
    # to surrender or flee in the next Round"; "Fleeing from melee: The intention to flee from
    # melee this Round must be declared. Opponents that win initiative may attack the fleeing
    # combatant with a bonus"; "Opponents in melee with a retreating combatant gain a +2 Attack
    # bonus against them this Round and ignore any AC bonus from their shield."
    sc = compile_scenario(os_scenario())
    fight = Scripted(sc, [[6, 1], [15, 2], [5], [6, 5],   # round 1: goblin 1 down; 11 > 7 breaks
                          [5, 2],                          # round 2: hero wins initiative
                          [10, 4]])                        # 10 + 2 vs AC 13 - 1 shield: hits
    first = fight.play_round(1)
    morale = events(first, "morale")[0]
    assert morale["breaks"] and morale["then"].startswith("flees next round")
    assert fight.by_id["goblin 2"].status == "standing"  # no vanishing at once
    log = fight.play_round(2)
    kinds = [e["type"] for e in events(log)]
    assert kinds[0] == "flight" and kinds == ["flight", "attack", "down", "end"]
    flight = events(log, "flight")[0]
    assert flight["who"] == ["goblin 2"] and flight["rule"] == "OS-4"
    assert log["initiative"]["sides"][0]["roll"] == 5  # declared before initiative
    attack = events(log, "attack")[0]
    strike = attack["result"]["strikes"][0]
    assert attack["situation"] == {"target": {"fleeing": True}}
    assert strike["attack_total"] == 12 and strike["ac"] == 12 and strike["shield_ignored"] and strike["hit"]
    assert fight.winner == "hero"


def test_os4_a_fleeing_side_that_wins_initiative_is_gone_before_the_opponents_act():
    sc = compile_scenario(os_scenario())
    fight = Scripted(sc, [[6, 1], [15, 2], [5], [6, 5],
                          [1, 4]])                         # round 2: goblins act first and leave
    fight.play_round(1)
    log = fight.play_round(2)
    assert [e["type"] for e in events(log)] == ["flight", "fled", "end"]  # forfeits its attack
    assert fight.by_id["goblin 2"].status == "fled" and fight.winner == "hero"


def test_os4_a_broken_side_may_surrender_in_the_next_round_instead():
    # Seed 004: "their morale breaks and they try to surrender or flee in the next Round".
    sc = compile_scenario(os_scenario(tactic={"flee": "surrender"}))
    fight = Scripted(sc, [[6, 1], [15, 2], [5], [6, 5]])
    morale = events(fight.play_round(1), "morale")[0]
    assert morale["breaks"] and morale["then"] == "surrenders next round"
    log = fight.play_round(2)
    assert [e["type"] for e in events(log)] == ["surrender", "end"] and log["initiative"] is None
    assert fight.by_id["goblin 2"].status == "fled" and fight.winner == "hero"


def test_os4_first_death_counts_the_killed_not_the_fled():
    # Seed 004: "When to check Morale: The first time a combatant on the same side is killed".
    # A goblin leaving at its flee_at is defeated, not killed: no check (1 of 4 is not half).
    sc = compile_scenario(os_scenario(goblins=4, hp=10, tactic={"flee_at": 9}))
    script = [[6, 1], [15, 2], [5], [5], [5], [5],   # round 1: goblin 1 hurt to 8; four misses
              [6, 1],                                 # round 2: goblin 1 declared flight
              [5],                                    # hero at goblin 2 (nearest standing): miss
              [5], [5], [5]]                          # goblin 1 flees; the other three miss
    fight = Scripted(sc, script)
    fight.play_round(1)
    log = fight.play_round(2)
    assert events(log, "flight")[0]["why"] == "hp 8 <= flee_at 9"
    assert fight.by_id["goblin 1"].status == "fled"
    assert not events(log, "morale") and fight.state()["triggers"] == {}


def test_os4_one_check_per_side_and_morale_groups_check_apart():
    # Seed 004: "One check per side: Typically a single Morale Check is made for all members
    # of a side, rather than one check per individual." One 2d6, read against each group's
    # Morale; a scenario's morale_group checks on its own.
    scenario = os_scenario()
    scenario["sides"]["goblins"].append({"name": "chief", "hp": 50, "morale": 9, "attacker": {},
                                         "target": {"ac": 13}, "attacks": [{"method": "melee", "damage": "1d4"}]})
    sc = compile_scenario(scenario)
    fight = Scripted(sc, [[6, 1], [15, 2], [5], [5], [4, 4]])   # 8: the goblins (7) break, the chief (9) holds
    log = fight.play_round(1)
    checks = events(log, "morale")
    assert len(checks) == 1  # one check for the side: one roll, one event
    check = checks[0]
    assert check["unit"] == check["group"] == "goblins" and check["dice"] == [4, 4] and check["total"] == 8
    assert [(g["group"], g["against"], g["breaks"]) for g in check["groups"]] == [("goblin", 7, True),
                                                                                ("chief", 9, False)]
    assert check["breaks"] and check["against"] == 7
    assert fight.state()["morale"] == {"goblin": {"successes": 0, "broken": True, "to_death": False},
                                       "chief": {"successes": 1, "broken": False, "to_death": False}}
    scenario["sides"]["goblins"][1]["morale_group"] = "bodyguard"
    fight = Scripted(compile_scenario(scenario), [[6, 1], [15, 2], [5], [5], [4, 4]])
    checks = events(fight.play_round(1), "morale")
    assert [(c["unit"], c["group"]) for c in checks] == [("goblins", "goblin")]  # the chief's unit lost no one


def test_os4_a_lone_creature_checks_when_first_harmed_and_again_at_a_quarter():
    # Seed 004: "For a creature encountered alone, a Morale Check should be made when it is
    # first harmed and when it is reduced to 1/4 or less Hit Points."
    scenario = os_scenario(goblins=1, hp=20, morale=10)
    scenario["sides"]["hero"][0]["attacks"] = [{"method": "melee", "damage": "1d10"}]
    sc = compile_scenario(scenario)
    fight = Scripted(sc, [[6, 1], [15, 3], [5], [2, 2],          # harmed: 20 -> 17, check
                          [6, 1], [15, 4], [5],                   # 17 -> 13: no new check
                          [6, 1], [15, 8], [5], [1, 1]])          # 13 -> 5 <= 20/4: check
    checks = [[e["trigger"] for e in events(fight.play_round(r), "morale")] for r in (1, 2, 3)]
    assert checks == [["lone creature harmed"], [], ["lone creature at 1/4 hp"]]


def test_os4_two_passed_checks_mean_no_more_checks():
    # Seed 004: "Two successes: If a combatant makes two successful Morale Checks in an
    # encounter, they will fight until killed, with no further checks necessary."
    # One of two goblins down: the first death and half the side, two checks at step 5.
    sc = compile_scenario(os_scenario(goblins=2, morale=7))
    fight = Scripted(sc, [[6, 1], [15, 2], [5], [2, 2], [1, 1]])
    log = fight.play_round(1)
    checks = events(log, "morale")
    assert [c["trigger"] for c in checks] == ["first death", "half the side defeated"]
    assert [c["fights_to_death"] for c in checks] == [False, True]
    assert fight.state()["morale"]["goblin"] == {"successes": 2, "broken": False, "to_death": True}


def test_os4_a_group_of_morale_12_fights_to_the_death_from_the_start():
    # OS-4 "Morale 12 never checks": the old-school round says so as the fight starts (the
    # driver names no morale level); the compiled loop's start uses the same morale.fights_to_death.
    assert Fight(compile_scenario(os_scenario(morale=12))).state()["morale"]["goblin"]["to_death"] is True
    assert Fight(compile_scenario(os_scenario(morale=11))).state()["morale"]["goblin"]["to_death"] is False


def test_os_one_action_a_round_missile_or_melee_by_tactic():
    # Seed 004: "Combatants may move and perform one action each Round" ("Make an attack").
    both = [{"method": "missile", "damage": "1d6", "range": "short"}, {"method": "melee", "damage": "1d8"}]
    scenario = os_scenario(goblins=1, hp=100, morale=12)
    scenario["sides"]["hero"][0]["attacks"] = both
    fight = Scripted(compile_scenario(scenario), [[6, 1], [5], [5]])
    log = fight.play_round(1)
    assert [(e["who"], e["phase"]) for e in events(log, "attack")] == [("hero", "melee"), ("goblin", "melee")]
    scenario["sides"]["hero"][0]["tactic"] = {"action": "missile"}
    fight = Scripted(compile_scenario(scenario), [[6, 1], [5], [5]])
    log = fight.play_round(1)
    assert [(e["who"], e["phase"]) for e in events(log, "attack")] == [("hero", "missile"), ("goblin", "melee")]
    scenario["sides"]["goblins"][0]["tactic"] = {"action": "missile"}
    with pytest.raises(RequestError) as err:
        compile_scenario(scenario)
    assert err.value.path == "$.sides.goblins[0].tactic.action" and "no missile strike" in err.value.reason


# -- Worldwalker (seed 002) -----------------------------------------------------------------------

def ww_scenario(reserve=1, strikes=1, two_weapon=False):
    knight = {"name": "knight", "hp": 100, "attacker": {"skill": 0, "str_mod": 0},
              "target": {"defense": 10, "reaction": {"kind": "block", "bonus": 0}},
              "attacks": [{"method": "melee", "damage": "1d4"}], "tactic": {"reserve": reserve}}
    if two_weapon:
        knight["attacker"]["two_weapon"] = {"talent": "dual-weapon-training+shield-specialist"}
    return {"ruleset": "worldwalker", "name": "reserve", "sides": {
        "raider": [{"name": "raider", "hp": 100, "attacker": {"skill": 0, "str_mod": 0},
                    "target": {"defense": 10}, "initiative": 50,
                    "attacks": [{"method": "melee", "damage": "1d4"}] * strikes}],
        "knight": [knight]}}


def test_ww5_each_reserved_action_buys_one_block_and_forgoes_an_attack():
    # Seed 002, "Reserve Actions": "A character can choose to forgo making use of his
    # allotment of Complex Actions during his own turn in order to use them to make block or
    # dodge attempts … Actions that are held in reserve cannot be spent on other actions if the
    # character is not attacked and do not carry over into the following round."
    sc = compile_scenario(ww_scenario(reserve=1, strikes=3))
    fight = Scripted(sc, [[1, 1],                 # WW-1: raider 1 + 50 first
                          [15, 16],               # strike 1 hits (15 >= 10); block 16 >= 15 negates
                          [15, 3],                # strike 2 hits: no reserved action left, no block roll
                          [12, 2]])               # strike 3 hits: no block either
    log = fight.play_round(1)
    attacks = events(log, "attack")
    assert len(attacks) == 3 and len({a["seed"] for a in attacks}) == 3  # a strike is an attack
    reactions = [a["result"]["strikes"][0]["reaction"] for a in attacks]
    assert reactions[0]["negated"] and reactions[1] is None and reactions[2] is None
    assert [a["damage"] for a in attacks] == [0, 3, 2]
    assert attacks[1]["situation"] == {"target": {"reaction": None}}
    spent = events(log, "reserve spent")
    assert spent == [{"type": "reserve spent", "who": "knight", "spent": 1, "left": 0, "rule": "WW-5"}]
    reserve = events(log, "reserve")[0]
    assert reserve["forgoes"] == [0] and reserve["actions"] == 0  # its one action: no attack
    assert not [a for a in attacks if a["who"] == "knight"]
    # the next round the reserve is whole again (nothing carried over)
    fight.script = [[15, 16], [5], [5]]
    log = fight.play_round(2)
    assert events(log, "attack")[0]["result"]["strikes"][0]["reaction"]["negated"]


def test_ww5_ww6_the_off_hand_bonus_action_is_reserved_first():
    # Seed 002, "Fighting with Two Weapons": "a single bonus Complex action that must be used to
    # make either an attack or a block attempt with the off hand weapon"; a shield counts.
    sc = compile_scenario(ww_scenario(reserve=1, two_weapon=True))
    fight = Scripted(sc, [[1, 1], [15, 16], [9, 2]])
    log = fight.play_round(1)
    reserve = events(log, "reserve")[0]
    assert reserve["forgoes"] == [] and reserve["reserved"] == 1
    assert [a["who"] for a in events(log, "attack")] == ["raider", "knight"]  # it still attacks


@pytest.mark.parametrize(("change", "path", "words"), [
    ({"reserve": 2}, "$.sides.knight[0].tactic.reserve", "reserve"),
    ({"target": {"defense": 10}}, "$.sides.knight[0].tactic.reserve", "target.reaction"),
])
def test_ww5_reserve_is_checked_before_the_fight(change, path, words):
    scenario = ww_scenario()
    knight = scenario["sides"]["knight"][0]
    if "reserve" in change:
        knight["tactic"]["reserve"] = change["reserve"]
    else:
        knight["target"] = change["target"]
    with pytest.raises(RequestError) as err:
        compile_scenario(scenario)
    assert err.value.path == path and words in err.value.reason


def test_tactics_of_another_ruleset_are_refused_naming_it():
    scenario = os_scenario()
    scenario["sides"]["hero"][0]["tactic"] = {"reserve": 1}
    with pytest.raises(RequestError) as err:
        compile_scenario(scenario)
    assert err.value.path == "$.sides.hero[0].tactic.reserve" and "worldwalker (WW-5)" in err.value.reason


# -- Cartyrion (seed 003) -------------------------------------------------------------------------

def ct_scenario(giant_tactic=None, hero_tactic=None, hero_target=None, hero_attack=None):
    return {"ruleset": "cartyrion", "name": "weapons", "initiative": {"party": "heroes"}, "sides": {
        "heroes": [{"name": "hero", "hp": 60, "injury": 20,
                    "attacker": {"level": 1, "bonus": 2, "awa": 4},
                    "target": hero_target or {"dex": 0, "armor": 0},
                    "attacks": [hero_attack or {"method": "melee", "die": "d6"}],
                    "tactic": hero_tactic or {}}],
        "giant": [{"name": "giant", "hp": 80, "injury": 30, "attacker": {"level": 1, "bonus": 3},
                   "target": {"dex": 0, "armor": 1}, "attacks": [{"method": "melee", "die": "d8"}],
                   "tactic": giant_tactic or {}}]}}


def test_ct5_a_power_attack_breaks_the_weapon_for_the_rest_of_the_fight():
    # Seed 003, "Power Attacks": "the number of damage dice is doubled - but the weapon is
    # assumed to be broken and unusable after the attack."
    sc = compile_scenario(ct_scenario(giant_tactic={"power": "first"}))
    fight = Scripted(sc, [[2],            # CT-1: 2, the opponents (giant) first
                          [3, 4],         # power attack: two d8 instead of one
                          [2]])           # the hero's d6
    log = fight.play_round(1)
    power = events(log, "attack")[0]
    assert power["situation"] == {"strikes": {"0": {"power": True}}}
    assert power["result"]["strikes"][0]["dice"] == 2 and power["damage"] == 3 + 4 + 3
    assert events(log, "weapon broken")[0]["who"] == "giant"
    fight.script = [[2], [4]]
    log = fight.play_round(2)
    assert events(log, "no weapon")[0]["who"] == "giant"
    assert [e["who"] for e in events(log, "attack")] == ["hero"]
    assert fight.state()["members"][1]["broken"] == [0]


def test_ct6_a_shield_parry_is_the_turn_and_lasts_until_the_next_one():
    # Seed 003, "Parrying": "If a character decides to parry, it cannot make an attack on its
    # turn, but incoming damage from all sources is mitigated until their next combat turn."
    # "The shield takes double damage from absorbed blows. If the shield takes enough damage to
    # be destroyed, additional damage will affect the character"
    sc = compile_scenario(ct_scenario(hero_tactic={"parry": "shield"},
                                      hero_target={"dex": 0, "armor": 0, "shield": 10}))
    fight = Scripted(sc, [[5],            # the party first: the hero parries (no attack)
                          [3]])           # giant: 3 + 3 = 6 - 1 armor... of the hero: 0 -> 6
    log = fight.play_round(1)
    assert [e["type"] for e in events(log)] == ["parry", "attack", "shield destroyed"]
    parried = events(log, "attack")[0]
    assert parried["situation"]["strikes"] == {"0": {"parry": "shield"}}
    strike = parried["result"]["strikes"][0]
    assert strike["parry"]["absorbed"] == 5 and parried["damage"] == 1  # 10 points take 5 blows' worth
    assert fight.by_id["hero"].shield_left == 0
    assert events(log, "shield destroyed")[0]["who"] == "hero"
    fight.script = [[5], [2], [3]]        # round 2: the destroyed shield stays destroyed: it attacks
    log = fight.play_round(2)
    assert not events(log, "parry") and [e["who"] for e in events(log, "attack")] == ["hero", "giant"]
    assert "situation" not in events(log, "attack")[1]


def test_ct6_a_shattered_parrying_weapon_stays_shattered():
    # Seed 003, "Parrying with a Weapon": "If any attacker rolls a damage die that explodes, the
    # attack blow is assumed to shatter the character's weapon. The damage that causes this will
    # be fully mitigated, but no further damage reduction is possible, and the weapon is useless."
    sc = compile_scenario(ct_scenario(hero_tactic={"parry": "weapon"}))
    fight = Scripted(sc, [[5], [8, 2]])   # the giant's d8 explodes: all mitigated, the weapon shatters
    log = fight.play_round(1)
    attack = events(log, "attack")[0]
    assert attack["damage"] == 0 and attack["result"]["strikes"][0]["parry"]["broken"]
    assert events(log, "weapon shattered")[0]["who"] == "hero"
    fight.script = [[5], [4]]
    log = fight.play_round(2)
    assert events(log, "no weapon") and not events(log, "parry")
    assert events(log, "attack")[0]["damage"] == 4 + 3


def test_ct6_parry_at_parries_only_when_hurt():
    sc = compile_scenario(ct_scenario(hero_tactic={"parry": "weapon", "parry_at": 30}))
    fight = Scripted(sc, [[5], [3], [2]])
    log = fight.play_round(1)
    assert not events(log, "parry") and [e["who"] for e in events(log, "attack")] == ["hero", "giant"]


def test_ct7_no_sneak_attack_on_a_target_attacked_in_the_prior_round():
    # Seed 003, "Sneak Attacks": "a sneak attack cannot be performed if the attacker has already
    # made an attack on the target in the prior combat round."
    sc = compile_scenario(ct_scenario(hero_attack={"method": "melee", "die": "d6", "sneak": "passed"}))
    pools = []
    for r in range(1, 4):
        fight_script = [[5], [2], [1]]
        if r == 1:
            fight = Scripted(sc, fight_script)
        else:
            fight.script = fight_script
        log = fight.play_round(r)
        hero = [e for e in events(log, "attack") if e["who"] == "hero"][0]
        pools.append(hero["result"]["strikes"][0]["pool"])
        assert (hero.get("situation") == {"strikes": {"0": {"sneak": None}}}) == (r > 1)
    # engaged from round 1 on, it attacks the giant every round: no second sneak attack
    assert pools == ["injury", "stamina", "stamina"]
    assert fight.state()["members"][0]["attacked"] == ["giant"]


def test_ct_strikes_in_a_scenario_do_not_parry():
    scenario = ct_scenario(hero_attack={"method": "melee", "die": "d6", "parry": "weapon"})
    with pytest.raises(RequestError) as err:
        compile_scenario(scenario)
    assert err.value.path == "$.sides.heroes[0].attacks[0].parry" and "CT-6" in err.value.reason


def test_ct_memory_survives_the_encounter_state():
    sc = compile_scenario(ct_scenario(giant_tactic={"power": "first"}, hero_tactic={"parry": "shield"},
                                      hero_target={"dex": 0, "armor": 0, "shield": 30}))
    fight = Scripted(sc, [[5], [3, 4]])   # the hero parries, then the giant's power attack
    fight.play_round(1)
    state = copy.deepcopy(fight.state())
    again = Fight(sc, state)
    assert again.state() == state
    assert again.by_id["giant"].broken == [0] and again.by_id["hero"].parrying == "shield"
    assert again.by_id["hero"].shield_left == 30 - 2 * (3 + 4 + 3)  # double damage (CT-6)


# -- every attack of every example replays alone, in its situation ---------------------------------

@pytest.mark.parametrize("name", ["os-goblin-ambush", "ww-duel", "ct-hill-giant", "er-skeleton-horde"])
def test_every_attack_replays_alone_from_its_seed_and_situation(name):
    # docs/ENCOUNTERS.md: "fracas.resolve of the same strikes at that target, changed as its
    # situation says, with that seed gives the same dice".
    import json

    import fracas
    from fracas.drive.scenario import example

    sc = compile_scenario(json.loads(example(name)))
    groups = dict(zip(sc.member_ids, sc.member_group))
    checked, situations = 0, set()
    for seed in range(6):
        fight = Fight(sc)
        while not fight.over:
            for e in fight.play_round(chunk_seed(seed, fight.round + 1))["events"]:
                if e["type"] != "attack":
                    continue
                g, t = sc.groups[groups[e["who"]]], sc.groups[groups[e["target"]]]
                changes = e.get("situation", {})
                target = {**t.spec.target, **changes.get("target", {})}
                target = {k: v for k, v in target.items() if v is not None}
                strikes = []
                for i in e.get("strikes", g.phases[e["phase"]]):
                    strike = {**g.spec.attacks[i], **changes.get("strikes", {}).get(str(i), {}), "target": e["target"]}
                    strikes.append({k: v for k, v in strike.items() if v is not None})
                request = {"ruleset": sc.ruleset.name, "attacker": g.spec.attacker, "strikes": strikes,
                           "targets": {e["target"]: target}}
                result = fracas.resolve(request, seed=e["seed"]).to_dict()
                assert result["strikes"] == e["result"]["strikes"] and result["total_damage"] == e["damage"]
                situations.update(changes.get("target", {}))
                for fields in changes.get("strikes", {}).values():
                    situations.update(fields)
                checked += 1
    assert checked > 10
    expected = {"os-goblin-ambush": {"fleeing"}, "ww-duel": set(), "ct-hill-giant": {"power"},
                "er-skeleton-horde": set()}[name]
    assert expected <= situations


def test_the_cli_round_shows_each_procedure_step():
    import re

    from fracas.cli.fights import render_round as styled

    def render_round(log):
        return re.sub(r"\x1b\[[0-9;]*m", "", styled(log))

    fight = Scripted(compile_scenario(os_scenario()), [[6, 1], [15, 2], [5], [6, 5], [5, 2], [10, 4]])
    first, second = render_round(fight.play_round(1)), render_round(fight.play_round(2))
    assert "morale of goblin (first death, OS-4): 2d6 11 vs 7: breaks; flees next round" in first
    assert "goblin 2 declare flight (its morale broke, OS-4)" in second and "[fleeing=True]" in second
    fight = Scripted(compile_scenario(ww_scenario(reserve=1, strikes=2)), [[1, 1], [15, 16], [15, 3]])
    text = render_round(fight.play_round(1))
    assert "knight spends a reserved action (0 left, WW-5)" in text
    assert "knight holds 1 action(s) in reserve to block or dodge, forgoing 1 strike(s)" in text
    fight = Scripted(compile_scenario(ct_scenario(giant_tactic={"power": "first"}, hero_tactic={"parry": "shield"},
                                                  hero_target={"dex": 0, "armor": 0, "shield": 4})),
                     [[5], [3, 4]])
    text = render_round(fight.play_round(1))
    assert "hero parries with its shield (CT-6): no attack this turn" in text
    assert "giant: weapon broken" in text and "hero: shield destroyed" in text and "[shield=4, strike 0 parry=shield, strike 0 power=True]" in text


def test_ct1_a_combatant_that_cannot_be_surprised_takes_its_turn_while_its_side_is_surprised():
    # Seed 003, "Surprise": "members of that side do not get to take Combat Turns in this first
    # Combat Round, unless they have some trait or ability that precludes their being surprised.
    # These exceptions are individual, though; one party member that cannot be surprised may
    # get a Combat Turn, but the rest of the party is still surprised."
    scenario = ct_scenario()
    scenario["sides"]["heroes"].append({"name": "sentry", "hp": 30, "injury": 10, "surprise_immune": True,
                                        "attacker": {"level": 1, "bonus": 1}, "target": {"dex": 0, "armor": 0},
                                        "attacks": [{"method": "melee", "die": "d4"}]})
    sc = compile_scenario(scenario)
    fight = Scripted(sc, [[1],      # CT-1, first round: 1, the opponents surprise the party
                          [5],      # the giant's d8
                          [3]])     # the sentry's d4: it is not surprised
    log = fight.play_round(1)
    assert log["surprised"] == ["hero"]
    assert [(e["who"], e["target"]) for e in events(log, "attack")] == [("giant", "hero"), ("sentry", "giant")]
    (awake,) = events(log, "not surprised")
    assert awake["who"] == ["sentry"] and awake["rule"] == "CT-1"
    fight.script = [[5], [2], [3], [1]]  # round 2: no surprise after the first round; the party first
    log = fight.play_round(2)
    assert not events(log, "not surprised") and len(events(log, "attack")) == 3


def test_ct1_surprise_immunity_plays_on_the_compiled_loop_as_on_the_python_loop():
    """The compiled round gives a combatant that cannot be surprised its turn after the side
    that surprised it, as the Python round does: the same fights, fight by fight; and the
    sentry's turns change them (the rule is in play, not skipped)."""
    import orjson

    from fracas.drive import fastfight
    from fracas.drive.simulate import play_batch

    from .test_fast_fights import _same_fights

    scenario = ct_scenario()
    scenario["initiative"]["ambush"] = "opponents"  # CT-1: the heroes are surprised in round 1 on some d6s
    scenario["sides"]["heroes"].append({"name": "sentry", "hp": 30, "injury": 10, "surprise_immune": True,
                                        "attacker": {"level": 1, "bonus": 1}, "target": {"dex": 0, "armor": 0},
                                        "attacks": [{"method": "melee", "die": "d4"}]})
    plan = fastfight.plan_for(compile_scenario(scenario))
    assert not isinstance(plan, str), plan
    assert _same_fights(scenario, seed=41, fights=60) == 60
    asleep = copy.deepcopy(scenario)
    asleep["sides"]["heroes"][1]["surprise_immune"] = False
    totals = [play_batch(orjson.dumps(s), 41, 0, 200, "auto") for s in (scenario, asleep)]
    assert loop_counts(totals[0]) == loop_counts(totals[1]) == (200, 0)
    assert totals[0]["dealt"] != totals[1]["dealt"]


def test_ct1_surprise_immunity_is_cartyrions():
    other = os_scenario()
    other["sides"]["hero"][0]["surprise_immune"] = True
    with pytest.raises(RequestError) as err:
        compile_scenario(other)
    assert err.value.path == "$.sides.hero[0].surprise_immune" and "cartyrion (CT-1)" in str(err.value)
