"""Repeated code: identical runs of lines (whitespace-normalised) in two places or more.

    python scripts/duplicates.py [--window 8] [--show PATH-PART ...]

Scans the project's .py, .pyx, .h and .js files, skipping dependencies, builds and
generated files (those whose first lines say so), comments, imports and
blank lines. Prints, per set of files, how many windows of `--window` lines they
share; `--show` prints the shared lines of the sets naming a given path part.
The pure-Python twin mirrors the compiled core on purpose (docs/ENGINE.md).
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import re

SUFFIXES = {".py", ".pyx", ".h", ".js"}
SKIP_DIRS = {"node_modules", ".venv", "build", "dist", "__pycache__", ".git", "bench-results"}
SKIP_PREFIXES = ("#", "//", "*", "/*", '"""', "import ", "from ")


def sources(root: pathlib.Path) -> list[pathlib.Path]:
    found = []
    for path in sorted(root.rglob("*")):
        if path.suffix not in SUFFIXES or not path.is_file() or SKIP_DIRS & set(path.parts):
            continue
        head = path.read_text(errors="replace").splitlines()[:3]
        if any("generated" in line.lower() for line in head):
            continue
        found.append(path)
    return found


def windows(path: pathlib.Path, size: int) -> list[tuple[int, str]]:
    lines = [(i + 1, re.sub(r"\s+", " ", line.strip())) for i, line in enumerate(path.read_text(errors="replace").splitlines())]
    kept = [(n, line) for n, line in lines if len(line) > 3 and not line.startswith(SKIP_PREFIXES)]
    return [(kept[k][0], "\n".join(line for _, line in kept[k:k + size])) for k in range(len(kept) - size + 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--window", type=int, default=8, help="lines per window (default 8)")
    parser.add_argument("--show", nargs="*", default=[], help="print the shared lines of sets naming these")
    args = parser.parse_args()
    root = pathlib.Path(__file__).resolve().parent.parent
    seen: dict[str, list[tuple[str, int]]] = collections.defaultdict(list)
    for path in sources(root):
        for line, text in windows(path, args.window):
            seen[text].append((str(path.relative_to(root)), line))
    sets: collections.Counter[tuple[str, ...]] = collections.Counter()
    for text, places in seen.items():
        if len(places) > 1:
            files = tuple(sorted({name for name, _ in places}))
            sets[files] += 1
            if any(part in name for name in files for part in args.show):
                print(", ".join(f"{name}:{line}" for name, line in places))
                print(text, end="\n---\n")
    for files, count in sets.most_common():
        print(f"{count:5d}  {'  '.join(files)}")
    if not sets:
        print("no repeated runs of", args.window, "lines")


if __name__ == "__main__":
    main()
