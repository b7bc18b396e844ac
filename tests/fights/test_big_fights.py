"""Big fights pick the same targets as the plain scan (issue 41 item 4).

The compiled loop (cython_core/fights.pyx) no longer scans every combatant on each attack:
weakest reads per-side trees, random finds the k-th standing enemy through per-side
bitsets of the standing enemies and Fenwick trees of their words' counts, nearest and focus walk the rows members stand in; and the nearest-first
lists are built in C (`fights.nearest_lists`). None of that may change a pick or a draw.
Here, large scenarios on every tactic play fight by fight on the compiled loop, on the
Python loop, and on the Python loop with `_choose` replaced by the reference below (the
plain scan over every member, as the loops did before): the three agree. Rules: ER-18
initiative and its roll-offs every round; CT-1/CT-4 (side initiative, Stamina then
Injury: the weakest tactic reads both); OS-1..OS-4 (side initiative, declared flight,
morale); WW-1/WW-5."""

from __future__ import annotations

import math
import random
from array import array

import orjson
import pytest

from fracas import _kernels
from fracas.dice import Dice
from fracas.drive import fastfight
from fracas.drive.fight import STANDING, Fight
from fracas.drive.scenario import compile_scenario
from fracas.drive.simulate import play_batch
from fracas.rng import chunk_seed
from fracas.rulesets.er import initiative

from . import loop_counts
from .test_fights import load

HAS_COMPILED = hasattr(_kernels.active(), "play_fights")
compiled = pytest.mark.skipif(not HAS_COMPILED,
                              reason="the compiled core is not in use (FRACAS_PUREPYTHON or no compiler)")

TACTICS = ("nearest", "weakest", "random", "focus")


def reference_choose(self, m):
    """Fight._choose as a plain scan of every member: the tactics' definition (docs/ENCOUNTERS.md)."""
    enemies = [e for e in self.members if e.status == STANDING and e.side != m.side]
    if not enemies:
        return None
    tactic = self.sc.groups[m.group].spec.tactic
    how = tactic.target
    if how == "focus":
        focused = [e for e in enemies if e.id == tactic.focus or self.sc.groups[e.group].spec.name == tactic.focus]
        if focused:
            enemies = focused
        how = "nearest"
    if how == "weakest":
        best = None
        for e in enemies:  # the least hp + injury, the first in member order among equals
            if best is None or e.hp + (e.injury or 0) < best.hp + (best.injury or 0):
                best = e
        return best
    if how == "random":
        dice, seed = self.stream()
        pick = enemies[dice.die(len(enemies)) - 1]  # the k-th standing enemy in member order
        self.log({"type": "target", "who": m.id, "target": pick.id, "seed": seed, "among": len(enemies)})
        return pick
    best, best_d = None, 0.0
    for e in enemies:  # the nearest, the first in member order among equals
        d = math.hypot(e.x - m.x, e.y - m.y)
        if best is None or d < best_d:
            best, best_d = e, d
    return best


def scaled(name: str, factor: int, tactic: str, *, positions: bool = False, seed: int = 0) -> dict:
    """An example with every group `factor` times as many, all on `tactic` (focus: on the
    first group of the next side, or on one member of it); with `positions`, each group
    stands where a seeded draw puts it (several rows, some on the same spot)."""
    scenario = load(name)
    if name == "ct-hill-giant.json":  # CT-4: least Stamina is not least Stamina + Injury
        scenario["sides"]["heroes"][0].update(hp=22, injury=30)
    rng = random.Random(seed)
    sides = list(scenario["sides"])
    spots = [[rng.randint(-6, 6) * 5.0, rng.randint(0, 3) * 10.0] for _ in range(3)]
    for s, side in enumerate(sides):
        other = scenario["sides"][sides[(s + 1) % len(sides)]][0]
        for group in scenario["sides"][side]:
            group["count"] = min(group.get("count", 1) * factor, 300)
            group["tactic"] = dict(group.get("tactic", {}), target=tactic)
            group["tactic"].pop("focus", None)
            if tactic == "focus":
                count = min(other.get("count", 1) * factor, 300)
                member = f"{other['name']} 2" if count > 1 and rng.random() < 0.3 else other["name"]
                group["tactic"]["focus"] = member
            if positions:
                group["position"] = rng.choice(spots) if rng.random() < 0.3 else [rng.randint(-40, 40) * 2.5,
                                                                                   rng.randint(-3, 3) * 7.5]
    return scenario


