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
`fracas.rulesets()` lists the ones this install resolves. A request is a dict,
JSON text or bytes, or a typed request of its ruleset, from the ruleset's package
(`fracas.rulesets.er.AttackRequest`, `fracas.rulesets.ww.AttackRequest`, …);
`fracas.AttackRequest` and the other Enchanted Realms types at the top are
compatibility aliases of `fracas.rulesets.er`'s (the same classes). Every result
has `to_dict()`, the JSON the bridge answers with. Errors a caller
can cause are `fracas.RequestError` subclasses whose `path` names the field.

The requests, results and rules of each ruleset, and this API, are documented
at https://fracas-vtt.github.io/fracas/.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

from .errors import Cancelled, DiceError, FracasError, LimitError, RequestError, RulesError, SchemaError

# `import fracas` does no work a caller may not need (`fracas --help` and every script pay
# for it): the kernels (`fracas._kernels`, the compiled core), the registry
# (`fracas.rulesets`, which discovers the rulesets on its first use and imports each one's
# code on its first use) and the typed requests (Enchanted Realms' schema) are imported on
# first access, by `__getattr__` below.
if TYPE_CHECKING:
    from . import _kernels, rulesets
    from .rulesets.er.schema import (
        AttackGroup, AttackRequest, Attacker, BulkRequest, Combatant, InitiativeRequest, Profile,
        ProfileStrike, Strike, Target,
    )
    from .drive.encounter import Encounter
    from .drive.forecast import ForecastResult
    from .drive.odds import OddsResult
    from .drive.simulate import SimulationResult, WorkersFailed
    from .drive.sweep import SweepResult
    from .rulesets.base import AttackOutcome, BulkOutcome, Result

__version__ = "0.1.0"

__all__ = [
    "resolve", "resolve_bulk", "roll_initiative", "roll", "check_morale", "compete", "impale", "odds", "rulesets", "backend", "__version__",
    "FracasError", "RequestError", "SchemaError", "RulesError", "DiceError", "LimitError",
    "Cancelled", "AttackRequest", "Attacker", "Strike", "Target", "BulkRequest", "Profile", "ProfileStrike",
    "AttackGroup", "InitiativeRequest", "Combatant", "Encounter", "simulate", "SimulationResult", "WorkersFailed",
    "sweep", "SweepResult", "forecast", "ForecastResult",
]


#: The drivers, imported on the first call (keeps `import fracas` light for the CLI),
#: then kept: a single attack is a hot path.
_DRIVE: Any = None
#: The pure-Python fallback was reported (once per process, `_warn_if_slow`).
_WARNED = False


def _warn_if_slow() -> None:
    """Warn once, as the CLI does, when the compiled core is missing: the pure-Python
    kernels are a few hundred times slower, and a silent slowdown is a bug report.
    Not when FRACAS_PUREPYTHON=1 asked for them (that is a choice, not a fallback), even
    where the core is missing."""
    global _WARNED
    if _WARNED:
        return
    _WARNED = True
    from . import _kernels

    if _kernels.missing_compiled() and not _kernels._FORCE_PURE:
        import warnings

        warnings.warn(f"fracas: {_kernels.why()}. Install a C compiler and reinstall, or install a wheel;"
                      " `fracas doctor` says more.", RuntimeWarning, stacklevel=3)


def _load_drive() -> Any:
    global _DRIVE
    from . import drive

    _warn_if_slow()
    _DRIVE = drive
    return drive


