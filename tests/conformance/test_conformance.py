"""One conformance suite for every registered ruleset, parametrised over `fracas.rulesets()`:
a new ruleset (a folder with its manifest, or a third-party package) is checked by these
tests without a line added here.

Each ruleset's manifest is valid; its example scenarios load and play; each kind its
manifest lists compiles and rolls its `[requests]` sample through the public API, the
same for the same seed; its odds sum to 1; its errors name a field path; every result
(each kind's sample on each backend, and every result in the shared vectors) is the exact
shape its ruleset declares, as the protocol's JSON Schema says it.
"""

from __future__ import annotations

import copy
import functools
import json
from fractions import Fraction
from pathlib import Path

import pytest

import fracas
from fracas import _kernels
from fracas.drive.scenario import examples
from fracas.rulesets import base, manifest as manifest_module

NAMES = fracas.rulesets()


def _sample(name: str, kind: str) -> dict:
    ruleset = fracas.rulesets.get(name)
    request = copy.deepcopy(ruleset.manifest.requests[kind])
    request["ruleset"] = name
    return request


def _kind_cases() -> list[tuple[str, str]]:
    return [(name, kind) for name in NAMES for kind in fracas.rulesets.get(name).kinds]


@pytest.mark.parametrize("name", NAMES)
def test_the_manifest_is_valid_and_agrees_with_the_ruleset(name):
    ruleset = fracas.rulesets.get(name)
    manifest = ruleset.manifest
    assert manifest is not None, f"{name} registered without a manifest"
    assert (manifest.name, manifest.title, manifest.rules) == (ruleset.name, ruleset.title, ruleset.doc)
    assert list(manifest.kinds) == list(ruleset.request_types) == list(ruleset.kinds)
    assert "python" in manifest.clients and set(manifest.clients) <= set(manifest_module.CLIENTS)
    assert fracas.rulesets.short_ids()[manifest.id] == name
    # every kind has a sample request the suite can run (its [requests] table)
    assert set(manifest.requests) == set(manifest.kinds), f"{manifest.source}: [requests] lacks a kind"
    # the protocol's static requirements hold (registration checked them; again here for the record)
    base.check_ruleset(ruleset, manifest.source)


@pytest.mark.parametrize("name", NAMES)
def test_its_docs_index_row_and_rules_page(name):
    manifest = fracas.rulesets.get(name).manifest
    index = fracas.rulesets.docs_index()
    row = next(line for line in index.splitlines() if f"`{name}`" in line)
    assert row.startswith(f"| {manifest.title} |") and manifest.status in row


@pytest.mark.parametrize("name", NAMES)
def test_its_examples_load_and_fight(name):
    manifest = fracas.rulesets.get(name).manifest
    assert manifest.examples, f"{manifest.source}: no example scenario"
    for example in manifest.examples:
        assert example in examples(), f"{manifest.source}: example {example!r} is not installed"
        first = fracas.simulate(f"@{example}", runs=4, seed=3, loop="python").to_dict()
        again = fracas.simulate(f"@{example}", runs=4, seed=3, loop="python").to_dict()
        assert first["completed"] == 4
        assert {k: v for k, v in first.items() if k != "timing"} == {k: v for k, v in again.items() if k != "timing"}


@pytest.mark.parametrize(("name", "kind"), _kind_cases())
def test_each_kind_compiles_and_rolls_the_same_for_the_same_seed(name, kind):
    request = _sample(name, kind)
    bound = fracas.rulesets.get(name).kind(kind)
    if bound.kind.bulk:
        first = fracas.resolve_bulk(request, seed=17, threads=1).to_dict()
        assert first == fracas.resolve_bulk(request, seed=17, threads=2).to_dict()
        assert first["ruleset"] == name and first["seed"] == 17
        detail = fracas.resolve_bulk(dict(request, detail="attacks"), seed=17).to_dict()
        assert detail["total_damage"] == first["total_damage"]
        return
    first = fracas.roll(kind, request, seed=17).to_dict()
    assert first == fracas.roll(kind, request, seed=17).to_dict()
    assert first["ruleset"] == name and first["seed"] == 17
    # its bridge method and fracas function run the same kind (ENGINE_CALLS is read from kinds)
    from fracas.drive import ENGINE_CALLS

    assert getattr(fracas, ENGINE_CALLS[bound.kind.method])(request, seed=17).to_dict() == first


