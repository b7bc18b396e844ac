"""One request of one kind, rolled: the ruleset → its kind → decode → seed and faces →
compile → roll → no face left over.

It lives in the rulesets' layer, below the drive (issue 45 item 5: core ← rulesets ←
drive ← the `fracas` facade ← cli/bridge), so a ruleset's own commands (`Kind.command`,
through `fracas.rulesets.cmdkit`) roll their kinds without calling up into `fracas` or
`fracas.drive`. The drive builds on the same pieces (`prepare`, `finish`, `pick_seed`):
what it adds is the plan cache of single attacks, bulk requests and their threads, and
the encounters and fights; the rolls are the same dice from the same seed either way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ..dice import Dice
from ..errors import DiceError, SchemaError
from ..requests import check_rolls, check_seed, faces, parse_json, say
from ..rng import new_seed
from . import for_request

if TYPE_CHECKING:
    from array import array

    from .base import Result, Ruleset


def pick_seed(request_seed: Optional[int], seed: Optional[int]) -> Optional[int]:
    """The caller's seed wins over the request's; both are checked (a typo is still a typo)."""
    check_seed(request_seed)
    return check_seed(seed, "seed") if seed is not None else request_seed


def prepare(kind: str, request: Any, seed: Optional[int]) -> tuple["Ruleset", Any, Any, Optional[int],
                                                                   Optional["array[int]"]]:
    """A decoded request (a mapping or a typed request) of a rolled kind, checked and compiled:
    (its ruleset, the ruleset's bound kind, the plan, the seed to roll from (None: draw one),
    the injected faces). A ruleset without `kind` is a `RulesError` at `$.ruleset`; a bulk
    kind is refused at `$` (its jobs are rolled by `fracas.resolve_bulk`)."""
    ruleset = for_request(request)
    bound = ruleset.kind(kind)
    if bound.roll is None:  # a bulk kind: its jobs are rolled by resolve_bulk
        raise SchemaError("$", f"a {kind} request goes to fracas.{bound.kind.call}")
    typed = bound.decode(request)
    seed = pick_seed(typed.seed, seed)
    rolls = check_rolls(typed.rolls, ruleset.largest_die)
    return ruleset, bound, bound.compile(typed), seed, rolls


def finish(bound: Any, plan: Any, seed: Optional[int], rolls: Optional["array[int]"]) -> Any:
    """Roll a compiled plan from `seed` (drawn from the OS when None) and the injected
    faces; faces the plan did not use are a `DiceError` at `$.rolls`."""
    if seed is None:
        seed = new_seed()
    dice = Dice.from_seed(seed, rolls)
    result = bound.roll(plan, dice, seed)
    if rolls is not None and dice.pos < len(rolls):
        raise DiceError("$.rolls", say("rolls_left_over", given=faces(len(rolls)), what=bound.kind.what,
                                       used=dice.pos))
    return result


def roll(kind: str, request: Any, *, seed: Optional[int] = None) -> "Result":
    """Roll a request of `kind` (a mapping, JSON text or bytes, or a typed request): the
    result `fracas.roll(kind, request, seed=seed)` gives for the same request and seed
    (without the drive's plan cache, which changes no die)."""
    _ruleset, bound, plan, seed, rolls = prepare(kind, parse_json(request), seed)
    result: Result = finish(bound, plan, seed, rolls)
    return result
