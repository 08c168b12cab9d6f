"""``benchmarks/screen_vs_parasail.py``: swgpu's CPU screen and parasail on the same pairs, scores compared."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[3]


def test_runs_both_and_finds_the_scores_equal(tmp_path):
    pytest.importorskip("parasail")
    rng = np.random.default_rng(4)
    with open(tmp_path / "pairs_query.fa", "w") as q, open(tmp_path / "pairs_target.fa", "w") as t:
        for k in range(60):
            read = "".join(rng.choice(list("ACGT"), 50))
            window = "".join(rng.choice(list("ACGT"), 10)) + read[:20] + "G" + read[20:] + "TTAC"
            q.write(f">r{k} pair {k}\n{read}\n")
            t.write(f">w{k}\n{window if k % 5 else 'N' * 30}\n")  # (every fifth: no alignment, no SAM record)
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "screen_vs_parasail.py"), str(tmp_path),
                          "--threads", "1", "--check", "60"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "scores: 60 of the first 60 pairs equal" in out.stdout
