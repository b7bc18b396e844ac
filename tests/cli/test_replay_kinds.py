"""`fracas replay` of a bare request finds its kind from the ruleset's request types, not
from a list of field names per built-in kind: every kind of every registered ruleset (a
plug-in's too) replays from its manifest's sample request."""

from __future__ import annotations

import pytest

from fracas import rulesets
from fracas.cli.replay import _method_of

SAMPLES = [(r.name, kind, request) for r in (rulesets.get(n) for n in rulesets.names())
           for kind, request in r.manifest.requests.items()]


@pytest.mark.parametrize(("ruleset", "kind", "request_"), SAMPLES, ids=[f"{r}-{k}" for r, k, _ in SAMPLES])
def test_a_bare_request_is_replayed_as_its_kind(ruleset, kind, request_):
    named = dict(request_, ruleset=ruleset)
    assert _method_of(named) == rulesets.get(ruleset).kind(kind).kind.method


def test_every_kind_has_a_sample():
    kinds = {(r.name, k) for r in (rulesets.get(n) for n in rulesets.names()) for k in r.request_types}
    assert kinds == {(r, k) for r, k, _ in SAMPLES}


def test_what_fits_no_kind_is_replayed_as_an_attack_whose_checks_name_the_fault():
    assert _method_of({"ruleset": "enchanted-realms", "attacker": {}, "stray": 1}) == "attack.resolve"
    assert _method_of({"ruleset": "chess"}) == "attack.resolve"
    assert _method_of([1, 2]) == "attack.resolve"
