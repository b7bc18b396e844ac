"""``fracas serve``: the bridge's command (also ``python -m fracas.bridge``).

Importing this module is cheap (click only): the CLI registers :func:`serve` on
the ``fracas`` group, and the server, engine and websockets load when it runs.
"""

from __future__ import annotations

import logging
import sys

import click

TOKEN_ENV = "FRACAS_BRIDGE_TOKEN"


def default_journal() -> str:
    """``journal.sqlite3`` in ``$FRACAS_HOME`` or the per-user data directory of fracas (the
    encounters are kept in the same file)."""
    from fracas.store import default_path

    return default_path()


def token_file() -> str:
    """Where the bridge keeps its access token: ``token`` in ``$FRACAS_HOME`` when set, else in
    the per-user config directory (see :mod:`fracas.bridge.tokenfile`)."""
    from .tokenfile import token_file as path

    return path()


def stored_token(rotate: bool = False) -> str:
    """The kept token (made on first use, or anew with ``rotate``): :func:`fracas.bridge.tokenfile.stored_token`."""
    from .tokenfile import stored_token as kept

    return kept(rotate)


@click.command("token")
@click.option("--rotate", is_flag=True,
              help="Make a new token. A running bridge that serves the kept token takes it within a"
                   " second: the old token opens nothing from then on, and (unless it runs with"
                   " --keep-sessions) the sessions authenticated with it are closed.")
def token_command(rotate: bool) -> None:
    """Print the bridge's access token and where it is kept (made on first use)."""
    from .tokenfile import running_bridges, wait_until_taken

    try:
        token = stored_token(rotate)
    except OSError as exc:
        raise click.ClickException(f"cannot keep the token at {token_file()}: {exc.strerror or exc}") from None
    click.echo(token)
    click.echo(f"(kept in {token_file()}, readable by you only{'; a new one' if rotate else ''})", err=True)
    if not rotate:
        return
    if not running_bridges(token_file()):
        click.echo("no running bridge serves this token file: the next `fracas serve` uses the new token"
                   " (a bridge started with --token or $FRACAS_BRIDGE_TOKEN keeps the token it was given)",
                   err=True)
        return
    failed = False
    for bridge, took in wait_until_taken(token_file(), token):
        if took:
            click.echo(f"the running bridge at {bridge['url']} (pid {bridge['pid']}) took the new token: the old"
                       f" one is refused; it closed {bridge['sessions_closed']} session(s) authenticated with it",
                       err=True)
        else:
            failed = True
            click.echo(f"the running bridge at {bridge['url']} (pid {bridge['pid']}) did not take the new token"
                       " within 5 s: restart it (it still accepts the old one)", err=True)
    if failed:
        sys.exit(1)


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but loopback needs --allow-remote.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="TCP port; 0 picks a free one (the banner shows which).")
@click.option("--journal", "journal", type=click.Path(dir_okay=False), default=None,
              help="SQLite journal of every answered roll [default: per-user data dir"
                   " fracas/journal.sqlite3].")
@click.option("--journal-sync", type=click.Choice(["full", "normal"]), default="full",
              show_default=True,
              help="full: each journaled roll survives a power cut; normal: faster, survives"
                   " a crash of the bridge but maybe not of the machine.")
@click.option("--token", envvar=TOKEN_ENV, default=None,
              help=f"Access token clients must send first [default: the kept one, made on first"
                   f" use (`fracas token --rotate` for a new one); also read from ${TOKEN_ENV}].")
@click.option("--allow-origin", "origins", multiple=True, metavar="ORIGIN",
              help="Also accept browser pages from ORIGIN (scheme://host[:port]); repeatable."
                   " Roll20 and local Foundry (port 30000) are always accepted unless"
                   " --no-default-origins.")
@click.option("--no-default-origins", is_flag=True,
              help="Accept only the origins given with --allow-origin.")
