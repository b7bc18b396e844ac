"""``fracas serve`` / ``python -m fracas.bridge``: options, errors, banner, signals."""

from __future__ import annotations

import re
import socket
import subprocess
import sys

import pytest
from click.testing import CliRunner

import fracas
from fracas.bridge import server
from fracas.bridge.cli import serve
from fracas.bridge.server import is_loopback, normalize_origin

from .helpers import REPO, TOKEN, ask, client, request, run, start_server


@pytest.mark.parametrize(("args", "message"), [
    (["--host", "0.0.0.0"], "--host 0.0.0.0 is not loopback: other machines could reach the bridge."
                            " Add --allow-remote if that is what you want."),
    (["--host", "192.168.1.10"], "is not loopback"),
    (["--allow-origin", "ftp://files.example"], "must look like https://host or http://host:port"),
    (["--allow-origin", "https://foundry.example/game"], "must be scheme://host[:port], without a path"),
    (["--allow-origin", "localhost:30000"], "must look like https://host or http://host:port"),
    (["--token", "  "], "the token must not be empty"),
    (["--port", "70000"], "70000 is not in the range 0<=x<=65535"),
    (["--max-connections", "0"], "0 is not in the range x>=1"),
    (["--journal-sync", "off"], "'off' is not one of 'full', 'normal'"),
    (["--limit", "max_reply_bytes"], "Invalid value for --limit: 'max_reply_bytes': expected NAME=VALUE"),
    (["--limit", "send_timeout=soon"], "'send_timeout=soon': send_timeout takes a number"),
    (["--journal-max-mb", "0"], "0 is not in the range x>=1"),
])
def test_usage_errors_exit_2(args, message):
    result = CliRunner().invoke(serve, args)
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_unusable_journal_exits_1(tmp_path):
    journal = tmp_path / "not-a-journal.sqlite3"
    journal.write_text("these are my campaign notes, not a database" * 100)
    result = CliRunner().invoke(serve, ["--port", "0", "--journal", str(journal), "--token", TOKEN])
    assert result.exit_code == 1, result.output
    assert f"Error: cannot use journal {journal}: file is not a database" in result.output


def test_busy_port_exits_1(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(serve, ["--port", str(port), "--journal", str(tmp_path / "j.sqlite3"),
                                            "--token", TOKEN])
    assert result.exit_code == 1, result.output
    assert f"Error: cannot listen on 127.0.0.1:{port}: " in result.output
    assert "another fracas serve may be running already (fracas doctor checks)" in result.output
    assert "--port N" in result.output


def test_help_documents_every_option():
    result = CliRunner().invoke(serve, ["--help"])
    assert result.exit_code == 0
    for option in serve.params:
        for name in option.opts:
            assert name in result.output


def test_remote_host_needs_the_flag_and_warns(monkeypatch):
    started = {}

    async def fake_run(config, *, on_ready=None):
        started["config"] = config

    monkeypatch.setattr(server, "run", fake_run)
    result = CliRunner().invoke(serve, ["--host", "0.0.0.0", "--allow-remote", "--token", "short",
                                        "--journal", "unused.sqlite3"])
    assert result.exit_code == 0, result.output
    assert ("warning: listening on 0.0.0.0: other machines can reach the bridge, and ws:// is not"
            " encrypted (the token and the rolls travel in clear)") in result.output
    assert "warning: the token is shorter than 16 characters" in result.output
    assert started["config"].allow_remote and started["config"].host == "0.0.0.0"


def test_options_reach_the_config(monkeypatch):
    started = {}

    async def fake_run(config, *, on_ready=None):
        started["config"] = config

    monkeypatch.setattr(server, "run", fake_run)
    monkeypatch.setenv("FRACAS_BRIDGE_TOKEN", TOKEN)
    result = CliRunner().invoke(serve, [
        "--port", "9000", "--journal", "j.sqlite3", "--journal-sync", "normal",
        "--allow-origin", "https://foundry.example.com", "--allow-origin", "http://10.0.0.5:30000",
        "--no-default-origins", "--allow-no-origin", "--allow-host", "gm.lan:9000",
        "--max-connections", "4", "--max-batch", "10", "--max-bulk-attacks", "1000",
        "--max-message-bytes", "65536", "--workers", "3", "--limit", "max_reply_bytes=1000000",
        "--limit", "send_timeout=2.5", "--journal-max-mb", "64", "--journal-keep-days", "30",
        "--bulk-threads", "3"])
    assert result.exit_code == 0, result.output
    config = started["config"]
    assert config.token == TOKEN
    assert (config.port, config.journal, config.journal_sync, config.workers) == (9000, "j.sqlite3", "normal", 3)
    assert config.allowed_origins() == {"https://foundry.example.com", "http://10.0.0.5:30000"}
    assert config.allow_no_origin and config.hosts == ("gm.lan:9000",)
    limits = config.limits
    assert (limits.max_connections, limits.max_batch, limits.max_bulk_attacks, limits.max_message_bytes) == (
        4, 10, 1000, 65536)
    assert (limits.max_reply_bytes, limits.send_timeout) == (1_000_000, 2.5)
    assert config.bulk_threads == config.engine_threads() == 3
    assert (config.retention.max_bytes, config.retention.max_age_days) == (64 << 20, 30)


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.8.9.10", True), ("::1", True), ("[::1]", True), ("localhost", True),
    ("0.0.0.0", False), ("::", False), ("192.168.1.10", False), ("gm-laptop.lan", False),
])
def test_is_loopback(host, loopback):
    assert is_loopback(host) is loopback


