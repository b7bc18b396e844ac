"""Enchanted Realms' round in a whole fight: the ER-13 rules a single attack cannot keep.

- ER-13 sneak attack: "the victim must have lost track of the one attempting the sneak
  attack during the previous round": a victim the rogue fought in the prior round gets
  no sneak dice thrown at it (the round's situation removes the strike's `sneak`).
- ER-13 shock: a failed shock save incapacitates the victim for its next d3 actions: it
  loses that many turns in the fight (not only a line in the attack's result).
"""

from __future__ import annotations

import collections
import copy

import orjson
import pytest

from fracas.drive import fastfight
from fracas.drive.fight import Fight
from fracas.drive.scenario import compile_scenario
from fracas.drive.simulate import play_batch
from fracas.errors import RequestError
from fracas.rng import chunk_seed

from . import loop_counts
from .test_fights import load

ROGUE_VS_OGRE = {"ruleset": "enchanted-realms", "name": "sneak", "max_rounds": 6, "sides": {
    "rogue": [{"name": "rogue", "hp": 400, "attacker": {"strength": 12, "agility": 16},
               "target": {"ac": 30, "body_max": 400},
               "attacks": [{"method": "melee", "style": "piercing", "dice": 2, "weight": 0,
                            "damage_type": "piercing", "sneak": True}]}],
    "ogre": [{"name": "ogre", "hp": 200, "attacker": {"strength": 18, "agility": 6},
              "target": {"ac": 10, "body_max": 12, "save_bonus": 0},
              "attacks": [{"method": "melee", "style": "bludgeoning", "dice": 1, "weight": 2,
                           "damage_type": "blunt"}]}]}}


def rounds(scenario, seeds, fight=None):
    fight = fight or Fight(compile_scenario(scenario))
    return fight, [fight.play_round(seed) for seed in seeds]


def attacks(log, who):
    return [e for e in log["events"] if e["type"] == "attack" and e["who"] == who]


def test_er13_a_sneak_attack_only_at_a_victim_that_lost_track_of_the_rogue():
    # The ogre's sneak-free body_max keeps shock out of it: 12 Body of 200 hp never halves.
    scenario = copy.deepcopy(ROGUE_VS_OGRE)
    scenario["sides"]["ogre"][0]["target"]["body_max"] = 400
    _fight, logs = rounds(scenario, [1, 2, 3, 4])
    pools = []
    for r, log in enumerate(logs, start=1):
        (attack,) = attacks(log, "rogue")
        strike = attack["result"]["strikes"][0]
        pools.append(len(strike["dice"]))
        if r == 1:  # nobody fought anybody before round 1: the sneak attack is made
            assert "situation" not in attack
        else:  # it fought the ogre the round before: the ogre has not lost track of it
            assert attack["situation"] == {"strikes": {"0": {"sneak": None}}}
    assert pools == [4, 2, 2, 2]  # 2 dice, + an advantage die and a sneak die in round 1 only (ER-13)


def test_er13_fought_means_either_way_and_only_the_round_before():
    # Two ogres, the rogue picking at random: at each rogue attack, the sneak dice are there
    # exactly when the rogue and its victim did not fight each other (either attacking the
    # other) in the prior round.
    scenario = copy.deepcopy(ROGUE_VS_OGRE)
    scenario["max_rounds"] = 12
    scenario["sides"]["ogre"][0].update(count=2)
    scenario["sides"]["ogre"][0]["target"]["body_max"] = 400
    scenario["sides"]["rogue"][0]["tactic"] = {"target": "random"}
    fight = Fight(compile_scenario(scenario))
    before: set[tuple[str, str]] = set()
    checked = {True: 0, False: 0}
    while not fight.over:
        log = fight.play_round(fight.round + 101)
        for attack in attacks(log, "rogue"):
            fought = ("rogue", attack["target"]) in before or (attack["target"], "rogue") in before
            assert ("situation" in attack) == fought, (log["round"], attack["target"], before)
            checked[fought] += 1
        before = {(e["who"], e["target"]) for e in log["events"] if e["type"] == "attack"}
    assert checked[True] and checked[False]  # both cases met


def test_er13_a_failed_shock_save_costs_the_victim_its_next_d3_actions():
    fight, logs = rounds(ROGUE_VS_OGRE, [1, 2, 3, 4])
    shocked = [e for e in logs[0]["events"] if e["type"] == "shocked"]
    assert shocked and shocked[0]["who"] == "ogre" and shocked[0]["rule"] == "ER-13"
    lost = shocked[0]["actions"]
    assert 1 <= lost <= 3
    for r, log in enumerate(logs, start=1):
        skipped = [e for e in log["events"] if e["type"] == "incapacitated"]
        if r <= lost:  # its next d3 actions: from this round's, as it had not acted yet
            assert [e["who"] for e in skipped] == ["ogre"] and skipped[0]["left"] == lost - r
            assert attacks(log, "ogre") == []
        else:
            assert skipped == [] and len(attacks(log, "ogre")) == 1
    # the single attack's result said so too; the fight now keeps it
    attack = attacks(logs[0], "rogue")[0]
    assert attack["result"]["targets"]["ogre"]["shock_save"]["incapacitated_actions"] == lost


def test_er13_what_the_fight_remembers_is_in_its_saved_state():
    fight, logs = rounds(ROGUE_VS_OGRE, [1])
    state = fight.state()
    ogre = next(m for m in state["members"] if m["id"] == "ogre")
    rogue = next(m for m in state["members"] if m["id"] == "rogue")
    assert ogre["incapacitated"] >= 0 and rogue["attacked"] == ["ogre"]
    again = Fight(compile_scenario(ROGUE_VS_OGRE), state)
    original = Fight(compile_scenario(ROGUE_VS_OGRE))
    original.play_round(1)
    assert again.play_round(2) == original.play_round(2)


@pytest.mark.parametrize("ogre", [{}, {"conditions": ["shaken"]}, {"conditions": ["poisoned"]},
                                  {"conditions": ["stunned"]}, {"save_bonus": None}],
                         ids=["plain", "shaken", "poisoned", "stunned", "no-save-bonus"])