#: The rulesets that answer exact odds (optional: `Ruleset.has_odds`).
ODDS = [n for n in NAMES if "attack" in fracas.rulesets.get(n).kinds and fracas.rulesets.get(n).has_odds]


@pytest.mark.parametrize("name", ODDS)
def test_odds_sum_to_one(name):
    """The odds contract (fracas.drive.odds): every distribution sums to exactly 1 (a cut
    chain's mass kept at the cut and reported as `cut`)."""
    result = fracas.odds(_sample(name, "attack"))
    for target in result.to_dict()["targets"]:
        total = sum((p for _, p in result.distribution(target)), Fraction(0))
        assert total == 1, (name, target, total)


@pytest.mark.parametrize("name", NAMES)
def test_errors_name_a_path(name):
    for kind in fracas.rulesets.get(name).kinds:
        request = dict(_sample(name, kind), no_such_field=1)
        call = fracas.resolve_bulk if kind == "bulk" else (lambda r, k=kind: fracas.roll(k, r))
        with pytest.raises(fracas.SchemaError) as err:
            call(request)
        assert err.value.path.startswith("$"), (kind, err.value.path)
        assert "no_such_field" in str(err.value)


@pytest.mark.parametrize("name", NAMES)
def test_a_kind_it_lacks_is_refused_naming_the_ruleset(name):
    ruleset = fracas.rulesets.get(name)
    for kind in fracas.rulesets.kinds().values():
        if kind.name in ruleset.kinds:
            continue
        with pytest.raises(fracas.RulesError) as err:
            fracas.roll(kind.name, {"ruleset": name})
        assert err.value.path == "$.ruleset"
        assert f"the {ruleset.title} ruleset does not resolve {kind.label} requests" == err.value.reason


@pytest.mark.parametrize("name", NAMES)
def test_injected_faces_left_over_are_refused_at_rolls(name):
    request = _sample(name, "attack")
    with pytest.raises(fracas.DiceError) as err:
        fracas.resolve(dict(request, rolls=[1] * 10_000))
    assert err.value.path == "$.rolls" and "10000 faces given" in err.value.reason.replace(",", "")


@pytest.mark.parametrize(("name", "kind"), _kind_cases())
def test_each_kind_is_in_the_protocol_schema(name, kind):
    """The spec iterates kinds: each kind's params (its rulesets' request types) and, where the
    kind names one, its result schema are in the protocol's JSON Schema."""
    from fracas.spec.generate import load
    from fracas.spec.schema import _snake, protocol_schema

    ruleset = fracas.rulesets.get(name)
    bound = ruleset.kind(kind).kind
    defs = protocol_schema(load())["$defs"]
    params = defs[f"params.{bound.method}"]
    refs = [ref["$ref"] for ref in params.get("oneOf", [params])]
    prefix = "" if name == fracas.rulesets.DEFAULT else f"{name}."
    assert f"#/$defs/{prefix}{_snake(ruleset.request_types[kind].__name__)}" in refs, refs
    assert (bound.result or f"result.{bound.method}") in defs, bound


@pytest.mark.parametrize(("name", "kind"), [(n, k) for n, k in _kind_cases()
                                            if "roll20" in fracas.rulesets.get(n).manifest.clients])
def test_a_kind_the_javascript_clients_share_is_in_the_spec(name, kind):
    """A kind of a ruleset with JavaScript clients is in facts.toml's [bridge] lists, which
    the clients are generated from (a ruleset installed alone is served by the bridge's
    kind methods instead: bridge.dispatcher.KIND_METHODS)."""
    from fracas import _facts

    method = fracas.rulesets.get(name).kind(kind).kind.method
    assert method in _facts.BRIDGE_METHODS and method in _facts.ROLLING_METHODS, method


