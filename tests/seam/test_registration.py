"""Registration says what is missing and where: a manifest's field, a kind's request type,
calls or result shape, the fields whole fights need, a bulk job's groups (fracas.rulesets.base)."""

from __future__ import annotations

import pytest

import fracas
from fracas.rulesets import RulesetInvalid, manifest
from fracas.rulesets.base import check_bulk_job

from .coins import COIN_TOSS, CoinToss

GOOD = """name = "coin-toss"\nid = "co"\ntitle = "Coin toss (tests only)"\nobject = "COIN_TOSS"
kinds = ["attack", "bulk"]\nrules = "rules.md"\nstatus = "tests only"\nexamples = []\nclients = ["python"]
"""


def test_a_manifest_missing_a_field_names_the_file_and_the_field():
    with pytest.raises(RulesetInvalid, match=r"^coins/manifest.toml: missing field 'title'"):
        manifest.parse(GOOD.replace('title = "Coin toss (tests only)"\n', ""), "coins/manifest.toml", "coins")
    with pytest.raises(RulesetInvalid, match=r"^coins/manifest.toml: field 'clients' must include \"python\""):
        manifest.parse(GOOD.replace('["python"]', '["roll20"]'), "coins/manifest.toml", "coins")
    with pytest.raises(RulesetInvalid, match=r"unknown field 'colour'"):
        manifest.parse(GOOD + 'colour = "red"\n', "coins/manifest.toml", "coins")


def test_manifest_kinds_must_match_the_request_types():
    listed = manifest.parse(GOOD.replace('["attack", "bulk"]', '["attack", "bulk", "initiative"]'),
                            "coins/manifest.toml", "coins")
    with pytest.raises(RulesetInvalid, match=r"coins/manifest.toml: kinds .* \(no request type for \['initiative'\]\)"):
        fracas.rulesets.register(CoinToss(), listed)
    assert "coin-toss" not in fracas.rulesets()


def test_a_kind_without_its_calls_or_seed_is_refused():
    class NoRoll(CoinToss):
        roll_attack = None  # type: ignore[assignment]

    with pytest.raises(RulesetInvalid, match=r"the attack kind needs the ruleset's roll_attack\(\) call"):
        fracas.rulesets.register(NoRoll())

    class Fighter(CoinToss):
        def fight_initiative(self, *args):
            return [], {}

    with pytest.raises(RulesetInvalid, match=r"plays whole fights .* needs the field\(s\) attacker, strikes"):
        fracas.rulesets.register(Fighter())
    assert "coin-toss" not in fracas.rulesets()


def test_a_kind_without_its_result_shape_is_refused():
    """base.REQUIREMENTS["results"]: each kind's result shape is declared (a msgspec Struct in
    `result_types`), so the bridge schema holds the exact result of every kind."""
    class NoBulkResult(CoinToss):
        result_types = {"attack": CoinToss.result_types["attack"]}

    with pytest.raises(RulesetInvalid, match=r"^ruleset <ruleset coin-toss>: no result shape for the kind\(s\) bulk: "
                                             r"each kind has its result's shape in result_types"):
        fracas.rulesets.register(NoBulkResult())

    class DictResult(CoinToss):
        result_types = {**CoinToss.result_types, "bulk": dict}

    with pytest.raises(RulesetInvalid, match=r"result_types\['bulk'\] is <class 'dict'>, not a msgspec Struct"):
        fracas.rulesets.register(DictResult())

    class Stranger(CoinToss):
        result_types = {**CoinToss.result_types, "morale": CoinToss.result_types["bulk"]}

    with pytest.raises(RulesetInvalid, match=r"result_types\['morale'\] is no kind it resolves \(one of: attack, bulk,"
                                             r" or 'odds'\)"):
        fracas.rulesets.register(Stranger())
    assert "coin-toss" not in fracas.rulesets()