@click.option("--allow-no-origin", is_flag=True,
              help="Accept clients that send no Origin header (programs, not browsers).")
@click.option("--allow-host", "hosts", multiple=True, metavar="HOST:PORT",
              help="Also accept this Host header (e.g. a LAN name with --allow-remote); repeatable.")
@click.option("--allow-remote", is_flag=True,
              help="Allow a non-loopback --host: other machines can then reach the bridge.")
@click.option("--max-connections", type=click.IntRange(1), default=None,
              help="Most open connections [default: 32].")
@click.option("--max-batch", type=click.IntRange(1), default=None,
              help="Most requests in one JSON-RPC batch [default: 1000].")
@click.option("--max-bulk-attacks", type=click.IntRange(1), default=None,
              help="Most attacks in one attack.bulk request [default: 100000000].")
@click.option("--max-message-bytes", type=click.IntRange(1024), default=None,
              help="Largest incoming message; bigger ones close the connection (1009)"
                   " [default: 1048576].")
@click.option("--limit", "limit_pairs", multiple=True, metavar="NAME=VALUE",
              help="Set any of the bridge's limits (server.info lists them, the README explains"
                   " each), e.g. --limit max_reply_bytes=8388608; repeatable.")
@click.option("--journal-max-mb", type=click.IntRange(1), default=512, show_default=True,
              help="Past this size the journal's oldest rolls are deleted.")
@click.option("--journal-keep-days", type=click.IntRange(1), default=365, show_default=True,
              help="Rolls journaled longer ago than this are deleted.")
@click.option("--workers", type=click.IntRange(1, 256), default=None,
              help="Threads answering bulk work and batches [default: CPUs + 4, at most 32].")
@click.option("--bulk-threads", type=click.IntRange(1, 256), default=None,
              help="Engine threads one bulk request rolls on [default: all CPUs but one, at least"
                   " 1, so the GM's single attacks stay quick while a mob is rolled].")
@click.option("--keep-sessions", is_flag=True,
              help="When the kept token is rotated (fracas token --rotate), keep the sessions"
                   " authenticated with the old one [default: close them].")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]),
              default="info", show_default=True, help="What to log on stderr (never the token).")
