#!/usr/bin/env bash
# Test what is shipped. Installs what the tests need (idempotently), then:
#   1. builds the sdist and, from it, a wheel (python -m build), as a release does;
#   2. installs the sdist into a fresh venv on the OLDEST supported Python this machine
#      has (its compiled core is built from the sdist's sources) and the wheel into a
#      fresh venv on the NEWEST, and runs the Python suite against each installed package
#      (the sdist's venv with websockets at the lowest version pyproject.toml allows);
#   3. runs the suite once more on the pure-Python kernels (FRACAS_PUREPYTHON=1), less the
#      tests of what the kernels do not decide (PURE_LEAVES_OUT below), in two parts;
#   4. runs the JavaScript tests (node --test, headless Chromium) and the quick benchmark;
#   the sdist installs (compiling its core) while the wheel builds, and once the wheel is
#   installed the work goes in two lanes (the sdist's run, node, then a sixth of the pure-
#   Python run | the rest of the pure-Python run, then the wheel's compiled run).
# Supported Pythons are the classifiers in pyproject.toml; an interpreter is looked for in
# pyenv's versions folder and on PATH (python3.X), never downloaded. The run fails only
# when a present interpreter's run fails, and closes with `fracas: N passed, N failed`.
#
#   bash scripts/test.sh      (FRACAS_TEST_DIR=DIR keeps the venvs and dist/ elsewhere;
#                              FRACAS_TEST_PYTHONS="python3.12" tests on the interpreters named)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
WORK=${FRACAS_TEST_DIR:-$ROOT/.test}
export DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
unset FRACAS_PUREPYTHON PYTHONPATH

step() { printf '\n== %s  [%s]\n' "$*" "$(date -u +%H:%M:%S)"; }
die() { printf 'test.sh: %s\n' "$*" >&2; exit 1; }
LOGS=$(mktemp -d)
trap 'rm -rf "$LOGS"' EXIT
FAILED_STEPS=()

