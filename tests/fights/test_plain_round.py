"""A plug-in ruleset's fights on the fight loop (issue 41): the plain round (`Procedure`, the
round a ruleset gets by writing only `fight_initiative`) is one the fight loop plays. Its
attacks are strike rows; each round the loop calls the ruleset's own initiative, in Python,
with that round's random event. The guide's row-kernel plug-in (docs/examples/d6pool: DP-1
pools, DP-2 initiative) plays the same fights on the compiled loop, on its source run as
Python and on the Python round loop, fight by fight, on its example and on generated
scenarios (every tactic, `flee_at`, spells, positions, several sides). What the loop does not
play goes to the Python round loop, which says why: a slot of several sides acting at once,
an initiative that fails (the same error as on the Python loop), a ruleset with its own
`fight_outcome`, a procedure of its own, attacks that are not strike rows."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fracas
from fracas.drive import fastfight
from fracas.drive.scenario import compile_scenario
from fracas.drive.simulate import play_batch, simulate
from fracas.errors import RequestError
from fracas.rulesets.fight import Procedure

from . import loop_counts, on_fight_loop, on_python_loop
from .test_fast_fights import _same_fights, compiled
from .test_pyloop import _both

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def _plugin(package: str) -> Any:
    """The docs' example plug-in `package`, registered as a third-party ruleset is."""
    sys.path.insert(0, str(EXAMPLES / package))
    try:
        ruleset = fracas.rulesets.register_package(package)
        yield ruleset
        fracas.rulesets.unregister(ruleset.name)
    finally:
        sys.path.remove(str(EXAMPLES / package))
        sys.modules.pop(package, None)


@pytest.fixture(scope="module")
def d6pool():
    yield from _plugin("d6pool")


@pytest.fixture
def wilddie():
    yield from _plugin("wilddie")


def _skirmish() -> dict[str, Any]:
    return json.loads((EXAMPLES / "d6pool" / "d6pool" / "examples" / "d6-skirmish.json").read_text())


def test_the_plugins_example_plays_on_the_fight_loop_as_on_the_python_round_loop(d6pool):
    # DP-1 pools, DP-2 initiative every round (the plug-in's own fight_initiative, called by
    # the loop): the same fights, fight by fight; compiled, or run as Python without the core
    scenario = _skirmish()
    assert isinstance(fastfight.plan_for(compile_scenario(orjson.dumps(scenario))), fastfight.FastPlan)
    assert _same_fights(scenario, 4, 40) == 40
    assert simulate(scenario, runs=30, seed=2)["fight_loop"] == on_fight_loop(30)


@st.composite
def _d6_scenario(draw: Any) -> dict[str, Any]:
    sides: dict[str, list[dict[str, Any]]] = {}
    names: list[list[str]] = []
    for s in range(draw(st.integers(2, 3))):
        entries = []
        names.append([])
        for g in range(draw(st.integers(1, 3))):
            name = f"s{s}g{g}"
            names[s].append(name)
            entry: dict[str, Any] = {
                "name": name, "count": draw(st.integers(1, 6)), "hp": draw(st.integers(1, 14)),
                "attacker": {"extra": draw(st.integers(0, 2))}, "target": {},
                "attacks": [{"dice": draw(st.integers(1, 6))} for _ in range(draw(st.integers(1, 2)))],
                "initiative": draw(st.integers(-2, 3)),
                "tactic": {"target": draw(st.sampled_from(["nearest", "weakest", "random", "focus"]))}}
            if draw(st.integers(0, 2)) == 0:
                entry["tactic"]["flee_at"] = draw(st.integers(0, 8))
            if draw(st.integers(0, 3)) == 0:
                entry["spell"] = {"name": "bolt", "strikes": [{"dice": draw(st.integers(1, 8))}],
                                  "uses": draw(st.integers(1, 2))}
            if draw(st.booleans()):
                entry["position"] = [draw(st.integers(-8, 8)) * 5.0, draw(st.integers(-3, 3)) * 5.0]
            entries.append(entry)
        sides[f"side{s}"] = entries
    for s, entries in enumerate(sides.values()):  # a focus names a group (or a member) of another side
        for entry in entries:
            if entry["tactic"]["target"] == "focus":
                others = [n for t, group in enumerate(names) if t != s for n in group]
                entry["tactic"]["focus"] = draw(st.sampled_from(others))
    return {"ruleset": "d6-pool", "name": "generated", "max_rounds": draw(st.integers(3, 30)), "sides": sides}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(scenario=_d6_scenario(), seed=st.integers(0, 2**64 - 1))
