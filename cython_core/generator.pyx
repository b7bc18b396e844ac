# cython: language_level=3
"""The generator as Python sees it: seeding, raw words and dice for `fracas.dice.Dice`,
from the C-level API in _generator.pxd (docs/ENGINE.md "Dice")."""

from libc.stdint cimport uint32_t, uint64_t, int32_t, int64_t

from _layout cimport *
from _generator cimport *

# The layout table (generated): the stale-core check compares it with fracas._layout.
include "_layout.pxi"


def seed_state(uint64_t seed, uint32_t[::1] state):
    """Write the xoshiro128** state of a 64-bit seed into `state` (four words): two
    SplitMix64 outputs, low word first (fracas.rng.seed_state, in C)."""
    if state.shape[0] < 4:
        raise ValueError("the state needs four words")
    cdef uint64_t sm = seed
    cdef uint64_t o1 = splitmix64(&sm)
    cdef uint64_t o2 = splitmix64(&sm)
    state[0] = <uint32_t>(o1 & 0xFFFFFFFF)
    state[1] = <uint32_t>(o1 >> 32)
    state[2] = <uint32_t>(o2 & 0xFFFFFFFF)
    state[3] = <uint32_t>(o2 >> 32)


def generator_words(uint32_t[::1] state, int64_t count):
    """Draw `count` raw 32-bit words and return their XOR (the generator's speed limit)."""
    cdef Dice dice
    cdef int64_t i
    cdef uint32_t acc = 0
    load_state(&dice, state)
    with nogil:
        for i in range(count):
            acc ^= next32(&dice)
        store_state(&dice, state)
    return acc


def die(uint32_t[::1] state, uint32_t faces):
    """One face 1..faces from the generator state (four words, advanced in place): the
    follow-up dice rulesets draw outside the kernels (fracas.dice.Dice.die), in C."""
    if state.shape[0] < 4:
        raise ValueError("the state needs four words")
    if faces < 1 or faces > (1u << 21):
        raise ValueError("faces must be 1..2**21")
    cdef Dice dice
    load_state(&dice, state)
    cdef int face = draw_gen(&dice, faces)
    store_state(&dice, state)
    return face


def draw_faces(uint32_t[::1] state, int faces, int32_t[::1] out):
    """Fill `out` with dice of `faces` faces from `state` (fairness tests, benchmarks)."""
    cdef Dice dice
    cdef int64_t i
    if faces < 1 or faces > (1 << 21):
        raise ValueError("faces must be 1..2**21")
    load_state(&dice, state)
    dice.rolls = NULL
    dice.error = 0
    with nogil:
        for i in range(out.shape[0]):
            out[i] = draw(&dice, faces)
        store_state(&dice, state)
