"""The bridge protocol as JSON Schema: a hand-written frame (`protocol.json`: the
JSON-RPC envelope, results, the bridge's own methods) filled in from the spec and
from every built-in ruleset's request types (msgspec emits their JSON Schema).

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


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip_titles(v) for k, v in node.items() if k != "title"}
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


#: Where one result layout of facts.toml [results] holds another: (layout, key) → how
#: ("array": a list of, "object": an object whose values are) and which layout.
RESULT_NESTING = {("er_attack", "strikes"): ("array", "er_strike"), ("er_attack", "targets"): ("object", "er_target")}
#: The generic result whose shape a layout fixes for the default ruleset (attack.resolve).
RESULT_FOR_DEFAULT = {"er_attack": "attack_result"}


def result_defs(facts: dict[str, Any], defs: dict[str, Any], default: str) -> dict[str, Any]:
    """Each result layout of facts.toml [results] as an object schema `<layout>_result`:
    every key in it, required, and no other key (the backends build exactly these). A key's
    value schema is the generic result's (protocol.json) where it gives one, a nested
    layout's where RESULT_NESTING says so, else any JSON. The generic result the layout is
    the default ruleset's shape of gets it as a condition on its `ruleset`."""
    made: dict[str, Any] = {}
    for layout, keys in facts["results"].items():
        generic = defs.get(RESULT_FOR_DEFAULT.get(layout, ""), {}).get("properties", {})
        properties: dict[str, Any] = {}
        for key in keys:
            nested = RESULT_NESTING.get((layout, key))
            if nested is not None:
                shape, inner = nested
                ref = {"$ref": f"#/$defs/{inner}_result"}
                properties[key] = {"type": "array", "items": ref} if shape == "array" else \
                    {"type": "object", "additionalProperties": ref}
            else:
                properties[key] = copy.deepcopy(generic.get(key, {}))
        made[f"{layout}_result"] = {
            "type": "object", "required": list(keys), "additionalProperties": False, "properties": properties,
            "description": f"generated from facts.toml [results] {layout}: the keys every backend builds, in order"}
    for layout, generic_name in RESULT_FOR_DEFAULT.items():
        if layout in facts["results"] and generic_name in defs:
            defs[generic_name]["allOf"] = [{
                "if": {"properties": {"ruleset": {"const": default}}, "required": ["ruleset"]},
                "then": {"$ref": f"#/$defs/{layout}_result"}}]
    return made


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
                       "description": "absent: enchanted-realms"}
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
    defs.update(result_defs(facts, defs, rulesets.DEFAULT))
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
