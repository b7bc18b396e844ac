"""The compiled fight loop (fracas.drive.fastfight, cython_core/fights.pyx) against its twin,
the Python round loop (fracas.drive.fight): the same scenario and seed give the same fight
(winner, rounds, survivors, damage dealt and taken, who fled and who went down), fight by
fight, on every example and on generated scenarios (docs/ENCOUNTERS.md, "Dice": "The same
state and round seed give the same round, in every backend")."""

from __future__ import annotations

import json

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fracas import _kernels
from fracas.drive import fastfight
from fracas.drive.scenario import compile_scenario
from fracas.drive.simulate import play_batch, simulate

from . import LOOP_KEYS, on_fight_loop, on_python_loop
from .test_fights import EXAMPLES, load

compiled = pytest.mark.skipif(not hasattr(_kernels.active(), "play_fights"),
                              reason="the compiled core is not in use (FRACAS_PUREPYTHON or no compiler)")


def _fight(blob: bytes, seed: int, i: int, loop: str) -> dict:
    totals = play_batch(blob, seed, i, 1, loop)
    return {k: v for k, v in totals.items() if k not in LOOP_KEYS}, totals


def _same_fights(scenario: dict, seed: int, fights: int) -> int:
    """Fights 0..fights-1 one by one on both loops; how many the fight loop played
    (compiled, or run as Python with the pure-Python kernels)."""
    blob = orjson.dumps(scenario)
    played = 0
    for i in range(fights):
        fast, counts = _fight(blob, seed, i, "auto")
        slow, _ = _fight(blob, seed, i, "python")
        assert fast == slow, f"fight {i} of seed {seed} differs"
        played += counts["compiled_fights"] + counts["flat_python_fights"]
    return played


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_plays_the_same_fights_on_both_loops(name):
    # compiled, or with the pure-Python kernels the fight loop's source run as Python
    scenario = load(name)
    played = _same_fights(scenario, 11, 60)
    plan = fastfight.plan_for(compile_scenario(scenario))
    # ER-18 initiative, every tactic, a spell; WW-1 initiative once, a WW-5 reserved block;
    # CT-1 side initiative, CT-4 pools, a CT-5 power attack, a CT-6 shield parry, CT-7 sneak;
    # OS-1 side initiative, OS-2 phases, OS-4 goblin morale and flight, OS-5 a spell to lose
    assert isinstance(plan, fastfight.FastPlan) and played == 60


#: Examples played in batches on both loops: (file, seeds, first fight, fights, what must happen).
BATCHED = {
    # OS-4 "When to check Morale: The first time a combatant on the same side is killed, and
    # when half of the side has been killed or defeated": the goblins break, flee (opponents
    # acting first attack them as fleeing targets, OS-3) and fight to the death after two
    # passed checks; OS-5 the magic-user loses her spell when hurt before her side acts.
    "goblin-ambush": ("os-goblin-ambush.json", (0, 1, 2**64 - 1, 987654321), 500, 200, ("fled", "down")),
    # ER-20: hurt bandits and adventurers leave, drawing flee attacks from those engaged
    # with them; ER-17: missed shots at bandits in three-quarters cover stray into Brannoc
    # or Ysolde beside them, the bandit archers' into the bandits beside their targets
    "bandit-rout": ("er-bandit-rout.json", (0, 1, 2**64 - 1, 123456789), 1000, 150, ("fled",)),
}


@compiled
@pytest.mark.parametrize("name", sorted(BATCHED))
def test_an_example_matches_on_many_seeds_in_batches(name):
    file, seeds, first, count, happened = BATCHED[name]
    blob = orjson.dumps(load(file))
    for seed in seeds:
        fast = play_batch(blob, seed, first, count, "auto")
        slow = play_batch(blob, seed, first, count, "python")
        assert fast.pop("compiled_fights") == count and slow.pop("python_fights") == count
        assert fast.pop("python_fights") == 0 and slow.pop("compiled_fights") == 0
        assert fast == slow
        for what in happened:
            assert sum(fast[what]) > 0  # morale broke, a combatant fled, in some fights


@compiled
@pytest.mark.parametrize("initiative", [{"ties": "simultaneous", "surprised": ["party"]},
                                        {"ties": "reroll", "wait": ["goblins"]}])