def resolve(request: Any, *, seed: Optional[int] = None) -> AttackOutcome:
    """Resolve one attack: every die, hit, crit chain and damage per target.

    Args:
        request: An attack request of any ruleset: a dict, JSON text or bytes, or a typed
            request such as `fracas.rulesets.er.AttackRequest`. `"ruleset"` names the ruleset
            (Enchanted Realms when absent); `"rolls"` injects the table's own dice in draw
            order instead of the generator.
        seed: The seed to roll from; it wins over the request's own `"seed"`. With neither,
            one is drawn from the operating system and reported in the result, so any roll
            can be replayed.

    Returns:
        The ruleset's attack result: its attributes are the result's fields and
        `to_dict()` gives the JSON shape (`seed`, `strikes` with every die, `targets`,
        `total_damage`, ...).

    Raises:
        SchemaError: The request is malformed; `error.path` names the field
            (`$.strikes[0].dice`). A bulk request (with `attacks`) is refused at
            `$.attacks`: it goes to `resolve_bulk`.
        RulesError: The rules forbid the attack (the rule ID is in the message).
        DiceError: Injected `rolls` run out, are left over, or do not fit their die.
        LimitError: More than the engine resolves in one call.

    Example:
        >>> import fracas
        >>> result = fracas.resolve({"attacker": {"strength": 4}, "strikes": [{"target": "goblin",
        ...     "method": "melee", "style": "slashing", "dice": 2, "weight": 1, "damage_type": "edged"}],
        ...     "targets": {"goblin": {"ac": 14}}}, seed=42)
        >>> result.to_dict()["total_damage"], result.to_dict()["seed"]
        (3, 42)
    """
    result: AttackOutcome = (_DRIVE or _load_drive()).resolve(request, seed=seed)
    return result


def resolve_bulk(request: Any, *, seed: Optional[int] = None, threads: Optional[int] = None,
                 max_attacks: Optional[int] = None, max_listed: Optional[int] = None, cancel: Any = None,
                 admit: Optional[Callable[[int, int, str], None]] = None) -> BulkOutcome:
    """Resolve many attacks in one call: profiles x targets x counts (a mob's charge).

    Args:
        request: A bulk request: `profiles` (attacker and strikes by name), `targets`, and
            `attacks` ([{"profile", "target", "count"}]); optional `detail` ("summary",
            "attacks": each attack listed, or "dice": each attack with its dice) and
            `ruleset`. A dict, JSON text or bytes, or a typed bulk request
            (`fracas.rulesets.er.BulkRequest`, …).
        seed: The seed (wins over the request's); drawn from the OS when neither gives one.
        threads: Threads to roll on [default: the CPUs this process may use]. The result is
            the same for any count.
        max_attacks: The caller's limit on attacks, checked before a die is rolled.
        max_listed: The caller's limit on attacks listed one by one (any detail but
            "summary"), checked before a die is rolled.
        cancel: Anything with `is_set()` (a `threading.Event`): once set, rolling stops at
            the next chunk and `Cancelled` is raised.
        admit: Called as `admit(attacks, rows, detail)` once the request is compiled and
            before rolling; it may raise `LimitError` to refuse the work.

    Returns:
        The bulk result: totals per target and per group (`to_dict()`: `attacks_total`,
        `targets`, `groups`, `total_damage`, ...).

    Raises:
        RequestError: A `SchemaError`, `RulesError` or `LimitError` naming the field path.
        Cancelled: `cancel` was set while rolling (nothing is returned).

    Example:
        >>> import fracas
        >>> result = fracas.resolve_bulk({"profiles": {"skeleton": {"attacker": {"strength": 4},
        ...     "strikes": [{"method": "melee", "style": "slashing", "dice": 2, "weight": 1,
        ...                  "damage_type": "edged"}]}},
        ...     "targets": {"ogre": {"ac": 14}},
        ...     "attacks": [{"profile": "skeleton", "target": "ogre", "count": 100}]}, seed=1)
        >>> result.to_dict()["targets"]["ogre"]["attacks"]
        100
    """
    result: BulkOutcome = (_DRIVE or _load_drive()).resolve_bulk(
        request, seed=seed, threads=threads, max_attacks=max_attacks, max_listed=max_listed, cancel=cancel,
        admit=admit)
    return result


