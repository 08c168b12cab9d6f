"""A command run in a child process (swgpu.cli.detach): the parent exits with the
child's status as soon as the child reports it, passes signals on, and mirrors
a child that dies without reporting."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from swgpu.cli.detach import wanted

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")

CHILD = textwrap.dedent("""
    import os, signal, sys, time
    from swgpu.cli import detach
    detach.split()
    action, marker = sys.argv[1], sys.argv[2]
    def stop(signum, frame):
        open(marker, "w").write(signal.Signals(signum).name)
        detach.report(128 + signum)
        os._exit(128 + signum)
    if action == "wait":
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(s, stop)
    print("child", os.getpid(), flush=True)
    if action == "report":
        detach.report(3)
        time.sleep(1.5)  # the driver releasing a GPU
        open(marker, "w").write("done")
        os._exit(3)
    if action == "exit":
        sys.exit(5)
    if action == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if action == "wait":  # until a signal comes
        while True:
            time.sleep(0.05)
""")


def _start(tmp_path, action, preexec_fn=None):
    marker = tmp_path / "marker"
    proc = subprocess.Popen([sys.executable, "-c", CHILD, action, str(marker)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=preexec_fn)
    return proc, marker


def _wait_for(path, seconds=20):
    deadline = time.monotonic() + seconds
    while not (path.exists() and path.stat().st_size):  # created, then written
        assert time.monotonic() < deadline, f"no {path.name} after {seconds} s"
        time.sleep(0.05)


def test_parent_exits_when_the_child_reports(tmp_path):
    t0 = time.monotonic()
    proc, marker = _start(tmp_path, "report")
    out, err = proc.communicate(timeout=30)  # the child's stdout is closed by the report: no wait for its end
    assert time.monotonic() - t0 < 1.4 and not marker.exists()
    assert proc.returncode == 3 and out.startswith("child ") and err == ""
    _wait_for(marker)  # the child goes on to its end


@pytest.mark.parametrize("action,code", [("exit", 5), ("kill", -signal.SIGKILL)])
def test_a_child_that_does_not_report(tmp_path, action, code):
    proc, _ = _start(tmp_path, action)
    proc.communicate(timeout=30)
    assert proc.returncode == code


def test_an_inherited_ignored_sigchld_does_not_hide_the_childs_end(tmp_path):
    proc, _ = _start(tmp_path, "exit", preexec_fn=lambda: signal.signal(signal.SIGCHLD, signal.SIG_IGN))
    proc.communicate(timeout=30)
    assert proc.returncode == 5


def test_a_killed_parent_stops_the_child(tmp_path):
    proc, marker = _start(tmp_path, "wait")
    assert proc.stdout.readline().startswith("child ")
    proc.kill()
    proc.wait(timeout=30)
    _wait_for(marker)
    assert marker.read_text() == "SIGTERM"


def test_a_gpu_in_exclusive_mode_is_released_before_the_command_returns(monkeypatch):
    from swgpu.cli import detach

    class Runtime:
        modes = [0, 0]

        @classmethod
        def getDeviceCount(cls):
            return len(cls.modes)

        @classmethod
        def getDeviceProperties(cls, d):
            return {"computeMode": cls.modes[d]}

    fake = type("cupy", (), {"cuda": type("cuda", (), {"runtime": Runtime})})
    monkeypatch.setitem(sys.modules, "cupy", fake)
    assert not detach._exclusive_gpu()
    Runtime.modes = [0, 3]  # exclusive-process
    assert detach._exclusive_gpu()
    Runtime.getDeviceCount = None  # no answer
    assert detach._exclusive_gpu()
    monkeypatch.delitem(sys.modules, "cupy")
    assert not detach._exclusive_gpu()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_signals_to_the_parent_reach_the_child(tmp_path, signum):
    proc, marker = _start(tmp_path, "wait")
    assert proc.stdout.readline().startswith("child ")
    proc.send_signal(signum)
    proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum and marker.read_text() == signal.Signals(signum).name


def test_which_commands():
    env = {}
    assert not wanted([], env) and not wanted(["info"], env) and not wanted(["screen", "-h"], env)
    assert not wanted(["align", "a", "b", "--device=cpu"], env)
    assert not wanted(["scan", "--device", "cuda"], {"SWGPU_DETACH": "0"})
    assert wanted(["scan", "--device", "cuda"], env) == os.path.exists("/dev/nvidiactl")
    assert wanted(["align", "--device", "cpu"], {"SWGPU_DETACH": "1"})


def test_a_detached_command(tmp_path):
    (tmp_path / "q.fa").write_text(">q1\nACGTACGTAC\n>q2\nGGGG\n")
    (tmp_path / "t.fa").write_text(">t1\nACGTTCGTAC\n>t2\nCCCC\n")
    env = dict(os.environ, SWGPU_DETACH="1")
    cmd = [sys.executable, "-m", "swgpu", "screen", "-q", "q.fa", "-t", "t.fa", "--device", "cpu", "-o", "out.tsv"]
    done = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.tsv").read_text().splitlines()[1].startswith("q1\tt1\t")
    bad = subprocess.run(cmd[:5] + ["missing.fa"] + cmd[6:], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "missing.fa" in bad.stderr


def test_gpus_started_early_are_the_ones_the_command_uses():
    """--gpus names the GPUs started while the input is read: all of them by
    default where the command uses every GPU, none beyond the first for a
    cluster's client, for align without --ends, or for a bad list."""
    import argparse

    from swgpu.cli.cluster import gpus_to_start

    ns = lambda **kw: argparse.Namespace(**{"scheduler": None, "workers": None, **kw})  # noqa: E731
    assert gpus_to_start(ns(gpus="all")) == "all"
    assert gpus_to_start(ns(gpus="0,2")) == [0, 2]
    assert gpus_to_start(ns()) is None
    assert gpus_to_start(ns(gpus="all", workers=2)) is None
    assert gpus_to_start(ns(gpus="all", ends=None)) is None and gpus_to_start(ns(gpus="1", ends=200)) == [1]
    assert gpus_to_start(ns(gpus="x")) is None


def test_prime_takes_device_lists(monkeypatch):
    """The start hook starts each named device on a thread of its own (no GPU here: harmless)."""
    from swgpu.engines.cuda import runtime

    started = []
    monkeypatch.setattr(runtime, "_primer", None)
    monkeypatch.setattr(runtime, "_start_driver", lambda d: started.append(d))
    runtime.prime([2, 0, 2])
    for t in runtime._primer:
        t.join()
    assert sorted(started) == [0, 2]
    runtime.prime("all")  # a second call does nothing
    assert sorted(started) == [0, 2]
    monkeypatch.setattr(runtime, "_primer", None)
    runtime.prime("all")
    for t in runtime._primer:
        t.join()
    assert started[2:] == [None]  # every visible device