def test_a_large_war_band_with_a_surrendering_morale_group_matches(initiative):
    # OS-1 "If both sides tie, they act simultaneously" (or re-roll), a waiting side acts
    # last, a surprised side loses round 1; OS-4 "a single Morale Check is made for all
    # members of a side", a morale_group apart, its breaking archers surrendering
    scenario = load("os-goblin-ambush.json")
    scenario["initiative"] = initiative
    scenario["sides"]["goblins"][0]["count"] = 60
    scenario["sides"]["party"][0]["count"] = 12
    scenario["sides"]["goblins"][1].update(morale_group="archers", tactic={"target": "weakest", "flee": "surrender"})
    blob = orjson.dumps(scenario)
    fast = play_batch(blob, 5, 0, 100, "auto")
    slow = play_batch(blob, 5, 0, 100, "python")
    assert (fast.pop("compiled_fights"), fast.pop("python_fights")) == (100, 0)
    assert (slow.pop("compiled_fights"), slow.pop("python_fights")) == (0, 100)
    assert fast == slow
    archers = [i for i, g in enumerate(compile_scenario(scenario).member_group) if g == 5]
    assert len(archers) == 3 and sum(fast["fled"][i] for i in archers) > 0  # they surrendered in some fights


@compiled
def test_the_skeleton_horde_matches_on_many_seeds_in_batches():
    blob = orjson.dumps(load("er-skeleton-horde.json"))
    for seed in (0, 1, 2**64 - 1, 123456789):
        fast = play_batch(blob, seed, 1000, 150, "auto")
        slow = play_batch(blob, seed, 1000, 150, "python")
        assert fast.pop("compiled_fights") == 150 and slow.pop("python_fights") == 150
        assert fast.pop("python_fights") == 0 and slow.pop("compiled_fights") == 0
        assert fast == slow


@compiled
def test_a_300_creature_horde_matches_with_its_roll_offs():
    # ER-18 "Ties are broken by rolling a d20 (repeat until the tie is broken)": 299
    # skeletons share a d10 + modifier, some 30 to a total, so every round's initiative
    # walks each path of the compiled roll-offs (a group counted by faces, a few sorted by
    # insertion, pairs that tie again) in the Python loop's draw order; the party is
    # twelve times as tough, so the fights last two rounds of some 300 attacks (the
    # benchmark's long horde), and Pip's random target is rolled among ~300 skeletons.
    scenario = load("er-skeleton-horde.json")
    scenario["sides"]["skeletons"][0]["count"] = 299
    for member in scenario["sides"]["party"]:
        member["hp"] *= 12
        member["target"]["body_max"] *= 12
    blob = orjson.dumps(scenario)
    for seed in (0, 2**64 - 1):
        fast = play_batch(blob, seed, 40, 6, "auto")
        slow = play_batch(blob, seed, 40, 6, "python")
        assert (fast.pop("compiled_fights"), fast.pop("python_fights")) == (6, 0)
        assert (slow.pop("compiled_fights"), slow.pop("python_fights")) == (0, 6)
        assert fast == slow
        assert sum(fast["rounds"].values()) == 6 and sum(fast["down"]) > 0


@compiled
def test_a_simulation_reports_how_many_fights_each_loop_played():
    horde = simulate(load("er-skeleton-horde.json"), runs=400, seed=3, batch=64)
    assert horde["fight_loop"] == on_fight_loop(400)
    python = simulate(load("er-skeleton-horde.json"), runs=400, seed=3, batch=64, loop="python")
    assert python["fight_loop"] == on_python_loop(400, "loop 'python' was asked for")
    assert {k: v for k, v in horde.items() if k not in ("timing", "fight_loop")} == \
        {k: v for k, v in python.items() if k not in ("timing", "fight_loop")}
    fallback = simulate(_breaking(load("ct-hill-giant.json")), runs=50, seed=3)
    assert fallback["fight_loop"]["python_fights"] == 50
    assert fallback["fight_loop"]["python_why"] == BREAKING_WHY


def _breaking(scenario, power="hurt"):
    """`scenario` (the hill giant) with Tombril striking with seven weapons, which break
    (CT-5) when its tactic's `power` is not "never": more breakable strikes than the
    compiled loop lays out, so the Python loop's."""
    tombril = scenario["sides"]["heroes"][0]
    tombril["attacks"] = [dict(tombril["attacks"][0]) for _ in range(7)]
    tombril["tactic"] = {"power": power}
    return scenario


