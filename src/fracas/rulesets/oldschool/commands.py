"""`fracas morale`: an old-school morale check (OS-4)."""

from __future__ import annotations

from typing import Any

import click

from ..cmdkit import emit, engine_call, parse_rolls, roll


@click.command(short_help="An old-school morale check (OS-4): 2d6 above Morale + modifier breaks.")
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
        payload["rolls"] = parse_rolls(rolls)
    result = engine_call(roll, "morale", payload, seed=seed)
    emit(result.to_dict(), as_json)
