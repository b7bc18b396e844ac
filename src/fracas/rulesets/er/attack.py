"""One Enchanted Realms attack: compile the request, roll it in a kernel, add follow-ups.

The rolling is one call into the active kernel backend (`_kernels.active()`), the
compiled core or its pure-Python twin; the follow-ups (ER-17 stray shots, ER-13
shock saves, ER-21 grapple releases) draw from the same stream afterwards
(docs/ENGINE.md §2, `followups.py`). A flee attack (ER-20) is checked and shaped
here; the defense-roll variant (ER-22) rolls in `defense.py` instead of a kernel.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any, Optional

from ... import _kernels
from ... import _layout as L
from ...dice import Dice, KernelError, kernel_info
from ...errors import DiceError, LimitError, RulesError, SchemaError
from ...requests import convert_mapping, decode, faces, say
from ..._facts import ER_FLEE_NORMAL, ER_FLEE_RAPID, MAX_STRIKES
from .defense import roll_defense
from .feats import keep_code, situation
from .followups import Release, dice_error, full_cover_misses, grapple_release, stray_shots
from .shock import (
    KEEP_ONE, SAVE_FAILS, SAVE_REPORTED, SAVE_ROLLED, calls_for_save, save_dc, shock_roll,
)
from .plan import StrikeMeta, TargetInfo, check_attacker, check_targets, compile_strike
from .result import AttackResult, ShockSave
from .schema import AttackRequest, Flee, Target


_ZERO_Q = array("q", [0])
_ZERO_I = array("i", [0])


@dataclass(slots=True)
class AttackPlan:
    """A checked ER attack, ready to roll."""

    plan: array[int]
    metas: list[StrikeMeta]
    targets: dict[str, TargetInfo]
    ruleset: str
    #: ER-20: {"moved", "speed", "dice"} of a flee attack, or None.
    flee: Optional[dict[str, Any]] = None
    #: ER-22: the target's player rolls defense dice instead of the attacker's pool.
    defense: bool = False
    #: Whether any follow-up can happen (a shot under friendly fire, a sneak attack at a
    #: target with a maximum Body, a grappling target): most attacks have none, and skip them.
    follow_ups: bool = True
    #: The strikes' result templates (`strikes.strike_templates`), made by the first result's
    #: `to_dict` and shared by every result of this plan.
    templates: list[dict[str, Any]] = field(default_factory=list)

    def roll_seed(self, seed: int) -> AttackResult:
        """Roll this attack from `seed`'s generator (no injected faces): the fused path
        `fracas.resolve` takes for a cached plan (issue 44 item 3). An attack without
        follow-ups is one kernel call: the kernel seeds the generator, makes the buffers and
        rolls; the result keeps them and builds its JSON when asked. The same dice, in the
        same order, as `roll_attack(self, Dice.from_seed(seed), seed)`, which the rest take."""
        if self.follow_ups or self.defense:
            return roll_attack(self, Dice.from_seed(seed), seed)
        kernel = _kernels.active()
        err, out, log, strike = kernel.roll_seeded(self.plan, len(self.targets), seed)
        if err:
            raise kernel_error(err, strike, -1, None)
        return AttackResult(seed, self.ruleset, kernel.BACKEND, False, self.metas, self.targets, out, log, {},
                            None, None, self.flee, False, self.templates)


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
    flee = None
    if req.flee is not None:
        flee = _flee(req.flee, req.strikes, plan, metas, conditions, targets)
    if req.defense_rolls:
        for i, meta in enumerate(metas):
            if meta.friendly_fire:
                raise RulesError(f"$.strikes[{i}].friendly_fire", say("defense_friendly_fire", strike=i))
    follow = (any(m.friendly_fire for m in metas) or any(t.spec.grappling is not None for t in targets.values())
              or any(m.sneak is not False and targets[m.target].spec.body_max is not None for m in metas))
    return AttackPlan(plan, metas, targets, req.ruleset, flee, req.defense_rolls, follow)


def _flee(flee: Flee, strikes: list[Any], plan: array[int], metas: list[StrikeMeta], conditions: frozenset[str],
          targets: dict[str, TargetInfo]) -> dict[str, Any]:
    """ER-20: what a creature's movement provokes; a rapid mover is struck with one d20 only."""
    moved = flee.moved
    if moved < 0:
        raise SchemaError("$.flee.moved", say("flee_negative", moved=moved))
    if moved < ER_FLEE_NORMAL:
        raise RulesError("$.flee.moved", say("flee_cautious", moved=moved))
    if len(strikes) != 1:
        raise RulesError("$.strikes", say("flee_one_strike", count=len(strikes)))
    if strikes[0].method == "range":
        raise RulesError("$.strikes[0].method", say("flee_method", method=strikes[0].method))
    if strikes[0].sneak is not False:
        raise RulesError("$.strikes[0].sneak", say("flee_sneak"))
    # ER-15: defending "removes all reactions for both rounds"; ER-20: a creature that used
    # its action to be defensive-only leaves the fray without drawing flee attacks.
    if "defending" in conditions:
        raise RulesError("$.attacker.conditions", say("flee_defending"))
    mover = targets[strikes[0].target]
    if "defending" in mover.spec.conditions:
        raise RulesError(f"{mover.path}.conditions", say("flee_defensive_mover"))
    speed = "normal" if moved < ER_FLEE_RAPID else "rapid"
    if speed == "rapid":
        # "only 1d20 is permitted": the pool is one d20, and ER-12 applies to it as to any
        # pool: advantage adds a counted die, disadvantage adds one and drops the highest
        # (and forbids crits, as compiled).
        plan[L.P_SKILL] = 1
        meta = metas[0]
        meta.sources = ("skill",) + meta.sources[strikes[0].dice:]
    dice = plan[L.P_SKILL] + plan[L.P_ADV] + plan[L.P_SNEAK] + plan[L.P_DISADV]
    return {"moved": moved, "speed": speed, "dice": dice}


