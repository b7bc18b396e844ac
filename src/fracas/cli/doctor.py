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
    bridge's port is free, and the journal's integrity (read only: PRAGMA quick_check).
    Exits 1 when it reports a [problem]."""
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
    click.echo(f"  rulesets  {', '.join(fracas.rulesets.names())}")
    for why in fracas.rulesets.failed().values():  # an installed ruleset left out: say which and why
        click.echo(f"  plug-in   {why} [{verdict(False)}]")
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
        fine, said = check_journal(journal)
        click.echo(f"  journal   {journal} ({said})" + ("" if fine is None else f" [{verdict(fine)}]"))
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


def check_journal(path: str) -> tuple[bool | None, str]:
    """(fine, what to say) of the journal at ``path``; fine is None when there is none yet.

    Read only, and only through SQLite (``PRAGMA quick_check``): the file is never opened
    here otherwise, since closing any descriptor of it would drop the locks a running
    bridge's SQLite holds (issue 46). With no ``-wal`` beside it (no bridge running, all
    checkpointed) it is read as immutable, so that not even a ``-shm`` is made."""
    import sqlite3
    import urllib.parse

    from ..store import StoreError, check_kept

    try:
        check_kept(path)
    except StoreError as exc:
        return False, str(exc)
    if not os.path.exists(path):
        return None, "none yet: made on the first fracas serve"
    if os.path.getsize(path) == 0:
        return None, "empty: fracas serve makes its tables"
    immutable = not os.path.exists(path + "-wal")
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro" + ("&immutable=1" if immutable else "")
    try:
        db = sqlite3.connect(uri, uri=True, timeout=5)
        try:
            problems = [row[0] for row in db.execute("PRAGMA quick_check(5)").fetchall()]
            entries = db.execute("SELECT count(*) FROM entries").fetchone()[0] if problems == ["ok"] else 0
        finally:
            db.close()
    except sqlite3.Error as exc:
        problems = [str(exc)]
    if problems == ["ok"]:
        return True, f"intact (PRAGMA quick_check), {entries:,} journaled entr{'y' if entries == 1 else 'ies'}"
    from fracas.bridge.journal import recovery

    return False, f"damaged (PRAGMA quick_check: {'; '.join(problems)}): to recover, {recovery(path)}"