def test_er13_shock_plays_the_same_fights_on_both_loops(ogre):
    # The rogue's sneak attacks can shock the ogre (12 Body): the compiled loop rolls the
    # shock save after the attack's strikes (d20 + bonus against 5 + damage, with the
    # ogre's own conditions: shaken -2, poisoned at disadvantage, stunned fails without a
    # die; no save bonus: reported, not rolled) and the d3 actions lost, and the ogre loses
    # its turns as on the Python loop.
    scenario = copy.deepcopy(ROGUE_VS_OGRE)
    target = scenario["sides"]["ogre"][0]["target"]
    target.update({k: v for k, v in ogre.items() if v is not None})
    if "save_bonus" in ogre:
        del target["save_bonus"]
    scenario["sides"]["rogue"][0]["hp"] = 40
    scenario["max_rounds"] = 12
    _same_fights_on_both_loops(scenario, seed=21, fights=40)


def test_er13_sneak_attacks_without_shock_play_the_same_fights_on_both_loops():
    # Two ogres without body_max, the rogue picking at random (so it meets victims that
    # fought it the round before and victims that did not): the compiled loop keeps whom
    # each attacked in the prior round and makes the same sneak attacks.
    scenario = copy.deepcopy(ROGUE_VS_OGRE)
    scenario["max_rounds"] = 12
    scenario["sides"]["ogre"][0].update(count=2)
    del scenario["sides"]["ogre"][0]["target"]["body_max"], scenario["sides"]["ogre"][0]["target"]["save_bonus"]
    scenario["sides"]["rogue"][0]["tactic"] = {"target": "random"}
    _same_fights_on_both_loops(scenario, 7, 40)



def _same_fights_on_both_loops(scenario, seed, fights):
    """`scenario` plays on the fight loop (compiled, or run as Python with the pure-Python
    kernels), and each of its first `fights` fights from `seed` is the Python round loop's,
    fight by fight."""
    from fracas.drive.simulate import play_batch

    import orjson

    assert isinstance(fastfight.plan_for(compile_scenario(scenario)), fastfight.FastPlan)
    blob = orjson.dumps(scenario)
    for i in range(fights):
        fast = play_batch(blob, seed, i, 1, "auto")
        slow = play_batch(blob, seed, i, 1, "python")
        assert (loop_counts(fast), loop_counts(slow)) == ((1, 0), (0, 1))
        assert fast == slow, f"fight {i}"

# -- ER-20 flee attacks ----------------------------------------------------------------------

def flee_scenario(move=None, gobs=1, defending=False):
    tactic = {"flee_at": 8} if move is None else {"flee_at": 8, "flee_move": move}
    target = {"ac": 12, "conditions": ["defending"]} if defending else {"ac": 12}
    return {"ruleset": "enchanted-realms", "name": "flee", "max_rounds": 10, "sides": {
        "party": [{"name": "knight", "hp": 60, "attacker": {"strength": 14, "agility": 10}, "target": {"ac": 15},
                   "attacks": [{"method": "melee", "style": "cleaving", "dice": 3, "weight": 2,
                                "damage_type": "edged"}]},
                  {"name": "archer", "hp": 30, "attacker": {"strength": 10, "agility": 16}, "target": {"ac": 13},
                   "attacks": [{"method": "range", "style": "archery", "dice": 2, "damage_type": "piercing"}]}],
        "gobs": [{"name": "gob", "count": gobs, "hp": 14, "attacker": {"strength": 8, "agility": 12},
                  "target": target, "tactic": tactic,
                  "attacks": [{"method": "melee", "style": "piercing", "dice": 1, "weight": 0,
                               "damage_type": "piercing"}]}]}}


def play_out(scenario, first_seed=1):
    fight = Fight(compile_scenario(scenario))
    events = []
    while not fight.over:
        events += fight.play_round(fight.round + first_seed)["events"]
    return events


def flee_attacks(events):
    return [e for e in events if e["type"] == "attack" and e.get("reaction")]


def leavers(events):
    """Who left at its flee_at: fled, or down right after flee attacks at it."""
    out = []
    for i, e in enumerate(events):
        if e["type"] == "fled" or (e["type"] == "down" and i and events[i - 1].get("reaction")):
            out.append(e["who"])
    return out


def test_er20_leaving_the_fight_draws_a_flee_attack_from_each_engaged_enemy_with_its_reaction():
    seen = 0
    for seed in range(1, 30):
        events = play_out(flee_scenario(), seed)
        for i, e in enumerate(events):
            if not e.get("reaction"):
                continue
            seen += 1
            assert e["reaction"] == {"kind": "flee attack", "moved": 30, "rule": "ER-20"}
            assert e["who"] == "knight" and e["phase"] == "reaction"  # the archer has no melee strike
            assert e["result"]["flee"] == {"moved": 30, "speed": "normal", "dice": 3}
            # the knight fought the goblin in melee this round or the last (either way)
            before = [x for x in events[:i] if x["type"] == "attack" and not x.get("reaction")
                      and {x["who"], x["target"]} == {"knight", e["target"]}]
            assert before
            assert events[i + 1]["type"] in ("fled", "down") and events[i + 1]["who"] == e["target"]
    assert seen >= 5


def test_er20_a_cautious_move_draws_none_a_rapid_one_is_struck_with_one_d20():
    for seed in range(1, 15):
        assert flee_attacks(play_out(flee_scenario(move=10), seed)) == []
    rapid = [e for seed in range(1, 30) for e in flee_attacks(play_out(flee_scenario(move=80), seed))]
    assert rapid and all(e["result"]["flee"] == {"moved": 80, "speed": "rapid", "dice": 1} for e in rapid)


def test_er20_one_reaction_a_round():
    # Many goblins leaving in one round: the knight strikes at most one of them a round.
    for seed in range(1, 20):
        fight = Fight(compile_scenario(flee_scenario(gobs=6)))
        while not fight.over:
            log = fight.play_round(fight.round + seed)
            assert len(flee_attacks(log["events"])) <= 1


