"""CUDA bulk screening kernels (bit-sliced BPBC, word-wise DPX and the
thread-group DPX kernel) against a pure-Python Gotoh reference. Every test needs a GPU and CuPy (``-m gpu``)."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu.engines import cuda_available

from oracle import SCREEN_SCORINGS, gotoh_scores, mixed_pairs, random_pairs

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA GPU"),
]

SCORINGS = SCREEN_SCORINGS[:4]
VARIANTS = [("bitwise", "ballot"), ("bitwise", "swap"), ("wordwise", "ballot"), ("group", "ballot")]
VIDS = ["bitwise-ballot", "bitwise-swap", "wordwise", "group"]


@pytest.fixture(scope="module")
def pairs():
    return mixed_pairs(11, 90, (0, 40), (0, 70))


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
    np.testing.assert_array_equal(got, gotoh_scores(qs, ts, params))


@pytest.mark.parametrize("kernel,transpose", VARIANTS, ids=VIDS)
def test_long_queries_use_strips(screen, kernel, transpose):
    """Queries longer than one strip of registers (and queries longer than targets)."""
    rng = np.random.default_rng(5)
    qs, ts = random_pairs(rng, 40, (150, 300), (129, 150), n_frac=0.02)
    qs += [np.tile(np.arange(4, dtype=np.uint8), 70)]
    ts += [np.tile(np.arange(4, dtype=np.uint8), 70)]
    for params in [(2, -1, 1, 1), (2, -3, 5, 2)]:
        np.testing.assert_array_equal(screen(qs, ts, *params, kernel=kernel, transpose=transpose),
                                      gotoh_scores(qs, ts, params))


@pytest.mark.parametrize("kernel,transpose", VARIANTS, ids=VIDS)
def test_wide_scores(screen, kernel, transpose):
    """Scores past 16 bits: more bit planes (fewer rows per lane), 32-bit word-wise mode."""
    rng = np.random.default_rng(9)
    qs, ts = random_pairs(rng, 40, (40, 60), (60, 80))
    qs.append(np.full(60, 2, np.uint8))
    ts.append(np.full(60, 2, np.uint8))
    for params in [(1000, -1500, 2000, 300), (700, -900, 800, 800)]:
        np.testing.assert_array_equal(screen(qs, ts, *params, kernel=kernel, transpose=transpose),
                                      gotoh_scores(qs, ts, params))


def test_bitwise_and_wordwise_agree_on_many_pairs(screen):
    rng = np.random.default_rng(21)
    qs, ts = random_pairs(rng, 3000, (33, 48), (1, 200))
    params = (2, -3, 5, 2)
    a = screen(qs, ts, *params, kernel="bitwise", transpose="ballot")
    b = screen(qs, ts, *params, kernel="wordwise")
    c = screen(qs, ts, *params, kernel="bitwise", transpose="swap")
    d = screen(qs, ts, *params, kernel="group")
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    np.testing.assert_array_equal(a, d)
    sub = slice(0, 200)
    np.testing.assert_array_equal(a[sub], gotoh_scores(qs[sub], ts[sub], params))


def test_timed_phases_and_batches():
    from swgpu.engines.cuda.screen import screen_scores_cuda_timed

    rng = np.random.default_rng(4)
    qs, ts = random_pairs(rng, 200, (40, 64), (64, 256), n_frac=0.0)
    params = (2, -1, 1, 1)
    ref = gotoh_scores(qs[:50], ts[:50], params)
    for kernel in ("bitwise", "wordwise", "group"):
        scores, tm = screen_scores_cuda_timed(qs, ts, *params, kernel=kernel, max_batch_bytes=1 << 14)
        np.testing.assert_array_equal(scores[:50], ref)
        assert len(tm.batches) > 1
        for v in (tm.h2d_ms, tm.transpose_ms, tm.sw_ms, tm.untranspose_ms, tm.d2h_ms):
            assert v >= 0.0
        assert tm.total_ms > 0.0 and tm.sw_ms > 0.0  # batches overlap: their sum may pass the span
        assert tm.cells == sum(q.size * t.size for q, t in zip(qs, ts))
        assert tm.gcups > 0.0


def test_bad_arguments(screen):
    from swgpu.exceptions import EngineError, ScoringError

    with pytest.raises(EngineError):
        screen(["ACGT"], ["ACGT"], 2, -3, 5, 2, kernel="nope")
    with pytest.raises(EngineError):
        screen(["ACGT"], ["ACGT"], 2, -3, 5, 2, transpose="nope")
    from swgpu.engines.cuda.screen import screen_scores_cuda_timed

    with pytest.raises(EngineError):
        screen_scores_cuda_timed(["ACGT"], ["ACGT"], 2, -3, 5, 2, kernel="group", group_size=6)
    with pytest.raises(ScoringError):
        screen(["ACGT"], ["ACGT"], 2, 3, 5, 2)
    assert screen([], [], 2, -3, 5, 2).shape == (0,)
    assert screen(["ACGTN"], ["ACGTN"], 2, -3, 5, 2).tolist() == [8]


# ----------------------------------------------------------------------------
# The group kernel: every group size, several passes, 16/32-bit lanes
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("group_size", [4, 8, 16, 32])
@pytest.mark.parametrize("params", [SCORINGS[1], SCORINGS[3]], ids=["2/-3/5/2", "3/0/0/0"])
def test_group_sizes(pairs, group_size, params):
    """Every group size on the mixed pairs (all-N, length 1, empty, unequal lengths)."""
    from swgpu.engines.cuda.screen import screen_scores_cuda_timed

    qs, ts = pairs
    got, tm = screen_scores_cuda_timed(qs, ts, *params, kernel="group", group_size=group_size)
    np.testing.assert_array_equal(got, gotoh_scores(qs, ts, params))
    assert all(b["group_size"] == group_size for b in tm.batches)


@pytest.mark.parametrize("group_size", [4, 8])
def test_group_several_passes(group_size):
    """Queries longer than one tile of G*R rows: the boundary row goes through global memory."""
    from swgpu.engines.cuda.screen import screen_scores_cuda_timed

    rng = np.random.default_rng(31)
    qs, ts = random_pairs(rng, 24, (140, 160), (150, 280), n_frac=0.03)
    qs += [np.tile(np.arange(4, dtype=np.uint8), 40)]
    ts += [np.tile(np.arange(4, dtype=np.uint8), 40)]
    for params in [(2, -1, 1, 1), (2, -3, 5, 2), (1000, -1500, 2000, 300)]:
        got, tm = screen_scores_cuda_timed(qs, ts, *params, kernel="group", group_size=group_size)
        assert max(b["strips"] for b in tm.batches) > 1
        np.testing.assert_array_equal(got, gotoh_scores(qs, ts, params))


def test_group_long_queries_default_shape(screen):
    """Queries past the largest tile (32 x 16 rows): several passes with the default shape."""
    rng = np.random.default_rng(32)
    qs, ts = random_pairs(rng, 4, (530, 600), (560, 640), n_frac=0.02)
    params = (2, -3, 5, 2)
    np.testing.assert_array_equal(screen(qs, ts, *params, kernel="group"), gotoh_scores(qs, ts, params))


@pytest.mark.parametrize("match", [2, 30, 33])
def test_group_identical_pairs(screen, match):
    """Identical pairs reach the largest scores: 30 * 1000 still uses 16-bit lanes, 33 * 1000 needs 32-bit."""
    rng = np.random.default_rng(33)
    base = rng.integers(0, 4, 1000).astype(np.uint8)
    qs = [base, base[:700], base[:333], np.full(1000, 2, np.uint8)]
    ts = [base.copy(), base[:700].copy(), base[:333].copy(), np.full(1000, 2, np.uint8)]
    got = screen(qs, ts, match, -3, 5, 2, kernel="group")
    np.testing.assert_array_equal(got, [1000 * match, 700 * match, 333 * match, 1000 * match])


@pytest.mark.parametrize("params", [(2, -3, 5, 2), (2, -1, 1, 1)], ids=["affine", "linear"])
def test_group_matches_cpu_on_read_like_pairs(screen, params):
    """A few thousand pairs shaped like the GASAL2 reads (150 x 152..277) against the CPU kernels."""
    from swgpu.engines.cpu import bitsliced

    rng = np.random.default_rng(34)
    qs, ts = random_pairs(rng, 3000, (150, 150), (152, 277), n_frac=0.01)
    for i in range(0, 3000, 7):  # read-like: the query mostly inside the target
        a = int(rng.integers(0, ts[i].size - 150 + 1))
        ts[i][a : a + 150] = qs[i]
        ts[i][a + int(rng.integers(0, 150))] = int(rng.integers(0, 5))
    got = screen(qs, ts, *params, kernel="group")
    np.testing.assert_array_equal(got, bitsliced.screen_scores_bitsliced(qs, ts, *params))
    np.testing.assert_array_equal(got, screen(qs, ts, *params, kernel="wordwise"))
    sub = slice(0, 40)
    np.testing.assert_array_equal(got[sub], gotoh_scores(qs[sub], ts[sub], params))


def test_screener_auto_picks_group():
    from swgpu import Scoring, Sequence
    from swgpu.workloads.screen import Screener

    rng = np.random.default_rng(35)
    qs, ts = random_pairs(rng, 50, (20, 150), (150, 277))
    letters = np.array(list("ACGTN"))
    queries = [Sequence.from_text(f"q{i}", "".join(letters[q])) for i, q in enumerate(qs)]
    targets = [Sequence.from_text(f"t{i}", "".join(letters[t])) for i, t in enumerate(ts)]
    scoring = Scoring.default("dna")
    scr = Screener(scoring, device="cuda")
    got = scr.scores(queries, targets)
    assert scr.last_timings.kernel == "group"
    params = (scr.match, scr.mismatch, scoring.gap_open, scoring.gap_extend)
    np.testing.assert_array_equal(got, gotoh_scores([q.codes for q in queries], [t.codes for t in targets], params))


@pytest.mark.parametrize("m", [64, 100, 128])
@pytest.mark.parametrize("params", [(2, -3, 5, 2), (2, -1, 1, 1)], ids=["affine", "linear"])
def test_group_default_shape_matches_cpu_on_benchmark_shapes(screen, m, params):
    """The default group shape for the benchmark's query lengths (e.g. 8 threads x 16 rows at m = 128)."""
    from swgpu.engines.cpu.bitsliced import screen_scores_bitsliced

    rng = np.random.default_rng(m)
    qs = list(rng.integers(0, 5, size=(1500, m), dtype=np.uint8))
    ts = list(rng.integers(0, 4, size=(1500, 700), dtype=np.uint8))
    for k in range(0, 1500, 7):  # plant related targets so scores are large
        ts[k] = np.concatenate([ts[k][:200], qs[k], ts[k][200 + m:]])
    np.testing.assert_array_equal(screen(qs, ts, *params, kernel="group"), screen_scores_bitsliced(qs, ts, *params))


