"""`fracas odds`: an attack's exact damage distribution per target, as text, JSON or a plot."""

from __future__ import annotations

from typing import Any, Optional

import click

import fracas

from .. import rulesets
from .common import RequestRejected, _AttackCommand, _engine_call, _load_json, _ruleset_option, style, warn_if_slow


BARS = "▏▎▍▌▋▊▉█"


def _bar(p: float, peak: float, width: int = 30) -> str:
    """An inline histogram bar of probability `p` scaled to the most likely value."""
    cells = p / peak * width if peak else 0.0
    full = int(cells)
    part = int((cells - full) * 8)
    return "█" * full + (BARS[part - 1] if part else "")


def render_odds(result: dict[str, Any], style: Any=None) -> str:
    """The odds as a compact table and a text histogram per target."""
    def bold(text: str) -> str:
        return str(style(text, bold=True)) if style else text

    count = result["count"]
    lines = [bold(f"{rulesets.get(result['ruleset']).title} odds") +
             (f" for {count} identical attacks" if count > 1 else "")]
    for tid, t in result["targets"].items():
        facts = [f"mean {t['mean']:.3f}", f"sd {t['sd']:.3f}", f"P(hit) {t['p_hit']:.2%}"]
        if "p_crit" in t:
            facts.append(f"P(crit) {t['p_crit']:.2%}")
        if "p_drop" in t:
            facts.append(f"P(drops at {t['remaining']}) {t['p_drop']:.2%}")
        facts += [f"P(≥{n}) {p:.2%}" for n, p in t["p_at_least"].items()]
        lines.append(f"  {bold(tid)}: " + " · ".join(facts))
        shown = [(v, p) for v, p in t["distribution"] if p >= SHOWN]
        peak = max((p for _, p in shown), default=0.0)
        for v, p in shown[:40]:
            lines.append(f"    {v:>5}  {p:7.2%}  {_bar(p, peak)}")
        if len(shown) > 40:
            lines.append(f"    … {len(shown) - 40} more values (--json for all)")
    lines.append(f"  ({result['cut']:.1e} of the probability is past a cut chain: counted short)"
                 if result["cut"] else "  (exact)")
    return "\n".join(lines)


#: The least probability a plot or the text histogram shows; the x-axis ends at the last such value.
SHOWN = 0.0005


def odds_figure(result: dict[str, Any]) -> Any:
    """The distributions as a matplotlib figure: bars per target, whole-number ticks, the
    x-axis ending at the last value with at least SHOWN probability (a crit chain's long
    tail of tiny probabilities would otherwise squeeze the bars to the left)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(7, 4))
    shown = []
    for tid, t in result["targets"].items():
        values = [v for v, _ in t["distribution"]]
        probs = [p for _, p in t["distribution"]]
        ax.bar(values, probs, alpha=0.6, label=f"{tid} (mean {t['mean']:.2f})")
        shown += [v for v, p in t["distribution"] if p >= SHOWN]
    if shown:
        ax.set_xlim(min(shown) - 0.6, max(shown) + 0.6)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("damage")
    ax.set_ylabel("probability")
    ax.set_title(f"fracas odds ({result['ruleset']})")
    ax.legend()
    fig.tight_layout()
    return fig


def _plot_odds(result: dict[str, Any], path: str) -> None:
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise click.UsageError("--plot needs matplotlib: pip install 'fracas[plot]'") from None
    fig = odds_figure(result)
    fig.savefig(path)
    plt.close(fig)
    click.echo(f"wrote {path}", err=True)


def _remaining(items: tuple[str, ...], target: Optional[str]) -> dict[str, Any]:
    out = {}
    for item in items:
        tid, sep, value = item.rpartition("=")
        if not sep:
            if target is None:
                raise click.BadParameter(f"{item!r}: give TARGET=N for a request file", param_hint="--remaining")
            tid = target
        try:
            out[tid] = int(value)
        except ValueError:
            raise click.BadParameter(f"{item!r}: N must be a whole number", param_hint="--remaining") from None
    return out


#: Where to turn when a mob is too large to enumerate exactly.
MOB_HINT = ("; odds enumerate every outcome exactly, which a mob this large does not allow: estimate it by"
            " playing it many times instead, with `fracas simulate SCENARIO --runs N` (a scenario of the fight)"
            " or `fracas attack --bulk FILE` (one volley of many attacks)")


def _odds_call(request: Any, **kwargs: Any) -> Any:
    """`fracas.odds` through `_engine_call`; a count past what can be enumerated points at simulation."""
    try:
        return _engine_call(fracas.odds, request, **kwargs)
    except RequestRejected as err:
        if err.message.startswith("$.count:") and ("attacks" in err.message or "out of range" in err.message):
            raise RequestRejected(err.message + MOB_HINT) from None
        raise


@click.command(cls=_AttackCommand, short_help="Exact odds of an attack: damage distribution, P(hit), P(crit), P(drop).")
@click.option("--request", "request_file", type=click.File("rb"), default=None, metavar="FILE",
              help="An attack request in JSON ('-' for stdin) instead of attack flags.")
@click.option("--count", type=click.IntRange(1), default=None,
              help="The total of this many identical attacks (a mob against its targets) [default: 1,"
                   " or the request file's count].")
@click.option("--remaining", multiple=True, metavar="[TARGET=]N",
              help="Body/Stamina/HP the target has left: adds the chance it drops; repeatable.")
@click.option("--at-least", "at_least", multiple=True, type=int, metavar="N",
              help="Adds P(damage >= N); repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--plot", "plot", type=click.Path(dir_okay=False), default=None, metavar="FILE.png",
              help="Draw the distributions (needs matplotlib: the plot extra).")
@click.option("--ruleset", "ruleset_name", default=rulesets.DEFAULT, show_default=True, metavar="NAME",
              callback=_ruleset_option,
              help="The ruleset whose flags describe the attack (a request file names its own).")
@click.pass_context
def odds(ctx: click.Context, /, request_file: Any, count: Any, remaining: Any, at_least: Any, as_json: Any, plot: Any, ruleset_name: Any, **flags: Any) -> None:
    """Exact odds of an attack: the damage distribution per target, its mean and spread,
    the chance to hit (and crit), to reach N damage and to drop the target.

    Takes the flags of `fracas attack` (`--ruleset NAME --help` for another ruleset's)
    or --request FILE, e.g. `fracas odds --dice 3 --bonus 2 --ac 14 --weight 1 --str 4`.
    """
    warn_if_slow()
    flags_given = [name for name in flags
                   if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE]
    if request_file is not None and flags_given:
        raise click.UsageError("give --request FILE or attack flags, not both")
    # What the command line gives wins over the request file's own count, remaining, at_least.
    extra: dict[str, Any] = {}
    if count is not None:
        extra["count"] = count
    if at_least:
        extra["at_least"] = list(at_least)
    if request_file is not None:
        payload = _load_json(request_file.read(), "the request")
        if remaining:
            extra["remaining"] = _remaining(remaining, None)
        result = _odds_call(payload, **extra)
    elif flags_given:
        ruleset = rulesets.get(ruleset_name, "--ruleset")
        built = ruleset.request_from_flags(flags)
        if remaining:
            extra["remaining"] = _remaining(remaining, next(iter(built["targets"])))
        result = _odds_call(built, flags=(ruleset, flags), **extra)
    else:
        raise click.UsageError("no attack: give flags such as --dice 3 --ac 14, or --request FILE")
    data = result.to_dict()
    if plot:
        _plot_odds(data, plot)
    if as_json:
        import orjson

        click.echo(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode())
    else:
        click.echo(render_odds(data, style))