def roll_attack(attack: AttackPlan, dice: Dice, seed: int) -> AttackResult:
    """Roll a compiled attack from `dice` (generator or injected faces)."""
    kernel = _kernels.active()
    n = len(attack.metas)
    if attack.defense:
        return _roll_defense(attack, dice, seed, kernel.BACKEND)
    rolls = dice.rolls
    info = kernel_info(dice.pos)
    # The kernel makes the out and log buffers, and rolls again with a larger log when a
    # crit chain outgrows it (the same dice from the same state).
    err, out, log = kernel.roll_single(attack.plan, len(attack.targets), dice.state, rolls, info)
    if err:
        raise kernel_error(err, info[L.I_STRIKE], info[L.I_ERROR_POS], rolls)
    dice.pos = info[L.I_POS]
    return _finish(attack, dice, seed, kernel.BACKEND, out, log)


def _roll_defense(attack: AttackPlan, dice: Dice, seed: int, backend: str) -> AttackResult:
    n = len(attack.metas)
    out = _ZERO_Q * (n * L.OUT_WIDTH)
    log = _ZERO_I * (2 * sum(attack.plan[s * L.PLAN_WIDTH + L.P_SKILL] + 3 for s in range(n)))
    try:
        roll_defense(attack.plan, n, dice, out, log)
    except KernelError as exc:
        raise dice_error(exc, dice.rolls, say("rolls_for_defense", strike=exc.where)) from None
    return _finish(attack, dice, seed, backend, out, log)


def _finish(attack: AttackPlan, dice: Dice, seed: int, backend: str, out: Any, log: Any) -> AttackResult:
    """The follow-ups, in draw order, and the result."""
    metas, targets = attack.metas, attack.targets
    if not attack.follow_ups:
        return AttackResult(seed, attack.ruleset, backend, dice.rolls is not None, metas, targets, out, log, {},
                            None, None, attack.flee, attack.defense, attack.templates)
    strays: dict[int, Any] = {}
    if not attack.defense:
        full_cover_misses(metas, out, log)
        strays = stray_shots(metas, attack.plan, targets, out, log, dice)
    shock, releases = _follow_ups(metas, targets, out, dice, strays)
    return AttackResult(seed, attack.ruleset, backend, dice.rolls is not None, metas, targets, out, log, shock,
                        strays, releases, attack.flee, attack.defense, attack.templates)