def test_er20_a_defending_creature_leaves_without_drawing_flee_attacks():
    for seed in range(1, 15):
        events = play_out(flee_scenario(defending=True), seed)
        assert flee_attacks(events) == []


@pytest.mark.parametrize("shape", [{}, {"move": 10}, {"move": 80}, {"gobs": 6}, {"defending": True}],
                         ids=["normal", "cautious", "rapid", "one-a-round", "defending"])
def test_er20_flee_attacks_play_on_the_compiled_loop_with_the_python_loops_draws(shape):
    # ER-20 on the compiled loop: each engaged enemy with its reaction left strikes once, in
    # member order, one d20 at a rapid mover, none at a cautious or defending one, one
    # reaction a round; the same fights as the Python loop, fight by fight.
    _same_fights_on_both_loops(flee_scenario(**shape), seed=9, fights=40)


# -- ER-15 defending as a tactic --------------------------------------------------------------

def defend_scenario(knight_conditions=()):
    return {"ruleset": "enchanted-realms", "name": "defend", "max_rounds": 8, "sides": {
        "party": [{"name": "knight", "hp": 60, "attacker": {"strength": 14, "agility": 10},
                   "target": {"ac": 15, "conditions": list(knight_conditions)},
                   "attacks": [{"method": "melee", "style": "cleaving", "dice": 3, "weight": 2,
                                "damage_type": "edged"}],
                   "tactic": {"defend_at": 1000}}],
        "gobs": [{"name": "gob", "count": 2, "hp": 14, "attacker": {"strength": 8, "agility": 12},
                  "target": {"ac": 12}, "tactic": {"flee_at": 13, "flee_move": 30},
                  "attacks": [{"method": "melee", "style": "piercing", "dice": 2, "weight": 0,
                               "damage_type": "piercing"}]}]}}


def test_er15_a_defending_combatant_makes_no_attack_and_attackers_it_sees_are_at_disadvantage():
    fight = Fight(compile_scenario(defend_scenario()))
    defended = False
    for r in range(1, 7):
        log = fight.play_round(r + 40)
        assert attacks(log, "knight") == []  # it defends every turn: no attack
        for e in log["events"]:
            if e["type"] == "defend":
                assert e["who"] == "knight" and e["rule"] == "ER-15"
                defended = True
            elif e["type"] == "attack" and e["target"] == "knight":
                strike = e["result"]["strikes"][0]
                assert (e.get("situation") == {"target": {"conditions": ["defending"]}}) == defended
                assert strike["disadvantage"] is defended  # ER-15: "disadvantage ... provided it can see"
        if fight.over:
            break
    assert defended


def test_er15_a_blind_defender_cannot_see_the_attacks_it_defends_against():
    fight = Fight(compile_scenario(defend_scenario(["blind"])))
    fight.play_round(1)
    log = fight.play_round(2)  # the knight defended in round 1: defending, but blind
    at_knight = [e for e in log["events"] if e["type"] == "attack" and e["target"] == "knight"]
    assert at_knight and all(e["situation"] == {"target": {"conditions": ["blind", "defending"]}} for e in at_knight)
    # ER-15: blind, it cannot see the attacks: no disadvantage (and a blind target gives advantage)
    assert all(s["disadvantage"] is False and s["advantage"] is True for e in at_knight for s in e["result"]["strikes"])


def test_er15_defending_removes_reactions_no_flee_attacks_from_a_defender():
    for seed in range(1, 20):
        events = play_out(defend_scenario(), seed)
        assert flee_attacks(events) == []  # the goblins flee at once; the knight defends every turn


@pytest.mark.parametrize("blind", [False, True])
def test_er13_er15_a_sneak_attack_at_a_defender_that_sees_it_loses_its_sneak_dice(blind):
    # ER-13: "a sneak attack cannot be made at disadvantage"; ER-15: defending puts attacks
    # it can see at disadvantage. Decision: a sneak strike at a defender that sees it is
    # made without its sneak dice (the fight goes on; it used to stop with a RulesError). A
    # blind defender sees nothing: the sneak attack is made, with advantage.
    scenario = defend_scenario(["blind"] if blind else [])
    scenario["sides"]["gobs"][0].update(count=1, tactic={}, initiative=-20)  # the knight defends first
    scenario["sides"]["gobs"][0]["attacks"][0]["sneak"] = True
    fight = Fight(compile_scenario(scenario))
    log = fight.play_round(1)
    (attack,) = attacks(log, "gob")
    dropped = attack["situation"].get("strikes") == {"0": {"sneak": None}}
    assert dropped is not blind
    strike = attack["result"]["strikes"][0]
    assert (strike["advantage"], strike["disadvantage"]) == ((True, False) if blind else (False, True))
    _same_fights_on_both_loops(scenario, seed=2, fights=20)


def test_er21_grappling_targets_play_the_same_fights_on_both_loops():
    # ER-21: a grappling target's release feats are an attack's last dice and the fight keeps
    # no grapple: the Python loop logs them, the compiled loop leaves them unrolled, and the
    # fights are the same (each random event has its own stream).
    scenario = ff_scenario()
    for entries in scenario["sides"].values():
        for entry in entries:
            entry["target"]["grappling"] = {"strength": 12, "bonus": 1}
    fight = Fight(compile_scenario(scenario))
    log = fight.play_round(3)
    assert any("grapple_release" in t for e in attacks(log, "archer") for t in e["result"]["targets"].values())
    _same_fights_on_both_loops(scenario, seed=4, fights=30)


