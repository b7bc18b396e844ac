"""The compiled fight loop's source, run as Python.

`cython_core/fights.pyx` compiles the round procedure files (`rulesets/loop.py`, the loop's
shared steps, and each ruleset's `loop.py`: docs/ENCOUNTERS.md, "Rules written once for both
loops") over two C structs, `FightPlan` (the scenario, flat) and `FightState` (a fight in
play). Here the same files run as the Python they are, over objects holding the same fields
as arrays (`rulesets.loopstate`), with the kernels' Python twins (`fracas._native`) where C
calls the kernels through pointers: `play_fights` takes what `fights.play_fights` takes and
adds up the same totals, fight for fight (tests/fights/test_pyloop.py compares the two on
every example and on generated scenarios). `layout` is what both runs work out from a
plan's arrays.

With the pure-Python kernels this module is the fight loop fastfight plays plans on
(`play_fights`, with `nearest_lists` and `focus_lists` to lay them out): the compiled core's
`fights` module otherwise.
"""

from __future__ import annotations

import importlib
import math
from array import array
from typing import Any

from .. import rulesets
from .._layout import OUT_WIDTH, XOUT_WIDTH, XS_WIDTH
from ..dice import Dice
from ..rulesets import loop
from ..rulesets.loopstate import BY_MAX, OS_MAX_SIDES, FightPlan, FightState


def _round_files() -> list[Any]:
    """Each built-in ruleset's own `loop.py` (its round steps), found through the registry:
    what fights.pyx includes after the shared steps."""
    found = []
    for name in rulesets.names():
        package = type(rulesets.get(name)).__module__
        if not package.startswith("fracas.rulesets."):
            continue  # a plug-in's round plays on the plain round, or on the Python round loop
        try:
            found.append(importlib.import_module(f"{package}.loop"))
        except ModuleNotFoundError:
            continue
    return found


def neutral_tables(sides: int, groups: int, members: int) -> dict[str, Any]:
    """Every built-in round's plan tables as a fight of another round has them, each from
    its ruleset's `loop.py` (`neutral_tables`): the one loop takes every round's tables, so
    fastfight starts every plan from these."""
    tables: dict[str, Any] = {}
    for steps in _round_files():
        if hasattr(steps, "neutral_tables"):
            tables.update(steps.neutral_tables(sides, groups, members))
    return tables


def bind() -> None:
    """The rulesets' round steps the shared steps call (`loop.ROUND_STEPS`), bound into
    `rulesets.loop` from each built-in ruleset's own `loop.py`, found through the registry
    (compiled, fights.pyx includes them all in one module). Each must be bound once."""
    found: dict[str, Any] = {}
    for steps in _round_files():
        found.update({step: getattr(steps, step) for step in loop.ROUND_STEPS if hasattr(steps, step)})
    missing = sorted(set(loop.ROUND_STEPS) - set(found))
    if missing:
        raise RuntimeError(f"no ruleset's loop.py has the round steps {missing}")
    for step, value in found.items():
        setattr(loop, step, value)