def test_a_ruleset_folder_that_fails_to_import_is_an_error_not_a_missing_ruleset(tmp_path, monkeypatch):
    """Discovery reads each folder's manifest; a ruleset package whose import raises (here a
    TypeError, as a mistyped result shape does) stops discovery with its own error instead
    of leaving the ruleset silently out of `fracas.rulesets()`."""
    import sys

    folder = tmp_path / "broken_ruleset"
    folder.mkdir()
    (folder / "__init__.py").write_text("raise TypeError('a mistake in the ruleset')\n")
    (folder / "manifest.toml").write_text(GOOD)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(TypeError, match="a mistake in the ruleset"):
            manifest.read("broken_ruleset")
    finally:
        sys.modules.pop("broken_ruleset", None)
    assert manifest.read("fracas.rulesets.base") is None  # a plain module: no manifest
    assert manifest.read("no_such_package.anywhere") is None


def test_a_bulk_job_without_groups_is_named():
    class Job:
        total, detail, gil_free = 1, "summary", False

    with pytest.raises(RulesetInvalid, match=r"the coin-toss ruleset's bulk job Job lacks groups, group_info"):
        check_bulk_job(Job(), COIN_TOSS.name)


def test_a_ruleset_registered_anew_under_a_name_never_gets_its_predecessors_plans():
    """The drivers cache compiled plans by request content: a ruleset registered again under
    the same name (a new version of a plugin, a test's double) must compile its own, not be
    handed the plans the one before it compiled (fracas.rulesets.on_change)."""
    from .coins import NAME

    request = {"ruleset": NAME, "coins": 4, "target": "t", "targets": {"t": {"guard": 1}}, "rolls": [2, 2, 2, 2]}
    fracas.rulesets.register(CoinToss())
    try:
        first = fracas.resolve(request)
        assert first.to_dict()["total_damage"] == 3
        calls = []

        class Counting(CoinToss):
            def compile_attack(self, req):
                calls.append(req)
                return super().compile_attack(req)

        fracas.rulesets.register(Counting())
        again = fracas.resolve(request)
        assert calls, "the new ruleset's compile was not called: it got the old ruleset's cached plan"
        assert again.to_dict()["total_damage"] == 3
    finally:
        fracas.rulesets.unregister(NAME)


def test_a_manifest_naming_a_missing_example_scenario_is_refused_naming_the_file_and_field():
    """A manifest's `examples` names scenario files (examples/NAME.json in its package, or one
    fracas ships): one that is nowhere is refused at registration, whoever registers it."""
    listed = manifest.parse(GOOD.replace("examples = []", 'examples = ["er-skeleton-horde", "coin-nowhere"]'),
                            "coins/manifest.toml", "seam.coins")
    with pytest.raises(RulesetInvalid, match=r"^coins/manifest.toml: field 'examples' names \['coin-nowhere'\], but"
                                             r" no scenario file examples/coin-nowhere.json is in the package"
                                             r" 'seam.coins' or among the scenarios fracas ships"):
        fracas.rulesets.register(CoinToss(), listed)
    assert "coin-toss" not in fracas.rulesets()
    shipped = manifest.parse(GOOD.replace("examples = []", 'examples = ["er-skeleton-horde"]'),
                             "coins/manifest.toml", "seam.coins")
    try:
        fracas.rulesets.register(CoinToss(), shipped)  # a scenario fracas ships is found
        assert "coin-toss" in fracas.rulesets()
    finally:
        fracas.rulesets.unregister("coin-toss")


def test_a_refused_ruleset_changes_nothing_shared():
    """A manifest with `default = true` whose object fails the protocol's checks leaves the
    default ruleset as it was: a request naming none still resolves (ER-1)."""
    class NoRoll(CoinToss):
        roll_attack = None  # type: ignore[assignment]

    default = manifest.parse(GOOD + "default = true\n", "coins/manifest.toml", "seam.coins")
    before = fracas.rulesets.DEFAULT
    with pytest.raises(RulesetInvalid, match=r"the attack kind needs the ruleset's roll_attack\(\) call"):
        fracas.rulesets.register(NoRoll(), default)
    assert fracas.rulesets.DEFAULT == before == "enchanted-realms"
    assert fracas.resolve({"attacker": {"strength": 2}, "strikes": [
        {"target": "t", "method": "melee", "style": "slashing", "dice": 1, "weight": 1, "damage_type": "edged"}],
        "targets": {"t": {"ac": 14}}}, seed=1).to_dict()["ruleset"] == "enchanted-realms"
