"""Whole fights in C: a scenario compiled once into flat arrays for the compiled round loop.

`fracas.drive.fight.Fight` is the round loop every fight can run (encounters, round
logs, every ruleset); a simulation only needs each fight's integer totals, so for the
scenarios it covers, `plan_for` flattens the scenario (combatants, their strikes
compiled at each enemy group, tactics as codes, each combatant's enemies nearest first)
and the compiled core plays whole fights without the GIL (`cython_core/fights.pyx`).
With the pure-Python kernels the same plans play on the same procedure files run as
Python (`pyloop`, which also lays out the nearest-first lists): `loop()` is the one in use.

The compiled loop is the Python loop's twin, not a model of it: the same scenario and
seed give the same fights (winner, rounds, survivors, damage dealt and taken per
combatant), because it takes the same steps in the same draw order (the round's k-th
random event from stream k of the round seed) and rolls each attack with the strike
kernel `fracas.resolve` uses, from the plan rows `Compiled.plan` made. A test plays
both on every example and on generated scenarios.

What it covers is the rounds whose procedure declares a compiled twin (the class's own
`Procedure.compiled`, still matching the ruleset's calls: `compiled_for`), less the
scenarios the procedure says it cannot lay out (`compiled_why`, `compiled_tables`): the
procedure, in its ruleset's folder, gives the attacks of a turn (`compiled_units`),
every situation an attack can be made in, compiled up front (`compiled_variants`), the
initiative modifiers and its round's tables. This module names no ruleset. What it does
not cover plays on the Python loop, and `plan_for` says why; so does a single fight the
compiled loop stops (a crit chain or an initiative tie past its limit), so that the
Python loop reports the error as it always has.
"""

from __future__ import annotations

import math
import operator
import weakref
from array import array
from typing import Any, Optional, Union

from .. import _kernels
from .._layout import PLAN_WIDTH, XPLAN_WIDTH, XS_WIDTH
from ..errors import RequestError
from ..rulesets.loop import E_FIGHT_CALL
from . import pyloop
from .pyloop import layout
from .scenario import Compiled

#: Attacks compiled for the flat plan at most (attack unit × enemy group × reaction or not):
#: each is a Python compile of some 20-50 µs, so a scenario of many distinct groups plays
#: on the Python loop, which compiles only the pairs its fights meet.
MAX_PAIRS = 20_000
#: Combatants whose nearest-first enemy lists are built when the plan is made (M × M entries).
MAX_MEMBERS = 2_000
_NEVER = -(1 << 63)
#: Why a fight the loop handed over (E_FIGHT_CALL) played on the Python round loop.
HANDED_OVER = ("the ruleset's initiative gave a slot of several combatants acting together, which the Python round"
               " loop plays")
_TARGETS = {"nearest": 0, "weakest": 1, "random": 2, "focus": 3}

_PLANS: "weakref.WeakKeyDictionary[Compiled, Union[FastPlan, str]]" = weakref.WeakKeyDictionary()


class FastPlan:
    """A scenario flattened for `_core.er_fights`, and the totals it fills."""

    def __init__(self, sc: Compiled, arrays: dict[str, Any]) -> None:
        self.sc = sc
        self.arrays = arrays
        self.sides = len(sc.sides)
        self.members = len(sc.member_ids)
        self.max_rounds = sc.max_rounds
        #: Attacks (and spells) rolled by every fight this plan played (`fracas bench`'s per-attack time).
        self.attacks = 0

    def play(self, seed: int, first: int, end: int, totals: dict[str, Any]) -> int:
        """Fights first..end-1 into `totals` (simulate.play_batch's dict) on the fight loop
        (`loop()`: compiled, or its source run as Python); returns the fight it stopped at:
        `end`, or a fight the Python round loop must play (its error)."""
        s, m, r = self.sides, self.members, self.max_rounds
        flat = array("q", bytes(8 * (2 * s + 1 + r + 1 + 5 * m)))
        fights = loop()
        played, err, stopped, attacks = fights.play_fights(self.arrays, seed, first, end - first, flat)
        self.attacks += attacks
        if err == E_FIGHT_CALL:  # the rest are errors the Python round loop raises as it always has
            totals["handed_over"] += 1
        totals["fights"] += played
        totals["compiled_fights" if fights is not pyloop else "flat_python_fights"] += played
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
            start = base + k * m
            totals[key][:] = map(operator.add, totals[key], flat[start:start + m])
        return end if stopped < 0 else int(stopped)


def loop() -> Any:
    """The fight loop that plays plans: the compiled core (its `fights` module), or with the
    pure-Python kernels the same procedure files run as Python (`pyloop`, which lays out
    the same plans: the same fights). Asked each time: tests switch backends."""
    kernels = _kernels.active()
    return kernels if hasattr(kernels, "play_fights") else pyloop


