"""A manifest's `[client]` table (issue 45, item 6): how a client draws the ruleset's cards
and builds its initiative, as data. The manifest reader refuses a bad table naming the file
and the key; the generator checks every field it names against the ruleset's result layouts
and request structs before writing it into the Foundry module's contract.js."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from fracas import rulesets
from fracas.rulesets import RulesetInvalid, manifest
from fracas.spec import generate

from .test_registration import GOOD

ROOT = Path(__file__).resolve().parents[2]


def _parse(table: str) -> manifest.Manifest:
    return manifest.parse(GOOD + "[client]\n" + table, "coins/manifest.toml", "coins")


def test_a_client_table_is_read_as_given():
    got = _parse('strike = "d20"\nagainst = "tn"\ninitiative = "side"\ninitiative_options = {ties = "reroll"}\n'
                 'initiative_die = 6\ninitiative_rule = "CO-1"\nfight_party = "party"\nsplit = ["stamina"]\n'
                 'fight_sides = 2\n')
    assert dict(got.client) == {"strike": "d20", "against": "tn", "initiative": "side", "initiative_options": {"ties": "reroll"},
                                "initiative_die": 6, "initiative_rule": "CO-1", "fight_party": "party", "split": ["stamina"],
                                "fight_sides": 2}
    assert dict(manifest.parse(GOOD, "coins/manifest.toml", "coins").client) == {}


@pytest.mark.parametrize(("table", "says"), [
    ('colour = "red"\n', r"\[client\] colour: unknown key \(keys: strike, against"),
    ('strike = "d6"\n', r"\[client\] strike: 'd6' is not one of d20, pool"),
    ('initiative = "group"\n', r"\[client\] initiative: 'group' is not one of combatant, side"),
    ("initiative_die = 1\n", r"\[client\] initiative_die: a die has at least 2 faces, got 1"),
    ("initiative_die = true\n", r"\[client\] initiative_die must be a TOML integer, got True"),
    ('split = "stamina"\n', r"\[client\] split must be a TOML array"),
    ("against = 3\n", r"\[client\] against must be a TOML string, got 3"),
    ("fight_sides = true\n", r"\[client\] fight_sides must be a TOML integer"),
    ('against = "Armor Class"\n', r"\[client\] against: 'Armor Class' is not a field name"),
    ('initiative_flags = ["dex-mod"]\n', r"\[client\] initiative_flags: 'dex-mod' is not a field name"),
    ("initiative_options = {ambush = [1]}\n", r"\[client\] initiative_options.ambush: a string, integer or boolean"),
])
def test_a_bad_client_table_is_refused_naming_the_file_and_key(table, says):
    with pytest.raises(RulesetInvalid, match=r"^coins/manifest.toml: " + says):
        _parse(table)


def _with_client(name: str, client: dict) -> SimpleNamespace:
    """A built-in ruleset's own request types, under a manifest whose [client] is `client`."""
    real = rulesets.get(name)
    return SimpleNamespace(name=name, request_types=real.request_types, manifest=SimpleNamespace(client=client))


def _hints(name: str, client: dict) -> dict:
    facts = generate.contract_facts(every_layout=True, only=[name])
    return generate.client_hints(_with_client(name, client), facts["STRUCTS"][name], facts["RESULTS"][name])


def _ruleset_with(**wanted) -> str:
    """The built-in ruleset whose manifest's [client] has `wanted` (no ruleset named here)."""
    return next(n for n in rulesets.names() if all(rulesets.get(n).manifest.client.get(k) == v for k, v in wanted.items()))


def test_the_built_in_hints_name_fields_their_layouts_have_and_reach_contract_js():
    text = (ROOT / "vtt_scripts/foundry/scripts/contract.js").read_text(encoding="utf-8")
    for name in rulesets.names():
        client = dict(rulesets.get(name).manifest.client)
        assert _hints(name, client) == client
        line = next(line for line in text.splitlines() if f'"name": "{name}"' in line and "titleKey" in line)
        assert re.search(r'"client": (\{.*\})\}\),$', line).group(1) == generate._js(client)


