"""CUDA bulk screening kernels (bit-sliced BPBC and word-wise DPX) against a
pure-Python Gotoh reference. Every test needs a GPU and CuPy (``-m gpu``)."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu.engines import cuda_available

N = 4
NEG = -(10**9)

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA GPU"),
]

SCORINGS = [
    (2, -1, 1, 1),  # linear (benchmark)
    (2, -3, 5, 2),  # affine (benchmark)
    (1, -2, 1, 3),  # affine, open < extend
    (3, 0, 0, 0),  # free gaps, mismatch 0
]
VARIANTS = [("bitwise", "ballot"), ("bitwise", "swap"), ("wordwise", "ballot")]
VIDS = ["bitwise-ballot", "bitwise-swap", "wordwise"]


def gotoh(q, t, match, mismatch, gap_open, gap_extend) -> int:
    """Best local score, H = max(0, Hdiag + s, E, F), straight from the definition."""
    m = len(q)
    best = 0
    H = [0] * (m + 1)
    E = [NEG] * (m + 1)
    for tj in t:
        diag, f, hup = 0, NEG, 0
        for i in range(m):
            s = match if (q[i] == tj and q[i] != N) else mismatch
            e = max(E[i + 1] - gap_extend, H[i + 1] - gap_open)
            f = max(f - gap_extend, hup - gap_open)
            h = max(0, diag + s, e, f)
            diag, H[i + 1], E[i + 1], hup = H[i + 1], h, e, h
            best = max(best, h)
    return best


def reference(qs, ts, params) -> np.ndarray:
    return np.array([gotoh(q.tolist(), t.tolist(), *params) for q, t in zip(qs, ts)], dtype=np.int32)


def random_pairs(rng, count, m_range, n_range, n_frac=0.05):
    """Random pairs; lengths drawn from the inclusive ranges. Kernels are compiled
    per score width, so each test keeps its lengths to a few widths."""
    qs, ts = [], []
    for i in range(count):
        m = int(rng.integers(m_range[0], m_range[1] + 1))
        n = int(rng.integers(n_range[0], n_range[1] + 1))
        q = rng.integers(0, 4, m).astype(np.uint8)
        t = rng.integers(0, 4, n).astype(np.uint8)
        q[rng.random(m) < n_frac] = N
        t[rng.random(n) < n_frac] = N
        if i % 5 == 0 and min(m, n) > 4:
            a = int(rng.integers(0, min(m, n) // 2))
            t[a : a + min(m, n) // 2] = q[: min(m, n) // 2]
        qs.append(q)
        ts.append(t)
    return qs, ts


def special_pairs():
    A = np.array
    u8 = np.uint8
    return [
        (A([0, 1, 2, 3] * 10, u8), A([0, 1, 2, 3] * 10, u8)),
        (A([2] * 37, u8), A([2] * 37, u8)),
        (A([N] * 12, u8), A([N] * 12, u8)),
        (A([0, N, 1], u8), A([N, N, N, N], u8)),
        (A([1], u8), A([1], u8)),
        (A([1], u8), A([2], u8)),
        (A([3], u8), A([0, 1, 2, 3, 0], u8)),
        (A([], u8), A([0, 1], u8)),
        (A([0, 1], u8), A([], u8)),
        (A([], u8), A([], u8)),
        (A([0, 1, 2, 3, 3, 2, 1, 0] * 9, u8), A([0, 1, 2, 3] * 3, u8)),
        (A([0, 1, 2, 3, 2, 2, 2, 1, 0, 3, 3], u8), A([0, 1, 2, 3, 1, 0, 3, 3], u8)),
    ]


@pytest.fixture(scope="module")
def pairs():
    rng = np.random.default_rng(11)
    qs, ts = random_pairs(rng, 90, (0, 40), (0, 70))
    for q, t in special_pairs():
        qs.append(q)
        ts.append(t)
    return qs, ts


@pytest.fixture(scope="module")
def screen():
    from swgpu.engines.cuda.screen import screen_scores_cuda

    return screen_scores_cuda


@pytest.mark.parametrize("kernel,transpose", VARIANTS, ids=VIDS)
@pytest.mark.parametrize("params", SCORINGS, ids=[f"{a}/{b}/{c}/{d}" for a, b, c, d in SCORINGS])
def test_matches_reference(screen, pairs, kernel, transpose, params):
    qs, ts = pairs
    got = screen(qs, ts, *params, kernel=kernel, transpose=transpose)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, reference(qs, ts, params))


@pytest.mark.parametrize("kernel,transpose", VARIANTS, ids=VIDS)
def test_long_queries_use_strips(screen, kernel, transpose):
    """Queries longer than one strip of registers (and queries longer than targets)."""
    rng = np.random.default_rng(5)
    qs, ts = random_pairs(rng, 40, (150, 300), (129, 150), n_frac=0.02)
    qs += [np.tile(np.arange(4, dtype=np.uint8), 70)]
    ts += [np.tile(np.arange(4, dtype=np.uint8), 70)]
    for params in [(2, -1, 1, 1), (2, -3, 5, 2)]:
        np.testing.assert_array_equal(screen(qs, ts, *params, kernel=kernel, transpose=transpose),
                                      reference(qs, ts, params))


@pytest.mark.parametrize("kernel,transpose", VARIANTS, ids=VIDS)
def test_wide_scores(screen, kernel, transpose):
    """Scores past 16 bits: more bit planes (fewer rows per lane), 32-bit word-wise mode."""
    rng = np.random.default_rng(9)
    qs, ts = random_pairs(rng, 40, (40, 60), (60, 80))
    qs.append(np.full(60, 2, np.uint8))
    ts.append(np.full(60, 2, np.uint8))
    for params in [(1000, -1500, 2000, 300), (700, -900, 800, 800)]:
        np.testing.assert_array_equal(screen(qs, ts, *params, kernel=kernel, transpose=transpose),
                                      reference(qs, ts, params))


def test_bitwise_and_wordwise_agree_on_many_pairs(screen):
    rng = np.random.default_rng(21)
    qs, ts = random_pairs(rng, 3000, (33, 48), (1, 200))
    params = (2, -3, 5, 2)
    a = screen(qs, ts, *params, kernel="bitwise", transpose="ballot")
    b = screen(qs, ts, *params, kernel="wordwise")
    c = screen(qs, ts, *params, kernel="bitwise", transpose="swap")
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    sub = slice(0, 200)
    np.testing.assert_array_equal(a[sub], reference(qs[sub], ts[sub], params))


def test_timed_phases_and_batches():
    from swgpu.engines.cuda.screen import screen_scores_cuda_timed

    rng = np.random.default_rng(4)
    qs, ts = random_pairs(rng, 200, (40, 64), (64, 256), n_frac=0.0)
    params = (2, -1, 1, 1)
    ref = reference(qs[:50], ts[:50], params)
    for kernel in ("bitwise", "wordwise"):
        scores, tm = screen_scores_cuda_timed(qs, ts, *params, kernel=kernel, max_batch_bytes=1 << 14)
        np.testing.assert_array_equal(scores[:50], ref)
        assert len(tm.batches) > 1
        for v in (tm.h2d_ms, tm.transpose_ms, tm.sw_ms, tm.untranspose_ms, tm.d2h_ms):
            assert v >= 0.0
        assert tm.total_ms >= tm.sw_ms > 0.0
        assert tm.cells == sum(q.size * t.size for q, t in zip(qs, ts))
        assert tm.gcups > 0.0


def test_bad_arguments(screen):
    from swgpu.exceptions import EngineError, ScoringError

    with pytest.raises(EngineError):
        screen(["ACGT"], ["ACGT"], 2, -3, 5, 2, kernel="nope")
    with pytest.raises(EngineError):
        screen(["ACGT"], ["ACGT"], 2, -3, 5, 2, transpose="nope")
    with pytest.raises(ScoringError):
        screen(["ACGT"], ["ACGT"], 2, 3, 5, 2)
    assert screen([], [], 2, -3, 5, 2).shape == (0,)
    assert screen(["ACGTN"], ["ACGTN"], 2, -3, 5, 2).tolist() == [8]