def compiled() -> bool:
    """Whether plans play compiled (else on `pyloop`, at Python's speed)."""
    return loop() is not pyloop


def plan_for(sc: Compiled) -> Union[FastPlan, str]:
    """The fight loop's plan of a scenario, or why its fights play on the Python round loop
    (kept per compiled scenario: either fight loop plays it)."""
    made = _PLANS.get(sc)
    if made is None:
        made = _PLANS[sc] = _make(sc)
    return made


def _round(sc: Compiled) -> tuple[Any, str]:
    """The scenario's round procedure, and the compiled round it declares (its class's own
    `compiled`: a subclass that does not say so again plays on the Python loop)."""
    proc = sc.ruleset.fight_procedure()
    return proc, vars(proc).get("compiled", "")


def _uncovered(sc: Compiled) -> Optional[str]:
    """Why the compiled loop cannot play this scenario's fights (None: it can)."""
    rs = sc.ruleset
    proc, code = _round(sc)
    if not code:
        return (f"the {rs.title or rs.name} round ({proc.__name__}) has no compiled twin: the compiled fight loop"
                " plays the built-in rulesets' rounds")
    # The round procedures the compiled loop takes; should the ruleset's calls they
    # read change, its scenarios go back to the Python loop rather than play differently.
    if not proc.compiled_for(rs):
        return "the ruleset's round has procedures the compiled fight loop does not take"
    why = proc.compiled_why(sc)
    if why is not None:
        return str(why)
    if len(sc.member_ids) > MAX_MEMBERS:
        return f"more than {MAX_MEMBERS} combatants"
    return None


def _tables(sc: Compiled) -> tuple[dict[str, Any], Optional[str]]:
    """The compiled round's flags and tables: neutral ones (no strike rows, initiative
    every round, no reserves or reactions, no morale; each built-in round's own tables as a
    fight of another round has them, which its ruleset's loop.py says: `pyloop.neutral_tables`),
    then the procedure's own; and why it cannot play the scenario (None: it can)."""
    proc, _code = _round(sc)
    groups, n = sc.groups, len(sc.member_ids)
    tables: dict[str, Any] = {
        "rows": False, "init_once": False, "has_morale": False, "init_call": None,
        "reserve": array("q", [0] * n), "reaction": array("i", [0] * n),
        "leave_draws": array("q", [0] * len(groups)), "engages": array("q", [0] * len(groups)),
        "feint_units": array("q", [0] * len(groups)),
        **pyloop.neutral_tables(len(sc.sides), len(groups), n),
    }
    why = proc.compiled_tables(sc, tables)
    if sc.has_morale and not tables["has_morale"]:
        why = why or "the ruleset's round has procedures the compiled fight loop does not take"
    # the morale units (OS-4: one per side or morale group) where the round checks morale; one otherwise
    units = sc.morale_units if tables.pop("morale_units", False) else [("", 0, [g.index for g in groups])]
    group_unit = [0] * len(groups)
    for u, (_name, _side, in_unit) in enumerate(units):
        for k in in_unit:
            group_unit[k] = u
    member_unit = [group_unit[g] for g in sc.member_group]
    tables.update(morale=array("q", [-1 if g.spec.morale is None else g.spec.morale for g in groups]),
                  morale_mod=array("q", [g.spec.morale_modifier for g in groups]),
                  group_unit=array("q", group_unit), member_unit=array("i", member_unit),
                  unit_start=array("q", [sum(1 for u in member_unit if u == k) for k in range(len(units))]),
                  unit_first=array("q", [member_unit.index(k) for k in range(len(units))]))
    return tables, why


