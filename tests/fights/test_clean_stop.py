"""A clean stop, always: SIGINT or SIGTERM to the parent ALONE of a multi-process
simulation (what `timeout`, `kill -INT`, supervisors and a notebook's interrupt send)
stops the workers, writes the fights finished (`interrupted` in the JSON), exits with
128 + the signal and leaves no process behind: no worker, no resource tracker.

Each run starts in its own session, so every process it makes (spawned workers, the
multiprocessing resource tracker) shares its session id: after the exit, /proc must
hold none of them. The signal goes to the parent's pid only, never to the group.
"""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc") or sys.platform != "linux",
                                reason="reads the process table from /proc")

FRACAS = [sys.executable, "-m", "fracas"]
#: On the Python round loop a million fights take many minutes, so the signal always comes
#: while they run: the compiled loop plays them in about a second on two cores, which could
#: finish before the signal is sent (the stop is the same on either loop).
LONG = ["--loop", "python"]


def _session_members(sid):
    """The pids whose session id is `sid` (field 6 of /proc/PID/stat)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue  # gone meanwhile
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        if fields[0] != "Z" and int(fields[3]) == sid:
            found.append(int(entry))
    return found


def _wait_for(arg, what, proc, limit=120.0):
    """Until `what(arg)` holds, the process ends, or `limit` seconds (a guard against a hang, not a
    measured threshold: the test asserts on outcomes only)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline and proc.poll() is None:
        if what(arg):
            return True
        time.sleep(0.05)
    return False


def _workers_running(sid):
    # The parent, the resource tracker and the two workers: the pool is up.
    return len(_session_members(sid)) >= 4


def _stop_once(tmp_path, signum, extra=(), group=False, quiet=True):
    out = tmp_path / "result.json"
    err = tmp_path / "stderr.txt"
    out.unlink(missing_ok=True)
    with open(err, "wb") as stderr:
        proc = subprocess.Popen(
            [*FRACAS, "simulate", "@er-skeleton-horde", "--runs", "1000000", "--workers", "2", "--json", str(out),
             *LONG, *extra], stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True)
    try:
        assert _wait_for(proc.pid, _workers_running, proc), err.read_text()
        time.sleep(0.5)  # let the workers play a little (the test holds whether or not they finished a batch)
        if group:
            os.killpg(proc.pid, signum)  # a terminal's Ctrl-C: every process of the group
        else:
            os.kill(proc.pid, signum)  # the parent alone
        code = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    # The workers and the resource tracker end with the parent; allow the kernel a moment to reap them.
    deadline = time.monotonic() + 10
    while _session_members(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = _session_members(proc.pid)
    for pid in left:  # never leave them to the next test
        os.kill(pid, signal.SIGKILL)
    stderr = err.read_text()
    assert out.exists(), f"no result written (exit code {code}); stderr:\n{stderr}"
    result = json.loads(out.read_text())
    if quiet:
        assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    return code, result, left, stderr


def test_sigint_to_the_parent_alone_stops_cleanly_every_time(tmp_path):
    for attempt in range(5):
        code, result, left, stderr = _stop_once(tmp_path, signal.SIGINT)
        assert code == 130, (attempt, code, stderr)
        assert result["interrupted"] is True and result["stopped_by"] == "SIGINT"
        assert result["completed"] < result["runs"]
        assert sum(s["wins"] for s in result["sides"].values()) + result["draws"]["count"] == result["completed"]
        assert left == [], f"attempt {attempt}: processes left behind: {left}"


def test_sigterm_to_the_parent_alone_stops_cleanly(tmp_path):
    code, result, left, stderr = _stop_once(tmp_path, signal.SIGTERM)
    assert code == 143, stderr
    assert result["interrupted"] is True and result["stopped_by"] == "SIGTERM"
    assert left == []


def test_a_dask_run_stops_cleanly_too(tmp_path):
    pytest.importorskip("dask.distributed")
    code, result, left, stderr = _stop_once(tmp_path, signal.SIGINT, ("--dask", "local"))
    assert code == 130, stderr
    assert result["interrupted"] is True and result["timing"]["executor"] == "dask local"
    assert left == []


@pytest.mark.parametrize("extra", [(), ("--dask", "local")], ids=["processes", "dask"])
def test_ctrl_c_in_a_terminal_reaches_the_whole_group_and_still_stops_cleanly(tmp_path, extra):
    """The pool's workers never see SIGINT (blocked while they start, ignored once they run):
    the parent alone stops them, and no worker prints a traceback. Dask starts its workers
    from its own threads: one that a Ctrl-C reaches while it still imports may print its
    own traceback (sent here as soon as the processes exist, that is what it tests); the
    parent stops as cleanly."""
    if extra:
        pytest.importorskip("dask.distributed")
    code, result, left, stderr = _stop_once(tmp_path, signal.SIGINT, extra, group=True, quiet=not extra)
    assert code == 130, stderr
    assert result["interrupted"] is True and result["stopped_by"] == "SIGINT"
    assert left == []


API_SCRIPT = """
import json, sys
import fracas

if __name__ == "__main__":
    def progress(n, seen=[]):
        seen.append(n)
        if len(seen) == 1:
            print("running", flush=True)
    result = fracas.simulate("@er-skeleton-horde", runs=1_000_000, seed=1, workers=2, progress=progress,
                             loop="python")  # minutes of fights: the signal always comes while they run
    print(json.dumps({"interrupted": result.interrupted, "stopped_by": result.stopped_by,
                      "completed": result.completed}), flush=True)
"""


def test_the_python_api_returns_the_partial_result_and_the_interpreter_exits(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(API_SCRIPT)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, text=True)
    try:
        assert proc.stdout.readline().strip() == "running"
        os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    report = json.loads(out.strip().splitlines()[-1])
    assert report["interrupted"] and report["stopped_by"] == "SIGINT" and report["completed"] > 0
    time.sleep(0.2)
    assert _session_members(proc.pid) == []


WINDOW_SCRIPT = """
import multiprocessing, os, signal
from concurrent.futures import ProcessPoolExecutor

from fracas.drive.simulate import _children_deaf_to_sigint, _Stop


def sigint_ignored():
    with open("/proc/self/status") as status:
        ignored = next(line for line in status if line.startswith("SigIgn:")).split()[1]
    return bool(int(ignored, 16) & (1 << (signal.SIGINT - 1)))


if __name__ == "__main__":
    spawn = multiprocessing.get_context("spawn")
    with _Stop(immediate=False) as stop:
        with _children_deaf_to_sigint():
            pool = ProcessPoolExecutor(1, mp_context=spawn)
            started = pool.submit(sigint_ignored)
            os.kill(os.getpid(), signal.SIGINT)
            during = stop.event.is_set()
        after = stop.name
        later = ProcessPoolExecutor(1, mp_context=spawn)
        print(during, after, started.result(), later.submit(sigint_ignored).result())
        pool.shutdown()
        later.shutdown()
"""


def test_workers_started_in_the_window_ignore_sigint_and_the_parent_keeps_its_own(tmp_path):
    """The mechanism under the group test, in a fresh interpreter (no thread of another test
    to take the signal): a worker started in the window ignores SIGINT (a blocked mask would
    not reach it: subprocess resets the mask; an ignored disposition does), one started
    later does not, and a SIGINT sent to the parent in the window reaches `_Stop` after it."""
    script = tmp_path / "window.py"
    script.write_text(WINDOW_SCRIPT)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "SIGINT", "True", "False"]


