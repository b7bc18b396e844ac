# cython: language_level=3
# The generator's C-level API (docs/ENGINE.md "Dice"), in the shape of numpy.random's bit
# generators: numpy's `bitgen_t` (numpy/random/bitgen.h, declared for Cython in
# numpy/random/__init__.pxd) is a state pointer plus draw-function pointers, each
# BitGenerator of numpy/random/_bit_generator.pxd holds one, and the samplers of
# numpy/random/c_distributions.pxd take it by pointer. Here: a state struct every kernel
# module passes by pointer (and copies into locals in its loop), inline functions that
# draw from it, no global state. The draws are
# inline, not function pointers, because every kernel's hot loop draws: a call through a
# pointer into another module per die would cost the bulk path its speed. xoshiro128**
# seeded by SplitMix64, a die of n faces by Lemire's multiply-and-reject, and injected
# faces in its place (`draw`). Declarations and inline code only: a kernel module that
# cimports it gets the code compiled in, with no module to import at run time. What
# Python calls (seeding, raw words, dice) is generator.pyx.

from libc.stdint cimport uint32_t, uint64_t, int32_t, int64_t

from _layout cimport E_ROLLS_SHORT, E_ROLL_RANGE


cdef extern from *:
    """
    /* Lemire's rejection (draw_gen) is rare: a first word below n, n / 2^32 of draws. A
       module built with FRACAS_REJECTION_RARE (setup.py: the strike-row kernel) tells the
       C compiler so, which lays the rejection loop out of the hot dice loop; the other
       modules keep the plain test (with the hint their loops measured slower). */
    #if defined(FRACAS_REJECTION_RARE) && (defined(__GNUC__) || defined(__clang__))
    #define FRACAS_REJECTION(x) __builtin_expect(!!(x), 0)
    #else
    #define FRACAS_REJECTION(x) (x)
    #endif
    """
    bint rejection "FRACAS_REJECTION"(bint) noexcept nogil


cdef struct Dice:
    uint32_t s0
    uint32_t s1
    uint32_t s2
    uint32_t s3
    const int32_t* rolls     # NULL: draw from the generator
    int64_t n_rolls
    int64_t pos
    int64_t strike
    int error
    int64_t error_pos
    int error_faces


cdef inline uint32_t next32(Dice* d) noexcept nogil:
    cdef uint32_t s1 = d.s1
    cdef uint32_t x = s1 * 5u
    cdef uint32_t result = ((x << 7) | (x >> 25)) * 9u
    cdef uint32_t t = s1 << 9
    d.s2 ^= d.s0
    d.s3 ^= d.s1
    d.s1 ^= d.s2
    d.s0 ^= d.s3
    d.s2 ^= t
    d.s3 = (d.s3 << 11) | (d.s3 >> 21)
    return result


cdef inline int draw_gen(Dice* d, uint32_t n) noexcept nogil:
    """One face 1..n from the generator (never injected rolls): the bulk fast path."""
    cdef uint64_t m = <uint64_t>next32(d) * n
    cdef uint32_t low = <uint32_t>m
    cdef uint32_t threshold
    if rejection(low < n):
        threshold = (0u - n) % n
        while low < threshold:
            m = <uint64_t>next32(d) * n
            low = <uint32_t>m
    return <int>(m >> 32) + 1


cdef inline int draw(Dice* d, uint32_t n) noexcept nogil:
    """One face 1..n, or 0 with d.error set (injected rolls short or out of range)."""
    cdef int32_t face
    if d.rolls != NULL:
        if d.pos >= d.n_rolls:
            d.error = E_ROLLS_SHORT
            d.error_pos = d.pos
            return 0
        face = d.rolls[d.pos]
        if face < 1 or face > <int32_t>n:
            d.error = E_ROLL_RANGE
            d.error_pos = d.pos
            d.error_faces = <int>n
            return 0
        d.pos += 1
        return face
    return draw_gen(d, n)


cdef inline uint64_t splitmix64(uint64_t* state) noexcept nogil:
    state[0] += <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


# The generator words of the stream at `seed` (fracas.rng.seed_state): two SplitMix64
# outputs, low word first.
cdef inline void seed_words(Dice* d, uint64_t seed) noexcept nogil:
    cdef uint64_t sm = seed
    cdef uint64_t o1 = splitmix64(&sm)
    cdef uint64_t o2 = splitmix64(&sm)
    d.s0 = <uint32_t>o1
    d.s1 = <uint32_t>(o1 >> 32)
    d.s2 = <uint32_t>o2
    d.s3 = <uint32_t>(o2 >> 32)


# A generator stream at `seed` (fracas.rng.seed_state), with no injected faces.
cdef inline void seed_dice(Dice* d, uint64_t seed) noexcept nogil:
    seed_words(d, seed)
    d.rolls = NULL
    d.n_rolls = 0
    d.pos = 0
    d.error = 0
    d.error_pos = -1
    d.error_faces = 0
    d.strike = -1


cdef inline void load_state(Dice* d, uint32_t[::1] state) noexcept nogil:
    d.s0 = state[0]
    d.s1 = state[1]
    d.s2 = state[2]
    d.s3 = state[3]


cdef inline void store_state(Dice* d, uint32_t[::1] state) noexcept nogil:
    state[0] = d.s0
    state[1] = d.s1
    state[2] = d.s2
    state[3] = d.s3


cdef inline void start_dice(Dice* d, uint32_t[::1] state, const int32_t[::1] rolls, int64_t pos,
                     const void* empty) noexcept:
    """A stream at `state`: from the generator (`rolls` None), or injected faces from `pos`.
    An empty list is injected too (its first draw is an error): `empty` is then its
    non-NULL pointer."""
    load_state(d, state)
    if rolls is None:
        d.rolls = NULL
        d.n_rolls = 0
    else:
        d.rolls = &rolls[0] if rolls.shape[0] else <const int32_t*>empty
        d.n_rolls = rolls.shape[0]
    d.pos = pos
    d.error = 0
    d.error_pos = -1
    d.strike = -1
