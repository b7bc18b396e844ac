"""fracas: tabletop RPG combat resolution, fast and reproducible.

    >>> import fracas
    >>> result = fracas.resolve({
    ...     "attacker": {"strength": 4},
    ...     "strikes": [{"target": "goblin", "method": "melee", "style": "slashing",
    ...                  "dice": 2, "weight": 1, "damage_type": "edged"}],
    ...     "targets": {"goblin": {"ac": 14}},
    ... }, seed=42)
    >>> result.to_dict()["total_damage"]
    3

The draw order, the request and the result are documented in docs/ENGINE.md.
"""

from __future__ import annotations

from . import _kernels
from .errors import DiceError, FracasError, LimitError, RequestError, RulesError, SchemaError
from .schema import (
    RULESETS, AttackGroup, AttackRequest, Attacker, BulkRequest, Combatant, InitiativeRequest,
    Profile, ProfileStrike, Strike, Target,
)

__version__ = "0.1.0"

__all__ = [
    "resolve", "resolve_bulk", "roll_initiative", "backend", "RULESETS", "__version__",
    "FracasError", "RequestError", "SchemaError", "RulesError", "DiceError", "LimitError",
    "AttackRequest", "Attacker", "Strike", "Target", "BulkRequest", "Profile", "ProfileStrike",
    "AttackGroup", "InitiativeRequest", "Combatant",
]


def resolve(request, *, seed=None):
    """Resolve one ER attack; see `fracas.engine.resolve`."""
    from .engine import resolve as _resolve

    return _resolve(request, seed=seed)


def resolve_bulk(request, *, seed=None, threads=None):
    """Resolve many attacks in one request; see `fracas.bulk.resolve_bulk`."""
    from .bulk import resolve_bulk as _resolve_bulk

    return _resolve_bulk(request, seed=seed, threads=threads)


def roll_initiative(request, *, seed=None):
    """ER-18 initiative for a list of combatants; see `fracas.initiative.roll_initiative`."""
    from .initiative import roll_initiative as _roll

    return _roll(request, seed=seed)


def __getattr__(name):
    # `fracas.backend` follows the active kernels, also after `_kernels.use()`.
    if name == "backend":
        return _kernels.name()
    raise AttributeError(f"module 'fracas' has no attribute {name!r}")
