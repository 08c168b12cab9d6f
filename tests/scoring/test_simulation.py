"""The island simulation against BLAST's tabulated gapped parameters (full
simulations: a few seconds each, so marked slow), and its cheap invariants."""

from __future__ import annotations

import math

import numpy as np
import pytest

from swgpu.scoring import ScoreMatrix, simulation
from swgpu.scoring.karlin import lookup_blast


def _matrix(name: str) -> ScoreMatrix:
    if name.startswith("match"):
        reward, penalty = name[5:].split("/mismatch")
        return ScoreMatrix.match_mismatch(int(reward), int(penalty))
    return ScoreMatrix.load(name)


def _evalue_ratio(est, ref, evalue: float) -> float:
    """Simulated over tabulated E-value at the score that has ``evalue`` with
    the table for a query of 300 against 10^7 residues."""
    score = (math.log(ref.K * 300 * 1e7) - math.log(evalue)) / ref.lambda_
    return est.K * math.exp(-est.lambda_ * score) / (ref.K * math.exp(-ref.lambda_ * score))


@pytest.mark.slow
@pytest.mark.parametrize("name, existence, extension", [
    # (a few of the tabulated scorings: each is seconds of CI time; docs/statistics.md has them all)
    ("BLOSUM62", 11, 1), ("BLOSUM50", 13, 2), ("PAM30", 9, 1), ("PAM250", 14, 2), ("match2/mismatch-3", 5, 2),
])
def test_simulation_reproduces_blast_tables(name, existence, extension):
    ref = lookup_blast(name, existence, extension)
    est = simulation.estimate(_matrix(name), existence + extension, extension)
    assert est is not None
    assert est.lambda_ == pytest.approx(ref.lambda_, rel=0.05)
    for e in (10.0, 1e-3, 1e-6):
        assert 1 / 3 <= _evalue_ratio(est, ref, e) <= 3, e      # PAM250: 0.36 at 1e-6 (the tables disagree)


def test_small_simulation_is_sane():
    m = ScoreMatrix.load("BLOSUM62")
    est = simulation.estimate(m, 12, 1, cells=simulation.PAIR_LENGTH ** 2 * 2)
    ref = lookup_blast("BLOSUM62", 11, 1)
    assert est.lambda_ == pytest.approx(ref.lambda_, rel=0.15) and est.alpha > 0 and est.cells == 2 * 4000 ** 2
    assert est.cutoff > 0 and est.islands >= 1000


def test_expensive_gaps_approach_the_ungapped_values():
    from swgpu.scoring.ungapped import ungapped_values

    m = ScoreMatrix.match_mismatch(1, -3)
    est = simulation.estimate(m, 9000, 9000, cells=simulation.PAIR_LENGTH ** 2 * 2)
    lam, K, H = ungapped_values(m)
    assert est.lambda_ == pytest.approx(lam, rel=0.05)
    assert est.K == pytest.approx(K, rel=0.3)


def test_lattice():
    assert simulation._lattice(np.array([[2, -4], [-4, 2]]), 6, 2) == 2
    assert simulation._lattice(np.array([[2, -3], [-3, 2]]), 5, 2) == 1
