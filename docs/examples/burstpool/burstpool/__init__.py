"""A burst pool: d6 dice, each 5 or 6 a success, each 6 bursting into one more die (rules.md,
BP-1 … BP-3). The guide's example of a compiled ruleset (docs/ADDING_A_RULESET.md, "A compiled
kernel"): a ruleset on the generic path (`fracas.rulesets.generic.StrikeRuleset`, as
docs/examples/wilddie) whose hot loop, the bulk chunk, is a Cython kernel (`_kernel.pyx`) on
fracas's dice, cimported from `fracas_dice.pxd`, with its pure-Python twin here.

Which one rolls follows fracas's backend: the kernel when the compiled core is active, the
twin on the pure-Python kernels (FRACAS_PUREPYTHON=1), or when the kernel was not built. Both
draw the same faces in the same order from the same stream (rules.md "Draw order"), so a seed
gives one result on either, and a result's `backend` says which rolled.
"""

from __future__ import annotations

from array import array
from typing import Any, NamedTuple, Optional

import msgspec

import fracas
from fracas.dice import Dice
from fracas.errors import SchemaError
from fracas.requests import check_range
from fracas.rulesets import generic, results, rows
from fracas.rulesets.manifest import own

try:
    from . import _kernel
except ImportError:  # built without a C compiler: the twin rolls
    _kernel = None  # type: ignore[assignment]

MANIFEST = own(__name__)  # this folder's manifest.toml, checked
NAME = MANIFEST.name
FACES, HIT_ON, MOST_DICE, MOST_BURSTS = (MANIFEST.constants[k] for k in
                                         ("bp_faces", "bp_hit_on", "bp_most_dice", "bp_most_bursts"))


# -- its requests ---------------------------------------------------------------------------------

class Attacker(msgspec.Struct, forbid_unknown_fields=True):
    extra: int = 0


class Strike(msgspec.Struct, forbid_unknown_fields=True):
    dice: int
    target: str = ""  # a bulk profile's strikes take theirs from the `attacks` entry


class Target(msgspec.Struct, forbid_unknown_fields=True):
    soak: int = 0


AttackRequest, Profile, Group, BulkRequest = rows.request_types(__name__, NAME, Attacker, Strike, Target)


# -- its results ----------------------------------------------------------------------------------

class StrikeResult(results.Shape):
    """One strike (what roll_strike returns): the faces in draw order, successes, bursts."""

    target: str
    faces: list[int]
    successes: results.Count
    bursts: results.Count
    hit: bool
    damage: results.Count


# -- its rules: the kernel or its twin -------------------------------------------------------------

def compiled() -> bool:
    """Whether the kernel rolls: it is built and fracas's compiled core is active."""
    return _kernel is not None and bool(fracas.backend == "compiled")


def burst(dice: Dice, count: int) -> list[int]:
    """BP-1 in Python (the kernel's twin): the pool's faces in draw order, then its bursts."""
    faces, left, bursts = [], count, 0
    while left:
        face = dice.die(FACES)
        faces.append(face)
        left -= 1
        if face == FACES and bursts < MOST_BURSTS:
            bursts, left = bursts + 1, left + 1
    return faces


def pool_faces(dice: Dice, count: int) -> list[int]:
    """BP-1's faces from the kernel (on the stream's own state and injected faces) or the twin."""
    if compiled() and isinstance(dice.state, array):
        faces, dice.pos = _kernel.strike(dice.state, dice.rolls, dice.pos, count, MOST_BURSTS)
        return faces
    return burst(dice, count)


class Compiled(NamedTuple):
    """A compiled strike: read by roll_strike and the bulk kernel, never changed."""

    target: str
    dice: int
    soak: int


class Attack(generic.AttackResult):
    """An attack's result, saying which rolled it: "compiled" (the kernel) or "python" (the twin)."""

    __slots__ = ("backend",)
    backend: str

    def to_dict(self) -> dict[str, Any]:
        return dict(super().to_dict(), backend=self.backend)


class Bulk(generic.BulkResult):
    """A bulk request's result, saying which rolled it."""

    __slots__ = ("backend",)
    backend: str

    def to_dict(self) -> dict[str, Any]:
        return dict(super().to_dict(), backend=self.backend)


class BurstJob(generic.BulkJob):
    """A bulk request: each chunk rolled by the kernel, with the GIL released (or by the twin,
    through roll_strike, as generic.BulkJob rolls it)."""

    _arrays: Optional[tuple[array[int], array[int], array[int], array[int]]] = None

    @property
    def gil_free(self) -> bool:  # type: ignore[override]
        return compiled()

    def kernel_arrays(self) -> tuple[array[int], array[int], array[int], array[int]]:
        """(plans, target index, groups, running counts) as the kernel reads them; made once."""
        if self._arrays is None:
            plans = array("i", [n for s in self.strikes for n in (s.plan.dice, s.plan.soak)])
            self._arrays = (plans, array("i", self.index), self.groups, array("q", rows.group_index(self.groups)))
        return self._arrays

    def roll_chunk(self, totals: Any, state: array[int], first: int, count: int) -> None:
        if not compiled():
            return super().roll_chunk(totals, state, first, count)
        acc_t, acc_g = totals
        marks = array("q", [-1]) * (2 * len(self.targets))
        hist_bins = len(acc_g) // len(self.group_info) - 2
        _kernel.roll_chunk(*self.kernel_arrays(), acc_t, acc_g, marks, state, first, count, MOST_BURSTS, HIT_ON,
                           hist_bins)

    def result(self, totals: Any, seed: int, threads: int, listed: Any) -> Bulk:
        rolled = Bulk(self, seed, totals, listed)
        rolled.backend = "compiled" if compiled() else "python"  # what rolled it, just now
        return rolled


