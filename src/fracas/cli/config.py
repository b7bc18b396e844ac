"""The config file (one table of option defaults per command) and the profiles file's place."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from .common import ruleset_named


CONFIG_ENV = "FRACAS_CONFIG"


class ConfigError(click.ClickException):
    """The config file is missing (when named), unreadable or wrong: the message names the file
    and the table and key; a user's mistake, so exit code 2 like a usage error."""

    exit_code = 2


def config_file() -> str:
    """The config file: $FRACAS_CONFIG, else config.toml in the fracas config directory."""
    return os.environ.get(CONFIG_ENV) or os.path.join(_config_dir(), "config.toml")


def _config_dir() -> str:
    """platformdirs' user config directory of fracas. On plain Linux (absolute $HOME, and
    $XDG_CONFIG_HOME unset, empty or an absolute path) it is $XDG_CONFIG_HOME/fracas or
    ~/.config/fracas in every platformdirs version (the XDG base directory spec), found
    without importing platformdirs (a tenth of `fracas --help`); anything else is asked of
    platformdirs."""
    home = os.environ.get("HOME", "")
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    if (sys.platform.startswith("linux") and not hasattr(sys, "getandroidapilevel")
            and "ANDROID_DATA" not in os.environ and os.path.isabs(home) and xdg == xdg.strip()
            and (not xdg or os.path.isabs(xdg))):
        return os.path.join(xdg or os.path.expanduser("~/.config"), "fracas")
    import platformdirs

    return platformdirs.user_config_dir("fracas", appauthor=False)


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
                looking = click.Context(command)  # a command's module is imported when it is named
                sub = command.get_command(looking, key)
                if sub is None:
                    raise ConfigError(f"config file {path}: [{name}]: no such command"
                                      f" (commands: {', '.join(sorted(command.list_commands(looking)))})")
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


def profiles_file() -> str:
    """Where `fracas attack --as` finds the GM's kept profiles: profiles.json in the config dir."""
    return os.path.join(_config_dir(), "profiles.json")