@pytest.mark.parametrize("shape", ["always", "hurt", "leavers"])
def test_er15_defending_plays_the_same_fights_on_both_loops(shape):
    # ER-15 on the compiled loop as ErRound plays it: a defender makes no attack, attacks at
    # it are at disadvantage until its next turn, it makes no flee attack this round or the
    # next, and it leaves without drawing flee attacks while defending.
    scenario = defend_scenario()
    knight, gobs = scenario["sides"]["party"][0], scenario["sides"]["gobs"][0]
    if shape in ("hurt", "leavers"):  # defends only once hurt: flee attacks before, none after
        knight["tactic"] = {"defend_at": 40}
        gobs.update(count=3, tactic={"flee_at": 9, "flee_move": 30})
    if shape == "leavers":  # goblins that defend when hurt and leave later: defending, they draw no flee attacks
        gobs.update(hp=30, tactic={"flee_at": 12, "flee_move": 30, "defend_at": 24})
        scenario["sides"]["party"].append({**knight, "name": "squire", "tactic": {}})
    scenario["max_rounds"] = 12
    _same_fights_on_both_loops(scenario, seed=13, fights=40)


# -- ER-17 friendly fire ----------------------------------------------------------------------

def ff_scenario(nearby=("grunt",)):
    orc = {"name": "orc", "hp": 60, "attacker": {"strength": 14, "agility": 10},
           "target": {"ac": 24, "cover": "three-quarters"},
           "attacks": [{"method": "melee", "style": "cleaving", "dice": 1, "weight": 2, "damage_type": "edged"}]}
    if nearby is not None:
        orc["nearby"] = list(nearby)
    return {"ruleset": "enchanted-realms", "name": "ff", "max_rounds": 8, "sides": {
        "party": [{"name": "archer", "hp": 60, "attacker": {"strength": 10, "agility": 16}, "target": {"ac": 13},
                   "attacks": [{"method": "range", "style": "archery", "dice": 1, "damage_type": "piercing"}],
                   "tactic": {"target": "focus", "focus": "orc"}},
                  {"name": "grunt", "hp": 400, "attacker": {"strength": 14, "agility": 10}, "target": {"ac": 5},
                   "attacks": [{"method": "melee", "style": "cleaving", "dice": 2, "weight": 2,
                                "damage_type": "edged"}]}],
        "orcs": [orc]}}


def test_er17_a_missed_shot_strays_into_a_neighbour_the_scenario_names():
    strays = []
    for seed in range(1, 40):
        fight = Fight(compile_scenario(ff_scenario()))
        at_grunt = 0
        while not fight.over:
            log = fight.play_round(fight.round + seed)
            at_grunt += sum(e["damage"] for e in log["events"] if e["type"] in ("attack", "stray")
                            and e["target"] == "grunt")
            for i, e in enumerate(log["events"]):
                if e["type"] == "attack" and e["who"] == "archer":
                    # the shot lists the grunt as the orc's neighbour: under the friendly-fire rule
                    assert e["result"]["strikes"][0]["friendly_fire"] is True
                if e["type"] == "stray":
                    shot = log["events"][i - 1]
                    assert shot["type"] == "attack" and shot["who"] == "archer"
                    # the log names the combatant the shot strayed into, not the request's "n0"
                    assert shot["result"]["strikes"][0]["stray"]["creature"] == "grunt"
                    assert shot["result"]["targets"]["grunt"]["damage"] == e["damage"]
                    strays.append(e)
        grunt = next(m for m in fight.state()["members"] if m["id"] == "grunt")
        assert grunt["hp_max"] - grunt["hp"] == grunt["taken"] == at_grunt  # a stray's damage lands on it
    assert strays and all(e["target"] == "grunt" and e["rule"] == "ER-17" and e["damage"] > 0 for e in strays)


def test_er17_without_nearby_strays_are_left_out_and_the_log_says_so():
    fight = Fight(compile_scenario(ff_scenario(nearby=None)))
    said = []
    while not fight.over:
        log = fight.play_round(fight.round + 5)
        said += [e for e in log["events"] if e["type"] == "strays left out"]
        assert not [e for e in log["events"] if e["type"] == "stray"]
    assert len(said) == 1 and said[0]["target"] == "orc" and "nearby" in said[0]["why"]


def test_er17_nearby_names_a_combatant_of_the_scenario():
    bad = ff_scenario(nearby=("gnoll",))
    with pytest.raises(RequestError) as err:
        compile_scenario(bad)
    assert err.value.path == "$.sides.orcs[0].nearby[0]" and "'gnoll'" in str(err.value)
    os_like = ff_scenario()
    os_like["ruleset"] = "old-school"
    with pytest.raises(RequestError) as err:
        compile_scenario(os_like)
    assert err.value.path == "$.sides.orcs[0].nearby" and "enchanted-realms (ER-17)" in str(err.value)


def _ff_variant(name):
    scenario = ff_scenario()
    party, orc = scenario["sides"]["party"], scenario["sides"]["orcs"][0]
    if name == "bystander-flees":  # ER-20: a stray brings the grunt to its flee_at: flee attacks at it
        party[1]["tactic"] = {"target": "nearest", "flee_at": 395}
    elif name == "full-cover":  # ER-16: a shot at a target behind full cover, fired anyway, strays
        orc["target"]["cover"] = "full"
        party[0]["attacks"][0]["friendly_fire"] = True
    elif name == "full-cover-sneak":  # the same shot a sneak attack (ER-13) at a target that shock can reach:
        orc["target"].update(cover="full", body_max=2, save_bonus=0)  # it deals the orc nothing, so no shock save
        party[0]["attacks"][0].update(friendly_fire=True, sneak=True)
    elif name == "paralyzed-bystander":  # ER-8: a stray that hits a paralyzed creature crits
        party[1]["target"]["conditions"] = ["paralyzed"]
    elif name == "petrified-bystander":  # only the crit chain's damage (a crit at a paralyzed one)
        party[1]["target"]["conditions"] = ["paralyzed", "petrified"]
        party[1]["target"]["ac"] = 1
    elif name == "crowd":  # slots 1-8 of the d10, a disadvantaged shot, ER-10 resistance, ER-9 modifier once
        party.append({"name": "page", "count": 9, "hp": 30, "attacker": {"strength": 8, "agility": 8},
                      "target": {"ac": 6, "resistant": ["piercing"], "ac_by_type": {"edged": 9}},
                      "attacks": [{"method": "melee", "style": "bludgeoning", "dice": 1, "damage_type": "blunt"}]})
        orc["nearby"] = ["page", "grunt"]
        party[0]["attacks"] = [{"method": "range", "style": "archery", "dice": 3, "damage_type": "piercing",
                                "disadvantage": True, "crit": True, "crit_range": 18}]
        scenario["sides"]["orcs"].append({"name": "orc archer", "hp": 40, "attacker": {"agility": 14},
                                          "target": {"ac": 12}, "nearby": ["orc"],
                                          "attacks": [{"method": "range", "style": "archery", "dice": 2,
                                                       "damage_type": "piercing"}]})
    return scenario


