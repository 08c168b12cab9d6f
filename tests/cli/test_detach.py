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


PREPARED = textwrap.dedent("""
    import os, sys, time
    from swgpu.cli import detach
    action, marker = sys.argv[1], sys.argv[2]
    def prepare():
        if action == "fail":
            raise OSError("unreadable")
        return b"x" * 3_000_000 + b"end"
    detach.split(prepare)
    assert detach.preparing()
    if action == "ignore":  # never takes them: the parent must not wait to hand them over
        detach.report(0)
        time.sleep(1.5)
        open(marker, "w").write("done")
        os._exit(0)
    data = detach.prepared()
    print(None if data is None else (len(data), bytes(data[-3:])), detach.preparing(), detach.prepared(), flush=True)
    detach.report(0)
    os._exit(0)
""")


@pytest.mark.parametrize("action, shown", [("take", "(3000003, b'end') False None"), ("fail", "None False None")])
def test_what_the_parent_prepares_reaches_the_child(tmp_path, action, shown):
    done = subprocess.run([sys.executable, "-c", PREPARED, action, str(tmp_path / "marker")], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == shown


def test_prepared_bytes_never_taken_do_not_hold_the_parent(tmp_path):
    marker = tmp_path / "marker"
    done = subprocess.run([sys.executable, "-c", PREPARED, "ignore", str(marker)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()  # the parent returned while the child still ran
    _wait_for(marker)


def test_screen_reads_ahead_in_the_parent(tmp_path):
    """The same outputs whether the parent reads the pairs ahead, the child
    reads them (standard input: read once only), or nothing is detached."""
    (tmp_path / "q.fa").write_text(">q1 first\nACGTACGTACGGT\n>q2\nGGGGACGT\n>q3\nN\n")
    (tmp_path / "t.fa").write_text(">t1\nACGTTCGTACGT\n>t2 two\nCCCCACGA\n>t3\nA\n")
    base = [sys.executable, "-m", "swgpu", "screen", "--device", "cpu"]
    outs = {}
    for mode, inputs, stdin in (("0", ["-q", "q.fa", "-t", "t.fa"], None), ("1", ["-q", "q.fa", "-t", "t.fa"], None),
                                ("1", ["-q", "-", "-t", "t.fa"], "q.fa")):
        env = dict(os.environ, SWGPU_DETACH=mode)
        for extra, name in (([], "out.tsv"), (["--threshold", "0", "-f", "sam"], "out.sam")):
            src = open(tmp_path / stdin) if stdin else None
            done = subprocess.run(base + inputs + extra + ["-o", name], cwd=tmp_path, env=env, stdin=src,
                                  capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, done.stderr
            lines = (tmp_path / name).read_text().splitlines()
            outs.setdefault(name, []).append([x for x in lines if not x.startswith("@PG")])
    for name, got in outs.items():
        assert got[0] == got[1] == got[2], name
    (tmp_path / "bad.fa").write_text(">q1\nACGT\n>q2\nMKVLPQRST\n>q3\nA\n")
    bad = subprocess.run(base + ["-q", "bad.fa", "-t", "t.fa", "-o", "x.tsv"], cwd=tmp_path,
                         env=dict(os.environ, SWGPU_DETACH="1"), capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "bad.fa" in bad.stderr, bad.stderr
    assert not (tmp_path / "x.tsv").exists()


def test_what_screen_reads_ahead(tmp_path, monkeypatch):
    from swgpu.cli import screen
    from swgpu.cli.main import _prepare, build_parser
    from swgpu.io.packed import unpack

    (tmp_path / "q.fa").write_text(">q1\nACGT\n")
    (tmp_path / "t.fa").write_text(">t1\nACGA\n")
    q, t = str(tmp_path / "q.fa"), str(tmp_path / "t.fa")
    [[qs], [ts]] = unpack(_prepare(["screen", "-q", q, "-t", t]))
    assert (qs.name, qs.text, ts.name, ts.text) == ("q1", "ACGT", "t1", "ACGA")
    assert _prepare(["screen", "-q", "-", "-t", t]) == b""  # standard input: the child reads it
    assert _prepare(["search", "-q", q, "-d", t]) == b""  # a command that prepares nothing
    from swgpu.cli.options import UsageError

    with pytest.raises((UsageError, SystemExit)):
        _prepare(["screen", "--no-such-flag"])  # the parent's _send gives the child nothing then
    monkeypatch.setattr(screen, "READ_AHEAD_BYTES", 5)
    assert screen.prepare(build_parser().parse_args(["screen", "-q", q, "-t", t])) == b""
    assert _prepare(["screen", "-q", str(tmp_path / "missing.fa"), "-t", t]) == b""

    def warns(args):
        import warnings

        warnings.warn("something about the input")
        return [], []

    monkeypatch.setattr(screen, "READ_AHEAD_BYTES", 1 << 20)
    monkeypatch.setattr(screen, "_read_pairs", warns)  # a warning is the child's to give: nothing prepared
    assert _prepare(["screen", "-q", q, "-t", t]) == b""
