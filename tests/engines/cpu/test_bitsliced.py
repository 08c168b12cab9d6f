"""Bit-sliced (64 pairs per word) and scalar CPU screening kernels against a
pure-Python Gotoh reference."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu.engines.bulk import score_bits
from swgpu.engines.cpu.bitsliced import WORD, screen_scores_bitsliced, screen_scores_scalar
from swgpu.exceptions import InputError, ScoringError

from oracle import N, SCREEN_SCORINGS, gotoh_scores, mixed_pairs, random_pairs, special_pairs

SCORINGS = SCREEN_SCORINGS


@pytest.fixture(scope="module")
def pairs():
    return mixed_pairs(20240607, 150, (0, 40), (0, 40))


@pytest.mark.parametrize("params", SCORINGS, ids=[f"{a}/{b}/{c}/{d}" for a, b, c, d in SCORINGS])
def test_bitsliced_and_scalar_match_reference(pairs, params):
    qs, ts = pairs
    ref = gotoh_scores(qs, ts, params)
    got = screen_scores_bitsliced(qs, ts, *params)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, ref)
    if params[3] <= params[2]:  # the pairwise engine (like every Scoring) needs extend <= open
        np.testing.assert_array_equal(screen_scores_scalar(qs, ts, *params), ref)


def test_special_values(pairs):
    qs, ts = [p[0] for p in special_pairs()], [p[1] for p in special_pairs()]
    got = screen_scores_bitsliced(qs, ts, 2, -3, 5, 2)
    assert got[0] == 80 and got[1] == 74  # identical pairs score m * match
    assert got[2] == 0 and got[3] == 0  # N matches nothing, not even N
    assert got[4] == 2 and got[5] == 0 and got[6] == 2
    assert got[7] == got[8] == got[9] == 0


def test_padding_with_n_never_changes_a_score():
    """Pairs of one word are padded with N to the longest; compare with each pair alone."""
    rng = np.random.default_rng(7)
    qs, ts = random_pairs(rng, WORD + 9, (0, 30), (0, 30), n_frac=0.0)
    for params in [(2, -1, 1, 1), (2, -3, 5, 2), (1, 0, 0, 0)]:
        together = screen_scores_bitsliced(qs, ts, *params)
        alone = np.array([screen_scores_bitsliced([q], [t], *params)[0] for q, t in zip(qs, ts)])
        padded = screen_scores_bitsliced([np.r_[q, [N] * 7].astype(np.uint8) for q in qs],
                                         [np.r_[t, [N] * 11].astype(np.uint8) for t in ts], *params)
        np.testing.assert_array_equal(together, alone)
        np.testing.assert_array_equal(padded, alone)
        np.testing.assert_array_equal(alone, gotoh_scores(qs, ts, params))


def test_many_words_and_batches():
    """More than one batch of 16 words, with mixed shapes."""
    rng = np.random.default_rng(3)
    qs, ts = random_pairs(rng, 16 * WORD + 70, (0, 12), (0, 12))
    params = (2, -3, 5, 2)
    np.testing.assert_array_equal(screen_scores_bitsliced(qs, ts, *params), gotoh_scores(qs, ts, params))


def test_largest_score_needs_exact_bits():
    """min(m, n) * match = 2^k exactly: the bit width must hold it without wrap."""
    for length, match in [(64, 2), (32, 4), (128, 1), (255, 1), (256, 1)]:
        q = np.full(length, 1, np.uint8)
        bound = length * match
        assert score_bits(bound) == bound.bit_length()
        for params in [(match, -1, 1, 1), (match, -3, 5, 2)]:
            assert screen_scores_bitsliced([q], [q.copy()], *params)[0] == bound


def test_strings_and_errors():
    assert screen_scores_bitsliced(["ACGTN"], ["acgtn"], 2, -3, 5, 2).tolist() == [8]
    assert screen_scores_scalar(["ACGTRY"], ["ACGTRY"], 2, -3, 5, 2).tolist() == [8]
    assert screen_scores_bitsliced([], [], 2, -3, 5, 2).shape == (0,)
    with pytest.raises(InputError):
        screen_scores_bitsliced(["ACGT"], [], 2, -3, 5, 2)
    with pytest.raises(InputError):
        screen_scores_bitsliced([np.array([0, 5], np.uint8)], [np.array([0], np.uint8)], 2, -3, 5, 2)
    with pytest.raises(ScoringError):
        screen_scores_bitsliced(["A"], ["A"], 2, 1, 5, 2)
    with pytest.raises(ScoringError):
        screen_scores_bitsliced(["A"], ["A"], 0, -1, 5, 2)
    with pytest.raises(ScoringError):
        screen_scores_scalar(["A"], ["A"], 2, -1, -1, 2)
