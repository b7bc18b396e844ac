"""What an Enchanted Realms attack rolls after its strikes (docs/ENGINE.md §2, step 2).

In this order, from the same stream as the strikes:

1. **Stray shots (ER-17)**, strike by strike in request order: a shot under the
   friendly-fire rule that missed entirely rolls a d10 for the slot it strays into
   (the creatures `nearby` its target are slots 1-8 in the order listed; 9, 10 and
   unfilled slots are empty). A creature in the slot is checked with the same dice,
   every raw face moved up by 2 (18 and 19 become natural 20s, a natural 1 a raw 3),
   against its own AC; a crit draws its crit dice (fresh d20s, with their d3s) here.
2. **Per target, in the order of `targets`:** the ER-13 shock save (d20, then the d3
   of actions lost if it fails), then the ER-21 grapple release: a target marked
   `grappling` that took body damage makes a Strength feat (d20 + Strength modifier
   + bonus) against DC 10 + the damage this attack dealt it; failing lets go.

Both backends run this code (the compiled core rolls only the strikes), so their
follow-ups cannot differ; the JavaScript resolver has its twin in engine.js.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ... import _layout as L
from ...dice import Dice, KernelError
from ...errors import DiceError, LimitError
from ...requests import faces, say
from ..._facts import COVER_AC, ER_RELEASE_DC, ER_STRAY_SHIFT, ER_STRAY_SLOTS
from .plan import RESISTANCE_NAMES, StrikeMeta, TargetInfo, modifier, resistance_state


def dice_error(exc: KernelError, rolls: Any, what: str) -> DiceError:
    """The error for injected faces that ran out or do not fit a follow-up's die."""
    if exc.code == L.E_ROLLS_SHORT:
        return DiceError("$.rolls", say("rolls_short", given=faces(len(rolls)), what=what, position=exc.position))
    return DiceError(f"$.rolls[{exc.position}]", say("face_range_die", face=rolls[exc.position], faces=exc.faces))


def resist(amount: int, state: int) -> int:
    """ER-10 on a total (the kernels' arithmetic)."""
    if state == L.R_HALF:
        return amount // 2
    if state == L.R_DOUBLE:
        return amount * 2
    if state == L.R_IMMUNE:
        return 0
    return amount


@dataclass(slots=True)
class Stray:
    """Where a missed shot under the friendly-fire rule went (ER-17)."""

    roll: int
    creature: Optional[str]
    why: str
    ac: Optional[int] = None
    dice: list[dict[str, Any]] = field(default_factory=list)
    chain: list[dict[str, Any]] = field(default_factory=list)
    hits: int = 0
    crit: bool = False
    base: int = 0
    modifier: Optional[int] = None
    resistance: Optional[str] = None
    damage: int = 0
    undodgeable: int = 0
    damage_type: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"roll": self.roll, "creature": self.creature, "why": self.why, "ac": self.ac,
                "dice": [dict(d) for d in self.dice], "crit_chain": [dict(c) for c in self.chain],
                "hits": self.hits, "crit": self.crit, "base": self.base, "modifier": self.modifier,
                "resistance": self.resistance, "damage": self.damage, "undodgeable": self.undodgeable}


@dataclass(slots=True)
class Release:
    """ER-21: a grappler's Strength feat after taking body damage."""

    damage: int
    dc: int
    roll: Optional[int] = None
    modifier: Optional[int] = None
    total: Optional[int] = None
    held: Optional[bool] = None

    def to_dict(self) -> dict[str, Any]:
        return {"damage": self.damage, "dc": self.dc, "roll": self.roll, "modifier": self.modifier,
                "total": self.total, "held": self.held}


def counting_faces(out: Any, log: Any, s: int) -> list[int]:
    """The raw faces of strike `s` that count (all but the one disadvantage discards)."""
    o = s * L.OUT_WIDTH
    pos, n, discard = out[o + L.O_LOG], out[o + L.O_POOL], out[o + L.O_DISCARD]
    return [log[2 * (pos + i)] for i in range(n) if i != discard]


