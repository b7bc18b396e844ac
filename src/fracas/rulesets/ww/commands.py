"""`fracas counterspell`: a Worldwalker counterspell (WW-8)."""

from __future__ import annotations

from typing import Any, Optional

import click

from ..cmdkit import RequestRejected, emit, load_json, parse_rolls, roll, with_rolls
from ...errors import RequestError

#: The option behind each request field, named in an error about a request built from flags.
_FLAGS = {"$.school": "--school", "$.caster.id": "--caster", "$.caster.skill": "--caster-skill",
          "$.caster.modifier": "--caster-modifier", "$.counterspeller.id": "--counter",
          "$.counterspeller.schools": "--trained", "$.counterspeller.modifier": "--modifier",
          "$.counterspeller.distance": "--distance"}


def _schools(items: tuple[str, ...]) -> dict[str, int]:
    """`--trained sorcery=3 --trained illusion=1` → {"sorcery": 3, "illusion": 1}."""
    schools: dict[str, int] = {}
    for item in items:
        name, sep, rating = item.partition("=")
        try:
            value = int(rating)
        except ValueError:
            value = None
        if not sep or not name.strip() or value is None:
            raise click.BadParameter(f"{item!r} is not SCHOOL=RATING, e.g. sorcery=3", param_hint="--trained")
        schools[name.strip()] = value
    return schools


@click.command(short_help="A Worldwalker counterspell (WW-8): a contested check in the spell's school.")
@click.argument("request", type=click.File("rb"), required=False)
@click.option("--school", default=None, help="The school of the spell being cast, e.g. sorcery (WW-8).")
@click.option("--caster", "caster_id", default="caster", show_default=True, help="Who casts the spell.")
@click.option("--caster-skill", type=int, default=0, show_default=True,
              help="The caster's skill rating in the spell's school.")
@click.option("--caster-modifier", type=int, default=0, show_default=True,
              help="What else the caster's check adds (the attribute modifier the table pairs with the skill).")
@click.option("--counter", "counter_id", default="counterspeller", show_default=True,
              help="Who tries to counter it.")
@click.option("--trained", multiple=True, metavar="SCHOOL=RATING",
              help="A school the counterspeller has training in, and its skill rating there (repeat it); only a"
                   " trained character can counter that school's spells (WW-8).")
@click.option("--modifier", type=int, default=0, show_default=True,
              help="What else the counterspeller's check adds.")
@click.option("--distance", type=int, default=None, metavar="FEET",
              help="The counterspeller's distance to the caster: 60 ft at most (WW-8).")
@click.option("--seed", type=click.IntRange(0, 2**64 - 1), default=None, help="Roll from this seed.")
@click.option("--rolls", "rolls", default=None, metavar="FACES",
              help="Physical d20s, in draw order: the counterspeller's, then the caster's.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def counterspell(request: Any, school: Optional[str], caster_id: str, caster_skill: int, caster_modifier: int,
                 counter_id: str, trained: tuple[str, ...], modifier: int, distance: Optional[int], seed: Any,
                 rolls: Any, as_json: bool) -> None:
    """A Worldwalker counterspell (WW-8): d20 + skill in the spell's school + modifier for
    each side; the counterspeller must beat the caster (a tie leaves the spell cast). Prints
    the exact chance it had. REQUEST is a JSON counterspell request ('-' for stdin), or use
    the flags, e.g. `fracas counterspell --school sorcery --caster-skill 5 --trained sorcery=3
    --distance 40`."""
    faces = parse_rolls(rolls) if rolls is not None else None
    if request is not None:
        payload = load_json(request.read(), "the request")
    else:
        if school is None or distance is None:
            raise click.UsageError("give the spell's --school and the counterspeller's --distance in feet"
                                   " (or a request file)")
        payload = {"ruleset": "worldwalker", "school": school,
                   "caster": {"id": caster_id, "skill": caster_skill, "modifier": caster_modifier},
                   "counterspeller": {"id": counter_id, "schools": _schools(trained), "modifier": modifier,
                                      "distance": distance}}
    try:
        result = roll("counterspell", with_rolls(payload, faces), seed=seed)
    except RequestError as err:
        flag = None if request is not None else next(
            (flag for path, flag in _FLAGS.items() if err.path == path or err.path.startswith(path + ".")), None)
        raise RequestRejected(str(err) + (f" (set it with {flag})" if flag else "")) from None
    emit(result.to_dict(), as_json)
