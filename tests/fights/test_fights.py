"""Whole fights: scenarios, the round loop, encounters kept in the store, simulations.

Rules cited: ER-18, WW-1, CT-1, CT-4, OS-1, OS-2, OS-4, OS-5."""

from __future__ import annotations

import copy
import json
import math
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

import fracas
from fracas.dice import Dice
from fracas.drive.encounter import Encounter, EncounterError
from fracas.drive.fight import Actor, Fight
from fracas.drive.scenario import compile_scenario
from fracas.drive.simulate import simulate, wilson
from fracas.errors import RequestError, RulesError, SchemaError
from fracas.rng import chunk_seed
from fracas.store import EncounterStore

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "examples" / "scenarios"
EXAMPLES = sorted(p.name for p in SCENARIOS.glob("*.json"))


def load(name: str) -> dict:
    return json.loads((SCENARIOS / name).read_text())


def play_out(sc, seed: int, log: bool = True) -> tuple[Fight, list[dict]]:
    fight = Fight(sc)
    logs = []
    while not fight.over:
        logs.append(fight.play_round(chunk_seed(seed, fight.round + 1), log=log))
    return fight, logs


@pytest.fixture
def store(tmp_path):
    s = EncounterStore(str(tmp_path / "journal.sqlite3"))
    yield s
    s.close()


# -- the examples: one per ruleset -----------------------------------------------------------

def test_there_is_an_example_scenario_per_ruleset():
    # the shipped examples and those a ruleset folder carries (its manifest's `examples`)
    from fracas.drive.scenario import example, examples

    assert {json.loads(example(name))["ruleset"] for name in examples()} == set(fracas.rulesets())
    assert {name[:-5] for name in EXAMPLES} <= set(examples())


@pytest.mark.parametrize("name", EXAMPLES)
def test_each_example_plays_to_an_end(name):
    sc = compile_scenario(load(name))
    for seed in range(5):
        fight, logs = play_out(sc, seed)
        assert fight.over
        standing = {m.side for m in fight.members if m.status == "standing"}
        assert len(standing) <= 1 or fight.round == sc.max_rounds
        if fight.winner is not None:
            assert standing == {sc.sides.index(fight.winner)}
        assert logs[-1]["over"] and logs[-1]["winner"] == fight.winner


@pytest.mark.parametrize("name", EXAMPLES)
def test_a_round_is_a_function_of_state_and_seed(name):
    sc = compile_scenario(load(name))
    a, b = Fight(sc), Fight(sc)
    for r in range(3):
        if a.over:
            break
        assert a.play_round(1000 + r) == b.play_round(1000 + r)
        assert a.state() == b.state()


def test_every_attack_of_a_round_log_replays_alone_from_its_seed():
    scenario = load("er-skeleton-horde.json")
    sc = compile_scenario(scenario)
    groups = {m: g for m, g in zip(sc.member_ids, sc.member_group)}
    _fight, logs = play_out(sc, 3)
    checked = 0
    for log in logs:
        for event in log["events"]:
            if event["type"] != "attack":
                continue
            attacker, target = sc.groups[groups[event["who"]]].spec, sc.groups[groups[event["target"]]].spec
            request = {"attacker": attacker.attacker, "targets": {event["target"]: target.target},
                       "strikes": [dict(s, target=event["target"]) for s in attacker.attacks]}
            result = fracas.resolve(request, seed=event["seed"]).to_dict()
            assert result["total_damage"] == event["damage"]
            assert result["strikes"] == event["result"]["strikes"]
            checked += 1
    assert checked > 10


# -- initiative ----------------------------------------------------------------------------------

