"""Whole fights in C: a scenario compiled once into flat arrays for the compiled round loop.

`fracas.drive.fight.Fight` is the round loop every fight can run (encounters, round
logs, every ruleset); a simulation only needs each fight's integer totals, so for the
scenarios it covers, `plan_for` flattens the scenario (combatants, their strikes
compiled at each enemy group, tactics as codes, each combatant's enemies nearest first)
and the compiled core plays whole fights without the GIL (`cython_core/_fights.pxi`).

The compiled loop is the Python loop's twin, not a model of it: the same scenario and
seed give the same fights (winner, rounds, survivors, damage dealt and taken per
combatant), because it takes the same steps in the same draw order (the round's k-th
random event from stream k of the round seed) and rolls each attack with the strike
kernel `fracas.resolve` uses, from the plan rows `Compiled.plan` made. A test plays
both on every example and on generated scenarios.

What it covers: Enchanted Realms scenarios (ER-18 initiative every round, targets by
every tactic, spells, `flee_at`), whose attacks need no follow-up dice (no sneak attack
at a target with a maximum Body, no friendly fire, no grapple, no defense rolls). Any
other scenario plays on the Python loop, and `plan_for` says why; so does a single fight
the compiled loop stops (a crit chain or an initiative tie past its limit), so that the
Python loop reports the error as it always has.
"""

from __future__ import annotations

import math
import weakref
from array import array
from typing import Any, Optional, Union

from .. import _kernels
from .._layout import PLAN_WIDTH
from ..rulesets.base import Ruleset
from .scenario import Compiled

#: Group pairs (attacker group × target group × attack or spell) the flat plan holds at most.
MAX_PAIRS = 200_000
#: Combatants whose nearest-first enemy lists are built when the plan is made (M × M entries).
MAX_MEMBERS = 2_000
_NEVER = -(1 << 63)
_TACTICS = {"nearest": 0, "weakest": 1, "random": 2, "focus": 3}

_PLANS: "weakref.WeakKeyDictionary[Compiled, Union[FastPlan, str]]" = weakref.WeakKeyDictionary()


class FastPlan:
    """A scenario flattened for `_core.er_fights`, and the totals it fills."""

    def __init__(self, sc: Compiled, arrays: dict[str, Any]) -> None:
        self.sc = sc
        self.arrays = arrays
        self.sides = len(sc.sides)
        self.members = len(sc.member_ids)
        self.max_rounds = sc.max_rounds

    def play(self, seed: int, first: int, end: int, totals: dict[str, Any]) -> int:
        """Fights first..end-1 into `totals` (simulate.play_batch's dict); returns the fight
        it stopped at: `end`, or a fight the Python loop must play (its error)."""
        s, m, r = self.sides, self.members, self.max_rounds
        flat = array("q", bytes(8 * (2 * s + 1 + r + 1 + 5 * m)))
        played, _err, stopped = _kernels.active().er_fights(self.arrays, seed, first, end - first, flat)
        totals["fights"] += played
        totals["compiled_fights"] += played
        totals["draws"] += flat[s]
        for side in range(s):
            totals["wins"][side] += flat[side]
            totals["survivors"][side] += flat[s + 1 + side]
        rounds = totals["rounds"]
        base = 2 * s + 1
        for n in range(1, r + 1):
            if flat[base + n]:
                rounds[n] = rounds.get(n, 0) + flat[base + n]
        base = 2 * s + 2 + r
        for key, k in (("dealt", 0), ("taken", 1), ("survived", 2), ("fled", 3), ("down", 4)):
            column = totals[key]
            start = base + k * m
            for i in range(m):
                column[i] += flat[start + i]
        return end if stopped < 0 else int(stopped)


def plan_for(sc: Compiled) -> Union[FastPlan, str]:
    """The compiled loop's plan of a scenario, or why its fights play on the Python loop
    (kept per compiled scenario)."""
    if not hasattr(_kernels.active(), "er_fights"):  # asked each time: tests switch backends
        return "the compiled core is not in use (pure-Python kernels)"
    made = _PLANS.get(sc)
    if made is None:
        made = _PLANS[sc] = _make(sc)
    return made


