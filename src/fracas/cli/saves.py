"""`fracas save`: saves by a ruleset's rules, the kind rulesets share
(`fracas.rulesets.base.SAVE`); its flags are the ruleset's (`kind_cli_options("save")`)."""

from __future__ import annotations

from typing import Any

import click

import fracas

from .. import rulesets
from .common import _emit, _engine_call, _kind_request, _parse_rolls, _ruleset_option, _SaveCommand, _with_rolls


@click.command(cls=_SaveCommand, short_help="Saves against an effect or an area, by a ruleset's rules.")
@click.argument("request", type=click.File("rb"), required=False)
@click.option("--ruleset", "ruleset_name", default=rulesets.DEFAULT, show_default=True, metavar="NAME",
              callback=_ruleset_option, help="The ruleset whose flags describe the saves (a request file names"
                                             " its own).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="Roll from this seed.")
@click.option("--rolls", "rolls", default=None, metavar="FACES", help="Physical d20s, in draw order.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
def save(ctx: click.Context, /, request: Any, ruleset_name: Any, seed: Any, rolls: Any, as_json: bool,
         **flags: Any) -> None:
    """Saves against an effect, each creature's exact chance to save printed with its roll.
    With the default ruleset each creature rolls d20 + its attribute modifier (+ cover's
    +2/+5/+5 on an Agility save against an area effect, ER-16) against the DC, its own
    conditions counting (ER-12/ER-14), and a failed save applies the --on-fail conditions;
    with `--ruleset old-school` each rolls a d20 + modifiers against its saving throw target
    (OS-5). REQUEST is a JSON save request ('-' for stdin), or use the ruleset's flags
    (`fracas save --ruleset NAME --help` lists them), e.g. `fracas save --save agility --dc 13
    --area --on-fail asleep --target id=goblin,score=4,cover=half` or `fracas save --ruleset
    old-school --effect 'hold person' --target id=cleric,save=14`."""
    faces = _parse_rolls(rolls) if rolls is not None else None
    payload = _kind_request(ctx, request, ruleset_name, "save", flags)
    result = _engine_call(fracas.save, _with_rolls(payload, faces), seed=seed)
    _emit(result.to_dict(), as_json)
