"""The compiled fight loop's two records as Python: `FightPlan` (the scenario, flat) and
`FightState` (a fight in play), as objects of arrays, and the strike kernels' Python twins
where C calls the kernels through pointers. The round procedure files (`rulesets/loop.py`
and each ruleset's `loop.py`) read them when they run as Python (`fracas.drive.pyloop`);
compiled, `cython_core/fights.pyx` declares the same fields as C structs."""

from __future__ import annotations

from array import array
from typing import Any

from .. import _native
from .._draw import KernelError
from .._layout import O_DAMAGE, OUT_WIDTH, XS_WIDTH
from ..dice import Dice

#: ER-17: the creatures next to a target a shot may stray into (fights.pyx's BY_MAX)
BY_MAX = 8
#: OS-1: the sides a fight of side initiative may have (fights.pyx's OS_MAX_SIDES)
OS_MAX_SIDES = 64


class _Fields:
    """An object of named fields, each an array (or a number) the loop reads or writes: the
    Python form of a C struct of `fights.pyx`. A field the loop reads and nobody set is an
    AttributeError naming it."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"{type(self).__name__} has no field {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)


class FightPlan(_Fields):
    """`fights.pyx`'s FightPlan: the scenario, flat (what `fastfight.FastPlan` lays out)."""


class FightState(_Fields):
    """`fights.pyx`'s FightState: one fight in play, and the scratch its steps share."""


def er_kernel(plans: Any, f: Any, first: int, n: int, rows: bool, log: bool) -> int:
    """`roll_attack` for `loop._er_roll`: rows first..first+n-1 of `plans` as one attack,
    from f's stream; its rows into f.out (and its dice into f.slog when `log`), its damage
    into f.dmg when not `rows`. Returns the kernel's error code."""
    try:
        _native._roll_attack(plans, first, first + n, f.d, f.stamp, 0, f.out, 0, f.slog if log else None, 0)
    except KernelError as exc:
        return exc.code
    if not rows:
        f.dmg += sum(f.out[s * OUT_WIDTH + O_DAMAGE] for s in range(n))
    return 0


def row_kernel(p: Any, f: Any, first: int, n: int, at: int) -> int:
    """`xattack` for `loop._row_roll`: rows first..first+n-1 of the strike-row plan as one
    attack, from variant `at`'s parry state; its rows into f.out."""
    try:
        _native._xattack(p.plans, first, first + n, f.d, p.tinit[at * XS_WIDTH:(at + 1) * XS_WIDTH], f.tstate,
                         f.out, 0, None, 0)
    except KernelError as exc:
        return exc.code
    return 0


def peek(d: Dice) -> Dice:
    """A copy of the stream `d` (a glaive's impalement reads its skill dice ahead)."""
    return Dice(array("I", d.s), None, 0)