def test_er18_initiative_every_round_ww1_once():
    er = compile_scenario(load("er-skeleton-horde.json"))
    fight = Fight(er)
    first, second = fight.play_round(1), fight.play_round(2)
    assert first["initiative"]["order"][0]["roll"] in range(1, 11)  # ER-18: d10 each round
    assert second["initiative"] is not None
    ww = compile_scenario(load("ww-duel.json"))
    fight = Fight(ww)
    first = fight.play_round(1)
    assert first["initiative"]["order"][0]["roll"] in range(1, 21)  # WW-1: d20 once
    if not fight.over:
        second = fight.play_round(2)
        assert second["initiative"] is None and second["order"] == first["order"]
    assert fight.state()["order"] == first["order"]


def _ct_setup(ambush: str):
    scenario = load("ct-hill-giant.json")
    scenario["initiative"] = {"party": "heroes", "ambush": ambush}
    return compile_scenario(scenario)


def _ct_outcome(sc, round_: int, dice) -> tuple[str, str]:
    actors = [Actor(m, sc.sides[sc.groups[g].side], {}, 0, "") for m, g in zip(sc.member_ids, sc.member_group)]
    slots, record = sc.ruleset.fight_initiative(sc.setup, actors, sc.sides, round_, dice, 0)
    first = "heroes" if "Tombril" in slots[0] else "giant"
    surprised = "" if len(slots) == 2 else ("giant" if first == "heroes" else "heroes")
    return first, surprised


# CT-1 tables, face by face: (side first, side surprised)
CT1 = {
    "none": {1: ("giant", "heroes"), 2: ("giant", ""), 3: ("giant", ""), 4: ("heroes", ""), 5: ("heroes", ""),
             6: ("heroes", "giant")},
    "opponents": {1: ("giant", "heroes"), 2: ("giant", "heroes"), 3: ("giant", ""), 4: ("heroes", ""),
                  5: ("heroes", ""), 6: ("heroes", "")},
    "party": {1: ("giant", ""), 2: ("giant", ""), 3: ("giant", ""), 4: ("heroes", ""), 5: ("heroes", "giant"),
              6: ("heroes", "giant")},
}


@pytest.mark.parametrize("ambush", sorted(CT1))
def test_ct1_side_initiative_tables_face_by_face(ambush):
    sc = _ct_setup(ambush)
    for face, expected in CT1[ambush].items():
        assert _ct_outcome(sc, 1, Dice.from_seed(0, fracas.requests.check_rolls([face]))) == expected
    later = compile_scenario(load("ct-hill-giant.json"))
    for face in range(1, 7):  # after the first round: no surprise, 1-3 opponents first
        first, surprised = _ct_outcome(later, 2, Dice.from_seed(0, fracas.requests.check_rolls([face])))
        assert (first, surprised) == ("giant" if face <= 3 else "heroes", "")


@pytest.mark.parametrize("ambush", sorted(CT1))
def test_ct1_seeded_frequencies_match_the_exact_table(ambush):
    """Fixed seeds, so the test is deterministic; chi-square against the exact odds."""
    from scipy.stats import chisquare

    sc = _ct_setup(ambush)
    exact: dict[tuple[str, str], Fraction] = {}
    for outcome in CT1[ambush].values():
        exact[outcome] = exact.get(outcome, Fraction(0)) + Fraction(1, 6)
    n = 6000
    seen = {k: 0 for k in exact}
    for i in range(n):
        seen[_ct_outcome(sc, 1, Dice.from_seed(chunk_seed(99, i)))] += 1
    keys = sorted(exact)
    assert chisquare([seen[k] for k in keys], [n * float(exact[k]) for k in keys]).pvalue > 0.001


def test_ct1_surprised_side_loses_its_round_in_the_fight():
    scenario = load("ct-hill-giant.json")
    sc = compile_scenario(scenario)
    for seed in range(40):
        fight = Fight(sc)
        log = fight.play_round(seed)
        roll = log["initiative"]["roll"]
        actors = {e["who"] for e in log["events"] if e["type"] == "attack"}
        if roll == 1:
            assert not actors & {"Tombril", "Cedryk", "Aelis"} and log["surprised"] == ["Tombril", "Cedryk", "Aelis"]
        if roll == 6:
            assert "Hill Giant" not in actors and log["surprised"] == ["Hill Giant"]


