"""The guide's example plug-ins install and conform (issue 45, docs that run): docs/examples/d6pool
(the row kernel), docs/examples/wilddie (the generic path) and docs/examples/burstpool (a
compiled kernel on fracas's dice, cimported from fracas_dice.pxd) are installed with pip, as an
outside developer would, into one fresh venv beside the fracas under test (the wheel or sdist
scripts/test.sh installed: not built again), and the conformance suite (tests/conformance)
runs on all three on the compiled core and on the pure-Python kernels (FRACAS_PUREPYTHON=1).
The compiled one's kernel and its pure-Python twin give the same results from the same seed."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess

import pytest

import fracas

from .conftest import ROOT, venv_beside

EXAMPLES = ROOT / "docs" / "examples"
PLUGINS = {"d6pool": "d6-pool", "wilddie": "wild-die", "burstpool": "burst-pool"}


@pytest.fixture(scope="module")
def examples_venv(tmp_path_factory):
    """A venv with the three examples pip-installed (their pyproject.toml, their entry points;
    burstpool's kernel compiled by its setup.py against fracas.dice.get_include())."""
    if not EXAMPLES.is_dir():
        pytest.skip("not run from a source checkout")
    if any(importlib.util.find_spec(name) is None for name in ("setuptools", "pip", "Cython")):
        pytest.skip("pip, setuptools and Cython are not installed (the test extra installs them)")
    tmp = tmp_path_factory.mktemp("examples")
    python = venv_beside(tmp / "venv", fracas_too=True)
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_NO_CACHE_DIR": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("FRACAS_PUREPYTHON", None)
    # Built from copies: setuptools leaves build/ and *.egg-info beside the sources it builds.
    sources = [shutil.copytree(EXAMPLES / name, tmp / "src" / name) for name in PLUGINS]
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                              *map(str, sources)],
                             capture_output=True, text=True, env=env, cwd=tmp, timeout=600)
    assert install.returncode == 0, install.stdout + install.stderr
    return python, env, tmp


def test_all_install_with_pip_and_register_from_their_entry_points(examples_venv):
    python, env, cwd = examples_venv
    probe = subprocess.run([str(python), "-c", "import json, sys, fracas, d6pool, wilddie, burstpool, burstpool._kernel\n"
                            "print(json.dumps({'rulesets': list(fracas.rulesets()), 'failed': fracas.rulesets.failed(),"
                            " 'prefix': sys.prefix, 'where': [d6pool.__file__, wilddie.__file__, burstpool.__file__,"
                            " burstpool._kernel.__file__], 'fracas': fracas.__file__}))"],
                           capture_output=True, text=True, env=env, cwd=cwd, timeout=300)
    assert probe.returncode == 0, probe.stderr
    found = json.loads(probe.stdout)
    assert set(PLUGINS.values()) <= set(found["rulesets"]) and found["failed"] == {}
    assert all(path.startswith(found["prefix"]) for path in found["where"]), found  # pip's copies
    assert found["where"][-1].endswith((".so", ".pyd")), found  # burstpool's kernel, compiled by pip
    assert os.path.dirname(found["fracas"]) == os.path.dirname(fracas.__file__)  # the fracas under test


