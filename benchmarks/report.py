"""The benchmark result document as terminal tables: attacks/s and ratios side by side."""

from __future__ import annotations

from typing import Any, Optional


def rate(value: Optional[float]) -> str:
    """Attacks (or words) per second with an SI prefix: 29.3M, 410k."""
    if value is None:
        return "—"
    for factor, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            return f"{value / factor:.3g}{suffix}"
    return f"{value:.3g}"


def ratio(value: Optional[float]) -> str:
    """A ratio: 154×, 12.3×, 0.85×."""
    if value is None:
        return "—"
    if value >= 100:
        return f"{value:,.0f}×"
    if value >= 10:
        return f"{value:.1f}×"
    return f"{value:.2f}×"


def _table(header: list[str], rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [str(cell).ljust(widths[0]) if i == 0 else str(cell).rjust(widths[i])
                 for i, cell in enumerate(row)]
        lines.append(indent + "   ".join(cells).rstrip())
    return lines


def _typical(result: dict) -> list[str]:
    sc = result["scenarios"]["typical"]
    rates, ratios, labels = sc["attacks_per_s"], sc["ratios"], sc["labels"]
    gen = result["generator"]
    rows = []
    for key in ("compiled", "kernel", "python", "randint", "numpy", "numpy_simple", "numpy_table", "d20", "generator",
                "generator_lanes", "dice_lanes", "draws_lanes"):
        value = {"generator": gen["attacks_per_s_limit"], "generator_lanes": gen.get("lanes_attacks_per_s_limit"),
                 "dice_lanes": gen.get("lanes_dice_attacks_per_s"),
                 "draws_lanes": gen.get("lanes_draws_attacks_per_s")}.get(key, rates.get(key))
        if key in ("generator_lanes", "dice_lanes", "draws_lanes") and key not in labels:
            continue  # the pure-Python core has no lanes
        if key not in labels:
            rows.append([f"{key} (not installed)", "—", "—", "—"])
            continue
        if key == "compiled":
            api_col, kernel_col = "1.00×", ratio(_inverse(ratios.get("compiled_vs_kernel")))
        elif key == "kernel":
            api_col, kernel_col = ratio(ratios.get("compiled_vs_kernel")), "1.00×"
        else:
            api_col = ratio(ratios.get(f"compiled_vs_{key}"))
            kernel_col = ratio(ratios.get(f"kernel_vs_{key}"))
        rows.append([labels[key], rate(value), api_col, kernel_col])
    lines = [f"Scenario 1 · {sc['title']}: {sc['description']} (single thread)"]
    lines += _table(["contestant", "attacks/s", "API ÷ this", "kernel ÷ this"], rows)
    lines.append(f"  generator: {rate(gen['words_per_s'])} words/s; at {gen['words_per_attack']:.4f} words "
                 f"per attack that allows {rate(gen['attacks_per_s_limit'])} attacks/s; the public API "
                 f"reaches {_pct(gen['compiled_fraction_of_limit'])} of it, the bare kernel "
                 f"{_pct(gen['kernel_fraction_of_limit'])}")
    if gen.get("lanes_attacks_per_s_limit"):
        lines.append(f"  the lane kernel's own limit: its eight generators side by side allow"
                     f" {rate(gen['lanes_attacks_per_s_limit'])} attacks/s, of which the public API reaches"
                     f" {_pct(gen['compiled_fraction_of_lanes_limit'])} and the bare kernel"
                     f" {_pct(gen['kernel_fraction_of_lanes_limit'])}; the bare eight-lane loop of the strike's"
                     f" d20s and a hit count (no crit chain, no damage) runs"
                     f" {rate(gen['lanes_dice_attacks_per_s'])} attacks/s")
    if gen.get("lanes_draws_attacks_per_s"):
        lines.append(f"  the kernel's draws alone (its d20s and crit chains in fracas's draw order, nothing"
                     f" computed from them) run {rate(gen['lanes_draws_attacks_per_s'])} attacks/s:"
                     f" {_pct(gen['draws_fraction_of_lanes_limit'])} of the generator limit, the ceiling of a"
                     f" lockstep kernel with the same dice (a lane that does not crit still steps through the"
                     f" masked crit draws); the public API reaches"
                     f" {_pct(gen['compiled_fraction_of_lanes_draws'])} of it")
    return lines


def _inverse(value: Optional[float]) -> Optional[float]:
    return 1 / value if value else None


def _pct(value: Optional[float]) -> str:
    return "—" if value is None else f"{value * 100:.1f}%"


def _engine_only(result: dict, key: str, number: int) -> list[str]:
    sc = result["scenarios"][key]
    rates, ratios, labels = sc["attacks_per_s"], sc["ratios"], sc["labels"]
    rows = [
        [labels["compiled"], rate(rates["compiled"]), "1.00×",
         ratio(_inverse(ratios.get("compiled_vs_kernel")))],
        [labels["kernel"], rate(rates["kernel"]), ratio(ratios.get("compiled_vs_kernel")), "1.00×"],
        [labels["python"], rate(rates["python"]), ratio(ratios.get("compiled_vs_python")),
         ratio(ratios.get("kernel_vs_python"))],
    ]
    lines = [f"Scenario {number} · {sc['title']}: {sc['description']} (single thread)"]
    lines += _table(["contestant", "attacks/s", "API ÷ this", "kernel ÷ this"], rows)
    return lines


def _ruleset(result: dict, key: str, number: int) -> list[str]:
    sc = result["scenarios"].get(key)
    if not sc:
        return []
    rates, ratios, labels = sc["attacks_per_s"], sc["ratios"], sc["labels"]
    rows = []
    for k in ("compiled", "python", "randint", "numpy"):
        if k not in labels:
            rows.append([f"{k} (not installed)", "—", "—"])
            continue
        rows.append([labels[k], rate(rates.get(k)), "1.00×" if k == "compiled" else ratio(ratios.get(f"compiled_vs_{k}"))])
    lines = [f"Scenario {number} · {sc['title']}: {sc['description']} (single thread)"]
    lines += _table(["contestant", "attacks/s", "fracas ÷ this"], rows)
    return lines


def _plugin(result: dict) -> list[str]:
    from .plugin_bench import table

    return table(result.get("plugin"))


def _fights(result: dict) -> list[str]:
    from .fights_bench import table

    return table(result.get("fights"))


def _fight_loop(result: dict) -> list[str]:
    from .fight_loop_bench import table

    return table(result.get("fight_loop"))


def _sweep(result: dict) -> list[str]:
    from .sweep_bench import table

    return table(result.get("sweep"))


def _startup(result: dict) -> list[str]:
    from .startup_bench import table

    return table(result.get("startup"))


def _odds(result: dict) -> list[str]:
    odds = result.get("odds")
    if not odds:
        return []
    secs, ratios, labels = odds["seconds"], odds["ratios"], odds["labels"]
    rows = []
    for key in ("fracas_cold", "fracas_warm", "icepool", "monte_carlo"):
        value = secs.get(key)
        if value is None:
            rows.append([f"{labels[key]} (not installed)", "—", "—"])
            continue
        rows.append([labels[key], f"{value * 1e3:.3f} ms",
                     "1.00×" if key == "fracas_cold" else ratio(ratios.get(f"{key}_vs_cold"))])
    lines = [f"Exact odds · {odds['description']} (best of several calls)"]
    lines += _table(["how", "per distribution", "÷ fracas cold"], rows)
    match = {True: "the same fractions as fracas", False: "DIFFERENT fractions", None: "not installed"}
    lines.append(f"  icepool: {match[odds['icepool_matches']]}; Monte Carlo over {odds['monte_carlo_attacks']:,} "
                 f"attacks: largest gap to the exact distribution {odds['monte_carlo_max_gap']:.5f}")
    if odds.get("largest_mob"):
        lines.append("  the largest mob the limits accept (max_mob_cost), answered whole with to_dict(): "
                     + "; ".join(f"{name} strike × {mob['count']} in {mob['seconds']:.2f} s"
                                 for name, mob in odds["largest_mob"].items()))
    return lines


def _bulk(result: dict) -> list[str]:
    bulk = result["bulk"]
    threads = bulk["threads"]
    rows = []
    for entry in bulk["sizes"]:
        r = entry["attacks_per_s"]
        rows.append([f"{entry['attacks']:,}", rate(r.get("compiled")), rate(r.get("compiled_cores")),
                     ratio(entry.get("cores_vs_single")), rate(r.get("kernel")),
                     ratio(entry.get("compiled_vs_kernel")), rate(r.get("numpy")),
                     ratio(entry.get("compiled_vs_numpy"))])
    lines = ["Scenario 4 · bulk: typical strikes in one fracas.resolve_bulk request, summary mode"]
    lines += _table(["attacks", "1 thread", f"{threads} threads", f"{threads} ÷ 1", "bare kernel",
                     "API ÷ kernel", "NumPy", "API ÷ NumPy"], rows)
    memory = bulk.get("memory")
    if memory:
        lines.append(f"  peak memory (fresh process each): {memory['small_attacks']:,} attacks "
                     f"{memory['small_peak_mb']:.1f} MB, {memory['large_attacks']:,} attacks "
                     f"{memory['large_peak_mb']:.1f} MB: {memory['delta_mb']:+.1f} MB")
        if memory.get("note"):
            lines.append(f"  ({memory['note']})")
    return lines


def _groups(result: dict) -> list[str]:
    rows = [[f"{g['groups']:,}", f"{g['attacks']:,}", f"{g['resolve_s'] * 1e3:,.1f} ms",
             f"{g['resolve_us_per_attack']:.3f} µs", f"{g['to_dict_s'] * 1e3:,.1f} ms",
             f"{g['to_dict_us_per_group']:.1f} µs",
             f"{g['first_call_s'] * 1e3:,.1f} ms" if g.get("first_call_s") is not None else "—"]
            for g in result["bulk"].get("groups") or []]
    if not rows:
        return []
    lines = ["Bulk over many groups · one request, single thread (each group its own target); resolve: the"
             " request again (its compiled plan reused), first call: checked and compiled"]
    return lines + _table(["groups", "attacks", "resolve", "per attack", "to_dict", "per group", "first call"], rows)


def _latency(result: dict) -> list[str]:
    api = result["api"]
    return [
        f"Single fracas.resolve, typical attack (median of {api['calls']:,} calls each)",
        f"  request as dict {api['single_resolve_us']:.1f} µs (p90 {api['single_resolve_p90_us']:.1f}) · "
        f"as JSON text {api['single_resolve_json_us']:.1f} µs · with to_dict() "
        f"{api['single_resolve_to_dict_us']:.1f} µs · pure-Python backend "
        f"{api['single_resolve_python_us']:.1f} µs",
        f"  the first call of a request shape (checked and compiled; later calls reuse the plan):"
        f" {api['single_resolve_first_us']:.1f} µs",
        *([f"  the same attack as a plain random.randint function: {api['single_plain_python_us']:.2f} µs;"
           f" resolve is {api['resolve_vs_plain']:.1f}× that, {api['resolve_to_dict_vs_plain']:.1f}× with to_dict()"]
          if "single_plain_python_us" in api else []),
        *([f"  one 300-attack bulk request with to_dict(): {api['bulk_300_us']:.1f} µs, {api['bulk_300_vs_dice']:.1f}×"
           f" its dice ({api['dice_300_us']:.1f} µs in the bare kernel)"] if "bulk_300_us" in api else []),
    ]


def _scaling(result: dict) -> list[str]:
    rows = [[f"{row['batch']:,}", rate(row["api_attacks_per_s"]), f"{row['api_us_per_call']:,.1f}",
             rate(row["kernel_attacks_per_s"]), f"{row['kernel_us_per_call']:,.1f}",
             ratio(row["api_vs_kernel"])] for row in result["scaling"]]
    lines = ["Scaling · attacks/s by batch size, typical strike, single thread"]
    lines += _table(["batch", "public API", "µs/call", "bare kernel", "µs/call", "API ÷ kernel"], rows)
    return lines


def _targets(result: dict) -> list[str]:
    rows = []
    for t in result["targets"]:
        sign = "≤" if t["at_most"] else "≥"
        target = f"{sign} {_figure(t['target'], t['unit'])}"
        mark = {True: "met", False: "NOT met", None: "not measured"}[t["met"]]
        rows.append([t["what"], target, _figure(t["measured"], t["unit"]), mark])
    return ["Targets (reported, not enforced)"] + _table(["target", "wanted", "measured", ""], rows)


def _figure(value: Optional[float], unit: str) -> str:
    if value is None:
        return "—"
    if unit == "×":
        return ratio(value)
    if unit == "attacks/s":
        return rate(value) + "/s"
    if unit == "fights/s":
        return f"{rate(value)} fights/s"
    if unit == "":
        return _pct(value)
    return f"{value:.1f} {unit}"


def format_report(result: dict, bridge_text: Optional[str] = None) -> str:
    """Every table of a result document, ready to print."""
    m = result["machine"]
    head = [
        f"fracas bench · fracas {result['fracas_version']} · {'quick' if result['quick'] else 'full'} run · "
        f"{result['rounds']} interleaved round{'' if result['rounds'] == 1 else 's'}, medians; "
        f"ratios are medians of same-round pairs",
        f"{result['date']} · {m['cpu']} · {m['cores']} cores · {m['platform']} · Python {m['python']}",
    ]
    start, end = m.get("load_average_start"), m.get("load_average_end")
    if start is not None and end is not None:
        busy = " (other work was competing for the cores)" if max(start, end) >= 0.5 * m["cores"] else ""
        head.append(f"load average {start:.2f} at the start, {end:.2f} at the end, on "
                    f"{m['cores']} cores{busy}")
    if result.get("scale", 1.0) != 1.0:
        head.append(f"scaled run (--scale {result['scale']}): sizes and sample times shrunk")
    parts = [head, _typical(result), _engine_only(result, "heavy", 2), _engine_only(result, "multi", 3),
             _bulk(result), _groups(result), _ruleset(result, "cartyrion", 5),
             _ruleset(result, "worldwalker", 6), _ruleset(result, "pool", 7), _plugin(result), _latency(result), _odds(result), _fights(result),
             _fight_loop(result), _sweep(result), _startup(result), _scaling(result), _targets(result)]
    if bridge_text:
        parts.append(["Bridge", *("  " + line for line in bridge_text.splitlines())])
    parts.append([f"({result['elapsed_s']:.1f} s)"])
    return "\n\n".join("\n".join(p) for p in parts) + "\n"


def format_comparison(before: dict[str, Any], now: dict[str, Any], label: str = "earlier run") -> str:
    """`fracas bench --compare FILE`: every target's figure in an earlier `--json` output and
    in this run, side by side, with the change (better or worse, by the target's direction).
    Both runs' own conditions are shown: figures from different machines or scales compare badly."""
    from .suite import evaluate_targets

    def targets(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
        listed = result.get("targets") or evaluate_targets(result)
        return {t["key"]: t for t in listed}

    old, new = targets(before), targets(now)
    rows = []
    for key, t in new.items():
        was = old.get(key, {}).get("measured")
        is_ = t["measured"]
        if was is None or is_ is None or not was:
            change = "—"
        else:
            factor = is_ / was
            better = factor < 1 if t["at_most"] else factor > 1
            change = f"{factor:.2f}× ({'better' if better else 'worse' if factor != 1 else 'same'})"
        rows.append([t["what"], _figure(was, t["unit"]), _figure(is_, t["unit"]), change])

    def conditions(result: dict[str, Any]) -> str:
        machine = result.get("machine") or {}
        parts = [str(result.get("date", "?")), str(machine.get("cpu", "?")), f"{machine.get('cores', '?')} cores",
                 "quick" if result.get("quick") else "full"]
        if result.get("scale", 1.0) != 1.0:
            parts.append(f"scale {result['scale']}")
        return ", ".join(parts)

    lines = [f"Compared with {label} ({conditions(before)}); this run: {conditions(now)}"]
    return "\n".join(lines + _table(["target", "before", "now", "now ÷ before"], rows))
