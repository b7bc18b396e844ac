"""A forecast: many fights of one scenario (and, if asked, a one-field sweep) from one request.

The request is what the bridge's ``fight.forecast`` takes, and ``fracas.forecast``::

    {"scenario": {...}, "runs": 1000, "seed": 7, "loop": "auto",
     "vary": {"path": "$.sides.goblins[0].count", "values": "4..20", "target": 0.5, "side": "party"}}

and its result is ``simulate``'s for the scenario, runs, seed and loop, without ``timing``
(the same fights: nothing here plays one), plus, with ``vary``, ``sweep``'s result for that
one field at the same runs and seed, without ``timing``, under ``"sweep"``. So the same
request and seed answer what ``fracas simulate --runs N --seed S --json`` and ``fracas sweep
--vary PATH=VALUES --runs N --seed S --target T --json`` write, minus their timing.

:func:`plan` checks a request and weighs it before any fight (every error names the
request's field: ``$.scenario.sides.party[0].hp``, ``$.vary.values``): the bridge refuses a
forecast past its work budget from the plan's ``work``, in ``simulate``'s units
(``fight_cost``: fights × combatants, a fight on the Python round loop counting
PYTHON_LOOP_COST times more).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Optional

from ..errors import Cancelled, LimitError, RequestError, SchemaError
from ..requests import check_seed, key_path, parse_json, shown, type_name
from ..rng import new_seed
from .simulate import MAX_RUNS, SimulationResult, check_loop, checked, fight_cost, simulate
from .sweep import MAX_POINTS, Vary, _locate, parse_path, parse_values, parse_vary, point_scenarios, sweep

#: A forecast request's fields, and its ``vary``'s.
FIELDS = ("scenario", "runs", "seed", "vary", "target", "side", "loop")
VARY_FIELDS = ("path", "values", "target", "side")
#: Fights when ``runs`` is not given.
DEFAULT_RUNS = 1000
#: The win rate whose crossing a sweep reports when ``target`` is not given (a fair fight).
DEFAULT_TARGET = 0.5


@dataclasses.dataclass(frozen=True)
class Plan:
    """A checked forecast request and what it will play, before any fight."""

    scenario: dict[str, Any]
    runs: int
    seed: Optional[int]
    loop: str
    #: The swept field and its values (None: no sweep), the target win rate and the side it follows.
    vary: Optional[Vary]
    target: float
    side: str
    #: The scenario's combatants, and a fight's work (``simulate.fight_cost``).
    combatants: int
    cost: int
    #: Each sweep point's combatants and a fight's work there.
    point_combatants: tuple[int, ...] = ()
    point_costs: tuple[int, ...] = ()

    @property
    def fights(self) -> int:
        """Fights in all: ``runs`` of the scenario, and ``runs`` at each sweep point."""
        return self.runs * (1 + len(self.point_costs))

    @property
    def unit(self) -> int:
        """The work of one run: a fight of the scenario and one at each sweep point."""
        return self.cost + sum(self.point_costs)

    @property
    def work(self) -> int:
        """The whole forecast's work, in ``simulate.fight_cost`` units."""
        return self.runs * self.unit

    @property
    def python_loop(self) -> bool:
        """Whether some fights play on the Python round loop (each costing more)."""
        return self.cost != self.combatants or self.point_costs != self.point_combatants


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _vary(vary: Any, scenario: dict[str, Any]) -> tuple[Vary, tuple[int, ...], list[Any]]:
    """The ``vary`` object checked: the field, and each point's combatants and compiled scenario."""
    if not isinstance(vary, dict):
        raise SchemaError("$.vary", f"expected an object {{\"path\": ..., \"values\": ...}}, got {type_name(vary)}")
    for name in vary:
        if name not in VARY_FIELDS:
            raise SchemaError(key_path("$.vary", name), f"unknown field (vary takes: {', '.join(VARY_FIELDS)})")
    for name in ("path", "values"):
        if name not in vary:
            raise SchemaError(f"$.vary.{name}", "missing")
    path, values = vary["path"], vary["values"]
    if not isinstance(path, str):
        raise SchemaError("$.vary.path", f"expected a path in the scenario like $.sides.goblins[0].count, got"
                                         f" {type_name(path)}")
    parse_path(path.strip(), "$.vary.path")
    if isinstance(values, str):
        listed: Any = list(parse_values(values.strip(), "$.vary.values"))
    elif isinstance(values, list):
        if len(values) > MAX_POINTS:
            raise LimitError("$.vary.values", f"{len(values):,} values; a sweep has at most {MAX_POINTS:,} points")
        listed = values
    else:
        raise SchemaError("$.vary.values", f"expected a range 'a..b' ('a..b:step'), a list 'a,b,c' or a JSON list,"
                                           f" got {type_name(values)}")
    try:
        field = parse_vary((path.strip(), listed))
    except RequestError as err:  # the path parsed above: what is left is about the values
        reason = err.reason.split(": ", 1)[1] if err.reason.startswith(path.strip() + ":") else err.reason
        raise type(err)("$.vary.values", reason) from None
    try:
        _locate(scenario, field)
    except RequestError as err:
        raise type(err)("$.vary.path", err.reason) from None
    members, compiled = [], []
    for i, value in enumerate(field.values):  # every point checked before any fight
        try:
            _, (point,) = point_scenarios(scenario, [field], [(value,)])
        except RequestError as err:
            raise type(err)(f"$.vary.values[{i}]", f"{err.path}: {err.reason}") from None
        members.append(len(point.member_ids))
        compiled.append(point)
    return field, tuple(members), compiled


