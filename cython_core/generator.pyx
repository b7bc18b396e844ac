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
    cdef Dice dice
    seed_words(&dice, seed)
    store_state(&dice, state)


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


# -- the stream a compiled plug-in draws from (docs/ADDING_A_RULESET.md "A compiled kernel") --

from cpython.pycapsule cimport PyCapsule_New

#: The name of the capsule `Stream.capsule` holds: a `Dice*` (fracas_dice.pxd).
CAPSULE_NAME = "fracas.Dice"


cdef class Stream:
    """One dice stream in C: a seed's generator, or injected faces. `capsule` is a PyCapsule
    named "fracas.Dice" holding a pointer to its `Dice` state (fracas_dice.pxd), so a
    compiled plug-in draws from the stream a Python caller made (`fracas.dice.stream`), in
    one draw order with `die` here: the pointer is valid while the stream lives. As numpy's
    `BitGenerator.capsule` (numpy/random/bit_generator.pyx) holds its `bitgen_t`."""

    cdef Dice dice
    cdef const int32_t[::1] rolls
    cdef readonly object capsule

    def __cinit__(self, uint64_t seed, rolls=None):
        seed_dice(&self.dice, seed)
        if rolls is not None:
            self.rolls = rolls
            self.dice.n_rolls = self.rolls.shape[0]
            # an empty list is injected too: its first draw is an error, never the generator's
            self.dice.rolls = &self.rolls[0] if self.dice.n_rolls else <const int32_t*>&self.dice.s0
        self.capsule = PyCapsule_New(&self.dice, "fracas.Dice", NULL)

    def die(self, uint32_t faces):
        """One face 1..faces, the next of the stream; a KernelError when injected faces run
        out or do not fit (the error a compiled draw leaves is raised here too)."""
        if faces < 1 or faces > (1u << 21):
            raise ValueError("faces must be 1..2**21")
        self.check()
        cdef int face = draw(&self.dice, faces)
        self.check()
        return face

    def check(self):
        """Raise the error a draw left in the stream (`Dice.error`: injected faces short or
        out of range) as a KernelError, once."""
        cdef int code = self.dice.error
        if code:
            self.dice.error = 0
            from fracas._draw import KernelError
            raise KernelError(code, self.dice.strike, self.dice.error_pos, self.dice.error_faces)

    @property
    def state(self):
        """The generator's four words, as `fracas.dice.Dice(...).state` holds them."""
        return (self.dice.s0, self.dice.s1, self.dice.s2, self.dice.s3)

    @property
    def injected(self):
        return self.dice.rolls != NULL

    @property
    def pos(self):
        """The next injected face's position (the faces drawn)."""
        return self.dice.pos
