"""Whole fights in C: a scenario compiled once into flat arrays for the compiled round loop.

`fracas.drive.fight.Fight` is the round loop every fight can run (encounters, round
logs, every ruleset); a simulation only needs each fight's integer totals, so for the
scenarios it covers, `plan_for` flattens the scenario (combatants, their strikes
compiled at each enemy group, tactics as codes, each combatant's enemies nearest first)
and the compiled core plays whole fights without the GIL (`cython_core/fights.pyx`).

The compiled loop is the Python loop's twin, not a model of it: the same scenario and
seed give the same fights (winner, rounds, survivors, damage dealt and taken per
combatant), because it takes the same steps in the same draw order (the round's k-th
random event from stream k of the round seed) and rolls each attack with the strike
kernel `fracas.resolve` uses, from the plan rows `Compiled.plan` made. A test plays
both on every example and on generated scenarios.

What it covers: Enchanted Realms scenarios (ER-18 initiative every round, targets by
every tactic, spells, `flee_at`) whose attacks need no follow-up dice (no sneak attack
at a target with a maximum Body, no friendly fire, no grapple, no defense rolls),
Worldwalker scenarios (WW-1 initiative once, WW-5 reserved actions spent on blocks and
dodges strike by strike) and Cartyrion scenarios (CT-1 side initiative, CT-4 pools,
CT-5..7 weapons, parries and sneak attacks remembered; every situation an attack can be
made in is compiled up front, see `_variants`) and old-school scenarios (OS-1 side
initiative, OS-2 phases and one action, OS-3 fleeing targets, OS-4 declared flight,
surrender and morale, OS-5 spells lost). What it does not cover plays on the Python loop,
and `plan_for` says why; so does a single fight the compiled loop stops (a crit chain or an initiative tie past its limit), so that the
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
from .scenario import Compiled

#: Attacks compiled for the flat plan at most (attack unit × enemy group × reaction or not):
#: each is a Python compile of some 20-50 µs, so a scenario of many distinct groups plays
#: on the Python loop, which compiles only the pairs its fights meet.
MAX_PAIRS = 20_000
#: Combatants whose nearest-first enemy lists are built when the plan is made (M × M entries).
MAX_MEMBERS = 2_000
_NEVER = -(1 << 63)
_TACTICS = {"nearest": 0, "weakest": 1, "random": 2, "focus": 3}
_COVERED = ("enchanted-realms", "worldwalker", "cartyrion", "old-school")
_OS_PHASE = {"missile": 0, "melee": 2}
_OS_FLEE = {"never": 0, "broken": 1, "surrender": 2}
#: Sides at most in an old-school scenario the compiled loop plays (OS-1's side initiative limit).
OS_MAX_SIDES = 64
_PARRY = {None: 0, "weapon": 1, "shield": 2}
_POWER = {"never": 0, "first": 1, "hurt": 2}
_ALWAYS = (1 << 62)
#: Cartyrion combatants at most (the loop keeps whom each attacked last: members × members).
MAX_CT_MEMBERS = 512

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
        """Fights first..end-1 into `totals` (simulate.play_batch's dict); returns the fight
        it stopped at: `end`, or a fight the Python loop must play (its error)."""
        s, m, r = self.sides, self.members, self.max_rounds
        flat = array("q", bytes(8 * (2 * s + 1 + r + 1 + 5 * m)))
        played, _err, stopped, attacks = _kernels.active().play_fights(self.arrays, seed, first, end - first, flat)
        self.attacks += attacks
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
            start = base + k * m
            totals[key][:] = map(operator.add, totals[key], flat[start:start + m])
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


def _round(sc: Compiled) -> tuple[Any, str]:
    """The scenario's round procedure, and the compiled round it declares (its class's own
    `compiled`: a subclass that does not say so again plays on the Python loop)."""
    proc = sc.ruleset.fight_procedure()
    return proc, vars(proc).get("compiled", "")


def _uncovered(sc: Compiled) -> Optional[str]:
    """Why the compiled loop cannot play this scenario's fights (None: it can)."""
    rs = sc.ruleset
    proc, code = _round(sc)
    if code not in _COVERED:
        return (f"the {rs.title or rs.name} round ({proc.__name__}) has no compiled twin: the compiled fight loop"
                " plays the Enchanted Realms, Worldwalker, Cartyrion and old-school rounds")
    # The round procedures the compiled loop takes; should the ruleset's calls they
    # read change, its scenarios go back to the Python loop rather than play differently.
    if not proc.compiled_for(rs):
        return "the ruleset's round has procedures the compiled fight loop does not take"
    why = proc.compiled_why(sc)
    if why is not None:
        return str(why)
    if code == "old-school":
        return _os_uncovered(sc)
    ct = code == "cartyrion"
    if sc.has_morale or (sc.setup is None) is ct:
        return "the ruleset's round has procedures the compiled fight loop does not take"
    if len(sc.member_ids) > (MAX_CT_MEMBERS if ct else MAX_MEMBERS):
        return f"more than {MAX_CT_MEMBERS if ct else MAX_MEMBERS} combatants"
    return None


