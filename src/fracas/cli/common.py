"""What the `fracas` commands share: the exit-2 error, the ruleset a user names, colours,
reading a request, running an engine call and printing its result, and the attack-flag
command class of `fracas attack` and `fracas odds`."""

from __future__ import annotations

import os
from typing import Any, Optional

import click

from .. import rulesets
from ..errors import RequestError


class RequestRejected(click.ClickException):
    """The engine refused the request: exit code 2 and its message with the field path."""

    exit_code = 2


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


_COLOR = {"off": False}


def _no_color(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    _COLOR["off"] = bool(value) or bool(os.environ.get("NO_COLOR"))


def style(text: str, **styles: Any) -> str:
    """`click.style`, or the plain text with --no-color or NO_COLOR set (https://no-color.org)."""
    if _COLOR["off"] or os.environ.get("NO_COLOR"):
        return text
    return click.style(text, **styles)


def warn_if_slow() -> None:
    """Say loudly, on stderr, when the compiled core is missing (a silent 500x slowdown)."""
    from .. import _kernels

    if _kernels.missing_compiled():
        click.echo(style("warning: ", fg="yellow", bold=True) + _kernels.why() +
                   ". Install a C compiler (build-essential) and reinstall, or install a wheel; "
                   "`fracas doctor` says more.", err=True)


# -- reading input ---------------------------------------------------------------------
def _engine_call(call: Any, *args: Any, flags: Optional[tuple[Any, ...]] = None, **kwargs: Any) -> Any:
    """Run an engine call; a request error becomes exit code 2 with its message.

    With `flags` (the ruleset and option values the request was built from) the
    message also names the option that sets the field.
    """
    try:
        return call(*args, **kwargs)
    except RequestError as err:
        message = str(err)
        if flags is not None:
            ruleset, values = flags
            flag = ruleset.flag_hint(err.path, values)
            if flag:
                message += f" (set it with {flag})"
        raise RequestRejected(message) from None


def _load_json(data: bytes, what: str) -> Any:
    """Decode a JSON document; a broken one is a user error (exit 2), not a traceback."""
    import orjson

    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as err:
        raise RequestRejected(f"$: {what} is not valid JSON ({err})") from None


def _emit(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        import orjson

        click.echo(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
    else:
        ruleset = rulesets.get(result.get("ruleset", rulesets.DEFAULT))
        click.echo(ruleset.render(result, style))


def _parse_rolls(text: str) -> list[int]:
    """`--rolls 12,7,20,3` → [12, 7, 20, 3]; anything else is a usage error naming the item."""
    faces = []
    for i, item in enumerate(text.replace(",", " ").split()):
        try:
            faces.append(int(item))
        except ValueError:
            raise click.BadParameter(f"item {i + 1} ({item!r}) is not a whole number; give faces "
                                     "like 12,7,20,3", param_hint="--rolls") from None
    return faces


def _with_rolls(request: Any, faces: Optional[list[int]]) -> Any:
    """The request with injected faces from --rolls (they win over the request's own)."""
    if faces is None or not isinstance(request, dict):
        return request
    return {**request, "rolls": faces}


# -- a ruleset's flags ---------------------------------------------------------------
class _RulesetFlagsCommand(click.Command):
    """A command with its own options plus the flags of the ruleset named by `--ruleset`
    (Enchanted Realms when absent), from the ruleset's `flags_hook` (a `Ruleset` method
    returning click options).

    The flags are looked up when the command runs, so a ruleset registered after
    import (a plug-in, a test) brings its flags along, and each ruleset's flags
    mean what its rules mean (`--method ranged` for Worldwalker, `--method range`
    for Enchanted Realms); `fracas COMMAND --ruleset NAME --help` lists them.
    """

    flags_hook = "cli_options"
    _options: dict[tuple[str, rulesets.Ruleset], list[click.Option]] = {}

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        name = _ruleset_in(args) or (ctx.default_map or {}).get("ruleset_name")
        if name is not None:
            try:
                ctx.meta["fracas.ruleset"] = ruleset_named(name).name
            except click.BadParameter as err:
                err.ctx = ctx
                raise
        return super().parse_args(ctx, args)

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        params = list(super().get_params(ctx))
        taken = {param.name for param in params}
        name = ctx.meta.get("fracas.ruleset") or rulesets.DEFAULT
        if name not in rulesets.names():
            return params  # the command reports the unknown --ruleset
        ruleset = rulesets.get(name)
        key = (self.flags_hook, ruleset)
        options = self._options.get(key)
        if options is None:
            options = self._options[key] = getattr(ruleset, self.flags_hook)()
        for option in options:
            if option.name not in taken:
                taken.add(option.name)
                params.insert(len(params) - 1, option)  # before --help
        return params


class _AttackCommand(_RulesetFlagsCommand):
    """`fracas attack` and `fracas odds`: the ruleset's flags of one attack (`cli_options`)."""

    flags_hook = "cli_options"


class _InitiativeCommand(_RulesetFlagsCommand):
    """`fracas initiative`: the ruleset's initiative flags (`initiative_cli_options`)."""

    flags_hook = "initiative_cli_options"


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