def _three_ways(scenario: dict, seed: int, fights: int, monkeypatch) -> int:
    """Fights 0..fights-1 one by one: compiled (with the compiled core), Python, Python
    with the reference scan; returns how many the compiled loop played (all, or none on
    the pure-Python kernels)."""
    blob = orjson.dumps(scenario)
    played = 0
    for i in range(fights):
        fast = play_batch(blob, seed, i, 1, "auto")
        slow = play_batch(blob, seed, i, 1, "python")
        with monkeypatch.context() as patch:
            patch.setattr(Fight, "_choose", reference_choose)
            plain = play_batch(blob, seed, i, 1, "python")
        played += loop_counts(fast)[0]
        for totals in (slow, plain):
            loop_counts(totals)
        assert slow == plain, f"fight {i} of seed {seed}: the Python loop's picks are not the scan's"
        assert fast == plain, f"fight {i} of seed {seed}: the compiled loop's picks are not the scan's"
    return played


@compiled
@pytest.mark.parametrize("tactic", TACTICS)
def test_a_400_creature_horde_picks_as_the_scan_on_both_loops(tactic, monkeypatch):
    # ER-18: 400 initiative rolls a round, roll-offs among some 40 to a total
    scenario = scaled("er-skeleton-horde.json", 50, tactic)
    assert len(compile_scenario(scenario).member_ids) > 300
    assert _three_ways(scenario, 41, 3, monkeypatch) == 3


@pytest.mark.parametrize("tactic", TACTICS)
@pytest.mark.parametrize("name", ["er-skeleton-horde.json", "ct-hill-giant.json", "os-goblin-ambush.json",
                                  "ww-duel.json"])
def test_groups_in_rows_of_their_own_pick_as_the_scan(name, tactic, monkeypatch):
    # groups with a position stand in rows of their own, some on the same spot: walks over
    # several rows, ties by member index; CT-4 weakest reads Stamina + Injury
    factor = {"ct-hill-giant.json": 6, "ww-duel.json": 40}.get(name, 4)
    for seed in (1, 2):
        scenario = scaled(name, factor, tactic, positions=True, seed=seed)
        assert _three_ways(scenario, seed, 3, monkeypatch) == 3


def _reference_lists(sc):
    positions, members = sc.positions, sc.member_ids
    sides = [sc.groups[g].side for g in sc.member_group]
    near, near_off = array("i"), array("q", [0])
    for m, (x, y) in enumerate(positions):
        enemies = sorted((e for e in range(len(members)) if sides[e] != sides[m]),
                         key=lambda e: (math.hypot(positions[e][0] - x, positions[e][1] - y), e))
        near.extend(enemies)
        near_off.append(len(near))
    return near, near_off


def _layout(spots: list[list[float]], count: int = 3) -> dict:
    groups = [{"name": f"g{i}", "count": count, "hp": 9, "position": spot, "attacker": {"strength": 10, "agility": 10},
               "target": {"ac": 12}, "attacks": [{"method": "melee", "style": "slashing", "dice": 1, "damage_type": "edged"}]}
              for i, spot in enumerate(spots)]
    return {"ruleset": "enchanted-realms", "sides": {"a": groups[0::3], "b": groups[1::3], "c": groups[2::3]}}


@compiled
@pytest.mark.parametrize("spots", [
    [[0, 0], [3, 4], [5, 0], [0, 5], [-3, -4], [4, 3]],  # 3-4-5: equal distances from unequal offsets
    [[1e160, 0], [0, 1e-170], [2, 2], [1e-200, 3], [0, 0], [7, 1e155]],  # too large or small to square
    [[0.1, 0.2], [0.3, 0.0], [0.1, 0.2], [0.7, 0.1], [0.3, 0.0], [0.2, 0.4]],  # rounding, shared spots
    [[x * 5.0, (x % 4) * 5.0] for x in range(20)],  # more rows than a walk takes
])
def test_nearest_first_lists_built_in_c_are_the_sorted_ones(spots):
    sc = compile_scenario(_layout(spots))
    sides = [sc.groups[g].side for g in sc.member_group]
    xs, ys = array("d", [p[0] for p in sc.positions]), array("d", [p[1] for p in sc.positions])
    reference, reference_off = _reference_lists(sc)
    every = array("i", [1] * len(sides))
    near, near_off, close, python, walk, _split, _rows = _kernels.active().fights.nearest_lists(
        xs, ys, array("i", sides), every)
    fixed = {m for m, _a, _b in close} | set(python)
    for m in range(len(sides)):  # C's own order, but for the entries math.hypot orders
        if m not in fixed:
            assert near[near_off[m]:near_off[m + 1]] == reference[reference_off[m]:reference_off[m + 1]]
    made, made_off = fastfight._target_lists(sc, sides, [sc.groups[g].spec for g in sc.member_group])[:2]
    for m in range(len(sides)):  # as sorted, or none at all where the loop's picks walk
        got = made[made_off[m]:made_off[m + 1]]
        assert got == reference[reference_off[m]:reference_off[m + 1]] or (not got and walk[m])
    assert not any(walk[m] for m in fixed)
    if spots[1] == [3, 4]:  # the unequal offsets at equal distance are ordered by math.hypot itself
        assert close
    if spots[0] == [1e160, 0]:
        assert python
    if len(spots) > 16:  # more rows than a walk takes: every pick reads its list
        assert not any(walk)


