"""A fast start (issue 44 item 5): `import fracas` and `fracas --help`, each in a fresh process.

Every figure is the wall time of a new interpreter running one thing, from the start of
`subprocess.run` to its exit, on the interpreter `fracas bench` runs on:

- `python -c pass`: the interpreter alone (the floor every command pays);
- `python -c "import json, msgspec"`: the yardstick, what any JSON tool with a typed
  schema pays (fracas's requests are msgspec structs);
- `python -c "import fracas"`;
- `fracas --help` (the console script beside the interpreter; `python -m fracas --help`
  where there is none).

The four run interleaved, round after round (after one untimed warm-up round that writes
the bytecode caches, as any first run of an install does: the warm-up runs without
PYTHONDONTWRITEBYTECODE, else a module edited since the caches were made would be compiled
anew in every timed run), so load from other work falls on all of them alike; the ratio is
the median of the same-round ratios. Targets: `import fracas` at most 2x the yardstick, and
`fracas --help` under 150 ms.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional


def commands() -> dict[str, list[str]]:
    """What is timed, by key: the interpreter, the yardstick, `import fracas`, `fracas --help`."""
    python = sys.executable
    script = Path(python).with_name("fracas.exe" if os.name == "nt" else "fracas")
    helps = [str(script), "--help"] if script.is_file() else [python, "-m", "fracas", "--help"]
    return {
        "python": [python, "-c", "pass"],
        "json_msgspec": [python, "-c", "import json, msgspec"],
        "import_fracas": [python, "-c", "import fracas"],
        "help": helps,
    }


def _once(argv: list[str], env: Optional[dict[str, str]] = None) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False, env=env)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode(errors='replace')[-500:]}")
    return elapsed


def run(rounds: int) -> dict:
    """Time each command `rounds` times, interleaved; medians in ms and the paired ratio."""
    argv = commands()
    warm = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    for command in argv.values():  # warm-up: bytecode caches written, files in the page cache
        _once(command, warm)
    times: dict[str, list[float]] = {key: [] for key in argv}
    for _ in range(max(1, rounds)):
        for key, command in argv.items():
            times[key].append(_once(command))
    ratios = [f / y for f, y in zip(times["import_fracas"], times["json_msgspec"])]
    return {
        "rounds": max(1, rounds),
        "ms": {key: statistics.median(values) * 1e3 for key, values in times.items()},
        "import_vs_json_msgspec": statistics.median(ratios),
        "help_command": " ".join(Path(argv["help"][0]).name if i == 0 else part
                                 for i, part in enumerate(argv["help"])),
    }


def table(startup: Optional[dict]) -> list[str]:
    """The report's lines for the section."""
    if not startup:
        return ["Start-up · not measured"]
    ms = startup["ms"]
    return [
        f"Start-up · a fresh process each, median of {startup['rounds']} interleaved rounds",
        f"  python -c pass {ms['python']:.0f} ms · import json, msgspec {ms['json_msgspec']:.0f} ms · "
        f"import fracas {ms['import_fracas']:.0f} ms ({startup['import_vs_json_msgspec']:.2f}× the json/msgspec"
        f" import) · {startup['help_command']} {ms['help']:.0f} ms",
    ]


#: The most rounds one run of the section alone takes (a limit checked before any process starts).
MAX_ROUNDS = 1000


def main(argv: Optional[list[str]] = None) -> int:
    """The start-up section alone, without the rest of `fracas bench`:
    `python -m fracas.benchmarks.startup_bench [--rounds N] [--json]` (from a checkout,
    `python -m benchmarks.startup_bench`). Prints the report's lines, or with `--json` the
    section's JSON (the `startup` object of `fracas bench --json`)."""
    import argparse
    import json

    parser = argparse.ArgumentParser(prog="python -m fracas.benchmarks.startup_bench",
                                     description="Time `import fracas` and `fracas --help` in fresh processes.")
    parser.add_argument("--rounds", type=int, default=21, help="interleaved rounds, 1 to 1000 [default: 21]")
    parser.add_argument("--json", action="store_true", help="print the section's JSON")
    args = parser.parse_args(argv)
    if not 1 <= args.rounds <= MAX_ROUNDS:
        parser.error(f"--rounds: {args.rounds} is not within 1 to {MAX_ROUNDS}")
    result = run(args.rounds)
    print(json.dumps(result, indent=2) if args.json else "\n".join(table(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
