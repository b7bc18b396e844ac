"""`fracas doctor`, and the warning when the compiled core is missing."""

import socket
import sys

import pytest

from fracas import _kernels

from .helpers import run


def test_doctor_reports_backend_speed_paths_and_port(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = run(["doctor", "--port", str(port)])
    assert out.exit_code == 1, out.output  # it reports a [problem]: the busy port
    assert out.output.rstrip().endswith("found") and "problem" in out.output.splitlines()[-1]
    assert f"backend   {_kernels.name()}" in out.output
    assert "typical attacks/s" in out.output
    assert str(tmp_path / "config" / "fracas" / "token") in out.output
    assert f"127.0.0.1:{port} is in use" in out.output


def test_a_missing_compiled_core_is_said_loudly(monkeypatch):
    monkeypatch.setattr(_kernels, "compiled", None)
    out = run(["attack", "--dice", "2", "--ac", "12", "--str", "3", "--seed", "1"])
    assert out.exit_code == 0
    assert "warning: the compiled core is not installed" in out.output and "fracas doctor" in out.output
    out = run(["doctor", "--port", "1"])
    assert "not installed" in out.output and "problem" in out.output


@pytest.mark.parametrize("argv", [
    ["morale", "--morale", "7", "--seed", "1"],  # OS-4 morale, old-school's own kind
    ["counterspell", "--school", "sorcery", "--caster-skill", "5", "--trained", "sorcery=3", "--distance", "40",
     "--seed", "1"],  # WW-8 counterspell, Worldwalker's
    ["impale", "--str", "4", "--charger", "id=ogre,ac=12,body=8", "--closed", "30", "--seed", "1"],  # ER-23
])
def test_a_rulesets_own_command_says_so_too(monkeypatch, argv):
    # The rulesets' commands roll from their own layer (cmdkit.roll), not through the facade
    # that warned for them before: they still say it, as `fracas attack` does.
    monkeypatch.setattr(_kernels, "compiled", None)
    out = run(argv)
    assert out.exit_code == 0, out.output
    assert "warning: the compiled core is not installed" in out.output and "fracas doctor" in out.output


def test_doctor_exits_0_when_nothing_is_wrong(monkeypatch, tmp_path):
    if _kernels.missing_compiled():
        pytest.skip("an install without the compiled core: doctor rightly reports that")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("FRACAS_CONFIG", raising=False)
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    out = run(["doctor", "--port", str(port)])
    assert "[problem]" not in out.output and out.exit_code == 0, out.output


def test_doctor_reports_a_broken_config_with_the_rest(monkeypatch, tmp_path):
    broken = tmp_path / "broken.toml"
    broken.write_text("[serve]\nport = \"eighty\"\n")
    monkeypatch.setenv("FRACAS_CONFIG", str(broken))
    out = run(["doctor", "--port", "1"])
    assert out.exit_code == 1
    assert f"config    config file {broken}: [serve] port: 'eighty' is not a valid integer" in out.output
    assert "[problem]" in out.output and "backend" in out.output and "profiles" in out.output  # the rest still ran
    out = run(["attack", "--dice", "2", "--ac", "12"])  # any other command refuses it
    assert out.exit_code == 2 and str(broken) in out.output and "[serve] port" in out.output


@pytest.mark.skipif(sys.platform != "linux", reason="TIME_WAIT blocks a plain bind on Linux; the probe is checked there")
def test_a_port_in_time_wait_is_free_as_fracas_serve_sees_it(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    # A listener that closes its side of a connection first leaves that port in TIME_WAIT.
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        accepted, _ = listener.accept()
        accepted.close()
        client.recv(1)  # the FIN arrived
        client.close()
    with socket.socket() as plain:  # the situation is real: a bind without SO_REUSEADDR fails
        with pytest.raises(OSError):
            plain.bind(("127.0.0.1", port))
    out = run(["doctor", "--port", str(port)])
    assert f"127.0.0.1:{port} is free for fracas serve" in out.output, out.output
    assert f"{port} is in use" not in out.output