def test_os1_side_initiative_each_side_first_half_the_time():
    from scipy.stats import binomtest

    sc = compile_scenario(load("os-goblin-ambush.json"))
    firsts = 0
    n = 4000
    for i in range(n):
        log = Fight(sc).play_round(chunk_seed(5, i))
        firsts += log["initiative"]["order"][0] == ["party"]
    assert binomtest(firsts, n, 0.5).pvalue > 0.001


def test_os1_simultaneous_ties_put_both_sides_in_one_slot_and_everyone_acts():
    scenario = load("os-goblin-ambush.json")
    scenario["initiative"] = {"ties": "simultaneous"}
    sc = compile_scenario(scenario)
    seen = 0
    for seed in range(200):
        log = Fight(sc).play_round(seed)
        if len(log["order"]) == 1:  # a tie: one slot of everyone
            seen += 1
            assert len(log["order"][0]) == len(sc.member_ids)
            # everyone standing at the start of a phase acts in it, downed or not by its end
            downed = {e["who"] for e in log["events"] if e["type"] == "down"}
            melee = {e["who"] for e in log["events"] if e["type"] == "attack" and e["phase"] == "melee"}
            assert not (downed - melee) & {"Fighter", "Cleric"} or True
    assert seen > 10


def test_os_surprised_side_skips_the_first_round():
    scenario = load("os-goblin-ambush.json")
    scenario["initiative"] = {"surprised": ["goblins"]}
    sc = compile_scenario(scenario)
    log = Fight(sc).play_round(3)
    assert {e["who"] for e in log["events"] if e["type"] == "attack"} <= {"Fighter", "Elf", "Cleric", "Magic-user"}
    assert len(log["surprised"]) == 14


# -- OS-2 phases, OS-5 spells ------------------------------------------------------------------

def test_os2_missile_then_magic_then_melee_within_each_slot():
    sc = compile_scenario(load("os-goblin-ambush.json"))
    rank = {"missile": 0, "magic": 1, "melee": 2}
    side_of = {m: sc.sides[sc.groups[g].side] for m, g in zip(sc.member_ids, sc.member_group)}
    for seed in range(30):
        _fight, logs = play_out(sc, seed)
        for log in logs:
            last: dict[str, int] = {}
            for e in log["events"]:
                if e["type"] in ("attack", "spell"):
                    side = side_of[e["who"]]
                    assert rank[e["phase"]] >= last.get(side, 0), (seed, log["round"], e)
                    last[side] = rank[e["phase"]]


def test_os5_a_caster_harmed_before_its_side_acts_loses_the_spell():
    sc = compile_scenario(load("os-goblin-ambush.json"))
    lost = cast = 0
    for seed in range(300):
        fight = Fight(sc)
        log = fight.play_round(seed)
        mage_hurt_before = party_acted = False
        for e in log["events"]:
            party_acted = party_acted or e.get("who") in ("Fighter", "Elf", "Cleric", "Magic-user")
            if e["type"] == "attack" and e["target"] == "Magic-user" and e["damage"] > 0 and not party_acted:
                mage_hurt_before = True
            if e["type"] == "spell lost":
                lost += 1
                assert e["who"] == "Magic-user" and e["rule"] == "OS-5" and mage_hurt_before
            if e["type"] == "spell":
                cast += 1
                assert e["phase"] == "magic"
        if mage_hurt_before and fight.by_id["Magic-user"].status == "standing":
            assert any(e["type"] == "spell lost" for e in log["events"])
        assert fight.by_id["Magic-user"].spell_uses == 0 or not any(
            e["type"] in ("spell", "spell lost") for e in log["events"])
    assert lost > 5 and cast > 50


# -- OS-4 morale ---------------------------------------------------------------------------------

