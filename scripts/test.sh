#!/usr/bin/env bash
# Install everything the tests need (idempotently) and run every test:
# Python on the compiled core, Python again on the pure-Python kernels,
# JavaScript (node --test, headless Chromium), then the quick benchmark.
#
#   bash scripts/test.sh            (FRACAS_VENV=DIR to use another virtualenv)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
VENV=${FRACAS_VENV:-$ROOT/.venv}
export DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

step() { printf '\n== %s\n' "$*"; }
LOGS=$(mktemp -d)
trap 'rm -rf "$LOGS"' EXIT

# System packages: a C compiler for the core, node for the VTT scripts, Debian's chromium.
need=()
command -v cc >/dev/null 2>&1 || need+=(build-essential)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
[ -x /usr/bin/chromium ] || need+=(chromium)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  step "apt-get install ${need[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo -n"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

step "python: $VENV"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
# The compiled core is mandatory here: a build failure must fail the run, not fall back.
FRACAS_REQUIRE_COMPILED=1 "$VENV/bin/python" -m pip install -q ".[test,bench]"
export FRACAS_PYTHON="$VENV/bin/python"
PATH="$VENV/bin:$PATH"

step "node: npm install"
npm install --no-audit --no-fund --loglevel=error

step "pytest (compiled core)"
# Run from the tests folder's parent with the installed package (not src/) on the path.
"$VENV/bin/python" -c 'import fracas, sys; assert fracas.backend == "compiled", fracas.backend; print("fracas", fracas.__version__, fracas.backend)'
"$VENV/bin/python" -m pytest -q -p no:cacheprovider tests | tee "$LOGS/pytest-compiled.log"

step "pytest (pure-Python kernels, FRACAS_PUREPYTHON=1)"
FRACAS_PUREPYTHON=1 "$VENV/bin/python" -m pytest -q -p no:cacheprovider tests | tee "$LOGS/pytest-python.log"

step "node --test (Roll20 Mod script, relay, Foundry module)"
npm test | tee "$LOGS/node.log"

step "fracas bench --quick"
mkdir -p bench-results
"$VENV/bin/fracas" bench --quick --json bench-results/quick.json

# One closing line for all three runs (the benchmark above is not a test).
"$VENV/bin/python" - "$LOGS" <<'PY'
import pathlib, re, sys
logs = pathlib.Path(sys.argv[1])
passed = failed = 0
for log in sorted(logs.glob("pytest-*.log")):
    last = [line for line in log.read_text().splitlines() if re.search(r"\d+ (passed|failed)", line)][-1]
    passed += sum(int(n) for n in re.findall(r"(\d+) passed", last))
    failed += sum(int(n) for n in re.findall(r"(\d+) failed", last))
node = (logs / "node.log").read_text()
passed += int(re.search(r"^ℹ pass (\d+)", node, re.M).group(1))
failed += int(re.search(r"^ℹ fail (\d+)", node, re.M).group(1))
print(f"\nfracas: {passed} passed, {failed} failed")
PY
