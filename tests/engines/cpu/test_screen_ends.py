"""The screen kernel's end cells (``screen_scores_simd(..., ends=...)``) against
:func:`swgpu.engines.cpu.pairwise.sw_end`, which the traceback would run
otherwise: the same score and the same first best cell in row-major order, in
every lane width, through the striped path for sparse batches, with N letters,
ties (repeats) and end rows past what an 8-bit lane counts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu.engines.cpu.pairwise import sw_end
from swgpu.engines.cpu.screen import screen_scores_simd
from swgpu.scoring import Scoring

SCORINGS = [(1, -1, 1, 1), (2, -3, 5, 2), (1, -2, 3, 1), (5, -4, 10, 1), (1, -3, 5, 2)]


def _reference(qs, ts, scoring):
    mt, mm, go, ge = scoring
    matrix = np.ascontiguousarray(Scoring.build("dna", match=mt, mismatch=mm, gap_open=go, gap_extend=ge)
                                  .matrix.values, np.int32)
    return [tuple(int(x) for x in sw_end(q, t, matrix, np.int32(go), np.int32(ge))) if q.size and t.size
            else (-1, -1, -1) for q, t in zip(qs, ts)]


def _ends(qs, ts, scoring, sparse_fill=0.25, threads=2):
    ends = np.full((len(qs), 3), -1, np.int64)
    out, _ = screen_scores_simd(qs, ts, *scoring, threads=threads, sparse_fill=sparse_fill, ends=ends)
    assert all(int(o) == int(e[0]) for o, e, q, t in zip(out, ends, qs, ts) if q.size and t.size)
    return [tuple(int(x) for x in e) for e in ends]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), scoring=st.sampled_from(SCORINGS), related=st.booleans(),
       with_n=st.booleans(), sparse=st.booleans())
def test_ends_equal_the_end_pass(seed, scoring, related, with_n, sparse):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 150))
    qs = [rng.integers(0, 5 if with_n else 4, int(rng.integers(0, 60))).astype(np.uint8) for _ in range(n)]
    ts = [rng.integers(0, 4, int(rng.integers(0, 90))).astype(np.uint8) for _ in range(n)]
    if related:  # repeats: the best score reached in several cells
        ts = [np.concatenate([q, q[::2], q]) if q.size else t for q, t in zip(qs, ts)]
    assert _ends(qs, ts, scoring, 0.9 if sparse else 0.25) == _reference(qs, ts, scoring)


@pytest.mark.parametrize("scoring", [(1, -1, 1, 1), (1, -3, 5, 2)])
def test_end_rows_past_an_8_bit_lane(scoring):
    """Long queries against short targets fit 8-bit lanes; their ends lie past row 255."""
    rng = np.random.default_rng(7)
    ts = [rng.integers(0, 4, int(rng.integers(5, 40))).astype(np.uint8) for _ in range(80)]
    qs = []
    for t in ts:
        pad = rng.integers(0, 4, int(rng.integers(250, 700))).astype(np.uint8)
        at = int(rng.integers(0, pad.size))
        qs.append(np.concatenate([pad[:at], t, pad[at:], t[: t.size // 2]]))
    want = _reference(qs, ts, scoring)
    assert sum(e[1] > 255 for e in want) > 10
    assert _ends(qs, ts, scoring, threads=1) == want


def test_wide_lanes():
    """Identical sequences whose scores need 16- and 32-bit lanes (in lanes, not the striped path)."""
    rng = np.random.default_rng(3)
    qs = [rng.integers(0, 4, k).astype(np.uint8) for k in (10, 200, 3000, 15000)]
    ts = [np.concatenate([q, q]) for q in qs]
    assert _ends(qs, ts, (5, -4, 10, 1), sparse_fill=0.0) == _reference(qs, ts, (5, -4, 10, 1))