def test_generated_plugin_fights_play_the_same_on_every_loop(d6pool, scenario, seed):
    assert isinstance(fastfight.plan_for(compile_scenario(orjson.dumps(scenario))), fastfight.FastPlan)
    assert _same_fights(scenario, seed, 3) == 3, json.dumps(scenario)


@compiled
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(scenario=_d6_scenario(), seed=st.integers(0, 2**64 - 1))
def test_generated_plugin_fights_play_the_same_compiled_and_as_python(d6pool, scenario, seed):
    plan = fastfight.plan_for(compile_scenario(orjson.dumps(scenario)))
    c, py = _both(plan, seed, 0, 4)
    assert c[0][0] == 4 and py == c, json.dumps(scenario)


def test_a_slot_of_several_sides_goes_to_the_python_round_loop(d6pool):
    # an initiative whose slot holds combatants of both sides acting at once (from round 2):
    # the loop plays round 1 and hands the fight to the Python round loop, which plays it
    # from the start; the totals are the Python loop's
    class AllAtOnce(type(d6pool)):
        def fight_initiative(self, setup, actors, sides, round_, dice, seed):
            slots, record = super().fight_initiative(setup, actors, sides, round_, dice, seed)
            return (slots if round_ == 1 else [[a.id for a in actors]]), record

    sc = dataclasses.replace(compile_scenario(orjson.dumps(_skirmish())), ruleset=AllAtOnce())
    plan = fastfight.plan_for(sc)
    assert isinstance(plan, fastfight.FastPlan)
    from fracas.drive import simulate as sim

    fast, slow = _totals(sc, "auto"), _totals(sc, "python")
    handed = fast["handed_over"]
    assert handed > 0 and loop_counts(fast) == (30 - handed, handed) and loop_counts(slow) == (0, 30)
    assert fast == slow
    assert sim.why_python(sc, "auto", {"handed_over": handed}) == (
        "the ruleset's initiative gave a slot of several combatants acting together, which the Python round loop plays")


def test_slots_of_one_side_and_surprised_combatants_stay_on_the_fight_loop(d6pool):
    # slots of several combatants of one side act one after another, as the Python round
    # loop plays them; a combatant in no slot is surprised (no turn, no spell used)
    class BySide(type(d6pool)):
        def fight_initiative(self, setup, actors, sides, round_, dice, seed):
            slots, record = super().fight_initiative(setup, actors, sides, round_, dice, seed)
            side = {a.id: a.side for a in actors}
            grouped: list[list[str]] = []
            for slot in slots[1:] if round_ == 1 else slots:  # round 1: the first is surprised
                if grouped and side[grouped[-1][0]] == side[slot[0]]:
                    grouped[-1].extend(slot)
                else:
                    grouped.append(list(slot))
            return grouped, record

    scenario = _skirmish()
    scenario["sides"]["raiders"][0]["spell"] = {"name": "bolt", "strikes": [{"dice": 5}], "uses": 1}
    sc = dataclasses.replace(compile_scenario(orjson.dumps(scenario)), ruleset=BySide())
    fast, slow = _totals(sc, "auto"), _totals(sc, "python")
    assert loop_counts(fast) == (30, 0) and loop_counts(slow) == (0, 30)
    assert fast == slow


def _totals(sc: Any, loop: str) -> dict[str, Any]:
    """30 fights of `sc` (a compiled scenario with its ruleset swapped) as play_batch adds them up."""
    from fracas.drive.simulate import play_compiled

    return play_compiled(sc, 5, 0, 30, loop)


def test_an_initiative_that_fails_fails_as_on_the_python_round_loop(d6pool):
    # the loop hands the fight to the Python round loop, which raises the ruleset's error
    class Failing(type(d6pool)):
        def fight_initiative(self, setup, actors, sides, round_, dice, seed):
            if round_ == 3:
                raise RequestError("$.initiative", "no initiative past round 2 (a test's ruleset)")
            return super().fight_initiative(setup, actors, sides, round_, dice, seed)

    sc = dataclasses.replace(compile_scenario(orjson.dumps(_skirmish())), ruleset=Failing())
    for loop in ("auto", "python"):
        with pytest.raises(RequestError, match="no initiative past round 2"):
            _totals(sc, loop)


