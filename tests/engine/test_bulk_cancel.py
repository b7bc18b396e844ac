"""resolve_bulk's caller hooks (docs/ENGINE.md §5): admit before rolling, cancel between chunks."""

from __future__ import annotations

import threading

import pytest

import fracas

BULK = {
    "profiles": {"skeleton": {"attacker": {"strength": 6},
                              "strikes": [{"method": "melee", "style": "slashing", "dice": 3, "weight": 1,
                                           "damage_type": "edged"}, {"method": "melee", "style": "slashing",
                                                                     "dice": 2, "weight": 1,
                                                                     "damage_type": "edged"}]}},
    "targets": {"pc-1": {"ac": 14}},
    "attacks": [{"profile": "skeleton", "target": "pc-1", "count": 70_000}],
    "seed": 5,
}


def test_admit_sees_attacks_and_listed_rows_before_any_roll():
    seen = []
    fracas.resolve_bulk({**BULK, "detail": "attacks", "attacks": [{**BULK["attacks"][0], "count": 300}]},
                        admit=lambda *args: seen.append(args))
    assert seen == [(300, 600, "attacks")]  # two strikes per attack
    fracas.resolve_bulk(BULK, admit=lambda *args: seen.append(args))
    assert seen[-1] == (70_000, 0, "summary")


def test_admit_can_refuse():
    def refuse(attacks, rows, detail):
        raise fracas.LimitError("$.attacks", f"{attacks} is too many here")

    with pytest.raises(fracas.LimitError, match=r"\$.attacks: 70000 is too many here"):
        fracas.resolve_bulk(BULK, admit=refuse)


@pytest.mark.parametrize("detail", ["summary", "attacks"])
def test_cancel_stops_between_chunks(detail):
    request = dict(BULK, detail=detail)
    if detail != "summary":
        request["attacks"] = [{**BULK["attacks"][0], "count": 10_000}]
    stop = threading.Event()
    stop.set()
    with pytest.raises(fracas.Cancelled, match="cancelled"):
        fracas.resolve_bulk(request, cancel=stop)


def test_an_unset_cancel_changes_nothing():
    assert fracas.resolve_bulk(BULK, cancel=threading.Event()).to_dict() == fracas.resolve_bulk(BULK).to_dict()


def test_cancel_set_mid_way_stops_at_the_next_chunk():
    class AfterChecks:
        """Set after its first check: the first chunk rolls, the second does not."""

        def __init__(self):
            self.checks = 0

        def is_set(self):
            self.checks += 1
            return self.checks > 1

    cancel = AfterChecks()
    with pytest.raises(fracas.Cancelled):
        fracas.resolve_bulk(BULK, cancel=cancel, threads=1)
    assert cancel.checks == 2
