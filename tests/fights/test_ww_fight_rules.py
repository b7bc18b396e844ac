"""Worldwalker's rules in whole fights (issue 41 item 3), with injected dice.

The quotes are from the seed text (002: Worldwalker combat); the decisions where it is
silent are docs/rules/worldwalker.md's "In a fight". A `Scripted` fight hands its k-th
random event the k-th list of faces (initiative, then each attack: its d20, the
defender's d20 when it blocks or dodges, the damage dice). Rules cited: WW-5 (ranged
weapons in melee), WW-7 (feints), Worldwalker Attacks of Opportunity.
"""

from __future__ import annotations

import copy

import orjson
import pytest

from fracas.drive import fastfight
from fracas.drive.fight import Fight
from fracas.drive.scenario import compile_scenario
from fracas.drive.simulate import play_batch, simulate
from fracas.errors import RequestError
from fracas.rng import chunk_seed

from . import on_fight_loop
from .test_fast_fights import _same_fights, compiled
from .test_fight_procedures import Scripted, events


def fighter(name, method="melee", **fields):
    entry = {"name": name, "hp": 100, "attacker": {"skill": 0, "str_mod": 0, "dex_mod": 0},
             "target": {"defense": 10}, "attacks": [{"method": method, "damage": "1d6"}]}
    entry.update(fields)
    return entry


def scenario(**sides):
    return {"ruleset": "worldwalker", "name": "rules", "sides": sides}


DODGE7 = {"defense": 10, "reaction": {"kind": "dodge", "bonus": 7}}


# -- WW-5: a ranged weapon in melee ----------------------------------------------------------------

def archer_scenario(raider_method="melee", archer_method="ranged"):
    return scenario(raiders=[fighter("raider", raider_method, initiative=50)],
                    archers=[fighter("archer", archer_method, target=DODGE7, tactic={"reserve": 1})])


def test_ww5_an_archer_dodges_a_melee_attack_at_minus_6():
    # Seed 002, "Ranged Combat": "A character making use of a ranged weapon while being engaged
    # in melee combat receives a -6 penalty on all attempts to actively dodge or block incoming
    # attacks." The archer (its attacks are ranged) dodges the raider's sword at 7 - 6 = +1.
    sc = compile_scenario(archer_scenario())
    fight = Scripted(sc, [[1, 1],          # WW-1: raider 1 + 50 first
                          [15, 10, 2]])    # hits 15 >= 10; dodge 10 + 1 = 11 < 15; 2 damage
    attack = events(fight.play_round(1), "attack")[0]
    reaction = attack["result"]["strikes"][0]["reaction"]
    assert reaction == {"kind": "dodge", "roll": 10, "bonus": 1, "total": 11, "negated": False}
    assert attack["situation"] == {"strikes": {"0": {"engaged": True}}} and attack["damage"] == 2


@pytest.mark.parametrize(("raider", "archer"), [("ranged", "ranged"), ("melee", "melee")])
def test_ww5_no_minus_6_against_a_shot_or_for_a_melee_fighter(raider, archer):
    # WW-5: the penalty is for one "making use of a ranged weapon while being engaged in melee";
    # decision: engaged in melee is being attacked in melee, so a shot at the archer, or a sword
    # at a defender holding no ranged weapon, leaves its dodge at +7.
    fight = Scripted(compile_scenario(archer_scenario(raider, archer)), [[1, 1], [15, 10, 2]])
    attack = events(fight.play_round(1), "attack")[0]
    reaction = attack["result"]["strikes"][0]["reaction"]
    assert reaction["bonus"] == 7 and reaction["negated"] and "situation" not in attack


@compiled
def test_ww5_both_loops_play_the_minus_6_alike():
    # WW-5's -6 is a static property of (attacker group, target group): the compiled loop
    # compiles it with each attack up front and plays the same fights as the Python loop.
    body = archer_scenario()
    body["sides"]["archers"][0].update(count=3, hp=12)
    body["sides"]["raiders"][0].update(count=2, hp=20)
    sc = compile_scenario(body)
    assert isinstance(fastfight.plan_for(sc), fastfight.FastPlan)
    blob = orjson.dumps(body)
    fast, slow = play_batch(blob, 9, 0, 200, "auto"), play_batch(blob, 9, 0, 200, "python")
    assert (fast.pop("compiled_fights"), slow.pop("python_fights")) == (200, 200)
    fast.pop("python_fights"), slow.pop("compiled_fights")
    assert fast == slow


