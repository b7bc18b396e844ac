"""The row kernel's public C entry points (issue 45 item 2; cython_core/fracas_rows.pxd,
docs/ADDING_A_RULESET.md "The row kernel from a plug-in"): fracas._core.rows exports a table
of C function pointers as the capsule `API` ("fracas.RowsAPI"), versioned. Called here
through ctypes, as a plug-in's Cython calls it: the same row on the same stream rolls what
fracas's own rows path rolls (resolve, and the kernels' xroll_detail on both backends) and
leaves the stream where fracas's leaves it (docs/ENGINE.md, the row kernel's draw order).
The compiled example that cimports it is tested in tests/release/test_examples.py."""

from __future__ import annotations

import ctypes
from array import array
from pathlib import Path

import pytest

import fracas
from fracas import _kernels, _layout as L, _native
from fracas._facts import CT_EXPLODE_LIMIT
from fracas.dice import get_include, kernel_info, stream
from fracas.rng import seed_state
from fracas.rulesets import rolling
from fracas.rulesets.rows import pool_row, row

compiled = _kernels.compiled
needs_core = pytest.mark.skipif(compiled is None, reason="the compiled core is not built")

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

I32P, I64P = ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int64)
STRIKE = ctypes.CFUNCTYPE(ctypes.c_int, I32P, ctypes.c_void_p, I64P, I64P, ctypes.c_int64)
ATTACK = ctypes.CFUNCTYPE(ctypes.c_int, I32P, ctypes.c_int64, ctypes.c_void_p, I64P, I64P, ctypes.c_int64)


class RowsAPI(ctypes.Structure):
    """fracas_rows.pxd's `RowsAPI`, field for field."""
    _fields_ = [("version", ctypes.c_int64), ("plan_width", ctypes.c_int64), ("out_width", ctypes.c_int64),
                ("state_width", ctypes.c_int64), ("explode_limit", ctypes.c_int64),
                ("strike", STRIKE), ("attack", ATTACK)]


def api() -> RowsAPI:
    return RowsAPI.from_address(_get_pointer(compiled.rows.API, b"fracas.RowsAPI"))


def c_array(kind, values):
    buf = array(kind, values)
    ctype = ctypes.c_int32 if kind == "i" else ctypes.c_int64
    return buf, (ctype * max(len(buf), 1)).from_buffer(buf)


def via_api(rows: list[int], seed: int, rolls=None, tinit=(0, 0)):
    """Every row through `attack`, on a C stream of `seed` (or injected faces)."""
    n = len(rows) // L.XPLAN_WIDTH
    s = stream(seed, rolls)
    plan, plan_c = c_array("i", rows)
    tstate, tstate_c = c_array("q", tinit)
    out, out_c = c_array("q", bytes(8 * n * L.XOUT_WIDTH))
    table = api()
    err = table.attack(plan_c, n, _get_pointer(s.capsule, b"fracas.Dice"), tstate_c, out_c, table.explode_limit)
    return err, out, s


def via_kernel(kernel, rows: list[int], seed: int, rolls=None, tinit=(0, 0)):
    """The same rows through fracas's own rows path (`xroll_detail`, one attack)."""
    n = len(rows) // L.XPLAN_WIDTH
    state = array("I", seed_state(seed))
    out = array("q", bytes(8 * n * L.XOUT_WIDTH))
    info = kernel_info()
    err = kernel.xroll_detail(array("i", rows), array("q", (0, n, 1)), len(tinit) // L.XS_WIDTH, array("q", tinit),
                              0, 1, state, None if rolls is None else array("i", rolls), out,
                              array("i", bytes(4 * 4096)), info)
    return err, out, tuple(state), info


def unlogged(out) -> list[list[int]]:
    """The Y_ rows without Y_LOG and Y_NLOG (the entry points keep no log)."""
    rows = [list(out[s:s + L.XOUT_WIDTH]) for s in range(0, len(out), L.XOUT_WIDTH)]
    return [[v for i, v in enumerate(r) if i not in (L.Y_LOG, L.Y_NLOG)] for r in rows]


WW_ATTACK = {"ruleset": "worldwalker", "attacker": {"skill": 6, "str_mod": 2, "dex_mod": 4},
             "targets": {"k": {"dex_mod": 0, "armor": 3, "reaction": {"kind": "block", "bonus": 1}}},
             "strikes": [{"target": "k", "method": "melee", "damage": "2d8"},
                         {"target": "k", "method": "melee", "damage": "1d10"}]}


@needs_core
def test_the_table_says_its_version_and_layout():
    """fracas_rows.pxd checks these at a plug-in's import: the version it was written for and
    the X_/Y_ widths of _layout.pxd; CT-3's explosion bound is fracas's own."""
    table = api()
    assert table.version == compiled.rows.ROWS_API_VERSION == 1
    assert (table.plan_width, table.out_width, table.state_width) == (L.XPLAN_WIDTH, L.XOUT_WIDTH, L.XS_WIDTH)
    assert table.explode_limit == CT_EXPLODE_LIMIT
    pxd = (Path(get_include()) / "fracas_rows.pxd").read_text()
    assert "FRACAS_ROWS_API_VERSION = 1\n" in pxd