BREAKING_WHY = "$.sides.heroes[0]: more than 6 strikes that can break (CT-5, CT-6)"


@compiled
@pytest.mark.parametrize("name", ["er-skeleton-horde.json", "er-bandit-rout.json"])
def test_the_compiled_loop_is_identical_on_one_and_two_processes_and_on_dask(name):
    # the rout: ER-20 flee attacks and ER-17 strays, played compiled wherever the fights go
    pytest.importorskip("dask.distributed")
    scenario = load(name)
    runs = dict(runs=900, seed=77, batch=100)
    one = simulate(scenario, workers=1, **runs)
    two = simulate(scenario, workers=2, **runs)
    on_dask = simulate(scenario, workers=2, dask="local", **runs)
    drop = {"timing"}
    assert one["fight_loop"]["compiled_fights"] == 900
    assert ({k: v for k, v in one.items() if k not in drop} == {k: v for k, v in two.items() if k not in drop}
            == {k: v for k, v in on_dask.items() if k not in drop})


@compiled
def test_the_goblin_ambush_is_identical_on_one_and_two_processes():
    scenario = load("os-goblin-ambush.json")
    one = simulate(scenario, workers=1, runs=600, seed=8, batch=100)
    two = simulate(scenario, workers=2, runs=600, seed=8, batch=100)
    assert one["fight_loop"]["compiled_fights"] == 600
    assert {k: v for k, v in one.items() if k != "timing"} == {k: v for k, v in two.items() if k != "timing"}


@compiled
def test_an_old_school_round_changed_elsewhere_goes_back_to_the_python_loop():
    # The compiled loop takes OldSchool's round procedure as it stands: an old-school
    # ruleset whose OS-4 morale triggers (its procedure) or OS-1 initiative (its ruleset
    # call) differ is not played by it, and the result says why.
    import dataclasses

    from fracas.rulesets.oldschool import OldSchool
    from fracas.rulesets.oldschool.fight import OsRound

    class NoMoraleRound(OsRound):
        def morale_triggers(self, side):
            return []

    class NoMorale(OldSchool):
        def fight_procedure(self):
            return NoMoraleRound

    class Simultaneous(OldSchool):
        def fight_initiative(self, setup, actors, sides, round_, dice, seed):
            return [[a.id for a in actors]], {}

    sc = compile_scenario(load("os-goblin-ambush.json"))
    assert isinstance(fastfight.plan_for(sc), fastfight.FastPlan)
    plan = fastfight.plan_for(dataclasses.replace(sc, ruleset=NoMorale()))
    assert plan.startswith("the Old-school") or "NoMoraleRound" in plan, plan
    assert "has no compiled twin" in plan
    plan = fastfight.plan_for(dataclasses.replace(sc, ruleset=Simultaneous()))
    assert plan == "the ruleset's round has procedures the compiled fight loop does not take"


@compiled
def test_er13_sneak_attacks_play_the_same_fights_on_both_loops():
    # ER-13: a sneak attack only at a victim that lost track of the attacker in the prior
    # round (neither attacked the other then): the compiled loop keeps whom each attacked
    # in its last two rounds and drops the sneak dice as the Python round does. Pip, the
    # party's archer, sneak-shoots at skeletons (no body_max: no shock save to roll).
    scenario = load("er-skeleton-horde.json")
    pip = next(e for e in scenario["sides"]["party"] if e["name"] == "Pip")
    pip["attacks"][0]["sneak"] = True
    assert not isinstance(fastfight.plan_for(compile_scenario(scenario)), str)
    assert _same_fights(scenario, 5, 30) == 30
    with_sneak = play_batch(orjson.dumps(scenario), 5, 0, 200, "auto")
    pip["attacks"][0].pop("sneak")
    assert play_batch(orjson.dumps(scenario), 5, 0, 200, "auto") != with_sneak  # the sneak dice matter


@compiled
def test_er13_a_sneak_attack_that_may_shock_plays_the_same_fights_on_both_loops():
    # The party have body_max: a skeleton's sneak attack may call for a shock save and cost
    # its victim d3 actions (ER-13), on the compiled loop as on the Python loop.
    scenario = load("er-skeleton-horde.json")
    scenario["sides"]["skeletons"][0]["attacks"][0].update(sneak=True, sneak_ok=True)
    for hero in scenario["sides"]["party"]:
        hero["target"].update(save_bonus=1, body_max=12)
    assert _same_fights(scenario, 5, 20) == 20