# -- WW-7: a feint spends its complex action -------------------------------------------------------

def feint_scenario(**knight):
    return scenario(raiders=[fighter("raider", initiative=50)],
                    knights=[fighter("knight", attacks=[{"method": "melee", "damage": "1d6",
                                                         "feint": {"bonus": 5, "defense": 0}}],
                                     **knight)])


def test_ww7_a_feint_takes_the_round_and_its_attack_comes_with_the_next_action():
    # Seed 002, "Feinting": "A character engaged in melee combat can expend a Complex Action to
    # execute a feint … A successful feint leaves the target unable to actively defend against
    # the character's next attack"; "A character can take a single complex action during each
    # round". The knight feints in round 1 (no attack), attacks in round 2, feints in round 3.
    body = feint_scenario()
    body["sides"]["raiders"][0]["target"] = DODGE7
    body["sides"]["raiders"][0]["tactic"] = {"reserve": 1}
    fight = Scripted(compile_scenario(body), [[1, 1]])   # WW-1: raider first; it holds its action
    log = fight.play_round(1)
    assert events(log, "feint") == [{"type": "feint", "who": "knight", "strike": 0, "rule": "WW-7",
                                     "note": "a complex action: the attack it sets up comes with the next one"}]
    assert not events(log, "attack")
    state = copy.deepcopy(fight.state())
    assert state["members"][1]["feinted"] == [0]  # an encounter keeps the feint made
    fight = Scripted(compile_scenario(body), [[12, 4, 15, 3]], state)  # feint 12+5 vs 4; hits 15; 3
    log = fight.play_round(2)
    attack = events(log, "attack")[0]
    strike = attack["result"]["strikes"][0]
    assert strike["feint"]["succeeded"] and strike["reaction"] is None and attack["damage"] == 3
    assert not events(log, "feint", "reserve spent")  # no dodge: the raider's reserve stays
    fight.script = [[]]
    log = fight.play_round(3)
    assert [e["type"] for e in events(log, "feint", "attack")] == ["feint"]


def test_ww7_ww6_an_off_hand_strike_cannot_feint():
    # Seed 002: the bonus action "must be used to make either an attack or a block attempt with
    # the off hand weapon": a feint is neither.
    body = feint_scenario(attacker={"skill": 0, "str_mod": 0, "two_weapon": {}})
    body["sides"]["knights"][0]["attacks"][0]["hand"] = "off"
    body["sides"]["knights"][0]["attacks"].insert(0, {"method": "melee", "damage": "1d6"})
    with pytest.raises(RequestError) as err:
        compile_scenario(body)
    assert err.value.path == "$.sides.knights[0].attacks[1].feint" and "WW-6" in err.value.reason


@compiled
def test_ww7_feints_play_the_same_fights_on_both_loops():
    # The compiled loop keeps each combatant's feints made across rounds, as WwRound.turn:
    # a feinting strike feints one turn and attacks (its contest rolled with it) the next.
    # The knights (two, one with a plain second strike) feint; the raider blocks with a
    # reserve, so a feint that wins leaves it no block.
    body = feint_scenario(count=2)
    body["sides"]["knights"][0]["attacks"].append({"method": "melee", "damage": "1d4"})
    body["sides"]["raiders"][0].update(target={"defense": 10, "reaction": {"kind": "block", "bonus": 4}},
                                       tactic={"reserve": 1}, hp=60)
    body["max_rounds"] = 12
    sc = compile_scenario(body)
    assert fastfight._uncovered(sc) is None
    assert _same_fights(body, 3, 40) == 40
    plain = copy.deepcopy(body)
    del plain["sides"]["knights"][0]["attacks"][0]["feint"]
    assert play_batch(orjson.dumps(plain), 3, 0, 200, "auto") != play_batch(orjson.dumps(body), 3, 0, 200, "auto")


# -- Attacks of opportunity ------------------------------------------------------------------------

def aoo_scenario(knights=2):
    return scenario(raiders=[fighter("raider", initiative=50), fighter("second", initiative=-50)],
                    knights=[fighter("knight", count=knights, hp=10,
                                     tactic={"flee_at": 5, "target": "focus", "focus": "raider"})])


