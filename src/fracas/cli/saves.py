"""`fracas save`: saves by a ruleset's rules, the kind two rulesets share
(`fracas.rulesets.base.SAVE`): Enchanted Realms saves against a DC (ER-12, ER-14, ER-16)
and old-school saving throws against target numbers (OS-5)."""

from __future__ import annotations

from typing import Any, Optional

import click

import fracas

from .. import rulesets
from .common import _emit, _engine_call, _load_json, _parse_rolls, _ruleset_option, _with_rolls

#: What `--target KEY=VALUE,...` may set, and how each value is read, by ruleset.
_SAVER_KEYS: dict[str, Any] = {"id": str, "score": int, "modifier": int, "bonus": int, "cover": str,
                               "advantage": bool, "disadvantage": bool, "condition": list}
_OS_SAVER_KEYS: dict[str, Any] = {"id": str, "save": int, "modifier": int}


@click.command(short_help="Saves against an effect: Enchanted Realms (ER-16) or old-school saving throws (OS-5).")
@click.argument("request", type=click.File("rb"), required=False)
@click.option("--ruleset", "ruleset_name", default=rulesets.DEFAULT, show_default=True, metavar="NAME",
              callback=_ruleset_option, help="The ruleset of the flags below (a request file names its own).")
@click.option("--save", "save_", type=click.Choice(["agility", "resilience", "strength"]), default=None,
              help="Enchanted Realms: the attribute that saves.")
@click.option("--dc", type=int, default=None, help="Enchanted Realms: the DC a d20 + modifiers must meet.")
@click.option("--category", default=None, metavar="NAME",
              help="Old-school: the saving throw's category (e.g. spells), for targets with a table.")
@click.option("--modifier", type=int, default=0, show_default=True,
              help="Old-school: a modifier every target's roll gets from the effect.")
@click.option("--target", "targets", multiple=True, metavar="KEY=VALUE,...",
              help="A creature making the save (repeat for each): enchanted-realms id=goblin,score=4,cover=half"
                   " (keys: " + ", ".join(_SAVER_KEYS) + "); old-school id=fighter,save=14,modifier=1 (keys: "
                   + ", ".join(_OS_SAVER_KEYS) + ").")
@click.option("--area", is_flag=True, help="Enchanted Realms: an area effect; cover adds +2/+5/+5 to Agility"
                                           " saves (ER-16).")
@click.option("--effect", default="", help="What the effect is, for the record (e.g. 'sleep smoke').")
@click.option("--on-fail", "on_fail", multiple=True, metavar="CONDITION",
              help="Enchanted Realms: a condition a failed save applies (repeat for several), e.g. asleep.")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="Roll from this seed.")
@click.option("--rolls", "rolls", default=None, metavar="FACES", help="Physical d20s, in draw order.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def save(request: Any, ruleset_name: Any, save_: Optional[str], dc: Optional[int], category: Optional[str],
         modifier: int, targets: tuple[str, ...], area: bool, effect: str, on_fail: tuple[str, ...], seed: Any,
         rolls: Any, as_json: bool) -> None:
    """Saves against an effect. Enchanted Realms: each creature rolls d20 + its attribute
    modifier (+ cover's +2/+5/+5 on an Agility save against an area effect, ER-16) against
    the DC; its own conditions count (ER-12/ER-14); a failed save applies the --on-fail
    conditions. Old-school: each creature rolls a d20 + modifiers against its saving throw
    target (natural 20 saves, natural 1 fails; OS-5). Prints each creature's exact chance to
    save. REQUEST is a JSON save request ('-' for stdin), or use the flags, e.g. `fracas save
    --save agility --dc 13 --area --on-fail asleep --target id=goblin,score=4,cover=half` or
    `fracas save --ruleset old-school --effect 'hold person' --target id=cleric,save=14`."""
    from ..rulesets.er.cli import key_values

    faces = _parse_rolls(rolls) if rolls is not None else None
    if request is not None:
        payload = _load_json(request.read(), "the request")
    elif ruleset_name == "old-school":
        if not targets:
            raise click.UsageError("give at least one --target id=fighter,save=14 (or a request file)")
        payload = {"ruleset": "old-school", "modifier": modifier, "effect": effect,
                   "targets": [key_values(t, _OS_SAVER_KEYS, "--target") for t in targets]}
        if category is not None:
            payload["category"] = category
    else:
        if save_ is None or dc is None or not targets:
            raise click.UsageError("give --save, --dc and at least one --target id=goblin,score=4 (or a request file)")
        payload = {"ruleset": ruleset_name, "save": save_, "dc": dc, "area": area, "effect": effect,
                   "on_fail": list(on_fail), "targets": [key_values(t, _SAVER_KEYS, "--target") for t in targets]}
    result = _engine_call(fracas.save, _with_rolls(payload, faces), seed=seed)
    _emit(result.to_dict(), as_json)
