"""The bridge protocol as JSON Schema: a hand-written frame (`protocol.json`: the
JSON-RPC envelope, the bridge's own methods and their results) filled in from the spec
and from every registered ruleset's request and result types (msgspec emits their JSON
Schema): each kind's params are one of its rulesets' request types, and its result
(`Kind.result`, `result.<method>`) the result shape of the ruleset the result names
(`Ruleset.result_types`, exact: every key required, no other).

A ruleset may add per-field constraints and descriptions that msgspec cannot know
(the engine checks ranges itself, to word its own errors) with `SCHEMA_HINTS` in its
package: {"Struct.field": {JSON Schema for that field}}.
"""

from __future__ import annotations

import copy
import inspect
import json
import re
from pathlib import Path
from typing import Any

import msgspec

HERE = Path(__file__).resolve().parent


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _rename_refs(node: Any, names: dict[str, str]) -> Any:
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
                out[key] = "#/$defs/" + names.get(value[len("#/$defs/"):], value[len("#/$defs/"):])
            else:
                out[key] = _rename_refs(value, names)
        return out
    if isinstance(node, list):
        return [_rename_refs(item, names) for item in node]
    return node


def clean_descriptions(node: Any) -> Any:
    """Descriptions as `inspect.cleandoc` gives them: msgspec copies a Struct's `__doc__`,
    which Python 3.13 dedents when it compiles and older Pythons keep indented, so the
    generated schema would differ by the Python that wrote it."""
    if isinstance(node, dict):
        return {k: inspect.cleandoc(v) if k == "description" and isinstance(v, str) else clean_descriptions(v)
                for k, v in node.items()}
    if isinstance(node, list):
        return [clean_descriptions(v) for v in node]
    return node


#: Keys msgspec writes in some of its versions only: left out, so every msgspec this project
#: supports writes the same generated schema (msgspec 0.23 added a dict's Literal keys as
#: `propertyNames`; 0.22 writes none).
_UNSETTLED = ("title", "propertyNames")


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip_titles(v) for k, v in node.items() if k not in _UNSETTLED}
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node


def ruleset_defs(ruleset: Any, prefix: str, hints: dict[str, Any], extra: list[type],
                 default: bool = True) -> tuple[dict[str, Any], dict[str, str]]:
    """JSON Schema definitions of a ruleset's request types, and def name by kind."""
    kinds = list(ruleset.request_types.items())
    _, components = msgspec.json.schema_components([spec for _, spec in kinds] + list(extra),
                                                   ref_template="#/$defs/{name}")
    names = {name: prefix + _snake(name) for name in components}
    defs = {}
    for name, schema in components.items():
        schema = _strip_titles(_rename_refs(schema, names))
        for field, hint in hints.items():
            struct, _, attr = field.partition(".")
            if struct == name and attr in schema.get("properties", {}):
                schema["properties"][attr] = copy.deepcopy(hint)
        schema.setdefault("required", [])
        if "ruleset" in schema.get("properties", {}):
            # Each request names its ruleset (only the default's may leave it out), so
            # `oneOf` over the rulesets' requests picks exactly one.
            schema["properties"]["ruleset"] = {"const": ruleset.name, "description": (
                f"absent: {ruleset.name}" if default else f"required: {ruleset.name}")}
            if not default:
                schema["required"] = sorted(set(schema["required"]) | {"ruleset"})
        defs[names[name]] = schema
    return defs, {kind: names[spec.__name__] for kind, spec in kinds}


#: The result of exact odds (`fracas.odds`, the bridge's attack.odds): not a kind of its own
#: (it compiles an attack), so a ruleset names its shape as `result_types["odds"]`.
ODDS_RESULT = "result.attack.odds"


def result_types(ruleset: Any) -> dict[str, type]:
    """A ruleset's result shape by kind (`Ruleset.result_types`), with the shared exact-odds
    shape under "odds" for a ruleset that resolves attacks and names none of its own."""
    from ..rulesets.results import OddsResult

    types = dict(ruleset.result_types)
    if "attack" in ruleset.request_types:
        types.setdefault("odds", OddsResult)
    return types