def serve(host, port, journal, journal_sync, token, origins, no_default_origins, allow_no_origin,
          hosts, allow_remote, max_connections, max_batch, max_bulk_attacks, max_message_bytes,
          limit_pairs, journal_max_mb, journal_keep_days, workers, bulk_threads, keep_sessions, log_level):
    """Run the websocket bridge (JSON-RPC 2.0) that VTT scripts talk to.

    Prints the URL and the access token, then serves until Ctrl-C or SIGTERM;
    requests being worked on then finish and are journaled before it exits.
    """
    import asyncio
    import dataclasses

    from .journal import JournalError, Retention
    from .limits import Limits, parse_limits
    from .server import BridgeConfig, is_loopback, normalize_origin, run

    if not is_loopback(host) and not allow_remote:
        raise click.UsageError(
            f"--host {host} is not loopback: other machines could reach the bridge."
            " Add --allow-remote if that is what you want.")
    for origin in origins:
        try:
            normalize_origin(origin)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--allow-origin") from None
    if token is not None and not token.strip():
        raise click.BadParameter("the token must not be empty", param_hint="--token")
    kept = token is None
    if kept:
        try:
            token_value = stored_token()
        except OSError as exc:
            raise click.ClickException(f"cannot keep the token at {token_file()}: {exc.strerror or exc};"
                                       " give one with --token") from None
    else:
        token_value = token
    overrides = {name: value for name, value in (
        ("max_connections", max_connections), ("max_batch", max_batch),
        ("max_bulk_attacks", max_bulk_attacks), ("max_message_bytes", max_message_bytes),
    ) if value is not None}
    try:
        overrides.update(parse_limits(limit_pairs))
        limits = dataclasses.replace(Limits(), **overrides)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--limit") from None
    config = BridgeConfig(
        token=token_value,
        journal=journal if journal is not None else default_journal(),
        host=host,
        port=port,
        journal_sync=journal_sync,
        origins=tuple(origins),
        default_origins=not no_default_origins,
        allow_no_origin=allow_no_origin,
        hosts=tuple(hosts),
        allow_remote=allow_remote,
        limits=limits,
        retention=Retention(max_bytes=journal_max_mb << 20, max_age_days=journal_keep_days),
        workers=workers,
        bulk_threads=bulk_threads,
        token_file=token_file() if kept else None,
        keep_sessions=keep_sessions,
    )
    logging.basicConfig(stream=sys.stderr, level=log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if token is not None and len(token) < 16:
        click.echo("warning: the token is shorter than 16 characters; anyone who can reach"
                   " the bridge may guess it", err=True)
    from fracas.cli import warn_if_slow

    warn_if_slow()
    if not is_loopback(host):
        click.echo(f"warning: listening on {host}: other machines can reach the bridge, and"
                   " ws:// is not encrypted (the token and the rolls travel in clear)", err=True)

    # A token from $FRACAS_BRIDGE_TOKEN is kept out of ps: not printed either (the banner
    # often lands in a log); one given with --token is on the command line already.
    from_environment = (click.get_current_context().get_parameter_source("token")
                        == click.core.ParameterSource.ENVIRONMENT)
    shown_token = f"(from ${TOKEN_ENV}, not shown)" if from_environment else config.token

    def banner(bridge) -> None:
        import fracas

        click.echo(f"fracas bridge {fracas.__version__} (backend {fracas.backend})\n"
                   f"  url:     {bridge.url}\n"
                   f"  token:   {shown_token}\n"
                   f"  journal: {bridge.journal_path}")
        if kept:
            click.echo(f"  (the token is kept in {token_file()}: paste it once; fracas token --rotate"
                       " makes a new one, which this bridge takes at once)")
        sys.stdout.flush()

    try:
        asyncio.run(run(config, on_ready=banner))
    except JournalError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        import errno

        hint = ""
        if exc.errno == errno.EADDRINUSE:
            hint = ("; another fracas serve may be running already (fracas doctor checks), or give"
                    " another port with --port N (0 picks a free one)")
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}{hint}") from None


# -- fracas journal -------------------------------------------------------------------------
@click.group("journal")
def journal_group() -> None:
    """Look into the bridge's journal of answered rolls: list, show, replay, prune."""


_JOURNAL_OPTION = click.option("--journal", "path", type=click.Path(dir_okay=False), default=None,
                               help="The journal file [default: the one fracas serve uses].")


def _open(path):
    import os

    from .journal import Journal, JournalError

    path = path or default_journal()
    if not os.path.exists(path):
        raise click.ClickException(f"no journal at {path} yet (fracas serve makes it)")
    try:
        return Journal(path)
    except JournalError as exc:
        raise click.ClickException(str(exc)) from None


def _entry(journal, request_id: str):
    from .journal import id_key

    for key in (id_key(request_id), id_key(int(request_id)) if request_id.lstrip("-").isdigit() else None):
        if key is not None:
            entry = journal.lookup(key)
            if entry is not None:
                return entry
    raise click.ClickException(f"no journaled request has the id {request_id!r}")


@journal_group.command("list")
@_JOURNAL_OPTION
@click.option("--limit", type=click.IntRange(1, 10_000), default=20, show_default=True)
def journal_list(path, limit) -> None:
    """The newest journaled rolls: id, method, ruleset, seed, when."""
    import os

    import orjson

    if not os.path.exists(path or default_journal()):
        click.echo(f"no journal at {path or default_journal()} yet: fracas serve makes it with its first roll")
        return
    journal = _open(path)
    try:
        entries = journal.recent(limit)
        click.echo(f"{journal.count()} journaled roll(s) in {journal.path}; newest first:")
        for e in entries:
            result = orjson.loads(e.result)
            click.echo(f"  {e.id_key:<24} {e.method:<16} {result.get('ruleset', '?'):<17} "
                       f"seed {result.get('seed')}  {e.recorded_at}")
    finally:
        journal.close()


