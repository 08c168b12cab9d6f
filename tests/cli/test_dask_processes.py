"""A cluster started as on two hosts -- ``dask scheduler`` and two ``dask
worker`` processes (each with its nanny), on the loopback interface -- runs
``search``, ``scan`` and ``align --ends`` given its address (``--scheduler``):
the output files are those of one process, nothing is printed on standard
error, a second search of the same database finds it loaded on the workers,
and a worker killed while a command runs is replaced by its nanny and its
tasks run again, with the same output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

from dask_checks import stop_processes  # noqa: E402
from swgpu.parallel import SCHEDULER_ENV  # noqa: E402

EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))
_ACGT = np.frombuffer(b"ACGT", dtype=np.uint8)


def _dna(tmp: Path) -> None:
    """``genome.fa`` (two random chromosomes), ``reads.fa`` (mutated pieces and a random read), ``long.fa``."""
    rng = np.random.default_rng(11)
    chroms = [_ACGT[rng.integers(0, 4, n)] for n in (60_000, 40_000)]
    (tmp / "genome.fa").write_bytes(b"".join(b">chr%d\n%s\n" % (k + 1, c.tobytes()) for k, c in enumerate(chroms)))
    reads = []
    for k, (c, at, n) in enumerate([(0, 1_000, 300), (1, 20_000, 250), (0, 55_000, 200)]):
        piece = chroms[c][at:at + n].copy()
        hit = rng.random(n) < 0.05
        piece[hit] = _ACGT[rng.integers(0, 4, int(hit.sum()))]
        reads.append(b">read%d\n%s\n" % (k, piece.tobytes()))
    reads.append(b">noise\n%s\n" % _ACGT[rng.integers(0, 4, 200)].tobytes())
    (tmp / "reads.fa").write_bytes(b"".join(reads))
    (tmp / "long.fa").write_bytes(b">long\n%s\n" % chroms[0][10_000:16_000].tobytes())


def _commands(tmp: Path) -> dict[str, list[str]]:
    cpu = ["--device", "cpu", "--threads", "1", "--quiet"]
    return {
        "search.tsv": ["search", "-q", str(EXAMPLES / "queries.fasta"), "-d", str(EXAMPLES / "targets.fasta"),
                       "--top", "8"] + cpu,
        "scan.sam": ["scan", "-q", str(tmp / "reads.fa"), "-g", str(tmp / "genome.fa"), "--top", "3", "-f", "sam"]
        + cpu,
        "align.tsv": ["align", str(tmp / "long.fa"), str(tmp / "genome.fa"), "--ends", "5", "--alignments", "2",
                      "-f", "blast6"] + cpu,
    }


def _swgpu(args, cwd: Path, env: dict, **kw):
    return subprocess.Popen([sys.executable, "-m", "swgpu"] + args, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def _without_pg(data: bytes) -> bytes:
    return b"".join(line for line in data.splitlines(keepends=True) if not line.startswith(b"@PG"))


@pytest.fixture(scope="module")
def processes(tmp_path_factory):
    """``(address, nannies, env)`` of a scheduler and two workers started as separate processes."""
    tmp = tmp_path_factory.mktemp("cluster")
    env = dict(os.environ, TMPDIR=str(tmp))
    env.pop(SCHEDULER_ENV, None)
    dask = [sys.executable, "-m", "dask"]
    logs = open(tmp / "cluster.log", "w")
    procs = [subprocess.Popen(dask + ["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                      "--scheduler-file", str(tmp / "scheduler.json")],
                              env=env, stdout=logs, stderr=subprocess.STDOUT)]
    try:
        deadline = time.monotonic() + 60
        while not ((tmp / "scheduler.json").exists() and (tmp / "scheduler.json").stat().st_size):
            assert procs[0].poll() is None and time.monotonic() < deadline, (tmp / "cluster.log").read_text()
            time.sleep(0.05)
        address = json.loads((tmp / "scheduler.json").read_text())["address"]
        for _ in range(2):
            procs.append(subprocess.Popen(dask + ["worker", address, "--nthreads", "1", "--host", "127.0.0.1",
                                                  "--no-dashboard"], env=env, stdout=logs, stderr=subprocess.STDOUT))
        from distributed import Client

        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
        yield address, procs[1:], env
    finally:
        stop_processes(procs)
        logs.close()


@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    """The output files of each command run in one process."""
    tmp = tmp_path_factory.mktemp("alone")
    _dna(tmp)
    env = dict(os.environ)
    env.pop(SCHEDULER_ENV, None)
    out = {}
    for name, args in _commands(tmp).items():
        proc = _swgpu(args + ["-o", name], tmp, env)
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        out[name] = (tmp / name).read_bytes()
    return tmp, out


@pytest.mark.parametrize("name", ["search.tsv", "scan.sam", "align.tsv"])
def test_separate_processes_write_the_files_of_one_process(processes, alone, name):
    address, _, env = processes
    tmp, want = alone
    proc = _swgpu(_commands(tmp)[name] + ["--scheduler", address, "-o", f"cluster-{name}"], tmp, env)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert err == ""  # no log line of Dask's (nor anything else) without --verbose
    assert _without_pg((tmp / f"cluster-{name}").read_bytes()) == _without_pg(want[name])


def test_a_second_search_finds_its_database_loaded(processes, alone):
    """On a cluster that outlives the command (a scheduler given by address),
    the workers keep the database's parts: the same search again loads none
    and writes the same file."""
    from distributed import Client

    from swgpu.workloads.search import tasks

    address, _, env = processes
    tmp, want = alone

    def loads():
        with Client(address, timeout=60) as client:
            return client.run(tasks.loads)

    args = _commands(tmp)["search.tsv"] + ["--scheduler", address]
    first = None
    for k in range(2):
        proc = _swgpu(args + ["-o", f"again{k}.tsv"], tmp, env)
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert _without_pg((tmp / f"again{k}.tsv").read_bytes()) == _without_pg(want["search.tsv"])
        if k == 0:
            first = loads()
    assert sum(first.values()) >= 1
    assert loads() == first


def test_a_worker_killed_during_a_run_changes_nothing(processes, alone):
    address, nannies, env = processes
    tmp, want = alone
    name = "align.tsv"
    proc = _swgpu(_commands(tmp)[name] + ["--scheduler", address, "-o", "killed.tsv"], tmp, env)
    time.sleep(0.5)  # (the command has connected and sent its first tasks, or is about to)
    for child in psutil.Process(nannies[0].pid).children():  # the worker under the nanny: it starts another
        if "spawn_main" in " ".join(child.cmdline()):
            child.kill()
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        raise AssertionError(f"no end after 120 s: {err}")
    assert proc.returncode == 0, err
    assert (tmp / "killed.tsv").read_bytes() == want[name]
    from distributed import Client

    with Client(address, timeout=60) as client:  # both workers again, for the tests after this one
        client.wait_for_workers(2, timeout=60)
