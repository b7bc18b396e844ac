"""CT-1 side initiative: which side acts first and which is surprised, for a d6."""

from __future__ import annotations

from typing import Optional


def side_initiative(roll: int, round_: int, ambush: str) -> tuple[str, Optional[str]]:
    """(side acting first, side surprised or None) for a d6 (CT-1)."""
    if round_ == 1 and ambush == "opponents":
        if roll <= 2:
            return "opponents", "party"
        return ("opponents", None) if roll == 3 else ("party", None)
    if round_ == 1 and ambush == "party":
        if roll >= 5:
            return "party", "opponents"
        return ("party", None) if roll == 4 else ("opponents", None)
    first = "opponents" if roll <= 3 else "party"
    if round_ == 1 and roll == 1:
        return first, "party"
    if round_ == 1 and roll == 6:
        return first, "opponents"
    return first, None