def roll_initiative(request: Any, *, seed: Optional[int] = None) -> Result:
    """Roll initiative by the request's ruleset: combatants (ER-18, WW-1) or sides (CT-1, OS-1).

    Args:
        request: An initiative request: `combatants` ([{"id", "agility"}] for Enchanted
            Realms, [{"id", "dex_mod"}] for Worldwalker), or `sides` for old-school, or
            `round` and `ambush` for Cartyrion; with its `ruleset`. A dict, JSON text or
            bytes, or a typed initiative request (`fracas.rulesets.er.InitiativeRequest`, …).
        seed: The seed (wins over the request's); drawn from the OS when neither gives one.

    Returns:
        The ruleset's initiative result; `to_dict()["order"]` is the acting order with
        each roll, modifier and tie-break.

    Raises:
        RequestError: A `SchemaError`, `RulesError` or `DiceError` naming the field path.

    Example:
        >>> import fracas
        >>> result = fracas.roll_initiative({"combatants": [{"id": "rogue", "agility": 6},
        ...                                                 {"id": "ogre", "agility": 2}]}, seed=1)
        >>> [c["id"] for c in result.to_dict()["order"]]
        ['rogue', 'ogre']
    """
    result: Result = (_DRIVE or _load_drive()).roll_initiative(request, seed=seed)
    return result


def roll(kind: str, request: Any, *, seed: Optional[int] = None) -> Result:
    """Roll a request of any kind a ruleset declares: the kinds every ruleset may have
    ("attack", "initiative") and those that are one ruleset's own, such as Enchanted
    Realms' "compete" (ER-19) and "impale" (ER-23) or old-school's "morale" (OS-4);
    `fracas.rulesets.kinds()` lists them. `check_morale`, `compete` and `impale` are this
    call under their old names.

    Args:
        kind: The kind's name (`Kind.name`).
        request: Its request: a dict, JSON text or bytes, or a typed request.
        seed: The seed (wins over the request's); drawn from the OS when neither gives one.

    Returns:
        The ruleset's result for that kind; `to_dict()` is its JSON.

    Raises:
        RequestError: A `SchemaError`, `RulesError` (a ruleset without that kind, at
            `$.ruleset`) or `DiceError` naming the field path.

    Example:
        >>> import fracas
        >>> fracas.roll("morale", {"ruleset": "old-school", "morale": 7}, seed=1).to_dict()["breaks"]
        False
    """
    result: Result = (_DRIVE or _load_drive()).roll(kind, request, seed=seed)
    return result


def odds(request: Any, *, count: Optional[int] = None, remaining: Optional[dict[str, Any]] = None,
         at_least: Optional[list[Any]] = None, max_mob_cost: Optional[float] = None) -> OddsResult:
    """The exact damage distribution of an attack, per target: no dice are rolled.

    Args:
        request: An attack request of any ruleset, as `resolve` takes it (without `seed`
            and `rolls`); it may carry `count`, `remaining` and `at_least` itself.
        count: The distribution of the total of this many identical attacks (a mob),
            1 to 10,000 while its work stays within `max_mob_cost`; a larger mob is
            estimated with `simulate` instead.
        remaining: {target id: Body/Stamina/hit points left}: adds the chance it drops.
        at_least: Damage figures N: adds P(damage >= N) for each.
        max_mob_cost: The most work a mob's exact sum may take (`fracas.drive.odds.mob_cost`
            units, summed over the targets; default `MAX_MOB_COST`, about half a second of
            CPython): a larger mob is refused before any work, naming the largest count that
            fits. Raise it on a fast machine, or lower it to keep answers quick.

    Returns:
        The odds: `distribution(target)` gives [(damage, exact Fraction)], `to_dict()`
        the mean, spread, P(hit), P(crit) and the distribution as floats and exact
        fractions.

    Raises:
        RequestError: The request is invalid (`SchemaError`, `RulesError`), or the
            enumeration would be too large (`LimitError` at `$.count`).

    Example:
        >>> import fracas
        >>> result = fracas.odds({"attacker": {"strength": 4}, "strikes": [{"target": "goblin",
        ...     "method": "melee", "style": "slashing", "dice": 2, "weight": 1, "damage_type": "edged"}],
        ...     "targets": {"goblin": {"ac": 14}}})
        >>> round(result.to_dict()["targets"]["goblin"]["mean"], 3)
        2.808
    """
    from .drive.odds import odds as _odds

    _warn_if_slow()
    return _odds(request, count=count, remaining=remaining, at_least=at_least, max_mob_cost=max_mob_cost)


