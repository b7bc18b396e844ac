"""The Python → JavaScript translator that writes the Roll20 row rulesets' strike compilers
(fracas.spec.pyjs, issue 45 item 6): what it refuses, and that what it writes computes what
the Python does (WW-2 … WW-7, CT-2 … CT-5, OS-3 and OS-6 run through it in the JS vector
tests, vtt_scripts/roll20/test/vectors.test.js)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from fracas.spec import generate
from fracas.spec.pyjs import TranslateError, translate

ROOT = Path(__file__).resolve().parents[2]

HEADER = """\
from fracas.requests import check_range, say
from fracas.errors import RulesError
from fracas.rulesets import rows
"""


def module(tmp_path: Path, body: str, name: str = "pyjs_case") -> ModuleType:
    path = tmp_path / f"{name}.py"
    path.write_text(HEADER + textwrap.dedent(body), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize(("body", "line", "construct"), [
    ("def f(x):\n    while x:\n        x = x - 1\n    return x\n", 5, "the statement While"),
    ("def f(x):\n    return x / 2\n", 5, "the operator Div"),
    ("def f(x):\n    return x % 2\n", 5, "the operator Mod"),
    ("def f(x):\n    return len(x)\n", 5, "a call of len (not a whitelisted helper)"),
    ("def f(x):\n    return [y for y in x]\n", 5, "the expression ListComp"),
    ("def f(x):\n    return lambda: x\n", 5, "the expression Lambda"),
    ("def f(x):\n    return x is x\n", 5, "`is` against anything but None"),
    ("def f(x):\n    return 0 <= len(x) <= 3\n", 5, "a chained comparison over a computed operand"),
    ("def f(x):\n    return f\"{x!r}\"\n", 5, "an f-string conversion or format spec"),
    ("def f(x):\n    return {x: 1}\n", 5, "a dict key that is no plain string"),
    ("def f(x, y=1):\n    return x\n", 4, "f's signature"),
    ("def f(x):\n    try:\n        return x\n    except KeyError:\n        return 0\n", 5, "the statement Try"),
    ("def f(x):\n    raise ValueError(x)\n", 5, "the statement Raise"),
    ("def f(x):\n    return y\n", 5, "the name 'y'"),
    ("def f(x):\n    new = x\n    return new\n", 4, "the local name 'new'"),
    ("def f(x):\n    a, b = b, a\n    return a\n", 5, "a tuple assignment whose right side reads its targets"),
])
def test_outside_the_subset_is_refused_with_file_and_line(tmp_path: Path, body: str, line: int,
                                                          construct: str) -> None:
    mod = module(tmp_path, body)
    with pytest.raises(TranslateError) as caught:
        translate(mod, (mod.f,))
    assert f"pyjs_case.py:{line}: " in str(caught.value)
    assert construct in str(caught.value)
    assert "outside the Roll20 translator's subset" in str(caught.value)


def test_a_marked_function_must_be_a_module_level_def(tmp_path: Path) -> None:
    mod = module(tmp_path, "f = lambda x: x\n")
    with pytest.raises(TranslateError, match="is not a module-level function"):
        translate(mod, (mod.f,))


BODY = """
LIMIT = 5
WORDS = ("a", "b")


def half(level):
    return (level + 1) // 2


def pick(x, word, missing):
    total = 0
    for name in ("p", "q"):
        total += x[name]
    if missing is None and word in WORDS:
        kind = "known"
    elif not 0 <= total <= LIMIT:
        kind = "far"
    else:
        kind = None
    a = b = 2
    cols = [0, 0, 0]
    cols[0], cols[1] = a * total, -b
    cols[2] = half(total) if total > 0 or word == "b" else 7
    return cols, {"kind": kind, "text": f"{word}:{total}", "none": missing is not None, "either": missing or word}
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the translated JavaScript")
def test_translated_functions_compute_what_the_python_does(tmp_path: Path) -> None:
    """The subset's meanings (floor division, chained comparisons, `or` yielding a value,
    `is None`, pairwise and chained assignment, conditional expressions, f-strings) hold in
    the JavaScript: the same calls give the same JSON."""
    mod = module(tmp_path, BODY, "pyjs_run")
    consts, lines = translate(mod, (mod.half, mod.pick))
    calls = [({"p": 1, "q": 2}, "a", None), ({"p": 4, "q": 4}, "z", None), ({"p": -3, "q": 0}, "b", 1),
             ({"p": 0, "q": 0}, "", None), ({"p": 2, "q": 1}, "b", None)]
    script = "\n".join([*consts, *lines, f"const calls = {json.dumps(calls)};",
                        "console.log(JSON.stringify(calls.map((c) => pick(...c))));"])
    (tmp_path / "run.js").write_text(script, encoding="utf-8")
    got = json.loads(subprocess.run(["node", str(tmp_path / "run.js")], capture_output=True, text=True,
                                    check=True).stdout)
    want = json.loads(json.dumps([mod.pick(*c) for c in calls]))
    assert got == want


def test_every_row_ruleset_marks_its_strike_compiler() -> None:
    """strikes.js holds one entry per ruleset that marks CLIENT_STRIKE, each with the
    three functions the Roll20 rows resolver calls (vtt_scripts/roll20/src/rows.js)."""
    text = generate.roll20_strikes({}, ROOT)
    for name in ("worldwalker", "cartyrion", "old-school"):
        assert f'STRIKES["{name}"]' in text
    assert text.count("return { ") == 3
    for function in ("checkAttacker", "checkTarget", "compileStrike"):
        assert text.count(f"function {function}(") == 3