@pytest.mark.parametrize(("given", "normal"), [
    ("https://app.roll20.net", "https://app.roll20.net"),
    ("HTTPS://App.Roll20.NET/", "https://app.roll20.net"),
    ("http://localhost:30000", "http://localhost:30000"),
    ("http://[::1]:30000", "http://[::1]:30000"),
    ("chrome-extension://gkdobbfmdgnlmmlkeoifkomnimlgpnaa", "chrome-extension://gkdobbfmdgnlmmlkeoifkomnimlgpnaa"),
    ("moz-extension://0b1e2c3d-4e5f-6789-abcd-ef0123456789/", "moz-extension://0b1e2c3d-4e5f-6789-abcd-ef0123456789"),
])
def test_normalize_origin(given, normal):
    assert normalize_origin(given) == normal


def test_banner_and_sigterm(tmp_path):
    """The banner's exact lines, a working URL, then a clean exit on SIGTERM."""
    journal = tmp_path / "journal.sqlite3"
    process = start_server(journal)
    banner = "".join(process.banner)
    assert re.fullmatch(
        rf"fracas bridge {re.escape(fracas.__version__)} \(backend {fracas.backend}\)\n"
        rf"  url:     ws://127\.0\.0\.1:\d+\n"
        rf"  token:   {TOKEN}\n"
        rf"  journal: {re.escape(str(journal))}\n", banner), banner

    async def use():
        async with client(process.url) as ws:
            assert (await ask(ws, request(1, "server.info")))["result"]["name"] == "fracas"

    run(use())
    returncode, stderr = process.terminate()
    assert returncode == 0, stderr
    assert "signal received: shutting down" in stderr


def _banner(tmp_path):
    command = [sys.executable, "-m", "fracas.bridge", "--port", "0"]
    env = {"XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin",
           "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env, cwd=str(REPO))
    try:
        return [process.stdout.readline() for _ in range(5)], env
    finally:
        process.terminate()
        process.communicate(timeout=60)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG_DATA_HOME is how Linux places it")
def test_the_token_is_made_once_kept_private_and_reused_and_the_default_journal(tmp_path):
    banner, env = _banner(tmp_path)
    token = banner[2].split(":", 1)[1].strip()
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", token), banner
    assert banner[3] == f"  journal: {tmp_path / 'fracas' / 'journal.sqlite3'}\n"
    assert (tmp_path / "fracas" / "journal.sqlite3").exists()
    kept = tmp_path / "config" / "fracas" / "token"
    assert str(kept) in banner[4] and "fracas token --rotate" in banner[4]
    assert kept.read_text().strip() == token and (kept.stat().st_mode & 0o777) == 0o600
    # The next start uses the same token: the GM pastes it once.
    again, _ = _banner(tmp_path)
    assert again[2].split(":", 1)[1].strip() == token
    # `fracas token` prints it; --rotate makes a new one that the next start uses.
    shown = subprocess.run([sys.executable, "-m", "fracas", "token"], env=env, capture_output=True, text=True,
                           cwd=str(REPO), check=True)
    assert shown.stdout.strip() == token and str(kept) in shown.stderr
    rotated = subprocess.run([sys.executable, "-m", "fracas", "token", "--rotate"], env=env, capture_output=True,
                             text=True, cwd=str(REPO), check=True).stdout.strip()
    assert rotated != token and kept.read_text().strip() == rotated
    assert (kept.stat().st_mode & 0o777) == 0o600