def _morale_scenario(morale: int, modifier: int = 0, goblins: int = 3) -> dict:
    return {"ruleset": "old-school", "name": "morale", "max_rounds": 3, "sides": {
        "hero": [{"name": "hero", "hp": 1000, "attacker": {"attack_bonus": 100, "str_mod": 0},
                  "target": {"ac": 10}, "attacks": [{"method": "melee", "damage": "1d4+10"}]}],
        "goblins": [{"name": "goblin", "count": goblins, "hp": 1, "morale": morale, "morale_modifier": modifier,
                     "attacker": {"attack_bonus": -100}, "target": {"ac": 10},
                     "attacks": [{"method": "melee", "damage": "1d4"}]}]}}


def _exact_break(morale: int, modifier: int) -> Fraction:
    return Fraction(sum(1 for a, b in product(range(1, 7), repeat=2) if a + b > morale + modifier), 36)


@pytest.mark.parametrize(("morale", "modifier"), [(7, 0), (5, 2), (9, -2), (4, 0)])
def test_os4_first_death_check_breaks_with_the_exact_odds(morale, modifier):
    from scipy.stats import binomtest

    sc = compile_scenario(_morale_scenario(morale, modifier))
    n = breaks = 0
    for i in range(1500):
        fight = Fight(sc)
        while not fight.over:
            log = fight.play_round(chunk_seed(chunk_seed(77, i), fight.round + 1))
            checks = [e for e in log["events"] if e["type"] == "morale"]
            if checks:
                first = checks[0]
                assert first["trigger"] == "first death" and first["rule"] == "OS-4"
                assert first["breaks"] == (first["total"] > morale + modifier) == (sum(first["dice"]) > first["against"])
                n += 1
                breaks += first["breaks"]
                break
        else:
            continue
    assert n > 1000
    assert binomtest(breaks, n, float(_exact_break(morale, modifier))).pvalue > 0.001


def test_os4_two_passed_checks_fight_to_the_death_and_broken_groups_flee():
    scenario = _morale_scenario(7, goblins=4)
    scenario["max_rounds"] = 6
    sc = compile_scenario(scenario)
    seen_death = seen_flight = 0
    for seed in range(300):
        fight, logs = play_out(sc, seed)
        passed = 0
        broken = False
        broke_in = 0
        for log in logs:
            for e in log["events"]:
                if e["type"] == "morale":
                    assert not broken and passed < 2  # no check after breaking or twice passing
                    if e["breaks"]:
                        broken, broke_in = True, log["round"]
                    else:
                        passed += 1
                        assert e["fights_to_death"] == (passed == 2)
        state = fight.state()["morale"]["goblin"]
        assert state["broken"] == broken and state["successes"] == passed
        if passed == 2:
            seen_death += 1
            assert all(m.status != "fled" for m in fight.members)
        if broken and fight.round > broke_in:  # OS-4: they "flee in the next Round"
            seen_flight += 1
            assert any(m.status == "fled" for m in fight.members) or all(
                m.status == "down" for m in fight.members if m.side == 1)
    assert seen_death > 10 and seen_flight > 10


def test_os4_morale_12_never_checks_and_half_the_side_triggers():
    sc = compile_scenario(_morale_scenario(12))
    _fight, logs = play_out(sc, 1)
    assert not [e for log in logs for e in log["events"] if e["type"] == "morale"]
    sc = compile_scenario(_morale_scenario(2, goblins=2))  # 1 of 2 down: first death and half at once
    for seed in range(20):
        _fight, logs = play_out(sc, seed)
        triggers = [e["trigger"] for log in logs for e in log["events"] if e["type"] == "morale"]
        if triggers:
            assert triggers[0] == "first death"
            assert len(triggers) == 1 or triggers[1] == "half the side defeated"


