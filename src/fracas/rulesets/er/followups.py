"""What an Enchanted Realms attack rolls after its strikes (docs/ENGINE.md §2, step 2).

In this order, from the same stream as the strikes:

1. **Stray shots (ER-17)**, strike by strike in request order: a shot under the
   friendly-fire rule that missed entirely (a shot at a creature behind full cover,
   asked for with `friendly_fire`, always misses it: ER-16) rolls a d10 for the slot it
   strays into (the creatures `nearby` its target are slots 1-8 in the order listed; 9,
   10 and unfilled slots are empty). A creature in the slot is checked with the same
   dice, every raw face moved up by 2 (18 and 19 become natural 20s, a natural 1 a raw
   3), against its own AC; a crit draws its crit dice (fresh d20s, with their d3s) here.
   ER-9: the attribute modifier goes to the first strike in request order that hits a
   creature, directly or as a stray; a stray that comes first takes it from the direct
   strike the kernel gave it to.
2. **Per target, in the order of `targets`:** the ER-13 shock save (d20, then the d3
   of actions lost if it fails), then the ER-21 grapple release: a target marked
   `grappling` makes one Strength feat (d20 + Strength modifier + bonus) per strike that
   dealt it body damage, directly or as a stray, in strike order, against DC 10 + that
   strike's damage; the first failure lets go and no further feat is rolled.
   Both rolls use the target's own conditions (ER-12/ER-14, `feats.py`): at advantage
   or disadvantage two d20 are drawn, the first first, and the better or worse kept; a
   penalty is added; an automatic failure rolls no d20.

Both backends run this code (the compiled core rolls only the strikes), so their
follow-ups cannot differ; the JavaScript resolver has its twin in engine.js and
specials.js.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ... import _layout as L
from ...dice import Dice, KernelError
from ...errors import DiceError, LimitError
from ...requests import faces, say
from ..._facts import COVER_AC, ER_RELEASE_DC, ER_STRAY_SLOTS
from . import strays as rules
from .feats import Situation, roll_kept, situation
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
class Feat:
    """ER-21: one Strength feat, for one strike that dealt the grappler body damage."""

    strike: int
    stray: bool
    damage: int
    dc: int
    dice: list[int] = field(default_factory=list)
    roll: Optional[int] = None
    modifier: Optional[int] = None
    total: Optional[int] = None
    held: Optional[bool] = None

    def to_dict(self) -> dict[str, Any]:
        return {"strike": self.strike, "stray": self.stray, "damage": self.damage, "dc": self.dc,
                "dice": list(self.dice), "roll": self.roll, "modifier": self.modifier, "total": self.total,
                "held": self.held}


@dataclass(slots=True)
class Release:
    """ER-21: a grappler's Strength feats after taking body damage, one per strike."""

    taken: int
    feats: list[Feat]
    situation: Situation
    held: Optional[bool] = None

    def to_dict(self) -> dict[str, Any]:
        # The top level repeats the feat that decided: the first failure, else the last
        # feat rolled; when the table rolls (no Strength given), the first to roll.
        rolled = [f for f in self.feats if f.held is not None]
        decided = rolled[-1] if rolled else self.feats[0]
        return {"damage": decided.damage, "dc": decided.dc, "roll": decided.roll, "modifier": decided.modifier,
                "total": decided.total, "held": self.held, "damage_taken": self.taken,
                "feats": [f.to_dict() for f in self.feats], "situation": self.situation.to_dict()}


def counting_faces(out: Any, log: Any, s: int) -> list[int]:
    """The raw faces of strike `s` that count (all but the one disadvantage discards)."""
    o = s * L.OUT_WIDTH
    pos, n, discard = out[o + L.O_LOG], out[o + L.O_POOL], out[o + L.O_DISCARD]
    return [log[2 * (pos + i)] for i in range(n) if i != discard]


def stray_shots(metas: list[StrikeMeta], plan: Any, targets: dict[str, TargetInfo], out: Any, log: Any,
                dice: Dice) -> dict[int, Stray]:
    """Step 1: every missed shot under friendly fire, in request order (see the module doc).

    Changes `out` where a stray takes a creature's attribute modifier from a later direct strike."""
    # ER-9: the strike the kernel gave each creature's modifier to (the first direct hit).
    direct = {metas[s].target: s for s in range(len(metas)) if out[s * L.OUT_WIDTH + L.O_MOD_USED]}
    by_stray: set[str] = set()
    strays: dict[int, Stray] = {}
    for s, meta in enumerate(metas):
        if not meta.friendly_fire or out[s * L.OUT_WIDTH + L.O_HITS]:
            continue
        what = say("rolls_for_stray", strike=s)

        def takes(creature: str, s: int = s) -> bool:
            return creature not in by_stray and direct.get(creature, len(metas)) > s

        try:
            stray = _stray(meta, plan, s, targets, counting_faces(out, log, s), dice, takes)
        except KernelError as exc:
            raise dice_error(exc, dice.rolls, what) from None
        strays[s] = stray
        if stray.modifier is not None:
            assert stray.creature is not None
            by_stray.add(stray.creature)
            later = direct.pop(stray.creature, None)
            if later is not None:
                drop_modifier(plan, out, later)
    return strays