@pytest.mark.parametrize("kernel", ["bitwise", "wordwise", "group"])
@pytest.mark.parametrize("pageable", [0, 1 << 30])
def test_pair_batch_equals_lists_across_staging_chunks(monkeypatch, kernel, pageable):
    """A PairBatch gives the scores of the lists it holds, also when its codes
    cross many staging chunks and waves of the pinned ring, or are copied
    without a ring (pageable)."""
    from swgpu.engines.bulk import PairBatch
    from swgpu.engines.cuda import staging
    from swgpu.engines.cuda.screen import screen_scores_cuda

    monkeypatch.setattr(staging.Stager, "CHUNK", 4096)
    monkeypatch.setattr(staging.Stager, "SLOTS", 3)
    monkeypatch.setattr(staging.Stager, "PAGEABLE_MAX", pageable)
    staging._stagers.clear()
    rng = np.random.default_rng(12)
    qs, ts = random_pairs(rng, 300, (0, 80), (0, 300))
    params = (2, -3, 5, 2)
    want = screen_scores_cuda(qs, ts, *params, kernel=kernel)
    got = screen_scores_cuda(PairBatch.from_lists(qs, ts), None, *params, kernel=kernel)
    staging._stagers.clear()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(want[:40], gotoh_scores(qs[:40], ts[:40], params))