def layout(arrays: dict[str, Any]) -> dict[str, Any]:
    """What the loop works out from a scenario `fastfight.FastPlan` laid out (`arrays`), for
    both runs (`fights.play_fights` takes pointers into these arrays, after it has checked
    the arrays they come from): the casters, each attack unit's engaging in melee, whether
    reactions are in play, the initiative counting sort's ranges, the engagement records a
    round can make, the per-side trees (weakest) and bitsets (random) over the members,
    `_select`'s table.
    Worked out once (fastfight does when it makes the plan) and kept in `arrays` under
    "layout": a plan plays many batches. `fights.play_fights` checks what it indexes with
    against the arrays before it plays."""
    kept: dict[str, Any] = arrays.get("layout") or {}
    if kept:
        return kept
    side, units, tactic = arrays["side"], arrays["units"], arrays["tactic"]
    members, groups, sides = len(side), arrays["groups"], arrays["sides"]
    react_unit = arrays["react_unit"]
    n_units = sum(units[3 * g + 1] + (units[3 * g + 2] >= 0) + (react_unit[g] >= 0) for g in range(groups))
    engages_u = array("i", bytes(4 * max(n_units, 1)))
    for g in range(groups):
        for u in range(units[3 * g + 1]):
            engages_u[units[3 * g] + u] = (arrays["engages"][g] >> u) & 1
    reactions = any(arrays["leave_draws"]) and any(u >= 0 for u in react_unit)
    mods, subs = arrays["init_mod"], arrays["init_sub"]
    any_random = loop.TAC_RANDOM in tactic
    # weakest: a tournament tree per side over its members (a leaf each, a power of two)
    on_side = [0] * sides
    side_pos = array("q", bytes(8 * members))
    for i in range(members):
        side_pos[i] = on_side[side[i]]
        on_side[side[i]] += 1
    wk_off, wk_size, nodes = array("q", bytes(8 * sides)), array("q", bytes(8 * sides)), 0
    for s in range(sides):
        size = 1
        while size < on_side[s]:
            size <<= 1
        wk_off[s], wk_size[s] = nodes, size
        nodes += 2 * size
    # random: per side the bitset of its enemies and the prefix counts of its words (padded
    # to 8 words; past the members' words the count is never below k)
    fw_words = (members + 63) >> 6 if any_random else 1
    fw_n = (fw_words + 7) & ~7
    fw_init = array("i", bytes(4 * sides * fw_n))
    eb_init = array("Q", bytes(8 * sides * fw_words))
    if any_random:
        for i in range(members):  # in the bitset of every side but its own, counted by the words after its own
            for tree in range(sides):
                if tree != side[i]:
                    eb_init[tree * fw_words + (i >> 6)] |= 1 << (i & 63)
                    if (i >> 6) + 1 < fw_words:
                        fw_init[tree * fw_n + (i >> 6) + 1] += 1
        for tree in range(sides):
            for j in range(1, fw_n):
                if j < fw_words:
                    fw_init[tree * fw_n + j] += fw_init[tree * fw_n + j - 1]
                else:
                    fw_init[tree * fw_n + j] = 0x7FFFFFFF
    # _select's table: per byte value and k (0..7), the place of the byte's (k + 1)-th set bit
    select8 = array("i", bytes(4 * 256 * 8))
    for b in range(256):
        for k, bit in enumerate(bit for bit in range(8) if (b >> bit) & 1):
            select8[b * 8 + k] = bit
    kept = arrays["layout"] = {
        "casters": array("q", [i for i in range(members) if arrays["spell_uses"][i] > 0]),
        "engages_u": engages_u, "reactions": reactions,
        "init_low": min(mods) + 1, "init_span": max(mods) - min(mods) + arrays["init_die"],
        "sub_low": min(subs), "sub_span": max(subs) - min(subs) + 1,
        # two engagement records for each attack a member's turn makes (a spell engages no one), one each reaction
        "eg_cap": sum(2 * (max(units[3 * g + 1], 1) + 1) for g in arrays["group"]) if reactions else 0,
        "any_weakest": loop.TAC_WEAKEST in tactic, "any_random": any_random, "side_pos": side_pos, "wk_off": wk_off,
        "wk_size": wk_size, "wk_nodes": nodes, "fw_words": fw_words, "fw_n": fw_n, "fw_init": fw_init,
        "eb_init": eb_init, "select8": select8,
    }
    return kept


def plan_of(arrays: dict[str, Any]) -> FightPlan:
    """The FightPlan of a scenario `fastfight.FastPlan` laid out (`arrays`, as
    `fights.play_fights` takes it): its arrays as they are, and what `layout` works out."""
    p = FightPlan()
    for name, value in arrays.items():
        setattr(p, name, value)
    for name, value in layout(arrays).items():
        setattr(p, name, value)
    # what fights.play_fights works out as it checks the arrays
    p.members = len(p.side)
    p.casters_n = len(p.casters)
    p.spells = p.casters_n > 0
    p.masks = p.impale_masks = None  # the Python kernel needs no hit masks
    p.units_n = len(p.unit_start)
    p.defends = any(p.can_defend)
    p.feints = any(p.feint_units)
    p.er_extra = bool(p.sneaks or p.defends or p.shock)
    p.throws = sum(p.throw_n) > 0
    p.charges = len(p.impale_at) > 0
    p.os_saves = any(p.os_save_or[3 * g] >= 0 for g in range(p.groups))
    p.rows_n = len(p.rows_at) // 2
    p.any_walk = any(p.walk)
    p.init_called = p.init_call is not None
    return p


