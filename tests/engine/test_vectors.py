"""The shared known-answer vectors (tests/vectors/er_vectors.json) hold on every backend.

The same file is replayed by the JavaScript resolver (vtt_scripts/roll20/test).
"""

import json
from pathlib import Path

import pytest

import fracas
from fracas import _kernels

from .helpers import load_vector_generator

VECTORS = json.loads((Path(__file__).resolve().parents[1] / "vectors" / "er_vectors.json").read_text())


def test_vectors_cover_results_crits_and_errors():
    results = [v for v in VECTORS if "result" in v]
    assert len(results) >= 200
    assert sum(any(s["crit"] for s in v["result"]["strikes"]) for v in results) >= 20
    assert {v["error"]["type"] for v in VECTORS if "error" in v} >= {"SchemaError", "RulesError", "DiceError"}


@pytest.mark.parametrize("backend", _kernels.available())
def test_every_vector_reproduces(backend):
    mismatches = []
    with _kernels.using(backend):
        for v in VECTORS:
            try:
                got = fracas.resolve(v["request"], seed=v["seed"]).to_dict()
            except fracas.RequestError as exc:
                got_error = {"type": type(exc).__name__, "path": exc.path, "reason": exc.reason}
                if got_error != v.get("error"):
                    mismatches.append((v["name"], got_error))
                continue
            got.pop("backend")
            if got != v.get("result"):
                mismatches.append((v["name"], "result differs"))
    assert mismatches == []


def test_generator_is_in_sync_with_the_committed_file():
    """Regenerating gives the committed file byte for byte (a draw-order change must be deliberate)."""
    generate = load_vector_generator()
    assert generate.dumps(generate.build()) == generate.VECTORS.read_text()


SPECIALS = json.loads((Path(__file__).resolve().parents[1] / "vectors" / "er_specials_vectors.json").read_text())
CALLS = {"attack": fracas.resolve, "compete": fracas.compete, "impale": fracas.impale}


def test_specials_vectors_cover_every_rule():
    """ER-17, ER-19 … ER-23: results and errors of each kind are in the shared file."""
    results = [v for v in SPECIALS if "result" in v]
    strikes = [s for v in results if v["kind"] == "attack" for s in v["result"]["strikes"]]
    assert sum(1 for s in strikes if s["stray"] and s["stray"]["hits"]) >= 20  # ER-17
    assert sum(1 for s in strikes if s["stray"] and s["stray"]["crit"]) >= 3
    assert sum(1 for v in results if v["kind"] == "compete") >= 30  # ER-19
    assert sum(1 for v in results if v["kind"] == "attack" and v["result"]["flee"]) >= 10  # ER-20
    assert sum(1 for v in results if v["kind"] == "attack" and any(
        t["grapple_release"] and t["grapple_release"]["roll"] for t in v["result"]["targets"].values())) >= 5  # ER-21
    assert sum(1 for v in results if v["kind"] == "attack" and v["result"]["defense_rolls"]) >= 20  # ER-22
    impaled = [v["result"] for v in results if v["kind"] == "impale"]  # ER-23
    assert any(r["charge_void"] for r in impaled) and any(r["charge"] for r in impaled)
    assert {v["error"]["type"] for v in SPECIALS if "error" in v} >= {"SchemaError", "RulesError", "LimitError"}


@pytest.mark.parametrize("backend", _kernels.available())
def test_every_specials_vector_reproduces(backend):
    mismatches = []
    with _kernels.using(backend):
        for v in SPECIALS:
            try:
                got = CALLS[v["kind"]](v["request"], seed=v["seed"]).to_dict()
            except fracas.RequestError as exc:
                got_error = {"type": type(exc).__name__, "path": exc.path, "reason": exc.reason}
                if got_error != v.get("error"):
                    mismatches.append((v["name"], got_error))
                continue
            got.pop("backend", None)
            if got != v.get("result"):
                mismatches.append((v["name"], "result differs"))
    assert mismatches == []


def test_specials_generator_is_in_sync_with_the_committed_file():
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "vectors" / "generate_specials.py"
    spec = importlib.util.spec_from_file_location("generate_specials", path)
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    assert generate.dumps(generate.build()) == generate.VECTORS.read_text()