def test_pair_batch_bad_codes_are_found():
    """Codes above N are found on the GPU, whatever their value."""
    from swgpu.engines.bulk import PairBatch
    from swgpu.engines.cuda.screen import screen_scores_cuda
    from swgpu.exceptions import InputError

    b = PairBatch.from_lists(["ACGT", "AC"], ["ACGT", "TTTT"])
    for code in (5, 9, 200):
        bad = PairBatch(b.qcodes, b.qoff, b.tcodes.copy(), b.toff)
        bad.tcodes[6] = code
        with pytest.raises(InputError, match=f"target 1: DNA codes must be 0..4.*got {code}"):
            screen_scores_cuda(bad, None, 2, -3, 5, 2, kernel="group")
    # the stager is usable after a failed call
    np.testing.assert_array_equal(screen_scores_cuda(b, None, 2, -3, 5, 2, kernel="group"), [8, 0])


def test_pair_batch_bad_code_is_found_on_the_gpu():
    from swgpu.engines.bulk import PairBatch
    from swgpu.engines.cuda.screen import screen_scores_cuda
    from swgpu.exceptions import InputError

    b = PairBatch.from_lists(["ACGT", "AC"], ["ACGT", "TTTT"])
    bad = PairBatch(b.qcodes, b.qoff, b.tcodes.copy(), b.toff)
    bad.tcodes[6] = 9
    with pytest.raises(InputError, match="target 1: DNA codes must be 0..4"):
        screen_scores_cuda(bad, None, 2, -3, 5, 2, kernel="group")
