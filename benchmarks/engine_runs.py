"""fracas itself as a contestant: the public API, the bare kernels, the generator.

- `api(scenario, backend, threads)`: `fracas.resolve_bulk` in summary mode, the
  whole path a user takes (request validation, plan, chunks, kernel, result).
- `kernel(scenario, module)`: one `roll_summary` call over the scenario's plan rows,
  no request handling at all: what the kernel alone does.
- `generator(words_per_attack)`: xoshiro128** words and nothing else, counted in
  the attacks those words would feed: the physical limit.
"""

from __future__ import annotations

from array import array
from typing import Callable

import fracas
from fracas import _kernels
from fracas import _layout as L
from fracas.rng import seed_state

from .scenarios import Scenario
from .tally import Tally


def api(scenario: Scenario, backend: str | None = None, threads: int = 1) -> Callable[[int, int], Tally]:
    """`n` attacks of `scenario` through `fracas.resolve_bulk`.

    With `backend` None the active backend runs and nothing is switched per call
    (the scaling table times calls of 10 attacks, where a switch would show).
    """

    def bulk(n: int, seed: int) -> Tally:
        result = fracas.resolve_bulk(scenario.bulk_request(n), seed=seed, threads=threads)
        summary = result.to_dict()
        return Tally(n, summary["total_damage"], summary["groups"][0]["attacks_hit"])

    if backend is None:
        return bulk

    def run(n: int, seed: int) -> Tally:
        with _kernels.using(backend):
            return bulk(n, seed)

    return run


def kernel(scenario: Scenario, module=None) -> Callable[[int, int], Tally]:
    """`n` attacks of `scenario` in one bare `roll_summary` call of `module`."""
    module = module if module is not None else _kernels.compiled
    plan = scenario.plan()
    n_targets = scenario.n_targets

    def run(n: int, seed: int) -> Tally:
        state = array("I", seed_state(seed))
        targets = array("q", bytes(8 * n_targets * L.T_WIDTH))
        by_type = array("q", bytes(8 * n_targets * L.N_TYPES))
        groups_acc = array("q", bytes(8 * (L.G_WIDTH + L.HIST_BINS)))
        info = array("q", bytes(8 * L.INFO_WIDTH))
        err = module.roll_summary(plan, scenario.groups(n), n_targets, 0, n, state,
                                  targets, by_type, groups_acc, info)
        if err:
            raise RuntimeError(f"kernel error {err} in the benchmark plan")
        return Tally(n, groups_acc[L.G_DAMAGE], groups_acc[L.G_ATTACKS_HIT])

    return run


def generator(words_per_attack: float, module=None) -> Callable[[int, int], int]:
    """Draw the words `n` attacks would need (`n * words_per_attack`), nothing else."""
    module = module if module is not None else _kernels.compiled

    def run(n: int, seed: int) -> int:
        state = array("I", seed_state(seed))
        return module.generator_words(state, max(1, round(n * words_per_attack)))

    return run


def _lane_states(seed: int):
    from fracas.rng import chunk_seed

    return array("I", [word for k in range(_kernels.compiled.LANES) for word in seed_state(chunk_seed(seed, k))])


def generator_lanes(words_per_attack: float) -> Callable[[int, int], int]:
    """The words `n` attacks would need, drawn by the lane kernel's eight generators side by
    side (`lanes_words`: the same vectors and instruction set as the kernel), nothing else."""
    lanes = _kernels.compiled.LANES

    def run(n: int, seed: int) -> int:
        return _kernels.compiled.lanes_words(_lane_states(seed), max(1, round(n * words_per_attack / lanes)))

    return run


def draws_lanes(scenario: Scenario) -> Callable[[int, int], int]:
    """`n` attacks as the lane kernel's draws alone (`lanes_draws`): the strike's d20s, then
    the crit chain's dice masked to the lanes that crit, exactly the words the kernel takes
    (a test checks each lane ends where the kernel leaves it), and nothing computed from
    them: the floor of any kernel that keeps fracas's draw order."""
    lanes = _kernels.compiled.LANES
    plan = scenario.plan()
    pool = plan[L.P_SKILL] + plan[L.P_ADV] + plan[L.P_SNEAK]
    hmask = _hit_mask(plan)
    # ER-8, as the kernel's crit table (_er.pxd crit_mask): the crit faces that hit.
    cmask = 0 if plan[L.P_CRIT] == 0 or plan[L.P_DISADV] else \
        sum(1 << face for face in range(plan[L.P_CRIT], 21)) & hmask

    def run(n: int, seed: int) -> int:
        return _kernels.compiled.lanes_draws(_lane_states(seed), max(1, -(-n // lanes)), pool, hmask, cmask)

    return run


def _hit_mask(plan) -> int:
    """ER-6, as the kernel's hit table (_er.pxd hit_mask): a natural 20 always, 1 never."""
    return (1 << 20) | sum(1 << face for face in range(2, 20) if face + plan[L.P_TO_HIT] >= plan[L.P_AC])


def dice_lanes(scenario: Scenario) -> Callable[[int, int], int]:
    """`n` attacks as the bare eight-lane loop the kernel starts with: the strike's pool of d20s
    (drawn as the kernel draws them) and a count of the dice that hit; no crit chain, no damage."""
    lanes = _kernels.compiled.LANES
    plan = scenario.plan()
    pool = plan[L.P_SKILL] + plan[L.P_ADV] + plan[L.P_SNEAK]
    hmask = _hit_mask(plan)

    def run(n: int, seed: int) -> int:
        return _kernels.compiled.lanes_dice(_lane_states(seed), max(1, -(-n // lanes)), pool, hmask)

    return run


def single(scenario: Scenario, as_json: bool = False, to_dict: bool = False,
           first: bool = False) -> Callable[[], object]:
    """One `fracas.resolve` call for one attack on the active backend.

    The request carries no seed, so each call draws one from the OS as a VTT macro's
    call does. `as_json` hands the request as JSON text; `to_dict` also builds the
    JSON-ready result; `first` forgets the compiled plans before each call, so every
    call checks and compiles the request as the first call of a new shape does.
    """
    request = scenario.single_request()
    if as_json:
        import orjson

        request = orjson.dumps(request).decode()
    resolve = fracas.resolve
    if first:
        from fracas.drive import clear_plan_cache

        return lambda: (clear_plan_cache(), resolve(request))
    if to_dict:
        return lambda: resolve(request).to_dict()
    return lambda: resolve(request)
