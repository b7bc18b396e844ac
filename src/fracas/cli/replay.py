"""`fracas replay`: re-resolve a recorded roll from its seed and check it matches."""

from __future__ import annotations

import sys
from typing import Any, Optional

import click

import fracas

from ..diff import differences, render_differences
from ..requests import say
from .common import RequestRejected, _emit, _engine_call, _load_json, style


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
    if "save" in request and "dc" in request:
        return "save.roll"
    if "touch" in request and "caster" in request:
        return "touch.roll"
    if "inflict" in request or ("attack" in request and "strikes" not in request):
        return "drop.roll"
    if "victim" in request and "mode" in request:
        return "lock.roll"
    if "grappler" in request and "victim" in request:
        return "slam.roll"
    if "counterspeller" in request:
        return "counterspell.roll"
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
        raise RequestRejected(f"$: {say('odds_object')} (a request, a journal entry or a JSON-RPC request)")
    if "params" in record and "method" in record:
        from ..drive import ENGINE_CALLS  # here, not at import: `fracas --help` stays quick

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


@click.command(short_help="Re-resolve a recorded roll from its seed, and check it matches.")
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
    from ..drive import ENGINE_CALLS

    call = getattr(fracas, ENGINE_CALLS[method])
    result = _engine_call(call, request, seed=seed).to_dict()
    if method == "fight.forecast" and not as_json:  # a forecast is a simulation's report, not a roll's
        from .fights import render_simulation

        click.echo(render_simulation(result))
    else:
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