def check_morale(request: Any, *, seed: Optional[int] = None) -> Result:
    """A morale check by the request's ruleset (old-school OS-4: 2d6 above Morale breaks).

    Args:
        request: A morale request: {"ruleset": "old-school", "morale": 2..12, "modifier"?,
            "successes"?}; a dict or JSON text or bytes.
        seed: The seed (wins over the request's); drawn from the OS when neither gives one.

    Returns:
        The morale result; `to_dict()` has `dice`, `total`, `breaks` and
        `fights_to_death`.

    Raises:
        RequestError: A `SchemaError`, `RulesError` (a ruleset without morale) or
            `DiceError` naming the field path.

    Example:
        >>> import fracas
        >>> result = fracas.check_morale({"ruleset": "old-school", "morale": 7}, seed=1)
        >>> result.to_dict()["total"], result.to_dict()["breaks"]
        (5, False)
    """
    result: Result = (_DRIVE or _load_drive()).roll("morale", request, seed=seed)
    return result


def compete(request: Any, *, seed: Optional[int] = None) -> Result:
    """A competition (Enchanted Realms ER-19): a grapple, an escape, a shove or a trip.

    Args:
        request: A competition request: `contest` ("plain", "grapple", "escape", "shove"
            or "trip"), `challenger` and `defender` ({"id", "attribute", "strength" or
            "agility", "size"?, ...}), `slick`?; a dict or JSON text or bytes.
        seed: The seed (wins over the request's); drawn from the OS when neither gives one.

    Returns:
        The competition result; `to_dict()` has each side's modifiers and exact
        `win_chance`, the `rounds` rolled (ties are rolled again), `winner` and `outcome`.

    Raises:
        RequestError: A `SchemaError`, `RulesError` or `DiceError` naming the field path.

    Example:
        >>> import fracas
        >>> result = fracas.compete({"contest": "grapple",
        ...     "challenger": {"id": "ogre", "strength": 6, "size": "large"},
        ...     "defender": {"id": "aria", "agility": 5, "attribute": "agility"}}, seed=1)
        >>> result.to_dict()["winner"]
        'ogre'
    """
    result: Result = (_DRIVE or _load_drive()).roll("compete", request, seed=seed)
    return result


def impale(request: Any, *, seed: Optional[int] = None) -> Result:
    """An impalement before a charge (Enchanted Realms ER-23), and the charge if it is not void.

    Args:
        request: An impalement request: `pikeman` ({"strength"}), `charger` (a target with
            `id`, `ac`, `body` and `closed`: the feet it closed, 25 or more), `weapon`
            ({"forte"?, "weight"?, "bonus"?}) and optionally `charge` (the charger's attack
            request); a dict or JSON text or bytes.
        seed: The seed (wins over the request's); drawn from the OS when neither gives one.

    Returns:
        The impalement result; `to_dict()` has the `dice`, the `impalement`, whether the
        `charge_void` and the `charge` resolved otherwise.

    Raises:
        RequestError: A `SchemaError`, `RulesError` or `DiceError` naming the field path.

    Example:
        >>> import fracas
        >>> result = fracas.impale({"pikeman": {"strength": 4}, "weapon": {"weight": 1},
        ...     "charger": {"id": "ogre", "ac": 12, "body": 8, "closed": 30}}, seed=1)
        >>> sorted(result.to_dict())[:3]
        ['charge', 'charge_void', 'charger']
    """
    result: Result = (_DRIVE or _load_drive()).roll("impale", request, seed=seed)
    return result


