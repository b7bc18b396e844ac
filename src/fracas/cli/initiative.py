"""`fracas initiative`: initiative by a ruleset's rules (ER-18, WW-1, CT-1, OS-1, a plug-in's)."""

from __future__ import annotations

from typing import Any

import click

import fracas

from .. import rulesets
from .common import _emit, _engine_call, _InitiativeCommand, _kind_request, _parse_rolls, _ruleset_option, _with_rolls


@click.command(cls=_InitiativeCommand,
               short_help="Roll initiative by a ruleset's rules (ER-18, WW-1, CT-1 or OS-1).")
@click.argument("request", type=click.File("rb"), required=False)
@click.option("--ruleset", "ruleset_name", default=rulesets.DEFAULT, show_default=True, metavar="NAME",
              callback=_ruleset_option,
              help="The ruleset whose flags describe the initiative (a request file names its own).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="Roll from this seed.")
@click.option("--rolls", "rolls", default=None, metavar="FACES", help="Physical dice, in draw order.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
def initiative(ctx: click.Context, /, request: Any, ruleset_name: Any, seed: Any, rolls: Any, as_json: Any,
               **flags: Any) -> None:
    """Roll initiative by a ruleset's rules: ER-18 and WW-1 for combatants, CT-1 and OS-1
    for sides. REQUEST is a JSON initiative request ('-' for stdin), or use the ruleset's
    flags, e.g. `fracas initiative --combatant rogue=6 --combatant ogre=2`;
    `fracas initiative --ruleset NAME --help` lists a ruleset's flags (old-school:
    --side, --wait, --ties; cartyrion: --round, --ambush)."""
    faces = _parse_rolls(rolls) if rolls is not None else None
    payload = _kind_request(ctx, request, ruleset_name, "initiative", flags)
    result = _engine_call(fracas.roll_initiative, _with_rolls(payload, faces), seed=seed)
    _emit(result.to_dict(), as_json)