@pytest.mark.parametrize("name", ["plain", "bystander-flees", "full-cover", "full-cover-sneak",
                                  "paralyzed-bystander", "petrified-bystander", "crowd"])
def test_er17_strays_play_on_the_compiled_loop_with_the_python_loops_draws(name):
    # ER-17 on the compiled loop: a missed shot under the friendly-fire rule rolls its d10
    # slot among the (up to 8) standing combatants named nearby, checks the shifted dice
    # against the one there, with its crit chain, modifier and resistance, and its damage
    # lands on it before the target's; the same fights as the Python loop, fight by fight.
    _same_fights_on_both_loops(_ff_variant(name), seed=21, fights=60)


def test_er17_the_compiled_parity_scenarios_do_stray():
    # the variants above make strays happen (else their parity would prove nothing)
    for name in ("plain", "bystander-flees", "full-cover", "full-cover-sneak", "paralyzed-bystander",
                 "petrified-bystander", "crowd"):
        strays = 0
        for seed in range(1, 12):
            strays += sum(1 for e in play_out(_ff_variant(name), seed) if e["type"] == "stray")
        assert strays > 0, name


# -- ER-23 impalement against a charge --------------------------------------------------------

def charge_scenario(closed=40, ogre_hp=60, impale=True, pike_agility=30):
    pikeman = {"name": "pikeman", "hp": 400, "attacker": {"strength": 14, "agility": pike_agility},
               "target": {"ac": 13},
               "attacks": [{"method": "melee", "style": "pole-arm", "dice": 1, "weight": 2,
                            "damage_type": "piercing"}]}
    if impale:
        pikeman["impale"] = {"style": "pole-arm", "weight": 2}
    return {"ruleset": "enchanted-realms", "name": "charge", "max_rounds": 3, "sides": {
        "pikes": [pikeman],
        "ogres": [{"name": "ogre", "hp": ogre_hp, "attacker": {"strength": 18, "agility": 16}, "target": {"ac": 11},
                   "tactic": {"charge": closed},
                   "attacks": [{"method": "melee", "style": "bludgeoning", "dice": 2, "weight": 2,
                                "damage_type": "blunt"}]}]}}


def test_er23_a_charge_at_a_set_pike_is_impaled_first_once():
    for seed in range(1, 12):
        fight = Fight(compile_scenario(charge_scenario()))
        impalements, ogre_attacks = 0, 0
        while not fight.over:
            log = fight.play_round(fight.round + seed)
            for i, e in enumerate(log["events"]):
                if e["type"] == "impalement":
                    impalements += 1
                    assert e["who"] == "pikeman" and e["target"] == "ogre" and e["rule"] == "ER-23"
                    struck = sum(x["damage"] for x in log["events"][:i] if x["type"] == "attack")
                    assert e["result"]["closed"] == 40 and e["result"]["charger"]["body"] == 60 - struck
                    following = log["events"][i + 1]  # the charge comes after it, unless void
                    assert (following["type"] == "attack" and following["who"] == "ogre") != e["charge_void"]
                if e["type"] == "attack" and e["who"] == "ogre":
                    ogre_attacks += 1
                    assert impalements == 1  # its first melee attack was the charge
        assert impalements == 1


def test_er23_an_impalement_that_incapacitates_the_charger_voids_the_charge():
    voided = 0
    for seed in range(1, 20):
        fight = Fight(compile_scenario(charge_scenario(ogre_hp=8, pike_agility=1)))  # the ogre charges first
        log = fight.play_round(seed)
        events = log["events"]
        imp = [e for e in events if e["type"] == "impalement"]
        assert len(imp) == 1
        if imp[0]["charge_void"]:
            voided += 1
            assert not [e for e in events if e["type"] == "attack" and e["who"] == "ogre"]
    assert voided


def test_er23_no_impalement_under_25_ft_or_without_a_set_pike():
    for scenario in (charge_scenario(closed=20), charge_scenario(impale=False)):
        for seed in range(1, 6):
            fight = Fight(compile_scenario(scenario))
            assert not [e for e in fight.play_round(seed)["events"] if e["type"] == "impalement"]


def test_er23_a_bad_pike_is_refused_at_its_path():
    bad = charge_scenario()
    bad["sides"]["pikes"][0]["impale"] = {"style": "pole-arm", "damage_type": "laser"}
    with pytest.raises(RequestError) as err:
        compile_scenario(bad)
    assert err.value.path.startswith("$.sides.pikes[0].impale")


