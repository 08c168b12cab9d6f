"""Ungapped Karlin-Altschul parameters of any matrix: BLAST's ungapped rows and
the exact match/mismatch values are reproduced."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu.scoring import ScoreMatrix
from swgpu.scoring.nucleotide import nucleotide_ungapped_values
from swgpu.scoring.tables import INT2_MAX, blast_tables
from swgpu.scoring.ungapped import ROBINSON, background, expected_score, score_probabilities, ungapped_values


@pytest.mark.parametrize("name", ["BLOSUM45", "BLOSUM50", "BLOSUM62", "BLOSUM80", "BLOSUM90",
                                  "PAM30", "PAM70", "PAM250"])
def test_ungapped_rows_of_blast_are_reproduced(name):
    row = blast_tables().protein[name][0]
    assert row[:2] == (INT2_MAX, INT2_MAX)
    lam, K, H = ungapped_values(ScoreMatrix.load(name))
    assert lam == pytest.approx(row[2], abs=6e-5)      # the table's 4 digits
    assert H == pytest.approx(row[4], abs=6e-4)
    assert K == pytest.approx(row[3], rel=0.004)       # BLAST's series is truncated the same way


@pytest.mark.parametrize("reward, penalty", [(1, -1), (1, -2), (1, -3), (2, -3), (2, -5), (4, -5), (5, -4), (3, -2)])
def test_match_mismatch_agrees_with_the_exact_dna_values(reward, penalty):
    lam, K, H = ungapped_values(ScoreMatrix.match_mismatch(reward, penalty))
    ref = nucleotide_ungapped_values(reward, penalty)
    assert lam == pytest.approx(ref[0], rel=1e-9) and H == pytest.approx(ref[2], rel=1e-9)
    assert K == pytest.approx(ref[1], rel=0.003)   # BLAST's 1e-4 limit on the series against 1e-13


def test_nuc44_scores_the_bases_as_5_minus_4():
    a = ungapped_values(ScoreMatrix.load("NUC.4.4"))
    b = ungapped_values(ScoreMatrix.match_mismatch(5, -4))
    assert a == pytest.approx(b, rel=1e-12)


def test_background():
    p = background("protein")
    assert p.sum() == pytest.approx(1.0) and (p > 0).sum() == 20 and not p.flags.writeable
    from swgpu.io.alphabet import PROTEIN

    assert p[PROTEIN.encode("L")[0]] == pytest.approx(ROBINSON["L"] / sum(ROBINSON.values()))
    assert p[PROTEIN.encode("X")[0]] == 0.0
    assert background("dna").tolist() == [0.25, 0.25, 0.25, 0.25, 0.0]


def test_score_probabilities_and_expected_score():
    m = ScoreMatrix.match_mismatch(2, -3)
    low, probs = score_probabilities(m.values, background("dna"))
    assert low == -3 and probs.size == 6
    assert probs[0] == pytest.approx(0.75) and probs[-1] == pytest.approx(0.25)
    assert expected_score(m.values, background("dna")) == pytest.approx(-1.75)


def test_other_compositions():
    m = ScoreMatrix.match_mismatch(1, -1)
    p = np.array([0.4, 0.1, 0.1, 0.4, 0.0])       # AT-rich: matches are likelier
    lam_skewed = ungapped_values(m, p)[0]
    assert 0 < lam_skewed < ungapped_values(m)[0]


def test_no_logarithmic_regime_is_an_error():
    with pytest.raises(ValueError, match="expected score"):
        ungapped_values(ScoreMatrix.match_mismatch(3, -1))   # expected score 3/4 - 3/4 = 0
