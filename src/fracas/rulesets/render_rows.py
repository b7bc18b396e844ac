"""Terminal text for Worldwalker, Cartyrion and old-school results (the `fracas` CLI).

One walk for the three: a header, a line per strike (the ruleset's own `line`), the
targets' totals; bulk summaries and initiative, side initiative and morale results
are read by their keys. Plain text when `style` is None, colours with `click.style`.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Optional, Sequence, Union


#: One strike as text: a line (the strike's summary), or a list whose first item heads the
#: strike and whose other items are its rows (`row(label, text)`), as Enchanted Realms':
#: the dice, the total, against what, what it did (the damage row last).
StrikeText = Union[str, Sequence[str]]


def row(label: str, text: str) -> str:
    """One row under a strike's heading: a label, then what it says."""
    return f"{label:<11} {text}"


def signed(value: int) -> str:
    return f"+{value}" if value >= 0 else f"−{-value}"


def faces(dice: Sequence[int]) -> str:
    return " + ".join(map(str, dice))


def render(result: dict[str, Any], style: Optional[Callable[..., str]], title: str,
           line: Callable[[dict[str, Any]], StrikeText],
           target_line: Optional[Callable[[dict[str, Any]], str]] = None,
           attacker_line: Optional[Callable[[dict[str, Any]], Optional[str]]] = None) -> str:
    def bold(text: str) -> str:
        return style(text, bold=True) if style else text

    out: list[str] = []
    if "strikes" in result:
        bits = [f"seed {result['seed']}"]
        if result.get("backend"):
            bits.append(f"{result['backend']} backend")
        if result.get("injected"):
            bits.append("injected dice")
        out.append(bold(f"{title} attack") + " · " + " · ".join(bits))
        for i, strike in enumerate(result["strikes"]):
            text = line(strike)
            if isinstance(text, str):
                out.append(f"Strike {i + 1} → {strike['target']}: {text} → {bold(str(strike['damage']))} damage")
            else:
                head, *rows = text
                out.append(bold(f"Strike {i + 1} → {strike['target']}: {head}"))
                out += [f"  {r}" for r in rows]
        out.append(bold("Targets"))
        for tid, target in result["targets"].items():
            if target_line is not None:
                extra = target_line(target)
            else:
                extra = ", ".join(f"{k} {v}" for k, v in target.items() if k != "damage" and not isinstance(v, dict))
            out.append(f"  {tid}: {bold(str(target['damage']))} damage" + (f" ({extra})" if extra else ""))
        if "attacker" in result:
            said = attacker_line(result["attacker"]) if attacker_line is not None else \
                ", ".join(f"{k} {v}" for k, v in result["attacker"].items())
            if said:
                out.append(f"Attacker: {said}")
        out.append(f"Total damage: {bold(str(result['total_damage']))}")
    elif "groups" in result:
        out.append(bold(f"{title} bulk") + f": {result['attacks_total']:,} attacks (seed {result['seed']})")
        for tid, target in result["targets"].items():
            out.append(f"  {tid}: " + ", ".join(f"{k} {v:,}" for k, v in target.items()))
        for g in result["groups"]:
            out.append(f"  {g['profile']} → {g['target']}: {g['count']:,} attacks, mean {g['mean_damage']:.2f}, "
                       f"hit rate {g['hit_rate']:.1%}")
        out.append(f"  total: {bold(format(result['total_damage'], ','))} damage")
    elif "order" in result and result["order"] and isinstance(result["order"][0], dict):
        out.append(bold(f"{title} initiative") + f" (seed {result['seed']})")
        for rank, e in enumerate(result["order"], 1):
            ties = f" (roll-offs {', '.join(map(str, e['tiebreaks']))})" if e.get("tiebreaks") else ""
            out.append(f"  {rank}. {e['id']}: {e['roll']} {e['modifier']:+d} = {e['total']}{ties}")
    elif "first" in result:  # CT-1 side initiative
        surprised = f"; {result['surprised']} surprised" if result["surprised"] else ""
        ambush = f", {result['ambush']} ambushing" if result["ambush"] != "none" else ""
        out.append(bold(f"{title} initiative") + f", round {result['round']}{ambush} (seed {result['seed']})")
        out.append(f"  d6 {result['roll']}: {bold(result['first'])} act first{surprised}")
    elif "sides" in result:  # OS-1 side initiative
        out.append(bold(f"{title} side initiative") + f", ties {result['ties']} (seed {result['seed']})")
        for side in result["sides"]:
            rolled = "waits" if side["wait"] else f"d6 {side['roll']}" + (
                f" (re-rolls {', '.join(map(str, side['tiebreaks']))})" if side["tiebreaks"] else "")
            out.append(f"  {side['id']}: {rolled}")
        out.append("  order: " + " → ".join(" + ".join(group) for group in result["order"]))
    elif "morale" in result:  # OS-4
        out.append(bold(f"{title} morale") + f" {result['morale']}{result['modifier']:+d} (seed {result['seed']})")
        if not result["checked"]:
            out.append("  no check: fights to the death")
        else:
            verdict = bold("breaks") if result["breaks"] else "holds"
            out.append(f"  2d6 {'+'.join(map(str, result['dice']))} = {result['total']}: {verdict}"
                       f" ({result['successes']} check{'s' if result['successes'] != 1 else ''} passed"
                       f"{', fights to the death' if result['fights_to_death'] else ''})")
    else:
        out.append(bold(f"{title}") + f" (seed {result['seed']})")
        out.append(json.dumps({k: v for k, v in result.items() if k not in ("ruleset", "seed")}, indent=2))
    return "\n".join(out)