def ruleset_results(ruleset: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """JSON Schema definitions of a ruleset's result shapes (`Ruleset.result_types`, msgspec
    Structs: every field required unless it defaults to UNSET, no other key), named
    `results.<ruleset>.<shape>`, and the def name of each kind's result (and of "odds")."""
    types = result_types(ruleset)
    refs, components = msgspec.json.schema_components(list(types.values()), ref_template="#/$defs/{name}")
    names = {name: f"results.{ruleset.name}.{_snake(name.rsplit('.', 1)[-1])}" for name in components}
    if len(set(names.values())) != len(names):
        raise ValueError(f"the {ruleset.name} ruleset's result shapes have two of one name: {sorted(components)}")
    defs = {names[name]: _strip_titles(_rename_refs(schema, names)) for name, schema in components.items()}
    for schema in defs.values():
        schema.setdefault("required", [])
        if "ruleset" in schema.get("properties", {}):  # a result names its own ruleset
            schema["properties"]["ruleset"] = {"const": ruleset.name}
    by_kind = {kind: names[ref["$ref"][len("#/$defs/"):]] for kind, ref in zip(types, refs)}
    return defs, by_kind


def result_dispatch(method: str, shapes: dict[str, str]) -> dict[str, Any]:
    """A method's result: the shape of the ruleset it names in `ruleset` (`shapes`: ruleset
    name → def name), as if/then on `ruleset`; a ruleset installed after the schema was
    written is held to the generic top only (an object naming its ruleset)."""
    return {"type": "object", "required": ["ruleset"], "properties": {"ruleset": {"type": "string"}},
            "description": f"the result of {method}: the shape of the ruleset it names (generated from each "
                           "ruleset's result_types)",
            "allOf": [{"if": {"properties": {"ruleset": {"const": name}}, "required": ["ruleset"]},
                       "then": {"$ref": f"#/$defs/{ref}"}} for name, ref in shapes.items()]}


def protocol_schema(facts: dict[str, Any]) -> dict[str, Any]:
    from .. import rulesets

    schema: dict[str, Any] = json.loads((HERE / "protocol.json").read_text(encoding="utf-8"))
    defs = schema["$defs"]
    defs["request"]["properties"]["method"]["enum"] = list(facts["bridge"]["methods"])
    defs["failure"]["properties"]["error"]["properties"]["code"]["oneOf"] = [
        {"const": value, "description": doc} for value, doc in facts["error_codes"].values()]
    enums = facts["enums"]  # the names, as fracas._facts has them (STYLES: the styles table's keys)
    for key, name in (("style", "styles"), ("damage_type", "damage_types"), ("size", "sizes"),
                      ("cover", "covers"), ("condition", "conditions")):
        defs[key] = {"type": "string", "enum": list(enums[name])}
    defs["ruleset"] = {"type": "string", "enum": list(rulesets.names()),
                       "description": f"absent: {rulesets.DEFAULT} (the default ruleset)"}
    all_kinds = rulesets.kinds()  # the shared kinds, then each ruleset's own
    by_kind: dict[str, list[str]] = {kind: [] for kind in all_kinds}
    for name in rulesets.names():
        ruleset = rulesets.get(name)
        package = __import__(type(ruleset).__module__, fromlist=["SCHEMA_HINTS"])
        hints = getattr(package, "SCHEMA_HINTS", {})
        prefix = "" if name == rulesets.DEFAULT else f"{name}."
        ruleset_def, kinds = ruleset_defs(ruleset, prefix, hints, getattr(package, "SCHEMA_TYPES", []),
                                          default=name == rulesets.DEFAULT)
        defs.update(ruleset_def)
        for kind_name, def_name in kinds.items():
            by_kind[kind_name].append(def_name)
    for kind in all_kinds.values():
        refs = [{"$ref": f"#/$defs/{name}"} for name in by_kind[kind.name]]
        if refs:
            defs[f"params.{kind.method}"] = refs[0] if len(refs) == 1 else {"oneOf": refs}
    results: dict[str, dict[str, str]] = {}  # result def → ruleset → its shape's def
    for name in rulesets.names():
        ruleset = rulesets.get(name)
        shapes, by_result = ruleset_results(ruleset)
        defs.update(shapes)
        for kind_name, shape in by_result.items():
            named = all_kinds.get(kind_name)  # None: "odds", no kind of its own
            result = ODDS_RESULT if named is None else named.result or f"result.{named.method}"
            results.setdefault(result, {})[name] = shape
    for result, shapes_by_ruleset in results.items():
        defs[result] = result_dispatch(result[len("result."):], shapes_by_ruleset)
    from ..drive.fight import event_types

    event_type = defs["result.encounter.round"]["properties"]["events"]["items"]["properties"]["type"]
    event_type["oneOf"] = [{"const": name, "description": what} for name, what in event_types().items()]
    defs.update(scenario_defs("scenario"))
    return schema


def scenario_defs(prefix: str) -> dict[str, Any]:
    """The scenario file's JSON Schema as $defs of another schema: `prefix` is the
    scenario itself, `prefix.<Name>` its parts."""
    from ..drive.scenario import json_schema

    schema = json_schema()
    text = json.dumps(schema["$defs"]).replace('"#/$defs/', f'"#/$defs/{prefix}.')
    parts = {f"{prefix}.{name}": part for name, part in json.loads(text).items()}
    out: dict[str, Any] = {prefix: parts.pop(f"{prefix}.ScenarioFile")}
    out.update(parts)
    return out