def test_ww_2_a_d20_strike_against_a_field_its_strikes_lack_is_refused():
    # WW-2: a Worldwalker strike is rolled against the target's TN; it has no "ac".
    name = _ruleset_with(against="tn")
    with pytest.raises(ValueError, match=rf"^{name}'s manifest \[client\] against: 'ac' is not a field of its attack"):
        _hints(name, {"strike": "d20", "against": "ac"})


def test_ct_2_a_pool_strike_needs_the_fields_a_card_reads_and_os_3_strikes_have_no_pool():
    # CT-2/CT-3: a Cartyrion strike is a pool of its die; OS-3 strikes are d20 attack rolls.
    pool = _ruleset_with(strike="pool")
    assert _hints(pool, {"strike": "pool"}) == {"strike": "pool"}
    d20 = _ruleset_with(against="ac")
    with pytest.raises(ValueError, match=rf"^{d20}'s manifest \[client\] strike = 'pool': 'dice' is not a field"):
        _hints(d20, {"strike": "pool"})


def test_ct_4_a_split_into_fields_the_targets_lack_is_refused():
    # CT-4: the damage splits into stamina and injury; an old-school target has neither.
    os_name = _ruleset_with(against="ac")
    with pytest.raises(ValueError, match=r"\[client\] split: 'stamina' is not a field of its attack result's targets"):
        _hints(os_name, {"split": ["stamina", "injury"]})


def test_ww_1_initiative_flags_and_ct_1_options_must_be_fields_of_the_initiative_request():
    # WW-1: each combatant's dex_mod; CT-1: the request's ambush.
    ww = _ruleset_with(initiative_flags=["dex_mod"])
    with pytest.raises(ValueError, match=r"\[client\] initiative_flags: 'agility' is not a field of its initiative"
                                         r" request's combatants"):
        _hints(ww, {"initiative": "combatant", "initiative_flags": ["agility"]})
    ct = _ruleset_with(fight_party="party")
    with pytest.raises(ValueError, match=r"\[client\] initiative_options: 'ties' is not a field of its initiative request"):
        _hints(ct, {"initiative": "side", "initiative_options": {"ties": "reroll"}})
    with pytest.raises(ValueError, match=r"\[client\] initiative_flags: 'dex_mod' is not a field of its initiative"):
        _hints(ct, {"initiative_flags": ["dex_mod"]})  # CT-1 rolls for sides: no combatants


def test_the_guides_client_table_is_a_valid_manifest_table():
    # docs/ADDING_A_RULESET.md's `[client]` example registers as written.
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[2] / "docs" / "ADDING_A_RULESET.md").read_text(encoding="utf-8")
    # The one with every key (the d6 pool's, before it, is checked below).
    block = guide.split("```toml\n[client]\n")[2].split("```", 1)[0]
    parsed = manifest.parse(GOOD + "[client]\n" + block, "coins/manifest.toml", "coins")
    assert set(parsed.client) == set(manifest.CLIENT_KEYS)
    assert parsed.client["choices"]["reaction"]["members"]["block_hand"][0] == "hand"


def test_the_guides_d6_pool_client_table_is_the_examples_own():
    # DP-2 (docs/examples/d6pool rules.md): the guide shows the d6 pool's [client] table as
    # its manifest has it, the table both clients' end-to-end initiative tests are served.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: the tomli backport, a dependency of fracas there
        import tomli as tomllib

    root = Path(__file__).resolve().parents[2]
    guide = (root / "docs" / "ADDING_A_RULESET.md").read_text(encoding="utf-8")
    block = guide.split("```toml\n[client]\n")[1].split("```", 1)[0]
    shown = tomllib.loads("[client]\n" + block)["client"]
    own = tomllib.loads((root / "docs" / "examples" / "d6pool" / "d6pool" / "manifest.toml").read_text(encoding="utf-8"))
    assert shown == own["client"] == {"initiative": "combatant", "initiative_flags": ["bonus"], "initiative_die": 6,
                                      "initiative_rule": "DP-2"}