class BurstPool(generic.StrikeRuleset):
    name = NAME
    largest_die = FACES
    attack_rule = "BP-1"
    target_type = Target
    profile_type = Profile
    request_types = {"attack": AttackRequest, "bulk": BulkRequest}
    result_types = results.strike_result_types(__name__, StrikeResult)
    bulk_job_type = BurstJob

    def check_target(self, target: Target, path: str) -> Target:
        check_range(target.soak, 0, MOST_DICE, f"{path}.soak", "soak")
        return target

    def compile_strike(self, strike: Strike, path: str, attacker: Attacker, attacker_path: str,
                       target: Target, target_path: str) -> Compiled:
        dice = strike.dice + attacker.extra
        if not 1 <= dice <= MOST_DICE:
            raise SchemaError(f"{path}.dice", MANIFEST.say("bp_dice_range", dice=dice, most=MOST_DICE))
        return Compiled(strike.target, dice, target.soak)

    def roll_strike(self, plan: Compiled, dice: Dice) -> dict[str, Any]:
        faces = pool_faces(dice, plan.dice)                             # BP-1
        successes = sum(1 for face in faces if face >= HIT_ON)
        damage = max(0, successes - plan.soak)                          # BP-2
        return {"target": plan.target, "faces": faces, "successes": successes,
                "bursts": len(faces) - plan.dice, "hit": successes > 0, "damage": damage}

    def roll_attack(self, plan: generic.Plan, dice: Dice, seed: int) -> Attack:
        backend = "compiled" if compiled() else "python"
        rolled = super().roll_attack(plan, dice, seed)
        attack = Attack(plan, seed, rolled.injected, rolled.strikes)
        attack.backend = backend
        return attack

    def fight_initiative(self, setup: Any, actors: list[Any], sides: list[str], round_: int, dice: Any,
                         seed: int) -> tuple[list[list[str]], dict[str, Any]]:
        """BP-3 every round: d6 + initiative, highest first, ties in standing order."""
        rolled = [(dice.die(FACES) + actor.initiative, i, actor.id) for i, actor in enumerate(actors)]
        order = sorted(rolled, key=lambda entry: (-entry[0], entry[1]))
        return [[actor_id] for _total, _i, actor_id in order], {
            "ruleset": NAME, "order": [{"id": actor_id, "total": total} for total, _i, actor_id in order]}


def roll_pools(stream: Any, dice: int, count: int) -> list[int]:
    """`count` bare pools of `dice` d6 (BP-1), their successes, from a stream: a
    `fracas.dice.stream(...)` (the kernel draws through its capsule) or a `fracas.dice.Dice`
    (the twin). Either way the stream goes on where the pools left it."""
    if not 1 <= dice <= MOST_DICE:
        raise SchemaError("$.dice", MANIFEST.say("bp_dice_range", dice=dice, most=MOST_DICE))
    if _kernel is not None and hasattr(stream, "capsule"):
        pools: list[int] = _kernel.pools(stream, dice, count, MOST_BURSTS, HIT_ON)
        return pools
    return [sum(1 for face in burst(stream, dice) if face >= HIT_ON) for _ in range(count)]


def roll_row_pools(stream: Any, dice: int, count: int) -> list[int]:
    """`count` pools of `dice` d6 rolled by fracas's row kernel (a success-counting row: each
    die at HIT_ON or more one success, a 6 one more die within fracas's CT-3 bound), each
    burst one success more (the twist): the compiled kernel calls the row kernel through
    fracas_rows.pxd on a `fracas.dice.stream(...)`'s capsule; the twin draws the same faces
    from a `fracas.dice.Dice` in the row kernel's order (the pool's dice, then its bursts)."""
    if not 1 <= dice <= MOST_DICE:
        raise SchemaError("$.dice", MANIFEST.say("bp_dice_range", dice=dice, most=MOST_DICE))
    if _kernel is not None and hasattr(stream, "capsule"):
        pools: list[int] = _kernel.row_pools(stream, dice, count, HIT_ON)
        return pools
    out = []
    for _ in range(count):
        pending, bursts, successes = dice, 0, 0
        while pending:
            face = stream.die(6)
            successes += face >= HIT_ON
            pending -= 1
            if face == 6 and bursts < rows.EXPLODE_LIMIT:  # where the row kernel stops
                pending += 1
                bursts += 1
        out.append(successes + bursts)
    return out


BURST_POOL = BurstPool()
