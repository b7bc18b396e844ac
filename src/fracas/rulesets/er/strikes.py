"""The `strikes` of an Enchanted Realms attack result (docs/ENGINE.md §7), from the
kernel's arrays.

The kernels return arrays only: one out row of `OUT_WIDTH` int64 per strike and the die
log (pairs of face and hit flag, `LOG_WIDTH` int32 each, where the row's `O_LOG` says).
This module is the one place that turns them into the result's strike entries, for
every backend. It is plain Python; setup.py also compiles this same file with Cython
("pure Python mode", its C types in `strikes.pxd` beside it) where a C compiler is
there, and the compiled module then loads in its place. The pure-Python backend runs
this source as it stands (`fracas._kernels.pure_python`), so the test suite checks both.
"""

from __future__ import annotations

from typing import Any

from ..._layout import (
    LOG_WIDTH, O_BASE, O_CHAIN_LEN, O_CRIT, O_DAMAGE, O_DISCARD, O_HITS, O_LOG, O_MOD, O_MOD_USED, O_POOL,
    O_UNDODGEABLE, OUT_WIDTH,
)


def strike_dicts(metas: list[Any], out: Any, log: Any, defense: bool, dc_base: int) -> list[dict[str, Any]]:
    """One dict per strike of `metas` (the plan's `StrikeMeta`), in order, from the out rows
    and the die log; `defense` (ER-22): the dice are the defender's, each against
    `dc_base` + the strike's to-hit."""
    n = len(metas)
    if len(out) < n * OUT_WIDTH:
        raise ValueError(f"the out buffer holds {len(out)} entries, fewer than {n} strikes need")
    strikes = []
    for s in range(n):
        meta = metas[s]
        o = s * OUT_WIDTH
        to_hit = meta.to_hit
        ac = meta.ac
        sources = meta.sources
        pos = out[o + O_LOG]
        pool = out[o + O_POOL]
        discard = out[o + O_DISCARD]
        dice = []
        discarded = None
        for i in range(pool):
            face = log[LOG_WIDTH * (pos + i)]
            if i == discard:  # ER-5/ER-6: the die advantage or disadvantage set aside
                discarded = face
                continue
            hit = log[LOG_WIDTH * (pos + i) + 1] != 0
            if defense:  # ER-22: the player's die + the AC against DC 21 + the to-hit
                dice.append({"face": face, "total": face + ac, "hit": hit, "source": sources[i],
                             "avoided": not hit})
            else:
                dice.append({"face": face, "total": face + to_hit, "hit": hit, "source": sources[i]})
        pos += pool
        chain = []
        chain_len = out[o + O_CHAIN_LEN]
        for i in range(chain_len):  # ER-8: each crit die, then its d3 when it hits
            face = log[LOG_WIDTH * pos]
            hit = log[LOG_WIDTH * pos + 1] != 0
            pos += 1
            d3 = 0
            if hit:
                d3 = log[LOG_WIDTH * pos]
                pos += 1
            chain.append({"face": face, "total": face + to_hit, "hit": hit, "damage": d3})
        strikes.append({
            "target": meta.target, "method": meta.method, "style": meta.style,
            "damage_type": meta.damage_type, "advantage": meta.advantage,
            "disadvantage": meta.disadvantage, "sneak": meta.sneak,
            "to_hit": to_hit, "ac": ac, "crit_range": meta.crit_range,
            "dice": dice, "discarded": discarded, "crit_chain": chain,
            "hits": out[o + O_HITS], "crit": out[o + O_CRIT] != 0,
            "base": out[o + O_BASE],
            "modifier": out[o + O_MOD] if out[o + O_MOD_USED] else None,
            "resistance": meta.resistance, "damage": out[o + O_DAMAGE], "undodgeable": out[o + O_UNDODGEABLE],
            "friendly_fire": meta.friendly_fire, "stray": None,
            "defense_dc": dc_base + to_hit if defense else None,
        })
    return strikes