def plan(request: Any) -> Plan:
    """Check a forecast request (a dict, or JSON text or bytes) and weigh it, playing nothing;
    a `RequestError` names the field (``$.scenario.sides.party[0].hp``, ``$.runs``, ``$.vary.values[3]``)."""
    request = parse_json(request)
    if not isinstance(request, dict):
        raise SchemaError("$", f"a forecast request is a JSON object, got {type_name(request)}")
    for name in request:
        if name not in FIELDS:
            raise SchemaError(key_path("$", name), f"unknown field (a forecast takes: {', '.join(FIELDS)})")
    if "scenario" not in request:
        raise SchemaError("$.scenario", "missing: the scenario to forecast, as `fracas simulate` reads it")
    scenario = request["scenario"]
    if not isinstance(scenario, dict):
        # A file path or @NAME would make the engine open a file the request names.
        raise SchemaError("$.scenario", f"a scenario is a JSON object, got {type_name(scenario)}")
    try:
        _, compiled = checked(scenario)  # compiled once: `simulate` plays it as checked here
    except RequestError as err:
        from ..rulesets.base import moved

        raise moved(err, "$", "$.scenario") from None
    runs = request.get("runs", DEFAULT_RUNS)
    if isinstance(runs, bool) or not isinstance(runs, int):
        raise SchemaError("$.runs", f"expected a whole number of fights, got {type_name(runs)}")
    if not 1 <= runs <= MAX_RUNS:
        raise (SchemaError if runs < 1 else LimitError)("$.runs", f"runs must be 1 to {MAX_RUNS:,}, got {runs:,}")
    seed = request.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise SchemaError("$.seed", f"expected an integer 0 to 2**64 - 1, got {type_name(seed)}")
    check_seed(seed, "$.seed")
    loop = request.get("loop", "auto")
    try:
        check_loop(loop)
    except SchemaError as err:
        raise SchemaError("$.loop", err.reason) from None
    vary = request.get("vary")
    inner: dict[str, Any] = vary if isinstance(vary, dict) else {}
    sides = list(scenario["sides"])
    where: dict[str, tuple[str, Any]] = {}
    for name in ("target", "side"):
        inside = name in inner
        if name in request and inside and request[name] != inner[name]:
            raise SchemaError(f"$.{name}", f"given twice, as {shown(request[name])} and as $.vary.{name}"
                                           f" {shown(inner[name])}: give it once")
        if (name in request or inside) and vary is None:
            raise SchemaError(f"$.{name}", "a sweep's target and side go with vary (the field a sweep varies)")
        where[name] = (f"$.vary.{name}", inner[name]) if inside else (f"$.{name}", request.get(name))
    path, target = where["target"]
    if target is None:
        target = DEFAULT_TARGET
    elif not _number(target) or not 0 <= target <= 1:
        raise SchemaError(path, f"a target win rate is 0 to 1, got {shown(target)}")
    path, side = where["side"]
    if side is None:
        side = sides[0]
    elif side not in sides:
        raise SchemaError(path, f"the scenario has no side {shown(side)} (its sides: {', '.join(sides)})")
    cost = fight_cost(compiled, loop)
    field: Optional[Vary] = None
    point_combatants: tuple[int, ...] = ()
    point_costs: tuple[int, ...] = ()
    if vary is not None:
        field, point_combatants, points = _vary(vary, scenario)
        point_costs = tuple(fight_cost(point, loop) for point in points)
    return Plan(scenario=scenario, runs=runs, seed=seed, loop=loop, vary=field, target=float(target), side=side,
                combatants=len(compiled.member_ids), cost=cost, point_combatants=point_combatants,
                point_costs=point_costs)


class ForecastResult(SimulationResult):
    """What `forecast` reports: `simulate`'s result for the scenario without `timing`, and,
    when the request varied a field, `sweep` (`sweep`'s result for it, without `timing`).

    The attributes are `SimulationResult`'s (`timing` aside) and `sweep` (None without
    `vary`); `to_dict()` gives the JSON the bridge's ``fight.forecast`` answers with."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<Forecast" + super().__repr__()[len("<SimulationResult"):]

    @property
    def sweep(self) -> Optional[dict[str, Any]]:
        return self._data.get("sweep")


def _untimed(result: Mapping[str, Any]) -> dict[str, Any]:
    """A result's data without its `timing` (the one field a run on another machine changes)."""
    data = result.to_dict() if hasattr(result, "to_dict") else dict(result)
    data.pop("timing", None)
    if data.get("interrupted"):
        # A signal reached the process playing it (the bridge's worker: the bridge is stopping):
        # a part of the fights is not the forecast asked for, and nothing of it is kept.
        raise Cancelled(f"the forecast was stopped by {data.get('stopped_by') or 'an interrupt'} before it finished")
    return data


def forecast(request: Any, *, seed: Optional[int] = None) -> ForecastResult:
    """Play the forecast `request` asks for (see the module; `fracas.forecast` documents it)
    in this process: `seed` wins over the request's own; with neither, one is drawn."""
    checked = plan(request)
    seed = check_seed(seed, "seed") if seed is not None else checked.seed
    if seed is None:
        seed = new_seed()
    out = _untimed(simulate(checked.scenario, runs=checked.runs, seed=seed, loop=checked.loop))
    if checked.vary is not None:
        out["sweep"] = _untimed(sweep(checked.scenario, [(checked.vary.path, list(checked.vary.values))],
                                      runs=checked.runs, seed=seed, target=checked.target, side=checked.side,
                                      loop=checked.loop))
    return ForecastResult(out)
