"""The kernel cache on a GPU: a first process compiles into an empty cache, a
second loads the binaries and runs no compiler; both give the same scores,
and a command run detached (its own child process) gives the same file."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from swgpu.engines import cuda_available

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA GPU"),
]

SCRIPT = """
import sys
import numpy as np
from swgpu.engines.cuda.screen import screen_scores_cuda
rng = np.random.default_rng(5)
q = [rng.integers(0, 4, 120).astype(np.uint8) for _ in range(300)]
t = [rng.integers(0, 4, 500).astype(np.uint8) for _ in range(300)]
s = [screen_scores_cuda(q, t, 2, -3, 5, 2, kernel=k).tolist() for k in ("bitwise", "wordwise", "group")]
compiled = sys.modules["swgpu.engines.cuda.kernel_cache"]._compiled
print(s == [s[0]] * 3, sum(s[0]), bool(compiled))
print("nvrtc loaded:", "cupy_backends.cuda.libs.nvrtc" in sys.modules, file=sys.stderr)
"""


def test_second_process_loads_without_compiling(tmp_path, monkeypatch):
    env = dict(os.environ, SWGPU_CACHE_DIR=str(tmp_path / "cache"))
    first = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
    second = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
    agree, total, compiled = first.stdout.split()
    assert agree == "True" and compiled == "True"
    assert second.stdout.split() == [agree, total, "False"], second.stderr
    assert sorted({p.suffix for p in (tmp_path / "cache").iterdir()}) == [".cubin", ".json"]


def test_detached_command_equals_one_process(tmp_path):
    (tmp_path / "q.fa").write_text(">q1\nACGTACGTACGGTACCA\n>q2\nGGGGATTACA\n")
    (tmp_path / "t.fa").write_text(">t1\nACGTTCGTACGTACCA\n>t2\nCCCCATTACA\n")
    outs = []
    for mode in ("1", "0"):
        out = tmp_path / f"out{mode}.sam"
        cmd = [sys.executable, "-m", "swgpu", "screen", "-q", "q.fa", "-t", "t.fa", "--device", "cuda", "--threshold",
               "0", "-f", "sam", "-o", str(out)]
        done = subprocess.run(cmd, cwd=tmp_path, env=dict(os.environ, SWGPU_DETACH=mode), capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        outs.append([line for line in out.read_text().splitlines() if not line.startswith("@PG")])
    assert outs[0] == outs[1] and len(outs[0]) > 2
