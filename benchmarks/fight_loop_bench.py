"""The fight-loop section of `fracas bench`: fights at compiled speed, beside the bulk API.

For the four example scenarios and a 300-creature horde (the Enchanted Realms example
with 299 skeletons and their captain), on one process, side by side in one run:

- fights per second on the compiled fight loop (`simulate(loop="auto")`) and on the
  Python round loop (`loop="python"`), the same fights from the same seed;
- attacks per second inside those fights: fights/s × the attacks a fight makes (counted
  in the round logs of the first fights, the same fights both loops play);
- the bulk API's attacks per second for the same strikes (`fracas.resolve_bulk`, one
  thread): every group's strikes at every enemy group's target, weighted by how many
  members each has, and `share`: attacks/s inside compiled fights ÷ bulk attacks/s.

The compiled fights and the bulk request are timed in interleaved rounds, as the rest of
`fracas bench` is (benchmarks/harness.py: the machines are shared and noisy): each
round plays a slice of the fights and resolves the bulk request once, in turn; the
rates are the medians over rounds and `share` the median of the same-round ratios.

A scenario the compiled loop does not cover says so (`python_why`): it has no compiled
figures (`simulate` plays it on the Python loop, whose figures are shown).

Targets in big fights (issue 41): for each tactic (nearest, weakest, random, focus), without
and with ER-20 flee attacks (`+flee`: every combatant leaves at FLEE_AT health), the
compiled loop's time per attack in a fight of 2,000 creatures and in one of 30 (two sides
of equal numbers, every combatant on the tactic), timed in interleaved rounds, and their
ratio (the median of the same-round ratios; target at most 1.5×: a pick costs the same
among 2,000 as among 30); the Python round loop's, timed once (no target); and the time
to compile a 2,000-creature scenario for the compiled loop (`compile_scenario` and the
fight plan, the median of a few; target under 0.1 s).
"""

from __future__ import annotations

import gc
import statistics
import time
from typing import Any, Optional

import orjson

import fracas
from fracas.drive import fastfight
from fracas.drive.fight import Fight
from fracas.drive.scenario import compile_scenario, example, examples
from fracas.drive.simulate import simulate
from fracas.rng import chunk_seed

SEED = 2024
HORDE = "er-horde-300"


#: The long horde: the same 300 skeletons against a party twelve times as tough, so that a
#: fight lasts about 300 attacks, as the performance target's horde does ("about 2e7
#: attacks/s, some 60,000 fights/s": some 330 attacks a fight). The short horde's fights end
#: after about 30 attacks, so its cost is mostly the 304-combatant initiative (ER-18).
LONG_HORDE = "er-horde-300-long"
TOUGHER = 12


def horde(tougher: int = 1) -> bytes:
    """The 300-creature horde: the skeleton-horde example with 299 skeletons (and the captain);
    `tougher` multiplies the party's hit points (and Body maxima)."""
    scenario = orjson.loads(example("er-skeleton-horde"))
    scenario["name"] = "Four adventurers against 300 skeletons" + (f" (party hp x{tougher})" if tougher > 1 else "")
    scenario["sides"]["skeletons"][0]["count"] = 299
    for member in scenario["sides"]["party"]:
        member["hp"] *= tougher
        member["target"]["body_max"] *= tougher
    return orjson.dumps(scenario)


TACTICS = ("nearest", "weakest", "random", "focus")
SMALL, LARGE = 30, 2_000
#: Issue 41's targets: per-attack time at LARGE ÷ at SMALL, and the compile time at LARGE.
FLAT_TARGET = 1.5
COMPILE_TARGET_S = 0.1
#: Attacks a size a round at least: some 15 fights of LARGE creatures, so that what a call
#: costs once (the plan's checks, the totals of 2,000 combatants) is not counted per attack.
TACTIC_ATTACKS = 100_000


#: Reactions rows: every creature leaves at this much health, drawing ER-20 flee attacks.
FLEE_AT = 10


