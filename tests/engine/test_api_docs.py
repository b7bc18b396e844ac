"""The published Python API pages say what the engine and the protocol schema do (issue 45 item 8).

The documentation site renders one page per name of `fracas.__all__` and a results page for what
the functions return (scripts/docs_hooks.py, `_api_pages`), from the docstrings: every example on
those pages runs as written, and every set of values a docstring lists for a request field (bulk
`detail`, a contest, a fight loop) is the set the protocol schema accepts there, both ways. The
drift this catches: `resolve_bulk` documented `detail` values "groups" and "strikes" that every
ruleset refuses (and forgot "dice")."""

from __future__ import annotations

import doctest
import inspect
import json
import re
import typing
from pathlib import Path
from typing import Any

import pytest

import fracas

ROOT = Path(__file__).resolve().parents[2]


def _schemas() -> dict[str, Any]:
    """The protocol schema as this install makes it (`fracas.spec.schema`, from the hand-written
    frame protocol.json and the registered rulesets' request and result types) and as the
    checkout publishes it (bridge/schema.json, kept equal by `python -m fracas.spec --check`)."""
    from fracas.spec import generate
    from fracas.spec.schema import protocol_schema

    return {"made": protocol_schema(generate.load()),
            "bridge/schema.json": json.loads((ROOT / "bridge" / "schema.json").read_text(encoding="utf-8"))}


SCHEMAS = _schemas()


def _published() -> dict[str, Any]:
    """What the API pages render: each function and class of `fracas.__all__` and the result
    classes the functions return (as `_api_pages` picks them: the return annotation's fracas types)."""
    shown: dict[str, Any] = {}
    annotations = _annotation_names()
    for name in fracas.__all__:
        value = getattr(fracas, name)
        if inspect.isfunction(value) or inspect.isclass(value):
            shown[f"fracas.{name}"] = value
            if inspect.isfunction(value):
                returned = typing.get_type_hints(value, localns=annotations).get("return")
                for part in typing.get_args(returned) or (returned,):
                    if inspect.isclass(part) and part.__module__.startswith("fracas."):
                        shown.setdefault(f"{part.__module__}.{part.__qualname__}", part)
    return shown


def _annotation_names() -> dict[str, Any]:
    """The names fracas/__init__.py imports for its annotations only (`if TYPE_CHECKING:`)."""
    import ast
    import importlib

    names: dict[str, Any] = {}
    tree = ast.parse(Path(fracas.__file__).read_text(encoding="utf-8"))
    for block in tree.body:
        if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING":
            for node in block.body:
                if isinstance(node, ast.ImportFrom) and node.module:  # (`from . import x` names modules)
                    module = importlib.import_module(f"fracas.{node.module}" if node.level else node.module)
                    names.update({alias.asname or alias.name: getattr(module, alias.name) for alias in node.names})
    return names


def test_every_example_on_the_published_api_pages_runs():
    """Every `>>>` example in the docstrings the API pages render (functions, classes and their
    methods, the result classes) gives what it shows."""
    published = _published()
    assert {"fracas.resolve", "fracas.resolve_bulk", "fracas.Encounter", "fracas.forecast"} <= set(published)
    assert any(".AttackOutcome" in name for name in published)  # a result class, from resolve's annotation
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    ran: list[str] = []
    said: list[str] = []
    for name, value in published.items():
        # No globals given: an example runs as a reader copies it, its imports its own.
        for test in finder.find(value, name, module=inspect.getmodule(value), globs={}):
            if test.examples:
                runner.run(test, out=said.append)
                ran.append(test.name)
    assert runner.summarize(verbose=False).failed == 0, "".join(said)[-6000:]
    functions = [name for name, value in published.items() if inspect.isfunction(value)]
    missing = [name for name in functions if name not in ran]
    assert not missing, f"public functions without a running example: {missing}"


def _enums(schema: dict[str, Any], field: str) -> list[tuple[str, set[str]]]:
    """Every place `schema` gives the property `field` an `enum`: (its JSON pointer, the values)."""
    return _all_enums(id(schema), schema).get(field, [])


_ENUMS: dict[int, dict[str, list[tuple[str, set[str]]]]] = {}


def _all_enums(key: int, schema: dict[str, Any]) -> dict[str, list[tuple[str, set[str]]]]:
    """Property name → every (JSON pointer, enum values) the schema gives it (walked once)."""
    if key in _ENUMS:
        return _ENUMS[key]
    found: dict[str, list[tuple[str, set[str]]]] = {}

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict):
                for name, prop in props.items():
                    if isinstance(prop, dict) and "enum" in prop:
                        found.setdefault(name, []).append((f"{path}/properties/{name}", set(prop["enum"])))
            for name, value in node.items():
                walk(value, f"{path}/{name}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{path}/{index}")

    walk(schema, "#")
    _ENUMS[key] = found
    return found