@pytest.mark.parametrize("spots", [
    [[0, 0], [3, 4], [5, 0], [0, 5], [-3, -4], [4, 3]],
    [[x * 5.0, (x % 4) * 5.0] for x in range(20)],
])
@pytest.mark.parametrize("tactic", TACTICS)
def test_members_whose_picks_cannot_walk_use_their_lists(spots, tactic, monkeypatch):
    scenario = _layout(spots, count=4)
    names = [g["name"] for side in scenario["sides"].values() for g in side]
    for side in scenario["sides"].values():
        for g in side:
            g["tactic"] = {"target": tactic}
            if tactic == "focus":
                g["tactic"]["focus"] = next(n for n in names if all(n != h["name"] for h in side))
    assert _three_ways(scenario, 5, 4, monkeypatch) == 4


@compiled
@pytest.mark.parametrize("groups,count", [(8, 8), (13, 5), (13, 10), (2, 100)])
def test_random_picks_across_the_words_of_the_enemy_bitsets_are_the_scans(groups, count, monkeypatch):
    # random (docs/ENCOUNTERS.md "Targets"): the k-th standing enemy in listing order; the
    # compiled loop keeps each side's standing enemies as bits, 64 members a word, with a
    # tree of the words' counts: 64 members (one full word), 65 (a member past it), three
    # sides of interleaved groups over three words, two sides over four; ER-18 initiative
    spots = [[x * 5.0, (x % 4) * 5.0] for x in range(groups)]
    scenario = _layout(spots, count=count)
    for side in scenario["sides"].values():
        for g in side:
            g["tactic"] = {"target": "random"}
    if groups == 2:
        scenario["sides"].pop("c")
    assert len(compile_scenario(orjson.dumps(scenario)).member_ids) == groups * count
    assert _three_ways(scenario, 9, 3, monkeypatch) == 3


def reference_roll_offs(tied, roll):
    """Roll-offs as the texts put them, plainly: each tied entry rolls (in listed order), the
    entries go from the highest face down, and those of one face roll off again among
    themselves; each entry's `tiebreaks` gets its faces. The draw order `rolloffs.py` keeps."""
    if len(tied) == 1:
        return tied
    rolled = []
    for entry in tied:
        face = roll()
        entry["tiebreaks"].append(face)
        rolled.append((face, entry))
    ranked = []
    for face in sorted({f for f, _ in rolled}, reverse=True):
        ranked.extend(reference_roll_offs([e for f, e in rolled if f == face], roll))
    return ranked


def _reference_order(plan, dice):
    """ER-18 with the plain roll-offs (as fracas rolled them before issue 41)."""
    entries = []
    for c, mod in zip(plan.request.combatants, plan.mods):
        roll = dice.die(10)
        entries.append({"id": c.id, "roll": roll, "modifier": mod, "total": roll + mod, "tiebreaks": []})
    ranked = []
    for total in sorted({e["total"] for e in entries}, reverse=True):
        ranked.extend(reference_roll_offs([e for e in entries if e["total"] == total], lambda: dice.die(20)))
    return ranked


@pytest.mark.parametrize("count", [1, 2, 3, 17, 300, 2000])
def test_er18_roll_offs_draw_the_same_dice_in_the_same_order(count):
    # ER-18: "ties are broken by a d20 roll-off", again while tied: the same faces, the
    # same order, the same generator state after, on either backend
    rng = random.Random(count)
    request = {"combatants": [{"id": f"c{i}", "agility": rng.choice([8, 10, 12, 14]), "bonus": rng.randint(-1, 1)}
                              for i in range(count)]}
    plan = initiative.compile_initiative(request)
    for seed in range(12):
        dice, reference = Dice.from_seed(seed), Dice.from_seed(seed)
        got = initiative.roll_initiative(plan, dice, seed).to_dict()["order"]
        assert got == _reference_order(plan, reference)
        assert list(dice.s) == list(reference.s)