# -- generated scenarios ------------------------------------------------------------------------

def _finished(draw, ruleset: str, sides: dict, names: list) -> dict:
    """A generated scenario: focus tactics name any group, up to 40 rounds."""
    for entry in (e for es in sides.values() for e in es):
        if entry["tactic"]["target"] == "focus":
            entry["tactic"]["focus"] = draw(st.sampled_from(names))
    return {"ruleset": ruleset, "max_rounds": draw(st.integers(1, 40)), "sides": sides}


_STRIKES = [("melee", "slashing", "edged"), ("melee", "bludgeoning", "blunt"), ("melee", "cleaving", "edged"),
            ("range", "archery", "piercing"), ("range", "thrown", "fire")]


@st.composite
def _strike(draw):
    method, style, damage_type = draw(st.sampled_from(_STRIKES))
    strike = {"method": method, "style": style, "dice": draw(st.integers(1, 4)), "damage_type": damage_type,
              "bonus": draw(st.integers(-2, 4))}
    if method == "melee":
        strike["weight"] = draw(st.integers(0, 2))
    if draw(st.booleans()):
        strike[draw(st.sampled_from(["advantage", "disadvantage"]))] = True
    return strike


@st.composite
def _scenario(draw):
    n_sides = draw(st.integers(2, 3))
    names: list[str] = []
    sides: dict[str, list] = {}
    for s in range(n_sides):
        entries = []
        for g in range(draw(st.integers(1, 3))):
            name = f"s{s}g{g}"
            names.append(name)
            entry = {"name": name, "count": draw(st.integers(1, 4)), "hp": draw(st.integers(1, 30)),
                     "attacker": {"strength": draw(st.integers(6, 18)), "agility": draw(st.integers(6, 18))},
                     "target": {"ac": draw(st.integers(8, 18)),
                                "resistant": draw(st.lists(st.sampled_from(["edged", "piercing"]), unique=True)),
                                "vulnerable": draw(st.lists(st.sampled_from(["blunt", "fire"]), unique=True))},
                     "attacks": draw(st.lists(_strike(), min_size=1, max_size=3)),
                     "initiative": draw(st.integers(-3, 3))}
            if set(entry["target"]["resistant"]) & set(entry["target"]["vulnerable"]):
                entry["target"]["vulnerable"] = []
            if draw(st.integers(0, 4)) == 0:  # ER-21: it holds someone: release feats when body damage lands
                entry["target"]["grappling"] = {"strength": draw(st.integers(6, 18)), "bonus": draw(st.integers(-2, 3))}
            if draw(st.integers(0, 2)) == 0:  # ER-13: a sneak attack may shock it (its save rolled with a bonus)
                entry["target"]["body_max"] = draw(st.integers(1, 30))
                if draw(st.integers(0, 3)):
                    entry["target"]["save_bonus"] = draw(st.integers(-2, 6))
            entry["tactic"] = {"target": draw(st.sampled_from(["nearest", "weakest", "random", "focus"]))}
            if draw(st.integers(0, 4)) == 0:  # ER Throwing Items: thrown first, one a turn
                entry["throws"] = [{"item": draw(st.sampled_from(["acid splash", "explosive oil", "holy water"])),
                                    "count": draw(st.integers(1, 2)),
                                    "skill": draw(st.sampled_from(["none", "ranged", "hurling"]))}]
            if draw(st.integers(0, 4)) == 0:  # ER-23: its first melee attack is a charge
                entry["tactic"]["charge"] = draw(st.integers(0, 60))
            if draw(st.integers(0, 4)) == 0:  # ER-23: a pole-arm set against charges, a glaive's heavy or not
                entry["impale"] = {"style": "pole-arm", "weight": draw(st.integers(0, 2)),
                                   "pole": draw(st.sampled_from([None, None, "glaive", "ula"])),
                                   "forte": draw(st.booleans())}
            if draw(st.integers(0, 3)) == 0:  # ER-15: defends its turn away at or below defend_at
                entry["tactic"]["defend_at"] = draw(st.integers(0, 20))
            if draw(st.integers(0, 2)) == 0:  # ER-20: leaving draws flee attacks (none under 20 ft)
                entry["tactic"]["flee_at"] = draw(st.integers(0, 12))
                move = draw(st.sampled_from([None, None, 10, 20, 74, 75, 120]))
                if move is not None:
                    entry["tactic"]["flee_move"] = move
            if draw(st.integers(0, 3)) == 0:  # ER Weapon Negation: locks (a shield-blitz or not) or disarms
                entry["tactic"]["negate"] = draw(st.sampled_from(["lock", "disarm"]))
                entry["negation"] = {"to_hit": draw(st.integers(-2, 8)),
                                     "weapon": draw(st.sampled_from(["light", "medium", "heavy"])),
                                     "damage_type": draw(st.sampled_from(["edged", "blunt"])),
                                     "shield_blitz": draw(st.booleans())}
            if draw(st.integers(0, 3)) == 0:
                entry["spell"] = {"name": "bolt", "uses": draw(st.integers(1, 3)),
                                  "strikes": draw(st.lists(_strike(), min_size=1, max_size=2))}
                if draw(st.booleans()):
                    entry["attacks"] = []  # a caster with nothing else: idle once its uses are spent
            if draw(st.booleans()):
                entry["position"] = [draw(st.integers(-30, 30)), draw(st.integers(-30, 30))]
            entries.append(entry)
        sides[f"side{s}"] = entries
    for entry in (e for es in sides.values() for e in es):  # ER-13: sneak strikes (a sneak at disadvantage is refused)
        for strike in entry["attacks"]:
            if not strike.get("disadvantage") and draw(st.integers(0, 3)) == 0:
                strike.update(sneak=True, sneak_ok=True)
    for entry in (e for es in sides.values() for e in es):  # ER-17: who stands next to whom
        if draw(st.booleans()):
            entry["nearby"] = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))
            entry["target"]["cover"] = draw(st.sampled_from(["none", "half", "three-quarters", "three-quarters"]))
            if draw(st.integers(0, 3)) == 0 and not entry["tactic"].get("negate"):  # (ER-14: no feat when paralyzed)
                sneaks = any(a.get("sneak") for es in sides.values() for e in es for a in e["attacks"])
                entry["target"]["conditions"] = [draw(st.sampled_from(
                    ["paralyzed", "petrified", *(() if sneaks else ("invisible",))]))]
            for strike in entry["attacks"]:
                if strike["method"] == "range" and draw(st.booleans()):
                    strike["friendly_fire"] = True  # asked for: strays without three-quarters cover
    return _finished(draw, "enchanted-realms", sides, names)