def _follow_ups(metas: list[StrikeMeta], targets: dict[str, TargetInfo], out: Any, dice: Dice,
                strays: dict[int, Any]) -> tuple[dict[str, ShockSave], dict[str, Release]]:
    """Per target in request order: the ER-13 shock save, then the ER-21 grapple release."""
    shock: dict[str, ShockSave] = {}
    releases: dict[str, Release] = {}
    sneak_damage: dict[str, int] = {}
    for s, meta in enumerate(metas):
        if meta.sneak is not False:
            sneak_damage[meta.target] = sneak_damage.get(meta.target, 0) + out[s * L.OUT_WIDTH + L.O_DAMAGE]
    grapplers = [tid for tid, t in targets.items() if t.spec.grappling is not None]
    if not sneak_damage and not grapplers:
        return shock, releases
    # ER-21: (strike, as a stray?, damage) per creature, in strike order.
    struck: dict[str, list[tuple[int, bool, int]]] = {tid: [] for tid in grapplers}
    for s, meta in enumerate(metas):
        if meta.target in struck:
            struck[meta.target].append((s, False, out[s * L.OUT_WIDTH + L.O_DAMAGE]))
        stray = strays.get(s)
        if stray is not None and stray.creature in struck:
            struck[stray.creature].append((s, True, stray.damage))
    for tid, target in targets.items():
        save = _shock_save(target, sneak_damage.get(tid, 0), dice)
        if save is not None:
            shock[tid] = save
        if tid in struck:
            release = grapple_release(target, struck[tid], dice)
            if release is not None:
                releases[tid] = release
    return shock, releases


def _shock_save(target: TargetInfo, damage: int, dice: Dice) -> Optional[ShockSave]:
    """ER-13: the save a heavy sneak attack calls for, rolled when the target's bonus is known,
    with the target's own conditions (ER-12/ER-14: a Resilience save is a Body save)."""
    body_max = target.spec.body_max
    if body_max is None or not calls_for_save(damage, body_max):
        return None
    sit = situation(target.spec.conditions, "save")
    save = ShockSave(dc=save_dc(damage), situation=sit)
    how, keep, added = shock_save_how(sit, target.spec.save_bonus)
    faces = [0, 0, 0]
    try:
        lost = shock_roll(dice, how, keep, added, damage, faces)
    except KernelError as exc:
        raise _follow_up_error(exc, dice.rolls, target) from None
    if how == SAVE_ROLLED:
        save.dice, save.roll = faces[:1 if keep == KEEP_ONE else 2], faces[2]
        save.total = save.roll + added
        save.passed = save.total >= save.dc
    elif how == SAVE_FAILS:  # "Automatically fails all saves/feats involving Body attributes"
        save.passed = False
    if save.passed is False:
        save.incapacitated_actions = lost
    return save


def shock_save_how(sit: Any, save_bonus: Optional[int]) -> tuple[int, int, int]:
    """How a target in situation `sit` (its own conditions on a Body save: ER-12/ER-14) with
    `save_bonus` (None: not given) makes a shock save: `shock.shock_roll`'s how, keep and added."""
    how = SAVE_FAILS if sit.fails is not None else SAVE_REPORTED if save_bonus is None else SAVE_ROLLED
    return how, keep_code(sit), (save_bonus or 0) + (sit.penalty[1] if sit.penalty else 0)


def _follow_up_error(exc: KernelError, rolls: Any, target: TargetInfo) -> DiceError:
    if exc.code == L.E_ROLLS_SHORT:
        return DiceError("$.rolls", say("rolls_short", given=faces(len(rolls)),
                                        what=f"the shock save of {target.path}", position=exc.position))
    return DiceError(f"$.rolls[{exc.position}]", say("face_range_d3", face=rolls[exc.position],
                                                     what=f"{target.path}'s failed shock save"))
