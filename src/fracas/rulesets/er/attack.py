"""One Enchanted Realms attack: compile the request, roll it in a kernel, add follow-ups.

The rolling is one call into the active kernel backend (`_kernels.active()`), the
compiled core or its pure-Python twin; the follow-ups (ER-13 shock saves) draw
from the same stream afterwards (docs/ENGINE.md §2).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any, Optional

from ... import _kernels
from ... import _layout as L
from ...dice import Dice, KernelError
from ...errors import DiceError, LimitError, SchemaError
from ...requests import convert_mapping, decode, faces, say
from ..._facts import MAX_STRIKES
from .plan import StrikeMeta, TargetInfo, check_attacker, check_targets, compile_strike
from .result import AttackResult, ShockSave
from .schema import AttackRequest, Target

_LOG_PER_STRIKE = 8 + 16  # a full pool and a chain of 8 crit dice; longer chains retry
_ZERO_Q = array("q", [0])
_ZERO_I = array("i", [0])


@dataclass(slots=True)
class AttackPlan:
    """A checked ER attack, ready to roll."""

    plan: array[int]
    metas: list[StrikeMeta]
    targets: dict[str, TargetInfo]
    ruleset: str
    #: The kernel's one group (strikes 0..n-1, one attack): read only, so made once.
    groups: array[int] = field(default_factory=lambda: array("q"))

    def __post_init__(self) -> None:
        if not self.groups:
            self.groups = array("q", (0, len(self.metas), 1))


def kernel_error(code: int, where: int, position: int, rolls: Optional[array[int]],
                 strike_path: str = "$.strikes") -> Exception:
    """The user-facing error for a kernel error code."""
    if code == L.E_ROLLS_SHORT:
        assert rolls is not None  # the kernel ran short of injected faces: there were some
        return DiceError("$.rolls", say("rolls_short", given=faces(len(rolls)), what=f"{strike_path}[{where}]",
                                        position=position))
    if code == L.E_ROLL_RANGE:
        assert rolls is not None
        return DiceError(f"$.rolls[{position}]", say("face_range_d3", face=rolls[position],
                                                     what=f"{strike_path}[{where}]"))
    if code == L.E_CHAIN_LIMIT:
        return LimitError(f"{strike_path}[{where}]", say("chain_limit", limit=L.CHAIN_LIMIT))
    return RuntimeError(f"kernel error {code}")


def compile_attack(request: Any) -> AttackPlan:
    """Check an ER attack request and compile its strikes into plan rows."""
    req: AttackRequest = decode(request, AttackRequest)
    conditions = check_attacker(req.attacker, "$.attacker")
    targets = check_targets(convert_mapping(req.targets, Target, "$.targets"))
    if not req.strikes:
        raise SchemaError("$.strikes", say("no_strikes"))
    if len(req.strikes) > MAX_STRIKES:
        raise LimitError("$.strikes", say("too_many", count=len(req.strikes), what="strikes", most=MAX_STRIKES))
    plan = array("i")
    metas = []
    for i, strike in enumerate(req.strikes):
        path = f"$.strikes[{i}]"
        target = targets.get(strike.target)
        if target is None:
            raise SchemaError(f"{path}.target", say("unknown_target", target=repr(strike.target),
                                                    targets=", ".join(targets)))
        row, meta = compile_strike(strike, path, req.attacker, "$.attacker", conditions, target,
                                   req.advantage, req.disadvantage)
        plan.extend(row)
        metas.append(meta)
    return AttackPlan(plan, metas, targets, req.ruleset)


def roll_attack(attack: AttackPlan, dice: Dice, seed: int) -> AttackResult:
    """Roll a compiled attack from `dice` (generator or injected faces)."""
    kernel = _kernels.active()
    n = len(attack.metas)
    groups = attack.groups
    capacity = n * _LOG_PER_STRIKE
    state, rolls = dice.state, dice.rolls
    start = state.tobytes()  # a crit chain past the log's room rolls again from here
    while True:
        out = _ZERO_Q * (n * L.OUT_WIDTH)  # zeroed buffers made by repetition (one allocation each)
        log = _ZERO_I * (2 * capacity)
        info = _ZERO_Q * 4
        info[0] = dice.pos
        err = kernel.roll_detail(attack.plan, groups, len(attack.targets), 0, 1, state, rolls, out, log, info)
        if err != L.E_LOG_FULL:
            break
        state[:] = array("I", start)
        capacity *= 4
    if err:
        raise kernel_error(err, info[2], info[3], rolls)
    dice.pos = info[0]
    shock = _follow_ups(attack.metas, attack.targets, out, dice)
    return AttackResult(seed, attack.ruleset, kernel.BACKEND, rolls is not None, attack.metas, attack.targets,
                        out, log, shock)


def _follow_ups(metas: list[StrikeMeta], targets: dict[str, TargetInfo], out: Any, dice: Dice) -> dict[str, ShockSave]:
    """ER-13 shock saves, target by target in request order (docs/ENGINE.md §2, D-5)."""
    sneak_damage: dict[str, int] = {}
    for s, meta in enumerate(metas):
        if meta.sneak is not False:
            sneak_damage[meta.target] = sneak_damage.get(meta.target, 0) + out[s * L.OUT_WIDTH + L.O_DAMAGE]
    shock: dict[str, ShockSave] = {}
    if not sneak_damage:
        return shock
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
            except KernelError as exc:
                raise _follow_up_error(exc, dice.rolls, target) from None
        shock[tid] = save
    return shock


def _follow_up_error(exc: KernelError, rolls: Any, target: TargetInfo) -> DiceError:
    if exc.code == L.E_ROLLS_SHORT:
        return DiceError("$.rolls", say("rolls_short", given=faces(len(rolls)),
                                        what=f"the shock save of {target.path}", position=exc.position))
    return DiceError(f"$.rolls[{exc.position}]", say("face_range_d3", face=rolls[exc.position],
                                                     what=f"{target.path}'s failed shock save"))
