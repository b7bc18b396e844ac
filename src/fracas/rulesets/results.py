"""What a result looks like, declared once: msgspec Structs a ruleset names for each kind
of request it resolves (`Ruleset.result_types`), from which the spec writes the bridge's
exact result schemas (`bridge/schema.json`: every key the backends build required, no
other key, value types as precise as they are true).

The shapes here are the ones several rulesets share: the top of every attack and bulk
result, the bulk groups and totals, listed attacks, initiative entries and the exact
odds (`fracas.odds`, the same driver for every ruleset). A ruleset subclasses them and
adds its own fields in its folder (`fracas/rulesets/er/results.py`); a key only some
results have (a bulk request's `attacks`, only when `detail` lists them) is a field
defaulting to `UNSET`, so the schema leaves it optional.

`check(value, shape, path)` decodes a built result against its shape (msgspec refuses an
extra key, a missing key, a wrong type), for tests and for a ruleset that wants to prove
what it builds; the engine does not call it on its hot paths.
"""

from __future__ import annotations

from types import GenericAlias
from typing import Annotated, Any, Literal, Union

import msgspec
from msgspec import UNSET, UnsetType

__all__ = ["Shape", "Seed", "Count", "Backend", "Detail", "UNSET", "UnsetType", "Rolled", "Attack", "BulkTotals",
           "BulkGroup", "Bulk", "LISTED", "Ranked", "OddsSummary", "OddsHit", "OddsTarget", "GroupDamage", "OddsResult",
           "check", "check_order", "ShapeError", "RowBulkGroup", "Damage", "row_result_types", "strike_result_types",
           "Probability", "Fraction", "CritOddsTarget", "CritOddsResult"]


class Shape(msgspec.Struct, forbid_unknown_fields=True):
    """A result object: every field is a key the backends build (`UNSET` defaults: keys
    only some results have), and no other key is allowed."""


#: A seed: what the generator was started from (docs/ENGINE.md §2).
Seed = Annotated[int, msgspec.Meta(ge=0)]
#: A count of dice, hits, attacks: never negative.
Count = Annotated[int, msgspec.Meta(ge=0)]
#: Which backend rolled: the compiled core or the pure-Python one.
Backend = Literal["compiled", "python"]
#: A bulk request's detail level (what `attacks` lists).
Detail = Literal["summary", "attacks", "dice"]
#: An exact probability, "numerator/denominator".
Fraction = Annotated[str, msgspec.Meta(pattern=r"^\d+/\d+$")]
#: A probability, 0 to 1.
Probability = Annotated[float, msgspec.Meta(ge=0, le=1)]


class Rolled(Shape):
    """The top of every result that rolled dice: its ruleset, seed, and whether the faces
    were injected (`rolls`)."""

    ruleset: str
    seed: Seed
    injected: bool


class Attack(Shape):
    """The top of an attack result (`attack.resolve`): a ruleset adds `strikes` and
    `targets` of its own shapes (and what else its attacks report)."""

    ruleset: str
    seed: Seed
    backend: Backend
    injected: bool
    total_damage: Count


class BulkTotals(Shape):
    """One target's totals over a bulk request, as every ruleset counts them."""

    damage: Count
    attacks: Count
    attacks_hit: Count
    strikes: Count
    strikes_hit: Count


class GroupDamage(Shape):
    """What one `attacks` entry of a bulk request did (`BulkGroup`'s first fields)."""

    profile: str
    target: Union[str, list[str]]
    count: Count
    attacks_hit: Count
    hit_rate: Probability
    damage: Count
    mean_damage: Annotated[float, msgspec.Meta(ge=0)]


# `histogram` is keyword-only, which msgspec places after every positional field: a
# ruleset's own (ER's crits, the row kernel's exploded) come before it, where results hold them.
class BulkGroup(GroupDamage, kw_only=True):
    """One `attacks` entry of a bulk request: its profile, target(s) and what it did
    (`histogram`: attacks by damage, up to the last damage any dealt)."""

    histogram: list[Count]


