"""`fracas token --rotate` against a running bridge (issue 31, item 1): the bridge takes the
new token at once, refuses the old one, closes the sessions it opened (unless
--keep-sessions), and `fracas token` says whether it did. The token lives in $FRACAS_HOME."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import orjson
import pytest
from click.testing import CliRunner
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from fracas.bridge.cli import token_command
from fracas.bridge.server import TOKEN_ROTATED

from .helpers import ATTACK, REPO, STARTED, ServerProcess, ask, request, run


def start_kept(home, *args: str) -> ServerProcess:
    """A bridge serving the kept token of FRACAS_HOME=home (no --token)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "FRACAS_HOME": str(home)}
    env.pop("FRACAS_BRIDGE_TOKEN", None)
    command = [sys.executable, "-m", "fracas.bridge", "--port", "0", "--journal", str(home / "journal.sqlite3"),
               "--allow-no-origin", *args]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               cwd=str(REPO))
    STARTED.append(process)
    banner = [process.stdout.readline() for _ in range(5)]  # type: ignore[union-attr]
    if not banner[-1]:
        process.kill()
        raise AssertionError(f"server did not start: {banner} {process.stderr.read()}")  # type: ignore[union-attr]
    fields = dict(line.strip().split(":", 1) for line in banner[1:4])
    return ServerProcess(process, fields["url"].strip(), fields["token"].strip(), fields["journal"].strip(), banner)


def rotate(home) -> tuple[str, str]:
    """`fracas token --rotate` as the GM runs it: (the new token, what it said on stderr)."""
    env = {**os.environ, "FRACAS_HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "fracas", "token", "--rotate"], capture_output=True, text=True,
                          env=env, cwd=str(REPO), timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip(), done.stderr


async def auth(url: str, token: str):
    """Connect and send auth: (the open websocket, the reply)."""
    websocket = await connect(url)
    reply = await ask(websocket, request("auth", "auth", {"token": token}))
    return websocket, reply


def test_a_rotated_token_takes_effect_at_once_without_a_restart(tmp_path):
    """The acceptance test: old token refused, new accepted, old sessions closed, all reported."""
    home = tmp_path / "home"
    server = start_kept(home)
    old = server.token
    assert (home / "token").read_text().strip() == old  # the token lives with its FRACAS_HOME

    async def scenario():
        before, reply = await auth(server.url, old)
        assert reply["result"] == {"authenticated": True}
        new, said = rotate(home)
        assert new != old and (home / "token").read_text().strip() == new
        assert "took the new token" in said and "closed 1 session(s)" in said, said
        # The session authenticated with the old token is closed, saying why.
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                await before.recv()
        assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (1008, TOKEN_ROTATED)
        # A new connection with the old token is refused ...
        refused, reply = await auth(server.url, old)
        assert reply["error"]["code"] == -32004
        with pytest.raises(ConnectionClosed) as closed:
            await refused.recv()
        assert closed.value.rcvd.code == 1008
        # ... and one with the new token is served.
        fresh, reply = await auth(server.url, new)
        assert reply["result"] == {"authenticated": True}
        assert "result" in await ask(fresh, request(1, "attack.resolve", ATTACK))
        await fresh.close()

    run(scenario())
    code, stderr = server.terminate()
    assert code == 0
    assert old not in stderr and server.token not in stderr
    assert "a new access token" in stderr
    assert not list(home.glob("bridge-*.json"))  # the announcement went with the bridge


def test_keep_sessions_keeps_the_old_sessions_but_not_the_old_token(tmp_path):
    home = tmp_path / "home"
    server = start_kept(home, "--keep-sessions")

    async def scenario():
        kept, reply = await auth(server.url, server.token)
        assert reply["result"] == {"authenticated": True}
        new, said = rotate(home)
        assert "took the new token" in said and "closed 0 session(s)" in said, said
        assert "result" in await ask(kept, request(1, "attack.resolve", ATTACK))  # still served
        refused, reply = await auth(server.url, server.token)
        assert reply["error"]["code"] == -32004
        await refused.close()
        await kept.close()

    run(scenario())
    assert server.terminate()[0] == 0


def test_a_bridge_given_its_token_is_not_affected_and_the_rotation_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("FRACAS_HOME", str(tmp_path))
    first = CliRunner().invoke(token_command, [])
    assert first.exit_code == 0
    token_path = tmp_path / "token"
    assert first.output.splitlines()[0] == token_path.read_text().strip()
    assert stat.S_IMODE(os.stat(token_path).st_mode) == 0o600
    rotated = CliRunner().invoke(token_command, ["--rotate"])
    assert rotated.exit_code == 0
    assert "no running bridge serves this token file" in rotated.output
    assert rotated.output.splitlines()[0] == token_path.read_text().strip() != first.output.splitlines()[0]


def test_an_announcement_left_by_a_killed_bridge_is_ignored(tmp_path, monkeypatch):
    monkeypatch.setenv("FRACAS_HOME", str(tmp_path))
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / f"bridge-{dead.pid}.json").write_text(orjson.dumps({
        "pid": dead.pid, "url": "ws://127.0.0.1:1", "token_file": str(tmp_path / "token"),
        "fingerprint": "0" * 16, "sessions_closed": 0}).decode())
    rotated = CliRunner().invoke(token_command, ["--rotate"])
    assert rotated.exit_code == 0 and "no running bridge serves this token file" in rotated.output
