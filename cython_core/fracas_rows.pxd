# cython: language_level=3
# fracas's strike-row kernel for a compiled plug-in (docs/ADDING_A_RULESET.md "The row kernel
# from a plug-in"): the kernel that rolls Worldwalker's, Cartyrion's and old-school's strikes,
# and a success-counting pool (a row whose X_HIT is X_HIT_COUNT), called from a plug-in's own
# Cython. It writes
#
#     from fracas_dice cimport Dice, dice_of
#     from fracas_rows cimport RowsAPI, rows_api
#     from _layout cimport XPLAN_WIDTH, XOUT_WIDTH, X_DICE, Y_DAMAGE  # the row's fields
#
#     cdef const RowsAPI* rows = rows_api()   # at import: fracas._core.rows's table, version checked
#     err = rows.strike(&row[0], dice, &tstate[0], &out[0], rows.explode_limit)
#
# with `fracas.dice.get_include()` on its include path. Unlike fracas_dice.pxd (whose code is
# inline, compiled into the plug-in), these functions are fracas's own compiled code, reached
# through a table of C function pointers that fracas._core.rows exports as the capsule `API`
# ("fracas.RowsAPI"), numpy's way with its C-API table: a plug-in needs fracas's compiled
# core at run time, and no .pxd of fracas's modules.
#
# Entry points (every one nogil and noexcept; the error codes are _layout's E_*):
#   strike(row, dice, tstate, out, explode_limit)
#       one strike: `row` XPLAN_WIDTH int32 (the X_ fields of docs/ENGINE.md), rolled on
#       `dice` into `out[0:XOUT_WIDTH]` (the Y_ fields); `tstate` the targets' parry pools,
#       XS_WIDTH int64 a target (X_TARGET indexes it), updated as the strike spends them.
#       Returns E_OK, or the draw's error (injected faces short or out of range).
#   attack(rows, n_rows, dice, tstate, out, explode_limit)
#       n_rows strikes in order (one attack's rows, or a bulk loop's), out[s * XOUT_WIDTH...];
#       dice.strike is set to each row's index, so an error says which strike it was.
#   explode_limit: CT-3's bound on one strike's explosions; pass the table's `explode_limit`
#       (fracas's own, from its spec) unless your ruleset has its own.
# The damage dice are not logged (Y_LOG and Y_NLOG are 0); a plug-in that needs the faces
# injects them or reads the totals.
#
# Draw-order guarantee: the same row on the same stream draws the same faces, in the same
# order, and leaves the same Y_ row as fracas's own rows path (fracas's resolve and bulk of
# that strike): feint d20s, sneak check d20, attack d20 (none for a pool), block/dodge d20,
# the damage dice with their explosions, the stamina die.
#
# ABI: rows_api() refuses, with an ImportError saying both numbers, a table whose version
# is not FRACAS_ROWS_API_VERSION, the version this .pxd was written for (rebuild the plug-in
# against the installed fracas), and a table whose layout widths differ from _layout.pxd's.

from libc.stdint cimport int32_t, int64_t
from cpython.pycapsule cimport PyCapsule_GetPointer

from _layout cimport XPLAN_WIDTH, XOUT_WIDTH, XS_WIDTH
from _generator cimport Dice

cdef enum:
    FRACAS_ROWS_API_VERSION = 1

ctypedef int (*fracas_strike_fn)(const int32_t*, Dice*, int64_t*, int64_t*, int64_t) noexcept nogil
ctypedef int (*fracas_attack_fn)(const int32_t*, int64_t, Dice*, int64_t*, int64_t*, int64_t) noexcept nogil

# The table's layout: fracas._core.rows (cython_core/rows.pyx) cimports this declaration and fills it.
ctypedef struct RowsAPI:
    int64_t version
    int64_t plan_width
    int64_t out_width
    int64_t state_width
    int64_t explode_limit
    fracas_strike_fn strike
    fracas_attack_fn attack


cdef inline const RowsAPI* rows_api() except NULL:
    """fracas's row-kernel table, checked: an ImportError when the installed fracas offers
    another version of it than this .pxd declares."""
    from importlib import import_module
    capsule = getattr(import_module("fracas._core.rows"), "API", None)
    if capsule is None:
        raise ImportError("fracas._core.rows has no API capsule: this fracas predates the public row kernel "
                          "(fracas_rows.pxd); upgrade it")
    cdef const RowsAPI* api = <const RowsAPI*>PyCapsule_GetPointer(capsule, "fracas.RowsAPI")
    if api.version != FRACAS_ROWS_API_VERSION:
        raise ImportError(f"fracas's row kernel table is version {api.version}, this plug-in was built "
                          f"against version {<int>FRACAS_ROWS_API_VERSION} (fracas_rows.pxd): rebuild "
                          "the plug-in against the installed fracas")
    if api.plan_width != XPLAN_WIDTH or api.out_width != XOUT_WIDTH or api.state_width != XS_WIDTH:
        raise ImportError(f"fracas's row kernel rows are {api.plan_width}/{api.out_width}/{api.state_width} "
                          f"wide, this plug-in's _layout.pxd says {XPLAN_WIDTH}/{XOUT_WIDTH}/{XS_WIDTH}: "
                          "rebuild the plug-in against the installed fracas")
    return api
