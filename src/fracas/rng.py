"""The dice generator: xoshiro128** seeded by SplitMix64, Lemire's unbiased dice.

This is the reference the compiled core and the JavaScript resolver are checked
against; `docs/ENGINE.md` section 1 states it in words. The state is a list of four
32-bit words so that a kernel can hand it back and forth as a buffer.
"""

from __future__ import annotations

import os
import struct
from collections import deque

MASK32 = 0xFFFFFFFF
MASK64 = 0xFFFFFFFFFFFFFFFF
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
CHUNK_MULTIPLIER = 0xD6E8FEB86659FD93
SEED_LIMIT = 1 << 64


def splitmix64_next(state: int) -> tuple[int, int]:
    """Advance a SplitMix64 state; return (new_state, output)."""
    state = (state + GOLDEN_GAMMA) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def seed_state(seed: int) -> list[int]:
    """The xoshiro128** state for a 64-bit seed (two SplitMix64 outputs, low word first)."""
    if not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"seed must be 0 <= seed < 2**64, got {seed}")
    sm, o1 = splitmix64_next(seed)
    sm, o2 = splitmix64_next(sm)
    return [o1 & MASK32, o1 >> 32, o2 & MASK32, o2 >> 32]


def chunk_seed(seed: int, chunk: int) -> int:
    """The seed of bulk chunk `chunk` (chunk 0 is the request's own seed)."""
    if chunk == 0:
        return seed
    _, out = splitmix64_next(seed ^ ((chunk * CHUNK_MULTIPLIER) & MASK64))
    return out


#: Seeds drawn from the operating system in blocks of SEED_BLOCK (one `os.urandom` call for
#: 256 requests instead of one each: 0.1 µs a seed against 0.9, on the single-attack path every
#: VTT call takes). `deque.pop` and `extend` are atomic, so threads share the block without a
#: lock (two that find it empty both refill it); a forked child starts with an empty block,
#: so parent and child never hand out the same seeds.
SEED_BLOCK = 256
_seeds: deque[int] = deque()
_unpack_block = struct.Struct(f"<{SEED_BLOCK}Q").unpack
if hasattr(os, "register_at_fork"):  # POSIX; Windows has no fork
    os.register_at_fork(after_in_child=_seeds.clear)


def new_seed() -> int:
    """A fresh 64-bit seed from the operating system (drawn SEED_BLOCK at a time)."""
    try:
        return _seeds.pop()
    except IndexError:
        _seeds.extend(_unpack_block(os.urandom(8 * SEED_BLOCK)))
        return _seeds.pop()


class Xoshiro128:
    """xoshiro128** over a mutable four-word state (shared with the caller)."""

    __slots__ = ("s",)

    def __init__(self, state: list[int]):
        self.s = state

    @classmethod
    def from_seed(cls, seed: int) -> "Xoshiro128":
        return cls(seed_state(seed))

    def next32(self) -> int:
        s = self.s
        s0, s1, s2, s3 = s
        x = (s1 * 5) & MASK32
        result = ((((x << 7) | (x >> 25)) & MASK32) * 9) & MASK32
        t = (s1 << 9) & MASK32
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 11) | (s3 >> 21)) & MASK32
        s[0], s[1], s[2], s[3] = s0, s1, s2, s3
        return result

    def die(self, faces: int) -> int:
        """One die of `faces` faces, 1..faces, by Lemire's multiply-and-reject."""
        m = self.next32() * faces
        low = m & MASK32
        if low < faces:
            threshold = ((1 << 32) - faces) % faces
            while low < threshold:
                m = self.next32() * faces
                low = m & MASK32
        return (m >> 32) + 1
