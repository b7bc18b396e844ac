"""Readable breakdowns of results: a renderer per output, one hook per node.

A renderer walks a result document (the JSON-ready dicts of docs/ENGINE.md §7 and
the bulk summary) and asks one hook per node for its text: `die`, `crit_die`,
`strike`, `target`, `bulk_target`, `group`, … Rolling never depends on output: a new
output (a chat card, Markdown) is a new subclass of `Renderer`, not new branches.
`TerminalRenderer` is the one the `fracas` CLI prints for Enchanted Realms results.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

#: How a die joined the pool, as shown next to its face.
SOURCES = {"skill": "", "advantage": "adv ", "sneak": "sneak ", "disadvantage": "disadv "}
RESISTANCE = {"normal": "", "resistant": "resistant: halved", "vulnerable": "vulnerable: doubled",
              "immune": "immune: no damage"}
SPARKS = "▁▂▃▄▅▆▇█"


def _signed(value: int) -> str:
    return f"+{value}" if value >= 0 else str(value)


class Renderer:
    """Walks a result; subclasses say how each node reads.

    `render(result)` picks the walk by the document's kind (one attack, a bulk
    summary, an initiative order). The walks (`attack`, `bulk`, `initiative`) call
    the hooks and join what they return.
    """

    def render(self, result: dict[str, Any]) -> str:
        if "order" in result:
            return self.initiative(result)
        if "groups" in result:
            return self.bulk(result)
        return self.attack(result)

    # -- walks -----------------------------------------------------------------------
    def attack(self, result: dict[str, Any]) -> str:
        parts = [self.attack_header(result)]
        for index, strike in enumerate(result["strikes"]):
            dice = [self.die(die, strike) for die in strike["dice"]]
            chain = [self.crit_die(link, strike) for link in strike["crit_chain"]]
            parts.append(self.strike(index, strike, dice, chain))
        targets = [self.target(tid, target) for tid, target in result["targets"].items()]
        parts.append(self.targets(targets))
        parts.append(self.attack_footer(result))
        return self.join(parts)

    def bulk(self, result: dict[str, Any]) -> str:
        parts = [self.bulk_header(result)]
        parts.append(self.bulk_targets([(tid, t) for tid, t in result["targets"].items()]))
        parts.append(self.groups(list(enumerate(result["groups"]))))
        parts.append(self.bulk_footer(result))
        return self.join(parts)

    def initiative(self, result: dict[str, Any]) -> str:
        rows = [self.combatant(rank, entry) for rank, entry in enumerate(result["order"], 1)]
        return self.join([self.initiative_header(result), *rows])

    # -- hooks -----------------------------------------------------------------------
    def join(self, parts: list[str]) -> str:
        return "\n".join(part for part in parts if part)

    def attack_header(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    def die(self, die: dict[str, Any], strike: dict[str, Any]) -> str:
        raise NotImplementedError

    def crit_die(self, link: dict[str, Any], strike: dict[str, Any]) -> str:
        raise NotImplementedError

    def strike(self, index: int, strike: dict[str, Any], dice: list[str], chain: list[str]) -> str:
        raise NotImplementedError

    def target(self, tid: str, target: dict[str, Any]) -> str:
        raise NotImplementedError

    def targets(self, rendered: list[str]) -> str:
        raise NotImplementedError

    def attack_footer(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    def bulk_header(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    def bulk_targets(self, targets: list[tuple[str, dict[str, Any]]]) -> str:
        raise NotImplementedError

    def groups(self, groups: list[tuple[int, dict[str, Any]]]) -> str:
        raise NotImplementedError

    def bulk_footer(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    def initiative_header(self, result: dict[str, Any]) -> str:
        raise NotImplementedError

    def combatant(self, rank: int, entry: dict[str, Any]) -> str:
        raise NotImplementedError


def _plain(text: str, **_style: Any) -> str:
    return text


class TerminalRenderer(Renderer):
    """Plain text for a terminal, optionally styled (`style` is `click.style`)."""

    def __init__(self, style: Optional[Callable[..., str]] = None):
        self.style = style or _plain

    # -- one attack ------------------------------------------------------------------
    def attack_header(self, result: Any) -> Any:
        bits = [f"seed {result['seed']}", result["ruleset"], f"{result.get('backend', '?')} backend"]
        if result.get("injected"):
            bits.append("injected dice")
        return self.style("Attack", bold=True) + " · " + " · ".join(bits)

    def die(self, die: Any, strike: Any) -> Any:
        text = f"{SOURCES.get(die['source'], die['source'] + ' ')}{die['face']}→{die['total']}"
        if die["face"] == 20:
            return self.style(text + " hit (natural 20)", fg="yellow", bold=True)
        if die["hit"]:
            return self.style(text + " hit", fg="green")
        if die["face"] == 1:
            return self.style(text + " miss (natural 1)", dim=True)
        return self.style(text + " miss", dim=True)

    def crit_die(self, link: Any, strike: Any) -> Any:
        text = f"{link['face']}→{link['total']}"
        if link["hit"]:
            text += f" hit, d3 {link['damage']}"
        else:
            text += " miss"
        if link["face"] == 20:
            text += " (20: another crit die)"
        return self.style(text, fg="yellow" if link["hit"] else None, dim=not link["hit"])

    def strike(self, index: Any, strike: Any, dice: Any, chain: Any) -> Any:
        flags = [name for name in ("advantage", "disadvantage") if strike.get(name)]
        if strike.get("sneak"):
            flags.append("sneak" if strike["sneak"] is True else f"sneak ({strike['sneak']})")
        crit = "no crits" if strike["crit_range"] is None else (
            "crits on 20" if strike["crit_range"] == 20 else f"crits on {strike['crit_range']}-20")
        head = (f"Strike {index + 1} → {strike['target']}: {strike['method']}, {strike['style']}, "
                f"{strike['damage_type']} · {len(strike['dice'])}d20 {_signed(strike['to_hit'])} "
                f"vs AC {strike['ac']} · {crit}")
        if flags:
            head += " · " + ", ".join(flags)
        lines = [self.style(head, bold=True), "  dice        " + " · ".join(dice)]
        if strike.get("discarded") is not None:
            lines.append(f"  discarded   {strike['discarded']} (highest die, disadvantage)")
        if chain:
            lines.append("  crit chain  " + " · ".join(chain))
        summary = [f"{strike['hits']} hit" + ("" if strike["hits"] == 1 else "s")]
        if strike["crit"]:
            summary.append(f"crit ({len(strike['crit_chain'])} crit "
                           f"{'die' if len(strike['crit_chain']) == 1 else 'dice'})")
        summary.append(f"base {strike['base']}")
        if strike.get("modifier") is not None:
            summary.append(f"modifier {_signed(strike['modifier'])}")
        if RESISTANCE.get(strike["resistance"]):
            summary.append(RESISTANCE[strike["resistance"]])
        summary.append(self.style(f"damage {strike['damage']}", bold=True))
        if strike.get("undodgeable"):
            summary.append(f"undodgeable {strike['undodgeable']}")
        lines.append("  result      " + " · ".join(summary))
        return "\n".join(lines)

    def target(self, tid: Any, target: Any) -> Any:
        by_type = ", ".join(f"{kind} {amount}" for kind, amount in target["by_type"].items())
        text = f"  {tid}: " + self.style(f"{target['damage']} damage", bold=True)
        if by_type:
            text += f" ({by_type})"
        if target.get("undodgeable"):
            text += f" · undodgeable {target['undodgeable']}"
        save = target.get("shock_save")
        if save:
            if save.get("roll") is None:
                text += f" · shock: Resilience save DC {save['dc']} required"
            else:
                verdict = "passed" if save["passed"] else (
                    f"failed: incapacitated for {save['incapacitated_actions']} actions")
                text += f" · shock save DC {save['dc']}: rolled {save['roll']} → {save['total']}, {verdict}"
        elif target.get("shock_save_dc") is not None:
            text += f" · shock: Resilience save DC {target['shock_save_dc']} required"
        return text

    def targets(self, rendered: Any) -> Any:
        return self.style("Targets", bold=True) + "\n" + "\n".join(rendered)

    def attack_footer(self, result: Any) -> Any:
        return self.style(f"Total damage: {result['total_damage']}", bold=True)

    # -- bulk ------------------------------------------------------------------------
    def bulk_header(self, result: Any) -> Any:
        return (self.style("Bulk", bold=True) + f" · {result['attacks_total']:,} attacks · "
                f"{result['ruleset']} · detail {result.get('detail', 'summary')}\n"
                f"  seed {result['seed']} · {result.get('backend', '?')} backend")

    def bulk_targets(self, targets: Any) -> Any:
        # Short headers and two-space gaps: the table fits 80 columns (a crit chain's length, undodgeable damage).
        header = ["target", "damage", "by type", "attacks", "hit", "crits", "chain", "undodge"]
        rows = []
        for tid, t in targets:
            hit = f"{t['attacks_hit']:,}"
            if t["attacks"]:
                hit += f" ({t['attacks_hit'] / t['attacks']:.1%})"
            rows.append([tid, f"{t['damage']:,}",
                         ", ".join(f"{k} {v:,}" for k, v in t["by_type"].items()) or "—",
                         f"{t['attacks']:,}", hit, f"{t['crits']:,}", f"{t['longest_chain']}",
                         f"{t['undodgeable']:,}"])
        return self.style("Targets", bold=True) + "\n" + "\n".join(table(header, rows, "lrlrrrrr"))

    def groups(self, groups: Any) -> Any:
        header = ["#", "profile", "target", "count", "hit", "mean", "crits", "damage histogram"]
        rows = []
        for index, g in groups:
            target = g["target"] if isinstance(g["target"], str) else ", ".join(g["target"])
            rows.append([str(index + 1), g["profile"], target, f"{g['count']:,}", f"{g['hit_rate']:.1%}",
                         f"{g['mean_damage']:.2f}", f"{g['crits']:,}", sparkline(g["histogram"])])
        return self.style("Groups", bold=True) + "\n" + "\n".join(table(header, rows, "rllrrrrl"))

    def bulk_footer(self, result: Any) -> Any:
        text = self.style(f"Total damage: {result['total_damage']:,}", bold=True)
        if "attacks" in result:
            text += f"\n({len(result['attacks']):,} attacks listed one by one: see --json)"
        return text

    # -- initiative ------------------------------------------------------------------
    def initiative_header(self, result: Any) -> Any:
        return self.style("Initiative", bold=True) + f" · seed {result['seed']} · {result['ruleset']}"

    def combatant(self, rank: Any, entry: Any) -> Any:
        text = (f"  {rank}. {entry['id']}: d10 {entry['roll']} {_signed(entry['modifier'])} = "
                f"{entry['total']}")
        if entry.get("tiebreaks"):
            text += " · tie broken by d20 " + ", ".join(str(f) for f in entry["tiebreaks"])
        return text


def sparkline(histogram: list[int]) -> str:
    """Damage 0, 1, 2, … as bar heights: `0▇▁▃█▅▂ 6` (the last bin is 'that much or more')."""
    if not histogram or not any(histogram):
        return "—"
    top = max(histogram)
    bars = "".join(" " if n == 0 else SPARKS[(n * len(SPARKS) - 1) // top] for n in histogram)
    return f"0{bars}{len(histogram) - 1}"


def table(header: list[str], rows: list[list[str]], align: str = "", indent: str = "  ") -> list[str]:
    """Columns padded to width; `align` has one 'l' or 'r' per column (default: the
    first left, the rest right)."""
    align = align or "l" + "r" * (len(header) - 1)
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    out = []
    for row in [header, *rows]:
        cells = [cell.ljust(widths[i]) if align[i] == "l" else cell.rjust(widths[i])
                 for i, cell in enumerate(row)]
        out.append(indent + "  ".join(cells).rstrip())
    return out