@journal_group.command("show")
@_JOURNAL_OPTION
@click.argument("request_id")
def journal_show(path, request_id) -> None:
    """The journaled entry of one request id, as JSON (params, result, backend, when)."""
    import orjson

    journal = _open(path)
    try:
        click.echo(orjson.dumps(_entry(journal, request_id).to_dict(), option=orjson.OPT_INDENT_2).decode())
    finally:
        journal.close()


@journal_group.command("replay")
@_JOURNAL_OPTION
@click.argument("request_id")
def journal_replay(path, request_id) -> None:
    """Re-roll a journaled request from its recorded seed and compare; exit 1 if it differs."""
    import orjson

    import fracas
    from fracas.diff import differences, render_differences

    journal = _open(path)
    try:
        entry = _entry(journal, request_id)
    finally:
        journal.close()
    from fracas.drive import ENGINE_CALLS

    if entry.method not in ENGINE_CALLS:
        raise click.ClickException(f"{request_id}: {entry.method} is not replayed from the journal: a round"
                                   " depends on its encounter's state; undo it (fracas encounter undo) and play"
                                   " it again with the seed of its log (fracas encounter round --seed)")
    call = getattr(fracas, ENGINE_CALLS[entry.method])
    recorded = orjson.loads(entry.result)
    replayed = call(orjson.loads(entry.params), seed=recorded["seed"]).to_dict()
    found = differences({k: v for k, v in recorded.items() if k != "backend"},
                        {k: v for k, v in replayed.items() if k != "backend"})
    if found:
        click.echo(f"{request_id}: the replay differs (seed {recorded['seed']}):", err=True)
        click.echo(render_differences(found), err=True)
        sys.exit(1)
    # Each result says which backend rolled it (a ruleset the compiled core does not cover rolls
    # in Python on a compiled install); an entry whose result does not, the journal's column.
    recorded_on = recorded.get("backend") if isinstance(recorded.get("backend"), str) else entry.backend
    replayed_on = replayed.get("backend") if isinstance(replayed.get("backend"), str) else fracas.backend
    click.echo(f"{request_id}: {entry.method} replays exactly from seed {recorded['seed']}"
               f" (recorded on {recorded_on}, replayed on {replayed_on})")


@journal_group.command("prune")
@_JOURNAL_OPTION
@click.option("--older-than", "days", type=click.IntRange(0), default=None, metavar="DAYS",
              help="Delete the rolls journaled more than DAYS days ago.")
@click.option("--max-mb", type=click.IntRange(1), default=None, metavar="MB",
              help="Then delete the oldest rolls until the journal's entries take at most MB megabytes.")
def journal_prune(path, days, max_mb) -> None:
    """Delete old journaled rolls and give their space back (their ids may be used again).

    fracas serve does the same by itself (--journal-keep-days, --journal-max-mb)."""
    import datetime

    from .journal import Retention

    if days is None and max_mb is None:
        raise click.UsageError("give --older-than DAYS, --max-mb MB or both")
    journal = _open(path)
    try:
        removed = 0
        if days is not None:
            before = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=days)).isoformat(
                timespec="milliseconds")
            removed += journal.prune(before)
            click.echo(f"removed {removed} roll(s) journaled before {before}; {journal.count()} left")
        if max_mb is not None:
            by_size = journal.enforce_retention(Retention(max_bytes=max_mb << 20, max_age_days=None))
            click.echo(f"removed {by_size} roll(s) to fit {max_mb} MB; {journal.count()} left"
                       f" ({journal.used_bytes() / (1 << 20):.1f} MB in use)")
    finally:
        journal.close()
