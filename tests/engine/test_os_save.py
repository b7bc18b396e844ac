"""Old-school saving throws (the `save` kind of the old-school ruleset; OS-5 and the
decision "Saving throws" on docs/rules/old-school.md): a d20 + the creature's modifier +
the effect's against its target number (its `save`, or its `saves` entry for the
category); a natural 20 always saves, a natural 1 always fails.

The kind is Python on both backends (no compiled save kernel); its draw order is pinned
by tests/vectors/os_save_vectors.json, replayed here on every backend.
"""

import importlib.util
import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

import fracas
from fracas import _kernels

from .test_er_save import _answer  # a save vector's answer now, whichever ruleset it names

ROOT = Path(__file__).resolve().parents[2]
VECTORS = json.loads((ROOT / "tests" / "vectors" / "os_save_vectors.json").read_text())

HOLD = {"ruleset": "old-school", "category": "spells", "modifier": -2, "effect": "hold person",
        "targets": [{"id": "cleric", "saves": {"spells": 15, "breath": 16}},
                    {"id": "fighter", "save": 14, "modifier": 1}]}


def _error(call, *args, **kwargs):
    with pytest.raises(fracas.RequestError) as info:
        call(*args, **kwargs)
    return info.value


def test_os_saving_throws_meet_the_target_number_with_every_modifier():
    """Saving throws (OS-5): d20 17 - 2 = 15 meets the cleric's 15 (its spells entry);
    d20 14 + 1 - 2 = 13 misses the fighter's 14."""
    result = fracas.save({**HOLD, "rolls": [17, 14]}).to_dict()
    cleric, fighter = result["targets"]
    assert (cleric["save"], cleric["total_modifier"], cleric["total"], cleric["saved"]) == (15, -2, 15, True)
    assert (fighter["save"], fighter["total_modifier"], fighter["total"], fighter["saved"]) == (14, -1, 13, False)
    assert result["saved"] == ["cleric"] and result["failed"] == ["fighter"]
    assert result["category"] == "spells" and result["effect"] == "hold person"


def test_os_saving_throws_natural_20_saves_and_natural_1_fails():
    """Saving throws (OS-5): whatever the numbers, as OS-6's attack rolls."""
    hopeless = {"ruleset": "old-school", "modifier": -10, "targets": [{"id": "thief", "save": 30}]}
    sure = {"ruleset": "old-school", "modifier": 10, "targets": [{"id": "dwarf", "save": 1}]}
    got = fracas.save({**hopeless, "rolls": [20]}).to_dict()["targets"][0]
    assert got["saved"] and got["natural"] == 20 and got["p_save_exact"] == "1/20"
    got = fracas.save({**sure, "rolls": [1]}).to_dict()["targets"][0]
    assert not got["saved"] and got["natural"] == 1 and got["p_save_exact"] == "19/20"
    assert fracas.save({**hopeless, "rolls": [19]}).to_dict()["targets"][0]["saved"] is False
    assert fracas.save({**sure, "rolls": [2]}).to_dict()["targets"][0]["saved"] is True


@pytest.mark.parametrize("number", range(1, 31))
@pytest.mark.parametrize("modifier", [-5, 0, 3])
def test_os_saving_throw_odds_are_the_share_of_faces_that_save(number, modifier):
    """Saving throws (OS-5): p_save is exactly the share of the 20 injected faces that save."""
    request = {"ruleset": "old-school", "targets": [{"id": "c", "save": number, "modifier": modifier}]}
    saved = [fracas.save({**request, "rolls": [face]}).to_dict()["targets"][0]["saved"] for face in range(1, 21)]
    p = fracas.save({**request, "rolls": [10]}).to_dict()["targets"][0]["p_save_exact"]
    assert Fraction(p) == Fraction(sum(saved), 20)
    assert saved[0] is False and saved[19] is True  # natural 1, natural 20


def test_os_saving_throw_odds_match_seeded_rolls():
    """Saving throws (OS-5): the exact chance against 4000 seeded saves of three creatures
    (how many fail, each k within 5 standard deviations of its exact probability)."""
    request = {"ruleset": "old-school", "category": "breath", "modifier": 1,
               "targets": [{"id": "a", "saves": {"breath": 16}}, {"id": "b", "save": 9, "modifier": -2},
                           {"id": "c", "save": 13}]}
    first = fracas.save(request, seed=0).to_dict()
    assert [t["p_save_exact"] for t in first["targets"]] == ["3/10", "11/20", "9/20"]
    exact = [Fraction(k["p_exact"]) for k in first["p_failures"]]
    assert sum(exact) == 1 and exact[0] == Fraction(3, 10) * Fraction(11, 20) * Fraction(9, 20)
    n = 4000
    counts = [0] * 4
    for seed in range(n):
        counts[len(fracas.save(request, seed=seed).to_dict()["failed"])] += 1
    for k, p in enumerate(exact):
        sd = (n * float(p) * (1 - float(p))) ** 0.5
        assert abs(counts[k] - n * float(p)) <= 5 * sd + 1, (k, counts, exact)


