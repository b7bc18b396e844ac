"""The lane kernel's limits the bench measures beside it (issue 44 item 1): eight generators
side by side, and the bare loop of a strike's d20s. They are yardsticks, so they must draw
what the kernel draws: each lane the words and faces of its own stream, as the scalar
generator draws them (fracas.rng chunk streams)."""

from __future__ import annotations

from array import array

import pytest

from fracas import _kernels
from fracas.rng import chunk_seed, seed_state

core = _kernels.compiled
pytestmark = pytest.mark.skipif(core is None, reason="the compiled core is not built")


def _states(seed: int) -> array:
    return array("I", [word for k in range(core.LANES) for word in seed_state(chunk_seed(seed, k))])


def test_each_lane_draws_the_words_of_its_own_stream():
    states = _states(44)
    start = array("I", states)
    together = core.lanes_words(states, 1_003)
    expected = 0
    for k in range(core.LANES):
        lane = array("I", start[4 * k:4 * k + 4])
        expected ^= core.generator_words(lane, 1_003)
        assert list(states[4 * k:4 * k + 4]) == list(lane), f"lane {k} ends where its stream does"
    assert together == expected


def test_the_dice_loop_counts_the_hits_of_each_lane_s_own_faces():
    hits = (1 << 20) | sum(1 << face for face in range(12, 20))  # ER-6: 12+ hits, a natural 20 always
    states = _states(7)
    start = array("I", states)
    counted = core.lanes_dice(states, 501, 3, hits)
    expected = 0
    for k in range(core.LANES):
        lane = array("I", start[4 * k:4 * k + 4])
        faces = array("i", bytes(4 * 3 * 501))
        core.draw_faces(lane, 20, faces)
        expected += sum(1 for face in faces if hits >> face & 1)
        assert list(states[4 * k:4 * k + 4]) == list(lane)
    assert counted == expected


@pytest.mark.parametrize("crit_range", [20, 18, None])
def test_the_draws_floor_draws_exactly_what_the_kernel_draws(crit_range):
    """The bench's floor for the lane kernel (its draws alone, ER-6 hits, the ER-8 crit chain):
    each lane ends where roll_summary_lanes leaves it for the same strike, so the yardstick
    takes every die the kernel takes and none it does not."""
    from fracas import _layout as L
    from fracas.dice import kernel_info
    from fracas.rulesets.er.bulk import compile_bulk

    strike = {"method": "melee", "style": "slashing", "dice": 3, "weight": 1, "damage_type": "edged"}
    if crit_range is not None:
        strike["crit_range"] = crit_range
    count = 2_000
    job = compile_bulk({"profiles": {"p": {"attacker": {"strength": 2}, "strikes": [strike]}},
                        "targets": {"t": {"ac": 14}},
                        "attacks": [{"profile": "p", "target": "t", "count": count * core.LANES}]})
    row = [job.plan[job.groups[0] * L.PLAN_WIDTH + i] for i in range(L.PLAN_WIDTH)]
    hmask = (1 << 20) | sum(1 << face for face in range(2, 20) if face + row[L.P_TO_HIT] >= row[L.P_AC])
    cmask = 0 if row[L.P_CRIT] == 0 else sum(1 << face for face in range(row[L.P_CRIT], 21)) & hmask
    assert (cmask != 0) == (crit_range is not None or row[L.P_CRIT] != 0)
    kernel_states = _states(3)
    floor_states = array("I", kernel_states)
    totals = job.new_totals()
    assert core.roll_summary_lanes(job.plan, job.groups, 1, array("q", [count * k for k in range(core.LANES)]),
                                   array("q", [count] * core.LANES), kernel_states, *totals, kernel_info()) == 0
    core.lanes_draws(floor_states, count, 3, hmask, cmask)
    assert list(floor_states) == list(kernel_states)


@pytest.mark.parametrize("call", [
    lambda: core.lanes_words(array("I", [1] * 4), 10),
    lambda: core.lanes_words(_states(1), -1),
    lambda: core.lanes_dice(_states(1), 10, 65, 0),
    lambda: core.lanes_dice(array("I", [1] * 8), 10, 3, 0),
    lambda: core.lanes_draws(_states(1), 10, 65, 0, 0),
    lambda: core.lanes_draws(_states(1), -1, 3, 0, 0),
])
def test_wrong_arguments_are_refused(call):
    with pytest.raises(ValueError, match="takes"):
        call()
