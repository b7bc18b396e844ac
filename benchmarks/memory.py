"""Peak memory of one bulk request, measured in a fresh process.

Run as `python -m fracas.benchmarks.memory --attacks N`; prints one JSON object
with the process's peak resident set (VmHWM, or getrusage's ru_maxrss off Linux)
before and after resolving N attacks of the typical strike in summary mode. A fresh process per size keeps one run's heap from
hiding another's peak.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys


def peak_rss_bytes() -> int:
    """Peak resident set of this process so far.

    On Linux this is `VmHWM` from /proc/self/status: the high-water mark of this
    process's own memory. `ru_maxrss` is not used there because execve carries the
    parent's peak over into the child's, which would report the benchmark runner's
    memory instead of the probe's. Elsewhere `ru_maxrss` (KiB, bytes on macOS).
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def measure(attacks: int, threads: int | None) -> dict:
    """Resolve `attacks` typical strikes in summary mode; report peak memory."""
    import fracas

    from .scenarios import TYPICAL

    request = TYPICAL.bulk_request(attacks, seed=1)
    before = peak_rss_bytes()
    result = fracas.resolve_bulk(request, threads=threads)
    after = peak_rss_bytes()
    return {"attacks": attacks, "threads": result.threads, "backend": result.backend,
            "peak_before_bytes": before, "peak_bytes": after,
            "total_damage": result.total_damage}


def in_subprocess(attacks: int, threads: int | None = None, timeout: float = 600.0) -> dict:
    """`measure` in a fresh Python process (the one running this code)."""
    cmd = [sys.executable, "-m", "fracas.benchmarks.memory", "--attacks", str(attacks)]
    if threads is not None:
        cmd += ["--threads", str(threads)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"memory probe failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attacks", type=int, required=True, help="attacks to resolve")
    parser.add_argument("--threads", type=int, default=None, help="threads (default: all cores)")
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.attacks, args.threads)))


if __name__ == "__main__":
    main()
