"""The global last-row pass on threads (:mod:`swgpu.engines.cpu.global_threads`)
against the one-thread striped pass and the scalar row kernel: DNA and
protein, 16- and 32-bit lanes, leading gaps of either cost, one-row and
one-block queries, parts of one tile to many, more parts than cores."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swgpu import Scoring
from swgpu.engines.cpu import global_threads, pairwise
from swgpu.engines.cpu.global_kernel import nw_last_row
from swgpu.engines.cpu.global_threads import nw_last_row_threads

SETTINGS = {"deadline": None, "suppress_health_check": list(HealthCheck), "derandomize": True}
SCORINGS = [Scoring.default("dna"), Scoring.default("protein"),
            Scoring.build("dna", match=1, mismatch=-1, gap_open=1, gap_extend=1),
            Scoring.build("dna", match=5, mismatch=-4, gap_open=9, gap_extend=0)]


@given(seed=st.integers(0, 2 ** 32 - 1), scoring=st.sampled_from(SCORINGS), threads=st.integers(2, 4),
       m=st.sampled_from([1, 2, 255, 256, 257, 900]), n=st.integers(9_000, 40_000), lead=st.booleans())
@settings(max_examples=25, **SETTINGS)
def test_equals_one_thread_and_the_row_kernel(monkeypatch, seed, scoring, threads, m, n, lead):
    monkeypatch.setattr(global_threads, "_cores", lambda: 4)
    rng = np.random.default_rng(seed)
    k = scoring.matrix.values.shape[0]
    a = rng.integers(0, k, m).astype(np.uint8)
    b = rng.integers(0, k, n).astype(np.uint8)
    if m > 10:  # a related stretch: large scores along a diagonal
        b[100:100 + m] = a
    matrix = np.ascontiguousarray(scoring.matrix.values, dtype=np.int32)
    lead_open = scoring.gap_open if lead else scoring.gap_extend
    got = nw_last_row_threads(a, b, matrix, scoring.gap_open, scoring.gap_extend, lead_open, threads)
    want = nw_last_row(a, b, matrix, scoring.gap_open, scoring.gap_extend, lead_open)
    assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()
    if m * n <= 2_000_000:
        ref = pairwise.nw_last_row(a, b, matrix, scoring.gap_open, scoring.gap_extend, lead_open)
        assert got[0].tolist() == np.asarray(ref[0]).tolist() and got[1].tolist() == np.asarray(ref[1]).tolist()


def test_32_bit_lanes():
    """A 3,000-letter identical stretch with a large match score: past the 16-bit lanes."""
    scoring = Scoring.build("dna", match=20, mismatch=-30, gap_open=40, gap_extend=20)
    rng = np.random.default_rng(3)
    a = rng.integers(0, 4, 3000).astype(np.uint8)
    b = np.concatenate([rng.integers(0, 4, 500), a, rng.integers(0, 4, 30_000)]).astype(np.uint8)
    matrix = np.ascontiguousarray(scoring.matrix.values, dtype=np.int32)
    got = nw_last_row_threads(a, b, matrix, 40, 20, 40, 2)
    want = nw_last_row(a, b, matrix, 40, 20, 40)
    assert int(np.max(got[0])) > 1 << 15
    assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


@pytest.mark.parametrize("n", [100, 5000])
def test_few_tiles_run_on_one_thread(n):
    scoring = Scoring.default("dna")
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 4, 300).astype(np.uint8), rng.integers(0, 4, n).astype(np.uint8)
    matrix = np.ascontiguousarray(scoring.matrix.values, dtype=np.int32)
    got = nw_last_row_threads(a, b, matrix, 5, 2, 5, 8)
    want = nw_last_row(a, b, matrix, 5, 2, 5)
    assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()
