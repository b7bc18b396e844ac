"""`fracas doctor`: check this install (backend, speed, files, config, the bridge's port)."""

from __future__ import annotations

import os
import sys

import click

import fracas

from .common import style
from .config import config_file, profiles_file


@click.command(short_help="Check this install: backend, speed, files, config and the bridge's port.")
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True,
              help="The bridge port to check.")
@click.pass_context
def doctor(ctx: click.Context, port: int) -> None:
    """Check this install: which dice backend runs and why, how fast it rolls, where the
    journal and the bridge token live, whether the config file reads, and whether the
    bridge's port is free. Exits 1 when it reports a [problem]."""
    import socket
    import time

    from .. import _kernels

    ok = style("ok", fg="green")
    bad = style("problem", fg="red", bold=True)
    problems = 0

    def verdict(fine: bool) -> str:
        nonlocal problems
        problems += not fine
        return ok if fine else bad

    click.echo(f"fracas {fracas.__version__}, Python {sys.version.split()[0]} ({sys.executable})")
    click.echo(f"  backend   {fracas.backend}: {_kernels.why()} [{verdict(not _kernels.missing_compiled())}]")
    n = 200_000 if fracas.backend == "compiled" else 5_000
    request = {"profiles": {"p": {"attacker": {"strength": 2, "strength_mod": 1}, "strikes": [
                   {"method": "melee", "style": "slashing", "dice": 3, "weight": 1, "damage_type": "edged"}]}},
               "targets": {"t": {"ac": 14}}, "attacks": [{"profile": "p", "target": "t", "count": n}]}
    start = time.perf_counter()
    fracas.resolve_bulk(request, seed=1, threads=1)
    rate = n / (time.perf_counter() - start)
    click.echo(f"  speed     {rate:,.0f} typical attacks/s on one thread (3d20 +2 vs AC 14; fracas bench measures more)")
    path, config_problem = ctx.meta.get("fracas.config", (config_file(), None))
    if config_problem is not None:
        click.echo(f"  config    {config_problem.message} [{verdict(False)}]")
    else:
        click.echo(f"  config    {path} ({'read' if os.path.exists(path) else 'none: defaults'})")
    click.echo(f"  profiles  {profiles_file()} ({'exists' if os.path.exists(profiles_file()) else 'none yet'})")
    try:
        from fracas.bridge.cli import default_journal, token_file
    except ImportError:
        click.echo(f"  bridge    not installed [{verdict(False)}]")
    else:
        journal, token = default_journal(), token_file()
        click.echo(f"  journal   {journal} ({'exists' if os.path.exists(journal) else 'made on the first fracas serve'})")
        click.echo(f"  token     {token} ({'exists' if os.path.exists(token) else 'made on the first fracas serve'})")
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            if os.name == "posix":
                # as fracas serve binds (asyncio's reuse_address, on by default on POSIX): a port
                # whose last connection is in TIME_WAIT is free for it. Not on Windows, where
                # SO_REUSEADDR would let the probe bind a port another program listens on.
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("127.0.0.1", port))
                click.echo(f"  port      127.0.0.1:{port} is free for fracas serve [{verdict(True)}]")
            except OSError:
                click.echo(f"  port      127.0.0.1:{port} is in use: a fracas serve already running, or another "
                           f"program (fracas serve --port N picks another) [{verdict(False)}]")
    if problems:
        click.echo(f"{problems} problem{'s' if problems != 1 else ''} found", err=True)
        ctx.exit(1)