def tactic_scenario(size: int, tactic: str, flee: bool = False) -> bytes:
    """`size` creatures in two equal sides (fighters against skeletons, the skeleton-horde
    example's), every one on `tactic` (focus: on the other side's group), in long fights;
    with `flee`, every one leaves at FLEE_AT health (ER-20 flee attacks from those engaged
    with it)."""
    source = orjson.loads(example("er-skeleton-horde"))
    fighter = dict(source["sides"]["party"][1], name="fighter", count=size // 2, hp=30)
    fighter["target"] = dict(fighter["target"], body_max=30)
    skeleton = dict(source["sides"]["skeletons"][0], name="skeleton", count=size - size // 2, hp=24)
    for group, other in ((fighter, "skeleton"), (skeleton, "fighter")):
        group["tactic"] = {"target": "focus", "focus": other} if tactic == "focus" else {"target": tactic}
        if flee:
            group["tactic"]["flee_at"] = FLEE_AT
    return orjson.dumps({"ruleset": "enchanted-realms", "name": f"{size} creatures, tactic {tactic}",
                         "max_rounds": 100, "sides": {"fighters": [fighter], "skeletons": [skeleton]}})


def _covered(scenario: bytes) -> Any:
    """The compiled loop's plan of `scenario` (`fastfight.FastPlan`), or why its fights do not
    play compiled: with the pure-Python kernels the fight loop runs as Python, which is not
    the compiled loop this section times."""
    if not fastfight.compiled():
        return "the compiled core is not in use (pure-Python kernels)"
    return fastfight.plan_for(compile_scenario(scenario))


def _per_attack(scenario: bytes, fights: int, first: int) -> tuple[float, int]:
    """Seconds per attack of fights first..first+fights-1 on the compiled loop, and the attacks."""
    from fracas.drive.simulate import _compiled, play_batch

    plan = fastfight.plan_for(_compiled(scenario))
    assert isinstance(plan, fastfight.FastPlan), plan
    before = plan.attacks
    seconds = _seconds(lambda: play_batch(scenario, SEED, first, fights, "auto"))
    attacks = plan.attacks - before
    return seconds / max(attacks, 1), attacks


def tactics(attacks: int, rounds: int = 5) -> Optional[dict[str, Any]]:
    """Per-attack time at SMALL and at LARGE creatures for each tactic, about `attacks`
    attacks a size a round, in `rounds` interleaved rounds; and the LARGE compile time.
    None without the compiled loop (the pure-Python kernels)."""
    if isinstance(_covered(tactic_scenario(SMALL, "nearest")), str):
        return None
    out: dict[str, Any] = {"sizes": [SMALL, LARGE], "target": FLAT_TARGET, "rows": {}}
    for tactic, flee in [(tactic, flee) for flee in (False, True) for tactic in TACTICS]:
        blobs = {size: tactic_scenario(size, tactic, flee) for size in (SMALL, LARGE)}
        fights = {}
        for size, blob in blobs.items():  # compile, warm up, and size a round's fights
            _, played = _per_attack(blob, 2, 0)
            fights[size] = max(1, attacks * 2 // max(played, 1))
        small, large, ratios = [], [], []
        for r in range(rounds):
            order = (SMALL, LARGE) if r % 2 == 0 else (LARGE, SMALL)
            got = {size: _per_attack(blobs[size], fights[size], 2 + r * fights[size])[0] for size in order}
            small.append(got[SMALL])
            large.append(got[LARGE])
            ratios.append(got[LARGE] / got[SMALL])
        out["rows"][f"{tactic}+flee" if flee else tactic] = {"us_per_attack": {str(SMALL): round(1e6 * statistics.median(small), 4),
                                                 str(LARGE): round(1e6 * statistics.median(large), 4)},
                               "ratio": round(statistics.median(ratios), 3)}
    out["worst_ratio"] = max(row["ratio"] for row in out["rows"].values())
    out["python"] = {tactic: python_per_attack(tactic) for tactic in TACTICS}
    out["compile"] = compile_time()
    return out


def python_per_attack(tactic: str, attacks: int = 5_000) -> dict[str, Any]:
    """The Python round loop's time per attack at SMALL and LARGE creatures on `tactic`:
    about `attacks` attacks at SMALL, one fight at LARGE, timed once each (the same fights
    the compiled loop plays, whose attacks it counts)."""
    from fracas.drive.simulate import _compiled, play_batch

    out: dict[str, Any] = {}
    for size in (SMALL, LARGE):
        blob = tactic_scenario(size, tactic)
        plan = fastfight.plan_for(_compiled(blob))
        assert isinstance(plan, fastfight.FastPlan), plan
        before = plan.attacks
        play_batch(blob, SEED, 0, 1, "auto")
        fights = 1 if size == LARGE else max(1, attacks // max(plan.attacks - before, 1))
        before = plan.attacks
        play_batch(blob, SEED, 0, fights, "auto")  # counts the attacks of the fights timed below
        counted = plan.attacks - before
        seconds = _seconds(lambda: play_batch(blob, SEED, 0, fights, "python"))
        out[str(size)] = round(1e6 * seconds / max(counted, 1), 3)
    out["ratio"] = round(out[str(LARGE)] / out[str(SMALL)], 3)
    return out


def compile_time(runs: int = 5) -> dict[str, Any]:
    """Seconds to compile a LARGE-creature scenario for the compiled loop (compile_scenario
    and its fight plan, no cache), the median of `runs`: two sides of LARGE / 2, every one
    focused on the other side's group (a nearest-first list of LARGE / 2 enemies each, and
    a focus list as long)."""
    blob = tactic_scenario(LARGE, "focus")
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        made = fastfight._make(compile_scenario(blob))
        times.append(time.perf_counter() - started)
        assert isinstance(made, fastfight.FastPlan), made
    return {"creatures": LARGE, "seconds": round(statistics.median(times), 4), "target_s": COMPILE_TARGET_S}


def attacks_per_fight(scenario: bytes, fights: int) -> float:
    """Attacks (and spells) per fight in fights 0..fights-1 of SEED, from their round logs."""
    sc = compile_scenario(scenario)
    attacks = 0
    for i in range(fights):
        fight = Fight(sc)
        fight_seed = chunk_seed(SEED, i)
        while not fight.over:
            log = fight.play_round(chunk_seed(fight_seed, fight.round + 1))
            attacks += sum(1 for e in log["events"] if e["type"] in ("attack", "spell"))
    return attacks / fights


def bulk_request(scenario: bytes, attacks: int) -> dict[str, Any]:
    """A bulk request of the scenario's strikes: each group at each enemy group's target,
    `attacks` in all, in proportion to attackers × targets."""
    source = orjson.loads(scenario)
    groups = [(side, g) for side, entries in source["sides"].items() for g in entries]
    pairs = [(a, t) for a in groups for t in groups if a[0] != t[0] and a[1].get("attacks")]
    weight = sum(a[1].get("count", 1) * t[1].get("count", 1) for a, t in pairs)
    request: dict[str, Any] = {"ruleset": source.get("ruleset", "enchanted-realms"), "profiles": {}, "targets": {},
                               "attacks": []}
    for _side, g in groups:
        request["targets"][g["name"]] = g["target"]
        if g.get("attacks"):
            request["profiles"][g["name"]] = {"attacker": g["attacker"], "strikes": g["attacks"]}
    for a, t in pairs:
        count = max(1, attacks * a[1].get("count", 1) * t[1].get("count", 1) // weight)
        request["attacks"].append({"profile": a[1]["name"], "target": t[1]["name"], "count": count})
    return request


def _rate(scenario: bytes, runs: int, loop: str) -> tuple[float, dict[str, Any]]:
    simulate(scenario, runs=min(runs, 20), seed=SEED, workers=1, loop=loop)  # compile and warm up
    started = time.perf_counter()
    result = simulate(scenario, runs=runs, seed=SEED, workers=1, loop=loop)
    return runs / (time.perf_counter() - started), result


def _seconds(call: Any) -> float:
    gc.disable()
    try:
        started = time.perf_counter()
        call()
        return max(time.perf_counter() - started, 1e-9)
    finally:
        gc.enable()


def _side_by_side(scenario: bytes, runs: int, request: dict[str, Any], rounds: int
                  ) -> tuple[float, float, float, dict[str, Any]]:
    """Compiled fights/s, bulk attacks/s and their same-round ratio (medians over `rounds`
    interleaved rounds, who goes first alternating); `runs` fights in all, a slice a round
    (the first fights of SEED), and how many of them each loop played."""
    simulate(scenario, runs=min(runs, 20), seed=SEED, workers=1)  # compile and warm up
    fracas.resolve_bulk(request, seed=1, threads=1)
    attacks = sum(a["count"] for a in request["attacks"])
    rounds = max(1, min(rounds, runs))  # a round plays one fight at least
    size = runs // rounds
    fights, bulks, ratios = [], [], []
    played: Optional[dict[str, Any]] = None
    for r in range(rounds):
        gc.collect(1)
        count = size if r < rounds - 1 else runs - size * (rounds - 1)
        result: list[Any] = []

        def fight() -> None:
            result.append(simulate(scenario, runs=count, seed=SEED, workers=1, batch=max(count, 1)))

        def bulk() -> None:
            fracas.resolve_bulk(request, seed=1 + r, threads=1)

        first, second = (fight, bulk) if r % 2 == 0 else (bulk, fight)
        one, two = _seconds(first), _seconds(second)
        fight_s, bulk_s = (one, two) if r % 2 == 0 else (two, one)
        fights.append(count / fight_s)
        bulks.append(attacks / bulk_s)
        ratios.append(fights[-1] / bulks[-1])
        loop = result[0]["fight_loop"]
        if played is None:
            played = {"compiled_fights": 0, "python_fights": 0}
        played["compiled_fights"] += loop["compiled_fights"]
        played["python_fights"] += loop["python_fights"]
    assert played is not None
    return statistics.median(fights), statistics.median(bulks), statistics.median(ratios), played


def run(fast_runs: int, python_runs: int, bulk_attacks: int, logged: int, rounds: int = 5) -> dict[str, Any]:
    """The section: `fast_runs` fights on the compiled loop, `python_runs` on the Python loop,
    `bulk_attacks` bulk attacks, attacks per fight from `logged` fights; per scenario. The
    compiled fights and the bulk request share `rounds` interleaved rounds."""
    out: dict[str, Any] = {"seed": SEED, "fast_runs": fast_runs, "python_runs": python_runs,
                           "bulk_attacks": bulk_attacks, "logged_fights": logged, "rounds": rounds, "scenarios": {}}
    for name in [*examples(), HORDE, LONG_HORDE]:
        scenario = horde() if name == HORDE else horde(TOUGHER) if name == LONG_HORDE else example(name)
        covered = _covered(scenario)
        python_rate, slow = _rate(scenario, python_runs, "python")
        per_fight = attacks_per_fight(scenario, min(logged, python_runs))
        request = bulk_request(scenario, bulk_attacks)
        if isinstance(covered, str):  # "auto" would play them on the Python loop: measured above
            fast_rate, played = python_rate, slow["fight_loop"]
            fracas.resolve_bulk(request, seed=1, threads=1)  # compile once
            bulk_rate = sum(a["count"] for a in request["attacks"]) / _seconds(
                lambda: fracas.resolve_bulk(request, seed=1, threads=1))
            fights_to_bulk = fast_rate / bulk_rate
        else:
            fast_rate, bulk_rate, fights_to_bulk, played = _side_by_side(scenario, fast_runs, request, rounds)
        compiled = not isinstance(covered, str) and played["compiled_fights"] == fast_runs
        row = {"title": orjson.loads(scenario).get("name", name), "ruleset": slow["ruleset"],
               "compiled": compiled, "python_why": None if compiled else covered,
               "attacks_per_fight": round(per_fight, 2),
               "fights_per_s": {"compiled": round(fast_rate, 1) if compiled else None,
                                "python": round(python_rate, 1)},
               "attacks_per_s": {"compiled": round(fast_rate * per_fight, 1) if compiled else None,
                                 "python": round(python_rate * per_fight, 1), "bulk": round(bulk_rate, 1)},
               "speedup": round(fast_rate / python_rate, 1) if compiled and python_rate else None}
        # attacks/s inside fights (on whichever loop `simulate` plays the scenario) ÷ bulk attacks/s
        row["share_of_bulk"] = round(fights_to_bulk * per_fight, 5) if bulk_rate else None
        out["scenarios"][name] = row
    out["tactics"] = tactics(max(TACTIC_ATTACKS, fast_runs), rounds)
    return out


def table(section: Optional[dict[str, Any]]) -> list[str]:
    """The section as text lines for `fracas bench`."""
    if not section:
        return []
    lines = [f"Fight loop · one process, seed {section['seed']}: {section['fast_runs']:,} fights on the compiled"
             f" loop, {section['python_runs']:,} on the Python loop, {section['bulk_attacks']:,} bulk attacks of"
             f" the same strikes, the compiled fights and the bulk in {section.get('rounds', 1)} interleaved rounds"]
    lines.append(f"  {'scenario':<20} {'fights/s compiled':>18} {'python':>10} {'×':>7} {'attacks/fight':>14}"
                 f" {'attacks/s in fights':>20} {'bulk attacks/s':>15} {'÷ bulk':>7}")
    for name, row in section["scenarios"].items():
        rates, attacks = row["fights_per_s"], row["attacks_per_s"]
        speed = f"{row['speedup']:.0f}×" if row["speedup"] else "—"
        share = f"{100 * row['share_of_bulk']:.2f} %" if row["share_of_bulk"] is not None else "—"
        fast = f"{rates['compiled']:>16,.0f}/s" if row["compiled"] else f"{'—':>18}"
        in_fights = f"{attacks['compiled']:>18,.0f}/s" if row["compiled"] else f"{attacks['python']:>18,.0f}/s"
        lines.append(f"  {name:<20} {fast} {rates['python']:>8,.0f}/s {speed:>7}"
                     f" {row['attacks_per_fight']:>14.1f} {in_fights} {attacks['bulk']:>13,.0f}/s {share:>7}")
        if not row["compiled"]:
            lines.append(f"    (on the Python loop: {row['python_why']})")
    lines.append("  (attacks/s in fights: fights/s × attacks per fight, counted in the round logs of the first"
                 f" {section['logged_fights']} fights, on the loop `simulate` uses; rates: medians over the rounds;"
                 " ÷ bulk: the median of the same-round ratios)")
    big = section.get("tactics")
    if big:
        small, large = big["sizes"]
        lines.append(f"  Targets among {large:,} creatures · compiled loop, time per attack, {small} and {large:,}"
                     f" creatures (two equal sides, all on the tactic), interleaved rounds; target ≤"
                     f" {big['target']}×")
        lines.append(f"  {'tactic':<13} {f'{small} creatures':>16} {f'{large:,} creatures':>16} {'ratio':>8}")
        for tactic, row in big["rows"].items():
            us = row["us_per_attack"]
            met = "met" if row["ratio"] <= big["target"] else "NOT MET"
            lines.append(f"  {tactic:<13} {us[str(small)]:>13.3f} µs {us[str(large)]:>13.3f} µs"
                         f" {row['ratio']:>7.2f}×  {met}")
        lines.append("  the Python round loop, timed once (no target): "
                     + ", ".join(f"{tactic} {row[str(small)]:.0f} → {row[str(large)]:.0f} µs ({row['ratio']:.2f}×)"
                                 for tactic, row in big["python"].items()))
        made = big["compile"]
        met = "met" if made["seconds"] < made["target_s"] else "NOT MET"
        lines.append(f"  compiling a {made['creatures']:,}-creature scenario for the compiled loop:"
                     f" {made['seconds']:.3f} s (target < {made['target_s']} s)  {met}")
    return lines
