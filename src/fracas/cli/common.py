"""What the `fracas` commands share: the exit-2 error, the ruleset a user names, colours,
reading a request, running an engine call and printing its result, and the attack-flag
command class of `fracas attack` and `fracas odds`."""

from __future__ import annotations

from typing import Any, Optional

import click

from .. import rulesets
from ..rulesets.cmdkit import RequestRejected, _no_color, style, warn_if_slow
from ..rulesets.cmdkit import emit as _emit
from ..rulesets.cmdkit import engine_call as _engine_call
from ..rulesets.cmdkit import load_json as _load_json
from ..rulesets.cmdkit import parse_rolls as _parse_rolls
from ..rulesets.cmdkit import with_rolls as _with_rolls

__all__ = ["RequestRejected", "_no_color", "style", "_emit", "_engine_call", "_load_json", "_parse_rolls",
           "_with_rolls", "SHORT_IDS", "ruleset_named", "warn_if_slow"]


#: The short IDs the rules and the docs use (the rule-ID prefixes: ER-1, WW-1, CT-1, OS-1),
#: from the rulesets' manifests (`id`): short ID → ruleset name.
SHORT_IDS = rulesets.short_ids()


def ruleset_named(value: str, option: str = "--ruleset") -> rulesets.Ruleset:
    """The ruleset a user means by `value`: its name, title or short ID (`ct`, `CT`,
    `Cartyrion`, `cartyrion`), in any case; anything else is a usage error listing them."""
    short_ids = rulesets.short_ids()  # a ruleset registered since import has its own
    key = value.strip().lower()
    key = short_ids.get(key, key)
    titles = {m.name: m.title for m in rulesets.manifests()}  # a listed ruleset is loaded only when it is the one
    for name in rulesets.names():
        title = titles[name] if name in titles else rulesets.get(name).title
        if key in (name.lower(), title.lower(), title.lower().replace(" ", "-")):
            return rulesets.get(name)
    short = {name: code.upper() for code, name in short_ids.items()}
    known = ", ".join(f"{name} ({short[name]})" if name in short else name for name in rulesets.names())
    raise click.BadParameter(f"unknown ruleset {value!r} (one of: {known}; any case)", param_hint=option)


def _ruleset_option(_ctx: click.Context, _param: click.Parameter, value: Optional[str]) -> Optional[str]:
    return None if value is None else ruleset_named(value).name


# -- a ruleset's flags ---------------------------------------------------------------
class _RulesetFlagsCommand(click.Command):
    """A command with its own options plus the flags of the ruleset named by `--ruleset`
    (the default ruleset when absent): `cli_options()` for an attack, `kind_cli_options(kind)`
    for the command of a kind rulesets share (`flags_kind`).

    The flags are looked up when the command runs, so a ruleset registered after
    import (a plug-in, a test) brings its flags along, and each ruleset's flags
    mean what its rules mean; `fracas COMMAND --ruleset NAME --help` lists them.
    """

    flags_kind = "attack"
    _options: dict[tuple[str, rulesets.Ruleset], list[click.Option]] = {}

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        name = _ruleset_in(args) or (ctx.default_map or {}).get("ruleset_name")
        if name is not None:
            try:
                ruleset = ruleset_named(name)
            except click.BadParameter as err:
                err.ctx = ctx
                raise
            ctx.meta["fracas.ruleset"] = ruleset.name
            if self.flags_kind not in ruleset.request_types:
                having = [n for n in rulesets.names() if self.flags_kind in rulesets.get(n).request_types]
                raise click.BadParameter(f"the {ruleset.title or ruleset.name} ruleset has no {self.flags_kind}"
                                         f" requests (rulesets with them: {', '.join(having) or 'none'})",
                                         ctx=ctx, param_hint="--ruleset")
        return super().parse_args(ctx, args)

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        params = list(super().get_params(ctx))
        taken = {param.name for param in params}
        name = ctx.meta.get("fracas.ruleset") or rulesets.DEFAULT
        if name not in rulesets.names():
            return params  # the command reports the unknown --ruleset
        ruleset = rulesets.get(name)
        key = (self.flags_kind, ruleset)
        options = self._options.get(key)
        if options is None:
            options = self._options[key] = (ruleset.cli_options() if self.flags_kind == "attack"
                                            else ruleset.kind_cli_options(self.flags_kind))
        for option in options:
            if option.name not in taken:
                taken.add(option.name)
                params.insert(len(params) - 1, option)  # before --help
        return params


class _AttackCommand(_RulesetFlagsCommand):
    """`fracas attack` and `fracas odds`: the ruleset's flags of one attack (`cli_options`)."""

    flags_kind = "attack"


class _InitiativeCommand(_RulesetFlagsCommand):
    """`fracas initiative`: the ruleset's initiative flags (`kind_cli_options("initiative")`)."""

    flags_kind = "initiative"


class _SaveCommand(_RulesetFlagsCommand):
    """`fracas save`: the ruleset's save flags (`kind_cli_options("save")`)."""

    flags_kind = "save"


def _kind_request(ctx: click.Context, request: Any, ruleset_name: str, kind: str, flags: dict[str, Any]) -> Any:
    """A command's request: its REQUEST file, or the one the ruleset's flags describe
    (`kind_from_flags`); both at once is a usage error naming the first flag."""
    if request is None:
        ruleset = rulesets.get(ruleset_name, "--ruleset")
        if not ruleset.kind_cli_options(kind):
            raise click.UsageError(f"--ruleset {ruleset.name}: {ruleset.title or ruleset.name} gives"
                                   f" `fracas {ctx.info_name}` no flags; give a request file (REQUEST, '-' for stdin)")
        return _engine_call(ruleset.kind_from_flags, kind, flags, flags=(ruleset, flags))
    given = [name for name in flags if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE]
    if given:
        raise click.UsageError("give a request file or the ruleset's flags, not both "
                               f"(got REQUEST and --{given[0].replace('_', '-').rstrip('-')})")
    return _load_json(request.read(), "the request")


def _ruleset_in(args: list[str]) -> Optional[str]:
    """The value of --ruleset among command-line arguments, if given."""
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--ruleset" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--ruleset="):
            return arg.split("=", 1)[1]
    return None