def drop_modifier(plan: Any, out: Any, s: int) -> None:
    """ER-9: strike `s` loses the attribute modifier an earlier stray took (the kernels'
    damage and undodgeable arithmetic, again without it)."""
    o, p = s * L.OUT_WIDTH, s * L.PLAN_WIDTH
    state = plan[p + L.P_RESIST]
    damage = resist(out[o + L.O_BASE], state)
    nat20, chain, only_chain = out[o + L.O_NAT20], out[o + L.O_CHAIN_DMG], plan[p + L.P_ONLY_CHAIN]
    if plan[p + L.P_NO_DODGE]:
        undodgeable = damage
    elif not nat20:
        undodgeable = 0
    else:
        raw = (0 if only_chain else nat20) + (0 if plan[p + L.P_CHAIN_DODGEABLE] else chain)
        undodgeable = min(damage, resist(raw, state))
    out[o + L.O_MOD] = 0
    out[o + L.O_MOD_USED] = 0
    out[o + L.O_DAMAGE] = damage
    out[o + L.O_UNDODGEABLE] = undodgeable


def full_cover_misses(metas: list[StrikeMeta], out: Any, log: Any) -> None:
    """ER-16: a shot at a creature behind full cover cannot hit it; under the friendly-fire
    rule it is resolved as a miss that strays. Its pool was rolled in strike order with no
    crit and no damage at the target (plan.py); here its dice are marked as missing."""
    for s, meta in enumerate(metas):
        if not meta.full_cover:
            continue
        o = s * L.OUT_WIDTH
        pos = out[o + L.O_LOG]
        for i in range(out[o + L.O_POOL]):
            log[2 * (pos + i) + 1] = 0
        out[o + L.O_HITS] = 0
        out[o + L.O_NAT20] = 0


def _stray(meta: StrikeMeta, plan: Any, s: int, targets: dict[str, TargetInfo], pool: list[int], dice: Dice,
           takes: Any) -> Stray:
    nearby = targets[meta.target].spec.nearby
    roll = dice.die(ER_STRAY_SLOTS)
    lead = f"{meta.target} is behind full cover, the shot strays: " if meta.full_cover else ""
    if roll > len(nearby):
        why = (f"slot {roll} is always empty" if roll > 8 else
               f"slot {roll} is empty ({len(nearby)} creature{'s' if len(nearby) != 1 else ''} near "
               f"{meta.target})")
        return Stray(roll, None, lead + why)
    creature = nearby[roll - 1]
    spec = targets[creature].spec
    if spec.cover == "full":
        return Stray(roll, creature, f"{lead}slot {roll} is {creature}, behind full cover: the shot hits nothing")
    p = s * L.PLAN_WIDTH
    to_hit = meta.to_hit
    ac = spec.ac_by_type.get(meta.damage_type, spec.ac) + COVER_AC[spec.cover]
    crit_thr = meta.crit_range or 0
    conds = spec.conditions
    stray = Stray(roll, creature, f"{lead}slot {roll} is {creature}", ac=ac, damage_type=meta.damage_type)
    for face in pool:
        shifted = rules.stray_face(face)
        stray.dice.append({"face": face, "shifted": shifted, "total": shifted + to_hit,
                           "hit": bool(rules.stray_hits(shifted, to_hit, ac))})
    chain_log: list[tuple[int, bool, int]] = []
    got = [0] * 4
    if rules.stray_check(dice, pool, 1, len(pool), -1, to_hit, ac, crit_thr, bool(meta.disadvantage),
                         "paralyzed" in conds, got, chain_log) < 0:
        raise LimitError(f"$.strikes[{s}]", say("chain_limit", limit=L.CHAIN_LIMIT))
    hits, nat20, crit, chain = got[rules.GOT_HITS], got[rules.GOT_NAT20], bool(got[rules.GOT_CRIT]), got[rules.GOT_CHAIN]
    stray.chain = [{"face": face, "total": face + to_hit, "hit": hit, "damage": d3} for face, hit, d3 in chain_log]
    only_chain = "petrified" in conds
    base = rules.stray_base(hits, chain, only_chain)
    stray.base = base
    if hits > 0 and not only_chain and takes(creature):
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


def grapple_release(target: TargetInfo, struck: list[tuple[int, bool, int]], dice: Dice) -> Optional[Release]:
    """ER-21 for one target: one Strength feat per (strike, stray?, damage) in `struck`, in
    strike order, until the first failure (None when it holds no one or took no damage).

    "those conditions are considered an individual attack" (seed 000): each strike that
    deals body damage is its own attack, DC 10 + that strike's damage."""
    hold = target.spec.grappling
    struck = [hit for hit in struck if hit[2] > 0]
    if hold is None or not struck:
        return None
    sit = situation(target.spec.conditions, "feat")
    feats = [Feat(s, stray, damage, ER_RELEASE_DC + damage) for s, stray, damage in struck]
    release = Release(sum(damage for _, _, damage in struck), feats, sit)
    if sit.fails is not None:  # "Automatically fails all saves/feats involving Body attributes"
        feats[0].held = release.held = False
        del feats[1:]
        return release
    if hold.strength is None and hold.strength_mod is None:
        return release  # the DCs are reported; the table rolls the feats
    mod = modifier(hold.strength, hold.strength_mod) + hold.bonus + (sit.penalty[1] if sit.penalty else 0)
    for feat in feats:
        try:
            feat.dice, feat.roll = roll_kept(dice, 20, sit)
        except KernelError as exc:
            raise dice_error(exc, dice.rolls, say("rolls_for_release", path=target.path)) from None
        feat.modifier = mod
        feat.total = feat.roll + mod
        feat.held = feat.total >= feat.dc
        if not feat.held:
            break
    release.feats = [f for f in feats if f.held is not None]
    release.held = release.feats[-1].held
    return release