def state_of(p: FightPlan, arrays: dict[str, Any], seed: int) -> FightState:
    """A FightState for plan `p`: every array at its size, zeros (fights.pyx's play_fights
    allocates the same)."""
    f = FightState()
    members, groups, sides = p.members, p.groups, p.sides
    for name in ("hp", "spell", "dealt", "taken", "near_at", "focus_at", "keys", "reserve", "injury", "broken",
                 "weapon_left", "shield_left", "turns", "eg_mark", "feinted", "incap", "thrown", "neg_hold",
                 "neg_pin", "neg_free", "no_react", "fo_t", "fo_r", "fo_pt", "fo_pr", "reacted", "pend_t", "pend_d",
                 "status", "casting", "order", "tie", "once", "parrying", "acts", "eg_list", "defending", "charged",
                 "neg_disarmed", "neg_ws", "leaving", "hurt", "os_able", "os_failed", "rolls"):
        setattr(f, name, [0] * members)
    f.side_standing = [0] * sides
    f.bucket = [0] * (p.init_span * p.sub_span + 1)
    f.out = [0] * (max(arrays["widest"], 1) * max(OUT_WIDTH, XOUT_WIDTH))
    f.eg_cap = p.eg_cap
    f.eg_head, f.eg_stamp = [0] * (2 * members), [0] * (2 * members)
    f.eg_other, f.eg_next = [0] * (2 * f.eg_cap), [0] * (2 * f.eg_cap)
    f.eg_used, f.eg_pool, f.eg_token = [0, 0], [0, 0], 0
    f.slog_cap = max(arrays["widest"], 1) * (8 + 2 * 64) if p.strays else 0
    f.slog = [0] * (2 * f.slog_cap)
    f.g_standing, f.g_succ, f.g_broken, f.g_death = [0] * groups, [0] * groups, [0] * groups, [0] * groups
    f.u_standing, f.u_killed, f.u_fired = [0] * p.units_n, [0] * p.units_n, [0] * p.units_n
    f.u_noted = [0] * (p.units_n * 5)
    f.os_slot_end, f.os_together = [0] * sides, [0] * sides
    for name in ("os_present", "os_waits", "os_faces", "os_tied", "os_ranked", "os_slot_in", "os_tog",
                 "os_slot_of"):
        setattr(f, name, [0] * OS_MAX_SIDES)
    f.wk = [0] * p.wk_nodes
    f.fw = [0] * (sides * p.fw_n)
    f.eb = [0] * (sides * p.fw_words)
    f.next_up, f.next_down = [0] * (members + 1), [0] * (members + 1)
    f.by, f.by_dmg = [0] * BY_MAX, [0] * BY_MAX
    f.slot_end = [0] * 3
    f.tstate = [0] * XS_WIDTH
    f.stamp = [0]
    f.faces = [0] * 16
    f.paid = [0]
    f.got = [0] * 4
    f.once_n = f.epoch = f.now = f.attacks = f.pend_n = f.k = f.round_seed = 0
    f.sides_left = f.winner = f.dmg = f.inj = f.cost = f.logpos = f.ct_broken = 0
    f.over = f.defer = f.turn_done = f.ct_power = False
    f.d = Dice.from_seed(seed)
    return f


def play_fights(arrays: dict[str, Any], seed: int, first: int, count: int, totals: Any) -> tuple[int, int, int, int]:
    """`fights.play_fights` as Python: fights first..first+count-1 of a scenario compiled by
    fastfight.FastPlan, added to `totals`. Returns (fights played, error code, the fight
    that stopped or -1, attacks rolled)."""
    from ..rng import chunk_seed

    bind()
    p = plan_of(arrays)
    f = state_of(p, arrays, seed)
    sides, members, max_rounds = p.sides, p.members, p.max_rounds
    played = err = 0
    base = 2 * sides + 2 + max_rounds
    for fight in range(first, first + count):
        rounds = loop._fight(p, f, chunk_seed(seed, fight))
        if rounds < 0:
            err = -rounds
            break
        played += 1
        totals[sides if f.winner < 0 else f.winner] += 1
        totals[2 * sides + 1 + rounds] += 1
        for i in range(members):
            totals[base + i] += f.dealt[i]
            totals[base + members + i] += f.taken[i]
            if f.status[i] == loop.ST_STANDING:
                totals[base + 2 * members + i] += 1
                totals[sides + 1 + p.side[i]] += 1
            elif f.status[i] == loop.ST_FLED:
                totals[base + 3 * members + i] += 1
            else:
                totals[base + 4 * members + i] += 1
    return played, err, first + played if err else -1, f.attacks


def nearest_lists(xs: Any, ys: Any, side: Any, need: Any) -> tuple[Any, Any, list[Any], list[Any], Any, Any, Any]:
    """`fights.nearest_lists` as Python (the pure-Python kernels): each member's enemies
    nearest first, ties by member index. That is the order of Fight._choose's `min` by
    (math.hypot(dx, dy), index) by definition: a stable sort by math.hypot of the enemies
    in member order. So nothing is left for the caller to order (`close` and `python` are
    empty), and no member's picks walk the rows (the compiled loop's shortcut to the same
    order): every member has its list, whatever `need` says."""
    members = len(side)
    if len(xs) != members or len(ys) != members or len(need) != members:
        raise ValueError("positions and sides disagree")
    if any(not 0 <= s < 64 for s in side):
        raise ValueError("a side index out of range")
    enemies = {s: [e for e in range(members) if side[e] != s] for s in set(side)}
    near, off = array("i"), array("q", [0])
    for m in range(members):
        x, y = xs[m], ys[m]
        near.extend(sorted(enemies[side[m]], key=lambda e: math.hypot(xs[e] - x, ys[e] - y)))
        off.append(len(near))
    return near, off, [], [], array("i", bytes(4 * members)), array("q"), array("q")


def focus_lists(near: Any, near_off: Any, focus_of: Any, match: Any) -> tuple[Any, Any]:
    """`fights.focus_lists` as Python: each member's focus, the enemies of its nearest-first
    list that its tactic's focus names, in that order (focus_of[m]: the row of `match`, a
    byte per member, of m's focus; -1: none)."""
    members = len(focus_of)
    if len(near_off) != members + 1 or near_off[members] != len(near) or members == 0:
        raise ValueError("the nearest-first lists disagree")
    out, off = array("i"), array("q", [0])
    for m in range(members):
        row = focus_of[m] * members
        if focus_of[m] >= 0:
            out.extend(e for e in near[near_off[m]:near_off[m + 1]] if match[row + e])
        off.append(len(out))
    return out, off