@pytest.mark.parametrize("tactic", TACTICS)
def test_a_table_edit_between_rounds_is_read_by_the_next_picks(tactic, monkeypatch):
    # An encounter's table may set health between rounds (a token's bar: encounter._sync),
    # even raise the fallen: the Python loop's bookkeeping starts each round from the members,
    # so its picks stay the scan's (ER-18 initiative each round)
    scenario = orjson.dumps(scaled("er-skeleton-horde.json", 3, tactic))
    sc = compile_scenario(scenario)
    fights = {"book": Fight(sc), "scan": Fight(sc)}
    logs: dict[str, list] = {"book": [], "scan": []}
    rng = random.Random(7)
    for r in range(1, 9):
        edits = [(rng.randrange(len(sc.member_ids)), rng.randint(0, 20)) for _ in range(4)]
        for name, fight in fights.items():
            if fight.over:
                continue
            for index, hp in edits:  # as encounter._sync sets them
                member = fight.members[index]
                if member.status != "fled":
                    member.hp = min(hp, member.hp_max)
                    member.status = "down" if member.hp == 0 else STANDING
            fight.decide()
            if fight.over:
                continue
            with monkeypatch.context() as patch:
                if name == "scan":
                    patch.setattr(Fight, "_choose", reference_choose)
                logs[name].append(fight.play_round(1000 + r))
    assert logs["book"] == logs["scan"] and len(logs["book"]) >= 3


def _reactions_logged(scenario: dict, seed: int) -> int:
    """The reactions (ER-20 flee attacks, Worldwalker attacks of opportunity) in fight 0 of
    `seed`, from its round logs on the Python loop."""
    fight = Fight(compile_scenario(orjson.dumps(scenario)))
    fight_seed, found = chunk_seed(seed, 0), 0
    while not fight.over:
        log = fight.play_round(chunk_seed(fight_seed, fight.round + 1))
        found += sum(1 for e in log["events"]
                     if (e["type"] == "attack" and "reaction" in e) or e["type"] == "attack of opportunity")
    return found


@compiled
@pytest.mark.parametrize("name,factor,flee_at", [("er-bandit-rout.json", 40, None), ("er-skeleton-horde.json", 60, 6),
                                                 ("ww-duel.json", 150, 12)])
def test_reactions_at_leavers_in_a_big_fight_play_the_same_fights_on_both_loops(name, factor, flee_at, monkeypatch):
    # ER-20 "each enemy engaged with it in melee ... gets a flee attack", Worldwalker's attacks
    # of opportunity: the compiled loop keeps who engaged whom as lists per combatant (no longer
    # a table of every pair), read in member order when one leaves; hundreds of combatants,
    # many leaving, the same fights as the Python loop's
    scenario = scaled(name, factor, "nearest")
    if flee_at is not None:
        for side in scenario["sides"].values():
            for group in side:
                group["tactic"]["flee_at"] = flee_at
    sc = compile_scenario(orjson.dumps(scenario))
    assert len(sc.member_ids) >= 300
    assert isinstance(fastfight.plan_for(sc), fastfight.FastPlan)
    assert _reactions_logged(scenario, 5) > 10
    assert _three_ways(scenario, 5, 2, monkeypatch) == 2


@compiled
def test_a_cartyrion_fight_of_more_than_512_plays_on_the_compiled_loop(monkeypatch):
    # CT-7 "no sneak attack on a target attacked in the prior round": the compiled round keeps
    # each combatant's last targets (no table of every pair, which capped it at 512); Cedryk's
    # sneak shots in a fight of 1,200 combatants standing about (so that a target lives on
    # into the next round, where the rule says no) that lasts some rounds (300 giants six times
    # as tough), the same fights as the Python loop's
    scenario = scaled("ct-hill-giant.json", 300, "nearest", positions=True, seed=3)
    giant = scenario["sides"]["giant"][0]
    giant.update(hp=giant["hp"] * 6, injury=giant["injury"] * 6)
    sc = compile_scenario(orjson.dumps(scenario))
    assert len(sc.member_ids) > 512
    assert isinstance(fastfight.plan_for(sc), fastfight.FastPlan)
    assert _three_ways(scenario, 3, 2, monkeypatch) == 2
