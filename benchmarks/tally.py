"""What every contestant returns: enough to check it rolled the right rules."""

from __future__ import annotations

from typing import NamedTuple


class Tally(NamedTuple):
    """Totals over a batch of scenario-1 attacks."""

    attacks: int
    damage: int        # summed damage over all attacks
    attacks_hit: int   # attacks with at least one hitting die

    @property
    def mean_damage(self) -> float:
        return self.damage / self.attacks if self.attacks else 0.0

    @property
    def hit_rate(self) -> float:
        return self.attacks_hit / self.attacks if self.attacks else 0.0
