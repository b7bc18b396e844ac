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
every tactic, spells, `flee_at`) whose attacks need no follow-up dice (no sneak attack
at a target with a maximum Body, no friendly fire, no grapple, no defense rolls), and
Worldwalker scenarios (WW-1 initiative once, WW-5 reserved actions spent on blocks and
dodges strike by strike). Cartyrion and old-school scenarios play on the Python loop,
and `plan_for` says why; so does a single fight
the compiled loop stops (a crit chain or an initiative tie past its limit), so that the
Python loop reports the error as it always has.
"""

from __future__ import annotations

import math
import weakref
from array import array
from typing import Any, Optional, Union

from .. import _kernels
from .._layout import PLAN_WIDTH, XPLAN_WIDTH, XS_WIDTH
from ..rulesets.base import Ruleset
from .scenario import Compiled

#: Attacks compiled for the flat plan at most (attack unit × enemy group × reaction or not):
#: each is a Python compile of some 20-50 µs, so a scenario of many distinct groups plays
#: on the Python loop, which compiles only the pairs its fights meet.
MAX_PAIRS = 20_000
#: Combatants whose nearest-first enemy lists are built when the plan is made (M × M entries).
MAX_MEMBERS = 2_000
_NEVER = -(1 << 63)
_TACTICS = {"nearest": 0, "weakest": 1, "random": 2, "focus": 3}
_COVERED = ("enchanted-realms", "worldwalker")

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
        played, _err, stopped = _kernels.active().play_fights(self.arrays, seed, first, end - first, flat)
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
    if not hasattr(_kernels.active(), "play_fights"):  # asked each time: tests switch backends
        return "the compiled core is not in use (pure-Python kernels)"
    made = _PLANS.get(sc)
    if made is None:
        made = _PLANS[sc] = _make(sc)
    return made


def _uncovered(sc: Compiled) -> Optional[str]:
    """Why the compiled loop cannot play this scenario's fights (None: it can)."""
    rs = sc.ruleset
    if rs.name not in _COVERED:
        return f"the compiled fight loop plays Enchanted Realms and Worldwalker scenarios only, not {rs.title}"
    # The round procedures the compiled loop takes; should the ruleset's fight hooks
    # change, its scenarios go back to the Python loop rather than play differently.
    worldwalker = rs.name == "worldwalker"
    plain = (rs.fight_phases == ("attack",) and rs.spell_phase == "attack" and not rs.spell_disruption
             and rs.initiative_once is worldwalker and rs.fight_pools == ("hp",) and not rs.flight_declared
             and not rs.one_action and rs.reserve_actions is worldwalker and not rs.weapon_memory
             and not sc.has_morale and type(rs).fight_outcome is Ruleset.fight_outcome and sc.setup is None)
    if not plain:
        return "the ruleset's round has procedures the compiled fight loop does not take"
    if len(sc.member_ids) > MAX_MEMBERS:
        return f"more than {MAX_MEMBERS} combatants"
    return None