def simulate(scenario: Any, *, runs: int, seed: Optional[int] = None, workers: int = 1,
             dask: Optional[str] = None, progress: Optional[Callable[[int], None]] = None,
             loop: str = "auto") -> SimulationResult:
    """Play `runs` whole fights of a scenario and report who wins how often.

    Fight i plays from the seed stream (seed, i), so the result is the same for any
    `workers` or Dask cluster; only `timing` differs.

    Worker processes (`workers` > 1, and Dask's) start with the **spawn** method, which
    imports the main script again in each worker: a script must call `simulate` under
    `if __name__ == "__main__":`. Without the guard the workers exit and `WorkersFailed`
    says so in one line.

    SIGINT (Ctrl-C, a notebook's interrupt, `kill -INT`) or SIGTERM while it runs stops
    the workers (none is left behind) and returns the fights finished so far:
    `interrupted` is True and `stopped_by` names the signal. A program that must end on
    SIGTERM checks `stopped_by` and exits (the CLI exits 130 or 143).

    Args:
        scenario: A scenario (sides of combatants, see the documentation's Encounters
            page): a dict, JSON text or bytes, a file path (str or `pathlib.Path`), or
            `"@NAME"` for an example that ships with fracas (`"@er-skeleton-horde"`,
            `"@ct-hill-giant"`, `"@ww-duel"`, `"@os-goblin-ambush"`).
        runs: Fights to play, 1 to 10,000,000.
        seed: The seed; drawn from the OS when None (the result reports it).
        workers: Processes on this machine (1: in this process); with `dask="local"`,
            the LocalCluster's workers.
        dask: A dask.distributed scheduler address (`"tcp://host:8786"`) or `"local"`
            (needs the dask extra: `pip install 'fracas[dask]'`).
        progress: Called with the number of fights of each batch as it finishes.
        loop: "auto" (the default) plays each fight on the fight loop where it covers
            the scenario (compiled; with the pure-Python kernels, the same procedure files
            run as Python) and on the Python round loop otherwise (`fight_loop` in the
            result counts each and says why); "python" plays every fight on the Python
            round loop. All give the same fights for the same seed.

    Returns:
        A `SimulationResult`: `sides` (wins, win rate and its 95 % interval, survivors),
        `draws`, `rounds` (mean, median, histogram), `combatants` (damage dealt and
        taken, survival), `completed`, `interrupted`, `stopped_by` and `timing`;
        `to_dict()` is the JSON that `fracas simulate --json` writes. It is also a
        read-only mapping of those fields (`result["sides"]`), as the dict returned
        before 0.1.0's typed result.

    Raises:
        SchemaError: The scenario is invalid, unreadable or not JSON (the path names the
            field: `$.sides.knight[0].attacks[0].method`), or `workers` is out of range.
        LimitError: `runs` is out of range.
        WorkersFailed: The worker processes died (a script without the `__main__` guard,
            or a worker killed).
        MissingExtra: `dask` without dask.distributed installed, or a scheduler that
            cannot be reached.

    Example:
        >>> import fracas
        >>> result = fracas.simulate("@er-skeleton-horde", runs=50, seed=1)
        >>> result.completed, result.interrupted, sorted(result.sides)
        (50, False, ['party', 'skeletons'])
    """
    from .drive.simulate import simulate as _simulate

    _warn_if_slow()
    return _simulate(scenario, runs=runs, seed=seed, workers=workers, dask=dask, progress=progress,
                     loop=loop)


