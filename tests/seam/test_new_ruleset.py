"""The acceptance test of issue 33: a fifth ruleset, added to a temporary install as a
third-party package (docs/examples/d6pool: a d6 pool, each 5-6 hits for 1, Python only),
is accepted by the API, the CLI, the bridge, odds, bulk, fights and the docs index with
no file of fracas edited. It is installed the way pip would: the package on `sys.path`
and a dist-info whose entry point `d6-pool = d6pool` is in the group `fracas.rulesets`.

Its attacks, bulk requests and exact odds run on the row kernel's success-counting mode
(the package's `D6Pool` is a `rows.RowRuleset` of `pool_row` strikes; its manifest says
`row_kernel = "success-count"`). That the bulk ran at compiled speed is shown by what the
engine reports, not by timing: the bulk result's `backend` is "compiled", and the compiled
core's `xroll_summary` is the kernel that rolled it, on rows of hit mode X_HIT_COUNT only.
The compiled core and the pure-Python twin (`FRACAS_PUREPYTHON=1`) give the same seeded
results, and the exact odds match seeded rolls.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
#: The docs' row-kernel example plug-in (docs/examples/d6pool), the package the guide quotes.
D6POOL = HERE.parents[1] / "docs" / "examples" / "d6pool" / "d6pool"

CHECKS = r'''
import json, orjson, sys
from pathlib import Path
from fractions import Fraction
import fracas
from click.testing import CliRunner
from fracas.cli import main
from fracas.bridge.dispatcher import Dispatcher, Session
from fracas.bridge.journal import Journal
from fracas.spec import generate

out = {}
out["rulesets"] = list(fracas.rulesets())
m = fracas.rulesets.get("d6-pool").manifest
attack = dict(m.requests["attack"], ruleset="d6-pool")
r = fracas.resolve(attack, seed=4).to_dict()
out["api"] = [r["total_damage"] == sum(s["hits"] for s in r["strikes"]),
              [s["hits"] for s in r["strikes"]] == [sum(1 for f in s["faces"] if f >= 5) for s in r["strikes"]],
              fracas.resolve(dict(attack, rolls=[5, 6, 1, 2, 6, 4, 5]), seed=1).to_dict()["total_damage"] == 4]
odds = fracas.odds(attack)
orc = dict(odds.distribution("orc"))
out["odds"] = [sum(orc.values()) == 1, orc[0] == Fraction(2, 3) ** 4, orc[4] == Fraction(1, 3) ** 4]
from fracas import _kernels, _layout as L
kernel_calls = []  # the hit modes of the rows each call of the compiled bulk kernel rolled
core = _kernels.compiled if _kernels.name() == "compiled" else None  # None: pure Python (FRACAS_PUREPYTHON=1)
if core is not None:
    real = core.xroll_summary
    def spy(plan, *args):
        kernel_calls.append(sorted({plan[i + L.X_HIT] for i in range(0, len(plan), L.XPLAN_WIDTH)}))
        return real(plan, *args)
    core.xroll_summary = spy
bulk = fracas.resolve_bulk(dict(m.requests["bulk"], ruleset="d6-pool"), seed=2, threads=2).to_dict()
if core is not None:
    core.xroll_summary = real
out["bulk"] = [bulk["attacks_total"] == 500, 500 * 4 / 3 * 0.85 < bulk["total_damage"] < 500 * 4 / 3 * 1.15,
               m.row_kernel == "success-count" == fracas.rulesets.get("d6-pool").row_kernel,
               # DP-1: 4d6 a raider attack, each 5-6 one damage (the histogram is by damage)
               len(bulk["groups"][0]["histogram"]) <= 5 and sum(bulk["groups"][0]["histogram"]) == 500,
               bulk["backend"] == _kernels.name(),
               core is None or (kernel_calls != [] and all(modes == [L.X_HIT_COUNT] for modes in kernel_calls))]
fight = fracas.simulate("@d6-skirmish", runs=20, seed=1).to_dict()
out["fights"] = [fight["completed"] == 20, sorted(fight["sides"]) == ["guards", "raiders"]]
# its plain round (DP-2 initiative, called each round) plays on the fight loop, in worker
# processes too: the same figures as the Python round loop's
one = fracas.simulate("@d6-skirmish", runs=300, seed=1).to_dict()
two = fracas.simulate("@d6-skirmish", runs=300, seed=1, workers=2).to_dict()
slow = fracas.simulate("@d6-skirmish", runs=300, seed=1, loop="python").to_dict()
strip = lambda r: {k: v for k, v in r.items() if k not in ("timing", "fight_loop")}
flat = "compiled_fights" if _kernels.name() == "compiled" else "flat_python_fights"
out["fights"] += [one["fight_loop"][flat] == two["fight_loop"][flat] == 300, one["fight_loop"]["python_fights"] == 0,
                  two["timing"]["workers"] == 2, strip(one) == strip(two) == strip(slow)]
runner = CliRunner()
with open("attack.json", "w") as fh:
    json.dump(attack, fh)
cli = runner.invoke(main, ["attack", "attack.json", "--seed", "4", "--json"])
sim = runner.invoke(main, ["simulate", "@d6-skirmish", "--runs", "5", "--seed", "1"])
odd = runner.invoke(main, ["odds", "--request", "attack.json", "--json"])
out["cli"] = [cli.exit_code == 0 and json.loads(cli.output) == r, sim.exit_code == 0, odd.exit_code == 0,
              "d6-pool (DP)" in runner.invoke(main, ["attack", "--ruleset", "chess"]).output]
journal = Journal(":memory:")
d = Dispatcher(token="t" * 32, journal=journal)
s = Session(peer="test")
def ask(i, method, params=None):
    msg = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        msg["params"] = params
    return orjson.loads(d.handle(s, orjson.dumps(msg).decode()).data)
ask(0, "auth", {"token": "t" * 32})
info = ask(1, "server.info")["result"]
res = ask(2, "attack.resolve", dict(attack, seed=4))["result"]
blk = ask(3, "attack.bulk", dict(m.requests["bulk"], ruleset="d6-pool", seed=2))["result"]
od = ask(4, "attack.odds", attack)["result"]
ini = ask(5, "initiative.roll", dict(m.requests["initiative"], ruleset="d6-pool", seed=3))["result"]
bad = ask(6, "attack.resolve", dict(attack, strikes=[{"target": "orc", "dice": 40}]))["error"]
out["bridge"] = ["d6-pool" in info["rulesets"], res == r, blk["attacks_total"] == 500, "targets" in od,
                 [e["id"] for e in ini["order"]] != [], bad["data"]["path"] == "$.params.strikes[0].dice",
                 "a pool is 1 to 20 dice (DP-1)" in bad["message"]]
own = fracas.roll("pool", {"ruleset": "d6-pool", "dice": 5}, seed=8).to_dict()
from fracas.spec.schema import protocol_schema
out["own kind"] = [own["hits"] == sum(1 for f in own["faces"] if f >= 5), len(own["faces"]) == 5,
                   fracas.roll_pool({"ruleset": "d6-pool", "dice": 5}, seed=8).to_dict() == own,
                   ask(7, "pool.roll", {"ruleset": "d6-pool", "dice": 5, "seed": 8})["result"] == own,
                   ask(7, "pool.roll", {"ruleset": "d6-pool", "dice": 5, "seed": 8})["result"] == own,  # journaled
                   ask(8, "journal.replay", {"id": 7})["result"]["matches"],
                   json.loads(runner.invoke(main, ["pool", "--dice", "5", "--seed", "8"]).output) == own,
                   "params.pool.roll" in protocol_schema(generate.load())["$defs"]]
index = fracas.rulesets.docs_index()
row = next(line for line in index.splitlines() if "`d6-pool`" in line)
out["docs"] = [row.startswith("| D6 pool |"), "| python |" in row, "d6-pool" in generate.rules_index({}, Path(sys.argv[1]))]
# Its own constants and messages (manifest [constants], [messages]) are read from its manifest
# at run time; fracas's generated files are made from the built-in rulesets' alone.
facts = generate.load()
made = generate.python_facts(facts, Path(sys.argv[1])) + generate.roll20_facts(facts, Path(sys.argv[1]))
out["own facts"] = [m.constants["dp_most_dice"] == 20, m.say("dp_dice_range", dice=0, most=20).endswith("(DP-1)"),
                    "dp_dice_range" not in facts["messages"], "dp_most_dice" not in facts["rules"],
                    "pool.roll" not in facts["bridge"]["methods"], "DP-1" not in made and "DP_MOST_DICE" not in made,
                    "pool.roll" in fracas.rulesets.kinds()["pool"].method]
print(json.dumps(out))
'''


def _install(site: Path) -> None:
    """The package and a dist-info with its entry point: what `pip install` leaves."""
    shutil.copytree(D6POOL, site / "d6pool")
    info = site / "fracas_d6pool-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fracas-d6pool\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[fracas.rulesets]\nd6-pool = d6pool\n")


def test_a_fifth_ruleset_installed_as_a_package_works_everywhere(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    _install(site)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])]))
    # The checkout's docs (the rules index the generator rewrites): an installed fracas has none.
    done = subprocess.run([sys.executable, "-c", CHECKS, str(HERE.parents[1])], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found.pop("rulesets")[-1] == "d6-pool"
    failed = {area: checks for area, checks in found.items() if not all(checks)}
    assert not failed, failed


SEEDED = r'''
import json
from fractions import Fraction
import fracas
m = fracas.rulesets.get("d6-pool").manifest
attack = dict(m.requests["attack"], ruleset="d6-pool")
bulk = dict(m.requests["bulk"], ruleset="d6-pool")
out = {"backend": fracas.resolve_bulk(bulk, seed=2).to_dict()["backend"],
       "attack": [fracas.resolve(attack, seed=s).to_dict() for s in range(20)],
       "bulk": fracas.resolve_bulk(bulk, seed=2, threads=2).to_dict(),
       "listed": fracas.resolve_bulk(dict(bulk, detail="dice", attacks=[dict(bulk["attacks"][0], count=50)]),
                                     seed=3).to_dict()}
if out["backend"] == "compiled":
    # 5d6 (4 dice + extra 1), each 5-6 a success: 200,000 seeded attacks beside the exact odds
    many = dict(bulk, profiles={"raider": {"attacker": {"extra": 1}, "strikes": [{"dice": 4}]}},
                attacks=[{"profile": "raider", "target": "orc", "count": 200000}])
    out["histogram"] = fracas.resolve_bulk(many, seed=2026).to_dict()["groups"][0]["histogram"]
    exact = dict(fracas.odds(dict(attack, strikes=[{"target": "orc", "dice": 4}])).distribution("orc"))
    out["exact"] = [str(exact.get(k, 0)) for k in range(6)]
print(json.dumps(out))
'''


def _run(tmp_path, script: str, **env: str) -> dict:
    site = tmp_path / "site"
    if not site.exists():
        site.mkdir()
        _install(site)
    environ = {k: v for k, v in os.environ.items() if k != "FRACAS_PUREPYTHON"}
    environ.update(env, PYTHONPATH=os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])]))
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=environ, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    found: dict = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def test_its_compiled_pool_is_its_pure_python_pool_and_lands_on_the_exact_odds(tmp_path):
    """DP-1 ("every die showing 5 or 6 hits its target for 1") on both backends: the same
    seeds give the same attacks, bulk totals and listed dice with the compiled core as with
    FRACAS_PUREPYTHON=1; and 200,000 seeded 5d6 attacks land on the exact odds (each
    damage's share within 5 standard errors of its exact probability)."""
    from fractions import Fraction

    compiled = _run(tmp_path, SEEDED)
    if compiled["backend"] != "compiled":
        pytest.skip("the compiled core is not built")
    python = _run(tmp_path, SEEDED, FRACAS_PUREPYTHON="1")
    assert python["backend"] == "python"
    for key in ("attack", "bulk", "listed"):
        assert _without_backend(compiled[key]) == _without_backend(python[key]), key
    assert all(s["hits"] == sum(1 for f in s["faces"] if f >= 5) for a in compiled["attack"] for s in a["strikes"])
    attacks = compiled["listed"]["attacks"]
    assert len(attacks) == 50 and all(a["damage"] == sum(s["hits"] for s in a["strikes"]) for a in attacks)
    exact = [Fraction(p) for p in compiled["exact"]]
    assert sum(exact) == 1 and exact[0] == Fraction(2, 3) ** 5 and exact[5] == Fraction(1, 3) ** 5
    histogram = compiled["histogram"] + [0] * (6 - len(compiled["histogram"]))
    n = sum(histogram)
    assert n == 200_000 and len(histogram) == 6
    for damage, (count, p) in enumerate(zip(histogram, exact)):
        sigma = (float(p) * (1 - float(p)) / n) ** 0.5
        assert abs(count / n - float(p)) < 5 * sigma, (damage, count / n, float(p))


def _without_backend(value):
    """A result with its `backend` field (which names the backend) left out, at any depth."""
    if isinstance(value, dict):
        return {k: _without_backend(v) for k, v in value.items() if k != "backend"}
    if isinstance(value, list):
        return [_without_backend(v) for v in value]
    return value


def test_the_conformance_suite_checks_it_too(tmp_path):
    """tests/conformance runs over fracas.rulesets(): with the package installed, over it too."""
    site = tmp_path / "site"
    site.mkdir()
    _install(site)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])]))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "d6-pool",
                           str(HERE.parent / "conformance")], cwd=HERE.parents[1], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    import re

    passed = re.search(r"(\d+) passed", done.stdout)
    # manifest, docs row, examples, its four kinds, odds, errors, kinds it lacks, injected faces
    assert passed is not None and int(passed.group(1)) >= 11, done.stdout[-2000:]


def test_without_the_package_it_is_not_there():
    import fracas

    assert "d6-pool" not in fracas.rulesets()


def test_the_docs_site_builds_with_it(tmp_path):
    """`mkdocs build --strict` with the package installed: its rules page (kept in its folder),
    its request reference and its row of the rules index are in the site."""
    import importlib.util

    import pytest

    for module in ("mkdocs", "material", "mkdocstrings_handlers", "mkdocs_click"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed (the docs extra: pip install 'fracas[docs]')")
    root = HERE.parents[1]
    site = tmp_path / "site"
    site.mkdir()
    _install(site)
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1",
               PYTHONPATH=os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])]))
    out = tmp_path / "built"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(root / "mkdocs.yml"),
                           "-d", str(out)], cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "**DP-1**" not in (rules := (out / "rules" / "d6-pool" / "index.html").read_text()) and "DP-1" in rules
    assert "D6 pool" in (out / "reference" / "d6-pool" / "index.html").read_text()
    index = (out / "rules" / "index.html").read_text()
    assert "<code>d6-pool</code>" in index and 'href="d6-pool/"' in index
