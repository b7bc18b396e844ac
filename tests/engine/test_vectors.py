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
