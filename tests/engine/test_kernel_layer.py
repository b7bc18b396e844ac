"""The kernel layer returns arrays only; results are built in the rulesets (issue 33 item 6).

The kernels (the compiled core and its pure-Python twin `fracas._native`) fill out rows,
die logs and totals; an Enchanted Realms attack's strike entries are built from those in
`fracas.rulesets.er.strikes`, one source that setup.py also compiles with Cython.
"""

from __future__ import annotations

import random
import re
from array import array
from pathlib import Path

import pytest

import fracas
from fracas import _kernels
from fracas import _layout as L
from fracas import _native
from fracas._facts import ER_DEFENSE_DC
from fracas.rulesets.er import strikes

from .helpers import attack, load_vector_generator, strike

ROOT = Path(__file__).resolve().parents[2]
GENERATE = load_vector_generator()

#: A dict display with a string key: what building a JSON-ready result looks like.
RESULT_DICT = re.compile(r"""\{\s*["'][A-Za-z_]\w*["']\s*:""")


def kernel_modules():
    return [_native] + ([_kernels.compiled] if _kernels.compiled is not None else [])


@pytest.mark.parametrize("module", kernel_modules(), ids=lambda m: m.BACKEND)
def test_no_kernel_backend_builds_result_dicts(module):
    builders = sorted(name for name in dir(module) if name.endswith(("_dict", "_dicts")) or name == "to_dict")
    assert builders == [], f"{module.__name__} builds results: {builders}"


def test_no_kernel_source_writes_a_result_dict():
    """The kernels' sources hold no string-keyed dict display (the generated layout table
    `_layout.pxi`, a name → number map for the stale-core check, is not a result)."""
    sources = [ROOT / "src" / "fracas" / "_native.py"]
    if (ROOT / "cython_core").is_dir():
        sources += [path for path in sorted((ROOT / "cython_core").glob("*.p*")) if path.name != "_layout.pxi"]
    found = {path.name: RESULT_DICT.findall(path.read_text()) for path in sources}
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_the_python_backend_builds_strikes_from_the_py_source():
    source = _kernels.pure_python(strikes)
    assert Path(source.__file__).name == "strikes.py"
    assert _kernels.pure_python(source) is source


def built_both_ways(request, seed):
    """The strikes of one resolved attack from the compiled build and from the .py source."""
    result = fracas.resolve(request, seed=seed)
    args = (result.strikes_meta, result.out, result.log, result.defense, ER_DEFENSE_DC)
    return strikes.strike_dicts(*args), _kernels.pure_python(strikes).strike_dicts(*args)


def test_the_compiled_strike_builder_is_its_source():
    """A compiled strikes module older than its .py (an editable install not rebuilt)
    differs from it here; random requests of the vector generator, defenses included."""
    if not str(strikes.__file__).endswith((".so", ".pyd")):
        pytest.skip("strikes.py is not compiled in this install")
    shapes = random.Random(33)
    checked = 0
    for _ in range(200):
        request = GENERATE.random_request(shapes)
        try:
            compiled, source = built_both_ways(request, shapes.getrandbits(64))
        except fracas.RequestError:
            continue
        assert compiled == source
        checked += 1
    assert checked > 100


def test_a_defense_roll_builds_the_defenders_dice():
    """ER-22: "the player rolls one d20 per die of the monster's pool, + the PC's AC, against
    DC 21 + the monster's modifiers; … a natural 20 always avoids, a raw 1 always hits"."""
    request = attack(strikes=[strike(dice=2)], defense_rolls=True, rolls=[20, 1])
    for built in built_both_ways(request, 5):
        entry = built[0]
        ac = entry["ac"]
        assert [(d["face"], d["total"], d["avoided"]) for d in entry["dice"]] == [(20, 20 + ac, True),
                                                                                 (1, 1 + ac, False)]
        assert entry["defense_dc"] == 21 + entry["to_hit"]


@pytest.mark.parametrize("builder", ["compiled", "source"])
def test_bad_arrays_are_refused_not_read_past(builder):
    """The builder reads positions the kernel wrote; arrays that do not fit raise."""
    build = strikes.strike_dicts if builder == "compiled" else _kernels.pure_python(strikes).strike_dicts
    result = fracas.resolve(attack(strikes=[strike(dice=3)]), seed=9)
    with pytest.raises(ValueError, match="out buffer holds"):
        build(result.strikes_meta, array("q", result.out[:L.OUT_WIDTH - 1]), result.log, False, 21)
    out = array("q", result.out)
    out[L.O_LOG] = len(result.log)  # the strike's dice past the end of the log
    with pytest.raises(IndexError):
        build(result.strikes_meta, out, result.log, False, 21)
