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
    shutil.copytree(HERE / "d6pool" / "d6pool", broken)
    (broken / "__init__.py").write_text("import numpyy  # a dependency that is not installed\n")
    (broken / "manifest.toml").write_text(
        (HERE / "d6pool" / "d6pool" / "manifest.toml").read_text().replace('"d6-pool"', '"broken-pool"'))
    _dist(site, "brokenplug", "broken-pool")


def _site(tmp_path: Path) -> Path:
    """Two broken plug-ins and a good one, installed as pip leaves them."""
    site = tmp_path / "site"
    site.mkdir()
    # 1. Its import raises (a dependency it needs is missing).
    broken_plugin(site)
    # 2. Its manifest names an example scenario that is nowhere.
    noexample = site / "noexample"
    shutil.copytree(HERE / "d6pool" / "d6pool", noexample)
    manifest = (noexample / "manifest.toml").read_text()
    assert 'examples = ["d6-skirmish"]' in manifest
    (noexample / "manifest.toml").write_text(manifest.replace('examples = ["d6-skirmish"]',
                                                              'examples = ["d6-nowhere"]'))
    _dist(site, "noexample", "d6-pool")
    return site


def _env(site: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])]))


def test_a_broken_plugin_is_left_out_and_named_and_everything_else_works(tmp_path):
    site = _site(tmp_path)
    done = subprocess.run([sys.executable, "-c", CHECKS], cwd=tmp_path, env=_env(site), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["rulesets"][:4] == ["enchanted-realms", "worldwalker", "cartyrion", "old-school"]
    assert "broken-pool" not in found["rulesets"] and "d6-pool" not in found["rulesets"]
    assert found["resolves"]
    failed = found["failed"]
    assert set(failed) == {"broken-pool", "d6-pool"}
    assert failed["broken-pool"].startswith(
        "entry point 'broken-pool' = 'brokenplug' (group fracas.rulesets, distribution fracas-brokenplug 0.3):"
        " ModuleNotFoundError: No module named 'numpyy'")
    assert "examples ['d6-nowhere'] name no scenario" in failed["d6-pool"]
    assert "noexample" in failed["d6-pool"]
    assert all(why.endswith("is left out (fix or uninstall it)") for why in failed.values())
    assert found["info_failed"] == failed  # the bridge's server.info says the same
    # Said once on standard error, as a warning, not a traceback.
    assert done.stderr.count("ModuleNotFoundError: No module named 'numpyy'") == 1
    assert "Traceback" not in done.stderr


def test_doctor_reports_a_broken_plugin_as_a_problem(tmp_path):
    site = _site(tmp_path)
    done = subprocess.run([sys.executable, "-m", "fracas", "doctor", "--port", "1"], cwd=tmp_path,
                          env=_env(site), capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.strip().startswith("plug-in")]
    assert len(lines) == 2 and all("[problem]" in line for line in lines)
    assert any("entry point 'broken-pool'" in line for line in lines)


def test_a_good_plugin_next_to_a_broken_one_still_registers(tmp_path):
    site = _site(tmp_path)
    shutil.rmtree(site / "noexample")
    shutil.rmtree(site / "fracas_noexample-0.3.dist-info")
    shutil.copytree(HERE / "d6pool" / "d6pool", site / "d6pool")
    _dist(site, "d6pool", "d6-pool")
    done = subprocess.run([sys.executable, "-c", CHECKS], cwd=tmp_path, env=_env(site), capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert "d6-pool" in found["rulesets"] and set(found["failed"]) == {"broken-pool"}