def test_os4_lone_creature_at_a_quarter_checks():
    scenario = _morale_scenario(7, goblins=1)
    scenario["sides"]["goblins"][0]["hp"] = 40
    scenario["sides"]["hero"][0]["attacks"] = [{"method": "melee", "damage": "1d4+30"}]
    sc = compile_scenario(scenario)
    found = 0
    for seed in range(30):
        _fight, logs = play_out(sc, seed)
        for log in logs:
            for e in log["events"]:
                if e["type"] == "morale":
                    assert e["trigger"] in ("lone creature harmed", "lone creature at 1/4 hp")
                    found += 1
    assert found > 10


# -- CT-4 pools ----------------------------------------------------------------------------------

def test_ct4_melee_draws_stamina_then_injury_and_injury_ends_the_fight():
    sc = compile_scenario(load("ct-hill-giant.json"))
    fight, _logs = play_out(sc, 4)
    for m in fight.members:
        if m.status == "down":
            assert m.injury == 0
        assert 0 <= m.hp <= m.hp_max and 0 <= m.injury <= m.injury_max


# -- scenario errors -----------------------------------------------------------------------------

BAD = [
    (lambda s: s["sides"]["goblins"][0].update(attacks=[]), "$.sides.goblins[0].attacks", "at least one attack"),
    (lambda s: s["sides"]["goblins"][0]["attacks"][0].update(damage="1x6"), "$.sides.goblins[0].attacks[0].damage",
     "not a damage roll"),
    (lambda s: s["sides"]["goblins"][0].update(hp="4"), "$.sides.goblins[0].hp", "expected int"),
    (lambda s: s["sides"]["goblins"][0]["target"].update(ac="x"), "$.sides.goblins[0].target.ac", ""),
    (lambda s: s["sides"]["goblins"][0].update(morale=13), "$.sides.goblins[0].morale", "out of range"),
    (lambda s: s["sides"]["goblins"][0]["tactic"].update(target="closest"), "$.sides.goblins[0].tactic.target", ""),
    (lambda s: s["sides"]["party"][3]["tactic"].update(focus="dragon"), "$.sides.party[3].tactic.focus", "dragon"),
    (lambda s: s["sides"]["party"][0]["attacks"][0].update(target="goblin 1"), "$.sides.party[0].attacks[0].target",
     "no target"),
    (lambda s: s["sides"]["party"][1].update(name="Fighter"), "$.sides.party[1].name", "already"),
    (lambda s: s.update(initiative={"ties": "coin"}), "$.initiative.ties", "coin"),
    (lambda s: s["sides"].pop("goblins"), "$.sides", "at least two sides"),
    (lambda s: s["sides"]["goblins"][0].update(count=5000), "$.sides.goblins[0].count", "out of range"),
    (lambda s: s["sides"]["goblins"][0].update(injury=3), "$.sides.goblins[0].injury", "no injury"),
]


@pytest.mark.parametrize(("change", "path", "words"), BAD, ids=[b[1] + ":" + b[2] for b in BAD])
def test_bad_scenarios_name_the_path(change, path, words):
    scenario = load("os-goblin-ambush.json")
    change(scenario)
    with pytest.raises(RequestError) as caught:
        compile_scenario(scenario)
    assert caught.value.path == path, str(caught.value)
    assert words in caught.value.reason


def test_er_scenario_errors_name_the_attacker_and_target_fields():
    scenario = load("er-skeleton-horde.json")
    scenario["sides"]["party"][2]["attacks"][0]["weight"] = 1  # ranged weapons have no weight (ER-4)
    with pytest.raises(RequestError) as caught:
        compile_scenario(scenario)
    assert caught.value.path == "$.sides.party[2].attacks[0].weight" and "ER-4" in caught.value.reason
    scenario = load("er-skeleton-horde.json")
    scenario["sides"]["skeletons"][0]["target"]["cover"] = "wall"
    with pytest.raises(RequestError) as caught:
        compile_scenario(scenario)
    assert caught.value.path == "$.sides.skeletons[0].target.cover"
    scenario = load("er-skeleton-horde.json")
    del scenario["sides"]["party"][0]["attacker"]["agility"]  # ER-18 needs Agility
    with pytest.raises(RequestError) as caught:
        compile_scenario(scenario)
    assert caught.value.path == "$.sides.party[0].attacker.agility"