def test_on_the_pure_python_kernels_the_fight_loop_plays_as_python_the_same_fights():
    # the same procedure files, run as Python (drive/pyloop.py): the same fights as the
    # compiled loop's and the Python round loop's
    with _kernels.using("python"):
        result = simulate(load("er-skeleton-horde.json"), runs=20, seed=3)
        python = simulate(load("er-skeleton-horde.json"), runs=20, seed=3, loop="python")
    assert result["fight_loop"] == {"compiled_fights": 0, "flat_python_fights": 20, "python_fights": 0,
                                    "python_why": None}
    drop = ("timing", "fight_loop")
    assert {k: v for k, v in result.items() if k not in drop} == {k: v for k, v in python.items() if k not in drop}
    if _kernels.compiled is not None:
        with _kernels.using("compiled"):
            fast = simulate(load("er-skeleton-horde.json"), runs=20, seed=3)
        assert {k: v for k, v in result.items() if k not in drop} == {k: v for k, v in fast.items() if k not in drop}


_WW_STRIKES = st.fixed_dictionaries(
    {"method": st.sampled_from(["melee", "ranged"]), "damage": st.sampled_from(["1d4", "1d6+1", "1d8", "2d6", "1d10"])},
    optional={"critical": st.integers(0, 3), "crit_multiplier": st.integers(1, 3), "modifier": st.integers(-2, 3)})