#: What a listed attack of a bulk request is (its shape is the ruleset's: its strikes').
LISTED = ("One attack of a bulk request listed (`detail` \"attacks\" or \"dice\"): its group, its damage, and each"
          " strike's damage (\"attacks\") or result (\"dice\").")


class Bulk(Shape):
    """The top of a bulk result (`attack.bulk`): a ruleset adds `targets` and `groups` of
    its own shapes, `total_damage`, and `attacks` (present unless `detail` is "summary"),
    in that order, as results hold them."""

    ruleset: str
    seed: Seed
    backend: Backend
    detail: Detail
    attacks_total: Count


class Ranked(Shape):
    """One combatant of an initiative order, highest first: its d-roll, modifier, total and
    the roll-off faces that broke its ties."""

    id: str
    roll: int
    modifier: int
    total: int
    tiebreaks: list[int]


class OddsSummary(Shape):
    """An exact damage distribution: mean, spread, and [[damage, p]] ascending."""

    mean: float
    mean_exact: Fraction
    sd: Annotated[float, msgspec.Meta(ge=0)]
    distribution: list[tuple[int, float]]


class OddsHit(OddsSummary):
    """A target's exact odds up to its chance to be hit (`OddsTarget`'s first fields)."""

    exact: list[tuple[int, Fraction]]
    p_hit: Probability
    p_hit_exact: Fraction


# The fields here are keyword-only, which msgspec places after every positional one: a
# ruleset's own (ER's p_crit) come after p_hit_exact, where results hold them.
class OddsTarget(OddsHit, kw_only=True):
    """One target's exact odds (`fracas.odds`); `remaining`, `p_drop` and `p_drop_exact`
    only for a target the request gave `remaining` for."""

    p_at_least: dict[str, Probability]
    remaining: Union[Annotated[int, msgspec.Meta(ge=1)], UnsetType] = UNSET
    p_drop: Union[Probability, UnsetType] = UNSET
    p_drop_exact: Union[Fraction, UnsetType] = UNSET


class OddsResult(Shape):
    """Exact odds of an attack (`attack.odds`) for a ruleset without crits: per target and
    in total, and the probability counted short where an endless chain is cut."""

    ruleset: str
    count: Annotated[int, msgspec.Meta(ge=1)]
    targets: dict[str, OddsTarget]
    total: OddsSummary
    cut: Probability
    cut_note: str


# p_crit and p_crit_exact are positional: msgspec places them before OddsTarget's keyword-only
# fields, right after p_hit_exact, where results hold them.
class CritOddsTarget(OddsTarget):
    """One target's exact odds for a ruleset with crits (its `odds` says so): its chance to
    crit after its chance to hit."""

    p_crit: Probability
    p_crit_exact: Fraction


class CritOddsResult(OddsResult):
    """Exact odds of an attack (`attack.odds`) for a ruleset with crits: a ruleset whose
    `odds` returns has_crit True names this (or its own subclass) as `result_types["odds"]`."""

    targets: dict[str, CritOddsTarget]  # type: ignore[assignment]


class ShapeError(ValueError):
    """A built result that is not its declared shape (a programmer's error)."""


def check(value: Any, shape: type, path: str = "$") -> Any:
    """`value` (a JSON-ready result) decoded as `shape`: raises `ShapeError` naming the
    first key that is extra, missing or of the wrong type."""
    try:
        return msgspec.json.decode(msgspec.json.encode(value), type=shape)
    except msgspec.ValidationError as exc:
        raise ShapeError(f"{shape.__name__} at {path}: {exc}") from None


