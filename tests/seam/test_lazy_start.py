"""A fast start (issue 44 item 5): `import fracas` does no work a caller may not need, and the
registry discovers the rulesets on its first use and imports each one's code on its own first
use, with everything it answered before unchanged (the names, their order, errors, plug-ins).

What is imported is checked in fresh interpreters (`sys.modules`), never how long it takes:
the timings are `fracas bench`'s (its start-up section)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

BUILT_IN = ["enchanted-realms", "worldwalker", "cartyrion", "old-school"]
PACKAGES = {"enchanted-realms": "fracas.rulesets.er", "worldwalker": "fracas.rulesets.ww",
            "cartyrion": "fracas.rulesets.ct", "old-school": "fracas.rulesets.oldschool"}


def _run(code: str, env: dict[str, str] | None = None) -> tuple[dict, str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env=env or dict(os.environ))
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def test_import_fracas_imports_no_ruleset_no_kernel_and_scans_no_entry_point():
    found, _ = _run("import sys, json, fracas; print(json.dumps(sorted(sys.modules)))")
    loaded = set(found)
    assert "fracas" in loaded
    for heavy in ("fracas.rulesets", "fracas._kernels", "fracas._core", "fracas.drive", "importlib.metadata",
                  *PACKAGES.values()):
        assert heavy not in loaded, heavy


def test_listing_reads_manifests_and_imports_no_ruleset_code():
    found, _ = _run("import sys, json, fracas\n"
                    "names = list(fracas.rulesets())\n"
                    "ids = fracas.rulesets.short_ids()\n"
                    "default = fracas.rulesets.DEFAULT\n"
                    "print(json.dumps({'names': names, 'ids': ids, 'default': default,"
                    " 'modules': sorted(sys.modules)}))")
    assert found["names"] == BUILT_IN  # the same names in the same order (each manifest's `order`)
    assert found["ids"] == {"er": "enchanted-realms", "ww": "worldwalker", "ct": "cartyrion", "os": "old-school"}
    assert found["default"] == "enchanted-realms"
    assert not set(PACKAGES.values()) & set(found["modules"])
    # No installed distribution names the entry-point group here: importlib.metadata is not needed.
    assert "importlib.metadata" not in found["modules"]


def test_the_entry_point_prefilter_leaves_anything_it_cannot_rule_out_to_importlib_metadata(tmp_path, monkeypatch):
    from fracas import rulesets

    plain, named, zipped = tmp_path / "plain", tmp_path / "named", tmp_path / "lib.zip"
    for folder, text in ((plain, "[console_scripts]\ntool = tool:main\n"), (named, "[fracas.rulesets]\nx = x\n")):
        info = folder / "tool-1.0.dist-info"
        info.mkdir(parents=True)
        (info / "entry_points.txt").write_text(text)
    (plain / "other-2.0.dist-info").mkdir()  # a distribution without entry points
    zipped.write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip archive
    # Only the standard finders: a test run earlier in the same process may have added one that
    # lists distributions (then the prefilter rightly leaves the question to importlib.metadata).
    from importlib.machinery import PathFinder

    monkeypatch.setattr(sys, "meta_path", [finder for finder in sys.meta_path
                                           if finder is PathFinder or getattr(finder, "find_distributions", None) is None])
    monkeypatch.setattr(sys, "path", [str(plain), str(tmp_path / "absent")])
    assert rulesets._may_name_entry_points() is False
    monkeypatch.setattr(sys, "path", [str(plain), str(named)])
    assert rulesets._may_name_entry_points() is True
    monkeypatch.setattr(sys, "path", [str(plain), str(zipped)])
    assert rulesets._may_name_entry_points() is True

    class Finder:  # a finder that lists distributions of its own
        def find_distributions(self, context=None):
            return iter(())

    monkeypatch.setattr(sys, "path", [str(plain)])
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder()])
    assert rulesets._may_name_entry_points() is True


def test_a_ruleset_loads_on_its_first_use_and_only_it():
    found, _ = _run("import sys, json, fracas\n"
                    "rs = fracas.rulesets.get('worldwalker')\n"
                    "again = fracas.rulesets.get('worldwalker') is rs\n"
                    "print(json.dumps({'again': again, 'manifest': rs.manifest.source, 'title': rs.title,"
                    " 'doc': rs.doc, 'names': list(fracas.rulesets()),"
                    " 'modules': sorted(m for m in sys.modules if m.startswith('fracas.rulesets.'))}))")
    assert found["again"] is True
    assert found["manifest"] == "fracas/rulesets/ww/manifest.toml" and found["title"] == "Worldwalker"
    assert found["doc"]  # the manifest's rules page, adopted on load as registration did
    assert found["names"] == BUILT_IN
    assert "fracas.rulesets.ww" in found["modules"]
    assert not {"fracas.rulesets.er", "fracas.rulesets.ct", "fracas.rulesets.oldschool"} & set(found["modules"])


def test_kinds_load_only_the_rulesets_with_kinds_of_their_own():
    # ER-19 compete, ER-23 impale, save, touch, drop, lock (weapon lock/disarm), throw and slam (ER Grappling)
    # are Enchanted Realms' own kinds,
    # WW-8 counterspell
    # Worldwalker's, OS-4 morale old-school's; Cartyrion has none.
    found, _ = _run("import sys, json, fracas\n"
                    "kinds = list(fracas.rulesets.kinds())\n"
                    "print(json.dumps({'kinds': kinds, 'modules': sorted(sys.modules)}))")
    assert found["kinds"] == ["attack", "bulk", "initiative", "compete", "impale", "save", "touch", "drop",
                              "lock", "throw", "slam", "counterspell", "morale"]
    assert {"fracas.rulesets.er", "fracas.rulesets.ww", "fracas.rulesets.oldschool"} <= set(found["modules"])
    assert "fracas.rulesets.ct" not in found["modules"]


def test_an_unknown_ruleset_still_names_the_path_and_every_known_one():
    found, _ = _run("import json, fracas\n"
                    "try:\n"
                    "    fracas.resolve({'ruleset': 'chess', 'strikes': []}, seed=1)\n"
                    "except fracas.SchemaError as error:\n"
                    "    print(json.dumps({'path': error.path, 'message': str(error)}))")
    assert found["path"] == "$.ruleset"
    assert "unknown ruleset 'chess' (one of: enchanted-realms, worldwalker, cartyrion, old-school)" in found["message"]


def test_typed_requests_and_the_backend_are_there_on_first_access():
    found, _ = _run("import json, fracas\n"
                    "from fracas import AttackRequest, Strike\n"
                    "print(json.dumps({'request': AttackRequest.__module__, 'strike': Strike.__name__,"
                    " 'backend': fracas.backend, 'kernels': fracas._kernels.name() == fracas.backend,"
                    " 'morale': fracas.roll('morale', {'ruleset': 'old-school', 'morale': 7}, seed=1)"
                    ".to_dict()['breaks']}))")
    assert found == {"request": "fracas.rulesets.er.schema", "strike": "Strike",
                     "backend": found["backend"], "kernels": True, "morale": False}
    assert found["backend"] in ("compiled", "python")


def test_a_broken_plugin_is_reported_on_the_registrys_first_use_not_at_import(tmp_path):
    """A plug-in is imported when the registry discovers the rulesets (its first use), so the
    warning for one that fails to import comes then, once, and `failed()` names it."""
    from .test_plugin_failures import broken_plugin

    site = tmp_path / "site"
    site.mkdir()
    broken_plugin(site)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])]))
    found, stderr = _run("import sys, json, fracas\n"
                         "sys.stderr.write('IMPORTED\\n'); sys.stderr.flush()\n"
                         "names = list(fracas.rulesets())\n"
                         "print(json.dumps({'names': names, 'failed': fracas.rulesets.failed()}))", env)
    before, _, after = stderr.partition("IMPORTED\n")
    assert "numpyy" not in before
    assert after.count("ModuleNotFoundError: No module named 'numpyy'") == 1
    assert found["names"] == BUILT_IN
    assert list(found["failed"]) == ["broken-pool"]
    assert found["failed"]["broken-pool"].startswith("entry point 'broken-pool' = 'brokenplug' (group"
                                                     " fracas.rulesets, distribution fracas-brokenplug 0.3)")


def test_a_command_imports_what_it_needs_and_help_lists_every_command():
    """`fracas attack` imports neither the other rulesets' own commands nor the bridge;
    `fracas --help` (the whole table) lists them all, as before."""
    found, _ = _run("import sys, json\n"
                    "from fracas.cli import main\n"
                    "try:\n"
                    "    main(['attack', '--dice', '3', '--bonus', '2', '--ac', '14', '--weight', '1', '--str', '4',"
                    " '--style', 'slashing', '--seed', '1', '--json'], standalone_mode=False)\n"
                    "except SystemExit:\n"
                    "    pass\n"
                    "after_attack = sorted(sys.modules)\n"
                    "print()\n"
                    "print(json.dumps({'modules': after_attack, 'commands': list(main.commands)}))")
    assert "fracas.rulesets.er" in found["modules"]  # the default ruleset resolved the attack
    for unneeded in ("fracas.rulesets.oldschool", "fracas.rulesets.ww", "fracas.rulesets.ct", "fracas.bridge.cli",
                     "fracas.release"):
        assert unneeded not in found["modules"], unneeded
    assert found["commands"] == ["attack", "odds", "replay", "bench", "initiative", "doctor", "encounter", "simulate",
                                 "sweep", "clients", "compete", "impale", "save", "touch", "drop", "lock", "throw", "slam",
                                 "counterspell", "morale", "serve", "token",
                                 "journal"]
    done = subprocess.run([sys.executable, "-m", "fracas", "--help"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    listed = [line.split()[0] for line in done.stdout.split("Commands:")[1].splitlines()
              if line.startswith("  ") and not line.startswith("   ")]
    assert listed == sorted(found["commands"])


def test_a_ruleset_whose_kind_clashes_with_a_built_in_ones_is_refused_before_that_ruleset_is_used():
    """Registration compares a ruleset's own kinds with those known (ER-19's compete is
    Enchanted Realms'): the built-in declaring that kind loads first, as if registered at import."""
    found, _ = _run("import json, sys\n"
                    "sys.path.insert(0, %r)\n"
                    "import fracas\n"
                    "from fracas.rulesets import base\n"
                    "from tests.seam.coins import CoinToss\n"
                    "class Clash(CoinToss):\n"
                    "    own_kinds = (base.Kind('compete', 'coin.compete', 'coin_compete', 'the coin', 'coin',"
                    " 'compile_attack', 'roll_attack'),)\n"
                    "try:\n"
                    "    fracas.rulesets.register(Clash())\n"
                    "    print(json.dumps({'refused': None}))\n"
                    "except fracas.rulesets.RulesetInvalid as error:\n"
                    "    print(json.dumps({'refused': str(error), 'er': fracas.rulesets.get('enchanted-realms').name}))"
                    % str(HERE.parents[1]))
    assert found["refused"] is not None and "its kind 'compete' differs from the 'compete' kind already known" \
        in found["refused"]
    assert found["er"] == "enchanted-realms"
