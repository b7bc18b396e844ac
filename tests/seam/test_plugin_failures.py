"""An installed ruleset that fails is left out loudly, and nothing else is (issue 45 item 4): a plug-in
whose import raises, or whose manifest names an example scenario it does not ship, no longer stops
`import fracas` (every command, the bridge) for everyone; `fracas doctor` and `server.info` name it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
#: The docs' row-kernel example plug-in (docs/examples/d6pool), the package the guide quotes.
D6POOL = HERE.resolve().parents[1] / "docs" / "examples" / "d6pool" / "d6pool"

CHECKS = r'''
import json
import fracas
from fracas.bridge.dispatcher import Dispatcher
from fracas.bridge.journal import Journal
from fracas.bridge.protocol import Session

token = "t" * 32
dispatcher = Dispatcher(token=token, journal=Journal(":memory:"))
session = Session()
dispatcher.handle(session, json.dumps({"jsonrpc": "2.0", "id": 0, "method": "auth", "params": {"token": token}}))
info = json.loads(dispatcher.handle(session, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "server.info"})).data)
attack = {"attacker": {"strength": 2}, "strikes": [{"target": "t", "method": "melee", "style": "slashing",
          "dice": 3, "weight": 1, "damage_type": "edged"}], "targets": {"t": {"ac": 14}}}
print(json.dumps({"rulesets": list(fracas.rulesets()), "failed": fracas.rulesets.failed(),
                  "info_failed": info["result"]["rulesets_failed"],
                  "resolves": fracas.resolve(attack, seed=3).to_dict()["seed"] == 3}))
'''


def _dist(site: Path, package: str, entry: str) -> None:
    info = site / f"fracas_{package}-0.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: fracas-{package}\nVersion: 0.3\n")
    (info / "entry_points.txt").write_text(f"[fracas.rulesets]\n{entry} = {package}\n")


def broken_plugin(site: Path) -> None:
    """A plug-in `broken-pool` (package brokenplug, distribution fracas-brokenplug 0.3) installed
    in `site` as pip leaves it, whose import raises: a dependency it needs is missing."""
    broken = site / "brokenplug"
    shutil.copytree(D6POOL, broken)
    (broken / "__init__.py").write_text("import numpyy  # a dependency that is not installed\n")
    (broken / "manifest.toml").write_text(
        (D6POOL / "manifest.toml").read_text().replace('"d6-pool"', '"broken-pool"'))
    _dist(site, "brokenplug", "broken-pool")


def _site(tmp_path: Path) -> Path:
    """Four broken plug-ins (`BROKEN`), installed as pip leaves them."""
    site = tmp_path / "site"
    site.mkdir()
    # 1. Its import raises (a dependency it needs is missing).
    broken_plugin(site)
    # 2. Its manifest names an example scenario that is nowhere.
    noexample = site / "noexample"
    shutil.copytree(D6POOL, noexample)
    manifest = (noexample / "manifest.toml").read_text()
    assert 'examples = ["d6-skirmish"]' in manifest
    (noexample / "manifest.toml").write_text(manifest.replace('examples = ["d6-skirmish"]',
                                                              'examples = ["d6-nowhere"]'))
    _dist(site, "noexample", "d6-pool")
    # 3. It imports, but registration refuses it (no result shape for its own kind `pool`), and
    #    its manifest says `default = true`: the default stays Enchanted Realms', or every
    #    request naming no ruleset would fail for everyone.
    bad = site / "badpool"
    shutil.copytree(D6POOL, bad)
    (bad / "manifest.toml").write_text(
        (D6POOL / "manifest.toml").read_text()
        .replace('name = "d6-pool"', 'name = "bad-pool"\ndefault = true').replace('id = "dp"', 'id = "bp"'))
    with (bad / "__init__.py").open("a") as module:
        module.write("\nD6_POOL.result_types = {k: v for k, v in RESULT_TYPES.items() if k != 'pool'}\n")
    _dist(site, "badpool", "bad-pool")
    # 4. Its own kind's command (`Kind.command`) does not load: `fracas --help`, which lists
    #    every ruleset's commands, would die on it for everyone.
    cmd = site / "cmdplug"
    shutil.copytree(D6POOL, cmd)
    (cmd / "manifest.toml").write_text(
        (D6POOL / "manifest.toml").read_text()
        .replace('name = "d6-pool"', 'name = "cmd-pool"').replace('id = "dp"', 'id = "cm"'))
    module = (cmd / "__init__.py").read_text()
    assert 'command="d6pool:pool_command"' in module
    (cmd / "__init__.py").write_text(module.replace('command="d6pool:pool_command"', 'command="cmdplug:no_command"'))
    _dist(site, "cmdplug", "cmd-pool")
    return site


#: The entry points `_site` installs, each broken in its own way.
BROKEN = ("broken-pool", "d6-pool", "bad-pool", "cmd-pool")


def _env(site: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])]))


def test_a_broken_plugin_is_left_out_and_named_and_everything_else_works(tmp_path):
    site = _site(tmp_path)
    done = subprocess.run([sys.executable, "-c", CHECKS], cwd=tmp_path, env=_env(site), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["rulesets"][:4] == ["enchanted-realms", "worldwalker", "cartyrion", "old-school"]
    assert not set(BROKEN) & set(found["rulesets"])
    assert found["resolves"]  # an attack naming no ruleset: Enchanted Realms' still
    failed = found["failed"]
    assert set(failed) == set(BROKEN)
    assert failed["broken-pool"].startswith(
        "entry point 'broken-pool' = 'brokenplug' (group fracas.rulesets, distribution fracas-brokenplug 0.3):"
        " ModuleNotFoundError: No module named 'numpyy'")
    # the manifest's file and field, and the scenario file it lacks
    assert "noexample/manifest.toml: field 'examples' names ['d6-nowhere'], but no scenario file" \
        " examples/d6-nowhere.json is in the package 'noexample'" in failed["d6-pool"]
    assert failed["bad-pool"].startswith(
        "entry point 'bad-pool' = 'badpool' (group fracas.rulesets, distribution fracas-badpool 0.3):"
        " badpool/manifest.toml: no result shape for the kind(s) pool")
    assert failed["d6-pool"].startswith("entry point 'd6-pool' = 'noexample' (group fracas.rulesets, distribution"
                                        " fracas-noexample 0.3): noexample/manifest.toml: field 'examples'")
    assert "'bad-pool' is left out" in failed["bad-pool"]
    assert failed["cmd-pool"].startswith(
        "entry point 'cmd-pool' = 'cmdplug' (group fracas.rulesets, distribution fracas-cmdplug 0.3):"
        " cmdplug/manifest.toml: its kind 'pool' names the command 'cmdplug:no_command', which does not load"
        " (AttributeError: module 'cmdplug' has no attribute 'no_command')")
    assert all(why.endswith("is left out (fix or uninstall it)") for why in failed.values())
    assert found["info_failed"] == failed  # the bridge's server.info says the same
    # Said once on standard error, as a warning, not a traceback.
    assert done.stderr.count("ModuleNotFoundError: No module named 'numpyy'") == 1
    assert done.stderr.count("entry point 'bad-pool' = 'badpool'") == 1
    assert done.stderr.count("badpool/manifest.toml: no result shape") == 1
    assert "Traceback" not in done.stderr


def test_doctor_reports_a_broken_plugin_as_a_problem(tmp_path):
    site = _site(tmp_path)
    done = subprocess.run([sys.executable, "-m", "fracas", "doctor", "--port", "1"], cwd=tmp_path,
                          env=_env(site), capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.strip().startswith("plug-in")]
    assert len(lines) == len(BROKEN) and all("[problem]" in line for line in lines)
    assert any("entry point 'broken-pool' = 'brokenplug' (group fracas.rulesets, distribution"
               " fracas-brokenplug 0.3): ModuleNotFoundError" in line for line in lines)
    assert any("badpool/manifest.toml: no result shape" in line for line in lines)
    assert any("field 'examples' names ['d6-nowhere']" in line for line in lines)
    assert "enchanted-realms, worldwalker, cartyrion, old-school" in done.stdout  # the rulesets line
    assert "Traceback" not in done.stderr


def test_a_good_plugin_next_to_a_broken_one_still_registers(tmp_path):
    site = _site(tmp_path)
    shutil.rmtree(site / "noexample")
    shutil.rmtree(site / "fracas_noexample-0.3.dist-info")
    shutil.copytree(D6POOL, site / "d6pool")
    _dist(site, "d6pool", "d6-pool")
    done = subprocess.run([sys.executable, "-c", CHECKS], cwd=tmp_path, env=_env(site), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert "d6-pool" in found["rulesets"] and set(found["failed"]) == {"broken-pool", "bad-pool", "cmd-pool"}
    assert found["resolves"]


def test_fracas_attack_on_a_builtin_ruleset_works_beside_broken_plugins(tmp_path):
    """ER-1: a built-in attack from the command line, with the broken plug-ins installed; and
    `fracas --help`."""
    site = _site(tmp_path)
    request = tmp_path / "attack.json"
    request.write_text(json.dumps({"attacker": {"strength": 2}, "strikes": [
        {"target": "t", "method": "melee", "style": "slashing", "dice": 3, "weight": 1, "damage_type": "edged"}],
        "targets": {"t": {"ac": 14}}}))
    done = subprocess.run([sys.executable, "-m", "fracas", "attack", str(request), "--seed", "3", "--json"],
                          cwd=tmp_path, env=_env(site), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    result = json.loads(done.stdout)
    assert result["seed"] == 3 and result["ruleset"] == "enchanted-realms"
    # the same result as without the plug-ins installed
    alone = subprocess.run([sys.executable, "-m", "fracas", "attack", str(request), "--seed", "3", "--json"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert alone.returncode == 0, alone.stderr[-4000:]
    assert json.loads(alone.stdout) == result
    assert "broken-pool" in done.stderr and "Traceback" not in done.stderr  # warned, once each
    assert done.stderr.count("is left out (fix or uninstall it)") == len(BROKEN)
    # `fracas --help` lists every command of the rulesets that registered
    listed = subprocess.run([sys.executable, "-m", "fracas", "--help"], cwd=tmp_path, env=_env(site),
                            capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr[-4000:]
    assert "  attack " in listed.stdout and "  morale " in listed.stdout and "  pool " not in listed.stdout


TOKEN = "plugin-failures-token-0123456789"


def test_a_real_fracas_serve_names_the_broken_plugins_and_resolves(tmp_path):
    """`fracas serve` starts with the broken plug-ins installed; server.info names them
    (`rulesets_failed`) and an ER-1 attack resolves over the websocket."""
    from websockets.sync.client import connect

    site = _site(tmp_path)
    command = [sys.executable, "-m", "fracas", "serve", "--port", "0", "--journal", str(tmp_path / "j.sqlite3"),
               "--token", TOKEN, "--allow-no-origin"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                               env={**_env(site), "PYTHONUNBUFFERED": "1"})
    try:
        banner = [process.stdout.readline() for _ in range(4)]  # type: ignore[union-attr]
        assert banner[-1], (banner, process.stderr.read() if process.poll() is not None else "")  # type: ignore[union-attr]
        url = next(line.split(":", 1)[1].strip() for line in banner if line.strip().startswith("url:"))

        def ask(ws, ident, method, params=None):
            ws.send(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method,
                                **({} if params is None else {"params": params})}))
            return json.loads(ws.recv(timeout=120))

        with connect(url) as ws:
            assert ask(ws, 0, "auth", {"token": TOKEN})["result"] == {"authenticated": True}
            info = ask(ws, 1, "server.info")["result"]
            attack = ask(ws, 2, "attack.resolve", {"attacker": {"strength": 2}, "strikes": [
                {"target": "t", "method": "melee", "style": "slashing", "dice": 3, "weight": 1,
                 "damage_type": "edged"}], "targets": {"t": {"ac": 14}}, "seed": 3})
    finally:
        process.terminate()
        _out, stderr = process.communicate(timeout=60)
    assert set(info["rulesets_failed"]) == set(BROKEN)
    assert "entry point 'broken-pool' = 'brokenplug'" in info["rulesets_failed"]["broken-pool"]
    assert info["rulesets"][:4] == ["enchanted-realms", "worldwalker", "cartyrion", "old-school"]
    assert not set(BROKEN) & set(info["rulesets"])
    assert attack["result"]["seed"] == 3 and attack["result"]["ruleset"] == "enchanted-realms", attack
    assert "Traceback" not in stderr
