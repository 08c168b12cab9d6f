"""The SIMD column maxima of ``scan`` (:mod:`swgpu.engines.cpu.scan_striped`)
against the scalar kernel and the brute-force matrix: random DNA and protein,
``N``/``X`` letters, empty and one-letter sequences, passes starting inside
the target, many tiles, stretches and row blocks, long gaps, and scores past
8 and 16 bits (re-run in wider lanes, then back to narrow ones)."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swgpu import Scoring
from swgpu.engines.cpu.scan_kernels import column_maxima, query_profile
from swgpu.engines.cpu.scan_striped import _transpose64, column_maxima_striped

import scan_oracle

SETTINGS = {"deadline": None, "suppress_health_check": list(HealthCheck), "derandomize": True}
DNA_SCORINGS = [Scoring.default("dna"), Scoring.build("dna", match=1, mismatch=-2, gap_open=6, gap_extend=1),
                Scoring.build("dna", match=3, mismatch=-1, gap_open=2, gap_extend=2),  # open == extend
                Scoring.build("dna", match=2, mismatch=-3, gap_open=4, gap_extend=0),  # free extension
                Scoring.build("dna", match=9, mismatch=-7, gap_open=12, gap_extend=3)]  # 8 bits: 28 matches
PROTEIN = Scoring.default("protein")


def _scalar(q, t, scoring, lo=0, hi=None):
    hi = len(t) if hi is None else hi
    out = np.zeros(hi - lo, np.int32)
    prof = query_profile(np.asarray(q, dtype=np.intp), np.ascontiguousarray(scoring.matrix.values, dtype=np.int32))
    column_maxima(prof, t, lo, hi, scoring.gap_open, scoring.gap_extend, out)
    return out


def _striped(q, t, scoring, lo=0, hi=None, **geometry):
    hi = len(t) if hi is None else hi
    out = np.full(hi - lo, -7, np.int32)
    column_maxima_striped(q, np.ascontiguousarray(scoring.matrix.values, dtype=np.int32), t, lo, hi,
                          scoring.gap_open, scoring.gap_extend, out, **geometry)
    return out


@st.composite
def cases(draw):
    protein = draw(st.booleans())
    scoring = PROTEIN if protein else draw(st.sampled_from(DNA_SCORINGS))
    size = scoring.matrix.values.shape[0]
    letters = draw(st.sampled_from([2, 4, size]))  # few letters: repeats, ties, long matches
    m = draw(st.sampled_from([0, 1, 2, draw(st.integers(0, 40)), draw(st.integers(0, 300))]))
    n = draw(st.sampled_from([0, 1, draw(st.integers(0, 200)), draw(st.integers(0, 2500)),
                              draw(st.integers(4000, 13000))]))  # whole 4,096-column tiles
    if n > 2500:
        m = min(m, 40)
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    q = rng.integers(0, letters, m).astype(np.uint8)
    t = rng.integers(0, letters, n).astype(np.uint8)
    if m and n and draw(st.booleans()):  # copies of query parts in the target
        a = int(rng.integers(0, m))
        part = q[a:a + int(rng.integers(1, m + 1))]
        at = int(rng.integers(0, n))
        t = np.concatenate([t[:at], part, t[at:]])[:max(n, part.size)]
    if draw(st.booleans()) and t.size:  # N / X runs
        at = int(rng.integers(0, t.size))
        t[at:at + int(rng.integers(1, 30))] = size - 1 if not protein else 22  # N, X
    lo = draw(st.sampled_from([0, 0, draw(st.integers(0, t.size))]))
    geometry = draw(st.sampled_from([{}, {"stretch": draw(st.integers(1, 700)), "block": draw(st.integers(1, 40))}]))
    return q, t, scoring, lo, geometry


@given(cases())
@settings(max_examples=400, **SETTINGS)
def test_equals_the_scalar_kernel(case):
    q, t, scoring, lo, geometry = case
    got = _striped(q, t, scoring, lo, **geometry)
    assert got.tolist() == _scalar(q, t, scoring, lo).tolist()
    if q.size * (t.size - lo) <= 6000:
        assert got.tolist() == scan_oracle.column_maxima(q, t[lo:], scoring).tolist()


def test_long_gaps_across_tiles_and_stretches():
    rng = np.random.default_rng(5)
    scoring = Scoring.build("dna", match=2, mismatch=-3, gap_open=5, gap_extend=1)
    a, b = rng.integers(0, 4, 150).astype(np.uint8), rng.integers(0, 4, 150).astype(np.uint8)
    # the target holds the query with 100 letters inserted; the query holds the target with 120
    q = np.concatenate([a, b])
    t = np.concatenate([rng.integers(0, 4, 90), a, rng.integers(0, 4, 100), b, rng.integers(0, 4, 900)]).astype(np.uint8)
    q2 = np.concatenate([a, rng.integers(0, 4, 120).astype(np.uint8), b])
    for query in (q, q2):
        want = _scalar(query, t, scoring)
        assert want.max() > 2 * 150 + 100  # only the gapped alignment scores that
        for geometry in ({}, {"stretch": 64, "block": 7}, {"stretch": 200, "block": 300}):
            assert _striped(query, t, scoring, **geometry).tolist() == want.tolist()


def test_scores_past_8_and_16_bits_and_back():
    """A 3,300-letter copy scoring 66,000 (32-bit lanes) in a long random
    target: the stretches around it are re-run wider, those after it go back."""
    rng = np.random.default_rng(9)
    scoring = Scoring.build("dna", match=20, mismatch=-30, gap_open=40, gap_extend=20)
    q = rng.integers(0, 4, 3300).astype(np.uint8)
    t = np.concatenate([rng.integers(0, 4, 3000), q[:700], rng.integers(0, 4, 500), q, q[:7],
                        rng.integers(0, 4, 7000)]).astype(np.uint8)
    want = _scalar(q, t, scoring)
    assert want.max() == 66_000
    for geometry in ({}, {"stretch": 1000}, {"stretch": 3000, "block": 100}):
        assert _striped(q, t, scoring, **geometry).tolist() == want.tolist()
    assert _striped(q, t, scoring, 4000).tolist() == _scalar(q, t, scoring, 4000).tolist()


def test_identical_40_kbp_pair():
    """Scores up to 80,000: every column's best is the diagonal, 2 per letter."""
    rng = np.random.default_rng(40)
    s = rng.integers(0, 4, 40_000).astype(np.uint8)
    got = _striped(s, s, Scoring.default("dna"))
    assert got.tolist() == (2 * np.arange(1, s.size + 1)).tolist()


def test_byte_transpose():
    src = np.random.default_rng(1).integers(0, 256, 5000).astype(np.uint8)
    dst = np.zeros(4200, np.uint8)
    _transpose64(src, 7, dst, 100, np.zeros(8192, np.uint8))
    assert (dst[100:4196].reshape(64, 64) == src[7:4103].reshape(64, 64).T).all()
    assert not dst[:100].any() and not dst[4196:].any()
