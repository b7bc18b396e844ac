# The generator's Python-facing functions (seeding, words, dice for `fracas.dice.Dice`) and
# the load/store of its state from the callers' uint32[4] buffers; the generator itself is
# _generator.pxd.


cdef void load_state(Dice* d, uint32_t[::1] state) noexcept nogil:
    d.s0 = state[0]
    d.s1 = state[1]
    d.s2 = state[2]
    d.s3 = state[3]


cdef void store_state(Dice* d, uint32_t[::1] state) noexcept nogil:
    state[0] = d.s0
    state[1] = d.s1
    state[2] = d.s2
    state[3] = d.s3


cdef void start_dice(Dice* d, uint32_t[::1] state, const int32_t[::1] rolls, int64_t pos,
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
