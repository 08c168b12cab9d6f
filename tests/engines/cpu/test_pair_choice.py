"""``screen --kernel auto`` on the CPU: full batches run one pair per SIMD
lane, sparse ones (few or very uneven pairs) one pair per vector; exact
scores whichever path scores a pair, in the lanes each batch's bound needs."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Scoring
from swgpu.engines.cpu import pairwise
from swgpu.engines.cpu.engine import SPARSE_FILL, CpuPairScorer
from swgpu.engines.cpu.screen import batch_fill, plan_batches, screen_scores_simd
from swgpu.exceptions import InputError

from oracle import SCREEN_SCORINGS, gotoh_scores, mixed_pairs

AFFINE = Scoring.default("dna")  # 2/-3, open 5, extend 2
LINEAR = Scoring.build("dna", match=2, mismatch=-1, gap_open=1, gap_extend=1)


def _reference(qs, ts, scoring):
    """The row kernel, itself checked against the reference aligner (tests/align)."""
    m = scoring.matrix.values
    return np.array([pairwise.sw_end(q, t, m, scoring.gap_open, scoring.gap_extend)[0] for q, t in zip(qs, ts)],
                    dtype=np.int32)


def test_lane_types_follow_the_largest_possible_score():
    plan = plan_batches(np.array([10] * 70 + [200] * 40), np.array([12] * 70 + [300] * 40), 2, -3)
    assert {np.dtype(t).name: [b.size for b in v] for t, v in plan.items()} == {
        "uint8": [64, 6], "uint16": [32, 8]}
    plan = plan_batches(np.array([20_000]), np.array([20_000]), 4, -3)  # 80,000 does not fit 16 bits
    assert list(plan) == [np.uint32]
    assert batch_fill(np.array([100] * 32), np.array([150] * 32), 32) == 1.0
    assert batch_fill(np.array([40_000] * 3), np.array([40_000] * 3), 32) < SPARSE_FILL


@pytest.mark.parametrize("params", SCREEN_SCORINGS, ids=[f"{a}/{b}/{c}/{d}" for a, b, c, d in SCREEN_SCORINGS])
@pytest.mark.parametrize("threads", [1, 2])
def test_lanes_match_reference(params, threads):
    qs, ts = mixed_pairs(20240611, 130, (0, 45), (0, 60))
    got, one = screen_scores_simd(qs, ts, *params, threads=threads)
    assert got.dtype == np.int32 and one == 0
    np.testing.assert_array_equal(got, gotoh_scores(qs, ts, params))


def test_parts_of_a_long_list_score_as_one():
    qs, ts = mixed_pairs(3, 9000, (0, 30), (0, 40))
    whole, _ = screen_scores_simd(qs, ts, 2, -3, 5, 2, threads=1)
    parts, _ = screen_scores_simd(qs, ts, 2, -3, 5, 2, threads=2, sparse_fill=0.3)
    np.testing.assert_array_equal(parts, whole)
    np.testing.assert_array_equal(whole[:300], gotoh_scores(qs[:300], ts[:300], (2, -3, 5, 2)))


@pytest.mark.parametrize("scoring", [AFFINE, LINEAR], ids=["affine", "linear"])
def test_auto_splits_pairs_and_scores_exactly(scoring):
    rng = np.random.default_rng(2)
    short = [(rng.integers(0, 4, 100).astype(np.uint8), rng.integers(0, 4, 150).astype(np.uint8))
             for _ in range(1024)]
    for q, t in short[::7]:
        t[20:80] = q[:60]  # some high-scoring pairs
    long = [(rng.integers(0, 4, 2000).astype(np.uint8), rng.integers(0, 4, 2500).astype(np.uint8)) for _ in range(2)]
    long[0][1][100:1100] = long[0][0][500:1500]
    pairs = short[:500] + long + short[500:]
    qs, ts = [p[0] for p in pairs], [p[1] for p in pairs]
    scorer = CpuPairScorer(scoring, "auto", threads=2)
    got = scorer.scores(qs, ts)
    assert scorer.last_kernels == {"lanes": 1024, "striped": 2}
    np.testing.assert_array_equal(got, _reference(qs, ts, scoring))
    np.testing.assert_array_equal(CpuPairScorer(scoring, "wordwise").scores(qs[:300], ts[:300]), got[:300])
    np.testing.assert_array_equal(CpuPairScorer(scoring, "bitwise").scores(qs[:300], ts[:300]), got[:300])


def test_auto_keeps_empty_pairs_and_strings():
    scorer = CpuPairScorer(AFFINE, "auto")
    assert scorer.scores(["ACGTACGT", "", "AC"], ["ACGTACGT", "ACGT", ""]).tolist() == [16, 0, 0]
    assert scorer.scores(["ACGTNACGT"], ["ACGTNACGT"]).tolist() == [13]  # 8 - 3 + 8: N matches nothing, not even N
    assert scorer.scores([], []).tolist() == []


@pytest.mark.parametrize("threads", [1, 2])
def test_auto_errors_name_the_pair_in_the_whole_input(threads):
    qs = [np.zeros(10, np.uint8)] * 5000 + [np.full(10, 9, np.uint8)]  # past one part of the pipeline
    ts = [np.zeros(10, np.uint8)] * 5001
    with pytest.raises(InputError) as err:
        CpuPairScorer(AFFINE, "auto", threads).scores(qs, ts)
    assert "query 5000" in str(err.value)
    with pytest.raises(InputError) as err:
        CpuPairScorer(AFFINE, "auto").scores(qs[:2], ts[:3])
    assert err.value.param == "targets"


@pytest.mark.parametrize("kernel", ["auto", "bitwise", "wordwise"])
def test_pair_batch_alone(kernel):
    from swgpu.engines.bulk import PairBatch

    qs, ts = mixed_pairs(7, 40, (0, 30), (0, 40))
    scorer = CpuPairScorer(AFFINE, kernel)
    np.testing.assert_array_equal(scorer.scores(PairBatch.from_lists(qs, ts)), scorer.scores(qs, ts))
    bad = PairBatch(np.array([0, 9], np.uint8), np.array([0, 2]), np.array([0], np.uint8), np.array([0, 1]))
    if kernel == "auto":
        with pytest.raises(InputError):
            scorer.scores(bad)
