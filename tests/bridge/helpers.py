"""Requests, a real-server harness and a websocket client for the bridge tests."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
from websockets.asyncio.client import ClientConnection, connect

import fracas
from fracas.bridge.limits import Limits
from fracas.bridge.server import Bridge, BridgeConfig

TOKEN = "bridge-test-token-0123456789"
REPO = Path(__file__).resolve().parents[2]

#: The typical strike (DESIGN.md): 3d20, +2 to hit vs AC 14, crit-capable, weight 1.
ATTACK = {
    "attacker": {"strength": 6},
    "strikes": [{"target": "goblin", "method": "melee", "style": "slashing", "dice": 3,
                 "weight": 1, "damage_type": "edged"}],
    "targets": {"goblin": {"ac": 14}},
}

INITIATIVE = {"combatants": [{"id": "ayla", "agility": 4}, {"id": "bram", "agility": 6},
                             {"id": "crow", "agility_mod": 1, "bonus": 1}]}


def attack(**changes: Any) -> dict[str, Any]:
    """A copy of ATTACK with top-level fields changed."""
    request = copy.deepcopy(ATTACK)
    request.update(changes)
    return request


def heavy_attack(strikes: int) -> dict[str, Any]:
    """One attack of many strikes: more engine work per request."""
    return attack(strikes=ATTACK["strikes"] * strikes)


def bulk(count: int, *, detail: str = "summary", seed: int | None = 7) -> dict[str, Any]:
    """``count`` attacks of the typical strike's profile at one target."""
    strike = {k: v for k, v in ATTACK["strikes"][0].items() if k != "target"}
    request: dict[str, Any] = {
        "profiles": {"skeleton": {"attacker": {"strength": 6}, "strikes": [strike]}},
        "targets": {"pc-1": {"ac": 14}},
        "attacks": [{"profile": "skeleton", "target": "pc-1", "count": count}],
        "detail": detail,
    }
    if seed is not None:
        request["seed"] = seed
    return request


def big_bulk_count() -> int:
    """A bulk request that keeps the engine busy for a good fraction of a second.

    The pure-Python kernels are about 60 times slower than the compiled core.
    """
    return 30_000_000 if fracas.backend == "compiled" else 100_000


def request(request_id: Any, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def without_backend(result: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in result.items() if key != "backend"}


def check_response(response: Any) -> None:
    """Assert ``response`` is one JSON-RPC 2.0 response object (for our codes)."""
    from fracas.bridge import errors

    codes = {value for name, value in vars(errors).items() if name.isupper() and isinstance(value, int)}
    assert isinstance(response, dict), response
    assert response.get("jsonrpc") == "2.0", response
    assert "id" in response, response
    request_id = response["id"]
    assert request_id is None or isinstance(request_id, (int, str)), response
    assert not isinstance(request_id, bool), response
    if "result" in response:
        assert set(response) == {"jsonrpc", "id", "result"}, response
        assert request_id is not None, response
    else:
        assert set(response) == {"jsonrpc", "id", "error"}, response
        error = response["error"]
        assert set(error) <= {"code", "message", "data"}, error
        assert error["code"] in codes, error
        assert isinstance(error["message"], str) and error["message"], error
        if "data" in error:
            assert isinstance(error["data"], dict), error
            if "path" in error["data"]:
                assert error["data"]["path"].startswith("$"), error
                assert error["message"].startswith(error["data"]["path"] + ": "), error


# ── a real server, in this process ─────────────────────────────────────────


def config(tmp_path: Path, *, limits: dict[str, Any] | None = None, **changes: Any) -> BridgeConfig:
    """A test bridge on 127.0.0.1, port 0, that accepts programs without an Origin."""
    settings: dict[str, Any] = {
        "token": TOKEN,
        "journal": str(tmp_path / "journal.sqlite3"),
        "port": 0,
        "allow_no_origin": True,
        "limits": dataclasses.replace(Limits(), **(limits or {})),
    }
    settings.update(changes)
    return BridgeConfig(**settings)


def run(coroutine: Any, timeout: float = 90) -> Any:
    """Run an async test body; the timeout only keeps a broken test from hanging."""
    return asyncio.run(asyncio.wait_for(coroutine, timeout))


@contextlib.asynccontextmanager
async def serving(tmp_path: Path, *, engine: Any = None, **changes: Any) -> AsyncIterator[Bridge]:
    async with Bridge(config(tmp_path, **changes), engine=engine) as bridge:
        yield bridge


@contextlib.asynccontextmanager
async def client(url: str, *, token: str = TOKEN, **options: Any) -> AsyncIterator[ClientConnection]:
    """A connected, authenticated websocket client."""
    async with connect(url, **options) as websocket:
        reply = await ask(websocket, request("auth", "auth", {"token": token}))
        assert reply == {"jsonrpc": "2.0", "id": "auth", "result": {"authenticated": True}}, reply
        yield websocket


async def ask(websocket: ClientConnection, message: Any) -> Any:
    """Send one message, return the decoded reply."""
    await websocket.send(orjson.dumps(message).decode())
    return orjson.loads(await websocket.recv())


async def assert_journaled(websocket: ClientConnection, acknowledged: dict[Any, Any]) -> None:
    """Every acknowledged id (id → the result its reply carried) answers that result from
    the journal (``journal.get``): nothing a client received was lost."""
    for name, result in acknowledged.items():
        entry = await ask(websocket, request("check", "journal.get", {"id": name}))
        assert "result" in entry, (name, entry)
        assert entry["result"]["result"] == result, name


# ── a real server, as a subprocess ─────────────────────────────────────────


@dataclasses.dataclass
class ServerProcess:
    process: subprocess.Popen[str]
    url: str
    token: str
    journal: str
    banner: list[str]

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.process.stdout.close()  # type: ignore[union-attr]

    def terminate(self) -> tuple[int, str]:
        self.process.send_signal(signal.SIGTERM)
        _, stderr = self.process.communicate(timeout=60)
        return self.process.returncode, stderr


#: Every server process started, so a failing test cannot leave one running.
STARTED: list[subprocess.Popen[str]] = []


def stop_leftover_servers() -> None:
    """Kill the servers a test started and did not stop (it failed half-way)."""
    while STARTED:
        process = STARTED.pop()
        if process.poll() is None:
            process.kill()
            process.wait()


def start_server(journal: Path, *args: str) -> ServerProcess:
    """``python -m fracas.bridge`` on port 0; parse its banner."""
    command = [sys.executable, "-m", "fracas.bridge", "--port", "0", "--journal", str(journal),
               "--token", TOKEN, "--allow-no-origin", *args]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONFAULTHANDLER": "1"},
                               cwd=str(REPO))
    STARTED.append(process)
    banner = [process.stdout.readline() for _ in range(4)]  # type: ignore[union-attr]
    if not banner[-1]:
        process.kill()
        raise AssertionError(f"server did not start: {banner} {process.stderr.read()}")  # type: ignore[union-attr]
    fields = dict(line.strip().split(":", 1) for line in banner[1:])
    return ServerProcess(process, fields["url"].strip(), fields["token"].strip(),
                         fields["journal"].strip(), banner)