def test_ww_leaving_provokes_an_attack_of_opportunity_from_each_enemy_engaged_with_it():
    # Seed 002, "Attacks of Opportunity": "Moving out of a threatened square usually provokes an
    # attack of opportunity from the threatening opponent"; "An attack of opportunity is a
    # single melee attack, and you can only make one per round"; it "interrupts" the round:
    # resolved at once, before the knight goes. Decision: an enemy threatens it when the two
    # were engaged in melee this round or the last; the second raider has not fought it yet.
    sc = compile_scenario(aoo_scenario(knights=1))
    fight = Scripted(sc, [[1, 1, 1],          # WW-1: raider 51, second -49, knight 1
                          [15, 6],            # raider hits the knight: 10 - 6 = 4 <= flee_at 5
                          [15, 3]])           # the raider's attack of opportunity: 3 more
    log = fight.play_round(1)
    assert [e["type"] for e in events(log)] == ["attack", "attack of opportunity", "fled", "end"]
    aoo = events(log, "attack of opportunity")[0]
    assert (aoo["who"], aoo["target"], aoo["damage"], aoo["strikes"]) == ("raider", "knight", 3, [0])
    assert aoo["rule"] == "Worldwalker Attacks of Opportunity"
    assert aoo["seed"] == chunk_seed(1, 2)  # the round's next random event, after the attack
    knight = fight.by_id["knight"]
    assert (knight.status, knight.hp, knight.taken) == ("fled", 1, 9)


def test_ww_an_attack_of_opportunity_replays_alone_from_its_seed_and_situation():
    # docs/ENCOUNTERS.md: each attack in a round's log replays with fracas.resolve of the same
    # strikes at that target, changed as its situation says, with its seed. The leaver is an
    # archer with a reserved dodge: the attack of opportunity meets it at -6 (WW-5).
    import fracas

    body = aoo_scenario(knights=1)
    body["sides"]["knights"][0].update(attacks=[{"method": "ranged", "damage": "1d6"}], target=DODGE7,
                                       tactic={"flee_at": 5, "reserve": 1})
    sc = compile_scenario(body)
    seen = engaged = 0
    for seed in range(40):
        fight = Fight(sc)
        while not fight.over:
            for e in fight.play_round(chunk_seed(seed, fight.round + 1))["events"]:
                if e["type"] != "attack of opportunity":
                    continue
                raider = body["sides"]["raiders"][0]
                strike = {**raider["attacks"][0], **e.get("situation", {}).get("strikes", {}).get("0", {}),
                          "target": e["target"]}
                target = {**DODGE7, **e.get("situation", {}).get("target", {})}
                request = {"ruleset": "worldwalker", "attacker": raider["attacker"], "strikes": [strike],
                           "targets": {e["target"]: {k: v for k, v in target.items() if v is not None}}}
                result = fracas.resolve(request, seed=e["seed"]).to_dict()
                assert result["strikes"] == e["result"]["strikes"] and result["total_damage"] == e["damage"]
                seen += 1
                engaged += e["situation"]["strikes"]["0"] == {"engaged": True}
    assert seen > 5 and engaged == seen  # the raider's sword at an archer: always the -6


def test_ww_an_enemy_makes_one_attack_of_opportunity_a_round():
    # "you can only make one per round": the raider spent its attack of opportunity on the
    # first knight; when the second knight leaves, only the second raider (who just fought it)
    # strikes, although the knight had attacked the raider in melee too.
    sc = compile_scenario(aoo_scenario(knights=2))
    ids = sc.member_ids
    assert ids == ["raider", "second", "knight 1", "knight 2"]
    fight = Scripted(sc, [[1, 1, 1, 2],       # WW-1: raider 51, knight 2 (2), knight 1 (1), second -49
                          [15, 6], [15, 3],   # knight 1 hit to 4, flees: the raider's opportunity
                          [15, 1],            # knight 2 hits the raider (engaged in melee)
                          [15, 6], [5]])      # second hits knight 2 to 4: its opportunity misses
    log = fight.play_round(1)
    kinds = [(e["type"], e.get("who"), e.get("target")) for e in events(log, "attack", "attack of opportunity",
                                                                          "fled")]
    assert kinds == [("attack", "raider", "knight 1"), ("attack of opportunity", "raider", "knight 1"),
                     ("fled", "knight 1", None), ("attack", "knight 2", "raider"),
                     ("attack", "second", "knight 2"), ("attack of opportunity", "second", "knight 2"),
                     ("fled", "knight 2", None)]


