"""The compiled fight loop's source, run as Python.

`cython_core/fights.pyx` compiles the round procedure files (`drive/loop.py` and each
ruleset's `loop.py`: docs/ENCOUNTERS.md, "Rules written once for both loops") over two C
structs, `FightPlan` (the scenario, flat) and `FightState` (a fight in play). Here the same
files run as the Python they are, over objects holding the same fields as arrays, with the
kernels' Python twins (`fracas._native`) where C calls the kernels through pointers:
`play_fights` takes what `fights.play_fights` takes and adds up the same totals, fight for
fight (tests/fights/test_pyloop.py compares the two on every example and on generated
scenarios). It is the pure-Python backend's fight loop for the scenarios `fastfight`
compiles.
"""

from __future__ import annotations

from array import array
from typing import Any

from .. import _native
from .._draw import KernelError
from .._layout import O_DAMAGE, OUT_WIDTH, XOUT_WIDTH, XS_WIDTH
from ..dice import Dice

#: ER-17: the creatures next to a target a shot may stray into (fights.pyx's BY_MAX)
BY_MAX = 8
#: OS-1: the sides an old-school fight may have (fights.pyx's OS_MAX_SIDES)
OS_MAX_SIDES = 64
#: What `fights.pyx` calls the plan's tactic codes and walking limit (`fastfight` lays them out)
WALK_ROWS = 16
#: weakest: members in a fight stay below 2^20 (a tree key's member bits)
MEMBERS_LIMIT = 1 << 20


class _Fields:
    """An object of named fields, each an array (or a number) the loop reads or writes: the
    Python form of a C struct of `fights.pyx`. A field the loop reads and nobody set is an
    AttributeError naming it."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"{type(self).__name__} has no field {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)


class FightPlan(_Fields):
    """`fights.pyx`'s FightPlan: the scenario, flat (what `fastfight.FastPlan` lays out)."""


class FightState(_Fields):
    """`fights.pyx`'s FightState: one fight in play, and the scratch its steps share."""


def er_kernel(plans: Any, f: Any, first: int, n: int, rows: bool, log: bool) -> int:
    """`roll_attack` for `loop._er_roll`: rows first..first+n-1 of `plans` as one attack,
    from f's stream; its rows into f.out (and its dice into f.slog when `log`), its damage
    into f.dmg when not `rows`. Returns the kernel's error code."""
    try:
        _native._roll_attack(plans, first, first + n, f.d, f.stamp, 0, f.out, 0, f.slog if log else None, 0)
    except KernelError as exc:
        return exc.code
    if not rows:
        f.dmg += sum(f.out[s * OUT_WIDTH + O_DAMAGE] for s in range(n))
    return 0


def row_kernel(p: Any, f: Any, first: int, n: int, at: int) -> int:
    """`xattack` for `loop._row_roll`: rows first..first+n-1 of the strike-row plan as one
    attack, from variant `at`'s parry state; its rows into f.out."""
    try:
        _native._xattack(p.plans, first, first + n, f.d, p.tinit[at * XS_WIDTH:(at + 1) * XS_WIDTH], f.tstate,
                         f.out, 0, None, 0)
    except KernelError as exc:
        return exc.code
    return 0


def peek(d: Dice) -> Dice:
    """A copy of the stream `d` (a glaive's impalement reads its skill dice ahead)."""
    return Dice(array("I", d.s), None, 0)


def _zeros(code: str, n: int) -> array[Any]:
    return array(code, bytes(array(code).itemsize * max(n, 1)))