def test_what_the_fight_loop_does_not_play_says_why(d6pool, wilddie):
    # a ruleset with its own fight_outcome, a procedure of its own (without `compiled`), and
    # a plug-in on the generic path (its attacks are not strike rows)
    class Halved(type(d6pool)):
        def fight_outcome(self, result):
            return result.total_damage // 2, 0, 0

    class OwnRound(Procedure):
        pass

    class Owned(type(d6pool)):
        def fight_procedure(self):
            return OwnRound

    sc = compile_scenario(orjson.dumps(_skirmish()))
    assert fastfight.plan_for(dataclasses.replace(sc, ruleset=Halved())) == \
        "the ruleset's round has procedures the compiled fight loop does not take"
    assert "(OwnRound) has no compiled twin" in fastfight.plan_for(dataclasses.replace(sc, ruleset=Owned()))
    wild = _skirmish()
    wild["ruleset"] = wilddie.name
    for entries in wild["sides"].values():
        for entry in entries:
            entry.update(attacker={}, target={"parry": 4}, attacks=[{"die": 8}])
    why = fastfight.plan_for(compile_scenario(orjson.dumps(wild)))
    assert why == "$.sides.raiders[0]: its attack at $.sides.guards[0] is not one strike-row attack at one target"
    result = simulate(wild, runs=10, seed=1)
    assert result["fight_loop"] == on_python_loop(10, why)


def test_a_ctrl_c_in_the_initiative_call_stops_the_simulation(d6pool):
    # a KeyboardInterrupt raised in the plugin's initiative (simulate's SIGINT handler raises
    # one in the Python code that runs) comes out of the fight loop, not lost in it
    class Interrupted(type(d6pool)):
        def fight_initiative(self, setup, actors, sides, round_, dice, seed):
            if round_ == 2:
                raise KeyboardInterrupt
            return super().fight_initiative(setup, actors, sides, round_, dice, seed)

    sc = dataclasses.replace(compile_scenario(orjson.dumps(_skirmish())), ruleset=Interrupted())
    plan = fastfight.plan_for(sc)
    totals = _totals(compile_scenario(orjson.dumps(_skirmish())), "auto")
    with pytest.raises(KeyboardInterrupt):
        plan.play(5, 0, 30, totals)  # the fight loop itself raises it (no Python round loop behind)
    # and the next plan plays on: nothing of the interruption is left behind
    assert loop_counts(_totals(compile_scenario(orjson.dumps(_skirmish())), "auto")) == (30, 0)


# -- a variant of a built-in ruleset with an initiative of its own --------------------------------

class _HouseInitiative:
    """An Enchanted Realms house rule (a ruleset deriving from it): initiative is a d20 +
    Agility, highest first, ties in scenario order, no roll-offs (ER-18 otherwise)."""

    def fight_initiative(self, setup, actors, sides, round_, dice, seed):
        rolled = sorted(((dice.die(20) + (a.attacker or {}).get("agility", 10), -i, a.id)
                         for i, a in enumerate(actors)), reverse=True)
        return [[member] for _total, _i, member in rolled], {"house": [member for *_, member in rolled]}


def _house(together: bool = False) -> Any:
    from fracas.rulesets.er import EnchantedRealms

    class House(_HouseInitiative, EnchantedRealms):
        def fight_initiative(self, setup, actors, sides, round_, dice, seed):
            slots, record = _HouseInitiative.fight_initiative(self, setup, actors, sides, round_, dice, seed)
            if together and round_ == 2:  # a side's combatants act as one slot
                first = {a.id: a.side for a in actors}
                party = [m for slot in slots for m in slot if first[m] == "party"]
                slots = [party, *[s for s in slots if first[s[0]] != "party"]]
            return slots, record

    return House()


@pytest.mark.parametrize("name", ["er-bandit-rout", "er-skeleton-horde"])
def test_a_house_ruled_initiative_plays_the_enchanted_realms_round_on_the_fight_loop(name):
    # the ER round (ER-13 sneaks and shock, ER-17 strays, ER-20 flee attacks) with a
    # variant's own initiative, called each round: the same fights on both loops
    from fracas.drive.scenario import example

    sc = dataclasses.replace(compile_scenario(example(name)), ruleset=_house())
    assert isinstance(fastfight.plan_for(sc), fastfight.FastPlan), fastfight.plan_for(sc)
    fast, slow = _totals(sc, "auto"), _totals(sc, "python")
    assert loop_counts(fast) == (30, 0) and loop_counts(slow) == (0, 30)
    assert fast == slow
    plain = compile_scenario(example(name))  # and the house rule is in play: other fights than ER-18's
    assert _totals(plain, "auto")["dealt"] != fast["dealt"]


def test_a_house_ruled_slot_of_one_side_goes_to_the_python_round_loop():
    # ER-13's lost action is taken per slot (ErRound.slot_started), so the fight loop plays
    # only slots of one combatant: a slot of the whole party is handed over
    from fracas.drive.scenario import example

    sc = dataclasses.replace(compile_scenario(example("er-skeleton-horde")), ruleset=_house(together=True))
    fast, slow = _totals(sc, "auto"), _totals(sc, "python")
    assert fast["handed_over"] > 0 and loop_counts(slow) == (0, 30)
    loop_counts(fast)
    assert fast == slow
