"""``swgpu search`` on a Dask cluster (``--workers``, ``--scheduler``,
``SWGPU_SCHEDULER``) writes the file a run in one process writes; the local
cluster of ``--workers`` listens on the loopback interface only, serves no
page, keeps its files in a private folder removed at the end, and prints none
of Dask's log lines unless ``--verbose``; bad cluster options are one line
naming the flag, exit status 2."""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from importlib import resources
from pathlib import Path

import pytest

pytest.importorskip("distributed")

import swgpu.cli.cluster  # noqa: E402
from dask_checks import check_loopback_only, check_private, dask_log_level, local_directory, served_pages  # noqa: E402
from swgpu.parallel.dask_executor import QUIET, SCHEDULER_ENV, DaskExecutor  # noqa: E402

EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))
SEARCH = ["search", "-q", EXAMPLES / "queries.fasta", "-d", EXAMPLES / "targets.fasta", "--device", "cpu",
          "--top", "8", "--quiet"]


@pytest.fixture(scope="module")
def cluster():
    with DaskExecutor(workers=2, threads_per_worker=1) as executor:
        yield executor


@pytest.fixture
def plain(run_cli, tmp_path, monkeypatch):
    """``{format: bytes}`` of the run in this process."""
    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    out = {}
    for fmt in ("tsv", "sam"):
        code, _, err = run_cli(SEARCH + ["-o", tmp_path / f"plain.{fmt}"])
        assert code == 0, err
        out[fmt] = (tmp_path / f"plain.{fmt}").read_bytes()
    return out


def _without_pg(sam: bytes) -> bytes:
    """SAM without its @PG line (the command line, which names the options)."""
    return b"".join(line for line in sam.splitlines(keepends=True) if not line.startswith(b"@PG"))


def _error_line(code, out, err):
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, (code, err)
    return err.strip()


@pytest.mark.parametrize("verbose", [False, True])
def test_local_workers_write_the_same_file(run_cli, tmp_path, plain, monkeypatch, verbose):
    """And while the cluster runs, every socket of this process and its
    children listens on 127.0.0.1 or ::1, the workers' folders are in one
    private folder of the temporary folder ($TMPDIR), gone after the run, and
    Dask's log lines are printed from INFO up with --verbose, else none."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    seen = []

    def executor_from(args):
        executor = executor_from.original(args)
        check_loopback_only(executor.run(os.getpid).values())
        assert served_pages(executor) == []
        check_private(executor.run(local_directory).values(), tmp)
        levels = set(executor.run(dask_log_level).values())  # the workers' (pytest's handler stands in for Dask's here)
        assert levels == ({logging.INFO} if verbose else {QUIET}), levels
        seen.append(executor)
        return executor

    executor_from.original = swgpu.cli.cluster.executor_from
    monkeypatch.setattr(swgpu.cli.cluster, "executor_from", executor_from)
    code, _, err = run_cli(SEARCH + ["--workers", "2", "-o", tmp_path / "dask.tsv"] + ["--verbose"] * verbose)
    assert code == 0, err
    assert len(seen) == 1 and list(tmp.iterdir()) == []
    assert (tmp_path / "dask.tsv").read_bytes() == plain["tsv"]
    assert plain["tsv"].count(b"\n") > 10


def test_scheduler_and_environment_write_the_same_file(run_cli, tmp_path, plain, cluster, monkeypatch):
    code, _, err = run_cli(SEARCH + ["--scheduler", cluster.address, "-o", tmp_path / "dask.sam"])
    assert code == 0, err
    assert _without_pg((tmp_path / "dask.sam").read_bytes()) == _without_pg(plain["sam"])
    monkeypatch.setenv(SCHEDULER_ENV, cluster.address)
    code, _, err = run_cli(SEARCH + ["-o", tmp_path / "env.tsv"])
    assert code == 0, err
    assert (tmp_path / "env.tsv").read_bytes() == plain["tsv"]
    assert cluster.workers == 2  # the command disconnected; the cluster still runs


@pytest.mark.parametrize("extra,flag", [
    (["--workers", "0"], "--workers"),
    (["--scheduler", " "], "--scheduler"),
    (["--scheduler", "tcp://127.0.0.1:8786", "--workers", "2"], "--workers"),
])
def test_bad_cluster_options(run_cli, tmp_path, extra, flag):
    line = _error_line(*run_cli(SEARCH + extra + ["-o", tmp_path / "x.tsv"]))
    assert flag in line
    assert not (tmp_path / "x.tsv").exists()


def test_without_distributed(run_cli, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    line = _error_line(*run_cli(SEARCH + ["--workers", "2"]))
    assert line.startswith("swgpu: error: the Dask executor needs") and "swgpu[dist]" in line  # --scheduler not given