# -- results: each is the exact shape its ruleset declares (Ruleset.result_types) -------------

@functools.lru_cache(maxsize=None)
def _protocol() -> dict:
    """The protocol schema as the spec writes it for the rulesets registered now (the
    committed bridge/schema.json is this for the built-in four: `python -m fracas.spec --check`)."""
    from fracas.spec.generate import load
    from fracas.spec.schema import protocol_schema

    return protocol_schema(load())


def _validator(def_name: str):
    jsonschema = pytest.importorskip("jsonschema")
    schema = _protocol()
    root = {"$schema": schema["$schema"], "$ref": f"#/$defs/{def_name}", "$defs": schema["$defs"]}
    return jsonschema.validators.validator_for(root)(root)


def _result_def(name: str, kind: str) -> str:
    from fracas.spec.schema import ODDS_RESULT

    if kind == "odds":
        return ODDS_RESULT
    bound = fracas.rulesets.get(name).kind(kind).kind
    return bound.result or f"result.{bound.method}"


def _refused(def_name: str, result: dict) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in _validator(def_name).iter_errors(result)]


def _results(name: str, kind: str) -> list[dict]:
    """What the kind's sample request gives: a bulk request at every detail level."""
    request = _sample(name, kind)
    if fracas.rulesets.get(name).kind(kind).kind.bulk:
        return [fracas.resolve_bulk(dict(request, detail=detail), seed=17).to_dict()
                for detail in ("summary", "attacks", "dice")]
    return [fracas.roll(kind, request, seed=17).to_dict()]


@pytest.mark.parametrize("name", NAMES)
def test_every_kind_declares_its_exact_result_shape(name):
    """base.REQUIREMENTS["results"]: each kind (and the attack's odds) has a result shape, and
    every object of it in the protocol schema lists its keys as required (but for the keys
    only some results have) and allows no other."""
    from fracas.rulesets import results

    ruleset = fracas.rulesets.get(name)
    assert set(ruleset.kinds) <= set(ruleset.result_types), f"{ruleset.manifest.source}: a kind lacks its result"
    defs = _protocol()["$defs"]
    own = {key: schema for key, schema in defs.items() if key.startswith(f"results.{name}.")}
    assert own, f"no result shapes of {name} in the protocol schema"
    for key, schema in own.items():
        assert schema["type"] == "object" and schema["additionalProperties"] is False, key
        assert set(schema["required"]) <= set(schema["properties"]), key
    for kind in ruleset.kinds:
        shape = ruleset.result_types[kind]
        optional = {f for f, default in zip(shape.__struct_fields__[-len(shape.__struct_defaults__ or ()):],
                                            shape.__struct_defaults__ or ()) if default is results.UNSET}
        conditions = defs[_result_def(name, kind)]["allOf"]
        then = [c["then"]["$ref"] for c in conditions if c["if"]["properties"]["ruleset"] == {"const": name}]
        assert len(then) == 1, (kind, conditions)
        made = defs[then[0][len("#/$defs/"):]]
        assert set(made["required"]) == set(shape.__struct_fields__) - optional, kind


@pytest.mark.parametrize("backend", _kernels.available())
@pytest.mark.parametrize(("name", "kind"), _kind_cases())
def test_each_result_validates_against_its_schema(name, kind, backend):
    """The sample request's result (a bulk request's at every detail level) on each backend
    is what the protocol schema says for its ruleset: every key, no other, the right types."""
    from fracas.rulesets import results

    shape = fracas.rulesets.get(name).result_types[kind]
    with _kernels.using(backend):
        made = _results(name, kind)
    for result in made:
        assert _refused(_result_def(name, kind), result) == [], (kind, result.get("detail"))
        results.check(result, shape)  # and the Struct itself agrees
        results.check_order(result, shape)  # in the order the Roll20 contract's layouts hold