def _listed(doc: str, field: str) -> set[str]:
    """The quoted values a docstring lists for `field`: in the parentheses after "`field` (",
    or in its own `field:` entry of an Args section."""
    inline = re.search(rf"`{field}`\s+\(((?:[^()]|\([^()]*\))*)\)", doc)
    if inline:
        return set(re.findall(r'"([\w-]+)"', inline.group(1)))
    entry = re.search(rf"^\s+{field}: (.*?)(?=^\s+\w+: |^\s*$)", doc, re.M | re.S)
    assert entry, f"the docstring lists no values for {field!r}"
    return set(re.findall(r'"([\w-]+)"', entry.group(1)))


#: (public function, the request field whose values its docstring lists): each a field with an
#: `enum` in the protocol schema. A new function or field that lists values belongs here.
DOCUMENTED = [
    ("resolve_bulk", "detail"),  # attack.bulk, every ruleset's bulk request and bulk result
    ("compete", "contest"),      # ER-19: compete.roll's request and result
    ("forecast", "loop"),        # fight.forecast's request
    ("simulate", "loop"),        # the same loops (`forecast` runs `simulate`)
    ("sweep", "loop"),
]


@pytest.mark.parametrize(("function", "field"), DOCUMENTED)
@pytest.mark.parametrize("schema", SCHEMAS)
def test_documented_values_are_the_ones_the_schema_accepts(function, field, schema):
    """Every value a public docstring lists for a field is one the protocol schema accepts there,
    and every value the schema accepts there is listed (at each place the schema has the field)."""
    documented = _listed(inspect.getdoc(getattr(fracas, function)) or "", field)
    assert len(documented) >= 2, (function, field, documented)
    places = _enums(SCHEMAS[schema], field)
    assert places, f"{schema} has no enum for {field!r}"
    for pointer, accepted in places:
        assert documented <= accepted, f"fracas.{function} documents {sorted(documented - accepted)} for " \
                                       f"{field!r}; {schema} {pointer} refuses it"
        assert accepted <= documented, f"{schema} {pointer} accepts {sorted(accepted - documented)} " \
                                       f"for {field!r}; fracas.{function}'s docstring does not list it"


def test_every_public_docstring_listing_values_is_checked():
    """A public docstring that lists quoted values for a field the schema has an enum for is in
    DOCUMENTED: a new one is checked, not forgotten."""
    schema = SCHEMAS["made"]
    enum_fields = set(_all_enums(id(schema), schema))
    assert {"detail", "contest", "loop"} <= enum_fields
    listed = set()
    for name in fracas.__all__:
        value = getattr(fracas, name)
        if not inspect.isfunction(value):
            continue
        doc = inspect.getdoc(value) or ""
        for field in enum_fields:
            if re.search(rf'`{field}`\s+\("|^\s+{field}: "', doc, re.M):
                listed.add((name, field))
    assert listed == set(DOCUMENTED), listed ^ set(DOCUMENTED)


def test_the_engine_refuses_what_the_docstring_does_not_list_and_takes_what_it_does():
    """The schema is generated from the request types; the engine reads the same: each listed
    `detail` rolls, one the docstring once listed ("groups", "strikes") is refused at `$.detail`."""
    request = {"profiles": {"p": {"attacker": {"strength": 2}, "strikes": [
        {"method": "melee", "style": "slashing", "dice": 1, "weight": 1, "damage_type": "edged"}]}},
        "targets": {"t": {"ac": 14}}, "attacks": [{"profile": "p", "target": "t", "count": 3}]}
    for detail in _listed(inspect.getdoc(fracas.resolve_bulk) or "", "detail"):
        assert fracas.resolve_bulk(dict(request, detail=detail), seed=1).to_dict()["detail"] == detail
    for detail in ("groups", "strikes"):
        with pytest.raises(fracas.SchemaError) as refused:
            fracas.resolve_bulk(dict(request, detail=detail), seed=1)
        assert refused.value.path == "$.detail"


def test_max_listed_counts_attacks_as_documented():
    """`max_listed` is "the caller's limit on attacks listed one by one": 4 attacks of 3 strikes
    each (12 strike rows) list under a limit of 4 and are refused under 3; "summary" lists none."""
    assert "attacks listed one by one" in " ".join((inspect.getdoc(fracas.resolve_bulk) or "").split())
    strike = {"method": "melee", "style": "slashing", "dice": 1, "weight": 1, "damage_type": "edged"}
    request = {"profiles": {"p": {"attacker": {"strength": 2}, "strikes": [strike, strike, strike]}},
               "targets": {"t": {"ac": 14}}, "attacks": [{"profile": "p", "target": "t", "count": 4}],
               "detail": "attacks"}
    listed = fracas.resolve_bulk(request, seed=1, max_listed=4).to_dict()
    assert listed["attacks_total"] == 4
    with pytest.raises(fracas.LimitError) as refused:
        fracas.resolve_bulk(request, seed=1, max_listed=3)
    assert refused.value.path == "$.detail" and "4 attacks" in str(refused.value)
    assert fracas.resolve_bulk(dict(request, detail="summary"), seed=1, max_listed=0).to_dict()["attacks_total"] == 4