def _os_uncovered(sc: Compiled) -> Optional[str]:
    """Why the compiled loop cannot play an old-school scenario (None: it can): the round
    procedures it takes are OldSchool's as they stand (OS-1 side initiative, OS-2 phases,
    one action, OS-4 declared flight and morale, OS-5 disruption); should those hooks
    change, the scenarios go back to the Python loop rather than play differently."""
    if sc.setup is None:
        return "the ruleset's round has procedures the compiled fight loop does not take"
    if any(set(g.phases) - set(_OS_PHASE) for g in sc.groups):
        return "a strike in a phase other than missile or melee"
    if len(sc.sides) > OS_MAX_SIDES:
        return f"more than {OS_MAX_SIDES} sides"
    if len(sc.member_ids) > MAX_MEMBERS:
        return f"more than {MAX_MEMBERS} combatants"
    return None


def _os_arrays(sc: Compiled) -> tuple[dict[str, Any], dict[int, str]]:
    """The old-school tables (OS-1 setup, OS-4 morale units and groups); neutral ones for
    the other rulesets."""
    groups = sc.groups
    proc, code = _round(sc)
    os_ = code == "old-school"
    units = sc.morale_units if os_ else [("", 0, [g.index for g in groups])]
    group_unit = [0] * len(groups)
    for u, (_name, _side, in_unit) in enumerate(units):
        for k in in_unit:
            group_unit[k] = u
    member_unit = [group_unit[g] for g in sc.member_group]
    setup = sc.setup if os_ else {"ties": "reroll", "wait": [], "surprised": []}
    action: dict[int, str] = {}
    for g in groups:
        phases = g.phases
        if os_ and phases:  # OsRound.turn: one action (the phase it has, or action_of)
            action[g.index] = next(iter(phases)) if len(phases) == 1 else proc.action_of(g.spec, phases)
    return {
        "os": os_, "has_morale": bool(os_ and sc.has_morale), "os_ties": 1 if setup["ties"] == "simultaneous" else 0,
        "os_side": array("q", [(1 if s in setup["surprised"] else 0) | (2 if s in setup["wait"] else 0)
                               for s in sc.sides]),
        "os_phase": array("q", [_OS_PHASE[action[g.index]] if g.index in action else -1 for g in groups]),
        "os_flee": array("q", [_OS_FLEE[g.spec.tactic.flee] for g in groups]),
        "morale": array("q", [-1 if g.spec.morale is None else g.spec.morale for g in groups]),
        "morale_mod": array("q", [g.spec.morale_modifier for g in groups]),
        "group_unit": array("q", group_unit), "member_unit": array("i", member_unit),
        "unit_start": array("q", [sum(1 for u in member_unit if u == k) for k in range(len(units))]),
        "unit_first": array("q", [member_unit.index(k) for k in range(len(units))]),
    }, action


def _ct_dims(sc: Compiled) -> tuple[list[list[int]], list[tuple[int, int]]]:
    """Cartyrion: per group its CTG fields, and as a target its parry levels (weapon, shield)."""
    proc, _code = _round(sc)
    fields, parries = [], []
    for g in sc.groups:
        tactic, attacks = g.spec.tactic, g.spec.attacks
        sneak = sum(1 << i for i, a in enumerate(attacks) if a.get("sneak") is not None)
        breaks = tactic.power != "never" or any(a.get("power") for a in attacks) or tactic.parry == "weapon"
        fields.append([_PARRY[tactic.parry], _ALWAYS if tactic.parry_at is None else tactic.parry_at,
                       _POWER[tactic.power], int(breaks), 2 if tactic.power != "never" else 1,
                       2 if sneak else 1, sneak, len(attacks)])
        weapon, shield = proc.parry_state(g.spec.target)
        parries.append((weapon if tactic.parry == "weapon" else 0, shield if tactic.parry == "shield" else 0))
    return fields, parries