@pytest.mark.parametrize("backend", _kernels.available())
@pytest.mark.parametrize("name", ODDS)
def test_its_odds_validate_against_their_schema(name, backend):
    from fracas.rulesets import results
    from fracas.spec.schema import result_types

    request = dict(_sample(name, "attack"), remaining={t: 3 for t in _sample(name, "attack")["targets"]},
                   at_least=[1, 4])
    with _kernels.using(backend):
        result = fracas.odds(request).to_dict()
    assert _refused("result.attack.odds", result) == []
    results.check_order(result, result_types(fracas.rulesets.get(name))["odds"])


@pytest.mark.parametrize("name", NAMES)
def test_a_result_with_a_key_extra_or_missing_is_refused(name):
    """The check can fail: the schema (and the shape) refuse a result with an extra key at
    the top or in a strike, with a key missing, or with a value of the wrong type."""
    from fracas.rulesets import results

    kind = "attack" if "attack" in fracas.rulesets.get(name).kinds else next(iter(fracas.rulesets.get(name).kinds))
    good = _results(name, kind)[0]
    where = _result_def(name, kind)
    shape = fracas.rulesets.get(name).result_types[kind]
    bad = [dict(good, surplus=1), {k: v for k, v in good.items() if k != "seed"}, dict(good, seed="17")]
    if good.get("strikes"):
        deeper = copy.deepcopy(good)
        deeper["strikes"][0]["surplus"] = 1
        fewer = copy.deepcopy(good)
        del fewer["strikes"][0]["target"]
        bad += [deeper, fewer]
    for result in bad:
        assert _refused(where, result), result
        with pytest.raises(results.ShapeError):
            results.check(result, shape)


@pytest.mark.parametrize("name", NAMES)
def test_a_result_with_keys_out_of_order_is_refused(name):
    """The order check can fail: two keys swapped at the top, or in a strike, is named."""
    from fracas.rulesets import results

    kind = "attack" if "attack" in fracas.rulesets.get(name).kinds else next(iter(fracas.rulesets.get(name).kinds))
    good = _results(name, kind)[0]
    shape = fracas.rulesets.get(name).result_types[kind]
    results.check_order(good, shape)
    first, second, *rest = good
    swapped = {second: good[second], first: good[first], **{key: good[key] for key in rest}}
    with pytest.raises(results.ShapeError, match=rf"at \$: keys in the order {second}, {first}"):
        results.check_order(swapped, shape)
    if good.get("strikes") and isinstance(good["strikes"][0], dict):
        deeper = copy.deepcopy(good)
        strike = deeper["strikes"][0]
        deeper["strikes"][0] = dict(reversed(strike.items()))
        with pytest.raises(results.ShapeError, match=r"at \$\.strikes\[0\]: keys in the order"):
            results.check_order(deeper, shape)


VECTORS = Path(__file__).resolve().parents[1] / "vectors"


def _vector_results() -> dict[tuple[str, str], list[dict]]:
    """The full results in the shared vectors, by (file, kind)."""
    found: dict[tuple[str, str], list[dict]] = {}
    for path in sorted(VECTORS.glob("*.json")):
        for vector in json.loads(path.read_text(encoding="utf-8")):
            if "result" in vector:
                kind = vector.get("kind", "odds" if "odds" in path.name else "attack")
                found.setdefault((path.name, kind), []).append(vector["result"])
    return found


VECTOR_RESULTS = _vector_results()


@pytest.mark.parametrize(("file", "kind"), list(VECTOR_RESULTS))
def test_every_result_in_the_shared_vectors_validates(file, kind):
    """The results the JavaScript resolver must reproduce (tests/vectors/*.json) are what the
    protocol schema says; a vector leaves out `backend` (the same for every backend), so the
    check puts one back where the shape has it."""
    checked = 0
    for result in VECTOR_RESULTS[(file, kind)]:
        name = result["ruleset"]
        if name not in NAMES:
            continue
        if "backend" in fracas.rulesets.get(name).result_types[kind].__struct_fields__:
            result = dict(result, backend="python")
        assert _refused(_result_def(name, kind), result) == [], (file, kind, result)
        checked += 1
    assert checked, f"{file}: no {kind} result of an installed ruleset"