@pytest.mark.parametrize("shape", ["set-pike", "void", "short", "band", "glaive"])
def test_er23_charges_and_impalements_play_the_same_fights_on_both_loops(shape):
    # ER-23 on the compiled loop as ErRound._charge plays it: the first melee attack is the
    # charge; a pikeman set against it with its reaction left impales first (its reaction
    # spent: no flee attack this round), the damage lands at once, and a charger brought to
    # its Body's end makes no charge. A glaive's skill dice, read ahead from a copy of the
    # stream, put its impalement at disadvantage when one shows 18-20 (its heavy property).
    scenario = charge_scenario(**{"void": {"ogre_hp": 8, "pike_agility": 1}, "short": {"closed": 20}}.get(shape, {}))
    scenario["max_rounds"] = 8
    if shape == "band":  # charging ogres that flee when hurt, pikemen who defend at 380 and throw
        ogres, pikes = scenario["sides"]["ogres"][0], scenario["sides"]["pikes"][0]
        ogres.update(count=3, tactic={"charge": 30, "flee_at": 30})
        pikes.update(count=2, hp=420, tactic={"defend_at": 380}, throws=[{"item": "acid splash"}])
    if shape == "glaive":  # a band of charging ogres, so that many impalements are rolled
        scenario["sides"]["pikes"][0].update(count=2, impale=dict(scenario["sides"]["pikes"][0]["impale"],
                                                                   pole="glaive"))
        scenario["sides"]["ogres"][0].update(count=3)
        heavy = set()
        for seed in range(1, 8):  # both ways of the heavy property are among these fights
            fight = Fight(compile_scenario(scenario))
            while not fight.over:
                heavy |= {e["result"]["heavy"]["disadvantage"] for e in fight.play_round(fight.round + seed)["events"]
                          if e["type"] == "impalement"}
        assert heavy == {True, False}
    _same_fights_on_both_loops(scenario, seed=8, fights=40)


# -- ER Weapon Negation: weapon lock and disarm as a tactic -----------------------------------

def negation_scenario(mode="lock", ogre_dice=1, blitz=True, ogre_strength=16):
    return {"ruleset": "enchanted-realms", "name": "negation", "max_rounds": 12, "sides": {
        "duelist": [{"name": "duelist", "hp": 400, "attacker": {"strength": 12, "agility": 14},
                     "target": {"ac": 14}, "tactic": {"negate": mode},
                     "negation": {"to_hit": 9, "weapon": "medium", "damage_type": "edged", "shield_blitz": blitz},
                     "attacks": [{"method": "melee", "style": "slashing", "dice": 2, "weight": 1,
                                  "damage_type": "edged"}]}],
        "ogre": [{"name": "ogre", "hp": 400, "attacker": {"strength": ogre_strength, "agility": 6},
                  "target": {"ac": 11},
                  "attacks": [{"method": "melee", "style": "bludgeoning", "dice": ogre_dice, "weight": 2,
                               "damage_type": "blunt"}]}]}}


def negation_logs(scenario, seeds=range(1, 9)):
    for seed in seeds:
        fight = Fight(compile_scenario(scenario))
        yield [fight.play_round(fight.round * 97 + seed) for _ in range(scenario["max_rounds"])]


def test_er_weapon_negation_a_lock_is_the_turns_attack_and_pins_the_weapon_two_dice():
    """ER Weapon Negation: "the attacker rolls a single chance to lock"; the wielder frees it
    by giving up 2 attack dice, with one die "spread over two rounds"; the locker's turns
    hold the lock, with its shield-blitz "a d20 of blunt damage"."""
    met = {"locked": 0, "held": 0, "spread": 0}
    for logs in negation_logs(negation_scenario(ogre_dice=1)):
        for log in logs:
            if any(e["type"] == "negation" for e in log["events"]):
                assert not attacks(log, "duelist")  # the feat was its attack
        pinned = 0  # the dice the ogre still owes
        for e in (e for log in logs for e in log["events"]):
            if e["type"] == "negation":
                assert e["rule"] == "ER Weapon Negation" and e["result"]["mode"] == "lock"
                assert len(e["result"]["feat"]["dice"]) == 1  # one d20
                assert e["outcome"] == e["result"]["outcome"]
                if e["outcome"] == "locked":
                    met["locked"] += 1
                    pinned = 2
            elif e["type"] in ("freeing", "freed") and e["who"] == "ogre":
                assert e["dice"] == 1 and e["left"] == pinned - 1  # a 1-die strike: one a turn
                pinned -= 1
                met["spread"] += e["type"] == "freeing"
            elif e["type"] == "lock held":
                met["held"] += 1
                assert e["damage"] == e["result"]["blitz"]["damage"] and e["result"]["blitz"]["damage_type"] == "blunt"
                assert pinned in (1, 2)  # until the ogre's second freeing turn (before its first, by initiative)
            elif e["type"] == "attack" and e["who"] == "ogre":
                assert not pinned  # no strike with a pinned weapon
    assert all(met.values()), met


def test_er_weapon_negation_three_dice_free_the_weapon_and_strike_with_the_rest():
    seen = 0
    for logs in negation_logs(negation_scenario(ogre_dice=3)):
        for log in logs:
            freed = [e for e in log["events"] if e["type"] == "freed" and e["who"] == "ogre"]
            if freed:
                assert freed[0]["dice"] == 2 and freed[0]["left"] == 0
                (attack,) = attacks(log, "ogre")
                assert attack["situation"] == {"strikes": {"0": {"dice": 1}}}
                assert len(attack["result"]["strikes"][0]["dice"]) == 1
                seen += 1
    assert seen


def test_er_weapon_negation_a_disarm_costs_body_when_resisted_and_the_weapon_is_picked_up():
    """ER Weapon Disarm: resisting costs 2/3/4 Body by the attacker's weapon size; the
    weapon "is up for grabs": picked up at the victim's next turn (no action)."""
    met = {"disarmed": 0, "kept": 0}
    for logs in negation_logs(negation_scenario("disarm", ogre_dice=2)):
        events = [e for log in logs for e in log["events"]]
        for i, e in enumerate(events):
            if e["type"] != "negation" or e["outcome"] == "missed":
                continue
            met[e["outcome"]] += 1
            cost = e["result"]["reaction"]["body_cost"]
            assert cost == {"base": 3, "weapon": "medium", "damage_type": "edged", "resistance": "normal",
                            "points": 3}
            assert e["damage"] == 3
            later = [x["type"] for x in events[i + 1:] if x.get("who") == "ogre"]
            if e["outcome"] == "disarmed" and later:
                assert later[:2] == ["retrieves", "attack"]  # picks it up at its turn, then strikes
    assert all(met.values()), met


