"""Resolve Enchanted Realms attacks: parse → validate → plan → roll → aggregate.

The public entry point is `resolve()`; the rolling itself is one call into the
active kernel backend (`_kernels.active()`), the compiled core or its pure-Python twin.
"""

from __future__ import annotations

from array import array
from typing import Any, Optional

from . import _kernels
from . import _layout as L
from ._native import _Dice, _KernelError
from .errors import DiceError, LimitError, SchemaError
from .plan import (
    MAX_STRIKES, TargetInfo, check_attacker, faces, check_rolls, check_ruleset, check_seed,
    check_targets, compile_strike,
)
from .result import AttackResult, ShockSave
from .rng import new_seed, seed_state
from .schema import AttackRequest, Target, convert_mapping, decode, parse_json

_LOG_PER_STRIKE = 8 + 16  # a full pool and a chain of 8 crit dice; longer chains retry


def kernel_error(code: int, where: int, position: int, rolls: Optional[array],
                 strike_path: str = "$.strikes") -> Exception:
    """The user-facing error for a kernel error code."""
    if code == L.E_ROLLS_SHORT:
        return DiceError("$.rolls", f"{faces(len(rolls))} given, but {strike_path}[{where}] needs "
                         f"another die (position {position} in draw order)")
    if code == L.E_ROLL_RANGE:
        return DiceError(f"$.rolls[{position}]", f"face {rolls[position]} is out of range for "
                         f"the d3 that {strike_path}[{where}] draws there (1 to 3)")
    if code == L.E_CHAIN_LIMIT:
        return LimitError(f"{strike_path}[{where}]", f"crit chain reached {L.CHAIN_LIMIT} crit dice; "
                          "stopped at the engine's safety cap (ER-8)")
    return RuntimeError(f"kernel error {code}")


def _is_bulk(request: Any) -> bool:
    return isinstance(request, dict) and "attacks" in request


def resolve(request: Any, *, seed: Optional[int] = None):
    """Resolve one ER attack (or, when the request has `attacks`, a bulk request).

    `request` is a mapping, a JSON str/bytes or an `AttackRequest`. `seed` wins over
    the request's own; with neither, one is drawn from the OS. Raises a
    `RequestError` subclass naming the field path for anything invalid or impossible.
    """
    request = parse_json(request)
    if _is_bulk(request):
        from .bulk import resolve_bulk

        return resolve_bulk(request, seed=seed)
    req: AttackRequest = decode(request, AttackRequest)
    check_ruleset(req.ruleset)
    check_seed(req.seed)
    seed = check_seed(seed, "seed") if seed is not None else req.seed
    rolls = check_rolls(req.rolls)
    conditions = check_attacker(req.attacker, "$.attacker")
    targets = check_targets(convert_mapping(req.targets, Target, "$.targets"))
    if not req.strikes:
        raise SchemaError("$.strikes", "no strikes: an attack needs at least one (ER-1)")
    if len(req.strikes) > MAX_STRIKES:
        raise LimitError("$.strikes", f"{len(req.strikes)} strikes, the most is {MAX_STRIKES}")
    plan = array("i")
    metas = []
    for i, strike in enumerate(req.strikes):
        path = f"$.strikes[{i}]"
        target = targets.get(strike.target)
        if target is None:
            raise SchemaError(f"{path}.target", f"unknown target {strike.target!r} "
                              f"(targets: {', '.join(targets)})")
        row, meta = compile_strike(strike, path, req.attacker, "$.attacker", conditions, target,
                                   req.advantage, req.disadvantage)
        plan.extend(row)
        metas.append(meta)
    if seed is None:
        seed = new_seed()
    return _roll(plan, metas, targets, seed, rolls, req.ruleset)


def _roll(plan: array, metas: list, targets: dict[str, TargetInfo], seed: int,
          rolls: Optional[array], ruleset: str) -> AttackResult:
    kernel = _kernels.active()
    n = len(metas)
    groups = array("q", (0, n, 1))
    capacity = n * _LOG_PER_STRIKE
    while True:
        state = array("I", seed_state(seed))
        out = array("q", bytes(8 * n * L.OUT_WIDTH))
        log = array("i", bytes(4 * 2 * capacity))
        info = array("q", (0, 0, 0, 0))
        err = kernel.roll_detail(plan, groups, len(targets), 0, 1, state, rolls, out, log, info)
        if err != L.E_LOG_FULL:
            break
        capacity *= 4
    if err:
        raise kernel_error(err, info[2], info[3], rolls)
    shock = _follow_ups(metas, targets, out, state, rolls, info)
    if rolls is not None and info[0] < len(rolls):
        raise DiceError("$.rolls", f"{faces(len(rolls))} given, but the attack used only {info[0]}: "
                        "remove the extra faces")
    return AttackResult(seed, ruleset, kernel.BACKEND, rolls is not None, metas, targets, out, log, shock)


def _follow_ups(metas, targets: dict[str, TargetInfo], out, state, rolls, info) -> dict[str, ShockSave]:
    """ER-13 shock saves, target by target in request order (docs/ENGINE.md §2, D-5)."""
    sneak_damage: dict[str, int] = {}
    for s, meta in enumerate(metas):
        if meta.sneak is not False:
            sneak_damage[meta.target] = sneak_damage.get(meta.target, 0) + out[s * L.OUT_WIDTH + L.O_DAMAGE]
    shock: dict[str, ShockSave] = {}
    if not sneak_damage:
        return shock
    dice = _Dice(state, rolls, info[0])
    for tid, target in targets.items():
        damage = sneak_damage.get(tid, 0)
        body_max = target.spec.body_max
        if body_max is None or damage <= 0 or 2 * damage < body_max:
            continue
        save = ShockSave(dc=5 + damage)
        if target.spec.save_bonus is not None:
            try:
                save.roll = dice.die(20)
                save.total = save.roll + target.spec.save_bonus
                save.passed = save.total >= save.dc
                if not save.passed:
                    save.incapacitated_actions = dice.die(3)
            except _KernelError as exc:
                raise _follow_up_error(exc, rolls, target) from None
        shock[tid] = save
    info[0] = dice.pos
    return shock


def _follow_up_error(exc: _KernelError, rolls, target: TargetInfo) -> DiceError:
    if exc.code == L.E_ROLLS_SHORT:
        return DiceError("$.rolls", f"{faces(len(rolls))} given, but the shock save of "
                         f"{target.path} needs another die (position {exc.position} in draw order)")
    return DiceError(f"$.rolls[{exc.position}]", f"face {rolls[exc.position]} is out of range for "
                     f"the d3 of {target.path}'s failed shock save (1 to 3)")