def sweep(scenario: Any, vary: Sequence[Any], *, runs: int, seed: Optional[int] = None, workers: int = 1,
          dask: Optional[str] = None, target: Optional[float] = None, side: Optional[str] = None,
          progress: Optional[Callable[[int], None]] = None, loop: str = "auto") -> SweepResult:
    """Vary one or two fields of a scenario and play `runs` fights at every point.

    A balance sweep: "how many skeletons make this fight hard but fair?". Each point is
    the scenario with the fields set to one combination of their values (the first
    field varies fastest); every point's scenario is checked before any fight starts.
    Point p plays from the seed stream (seed, p), fight i of it from (that, i), so the
    table is the same for any `workers` or Dask cluster; only `timing` differs.

    Worker processes start with the spawn method, as `simulate`'s: call `sweep` under
    `if __name__ == "__main__":` with `workers` > 1 or Dask. SIGINT or SIGTERM while it
    runs stops the workers and returns the points finished (`interrupted`, `stopped_by`).

    Args:
        scenario: A scenario, as `simulate` takes it (a dict, JSON text or bytes, a file
            path, or `"@NAME"` for an example that ships with fracas).
        vary: One or two fields: each the text `"PATH=VALUES"`, where PATH is the field's
            path in the scenario's JSON-path style (`$.sides.skeletons[0].count`,
            `$.sides['the party'][1].target.ac`) and VALUES a range `a..b` (step 1, or
            `a..b:step`) or a comma list (`14,16,18`, `nearest,weakest`); or a pair
            (PATH, list of values).
        runs: Fights per point, 1 to 10,000,000.
        seed: The seed; drawn from the OS when None (the result reports it).
        workers: Processes on this machine (1: in this process); with `dask="local"`,
            the LocalCluster's workers.
        dask: A dask.distributed scheduler address or `"local"` (needs the dask extra).
        target: A win rate (0 to 1): the result reports where the side's win rate
            crosses it along the first field (for each value of the second), by linear
            interpolation between the two points around the crossing.
        side: The side `target` follows (default: the scenario's first side).
        progress: Called with the number of fights of each batch as it finishes.
        loop: "auto" plays each point on the fight loop where it covers the point's
            scenario (compiled, or run as Python with the pure-Python kernels), "python" on
            the Python round loop (the same fights).

    Returns:
        A `SweepResult`: `points` (per point: the values, each side's wins, win rate
        and 95 % Wilson interval and mean survivors, draws, rounds, and `fight_loop`:
        how many fights each round loop played and why any played on the Python
        loop, as `simulate` reports it), `target` (the
        crossings, empty when the rate never crosses), `completed_points`,
        `interrupted`, `stopped_by` and `timing`; `to_dict()` is the JSON that
        `fracas sweep --json` writes.

    Raises:
        SchemaError: The scenario is invalid; a path does not exist in it (the error's
            path is the varied field's, e.g. `$.sides.skeleton[0].count`); a value is
            not a range or list; or a point's scenario is refused (the error's path is
            the point, `$.sides.skeletons[0].count=0`, and its reason names the scenario
            field and what is wrong).
        LimitError: `runs` is out of range, or there are more than 10,000 points.
        WorkersFailed: The worker processes died.
        MissingExtra: `dask` without dask.distributed installed.

    Example:
        >>> import fracas
        >>> result = fracas.sweep("@er-skeleton-horde", ["$.sides.skeletons[0].count=5..9:2"],
        ...                       runs=40, seed=1, target=0.5)
        >>> [p["values"]["$.sides.skeletons[0].count"] for p in result.points]
        [5, 7, 9]
        >>> len(result.target["rows"][0]["crossings"])
        1
    """
    from .drive.sweep import sweep as _sweep

    _warn_if_slow()
    return _sweep(scenario, vary, runs=runs, seed=seed, workers=workers, dask=dask, target=target, side=side,
                  progress=progress, loop=loop)