def test_er_weapon_negation_a_victim_reacts_only_with_its_reaction_left():
    """ER-15: defending "removes all reactions for both rounds": a defending ogre cannot pull
    a lock free; one with its reaction does (a Strength competition)."""
    scenario = negation_scenario()
    scenario["sides"]["ogre"][0]["tactic"] = {"defend_at": 1000}  # defends every turn
    reactions = {True: 0, False: 0}
    for defends in (True, False):
        if not defends:
            scenario = negation_scenario()
        for logs in negation_logs(scenario, range(1, 4)):
            for log in logs:
                for e in log["events"]:
                    if e["type"] == "negation" and e["result"]["feat"]["success"]:
                        reaction = e["result"]["reaction"]
                        assert (reaction is None) == defends or log["round"] == 1  # it defends from its 1st turn
                        reactions[defends] += 1
                        if reaction is not None:
                            assert reaction["attribute"] == "strength"
    assert all(reactions.values()), reactions


def test_er_weapon_negation_what_the_fight_remembers_is_in_its_saved_state():
    scenario = negation_scenario(ogre_dice=1)
    for seed in range(1, 30):
        fight = Fight(compile_scenario(scenario))
        log = fight.play_round(seed)
        if any(e.get("outcome") == "locked" for e in log["events"]):
            break
    else:
        raise AssertionError("no lock in 30 seeds")
    state = fight.state()
    by_id = {m["id"]: m for m in state["members"]}
    assert by_id["duelist"]["holding"] == "ogre" and by_id["ogre"]["pinned_by"] == "duelist"
    assert by_id["ogre"]["free_left"] == 1
    again = Fight(compile_scenario(scenario), state)
    assert again.play_round(1000) == fight.play_round(1000)


def test_er_weapon_negation_is_refused_without_its_skill_and_named_at_its_path():
    bad = negation_scenario()
    del bad["sides"]["duelist"][0]["negation"]
    with pytest.raises(RequestError) as err:
        compile_scenario(bad)
    assert err.value.path == "$.sides.duelist[0].negation" and "ER Weapon Negation" in err.value.reason
    bad = negation_scenario()
    bad["sides"]["duelist"][0]["negation"]["weapon"] = "huge"
    with pytest.raises(RequestError) as err:
        compile_scenario(bad)
    assert err.value.path == "$.sides.duelist[0].negation.weapon"
    bad = negation_scenario("disarm")
    del bad["sides"]["duelist"][0]["attacker"]["agility"]
    with pytest.raises(RequestError) as err:
        compile_scenario(bad)
    assert err.value.path == "$.sides.duelist[0].attacker.agility"
    other = negation_scenario()
    other["ruleset"] = "worldwalker"
    with pytest.raises(RequestError) as err:
        compile_scenario(other)
    assert "enchanted-realms" in err.value.reason
    for side in ("attacker", "target"):  # ER-14: a combatant that cannot act makes no feat, refused up front
        bad = negation_scenario()
        bad["sides"]["duelist"][0][side]["conditions"] = ["paralyzed"]
        with pytest.raises(RequestError) as err:
            compile_scenario(bad)
        assert err.value.path == f"$.sides.duelist[0].{side}.conditions" and "paralyzed" in err.value.reason


@pytest.mark.parametrize("mode, ogre_dice, blitz", [("lock", 1, True), ("lock", 3, False), ("lock", 2, True),
                                                     ("disarm", 2, False)])
def test_er_weapon_negation_plays_the_same_fights_on_both_loops(mode, ogre_dice, blitz):
    # ER Weapon Negation on the compiled loop: locks (a 1-die weapon freed over two turns, a
    # 3-die one freed with a die left to strike, a shield-blitz each turn of the hold) and
    # disarms (the Body cost, the weapon picked up at the next turn), the same fights as the
    # Python loop's, fight for fight
    scenario = negation_scenario(mode, ogre_dice=ogre_dice, blitz=blitz)
    plan = fastfight.plan_for(compile_scenario(scenario))
    assert isinstance(plan, fastfight.FastPlan), plan
    blob = orjson.dumps(scenario)
    events = {e["type"] for logs in negation_logs(scenario, range(1, 5)) for log in logs for e in log["events"]}
    assert {"negation", "freed" if mode == "lock" else "retrieves"} <= events
    for seed in (1, 2, 3):
        fast = play_batch(blob, seed, 0, 40, "auto")
        slow = play_batch(blob, seed, 0, 40, "python")
        assert (loop_counts(fast), loop_counts(slow)) == ((40, 0), (0, 40))
        assert fast == slow


# -- ER Throwing Items: what a combatant throws before it fights ------------------------------

def throw_scenario(throws=None, **alchemist):
    return {"ruleset": "enchanted-realms", "name": "throws", "max_rounds": 8, "sides": {
        "alchemist": [{"name": "alchemist", "hp": 400, "attacker": {"strength": 6, "agility": 12},
                       "target": {"ac": 13},
                       "throws": throws if throws is not None else [
                           {"item": "explosive oil", "skill": "hurling", "count": 2}, {"item": "acid splash"}],
                       "attacks": [{"method": "melee", "style": "slashing", "dice": 1, "weight": 0,
                                    "damage_type": "edged"}], **alchemist}],
        "troll": [{"name": "troll", "hp": 400, "attacker": {"strength": 14, "agility": 6},
                   "target": {"ac": 11, "vulnerable": ["fire"], "cover": "half"},
                   "attacks": [{"method": "melee", "style": "bludgeoning", "dice": 1, "weight": 2,
                                "damage_type": "blunt"}]}]}}


