# cython: language_level=3
# fracas's dice for a compiled plug-in: the public C-level surface of the generator
# (docs/ADDING_A_RULESET.md "A compiled kernel"). A plug-in's Cython kernel writes
#
#     from fracas_dice cimport Dice, draw, load_state, store_state
#
# with `fracas.dice.get_include()` on its include path (its setup.py: cythonize(...,
# include_path=[get_include()])), and gets the very code fracas's kernels run, compiled into
# its own module: xoshiro128** seeded by SplitMix64, a die of n faces by Lemire's
# multiply-and-reject, injected faces in the generator's place. No module of fracas is called
# at run time, so a draw costs what it costs in fracas's own kernels.
#
# Draw-order guarantee: a `Dice` loaded from a stream's state (`load_state` from the four
# words of `fracas.dice.Dice.state`, or the `Dice*` in a `fracas.dice.stream(...).capsule`)
# draws the faces `fracas.dice.Dice.die` would draw next, one for one, in the same order, on
# either backend; `store_state` hands the stream back where the kernel left it. What a
# ruleset draws in C and what it draws in Python is then one stream: a pure-Python twin that
# calls `die` where the kernel calls `draw` gives the same result from the same seed.
#
# Names (the rest of _generator.pxd and _layout.pxd is fracas's own, no promise):
#   Dice                a stream's state: four generator words, injected faces (rolls,
#                       n_rolls, pos), and the error a draw left (error, error_pos,
#                       error_faces; E_ROLLS_SHORT, E_ROLL_RANGE)
#   draw(d, n)          one face 1..n: the next injected face, or the generator's; 0 with
#                       d.error set when injected faces run out or do not fit
#   draw_gen(d, n)      one face 1..n from the generator, injected faces ignored (bulk)
#   next32(d)           one raw 32-bit word
#   load_state(d, s)    d's generator from four words (uint32_t[::1]); store_state back
#   dice_of(capsule)    the Dice* a `fracas.dice.stream(...).capsule` holds ("fracas.Dice")
# n is 1..2**21 (fracas's largest die); every function is nogil and noexcept but dice_of.
# fracas's strike-row kernel itself is offered in fracas_rows.pxd (a versioned C function table).

from cpython.pycapsule cimport PyCapsule_GetPointer

from _layout cimport E_OK, E_ROLLS_SHORT, E_ROLL_RANGE
from _generator cimport Dice, next32, draw, draw_gen, load_state, store_state


cdef inline Dice* dice_of(object capsule) except NULL:
    """The stream a `fracas.dice.stream(...).capsule` holds; a ValueError for another capsule."""
    return <Dice*>PyCapsule_GetPointer(capsule, "fracas.Dice")
