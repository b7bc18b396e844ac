"""Typed requests live under their ruleset (issue 45 item 5); `fracas.AttackRequest` and the
other Enchanted Realms names at the top of `fracas` are compatibility aliases of them.

Published code builds requests with `fracas.AttackRequest(...)`: the alias must stay the
same class (so a request built either way is the same request), and stay listed in
`fracas.__all__`; the README and the API pages say which is the home."""

from __future__ import annotations

import importlib
import subprocess
import sys

import msgspec
import pytest

import fracas
from fracas import rulesets

#: What fracas exported at the top before the types moved under their ruleset: the contract.
ALIASES = ("AttackRequest", "Attacker", "Strike", "Target", "BulkRequest", "Profile", "ProfileStrike", "AttackGroup",
           "InitiativeRequest", "Combatant")


@pytest.mark.parametrize("name", ALIASES)
def test_the_top_level_names_are_aliases_of_the_default_rulesets_types(name):
    default = next(m for m in rulesets.manifests() if m.name == rulesets.DEFAULT)
    home = importlib.import_module(default.package)
    assert getattr(fracas, name) is getattr(home, name)
    assert issubclass(getattr(home, name), msgspec.Struct)
    assert name in fracas.__all__  # `from fracas import *` keeps giving it


@pytest.mark.parametrize("manifest", rulesets.manifests(), ids=lambda m: m.name)
def test_every_rulesets_request_types_are_reached_from_its_package(manifest):
    # Each kind's request type (ER's attack, compete, …; WW-8 counterspell; OS-4 morale;
    # CT-1 initiative) is `fracas.rulesets.<package>.<its name>`, as the API pages say.
    package = importlib.import_module(manifest.package)
    ruleset = rulesets.get(manifest.name)
    assert set(ruleset.request_types) == set(manifest.kinds)
    for kind, request_type in ruleset.request_types.items():
        assert getattr(package, request_type.__name__) is request_type, (manifest.name, kind)


def test_a_request_built_from_the_alias_or_the_home_is_the_same_request():
    # ER-3 skill dice, ER-5 weight: the golden attack of the package docstring, typed both ways.
    from fracas.rulesets import er

    def build(ns):
        return ns.AttackRequest(attacker=ns.Attacker(strength=4),
                                strikes=[ns.Strike(target="goblin", method="melee", style="slashing", dice=2,
                                                   weight=1, damage_type="edged")],
                                targets={"goblin": ns.Target(ac=14)})

    assert build(fracas) == build(er)
    assert fracas.resolve(build(fracas), seed=42).to_dict() == fracas.resolve(build(er), seed=42).to_dict()
    assert fracas.resolve(build(er), seed=42).to_dict()["total_damage"] == 3


def test_import_fracas_loads_no_types_until_one_is_asked_for():
    # A fast start (issue 44 item 5): the aliases are read on first access, not at import.
    code = ("import sys, fracas\n"
            "print(sorted(m for m in sys.modules if m.startswith('fracas.rulesets')))\n"
            "fracas.AttackRequest\n"
            "print('fracas.rulesets.er.schema' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:2] == ["[]", "True"]