def plan_of(arrays: dict[str, Any]) -> FightPlan:
    """The FightPlan of a scenario `fastfight.FastPlan` laid out (`arrays`, as
    `fights.play_fights` takes it): its arrays as they are, and what play_fights works out
    from them."""
    from .loop import select_table

    p = FightPlan()
    for name in ("side", "group", "hp", "flee_at", "spell_uses", "tactic", "init_mod", "init_sub", "units",
                 "reserve", "reaction", "injury", "weapon0", "shield0", "ct_group", "own_power", "parry_dims",
                 "ct_init", "react_unit", "leave_draws", "engages", "charge", "impale_at", "impale_rows",
                 "neg_mode", "neg_blitz", "neg_weapon", "neg_dice", "neg_melee", "neg_blocks", "neg_table",
                 "throw_off", "throw_n", "throw_plan", "shock_body", "shock_save", "defend_at", "can_defend",
                 "feint_units", "sneaky", "shoots", "by_off", "by_list", "stray_ac", "stray_resist", "stray_cond",
                 "row_info", "vbase", "vcount", "near_off", "near", "focus_off", "focus", "plans", "tinit", "pair",
                 "os_side", "os_phase", "os_flee", "os_save_or", "os_save_num", "morale", "morale_mod", "group_unit",
                 "unit_start", "unit_first", "member_unit", "walk", "split", "rows_at", "focus_lo", "focus_hi", "xs",
                 "ys"):
        setattr(p, name, arrays[name])
    members, groups, sides = len(arrays["side"]), arrays["groups"], arrays["sides"]
    p.members, p.groups, p.sides, p.max_rounds = members, groups, sides, arrays["max_rounds"]
    for name in ("rows", "init_once", "init_die", "side_turns", "phased", "has_morale", "os_ties", "shock",
                 "sneaks", "negates", "strays"):
        setattr(p, name, arrays[name])
    p.casters = [i for i in range(members) if p.spell_uses[i] > 0]
    p.casters_n = len(p.casters)
    p.spells = p.casters_n > 0
    p.masks = p.impale_masks = None  # the Python kernel needs no hit masks
    p.units_n = len(p.unit_start)
    p.os_saves = any(p.os_save_or[3 * g] >= 0 for g in range(groups))
    units = p.units
    p.engages_u = [0] * max(sum(units[3 * g + 1] + (units[3 * g + 2] >= 0) + (p.react_unit[g] >= 0)
                                for g in range(groups)), 1)
    for g in range(groups):
        for u in range(units[3 * g + 1]):
            p.engages_u[units[3 * g] + u] = (p.engages[g] >> u) & 1
    p.reactions = any(p.leave_draws) and any(u >= 0 for u in p.react_unit)
    p.defends = any(p.can_defend)
    p.feints = any(p.feint_units)
    p.er_extra = p.sneaks or p.defends or p.shock
    p.throws = sum(p.throw_n) > 0
    p.charges = len(p.impale_at) > 0
    mods, subs = arrays["init_mod"], arrays["init_sub"]
    p.init_low = min(mods) + 1
    p.init_span = max(mods) - min(mods) + p.init_die
    p.sub_low = min(subs)
    p.sub_span = max(subs) - p.sub_low + 1
    # weakest and random: per side trees and bitsets (fights.pyx lays out the same)
    p.any_weakest = any(t == 1 for t in p.tactic)
    p.any_random = any(t == 2 for t in p.tactic)
    on_side = [0] * sides
    p.side_pos = [0] * members
    for i in range(members):
        p.side_pos[i] = on_side[p.side[i]]
        on_side[p.side[i]] += 1
    p.wk_off, p.wk_size, nodes = [0] * sides, [0] * sides, 0
    for s in range(sides):
        size = 1
        while size < on_side[s]:
            size <<= 1
        p.wk_off[s], p.wk_size[s] = nodes, size
        nodes += 2 * size
    p.wk_nodes = nodes
    p.fw_words = (members + 63) >> 6 if p.any_random else 1
    p.fw_n = (p.fw_words + 7) & ~7
    p.fw_init = [0] * (sides * p.fw_n)
    p.eb_init = [0] * (sides * p.fw_words)
    if p.any_random:
        for i in range(members):
            for tree in range(sides):
                if tree != p.side[i]:
                    p.eb_init[tree * p.fw_words + (i >> 6)] |= 1 << (i & 63)
                    if (i >> 6) + 1 < p.fw_words:
                        p.fw_init[tree * p.fw_n + (i >> 6) + 1] += 1
        for tree in range(sides):
            for j in range(1, p.fw_n):
                if j < p.fw_words:
                    p.fw_init[tree * p.fw_n + j] += p.fw_init[tree * p.fw_n + j - 1]
                else:
                    p.fw_init[tree * p.fw_n + j] = 0x7FFFFFFF
    p.rows_n = len(p.rows_at) // 2
    p.any_walk = any(p.walk)
    p.select8 = [0] * (256 * 8)
    select_table(p.select8)
    return p


def state_of(p: FightPlan, arrays: dict[str, Any], seed: int) -> FightState:
    """A FightState for plan `p`: every array at its size, zeros (fights.pyx's play_fights
    allocates the same)."""
    f = FightState()
    members, groups, sides = p.members, p.groups, p.sides
    for name in ("hp", "spell", "dealt", "taken", "near_at", "focus_at", "keys", "reserve", "injury", "broken",
                 "weapon_left", "shield_left", "turns", "eg_mark", "feinted", "incap", "thrown", "neg_hold",
                 "neg_pin", "neg_free", "no_react", "fo_t", "fo_r", "fo_pt", "fo_pr", "reacted", "pend_t", "pend_d"):
        setattr(f, name, [0] * members)
    for name in ("status", "casting", "order", "tie", "once", "parrying", "acts", "eg_list", "defending", "charged",
                 "neg_disarmed", "neg_ws", "leaving", "hurt", "os_able", "os_failed", "rolls"):
        setattr(f, name, [0] * members)
    f.side_standing = [0] * sides
    f.bucket = [0] * (p.init_span * p.sub_span + 1)
    f.out = [0] * (max(arrays["widest"], 1) * max(OUT_WIDTH, XOUT_WIDTH))
    f.eg_cap = sum(2 * (max(p.units[3 * p.group[i] + 1], 1) + 1) for i in range(members)) if p.reactions else 0
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
    from .loop import ST_FLED, ST_STANDING, _fight

    p = plan_of(arrays)
    f = state_of(p, arrays, seed)
    sides, members, max_rounds = p.sides, p.members, p.max_rounds
    played = err = 0
    base = 2 * sides + 2 + max_rounds
    for fight in range(first, first + count):
        rounds = _fight(p, f, chunk_seed(seed, fight))
        if rounds < 0:
            err = -rounds
            break
        played += 1
        totals[sides if f.winner < 0 else f.winner] += 1
        totals[2 * sides + 1 + rounds] += 1
        for i in range(members):
            totals[base + i] += f.dealt[i]
            totals[base + members + i] += f.taken[i]
            if f.status[i] == ST_STANDING:
                totals[base + 2 * members + i] += 1
                totals[sides + 1 + p.side[i]] += 1
            elif f.status[i] == ST_FLED:
                totals[base + 3 * members + i] += 1
            else:
                totals[base + 4 * members + i] += 1
    return played, err, first + played if err else -1, f.attacks
