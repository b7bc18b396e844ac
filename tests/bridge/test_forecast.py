"""fight.forecast (issue 43 item 1): a scenario's fights played by the bridge, within a work
budget checked before any fight, in a worker process, journaled and replayable; the same
request and seed answer what `fracas simulate --json` (and `fracas sweep --json`) write,
minus timing, byte for byte."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

import fracas
from fracas.bridge.dispatcher import Dispatcher, Session
from fracas.bridge.journal import Journal, id_key
from fracas.bridge.limits import Limits
from fracas.drive.simulate import PYTHON_LOOP_COST

from .helpers import ATTACK, REPO, TOKEN, check_response, client, request, run, serving, start_server
from .test_responsiveness import answered_in_order

EXAMPLES = sorted((REPO / "examples" / "scenarios").glob("*.json"))
#: Fights per CLI comparison: small (the pure-Python kernels play ~300 fights a second).
RUNS = 100 if fracas.backend == "compiled" else 40
#: What a fight weighs per combatant: 1 on the compiled fight loop, PYTHON_LOOP_COST on the
#: Python round loop (every fight, when the compiled core is not in use).
COST = 1 if fracas.backend == "compiled" else PYTHON_LOOP_COST


def scenario(name: str = "os-goblin-ambush") -> dict:
    return json.loads((REPO / "examples" / "scenarios" / f"{name}.json").read_text())


def result_bytes(reply: bytes, request_id: int) -> bytes:
    """The result's bytes exactly as the bridge sent them (a successful reply)."""
    head = b'{"jsonrpc":"2.0","id":%d,"result":' % request_id
    assert reply.startswith(head) and reply.endswith(b"}"), reply[:200]
    return reply[len(head):-1]


def cli_json(*args: str) -> dict:
    done = subprocess.run([sys.executable, "-m", "fracas", *args, "--json", "-"], capture_output=True,
                          text=True, cwd=str(REPO), timeout=600)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    del out["timing"]
    return out


class Recording:
    """fracas, with the forecasts it is asked to play counted (to show a refusal played none)."""

    def __init__(self) -> None:
        self.forecasts = 0

    def __getattr__(self, name):
        return getattr(fracas, name)

    def forecast(self, request, **options):
        self.forecasts += 1
        return fracas.forecast(request, **options)


@pytest.fixture
def recording():
    return Recording()


@pytest.fixture
def raw(recording):
    """Send a message as an authenticated session of a bridge on `recording`; the reply's bytes."""
    journal = Journal(":memory:")
    dispatcher = Dispatcher(token=TOKEN, journal=journal, engine=recording,
                            limits=Limits(max_forecast_work=1_000_000))
    session = Session(peer="test")
    dispatcher.handle(session, orjson.dumps(request(0, "auth", {"token": TOKEN})).decode())

    def send(message) -> bytes:
        reply = dispatcher.handle(session, orjson.dumps(message).decode())
        assert reply.close is None
        check_response(orjson.loads(reply.data))
        return reply.data

    yield send
    journal.close()


def forecast(raw, request_id, params):
    return orjson.loads(raw(request(request_id, "fight.forecast", params)))