def _make(sc: Compiled) -> Union[FastPlan, str]:
    why = _uncovered(sc)
    if why is not None:
        return why
    tables, why = _tables(sc)
    if why is not None:
        return why
    proc, _code = _round(sc)
    rows = bool(tables["rows"])
    groups = sc.groups
    n_groups = len(groups)
    # Attack units: what one call of Fight._attack rolls (the procedure's `compiled_units`),
    # and the group's spell.
    keys: list[tuple[int, str, Optional[tuple[int, ...]]]] = []
    units = array("q")
    # the reaction (an attack at an engaged enemy that leaves: the procedure's
    # `compiled_reaction`), a unit apart per group: -1 none
    react_unit = array("q", [-1] * n_groups)
    leaving = any(tables["leave_draws"])
    for g in groups:
        made = [(g.index, key, use) for key, use in proc.compiled_units(sc, g)]
        units.extend((len(keys), len(made), -1))
        keys.extend(made)
        if g.spec.spell is not None:
            units[3 * g.index + 2] = len(keys)
            keys.append((g.index, "spell", None))
        reaction = proc.compiled_reaction(sc, g) if leaving else None
        if reaction is not None:
            react_unit[g.index] = len(keys)
            keys.append((g.index, *reaction))
    reactions = set(react_unit) - {-1}
    todo = [(u, g_index, key, use, t) for u, (g_index, key, use) in enumerate(keys) for t in groups
            if t.side != groups[g_index].side]
    variants = {(u, t.index): (proc.compiled_reaction_variants(sc, groups[g_index], key, use, t, tables)
                               if u in reactions else proc.compiled_variants(sc, groups[g_index], key, use, t, tables))
                for u, g_index, key, use, t in todo}
    pairs = sum(len(v) for v in variants.values())
    if pairs > MAX_PAIRS:
        return (f"{n_groups} combatant entries: {pairs} attacks to compile for the compiled loop, more than"
                f" {MAX_PAIRS}")
    plans = array("i")
    vbase = array("q", bytes(8 * len(keys) * n_groups))
    vcount = array("q", bytes(8 * len(keys) * n_groups))
    pair, tinit = array("q"), array("q")
    row_info = array("q")  # two numbers per plan row (the procedure's `compiled_row_info`)
    widest = 1
    width = XPLAN_WIDTH if rows else PLAN_WIDTH
    for u, g_index, key, _use, t in todo:
        g = groups[g_index]
        vbase[u * n_groups + t.index] = len(pair) // 2
        vcount[u * n_groups + t.index] = len(variants[u, t.index])
        for use, situation in variants[u, t.index]:
            if use is None and key != "spell":  # every strike broken: no attack (the loop never asks)
                pair.extend((0, 0))
                tinit.extend([0] * XS_WIDTH)
                continue
            try:
                plan = sc.plan(g.index, key, t.index, use, situation)
            except RequestError as exc:  # a reaction the scenario's checks never compiled
                if u not in reactions:
                    raise
                return f"{g.path}: its reaction at {t.path}: {exc.path}: {exc.reason}"
            why = (_unfit(plan) if rows else None) or proc.compiled_unfit(plan)
            if why:
                return f"{g.path}: its attack at {t.path} {why}"
            n = len(plan.metas)
            info = proc.compiled_row_info(plan)
            row_info.extend(info if len(info) == 2 * n else [0] * 2 * n)
            pair.extend((len(plans) // width, n))
            plans.extend(plan.rows if rows else plan.plan)
            tinit.extend(plan.tinit if rows else [0] * XS_WIDTH)
            widest = max(widest, n)
    member_group = sc.member_group
    sides = [groups[g].side for g in member_group]
    specs = [groups[g].spec for g in member_group]
    mods, subs, die = proc.compiled_initiative(sc, specs)
    if (max(mods) - min(mods) + die) * (max(subs) - min(subs) + 1) > (1 << 16):
        return "initiative modifiers too far apart for the compiled loop's counting sort"
    near, near_off, focus, focus_off, walking = _target_lists(sc, sides, specs)
    arrays = {
        "init_die": die, "side": array("i", sides), "group": array("i", member_group),
        "hp": array("q", [spec.hp for spec in specs]),
        "injury": array("q", [-1 if spec.injury is None else spec.injury for spec in specs]),
        "flee_at": array("q", [_NEVER if spec.tactic.flee_at is None else spec.tactic.flee_at for spec in specs]),
        "spell_uses": array("q", [spec.spell.uses if spec.spell is not None else 0 for spec in specs]),
        "tactic": array("i", [_TARGETS[spec.tactic.target] for spec in specs]),
        "init_mod": array("q", mods), "init_sub": array("q", subs), "units": units, "react_unit": react_unit,
        "near": near, "near_off": near_off, "focus": focus, "focus_off": focus_off, **walking,
        "plans": plans, "row_info": row_info, "pair": pair, "tinit": tinit, "vbase": vbase, "vcount": vcount, "groups": n_groups,
        "sides": len(sc.sides), "max_rounds": sc.max_rounds, "widest": widest,
        **{k: v for k, v in tables.items() if not k.startswith("_")},
    }
    layout(arrays)  # what the loop works out from the arrays, once (kept in them)
    return FastPlan(sc, arrays)


def nearest_first(sc: Compiled) -> Optional[tuple[list[Any], list[Any]]]:
    """Every member's enemies nearest first (Fight._choose's order) and its focus's members
    in that order (empty without a focus), one sequence each, built in C; None on the
    pure-Python kernels (Fight sorts each list when first asked)."""
    if not hasattr(_kernels.active(), "play_fights"):
        return None
    fights = _kernels.active().fights
    sides = [sc.groups[g].side for g in sc.member_group]
    positions = sc.positions
    xs, ys = array("d", [p[0] for p in positions]), array("d", [p[1] for p in positions])
    near, off, close, python, _walk, _split, _rows = fights.nearest_lists(xs, ys, array("i", sides),
                                                                          array("i", [1] * len(sides)))
    _fix(sc, near, off, close, python)
    specs = [sc.groups[g].spec for g in sc.member_group]
    focus, focus_off = fights.focus_lists(near, off, *_focus_match(sc, specs))
    near_view, focus_view = memoryview(near), memoryview(focus)
    return ([near_view[off[m]:off[m + 1]] for m in range(len(sides))],
            [focus_view[focus_off[m]:focus_off[m + 1]] for m in range(len(sides))])


def _focus_match(sc: Compiled, specs: list[Any]) -> tuple[Any, bytes]:
    """For `fights.focus_lists`: per member the row of its focus (-1: none), and per focus
    a byte per member, 1 where the focus names it (its id, or its group's name)."""
    members = sc.member_ids
    classes: dict[str, int] = {}
    focus_of = array("i", [-1] * len(members))
    match = bytearray()
    for m, spec in enumerate(specs):
        name = spec.tactic.focus if spec.tactic.target == "focus" else None
        if name is None:
            continue
        if name not in classes:
            classes[name] = len(classes)
            match.extend(bytes(1 if members[e] == name or specs[e].name == name else 0 for e in range(len(members))))
        focus_of[m] = classes[name]
    return focus_of, bytes(match) or b"\0"


def _fix(sc: Compiled, near: Any, near_off: Any, close: Any, python: Any) -> None:
    """The entries of nearest-first lists whose order math.hypot itself decides (`close`:
    keys within 1e-12; `python`: differences too large or too small to square in C)."""
    positions = sc.positions

    def distance(m: int) -> Any:
        x, y = positions[m]
        return lambda e: (math.hypot(positions[e][0] - x, positions[e][1] - y), e)

    for m in python:
        start, end = near_off[m], near_off[m + 1]
        near[start:end] = array("i", sorted(near[start:end], key=distance(m)))
    for m, start, end in close:
        near[start:end] = array("i", sorted(near[start:end], key=distance(m)))


def _target_lists(sc: Compiled, sides: list[int], specs: list[Any]) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
    """Each member's enemies nearest first (ties by index: Fight._choose's `min` by
    (math.hypot, index), the same floats) and its focus's members in that order, built in C
    (`fights.nearest_lists`: a merge of the rows members stand in, not a sort per member);
    the few entries whose order needs math.hypot itself are ordered here with it. A member
    whose picks walk the rows (the loop's `_walk`) has no list, unless it focuses on one
    member; and the tables of the walk."""
    fights = _kernels.active().fights if compiled() else pyloop
    positions = sc.positions
    members = sc.member_ids
    xs, ys = array("d", [p[0] for p in positions]), array("d", [p[1] for p in positions])
    # a focus on a group: its members (first .. end) for the loop's walk; on one member: its list
    first: dict[str, int] = {}
    for e, g in enumerate(sc.member_group):
        first.setdefault(sc.groups[g].spec.name, e)
    focus_lo, focus_hi = array("q", [-1] * len(members)), array("q", [-1] * len(members))
    need = array("i", [0] * len(members))  # a list kept although its picks walk: a focus on one member
    for m, spec in enumerate(specs):
        name = spec.tactic.focus if spec.tactic.target == "focus" else None
        if name in first:
            focus_lo[m] = first[name]
            focus_hi[m] = first[name] + sc.groups[sc.member_group[first[name]]].spec.count
        elif name is not None:
            need[m] = 1
    near, near_off, close, python, walk, split, rows_at = fights.nearest_lists(xs, ys, array("i", sides), need)
    _fix(sc, near, near_off, close, python)
    focus, focus_off = fights.focus_lists(near, near_off, *_focus_match(sc, specs))
    return near, near_off, focus, focus_off, {"walk": walk, "split": split, "rows_at": rows_at, "xs": xs, "ys": ys,
                                              "focus_lo": focus_lo, "focus_hi": focus_hi}


def _unfit(plan: Any) -> Optional[str]:
    """Why a compiled strike-row attack is one the compiled loop cannot roll (None: it can)."""
    from ..rulesets.rows import Plan

    if not isinstance(plan, Plan) or len(plan.targets) != 1 or len(plan.tinit) != XS_WIDTH:
        return "is not one strike-row attack at one target"
    return None