@st.composite
def _ww_scenario(draw):
    sides: dict[str, list] = {}
    names: list[str] = []
    for s in range(draw(st.integers(2, 3))):
        entries = []
        for g in range(draw(st.integers(1, 3))):
            name = f"s{s}g{g}"
            names.append(name)
            two = draw(st.booleans())
            attacker = {"skill": draw(st.integers(0, 6)), "str_mod": draw(st.integers(-1, 4)),
                        "dex_mod": draw(st.integers(-1, 4))}
            attacks = draw(st.lists(_WW_STRIKES, min_size=1, max_size=2))
            if two:  # WW-6: a main hand and an off hand
                attacker["two_weapon"] = {"light": draw(st.booleans()),
                                          "talent": draw(st.sampled_from(["none", "shield-specialist"]))}
                attacks = [attacks[0], {**draw(_WW_STRIKES), "hand": "off"}]
            for strike in attacks:  # WW-7: a main-hand strike may feint first
                if strike.get("hand") != "off" and draw(st.integers(0, 3)) == 0:
                    strike["feint"] = {"bonus": draw(st.integers(0, 6)), "defense": draw(st.integers(0, 6))}
            target = {"dex_mod": draw(st.integers(-1, 4)), "armor": draw(st.integers(0, 3))}
            tactic = {"target": draw(st.sampled_from(["nearest", "weakest", "random", "focus"]))}
            if draw(st.booleans()):
                target["reaction"] = {"kind": draw(st.sampled_from(["block", "dodge"])), "bonus": draw(st.integers(0, 8))}
                tactic["reserve"] = draw(st.integers(0, 2 if two else 1))
            if draw(st.integers(0, 3)) == 0:  # leaving at flee_at provokes attacks of opportunity
                tactic["flee_at"] = draw(st.integers(0, 8))
            entry = {"name": name, "count": draw(st.integers(1, 3)), "hp": draw(st.integers(1, 30)),
                     "attacker": attacker, "target": target, "attacks": attacks, "tactic": tactic,
                     "initiative": draw(st.integers(-2, 2))}
            if draw(st.integers(0, 3)) == 0:
                entry["spell"] = {"name": "bolt", "uses": draw(st.integers(1, 2)),
                                  "strikes": draw(st.lists(_WW_STRIKES, min_size=1, max_size=2))}
            entries.append(entry)
        sides[f"side{s}"] = entries
    return _finished(draw, "worldwalker", sides, names)


@st.composite
def _ct_strike(draw):
    strike = {"method": draw(st.sampled_from(["melee", "ranged"])), "die": draw(st.sampled_from(["d4", "d6", "d8"]))}
    if draw(st.booleans()):
        strike["dice"] = draw(st.integers(1, 3))
    kind = draw(st.sampled_from(["plain", "plain", "power", "sneak"]))
    if kind == "power":
        strike["power"] = True
    elif kind == "sneak":
        strike["sneak"] = draw(st.sampled_from(["passed", "failed", "roll"]))
    if strike["method"] == "ranged" and draw(st.booleans()):
        strike["specialized"] = True
    return strike


@st.composite
def _ct_scenario(draw):
    sides: dict[str, list] = {}
    names: list[str] = []
    for s in range(2):  # CT-1: the party and its opponents
        entries = []
        for g in range(draw(st.integers(1, 3))):
            name = f"s{s}g{g}"
            names.append(name)
            target = {"dex": draw(st.integers(0, 5)), "armor": draw(st.integers(0, 3)),
                      "weapon_magic": draw(st.integers(0, 2))}
            tactic = {"target": draw(st.sampled_from(["nearest", "weakest", "random", "focus"])),
                      "power": draw(st.sampled_from(["never", "never", "first", "hurt"]))}
            parry = draw(st.sampled_from([None, None, "weapon", "shield"]))
            if parry:
                tactic["parry"] = parry
                if draw(st.booleans()):
                    tactic["parry_at"] = draw(st.integers(0, 20))
            if parry == "shield" or draw(st.booleans()):
                target["shield"] = draw(st.integers(1, 8))
            if draw(st.booleans()):
                tactic["flee_at"] = draw(st.integers(0, 6))
            entry = {"name": name, "count": draw(st.integers(1, 3)), "hp": draw(st.integers(1, 30)),
                     "attacker": {"level": draw(st.integers(1, 9)), "bonus": draw(st.integers(0, 6)),
                                  "magic": draw(st.integers(0, 2)), "awa": draw(st.integers(0, 5))},
                     "target": target, "attacks": draw(st.lists(_ct_strike(), min_size=1, max_size=2)),
                     "tactic": tactic}
            if draw(st.booleans()):
                entry["injury"] = draw(st.integers(1, 20))
            if draw(st.integers(0, 3)) == 0:
                entry["spell"] = {"name": "bolt", "uses": draw(st.integers(1, 2)),
                                  "strikes": draw(st.lists(_ct_strike(), min_size=1, max_size=2))}
            if draw(st.integers(0, 3)) == 0:  # CT-1: takes its turn while its side is surprised
                entry["surprise_immune"] = True
            entries.append(entry)
        sides[f"side{s}"] = entries
    scenario = _finished(draw, "cartyrion", sides, names)
    scenario["initiative"] = {"party": draw(st.sampled_from(["side0", "side1"])),
                              "ambush": draw(st.sampled_from(["none", "party", "opponents"]))}
    return scenario