def check_order(value: Any, shape: type, path: str = "$") -> None:
    """Raise `ShapeError` naming the first object of `value` (a JSON-ready result, as built:
    dicts keep their insertion order) whose keys are not in its shape's field order, which
    is the order results hold (the Roll20 contract's layouts, written from the same fields,
    hold the JavaScript resolver to it). Keys a result may leave out are skipped; which keys
    are there at all is `check`'s business."""
    import msgspec.inspect as mi

    def walk(value: Any, info: Any, path: str) -> None:
        if isinstance(info, mi.Metadata):
            walk(value, info.type, path)
        elif isinstance(info, mi.StructType) and isinstance(value, dict):
            fields = {field.encode_name: field for field in info.fields}
            order = [key for key in value if key in fields]
            declared = [name for name in fields if name in value]
            if order != declared:
                raise ShapeError(f"{info.cls.__name__} at {path}: keys in the order {', '.join(order)}; the shape "
                                 f"has {', '.join(declared)}")
            for key in declared:
                walk(value[key], fields[key].type, f"{path}.{key}")
        elif isinstance(info, mi.ListType) and isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, info.item_type, f"{path}[{index}]")
        elif isinstance(info, mi.DictType) and isinstance(value, dict):
            for key, item in value.items():
                walk(item, info.value_type, f"{path}.{key}")
        elif isinstance(info, mi.UnionType) and isinstance(value, dict):
            for member in info.types:  # an object is the union's one shape (the layouts allow one)
                if isinstance(member, mi.StructType):
                    walk(value, member, path)

    walk(value, mi.type_info(shape), path)


# -- rulesets on the shared strike-row kernel (fracas.rulesets.rows) -------------------------

class Damage(Shape):
    """A target of an attack that reports its damage only (`rows.Rules` without a
    `target_result`)."""

    damage: Count


class RowBulkGroup(BulkGroup):
    """One `attacks` entry of a row-kernel bulk request, with its exploded dice."""

    exploded: Count


def row_result_types(module: str, strike: type, target: type = Damage, bulk_target: type = BulkTotals,
                     attack: type = Attack, group: type = RowBulkGroup) -> dict[str, type]:
    """The attack and bulk result shapes of a `rows.RowRuleset` (`Ruleset.result_types`),
    from its strike and target shapes (what its `Rules.strike_result` and `target_result`
    build), its bulk totals (`BulkTotals` + its `Rules.bulk_fields`), the top of its
    attack result (`Attack` + what its `Rules.attack_result` adds) and its bulk entries'
    (`RowBulkGroup`; `BulkGroup` for a `generic.StrikeRuleset`: `strike_result_types`).
    `module` is where the shapes are declared (the schema names them by ruleset)."""
    # Types made from the arguments at run time (GenericAlias: a checker sees no type here).
    strikes, targets = GenericAlias(list, (strike,)), GenericAlias(dict, (str, target))
    listed = msgspec.defstruct("Listed", [("group", Count), ("damage", Count),
                                          ("strikes", GenericAlias(list, (Count | strike,)))],
                               bases=(Shape,), module=module)
    # Results hold strikes and targets before total_damage (the Roll20 contract's layouts
    # check that order), so the fields are placed there, not appended to `attack`'s.
    top = [(field.name, field.type) for field in msgspec.structs.fields(attack)]
    before = [name for name, _type in top].index("total_damage")
    made = {
        "attack": msgspec.defstruct("AttackResult", [*top[:before], ("strikes", strikes), ("targets", targets),
                                                     *top[before:]], bases=(Shape,), module=module),
        "bulk": msgspec.defstruct("BulkResult", [
            ("targets", GenericAlias(dict, (str, bulk_target))), ("groups", GenericAlias(list, (group,))),
            ("total_damage", Count), ("attacks", GenericAlias(list, (listed,)) | UnsetType, UNSET)],
            bases=(Bulk,), module=module)}
    listed.__doc__ = LISTED
    made["attack"].__doc__ = "An attack (`attack.resolve`): each strike's result and each target's."
    made["bulk"].__doc__ = "A bulk request (`attack.bulk`): totals per target and per `attacks` entry."
    return {**made, "odds": OddsResult}


def strike_result_types(module: str, strike: type, attack: type = Attack) -> dict[str, type]:
    """The attack, bulk and odds result shapes of a `generic.StrikeRuleset`
    (`Ruleset.result_types`), from the shape of what its `roll_strike` returns and the top
    of its attack result (`Attack` + the keys its `attack_fields` adds): the row rulesets'
    shapes, its bulk entries without `exploded`. `module` is where the strike's shape is
    declared (the schema names them by ruleset)."""
    return row_result_types(module, strike, attack=attack, group=BulkGroup)