def test_er_throwing_items_are_thrown_one_a_turn_before_the_attacks_as_a_throw_request_rolls_them():
    """ER Throwing Items: each item is its turn's attack, in the order and number listed; its
    roll is the throw request's (the troll's AC, cover and fire vulnerability, ER-10)."""
    import fracas

    for seed in range(1, 6):
        fight = Fight(compile_scenario(throw_scenario()))
        mine = []
        hp = 400
        for _ in range(5):
            log = fight.play_round(fight.round * 31 + seed)
            for e in log["events"]:
                if e.get("who") != "alchemist":
                    continue
                mine.append(e["type"] if e["type"] != "throw" else e["item"])
                if e["type"] == "throw":
                    request = {"item": e["item"], "thrower": {"strength": 6, "agility": 12},
                               "target": {"id": "troll", "ac": 11, "cover": "half", "vulnerable": ["fire"]}}
                    if e["item"] == "explosive oil":
                        request["skill"] = "hurling"
                    alone = fracas.roll("throw", request, seed=e["seed"]).to_dict()
                    assert e["result"] == alone and e["rule"] == "ER Throwing Items"
                    assert e["damage"] == (alone["damage"]["damage"] if alone["hit"] else 0)
                    assert len(alone["thrown"]["dice"]) == (3 if e["item"] == "explosive oil" else 1)
                if e["type"] in ("throw", "attack"):
                    hp -= e["damage"]
        assert mine == ["explosive oil", "explosive oil", "acid splash", "attack", "attack"]
        assert {m["id"]: m["hp"] for m in fight.state()["members"]}["troll"] == hp


def test_er_throwing_items_bad_items_are_refused_at_their_path():
    for throws, path in (([{"item": "sleep smoke"}], "$.sides.alchemist[0].throws[0].item"),
                         ([{"item": "acid splash", "count": 0}], "$.sides.alchemist[0].throws[0].count"),
                         ([{"item": "acid splash", "target": {"ac": 3}}], "$.sides.alchemist[0].throws[0].target"),
                         ([{"item": "magic", "skill": "hurling", "damage": {"dice": 1, "faces": 6}}],
                          "$.sides.alchemist[0].attacker.agility")):
        scenario = throw_scenario(throws)
        if path.endswith("attacker.agility"):
            scenario["sides"]["alchemist"][0]["attacker"] = {"strength": 6, "agility_mod": 2}
            scenario["sides"]["alchemist"][0]["initiative"] = 0
        with pytest.raises(RequestError) as err:
            compile_scenario(scenario)
        assert err.value.path == path, (path, err.value)


def test_er_throwing_items_left_are_in_the_saved_state():
    scenario = throw_scenario()
    fight = Fight(compile_scenario(scenario))
    fight.play_round(1)
    state = fight.state()
    assert {m["id"]: m["thrown"] for m in state["members"]}["alchemist"] == 1
    again = Fight(compile_scenario(scenario), state)
    assert again.play_round(2) == fight.play_round(2)


@pytest.mark.parametrize("shape", ["alchemist", "magic-at-disadvantage", "throwers-on-both-sides"])
def test_er_throwing_items_play_the_same_fights_on_both_loops(shape):
    # The compiled loop throws each item as ErRound._throws does: one a turn instead of the
    # attack, in the order listed, its pool (and at disadvantage the highest die dropped),
    # its damage after resistance landing at once (here at a troll that flees at 380 and
    # draws flee attacks, ER-20), and a throw counts as fighting its target (ER-13).
    scenario = throw_scenario()
    alchemist, troll = scenario["sides"]["alchemist"][0], scenario["sides"]["troll"][0]
    troll.update(hp=60, tactic={"flee_at": 20})
    alchemist["attacks"][0]["sneak"] = True
    if shape == "magic-at-disadvantage":  # a poisoned thrower: disadvantage, one die dropped (ER-12, ER-14)
        alchemist["attacker"]["conditions"] = ["poisoned"]
        del alchemist["attacks"][0]["sneak"]  # no sneak attack at disadvantage (ER-13)
        alchemist["throws"].append({"item": "magic", "skill": "ranged", "count": 2,
                                    "damage": {"dice": 2, "faces": 6, "bonus": 1, "damage_type": "fire"}})
    if shape == "throwers-on-both-sides":
        troll.update(count=3, throws=[{"item": "holy water", "count": 1}, {"item": "bonfire blend"}])
        scenario["sides"]["alchemist"].append({**alchemist, "name": "apprentice", "hp": 30, "throws": [
            {"item": "acid splash", "count": 3}]})
    _same_fights_on_both_loops(scenario, seed=17, fights=40)


@pytest.mark.parametrize("mode", ["lock", "disarm"])
def test_er_weapon_negation_on_both_sides_of_a_horde_plays_the_same_fights_on_both_loops(mode):
    # ER Weapon Negation among many: a locker whose own weapon is locked lets its lock go (a
    # third party's lock frees the first, the text says), a locker holding a lock cannot
    # react with its weapon, disarmed skeletons pick theirs up; compiled and Python loops
    # play the same fights
    scenario = load("er-skeleton-horde.json")
    hero = scenario["sides"]["party"][0]
    hero["negation"] = {"to_hit": 5, "weapon": "medium", "damage_type": "blunt", "shield_blitz": True}
    hero["tactic"]["negate"] = mode
    skeletons = scenario["sides"]["skeletons"][0]
    skeletons["negation"] = {"to_hit": 3, "weapon": "light", "damage_type": "edged"}
    skeletons["tactic"] = dict(skeletons.get("tactic", {}), negate=mode)
    sc = compile_scenario(scenario)
    assert isinstance(fastfight.plan_for(sc), fastfight.FastPlan)
    found = collections.Counter()
    for i in range(30):
        fight = Fight(sc)
        while not fight.over:
            for e in fight.play_round(chunk_seed(chunk_seed(7, i), fight.round + 1))["events"]:
                found[e.get("why") if e["type"] == "freed" else e.get("outcome") or e["type"]] += 1
    if mode == "lock":
        assert found["its locker's own weapon was locked or disarmed"] and found["pulled free"] and found["locked"]
    else:
        assert found["disarmed"] and found["kept"] and found["retrieves"]
    blob = orjson.dumps(scenario)
    for seed in (7, 8):
        fast = play_batch(blob, seed, 0, 60, "auto")
        slow = play_batch(blob, seed, 0, 60, "python")
        assert (loop_counts(fast), loop_counts(slow)) == ((60, 0), (0, 60))
        assert fast == slow