need=()
# The interpreters: every supported version this machine has, oldest first.
find_python() {  # find_python 3.10 -> the path of a working python3.10 with venv, or nothing
  local version=$1 candidate
  local candidates=()
  for candidate in $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}/versions/$version".* 2>/dev/null | sort -V -r); do
    candidates+=("$candidate/bin/python$version")
  done
  candidate=$(command -v "python$version" 2>/dev/null) && candidates+=("$candidate")
  for candidate in "${candidates[@]}"; do
    # A pyenv shim that is not selected answers with an error: the check below rejects it.
    if [ -x "$candidate" ] && "$candidate" -c "import sys, venv, ensurepip; assert '%d.%d' % sys.version_info[:2] == '$version'" 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  return 1
}
mapfile -t SUPPORTED < <(grep -oP '"Programming Language :: Python :: \K3\.[0-9]+(?=")' pyproject.toml)
[ ${#SUPPORTED[@]} -gt 0 ] || die "no 'Programming Language :: Python :: 3.X' classifiers in pyproject.toml"
PRESENT=(); MISSING=()
if [ -n "${FRACAS_TEST_PYTHONS:-}" ]; then  # CI's matrix names its interpreter(s): oldest first
  for named in $FRACAS_TEST_PYTHONS; do
    found=$(command -v "$named") && "$found" -c 'import venv, ensurepip' 2>/dev/null \
      || die "FRACAS_TEST_PYTHONS names $named, which is not a Python with venv"
    PRESENT+=("$found")
  done
else
  for version in "${SUPPORTED[@]}"; do
    if found=$(find_python "$version"); then PRESENT+=("$found"); else MISSING+=("$version"); fi
  done
fi
if [ ${#PRESENT[@]} -eq 0 ]; then  # none by version: the system python3, with Debian's venv module
  PRESENT=("$(command -v python3)") || die "no supported Python (${SUPPORTED[*]}) found"
  python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
fi
# System packages: a C compiler for the core, node for the VTT scripts, Debian's chromium.
command -v cc >/dev/null 2>&1 || need+=(build-essential)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
[ -x /usr/bin/chromium ] || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  step "apt-get install ${need[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo -n"
  $SUDO apt-get update -qq || die "apt-get update failed"
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null || die "apt-get install failed"
fi

OLDEST=${PRESENT[0]}
NEWEST=${PRESENT[${#PRESENT[@]}-1]}
version_of() { "$1" -c 'import platform; print(platform.python_version())'; }
step "interpreters: supported ${SUPPORTED[*]}; present ${#PRESENT[@]}${MISSING:+, absent ${MISSING[*]}}"
echo "sdist: Python $(version_of "$OLDEST") ($OLDEST)"
echo "wheel: Python $(version_of "$NEWEST") ($NEWEST)"

fresh_venv() {  # fresh_venv PYTHON DIR: a new venv with a current pip
  rm -rf "$2"
  "$1" -m venv "$2" && "$2/bin/python" -m pip install -q --upgrade pip
}
mkdir -p "$WORK"
SDIST_VENV=$WORK/sdist-venv
WHEEL_VENV=$WORK/wheel-venv
DIST=$WORK/dist

step "python -m build: the sdist, then a wheel built from it on $(version_of "$NEWEST") while the sdist installs on $(version_of "$OLDEST")"
rm -rf "$DIST"
fresh_venv "$NEWEST" "$WHEEL_VENV" || die "could not make a venv with $NEWEST"
"$WHEEL_VENV/bin/python" -m pip install -q build || die "could not install build"
# The sdist's run is also the lowest-dependency run: websockets at the lowest version the
# package allows (its bound read from pyproject.toml), since the bridge's own caps on pongs,
# fragments and write buffers stand in for limits only later versions carry.
LOWEST_WEBSOCKETS=$("$WHEEL_VENV/bin/python" - <<'PY'
import re, pathlib
text = pathlib.Path("pyproject.toml").read_text()
print(re.search(r'"websockets>=([0-9.]+)"', text).group(1))
PY
) || die "no websockets lower bound in pyproject.toml"

check_installed() {  # check_installed VENV: the package under test is the installed one, compiled
  "$1/bin/python" -c 'import fracas, sys
where = fracas.__file__
assert where.startswith(sys.prefix), f"fracas imported from {where}, not from {sys.prefix}"
assert fracas.backend == "compiled", fracas.backend
import websockets
print("fracas", fracas.__version__, fracas.backend, "on Python", sys.version.split()[0], "from", where,
      "with websockets", websockets.version.version)' \
    || { echo "$1: fracas is not installed with its compiled core"; return 1; }
}
install_sdist() {  # the sdist into a fresh venv on the oldest Python (its compiled core built from it)
  fresh_venv "$OLDEST" "$SDIST_VENV" || { echo "could not make a venv with $OLDEST"; return 1; }
  # pip caches the wheel it builds from a local sdist, by the sdist's path: a wheel built
  # from an earlier run's sdist (or without a compiler) must not stand in for this build.
  "$SDIST_VENV/bin/python" -m pip cache remove -q 'fracas' >/dev/null 2>&1 || true
  FRACAS_REQUIRE_COMPILED=1 "$SDIST_VENV/bin/python" -m pip install -q "fracas[test,bench,docs] @ file://$SDIST" \
    || { echo "the sdist did not install"; return 1; }
  "$SDIST_VENV/bin/python" -m pip install -q "websockets==$LOWEST_WEBSOCKETS" \
    || { echo "could not install websockets $LOWEST_WEBSOCKETS (the lowest version allowed)"; return 1; }
  check_installed "$SDIST_VENV"
}

# The compiled core is mandatory here: a build failure must fail the run, not fall back.
FRACAS_REQUIRE_COMPILED=1 "$WHEEL_VENV/bin/python" -m build --sdist --outdir "$DIST" . >"$LOGS/build.txt" 2>&1 \
  || { tail -40 "$LOGS/build.txt"; die "python -m build --sdist failed"; }
SDIST=$(ls "$DIST"/fracas-*.tar.gz)
export FRACAS_SDIST=$SDIST  # tests/release/test_packaging.py reads the shipped sdist
# Both compile the core, each on one core of a 2-core machine: the sdist's install into a
# fresh venv on the oldest Python (the first step of lane 1 below, which waits for it) and
# the wheel, built as `python -m build` builds one, from the unpacked sdist.
( install_sdist >"$LOGS/sdist-install.log" 2>&1; echo $? >"$LOGS/sdist-install.rc" ) &
UNPACKED=$(mktemp -d -p "$LOGS")
tar -xzf "$SDIST" -C "$UNPACKED" || die "could not unpack $SDIST"
FRACAS_REQUIRE_COMPILED=1 "$WHEEL_VENV/bin/python" -m build --wheel --outdir "$DIST" "$UNPACKED"/fracas-* \
  >>"$LOGS/build.txt" 2>&1 || { tail -40 "$LOGS/build.txt"; die "python -m build --wheel failed"; }
WHEEL=$(ls "$DIST"/fracas-*.whl)
echo "$(basename "$SDIST")  $(basename "$WHEEL")"

step "install the wheel into $WHEEL_VENV"
"$WHEEL_VENV/bin/python" -m pip install -q "fracas[test,bench,docs] @ file://$WHEEL" || die "the wheel did not install"
check_installed "$WHEEL_VENV" || die "the wheel's venv is not as it should be"

step "node: npm install"
npm install --no-audit --no-fund --loglevel=error || die "npm install failed"

# The four runs go in two lanes, one per core of a 2-core machine, as soon as the wheel is
# installed: the sdist's run (once its install, started beside the wheel's build, is done)
# and node's in one lane, the pure-Python run (the longest) and the wheel's compiled run in
# the other; the lanes take about the same time. Each run has its log in a file, printed whole at the end, and home
# folders of its own (XDG_*), so that two runs never share a token file, a journal or a config.
run_logged() {  # run_logged NAME COMMAND...: COMMAND's output in $LOGS/NAME.log, its exit code in $LOGS/NAME.rc
  local name=$1; shift
  local own; own=$(mktemp -d -p "$LOGS")
  env XDG_DATA_HOME="$own/data" XDG_CONFIG_HOME="$own/config" XDG_STATE_HOME="$own/state" \
      XDG_CACHE_HOME="$own/cache" "$@" >"$LOGS/$name.log" 2>&1
  echo $? >"$LOGS/$name.rc"
}
pytest_run() {  # pytest_run LABEL VENV [ENV=VALUE...] [-- PYTEST_ARGS...]: the Python suite, from the checkout, on VENV's fracas
  local label=$1 venv=$2; shift 2
  local envs=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  # Run from the tests folder's parent with the installed package (not src/) on the path.
  run_logged "pytest-$label" env "${envs[@]}" "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@" tests
}
# The pure-Python run is the kernels' run: it leaves out the tests of what the kernels do
# not decide (packaging and the shipped clients, the benchmarks' harness, the bridge's
# transport and journal under load), which both compiled runs cover; every other test runs
# on all three. This keeps the lanes even (the pure-Python run was the longest by minutes).
PURE_LEAVES_OUT=(--ignore=tests/release --ignore=tests/bench)
for neutral in hardening fair_shares flood journal_locks durability fuzz journal_cap outside_readers \
               journal_exactly_once rotation journal_damage lane group_commit responsiveness; do
  PURE_LEAVES_OUT+=("--ignore=tests/bridge/test_$neutral.py")
done
SDIST_RUN="sdist, Python $(version_of "$OLDEST"), compiled core, websockets $LOWEST_WEBSOCKETS"
WHEEL_RUN="wheel, Python $(version_of "$NEWEST"), compiled core"
# The pure-Python run is cut in two to even the lanes: the folders of PURE_IN_LANE_1 (about
# a sixth of its time) run in the first lane after node, the rest in the second; each test
# runs in exactly one of the two (a folder is in one list, and ignored by the other run).
PURE_IN_LANE_1=(tests/fights tests/rulesets tests/spec)
PURE_REST=("${PURE_LEAVES_OUT[@]}")
PURE_PART=("${PURE_LEAVES_OUT[@]}")
for folder in tests/*/; do
  folder=${folder%/}
  if [[ " ${PURE_IN_LANE_1[*]} " == *" $folder "* ]]; then PURE_REST+=("--ignore=$folder")
  else PURE_PART+=("--ignore=$folder"); fi
done
PURE_RUN="wheel, Python $(version_of "$NEWEST"), pure-Python kernels"
PURE_RUN_1="$PURE_RUN ($(printf '%s ' "${PURE_IN_LANE_1[@]#tests/}")folders)"  # a log's name: no slash
PURE_RUN_2="$PURE_RUN (the other folders)"
export FRACAS_PYTHON="$WHEEL_VENV/bin/python"
step "two lanes: pytest ($SDIST_RUN, once its install is done), node --test, then pytest ($PURE_RUN_1) | pytest ($PURE_RUN_2), then pytest ($WHEEL_RUN)"
( while [ ! -s "$LOGS/sdist-install.rc" ]; do sleep 1; done  # started beside the wheel's build
  [ "$(cat "$LOGS/sdist-install.rc")" = 0 ] && pytest_run "$SDIST_RUN" "$SDIST_VENV"
  run_logged node env PATH="$WHEEL_VENV/bin:$PATH" npm test
  pytest_run "$PURE_RUN_1" "$WHEEL_VENV" FRACAS_PUREPYTHON=1 -- "${PURE_PART[@]}" ) &
( pytest_run "$PURE_RUN_2" "$WHEEL_VENV" FRACAS_PUREPYTHON=1 -- "${PURE_REST[@]}"
  pytest_run "$WHEEL_RUN" "$WHEEL_VENV" ) &
wait
for name in sdist-install "pytest-$SDIST_RUN" "pytest-$WHEEL_RUN" "pytest-$PURE_RUN_2" "pytest-$PURE_RUN_1" node; do
  step "$name (ended $(date -u -r "$LOGS/$name.rc" +%H:%M:%S 2>/dev/null || echo 'without an exit code'))"
  cat "$LOGS/$name.log" 2>/dev/null
  [ "$(cat "$LOGS/$name.rc" 2>/dev/null)" = 0 ] || FAILED_STEPS+=("$name")
done

step "fracas bench --quick"
mkdir -p bench-results
# The compiled example plug-in, so the benchmark measures it beside the row kernel
# (benchmarks/plugin_bench.py); built from a copy into a folder of its own, leaving nothing
# in the checkout, and not installed in the venv: the start-up section times fracas alone.
rm -rf "$LOGS/burstpool" "$LOGS/burstpool-site"
cp -r "$ROOT/docs/examples/burstpool" "$LOGS/burstpool"
"$WHEEL_VENV/bin/python" -m pip install -q --no-deps --no-build-isolation --target "$LOGS/burstpool-site" \
  "$LOGS/burstpool" || FAILED_STEPS+=("build docs/examples/burstpool for the benchmark")
export FRACAS_BENCH_PLUGIN_PATH="$LOGS/burstpool-site"
"$WHEEL_VENV/bin/fracas" bench --quick --json bench-results/quick.json || FAILED_STEPS+=("fracas bench --quick")

# One closing line for all the runs (the benchmark above is not a test), after a recap of
# what failed (pytest's FAILED/ERROR lines, node's failing tests with their errors): the end
# of a CI log is often all a reader sees of it, so a failure must be named there.
"$WHEEL_VENV/bin/python" - "$LOGS" <<'PY'
import pathlib, re, sys
logs = pathlib.Path(sys.argv[1])
passed = failed = 0
recap = []
for log in sorted(logs.glob("pytest-*.log")):
    text = log.read_text()
    lines = [line for line in text.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    if not lines:  # the run died before its summary: count it as a failure
        print(f"no pytest summary in {log.name}")
        recap += [f"{log.stem}: no summary; its last lines:", *text.splitlines()[-15:]]
        failed += 1
        continue
    passed += sum(int(n) for n in re.findall(r"(\d+) passed", lines[-1]))
    failed_here = sum(int(n) for n in re.findall(r"(\d+) (?:failed|errors?)\b", lines[-1]))
    failed += failed_here
    if failed_here:
        recap += [f"{log.stem}:", *[line for line in text.splitlines() if line.startswith(("FAILED ", "ERROR "))]]
node = (logs / "node.log").read_text()
found = re.search(r"^ℹ pass (\d+)", node, re.M), re.search(r"^ℹ fail (\d+)", node, re.M)
if all(found):
    passed += int(found[0].group(1))
    failed += int(found[1].group(1))
    if int(found[1].group(1)):
        # node's spec reporter lists each failing test again, with its error, after "✖ failing tests:"
        tail = node.split("✖ failing tests:", 1)
        shown = tail[1].splitlines() if len(tail) == 2 else node.splitlines()[-40:]
        recap += ["node:", *shown[:120]]
else:
    print("no node --test summary")
    recap += ["node: no summary; its last lines:", *node.splitlines()[-15:]]
    failed += 1
if recap:
    print("\nwhat failed:")
    print("\n".join(recap))
print(f"\nfracas: {passed} passed, {failed} failed")
PY
if [ ${#FAILED_STEPS[@]} -gt 0 ]; then
  printf 'failed: %s\n' "${FAILED_STEPS[@]}" >&2
  exit 1
fi