def _ct_situation(sc: Compiled, g: Any, use: tuple[int, ...], parry: tuple[str, int, int], power: bool,
                  no_sneak: bool) -> Any:
    """Fight._situation of a Cartyrion attack: the target's parry (CT-6), a power attack
    (CT-5), no sneak attack at a target attacked the round before (CT-7)."""
    proc, _code = _round(sc)
    kind, weapon_left, shield_left = parry
    found: list[Any] = []
    if kind:
        found.append(("target", proc.parrying(kind, weapon_left, shield_left)))
    for i in use:
        changes: list[Any] = []
        sneak = g.spec.attacks[i].get("sneak") is not None
        if kind:
            changes.append(("parry", kind))
        if sneak and no_sneak:
            changes.extend(proc.no_sneak)
        elif not sneak and power:
            changes.extend(proc.power_attack)
        if changes:
            found.append((("strike", i), tuple(changes)))
    return tuple(found)


def _variants(sc: Compiled, g: Any, key: str, use: Any, t: Any, fields: Any, parries: Any) -> list[tuple[Any, Any]]:
    """The (use, situation) of every attack `g` can make at `t` with this unit, in the order
    the compiled loop indexes them (its `_attack`): ER one; Worldwalker with and without
    the target's reaction (WW-5); Cartyrion by broken strikes, power, no sneak, the
    target's parry and what it has left. A use of None (every strike broken) is no attack."""
    proc, code = _round(sc)
    if code == "cartyrion":
        if key == "spell":
            return [(None, ())]
        k = len(g.spec.attacks)
        breaks, power_dim, sneak_dim = fields[g.index][3], fields[g.index][4], fields[g.index][5]
        weapon, shield = parries[t.index]
        parry = [("", 0, 0), *[("weapon", w, 0) for w in range(1, weapon + 1)],
                 *[("shield", 0, left) for left in range(1, shield + 1)]]
        out = []
        for mask in range(1 << k if breaks else 1):
            left = tuple(i for i in range(k) if not mask >> i & 1)
            for power in range(power_dim):
                for no_sneak in range(sneak_dim):
                    for state in parry:
                        out.append((left or None, _ct_situation(sc, g, left, state, bool(power), bool(no_sneak))
                                    if left else ()))
        return out
    if code == "worldwalker":
        # WW-5: a target with a block or dodge and no reserved action left has no reaction
        no_reaction = (("target", proc.no_reaction),) if t.spec.target.get("reaction") else ()
        return [(use, ()), (use, no_reaction)]
    if code == "old-school":  # OS-3: at a target that declared flight (OsRound.situation)
        return [(use, ()), (use, (("target", proc.fleeing),))]
    return [(use, ()), (use, ())]


