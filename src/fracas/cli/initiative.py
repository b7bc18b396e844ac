"""`fracas initiative`: initiative by a ruleset's rules (ER-18, WW-1, CT-1, OS-1)."""

from __future__ import annotations

from typing import Any

import click

import fracas

from .. import rulesets
from .common import _emit, _engine_call, _load_json, _parse_rolls, _ruleset_option, _with_rolls


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


@click.command(short_help="Roll initiative by a ruleset's rules (ER-18, WW-1, CT-1 or OS-1).")
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
