"""One source for the compiled fight loop and its Python run (issue 41 item 2): the round
procedure files (`rulesets/loop.py`, `rulesets/<ruleset>/loop.py`) that `cython_core/fights.pyx`
compiles, run as the Python they are by `fracas.drive.pyloop`, play every fight as the
compiled loop does: the same winners, rounds, survivors, damage dealt and taken, who fled and
who went down, the same attacks rolled and the same fight stopped on an error, on every
example and on generated scenarios of each ruleset (ER-13, ER-15, ER-17, ER-18, ER-20,
ER-23, ER Weapon Negation, WW-1, WW-5, WW-7, CT-1, CT-4 to CT-7, OS-1 to OS-5)."""

from __future__ import annotations

import json
from array import array
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fracas import _kernels
from fracas.drive import fastfight, pyloop
from fracas.rulesets import loop, loopstate
from fracas.drive.scenario import compile_scenario

from .test_big_fights import TACTICS, scaled
from .test_fast_fights import _ct_scenario, _os_scenario, _scenario, _ww_scenario, compiled
from .test_fights import EXAMPLES, load


def _arrays(scenario: dict) -> Any:
    plan = fastfight.plan_for(compile_scenario(orjson.dumps(scenario)))
    return plan if isinstance(plan, fastfight.FastPlan) else None


def _both(plan: Any, seed: int, first: int, count: int) -> tuple[Any, Any]:
    size = 2 * plan.sides + 1 + plan.max_rounds + 1 + 5 * plan.members
    flat_c, flat_py = array("q", bytes(8 * size)), array("q", bytes(8 * size))
    got_c = _kernels.compiled.fights.play_fights(plan.arrays, seed, first, count, flat_c)
    got_py = pyloop.play_fights(plan.arrays, seed, first, count, flat_py)
    return (got_c, list(flat_c)), (got_py, list(flat_py))


@compiled
@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_plays_the_same_fights_compiled_and_as_python(name):
    plan = _arrays(load(name))
    if plan is None:
        pytest.skip(f"{name} plays on the Python round loop ({fastfight.plan_for(compile_scenario(orjson.dumps(load(name))))})")
    fights = 2 if plan.members > 100 else 12
    c, py = _both(plan, 7, 3, fights)
    assert c[0][0] == fights and c[0][3] > 0  # the fights were played, with attacks
    assert py == c


@compiled
@pytest.mark.parametrize("tactic", TACTICS)
@pytest.mark.parametrize("name", ["er-skeleton-horde.json", "ct-hill-giant.json", "os-goblin-ambush.json",
                                  "ww-duel.json"])
def test_the_pure_python_backends_plan_plays_the_same_fights(name, tactic):
    # With the pure-Python kernels fastfight lays plans out with pyloop's nearest-first
    # lists (sorted by math.hypot, no walks); the compiled core's plan walks rows of members
    # where it can. Played by the compiled loop and as Python, both plans give the same fights.
    scenario = scaled(name, {"ct-hill-giant.json": 6, "ww-duel.json": 40}.get(name, 4), tactic, positions=True,
                      seed=3)
    fast = fastfight._make(compile_scenario(orjson.dumps(scenario)))
    with _kernels.using("python"):
        pure = fastfight._make(compile_scenario(orjson.dumps(scenario)))
    assert isinstance(fast, fastfight.FastPlan) and isinstance(pure, fastfight.FastPlan), (fast, pure)
    assert any(fast.arrays["walk"]) and not any(pure.arrays["walk"])
    c, py = _both(fast, 5, 0, 3)
    c_pure, py_pure = _both(pure, 5, 0, 3)
    assert c[0][0] == 3 and c == py == c_pure == py_pure


def test_every_round_step_the_shared_steps_call_is_a_built_in_rulesets():
    # compiled, fights.pyx includes every round procedure file in one module; as Python,
    # pyloop.bind finds each step in a built-in ruleset's loop.py through the registry
    pyloop.bind()
    for step in loop.ROUND_STEPS:
        bound = getattr(loop, step)
        assert callable(bound) and bound.__module__.startswith("fracas.rulesets."), step
        assert bound.__module__ != "fracas.rulesets.loop", step


@compiled
def test_a_layout_kept_with_arrays_changed_since_is_refused_not_trusted():
    # the layout is worked out once per plan and kept in its arrays; the C loop indexes with
    # it, so play_fights checks it against the arrays it gets (a table changed since: refused)
    plan = _arrays(load("ww-duel.json"))  # every combatant's tactic nearest
    assert plan is not None and pyloop.layout(plan.arrays) is plan.arrays["layout"]
    assert set(plan.arrays["tactic"]) == {loop.TAC_NEAREST}
    size = 2 * plan.sides + 1 + plan.max_rounds + 1 + 5 * plan.members
    changed = dict(plan.arrays, tactic=array("i", plan.arrays["tactic"]))
    changed["tactic"][0] = loop.TAC_RANDOM  # random targets, with no bitsets laid out for them
    with pytest.raises(ValueError, match="layout disagrees with its tactics"):
        _kernels.compiled.fights.play_fights(changed, 1, 0, 1, array("q", bytes(8 * size)))
    changed = dict(plan.arrays, init_mod=array("q", plan.arrays["init_mod"]))
    changed["init_mod"][0] += 50  # a total past the counting sort's range
    with pytest.raises(ValueError, match="layout disagrees with its initiative"):
        _kernels.compiled.fights.play_fights(changed, 1, 0, 1, array("q", bytes(8 * size)))
    changed.pop("layout")  # worked out afresh: plays
    assert _kernels.compiled.fights.play_fights(changed, 1, 0, 1, array("q", bytes(8 * size)))[0] == 1


def test_a_plan_field_nobody_set_is_named():
    with pytest.raises(AttributeError, match="FightPlan has no field 'nowhere'"):
        loopstate.FightPlan().nowhere


@compiled
@pytest.mark.parametrize("scenarios", [_scenario, _ww_scenario, _ct_scenario, _os_scenario],
                         ids=["enchanted-realms", "worldwalker", "cartyrion", "old-school"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**64 - 1))
def test_generated_scenarios_play_the_same_fights_compiled_and_as_python(scenarios, data, seed):
    scenario = data.draw(scenarios())
    plan = _arrays(scenario)
    if plan is None:
        return  # a scenario the compiled loop leaves to the Python round loop (its fight_loop says why)
    c, py = _both(plan, seed, 0, 4)
    assert py == c, json.dumps(scenario)
