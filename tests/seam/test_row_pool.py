"""The row kernel's public hook (`fracas.rulesets.rows`): a ruleset that is not built in
runs on the row kernel by subclassing `rows.RowRuleset`, and a dice pool by compiling its
strikes with `rows.pool_row` under `Rules(kernel="success-count")`.

The pool here lives only in this file: a d10 pool, each 8 or more one success, a 10 rolls
one more die (the shape of a "count successes, tens again" pool). Registration and
compiling say what is wrong when the ruleset's claims and its rows disagree.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Optional

import msgspec
import pytest

import fracas
from fracas import _kernels
from fracas.rulesets import RulesetInvalid, manifest, results, rows

from .coins import CoinToss

NAME = "d10-pool"


class Strike(msgspec.Struct, forbid_unknown_fields=True):
    dice: int
    target: str = ""


class Nobody(msgspec.Struct, forbid_unknown_fields=True):
    pass


class Profile(msgspec.Struct, forbid_unknown_fields=True):
    attacker: Nobody
    strikes: list[Strike]


class Attack(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    attacker: Nobody
    strikes: list[Strike]
    targets: dict[str, Nobody]
    ruleset: str = NAME
    seed: Optional[int] = None
    rolls: Optional[list[int]] = None


class Bulk(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    profiles: dict[str, Profile]
    targets: dict[str, Nobody]
    attacks: list[rows.AttackGroup]
    ruleset: str = NAME
    seed: Optional[int] = None
    detail: str = "summary"


def _strike(strike: Strike, path: str, *_: Any) -> tuple[list[int], rows.Meta]:
    return rows.pool_row(strike.dice, 10, 8, explode=True), rows.Meta("", path, {}, 10)


def _result(meta: rows.Meta, out: rows.Out, faces: list[int]) -> dict[str, Any]:
    return {"target": meta.target, "faces": faces, "successes": out.dice_sum, "hit": bool(out.hit),
            "damage": out.damage}


class StrikeResult(results.Shape):
    target: str
    faces: list[int]
    successes: results.Count
    hit: bool
    damage: results.Count


def _same(value: Any, path: str) -> Any:
    return value


class D10Pool(rows.RowRuleset):
    name = NAME
    largest_die = 10
    request_types = {"attack": Attack, "bulk": Bulk}
    result_types = results.row_result_types(__name__, StrikeResult)
    rules = rows.Rules(NAME, "P-1", _strike, _same, _same, Nobody, Profile, _result, kernel="success-count")


@pytest.fixture
def d10():
    ruleset = fracas.rulesets.register(D10Pool())
    yield ruleset
    fracas.rulesets.unregister(NAME)


ATTACK = {"ruleset": NAME, "attacker": {}, "strikes": [{"dice": 3, "target": "x"}], "targets": {"x": {}}}


@pytest.mark.parametrize("backend", _kernels.available())
@pytest.mark.parametrize("rolls, faces, successes", [
    ([10, 3, 8, 1], [10, 3, 8, 1], 2),      # 10 and 8 succeed; the 10 rolls one more die, a 1
    ([10, 10, 2, 9, 4], [10, 10, 2, 9, 4], 3),  # two tens, two more dice: 9 succeeds
    ([1, 2, 7], [1, 2, 7], 0),              # no 8 or more: a miss
])
def test_a_pool_of_its_own_rolls_on_the_row_kernel(d10, backend, rolls, faces, successes):
    with _kernels.using(backend):
        result = fracas.resolve(dict(ATTACK, rolls=rolls)).to_dict()
    assert result["backend"] == backend
    assert result["strikes"] == [{"target": "x", "faces": faces, "successes": successes, "hit": successes > 0,
                                  "damage": successes}]


def test_its_odds_and_bulk_are_the_row_kernels(d10):
    exact = dict(fracas.odds(dict(ATTACK, strikes=[{"dice": 1, "target": "x"}])).distribution("x"))
    # one exploding d10, 8+ a success: P(0) = 7/10 (1-7), P(1) = 2/10 (8, 9) + 1/10 x 9/10 ...
    assert exact[0] == Fraction(7, 10) and abs(sum(exact.values()) - 1) < Fraction(1, 10**12)
    assert abs(exact[1] - (Fraction(2, 10) + Fraction(1, 10) * Fraction(7, 10))) < Fraction(1, 10**12)
    bulk = {"ruleset": NAME, "profiles": {"p": {"attacker": {}, "strikes": [{"dice": 3}]}}, "targets": {"x": {}},
            "attacks": [{"profile": "p", "target": "x", "count": 1000}]}
    runs = {}
    for backend in _kernels.available():
        with _kernels.using(backend):
            runs[backend] = fracas.resolve_bulk(bulk, seed=9).to_dict()
    assert {r["backend"] for r in runs.values()} == set(_kernels.available())
    assert len({str({k: v for k, v in r.items() if k != "backend"}) for r in runs.values()}) == 1
    with pytest.raises(fracas.RequestError, match=r"^\$\.detail: unknown detail 'every'"):
        fracas.resolve_bulk(dict(bulk, detail="every"))


def test_a_success_count_table_whose_strike_is_no_pool_is_named():
    def d20(strike: Strike, path: str, *_: Any) -> tuple[list[int], rows.Meta]:
        return rows.row(HIT=2, TN=10, DICE=1, FACES=6), rows.Meta("", path, {}, 6)

    class Wrong(D10Pool):
        rules = rows.Rules(NAME, "P-1", d20, _same, _same, Nobody, Profile, _result, kernel="success-count")

    fracas.rulesets.register(Wrong())
    try:
        with pytest.raises(RulesetInvalid, match=r"kernel 'success-count', but \$\.strikes\[0\] compiled to hit "
                                                 r"mode 2, not a pool"):
            fracas.resolve(dict(ATTACK, strikes=[{"dice": 5, "target": "x"}]))  # a request no other test compiled
    finally:
        fracas.rulesets.unregister(NAME)


def test_pool_row_and_rules_refuse_what_the_kernel_cannot_roll():
    with pytest.raises(RulesetInvalid, match=r"success on 7 of a d6 \(1 to 6\)"):
        rows.pool_row(3, 6, 7)
    with pytest.raises(RulesetInvalid, match=r"1 faces"):
        rows.pool_row(3, 1, 1)
    with pytest.raises(RulesetInvalid, match=r"kernel 'dice-pool' is not one of strike-rows, success-count"):
        rows.Rules(NAME, "P-1", _strike, _same, _same, Nobody, Profile, _result, kernel="dice-pool")


MANIFEST = """name = "{name}"\nid = "pp"\ntitle = "{title}"\nobject = "X"\nkinds = ["attack", "bulk"]
rules = "rules.md"\nstatus = "tests only"\nexamples = []\nclients = ["python"]\nrow_kernel = "{mode}"
"""


@pytest.mark.parametrize("ruleset, mode, words", [
    (D10Pool(), "strike-rows", r"row_kernel 'strike-rows' but the ruleset object runs on 'success-count'"),
    (CoinToss(), "success-count", r"row_kernel 'success-count' but the ruleset object rolls on its own calls"),
])
def test_a_manifest_row_kernel_the_object_does_not_run_on_is_refused(ruleset, mode, words):
    text = MANIFEST.format(name=ruleset.name, title=ruleset.title or "Pool", mode=mode)
    listed = manifest.parse(text, "pool/manifest.toml", "pool")
    with pytest.raises(RulesetInvalid, match=r"^pool/manifest.toml: " + words):
        fracas.rulesets.register(ruleset, listed)
    assert ruleset.name not in fracas.rulesets()
