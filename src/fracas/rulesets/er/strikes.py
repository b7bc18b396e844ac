"""The `strikes` of an Enchanted Realms attack result (docs/ENGINE.md §7), and the whole
summary of a bulk request, from the kernel's arrays.

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
    G_ATTACKS_HIT, G_CRITS, G_DAMAGE, G_SHOCK, G_STRAYS, LOG_WIDTH, O_BASE, O_CHAIN_LEN, O_CRIT, O_DAMAGE,
    O_DISCARD, O_HITS, O_LOG, O_MOD, O_MOD_USED, O_POOL, O_UNDODGEABLE, OUT_WIDTH, T_ATTACKS, T_ATTACKS_HIT,
    T_CRITS, T_DAMAGE, T_LONGEST, T_STRIKES, T_STRIKES_HIT, T_UNDODGEABLE,
)


def strike_templates(metas: list[Any], defense: bool, dc_base: int) -> list[dict[str, Any]]:
    """Per strike, its entry with what the plan fixes filled in (target, method, to-hit, ...)
    and what a roll gives set to None, every key in the entry's order: made once per plan,
    copied by `strike_dicts` for each result (issue 44 item 3: the result built once)."""
    templates = []
    for meta in metas:
        templates.append({
            "target": meta.target, "method": meta.method, "style": meta.style,
            "damage_type": meta.damage_type, "advantage": meta.advantage,
            "disadvantage": meta.disadvantage, "sneak": meta.sneak,
            "to_hit": meta.to_hit, "ac": meta.ac, "crit_range": meta.crit_range,
            "dice": None, "discarded": None, "crit_chain": None,
            "hits": None, "crit": None, "base": None, "modifier": None,
            "resistance": meta.resistance, "damage": None, "undodgeable": None,
            "friendly_fire": meta.friendly_fire, "stray": None,
            "defense_dc": dc_base + meta.to_hit if defense else None,
        })
    return templates


def strike_dicts(metas: list[Any], out: Any, log: Any, defense: bool, dc_base: int,
                 templates: Any = None) -> list[dict[str, Any]]:
    """One dict per strike of `metas` (the plan's `StrikeMeta`), in order, from the out rows
    and the die log; `defense` (ER-22): the dice are the defender's, each against
    `dc_base` + the strike's to-hit. `templates`, when given, are `strike_templates` of the
    same metas, defense and dc_base: each entry is a copy of its template with the rolled
    fields set (the same dict, in the same key order, as one built whole)."""
    n = len(metas)
    if len(out) < n * OUT_WIDTH:
        raise ValueError(f"the out buffer holds {len(out)} entries, fewer than {n} strikes need")
    if templates is not None and len(templates) != n:
        raise ValueError(f"{len(templates)} strike templates for {n} strikes")
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
        if templates is not None:
            template = templates[s]
            entry = template.copy()
            entry["dice"] = dice
            entry["discarded"] = discarded
            entry["crit_chain"] = chain
            entry["hits"] = out[o + O_HITS]
            entry["crit"] = out[o + O_CRIT] != 0
            entry["base"] = out[o + O_BASE]
            entry["modifier"] = out[o + O_MOD] if out[o + O_MOD_USED] else None
            entry["damage"] = out[o + O_DAMAGE]
            entry["undodgeable"] = out[o + O_UNDODGEABLE]
            strikes.append(entry)
            continue
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


def attack_dict(ruleset: str, seed: int, backend: str, injected: bool, metas: list[Any], out: Any, log: Any,
                templates: Any, target_ids: Any, flee: Any, defense: bool, dc_base: int) -> dict[str, Any]:
    """The whole result (docs/ENGINE.md §7) of an attack without follow-ups (no strays, shock
    saves or grapple releases: most attacks), built in one call: the strikes from their
    `templates` (`strike_dicts`), every target of `target_ids` in order with its damage by
    type, the total. The same dict, key for key and in the same order, as the general path
    of `AttackResult._build`."""
    strikes = strike_dicts(metas, out, log, defense, dc_base, templates)
    targets = {}  # type: dict[str, dict[str, Any]]
    for tid in target_ids:
        targets[tid] = {"damage": 0, "by_type": {}, "undodgeable": 0, "shock_save_dc": None,
                        "shock_save": None, "grapple_release": None}
    total = 0
    for strike in strikes:
        entry = targets[strike["target"]]
        damage = strike["damage"]
        entry["damage"] += damage
        by_type = entry["by_type"]
        kind = strike["damage_type"]
        by_type[kind] = by_type.get(kind, 0) + damage
        entry["undodgeable"] += strike["undodgeable"]
        total += damage
    return {
        "ruleset": ruleset, "seed": seed, "backend": backend, "injected": injected, "strikes": strikes,
        "targets": targets, "total_damage": total, "flee": dict(flee) if flee else None, "defense_rolls": defense,
    }


def bulk_dict(ruleset: str, seed: int, backend: str, detail: str, total_attacks: int, target_layout: list[Any],
              group_layout: list[Any], acc_t: Any, acc_b: Any, acc_g: Any) -> dict[str, Any]:
    """A bulk request's summary (docs/ENGINE.md §7: `BulkResult.to_dict` less the attacks
    listed one by one) from its totals: per target of `target_layout` (id, offset in `acc_t`,
    offset in `acc_b`, its damage types as (kind, column)) its damage by type and counts; per
    group of `group_layout` (profile, target(s), count, offset in `acc_g`, its histogram's
    first and end offsets) its counts, rates and damage histogram up to its last bin that is
    not 0 (at least one bin)."""
    targets = {}  # type: dict[str, Any]
    total = 0
    for tid, t, b, kinds in target_layout:
        damage = acc_t[t + T_DAMAGE]
        total += damage
        by_type = {}  # type: dict[str, int]
        for kind, i in kinds:
            by_type[kind] = acc_b[b + i]
        targets[tid] = {
            "damage": damage, "by_type": by_type,
            "attacks": acc_t[t + T_ATTACKS], "attacks_hit": acc_t[t + T_ATTACKS_HIT],
            "strikes": acc_t[t + T_STRIKES], "strikes_hit": acc_t[t + T_STRIKES_HIT],
            "crits": acc_t[t + T_CRITS], "longest_chain": acc_t[t + T_LONGEST],
            "undodgeable": acc_t[t + T_UNDODGEABLE],
        }
    groups = []
    for profile, target, count, base, first_bin, end in group_layout:
        kept = end
        while kept > first_bin + 1 and acc_g[kept - 1] == 0:
            kept -= 1
        histogram = []
        for i in range(first_bin, kept):
            histogram.append(acc_g[i])
        hit = acc_g[base + G_ATTACKS_HIT]
        damage = acc_g[base + G_DAMAGE]
        groups.append({
            "profile": profile, "target": target, "count": count,
            "attacks_hit": hit, "hit_rate": hit / count if count else 0.0,
            "damage": damage, "mean_damage": damage / count if count else 0.0,
            "crits": acc_g[base + G_CRITS],
            "shock_checks": acc_g[base + G_SHOCK], "strays_omitted": acc_g[base + G_STRAYS],
            "histogram": histogram,
        })
    return {
        "ruleset": ruleset, "seed": seed, "backend": backend, "detail": detail, "attacks_total": total_attacks,
        "targets": targets, "groups": groups, "total_damage": total,
    }
