"""Seeds drawn in blocks (issue 44 item 3): each one fresh, none handed out twice, and a
forked child draws its own (never the parent's next seeds)."""

from __future__ import annotations

import os

import pytest

from fracas import rng


def test_seeds_are_64_bit_and_not_repeated_across_blocks():
    seeds = [rng.new_seed() for _ in range(3 * rng.SEED_BLOCK + 7)]
    assert all(0 <= seed < rng.SEED_LIMIT for seed in seeds)
    assert len(set(seeds)) == len(seeds)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_never_hands_out_the_parent_s_seeds():
    rng.new_seed()  # the parent holds a block now
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next seeds, to the parent
        try:
            os.write(write, b" ".join(str(rng.new_seed()).encode() for _ in range(8)))
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        child = {int(word) for word in pipe.read().split()}
    os.waitpid(pid, 0)
    parent = {rng.new_seed() for _ in range(8)}
    assert len(child) == 8 and not child & parent