@pytest.mark.parametrize("backend", ["compiled", "python"])
def test_the_conformance_suite_passes_on_the_examples(examples_venv, backend):
    python, env, _cwd = examples_venv
    if backend == "compiled" and fracas.backend != "compiled":
        pytest.skip("the compiled core is not built")
    run_env = dict(env, FRACAS_PUREPYTHON="1") if backend == "python" else env
    done = subprocess.run([str(python), "-m", "pytest", "-v", "-p", "no:cacheprovider", "-k",
                           " or ".join(PLUGINS.values()), "tests/conformance"],
                          cwd=ROOT, env=run_env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " failed" not in done.stdout.splitlines()[-1], done.stdout[-2000:]
    # each ruleset's own: manifest, docs row, examples, its kinds, odds, errors, kinds it
    # lacks, injected faces, schema, result shapes, on this backend
    passed = {name: len(re.findall(rf"^tests/conformance/\S*\[[^\]]*{name}[^\]]*\] PASSED", done.stdout, re.M))
              for name in PLUGINS.values()}
    assert all(count >= 15 for count in passed.values()), (passed, done.stdout[-3000:])


#: Run in the venv: burstpool's results from its kernel and from its twin, for one seed each.
PARITY = """
import json, fracas, burstpool
from fracas import _kernels
from fracas.dice import Dice, stream
attack = {"ruleset": "burst-pool", "attacker": {"extra": 2}, "strikes": [{"target": "orc", "dice": 6},
          {"target": "wolf", "dice": 3}], "targets": {"orc": {"soak": 1}, "wolf": {}}}
bulk = {"ruleset": "burst-pool", "targets": {"orc": {"soak": 1}, "elf": {}},
        "profiles": {"raider": {"attacker": {}, "strikes": [{"dice": 4}]},
                     "pair": {"attacker": {}, "strikes": [{"dice": 8}, {"dice": 2}]}},
        "attacks": [{"profile": "raider", "target": "orc", "count": 70000},
                    {"profile": "pair", "target": "elf", "count": 70000}]}
out = {}
for backend in ("compiled", "python"):
    with _kernels.using(backend):
        out[backend] = {"compiled": burstpool.compiled(),
                        "attacks": [fracas.resolve(attack, seed=s).to_dict() for s in range(40)],
                        "injected": fracas.resolve(dict(attack, rolls=[6] * 10 + [5] * 8 + [1] * 5), seed=1).to_dict(),
                        "bulk": fracas.resolve_bulk(bulk, seed=2026, threads=2).to_dict(),
                        "listed": fracas.resolve_bulk(dict(bulk, detail="dice",
                                                           attacks=[dict(bulk["attacks"][1], count=50)]), seed=3).to_dict()}
# a Python caller and the kernel on one stream: the kernel draws through the stream's capsule
c, p = stream(99), Dice.from_seed(99)
out["stream"] = [[c.die(6), burstpool.roll_pools(c, 5, 2000), c.die(20)],
                 [p.die(6), burstpool.roll_pools(p, 5, 2000), p.die(20)]]
# the kernel on fracas's row kernel (fracas_rows.pxd), its twin, and fracas's own rows path
from array import array
from fracas import _layout as L
from fracas.dice import kernel_info
from fracas.rulesets.rows import pool_row
c, p = stream(7), Dice.from_seed(7)
out["rows"] = [[c.die(6), burstpool.roll_row_pools(c, 5, 300), c.die(20)],
               [p.die(6), burstpool.roll_row_pools(p, 5, 300), p.die(20)]]
own = []
for backend in ("compiled", "python"):
    first = Dice.from_seed(7)
    first.die(6)  # as the callers above drew before their pools
    state, rows = array("I", first.state), array("i", pool_row(5, 6, burstpool.HIT_ON, explode=True) * 300)
    y = array("q", bytes(8 * 300 * L.XOUT_WIDTH))
    with _kernels.using(backend):
        _kernels.active().xroll_detail(rows, array("q", (0, 300, 1)), 1, array("q", (0, 0)), 0, 1, state, None, y,
                                       array("i", bytes(4 * 300 * 64)), kernel_info())
    own.append([y[s * L.XOUT_WIDTH + L.Y_DICE_SUM] + y[s * L.XOUT_WIDTH + L.Y_EXPLODED] for s in range(300)])
out["own_rows"] = own
print(json.dumps(out))
"""


def test_the_compiled_example_and_its_twin_give_the_same_results(examples_venv):
    """BP-1, BP-2 (docs/examples/burstpool/burstpool/rules.md "Draw order"): from the same seed the
    Cython kernel (on the compiled core) and the pure-Python twin (on the pure-Python kernels)
    give the same attacks, injected faces, bulk totals (three chunks, two threads) and listed
    dice, and a kernel drawing through `fracas.dice.stream(...).capsule` draws the faces
    `Dice.die` draws, between a Python caller's draws."""
    python, env, cwd = examples_venv
    if fracas.backend != "compiled":
        pytest.skip("the compiled core is not built")
    done = subprocess.run([str(python), "-c", PARITY], capture_output=True, text=True, env=env, cwd=cwd, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    compiled, twin = out["compiled"], out["python"]
    assert compiled.pop("compiled") is True and twin.pop("compiled") is False
    for name in compiled:
        runs = [compiled[name], twin[name]] if name in ("bulk", "listed", "injected") else None
        pairs = zip(compiled[name], twin[name]) if runs is None else [runs]
        for kernel, python_twin in pairs:
            assert (kernel.pop("backend"), python_twin.pop("backend")) == ("compiled", "python"), name
            assert kernel == python_twin, name
    assert compiled["bulk"]["attacks_total"] == 140000 and compiled["bulk"]["total_damage"] > 0
    assert any(strike["bursts"] for attack in compiled["attacks"] for strike in attack["strikes"])
    assert compiled["injected"]["strikes"][0]["faces"] == [6] * 10 + [5] * 8  # ten bursts at most (BP-1)
    kernel_stream, python_stream = out["stream"]
    assert kernel_stream == python_stream and len(set(kernel_stream[1])) > 1
    # the row kernel through fracas_rows.pxd: the twin's faces, and fracas's own rows path's
    # pools (its xroll_detail of the same success-count row, on either backend) plus the twist
    kernel_rows, python_rows = out["rows"]
    assert kernel_rows == python_rows and len(set(kernel_rows[1])) > 3
    assert out["own_rows"] == [kernel_rows[1], kernel_rows[1]]


#: Run in the venv: burstpool's kernel handed a row-kernel table of another version, then of
#: other row widths, then fracas's own (fracas_rows.pxd's rows_api() checks it at first use).
ABI = """
import ctypes, json
from fracas._core import rows
from fracas.dice import stream
import burstpool._kernel as kernel

class Table(ctypes.Structure):  # fracas_rows.pxd's RowsAPI, field for field
    _fields_ = [(name, ctypes.c_int64) for name in
                ("version", "plan_width", "out_width", "state_width", "explode_limit")] + [
               ("strike", ctypes.c_void_p), ("attack", ctypes.c_void_p)]

new_capsule = ctypes.pythonapi.PyCapsule_New
new_capsule.restype = ctypes.py_object
new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
get_pointer.restype = ctypes.c_void_p
get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
real = rows.API
said = []
for field, value in (("version", 2), ("out_width", 21)):
    table = Table.from_buffer_copy(ctypes.string_at(get_pointer(real, b"fracas.RowsAPI"), ctypes.sizeof(Table)))
    setattr(table, field, value)
    rows.API = new_capsule(ctypes.addressof(table), b"fracas.RowsAPI", None)
    try:
        kernel.row_pools(stream(1), 5, 1, 5)
        said.append(None)
    except ImportError as e:
        said.append(str(e))
rows.API = real
said.append(kernel.row_pools(stream(1), 5, 3, 5))
print(json.dumps(said))
"""


def test_the_row_kernel_table_of_another_version_is_refused(examples_venv):
    """fracas_rows.pxd's ABI check: a plug-in built against table version 1 refuses a table of
    version 2, and one whose result rows are not as wide as its _layout.pxd says, each with an
    ImportError saying both and to rebuild; fracas's own table then rolls."""
    python, env, cwd = examples_venv
    if fracas.backend != "compiled":
        pytest.skip("the compiled core is not built")
    done = subprocess.run([str(python), "-c", ABI], capture_output=True, text=True, env=env, cwd=cwd, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    version, widths, rolled = json.loads(done.stdout)
    assert version == ("fracas's row kernel table is version 2, this plug-in was built against version 1 "
                       "(fracas_rows.pxd): rebuild the plug-in against the installed fracas")
    from fracas import _layout as L

    plan, out, state = L.XPLAN_WIDTH, L.XOUT_WIDTH, L.XS_WIDTH
    assert widths == (f"fracas's row kernel rows are {plan}/21/{state} wide, this plug-in's _layout.pxd says "
                      f"{plan}/{out}/{state}: rebuild the plug-in against the installed fracas")
    assert len(rolled) == 3


def test_a_plugin_rolls_initiative_from_its_own_flags_on_the_command_line(examples_venv):
    """Issue 45, item 5: `fracas initiative --ruleset NAME` takes a plug-in's own flags
    (`kind_cli_options`, the guide's d6 pool: `--combatant ID=BONUS`, DP-2), as `attack`
    takes `cli_options`; the request they build rolls what `fracas.roll` rolls for the same
    request and seed. A ruleset without the kind, or without flags for it, is a usage error
    naming it (exit 2), not a traceback."""
    python, env, cwd = examples_venv

    def fracas_cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(python), "-m", "fracas", *args], capture_output=True, text=True, env=env,
                              cwd=cwd, timeout=300)

    helped = fracas_cli("initiative", "--ruleset", "d6-pool", "--help")
    assert helped.returncode == 0, helped.stderr
    words = " ".join(helped.stdout.split())  # as help wraps it at any width
    assert "--combatant ID=N" in words and "its initiative bonus (DP-2: d6 + bonus)" in words
    rolled = fracas_cli("initiative", "--ruleset", "d6-pool", "--combatant", "scout=2", "--combatant", "ogre=0",
                        "--seed", "7", "--json")
    assert rolled.returncode == 0, rolled.stderr
    same = subprocess.run([str(python), "-c", "import json, fracas\nprint(json.dumps(fracas.roll('initiative', "
                           "{'ruleset': 'd6-pool', 'combatants': [{'id': 'scout', 'bonus': 2}, {'id': 'ogre', "
                           "'bonus': 0}]}, seed=7).to_dict()))"], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=300)
    assert same.returncode == 0, same.stderr
    assert json.loads(rolled.stdout) == json.loads(same.stdout)
    assert {e["id"] for e in json.loads(rolled.stdout)["order"]} == {"scout", "ogre"}
    bad = fracas_cli("initiative", "--ruleset", "d6-pool", "--combatant", "scout")
    assert bad.returncode == 2 and "--combatant" in bad.stderr and "Traceback" not in bad.stderr, bad.stderr
    none = fracas_cli("initiative", "--ruleset", "d6-pool")
    assert none.returncode == 2 and "give the combatants" in none.stderr and "Traceback" not in none.stderr
    lacking = fracas_cli("initiative", "--ruleset", "wild-die")
    assert lacking.returncode == 2 and "Traceback" not in lacking.stderr, lacking.stderr
    assert "Invalid value for --ruleset" in lacking.stderr and "has no initiative requests" in lacking.stderr
