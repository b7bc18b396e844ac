"""The `fracas` command: resolve attacks, replay rolls, run the benchmarks, serve VTTs.

    fracas attack --dice 3 --bonus 2 --ac 14 --weight 1 --str 4 --style slashing
    fracas attack request.json --seed 42 --json
    fracas attack --bulk charge.json
    fracas replay journal-entry.json --expect result.json
    fracas bench --quick --json bench.json
    fracas serve

Every error a user can cause exits with code 2 and the engine's message, which
names the field (`$.strikes[0].dice: …`); a replay that does not match exits 1.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Optional

import click

import fracas

from . import rulesets
from .diff import differences, render_differences
from .errors import RequestError


class RequestRejected(click.ClickException):
    """The engine refused the request: exit code 2 and its message with the field path."""

    exit_code = 2


#: The short IDs the rules and the docs use (the rule-ID prefixes: ER-1, WW-1, CT-1, OS-1).
SHORT_IDS = {"er": "enchanted-realms", "ww": "worldwalker", "ct": "cartyrion", "os": "old-school"}


def ruleset_named(value: str, option: str = "--ruleset") -> rulesets.Ruleset:
    """The ruleset a user means by `value`: its name, title or short ID (`ct`, `CT`,
    `Cartyrion`, `cartyrion`), in any case; anything else is a usage error listing them."""
    key = value.strip().lower()
    key = SHORT_IDS.get(key, key)
    for name in rulesets.names():
        ruleset = rulesets.get(name)
        if key in (name.lower(), ruleset.title.lower(), ruleset.title.lower().replace(" ", "-")):
            return ruleset
    short = {name: code.upper() for code, name in SHORT_IDS.items()}
    known = ", ".join(f"{name} ({short[name]})" if name in short else name for name in rulesets.names())
    raise click.BadParameter(f"unknown ruleset {value!r} (one of: {known}; any case)", param_hint=option)


def _ruleset_option(_ctx: click.Context, _param: click.Parameter, value: Optional[str]) -> Optional[str]:
    return None if value is None else ruleset_named(value).name


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    click.echo(f"fracas {fracas.__version__} ({fracas.backend} backend, "
               f"Python {sys.version.split()[0]})")
    ctx.exit()


_COLOR = {"off": False}


def _no_color(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    _COLOR["off"] = bool(value) or bool(os.environ.get("NO_COLOR"))


def style(text: str, **styles: Any) -> str:
    """`click.style`, or the plain text with --no-color or NO_COLOR set (https://no-color.org)."""
    if _COLOR["off"] or os.environ.get("NO_COLOR"):
        return text
    return click.style(text, **styles)


CONFIG_ENV = "FRACAS_CONFIG"


class ConfigError(click.ClickException):
    """The config file is missing (when named), unreadable or wrong: the message names the file
    and the table and key; a user's mistake, so exit code 2 like a usage error."""

    exit_code = 2


def config_file() -> str:
    """The config file: $FRACAS_CONFIG, else config.toml in the fracas config directory."""
    import platformdirs

    return os.environ.get(CONFIG_ENV) or os.path.join(platformdirs.user_config_dir("fracas", appauthor=False),
                                                      "config.toml")


def _read_toml(path: str) -> Any:
    """The TOML file at `path`; the reader is imported only when there is a file to read."""
    with open(path, "rb") as handle:
        data = handle.read()
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: the tomli backport, a dependency there (the same API)
        try:
            import tomli as tomllib
        except ImportError:
            raise ConfigError(f"config file {path}: reading it on Python 3.10 needs tomli (pip install tomli)") \
                from None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config file {path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path}: {exc}") from None


def load_config(path: str, group: click.Group, *, named: bool = True) -> dict[str, Any]:
    """A config file as click defaults: one table per command (`[attack]`, `[serve]`,
    `[journal.list]`), keys named like the long options (`ruleset`, `port`, `allow-origin`).

    Anything unknown or of the wrong type is an error naming the file and the key: a typo
    must not pass silently. A file or folder option's relative path (`profiles =
    "profiles.json"`) is read from the config file's folder, wherever fracas runs. A
    missing file is an error when it was `named` (--config, $FRACAS_CONFIG); the default
    file may be absent.
    """
    try:
        data = _read_toml(path)
    except FileNotFoundError:
        if named:
            raise ConfigError(f"config file {path}: no such file") from None
        return {}
    except OSError as exc:
        raise ConfigError(f"config file {path}: {exc.strerror or exc}") from None
    folder = os.path.dirname(os.path.abspath(path))

    def convert(table: Any, command: click.Command, where: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if isinstance(command, click.Group):  # the file itself, or a group such as [journal.…]
            for key, value in table.items():
                name = f"{where}.{key}" if where else key
                sub = command.commands.get(key)
                if sub is None:
                    raise ConfigError(f"config file {path}: [{name}]: no such command"
                                      f" (commands: {', '.join(sorted(command.commands))})")
                if not isinstance(value, dict):
                    raise ConfigError(f"config file {path}: [{name}] must be a table of options")
                out[key] = convert(value, sub, name)
            return out
        ctx = click.Context(command)
        if isinstance(table.get("ruleset"), str):
            try:  # `fracas attack` takes that ruleset's flags
                ctx.meta["fracas.ruleset"] = ruleset_named(table["ruleset"]).name
            except click.BadParameter as exc:
                raise ConfigError(f"config file {path}: [{where}] ruleset: {exc.message}") from None
        options = {opt.lstrip("-"): param for param in command.get_params(ctx) if isinstance(param, click.Option)
                   for opt in param.opts if opt.startswith("--")}
        for key, value in table.items():
            param = options.get(key) or options.get(key.replace("_", "-"))
            if param is None or param.name in ("help",):
                raise ConfigError(
                    f"config file {path}: [{where}] {key}: no such option of fracas {where.replace('.', ' ')}"
                    f" (options: {', '.join(sorted(o for o in options if o != 'help'))})")
            if isinstance(param.type, (click.Path, click.File)) and isinstance(value, str) and value != "-":
                value = os.path.join(folder, os.path.expanduser(value))  # an absolute path stays as it is
            elif not isinstance(param.type, click.File):  # a file is opened when the command runs
                try:
                    param.type_cast_value(ctx, value)
                except click.BadParameter as exc:
                    raise ConfigError(f"config file {path}: [{where}] {key}: {exc.message}") from None
            out[str(param.name)] = value
        return out

    return convert(data, group, "")


class _Main(click.Group):
    """The `fracas` group: reads the config file (its defaults) before any command runs, and
    makes the console streams safe for any encoding (`fracas.console`)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        from .console import protect

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

    Resolves attacks of four rulesets, every die, crit and resistance shown:
    Enchanted Realms (ER), Worldwalker (WW), Cartyrion (CT) and old-school (OS);
    `--ruleset` takes a name or its short ID, in any case. Also whole mob charges in
    one request, exact odds, initiative and morale, fights played round by round or
    simulated many times, and a replay of any roll from its seed.
    """


def warn_if_slow() -> None:
    """Say loudly, on stderr, when the compiled core is missing (a silent 500x slowdown)."""
    from . import _kernels

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


def profiles_file() -> str:
    """Where `fracas attack --as` finds the GM's kept profiles: profiles.json in the config dir."""
    import platformdirs

    return os.path.join(platformdirs.user_config_dir("fracas", appauthor=False), "profiles.json")


def load_profile(name: str, path: Optional[str]) -> dict[str, Any]:
    """Profile `name` of the profiles file: {"NAME": {"ruleset"?, "attacker", "strikes"}, ...}
    (the shape of a bulk request's `profiles`, so a bulk request file serves too)."""
    path = path or profiles_file()
    try:
        with open(path, "rb") as handle:
            profiles = _load_json(handle.read(), f"the profiles file {path}")
    except FileNotFoundError:
        raise click.BadParameter(f"no profiles file at {path}: write one (README, 'Profiles'), or give"
                                 " --profiles FILE", param_hint="--as") from None
    if isinstance(profiles, dict) and isinstance(profiles.get("profiles"), dict):
        profiles = profiles["profiles"]  # a bulk request file works too
    if not isinstance(profiles, dict):
        raise click.BadParameter(f"{path}: expected an object of profiles by name", param_hint="--profiles")
    if name not in profiles:
        known = ", ".join(sorted(profiles)) or "none"
        raise click.BadParameter(f"no profile {name!r} in {path} (profiles: {known})", param_hint="--as")
    profile = profiles[name]
    if not isinstance(profile, dict):
        raise click.BadParameter(f"{path}: profile {name!r} must be an object", param_hint="--as")
    return profile


def _resolve_any(payload: Any, *, seed: Optional[int] = None) -> Any:
    """A request file may hold one attack or a bulk request (with `attacks`)."""
    if isinstance(payload, dict) and "attacks" in payload:
        return fracas.resolve_bulk(payload, seed=seed)
    return fracas.resolve(payload, seed=seed)


def _with_rolls(request: Any, faces: Optional[list[int]]) -> Any:
    """The request with injected faces from --rolls (they win over the request's own)."""
    if faces is None or not isinstance(request, dict):
        return request
    return {**request, "rolls": faces}


# -- attack ----------------------------------------------------------------------------
class _AttackCommand(click.Command):
    """`fracas attack`: its own options plus the attack flags of the ruleset named by
    `--ruleset` (Enchanted Realms when absent).

    The flags are looked up when the command runs, so a ruleset registered after
    import (a plug-in, a test) brings its flags along, and each ruleset's flags
    mean what its rules mean (`--method ranged` for Worldwalker, `--method range`
    for Enchanted Realms); `fracas attack --ruleset NAME --help` lists them.
    """

    _options: dict[rulesets.Ruleset, list[click.Option]] = {}

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
        options = self._options.get(ruleset)
        if options is None:
            options = self._options[ruleset] = ruleset.cli_options()
        for option in options:
            if option.name not in taken:
                taken.add(option.name)
                params.insert(len(params) - 1, option)  # before --help
        return params


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


@main.command(cls=_AttackCommand)
@click.argument("request", type=click.File("rb"), required=False)
@click.option("--bulk", "bulk", type=click.File("rb"), metavar="FILE",
              help="Resolve a bulk request (profiles × targets × counts) from FILE ('-' for stdin).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None,
              help="Roll from this seed (wins over the request's own); the same seed replays the same dice.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON instead of a breakdown.")
@click.option("--rolls", "rolls", default=None, metavar="FACES",
              help="Physical dice instead of the generator: the faces in draw order, comma-"
                   "separated, e.g. 12,7,20,3 (docs/ENGINE.md §2). Overrides a request's rolls.")
@click.option("--threads", type=click.IntRange(1, 256), default=None,
              help="Threads for --bulk [default: every core]; the result is the same for any count.")
@click.option("--ruleset", "ruleset_name", default=rulesets.DEFAULT, show_default=True, metavar="NAME",
              callback=_ruleset_option,
              help="The ruleset whose flags describe the attack (a request file names its own).")
@click.option("--as", "profile_name", default=None, metavar="PROFILE",
              help="Attack as a kept profile (its attacker and strikes, from the profiles file); the"
                   " flags then describe the target, e.g. --as skeleton --ac 14.")
@click.option("--profiles", "profiles_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="The profiles file for --as [default: profiles.json in the fracas config directory;"
                   " fracas doctor shows where].")
@click.pass_context
def attack(ctx: click.Context, /, request: Any, bulk: Any, seed: Any, as_json: Any, rolls: Any, threads: Any, ruleset_name: Any, profile_name: Any,
           profiles_path: Any, **flags: Any) -> None:
    """Resolve one attack and show every die, hit, crit chain and damage per target.

    REQUEST is a JSON request file (docs/ENGINE.md), or '-' for stdin; without one,
    the flags describe a single strike, e.g.
    `fracas attack --dice 3 --bonus 2 --ac 14 --weight 1 --str 4 --style slashing`.
    A request with `attacks` (or --bulk FILE) is a bulk request: many attacks of a
    few profiles, shown as a summary per target and per group. The flags are those
    of Enchanted Realms; `--ruleset NAME --help` lists another ruleset's
    (worldwalker, cartyrion, old-school).
    """
    warn_if_slow()
    flags_given = [name for name in flags
                   if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE]
    if ctx.get_parameter_source("ruleset_name") == click.core.ParameterSource.COMMANDLINE and not flags_given:
        raise click.UsageError("--ruleset goes with attack flags; a request file names its own ruleset")
    given = (["REQUEST"] if request is not None else []) + (["--bulk"] if bulk is not None else []) + (
        ["--as"] if profile_name is not None else [])
    if len(given) + bool(flags_given and profile_name is None) > 1:
        given += ["--" + name.replace("_", "-") for name in flags_given]
        raise click.UsageError("give one of: a request file, --bulk FILE, or attack flags "
                               f"(got {', '.join(given)})")
    if threads is not None and bulk is None:
        raise click.UsageError("--threads goes with --bulk")
    if rolls is not None and bulk is not None:
        raise click.UsageError("--rolls goes with a single attack, not --bulk")
    faces = _parse_rolls(rolls) if rolls is not None else None
    if bulk is not None:
        payload = _load_json(bulk.read(), "the bulk request")
        result = _engine_call(fracas.resolve_bulk, payload, seed=seed, threads=threads)
    elif request is not None:
        payload = _with_rolls(_load_json(request.read(), "the request"), faces)
        result = _engine_call(_resolve_any, payload, seed=seed)
    elif profile_name is not None:
        profile = load_profile(profile_name, profiles_path)
        try:
            ruleset = rulesets.get(profile.get("ruleset", rulesets.DEFAULT), "the profile's ruleset")
        except RequestError as err:
            raise click.BadParameter(err.reason, param_hint="--as") from None
        if ruleset.name != ruleset_name and ctx.get_parameter_source("ruleset_name") == \
                click.core.ParameterSource.COMMANDLINE:
            raise click.BadParameter(f"profile {profile_name!r} is a {ruleset.name} profile, not {ruleset_name}",
                                     param_hint="--as")
        try:
            built = ruleset.request_from_profile({k: v for k, v in profile.items() if k != "ruleset"}, flags)
        except RequestError as err:
            raise click.BadParameter(err.reason, param_hint="--as") from None
        result = _engine_call(fracas.resolve, _with_rolls(built, faces), seed=seed, flags=(ruleset, flags))
    elif flags_given:
        ruleset = rulesets.get(ruleset_name, "--ruleset")
        built = ruleset.request_from_flags(flags)
        result = _engine_call(fracas.resolve, _with_rolls(built, faces), seed=seed, flags=(ruleset, flags))
    elif not sys.stdin.isatty():
        payload = _with_rolls(_load_json(sys.stdin.buffer.read(), "standard input"), faces)
        result = _engine_call(_resolve_any, payload, seed=seed)
    else:
        raise click.UsageError("no request: give a JSON file, '-' for stdin, --bulk FILE, or "
                               "flags such as --dice 3 --ac 14")
    _emit(result.to_dict(), as_json)




# -- odds ------------------------------------------------------------------------------
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


@main.command(cls=_AttackCommand)
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


# -- replay ----------------------------------------------------------------------------


def _method_of(request: Any) -> str:
    """The engine method a bare request is for, by the fields it has."""
    if not isinstance(request, dict):
        return "attack.resolve"
    if "attacks" in request:
        return "attack.bulk"
    if "morale" in request:
        return "morale.check"
    if "challenger" in request:
        return "compete.roll"
    if "pikeman" in request:
        return "impale.resolve"
    if "combatants" in request or "sides" in request or (
            "strikes" not in request and request.get("ruleset") == "cartyrion"):
        return "initiative.roll"
    return "attack.resolve"


def _unwrap_record(record: Any) -> tuple[str, Any, Optional[dict[str, Any]]]:
    """(engine method, request, recorded result) from what `fracas replay` accepts.

    - a journal entry (`journal.get`): {"method", "params", "result", …};
    - a JSON-RPC request: {"jsonrpc", "method", "params", …};
    - {"request": …, "result": …} (a chat card's or a script's export);
    - a bare request that carries its seed.
    """
    if not isinstance(record, dict):
        raise RequestRejected("$: expected a JSON object (a request, a journal entry or a "
                              "JSON-RPC request)")
    if "params" in record and "method" in record:
        from .drive import ENGINE_CALLS  # here, not at import: `fracas --help` stays quick

        method = record["method"]
        if method not in ENGINE_CALLS:
            raise RequestRejected(f"$.method: {method!r} is not a roll to replay "
                                  f"(one of: {', '.join(ENGINE_CALLS)})")
        return method, record["params"], record.get("result")
    if "request" in record:
        request = record["request"]
        return _method_of(request), request, record.get("result")
    return _method_of(record), record, None


def _unwrap_result(document: Any) -> Any:
    """A result from a result file, a JSON-RPC response or a journal entry."""
    if isinstance(document, dict) and "result" in document and (
            "jsonrpc" in document or "params" in document or "request" in document):
        return document["result"]
    return document


def _without_backend(result: Any) -> Any:
    # The backend that rolled is not part of the roll: compiled and pure Python agree.
    if isinstance(result, dict):
        return {k: v for k, v in result.items() if k != "backend"}
    return result


@main.command()
@click.argument("record", type=click.File("rb"))
@click.option("--expect", type=click.File("rb"), metavar="RESULT.json",
              help="Check the replay against this result (a result, a JSON-RPC response or a "
                   "journal entry); exit 1 with a diff if they differ. 'backend' is ignored.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None,
              help="The seed the roll was made with, when the record does not carry it.")
@click.option("--json", "as_json", is_flag=True, help="Print the replayed result as JSON.")
def replay(record: Any, expect: Any, seed: Any, as_json: Any) -> None:
    """Re-resolve a recorded roll from its seed, and check it matches.

    RECORD is a request carrying its seed, a bridge journal entry (`journal.get`),
    a JSON-RPC request, or {"request": …, "result": …} ('-' for stdin). When it
    carries its result, or with --expect, the replay is compared field by field.
    """
    method, request, recorded = _unwrap_record(_load_json(record.read(), "the record"))
    expected = _unwrap_result(_load_json(expect.read(), "the expected result")) if expect else recorded
    if seed is None and isinstance(expected, dict) and isinstance(expected.get("seed"), int):
        seed = expected["seed"]
    if seed is None and isinstance(request, dict) and isinstance(request.get("seed"), int):
        seed = request["seed"]
    if seed is None:
        raise RequestRejected("$.seed: replay needs the seed the roll was made with "
                              "(in the request, in the recorded result, or --seed)")
    from .drive import ENGINE_CALLS

    call = getattr(fracas, ENGINE_CALLS[method])
    result = _engine_call(call, request, seed=seed).to_dict()
    _emit(result, as_json)
    if expected is None:
        return
    found = differences(_without_backend(expected), _without_backend(result))
    if found:
        click.echo(style(f"Replay does NOT match the recorded result: {len(found)} "
                               f"difference{'s' if len(found) != 1 else ''} (seed {seed})",
                               fg="red", bold=True), err=True)
        click.echo(render_differences(found), err=True)
        sys.exit(1)
    click.echo(style(f"Replay matches the recorded result (seed {seed}).", fg="green"),
               err=as_json)


# -- bench -----------------------------------------------------------------------------
@main.command()
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

    from . import _kernels

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


# -- initiative and morale ----------------------------------------------------------------
def _pairs(items: tuple[str, ...], option: str) -> list[tuple[str, int]]:
    out = []
    for item in items:
        name, sep, value = item.rpartition("=")
        if not sep or not name:
            raise click.BadParameter(f"{item!r}: write ID=N, e.g. rogue=6", param_hint=option)
        try:
            out.append((name, int(value)))
        except ValueError:
            raise click.BadParameter(f"{item!r}: N must be a whole number", param_hint=option) from None
    return out


@main.command()
@click.argument("request", type=click.File("rb"), required=False)
@click.option("--ruleset", "ruleset_name", default=rulesets.DEFAULT, show_default=True, metavar="NAME",
              callback=_ruleset_option,
              help="The ruleset of the flags below (a request file names its own).")
@click.option("--combatant", "combatants", multiple=True, metavar="ID=N",
              help="A combatant: its Agility score (enchanted-realms, ER-18) or Dexterity modifier "
                   "(worldwalker, WW-1); repeatable.")
@click.option("--side", "sides", multiple=True, metavar="ID", help="A side (old-school, OS-1); repeatable.")
@click.option("--wait", "waiting", multiple=True, metavar="ID", help="A side that waits (old-school, OS-1).")
@click.option("--ties", type=click.Choice(["reroll", "simultaneous"]), default="reroll", show_default=True,
              help="Old-school ties: roll again, or act together (OS-1).")
@click.option("--round", "round_", type=click.IntRange(1), default=1, show_default=True,
              help="Cartyrion: the round (surprise and ambush only in the first, CT-1).")
@click.option("--ambush", type=click.Choice(["none", "opponents", "party"]), default="none", show_default=True,
              help="Cartyrion: who is ambushing (CT-1).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="Roll from this seed.")
@click.option("--rolls", "rolls", default=None, metavar="FACES", help="Physical dice, in draw order.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def initiative(request: Any, ruleset_name: Any, combatants: Any, sides: Any, waiting: Any, ties: Any, round_: Any, ambush: Any, seed: Any, rolls: Any, as_json: Any) -> None:
    """Roll initiative by a ruleset's rules: ER-18 and WW-1 for combatants, CT-1 and OS-1
    for sides. REQUEST is a JSON initiative request ('-' for stdin), or use the flags, e.g.
    `fracas initiative --combatant rogue=6 --combatant ogre=2`."""
    faces = _parse_rolls(rolls) if rolls is not None else None
    if request is not None:
        payload = _load_json(request.read(), "the request")
    else:
        name = rulesets.get(ruleset_name, "--ruleset").name
        if name == "cartyrion":
            payload = {"ruleset": name, "round": round_, "ambush": ambush}
        elif name == "old-school":
            ids = list(sides) + [w for w in waiting if w not in sides]
            if len(ids) < 2:
                raise click.UsageError("give the sides: --side party --side goblins (--wait ID for a waiting one)")
            payload = {"ruleset": name, "ties": ties, "sides": [{"id": i, "wait": i in waiting} for i in ids]}
        else:
            if not combatants:
                raise click.UsageError("give the combatants: --combatant rogue=6 --combatant ogre=2 (or a file)")
            field = "dex_mod" if name == "worldwalker" else "agility"
            payload = {"ruleset": name, "combatants": [{"id": i, field: n} for i, n in _pairs(combatants, "--combatant")]}
    result = _engine_call(fracas.roll_initiative, _with_rolls(payload, faces), seed=seed)
    _emit(result.to_dict(), as_json)


@main.command()
@click.option("--morale", type=int, required=True, help="The side's Morale score, 2-12 (OS-4).")
@click.option("--modifier", type=int, default=0, show_default=True, help="Situational modifier, -2..+2.")
@click.option("--successes", type=int, default=0, show_default=True, help="Checks this side already passed.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="Roll from this seed.")
@click.option("--rolls", "rolls", default=None, metavar="FACES", help="Physical dice, in draw order.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def morale(morale: Any, modifier: Any, successes: Any, seed: Any, rolls: Any, as_json: Any) -> None:
    """An old-school morale check (OS-4): 2d6 above Morale + modifier breaks."""
    payload = {"ruleset": "old-school", "morale": morale, "modifier": modifier, "successes": successes}
    if rolls is not None:
        payload["rolls"] = _parse_rolls(rolls)
    result = _engine_call(fracas.check_morale, payload, seed=seed)
    _emit(result.to_dict(), as_json)


# -- Enchanted Realms table situations: competitions (ER-19), impalement (ER-23) ------------
# Their KEY=VALUE,... options are read by the one reader of `--strike` (rulesets.er.cli.key_values).
#: What `--challenger` / `--defender KEY=VALUE,...` may set, and how each value is read.
_SIDE_KEYS: dict[str, Any] = {"id": str, "attribute": ("strength", "agility"), "strength": int, "agility": int,
                              "strength_mod": int, "agility_mod": int, "size": str, "speed": int, "prone": bool,
                              "bonus": int, "advantage": bool, "disadvantage": bool, "condition": list}
_TARGET_KEYS: dict[str, Any] = {"id": str, "ac": int, "body": int, "size": str, "resistant": list,
                                "vulnerable": list, "immune": list, "condition": list}


@main.command()
@click.argument("request", type=click.File("rb"), required=False)
@click.option("--contest", type=click.Choice(["plain", "grapple", "escape", "shove", "trip"]), default="plain",
              show_default=True, help="What is contested: a grapple, an escape from one, a shove or a trip (ER-19).")
@click.option("--challenger", metavar="KEY=VALUE,...",
              help="Who starts it (the grappler, the one escaping, the one shoving), e.g. "
                   "id=ogre,strength=6,size=large; keys: " + ", ".join(_SIDE_KEYS) + ".")
@click.option("--defender", metavar="KEY=VALUE,...", help="The other side, the same keys, e.g. "
              "id=aria,agility=5,attribute=agility,speed=40.")
@click.option("--slick", is_flag=True, help="Rainy, icy or slick ground (ER-19).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="Roll from this seed.")
@click.option("--rolls", "rolls", default=None, metavar="FACES", help="Physical d12s, in draw order.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def compete(request: Any, contest: str, challenger: Optional[str], defender: Optional[str], slick: bool,
            seed: Any, rolls: Any, as_json: bool) -> None:
    """An Enchanted Realms competition (ER-19): opposed d12 + Strength or Agility modifier,
    with the grapple and shove/trip modifiers; ties are rolled again. Prints each side's
    exact chance to win. REQUEST is a JSON competition request ('-' for stdin), or use the
    flags, e.g. `fracas compete --contest grapple --challenger id=ogre,strength=6,size=large
    --defender id=aria,agility=5,attribute=agility,speed=40`."""
    from .rulesets.er.cli import key_values

    faces = _parse_rolls(rolls) if rolls is not None else None
    if request is not None:
        payload = _load_json(request.read(), "the request")
    else:
        if not challenger or not defender:
            raise click.UsageError("give both sides: --challenger id=ogre,strength=6 --defender id=aria,strength=3"
                                   " (or a request file)")
        payload = {"contest": contest, "slick": slick,
                   "challenger": key_values(challenger, _SIDE_KEYS, "--challenger"),
                   "defender": key_values(defender, _SIDE_KEYS, "--defender")}
    result = _engine_call(fracas.compete, _with_rolls(payload, faces), seed=seed)
    _emit(result.to_dict(), as_json)


@main.command()
@click.argument("request", type=click.File("rb"), required=False)
@click.option("--str", "strength", type=int, default=None, help="The pikeman's Strength score.")
@click.option("--str-mod", "strength_mod", type=int, default=None,
              help="The pikeman's Strength modifier, when it is not floor((score - 2) / 2).")
@click.option("--forte", is_flag=True, help="Weapon forte in this pole-arm: 4d20 instead of 3d20 (ER-23).")
@click.option("--weight", type=int, default=0, show_default=True, help="Pole-arm weight: 0, 1 or 2.")
@click.option("--bonus", type=int, default=0, show_default=True, help="Other bonuses on every die.")
@click.option("--charger", metavar="KEY=VALUE,...",
              help="The charging attacker: id, ac, body (its Body now), size, resistant, vulnerable, immune, "
                   "condition, e.g. id=ogre,ac=13,body=12.")
@click.option("--closed", type=int, default=None, metavar="FEET",
              help="How far the charger closed this turn (25 ft or more, ER-23).")
@click.option("--charge", "charge_file", type=click.File("rb"), default=None, metavar="FILE",
              help="The charge itself (an attack request without seed or rolls): resolved unless it is void.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="Roll from this seed.")
@click.option("--rolls", "rolls", default=None, metavar="FACES", help="Physical dice, in draw order.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def impale(request: Any, strength: Optional[int], strength_mod: Optional[int], forte: bool, weight: int, bonus: int,
           charger: Optional[str], closed: Optional[int], charge_file: Any, seed: Any, rolls: Any,
           as_json: bool) -> None:
    """An Enchanted Realms impalement (ER-23): a pikeman's 3d20 (4d20 with forte) at a charger
    that closed 25 ft or more, before the charge; if it brings the charger to 0 Body the
    charge is void. REQUEST is a JSON impalement request ('-' for stdin), or use the flags,
    e.g. `fracas impale --str 4 --charger id=ogre,ac=12,body=8 --closed 30`."""
    from .rulesets.er.cli import key_values

    faces = _parse_rolls(rolls) if rolls is not None else None
    if request is not None:
        payload = _load_json(request.read(), "the request")
    else:
        if charger is None or closed is None or strength is None:
            raise click.UsageError("give --str, --charger id=ogre,ac=12,body=8 and --closed FEET (or a request file)")
        pikeman: dict[str, Any] = {"strength": strength}
        if strength_mod is not None:
            pikeman["strength_mod"] = strength_mod
        target = key_values(charger, _TARGET_KEYS, "--charger")
        payload = {"pikeman": pikeman, "charger": {**target, "closed": closed},
                   "weapon": {"forte": forte, "weight": weight, "bonus": bonus}}
        if charge_file is not None:
            payload["charge"] = _load_json(charge_file.read(), "--charge")
    result = _engine_call(fracas.impale, _with_rolls(payload, faces), seed=seed)
    _emit(result.to_dict(), as_json)


# -- doctor ----------------------------------------------------------------------------
@main.command()
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True,
              help="The bridge port to check.")
@click.pass_context
def doctor(ctx: click.Context, port: int) -> None:
    """Check this install: which dice backend runs and why, how fast it rolls, where the
    journal and the bridge token live, whether the config file reads, and whether the
    bridge's port is free. Exits 1 when it reports a [problem]."""
    import socket
    import time

    from . import _kernels

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
            try:
                probe.bind(("127.0.0.1", port))
                click.echo(f"  port      127.0.0.1:{port} is free for fracas serve [{verdict(True)}]")
            except OSError:
                click.echo(f"  port      127.0.0.1:{port} is in use: a fracas serve already running, or another "
                           f"program (fracas serve --port N picks another) [{verdict(False)}]")
    if problems:
        click.echo(f"{problems} problem{'s' if problems != 1 else ''} found", err=True)
        ctx.exit(1)


# -- whole fights ------------------------------------------------------------------------
from .fight_cli import encounter as _encounter_group, simulate as _simulate_command  # noqa: E402
from .fight_cli import sweep as _sweep_command  # noqa: E402

main.add_command(_encounter_group)
main.add_command(_simulate_command)
main.add_command(_sweep_command)


# -- serve (the bridge registers its own command) --------------------------------------
try:
    from fracas.bridge.cli import journal_group, serve, token_command
except ImportError as _bridge_missing:  # an install without the bridge package
    if getattr(_bridge_missing, "name", None) not in ("fracas.bridge", "fracas.bridge.cli"):
        raise
else:
    main.add_command(serve)
    main.add_command(token_command)
    main.add_command(journal_group)
