"""`fracas attack`: one attack or a bulk request, from a file, a kept profile or a ruleset's flags."""

from __future__ import annotations

import sys
from typing import Any, Optional

import click

import fracas

from .. import rulesets
from ..errors import RequestError
from .common import (_AttackCommand, _emit, _engine_call, _load_json, _parse_rolls, _ruleset_option,
                     _with_rolls, warn_if_slow)
from .config import profiles_file


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


@click.command(cls=_AttackCommand, short_help="Resolve one attack, or many at once, and show every die and the damage.")
@click.argument("request", type=click.File("rb"), required=False)
@click.option("--bulk", "bulk", type=click.File("rb"), metavar="FILE",
              help="Resolve a bulk request (profiles × targets × counts) from FILE ('-' for stdin).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None,
              help="Roll from this seed (wins over the request's own); the same seed replays the same dice.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON instead of a breakdown.")
@click.option("--rolls", "rolls", default=None, metavar="FACES",
              help="Physical dice instead of the generator: the faces in draw order (the documentation"
                   " site's Engine internals, §2), comma-separated, e.g. 12,7,20,3. Overrides a request's"
                   " rolls.")
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

    REQUEST is a JSON request file, or '-' for stdin; without one, the flags describe
    a single strike, e.g.
    `fracas attack --dice 3 --bonus 2 --ac 14 --weight 1 --str 4 --style slashing`.
    A request with `attacks` (or --bulk FILE) is a bulk request: many attacks of a
    few profiles, shown as a summary per target and per group. The flags are those
    of Enchanted Realms; `--ruleset NAME --help` lists another ruleset's
    (worldwalker, cartyrion, old-school).

    Each ruleset's request and result fields are on the documentation site:

    https://fracas-vtt.github.io/fracas/reference/
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
