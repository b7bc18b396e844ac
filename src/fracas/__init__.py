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

Every request may name its `"ruleset"` (Enchanted Realms when absent);
`fracas.rulesets()` lists the ones this install resolves. The draw order, the
request and the result are documented in docs/ENGINE.md, the rules in docs/rules/.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

from . import _kernels
from . import rulesets
from .errors import Cancelled, DiceError, FracasError, LimitError, RequestError, RulesError, SchemaError
from .rulesets.er.schema import (
    AttackGroup, AttackRequest, Attacker, BulkRequest, Combatant, InitiativeRequest, Profile,
    ProfileStrike, Strike, Target,
)

if TYPE_CHECKING:
    from .drive.encounter import Encounter
    from .drive.odds import OddsResult
    from .rulesets.base import AttackOutcome, BulkOutcome, Result

__version__ = "0.1.0"

__all__ = [
    "resolve", "resolve_bulk", "roll_initiative", "check_morale", "compete", "impale", "odds", "rulesets", "backend", "__version__",
    "FracasError", "RequestError", "SchemaError", "RulesError", "DiceError", "LimitError",
    "Cancelled", "AttackRequest", "Attacker", "Strike", "Target", "BulkRequest", "Profile", "ProfileStrike",
    "AttackGroup", "InitiativeRequest", "Combatant", "Encounter", "simulate",
]


#: The drivers, imported on the first call (keeps `import fracas` light for the CLI),
#: then kept: a single attack is a hot path.
_DRIVE: Any = None


def _load_drive() -> Any:
    global _DRIVE
    from . import drive

    _DRIVE = drive
    return drive


def resolve(request: Any, *, seed: Optional[int] = None) -> AttackOutcome:
    """Resolve one attack of any ruleset; see `fracas.drive.resolve`."""
    result: AttackOutcome = (_DRIVE or _load_drive()).resolve(request, seed=seed)
    return result


def resolve_bulk(request: Any, *, seed: Optional[int] = None, threads: Optional[int] = None,
                 max_attacks: Optional[int] = None, max_listed: Optional[int] = None, cancel: Any = None,
                 admit: Optional[Callable[[int, int, str], None]] = None) -> BulkOutcome:
    """Resolve many attacks in one request; see `fracas.drive.resolve_bulk`."""
    result: BulkOutcome = (_DRIVE or _load_drive()).resolve_bulk(
        request, seed=seed, threads=threads, max_attacks=max_attacks, max_listed=max_listed, cancel=cancel,
        admit=admit)
    return result


def roll_initiative(request: Any, *, seed: Optional[int] = None) -> Result:
    """Initiative for a list of combatants by the request's ruleset; see `fracas.drive`."""
    result: Result = (_DRIVE or _load_drive()).roll_initiative(request, seed=seed)
    return result


def odds(request: Any, *, count: Optional[int] = None, remaining: Optional[dict[str, Any]] = None,
         at_least: Optional[list[Any]] = None) -> OddsResult:
    """Exact damage distributions of an attack request of any ruleset; see `fracas.drive.odds`."""
    from .drive.odds import odds as _odds

    return _odds(request, count=count, remaining=remaining, at_least=at_least)


def check_morale(request: Any, *, seed: Optional[int] = None) -> Result:
    """A morale check by the request's ruleset (old-school OS-4); see `fracas.drive.check_morale`."""
    result: Result = (_DRIVE or _load_drive()).check_morale(request, seed=seed)
    return result


def compete(request: Any, *, seed: Optional[int] = None) -> Result:
    """A competition (Enchanted Realms ER-19: grapple, escape, shove, trip); see `fracas.drive.compete`."""
    result: Result = (_DRIVE or _load_drive()).compete(request, seed=seed)
    return result


def impale(request: Any, *, seed: Optional[int] = None) -> Result:
    """An impalement before a charge (Enchanted Realms ER-23); see `fracas.drive.impale`."""
    result: Result = (_DRIVE or _load_drive()).impale(request, seed=seed)
    return result


def simulate(scenario: Any, *, runs: int, seed: Optional[int] = None, workers: int = 1,
             dask: Optional[str] = None, progress: Optional[Callable[[int], None]] = None,
             loop: str = "auto") -> dict[str, Any]:
    """Play `runs` fights of a scenario and report who wins how often; see `fracas.drive.simulate`
    (`loop`: "auto", the compiled fight loop where it covers the scenario, or "python")."""
    from .drive.simulate import simulate as _simulate

    return _simulate(scenario, runs=runs, seed=seed, workers=workers, dask=dask, progress=progress, loop=loop)


def __getattr__(name: str) -> Any:
    # `fracas.backend` follows the active kernels, also after `_kernels.use()`.
    if name == "backend":
        return _kernels.name()
    if name == "Encounter":  # loaded on first use: it brings the store (sqlite3)
        from .drive.encounter import Encounter

        return Encounter
    raise AttributeError(f"module 'fracas' has no attribute {name!r}")