_OS_STRIKES = st.fixed_dictionaries(
    {"method": st.sampled_from(["melee", "missile"]), "damage": st.sampled_from(["1d4", "1d6", "1d6+1", "1d8", "2d4"])},
    optional={"modifier": st.integers(-2, 3), "range": st.sampled_from(["short", "medium", "long"])}).map(
    lambda strike: {k: v for k, v in strike.items() if k != "range" or strike["method"] == "missile"})


@st.composite
def _os_scenario(draw):
    sides: dict[str, list] = {}
    names: list[str] = []
    n_sides = draw(st.integers(2, 3))
    for s in range(n_sides):
        entries = []
        for g in range(draw(st.integers(1, 3))):
            name = f"s{s}g{g}"
            names.append(name)
            attacks = draw(st.lists(_OS_STRIKES, max_size=2))
            tactic = {"target": draw(st.sampled_from(["nearest", "weakest", "random", "focus"])),
                      "flee": draw(st.sampled_from(["broken", "broken", "surrender", "never"]))}
            methods = sorted({a["method"] for a in attacks})
            if len(methods) > 1 and draw(st.booleans()):  # OS one action: the tactic's choice
                tactic["action"] = draw(st.sampled_from(methods))
            if draw(st.integers(0, 3)) == 0:
                tactic["flee_at"] = draw(st.integers(0, 6))
            entry = {"name": name, "count": draw(st.integers(1, 4)), "hp": draw(st.integers(1, 16)),
                     "attacker": {"attack_bonus": draw(st.integers(0, 4)), "str_mod": draw(st.integers(-1, 2)),
                                  "dex_mod": draw(st.integers(-1, 2))},
                     "target": {"ac": draw(st.integers(10, 18)), "shield": draw(st.integers(0, 1))},
                     "attacks": attacks, "tactic": tactic}
            if draw(st.integers(0, 3)):
                entry["morale"] = draw(st.integers(2, 12))
                entry["morale_modifier"] = draw(st.integers(-2, 2))
                if draw(st.integers(0, 3)) == 0:
                    entry["morale_group"] = f"band{s}"
            if not attacks or draw(st.integers(0, 3)) == 0:
                entry["spell"] = {"name": "bolt", "uses": draw(st.integers(1, 2)),
                                  "strikes": draw(st.lists(_OS_STRIKES, min_size=1, max_size=2))}
            entries.append(entry)
        sides[f"side{s}"] = entries
    if draw(st.booleans()):  # OS-5: saving throws, every combatant's by one number or a table
        for entry in (e for entries in sides.values() for e in entries):
            entry["save"] = draw(st.one_of(st.integers(2, 18), st.fixed_dictionaries(
                {"spells": st.integers(2, 18), "paralysis": st.integers(2, 18)})))
            if draw(st.integers(0, 2)) == 0:
                by = [b for b, ok in (("any", True), ("attacks", bool(entry["attacks"])), ("spell", "spell" in entry))
                      if ok]
                entry["save_or"] = {"category": draw(st.sampled_from(["spells", "paralysis"])),
                                    "modifier": draw(st.integers(-3, 3)), "by": draw(st.sampled_from(by))}
    scenario = _finished(draw, "old-school", sides, names)
    side_names = list(sides)
    scenario["initiative"] = {"ties": draw(st.sampled_from(["reroll", "simultaneous"])),
                              "wait": draw(st.lists(st.sampled_from(side_names), unique=True, max_size=1)),
                              "surprised": draw(st.lists(st.sampled_from(side_names), unique=True, max_size=2))}
    return scenario


@compiled
@pytest.mark.parametrize("scenarios", [_scenario, _ww_scenario, _ct_scenario, _os_scenario],
                         ids=["enchanted-realms", "worldwalker", "cartyrion", "old-school"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**64 - 1))