def _make(sc: Compiled) -> Union[FastPlan, str]:
    why = _uncovered(sc)
    if why is not None:
        return why
    rs = sc.ruleset
    rows = rs.name == "worldwalker"
    groups = sc.groups
    n_groups = len(groups)
    # Attack units: what one call of Fight._attack rolls. ER: a group's strikes together;
    # Worldwalker: each strike it does not forgo for its reserve (WW-5); and its spell.
    keys: list[tuple[int, str, Optional[tuple[int, ...]]]] = []
    units = array("q")
    for g in groups:
        strikes = g.phases.get("attack", [])
        if rows:
            forgone = set(rs.fight_forgone(g.spec))
            strikes = [i for i in strikes if i not in forgone]
            made: list[tuple[int, str, Optional[tuple[int, ...]]]] = [(g.index, "attack", (i,)) for i in strikes]
        else:
            made = [(g.index, "attack", tuple(strikes))] if strikes else []  # as Fight._play_slot asks
        units.extend((len(keys), len(made), -1))
        keys.extend(made)
        if g.spec.spell is not None:
            units[3 * g.index + 2] = len(keys)
            keys.append((g.index, "spell", None))
    pairs = sum(1 for g_index, _key, _use in keys for t in groups if t.side != groups[g_index].side) * 2
    if pairs > MAX_PAIRS:
        return (f"{n_groups} combatant entries: {pairs} attacks to compile for the compiled loop, more than"
                f" {MAX_PAIRS}")
    plans = array("i")
    pair = array("q", bytes(8 * len(keys) * n_groups * 4))
    tinit = array("q", bytes(8 * len(keys) * n_groups * 2 * XS_WIDTH))
    widest = 1
    for u, (g_index, key, use) in enumerate(keys):
        g = groups[g_index]
        for t in groups:
            if t.side == g.side:
                continue
            # WW-5: a target with a block or dodge and no reserved action left has no reaction
            no_reaction = (("target", rs.no_reaction),) if rows and t.spec.target.get("reaction") else ()
            for variant, situation in enumerate(((), no_reaction)):
                plan = sc.plan(g.index, key, t.index, use, situation)
                why = _unfit(plan, rows)
                if why:
                    return f"{g.path}: its attack at {t.path} {why}"
                n = len(plan.metas)
                at = ((u * n_groups + t.index) * 2 + variant) * 2
                pair[at], pair[at + 1] = len(plans) // (XPLAN_WIDTH if rows else PLAN_WIDTH), n
                plans.extend(plan.rows if rows else plan.plan)
                if rows:
                    tinit[(at // 2) * XS_WIDTH:(at // 2 + 1) * XS_WIDTH] = plan.tinit
                widest = max(widest, n)
    members = sc.member_ids
    member_group = sc.member_group
    sides = [groups[g].side for g in member_group]
    specs = [groups[g].spec for g in member_group]
    if rows:  # WW-1: d20 + Dexterity modifier + bonus; equal totals by the Dexterity modifier
        subs = [int(spec.attacker.get("dex_mod", 0)) for spec in specs]
        mods = [sub + spec.initiative for sub, spec in zip(subs, specs)]
    else:  # ER-18: d10 + Agility modifier + bonus
        from ..rulesets.er import initiative

        request = {"combatants": [{"id": mid, "agility": spec.attacker.get("agility"),
                                   "agility_mod": spec.attacker.get("agility_mod"), "bonus": spec.initiative}
                                  for mid, spec in zip(members, specs)]}
        mods = initiative.compile_initiative(request).mods
        subs = [0] * len(mods)
    die = 20 if rows else 10
    if (max(mods) - min(mods) + die) * (max(subs) - min(subs) + 1) > (1 << 16):
        return "initiative modifiers too far apart for the compiled loop's counting sort"
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
        "rows": rows, "init_once": rs.initiative_once, "init_die": die,
        "side": array("i", sides), "group": array("i", member_group),
        "hp": array("q", [spec.hp for spec in specs]),
        "flee_at": array("q", [_NEVER if spec.tactic.flee_at is None else spec.tactic.flee_at for spec in specs]),
        "spell_uses": array("q", [spec.spell.uses if spec.spell is not None else 0 for spec in specs]),
        "tactic": array("i", [_TACTICS[spec.tactic.target] for spec in specs]),
        "init_mod": array("q", mods), "init_sub": array("q", subs), "units": units,
        "reserve": array("q", [spec.tactic.reserve if rows else 0 for spec in specs]),
        "reaction": array("i", [1 if rows and spec.target.get("reaction") else 0 for spec in specs]),
        "near": near, "near_off": near_off, "focus": focus, "focus_off": focus_off,
        "plans": plans, "pair": pair, "tinit": tinit, "groups": n_groups, "sides": len(sc.sides),
        "max_rounds": sc.max_rounds, "widest": widest,
    }
    return FastPlan(sc, arrays)


def _unfit(plan: Any, rows: bool) -> Optional[str]:
    """Why a compiled attack is one the compiled loop cannot roll (None: it can)."""
    if rows:
        from ..rulesets.rows import Plan

        if not isinstance(plan, Plan) or len(plan.targets) != 1 or len(plan.tinit) != XS_WIDTH:
            return "is not one strike-row attack at one target"
        return None
    from ..rulesets.er.attack import AttackPlan

    if not isinstance(plan, AttackPlan) or plan.defense or plan.flee is not None or plan.follow_ups:
        return ("has follow-up dice (a sneak attack at a target with body_max, friendly fire, a grapple) or"
                " defense rolls")
    return None
