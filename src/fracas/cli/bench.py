"""`fracas bench`: the benchmark suite (and the bridge's with --bridge)."""

from __future__ import annotations

import sys
from typing import Any

import click

from .common import _load_json, warn_if_slow


@click.command()
@click.option("--quick", is_flag=True,
              help="The CI size: under a minute on 2 cores, bulk at 10^6, no 10^8 memory run.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True), default=None,
              metavar="PATH", help="Also write every figure as JSON to PATH.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, writable=True), default=None,
              metavar="PATH", help="Draw the scaling table (attacks/s by batch size) as a PNG "
                                   "(needs matplotlib).")
@click.option("--bridge", is_flag=True,
              help="Also measure the websocket bridge: round-trip latency and a large request "
                   "end to end, against the engine in-process.")
@click.option("--rounds", type=click.IntRange(1, 101), default=None,
              help="Interleaved rounds per table [default: 5 with --quick, else 7].")
@click.option("--threads", type=click.IntRange(1, 256), default=None,
              help="Threads for the 'every core' bulk figure [default: the cores this process may use].")
@click.option("--scale", type=click.FloatRange(1e-4, 10.0), default=1.0, show_default=True,
              help="Multiply every size and sample time (0.01 for a smoke test); scaled "
                   "figures are not comparable with full ones.")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar on stderr [default: when stderr is a terminal].")
@click.option("--compare", "compare_path", type=click.Path(exists=True, dir_okay=False), default=None,
              metavar="FILE", help="Also show each target's change against an earlier --json output.")
def bench(quick: Any, json_path: Any, plot_path: Any, bridge: Any, rounds: Any, threads: Any, scale: Any,
          progress: Any, compare_path: Any) -> None:
    """Measure fracas side by side with what people write instead.

    Scenarios (typical strike, heavy, multi-strike, bulk), each timed in interleaved
    rounds against the pure-Python backend, a random.randint loop, a NumPy batch and
    the d20 library, plus the generator's own limit, single-call latency, scaling by
    batch size and bulk memory. Prints attacks/s and ratios; targets are reported,
    never enforced.
    """
    warn_if_slow()
    from fracas.benchmarks.report import format_report
    from fracas.benchmarks.suite import Options, Suite

    from .. import _kernels

    if "compiled" not in _kernels.available():
        raise click.ClickException("the compiled core is not built in this install; "
                                   "fracas bench measures it against the rest")
    earlier = None
    if compare_path:
        try:
            with open(compare_path, "rb") as handle:
                earlier = _load_json(handle.read(), f"--compare {compare_path}")
        except OSError as exc:
            raise click.BadParameter(f"cannot read {compare_path}: {exc.strerror}", param_hint="--compare") from None
        if not isinstance(earlier, dict) or "targets" not in earlier or "scenarios" not in earlier:
            raise click.BadParameter(f"{compare_path} is not the --json output of fracas bench",
                                     param_hint="--compare")
    if plot_path:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise click.UsageError("--plot needs matplotlib: pip install matplotlib (it is in the bench extra)") from None
    bridge_module: Any = None
    if bridge:
        try:
            from fracas.benchmarks import bench_bridge

            bridge_module = bench_bridge
        except ImportError as err:
            raise click.UsageError(f"--bridge: the bridge benchmark is not available ({err})") from None
    suite = Suite(Options(quick=quick, rounds=rounds, scale=scale, bridge=bridge, threads=threads),
                  bridge_module=bridge_module)
    show = sys.stderr.isatty() if progress is None else progress
    if show:
        bar: Any
        with click.progressbar(length=suite.total_steps, label="fracas bench", file=sys.stderr,
                               show_eta=True, item_show_func=lambda _: suite.label) as bar:
            result = suite.run(lambda: bar.update(1))
    else:
        result = suite.run()
    bridge_text = bridge_module.format(result["bridge"]) if bridge_module and result.get("bridge") else None
    click.echo(format_report(result, bridge_text))
    if earlier is not None:
        from fracas.benchmarks.report import format_comparison

        click.echo("")
        click.echo(format_comparison(earlier, result, compare_path))
    if json_path:
        import orjson

        with open(json_path, "wb") as out:
            out.write(orjson.dumps(result, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY))
            out.write(b"\n")
        click.echo(f"wrote {json_path}", err=True)
    if plot_path:
        from fracas.benchmarks.plot import plot_scaling

        plot_scaling(result, plot_path)
        click.echo(f"wrote {plot_path}", err=True)