def _make(sc: Compiled) -> Union[FastPlan, str]:
    why = _uncovered(sc)
    if why is not None:
        return why
    proc, code = _round(sc)
    rows = code != "enchanted-realms"
    ct = code == "cartyrion"
    ww = code == "worldwalker"
    groups = sc.groups
    n_groups = len(groups)
    fields, parries = _ct_dims(sc) if ct else ([[0] * 8 for _ in groups], [(0, 0)] * n_groups)
    if ct and any(len(g.spec.attacks) > 6 for g in groups if fields[g.index][3]):
        return "a Cartyrion combatant with more than 6 strikes that can break"
    # Attack units: what one call of Fight._attack rolls. ER, Cartyrion: a group's strikes
    # together; Worldwalker: each strike it does not forgo for its reserve (WW-5); its spell.
    os_ = code == "old-school"
    os_tables, action = _os_arrays(sc)
    keys: list[tuple[int, str, Optional[tuple[int, ...]]]] = []
    units = array("q")
    for g in groups:
        strikes = g.phases.get("attack", [])
        made: list[tuple[int, str, Optional[tuple[int, ...]]]]
        if os_:  # OS one action: its phase's strikes, as Fight._turn leaves them
            made = [(g.index, action[g.index], tuple(g.phases[action[g.index]]))] if g.index in action else []
        elif ww:
            forgone = set(proc.forgone(g.spec))
            strikes = [i for i in strikes if i not in forgone]
            made = [(g.index, "attack", (i,)) for i in strikes]
        else:
            made = [(g.index, "attack", tuple(strikes))] if strikes else []  # as Fight._play_slot asks
        units.extend((len(keys), len(made), -1))
        keys.extend(made)
        if g.spec.spell is not None:
            units[3 * g.index + 2] = len(keys)
            keys.append((g.index, "spell", None))
    todo = [(u, g_index, key, use, t) for u, (g_index, key, use) in enumerate(keys) for t in groups
            if t.side != groups[g_index].side]
    variants = {(u, t.index): _variants(sc, groups[g_index], key, use, t, fields, parries)
                for u, g_index, key, use, t in todo}
    pairs = sum(len(v) for v in variants.values())
    if pairs > MAX_PAIRS:
        return (f"{n_groups} combatant entries: {pairs} attacks to compile for the compiled loop, more than"
                f" {MAX_PAIRS}")
    plans = array("i")
    vbase = array("q", bytes(8 * len(keys) * n_groups))
    vcount = array("q", bytes(8 * len(keys) * n_groups))
    pair, tinit = array("q"), array("q")
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
            plan = sc.plan(g.index, key, t.index, use, situation)
            why = _unfit(plan, rows)
            if why:
                return f"{g.path}: its attack at {t.path} {why}"
            n = len(plan.metas)
            pair.extend((len(plans) // width, n))
            plans.extend(plan.rows if rows else plan.plan)
            tinit.extend(plan.tinit if rows else [0] * XS_WIDTH)
            widest = max(widest, n)
    member_group = sc.member_group
    sides = [groups[g].side for g in member_group]
    specs = [groups[g].spec for g in member_group]
    if ww:  # WW-1: d20 + Dexterity modifier + bonus; equal totals by the Dexterity modifier
        subs = [int(spec.attacker.get("dex_mod", 0)) for spec in specs]
        mods = [sub + spec.initiative for sub, spec in zip(subs, specs)]
    elif ct or os_:  # CT-1, OS-1 roll for the sides
        subs = mods = [0] * len(specs)
    else:  # ER-18: d10 + Agility modifier + bonus
        from ..rulesets.er import initiative

        # a modifier per group (its members share it), not a request of every member
        request = {"combatants": [{"id": g.spec.name, "agility": g.spec.attacker.get("agility"),
                                   "agility_mod": g.spec.attacker.get("agility_mod"), "bonus": g.spec.initiative}
                                  for g in groups]}
        by_group = initiative.compile_initiative(request).mods
        mods = [by_group[g] for g in member_group]
        subs = [0] * len(mods)
    die = 20 if ww else 10
    if (max(mods) - min(mods) + die) * (max(subs) - min(subs) + 1) > (1 << 16):
        return "initiative modifiers too far apart for the compiled loop's counting sort"
    near, near_off, focus, focus_off, walking = _target_lists(sc, sides, specs)
    parry_state = [proc.parry_state(spec.target) if ct else (0, 0) for spec in specs]
    arrays = {
        "rows": rows, "ct": ct, "init_once": ww, "init_die": die,
        "side": array("i", sides), "group": array("i", member_group),
        "hp": array("q", [spec.hp for spec in specs]),
        "injury": array("q", [-1 if spec.injury is None else spec.injury for spec in specs]),
        "flee_at": array("q", [_NEVER if spec.tactic.flee_at is None else spec.tactic.flee_at for spec in specs]),
        "spell_uses": array("q", [spec.spell.uses if spec.spell is not None else 0 for spec in specs]),
        "tactic": array("i", [_TACTICS[spec.tactic.target] for spec in specs]),
        "init_mod": array("q", mods), "init_sub": array("q", subs), "units": units,
        "reserve": array("q", [spec.tactic.reserve if ww else 0 for spec in specs]),
        "reaction": array("i", [1 if ww and spec.target.get("reaction") else 0 for spec in specs]),
        "weapon0": array("q", [w for w, _ in parry_state]), "shield0": array("q", [sh for _, sh in parry_state]),
        "ct_group": array("q", [x for f in fields for x in f]),
        "own_power": array("q", [sum(1 << i for i, a in enumerate(g.spec.attacks) if a.get("power")) if ct else 0
                                 for g in groups]),
        "parry_dims": array("q", [x for pd in parries for x in pd]), "ct_init": _ct_init(sc) if ct else
        array("q", [0, -1] * 12),
        "near": near, "near_off": near_off, "focus": focus, "focus_off": focus_off, **walking,
        "plans": plans, "pair": pair, "tinit": tinit, "vbase": vbase, "vcount": vcount, "groups": n_groups,
        "sides": len(sc.sides), "max_rounds": sc.max_rounds, "widest": widest, **os_tables,
    }
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
    fights = _kernels.active().fights
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


def _ct_init(sc: Compiled) -> array[int]:
    """CT-1 for each d6, in the first round (with the scenario's ambush) and later: the
    side acting first and the side surprised (-1: none), as Cartyrion.fight_initiative reads them."""
    from ..rulesets.ct import side_initiative

    setup = sc.setup
    table = array("q")
    for first_round in (True, False):
        for roll in range(1, 7):
            first, surprised = side_initiative(roll, 1 if first_round else 2, setup["ambush"] if first_round else "none")
            table.extend((sc.sides.index(setup[first]), sc.sides.index(setup[surprised]) if surprised else -1))
    return table


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