# ── the same numbers as the command line ─────────────────────────────────────


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_a_forecast_is_fracas_simulate_byte_for_byte_on_every_shipped_example(raw, path):
    params = {"scenario": json.loads(path.read_text()), "runs": RUNS, "seed": 4243}
    got = result_bytes(raw(request(1, "fight.forecast", params)), 1)
    expected = cli_json("simulate", str(path), "--runs", str(RUNS), "--seed", "4243")
    assert got == orjson.dumps(expected)
    result = orjson.loads(got)
    # Who is likely to fall: every member's chance of being down or fled, and its damage taken.
    for member in result["combatants"].values():
        assert 0 <= member["down_rate"] + member["fled_rate"] <= 1 and member["taken_mean"] >= 0


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_a_forecast_with_vary_carries_fracas_sweep_byte_for_byte(raw, path):
    source = json.loads(path.read_text())
    side, groups = next(iter(source["sides"].items()))
    field = f"$.sides.{side}[0].hp"
    hp = groups[0]["hp"]
    values = f"{max(1, hp - 4)}..{hp + 4}:4"
    params = {"scenario": source, "runs": RUNS // 2, "seed": 99,
              "vary": {"path": field, "values": values, "target": 0.5}}
    result = orjson.loads(result_bytes(raw(request(1, "fight.forecast", params)), 1))
    sweep = cli_json("sweep", str(path), "--vary", f"{field}={values}", "--runs", str(RUNS // 2), "--seed", "99",
                     "--target", "0.5")
    assert orjson.dumps(result["sweep"]) == orjson.dumps(sweep)
    simulated = cli_json("simulate", str(path), "--runs", str(RUNS // 2), "--seed", "99")
    assert orjson.dumps({k: v for k, v in result.items() if k != "sweep"}) == orjson.dumps(simulated)
    assert sweep["target"]["side"] == side  # the first side is followed unless `side` says another


def test_vary_values_as_a_json_list_and_target_and_side_beside_vary(raw):
    source = scenario("er-skeleton-horde")
    base = {"scenario": source, "runs": 60, "seed": 5}
    ranged = forecast(raw, 1, {**base, "vary": {"path": "$.sides.skeletons[0].count", "values": "3..7:2",
                                                "side": "skeletons", "target": 0.25}})
    listed = forecast(raw, 2, {**base, "vary": {"path": "$.sides.skeletons[0].count", "values": [3, 5, 7]},
                               "side": "skeletons", "target": 0.25})
    assert ranged["result"] == listed["result"]
    sweep = ranged["result"]["sweep"]
    assert [p["values"]["$.sides.skeletons[0].count"] for p in sweep["points"]] == [3, 5, 7]
    assert sweep["target"]["side"] == "skeletons" and sweep["target"]["win_rate"] == 0.25


def test_the_bridge_draws_a_seed_when_none_is_given_and_the_result_carries_it(raw):
    drawn = forecast(raw, 1, {"scenario": scenario("ww-duel"), "runs": 30})["result"]
    again = fracas.forecast({"scenario": scenario("ww-duel"), "runs": 30}, seed=drawn["seed"]).to_dict()
    assert drawn == again


# ── refused before any fight ─────────────────────────────────────────────────


def test_an_oversize_forecast_is_refused_before_any_fight_naming_the_limit_and_the_estimate(raw, recording):
    source = scenario()  # 18 combatants
    reply = forecast(raw, "big", {"scenario": source, "runs": 100_000, "seed": 1})
    error = reply["error"]
    assert error["code"] == -32003
    assert error["data"]["path"] == "$.params.runs"
    assert error["data"]["limit_name"] == "max_forecast_work" and error["data"]["limit"] == 1_000_000
    most = 1_000_000 // (18 * COST)
    assert error["data"]["estimate"] == 100_000 * 18 * COST and error["data"]["most_runs"] == most
    assert "100,000 fights × 18 combatants" in error["message"]
    assert f"is {100_000 * 18 * COST:,} units of work" in error["message"]
    assert f"ask for at most {most:,} fights" in error["message"]
    assert recording.forecasts == 0
    # Nothing was journaled: the id is free.
    assert orjson.loads(raw(request(2, "journal.get", {"id": "big"})))["error"]["code"] == -32006
    # What it says fits, fits (and plays).
    assert forecast(raw, "big", {"scenario": source, "runs": most, "seed": 1})["result"]["completed"] == most


def test_a_sweep_counts_in_the_budget_and_the_python_loop_costs_more(raw, recording):
    source = scenario()
    vary = {"path": "$.sides.goblins[0].count", "values": "5..15:5"}  # 13, 18 and 23 combatants
    error = forecast(raw, 1, {"scenario": source, "runs": 50_000, "vary": vary})["error"]
    assert error["data"]["estimate"] == 50_000 * (18 + 13 + 18 + 23) * COST
    assert "each of 4 scenarios" in error["message"] and "72 combatants in all" in error["message"]
    error = forecast(raw, 2, {"scenario": source, "runs": 1000, "loop": "python"})["error"]
    assert error["data"]["estimate"] == 1000 * 18 * 300 and "Python round loop" in error["message"]
    error = forecast(raw, 3, {"scenario": source, "runs": 200_000})["error"]
    assert error["data"]["limit_name"] == "max_forecast_runs" and error["data"]["estimate"] == 200_000
    error = forecast(raw, 4, {"scenario": source, "vary": {"path": vary["path"], "values": "1..100"}})["error"]
    assert error["data"]["limit_name"] == "max_forecast_points" and error["data"]["path"] == "$.params.vary.values"
    assert recording.forecasts == 0


def _broken(change):
    source = scenario()
    change(source)
    return source


@pytest.mark.parametrize(("params", "path"), [
    ({}, "$.params.scenario"),
    ({"scenario": "@os-goblin-ambush"}, "$.params.scenario"),
    ({"scenario": _broken(lambda s: s["sides"]["party"][0].update(hp="lots"))}, "$.params.scenario.sides.party[0].hp"),
    ({"scenario": _broken(lambda s: s["sides"].pop("goblins"))}, "$.params.scenario.sides"),
    ({"runs": 0}, "$.params.runs"),
    ({"runs": "many"}, "$.params.runs"),
    ({"seed": -1}, "$.params.seed"),
    ({"loop": "fast"}, "$.params.loop"),
    ({"fights": 10}, "$.params.fights"),
    ({"target": 0.5}, "$.params.target"),
    ({"vary": "$.sides.goblins[0].count=1..3"}, "$.params.vary"),
    ({"vary": {"path": "$.sides.goblins[0].count"}}, "$.params.vary.values"),
    ({"vary": {"path": "sides.goblins", "values": "1..3"}}, "$.params.vary.path"),
    ({"vary": {"path": "$.sides.orcs[0].count", "values": "1..3"}}, "$.params.vary.path"),
    ({"vary": {"path": "$.sides.goblins[0].count", "values": "3..1:1"}}, "$.params.vary.values"),
    ({"vary": {"path": "$.sides.goblins[0].count", "values": [1, 1]}}, "$.params.vary.values"),
    ({"vary": {"path": "$.sides.goblins[0].count", "values": [2, 0]}}, "$.params.vary.values[1]"),
    ({"vary": {"path": "$.sides.goblins[0].count", "values": "1..3", "target": 2}}, "$.params.vary.target"),
    ({"vary": {"path": "$.sides.goblins[0].count", "values": "1..3", "side": "orcs"}}, "$.params.vary.side"),
    ({"vary": {"path": "$.sides.goblins[0].count", "values": "1..3", "step": 1}}, "$.params.vary.step"),
    ({"vary": {"path": "$.sides.goblins[0].count", "values": "1..3", "side": "party"}, "side": "goblins"},
     "$.params.side"),
])
def test_bad_params_are_refused_naming_the_field(raw, recording, params, path):
    params = {"scenario": scenario(), **params} if "scenario" not in params and params != {} else params
    error = forecast(raw, 1, params)["error"]
    assert error["code"] in (-32602, -32003), error
    assert error["data"]["path"] == path, error
    assert recording.forecasts == 0


# ── journaled and replayable ─────────────────────────────────────────────────


def test_a_forecast_is_journaled_replayed_and_answered_once_per_id(raw, recording):
    params = {"scenario": scenario("ct-hill-giant"), "runs": 80}
    first = raw(request("f1", "fight.forecast", params))
    assert raw(request("f1", "fight.forecast", params)) == first  # the resend: from the journal
    assert recording.forecasts == 1
    result = orjson.loads(first)["result"]
    entry = orjson.loads(raw(request(2, "journal.get", {"id": "f1"})))["result"]
    assert entry["method"] == "fight.forecast" and entry["result"] == result
    # The scenario's sides keep their order in the journal: it is part of the fight.
    assert list(entry["params"]["scenario"]["sides"]) == ["heroes", "giant"]
    replay = orjson.loads(raw(request(3, "journal.replay", {"id": "f1"})))["result"]
    assert replay["matches"] and replay["seed"] == result["seed"] and replay["result"] == result
    other = orjson.loads(raw(request("f1", "fight.forecast", {**params, "runs": 81})))
    assert other["error"]["code"] == -32005


def test_the_sides_order_is_part_of_the_request(raw):
    source = scenario("ww-duel")
    swapped = {**source, "sides": dict(reversed(list(source["sides"].items())))}
    forecast(raw, "duel", {"scenario": source, "runs": 20, "seed": 1})
    assert forecast(raw, "duel", {"scenario": swapped, "runs": 20, "seed": 1})["error"]["code"] == -32005


def test_fracas_journal_replay_replays_a_forecast(tmp_path):
    path = tmp_path / "journal.sqlite3"
    journal = Journal(str(path))
    dispatcher = Dispatcher(token=TOKEN, journal=journal)
    session = Session(peer="test")
    dispatcher.handle(session, orjson.dumps(request(0, "auth", {"token": TOKEN})).decode())
    params = {"scenario": scenario("er-skeleton-horde"), "runs": 50,
              "vary": {"path": "$.sides.skeletons[0].count", "values": [4, 8]}}
    reply = orjson.loads(dispatcher.handle(session, orjson.dumps(request("fc", "fight.forecast", params)).decode()).data)
    assert "result" in reply
    journal.close()
    done = subprocess.run([sys.executable, "-m", "fracas", "journal", "replay", "--journal", str(path), "fc"],
                          capture_output=True, text=True, cwd=str(REPO), timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"fc: fight.forecast replays exactly from seed {reply['result']['seed']}" in done.stdout


# ── through a real bridge: a worker process, other clients answered, cancelled ──


def _long_forecast() -> dict:
    """A forecast that keeps a worker busy for a good fraction of a second or more."""
    runs = 100_000 if fracas.backend == "compiled" else 1_000
    return {"scenario": scenario(), "runs": runs, "seed": 3}


def test_through_a_real_bridge_a_forecast_plays_in_a_worker_and_another_client_is_answered_first(tmp_path):
    async def body():
        async with serving(tmp_path) as bridge:
            async with client(bridge.url) as busy, client(bridge.url) as other:
                info = await _ask(other, request(1, "server.info"))
                assert "fight.forecast" in info["result"]["methods"]
                limits = info["result"]["limits"]
                assert limits["max_forecast_work"] == Limits().max_forecast_work
                assert limits["max_forecast_runs"] == Limits().max_forecast_runs
                order, big, small = await answered_in_order(
                    busy, request("fc", "fight.forecast", _long_forecast()),
                    other, request("one", "attack.resolve", ATTACK))
                assert order == ["small", "pong", "big"]
                assert small["result"]["total_damage"] >= 0
                assert big["result"]["completed"] == _long_forecast()["runs"]
                assert bridge.workers is not None and bridge.workers.busy == 0
                entry = await _ask(other, request(2, "journal.get", {"id": "fc"}))
                assert entry["result"]["result"] == big["result"]
                expected = fracas.forecast(_long_forecast()).to_dict()
                assert big["result"] == expected

    run(body(), timeout=600)


async def _ask(websocket, message):
    await websocket.send(orjson.dumps(message).decode())
    return orjson.loads(await websocket.recv())


def _longest() -> dict:
    """The largest forecast the default budget takes of a 158-combatant horde: seconds of
    fights on any backend."""
    horde = scenario()
    horde["sides"]["goblins"][0]["count"] = 150
    runs = min(Limits().max_forecast_runs, Limits().max_forecast_work // (158 * COST))
    return {"scenario": horde, "runs": runs, "seed": 3}


def test_a_forecast_whose_client_leaves_is_stopped_and_not_journaled(tmp_path):
    long = _longest()

    async def body():
        async with serving(tmp_path) as bridge:
            async with client(bridge.url) as leaving:
                await leaving.send(orjson.dumps(request("gone", "fight.forecast", long)).decode())
                await (await leaving.ping())  # the bridge has read it
                while bridge.workers is None or bridge.workers.busy == 0:  # it is in the worker
                    await asyncio.sleep(0.01)
            # The connection is closed: its worker is killed, the slot is free again, and what
            # the forecast took of the bridge's budgets (its work as attacks) is given back.
            while bridge.workers.busy or bridge.dispatcher.protocol.server_attacks.used:
                await asyncio.sleep(0.01)
            async with client(bridge.url) as other:
                missing = await _ask(other, request(1, "journal.get", {"id": "gone"}))
                assert missing["error"]["code"] == -32006
                small = {"scenario": scenario("ww-duel"), "runs": 10, "seed": 2}
                again = await _ask(other, request(2, "fight.forecast", small))
                assert again["result"] == fracas.forecast(small).to_dict()

    run(body(), timeout=600)


def test_a_forecast_running_at_shutdown_is_answered_minus_32010_and_not_journaled(tmp_path):
    from .test_hardening import in_flight, sync_client, wait_until

    server = start_server(tmp_path / "journal.sqlite3", "--limit", "shutdown_grace=0.5")
    with sync_client(server.url) as websocket:
        websocket.send(orjson.dumps(request("late", "fight.forecast", _longest())).decode())
        wait_until(lambda: in_flight(server.url)["attacks"] > 0, "the forecast started")
        server.process.send_signal(signal.SIGTERM)
        reply = orjson.loads(websocket.recv(timeout=120))
    assert reply["id"] == "late" and reply["error"]["code"] == -32010, reply
    server.process.communicate(timeout=120)
    assert server.process.returncode == 0
    journal = Journal(str(tmp_path / "journal.sqlite3"))
    try:
        assert journal.lookup(id_key("late")) is None
    finally:
        journal.close()


def test_fracas_serve_takes_the_forecast_limits(tmp_path):
    server = start_server(tmp_path / "journal.sqlite3", "--limit", f"max_forecast_work={1000 * COST}")

    async def body():
        async with client(server.url) as websocket:
            info = await _ask(websocket, request(1, "server.info"))
            assert info["result"]["limits"]["max_forecast_work"] == 1000 * COST
            reply = await _ask(websocket, request(2, "fight.forecast", {"scenario": scenario(), "runs": 100}))
            assert reply["error"]["data"]["limit_name"] == "max_forecast_work"
            assert "ask for at most 55 fights" in reply["error"]["message"]

    try:
        run(body())
    finally:
        server.terminate()


# ── the documentation ────────────────────────────────────────────────────────


def _flat(value, out):
    """Every (key, scalar or list value) pair anywhere in a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(item, dict):
                out.add((key, json.dumps(item)))
            _flat(item, out)
    elif isinstance(value, list):
        for item in value:
            _flat(item, out)
    return out


def test_the_readme_example_is_what_the_bridge_answers(ask):
    """bridge/README.md's fight.forecast example: its request, sent (to a bridge of the default
    limits); every field its shortened answer shows ("key": value) is in the real answer."""
    text = (REPO / "bridge" / "README.md").read_text(encoding="utf-8")
    section = text[text.index("### `fight.forecast`"):text.index("## Errors")]
    block = section[section.index("```json\n") + 8:section.index("```\n", section.index("```json\n"))]
    sent, answer = block.split("\n← ")
    message = json.loads(sent[len("→ "):])
    reply = ask(message)
    assert reply["id"] == message["id"] and "result" in reply, reply
    real = _flat(reply, set())
    shown = re.findall(r'"([\w .$\[\]]+)": (\[[^\]\[{…]*\]|"[^"]*"|-?\d+(?:\.\d+)?|true|false|null)', answer)
    assert len(shown) > 30
    for key, value in shown:
        if key in ("compiled_fights", "flat_python_fights", "python_fights", "python_why") and fracas.backend != "compiled":
            continue  # which loop played them (the same fights on either)
        assert (key, json.dumps(json.loads(value))) in real, (key, value)
    assert '"at": 5.0614' in answer and '"crossings": [{"at": 5.0614, "between": [4, 6]}]' in answer
    assert reply["result"]["sweep"]["target"]["rows"][0]["crossings"] == [{"at": 5.0614, "between": [4, 6]}]


def test_the_params_and_the_result_are_what_schema_json_says(raw):
    import jsonschema

    import fracas.bridge

    schema = json.loads((Path(fracas.bridge.__file__).parent / "schema.json").read_text())

    def valid(value, name):  # the schema itself is checked by test_docs; here only the values
        jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": f"#/$defs/{name}"}).validate(value)

    params = {"scenario": scenario("er-skeleton-horde"), "runs": 40, "seed": 1,
              "vary": {"path": "$.sides.skeletons[0].count", "values": [2, 4], "target": 0.5, "side": "party"}}
    valid(params, "params.fight.forecast")
    valid(request("f", "fight.forecast", params), "request")
    result = forecast(raw, "f", params)["result"]
    valid(result, "result.fight.forecast")
    with pytest.raises(jsonschema.ValidationError):
        valid({**params, "fights": 3}, "params.fight.forecast")
