"""`fracas.odds` for Worldwalker, Cartyrion and old-school against the independent
enumerations of test_exact_and_parity (written from the rules text)."""

from fractions import Fraction

import pytest

import fracas

from .test_exact_and_parity import ct_damage, os_damage, ww_damage


@pytest.mark.parametrize("request_, exact", [
    ({"ruleset": "cartyrion", "attacker": {"level": 3, "bonus": 2, "magic": 1},
      "strikes": [{"target": "t", "method": "melee", "die": "d6"}], "targets": {"t": {"dex": 2, "armor": 3}}},
     lambda: ct_damage(2, 6, -1)),
    ({"ruleset": "cartyrion", "attacker": {"level": 1, "bonus": 1},
      "strikes": [{"target": "t", "method": "melee", "die": "d4", "sneak": "failed"}],
      "targets": {"t": {"dex": 9, "armor": 2}}},
     lambda: ct_damage(1, 4, -1)),
    ({"ruleset": "worldwalker", "attacker": {"skill": 3, "str_mod": 2},
      "strikes": [{"target": "t", "method": "melee", "damage": "1d8", "critical": 2, "crit_multiplier": 2}],
      "targets": {"t": {"defense": 13, "armor": 3, "reaction": {"kind": "block", "bonus": 5}}}},
     lambda: ww_damage(3, 13, 5, 8, 6, 3)),
    ({"ruleset": "old-school", "attacker": {"attack_bonus": 2, "str_mod": 1},
      "strikes": [{"target": "t", "method": "melee", "damage": "1d6-2"}], "targets": {"t": {"ac": 15}}},
     lambda: os_damage(3, 15, 6, -1)),
])
def test_ww_ct_os_odds_match_the_independent_enumeration(request_, exact):
    got = dict(fracas.odds(request_).distribution("t"))
    want = exact()
    for value in set(got) | set(want):
        assert abs(got.get(value, 0) - want.get(value, 0)) < Fraction(1, 10**14), value


