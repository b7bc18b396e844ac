"""ER-22, the defense-roll variant: the player rolls to avoid a monster's strikes.

For every die of the monster's pool (the same dice, in the same draw order as an
attack: skill dice, advantage die, sneak die, disadvantage extra die) the player
rolls one d20 and adds the PC's AC (with cover against a shot); it avoids when the
total meets DC 21 + the monster's to-hit modifiers. A natural 20 always avoids, a
raw 1 always hits. Each die not avoided is 1 point of body damage: no crits, no
weight, no attribute modifier.

Decisions: the monster's disadvantage becomes the player's edge, so the player
rolls one extra d20 and the **lowest** face (the first of them) is discarded; the
strike's resistance (ER-10) applies to its points; a petrified PC takes nothing
(only crits would hurt it, ER-15, and this variant has none); points from raw 1s
are the undodgeable part (ER-11: they are the variant's natural 20s), all of them
for a restrained PC.

This writes the kernels' output rows, so a result reads the same either way.
"""

from __future__ import annotations

from typing import Any

from ... import _layout as L
from ...dice import Dice
from ..._facts import ER_DEFENSE_DC
from .followups import resist


def roll_defense(plan: Any, n: int, dice: Dice, out: Any, log: Any) -> None:
    """Strikes 0..n-1 of `plan` rolled as defense dice into `out` and `log` (kernel layout)."""
    logpos = 0
    for s in range(n):
        p, o = s * L.PLAN_WIDTH, s * L.OUT_WIDTH
        dice.strike = s
        count = plan[p + L.P_SKILL] + plan[p + L.P_ADV] + plan[p + L.P_SNEAK] + plan[p + L.P_DISADV]
        pool = [dice.die(20) for _ in range(count)]
        discard = -1
        if plan[p + L.P_DISADV]:
            low = 21
            for i, face in enumerate(pool):
                if face < low:
                    low, discard = face, i
        dc = ER_DEFENSE_DC + plan[p + L.P_TO_HIT]
        ac = plan[p + L.P_AC]
        failures = ones = 0
        out[o + L.O_LOG] = logpos
        for i, face in enumerate(pool):
            avoided = face == 20 or (face != 1 and face + ac >= dc)
            log[2 * logpos], log[2 * logpos + 1] = face, int(not avoided)
            logpos += 1
            if i == discard or avoided:
                continue
            failures += 1
            if face == 1:
                ones += 1
        state = plan[p + L.P_RESIST]
        base = 0 if plan[p + L.P_ONLY_CHAIN] else failures
        damage = resist(base, state)
        if plan[p + L.P_NO_DODGE]:
            undodgeable = damage
        else:
            undodgeable = min(damage, resist(0 if plan[p + L.P_ONLY_CHAIN] else ones, state))
        out[o + L.O_HITS] = failures
        out[o + L.O_CRIT] = 0
        out[o + L.O_CHAIN_LEN] = 0
        out[o + L.O_CHAIN_DMG] = 0
        out[o + L.O_BASE] = base
        out[o + L.O_MOD] = 0
        out[o + L.O_MOD_USED] = 0
        out[o + L.O_DAMAGE] = damage
        out[o + L.O_UNDODGEABLE] = undodgeable
        out[o + L.O_DISCARD] = discard
        out[o + L.O_NAT20] = ones
        out[o + L.O_POOL] = count