def stray_shots(metas: list[StrikeMeta], plan: Any, targets: dict[str, TargetInfo], out: Any, log: Any,
                dice: Dice, mod_used: set[str]) -> dict[int, Stray]:
    """Step 1: every missed shot under friendly fire, in request order (see the module doc)."""
    strays: dict[int, Stray] = {}
    for s, meta in enumerate(metas):
        if not meta.friendly_fire or out[s * L.OUT_WIDTH + L.O_HITS]:
            continue
        what = f"the stray shot of $.strikes[{s}]"
        try:
            strays[s] = _stray(meta, plan, s, targets, counting_faces(out, log, s), dice, mod_used)
        except KernelError as exc:
            raise dice_error(exc, dice.rolls, what) from None
    return strays


def _stray(meta: StrikeMeta, plan: Any, s: int, targets: dict[str, TargetInfo], pool: list[int], dice: Dice,
           mod_used: set[str]) -> Stray:
    nearby = targets[meta.target].spec.nearby
    roll = dice.die(ER_STRAY_SLOTS)
    if roll > len(nearby):
        why = (f"slot {roll} is always empty" if roll > 8 else
               f"slot {roll} is empty ({len(nearby)} creature{'s' if len(nearby) != 1 else ''} near "
               f"{meta.target})")
        return Stray(roll, None, why)
    creature = nearby[roll - 1]
    spec = targets[creature].spec
    if spec.cover == "full":
        return Stray(roll, creature, f"slot {roll} is {creature}, behind full cover: the shot hits nothing")
    p = s * L.PLAN_WIDTH
    to_hit = meta.to_hit
    ac = spec.ac_by_type.get(meta.damage_type, spec.ac) + COVER_AC[spec.cover]
    crit_thr = meta.crit_range or 0
    conds = spec.conditions
    stray = Stray(roll, creature, f"slot {roll} is {creature}", ac=ac, damage_type=meta.damage_type)
    hits = nat20 = 0
    crit_face = False
    for face in pool:
        shifted = min(face + ER_STRAY_SHIFT, 20)
        hit = shifted == 20 or shifted + to_hit >= ac
        stray.dice.append({"face": face, "shifted": shifted, "total": shifted + to_hit, "hit": hit})
        if hit:
            hits += 1
            if shifted == 20:
                nat20 += 1
            if crit_thr and shifted >= crit_thr:
                crit_face = True
    crit = hits > 0 and not meta.disadvantage and (crit_face or "paralyzed" in conds)
    chain = 0
    if crit:
        while True:
            if len(stray.chain) >= L.CHAIN_LIMIT:
                raise LimitError(f"$.strikes[{s}]", say("chain_limit", limit=L.CHAIN_LIMIT))
            face = dice.die(20)
            hit = face == 20 or (face != 1 and face + to_hit >= ac)
            d3 = dice.die(3) if hit else 0
            chain += d3
            stray.chain.append({"face": face, "total": face + to_hit, "hit": hit, "damage": d3})
            if face != 20:
                break
    only_chain = "petrified" in conds
    if hits == 0:
        base = 0
    elif only_chain:
        base = chain
    else:
        base = hits + chain  # a shot at range has no weight (ER-4)
    stray.base = base
    if hits > 0 and not only_chain and creature not in mod_used:
        mod_used.add(creature)
        stray.modifier = plan[p + L.P_MOD]
        base = max(0, base + stray.modifier)
    state = resistance_state(spec, meta.damage_type)
    damage = resist(base, state)
    if "restrained" in conds:
        undodgeable = damage
    elif not nat20:
        undodgeable = 0
    else:
        raw = (0 if only_chain else nat20) + (0 if spec.crit_proof else chain)
        undodgeable = min(damage, resist(raw, state))
    stray.hits, stray.crit = hits, crit
    stray.resistance = RESISTANCE_NAMES[state]
    stray.damage, stray.undodgeable = damage, undodgeable
    if hits == 0:
        stray.why += ": the shifted dice miss it too"
    return stray


def grapple_release(target: TargetInfo, damage: int, dice: Dice) -> Optional[Release]:
    """ER-21 for one target that took `damage` this attack (None when it holds no one or took none)."""
    hold = target.spec.grappling
    if hold is None or damage <= 0:
        return None
    release = Release(damage, ER_RELEASE_DC + damage)
    if hold.strength is None and hold.strength_mod is None:
        return release  # the DC is reported; the table rolls the feat
    release.modifier = modifier(hold.strength, hold.strength_mod) + hold.bonus
    try:
        release.roll = dice.die(20)
    except KernelError as exc:
        raise dice_error(exc, dice.rolls, f"the grapple release of {target.path}") from None
    release.total = release.roll + release.modifier
    release.held = release.total >= release.dc
    return release
