"""The CPU end-point rule (Numba) against the NumPy rule it stands for."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu.align.scan_rule import end_points
from swgpu.engines.cpu.scan_points import end_points_fast


def _same(colmax, lo, radius, min_score, own=None):
    hi = lo + colmax.size
    want = end_points(colmax, lo, hi, radius, min_score, own=own)
    got = end_points_fast(colmax, lo, hi, radius, min_score, own=own)
    assert got[0].dtype == np.int64 and got[1].dtype == np.int32
    assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


@settings(max_examples=300, deadline=None)
@given(values=st.lists(st.integers(0, 6), max_size=80), lo=st.integers(0, 50), radius=st.integers(0, 30),
       min_score=st.integers(0, 7), cut=st.tuples(st.integers(-5, 90), st.integers(-5, 90)))
def test_random_small_scores_with_plateaus(values, lo, radius, min_score, cut):
    colmax = np.array(values, np.int32)
    _same(colmax, lo, radius, min_score)
    _same(colmax, lo, radius, min_score, own=(lo + cut[0], lo + cut[1]))


@pytest.mark.parametrize("radius", [1, 2, 7, 64, 256, 5000])
def test_long_records(radius):
    rng = np.random.default_rng(radius)
    colmax = rng.integers(0, 40, 20_000).astype(np.int32)
    colmax[5_000:5_300] = 35  # a plateau
    for min_score in (0, 1, 30, 39, 41):
        _same(colmax, 1_000, radius, min_score)
        _same(colmax, 1_000, radius, min_score, own=(3_000, 12_345))


def test_edges():
    for n in (1, 2, 3):
        for radius in (1, 2, 5):
            for values in np.ndindex(*(3,) * n):
                _same(np.array(values, np.int32), 0, radius, 1)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.integers(0, 6), min_size=1, max_size=60), radius=st.integers(1, 25),
       min_score=st.integers(0, 7), cut=st.tuples(st.integers(0, 60), st.integers(0, 60)))
def test_both_kernels_whatever_the_density(values, radius, min_score, cut):
    from swgpu.engines.cpu.scan_points import _points, _sparse_points

    c = np.array(values, np.int32)
    a, b = min(cut[0], c.size), min(max(cut), c.size)
    want = end_points(c, 0, c.size, radius, min_score, own=(a, b))
    for kernel in (_points, _sparse_points):
        cols, scores = np.empty(c.size, np.int64), np.empty(c.size, np.int32)
        k = kernel(c, a, b, radius, min_score, cols, scores)
        assert cols[:k].tolist() == want[0].tolist() and scores[:k].tolist() == want[1].tolist()
