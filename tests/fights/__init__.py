"""Helpers of the fight tests."""

from typing import Any

from fracas.drive import fastfight

LOOP_KEYS = ("compiled_fights", "flat_python_fights", "python_fights", "handed_over")


def loop_counts(totals: dict[str, Any]) -> tuple[int, int]:
    """Popped from play_batch's totals: (fights on the fight loop, compiled or run as Python
    with the pure-Python kernels; fights on the Python round loop)."""
    totals.pop("handed_over")
    return totals.pop("compiled_fights") + totals.pop("flat_python_fights"), totals.pop("python_fights")


def on_fight_loop(fights: int) -> dict[str, Any]:
    """A result's `fight_loop` when the fight loop played every fight: compiled with the
    compiled core, run as Python with the pure-Python kernels."""
    fast = fastfight.compiled()
    return {"compiled_fights": fights if fast else 0, "flat_python_fights": 0 if fast else fights,
            "python_fights": 0, "python_why": None}


def on_python_loop(fights: int, why: str) -> dict[str, Any]:
    """A result's `fight_loop` when the Python round loop played every fight, for `why`."""
    return {"compiled_fights": 0, "flat_python_fights": 0, "python_fights": fights, "python_why": why}
