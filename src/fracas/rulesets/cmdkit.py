"""What the rulesets' click commands share with the `fracas` command line: the exit-2
error, colours, the slow-core warning, reading a request, rolling a kind and printing its
result, and `--rolls`. It lives in the rulesets' layer, so a ruleset's commands
(`Kind.command`) reach it without importing `fracas.cli`, `fracas.drive` or the `fracas`
facade (the layers run one way: core ← rulesets ← drive ← fracas ← cli/bridge): `roll`
rolls a kind with `fracas.rulesets.rolling`, the same dice `fracas.roll` rolls."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Optional

import click

from ..errors import RequestError

if TYPE_CHECKING:
    from .base import Result


class RequestRejected(click.ClickException):
    """The engine refused the request: exit code 2 and its message with the field path."""

    exit_code = 2


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


def roll(kind: str, request: Any, *, seed: Optional[int] = None) -> "Result":
    """A command's roll of `kind` (its ruleset's own, such as "morale" or "compete"): the
    result `fracas.roll(kind, request, seed=seed)` gives, rolled from this layer
    (`fracas.rulesets.rolling`), after the slow-core warning every rolling command gives.
    Request errors are raised as they are; `engine_call(roll, kind, ...)` turns them into
    exit code 2."""
    from .rolling import roll as _roll

    warn_if_slow()
    return _roll(kind, request, seed=seed)


def engine_call(call: Any, *args: Any, flags: Optional[tuple[Any, ...]] = None, **kwargs: Any) -> Any:
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


def load_json(data: bytes, what: str) -> Any:
    """Decode a JSON document; a broken one is a user error (exit 2), not a traceback."""
    import orjson

    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as err:
        raise RequestRejected(f"$: {what} is not valid JSON ({err})") from None


def emit(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        import orjson

        click.echo(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
    else:
        from . import DEFAULT, get

        ruleset = get(result.get("ruleset", DEFAULT))
        click.echo(ruleset.render(result, style))


def parse_rolls(text: str) -> list[int]:
    """`--rolls 12,7,20,3` → [12, 7, 20, 3]; anything else is a usage error naming the item."""
    faces = []
    for i, item in enumerate(text.replace(",", " ").split()):
        try:
            faces.append(int(item))
        except ValueError:
            raise click.BadParameter(f"item {i + 1} ({item!r}) is not a whole number; give faces "
                                     "like 12,7,20,3", param_hint="--rolls") from None
    return faces


def with_rolls(request: Any, faces: Optional[list[int]]) -> Any:
    """The request with injected faces from --rolls (they win over the request's own)."""
    if faces is None or not isinstance(request, dict):
        return request
    return {**request, "rolls": faces}