def test_ww_an_attack_of_opportunity_that_downs_the_leaver_leaves_it_down():
    sc = compile_scenario(aoo_scenario(knights=1))
    fight = Scripted(sc, [[1, 1, 1], [15, 6], [15, 6]])   # 10 - 6 = 4, then 6 more: down, not fled
    log = fight.play_round(1)
    assert [e["type"] for e in events(log)] == ["attack", "attack of opportunity", "down", "end"]
    assert fight.by_id["knight"].status == "down" and fight.winner == "raiders"


def test_ww_engagement_lasts_into_the_next_round_and_an_encounter_keeps_it():
    # Decision: engaged "this round or the last". Round 1: the knight and the raider fight in
    # melee; round 2 the archer's arrow drives the knight off before anyone fights it in melee:
    # the raider, engaged with it the round before, gets its attack of opportunity.
    body = scenario(raiders=[fighter("archer", "ranged", initiative=50), fighter("raider", initiative=-50)],
                    knights=[fighter("knight", hp=10, tactic={"flee_at": 5, "target": "focus",
                                                              "focus": "raider"})])
    sc = compile_scenario(body)
    fight = Scripted(sc, [[1, 1, 1], [5], [5], [5]])   # archer, knight, raider: all miss
    fight.play_round(1)
    state = copy.deepcopy(fight.state())
    assert {m["id"]: m["engaged"] for m in state["members"]} == {"archer": [], "raider": ["knight"],
                                                                  "knight": ["raider"]}
    again = Scripted(sc, [[15, 6], [15, 2]], state)    # the arrow: 4 <= 5; the raider's opportunity
    log = again.play_round(2)
    assert [(e["type"], e.get("who")) for e in events(log)][:3] == [("attack", "archer"),
                                                                    ("attack of opportunity", "raider"),
                                                                    ("fled", "knight")]
    assert Fight(sc, state).state() == state


@compiled
@pytest.mark.parametrize("change", ["plain", "feint", "reserve", "ranged"])
def test_ww_attacks_of_opportunity_play_the_same_fights_on_both_loops(change):
    # The compiled loop makes the same attacks of opportunity (one an enemy a round, in
    # member order, at a leaver engaged with it in melee this round or the last), in the
    # attack's usual situation: the leaver's reserve spent on its blocks (WW-5), the -6 of a
    # leaver holding a ranged weapon (WW-5), and no feint before it (WW-7).
    body = aoo_scenario(knights=3)
    body["max_rounds"] = 10
    knights = body["sides"]["knights"][0]
    if change == "feint":
        for raider in body["sides"]["raiders"]:
            raider["attacks"][0]["feint"] = {"bonus": 3, "defense": 0}
    elif change == "reserve":
        knights.update(target={"defense": 10, "reaction": {"kind": "block", "bonus": 5}})
        knights["tactic"]["reserve"] = 1
    elif change == "ranged":
        knights.update(target={"defense": 10, "reaction": {"kind": "dodge", "bonus": 7}})
        knights["attacks"].append({"method": "ranged", "damage": "1d4"})
    assert fastfight._uncovered(compile_scenario(body)) is None
    assert _same_fights(body, 11, 40) == 40
    loop = simulate(body, runs=30, seed=1, workers=1).to_dict()["fight_loop"]
    assert loop == on_fight_loop(30)


def test_ww_the_parity_scenario_makes_attacks_of_opportunity():
    # What the parity test above compares is not idle: its scenario's fights make attacks
    # of opportunity, and some knights go down to them rather than flee.
    sc = compile_scenario({**aoo_scenario(knights=3), "max_rounds": 10})
    made = downed = 0
    for i in range(40):
        fight = Fight(sc)
        while not fight.over:
            log = fight.play_round(1000 * i + fight.round)
            made += len(events(log, "attack of opportunity"))
            downed += sum(1 for e in log["events"] if e["type"] == "down")
    assert made > 0 and downed > 0


def test_the_cli_round_shows_feints_and_attacks_of_opportunity():
    import re

    from fracas.cli.fights import render_round

    def plain(log):
        return re.sub(r"\x1b\[[0-9;]*m", "", render_round(log))

    text = plain(Scripted(compile_scenario(feint_scenario()), [[1, 1], [5]]).play_round(1))
    assert "knight feints (strike 0, WW-7): its attack comes with its next action" in text
    text = plain(Scripted(compile_scenario(aoo_scenario(knights=1)), [[1, 1, 1], [15, 6], [15, 3]]).play_round(1))
    assert "raider → knight: attack of opportunity, 3 damage" in text and "knight flees" in text