@needs_core
@pytest.mark.parametrize("seed", [0, 7, 123456789, 2**64 - 1])
def test_a_worldwalker_attack_rolls_what_resolve_rolls(seed):
    """WW-2, WW-5: the plan resolve compiles, rolled through `attack` on the seed's stream, hits,
    blocks and deals the damage fracas.resolve reports, and the stream ends where fracas's does."""
    _ruleset, _bound, plan, _seed, _rolls = rolling.prepare("attack", WW_ATTACK, seed)
    err, out, s = via_api(list(plan.rows), seed, tinit=list(plan.tinit))
    assert err == L.E_OK
    strikes = fracas.resolve(WW_ATTACK, seed=seed).to_dict()["strikes"]
    assert [out[i * L.XOUT_WIDTH + L.Y_DAMAGE] for i in range(2)] == [x["damage"] for x in strikes]
    assert [out[i * L.XOUT_WIDTH + L.Y_ROLL] for i in range(2)] == [x["attack_roll"] for x in strikes]
    assert [out[i * L.XOUT_WIDTH + L.Y_DICE_SUM] for i in range(2)] == [
        sum(x["damage_dice"]) for x in strikes]
    _err, _out, state, _info = via_kernel(compiled, list(plan.rows), seed, tinit=list(plan.tinit))
    assert s.state == state


ROWS = {
    # WW-2 attack d20 (natural 20 counts 30) with a dodge, OS-style d20, a feint and a sneak check
    "ww": row(HIT=L.X_HIT_WW, BONUS=5, TN=12, REACT=1, REACT_BONUS=2, DICE=2, FACES=6, FLAT=1, REDUCE=1),
    "os": row(HIT=L.X_HIT_OS, BONUS=2, TN=14, DICE=1, FACES=8, MIN=1),
    "feint": row(HIT=L.X_HIT_WW, BONUS=3, TN=10, REACT=1, FEINT=1, FEINT_BONUS=2, FEINT_DEFENSE=1,
                 CHECK=1, CHECK_BONUS=1, CHECK_DC=12, DICE=1, FACES=10, REDUCE=4, REDUCE_PASS=1),
    # CT-3 exploding dice, bounded, a weapon parry and a stamina die
    "ct": row(HIT=L.X_HIT_NONE, DICE=3, FACES=6, EXPLODE=1, PARRY=L.X_PARRY_WEAPON, COST=6, COST_HALF=1),
    # the success-counting pool (issue 33): 6d6, each 5-6 a success, 6s explode
    "pool": pool_row(6, 6, 5, explode=True, flat=1),
}


@needs_core
@pytest.mark.parametrize("kernel", [_native, compiled], ids=lambda k: getattr(k, "BACKEND", "none"))
@pytest.mark.parametrize("name", sorted(ROWS))
def test_each_row_kind_rolls_as_fracas_rows_path(kernel, name):
    """Every hit mode of the row kernel (WW-2, OS d20, WW feint and sneak check, CT-3 explosions
    with a parry and stamina, the success-count pool): four strikes of the row through the entry
    point, then through fracas's xroll_detail on each backend, from 50 seeds: the same Y_ rows
    and the same stream state after."""
    rows = ROWS[name] * 4
    for seed in range(50):
        err, out, s = via_api(rows, seed, tinit=(3, 0))
        kerr, kout, state, _info = via_kernel(kernel, rows, seed, tinit=(3, 0))
        assert (err, unlogged(out), s.state) == (kerr, unlogged(kout), state), (name, seed)


@needs_core
def test_one_strike_and_injected_faces():
    """`strike` rolls one row; injected faces are drawn in fracas's order, and running short is
    E_ROLLS_SHORT with the stream's position, as fracas's own path reports it."""
    table = api()
    plan, plan_c = c_array("i", ROWS["os"])
    tstate, tstate_c = c_array("q", (0, 0))
    out, out_c = c_array("q", bytes(8 * L.XOUT_WIDTH))
    s = stream(1, [15, 6])
    assert table.strike(plan_c, _get_pointer(s.capsule, b"fracas.Dice"), tstate_c, out_c, table.explode_limit) == 0
    assert (out[L.Y_ROLL], out[L.Y_HIT], out[L.Y_DICE_SUM], out[L.Y_DAMAGE]) == (15, 1, 6, 6)
    assert s.pos == 2
    err, _out, short = via_api(ROWS["os"], 1, rolls=[15])
    kerr, _kout, _state, info = via_kernel(compiled, ROWS["os"], 1, rolls=[15])
    assert err == kerr == L.E_ROLLS_SHORT
    assert short.pos == 1 == info[L.I_ERROR_POS]
