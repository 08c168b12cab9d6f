"""The CPU kernels compiled ahead (:mod:`swgpu.cli.prepare`, run by an
install from source): every command it runs parses and succeeds, and after
it the first commands of each workload compile nothing (their Numba cache
folder is left as it was)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from swgpu.cli.info import example_path
from swgpu.cli.main import build_parser
from swgpu.cli.prepare import commands, write_inputs


def test_commands_parse_and_cover_every_workload(tmp_path):
    runs = commands(str(tmp_path))
    for argv in runs:
        build_parser().parse_args(argv)
    assert {argv[0] for argv in runs} == {"search", "align", "screen", "scan", "makedb"}
    formats = {argv[argv.index("-f") + 1] for argv in runs if "-f" in argv}
    assert formats >= {"blast6", "blast7", "sam", "json", "pairwise"}


def test_inputs_are_what_the_commands_read(tmp_path):
    paths = write_inputs(str(tmp_path))
    reads, windows, many = (open(paths[k], "rb").read().count(b">") for k in ("reads", "windows", "many_windows"))
    assert reads == windows == 24 and many == 24_000
    assert all(os.path.getsize(p) > 0 for p in paths.values())


def _state(folder):
    return {os.path.join(d, n): os.stat(os.path.join(d, n)).st_mtime_ns
            for d, _, names in os.walk(folder) for n in names}


@pytest.mark.slow
def test_after_prepare_the_first_commands_compile_nothing(tmp_path):
    cache = tmp_path / "numba"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), SWGPU_CACHE_DIR=str(tmp_path / "swgpu"))
    done = subprocess.run([sys.executable, "-m", "swgpu.cli.prepare"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "compiled for this machine" in done.stderr and "ended with status" not in done.stderr
    before = _state(cache)
    assert any(name.endswith(".nbi") for name in before)
    data = write_inputs(str(tmp_path))
    q, t = example_path("queries.fasta"), example_path("targets.fasta")
    out = str(tmp_path / "out")
    for argv in (["demo"],
                 ["search", "-q", q, "-d", t, "--top", "10", "--outfmt", "7 qseqid sseqid score btop"],
                 ["search", "-q", q, "-d", t, "--top", "10", "--max-hsps", "3", "--evalue", "1e9", "--outfmt",
                  "6 qseqid sseqid qcovs"],
                 ["align", q, t, "--threads", "2", "-f", "blast6"],
                 ["screen", "-q", data["reads"], "-t", data["windows"], "--threshold", "20", "-f", "sam",
                  "--match", "2", "--mismatch", "-3", "--gap-open", "5", "--gap-extend", "2", "--strand", "both"],
                 ["align", data["proteins"], data["proteins"], "--matrix", "BLOSUM50", "-f", "json"],
                 ["scan", "-q", data["probes"], "-g", data["genome"], "--top", "10"],
                 ["align", data["long_region"], data["long_genome"], "--ends", "20", "-f", "blast6"]):
        done = subprocess.run([sys.executable, "-m", "swgpu", *argv, "--device", "cpu", "-o", out], env=env,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert _state(cache) == before, f"swgpu {argv[0]} compiled kernels that prepare did not"