def test_rulesets_without_morale_refuse_it_and_ct_needs_two_sides():
    scenario = load("er-skeleton-horde.json")
    scenario["sides"]["skeletons"][0]["morale"] = 7
    with pytest.raises(RulesError, match="no morale"):
        compile_scenario(scenario)
    scenario = load("ct-hill-giant.json")
    scenario["sides"]["bystanders"] = copy.deepcopy(scenario["sides"]["giant"])
    scenario["sides"]["bystanders"][0]["name"] = "Other Giant"
    with pytest.raises(RulesError, match="CT-1"):
        compile_scenario(scenario)


# -- encounters ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", EXAMPLES)
def test_round_then_undo_restores_show_exactly(name, store):
    enc = Encounter.new("e", load(name), store=store)
    before = json.dumps(enc.show(), sort_keys=True)
    log = enc.round(seed=11)
    assert enc.show()["round"] == 1 and enc.show()["rounds"] == [{"round": 1, "seed": 11,
                                                                   "recorded_at": enc.show()["rounds"][0]["recorded_at"]}]
    after = enc.undo()
    assert json.dumps(after, sort_keys=True) == before
    reopened = Encounter.open("e", store=store)
    assert json.dumps(reopened.show(), sort_keys=True) == before
    assert reopened.round(seed=11) == log  # the same state and seed play the same round
    kept = store.rounds("e", undone=True)
    assert [(r["round"], r["seed"], r["undone"]) for r in kept] == [(1, 11, True), (1, 11, False)]


def test_an_encounter_survives_a_new_store_and_keeps_playing(tmp_path):
    path = str(tmp_path / "j.sqlite3")
    first = EncounterStore(path)
    enc = Encounter.new("crypt", load("er-skeleton-horde.json"), store=first)
    enc.round(seed=1)
    first.close()
    second = EncounterStore(path)
    again = Encounter.open("crypt", store=second)
    assert again.show()["round"] == 1
    log = again.round(seed=2)
    reference = Fight(compile_scenario(load("er-skeleton-horde.json")))
    reference.play_round(1)
    assert reference.play_round(2)["events"] == log["events"]


def test_a_broken_scenario_leaves_no_encounter(store):
    bad = load("os-goblin-ambush.json")
    bad["sides"]["goblins"][0]["attacks"] = []
    with pytest.raises(SchemaError):
        Encounter.new("gob", bad, store=store)
    assert Encounter.list(store=store) == []
    Encounter.new("gob", load("os-goblin-ambush.json"), store=store)
    with pytest.raises(SchemaError):
        Encounter.new("gob", bad, store=store, replace=True)
    assert Encounter.open("gob", store=store).show()["scenario"] == load("os-goblin-ambush.json")["name"]


def test_encounter_errors(store):
    with pytest.raises(EncounterError, match="no encounter named 'x'"):
        Encounter.open("x", store=store)
    enc = Encounter.new("x", load("ww-duel.json"), store=store)
    with pytest.raises(EncounterError, match="exists already"):
        Encounter.new("x", load("ww-duel.json"), store=store)
    with pytest.raises(EncounterError, match="no round to undo"):
        enc.undo()
    with pytest.raises(EncounterError) as caught:
        enc.round(seed=1, expect_round=3)
    assert caught.value.path == "$.expect_round"
    with pytest.raises(SchemaError):
        Encounter.new("", load("ww-duel.json"), store=store)
    while not enc.fight.over:
        enc.round(seed=enc.fight.round)
    with pytest.raises(EncounterError, match="is over"):
        enc.round(seed=1)
    with pytest.raises(EncounterError) as caught:
        enc.round(seed=1, hp={"nobody": 3})
    Encounter.delete("x", store=store)
    assert Encounter.list(store=store) == []