@pytest.mark.parametrize(("request_", "path", "kind"), [
    ({**HOLD, "targets": []}, "$.targets", fracas.SchemaError),
    ({**HOLD, "targets": [{"id": f"c{i}", "save": 12} for i in range(1001)]}, "$.targets", fracas.LimitError),
    ({**HOLD, "targets": [{"id": "", "save": 12}]}, "$.targets[0].id", fracas.SchemaError),
    ({**HOLD, "targets": [{"id": "a"}]}, "$.targets[0].save", fracas.SchemaError),
    ({**HOLD, "targets": [{"id": "a", "save": 0}]}, "$.targets[0].save", fracas.SchemaError),
    ({**HOLD, "targets": [{"id": "a", "saves": {}}]}, "$.targets[0].saves", fracas.SchemaError),
    ({**HOLD, "targets": [{"id": "a", "saves": {"spells": 40}}]}, "$.targets[0].saves.spells", fracas.SchemaError),
    ({**HOLD, "category": "breath", "targets": [{"id": "a", "saves": {"spells": 12}}]}, "$.targets[0].saves",
     fracas.SchemaError),
    ({"ruleset": "old-school", "targets": [{"id": "a", "saves": {"spells": 12}}]}, "$.category", fracas.SchemaError),
    ({**HOLD, "category": ""}, "$.category", fracas.SchemaError),
    ({**HOLD, "modifier": 21}, "$.modifier", fracas.SchemaError),
    ({**HOLD, "targets": [{"id": "a", "save": 12, "modifier": -21}]}, "$.targets[0].modifier", fracas.SchemaError),
    ({**HOLD, "targets": [{"id": "a", "save": 12, "luck": 1}]}, "$.targets[0]", fracas.SchemaError),
    ({**HOLD, "rolls": [3]}, "$.rolls", fracas.DiceError),
    ({**HOLD, "rolls": [3, 21]}, "$.rolls[1]", fracas.DiceError),
])
def test_bad_os_save_requests_name_their_field(request_, path, kind):
    exc = _error(fracas.save, request_)
    assert isinstance(exc, kind) and exc.path == path, (exc.path, exc.reason)


def test_the_save_kind_is_each_rulesets_own_and_not_every_rulesets():
    """The save kind is one kind (fracas.rulesets.base.SAVE) Enchanted Realms and old-school
    each resolve by their rules; Worldwalker and Cartyrion have none."""
    from fracas.rulesets.base import SAVE

    assert fracas.rulesets.kinds()["save"] is SAVE
    for name in ("enchanted-realms", "old-school"):
        assert fracas.rulesets.get(name).kind("save").kind is SAVE
    for name in ("worldwalker", "cartyrion"):
        assert _error(fracas.roll, "save", {**HOLD, "ruleset": name}).path == "$.ruleset"


def test_the_render_names_each_roll_and_its_chance():
    result = fracas.save({**HOLD, "rolls": [1, 20]}).to_dict()
    text = fracas.rulesets.get("old-school").render(result)
    assert "cleric: d20 1 (natural 1: always fails) -2 = -1 vs 15 · fails (20% to save)" in text
    assert "fighter: d20 20 (natural 20: always saves) -1 = 19 vs 14 · saves (30% to save)" in text
    assert "1 saved, 1 failed: cleric" in text


# -- the known-answer vectors: the draw order on every backend --------------------------

def test_the_os_save_vectors_cover_the_rules():
    results = [v["result"] for v in VECTORS if "result" in v]
    entries = [t for r in results for t in r["targets"]]
    assert len(results) >= 80 and any(len(r["targets"]) >= 5 for r in results)
    assert {t["natural"] for t in entries} >= {1, 20, None}
    assert any(t["saved"] for t in entries) and any(not t["saved"] for t in entries)
    assert any(r["category"] for r in results) and any(r["category"] is None for r in results)
    assert {v["error"]["type"] for v in VECTORS if "error" in v} >= {"SchemaError", "DiceError"}


@pytest.mark.parametrize("backend", _kernels.available())
def test_every_os_save_vector_reproduces(backend):
    """Both backends (pure and compiled) give every vector's answer."""
    with _kernels.using(backend):
        differ = [v["name"] for v in VECTORS if _answer(v) != {k: v[k] for k in ("result", "error") if k in v}]
    assert differ == []


def test_the_os_save_generator_is_in_sync_with_the_committed_file():
    path = ROOT / "tests" / "vectors" / "generate_os_save.py"
    spec = importlib.util.spec_from_file_location("generate_os_save", path)
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    assert generate.dumps(generate.build()) == generate.VECTORS.read_text()


# -- the rules page: its saving throw example runs ----------------------------------------

def test_the_rules_page_shows_a_saving_throw_request_that_runs():
    """docs/rules/old-school.md's "Saving throws" section shows the request; every such
    ```json block (with "targets") runs."""
    page = (ROOT / "docs" / "rules" / "old-school.md").read_text()
    ran = 0
    for block in re.findall(r"```json\n(.*?)```", page, re.S):
        request = json.loads(block)
        if "targets" in request and isinstance(request["targets"], list):
            result = fracas.save(request).to_dict()
            assert len(result["targets"]) == len(request["targets"])
            ran += 1
    assert ran >= 1
    assert "natural 20" in page and "natural 1" in page
