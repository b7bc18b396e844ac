"""The rule files the compiled fight loop includes as source, and the digest of their text.

`cython_core/fights.pyx` includes some plain-Python rule files (`include "fracas/…"`:
docs/ENCOUNTERS.md, "Rules written once for both loops"); the include lines are the one
list of them. setup.py reads the list here, compiles the digest of the files' text into the
loop, and the stale-core check (`fracas._kernels.stale_reason`) compares it with the
installed files': a loop built from other rule files than the Python rounds import would
play other rules, so it is not used. setup.py loads this file by its path, before fracas is
installed: it imports nothing from fracas.

A shared rule file is plain Python and also Cython in "pure Python mode": the loop compiles
its functions as inline C, the Python loop (and any other reader) imports it as the module
it is, so a rule stated there is stated once; the two loops' parity tests
(tests/fights/test_fast_fights.py) play them side by side.

What a shared rule file may hold (tests/fights/test_shared_rules.py holds each to it):
- no `from __future__` import: included text cannot start a module;
- `import cython` of its own, falling back on `fracas._pure.cython` where Cython is not
  installed (a build dependency only), and read by the type checker;
- C constants as `cython.declare(cython.const[…], value)` (folded into the loop's code), or
  `cython.declare(type, value)` for a value read when the module loads;
- functions marked `cython.cfunc`, `cython.nogil` and `cython.exceptval(check=False)`
  (most `cython.inline` too), on integers (and lists of them: `cython.p_int`), with
  arithmetic that means the same in C and in Python (no division of negative numbers: the
  loop uses C division);
- dice drawn only as `draw_gen(d, faces)` from a stream `d: cython.pointer[Dice]` that the
  caller passes (`rulesets/rolloffs.py`): in C the generator's inline draw, as Python
  `fracas._pure.draws.draw_gen` (`d.die(faces)`), imported under `if not cython.compiled:`
  (`draw_many` draws a group's dice in one call, as Python only). Code for one
  side only sits behind `if cython.compiled:` / `if not cython.compiled:`, which Cython
  folds before it reads the other branch (and the type checker reads as Python:
  pyproject.toml's `always_false`);
- the loop's own state stays out: a file states a rule on what it is given.

A round procedure file (`rulesets/loop.py`, the loop's shared steps; `rulesets/<ruleset>/loop.py`,
a ruleset's round) is the compiled loop itself: the same form, but it reads the loop's
state. Its functions take the loop's `FightPlan` and `FightState` (`p`, `f`; every table
indexed, no pointer arithmetic; the stream is `f.d`), return what C would write through a
pointer (or leave it in `f`: `f.turn_done`, `f.dmg` …), and call each other and the rule
files. fights.pyx includes them after the rule files and its two structs; as Python
(`fracas.drive.pyloop`) the two are objects of arrays and the files import each other, and
always the stand-in `cython` (its NULL is None). Where C and Python must differ (a kernel
called through a pointer, a bulk copy, a cast between C integer types) both sit side by
side behind `if cython.compiled:`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

INCLUDE = re.compile(r'^include "(fracas/[^"]+\.py)"$', re.M)


def included(pyx: str) -> list[str]:
    """The rule files a .pyx source includes, as paths from the folder holding `fracas`."""
    return INCLUDE.findall(pyx)


def digest(root: Path, paths: Iterable[str]) -> str:
    """The digest of the files' paths and bytes, `root` being the folder holding `fracas`."""
    h = hashlib.sha256()
    for rel in paths:
        h.update(rel.encode() + b"\0" + (root / rel).read_bytes() + b"\0")
    return h.hexdigest()[:16]