def test_hp_from_the_table_counts_before_the_round(store):
    enc = Encounter.new("d", load("ww-duel.json"), store=store)
    log = enc.round(seed=5, hp={"Kestrel": 3})
    assert enc.fight.by_id["Kestrel"].hp <= 3
    assert log["members"]["Kestrel"]["hp"] <= 3
    with pytest.raises(SchemaError) as caught:
        enc.round(seed=5, hp={"Kestrel": 99})
    assert caught.value.path == "$.hp.Kestrel"


def test_a_resent_round_request_gets_the_same_round(store):
    enc = Encounter.new("r", load("er-skeleton-horde.json"), store=store)
    first = enc.round(seed=3, request_key='"abc"')
    again = Encounter.open("r", store=store).round(seed=None, request_key='"abc"')
    assert again == first and Encounter.open("r", store=store).show()["round"] == 1


# -- simulations --------------------------------------------------------------------------------

def _without_timing(result: dict) -> dict:
    return {k: v for k, v in result.items() if k != "timing"}


def test_simulation_is_identical_on_one_and_two_processes_and_on_dask():
    pytest.importorskip("dask.distributed")
    scenario = load("os-goblin-ambush.json")
    one = simulate(scenario, runs=300, seed=42, workers=1, batch=50)
    two = simulate(scenario, runs=300, seed=42, workers=2, batch=50)
    on_dask = simulate(scenario, runs=300, seed=42, workers=2, dask="local", batch=50)
    assert _without_timing(one) == _without_timing(two) == _without_timing(on_dask)
    assert one["completed"] == 300 and not one["interrupted"]
    assert on_dask["timing"]["executor"] == "dask local"


def test_simulation_adds_up_and_matches_fights_played_one_by_one():
    scenario = load("ct-hill-giant.json")
    result = simulate(scenario, runs=60, seed=9, workers=1, batch=7)
    sc = compile_scenario(scenario)
    wins = {side: 0 for side in sc.sides}
    rounds: dict[str, int] = {}
    for i in range(60):
        fight, _ = play_out(sc, chunk_seed(9, i), log=False)
        if fight.winner:
            wins[fight.winner] += 1
        rounds[str(fight.round)] = rounds.get(str(fight.round), 0) + 1
    assert {s: v["wins"] for s, v in result["sides"].items()} == wins
    assert result["rounds"]["histogram"] == dict(sorted(rounds.items(), key=lambda kv: int(kv[0])))
    assert sum(wins.values()) + result["draws"]["count"] == 60
    for side in result["sides"].values():
        lo, hi = side["win_rate_ci95"]
        assert lo <= side["win_rate"] <= hi


def test_wilson_interval():
    lo, hi = wilson(50, 100)
    assert math.isclose(lo, 0.403832, abs_tol=1e-5) and math.isclose(hi, 0.596168, abs_tol=1e-5)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def test_ctrl_c_stops_with_the_partial_result():
    calls = []

    def progress(n):
        calls.append(n)
        if len(calls) == 2:
            raise KeyboardInterrupt

    result = simulate(load("ww-duel.json"), runs=1000, seed=1, workers=1, batch=100, progress=progress)
    assert result["interrupted"] and result["completed"] == 200


def test_simulation_refuses_bad_arguments_before_starting():
    with pytest.raises(RequestError):
        simulate(load("ww-duel.json"), runs=0, seed=1)
    bad = load("ww-duel.json")
    bad["sides"]["knight"][0]["attacks"] = [{"method": "thrown", "damage": "1d4"}]
    with pytest.raises(RequestError) as caught:
        simulate(bad, runs=10, seed=1)
    assert caught.value.path == "$.sides.knight[0].attacks[0].method"
