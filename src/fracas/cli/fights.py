"""`fracas encounter …`, `fracas simulate` and `fracas sweep`: whole fights from a scenario file.

    fracas encounter new crypt --scenario examples/scenarios/er-skeleton-horde.json
    fracas encounter round crypt --seed 7
    fracas encounter undo crypt
    fracas simulate examples/scenarios/er-skeleton-horde.json --runs 10000 --seed 1
    fracas sweep @er-skeleton-horde --vary '$.sides.skeletons[0].count=4..12' --runs 2000 --target 0.5
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any, Optional

import click

from ..errors import RequestError
from .common import style as _style


class _Rejected(click.ClickException):
    exit_code = 2


def _read_scenario(where: str, option: str) -> Any:
    """A scenario file, '-' (standard input) or @NAME (an example that ships with fracas)."""
    import orjson

    data: bytes
    if where.startswith("@"):
        from ..drive.scenario import example

        data = _engine(example, where[1:])
    elif where == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            with open(where, "rb") as file:
                data = file.read()
        except OSError as exc:
            raise click.BadParameter(f"cannot read {where!r}: {exc.strerror}", param_hint=option) from None
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as err:
        raise _Rejected(f"$: the scenario {where} is not valid JSON ({err})") from None


def _store(path: Optional[str]) -> Any:
    from ..store import EncounterStore, StoreError

    try:
        return EncounterStore(path)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None


#: The request fields that are this command line's arguments and options: an error there
#: names what the user typed (`NAME: no encounter named 'x'`); scenario fields keep their path.
_COMMAND_LINE = {"$.name": "NAME"}


def _rejected(err: RequestError) -> _Rejected:
    place = _COMMAND_LINE.get(err.path)
    return _Rejected(f"{place}: {err.reason}" if place else str(err))


def _engine(call: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return call(*args, **kwargs)
    except RequestError as err:
        raise _rejected(err) from None


def _dump(data: Any) -> str:
    import orjson

    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()


# -- rendering -------------------------------------------------------------------------

def _health(member: dict[str, Any]) -> str:
    text = f"{member['hp']}/{member['hp_max']}"
    if "injury" in member:
        text += f", injury {member['injury']}/{member['injury_max']}"
    return text


def render_show(shown: dict[str, Any]) -> str:
    out = [_style(f"{shown['name']}", bold=True) + f": {shown['scenario'] or 'encounter'} ({shown['ruleset']}),"
           f" round {shown['round']}"]
    if shown["over"]:
        out.append("  over: " + (f"{shown['winner']} won" if shown["winner"] else "a draw"))
    for side, members in shown["sides"].items():
        out.append(_style(f"  {side}", bold=True) + f" ({shown['standing'][side]} standing)")
        for m in members:
            status = {"standing": _style("standing", fg="green"), "down": _style("down", fg="red"),
                      "fled": _style("fled", fg="yellow")}[m["status"]]
            label = f" ({m['label']})" if m.get("label") and m["label"] != m["id"] else ""
            out.append(f"    {m['id']}{label}: {_health(m)} {status}")
    for group, morale in shown.get("morale", {}).items():
        state = "broken" if morale["broken"] else "to the death" if morale["to_death"] else \
            f"{morale['successes']} check(s) passed"
        out.append(f"  morale of {group}: {state}")
    rounds = shown.get("rounds") or []
    if rounds:  # each round's seed: `fracas encounter round --seed` plays it again from the state before it
        listed = [f"{r['round']} (seed {r['seed']})" for r in rounds[-ROUNDS_SHOWN:]]
        more = f"{len(rounds) - ROUNDS_SHOWN} earlier in --json, " if len(rounds) > ROUNDS_SHOWN else ""
        out.append(f"  rounds: {more}{', '.join(listed)}")
    return "\n".join(out)


#: Rounds whose seeds `encounter show` lists (the latest; --json has them all).
ROUNDS_SHOWN = 12


def _situation(situation: dict[str, Any]) -> str:
    """What the round changed in an attack (fleeing target, parry, power attack...), briefly."""
    parts = [f"{k}={v}" for k, v in situation.get("target", {}).items()]
    for i, fields in situation.get("strikes", {}).items():
        parts += [f"strike {i} {k}={v}" for k, v in fields.items()]
    return ", ".join(parts)

#: Names an `order:` line shows before it sums up the rest (a 300-creature fight's line ran
#: to 3,000 characters; `--json` has them all).
ORDER_SHOWN = 24


def _order_line(order: list[list[str]]) -> str:
    """The acting order, slot by slot ("a, b; c"): at most ORDER_SHOWN names, then "… and N more"."""
    shown: list[str] = []
    left = ORDER_SHOWN
    for slot in order:
        if left <= 0:
            break
        shown.append(", ".join(slot[:left]))
        left -= len(slot)
    line = "; ".join(shown)
    total = sum(len(slot) for slot in order)
    if total > ORDER_SHOWN:
        line += f" … and {total - ORDER_SHOWN} more (--json lists them)"
    return line


def render_round(log: dict[str, Any]) -> str:
    out = [_style(f"Round {log['round']}", bold=True) + f" (seed {log['seed']})"]
    order = log.get("order") or []
    if order:
        out.append("  order: " + _order_line(order))
    if log.get("surprised"):
        out.append("  surprised: " + ", ".join(log["surprised"]))
    for e in log.get("events", []):
        kind = e["type"]
        if kind in ("attack", "spell"):
            what = f" casts {e['spell']} at" if kind == "spell" else " →"
            line = f"  {e['who']}{what} {e['target']}: {e['damage']} damage"
            if e.get("injury_damage"):
                line += f" ({e['injury_damage']} as injury)"
            if e.get("situation"):
                line += f" [{_situation(e['situation'])}]"
            out.append(line)
        elif kind == "down":
            out.append("    " + _style(f"{e['who']} is down", fg="red"))
        elif kind == "fled":
            out.append("    " + _style(f"{e['who']} flees ({e['why']})", fg="yellow"))
        elif kind == "morale":
            verdict = "breaks" if e["breaks"] else "holds" + (", to the death" if e["fights_to_death"] else "")
            if len(e.get("groups", [])) > 1:  # one roll for the side, read against each group's Morale
                verdict = "; ".join(f"{g['group']} vs {g['against']}: "
                                    + ("breaks, " + g["then"] if g["breaks"] else "holds"
                                       + (", to the death" if g["fights_to_death"] else ""))
                                    for g in e["groups"])
                out.append(f"  morale of {e['group']} ({e['trigger']}, {e['rule']}): 2d6 {e['total']}: {verdict}")
            else:
                out.append(f"  morale of {e['group']} ({e['trigger']}, {e['rule']}): 2d6 {e['total']} vs"
                           f" {e['against']}: {verdict}" + (f"; {e['then']}" if e.get("then") else ""))
        elif kind in ("flight", "surrender"):
            what = "declare flight" if kind == "flight" else "surrender"
            out.append("  " + _style(f"{', '.join(e['who'])} {what} ({e['why']}, {e['rule']})", fg="yellow"))
        elif kind == "parry":
            out.append(f"  {e['who']} parries with its {e['with']} ({e['rule']}): no attack this turn")
        elif kind == "reserve":
            out.append(f"  {e['who']} holds {e['reserved']} action(s) in reserve to block or dodge, forgoing"
                       f" {len(e['forgoes'])} strike(s); {e['actions']} left this round ({e['rule']})")
        elif kind == "reserve spent":
            out.append(f"    {e['who']} spends a reserved action ({e['left']} left, {e['rule']})")
        elif kind == "feint":
            out.append(f"  {e['who']} feints (strike {e['strike']}, {e['rule']}): its attack comes with its next action")
        elif kind == "attack of opportunity":
            line = f"    {e['who']} → {e['target']}: attack of opportunity, {e['damage']} damage"
            out.append(line + (f" [{_situation(e['situation'])}]" if e.get("situation") else ""))
        elif kind in ("weapon broken", "weapon shattered", "shield destroyed", "no weapon"):
            out.append("    " + _style(f"{e['who']}: {kind} ({e['why']}, {e['rule']})", fg="yellow"))
        elif kind == "spell lost":
            out.append(f"  {e['who']} loses {e['spell']} ({e['why']}, {e['rule']})")
        elif kind == "end":
            out.append(_style("  " + (f"{e['winner']} wins" if e.get("winner") else e["reason"]), bold=True))
    out.append("  standing: " + ", ".join(f"{side} {n}" for side, n in log.get("standing", {}).items()))
    return "\n".join(out)


# -- fracas encounter --------------------------------------------------------------------

@click.group("encounter", short_help="Fights a GM plays one round at a time, kept between runs (undo included).")
@click.option("--store", "store_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="The store file [default: journal.sqlite3 in $FRACAS_HOME or the fracas data directory].")
@click.pass_context
def encounter(ctx: click.Context, store_path: Optional[str]) -> None:
    """Fights a GM plays one round at a time, kept between runs (undo included)."""
    ctx.obj = store_path


@encounter.command("new")
@click.argument("name")
@click.option("--scenario", "scenario_file", required=True, metavar="FILE|@NAME",
              help="The scenario file (JSON; '-' reads standard input), or @NAME for an example that ships"
                   " with fracas (@er-skeleton-horde, @ct-hill-giant, @ww-duel, @os-goblin-ambush).")
@click.option("--replace", is_flag=True, help="Replace an encounter of that name.")
@click.option("--json", "as_json", is_flag=True, help="Print the new encounter as JSON.")
@click.pass_obj
def encounter_new(store_path: Optional[str], name: str, scenario_file: Any, replace: bool, as_json: bool) -> None:
    """Make encounter NAME from a scenario file (nothing is kept unless the file is valid)."""
    from ..drive.encounter import Encounter

    scenario = _read_scenario(scenario_file, "--scenario")
    try:
        enc = Encounter.new(name, scenario, store=_store(store_path), replace=replace)
    except RequestError as err:
        if err.path == "$.name" and "exists already" in err.reason:  # say how, in this command's words
            raise _Rejected(f"NAME: an encounter named {name!r} exists already: add --replace to replace it,"
                            f" or delete it first (fracas encounter delete {name})") from None
        raise _rejected(err) from None
    shown = enc.show()
    click.echo(_dump(shown) if as_json else render_show(shown))


@encounter.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print it as JSON.")
@click.pass_obj
def encounter_show(store_path: Optional[str], name: str, as_json: bool) -> None:
    """Show encounter NAME as it stands."""
    from ..drive.encounter import Encounter

    shown = _engine(Encounter.open, name, store=_store(store_path)).show()
    click.echo(_dump(shown) if as_json else render_show(shown))


@encounter.command("round")
@click.argument("name")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None,
              help="Play the round from this seed (the same state and seed play the same round).")
@click.option("--json", "as_json", is_flag=True, help="Print the round's log as JSON.")
@click.pass_obj
def encounter_round(store_path: Optional[str], name: str, seed: Optional[int], as_json: bool) -> None:
    """Play the next round of encounter NAME and keep it."""
    from ..drive.encounter import Encounter

    enc = _engine(Encounter.open, name, store=_store(store_path))
    log = _engine(enc.round, seed)
    click.echo(_dump(log) if as_json else render_round(log))


@encounter.command("undo")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the encounter after the undo as JSON.")
@click.pass_obj
def encounter_undo(store_path: Optional[str], name: str, as_json: bool) -> None:
    """Take back the last round of encounter NAME (exactly: state and seeds as before it)."""
    from ..drive.encounter import Encounter

    shown = _engine(_engine(Encounter.open, name, store=_store(store_path)).undo)
    click.echo(_dump(shown) if as_json else render_show(shown))


@encounter.command("log", short_help="Show the kept log of a round of encounter NAME.")
@click.argument("name")
@click.option("--round", "round_", type=click.IntRange(1), default=None, help="This round [default: the last].")
@click.option("--json", "as_json", is_flag=True, help="Print the log as JSON.")
@click.pass_obj
def encounter_log(store_path: Optional[str], name: str, round_: Optional[int], as_json: bool) -> None:
    """Show the kept log of a round of encounter NAME: its seed, initiative, every attack's
    damage and who fell (--json: every event, each attack with its seed and result). An
    undo takes its round back, log included."""
    from ..drive.encounter import Encounter

    enc = _engine(Encounter.open, name, store=_store(store_path))
    log = enc.last_round(round_)
    if log is None:
        kept = f"rounds kept: 1 to {enc.seq}" if enc.seq > 1 else "round kept: 1" if enc.seq == 1 else None
        if round_ is None or kept is None:
            where = f"--round {round_}: " if round_ is not None else "NAME: "
            raise _Rejected(f"{where}{name!r} has no round kept yet: play one with fracas encounter round {name}")
        raise _Rejected(f"--round {round_}: {name!r} has no round {round_} kept ({kept}; an undone round is taken"
                        " back, log and all)")
    click.echo(_dump(log) if as_json else render_round(log))


@encounter.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.pass_obj
def encounter_list(store_path: Optional[str], as_json: bool) -> None:
    """List the kept encounters."""
    from ..drive.encounter import Encounter

    found = Encounter.list(store=_store(store_path))
    if as_json:
        click.echo(_dump(found))
        return
    if not found:
        click.echo("no encounters yet (fracas encounter new NAME --scenario FILE makes one)")
    for e in found:
        state = ("over: " + (f"{e['winner']} won" if e["winner"] else "a draw")) if e["over"] else "in progress"
        click.echo(f"{e['name']}  {e['ruleset']}  round {e['round']}  {state}  (updated {e['updated_at']})")


@encounter.command("delete")
@click.argument("name")
@click.pass_obj
def encounter_delete(store_path: Optional[str], name: str) -> None:
    """Delete encounter NAME and its rounds."""
    from ..drive.encounter import Encounter

    _engine(Encounter.delete, name, store=_store(store_path))
    click.echo(f"deleted {name}")


# -- fracas simulate ---------------------------------------------------------------------

def _cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _default_workers(scenario: Any, fights: int, loop: str, dask_address: Optional[str]) -> int:
    """--workers when it is not given: the cores on --dask; on this machine, one process
    unless the run is large enough to pay for starting more (`drive.simulate.default_workers`;
    the estimate is of the scenario as given, for every point of a sweep)."""
    if dask_address:
        return max(1, _cores())
    from ..drive.scenario import compile_scenario
    from ..drive.simulate import default_workers, fight_cost

    sc = _engine(compile_scenario, scenario)
    return default_workers(fights, fight_cost(sc, loop), _cores())


def _extras(dask_address: Optional[str], plot_out: Optional[str]) -> None:
    """--dask and --plot name their extra before anything runs."""
    if dask_address is not None and dask_address != "local" and "://" not in dask_address and ":" not in dask_address:
        raise click.BadParameter(f"{dask_address!r} is neither 'local' nor a scheduler address like"
                                 " tcp://127.0.0.1:8786", param_hint="--dask")
    if dask_address is not None:
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            raise click.UsageError("--dask needs dask.distributed: pip install 'fracas[dask]'") from None
    if plot_out is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise click.UsageError("--plot needs matplotlib: pip install 'fracas[plot]'") from None


#: Combatants a simulation report lists one by one; more are rolled up per group.
ROLL_UP = 16


def _groups(combatants: dict[str, Any]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The combatants per (side, group), in the scenario's order."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for c in combatants.values():
        groups.setdefault((c["side"], c["group"]), []).append(c)
    return groups


def render_simulation(result: dict[str, Any]) -> str:
    out = [_style(result["scenario"] or "simulation", bold=True) + f" ({result['ruleset']}): "
           f"{result['completed']} of {result['runs']} fights, seed {result['seed']}"]
    if result["interrupted"]:
        out.append(_style("  interrupted: the figures are of the fights finished", fg="yellow"))
    for side, s in result["sides"].items():
        lo, hi = s["win_rate_ci95"]
        out.append(f"  {side:<14} wins {100 * s['win_rate']:5.1f} %  (95 %: {100 * lo:.1f} to {100 * hi:.1f} %),"
                   f" survivors {s['survivors_mean']:.2f} of {s['combatants']}")
    if result["draws"]["count"]:
        out.append(f"  {'draws':<14}      {100 * result['draws']['rate']:5.1f} %")
    r = result["rounds"]
    out.append(f"  rounds: mean {r['mean']:.2f}, median {r['median']}, {r['min']} to {r['max']}")
    combatants = result["combatants"]
    if len(combatants) <= ROLL_UP:
        out.append("  per combatant (means per fight):")
        for member, c in combatants.items():
            out.append(f"    {member:<22} {c['side']:<12} dealt {c['dealt_mean']:7.2f}  taken {c['taken_mean']:7.2f}"
                       f"  survives {100 * c['survived_rate']:5.1f} %")
    else:
        out.append(f"  per group of {len(combatants)} combatants (means per fight and member; --json has each):")
        for (side, group), members in _groups(combatants).items():
            n = len(members)
            label = f"{group} x{n}" if n > 1 else group
            mean = {key: sum(c[key] for c in members) / n for key in ("dealt_mean", "taken_mean", "survived_rate")}
            out.append(f"    {label:<22} {side:<12} dealt {mean['dealt_mean']:7.2f}  taken {mean['taken_mean']:7.2f}"
                       f"  survives {100 * mean['survived_rate']:5.1f} %")
    out.extend(_falling(result))
    loop = result.get("fight_loop") or {}
    if loop.get("flat_python_fights"):  # say so when fights did not play compiled
        out.append(_style(f"  {_fights(loop['flat_python_fights'])} on the fight loop run as Python (the compiled"
                          " core is not in use: pure-Python kernels)", fg="yellow"))
    if loop.get("python_fights"):
        out.append(_style(f"  {_fights(loop['python_fights'])} on the Python round loop"
                          f" ({loop['compiled_fights']} compiled{_flat(loop)}): {loop['python_why']}", fg="yellow"))
    t = result.get("timing")  # a forecast (fight.forecast, fracas.forecast) has none
    if t is not None:
        out.append(f"  {t['seconds']:.2f} s, {t['fights_per_second']:,.0f} fights/s ({t['executor']},"
                   f" {t['workers']} worker{'s' if t['workers'] != 1 else ''})")
    return "\n".join(out)


def _fights(n: int) -> str:
    return f"{n} fight{'s' if n != 1 else ''}"


def _flat(loop: dict[str, Any]) -> str:
    n = loop.get("flat_python_fights", 0)
    return f", {n} on the fight loop run as Python" if n else ""


def _falling(result: dict[str, Any]) -> list[str]:
    """Who is likely to fall: the few combatants most often down or fled at the end, with
    the damage they take on average (`drive.simulate.likely_to_fall`)."""
    from ..drive.simulate import likely_to_fall

    falling = likely_to_fall(result)
    if not falling:
        return ["  likely to fall: nobody (no combatant was down or fled at the end of any fight)"]
    out = ["  likely to fall (down or fled at the end; damage taken per fight):"]
    for c in falling:
        fled = f"  (fled {100 * c['fled_rate']:.1f} %)" if c["fled_rate"] else ""
        out.append(f"    {c['id']:<22} {c['side']:<12} {100 * c['fall_rate']:5.1f} %  taken {c['taken_mean']:7.2f}{fled}")
    return out


def _executor(command: Any) -> Any:
    """--workers and --dask, as `simulate` and `sweep` take them."""
    command = click.option("--dask", "dask_address", default=None, metavar="ADDRESS|local",
                           help="Play on a dask.distributed scheduler (tcp://host:8786), or 'local' for a"
                                " LocalCluster (needs pip install 'fracas[dask]').")(command)
    return click.option("--workers", type=click.IntRange(1, 1024), default=None,
                        help="Processes on this machine [default: one when fights × combatants is under"
                             " 3,000,000, or under 10,000 when the fights play on the Python round loop (--loop"
                             " python, or a scenario the compiled loop does not cover): starting processes costs"
                             " more than such a run takes; above that, one per core]; with --dask, the cluster's"
                             " workers [default: the cores]. The result is the same for any count.")(command)


_json_out = click.option("--json", "json_out", type=click.Path(dir_okay=False, allow_dash=True), default=None,
                         metavar="OUT", help="Write the result as JSON to OUT ('-': standard output, no text).")
_progress = click.option("--progress/--no-progress", default=None,
                         help="A progress bar on standard error [default: when it is a terminal and the JSON is"
                              " not on standard output].")

_loop = click.option("--loop", type=click.Choice(["auto", "python"]), default="auto", show_default=True,
                     help="auto: the fight loop where it covers the scenario (compiled: the same fights, faster);"
                          " python: the Python round loop.")


@click.command("simulate", short_help="Play many fights of a scenario and report who wins how often.")
@click.argument("scenario_file", metavar="SCENARIO")
@click.option("--runs", type=click.IntRange(1, 10_000_000), default=1000, show_default=True, help="Fights to play.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None,
              help="Fight i plays from a stream of (seed, i): the result is the same for any --workers or --dask.")
@_executor
@_json_out
@click.option("--plot", "plot_out", type=click.Path(dir_okay=False), default=None, metavar="OUT.png",
              help="Draw win rates and the rounds histogram (needs pip install 'fracas[plot]').")
@_progress
@_loop
def simulate(scenario_file: Any, runs: int, seed: Optional[int], workers: Optional[int], dask_address: Optional[str],
             json_out: Optional[str], plot_out: Optional[str], progress: Optional[bool], loop: str) -> None:
    """Play many fights of a SCENARIO file ('-': standard input; @NAME: an example that ships
    with fracas, e.g. @er-skeleton-horde) and report who wins how often (with a 95 %
    interval), how many rounds fights last, who survives, damage dealt and taken, and
    who is likely to fall (the combatants most often down or fled at the end). Ctrl-C
    stops cleanly and reports the fights finished."""
    from ..drive.simulate import MissingExtra, WorkersFailed, plot, simulate as run

    scenario = _read_scenario(scenario_file, "SCENARIO")
    if workers is None:
        workers = _default_workers(scenario, runs, loop, dask_address)
    _extras(dask_address, plot_out)
    if progress is None:
        progress = sys.stderr.isatty() and json_out != "-"
    bar: Any = None
    if progress:
        bar = click.progressbar(length=runs, label="fights", file=sys.stderr)
        bar.__enter__()
    try:
        outcome = _engine(run, scenario, runs=runs, seed=seed, workers=workers, dask=dask_address,
                          progress=bar.update if bar is not None else None, loop=loop)
    except MissingExtra as exc:
        raise click.UsageError(str(exc)) from None
    except WorkersFailed as exc:  # a worker killed (out of memory?): say so, not a traceback
        raise click.ClickException(str(exc)) from None
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    _write(outcome.to_dict(), json_out, plot_out, render_simulation, plot)


def _write(result: dict[str, Any], json_out: Optional[str], plot_out: Optional[str], text: Any, plot: Any) -> None:
    """A simulation's or a sweep's result: JSON (to a file, or alone on standard output),
    the text report, the plot; then the exit code of the signal that stopped it, if any."""
    from ..drive.simulate import MissingExtra

    if json_out == "-":
        click.echo(_dump(result))
    else:
        if json_out:
            with open(json_out, "w", encoding="utf-8") as out:
                out.write(_dump(result) + "\n")
        click.echo(text(result))
    if plot_out:
        try:
            plot(result, plot_out)
        except MissingExtra as exc:
            raise click.UsageError(str(exc)) from None
        click.echo(f"wrote {plot_out}", err=True)
    if result["interrupted"]:
        # 128 + the signal's number, as a shell reports a process the signal ended: 130 for SIGINT
        # (and a Ctrl-C arriving as KeyboardInterrupt), 143 for SIGTERM.
        sys.exit(128 + (signal.SIGTERM if result["stopped_by"] == "SIGTERM" else signal.SIGINT))


# -- fracas sweep ------------------------------------------------------------------------

#: The sweep's own arguments, as the command line names them (scenario paths stay as they are).
_SWEEP_OPTIONS = {"vary": "--vary", "target": "--target", "side": "--side", "runs": "--runs", "workers": "--workers",
                  "seed": "--seed", "loop": "--loop"}


def _sweep_rejected(err: RequestError) -> _Rejected:
    option = _SWEEP_OPTIONS.get(err.path.split("[", 1)[0])
    if option is not None:
        return _Rejected(f"{option}: {err.reason}")
    if err.path.startswith("$") and err.path != "$" and not err.path.startswith("$:"):
        return _Rejected(f"--vary {err.path}: {err.reason}")  # a varied field or a point the scenario refuses
    return _Rejected(str(err))


@click.command("sweep", short_help="Play a scenario at every value of one or two fields and report win rates.")
@click.argument("scenario_file", metavar="SCENARIO")
@click.option("--vary", "vary", multiple=True, required=True, metavar="PATH=VALUES",
              help="A field to vary and its values: a range a..b (a..b:step) or a list a,b,c, e.g."
                   " '$.sides.skeletons[0].count=4..40'. Once or twice (a grid).")
@click.option("--runs", type=click.IntRange(1, 10_000_000), default=1000, show_default=True,
              help="Fights per point.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None,
              help="Point p plays from a stream of (seed, p): the table is the same for any --workers or --dask.")
@_executor
@click.option("--target", type=click.FloatRange(0, 1), default=None, metavar="RATE",
              help="Mark where a side's win rate crosses RATE (e.g. 0.5), interpolated between points.")
@click.option("--side", default=None, metavar="NAME", help="The side --target follows [default: the first side].")
@_json_out
@click.option("--plot", "plot_out", type=click.Path(dir_okay=False), default=None, metavar="OUT.png",
              help="Draw win rates against the field (a heatmap for two; needs pip install 'fracas[plot]').")
@_progress
@_loop
def sweep(scenario_file: Any, vary: tuple[str, ...], runs: int, seed: Optional[int], workers: Optional[int],
          dask_address: Optional[str], target: Optional[float], side: Optional[str], json_out: Optional[str],
          plot_out: Optional[str], progress: Optional[bool], loop: str) -> None:
    """Play RUNS fights of a SCENARIO at every value of one or two fields and report each
    side's win rate (with a 95 % interval), draws, mean rounds and survivors per point,
    and where a side's win rate crosses --target. Every point is checked before any
    fight starts; Ctrl-C stops cleanly and reports the points finished (exit 130)."""
    from ..drive.simulate import MissingExtra, WorkersFailed
    from ..drive.sweep import MAX_FIELDS, parse_vary, plot, render, sweep as run

    if len(vary) > MAX_FIELDS:
        raise click.BadParameter(f"a sweep varies 1 or {MAX_FIELDS} fields, got {len(vary)}", param_hint="--vary")
    scenario = _read_scenario(scenario_file, "SCENARIO")
    from ..drive.scenario import compile_scenario

    _engine(compile_scenario, scenario)  # the scenario's own errors first: what `sweep` says after is of --vary
    if workers is None:
        points = 1
        for i, spec in enumerate(vary):
            try:
                points *= len(parse_vary(spec, i).values)
            except RequestError as err:  # the sweep's own error, with its option
                raise _sweep_rejected(err) from None
        workers = _default_workers(scenario, runs * points, loop, dask_address)
    _extras(dask_address, plot_out)
    if progress is None:
        progress = sys.stderr.isatty() and json_out != "-"
    bar: Any = None
    try:
        if progress:
            fights = runs
            for i, spec in enumerate(vary):  # the bar's length (a wrong --vary is the sweep's error, below)
                try:
                    fights *= len(parse_vary(spec, i).values)
                except RequestError:
                    fights = 0
            if fights:
                bar = click.progressbar(length=fights, label="fights", file=sys.stderr)
                bar.__enter__()
        outcome = run(scenario, list(vary), runs=runs, seed=seed, workers=workers, dask=dask_address,
                      target=target, side=side, progress=bar.update if bar is not None else None, loop=loop)
    except RequestError as err:
        raise _sweep_rejected(err) from None
    except MissingExtra as exc:
        raise click.UsageError(str(exc)) from None
    except WorkersFailed as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
    _write(outcome.to_dict(), json_out, plot_out, lambda result: render(result, _style), plot)