class _FakeDask:
    """A stand-in for dask.distributed whose `Client.run` or futures fail the way a worker
    that a terminal's Ctrl-C killed makes them fail (CommClosedError, KilledWorker): the
    signal reaches the parent's handler a moment after (`late`) or before the failure."""

    def __init__(self, stop, fail_in, late):
        self.stop, self.fail_in, self.late, self.closed = stop, fail_in, late, []
        fake = self

        class LocalCluster:
            def __init__(self, **_kw):
                pass

            def close(self):
                fake.closed.append("cluster")

        class Client:
            def __init__(self, _cluster, **_kw):
                pass

            def run(self, _fn):
                if fake.fail_in == "run":
                    fake.signal()
                    raise OSError("CommClosedError: the worker is gone")

            def scheduler_info(self):
                return {"workers": {"w1": {"nthreads": 1}}}

            def submit(self, *_args, **_kw):
                return _Future(fake)

            def cancel(self, _futures):
                pass

            def close(self):
                fake.closed.append("client")

        class AsCompleted:
            def __init__(self, futures):
                self.futures = list(futures)

            def has_ready(self):
                return bool(self.futures)

            def next_batch(self, block=False):
                ready, self.futures = self.futures[:1], self.futures[1:]
                return ready

            def add(self, future):
                self.futures.append(future)

        self.LocalCluster, self.Client, self.as_completed = LocalCluster, Client, AsCompleted

    def signal(self):
        import threading
        if self.late:  # the handler runs after the failure is raised, from another thread here
            threading.Timer(0.1, self.stop.event.set).start()
        else:
            self.stop.event.set()


class _Future:
    def __init__(self, fake):
        self.fake = fake

    def result(self):
        if self.fake.fail_in == "result":
            self.fake.signal()
            raise RuntimeError("KilledWorker: the worker died")
        return {"fights": 1}


@pytest.mark.parametrize("late", [False, True], ids=["signal-first", "failure-first"])
@pytest.mark.parametrize("fail_in", ["run", "result"])
def test_a_worker_killed_by_the_groups_ctrl_c_is_the_stop_not_an_error(monkeypatch, fail_in, late):
    """A terminal's Ctrl-C reaches Dask's workers too: the cluster's start or a batch then
    fails. The parent reports the stop (the fights finished so far, none here), whether its
    own handler ran before or just after the failure, and closes the client and cluster."""
    import importlib

    from fracas.drive import simulate as sim

    stop = sim._Stop(immediate=False)
    fake = _FakeDask(stop, fail_in, late)
    real = importlib.import_module
    monkeypatch.setattr(importlib, "import_module",
                        lambda name, *a: fake if name == "dask.distributed" else real(name, *a))
    tasks = [(b"{}", 1, 0, 1)] * 3
    assert list(sim._dask(tasks, "local", 2, stop)) == []
    assert stop.event.is_set()
    assert fake.closed == ["client", "cluster"]


def test_a_dask_failure_without_a_stop_is_an_error(monkeypatch):
    import importlib

    from fracas.drive import simulate as sim

    stop = sim._Stop(immediate=False)
    fake = _FakeDask(stop, "result", False)
    fake.signal = lambda: None  # no signal: a real failure
    real = importlib.import_module
    monkeypatch.setattr(importlib, "import_module",
                        lambda name, *a: fake if name == "dask.distributed" else real(name, *a))
    with pytest.raises(RuntimeError, match="KilledWorker"):
        list(sim._dask([(b"{}", 1, 0, 1)], "local", 2, stop))
    assert fake.closed == ["client", "cluster"]