def forecast(request: Any, *, seed: Optional[int] = None) -> ForecastResult:
    """Forecast a fight: many fights of a scenario, and optionally a one-field sweep, from one request.

    What the bridge's `fight.forecast` answers ("how deadly is this fight?"), in this
    process: `simulate`'s result for the scenario, runs, seed and loop without `timing`,
    and with `vary` also `sweep`'s for that one field (same runs and seed) under
    `"sweep"`. The same request and seed give the numbers `fracas simulate --runs N
    --seed S --json` (and `fracas sweep --vary PATH=VALUES --target T --json`) write.
    Everything is checked before any fight starts.

    Args:
        request: A dict (or JSON text or bytes): `scenario` (required, a scenario object
            as `simulate` reads it), `runs` (fights, default 1000), `seed`, `loop`
            ("auto" or "python"), and `vary` (optional): `{"path":
            "$.sides.goblins[0].count", "values": "4..20"}` (values a range `a..b`,
            `a..b:step`, a list `a,b,c` or a JSON list), with `target` (the win rate
            whose crossing is reported, default 0.5) and `side` (the side it follows,
            default the first), in `vary` or beside it.
        seed: The seed; it wins over the request's own. With neither, one is drawn from
            the OS and reported in the result, so a forecast can be replayed.

    Returns:
        A `ForecastResult`: `sides` (wins, win rate and its 95 % interval, survivors),
        `draws`, `rounds` (mean, median, histogram), `combatants` (per member:
        `down_rate`, `fled_rate`, `survived_rate`, `taken_mean`, `dealt_mean`),
        `fight_loop`, and `sweep` (None without `vary`); `to_dict()` is the JSON the
        bridge answers with.

    Raises:
        SchemaError: The request is malformed; the path names the field
            (`$.scenario.sides.party[0].hp`, `$.vary.values[2]`).
        LimitError: `runs` past 10,000,000, or more than 10,000 sweep points.
        Cancelled: A signal stopped the fights before they finished.

    Example:
        >>> import fracas
        >>> fighter = {"name": "Fighter", "hp": 24, "attacker": {"strength": 4, "agility": 2},
        ...            "target": {"ac": 15}, "attacks": [{"method": "melee", "style": "slashing",
        ...            "dice": 3, "weight": 1, "damage_type": "edged"}]}
        >>> goblin = {"name": "goblin", "count": 4, "hp": 6, "attacker": {"strength": 2, "agility": 3},
        ...           "target": {"ac": 12}, "attacks": [{"method": "melee", "style": "piercing",
        ...           "dice": 2, "damage_type": "piercing"}]}
        >>> scenario = {"sides": {"party": [fighter], "goblins": [goblin]}}
        >>> result = fracas.forecast({"scenario": scenario, "runs": 1000, "seed": 7,
        ...                           "vary": {"path": "$.sides.goblins[0].count", "values": "2..8:2"}})
        >>> result.sides["party"]["win_rate"], result.combatants["Fighter"]["taken_mean"]
        (0.995, 14.289)
        >>> result.sweep["target"]["rows"][0]["crossings"]
        [{'at': 5.0614, 'between': [4, 6]}]
    """
    from .drive.forecast import forecast as _forecast

    _warn_if_slow()
    return _forecast(request, seed=seed)


#: Compatibility aliases (issue 45 item 5): `fracas.AttackRequest` and the others are Enchanted
#: Realms' typed requests, whose home is `fracas.rulesets.er` (as each ruleset's are in its
#: package); kept here, the same classes, because published code builds requests with them.
#: Read from Enchanted Realms' schema module on first access (not the whole ruleset).
_TYPED = frozenset({"AttackGroup", "AttackRequest", "Attacker", "BulkRequest", "Combatant", "InitiativeRequest",
                    "Profile", "ProfileStrike", "Strike", "Target"})


def __getattr__(name: str) -> Any:
    if name in ("rulesets", "_kernels"):  # submodules imported on first access (see the imports above)
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    if name in _TYPED:
        from .rulesets.er import schema

        return getattr(schema, name)
    # `fracas.backend` follows the active kernels, also after `_kernels.use()`.
    if name == "backend":
        from . import _kernels

        return _kernels.name()
    if name == "Encounter":  # loaded on first use: it brings the store (sqlite3)
        from .drive.encounter import Encounter

        return Encounter
    if name in ("SimulationResult", "WorkersFailed"):  # loaded on first use, with the simulations
        from .drive import simulate as _simulations

        return getattr(_simulations, name)
    if name == "SweepResult":
        from .drive.sweep import SweepResult

        return SweepResult
    if name == "ForecastResult":
        from .drive.forecast import ForecastResult

        return ForecastResult
    import importlib.util

    # No kind's function: a private name (`hasattr(fracas, "__wrapped__")`) or a submodule not
    # imported yet (`from . import drive` asks first): neither loads the rulesets.
    try:
        submodule = "." not in name and importlib.util.find_spec(f"{__name__}.{name}") is not None
    except (ImportError, ValueError):
        submodule = False
    if name.startswith("_") or submodule:
        raise AttributeError(f"module 'fracas' has no attribute {name!r}")
    from . import rulesets

    for kind in rulesets.kinds().values():  # a ruleset's own kind: its `fracas` function
        if kind.call == name and not kind.bulk:
            def call(request: Any, *, seed: Optional[int] = None, _kind: str = kind.name) -> Result:
                return roll(_kind, request, seed=seed)

            call.__name__ = call.__qualname__ = name
            call.__doc__ = f"`fracas.roll({kind.name!r}, request, seed=seed)`: {kind.what} (a ruleset's own kind)."
            return call
    raise AttributeError(f"module 'fracas' has no attribute {name!r}")

