"""One command for every generated and fixture file of a source checkout, in order.

    python -m fracas.spec            regenerate everything (writes only what changed)
    python -m fracas.spec --check    write nothing; exit 1 naming each stale file and
                                     the command that regenerates it

The steps, in the order that matters:

1. the spec's outputs (`facts.toml` → Python, Cython, JavaScript, JSON Schema; see
   `fracas.spec.generate`), which the later steps read;
2. the Roll20 bundles (`node vtt_scripts/roll20/build.js`), which include the spec's
   `facts.js` and `relay/methods.js`;
3. the known-answer vectors (`tests/vectors/generate*.py`) and the Roll20 test fixtures
   (`vtt_scripts/roll20/test/tools/*.py`), made by the engine as it is now.

Every generator of step 3 is a script with a function `outputs() -> {path: text}` and a
`__main__` that writes them (`write()` below). `--check` imports each script and
compares its `outputs()` with the committed bytes; the regenerating run starts each
script in its own process instead, so that it imports the Python files step 1 may just
have written. Without `node` the bundles are skipped (and not checked) with a message.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Callable, Optional

from . import generate

NODE_MISSING = ("node is not on PATH: the Roll20 bundles were {what} "
                "(install Node.js 20 and run `node vtt_scripts/roll20/build.js`)")


@dataclass(frozen=True)
class Step:
    """One generator: `command` as typed at the top of the checkout regenerates its
    files; `render(root)` returns them, {path from the top: text}, without writing."""

    command: str
    render: Callable[[Path], Optional[dict[str, str]]]  # None: cannot run here (no node)
    run: Callable[[Path], None]


def _spec_render(root: Path) -> dict[str, str]:
    return generate.render_all(root)


def _spec_run(root: Path) -> None:
    for path in generate.write_all(root):
        print(f"wrote {path}", flush=True)


BUILD_JS = "vtt_scripts/roll20/build.js"
_PRINT_BUNDLES = "process.stdout.write(JSON.stringify(require(process.argv[1]).buildAll()))"


def _node_render(root: Path) -> Optional[dict[str, str]]:
    node = shutil.which("node")
    if node is None:
        return None
    done = subprocess.run([node, "-e", _PRINT_BUNDLES, str(root / BUILD_JS)], capture_output=True,
                          text=True, encoding="utf-8", check=False)
    if done.returncode != 0:
        raise RuntimeError(f"`node {BUILD_JS}` failed:\n{done.stderr}")
    base = Path(BUILD_JS).parent
    return {(base / name).as_posix(): text for name, text in json.loads(done.stdout).items()}


def _node_run(root: Path) -> None:
    node = shutil.which("node")
    if node is None:
        print(NODE_MISSING.format(what="not rebuilt"), file=sys.stderr)
        return
    subprocess.run([node, str(root / BUILD_JS)], cwd=root, check=True)


def _load(path: Path) -> ModuleType:
    """Import a generator script by its path (they live outside the package)."""
    spec = importlib.util.spec_from_file_location(f"_fracas_regen_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def script(path: str, *args: str) -> Step:
    """A generator script of the checkout, run as `python path args…`."""

    def render(root: Path) -> dict[str, str]:
        made = _load(root / path).outputs()
        return {Path(target).resolve().relative_to(root.resolve()).as_posix(): text
                for target, text in made.items()}

    def run(root: Path) -> None:
        subprocess.run([sys.executable, str(root / path), *args], cwd=root, check=True)

    return Step(" ".join(["python", path, *args]), render, run)


STEPS: list[Step] = [
    Step("python -m fracas.spec", _spec_render, _spec_run),
    Step(f"node {BUILD_JS}", _node_render, _node_run),
    script("tests/vectors/generate.py"),
    script("tests/vectors/generate_rulesets.py"),
    script("tests/vectors/generate_specials.py"),
    script("tests/vectors/generate_save.py"),
    script("tests/vectors/generate_os_save.py"),
    script("tests/vectors/generate_touch.py"),
    script("tests/vectors/generate_drop.py"),

    script("tests/vectors/generate_lock.py"),
    script("tests/vectors/generate_throw.py"),
    script("tests/vectors/generate_slam.py"),
    script("tests/vectors/generate_odds.py"),
    script("vtt_scripts/roll20/test/tools/er_fuzz.py", "write"),
    script("vtt_scripts/roll20/test/tools/rng_answers.py"),
    script("vtt_scripts/roll20/test/tools/d6pool_contract.py"),
    script("vtt_scripts/foundry/test/tools/bridged_answers.py"),
]


@dataclass(frozen=True)
class Report:
    stale: list[tuple[str, str]]  # (path, the command that regenerates it)
    files: list[str]  # every file compared
    skipped: list[str]  # steps that could not run here, with why


def check(root: Path, steps: Optional[list[Step]] = None) -> Report:
    """Compare every step's files with what is in `root`, byte for byte; write nothing."""
    stale: list[tuple[str, str]] = []
    skipped: list[str] = []
    files: list[str] = []
    for step in STEPS if steps is None else steps:
        made = step.render(root)
        if made is None:
            skipped.append(NODE_MISSING.format(what="not checked"))
            continue
        for path, text in made.items():
            files.append(path)
            target = root / path
            if not target.exists() or target.read_bytes() != text.encode("utf-8"):
                stale.append((path, step.command))
    return Report(stale, files, skipped)


def write(made: dict[Path, str]) -> None:
    """Write a generator's outputs that differ from what is there (the scripts' `__main__`)."""
    for path, text in made.items():
        path = Path(path)
        if path.exists() and path.read_bytes() == text.encode("utf-8"):
            continue
        path.write_text(text, encoding="utf-8", newline="\n")
        shown = path.resolve()
        if shown.is_relative_to(Path.cwd()):
            shown = shown.relative_to(Path.cwd())
        print(f"wrote {shown}", file=sys.stderr)


def not_a_checkout(root: Path) -> str:
    """Why `python -m fracas.spec` cannot run from this install, and what to do instead."""
    package = Path(generate.__file__).resolve().parents[1]
    return (f"fracas.spec: {root} is not a source checkout (it has no cython_core/): this fracas runs from "
            f"{package}, a copy that `pip install .` made, and the files it checks and regenerates live in a "
            "clone of the repository. It needs a source checkout with an editable install: in the clone "
            "(git clone https://github.com/fracas-vtt/fracas), run `pip install -e .`, then "
            "`python -m fracas.spec --check` from the same environment.")


def main(argv: list[str], root: Optional[Path] = None) -> int:
    root = root or generate.repo_root()
    if argv not in ([], ["--check"]):
        print("usage: python -m fracas.spec [--check]", file=sys.stderr)
        return 2
    if not (root / "cython_core").is_dir():
        print(not_a_checkout(root), file=sys.stderr)
        return 2
    if argv == ["--check"]:
        report = check(root)
        for line in report.skipped:
            print(line, file=sys.stderr)
        if report.stale:
            width = max(len(path) for path, _ in report.stale)
            print("stale files (each with the command that regenerates it; "
                  "`python -m fracas.spec` regenerates all):", file=sys.stderr)
            for path, command in report.stale:
                print(f"  {path:<{width}}  {command}", file=sys.stderr)
            return 1
        print(f"{len(report.files)} generated and fixture files are up to date")
        return 0
    for step in STEPS:
        print(f"== {step.command}", flush=True)
        step.run(root)
    return 0
