"""The `fracas` command: resolve attacks, replay rolls, run the benchmarks, serve VTTs.

    fracas attack --dice 3 --bonus 2 --ac 14 --weight 1 --str 4 --style slashing
    fracas attack request.json --seed 42 --json
    fracas attack --bulk charge.json
    fracas replay journal-entry.json --expect result.json
    fracas bench --quick --json bench.json
    fracas serve

Every error a user can cause exits with code 2 and the engine's message, which
names the field (`$.strikes[0].dice: …`); a replay that does not match exits 1.

The commands live one family to a module: attack, odds, replay, bench, initiative,
doctor, fights (encounter, simulate, sweep) and config (the config file); the bridge
brings serve, token and journal. A ruleset's own kinds of request bring their commands
from its folder (`Kind.command`: old-school's `morale`, Enchanted Realms' `compete` and
`impale`).
"""

from __future__ import annotations

import os
import sys
from typing import Any, Optional

import click

import fracas

from .attack import attack, load_profile
from .bench import bench
from .clients import clients
from .common import SHORT_IDS, RequestRejected, _no_color, ruleset_named, style, warn_if_slow
from .config import CONFIG_ENV, ConfigError, config_file, load_config, profiles_file
from .doctor import doctor
from .fights import encounter, simulate, sweep
from .initiative import initiative
from .odds import MOB_HINT, SHOWN, odds, odds_figure, render_odds
from .replay import replay

#: What other code imports from `fracas.cli` (the bridge's serve: warn_if_slow; tests; the
#: console script: main).
__all__ = ["CONFIG_ENV", "MOB_HINT", "SHORT_IDS", "SHOWN", "ConfigError", "RequestRejected", "attack", "bench",
           "compete", "config_file", "doctor", "encounter", "impale", "initiative", "load_config", "load_profile",
           "main", "morale", "odds", "odds_figure", "profiles_file", "render_odds", "replay", "ruleset_named",
           "simulate", "style", "sweep", "warn_if_slow"]


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    click.echo(f"fracas {fracas.__version__} ({fracas.backend} backend, "
               f"Python {sys.version.split()[0]})")
    ctx.exit()


class _Main(click.Group):
    """The `fracas` group: reads the config file (its defaults) before any command runs, and
    makes the console streams safe for any encoding (`fracas.console`).

    The commands of the rulesets' own kinds (which import those rulesets) and the bridge's
    (serve, token, journal: websockets, logging) join the table on its first whole look
    (`commands`, the command list of `fracas --help`, a suggestion for a typo) or when a name
    is not among the others: `fracas attack` imports neither."""

    _adding = False   # in add_command: the table is written, not looked at
    _extras = False   # the extra commands are in (or being added)

    @property  # type: ignore[override]
    def commands(self) -> dict[str, click.Command]:
        if not self._adding:
            self._add_extras()
        return self._table

    @commands.setter
    def commands(self, table: dict[str, click.Command]) -> None:
        self._table = table

    def add_command(self, cmd: click.Command, name: Optional[str] = None) -> None:
        self._adding = True
        try:
            super().add_command(cmd, name)
        finally:
            self._adding = False

    def get_command(self, ctx: click.Context, cmd_name: str) -> Optional[click.Command]:
        found = self._table.get(cmd_name)
        return found if found is not None else self.commands.get(cmd_name)

    def _add_extras(self) -> None:
        if self._extras:
            return
        self._extras = True
        for name, command in kind_commands().items():
            if name not in self._table:
                self.add_command(command)
        _add_bridge_commands(self)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        from ..console import protect

        protect()
        return super().main(*args, **kwargs)

    def make_context(self, info_name: Optional[str], args: list[str], parent: Optional[click.Context] = None,
                     **extra: Any) -> click.Context:
        problem: Optional[ConfigError] = None
        given = _config_in(args)
        path = given or config_file()
        if "default_map" not in extra:
            try:
                extra["default_map"] = load_config(path, self, named=bool(given or os.environ.get(CONFIG_ENV)))
            except ConfigError as err:
                if _command_in(args) != "doctor":
                    raise
                problem = err  # doctor reports it, with everything else it checks
        ctx = super().make_context(info_name, args, parent, **extra)
        ctx.meta["fracas.config"] = (path, problem)
        return ctx


def _config_in(args: list[str]) -> Optional[str]:
    for i, arg in enumerate(args):
        if arg == "--config" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--config="):
            return arg.split("=", 1)[1]
        if not arg.startswith("-"):
            break  # the command: --config belongs before it
    return None


def _command_in(args: list[str]) -> Optional[str]:
    """The command named among the group's arguments (after its own options)."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--config":
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None, expose_value=False,
              metavar="FILE", help=f"Defaults for every command's options [default: ${CONFIG_ENV}, or"
                                   " config.toml in the fracas config directory (fracas doctor shows it)].")
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the fracas version and dice backend, then exit.")
@click.option("--no-color", is_flag=True, expose_value=False, is_eager=True, callback=_no_color,
              help="Plain text, no colours (also when NO_COLOR is set).")
def main() -> None:
    """fracas: tabletop combat resolution, fast and reproducible.

    Resolves attacks of {rulesets}, every die, crit and resistance shown;
    `--ruleset` takes a name or its short ID, in any case. Also whole mob charges in
    one request, exact odds, initiative and morale, fights played round by round or
    simulated many times, and a replay of any roll from its seed.
    """


def _listed_rulesets() -> str:
    """The installed rulesets with their short IDs, from their manifests."""
    from .. import rulesets

    named = [f"{m.title} ({m.id.upper()})" for m in rulesets.manifests()]
    if len(named) < 2:
        return f"the ruleset {''.join(named)}"
    return f"{len(named)} rulesets: {', '.join(named[:-1])} and {named[-1]}"


main.help = (main.help or "").replace("{rulesets}", _listed_rulesets())


for _command in (attack, odds, replay, bench, initiative, doctor, encounter, simulate, sweep):
    main.add_command(_command)
main.add_command(clients)  # the VTT clients this fracas carries


def kind_commands() -> dict[str, click.Command]:
    """The commands of the registered rulesets' own kinds (`Kind.command`), by name."""
    import importlib

    from .. import rulesets

    found: dict[str, click.Command] = {}
    for kind in rulesets.kinds().values():
        if kind.command is None:
            continue
        module, _, attr = kind.command.partition(":")
        command = getattr(importlib.import_module(module), attr)
        found[command.name or attr] = command
    return found




def __getattr__(name: str) -> Any:
    # `fracas.cli.morale`, `.compete`, `.impale`: those commands live in their rulesets' folders now.
    commands = kind_commands()
    if name in commands:
        return commands[name]
    raise AttributeError(f"module 'fracas.cli' has no attribute {name!r}")


# -- serve (the bridge registers its own command) --------------------------------------
def _add_bridge_commands(group: click.Group) -> None:
    try:
        from fracas.bridge.cli import journal_group, serve, token_command
    except ImportError as bridge_missing:  # an install without the bridge package
        if getattr(bridge_missing, "name", None) not in ("fracas.bridge", "fracas.bridge.cli"):
            raise
    else:
        group.add_command(serve)
        group.add_command(token_command)
        group.add_command(journal_group)