def test_generated_scenarios_play_the_same_fights_on_both_loops(scenarios, data, seed):
    # ER: ER-18 initiative, tactics, spells, resistances, ER-13 sneak attacks and shock, ER-15 defending,
    # thrown items, grappling targets (ER-21), ER-23 charges and impalements,
    # ER-20 flee attacks (normal, rapid,
    # none on a cautious move), ER-17 strays into the combatants named nearby; Worldwalker: WW-1 initiative
    # once for the fight, WW-5 reserves spent strike by strike, WW-6 two weapons; Cartyrion:
    # CT-1 side initiative and ambushes, CT-4 Stamina and Injury, ranged stamina costs, CT-5
    # power attacks, CT-6 weapon and shield parries, CT-7 sneak attacks not repeated; old
    # school: OS-1 side initiative with ties re-rolled or simultaneous, waiting and surprised
    # sides, OS-2 phases and one action, OS-3 fleeing targets, OS-4 morale by side and
    # morale_group (flee, surrender, fight on), OS-5 saving throws forced by attacks and spells lost
    # WW-5 the -6 to reactions while holding a ranged weapon in melee, WW-7 feints, attacks of
    # opportunity at a combatant leaving at its flee_at.
    scenario = data.draw(scenarios())
    assert _same_fights(scenario, seed, 6) == 6, json.dumps(scenario)


@compiled
def test_a_fight_the_compiled_loop_stops_is_played_on_the_python_loop(monkeypatch):
    # The compiled loop stops at a fight it cannot finish (a crit chain or an initiative tie
    # past its limit): play_batch plays that fight on the Python loop and goes on compiled.
    real = _kernels.active()

    class Stopping:
        def __getattr__(self, name):
            return getattr(real, name)

        def play_fights(self, arrays, seed, first, count, totals):
            if first <= 13 < first + count:  # fight 13 stops with error 100 (a tie past its limit)
                played, err, stopped, attacks = real.play_fights(arrays, seed, first, 13 - first, totals)
                return played, 100, 13, attacks
            return real.play_fights(arrays, seed, first, count, totals)

    blob = orjson.dumps(load("er-skeleton-horde.json"))
    slow = play_batch(blob, 4, 0, 40, "python")
    monkeypatch.setattr(fastfight._kernels, "active", lambda: Stopping())
    fast = play_batch(blob, 4, 0, 40, "auto")
    assert (fast.pop("compiled_fights"), fast.pop("python_fights")) == (39, 1)
    assert (slow.pop("compiled_fights"), slow.pop("python_fights")) == (0, 40)
    assert fast == slow


@compiled
def test_the_simulate_report_names_the_python_loop_when_it_played(tmp_path, monkeypatch):
    from tests.cli.helpers import run

    monkeypatch.setenv("FRACAS_HOME", str(tmp_path))
    (tmp_path / "breaking.json").write_text(json.dumps(_breaking(load("ct-hill-giant.json"))))
    fallback = run(["simulate", str(tmp_path / "breaking.json"), "--runs", "20", "--seed", "1", "--workers", "1"])
    assert fallback.exit_code == 0, fallback.output
    assert f"20 fights on the Python round loop (0 compiled): {BREAKING_WHY}" in fallback.output, fallback.output
    ambush = run(["simulate", "@os-goblin-ambush", "--runs", "20", "--seed", "1", "--workers", "1"])
    assert ambush.exit_code == 0 and "Python round loop" not in ambush.output
    horde = run(["simulate", "@er-skeleton-horde", "--runs", "20", "--seed", "1", "--workers", "1"])
    assert horde.exit_code == 0 and "Python round loop" not in horde.output
    asked = run(["simulate", "@er-skeleton-horde", "--runs", "20", "--seed", "1", "--loop", "python", "--json", "-"])
    assert json.loads(asked.output)["fight_loop"] == on_python_loop(20, "loop 'python' was asked for")


@compiled
def test_a_scenario_with_too_many_attacks_to_compile_plays_on_the_python_loop(monkeypatch):
    monkeypatch.setattr(fastfight, "MAX_PAIRS", 10)  # the horde compiles 2 × 4 × 2 + 2 × 2 × 4 + 2 × 2 = 36
    plan = fastfight.plan_for(compile_scenario(load("er-skeleton-horde.json")))
    assert isinstance(plan, str) and "more than 10" in plan
