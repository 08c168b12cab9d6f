"""``screen --kernel auto`` on the CPU: the cost model's choice by shape (no
timing here) and exact scores whichever kernel scores a pair."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Scoring
from swgpu.engines.cpu import pairwise
from swgpu.engines.cpu.engine import CpuPairScorer, bitsliced_ns, choose_kernels, scalar_ns
from swgpu.exceptions import InputError

AFFINE = Scoring.default("dna")  # 2/-3, open 5, extend 2
LINEAR = Scoring.build("dna", match=2, mismatch=-1, gap_open=1, gap_extend=1)


def _reference(qs, ts, scoring):
    m = scoring.matrix.values
    return np.array([pairwise.sw_end(q, t, m, scoring.gap_open, scoring.gap_extend)[0] for q, t in zip(qs, ts)],
                    dtype=np.int32)


@pytest.mark.parametrize("affine", [True, False])
def test_long_and_uneven_pairs_go_to_the_scalar_kernel(affine):
    rng = np.random.default_rng(0)
    assert not choose_kernels([10_000], [10_000], 2, affine).any()  # one 10 kbp pair
    assert not choose_kernels([40_000] * 3, [40_000] * 3, 2, affine).any()  # three 40 kbp pairs
    m, n = rng.integers(1, 3001, 3000), rng.integers(1, 3001, 3000)  # P. falciparum-like, 1-3,000 bp
    assert not choose_kernels(m, n, 2, affine).any()


@pytest.mark.parametrize("affine", [True, False])
def test_numerous_similar_short_pairs_go_to_the_bitsliced_kernel(affine):
    rng = np.random.default_rng(1)
    m = np.full(20_000, 150)  # GASAL2-like read pairs
    n = rng.integers(152, 278, 20_000)
    assert choose_kernels(m, n, 2, affine).mean() > 0.9
    assert not choose_kernels([150] * 3, [250] * 3, 2, affine).any()  # too few to fill the words


def test_costs_grow_with_their_work():
    assert bitsliced_ns(16, 150, 250, 9, True, 1024) < bitsliced_ns(16, 300, 250, 9, True, 1024)
    assert bitsliced_ns(1, 150, 250, 9, True, 1) < bitsliced_ns(1, 150, 250, 16, True, 1)
    assert bitsliced_ns(16, 150, 250, 9, False, 1024) < bitsliced_ns(16, 150, 250, 9, True, 1024)
    assert scalar_ns(10**6, 1) < scalar_ns(10**6, 2) < scalar_ns(2 * 10**6, 2)


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
    scorer = CpuPairScorer(scoring, "auto")
    got = scorer.scores(qs, ts)
    assert scorer.last_kernels == {"bitwise": 1024, "wordwise": 2}
    np.testing.assert_array_equal(got, _reference(qs, ts, scoring))
    np.testing.assert_array_equal(CpuPairScorer(scoring, "wordwise").scores(qs[:600], ts[:600]), got[:600])


def test_auto_keeps_empty_pairs_and_strings():
    scorer = CpuPairScorer(AFFINE, "auto")
    assert scorer.scores(["ACGTACGT", "", "AC"], ["ACGTACGT", "ACGT", ""]).tolist() == [16, 0, 0]
    assert scorer.scores([], []).tolist() == []


def test_auto_errors_name_the_pair_in_the_whole_input():
    qs = [np.zeros(10, np.uint8)] * 3000 + [np.full(10, 9, np.uint8)]
    ts = [np.zeros(10, np.uint8)] * 3001
    with pytest.raises(InputError) as err:
        CpuPairScorer(AFFINE, "auto").scores(qs, ts)
    assert "query 3000" in str(err.value)
    with pytest.raises(InputError) as err:
        CpuPairScorer(AFFINE, "auto").scores(qs[:2], ts[:3])
    assert err.value.param == "targets"
