"""The generator: known answers (DESIGN.md, docs/ENGINE.md §1) and fair dice."""

from array import array

import pytest
from scipy import stats

from fracas import _kernels
from fracas.rng import Xoshiro128, chunk_seed, seed_state, splitmix64_next

ALPHA = 1e-6  # false-alarm rate of each fairness test; fixed seeds make the outcome fixed


def test_splitmix64_reference_output():
    # SplitMix64 from state 0: the published first output.
    assert splitmix64_next(0)[1] == 0xE220A8397B1DCDAF


def test_seed_state_and_first_words():
    assert seed_state(0) == [0x7B1DCDAF, 0xE220A839, 0xA1B965F4, 0x6E789E6A]
    gen = Xoshiro128.from_seed(0)
    assert [gen.next32() for _ in range(4)] == [0xDEC9045D, 0x9A089D75, 0xAB77D362, 0xC3E16405]


def test_seed_42_faces():
    gen = Xoshiro128.from_seed(42)
    assert [gen.die(20) for _ in range(10)] == [9, 20, 1, 11, 14, 12, 14, 11, 17, 14]
    assert [gen.die(3) for _ in range(5)] == [3, 1, 3, 2, 1]


def test_seed_bounds():
    seed_state(2**64 - 1)
    with pytest.raises(ValueError):
        seed_state(2**64)
    with pytest.raises(ValueError):
        seed_state(-1)


def test_chunk_zero_is_the_request_seed_and_chunks_differ():
    assert chunk_seed(99, 0) == 99
    seeds = {chunk_seed(99, k) for k in range(1000)}
    assert len(seeds) == 1000


@pytest.mark.parametrize("backend", _kernels.available())
def test_kernel_faces_match_the_reference(backend):
    with _kernels.using(backend):
        kernel = _kernels.active()
        for faces in (3, 6, 20, 100, 2**21):
            state = array("I", seed_state(1234))
            out = array("i", bytes(4 * 500))
            kernel.draw_faces(state, faces, out)
            gen = Xoshiro128.from_seed(1234)
            assert list(out) == [gen.die(faces) for _ in range(500)]
            assert list(state) == gen.s


@pytest.mark.parametrize("faces, seed", [(20, 2026), (3, 1122)])
def test_dice_are_fair_chi_square(faces, seed):
    """10^6 seeded faces: chi-square against uniform at a fixed false-alarm rate of 1e-6."""
    state = array("I", seed_state(seed))
    out = array("i", bytes(4 * 10**6))
    _kernels.active().draw_faces(state, faces, out)
    counts = [0] * (faces + 1)
    for face in out:
        counts[face] += 1
    assert counts[0] == 0 and sum(counts) == 10**6
    _, p = stats.chisquare(counts[1:])
    assert p > ALPHA


@pytest.mark.parametrize("backend", _kernels.available())
def test_lemire_rejection_path_is_taken_and_matches(backend):
    """n = 2^20 + 1 rejects about one word in 4096: the redraw path runs and agrees everywhere."""
    faces, draws = 2**20 + 1, 50_000

    class Counting(Xoshiro128):
        words = 0

        def next32(self):
            Counting.words += 1
            return super().next32()

    gen = Counting(seed_state(77))
    expected = [gen.die(faces) for _ in range(draws)]
    assert Counting.words > draws  # some words were rejected and redrawn
    with _kernels.using(backend):
        state = array("I", seed_state(77))
        out = array("i", bytes(4 * draws))
        _kernels.active().draw_faces(state, faces, out)
    assert list(out) == expected


@pytest.mark.parametrize("backend", _kernels.available())
def test_one_die_matches_the_reference_and_advances_the_state(backend):
    """`die` (the follow-up dice of ER-13/ER-17/ER-21 on the compiled core, docs/ENGINE.md §2):
    one face at a time, the same faces and the same state as the reference generator,
    through the rejection path too (n = 2^20 + 1 rejects about one word in 4096)."""
    from fracas.dice import Dice

    for faces in (3, 20, 2**20 + 1):
        gen = Xoshiro128.from_seed(5)
        with _kernels.using(backend):
            dice = Dice.from_seed(5)
            got = [dice.die(faces) for _ in range(10_000)]
            state = array("I", seed_state(5))
            one = [_kernels.active().die(state, faces) for _ in range(100)]
        expected = [gen.die(faces) for _ in range(10_000)]
        assert got == expected
        assert list(dice.state) == gen.s
        assert one == expected[:100]
    with _kernels.using(backend), pytest.raises(ValueError, match="faces"):
        _kernels.active().die(array("I", seed_state(5)), 0)
