"""``fight.forecast``: "how deadly is this fight?", answered by playing it many times.

A forecast is ``fracas.forecast`` (fracas/drive/forecast.py): a scenario, a number of
fights and a seed in; ``fracas simulate``'s result (without timing) out, and with ``vary``
also ``fracas sweep``'s for one field. Here the bridge's part:

1. **Checked and weighed before any fight**, on the thread answering the message: the
   params (every error names its field, ``$.params.scenario.sides.party[0].hp``) and the
   work (``fracas.drive.forecast.plan``: fights × combatants, summed over the scenario and
   each sweep point, a fight on the Python round loop counting PYTHON_LOOP_COST times).
   Past ``max_forecast_runs``, ``max_forecast_points`` or ``max_forecast_work`` it is
   refused with -32003 naming the limit and the estimate, and how many fights would fit.
2. **Budgeted** like other work: its work is what it takes of the message's, connection's
   and bridge's attack budgets while it runs (so forecasts filling the bridge lock out
   only large work, not a GM's single attacks), and its reply is estimated, then settled.
3. **Played in a worker process** (``workers.OFFLOADED``): the fights never hold the GIL the
   bridge's other requests need; a closed connection or the end of the shutdown grace
   kills the worker and the request fails with -32010, nothing journaled.
4. **Journaled** under its id like every rolling method (``Methods.roll``), its params in
   :func:`encoding` (keys sorted, the scenario's sides in their order): a resend is
   answered from the journal, ``journal.get`` returns it, and ``journal.replay`` (and
   ``fracas journal replay``) plays it again from its seed (``ENGINE_CALLS``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
from fracas.drive.forecast import FIELDS, Plan, plan

from . import errors
from .rpc import Call, only

if TYPE_CHECKING:
    from .methods import Handler, Message, Methods

#: Reply bytes assumed before the work: a base, per combatant (its line in ``combatants``),
#: per histogram bin (rounds), and per sweep point and side. Settled to the real size after.
REPLY_BASE = 4096
REPLY_PER_COMBATANT = 256
REPLY_PER_ROUND = 24
REPLY_PER_POINT = 1024
REPLY_PER_POINT_SIDE = 256


def reply_estimate(checked: Plan) -> int:
    """The bytes a forecast's answer may take, from its plan."""
    rounds = checked.scenario.get("max_rounds")
    sides = len(checked.scenario["sides"])
    points = len(checked.point_costs)
    return (REPLY_BASE + REPLY_PER_COMBATANT * checked.combatants
            + REPLY_PER_ROUND * (rounds if isinstance(rounds, int) and rounds > 0 else 100)
            + points * (REPLY_PER_POINT + REPLY_PER_POINT_SIDE * sides))


def check_budget(checked: Plan, limits: Any) -> None:
    """Refuse (-32003) a forecast past the bridge's limits, naming the limit and the estimate."""
    if checked.runs > limits.max_forecast_runs:
        raise errors.LimitExceeded.at(
            "$.params.runs", f"{checked.runs:,} fights is more than the bridge's limit of"
                             f" {limits.max_forecast_runs:,} per forecast (max_forecast_runs; fracas serve --limit"
                             f" max_forecast_runs=N); ask for at most {limits.max_forecast_runs:,} fights",
            limit=limits.max_forecast_runs, limit_name="max_forecast_runs", estimate=checked.runs)
    points = len(checked.point_costs)
    if points > limits.max_forecast_points:
        raise errors.LimitExceeded.at(
            "$.params.vary.values", f"{points:,} values is more than the bridge's limit of"
                                    f" {limits.max_forecast_points:,} per sweep (max_forecast_points); sweep fewer"
                                    " values (a coarser step)",
            limit=limits.max_forecast_points, limit_name="max_forecast_points", estimate=points)
    budget = limits.max_forecast_work
    if checked.work <= budget:
        return
    most = budget // checked.unit
    python = " (fights on the Python round loop count 300 times)" if checked.python_loop else ""
    if points:
        combatants = checked.combatants + sum(checked.point_combatants)
        what = (f"{checked.runs:,} fights at each of {points + 1} scenarios (the scenario and its {points} sweep"
                f" points) × {combatants:,} combatants in all{python}")
        advice = f"ask for at most {most:,} fights" if most else "sweep fewer values"
    else:
        what = f"{checked.runs:,} fights × {checked.combatants:,} combatants{python}"
        advice = (f"ask for at most {most:,} fights" if most
                  else "not even one fight fits: forecast a scenario of fewer combatants")
    raise errors.LimitExceeded.at(
        "$.params.runs", f"{what} is {checked.work:,} units of work, over the bridge's forecast budget of"
                         f" {budget:,} (max_forecast_work; fracas serve --limit max_forecast_work=N); {advice}",
        limit=budget, limit_name="max_forecast_work", estimate=checked.work, most_runs=most)


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def encoding(params: dict[str, Any]) -> bytes:
    """A forecast's params as journaled and digested: JSON with sorted keys (equal requests,
    equal bytes), except the scenario's sides, which keep their order: the order of a
    scenario's sides is part of the fight (who is the first side, which side's members come
    first), so a replay from the journal must play them in the order the client sent."""
    out = _sorted(params)
    scenario = params.get("scenario")
    if isinstance(scenario, dict) and isinstance(scenario.get("sides"), dict):
        out["scenario"]["sides"] = {side: _sorted(groups) for side, groups in scenario["sides"].items()}
    return orjson.dumps(out)


def handler(methods: Methods) -> Handler:
    """The ``fight.forecast`` handler of ``methods`` (its engine, limits and journaling)."""

    def fight_forecast(call: Call, message: Message) -> Any:
        only(call.params, FIELDS, required={"scenario"})
        # Checked and weighed here, before anything is spent or played (the engine's errors
        # re-rooted under $.params); the worker checks the same request again before it plays.
        checked: Plan = methods.engine_call(lambda params: plan(params), call.params)
        check_budget(checked, methods.limits)
        return methods.roll(call, message, methods.engine.forecast, attacks=checked.work,
                            estimate=reply_estimate(checked), encode=encoding)

    fight_forecast.__name__ = "fight_forecast"
    return fight_forecast