def _uncovered(sc: Compiled) -> Optional[str]:
    """Why the compiled loop cannot play this scenario's fights (None: it can)."""
    rs = sc.ruleset
    if rs.name != "enchanted-realms":
        return f"the compiled fight loop plays Enchanted Realms scenarios only, not {rs.title}"
    # The round procedures the compiled loop takes; should the ruleset's fight hooks
    # change, its scenarios go back to the Python loop rather than play differently.
    plain = (rs.fight_phases == ("attack",) and rs.spell_phase == "attack" and not rs.spell_disruption
             and not rs.initiative_once and rs.fight_pools == ("hp",) and not rs.flight_declared
             and not rs.one_action and not rs.reserve_actions and not rs.weapon_memory and not sc.has_morale
             and type(rs).fight_outcome is Ruleset.fight_outcome and sc.setup is None)
    if not plain:
        return "the ruleset's round has procedures the compiled fight loop does not take"
    if len(sc.member_ids) > MAX_MEMBERS:
        return f"more than {MAX_MEMBERS} combatants"
    if len(sc.groups) ** 2 * 2 > MAX_PAIRS:
        return f"{len(sc.groups)} combatant entries: too many attacker and target pairs to compile at once"
    return None


def _make(sc: Compiled) -> Union[FastPlan, str]:
    why = _uncovered(sc)
    if why is not None:
        return why
    from ..rulesets.er import initiative
    from ..rulesets.er.attack import AttackPlan

    groups = sc.groups
    n_groups = len(groups)
    plans = array("i")
    pair = array("q", bytes(8 * n_groups * 2 * n_groups * 2))
    widest = 1
    for g in groups:
        keys: list[tuple[int, str, Optional[tuple[int, ...]]]] = []
        if "attack" in g.phases:
            keys.append((0, "attack", tuple(g.phases["attack"])))  # as Fight._play_slot asks for it
        if g.spec.spell is not None:
            keys.append((1, "spell", None))
        for code, key, use in keys:
            for t in groups:
                if t.side == g.side:
                    continue
                plan = sc.plan(g.index, key, t.index, use, ())
                if not isinstance(plan, AttackPlan) or plan.defense or plan.flee is not None or plan.follow_ups:
                    return (f"{g.path}: its attack at {t.path} has follow-up dice (a sneak attack at a target with"
                            " body_max, friendly fire, a grapple) or defense rolls")
                n = len(plan.metas)
                at = ((g.index * 2 + code) * n_groups + t.index) * 2
                pair[at], pair[at + 1] = len(plans) // PLAN_WIDTH, n
                plans.extend(plan.plan)
                widest = max(widest, n)
    members = sc.member_ids
    member_group = sc.member_group
    sides = [groups[g].side for g in member_group]
    specs = [groups[g].spec for g in member_group]
    request = {"combatants": [{"id": mid, "agility": spec.attacker.get("agility"),
                               "agility_mod": spec.attacker.get("agility_mod"), "bonus": spec.initiative}
                              for mid, spec in zip(members, specs)]}
    mods = initiative.compile_initiative(request).mods
    near, near_off, focus, focus_off = array("i"), array("q", [0]), array("i"), array("q", [0])
    positions = sc.positions
    for m, (x, y) in enumerate(positions):
        enemies = [e for e in range(len(members)) if sides[e] != sides[m]]
        # Fight._choose: min by (math.hypot, index), the same floats
        enemies.sort(key=lambda e: (math.hypot(positions[e][0] - x, positions[e][1] - y), e))
        near.extend(enemies)
        near_off.append(len(near))
        tactic = specs[m].tactic
        if tactic.target == "focus":
            focus.extend(e for e in enemies
                         if members[e] == tactic.focus or specs[e].name == tactic.focus)
        focus_off.append(len(focus))
    arrays = {
        "side": array("i", sides), "group": array("i", member_group),
        "hp": array("q", [spec.hp for spec in specs]),
        "flee_at": array("q", [_NEVER if spec.tactic.flee_at is None else spec.tactic.flee_at for spec in specs]),
        "spell_uses": array("q", [spec.spell.uses if spec.spell is not None else 0 for spec in specs]),
        "tactic": array("i", [_TACTICS[spec.tactic.target] for spec in specs]),
        "armed": array("i", [1 if "attack" in groups[g].phases else 0 for g in member_group]),
        "init_mod": array("q", mods), "near": near, "near_off": near_off, "focus": focus, "focus_off": focus_off,
        "plans": plans, "pair": pair, "groups": n_groups, "sides": len(sc.sides), "max_rounds": sc.max_rounds,
        "widest": widest,
    }
    return FastPlan(sc, arrays)

