"""SIGTERM and SIGHUP stop a command as Ctrl-C does: the output being written
is removed (no hidden temporary file, no partial file), exit status 128 + signal;
on a local Dask cluster too, at once and in one line."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from swgpu.cli.main import Terminated, _Termination

LETTERS = "ACDEFGHIKLMNPQRSTVWY"


def _inputs(folder: Path) -> None:
    """Random proteins: 150 x 300 pairs of length 150, a job of many seconds."""
    rng = random.Random(7)
    for name, count in (("q.fa", 150), ("t.fa", 300)):
        records = (f">{name[0]}{i}\n{''.join(rng.choices(LETTERS, k=150))}\n" for i in range(count))
        (folder / name).write_text("".join(records))


def _temp_files(folder: Path) -> list[str]:
    return [n for n in os.listdir(folder) if n.endswith(".tmp")]


def _swgpu(signum: int, *args: str) -> list[str]:
    """The command line of ``swgpu args`` in a child that acts on ``signum``
    whatever this process inherited (``nohup`` ignores SIGHUP; a shell's
    background job, SIGINT): the disposition is reset before the command runs."""
    handler = "signal.default_int_handler" if signum == signal.SIGINT else "signal.SIG_DFL"
    start = f"import signal; signal.signal({int(signum)}, {handler}); from swgpu.cli import entry; entry()"
    return [sys.executable, "-c", start, *args]


def _signal_while_writing(folder: Path, signum: int) -> tuple[int, str]:
    """Start ``swgpu align`` writing ``out.tsv`` in ``folder``, send ``signum``
    once its temporary file exists; the exit status and stderr."""
    _inputs(folder)
    cmd = _swgpu(signum, "align", "q.fa", "t.fa", "-f", "blast6", "--min-score", "0", "--device", "cpu",
                 "--threads", "1", "-o", "out.tsv")
    proc = subprocess.Popen(cmd, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not _temp_files(folder):
            assert proc.poll() is None, f"finished before the output was opened: {proc.communicate()}"
            assert time.monotonic() < deadline, "no temporary output file after 60 s"
            time.sleep(0.02)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, err


@pytest.mark.parametrize("ignored", [False, True], ids=["", "under-nohup"])
@pytest.mark.parametrize("signum,code", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_signal_removes_the_output_being_written(tmp_path, signum, code, ignored):
    """Also when the tests themselves run with the signal ignored (``nohup pytest``)."""
    old = signal.signal(signum, signal.SIG_IGN) if ignored else None
    try:
        returncode, err = _signal_while_writing(tmp_path, signum)
    finally:
        if ignored:
            signal.signal(signum, old)
    assert returncode == code, err
    assert err.strip() == f"swgpu: terminated by {signal.Signals(signum).name}"
    assert _temp_files(tmp_path) == [] and not (tmp_path / "out.tsv").exists()


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _interrupt(proc, signum) -> tuple[str, float]:
    """Send ``signum`` and wait for the end: standard error and the seconds it took."""
    sent = time.monotonic()
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    return err, time.monotonic() - sent


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_ctrl_c_stops_a_long_search_at_once(tmp_path):
    """One 200,000-residue query: one batch of the database is many seconds of
    one kernel call. Ctrl-C there ends the command within about a second."""
    import resource

    rng = random.Random(11)
    (tmp_path / "q.fa").write_text(f">long\n{''.join(rng.choices(LETTERS, k=200_000))}\n")
    (tmp_path / "small.fa").write_text(f">short\n{''.join(rng.choices(LETTERS, k=50))}\n")
    (tmp_path / "db.fa").write_text("".join(f">d{i}\n{''.join(rng.choices(LETTERS, k=8000))}\n" for i in range(64)))
    search = ["search", "-d", "db.fa", "--device", "cpu", "--threads", "2"]
    # the same start (imports, database, kernels compiled or loaded) with a short query: its CPU time
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(_swgpu(signal.SIGINT, *search, "-q", "small.fa", "-o", "small.tsv"), cwd=tmp_path, check=True,
                   capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    proc = subprocess.Popen(_swgpu(signal.SIGINT, *search, "-q", "q.fa", "-o", "out.tsv"), cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while _cpu_seconds(proc.pid) < start + 1.0:  # a second of scoring: inside the kernel
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        err, waited = _interrupt(proc, signal.SIGINT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert (proc.returncode, err) == (130, "swgpu: interrupted\n")
    assert waited < 2.0, f"{waited:.1f} s from Ctrl-C to the end"
    assert _temp_files(tmp_path) == [] and not (tmp_path / "out.tsv").exists()


def test_signal_leaves_an_existing_output_alone(tmp_path):
    (tmp_path / "out.tsv").write_text("previous results\n")
    returncode, _ = _signal_while_writing(tmp_path, signal.SIGTERM)
    assert returncode == 143
    assert (tmp_path / "out.tsv").read_text() == "previous results\n" and _temp_files(tmp_path) == []


def test_ignored_signal_stays_ignored_and_handlers_come_back():
    """``nohup`` ignores SIGHUP: the command line must not turn it back on."""
    old_hup = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    old_term = signal.getsignal(signal.SIGTERM)
    termination = _Termination()
    try:
        termination.install()
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) not in (old_term, signal.SIG_IGN)
        termination.restore()
        assert signal.getsignal(signal.SIGTERM) == old_term
    finally:
        termination.restore()
        signal.signal(signal.SIGHUP, old_hup)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_signal_lost_in_a_destructor_is_sent_again():
    """Python drops an exception raised in ``__del__``; the signal must not be lost with it."""
    class Dropper:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(1000):  # the handler runs here and its exception is dropped
                pass

    termination = _Termination()
    termination.install()
    try:
        with pytest.raises(Terminated) as info:
            with termination:
                Dropper()
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    time.sleep(0.01)
        assert info.value.signum == signal.SIGTERM and time.monotonic() < deadline
    finally:
        termination.restore()


def _search_inputs(folder: Path) -> None:
    """Random proteins: 150 queries against 4000 of length 300, a search of
    many seconds on two workers."""
    rng = random.Random(11)
    for name, count in (("q.fa", 150), ("db.fa", 4000)):
        records = (f">{name[0]}{i}\n{''.join(rng.choices(LETTERS, k=300))}\n" for i in range(count))
        (folder / name).write_text("".join(records))


@pytest.mark.parametrize("signum,code,kill_worker", [(signal.SIGINT, 130, False), (signal.SIGTERM, 143, True)])
def test_signal_stops_a_local_cluster_at_once(tmp_path, signum, code, kill_worker):
    """``--workers 2`` busy with a search: the signal ends it within 2 s,
    with the one line of the command line (no traceback, none of Dask's log
    lines, also after a worker was killed), and the cluster's private
    folder is removed."""
    pytest.importorskip("distributed")
    psutil = pytest.importorskip("psutil")
    _search_inputs(tmp_path)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    cmd = _swgpu(signum, "search", "-q", "q.fa", "-d", "db.fa", "--device", "cpu", "--threads", "1", "--workers", "2",
                 "--quiet", "-o", "out.tsv")  # (acting on the signal also where it is ignored: a background job's SIGINT)
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=dict(os.environ, TMPDIR=str(tmp)), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)

    def started(new: int, old: frozenset = frozenset()) -> frozenset:
        """Wait for ``new`` workers besides ``old`` (their folders' names)."""
        deadline = time.monotonic() + 60
        while len(names := frozenset(d.name for d in tmp.rglob("worker-*") if d.is_dir()) - old) < new:
            assert proc.poll() is None, f"finished before its workers started: {proc.communicate()}"
            assert time.monotonic() < deadline, f"not {new} new workers after 60 s"
            time.sleep(0.05)
        time.sleep(1)  # they join the cluster and run their tasks
        return names

    try:
        first = started(2)
        if kill_worker:  # its nanny starts another, which gets its tasks
            workers = [p for p in psutil.Process(proc.pid).children() if "spawn_main" in " ".join(p.cmdline())]
            workers[0].kill()
            started(1, first)
        assert proc.poll() is None, f"finished before the signal: {proc.communicate()}"
        err, elapsed = _interrupt(proc, signum)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, err
    line = "swgpu: interrupted" if signum == signal.SIGINT else f"swgpu: terminated by {signal.Signals(signum).name}"
    assert err == line + "\n", err
    assert elapsed < 2, elapsed
    assert list(tmp.iterdir()) == [] and not (tmp_path / "out.tsv").exists()
