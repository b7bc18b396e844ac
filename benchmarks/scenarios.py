"""The benchmark scenarios: engine requests, bare-kernel plans, and exact answers.

Each scenario exists twice: as the engine request a user would send (measured
through `fracas.resolve_bulk`) and as the kernel plan rows that request compiles to
(measured through the bare kernel, with no request handling at all). A test checks
that both roll the same dice and damage for the same seed, so the two columns of a
table measure the same work.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from fracas import _layout as L
from fracas._facts import DAMAGE_TYPES

# Damage type indices, in the spec's order.
_TYPES = DAMAGE_TYPES


@dataclass(frozen=True)
class Scenario:
    """One benchmark scenario: what it is, its request, and its kernel plan."""

    key: str
    title: str
    description: str
    profile: dict          # a bulk profile (attacker + strikes without targets)
    targets: dict          # target id -> target
    strike_targets: list   # the target id of each strike of the profile
    plan_rows: list        # one PLAN_WIDTH row per strike (see fracas._layout)

    def single_request(self, seed: int | None = None) -> dict:
        """The single-attack request (docs/ENGINE.md section 6)."""
        strikes = [dict(strike, target=target)
                   for strike, target in zip(self.profile["strikes"], self.strike_targets)]
        request = {"ruleset": "enchanted-realms", "attacker": dict(self.profile["attacker"]),
                   "strikes": strikes, "targets": {k: dict(v) for k, v in self.targets.items()}}
        if seed is not None:
            request["seed"] = seed
        return request

    def bulk_request(self, count: int, seed: int | None = None) -> dict:
        """`count` attacks of this scenario as one bulk request in summary mode."""
        ids = set(self.strike_targets)
        target = self.strike_targets[0] if len(ids) == 1 else list(self.strike_targets)
        request = {"ruleset": "enchanted-realms", "profiles": {self.key: self.profile},
                   "targets": self.targets,
                   "attacks": [{"profile": self.key, "target": target, "count": count}],
                   "detail": "summary"}
        if seed is not None:
            request["seed"] = seed
        return request

    @property
    def n_targets(self) -> int:
        return len(self.targets)

    def plan(self) -> array:
        """The plan rows as the int32 buffer the kernels read."""
        flat = array("i")
        for row in self.plan_rows:
            assert len(row) == L.PLAN_WIDTH
            flat.extend(row)
        return flat

    def groups(self, count: int) -> array:
        """One group: every strike of the plan, `count` attacks."""
        return array("q", [0, len(self.plan_rows), count])


def _row(*, skill, to_hit, ac, crit, weight, mod, adv=0, sneak=0, disadv=0,
         resist=L.R_NORMAL, target=0, damage_type="edged") -> list:
    row = [0] * L.PLAN_WIDTH
    row[L.P_SKILL] = skill
    row[L.P_ADV] = adv
    row[L.P_SNEAK] = sneak
    row[L.P_DISADV] = disadv
    row[L.P_TO_HIT] = to_hit
    row[L.P_AC] = ac
    row[L.P_CRIT] = crit
    row[L.P_WEIGHT] = weight
    row[L.P_MOD] = mod
    row[L.P_RESIST] = resist
    row[L.P_TARGET] = target
    row[L.P_TYPE] = _TYPES.index(damage_type)
    return row


#: Scenario 1: 3d20 +2 vs AC 14, weight 1, modifier +1, crit chain on.
#: Strength 2 puts +2 on every die; the modifier is given explicitly (+1).
TYPICAL = Scenario(
    key="typical",
    title="typical strike",
    description="3d20 +2 vs AC 14, weight 1, modifier +1, crit chain on",
    profile={"attacker": {"strength": 2, "strength_mod": 1},
             "strikes": [{"method": "melee", "style": "slashing", "dice": 3, "weight": 1,
                          "damage_type": "edged"}]},
    targets={"foe": {"ac": 14}},
    strike_targets=["foe"],
    plan_rows=[_row(skill=3, to_hit=2, ac=14, crit=20, weight=1, mod=1)],
)

#: Scenario 2: 5 skill dice + advantage + sneak (7 d20), crit range 19-20, and a
#: target resistant to the strike's damage type.
HEAVY = Scenario(
    key="heavy",
    title="heavy strike",
    description="5d20 + advantage + sneak (7 dice) +4 vs AC 16, crit 19-20, weight 2, resistant",
    profile={"attacker": {"strength": 4},
             "strikes": [{"method": "melee", "style": "cleaving", "dice": 5, "weight": 2,
                          "damage_type": "edged", "crit_range": 19,
                          "advantage": True, "sneak": True, "sneak_ok": True}]},
    targets={"ogre": {"ac": 16, "resistant": ["edged"]}},
    strike_targets=["ogre"],
    plan_rows=[_row(skill=5, adv=1, sneak=1, to_hit=4, ac=16, crit=19, weight=2, mod=1,
                    resist=L.R_HALF)],
)

#: Scenario 3: two strikes on one target plus one on a second target.
MULTI = Scenario(
    key="multi",
    title="multi-strike",
    description="3d20 slashing + 2d20 piercing at A (AC 15), 2d20 bludgeoning at B (AC 13), +4",
    profile={"attacker": {"strength": 4},
             "strikes": [
                 {"method": "melee", "style": "slashing", "dice": 3, "weight": 1,
                  "damage_type": "edged"},
                 {"method": "melee", "style": "piercing", "dice": 2, "weight": 0,
                  "damage_type": "piercing"},
                 {"method": "melee", "style": "bludgeoning", "dice": 2, "weight": 1,
                  "damage_type": "blunt"}]},
    targets={"a": {"ac": 15}, "b": {"ac": 13}},
    strike_targets=["a", "a", "b"],
    plan_rows=[
        _row(skill=3, to_hit=4, ac=15, crit=20, weight=1, mod=1, target=0, damage_type="edged"),
        _row(skill=2, to_hit=4, ac=15, crit=0, weight=0, mod=1, target=0, damage_type="piercing"),
        _row(skill=2, to_hit=4, ac=13, crit=20, weight=1, mod=1, target=1, damage_type="blunt"),
    ],
)

SCENARIOS = {s.key: s for s in (TYPICAL, HEAVY, MULTI)}

# Exact answers for scenario 1 (docs: ../shared/DESIGN.md). A die hits on 12-20
# (p = 9/20); a natural 20 starts the chain; each crit die hits with 9/20 (a d3),
# and a 20 on it (1/20) grants the next.
P_DIE_HITS = Fraction(9, 20)
P_ANY_HIT = 1 - (1 - P_DIE_HITS) ** 3                     # 6669/8000
P_CRIT = 1 - Fraction(19, 20) ** 3                        # some die shows a 20
CRIT_DICE_PER_CHAIN = 1 / (1 - Fraction(1, 20))           # 20/19
MEAN_DAMAGE = (3 * P_DIE_HITS + 2 * P_ANY_HIT              # hits, weight + modifier
               + P_CRIT * CRIT_DICE_PER_CHAIN * P_DIE_HITS * 2)   # 11979/3800
#: Generator words one scenario-1 attack draws, on average: three d20, then per
#: crit die one d20 and, when it hits, one d3 (Lemire rejections are ~n/2^32: nil).
WORDS_PER_ATTACK = 3 + P_CRIT * CRIT_DICE_PER_CHAIN * (1 + P_DIE_HITS)

assert P_ANY_HIT == Fraction(6669, 8000)
assert MEAN_DAMAGE == Fraction(11979, 3800)


def typical_damage_distribution() -> dict[int, Fraction]:
    """The exact distribution of scenario-1 damage (chain truncated at 2^-60 mass).

    Used by the tests for an exact variance; the truncated mass is far below what
    any sample can see.
    """
    # Chain damage distribution given that a chain starts.
    d3 = {1: Fraction(1, 3), 2: Fraction(1, 3), 3: Fraction(1, 3)}
    chain: dict[int, Fraction] = {}
    # State: accumulated damage -> probability, for chains still running.
    running = {0: Fraction(1)}
    p_miss = Fraction(11, 20)     # faces 1-11 miss
    p_hit_stop = Fraction(8, 20)  # faces 12-19 hit and stop
    p_twenty = Fraction(1, 20)    # hits, adds d3, continues
    for _ in range(14):           # 20^-14 < 2^-60
        nxt: dict[int, Fraction] = {}
        for acc, p in running.items():
            chain[acc] = chain.get(acc, 0) + p * p_miss
            for face, q in d3.items():
                chain[acc + face] = chain.get(acc + face, 0) + p * p_hit_stop * q
                nxt[acc + face] = nxt.get(acc + face, 0) + p * p_twenty * q
        running = nxt
    # Pool: 3 dice; each die is a miss (11/20), a plain hit (8/20) or a 20 (1/20).
    dist: dict[int, Fraction] = {}
    for twenties in range(4):
        for plain in range(4 - twenties):
            misses = 3 - twenties - plain
            ways = comb(3, twenties) * comb(3 - twenties, plain)
            p = ways * p_twenty ** twenties * p_hit_stop ** plain * p_miss ** misses
            hits = twenties + plain
            if hits == 0:
                dist[0] = dist.get(0, 0) + p
            elif twenties == 0:
                dist[hits + 2] = dist.get(hits + 2, 0) + p
            else:
                for c, q in chain.items():
                    dist[hits + 2 + c] = dist.get(hits + 2 + c, 0) + p * q
    return dist
